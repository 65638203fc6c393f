/**
 * The encoder against bytes worked out by hand from chapter 2 of the seed (opcodes, identifiers,
 * little-endian fields, register addresses 0x1000 + x / 0x1020 + f / CSR) and, for the order of the
 * fields, Bluespec's Flute encoder (bluespec/Flute src_Core/Core/TV_Encode.bsv; the per-kind orders
 * are in ../shared/design/tvtrace.md and docs/tvtrace-model.md). Instruction words are assembled by
 * hand; the comment above each case gives the encoding. Nothing here was produced by running the encoder.
 */
import { describe, expect, it } from 'vitest';
import { encodeTvRecords, TvEncoder, type TvEncoderStart } from './encoder.ts';
import { nanBoxSingle, type TvInstructionRecord, type TvRecord } from './records.ts';
import { defaultTvtraceConfig, type TvtraceConfig } from './settings.ts';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
const rows = (...r: string[]): string => r.join(' ');
const rv64 = defaultTvtraceConfig();
const enc = (records: TvRecord[], config: TvtraceConfig = rv64, start: TvEncoderStart = {}): string => hex(encodeTvRecords(records, config, start));
const thrown = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

/** mstatus with FS = dirty (bits 14:13), SD (bit 63), UXL = SXL = 2 (bits 35:32 = 0xa). */
const MSTATUS_FS_DIRTY = 0x8000_000a_0000_6000n;
const MSTATUS_BYTES = '00 60 00 00 0a 00 00 80';

describe('Flute field order (field_order = bluespec), RV64', () => {
  it('an instruction writing rd (TRACE_I_RD): pc, instr, rd', () => {
    // add gp, t0, t1 = 0x006281b3 (the seed's Table C.1)
    const r: TvRecord = { kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0062_81b3 }, gpr: { reg: 3, value: 0x1234n } };
    expect(enc([r])).toBe(rows('01', '07 0a 04 00 00 80 00 00 00 00', '11 b3 81 62 00', '04 03 10 34 12 00 00 00 00 00 00', '02'));
  });

  it('does not report a write to x0', () => {
    // jal x0, 0 = 0x0000006f: rd = x0
    const r: TvRecord = { kind: 'instruction', nextPc: 0x8000_0000n, instr: { size: 32, bits: 0x0000_006f }, gpr: { reg: 0, value: 0x8000_0004n } };
    expect(enc([r])).toBe(rows('01', '07 0a 00 00 00 80 00 00 00 00', '11 6f 00 00 00', '02'));
  });

  it('a compressed instruction without a destination (TRACE_OTHER): pc, opcode 10 with two bytes', () => {
    // c.nop = 0x0001
    const r: TvRecord = { kind: 'instruction', nextPc: 0x8000_0002n, instr: { size: 16, bits: 0x0001 } };
    expect(enc([r])).toBe(rows('01', '07 0a 02 00 00 80 00 00 00 00', '10 01 00', '02'));
  });

  it('a load (TRACE_I_LOAD): pc, instr, rd, eaddr', () => {
    // ld a1, 0(a0) = 0x00053583 (rs1 10, funct3 3, rd 11, opcode 03)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0008n,
      instr: { size: 32, bits: 0x0005_3583 },
      gpr: { reg: 11, value: 0x1122_3344_5566_7788n },
      eaddr: 0x8000_1000n,
    };
    expect(enc([r])).toBe(rows('01', '07 0a 08 00 00 80 00 00 00 00', '11 83 35 05 00', '04 0b 10 88 77 66 55 44 33 22 11', '07 03 00 10 00 80 00 00 00 00', '02'));
  });

  it('a store (TRACE_I_STORE): pc, instr, store data (identifier 6 for 4 bytes), eaddr', () => {
    // sw a1, 4(a0) = 0x00b52223 (rs2 11, rs1 10, funct3 2, imm[4:0] 4, opcode 23)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_000cn,
      instr: { size: 32, bits: 0x00b5_2223 },
      storeData: { bytes: 4, value: 0x5566_7788n },
      eaddr: 0x8000_1004n,
    };
    expect(enc([r])).toBe(rows('01', '07 0a 0c 00 00 80 00 00 00 00', '11 23 22 b5 00', '07 06 88 77 66 55', '07 03 04 10 00 80 00 00 00 00', '02'));
  });

  it('an AMO (TRACE_AMO): pc, instr, rd, store data, eaddr', () => {
    // amoadd.w a2, a1, (a0) = 0x00b5262f (funct5 0, rs2 11, rs1 10, funct3 2, rd 12, opcode 2f)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0010n,
      instr: { size: 32, bits: 0x00b5_262f },
      gpr: { reg: 12, value: 5n },
      storeData: { bytes: 4, value: 0xan },
      eaddr: 0x8000_1000n,
    };
    expect(enc([r])).toBe(
      rows('01', '07 0a 10 00 00 80 00 00 00 00', '11 2f 26 b5 00', '04 0c 10 05 00 00 00 00 00 00 00', '07 06 0a 00 00 00', '07 03 00 10 00 80 00 00 00 00', '02'),
    );
  });

  it('an FP result in an f register (TRACE_F_FRD): pc, instr, frd, fflags, mstatus', () => {
    // fadd.s ft7, fa3, fa7 = 0x0116f3d3 (the seed's Table C.3); Flute reports fflags (CSR 0x001) and mstatus
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0014n,
      instr: { size: 32, bits: 0x0116_f3d3 },
      fpr: { reg: 7, value: nanBoxSingle(0x66fe_f4f9, 64) },
      csrs: [
        { csr: 0x001, value: 0x1n },
        { csr: 0x300, value: MSTATUS_FS_DIRTY },
      ],
    };
    expect(enc([r])).toBe(
      rows('01', '07 0a 14 00 00 80 00 00 00 00', '11 d3 f3 16 01', '04 27 10 f9 f4 fe 66 ff ff ff ff', '04 01 00 01 00 00 00 00 00 00 00', `04 00 03 ${MSTATUS_BYTES}`, '02'),
    );
  });

  it('an FP result in an x register (TRACE_F_GRD): pc, instr, rd, fflags, mstatus', () => {
    // feq.s a0, fa0, fa1 = 0xa0b52553 (funct7 0x50, rs2 11, rs1 10, funct3 2, rd 10, opcode 53)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0018n,
      instr: { size: 32, bits: 0xa0b5_2553 },
      gpr: { reg: 10, value: 1n },
      csrs: [
        { csr: 0x001, value: 0x10n },
        { csr: 0x300, value: MSTATUS_FS_DIRTY },
      ],
    };
    expect(enc([r])).toBe(
      rows('01', '07 0a 18 00 00 80 00 00 00 00', '11 53 25 b5 a0', '04 0a 10 01 00 00 00 00 00 00 00', '04 01 00 10 00 00 00 00 00 00 00', `04 00 03 ${MSTATUS_BYTES}`, '02'),
    );
  });

  it('an FP load (TRACE_F_LOAD): pc, instr, frd, eaddr, mstatus', () => {
    // fld fa0, 8(a0) = 0x00853507 (imm 8, rs1 10, funct3 3, rd 10, opcode 07); fa0 = f10 = 0x102a; pi = 0x400921fb54442d18
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_001cn,
      instr: { size: 32, bits: 0x0085_3507 },
      fpr: { reg: 10, value: 0x4009_21fb_5444_2d18n },
      eaddr: 0x8000_1008n,
      csrs: [{ csr: 0x300, value: MSTATUS_FS_DIRTY }],
    };
    expect(enc([r])).toBe(
      rows('01', '07 0a 1c 00 00 80 00 00 00 00', '11 07 35 85 00', '04 2a 10 18 2d 44 54 fb 21 09 40', '07 03 08 10 00 80 00 00 00 00', `04 00 03 ${MSTATUS_BYTES}`, '02'),
    );
  });

  it('an FP store (TRACE_F_STORE): pc, instr, store data (identifier 7 for 8 bytes), eaddr', () => {
    // fsd fa0, 16(a0) = 0x00a53827 (rs2 10, rs1 10, funct3 3, imm[4:0] 16, opcode 27)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0020n,
      instr: { size: 32, bits: 0x00a5_3827 },
      storeData: { bytes: 8, value: 0x4009_21fb_5444_2d18n },
      eaddr: 0x8000_1010n,
    };
    expect(enc([r])).toBe(rows('01', '07 0a 20 00 00 80 00 00 00 00', '11 27 38 a5 00', '07 07 18 2d 44 54 fb 21 09 40', '07 03 10 10 00 80 00 00 00 00', '02'));
  });

  it('a CSR instruction (TRACE_CSRRX): pc, instr, rd, csr', () => {
    // csrrw a0, mscratch, a1 = 0x34059573 (csr 0x340, rs1 11, funct3 1, rd 10, opcode 73)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0024n,
      instr: { size: 32, bits: 0x3405_9573 },
      gpr: { reg: 10, value: 7n },
      csrs: [{ csr: 0x340, value: 0x42n }],
    };
    expect(enc([r])).toBe(rows('01', '07 0a 24 00 00 80 00 00 00 00', '11 73 95 05 34', '04 0a 10 07 00 00 00 00 00 00 00', '04 40 03 42 00 00 00 00 00 00 00', '02'));
  });

  it('a CSR instruction writing fflags: rd x0 not reported, then the CSR, then mstatus (FS changed)', () => {
    // csrw fflags, a1 = csrrw x0, 0x001, a1 = 0x00159073
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0028n,
      instr: { size: 32, bits: 0x0015_9073 },
      gpr: { reg: 0, value: 0n },
      csrs: [
        { csr: 0x001, value: 0x1fn },
        { csr: 0x300, value: MSTATUS_FS_DIRTY },
      ],
    };
    expect(enc([r])).toBe(rows('01', '07 0a 28 00 00 80 00 00 00 00', '11 73 90 15 00', '04 01 00 1f 00 00 00 00 00 00 00', `04 00 03 ${MSTATUS_BYTES}`, '02'));
  });

  it('the fields Flute has no place for: priv after the instruction, paddr after eaddr, fcsr last', () => {
    // sd a1, 0(a0) = 0x00b53023 (rs2 11, rs1 10, funct3 3, opcode 23)
    const r: TvRecord = {
      kind: 'instruction',
      nextPc: 0x8000_0030n,
      instr: { size: 32, bits: 0x00b5_3023 },
      priv: 1,
      storeData: { bytes: 8, value: 0x1n },
      eaddr: 0x4000_0000n,
      paddr: 0x8000_0000n,
      fcsr: 0x20n,
    };
    expect(enc([r])).toBe(
      rows(
        '01',
        '07 0a 30 00 00 80 00 00 00 00',
        '11 23 30 b5 00',
        '07 01 01',
        '07 07 01 00 00 00 00 00 00 00',
        '07 03 00 00 00 40 00 00 00 00',
        '07 02 00 00 00 80 00 00 00 00',
        '04 03 00 20 00 00 00 00 00 00 00',
        '02',
      ),
    );
  });

  it('an exception into M (TRACE_TRAP): pc, instr, priv, mstatus, mcause, mepc, mtval', () => {
    // ecall = 0x00000073 from U at 0x80000100
    const r: TvRecord = { kind: 'trap', nextPc: 0x8000_0400n, instr: { size: 32, bits: 0x73 }, priv: 3, status: 0x0a_0000_0080n, cause: 8n, epc: 0x8000_0100n, tval: 0n };
    expect(enc([r])).toBe(
      rows(
        '01',
        '07 0a 00 04 00 80 00 00 00 00',
        '11 73 00 00 00',
        '07 01 03',
        '04 00 03 80 00 00 00 0a 00 00 00',
        '04 42 03 08 00 00 00 00 00 00 00',
        '04 41 03 00 01 00 80 00 00 00 00',
        '04 43 03 00 00 00 00 00 00 00 00',
        '02',
      ),
    );
  });

  it('an exception into S writes sstatus, scause, sepc, stval', () => {
    // a load page fault of ld a1, 0(a0) = 0x00053583; a sign-extended S-mode handler address
    const r: TvRecord = {
      kind: 'trap',
      nextPc: 0xffff_ffff_8000_0200n,
      instr: { size: 32, bits: 0x0005_3583 },
      priv: 1,
      status: 0x8000_0002_0000_6122n,
      cause: 13n,
      epc: 0x1_0078n,
      tval: 0x2000n,
    };
    expect(enc([r])).toBe(
      rows(
        '01',
        '07 0a 00 02 00 80 ff ff ff ff',
        '11 83 35 05 00',
        '07 01 01',
        '04 00 01 22 61 00 00 02 00 00 80',
        '04 42 01 0d 00 00 00 00 00 00 00',
        '04 41 01 78 00 01 00 00 00 00 00',
        '04 43 01 00 20 00 00 00 00 00 00',
        '02',
      ),
    );
  });

  it('an instruction page fault into U: no instruction, ustatus, ucause, uepc, utval', () => {
    const r: TvRecord = { kind: 'trap', nextPc: 0x1000n, priv: 0, status: 0x11n, cause: 12n, epc: 0x2000n, tval: 0x2000n };
    expect(enc([r])).toBe(
      rows(
        '01',
        '07 0a 00 10 00 00 00 00 00 00',
        '07 01 00',
        '04 00 00 11 00 00 00 00 00 00 00',
        '04 42 00 0c 00 00 00 00 00 00 00',
        '04 41 00 00 20 00 00 00 00 00 00',
        '04 43 00 00 20 00 00 00 00 00 00',
        '02',
      ),
    );
  });

  it('an interrupt (TRACE_INTR): pc, priv, mstatus, mcause, mepc, mtval', () => {
    const r: TvRecord = { kind: 'interrupt', nextPc: 0x8000_0400n, priv: 3, status: 0x1880n, cause: 0x8000_0000_0000_0007n, epc: 0x8000_0104n, tval: 0n };
    expect(enc([r])).toBe(
      rows(
        '01',
        '07 0a 00 04 00 80 00 00 00 00',
        '07 01 03',
        '04 00 03 80 18 00 00 00 00 00 00',
        '04 42 03 07 00 00 00 00 00 00 80',
        '04 41 03 04 01 00 80 00 00 00 00',
        '04 43 03 00 00 00 00 00 00 00 00',
        '02',
      ),
    );
  });

  it('an xRET (TRACE_RET): pc, instr, priv, mstatus', () => {
    // mret = 0x30200073
    const r: TvRecord = { kind: 'xret', nextPc: 0x8000_0104n, instr: { size: 32, bits: 0x3020_0073 }, priv: 0, mstatus: 0x80n };
    expect(enc([r])).toBe(rows('01', '07 0a 04 01 00 80 00 00 00 00', '11 73 00 20 30', '07 01 00', '04 00 03 80 00 00 00 00 00 00 00', '02'));
  });

  it('debug-module register writes: state initialization groups 01 0b 04 reg value 02', () => {
    expect(enc([{ kind: 'debug-reg', file: 'gpr', index: 5, value: 0x1234n }])).toBe('01 0b 04 05 10 34 12 00 00 00 00 00 00 02');
    expect(enc([{ kind: 'debug-reg', file: 'fpr', index: 1, value: 0x3ff0_0000_0000_0000n }])).toBe('01 0b 04 21 10 00 00 00 00 00 00 f0 3f 02');
    // dpc = CSR 0x7b1
    expect(enc([{ kind: 'debug-reg', file: 'csr', index: 0x7b1, value: 0x8000_0000n }])).toBe('01 0b 04 b1 07 00 00 00 80 00 00 00 00 02');
    // x0: Flute's encode_reg drops the register and leaves the empty state initialization group
    expect(enc([{ kind: 'debug-reg', file: 'gpr', index: 0, value: 1n }])).toBe('01 0b 02');
  });

  it('a debug-module memory write: 01 0b 08 paddr size<<4|store data 02, no response', () => {
    // 4 bytes (size code 2, op 1 = store: 0x21) of auipc t0, 0 = 0x00000297 at 0x80000000
    expect(enc([{ kind: 'debug-mem', paddr: 0x8000_0000n, bytes: 4, value: 0x297n }])).toBe('01 0b 08 00 00 00 80 00 00 00 00 21 97 02 00 00 02');
    // 8 bytes: size code 3 -> 0x31
    expect(enc([{ kind: 'debug-mem', paddr: 0x10n, bytes: 8, value: 0x0102_0304_0506_0708n }])).toBe('01 0b 08 10 00 00 00 00 00 00 00 31 08 07 06 05 04 03 02 01 02');
  });

  it('a hart reset: 01 0a 02', () => {
    expect(enc([{ kind: 'reset' }])).toBe('01 0a 02');
  });

  it('unobserved state outside any group: mtime (identifier 8), mcycle (0xb00), minstret (0xb02)', () => {
    expect(enc([{ kind: 'unobserved', mtime: 0x1234n, mcycle: 0x100n, minstret: 0x80n }])).toBe(
      rows('07 08 34 12 00 00 00 00 00 00', '04 00 0b 00 01 00 00 00 00 00 00', '04 02 0b 80 00 00 00 00 00 00 00'),
    );
  });
});

describe('RV32 and the MLEN of Sv32', () => {
  const sv32 = defaultTvtraceConfig({ xlen: 32, flen: 0, mlen: 34 });
  const rv32 = defaultTvtraceConfig({ xlen: 32, flen: 0, mlen: 32 });
  // lw a1, 0(a0) = 0x00052583 (rs1 10, funct3 2, rd 11, opcode 03)
  const lw: TvRecord = {
    kind: 'instruction',
    nextPc: 0x8000_0008n,
    instr: { size: 32, bits: 0x0005_2583 },
    gpr: { reg: 11, value: 0xdead_beefn },
    eaddr: 0x8000_1000n,
    paddr: 0x3_0000_1000n,
  };

  it('MLEN 34: eaddr and paddr take 5 bytes; the pc and registers 4', () => {
    expect(enc([lw], sv32)).toBe(rows('01', '07 0a 08 00 00 80', '11 83 25 05 00', '04 0b 10 ef be ad de', '07 03 00 10 00 80 00', '07 02 00 10 00 00 03', '02'));
  });

  it('MLEN 34: a debug memory write has a 5-byte address', () => {
    expect(enc([{ kind: 'debug-mem', paddr: 0x2_8000_0000n, bytes: 1, value: 0x5an }], sv32)).toBe('01 0b 08 00 00 00 80 02 01 5a 02');
  });

  it('MLEN 32: 4-byte addresses, and a 34-bit physical address does not fit', () => {
    expect(enc([{ ...lw, paddr: 0x8000_1000n }], rv32)).toBe(rows('01', '07 0a 08 00 00 80', '11 83 25 05 00', '04 0b 10 ef be ad de', '07 03 00 10 00 80', '07 02 00 10 00 80', '02'));
    expect(thrown(() => enc([lw], rv32))).toBe('record 0: paddr 0x300001000 does not fit MLEN = 32');
    expect(thrown(() => enc([{ kind: 'debug-mem', paddr: 0x4_0000_0000n, bytes: 1, value: 0n }], sv32))).toBe('record 0: paddr 0x400000000 does not fit MLEN = 34');
  });

  it('RV32 counters travel as register pairs: mcycle (0xb00) and mcycleh (0xb80)', () => {
    expect(enc([{ kind: 'unobserved', mcycle: 0x1_0000_0002n }], rv32)).toBe('04 00 0b 02 00 00 00 04 80 0b 01 00 00 00');
  });

  it('refuses values wider than XLEN', () => {
    expect(thrown(() => enc([{ ...lw, gpr: { reg: 11, value: 0x1_0000_0000n } }], sv32))).toBe('record 0: gpr value 0x100000000 does not fit XLEN = 32');
    expect(thrown(() => enc([{ kind: 'instruction', nextPc: 0x1_0000_0000n }], sv32))).toBe('record 0: nextPc 0x100000000 does not fit XLEN = 32');
  });
});

describe('FLEN', () => {
  // fadd.s ft7, fa3, fa7 = 0x0116f3d3
  const fadd = (value: bigint): TvRecord => ({ kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0116_f3d3 }, fpr: { reg: 7, value } });

  it('FLEN 64: a single-precision result is NaN-boxed, 8 bytes (Table C.3)', () => {
    expect(enc([fadd(nanBoxSingle(0x66fe_f4f9, 64))], defaultTvtraceConfig({ flen: 64 }))).toBe(
      rows('01', '07 0a 04 00 00 80 00 00 00 00', '11 d3 f3 16 01', '04 27 10 f9 f4 fe 66 ff ff ff ff', '02'),
    );
  });

  it('FLEN 32: the same result is 4 bytes', () => {
    expect(enc([fadd(nanBoxSingle(0x66fe_f4f9, 32))], defaultTvtraceConfig({ flen: 32 }))).toBe(
      rows('01', '07 0a 04 00 00 80 00 00 00 00', '11 d3 f3 16 01', '04 27 10 f9 f4 fe 66', '02'),
    );
  });

  it('FLEN 32 refuses a 64-bit value, FLEN 0 any FPR write', () => {
    expect(thrown(() => enc([fadd(0xffff_ffff_66fe_f4f9n)], defaultTvtraceConfig({ flen: 32 })))).toBe('record 0: fpr value 0xffffffff66fef4f9 does not fit FLEN = 32');
    expect(thrown(() => enc([fadd(1n)], defaultTvtraceConfig({ flen: 0 })))).toBe('record 0: an FPR write (f7) but flen is 0');
  });

  it('RV32 with FLEN 64 stores 8 bytes (fsd); RV32 with FLEN 32 cannot', () => {
    // fsd fa0, 16(a0) = 0x00a53827
    const fsd: TvRecord = { kind: 'instruction', nextPc: 0x104n, instr: { size: 32, bits: 0x00a5_3827 }, storeData: { bytes: 8, value: 0x4009_21fb_5444_2d18n } };
    expect(enc([fsd], defaultTvtraceConfig({ xlen: 32, flen: 64, mlen: 32 }))).toBe(rows('01', '07 0a 04 01 00 00', '11 27 38 a5 00', '07 07 18 2d 44 54 fb 21 09 40', '02'));
    expect(thrown(() => enc([fsd], defaultTvtraceConfig({ xlen: 32, flen: 32, mlen: 32 })))).toBe('record 0: storeData of 8 bytes is wider than max(XLEN, FLEN) = 32 bits');
  });
});

describe('seed field order: increment pc and OR fcsr', () => {
  const seed = defaultTvtraceConfig({ fieldOrder: 'seed' });
  // addi a0, a0, 1 = 0x00150513 (imm 1, rs1 10, funct3 0, rd 10, opcode 13)
  const addi = (nextPc: bigint): TvInstructionRecord => ({ kind: 'instruction', nextPc, instr: { size: 32, bits: 0x0015_0513 }, gpr: { reg: 10, value: 1n } });
  const ADDI = '11 13 05 15 00 04 0a 10 01 00 00 00 00 00 00 00';

  it('reports the first pc in full when the decoder holds none, then increments', () => {
    expect(enc([addi(0x104n), addi(0x108n)], seed)).toBe(rows('01 07 0a 04 01 00 00 00 00 00 00', ADDI, '02', '01 03', ADDI, '02'));
  });

  it('reports the pc in full after a taken branch and after a reset', () => {
    expect(enc([addi(0x200n), addi(0x204n), { kind: 'reset' }, addi(0x208n)], seed, { pc: 0x100n })).toBe(
      rows('01 07 0a 00 02 00 00 00 00 00 00', ADDI, '02', '01 03', ADDI, '02', '01 0a 02', '01 07 0a 08 02 00 00 00 00 00 00', ADDI, '02'),
    );
  });

  it('uses opcode 3 only in a group with an instruction', () => {
    expect(enc([{ kind: 'instruction', nextPc: 0x104n }], seed, { pc: 0x100n })).toBe('01 07 0a 04 01 00 00 00 00 00 00 02');
  });

  it('increments across the top of the address space (RV32, a 16-bit instruction at 0xfffffffe)', () => {
    const cnop: TvRecord = { kind: 'instruction', nextPc: 0n, instr: { size: 16, bits: 0x0001 } };
    expect(enc([cnop], defaultTvtraceConfig({ xlen: 32, mlen: 32, fieldOrder: 'seed' }), { pc: 0xffff_fffen })).toBe('01 03 10 01 00 02');
  });

  it('ORs fcsr only when the decoder holds it, no bit is cleared and the new bits fit a byte', () => {
    const withFcsr = (nextPc: bigint, fcsr: bigint): TvRecord => ({ ...addi(nextPc), fcsr });
    // unknown fcsr: in full; then 0x01 -> 0x03 sets bit 1: OR 02; then 0x03 -> 0x01 clears a bit: in full;
    // then 0x01 -> 0x101 sets bit 8: in full.
    expect(enc([withFcsr(0x104n, 1n), withFcsr(0x108n, 3n), withFcsr(0x10cn, 1n), withFcsr(0x110n, 0x101n)], seed, { pc: 0x100n })).toBe(
      rows(
        '01 03',
        ADDI,
        '04 03 00 01 00 00 00 00 00 00 00',
        '02',
        '01 03',
        ADDI,
        '06 03 00 02',
        '02',
        '01 03',
        ADDI,
        '04 03 00 01 00 00 00 00 00 00 00',
        '02',
        '01 03',
        ADDI,
        '04 03 00 01 01 00 00 00 00 00 00',
        '02',
      ),
    );
  });

  it('reports fcsr in full after a write to fflags', () => {
    const r: TvRecord = { ...addi(0x104n), csrs: [{ csr: 0x001, value: 0x1n }], fcsr: 0x1n };
    expect(enc([r], seed, { pc: 0x100n, fcsr: 0n })).toBe(rows('01 03', ADDI, '04 01 00 01 00 00 00 00 00 00 00', '04 03 00 01 00 00 00 00 00 00 00', '02'));
  });

  it('an xRET in the seed order: pc, instr, mstatus, priv (priv last, as Table C.7)', () => {
    const r: TvRecord = { kind: 'xret', nextPc: 0x8000_0104n, instr: { size: 32, bits: 0x3020_0073 }, priv: 0, mstatus: 0x80n };
    expect(enc([r], seed)).toBe(rows('01', '07 0a 04 01 00 80 00 00 00 00', '11 73 00 20 30', '04 00 03 80 00 00 00 00 00 00 00', '07 01 00', '02'));
  });
});

describe('errors', () => {
  it('name the record, leave nothing half-written and keep the state', () => {
    const e = new TvEncoder(defaultTvtraceConfig({ fieldOrder: 'seed' }), { pc: 0x100n });
    e.encode({ kind: 'reset' });
    expect(thrown(() => e.encode({ kind: 'instruction', nextPc: 0x104n, instr: { size: 32, bits: 0x13 }, csrs: [{ csr: 0x1000, value: 0n }] }))).toBe(
      'record 1: CSR address 4096 is not 0-0xfff',
    );
    expect(hex(e.bytes())).toBe('01 0a 02');
    expect(thrown(() => e.encode({ kind: 'trap', nextPc: 0n, priv: 2 as 3, status: 0n, cause: 0n, epc: 0n, tval: 0n }))).toBe('record 1: priv is 2; allowed: 0 (U), 1 (S), 3 (M)');
    expect(thrown(() => e.encode({ kind: 'instruction', nextPc: 0n, instr: { size: 32, bits: 2 ** 32 } }))).toBe('record 1: instr.bits 4294967296 does not fit a 32-bit instruction');
    expect(thrown(() => e.encode({ kind: 'instruction', nextPc: 0n, storeData: { bytes: 2, value: 0x10000n } }))).toBe('record 1: storeData value 0x10000 does not fit 2 byte(s)');
    expect(hex(e.bytes())).toBe('01 0a 02');
  });

  it('grow the buffer past its first 64 KiB', () => {
    const records: TvRecord[] = Array.from({ length: 10_000 }, () => ({ kind: 'reset' }));
    expect(encodeTvRecords(records, rv64).length).toBe(30_000);
  });
});
