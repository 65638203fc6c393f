/**
 * The derivation on QEMU runs of small fixture programs (records checked field by field against
 * what the programs do), and its self-checks on logs altered by hand: a derivation that cannot
 * vouch for a record stops with an error naming the log line. Skipped without the cross compiler
 * or QEMU.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RvError } from '../../golden-model/common/errors.ts';
import { parseElf, type ElfProgram } from '../../golden-model/hart/elf.ts';
import { FIXTURE_DIR } from '../../golden-model/hart/test-fixtures/qemu/build.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { recordPcs } from './check.ts';
import { buildTvFixture, toolsAvailable } from './test-fixtures/build.ts';
import { deriveTvFromLines, traceProgramTv, type TvTrace } from './trace.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-tv-derive-'));
const hex = (v: bigint): string => `0x${v.toString(16)}`;
const at = (t: Pick<TvTrace, 'records' | 'pcs'>, pc: bigint): TvRecord[] => t.records.filter((_, i) => t.pcs[i] === pc);

describe.skipIf(!toolsAvailable())('derivation from QEMU runs', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let rv64: TvTrace;
  let rv32: TvTrace;
  let tv64: TvTrace;
  let rv32Log: string[];
  beforeAll(async () => {
    rv64 = await traceProgramTv(join(FIXTURE_DIR, 'rv64.elf'));
    const log = join(dir, 'rv32.log');
    rv32 = await traceProgramTv(join(FIXTURE_DIR, 'rv32.elf'), { keepLog: log });
    rv32Log = readFileSync(log, 'latin1').split('\n');
    if (rv32Log[rv32Log.length - 1] === '') rv32Log.pop();
    tv64 = await traceProgramTv(buildTvFixture('tv64', dir));
  });

  it('rv64 fixture: instructions, stores, traps, interrupts and xRETs as the program does them', () => {
    const sym = (name: string): bigint => rv64.elf.symbols.find((s) => s.name === name)!.value;
    expect(rv64.records[0]).toEqual({ kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0000_0297 }, gpr: { reg: 5, value: 0x8000_0000n } });
    // csrw mtvec, t0
    expect(rv64.records[2]).toEqual({ kind: 'instruction', nextPc: 0x8000_000cn, instr: { size: 32, bits: 0x3052_9073 }, csrs: [{ csr: 0x305, value: sym('trap_vector') }] });
    expect(rv64.pcs).toEqual(recordPcs(rv64.records, rv64.elf.entry));
    // mret into U-mode with a timer interrupt pending: the xRET, then the interrupt at its target.
    const user = sym('user');
    const i = rv64.records.findIndex((r) => r.kind === 'xret' && r.nextPc === user);
    expect(rv64.records[i]).toMatchObject({ kind: 'xret', priv: 0 });
    expect(rv64.records[i + 1]).toMatchObject({ kind: 'interrupt', nextPc: sym('trap_vector'), priv: 3, cause: 0x8000_0000_0000_0007n, epc: user, tval: 0n });
    // ecall from U, the reserved opcode (tval = its bits), c.unimp (16-bit, tval 0).
    const traps = rv64.records.filter((r) => r.kind === 'trap');
    expect(traps.map((t) => [t.cause, t.instr?.bits, t.tval])).toEqual([
      [8n, 0x73, 0n],
      [2n, 0x6b, 0x6bn],
      [2n, 0x0000, 0n],
      [8n, 0x73, 0n],
      [8n, 0x73, 0n],
    ]);
    expect(traps.every((t) => t.priv === 3 && t.nextPc === sym('trap_vector'))).toBe(true);
    // The wfi retires; the interrupt that ends it has the next instruction as its epc.
    const wfi = rv64.records.findIndex((r) => r.kind === 'instruction' && r.instr?.bits === 0x1050_0073);
    expect(rv64.records[wfi + 1]).toMatchObject({ kind: 'interrupt', epc: rv64.pcs[wfi]! + 4n });
    // sw t6, 0(t5) in the handler: the flag at `flag`.
    const store = rv64.records.find((r) => r.kind === 'instruction' && r.storeData !== undefined && r.eaddr === sym('flag'));
    expect(store).toMatchObject({ eaddr: sym('flag'), paddr: sym('flag'), storeData: { bytes: 4, value: 1n } });
    expect(rv64.stats).toMatchObject({ traps: 5, interrupts: 3, xrets: 9 });
  });

  it('rv32 fixture: XLEN 32 values, the spin loop ended by an interrupt', () => {
    expect(rv32.elf.xlen).toBe(32);
    for (const r of rv32.records) {
      if (r.kind === 'instruction' && r.gpr) expect(r.gpr.value >> 32n).toBe(0n);
    }
    expect(rv32.stats).toMatchObject({ interrupts: 1, traps: 3 });
    expect(rv32.records[rv32.records.length - 1]).toMatchObject({ kind: 'instruction', eaddr: 0x10_0000n, storeData: { bytes: 4, value: 0x5555n } });
  });

  it('tv64 fixture: floating point with fflags and mstatus, AMOs, lr/sc, a trap into S-mode, sret', () => {
    const recs = tv64.records;
    const byInstr = (bits: number): TvRecord[] => recs.filter((r) => 'instr' in r && r.instr?.bits === bits);
    // fdiv.d fa2, fa0, fa1 = 1/3: NX; Flute's F_FRD reports fflags and mstatus (FS Dirty).
    expect(byInstr(0x1ab5_7653)[0]).toMatchObject({ fpr: { reg: 12, value: 0x3fd5_5555_5555_5555n }, csrs: [{ csr: 1, value: 1n }, { csr: 0x300, value: 0x8000_000a_0000_6000n }] });
    // fcvt.s.d ft8, fa4 (DBL_MAX): OF|NX, and a NaN-boxed infinity.
    expect(byInstr(0x4017_7e53)[0]).toMatchObject({ fpr: { reg: 28, value: 0xffff_ffff_7f80_0000n }, csrs: [{ csr: 1, value: 5n }, { csr: 0x300 }] });
    const amodata = tv64.elf.symbols.find((s) => s.name === 'amodata')!.value;
    // amoadd.d a0, t1, (s1): memory 0x100 + 5; amoswap.w a1, t1, (s1); amoadd.w zero, t1, (s1): 5 + 5.
    expect(byInstr(0x0064_b52f)[0]).toMatchObject({ gpr: { reg: 10, value: 0x100n }, eaddr: amodata, storeData: { bytes: 8, value: 0x105n } });
    expect(byInstr(0x0864_a5af)[0]).toMatchObject({ gpr: { reg: 11, value: 0x105n }, storeData: { bytes: 4, value: 5n } });
    expect(byInstr(0x0064_a02f)[0]).toMatchObject({ storeData: { bytes: 4, value: 0xan } });
    // sc.d: the first succeeds (rd 0, store data), the second fails (rd 1, no store).
    const sc = recs.filter((r) => r.kind === 'instruction' && r.instr?.bits !== undefined && (r.instr.bits & 0xf800707f) === 0x1800302f);
    expect(sc.map((r) => (r.kind === 'instruction' ? [r.gpr?.value, r.storeData?.value] : []))).toEqual([
      [0n, (1n << 64n) - 7n],
      [1n, undefined],
    ]);
    // The ecall from U delegated to S: sstatus (the S view of mstatus), scause 8, sepc, stval.
    const sTrap = recs.find((r) => r.kind === 'trap' && r.priv === 1);
    expect(sTrap).toMatchObject({ kind: 'trap', cause: 8n, tval: 0n, instr: { size: 32, bits: 0x73 } });
    expect(sTrap!.kind === 'trap' && (sTrap!.status & ~0x8000_0003_000d_e762n)).toBe(0n);
    const srets = recs.filter((r) => r.kind === 'xret' && r.instr?.bits === 0x1020_0073);
    expect(srets.map((r) => r.kind === 'xret' && r.priv)).toEqual([0, 0]);
    // csrs sstatus, t0 (SUM): sstatus, then the mstatus it changed.
    const sum = byInstr(0x1002_a073)[0];
    expect(sum).toMatchObject({ csrs: [{ csr: 0x100 }, { csr: 0x300 }] });
    // csrw menvcfg, -1: the write records what QEMU holds, as the program reads it back (WARL).
    const envcfg = byInstr(0x30a2_9073)[0];
    const readBack = byInstr(0x30a0_2573)[0];
    expect(readBack).toMatchObject({ gpr: { reg: 10 } });
    expect(envcfg).toEqual({ kind: 'instruction', nextPc: tv64.pcs[recs.indexOf(envcfg!)]! + 4n, instr: { size: 32, bits: 0x30a2_9073 }, csrs: [{ csr: 0x30a, value: readBack!.kind === 'instruction' ? readBack!.gpr!.value : 0n }] });
    expect(readBack!.kind === 'instruction' && readBack!.gpr!.value).not.toBe((1n << 64n) - 1n);
    expect(tv64.stats).toMatchObject({ amos: 13, traps: 2, fpInstructions: 42 });
  });

  describe('self-checks on altered logs', () => {
    const derive = (lines: string[]) => deriveTvFromLines(lines, rv32.elf, { fpu: false, fileName: 'altered.log' });
    const fails = (lines: string[]): RvError => {
      try {
        derive(lines);
      } catch (e) {
        if (e instanceof RvError) return e;
        throw e;
      }
      throw new Error('the derivation accepted the altered log');
    };
    /** Line index of the n-th Trace line at pc (as text). */
    const traceAt = (pcText: string, n = 0): number => {
      let seen = 0;
      for (let i = 0; i < rv32Log.length; i++) if (rv32Log[i]!.startsWith('Trace ') && rv32Log[i]!.includes(`/${pcText}/`) && seen++ === n) return i;
      throw new Error(`no Trace at ${pcText}`);
    };

    it('the kept log derives the same records as the run', () => {
      const again = derive(rv32Log);
      expect(again.records).toEqual(rv32.records);
    });

    it('a block missing from the log: the next pc is not the successor', () => {
      const entry = rv32.elf.entry;
      const third = traceAt((entry + 8n).toString(16).padStart(8, '0'));
      const fourth = third + 1 + rv32Log.slice(third + 1).findIndex((l) => l.startsWith('Trace '));
      const e = fails([...rv32Log.slice(0, third), ...rv32Log.slice(fourth)]);
      expect(e.oneLine()).toMatch(new RegExp(`^altered\\.log:\\d+: ${hex(entry + 4n)} \\(addi t0, t0, -?\\d+\\) is followed by ${hex(entry + 12n)}; its registers give ${hex(entry + 8n)}`));
    });

    it('a register changed that the instruction does not write', () => {
      const i = traceAt((rv32.elf.entry + 4n).toString(16).padStart(8, '0'));
      const lines = rv32Log.slice();
      const x12 = i + 1 + lines.slice(i + 1).findIndex((l) => l.startsWith(' x12/'));
      lines[x12] = lines[x12]!.replace(/^( x12\/a2\s+)([0-9a-f]{8})/, (_m, p: string) => `${p}0000abcd`);
      expect(fails(lines).message).toMatch(/^a2 changed from 0x[0-9a-f]{8} to 0x0000abcd at 0x80000000 \(auipc t0, 0x0\), which does not write it$/);
    });

    it("a trap line that disagrees with the CSRs after it", () => {
      const lines = rv32Log.map((l) => (l.startsWith('riscv_cpu_do_interrupt') && l.includes('desc=user_ecall') ? l.replace('cause:00000008', 'cause:00000009') : l));
      expect(fails(lines).message).toMatch(/mcause is 0x8 after the trap \(user_ecall\); QEMU's trap line says cause 0x9/);
    });

    it('a log of another XLEN or without the CPU state is refused', () => {
      expect(() => deriveTvFromLines(rv32Log, { ...rv32.elf, xlen: 64 } as ElfProgram, { fpu: false, fileName: 'x.log' })).toThrow(/expected the x registers x0-x3 \(4 per line, 16 hex digits each\)/);
      const noCpu = rv32Log.filter((l) => !l.startsWith(' '));
      expect(() => derive(noCpu)).toThrow(/without the CPU state after it; expected the log of -d cpu/);
    });
  });
});
