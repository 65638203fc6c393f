/**
 * Decoder tests with expected values typed by hand from the seed (Trace Protocol Specification
 * 2018-11-20, Appendix C, rv64gc Sv48: XLEN = FLEN = 64, ILEN = 32, MLEN = 64) with the errata of
 * tvtrace.md applied, and hand-made streams for what the appendix does not show.
 */
import { describe, expect, it } from 'vitest';
import { decodeTv, parseTv, rebuildTv, TvDecodeError, type TvGroupChanges, type TvParams } from './decoder.ts';

const RV64: TvParams = { xlen: 64, flen: 64, mlen: 64, ilen: 32 };
const RV32_SV32: TvParams = { xlen: 32, flen: 0, mlen: 34 };

/** Bytes from hex pairs separated by spaces, e.g. `01 03 11`. */
function b(hexText: string): Uint8Array {
  const parts = hexText.trim().split(/\s+/).filter((s) => s.length > 0);
  return new Uint8Array(parts.map((p) => parseInt(p, 16)));
}

/** Decodes and insists there is no error. */
function ok(bytes: Uint8Array, params: TvParams = RV64, initial?: Parameters<typeof decodeTv>[2]): TvGroupChanges[] {
  const r = decodeTv(bytes, params, initial);
  expect(r.error?.oneLine()).toBeUndefined();
  return r.groups;
}

/** The first error of a stream that must fail. */
function fail(bytes: Uint8Array, params: TvParams = RV64): TvDecodeError {
  const r = decodeTv(bytes, params);
  expect(r.error).toBeInstanceOf(TvDecodeError);
  return r.error!;
}

/** Register writes as name -> value (hex) for compact comparisons. */
const regsOf = (c: TvGroupChanges): Record<string, string | undefined> =>
  Object.fromEntries(c.regs.map((r) => [r.name, r.value === undefined ? undefined : `0x${r.value.toString(16)}`]));

// The Appendix C examples, corrected as tvtrace.md says.
const C1 = '01 03 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02';
const C2 = '01 07 0a 00 01 00 0c 00 00 00 00 11 67 00 01 10 02'; // erratum 2: pc id 0x0a
const C3 = '01 03 11 d3 f3 16 01 04 27 10 f9 f4 fe 66 ff ff ff ff 06 03 00 01 02';
const C4 = '01 03 10 0d 8d 04 0a 10 78 56 34 12 ff ff ff ff 02'; // erratum 6: a0 = 0x100a
const C5 = '01 03 11 03 a2 82 00 04 04 10 aa 55 aa 55 aa 55 aa 55 07 02 08 00 00 01 00 00 00 00 02'; // erratum 1: opcode 0x11
const C6 = '01 03 11 f3 b4 45 30 04 09 10 88 08 00 00 00 00 00 00 04 04 03 80 08 00 00 00 00 00 00 02';
const C7 =
  '01 07 0a 00 00 01 00 00 00 00 00 11 00 00 00 00 04 41 03 34 12 08 00 00 00 00 00 04 42 03 02 00 00 00 00 00 00 00 ' +
  '04 00 03 b0 18 00 00 0a 00 00 00 04 43 03 00 00 00 00 00 00 00 00 07 01 03 02';
const C8 =
  '01 07 0a 00 00 01 00 00 00 00 00 04 41 03 56 12 08 00 00 00 00 00 04 42 03 03 00 00 00 00 00 00 80 ' +
  '04 00 03 b0 18 00 00 0a 00 00 00 04 43 03 00 00 00 00 00 00 00 00 07 01 03 02';

describe('Appendix C examples (errata applied)', () => {
  it('C.1 add gp, t0, t1: increment pc, 32-bit instruction, gp = 0x1234', () => {
    const p = parseTv(b(C1), RV64);
    expect(p.error).toBeUndefined();
    expect(p.groups).toHaveLength(1);
    const g = p.groups[0]!;
    expect(g.begin).toBe(0);
    expect(g.end).toBe(18);
    expect(g.endImplied).toBe(false);
    expect(g.items.map((i) => [i.offset, i.opcode, i.kind])).toEqual([
      [1, 3, 'incrementPc'],
      [2, 17, 'instr'],
      [7, 4, 'fullReg'],
    ]);
    const [c] = ok(b(C1), RV64, { pc: 0x80000000n });
    expect(c!.kind).toBe('instruction');
    expect(c!.instr).toEqual({ offset: 2, bits: 32, value: 0x006281b3 });
    expect(c!.instrPc).toBe(0x80000000n);
    expect(c!.pc).toEqual({ offset: 1, how: 'increment', by: 4, value: 0x80000004n });
    expect(c!.regs).toEqual([{ offset: 7, regno: 0x1003, name: 'gp', how: 'full', operand: 0x1234n, value: 0x1234n }]);
  });

  it('C.1 without a known pc: the increment is recorded, the new pc unknown', () => {
    const r = decodeTv(b(C1), RV64);
    expect(r.groups[0]!.pc).toEqual({ offset: 1, how: 'increment', by: 4 });
    expect(r.state.pc).toBeUndefined();
  });

  it('C.2 jr 256(sp): new pc 0x0c000100, instruction 0x10010067, no register', () => {
    const [c] = ok(b(C2));
    expect(c!.kind).toBe('instruction');
    expect(c!.pc).toEqual({ offset: 1, how: 'set', value: 0x0c000100n });
    expect(c!.instr).toEqual({ offset: 11, bits: 32, value: 0x10010067 });
    expect(c!.regs).toEqual([]);
  });

  it('C.3 fadd.s ft7, fa3, fa7: ft7 NaN-boxed in 8 bytes, fcsr |= 0x01', () => {
    const [c] = ok(b(C3), RV64, { regs: new Map([[0x003, 0x20n]]) }); // frm = 1 (RTZ), no flags
    expect(c!.instr).toEqual({ offset: 2, bits: 32, value: 0x0116f3d3 });
    expect(c!.regs).toEqual([
      { offset: 7, regno: 0x1027, name: 'ft7', how: 'full', operand: 0xffffffff66fef4f9n, value: 0xffffffff66fef4f9n },
      { offset: 18, regno: 0x003, name: 'fcsr', how: 'or', operand: 0x01n, before: 0x20n, value: 0x21n },
    ]);
  });

  it('C.3 with fcsr unknown: the OR is kept, the value unknown', () => {
    const [c] = ok(b(C3));
    expect(c!.regs[1]).toEqual({ offset: 18, regno: 0x003, name: 'fcsr', how: 'or', operand: 0x01n });
  });

  it('C.4 c.sub a0, a1: 16-bit instruction 0x8d0d, a0 = 0xffffffff12345678, pc += 2', () => {
    const [c] = ok(b(C4), RV64, { pc: 0x1000n });
    expect(c!.instr).toEqual({ offset: 2, bits: 16, value: 0x8d0d });
    expect(c!.pc).toEqual({ offset: 1, how: 'increment', by: 2, value: 0x1002n });
    expect(regsOf(c!)).toEqual({ a0: '0xffffffff12345678' });
  });

  it('C.4 as printed (`10 10`) is register 0x1010, a6: why erratum 6 matters', () => {
    const printed = b('01 03 10 0d 8d 04 10 10 78 56 34 12 ff ff ff ff 02');
    expect(regsOf(ok(printed)[0]!)).toEqual({ a6: '0xffffffff12345678' });
  });

  it('C.5 lw tp, 8(t0): tp = 0x55aa55aa55aa55aa, physical address 0x1000008', () => {
    const [c] = ok(b(C5));
    expect(c!.instr).toEqual({ offset: 2, bits: 32, value: 0x0082a203 });
    expect(regsOf(c!)).toEqual({ tp: '0x55aa55aa55aa55aa' });
    expect(c!.addl).toEqual([{ offset: 18, id: 2, name: 'paddr', value: 0x1000008n, bytes: 8 }]);
  });

  it('C.5 as printed (opcode 0x10 before 4 instruction bytes) fails at offset 5: unknown opcode 0x82', () => {
    const e = fail(b('01 03 10 03 a2 82 00 04 04 10 aa 55 aa 55 aa 55 aa 55 07 02 08 00 00 01 00 00 00 00 02'));
    expect(e.offset).toBe(5);
    expect(e.oneLine()).toBe('byte offset 5: unknown opcode 0x82 (130): expected an opcode 1..11, 16 or 17');
  });

  it('C.6 csrrc s1, mie, a1: s1 = 0x888, mie = 0x880', () => {
    const [c] = ok(b(C6));
    expect(c!.kind).toBe('instruction');
    expect(c!.instr?.value).toBe(0x3045b4f3);
    expect(regsOf(c!)).toEqual({ s1: '0x888', mie: '0x880' });
  });

  it('C.7 illegal instruction: a trap to 0x10000 with mepc, mcause 2, mstatus, mtval, priv M', () => {
    const [c] = ok(b(C7));
    expect(c!.kind).toBe('trap');
    expect(c!.pc).toEqual({ offset: 1, how: 'set', value: 0x10000n });
    expect(c!.instr).toEqual({ offset: 11, bits: 32, value: 0 });
    expect(regsOf(c!)).toEqual({ mepc: '0x81234', mcause: '0x2', mstatus: '0xa000018b0', mtval: '0x0' });
    expect(c!.priv).toBe(3);
  });

  it('C.8 interrupt: no instruction, mcause 0x8000000000000003 (machine software interrupt)', () => {
    const r = decodeTv(b(C8), RV64);
    expect(r.error).toBeUndefined();
    const c = r.groups[0]!;
    expect(c.kind).toBe('interrupt');
    expect(c.instr).toBeUndefined();
    expect(regsOf(c)).toEqual({ mepc: '0x81256', mcause: '0x8000000000000003', mstatus: '0xa000018b0', mtval: '0x0' });
    expect(r.state.priv).toBe(3);
    expect(r.state.pc).toBe(0x10000n);
    expect(r.state.regs.get(0x342)).toBe(0x8000000000000003n);
  });

  it('C.2 as printed (pc identifier `10`) fails at offset 2: additional-state identifier 16', () => {
    const e = fail(b('01 07 10 00 01 00 0c 00 00 00 00 11 67 00 01 10 02'));
    expect(e.offset).toBe(2);
    expect(e.found).toBe('additional-state identifier 16 (0x10)');
    expect(e.expected).toBe('an identifier 1..10');
  });

  it('all eight examples back to back: eight groups, pcs chained', () => {
    const all = b([C1, C2, C3, C4, C5, C6, C7, C8].join(' '));
    const r = decodeTv(all, RV64, { pc: 0x80000000n });
    expect(r.error).toBeUndefined();
    expect(r.groups.map((g) => g.kind)).toEqual(['instruction', 'instruction', 'instruction', 'instruction', 'instruction', 'instruction', 'trap', 'interrupt']);
    // C.2 sets the pc, so the increments of C.3..C.6 are known; C.8 has no instruction.
    expect(r.groups.map((g) => g.instrPc)).toEqual([0x80000000n, 0x80000004n, 0x0c000100n, 0x0c000104n, 0x0c000106n, 0x0c00010an, 0x0c00010en, undefined]);
    expect(r.groups[3]!.pc?.value).toBe(0x0c000106n);
    expect(r.state.pc).toBe(0x10000n);
  });
});

describe('field order', () => {
  /** C.7's items in another order: priv first, instruction last, pc in the middle. */
  const C7_SHUFFLED =
    '01 07 01 03 04 43 03 00 00 00 00 00 00 00 00 04 00 03 b0 18 00 00 0a 00 00 00 ' +
    '07 0a 00 00 01 00 00 00 00 00 04 42 03 02 00 00 00 00 00 00 00 04 41 03 34 12 08 00 00 00 00 00 11 00 00 00 00 02';

  it('C.7 in any order gives the same changes', () => {
    const [a] = ok(b(C7));
    const [s] = ok(b(C7_SHUFFLED));
    expect(s!.kind).toBe('trap');
    expect(s!.pc?.value).toBe(a!.pc?.value);
    expect(s!.instr?.value).toBe(a!.instr?.value);
    expect(s!.priv).toBe(a!.priv);
    expect(regsOf(s!)).toEqual(regsOf(a!));
    // Items stay in stream order with their own offsets.
    expect(s!.regs.map((r) => [r.name, r.offset])).toEqual([
      ['mtval', 4],
      ['mstatus', 15],
      ['mcause', 36],
      ['mepc', 47],
    ]);
  });

  it('the instruction after the increment pc, or before it: same pc', () => {
    const a = ok(b('01 03 11 13 00 00 00 02'), RV64, { pc: 0x100n });
    const z = ok(b('01 11 13 00 00 00 03 02'), RV64, { pc: 0x100n });
    expect(a[0]!.pc?.value).toBe(0x104n);
    expect(z[0]!.pc?.value).toBe(0x104n);
  });
});

describe('incremental registers (5, 6) and increment pc (3)', () => {
  it('opcode 5 adds a signed byte to the previous value of that register', () => {
    // a0 = 5, then a0 += -3 (0xfd), then a0 += 127 (0x7f)
    const g = ok(b('01 03 11 13 05 f5 ff 05 0a 10 fd 02 01 03 11 13 05 75 07 05 0a 10 7f 02'), RV64, { pc: 0n, regs: new Map([[0x100a, 5n]]) });
    expect(g[0]!.regs).toEqual([{ offset: 7, regno: 0x100a, name: 'a0', how: 'add', operand: -3n, before: 5n, value: 2n }]);
    expect(g[1]!.regs).toEqual([{ offset: 19, regno: 0x100a, name: 'a0', how: 'add', operand: 127n, before: 2n, value: 129n }]);
    expect(g[1]!.pc?.value).toBe(8n);
  });

  it('the previous value may come from a full write earlier in the stream', () => {
    const g = ok(b('01 04 0b 10 ff 00 00 00 00 00 00 00 02 01 05 0b 10 01 02'));
    expect(g[1]!.regs[0]).toMatchObject({ name: 'a1', how: 'add', before: 0xffn, value: 0x100n });
  });

  it('adds wrap at XLEN: 0 + -1 is all ones (RV64 and RV32)', () => {
    expect(ok(b('05 0a 10 ff'), RV64, { regs: new Map([[0x100a, 0n]]) })[0]!.regs[0]!.value).toBe(0xffffffffffffffffn);
    expect(ok(b('05 0a 10 ff'), RV32_SV32, { regs: new Map([[0x100a, 0n]]) })[0]!.regs[0]!.value).toBe(0xffffffffn);
    expect(ok(b('05 0a 10 01'), RV32_SV32, { regs: new Map([[0x100a, 0xffffffffn]]) })[0]!.regs[0]!.value).toBe(0n);
  });

  it('opcode 6 ORs a zero-extended byte into the previous value', () => {
    const [c] = ok(b('06 00 03 80'), RV64, { regs: new Map([[0x300, 0xa00000008n]]) });
    expect(c!.regs[0]).toEqual({ offset: 0, regno: 0x300, name: 'mstatus', how: 'or', operand: 0x80n, before: 0xa00000008n, value: 0xa00000088n });
  });

  it('fflags and frm are views of fcsr: an OR into fcsr after fflags and frm writes', () => {
    // Bluespec's cores write fflags; the spec's example ORs into fcsr.
    const g = ok(b('01 04 02 00 02 00 00 00 00 00 00 00 04 01 00 00 00 00 00 00 00 00 00 02 01 06 03 00 04 02'));
    expect(g[1]!.regs[0]).toMatchObject({ name: 'fcsr', before: 0x40n, value: 0x44n });
    const r = decodeTv(b('01 04 02 00 02 00 00 00 00 00 00 00 04 01 00 00 00 00 00 00 00 00 00 02 01 06 03 00 04 02'), RV64);
    expect(r.state.regs.get(0x001)).toBe(0x04n); // fflags follows fcsr
    expect(r.state.regs.get(0x002)).toBe(0x02n);
  });

  it('an incremental write to an unknown register leaves it unknown, later full writes make it known', () => {
    const r = decodeTv(b('05 0c 10 01 04 0c 10 09 00 00 00 00 00 00 00 05 0c 10 01'), RV64);
    expect(r.error).toBeUndefined();
    expect(r.groups[0]!.regs.map((x) => x.value)).toEqual([undefined, 9n, 10n]);
    expect(r.state.regs.get(0x100c)).toBe(10n);
  });

  it('increment pc adds the length of the group\'s instruction: 2 for opcode 16, 4 for 17', () => {
    const g = ok(b('01 03 10 01 00 02 01 03 11 13 00 00 00 02 01 10 82 80 03 02'), RV32_SV32, { pc: 0xfffffffcn });
    expect(g.map((c) => c.pc?.value)).toEqual([0xfffffffen, 0x2n, 0x4n]); // wraps at XLEN = 32
    expect(g.map((c) => c.instrPc)).toEqual([0xfffffffcn, 0xfffffffen, 0x2n]);
  });

  it('a group with an instruction and no pc makes the pc unknown (partial trace)', () => {
    const r = decodeTv(b('01 11 13 00 00 00 02 01 03 11 13 00 00 00 02'), RV64, { pc: 0x100n });
    expect(r.groups[1]!.instrPc).toBeUndefined();
    expect(r.groups[1]!.pc).toEqual({ offset: 8, how: 'increment', by: 4 });
  });
});

describe('end group omitted before a begin group', () => {
  it('C.1 then C.2 without C.1\'s end group: two groups, the first marked', () => {
    const withoutEnd = b(`${C1.slice(0, C1.length - 3)} ${C2}`);
    const p = parseTv(withoutEnd, RV64);
    expect(p.error).toBeUndefined();
    expect(p.groups.map((g) => [g.begin, g.end, g.endImplied])).toEqual([
      [0, undefined, true],
      [18, 34, false],
    ]);
    const g = ok(withoutEnd, RV64, { pc: 0n });
    expect(regsOf(g[0]!)).toEqual({ gp: '0x1234' });
    expect(g[1]!.pc?.value).toBe(0x0c000100n);
  });

  it('begin, begin: an empty group with its end implied', () => {
    const g = ok(b('01 01 02'));
    expect(g.map((c) => [c.kind, c.endImplied])).toEqual([
      ['empty', true],
      ['empty', false],
    ]);
  });
});

describe('state outside a group (accepted: the spec allows ungrouped state changes)', () => {
  it('mtime before the first begin group is an ungrouped group of its own', () => {
    const p = parseTv(b(`07 08 40 e2 01 00 00 00 00 00 ${C2}`), RV64);
    expect(p.error).toBeUndefined();
    expect(p.groups[0]).toEqual({ endImplied: false, items: [{ offset: 0, opcode: 7, kind: 'addlState', length: 10, id: 8, value: 123456n, bytes: 8 }] });
    const g = ok(b(`07 08 40 e2 01 00 00 00 00 00 ${C2}`));
    expect(g.map((c) => [c.offset, c.kind, c.grouped])).toEqual([
      [0, 'state', false],
      [10, 'instruction', true],
    ]);
  });

  it('state between groups and after the last one', () => {
    const p = parseTv(b('01 02 04 01 03 00 00 00 00 00 00 00 00 01 02 07 01 00'), RV64);
    expect(p.error).toBeUndefined();
    expect(p.groups.map((g) => [g.begin, g.items.length])).toEqual([
      [0, 0],
      [undefined, 1],
      [13, 0],
      [undefined, 1],
    ]);
  });

  it('an end group with no group open is an error at its offset', () => {
    const e = fail(b('07 01 03 02'));
    expect(e.offset).toBe(3);
    expect(e.oneLine()).toBe('byte offset 3: end group (opcode 2) with no group open: expected begin group (opcode 1) or a state change');
    expect(fail(b(`${C1} 02`)).offset).toBe(19);
  });
});

describe('memory requests and responses', () => {
  it('a load with its response data, a store without response data (erratum 4), an AMO', () => {
    const g = ok(
      b(
        '01 ' +
          '08 00 10 00 80 00 00 00 00 20 09 02 78 56 34 12 ' + // lw from 0x80001000 -> 0x12345678
          '08 08 10 00 80 00 00 00 00 31 ef cd ab 89 67 45 23 01 09 03 ' + // sd 0x0123456789abcdef, response: size 3, ok, no data
          '08 10 10 00 80 00 00 00 00 25 01 00 00 00 09 02 05 00 00 00 ' + // amoadd.w +1, old value 5
          '02',
      ),
    );
    expect(g[0]!.mem).toEqual([
      { offset: 1, op: 0, opName: 'load', addr: 0x80001000n, size: 4, response: { offset: 11, size: 4, ok: true, data: 0x12345678n } },
      { offset: 17, op: 1, opName: 'store', addr: 0x80001008n, size: 8, data: 0x0123456789abcdefn, response: { offset: 35, size: 8, ok: true } },
      { offset: 37, op: 5, opName: 'amoadd', addr: 0x80001010n, size: 4, data: 1n, response: { offset: 51, size: 4, ok: true, data: 5n } },
    ]);
  });

  it('a failed store conditional: request data, response result 1 and no data', () => {
    const g = ok(b('08 00 20 00 80 00 00 00 00 23 2a 00 00 00 09 12'));
    expect(g[0]!.mem[0]).toEqual({ offset: 0, op: 3, opName: 'sc', addr: 0x80002000n, size: 4, data: 42n, response: { offset: 14, size: 4, ok: false } });
  });

  it('an instruction fetch and an lr carry no request data', () => {
    const g = ok(b('08 00 00 00 80 00 00 00 00 2d 08 00 30 00 80 00 00 00 00 32 09 03 11 22 33 44 55 66 77 88'));
    expect(g[0]!.mem.map((m) => [m.opName, m.size, m.data, m.response?.data])).toEqual([
      ['fetch', 4, undefined, undefined],
      ['lr', 8, undefined, 0x8877665544332211n],
    ]);
  });

  it('a memory response not right after a request is an error at its offset', () => {
    expect(fail(b('01 09 02 00 00 00 00 02')).oneLine()).toBe(
      'byte offset 1: memory response (opcode 9) after no item of its group: expected a memory request (opcode 8) right before it',
    );
    const e = fail(b('01 08 00 10 00 80 00 00 00 00 20 07 01 03 09 02 00 00 00 00 02'));
    expect(e.offset).toBe(14);
    expect(e.found).toBe('memory response (opcode 9) after an additional state (opcode 7)');
    // Two responses to one request: the second follows a response.
    expect(fail(b('08 00 10 00 80 00 00 00 00 20 09 02 00 00 00 00 09 02 00 00 00 00')).offset).toBe(16);
  });

  it('bad op, size and result fields are errors at the byte that holds them', () => {
    expect(fail(b('08 00 10 00 80 00 00 00 00 2e')).found).toBe('memory request op 14');
    expect(fail(b('08 00 10 00 80 00 00 00 00 2e')).offset).toBe(9);
    expect(fail(b('08 00 10 00 80 00 00 00 00 40')).found).toBe('memory request size 4');
    expect(fail(b('08 00 10 00 80 00 00 00 00 20 09 22 00 00 00 00')).found).toBe('memory response result 2');
    expect(fail(b('08 00 10 00 80 00 00 00 00 20 09 04')).found).toBe('memory response size 4');
  });

  it('a debug-module write: state initialization with a memory store and no response', () => {
    const [c] = ok(b('01 0b 08 00 00 00 80 00 00 00 00 21 13 05 00 00 02'));
    expect(c!.kind).toBe('debug-write');
    expect(c!.stateInit).toBe(true);
    expect(c!.mem).toEqual([{ offset: 2, op: 1, opName: 'store', addr: 0x80000000n, size: 4, data: 0x513n }]);
  });
});

describe('hart reset, debug writes, xRET', () => {
  it('hart reset `01 0a 02`: kind reset, priv M, registers unknown', () => {
    const r = decodeTv(b(`${C6} 01 0a 02`), RV64);
    expect(r.error).toBeUndefined();
    expect(r.groups[1]!.kind).toBe('reset');
    expect(r.state.priv).toBe(3);
    expect(r.state.regs.get(0x1009)).toBeUndefined();
    expect(r.state.regs.get(0x1000)).toBe(0n);
  });

  it('a debug-module register write `01 0b 04 ... 02`', () => {
    const [c] = ok(b('01 0b 04 02 10 00 00 00 80 00 00 00 00 02'));
    expect(c!.kind).toBe('debug-write');
    expect(regsOf(c!)).toEqual({ sp: '0x80000000' });
  });

  it('mret `73 00 20 30` with the new pc, priv and mstatus is an xret', () => {
    const [c] = ok(b('01 07 0a 00 10 00 80 00 00 00 00 11 73 00 20 30 07 01 00 04 00 03 80 00 00 00 0a 00 00 00 02'));
    expect(c!.kind).toBe('xret');
    expect(c!.priv).toBe(0);
    expect(regsOf(c!)).toEqual({ mstatus: '0xa00000080' });
  });

  it('a supervisor trap (scause, sepc) and a trap without an instruction (fetch fault) are traps', () => {
    const s = ok(b('01 07 0a 00 00 20 00 00 00 00 00 11 73 00 00 00 07 01 01 04 42 01 08 00 00 00 00 00 00 00 04 41 01 00 10 00 00 00 00 00 00 02'));
    expect(s[0]!.kind).toBe('trap');
    const f = ok(b('01 07 0a 00 00 01 00 00 00 00 00 04 41 03 00 00 00 90 00 00 00 00 04 42 03 01 00 00 00 00 00 00 00 02'));
    expect(f[0]!.kind).toBe('trap');
  });

  it('csrw mcause alone is an instruction, not a trap', () => {
    const [c] = ok(b('01 03 11 73 90 20 34 04 42 03 05 00 00 00 00 00 00 00 02'));
    expect(c!.kind).toBe('instruction');
  });
});

describe('group rules (spec chapter 3: only unambiguous state changes)', () => {
  it('increment pc without an instruction is an error at the 03', () => {
    const e = fail(b('01 04 03 10 00 00 00 00 00 00 00 00 03 02'));
    expect(e.offset).toBe(12);
    expect(e.oneLine()).toBe(
      'byte offset 12: increment pc (opcode 3) in a group without an instruction: expected a 16- or 32-bit instruction (opcode 16 or 17) in the same group',
    );
    expect(fail(b('03')).offset).toBe(0); // ungrouped: no instruction either
  });

  it('two instructions, two pc changes, two privilege modes in one group', () => {
    expect(fail(b('01 11 13 00 00 00 10 01 00 02')).found).toBe('second instruction in one group (the first at byte offset 1)');
    expect(fail(b('01 03 11 13 00 00 00 07 0a 00 00 00 00 00 00 00 00 02')).offset).toBe(7);
    expect(fail(b('01 07 01 03 07 01 00 02')).offset).toBe(4);
  });

  it('state initialization with an instruction or a hart reset', () => {
    expect(fail(b('01 0b 11 13 00 00 00 02')).found).toBe('state initialization (opcode 11) in a group with a 32-bit instruction (opcode 17) at byte offset 2');
    expect(fail(b('01 0a 0b 02')).offset).toBe(2);
  });

  it('the groups before the error are kept', () => {
    const r = decodeTv(b(`${C1} ${C2} 01 03 02`), RV64);
    expect(r.groups).toHaveLength(2);
    expect(r.error?.offset).toBe(37);
  });
});

describe('byte-level errors', () => {
  it('unknown opcodes: 0x00, 0x0c, 0x0f, 0x12, 0xff at their offset', () => {
    for (const op of [0x00, 0x0c, 0x0f, 0x12, 0xff]) {
      const e = fail(b(`01 ${op.toString(16).padStart(2, '0')} 02`));
      expect(e.offset).toBe(1);
      expect(e.code).toBe('bad-value');
      expect(e.expected).toBe('an opcode 1..11, 16 or 17');
    }
  });

  it('a truncated payload: the offset of the first missing byte, the item it belongs to', () => {
    const cut = b(C1).subarray(0, 12); // inside gp's data (offsets 10..17)
    const e = fail(cut);
    expect(e.code).toBe('truncated');
    expect(e.offset).toBe(12);
    expect(e.oneLine()).toBe('byte offset 12: stream ends inside a full register (opcode 4) at byte offset 7: expected 8 bytes of gp data at offset 10, 2 present');
    expect(parseTv(cut, RV64).groups).toEqual([]);
  });

  it('truncated register number, instruction, identifier, memory fields', () => {
    expect(fail(b('04 0a')).expected).toBe('2 bytes of register number at offset 1, 1 present');
    expect(fail(b('11 13 00')).expected).toBe('4 bytes of instruction at offset 1, 2 present');
    expect(fail(b('07')).expected).toBe('1 byte of additional-state identifier at offset 1, 0 present');
    expect(fail(b('08 00 10 00 80 00 00 00 00 21 01 02')).expected).toBe('4 bytes of store data at offset 10, 2 present');
    expect(fail(b('08 00 10 00 80 00 00 00 00 20 09 02 01')).expected).toBe('4 bytes of load response data at offset 12, 1 present');
  });

  it('the stream ends inside a group: expected end group', () => {
    const e = fail(b(C1).subarray(0, 18));
    expect(e.offset).toBe(18);
    expect(e.oneLine()).toBe('byte offset 18: stream ends inside the group begun at byte offset 0: expected end group (opcode 2)');
  });

  it('additional-state identifiers 0 and 11 are out of range', () => {
    for (const id of ['00', '0b']) {
      const e = fail(b(`01 07 ${id} 00 02`));
      expect(e.offset).toBe(2);
      expect(e.expected).toBe('an identifier 1..10');
    }
  });

  it('a privilege mode above 3 (PRIVLEN = 2)', () => {
    const e = fail(b('01 07 01 04 02'));
    expect(e.offset).toBe(3);
    expect(e.found).toBe('privilege mode 4');
  });

  it('an FPR with FLEN = 0', () => {
    const e = fail(b('04 27 10 00 00 00 00'), RV32_SV32);
    expect(e.offset).toBe(1);
    expect(e.found).toBe('register ft7 (0x1027) is an FPR but FLEN = 0');
  });
});

describe('RV32 with Sv32: MLEN = 34, 5-byte addresses, 4-byte registers and pc', () => {
  it('physical and effective addresses, pc physical address and memory requests are 5 bytes', () => {
    const s =
      '01 07 0a 04 00 40 c0 ' + // pc = 0xc0400004 (XLEN: 4 bytes)
      '11 83 a2 02 00 ' + // lw t0, 0(t0)
      '04 05 10 ef be ad de ' + // t0 = 0xdeadbeef
      '07 03 00 20 00 c0 00 ' + // eaddr = 0xc0002000 (5 bytes, top byte 0)
      '07 02 00 20 00 00 03 ' + // paddr = 0x3_0000_2000 (34 bits)
      '07 09 00 00 40 00 02 ' + // pc paddr = 0x2_0040_0000
      '08 00 20 00 00 03 20 09 02 ef be ad de ' + // memory load of 4 bytes at 0x3_0000_2000
      '02';
    const [c] = ok(b(s), RV32_SV32);
    expect(c!.pc?.value).toBe(0xc0400004n);
    expect(c!.instr?.value).toBe(0x0002a283);
    expect(regsOf(c!)).toEqual({ t0: '0xdeadbeef' });
    expect(c!.addl).toEqual([
      { offset: 19, id: 3, name: 'eaddr', value: 0xc0002000n, bytes: 5 },
      { offset: 26, id: 2, name: 'paddr', value: 0x300002000n, bytes: 5 },
      { offset: 33, id: 9, name: 'pc.paddr', value: 0x200400000n, bytes: 5 },
    ]);
    expect(c!.mem).toEqual([{ offset: 40, op: 0, opName: 'load', addr: 0x300002000n, size: 4, response: { offset: 47, size: 4, ok: true, data: 0xdeadbeefn } }]);
  });

  it('an address with bits above 34 is an error at the field', () => {
    const e = fail(b('07 02 00 00 00 00 04'), RV32_SV32);
    expect(e.offset).toBe(2);
    expect(e.found).toBe('paddr 0x400000000 has bits above MLEN = 34');
  });

  it('MLEN = 32 (no Sv32): 4-byte addresses', () => {
    const [c] = ok(b('07 02 00 20 00 80'), { xlen: 32, flen: 0, mlen: 32 });
    expect(c!.addl[0]).toMatchObject({ name: 'paddr', value: 0x80002000n, bytes: 4 });
  });
});

describe('FLEN = 32: FPR data is 4 bytes', () => {
  const RV64F: TvParams = { xlen: 64, flen: 32, mlen: 64 };
  it('ft7 = 0x66fef4f9 in 4 bytes, then fflags as an XLEN CSR', () => {
    const [c] = ok(b('01 03 11 d3 f3 16 01 04 27 10 f9 f4 fe 66 04 01 00 01 00 00 00 00 00 00 00 02'), RV64F, { pc: 0n });
    expect(regsOf(c!)).toEqual({ ft7: '0x66fef4f9', fflags: '0x1' });
  });

  it('RV32 with FLEN 32 and FLEN 64', () => {
    expect(regsOf(ok(b('04 20 10 00 00 80 3f'), { xlen: 32, flen: 32, mlen: 32 })[0]!)).toEqual({ ft0: '0x3f800000' });
    expect(regsOf(ok(b('04 20 10 00 00 00 00 00 00 f0 3f'), { xlen: 32, flen: 64, mlen: 32 })[0]!)).toEqual({ ft0: '0x3ff0000000000000' });
  });

  it('incremental FPR updates wrap at FLEN', () => {
    const [c] = ok(b('05 20 10 01'), RV64F, { regs: new Map([[0x1020, 0xffffffffn]]) });
    expect(c!.regs[0]!.value).toBe(0n);
  });
});

describe('parameters', () => {
  it('bad parameters are a caller error (thrown), not a stream error', () => {
    expect(() => parseTv(b('01 02'), { xlen: 48 as 32, flen: 0, mlen: 32 })).toThrow('XLEN 48: expected 32 or 64');
    expect(() => parseTv(b('01 02'), { xlen: 32, flen: 0, mlen: 0 })).toThrow('MLEN 0');
    expect(() => parseTv(b('01 02'), { xlen: 32, flen: 0, mlen: 32, ilen: 16 })).toThrow('ILEN 16');
  });

  it('rebuildTv on groups from parseTv equals decodeTv', () => {
    const p = parseTv(b(C7), RV64);
    expect(rebuildTv(p.groups, RV64).groups).toEqual(decodeTv(b(C7), RV64).groups);
  });
});
