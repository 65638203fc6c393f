/**
 * The N-Trace decoder side checked against the worked bytes of ../shared/design/ntrace.md (typed
 * from the text, program image written by hand from the ISA manual), single messages, framing
 * errors, the options the decoder follows, and garbage input.
 */
import { describe, expect, it } from 'vitest';
import { ProgramImage } from '../hart/image.ts';
import * as enc from '../hart/isa/encode.ts';
import { decodeNtrace, decodeNtraceWithProblems, type DecodedItem } from './decoder.ts';
import { dumpLine, dumpNtrace, ntraceStats } from './dump.ts';
import { fieldOf, fieldValue, parseNtrace, type NtraceMessage } from './mseo.ts';
import { defaultNtraceConfig, type NtraceConfig } from './settings.ts';

const bytesOf = (s: string): Uint8Array => Uint8Array.from(s.trim().split(/\s+/).map((x) => parseInt(x, 16)));

/** Little-endian bytes of instruction words placed at addresses. */
function image(parts: Record<number, number[]>, base = 0n): ProgramImage {
  const segs = Object.entries(parts).map(([addr, words]) => {
    const bytes: number[] = [];
    for (const w of words) {
      const n = (w & 3) === 3 ? 4 : 2;
      for (let k = 0; k < n; k++) bytes.push((w >>> (8 * k)) & 0xff);
    }
    return { base: base + BigInt(addr), bytes: Uint8Array.from(bytes) };
  });
  return new ProgramImage(segs);
}

// Hand-written encodings (RISC-V unprivileged ISA, RV32I/RV64I and C chapters).
const C_ADD = 0x952e; // c.add a0, a1: 1001 01010 01011 10
const BEQ_200 = 0x0eb50f63; // beq a0, a1, +0xfe (0x102 -> 0x200)
const ADD = 0x00b50533; // add a0, a0, a1
const BNE_300 = 0x1eb51b63; // bne a0, a1, +0x1f6 (0x10a -> 0x300)
const C_NOP = 0x0001; // the "c.x" at 0x114: any 16-bit sequential instruction
const C_JR_A2 = 0x8602; // c.jr a2: 1000 01100 00000 10
const JR_A3 = 0x00068067; // jalr x0, 0(a3)

/** The worked example's program. */
const WORKED = image({
  0x100: [C_ADD, BEQ_200, ADD, BNE_300, C_ADD, ADD, C_NOP],
  0x200: [C_ADD, C_JR_A2],
  0x300: [ADD, JR_A3],
});

const PASS1 = [0x100, 0x102, 0x200, 0x202];
const PASS2 = [0x100, 0x102, 0x106, 0x10a, 0x300, 0x304];
const PASS3 = [0x100, 0x102, 0x106, 0x10a, 0x10e, 0x110, 0x114];

const BTM = '24 05 00 0b 0c 0f 10 21 03 0c 1f 10 41 03 84 00 2f';
const HTM = '24 05 00 0b 70 51 01 0f 70 b1 01 17 84 40 2d 13';

const btm = defaultNtraceConfig({ mode: 'btm' });
const htm = defaultNtraceConfig({ mode: 'htm' });

/** The items as short strings: addresses in hex, gaps as `gap:reason`. */
const show = (items: readonly DecodedItem[]): string[] => items.map((i) => (i.kind === 'pc' ? `0x${i.address.toString(16)}` : `gap:${i.reason}`));
const pcs = (...runs: number[][]): string[] => runs.flat().map((a) => `0x${a.toString(16)}`);

// --- a test-only message writer (not the encoder: fields given by hand) -------------------------

type Var = bigint | number | { value: bigint | number; width: number };

/** One message: TCODE, SRC (when configured), fixed fields [bits, value], variable fields. */
function msg(c: Pick<NtraceConfig, 'srcWidth'>, tcode: number, fixed: [number, number][], vars: Var[], src = 0): number[] {
  const bits: number[] = [];
  const put = (w: number, v: bigint): void => {
    for (let k = 0; k < w; k++) bits.push(Number((v >> BigInt(k)) & 1n));
  };
  put(6, BigInt(tcode));
  if (c.srcWidth > 0) put(c.srcWidth, BigInt(src));
  for (const [w, v] of fixed) put(w, BigInt(v));
  const ends: number[] = [];
  for (const v of vars) {
    const value = typeof v === 'object' ? BigInt(v.value) : BigInt(v);
    const width = typeof v === 'object' ? v.width : Math.max(1, value.toString(2).length);
    put(width, value);
    while (bits.length % 6 !== 0) bits.push(0);
    ends.push(bits.length / 6 - 1);
  }
  const out: number[] = [];
  for (let b = 0; b < bits.length / 6; b++) {
    let mdo = 0;
    for (let k = 0; k < 6; k++) mdo |= bits[6 * b + k]! << k;
    const mseo = b === bits.length / 6 - 1 ? 3 : ends.includes(b) ? 1 : 0;
    out.push((mdo << 2) | mseo);
  }
  return out;
}

const M = { sync: 9, db: 3, ib: 4, err: 8, rf: 27, ibh: 28, ibhs: 29, rb: 30, ptc: 33 };
const stream = (...messages: number[][]): Uint8Array => Uint8Array.from(messages.flat());

// --- tests --------------------------------------------------------------------------------------

describe('hand encodings', () => {
  it('match the ISA encoder helpers of hart/isa', () => {
    expect(C_ADD).toBe(enc.cAdd(10, 11));
    expect(BEQ_200).toBe(enc.beq(10, 11, 0xfe));
    expect(ADD).toBe(enc.add(10, 10, 11));
    expect(BNE_300).toBe(enc.bne(10, 11, 0x1f6));
    expect(C_JR_A2).toBe(enc.cJr(12));
    expect(JR_A3).toBe(enc.jalr(0, 13, 0));
  });
});

describe('mseo framing and dump', () => {
  const c = defaultNtraceConfig();
  const one = (s: string): NtraceMessage => {
    const items = parseNtrace(bytesOf(s), c);
    expect(items).toHaveLength(1);
    expect(items[0]!.kind).toBe('message');
    return items[0] as NtraceMessage;
  };

  it('parses ProgTraceSync(SYNC 3, I-CNT 0, F-ADDR 0) = 24 0d 03', () => {
    const m = one('24 0d 03');
    expect([m.tcode, m.name]).toEqual([9, 'ProgTraceSync']);
    expect(m.fields.map((f) => [f.name, f.value])).toEqual([['SYNC', 3n], ['I-CNT', 0n], ['F-ADDR', 0n]]);
    expect(dumpLine(m)).toBe('0x0000 ProgTraceSync(9) SYNC=3 I-CNT=0x0 F-ADDR=0x0');
  });

  it('parses Error(0, 0) = 20 03', () => {
    const m = one('20 03');
    expect(m.fields.map((f) => [f.name, f.value])).toEqual([['ETYPE', 0n], ['ECODE', 0n]]);
    expect(dumpLine(m)).toBe('0x0000 Error(8) ETYPE=0 ECODE=0x0');
  });

  it('parses ResourceFull(RCODE 0, RDATA 9) = 6c 40 0b', () => {
    const m = one('6c 40 0b');
    expect(m.fields.map((f) => [f.name, f.value])).toEqual([['RCODE', 0n], ['RDATA', 9n]]);
    expect(dumpLine(m)).toBe('0x0000 ResourceFull(27) RCODE=0 RDATA=0x9');
  });

  it('parses RepeatBranch(5) = 78 17', () => {
    const m = one('78 17');
    expect(m.fields.map((f) => [f.name, f.value])).toEqual([['B-CNT', 5n]]);
    expect(dumpLine(m)).toBe('0x0000 RepeatBranch(30) B-CNT=0x5');
  });

  it('dumps the worked HTM stream, one line per message, and counts per TCODE', () => {
    expect(dumpNtrace(bytesOf(HTM), c)).toEqual([
      '0x0000 ProgTraceSync(9) SYNC=1 I-CNT=0x0 F-ADDR=0x80',
      '0x0004 IndirectBranchHist(28) B-TYPE=0 I-CNT=0x5 U-ADDR=0x0 HIST=0x3',
      '0x0008 IndirectBranchHist(28) B-TYPE=0 I-CNT=0xb U-ADDR=0x0 HIST=0x5',
      '0x000c ProgTraceCorrelation(33) EVCODE=0 CDF=1 I-CNT=0xb HIST=0x4',
    ]);
    const b = bytesOf(`ff ${BTM} ff ff`);
    const s = ntraceStats(parseNtrace(b, c), b);
    expect(s.perTcode.map((t) => [t.name, t.count, t.bytes])).toEqual([
      ['DirectBranch', 2, 4],
      ['IndirectBranch', 2, 6],
      ['ProgTraceSync', 1, 4],
      ['ProgTraceCorrelation', 1, 3],
    ]);
    expect([s.messages, s.messageBytes, s.idleBytes, s.errors, s.totalBytes]).toEqual([6, 17, 3, 0, 20]);
  });

  it('skips idle bytes and reports reserved MSEO 10 with its offset, then resynchronises at the next message end', () => {
    const items = parseNtrace(bytesOf('ff 24 0e 03 24 0d 03'), c);
    expect(items.map(dumpLine)).toEqual([
      '0x0002 error: reserved MSEO 10 at byte offset 0x0002 (message from 0x0001 dropped)',
      '0x0004 ProgTraceSync(9) SYNC=3 I-CNT=0x0 F-ADDR=0x0',
    ]);
  });

  it('reports a message cut short by the end of the stream, and one missing a field', () => {
    expect(parseNtrace(bytesOf('20 03 24 0d'), c).map(dumpLine)).toEqual([
      '0x0000 Error(8) ETYPE=0 ECODE=0x0',
      '0x0002 error: message at byte offset 0x0002 cut short: the stream ends after 2 bytes without an MSEO 11 byte',
    ]);
    expect(parseNtrace(bytesOf('24 0f'), c).map(dumpLine)).toEqual([
      '0x0000 error: message at byte offset 0x0000: ProgTraceSync(9) cut short: field F-ADDR is missing (1 of 2 variable fields)',
    ]);
    // With a 3-bit SRC, SYNC would continue past the message's last byte.
    expect(parseNtrace(bytesOf('24 03'), { srcWidth: 3, timestamp: false }).map(dumpLine)).toEqual([
      '0x0000 error: message at byte offset 0x0000: ProgTraceSync(9) ends inside its fixed field SYNC',
    ]);
  });

  it('reports a byte with MSEO 01/11 outside a message', () => {
    expect(parseNtrace(bytesOf('01 20 03 07 20 03'), c).map(dumpLine)).toEqual([
      '0x0000 error: byte 0x01 at offset 0x0000 with MSEO 01 outside a message (a message starts with MSEO 00)',
      '0x0003 error: byte 0x07 at offset 0x0003 with MSEO 11 outside a message (a message starts with MSEO 00)',
      '0x0004 Error(8) ETYPE=0 ECODE=0x0',
    ]);
  });

  it('reads SRC after TCODE and an optional TSTAMP at the end', () => {
    const cs = defaultNtraceConfig({ srcWidth: 3, timestamp: true });
    const b = stream(msg(cs, M.sync, [[4, 3]], [0, 0x80, 0x1234], 5), msg(cs, M.db, [], [3], 5), msg(cs, M.db, [], [3, 7], 5));
    expect(dumpNtrace(b, cs)).toEqual([
      '0x0000 ProgTraceSync(9) SRC=5 SYNC=3 I-CNT=0x0 F-ADDR=0x80 TSTAMP=0x1234',
      '0x0008 DirectBranch(3) SRC=5 I-CNT=0x3',
      '0x000a DirectBranch(3) SRC=5 I-CNT=0x3 TSTAMP=0x7',
    ]);
    // Without timestamps the extra field is an error.
    expect(dumpNtrace(stream(msg(cs, M.db, [], [3, 7], 5)), { srcWidth: 3, timestamp: false })[0]).toMatch(/error: .*1 variable field\(s\) more/);
  });
});

describe('decoder: worked bytes of ntrace.md', () => {
  it('BTM: T / NT,T / NT,NT, then trace stops', () => {
    expect(show(decodeNtrace(bytesOf(BTM), WORKED, btm))).toEqual([...pcs(PASS1, PASS2, PASS3), 'gap:trace-off']);
  });

  it('HTM: the same three passes', () => {
    expect(show(decodeNtrace(bytesOf(HTM), WORKED, htm))).toEqual([...pcs(PASS1, PASS2, PASS3), 'gap:trace-off']);
  });

  it('reports the stop with its EVCODE and offset', () => {
    const items = decodeNtrace(bytesOf(BTM), WORKED, btm);
    expect(items.at(-1)).toEqual({ kind: 'gap', reason: 'trace-off', offset: 14, detail: 'ProgTraceCorrelation EVCODE 0 (entry to debug mode)' });
  });
});

describe('decoder: synchronisation and loss', () => {
  it('starts at the first sync message: before it a gap, nothing emitted', () => {
    const b = bytesOf(`0c 0f 10 21 03 ${BTM}`);
    expect(show(decodeNtrace(b, WORKED, btm))).toEqual(['gap:unsynced', ...pcs(PASS1, PASS2, PASS3), 'gap:trace-off']);
  });

  it('Error message then SYNC 7: a gap, then decoding resumes at the new F-ADDR', () => {
    const b = bytesOf('24 05 00 0b 0c 0f 10 21 03  20 03  24 1d 00 0b  0c 1f 10 41 03 84 00 2f');
    const r = decodeNtraceWithProblems(b, WORKED, btm);
    expect(show(r.items)).toEqual([...pcs(PASS1), 'gap:trace-lost', ...pcs(PASS2, PASS3), 'gap:trace-off']);
    expect(r.items[4]).toMatchObject({ kind: 'gap', reason: 'trace-lost', offset: 9 });
  });

  it('SYNC 7 without an Error message while decoding is a loss too', () => {
    const b = bytesOf('24 05 00 0b 0c 0f 10 21 03  24 1d 00 0b  0c 1f 10 41 03 84 00 2f');
    expect(show(decodeNtrace(b, WORKED, btm))).toEqual([...pcs(PASS1), 'gap:trace-lost', ...pcs(PASS2, PASS3), 'gap:trace-off']);
  });

  it('a framing error becomes a bad-trace gap with its offset; the next sync resumes', () => {
    // Pass 1, then a damaged message (MSEO 10), then a sync and passes 2 and 3.
    const b = bytesOf('24 05 00 0b 0c 0f 10 21 03  0c 1e 03  24 09 00 0b  0c 1f 10 41 03 84 00 2f');
    const r = decodeNtraceWithProblems(b, WORKED, btm);
    expect(show(r.items)).toEqual([...pcs(PASS1), 'gap:bad-trace', ...pcs(PASS2, PASS3), 'gap:trace-off']);
    expect(r.items[4]).toMatchObject({ offset: 10 });
    expect(r.problems[0]!.message).toMatch(/reserved MSEO 10 at byte offset 0x000a/);
  });

  it('an impossible I-CNT (ending inside a 32-bit instruction) is a gap, not a wrong path', () => {
    const b = bytesOf('24 05 00 0b 0c 0b 10 21 03 24 09 00 0b 84 00 2f');
    const r = decodeNtraceWithProblems(b, WORKED, btm);
    expect(show(r.items)).toEqual(['0x100', '0x102', 'gap:bad-trace', ...pcs(PASS3), 'gap:trace-off']);
    expect(r.problems[0]!.message).toMatch(/DirectBranch\(3\) at byte offset 0x4: I-CNT 2 ends inside the 32-bit instruction at 0x102/);
  });

  it('a stream that ends while tracing is on ends with a truncated gap', () => {
    const b = bytesOf('24 05 00 0b 0c 0f 10 21 03');
    expect(show(decodeNtrace(b, WORKED, btm))).toEqual([...pcs(PASS1), 'gap:truncated']);
  });

  it('ignores the messages of other sources (SRC)', () => {
    const cs = defaultNtraceConfig({ mode: 'btm', srcWidth: 2, src: 1 });
    const b = stream(
      msg(cs, M.sync, [[4, 3]], [0, 0x80], 1),
      msg(cs, M.err, [[4, 0]], [0], 2),
      msg(cs, M.db, [], [3], 1),
      msg(cs, M.ib, [[2, 0]], [2, 0], 1),
      msg(cs, M.ptc, [[4, 0], [2, 0]], [11], 1),
    );
    expect(show(decodeNtrace(b, WORKED, cs))).toEqual([...pcs(PASS1, PASS3), 'gap:trace-off']);
  });
});

// A loop: 0x100 c.nop; 0x102 c.bnez a0, 0x100; 0x104 c.nop.
const C_BNEZ_BACK = 0xfd7d; // c.bnez a0, -2: 111 1 11 010 11 11 1 01
const LOOP = image({ 0x100: [C_NOP, C_BNEZ_BACK, C_NOP] });
/** Taken three times, then not taken, then 0x104. */
const LOOP_PCS = pcs([0x100, 0x102, 0x100, 0x102, 0x100, 0x102, 0x100, 0x102, 0x104]);

describe('decoder: ResourceFull, HREPEAT, RepeatBranch', () => {
  const c = htm;
  const sync = msg(c, M.sync, [[4, 3]], [0, 0x80]);

  it('the hand encoding of c.bnez matches', () => {
    expect(C_BNEZ_BACK).toBe(enc.cBnez(10, -2));
  });

  it('HTM: one ProgTraceCorrelation with HIST 1_1110 (consumed most significant first)', () => {
    expect(show(decodeNtrace(stream(sync, msg(c, M.ptc, [[4, 0], [2, 1]], [9, 0b11110])), LOOP, c))).toEqual([...LOOP_PCS, 'gap:trace-off']);
  });

  it('HTM: HIST full (RCODE 1) then the rest', () => {
    const b = stream(sync, msg(c, M.rf, [[4, 1]], [0b111]), msg(c, M.ptc, [[4, 0], [2, 1]], [9, 0b110]));
    expect(show(decodeNtrace(b, LOOP, c))).toEqual([...LOOP_PCS, 'gap:trace-off']);
  });

  it('HTM: HIST repeated (RCODE 2, HREPEAT 3) then the rest', () => {
    const b = stream(sync, msg(c, M.rf, [[4, 2]], [0b11, 3]), msg(c, M.ptc, [[4, 0], [2, 1]], [9, 0b10]));
    expect(show(decodeNtrace(b, LOOP, c))).toEqual([...LOOP_PCS, 'gap:trace-off']);
  });

  it('I-CNT full (RCODE 0): RDATA adds to the next I-CNT (HIST bits may come later)', () => {
    const b = stream(sync, msg(c, M.rf, [[4, 0]], [5]), msg(c, M.ptc, [[4, 0], [2, 1]], [4, 0b11110]));
    expect(show(decodeNtrace(b, LOOP, c))).toEqual([...LOOP_PCS, 'gap:trace-off']);
  });

  it('HIST bits left over, or a branch without one, are errors in HTM', () => {
    const extra = decodeNtraceWithProblems(stream(sync, msg(c, M.ptc, [[4, 0], [2, 1]], [9, 0b111100])), LOOP, c);
    expect(extra.problems[0]!.message).toMatch(/1 HIST bit\(s\) left/);
    const few = decodeNtraceWithProblems(stream(sync, msg(c, M.ptc, [[4, 0], [2, 1]], [9, 0b111])), LOOP, c);
    expect(few.problems[0]!.message).toMatch(/no HIST bit left for the branch at 0x102/);
  });

  it('BTM: DirectBranch then RepeatBranch(2)', () => {
    const b = stream(msg(btm, M.sync, [[4, 3]], [0, 0x80]), msg(btm, M.db, [], [2]), msg(btm, M.rb, [], [2]), msg(btm, M.ptc, [[4, 0], [2, 0]], [3]));
    expect(show(decodeNtrace(b, LOOP, btm))).toEqual([...LOOP_PCS, 'gap:trace-off']);
  });

  it('RepeatBranch without a branch message since the sync is a gap', () => {
    const b = stream(msg(btm, M.sync, [[4, 3]], [0, 0x80]), msg(btm, M.rb, [], [2]));
    expect(show(decodeNtrace(b, LOOP, btm))).toEqual(['gap:bad-trace']);
  });
});

describe('decoder: implicit return', () => {
  // 0x100 jal ra, 0x200; 0x104 c.nop; 0x200 c.nop; 0x202 c.jr ra (a return).
  const JAL_RA_200 = 0x100000ef; // imm[10:1] = 0x80 in bits 30:21, rd = 1
  const C_JR_RA = 0x8082; // c.jr ra: 1000 00001 00000 10
  const prog = image({ 0x100: [JAL_RA_200, C_NOP], 0x200: [C_NOP, C_JR_RA] });

  it('hand encodings match', () => {
    expect(JAL_RA_200).toBe(enc.jal(1, 0x100));
    expect(C_JR_RA).toBe(enc.cJr(1));
  });

  for (const mode of ['stack', 'counter'] as const) {
    it(`${mode}: a return inside the I-CNT range goes to the address its call pushed`, () => {
      const c = defaultNtraceConfig({ mode: 'btm', implicitReturn: mode, callStackSize: 4 });
      const b = stream(msg(c, M.sync, [[4, 3]], [0, 0x80]), msg(c, M.ptc, [[4, 0], [2, 0]], [5]));
      expect(show(decodeNtrace(b, prog, c))).toEqual([...pcs([0x100, 0x200, 0x202, 0x104]), 'gap:trace-off']);
    });
  }

  it('without implicit return the same stream does not decode (gap, not a guess)', () => {
    const c = defaultNtraceConfig({ mode: 'btm' });
    const b = stream(msg(c, M.sync, [[4, 3]], [0, 0x80]), msg(c, M.ptc, [[4, 0], [2, 0]], [5]));
    const r = decodeNtraceWithProblems(b, prog, c);
    expect(show(r.items)).toEqual(['0x100', '0x200', '0x202', 'gap:bad-trace']);
    expect(r.problems[0]!.message).toMatch(/uninferable jump \(c\.jr\) at 0x202 is not the last/);
  });

  it('an explicit return (the range ends at it) takes the reported address', () => {
    const c = defaultNtraceConfig({ mode: 'btm', implicitReturn: 'stack', callStackSize: 4 });
    // The return goes to 0x104 anyway; U-ADDR = 0x104 ^ 0x100 = 0x4 -> field 0x2.
    const b = stream(msg(c, M.sync, [[4, 3]], [0, 0x80]), msg(c, M.ib, [[2, 0]], [4, 2]), msg(c, M.ptc, [[4, 0], [2, 0]], [1]));
    expect(show(decodeNtrace(b, prog, c))).toEqual([...pcs([0x100, 0x200, 0x202, 0x104]), 'gap:trace-off']);
  });
});

describe('decoder: addresses', () => {
  it('U-ADDR is XORed with the last reported address, which every address field updates', () => {
    // Pass 2 with the jr at 0x304 going to 0x200 (U-ADDR (0x200 ^ 0x100) >> 1), then the c.jr at
    // 0x202 back to 0x100 (U-ADDR (0x100 ^ 0x200) >> 1), then 0x100 and the branch at 0x102 not taken.
    const b = stream(
      msg(btm, M.sync, [[4, 3]], [0, 0x80]),
      msg(btm, M.db, [], [7]),
      msg(btm, M.ib, [[2, 0]], [4, 0x180]),
      msg(btm, M.ib, [[2, 0]], [2, 0x180]),
      msg(btm, M.ptc, [[4, 0], [2, 0]], [3]),
    );
    expect(show(decodeNtrace(b, WORKED, btm))).toEqual([...pcs(PASS2, [0x200, 0x202, 0x100, 0x102]), 'gap:trace-off']);
  });

  it('address MSB dropping: the top bit of the last MDO is extended (XLEN 64)', () => {
    const base = 0xffffffff80000000n;
    const prog = image({ 0: [C_NOP, C_NOP] }, base);
    const field = { value: (base >> 1n) & 0xfffffffffn, width: 36 }; // 0xfc0000000: bit 35 set
    const c = defaultNtraceConfig({ mode: 'btm', addressMsbDrop: true });
    const b = stream(msg(c, M.sync, [[4, 3]], [0, field]), msg(c, M.ptc, [[4, 0], [2, 0]], [2]));
    expect(show(decodeNtrace(b, prog, c))).toEqual(['0xffffffff80000000', '0xffffffff80000002', 'gap:trace-off']);
    // Without the option the field is a plain (short) address outside the image.
    const r = decodeNtraceWithProblems(b, prog, defaultNtraceConfig({ mode: 'btm' }));
    expect(r.problems[0]!.message).toMatch(/no instruction at 0x1f80000000/);
    // An extra zero MDO prevents the extension.
    const z = { value: field.value, width: 42 };
    const r2 = decodeNtraceWithProblems(stream(msg(c, M.sync, [[4, 3]], [0, z]), msg(c, M.ptc, [[4, 0], [2, 0]], [2])), prog, c);
    expect(r2.problems[0]!.message).toMatch(/no instruction at 0x1f80000000/);
  });
});

describe('decoder: garbage', () => {
  /** xorshift32 with a printed seed. */
  function rng(seed: number): () => number {
    let s = seed >>> 0 || 1;
    return () => {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      return s;
    };
  }

  it('random bytes never throw, never loop, and only produce pcs and gaps (seed 12345)', () => {
    const next = rng(12345);
    for (let n = 0; n < 300; n++) {
      const len = next() % 200;
      const b = Uint8Array.from({ length: len }, () => next() & 0xff);
      for (const c of [btm, htm, defaultNtraceConfig({ implicitReturn: 'stack', addressMsbDrop: true, timestamp: true, srcWidth: 2 })]) {
        const r = decodeNtraceWithProblems(b, WORKED, c, { maxInstructions: 10_000 });
        for (const it of r.items) expect(['pc', 'gap']).toContain(it.kind);
        expect(() => dumpNtrace(b, c)).not.toThrow();
      }
    }
  });

  it('mutations of the worked streams never throw (seed 777)', () => {
    const next = rng(777);
    for (const [s, c] of [[BTM, btm], [HTM, htm]] as const) {
      const good = bytesOf(s);
      for (let n = 0; n < 300; n++) {
        const b = good.slice();
        for (let k = 0; k < 1 + (next() % 3); k++) b[next() % b.length] = next() & 0xff;
        const items = decodeNtrace(b, WORKED, c, { maxInstructions: 10_000 });
        expect(items.length).toBeLessThan(10_100);
      }
    }
  });

  it('a huge B-CNT or I-CNT stops at the instruction limit with a gap', () => {
    const prog = image({ 0x100: [C_NOP, C_BNEZ_BACK, C_NOP] });
    const b = stream(msg(btm, M.sync, [[4, 3]], [0, 0x80]), msg(btm, M.db, [], [2]), msg(btm, M.rb, [], [2n ** 60n]));
    const items = decodeNtrace(b, prog, btm, { maxInstructions: 1000 });
    expect(items).toHaveLength(1001);
    expect(items.at(-1)).toMatchObject({ kind: 'gap', reason: 'limit' });
  });

  it('a ProgTraceSync with a field value of many bytes is parsed (bigint) and does not decode wrongly', () => {
    const b = stream(msg(btm, M.sync, [[4, 3]], [0, 2n ** 100n]), msg(btm, M.ptc, [[4, 0], [2, 0]], [1]));
    expect(fieldValue(parseNtrace(b, btm)[0] as NtraceMessage, 'F-ADDR')).toBe(2n ** 100n);
    expect(show(decodeNtrace(b, WORKED, btm))).toEqual(['gap:bad-trace']);
  });
});

// Ownership (TCODE 2). A trap program: 0x100 c.add; 0x102 ecall (U -> M); 0x106 c.add;
// 0x200 c.add; 0x202 mret (M -> U).
const ECALL = 0x00000073; // ecall: funct12 0, rs1 0, funct3 0, rd 0, SYSTEM
const MRET = 0x30200073; // mret: funct12 0x302, SYSTEM
const TRAPS = image({ 0x100: [C_ADD, ECALL, C_ADD], 0x200: [C_ADD, MRET] });
/*
 * BTM with Ownership messages, worked from the field layouts (N-Trace 1.0 "Ownership Message"):
 * ProgTraceSync(1, 0, 0x80) = 24 05 00 0b; Ownership PROCESS 2 (FORMAT 2, U) = 08 0b;
 * IndirectBranch(B-TYPE 2, I-CNT 3, U-ADDR 0x180) = 10 39 00 1b; Ownership PROCESS 0xC (FORMAT 0, M)
 * = 08 33; IndirectBranch(0, 3, 0x183) = 10 31 0c 1b; Ownership PROCESS 0 (FORMAT 0, U) = 08 03;
 * ProgTraceCorrelation(4, CDF 0, I-CNT 1) = 84 10 07.
 */
const TRAPS_BTM = '24 05 00 0b 08 0b 10 39 00 1b 08 33 10 31 0c 1b 08 03 84 10 07';

describe('Ownership messages: parsing, dump, statistics', () => {
  const c = defaultNtraceConfig();
  const line = (s: string, cfg = c): string[] => dumpNtrace(bytesOf(s), cfg);

  it('hand encodings match the ISA encoder helpers', () => {
    expect([ECALL, MRET]).toEqual([enc.ecall(), enc.mret()]);
  });

  it('PROCESS and its sub-fields FORMAT, PRV, V, CONTEXT by name (the spec examples 0x3B2 and 0xC)', () => {
    expect(line('08 c8 3b')).toEqual(['0x0000 Ownership(2) PROCESS=0x3b2 FORMAT=2 PRV=0 V=1 CONTEXT=0x1d']);
    expect(line('08 33')).toEqual(['0x0000 Ownership(2) PROCESS=0xc FORMAT=0 PRV=3 V=0']);
    const m = parseNtrace(bytesOf('08 c8 3b'), c)[0] as NtraceMessage;
    expect([m.tcode, m.name, m.known, m.length]).toEqual([2, 'Ownership', true, 3]);
    expect(['FORMAT', 'PRV', 'V', 'CONTEXT'].map((n) => fieldValue(m, n))).toEqual([2n, 0n, 1n, 0x1dn]);
    expect(fieldOf(m, 'PROCESS')!.parts!.map((p) => [p.name, p.width])).toEqual([['FORMAT', 2], ['PRV', 2], ['V', 1], ['CONTEXT', 7]]);
  });

  it('PROCESS is one variable field: it starts in the byte of SRC and may be 1 bit long', () => {
    expect(line('08 14 07', defaultNtraceConfig({ srcWidth: 4 }))).toEqual(['0x0000 Ownership(2) SRC=5 PROCESS=0x4 FORMAT=0 PRV=1 V=0']);
    expect(line('08 03', defaultNtraceConfig({ srcWidth: 5 }))).toEqual(['0x0000 Ownership(2) SRC=0 PROCESS=0x0 FORMAT=0 PRV=0 V=0']);
  });

  it('TSTAMP after PROCESS', () => {
    expect(line('08 31 90 07', defaultNtraceConfig({ timestamp: true }))).toEqual(['0x0000 Ownership(2) PROCESS=0xc FORMAT=0 PRV=3 V=0 TSTAMP=0x64']);
  });

  it('dumps the trap stream and counts the Ownership messages', () => {
    const b = bytesOf(`${TRAPS_BTM} ff`);
    expect(dumpNtrace(b, btm)).toEqual([
      '0x0000 ProgTraceSync(9) SYNC=1 I-CNT=0x0 F-ADDR=0x80',
      '0x0004 Ownership(2) PROCESS=0x2 FORMAT=2 PRV=0 V=0 CONTEXT=0x0',
      '0x0006 IndirectBranch(4) B-TYPE=2 I-CNT=0x3 U-ADDR=0x180',
      '0x000a Ownership(2) PROCESS=0xc FORMAT=0 PRV=3 V=0',
      '0x000c IndirectBranch(4) B-TYPE=0 I-CNT=0x3 U-ADDR=0x183',
      '0x0010 Ownership(2) PROCESS=0x0 FORMAT=0 PRV=0 V=0',
      '0x0012 ProgTraceCorrelation(33) EVCODE=4 CDF=0 I-CNT=0x1',
    ]);
    const s = ntraceStats(parseNtrace(b, btm), b);
    expect(s.perTcode.map((t) => [t.name, t.count, t.bytes])).toEqual([
      ['Ownership', 3, 6],
      ['IndirectBranch', 2, 8],
      ['ProgTraceSync', 1, 4],
      ['ProgTraceCorrelation', 1, 3],
    ]);
  });
});

describe('decoder: Ownership messages', () => {
  const own = defaultNtraceConfig({ mode: 'btm', ownership: true });

  it('do not change the flow; each is listed with the instruction it applies from', () => {
    const r = decodeNtraceWithProblems(bytesOf(TRAPS_BTM), TRAPS, own);
    expect(show(r.items)).toEqual([...pcs([0x100, 0x102, 0x200, 0x202, 0x106]), 'gap:trace-off']);
    expect(r.problems).toEqual([]);
    expect(r.ownership).toEqual([
      { offset: 4, at: 0, format: 2, prv: 0, v: 0, context: 0n },
      { offset: 10, at: 2, format: 0, prv: 3, v: 0 },
      { offset: 16, at: 4, format: 0, prv: 0, v: 0 },
    ]);
    // The same flow without the Ownership messages (ownership off).
    expect(show(decodeNtrace(bytesOf('24 05 00 0b 10 39 00 1b 10 31 0c 1b 84 10 07'), TRAPS, btm))).toEqual(show(r.items));
  });

  it('an Ownership message before the first sync needs no synchronization (no gap)', () => {
    const r = decodeNtraceWithProblems(bytesOf(`08 33 ${BTM}`), WORKED, btm);
    expect(show(r.items)).toEqual([...pcs(PASS1, PASS2, PASS3), 'gap:trace-off']);
    expect(r.ownership).toEqual([{ offset: 0, at: 0, format: 0, prv: 3, v: 0 }]);
  });

  it('with ownership configured, a sync without an Ownership message right after it is a warning, not a gap', () => {
    const r = decodeNtraceWithProblems(bytesOf(BTM), WORKED, own);
    expect(show(r.items)).toEqual([...pcs(PASS1, PASS2, PASS3), 'gap:trace-off']);
    expect(r.problems).toEqual([{ offset: 4, message: 'DirectBranch(3) at byte offset 0x4: no Ownership message right after the synchronizing message at 0x0' }]);
    // An Error message in its place says it was lost: no warning.
    expect(decodeNtraceWithProblems(bytesOf('24 05 00 0b 20 00 0f'), WORKED, own).problems).toEqual([]);
  });

  it('reserved encodings are warnings: FORMAT 1, V 1 with PRV 3', () => {
    // PROCESS 1 = FORMAT 1 -> 000001_11 = 07; PROCESS 0x1C = V 1, PRV 11, FORMAT 0 -> 011100_11 = 73.
    const r = decodeNtraceWithProblems(bytesOf(`24 05 00 0b 08 07 08 73 ${BTM.slice(12)}`), WORKED, btm);
    expect(show(r.items)).toEqual([...pcs(PASS1, PASS2, PASS3), 'gap:trace-off']);
    expect(r.problems.map((p) => p.message)).toEqual([
      'Ownership(2) at byte offset 0x4: FORMAT 1 is reserved',
      'Ownership(2) at byte offset 0x6: V 1 with PRV 3 is a reserved privilege encoding',
    ]);
  });
});
