/**
 * The seed's Appendix C examples (Trace Protocol Specification 2018-11-20; an rv64gc hart with
 * Sv48: XLEN = 64, FLEN = 64, ILEN = 32, MLEN = 64) as records, encoded in the seed's field order.
 * Every expected byte string is typed from the seed's tables, with the errata of
 * ../shared/design/tvtrace.md applied where the table has them:
 *   1. C.5: a 32-bit instruction is opcode 11, not 10;
 *   2. C.2, C.7, C.8: the pc identifier is decimal 10, byte 0a, not 10;
 *   6. C.4: a0 (x10) is register 0x100a, bytes 0a 10, not 10 10.
 * The seed omits the pcs of C.1 and C.3-C.6 (they use opcode 3, increment pc); the pc the decoder
 * holds before each example and the next pc are chosen here (0x80000000 onwards), as are the
 * values a table does not show (the value of x0 that `jr` would write, which is not reported).
 */
import { describe, expect, it } from 'vitest';
import { encodeTvRecords, type TvEncoderStart } from './encoder.ts';
import type { TvRecord } from './records.ts';
import { defaultTvtraceConfig } from './settings.ts';

const seed = defaultTvtraceConfig({ fieldOrder: 'seed' });
const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
/** Bytes as the seed's tables list them: one table row per string. */
const rows = (...r: string[]): string => r.join(' ');
const enc = (records: TvRecord[], start: TvEncoderStart = {}): string => hex(encodeTvRecords(records, seed, start));

// The examples, with the pcs chosen here: C.1 at 0x80000000, C.3 at 0x80000008, C.4 at 0x8000000c
// (compressed), C.5 at 0x8000000e, C.6 at 0x80000012.
const c1: TvRecord = { kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0062_81b3 }, gpr: { reg: 3, value: 0x1234n } };
const c2: TvRecord = { kind: 'instruction', nextPc: 0x0c00_0100n, instr: { size: 32, bits: 0x1001_0067 }, gpr: { reg: 0, value: 0x8000_0008n } };
const c3: TvRecord = {
  kind: 'instruction',
  nextPc: 0x8000_000cn,
  instr: { size: 32, bits: 0x0116_f3d3 },
  fpr: { reg: 7, value: 0xffff_ffff_66fe_f4f9n },
  fcsr: 0x01n,
};
const c4: TvRecord = { kind: 'instruction', nextPc: 0x8000_000en, instr: { size: 16, bits: 0x8d0d }, gpr: { reg: 10, value: 0xffff_ffff_1234_5678n } };
const c5: TvRecord = {
  kind: 'instruction',
  nextPc: 0x8000_0012n,
  instr: { size: 32, bits: 0x0082_a203 },
  gpr: { reg: 4, value: 0x55aa_55aa_55aa_55aan },
  paddr: 0x0100_0008n,
};
const c6: TvRecord = {
  kind: 'instruction',
  nextPc: 0x8000_0016n,
  instr: { size: 32, bits: 0x3045_b4f3 },
  gpr: { reg: 9, value: 0x888n },
  csrs: [{ csr: 0x304, value: 0x880n }],
};
const c7: TvRecord = {
  kind: 'trap',
  nextPc: 0x1_0000n,
  instr: { size: 32, bits: 0 },
  priv: 3,
  epc: 0x8_1234n,
  cause: 2n,
  status: 0x0a_0000_18b0n,
  tval: 0n,
};
const c8: TvRecord = {
  kind: 'interrupt',
  nextPc: 0x1_0000n,
  priv: 3,
  epc: 0x8_1256n,
  cause: 0x8000_0000_0000_0003n,
  status: 0x0a_0000_18b0n,
  tval: 0n,
};

describe('Appendix C examples, seed field order', () => {
  it('Table C.1 add gp, t0, t1', () => {
    expect(enc([c1], { pc: 0x8000_0000n })).toBe(rows('01', '03', '11', 'b3 81 62 00', '04', '03 10', '34 12 00 00 00 00 00 00', '02'));
  });

  it('Table C.2 jr 256(sp): the pc in full, the write to x0 not reported (erratum 2: identifier 0a)', () => {
    expect(enc([c2], { pc: 0x8000_0004n })).toBe(rows('01', '07', '0a', '00 01 00 0c 00 00 00 00', '11', '67 00 01 10', '02'));
  });

  it('Table C.3 fadd.s ft7, fa3, fa7: the full FLEN register and fcsr as an OR of the new flag', () => {
    expect(enc([c3], { pc: 0x8000_0008n, fcsr: 0n })).toBe(
      rows('01', '03', '11', 'd3 f3 16 01', '04', '27 10', 'f9 f4 fe 66 ff ff ff ff', '06', '03 00', '01', '02'),
    );
  });

  it('Table C.4 c.sub a0, a1 (erratum 6: a0 is 0a 10)', () => {
    expect(enc([c4], { pc: 0x8000_000cn })).toBe(rows('01', '03', '10', '0d 8d', '04', '0a 10', '78 56 34 12 ff ff ff ff', '02'));
  });

  it('Table C.5 lw tp, 8(t0) (erratum 1: a 32-bit instruction is 11)', () => {
    expect(enc([c5], { pc: 0x8000_000en })).toBe(
      rows('01', '03', '11', '03 a2 82 00', '04', '04 10', 'aa 55 aa 55 aa 55 aa 55', '07', '02', '08 00 00 01 00 00 00 00', '02'),
    );
  });

  it('Table C.6 csrrc s1, mie, a1', () => {
    expect(enc([c6], { pc: 0x8000_0012n })).toBe(
      rows('01', '03', '11', 'f3 b4 45 30', '04', '09 10', '88 08 00 00 00 00 00 00', '04', '04 03', '80 08 00 00 00 00 00 00', '02'),
    );
  });

  it('Table C.7 00 00 00 00 (illegal instruction) (erratum 2: identifier 0a)', () => {
    expect(enc([c7], { pc: 0x8_1234n })).toBe(
      rows(
        '01',
        '07', '0a', '00 00 01 00 00 00 00 00',
        '11', '00 00 00 00',
        '04', '41 03', '34 12 08 00 00 00 00 00',
        '04', '42 03', '02 00 00 00 00 00 00 00',
        '04', '00 03', 'b0 18 00 00 0a 00 00 00',
        '04', '43 03', '00 00 00 00 00 00 00 00',
        '07', '01', '03',
        '02',
      ),
    );
  });

  it('Table C.8 interrupt: no instruction (erratum 2: identifier 0a)', () => {
    expect(enc([c8], { pc: 0x8_1256n })).toBe(
      rows(
        '01',
        '07', '0a', '00 00 01 00 00 00 00 00',
        '04', '41 03', '56 12 08 00 00 00 00 00',
        '04', '42 03', '03 00 00 00 00 00 00 80',
        '04', '00 03', 'b0 18 00 00 0a 00 00 00',
        '04', '43 03', '00 00 00 00 00 00 00 00',
        '07', '01', '03',
        '02',
      ),
    );
  });

  it('C.1, C.3, C.4, C.5, C.6 in one stream: each pc follows from the previous group', () => {
    const expected = [
      rows('01', '03', '11', 'b3 81 62 00', '04', '03 10', '34 12 00 00 00 00 00 00', '02'),
      rows('01', '03', '11', 'd3 f3 16 01', '04', '27 10', 'f9 f4 fe 66 ff ff ff ff', '06', '03 00', '01', '02'),
      rows('01', '03', '10', '0d 8d', '04', '0a 10', '78 56 34 12 ff ff ff ff', '02'),
      rows('01', '03', '11', '03 a2 82 00', '04', '04 10', 'aa 55 aa 55 aa 55 aa 55', '07', '02', '08 00 00 01 00 00 00 00', '02'),
      rows('01', '03', '11', 'f3 b4 45 30', '04', '09 10', '88 08 00 00 00 00 00 00', '04', '04 03', '80 08 00 00 00 00 00 00', '02'),
    ];
    // C.1 moved to 0x80000004 so that C.3 (at 0x80000008) follows it.
    const c1at4: TvRecord = { ...c1, nextPc: 0x8000_0008n };
    expect(enc([c1at4, c3, c4, c5, c6], { pc: 0x8000_0004n, fcsr: 0n })).toBe(expected.join(' '));
  });
});
