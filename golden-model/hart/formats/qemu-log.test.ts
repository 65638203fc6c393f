/**
 * The QEMU log import on captured logs of the fixture programs (test-fixtures/qemu, README.md
 * there) and on hand-written excerpts for each rule and each error message.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RvError } from '../../common/errors.ts';
import { checkContinuity } from '../continuity.ts';
import { parseElf } from '../elf.ts';
import { ProgramImage } from '../image.ts';
import { beq, csrrw, ecall, jal, jalr, mret, nop, sret } from '../isa/encode.ts';
import { emptyRecord, Itype, Priv, type RetirementRecord } from '../records.ts';
import type { Xlen } from '../stream.ts';
import { convertQemuLog, convertQemuLogText, QemuLogConverter, type QemuLogOptions } from './qemu-log.ts';

const FIXTURES = new URL('../test-fixtures/qemu/', import.meta.url);
const fixtureLines = (name: string): string[] => {
  const lines = readFileSync(new URL(name, FIXTURES), 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

async function importFixture(name: 'rv64' | 'rv32') {
  const elf = parseElf(readFileSync(new URL(`${name}.elf`, FIXTURES)), `${name}.elf`);
  const result = await convertQemuLog(fixtureLines(`${name}-qemu.txt`), { image: elf.image, xlen: elf.xlen, entry: elf.entry, fileName: `${name}-qemu.txt` });
  return { elf, ...result };
}

describe('QEMU log import: captured logs of the fixture programs', () => {
  it('rv64: every kind of step, privileges, and a stream consistent with the image', async () => {
    const { elf, stream, stats } = await importFixture('rv64');
    expect(stats).toEqual({ lines: 541, instructions: 505, exceptions: 5, interrupts: 3, bootInstructions: 6, cancelled: 10, otherLines: 0, assumedPrivileges: 0, truncated: false });
    expect(stream.xlen).toBe(64);
    expect(stream.retiresPerCycle).toBe(1);
    expect(stream.image).toBe(elf.image);
    const rs = stream.records;
    expect(rs.length).toBe(510);
    expect(rs[0]!.iaddr).toBe(elf.entry);
    expect(rs.map((r) => r.time)).toEqual(rs.map((_, i) => BigInt(i)));
    expect(checkContinuity(rs, stream.image, 64)).toEqual([]);

    const at = (addr: bigint): RetirementRecord => rs.find((r) => r.iaddr === addr)!;
    const jump = (addr: bigint) => [at(addr).itype, at(addr).sijump, at(addr).iretire];
    expect(jump(0x8000_0034n)).toEqual([Itype.uninferableCall, true, 2]); // call leaf: auipc ra; jalr ra
    expect(jump(0x8000_0038n)).toEqual([Itype.inferableCall, false, 2]); // jal leaf2
    expect(jump(0x8000_0044n)).toEqual([Itype.uninferableCall, false, 1]); // c.jalr t2 after la (auipc; addi)
    expect(jump(0x8000_0050n)).toEqual([Itype.coRoutineSwap, false, 2]); // jalr ra, 0(t0)
    expect(jump(0x8000_0104n)).toEqual([Itype.coRoutineSwap, false, 2]); // jalr t0, 0(ra)
    expect(jump(0x8000_0054n)).toEqual([Itype.otherInferableJump, false, 2]); // jal t1
    expect(jump(0x8000_010an)).toEqual([Itype.uninferableTailCall, false, 1]); // jr t1
    expect(jump(0x8000_0112n)).toEqual([Itype.uninferableTailCall, true, 2]); // tail: auipc t1; jr t1
    expect(jump(0x8000_00f8n)).toEqual([Itype.return, false, 1]); // c.jr ra
    expect(jump(0x8000_00fen)).toEqual([Itype.return, false, 2]); // jalr x0, 0(ra)
    // The first loop's inner branch alternates; the loop branch is taken 4 times, then not.
    expect(rs.filter((r) => r.iaddr === 0x8000_0022n).map((r) => r.itype)).toEqual([5, 4, 5, 4, 5]);
    expect(rs.filter((r) => r.iaddr === 0x8000_0028n).map((r) => r.itype)).toEqual([5, 5, 5, 5, 4]);

    const traps = rs.filter((r) => r.itype === Itype.exception || r.itype === Itype.interrupt);
    const trap = (r: RetirementRecord) => ({ iaddr: r.iaddr, itype: r.itype, iretire: r.iretire, ilastsize: r.ilastsize, priv: r.priv, cause: r.cause, tval: r.tval });
    expect(traps.map(trap)).toEqual([
      // Pending when mret enters U-mode: taken before the first U-mode instruction; its privilege
      // (U) is the MPP that mret restored, known once the handler returns there.
      { iaddr: 0x8000_008an, itype: 2, iretire: 0, ilastsize: 1, priv: Priv.U, cause: 7, tval: 0n },
      { iaddr: 0x8000_008cn, itype: 1, iretire: 2, ilastsize: 1, priv: Priv.U, cause: 8, tval: 0n }, // ecall retires
      { iaddr: 0x8000_0090n, itype: 1, iretire: 0, ilastsize: 1, priv: Priv.U, cause: 2, tval: 0x6bn }, // illegal: does not
      { iaddr: 0x8000_0094n, itype: 1, iretire: 0, ilastsize: 1, priv: Priv.U, cause: 2, tval: 0n }, // c.unimp
      { iaddr: 0x8000_0098n, itype: 1, iretire: 2, ilastsize: 1, priv: Priv.U, cause: 8, tval: 0n },
      { iaddr: 0x8000_00a8n, itype: 2, iretire: 0, ilastsize: 1, priv: Priv.U, cause: 7, tval: 0n }, // in the U-mode loop
      { iaddr: 0x8000_00b0n, itype: 1, iretire: 2, ilastsize: 1, priv: Priv.U, cause: 8, tval: 0n },
      { iaddr: 0x8000_00d2n, itype: 2, iretire: 0, ilastsize: 1, priv: Priv.M, cause: 7, tval: 0n }, // after the wfi
    ]);
    // U-mode code runs at U, everything else at M.
    for (const r of rs) expect(r.priv, `record at 0x${r.iaddr.toString(16)}`).toBe(r.iaddr >= 0x8000_008an && r.iaddr < 0x8000_00b6n ? Priv.U : Priv.M);
    // The wfi retired; the exit store is the last record.
    expect(at(0x8000_00cen).iretire).toBe(2);
    expect(rs[rs.length - 1]).toEqual({ ...emptyRecord(), iaddr: 0x8000_00e0n, iretire: 2, ilastsize: 1, time: 509n });
  });

  it('rv32: a branch spinning on itself until a timer interrupt (Stopped execution of TB chain)', async () => {
    const { stream, stats } = await importFixture('rv32');
    expect(stats).toEqual({ lines: 418, instructions: 393, exceptions: 3, interrupts: 1, bootInstructions: 6, cancelled: 7, otherLines: 0, assumedPrivileges: 0, truncated: false });
    const rs = stream.records;
    expect(checkContinuity(rs, stream.image, 32)).toEqual([]);
    const spins = rs.filter((r) => r.iaddr === 0x8000_0088n && r.iretire > 0);
    expect(spins.length).toBeGreaterThan(100);
    // Taken every time it ran; the interrupt comes before the next run (that block was entered, then stopped).
    expect(spins.every((r) => r.itype === Itype.takenBranch && r.iretire === 1)).toBe(true);
    const irq = rs.findIndex((r) => r.itype === Itype.interrupt);
    expect(rs[irq]).toMatchObject({ iaddr: 0x8000_0088n, iretire: 0, priv: Priv.M, cause: 7 });
    expect(rs[irq - 1]!.iaddr).toBe(0x8000_0088n);
    expect(rs.find((r) => r.iaddr === 0x8000_001en)).toMatchObject({ itype: Itype.inferableCall, iretire: 1 }); // c.jal
    expect(rs.find((r) => r.iaddr === 0x8000_0050n)).toMatchObject({ itype: Itype.exception, iretire: 0, cause: 2, tval: 0x6bn, priv: Priv.U });
  });

  it('reads Trace lines outside the common form (no 0x before the host address, long fields) to the same stream', async () => {
    // The common form is read by a fast path; these lines take the general, character by character reading.
    const elf = parseElf(readFileSync(new URL('rv64.elf', FIXTURES)), 'rv64.elf');
    const opts = { image: elf.image, xlen: elf.xlen, entry: elf.entry, fileName: 'rv64-qemu.txt' };
    const lines = fixtureLines('rv64-qemu.txt');
    const other = lines.map((l) => l.replace(/^Trace 0: 0x(\S+) \[/, 'Trace 0: $1 [').replace(/\/([0-9a-f]+)\]/, '/0000$1]'));
    expect(other.filter((l, i) => l !== lines[i]).length).toBeGreaterThan(500);
    const common = await convertQemuLog(lines, opts);
    const general = await convertQemuLog(other, opts);
    expect(general.stats).toEqual(common.stats);
    expect(general.stream.records).toEqual(common.stream.records);
  });

  it('reads the log from pieces of its text (cut at line ends, CRLF or LF) to the same stream as line by line', async () => {
    const elf = parseElf(readFileSync(new URL('rv64.elf', FIXTURES)), 'rv64.elf');
    const opts = { image: elf.image, xlen: elf.xlen, entry: elf.entry, fileName: 'rv64-qemu.txt' };
    const lines = fixtureLines('rv64-qemu.txt');
    const byLine = await convertQemuLog(lines, opts);
    for (const [newline, every] of [['\n', 1], ['\n', 7], ['\r\n', 100], ['\n', lines.length]] as const) {
      const pieces: string[] = [];
      for (let i = 0; i < lines.length; i += every) pieces.push(lines.slice(i, i + every).map((l) => l + newline).join(''));
      const byPiece = convertQemuLogText(pieces, opts);
      expect(byPiece.stats).toEqual(byLine.stats);
      expect(byPiece.stream.records).toEqual(byLine.stream.records);
    }
    // The last line without its newline.
    const unended = convertQemuLogText([lines.join('\n')], opts);
    expect(unended.stream.records).toEqual(byLine.stream.records);
  });

  it('stops after --max-instructions, with the last branch outcome from the step after it', async () => {
    const elf = parseElf(readFileSync(new URL('rv64.elf', FIXTURES)), 'rv64.elf');
    const opts = { image: elf.image, xlen: elf.xlen, entry: elf.entry, fileName: 'rv64-qemu.txt' };
    const full = (await convertQemuLog(fixtureLines('rv64-qemu.txt'), opts)).stream.records;
    for (const n of [1, 11, 200]) {
      const { stream, stats } = await convertQemuLog(fixtureLines('rv64-qemu.txt'), { ...opts, maxInstructions: n });
      expect(stats.instructions).toBe(n);
      expect(stats.truncated).toBe(true);
      expect(stream.records).toEqual(full.slice(0, stream.records.length));
      expect(stream.records[stream.records.length - 1]!.iretire).toBeGreaterThan(0);
    }
    // Stopping right after the first bnez at 0x80000028: taken, as the step after it shows.
    const i = full.findIndex((r) => r.iaddr === 0x8000_0028n);
    const { stream } = await convertQemuLog(fixtureLines('rv64-qemu.txt'), { ...opts, maxInstructions: i + 1 });
    expect(stream.records.length).toBe(i + 1);
    expect(stream.records[i]).toMatchObject({ iaddr: 0x8000_0028n, itype: Itype.takenBranch });
  });
});

// --- excerpts ----------------------------------------------------------------------------------

const BASE = 0x8000_0000n;

/** A program of encodings laid out from BASE (16-bit ones take 2 bytes). */
function program(...encodings: number[]): ProgramImage {
  const bytes: number[] = [];
  for (const e of encodings) {
    const n = (e & 3) === 3 ? 4 : 2;
    for (let i = 0; i < n; i++) bytes.push((e >>> (8 * i)) & 0xff);
  }
  return new ProgramImage([{ base: BASE, bytes: Uint8Array.from(bytes) }]);
}

const h = (v: bigint, xlen: Xlen): string => v.toString(16).padStart(xlen / 4, '0');
/** A Trace line at BASE + offset with the privilege in the TB flags. */
const T = (offset: number, priv = 3, xlen: Xlen = 64, cflags = 'ff020201'): string =>
  `Trace 0: 0x7f2a40000100 [${h(0n, xlen)}/${h(BASE + BigInt(offset), xlen)}/${((xlen === 64 ? 0x0020_9000 : 0x0010_9000) | priv).toString(16).padStart(8, '0')}/${cflags}] `;
const boot = (xlen: Xlen = 64): string => `Trace 0: 0x7f2a40000000 [${h(0n, xlen)}/${h(0x1000n, xlen)}/${(xlen === 64 ? 0x0020_9003 : 0x0010_9003).toString(16).padStart(8, '0')}/ff020201] `;
const INT = (async: 0 | 1, cause: number, epc: bigint, tval = 0n, xlen: Xlen = 64): string =>
  `riscv_cpu_do_interrupt: hart:0, async:${async}, cause:${h(BigInt(cause), xlen)}, epc:0x${h(epc, xlen)}, tval:0x${h(tval, xlen)}, desc=x`;
const STOPPED = (offset: number): string => `Stopped execution of TB chain before 0x7f2a40000100 [${h(BASE + BigInt(offset), 64)}] `;
const REWOUND = (offset: number): string => `cpu_io_recompile: rewound execution of TB to ${h(BASE + BigInt(offset), 64)}`;

function convert(image: ProgramImage, lines: string[], extra: Partial<QemuLogOptions> = {}) {
  const c = new QemuLogConverter({ image, xlen: 64, entry: BASE, fileName: 'x.log', ...extra });
  for (const l of lines) c.line(l);
  return c.finish();
}

const brief = (r: RetirementRecord) => [Number(r.iaddr - BASE), r.itype, r.iretire, r.priv];

describe('QEMU log import: excerpts', () => {
  it('skips the boot code, drops blocks that did not run, and ignores other lines', () => {
    // 0 nop; 4 beq x0, x0, +8; 8 nop; c nop
    const image = program(nop(), beq(0, 0, 8), nop(), nop());
    const { stream, stats } = convert(image, [boot(), boot(), T(0), 'Linking TBs 0x1 index 0 -> 0x2', T(4), REWOUND(4), T(4), T(12), STOPPED(12), T(12)]);
    expect(stream.records.map(brief)).toEqual([
      [0, 0, 2, 3],
      [4, Itype.takenBranch, 2, 3],
      [12, 0, 2, 3],
    ]);
    expect(stats).toMatchObject({ instructions: 3, bootInstructions: 2, cancelled: 2, otherLines: 1 });
  });

  it('tells apart pcs 8 KiB apart (the same slot of the pc cache)', () => {
    // 0 jal x0, +8192; 4 .. 8188 nop; 8192 jal x0, -8192
    const image = program(jal(0, 8192), ...Array.from({ length: 2047 }, () => nop()), jal(0, -8192));
    const { stream } = convert(image, [T(0), T(8192), T(0), T(8192), T(0)]);
    expect(stream.records.map((r) => [Number(r.iaddr - BASE), r.iretire])).toEqual([
      [0, 2],
      [8192, 2],
      [0, 2],
      [8192, 2],
      [0, 2],
    ]);
  });

  it('ecall retires and traps; any other exception did not retire; a fetch fault fetched nothing', () => {
    // 0 nop; 4 ecall; 8 jalr x0, 0(t1); c nop
    const image = program(nop(), ecall(), jalr(0, 6, 0), nop());
    const { stream } = convert(image, [
      T(0), INT(0, 2, BASE, 0x13n), // the nop "faults" (cause 2): did not retire
      T(4), INT(0, 11, BASE + 4n), // ecall in M-mode: cause 11, retires
      T(8), INT(0, 1, 0x9000_0000n, 0x9000_0000n), // jalr to unmapped memory: the jalr retired, the fetch there faulted
      T(12),
    ]);
    expect(stream.records.map((r) => [Number(r.iaddr & 0xffff_ffffn), r.itype, r.iretire, r.cause, r.tval])).toEqual([
      [0x8000_0000, Itype.exception, 0, 2, 0x13n],
      [0x8000_0004, Itype.exception, 2, 11, 0n],
      [0x8000_0008, Itype.uninferableTailCall, 2, 0, 0n],
      [0x9000_0000, Itype.exception, 0, 1, 0x9000_0000n],
      [0x8000_000c, 0, 2, 0, 0n],
    ]);
  });

  it('derives the privilege at an interrupt right after mret from the MPP the handler restores', () => {
    // 0 csrrw x0, mstatus, t0; 4 mret; 8 nop (U); c nop (handler, M); 10 mret
    const image = program(csrrw(0, 0x300, 5), mret(), nop(), nop(), mret());
    const lines = [T(0), T(4), INT(1, 7, BASE + 8n), T(12), T(16), T(8, 0)];
    expect(convert(image, lines).stream.records.map(brief)).toEqual([
      [0, 0, 2, 3],
      [4, Itype.trapReturn, 2, 3],
      [8, Itype.interrupt, 0, 0], // completed when the nop at 8 runs in U-mode
      [12, 0, 2, 3],
      [16, Itype.trapReturn, 2, 3],
      [8, 0, 2, 0],
    ]);
  });

  it('takes an underivable privilege from the instruction the handler returns to at the EPC (counted)', () => {
    // 0 csrrw x0, mstatus, t0; 4 mret; 8 nop. The interrupt comes right after the mret, whose MPP
    // a CSR write set; the handler rewrites mstatus (0) and returns (4) to 8, which runs in U-mode.
    const image = program(csrrw(0, 0x300, 5), mret(), nop());
    const { stream, stats } = convert(image, [T(0), T(4), INT(1, 7, BASE + 8n), T(0), T(4), T(8, 0)]);
    expect(stream.records.map(brief)).toEqual([
      [0, 0, 2, 3],
      [4, Itype.trapReturn, 2, 3],
      [8, Itype.interrupt, 0, 0],
      [0, 0, 2, 3],
      [4, Itype.trapReturn, 2, 3],
      [8, 0, 2, 0],
    ]);
    expect(stats.assumedPrivileges).toBe(1);
  });

  it('follows delegation: a trap whose handler runs in S-mode saves the privilege in SPP', () => {
    // 0 csrrw x0, medeleg, t0; 4 mret -> 8 in U-mode; 8 ecall -> a handler at 12 that the TB flags
    // show in S-mode; 12 sret -> 16, back in U-mode (the SPP the trap saved); 16 nop
    const image = program(csrrw(0, 0x302, 5), mret(), ecall(), sret(), nop());
    const lines = [T(0), T(4), T(8, 0), INT(0, 8, BASE + 8n), T(12, 1), T(16, 0)];
    expect(convert(image, lines).stream.records.map(brief)).toEqual([
      [0, 0, 2, 3],
      [4, Itype.trapReturn, 2, 3],
      [8, Itype.exception, 2, 0],
      [12, Itype.trapReturn, 2, 1],
      [16, 0, 2, 0],
    ]);
  });

  it('reads RV32 logs (8-digit fields)', () => {
    const image = program(nop(), jal(0, -4));
    const lines = [T(0, 3, 32), T(4, 3, 32), T(0, 3, 32), INT(1, 7, BASE + 4n, 0n, 32)];
    expect(convert(image, lines, { xlen: 32 }).stream.records.map(brief)).toEqual([
      [0, 0, 2, 3],
      [4, Itype.inferableTailCall, 2, 3],
      [0, 0, 2, 3],
      [4, Itype.interrupt, 0, 3],
    ]);
  });

  describe('malformed or unexpected logs (each error names the line)', () => {
    const image = program(nop(), nop(), beq(0, 0, 8), ecall(), csrrw(0, 0x300, 5), mret(), nop(), 0x0000_003f);
    // offsets: 0 nop, 4 nop, 8 beq -> 16, 12 ecall, 16 csrw mstatus, 20 mret, 24 nop, 28 (48-bit encoding)
    const cases: [string, string[], string, number, Partial<QemuLogOptions>?][] = [
      ['a malformed Trace line', ['Trace 0: 0x1 [0/1]'], 'malformed Trace line, expected "Trace <cpu>: <host address> [<cs_base>/<pc>/<flags>/<cflags>]"', 1],
      ['a Trace line without its closing bracket', ['Trace 0: 0x1 [0/80000000/200003/1'], 'malformed Trace line, expected "Trace <cpu>: <host address> [<cs_base>/<pc>/<flags>/<cflags>]"', 1],
      ['a Trace line with a non-hex pc', ['Trace 0: 0x1 [0/8000000g/200003/1]'], 'malformed Trace line, expected "Trace <cpu>: <host address> [<cs_base>/<pc>/<flags>/<cflags>]"', 1],
      ['a Trace line without a CPU number', ['Trace : 0x1 [0/80000000/200003/1]'], 'malformed Trace line, expected "Trace <cpu>: <host address> [<cs_base>/<pc>/<flags>/<cflags>]"', 1],
      ['a second CPU', [T(0), T(4).replace('Trace 0:', 'Trace 1:')], 'Trace line of CPU 1: only single-hart programs (CPU 0) are supported', 2],
      [
        'blocks of several instructions',
        [T(0, 3, 64, 'ff020000')],
        'the translation block at 0x80000000 may hold any number of instructions (cflags 0xff020000): the log then shows only the first instruction of each block; run QEMU with -singlestep',
        1,
      ],
      [
        'TB flags of another XLEN',
        [T(0, 3, 32).replace('00000000/80000000', '0000000000000000/0000000080000000')],
        'TB flags 0x109003 at 0x80000000: XL (bits 21:20) is 1, expected 2 for RV64: either the log is not from QEMU 7.2 (whose TB flags layout this import reads), the ELF class does not match the QEMU binary, or the program changed XLEN (not supported)',
        1,
      ],
      ['virtualization mode', [T(0, 4)], 'TB flags 0x209004 at 0x80000000: virtualization mode (H extension) is not supported', 1],
      ['privilege 2', [T(0, 2)], 'TB flags 0x209002 at 0x80000000: privilege 2 is reserved', 1],
      ['a cancellation of another block', [T(0), STOPPED(4)], 'Stopped execution line for 0x80000004, but the last block entered is at 0x80000000', 2],
      ['a cancellation with nothing entered', [T(0), STOPPED(0), REWOUND(0)], 'cpu_io_recompile line for 0x80000000, but the last block entered was already accounted for', 3],
      ['a malformed trap line', [T(0), 'riscv_cpu_do_interrupt: hart:0, async:1'], 'malformed riscv_cpu_do_interrupt line, expected "riscv_cpu_do_interrupt: hart:<n>, async:<0|1>, cause:<hex>, epc:0x<hex>, tval:0x<hex>, desc=<name>"', 2],
      ['a trap on another hart', [T(0), INT(1, 7, BASE + 4n).replace('hart:0', 'hart:1')], 'trap on hart 1: only single-hart programs (hart 0) are supported', 2],
      ['async 2', [T(0), INT(1, 7, BASE + 4n).replace('async:1', 'async:2')], 'async:2, expected 0 or 1', 2],
      [
        'an exception away from the instruction entered',
        [T(0), INT(0, 2, BASE + 4n)],
        'exception cause 2 (x) at 0x80000004, but QEMU did not log entering the instruction there (the last one entered is at 0x80000000); only instruction fetch faults (causes 1, 12, 20) happen before an instruction is entered',
        2,
      ],
      ['a cause wider than 32 bits', [T(0), INT(1, 0, BASE + 4n).replace('cause:0000000000000000', 'cause:0000000100000007')], 'cause 0x100000007 does not fit in 32 bits', 2],
      ['a pc beyond XLEN', [T(0, 3, 32).replace('/80000000/', '/180000000/')], 'pc 0x180000000 does not fit in 32 bits (the ELF is 32-bit)', 1, { xlen: 32 }],
      ['a pc outside the image', [T(0), T(4), T(0x100)], "QEMU executed 0x80000100, which the ELF's loadable segments do not hold (code outside the program, or copied at run time?)", 3],
      [
        'an encoding longer than 32 bits',
        [T(24), T(28), T(24)],
        'instruction at 0x8000001c: instruction parcel 0x003f starts an encoding longer than 32 bits, which is not supported',
        2,
        { entry: BASE + 24n },
      ],
      [
        'a branch to neither successor nor target',
        [T(8), T(24)],
        'beq at 0x80000008 is followed by 0x80000018, which is neither its target 0x80000010 nor its successor 0x8000000c',
        2,
        { entry: BASE + 8n },
      ],
      ['a sequential instruction followed by a jump', [T(0), T(8)], 'addi at 0x80000000 is followed by 0x80000008, not by its successor 0x80000004', 2],
      [
        'a privilege change without a trap',
        [T(0), T(4, 0)],
        'the TB flags say the instruction at 0x80000004 ran in U-mode, but the privilege derived from the log is M-mode, set by the instruction at 0x80000000 on line 1',
        2,
      ],
      [
        'a trap handler in S-mode without delegation',
        [T(0), INT(1, 7, BASE + 4n), T(4, 1)],
        'the TB flags say the instruction at 0x80000004 ran in S-mode, but the privilege derived from the log is M-mode, set by the trap on line 2, which goes to M-mode as no CSR instruction wrote medeleg or mideleg',
        3,
      ],
      ['an ecall cause of another privilege', [T(12), INT(0, 8, BASE + 12n)], 'ecall at 0x8000000c raised cause 8, but the TB flags say it ran in M-mode (cause 11)', 2, { entry: BASE + 12n }],
      ['a log that never reaches the entry', [boot(), boot()], 'the log never reaches the ELF entry 0x80000000 (2 instructions before it)', 2],
      [
        'a privilege that cannot be derived',
        // csrw mstatus; mret; interrupt at 24 (privilege = the written MPP); the handler writes
        // mstatus again and returns elsewhere (to 0, in U-mode)
        [T(16), T(20), INT(1, 7, BASE + 24n), T(16), T(20), T(0, 0)],
        'the privilege at the interrupt before 0x80000018 cannot be derived from the log: it is mstatus.MPP as written by the CSR instruction at 0x80000010 (line 1), restored by the mret at 0x80000014 (line 2), no instruction ran at that privilege before the value was overwritten, and no trap return came back to 0x80000018',
        3,
        { entry: BASE + 16n },
      ],
    ];
    it.each(cases)('%s', (_, lines, message, line, extra) => {
      let error: unknown;
      try {
        convert(image, lines, extra);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RvError);
      expect((error as RvError).message).toBe(message);
      expect((error as RvError).location).toEqual({ file: 'x.log', line });
      // The same error at the same line when the log is read from its text (CRLF newlines).
      expect(() => convertQemuLogText([lines.map((l) => `${l}\r\n`).join('')], { image, xlen: 64, entry: BASE, fileName: 'x.log', ...extra })).toThrow(
        expect.objectContaining({ message, location: { file: 'x.log', line } }),
      );
    });
  });
});
