/**
 * The encoder against bytes worked out by hand. Every expected byte string comes from the spec's
 * rules and the byte format (../shared/design/ntrace.md): byte = MDO << 2 | MSEO, fields LSB first,
 * a variable field ends with MSEO 01, the message with MSEO 11. The derivation is in the comment
 * above each case; none of them was produced by running this encoder.
 */
import { describe, expect, it } from 'vitest';
import { encodeNtrace } from './encoder.ts';
import { defaultNtraceConfig, type NtraceConfig } from './settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { emptyRecord, Itype, Priv, type RetirementRecord, Trigger } from '../hart/records.ts';
import { encodeNtraceStream } from './output.ts';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

/** One retired instruction: 16-bit (size 2) or 32-bit (size 4). */
function ins(addr: number | bigint, size: 2 | 4, itype: number = Itype.none, extra: Partial<RetirementRecord> = {}): RetirementRecord {
  return { ...emptyRecord(), iaddr: BigInt(addr), iretire: size / 2, ilastsize: size === 4 ? 1 : 0, itype, ...extra };
}
const halt = (extra: Partial<RetirementRecord> = {}): RetirementRecord => ({ ...emptyRecord(), halted: true, ...extra });
const T = Itype.takenBranch;
const NT = Itype.nontakenBranch;
const JMP = Itype.otherUninferableJump;

/**
 * ntrace.md's program: 0x100 c.add; 0x102 branch to 0x200 (4 bytes); 0x106 add; 0x10A branch to
 * 0x300; 0x10E c.add; 0x110 add; 0x114 c.x; 0x200 c.add; 0x202 c.jr to 0x100; 0x300 add; 0x304 jr
 * to 0x100; run three times with T / NT,T / NT,NT, then the hart enters debug mode.
 */
function workedProgram(): RetirementRecord[] {
  return [
    // run 1: branch at 0x102 taken
    ins(0x100, 2),
    ins(0x102, 4, T),
    ins(0x200, 2),
    ins(0x202, 2, JMP),
    // run 2: 0x102 not taken, 0x10A taken
    ins(0x100, 2),
    ins(0x102, 4, NT),
    ins(0x106, 4),
    ins(0x10a, 4, T),
    ins(0x300, 4),
    ins(0x304, 4, JMP),
    // run 3: both not taken
    ins(0x100, 2),
    ins(0x102, 4, NT),
    ins(0x106, 4),
    ins(0x10a, 4, NT),
    ins(0x10e, 2),
    ins(0x110, 4),
    ins(0x114, 2),
    halt(),
  ];
}

const btm = (over: Partial<NtraceConfig> = {}): NtraceConfig => defaultNtraceConfig({ mode: 'btm', ...over });
const htm = (over: Partial<NtraceConfig> = {}): NtraceConfig => defaultNtraceConfig({ mode: 'htm', ...over });
const enc = (records: RetirementRecord[], c: NtraceConfig): string => hex(encodeNtrace(records, c).bytes);

// ProgTraceSync(SYNC 1, I-CNT 0, F-ADDR 0x80): 24 | SYNC 0001 + I-CNT 0 -> 000001_01 = 05 | 0x80
// = 000000, 000010 -> 00 0b.
const SYNC_START = '24 05 00 0b';

describe('ntrace.md worked bytes', () => {
  it('BTM', () => {
    expect(enc(workedProgram(), btm())).toBe('24 05 00 0b 0c 0f 10 21 03 0c 1f 10 41 03 84 00 2f');
  });
  it('HTM', () => {
    expect(enc(workedProgram(), htm())).toBe('24 05 00 0b 70 51 01 0f 70 b1 01 17 84 40 2d 13');
  });
  it('the message list names the fields', () => {
    const m = encodeNtrace(workedProgram(), htm()).messages;
    expect(m.map((x) => x.name)).toEqual(['ProgTraceSync', 'IndirectBranchHist', 'IndirectBranchHist', 'ProgTraceCorrelation']);
    expect(m[1]).toEqual({ name: 'IndirectBranchHist', offset: 4, fields: { 'B-TYPE': 0, 'I-CNT': 5, 'U-ADDR': 0n, HIST: 3 } });
    expect(m[3]!.fields).toEqual({ EVCODE: 0, CDF: 1, 'I-CNT': 11, HIST: 4 });
  });
  it('multiple retirement: the same bytes from blocks of up to 4 instructions, 2 groups a cycle', () => {
    for (const c of [btm(), htm()]) {
      const blocks = regroupIntoBlocks(workedProgram(), { retires_p: 4, taken_branches_p: 2 });
      expect(blocks.length).toBeLessThan(workedProgram().length);
      expect(enc(blocks, c)).toBe(enc(workedProgram(), c));
    }
  });
});

describe('traps', () => {
  // 0x100 c.add; exception at 0x102 (nothing retires, EPC 0x102); handler 0x400 c.add; debug.
  const trap = (itype: number): RetirementRecord[] => [
    ins(0x100, 2),
    { ...emptyRecord(), itype, iretire: 0, iaddr: 0x102n, cause: 2 },
    ins(0x400, 2),
    halt(),
  ];
  it('BTM exception: IndirectBranch B-TYPE 2, I-CNT 1, U-ADDR (0x400^0x100)>>1 = 0x280', () => {
    // 10 | B-TYPE 10 + I-CNT 0001 -> 000110_01 = 19 | 0x280 = 000000, 001010 -> 00, and the last
    // byte of the message 001010_11 = 2b | ProgTraceCorrelation(EVCODE 0, CDF 0, I-CNT 1) = 84 00 07.
    expect(enc(trap(Itype.exception), btm())).toBe(`${SYNC_START} 10 19 00 2b 84 00 07`);
  });
  it('HTM interrupt: IndirectBranchHist B-TYPE 3, HIST 1', () => {
    // 70 | B-TYPE 11 + I-CNT 0001 -> 000111_01 = 1d | 00 29 | HIST 1 -> 07 | PTC CDF 1: 84 40 05 07.
    expect(enc(trap(Itype.interrupt), htm())).toBe(`${SYNC_START} 70 1d 00 29 07 84 40 05 07`);
  });
  it('ecall retires and traps: counted in I-CNT', () => {
    // 0x100 c.add, 0x102 ecall (32-bit, itype 1) -> 0x400: B-TYPE 2, I-CNT 3 -> 001110_01 = 39.
    const r = [ins(0x100, 2), ins(0x102, 4, Itype.exception), ins(0x400, 2), halt()];
    expect(enc(r, btm())).toBe(`${SYNC_START} 10 39 00 2b 84 00 07`);
  });
  it('xRET is an indirect discontinuity with B-TYPE 0', () => {
    // 0x400 c.add, 0x402 mret -> 0x104: I-CNT 3, U-ADDR (0x104^0x400)>>1 = 0x282 -> 000010_00 = 08,
    // 001010_11 = 2b (after a trap from 0x100 that retired nothing).
    const r = [
      ins(0x100, 2),
      { ...emptyRecord(), itype: Itype.exception, iretire: 0, iaddr: 0x102n },
      ins(0x400, 2),
      ins(0x402, 4, Itype.trapReturn),
      ins(0x104, 2),
      halt(),
    ];
    // second message: 10 | B-TYPE 0 + I-CNT 3 -> 001100_01 = 31 | U-ADDR 0x282: 08 2b.
    expect(enc(r, btm())).toBe(`${SYNC_START} 10 19 00 2b 10 31 08 2b 84 00 07`);
  });
});

describe('empty HIST in HTM (emptyHistIndirect)', () => {
  // 0x100 c.add, 0x102 c.jr -> 0x100, 0x100 c.add, debug.
  const r = [ins(0x100, 2), ins(0x102, 2, JMP), ins(0x100, 2), halt()];
  it('hist: IndirectBranchHist with HIST 1', () => {
    // 70 | B-TYPE 0 + I-CNT 2 -> 001000_01 = 21 | U-ADDR 0 -> 01 | HIST 1 -> 07 | 84 40 05 07.
    expect(enc(r, htm({ emptyHistIndirect: 'hist' }))).toBe(`${SYNC_START} 70 21 01 07 84 40 05 07`);
  });
  it('plain: IndirectBranch', () => {
    expect(enc(r, htm({ emptyHistIndirect: 'plain' }))).toBe(`${SYNC_START} 10 21 03 84 40 05 07`);
  });
});

describe('repeat branch', () => {
  // 0x100 c.add, 0x102 c.jr -> 0x100, four times, then 0x100 c.add and debug.
  const loop: RetirementRecord[] = [];
  for (let i = 0; i < 4; i++) loop.push(ins(0x100, 2), ins(0x102, 2, JMP));
  loop.push(ins(0x100, 2), halt());
  it('off: four IndirectBranch(0, 2, 0)', () => {
    expect(enc(loop, btm())).toBe(`${SYNC_START} 10 21 03 10 21 03 10 21 03 10 21 03 84 00 07`);
  });
  it('on: the first, then RepeatBranch(B-CNT 3) = 78 0f before the correlation', () => {
    expect(enc(loop, btm({ repeatBranch: true }))).toBe(`${SYNC_START} 10 21 03 78 0f 84 00 07`);
  });
});

describe('HIST full', () => {
  // A 32-bit taken branch at 0x100 to itself, n times, then debug.
  const branches = (n: number, last: number = T): RetirementRecord[] => {
    const r: RetirementRecord[] = [];
    for (let i = 0; i < n - 1; i++) r.push(ins(0x100, 4, T));
    r.push(ins(0x100, 4, last), halt());
    return r;
  };
  // ResourceFull(RCODE 1, 0x3FFFFFFF): 6c | RCODE 0001 + 11 -> 110001_00 = c4 | 24 ones: fc fc fc fc
  // | 4 ones: 001111_11 = 3f.
  const RF1 = '6c c4 fc fc fc fc 3f';
  it('spec: at the 30th branch, the 29 before it; the 30th stays', () => {
    // 117 branches: RF at 30, 59, 88, 117 (29 more each time); HIST after = 0b11.
    // PTC: 84 40 | I-CNT 234 = 11_101010 -> a8 0d | HIST 3 -> 0f.
    expect(enc(branches(117), htm())).toBe(`${SYNC_START} ${RF1} ${RF1} ${RF1} ${RF1} 84 40 a8 0d 0f`);
  });
  it('repeat history: the first, then RCODE 2 with HREPEAT 3', () => {
    // 6c | RCODE 0010 + 11 -> c8 | fc fc fc fc | 001111_01 = 3d | HREPEAT 3 -> 0f.
    expect(enc(branches(117), htm({ repeatHistory: true }))).toBe(`${SYNC_START} ${RF1} 6c c8 fc fc fc fc 3d 0f 84 40 a8 0d 0f`);
  });
  it('deferred: the full 32-bit register one retirement later', () => {
    // 31 taken, then a not-taken branch: at the 32nd record RF(1, 0xFFFFFFFF) = 6c c4 fc fc fc fc ff;
    // then HIST 0b10. PTC: I-CNT 64 -> 00 05 | HIST 2 -> 0b.
    expect(enc(branches(32, NT), htm({ histFull: 'deferred' }))).toBe(`${SYNC_START} 6c c4 fc fc fc fc ff 84 40 00 05 0b`);
  });
  it('spec with the same records: RF at 30, HIST 0b1110 at the end', () => {
    expect(enc(branches(32, NT), htm())).toBe(`${SYNC_START} ${RF1} 84 40 00 05 3b`);
  });
});

describe('I-CNT full', () => {
  // The spec's example code: 0x100 c.add, 0x102 branch (not taken), 0x106..0x116 five adds,
  // 0x11A c.add; debug before the c.ebreak at 0x11C.
  const r = [ins(0x100, 2), ins(0x102, 4, NT), ins(0x106, 4), ins(0x10a, 4), ins(0x10e, 4), ins(0x112, 4), ins(0x116, 4), ins(0x11a, 2), halt()];
  it('icntWidth 3: ResourceFull(RCODE 0, 7) before the add at 0x10E would make it 9 > 8', () => {
    // 6c | RCODE 0 + 11 -> c0 | 1 -> 07 | PTC: I-CNT 7 -> 1d, HIST 0b10 -> 0b.
    expect(enc(r, htm({ icntWidth: 3 }))).toBe(`${SYNC_START} 6c c0 07 84 40 1d 0b`);
  });
  it('icntWidth 4: no ResourceFull, I-CNT 14', () => {
    expect(enc(r, htm({ icntWidth: 4 }))).toBe(`${SYNC_START} 84 40 39 0b`);
  });
});

describe('periodic sync', () => {
  it('syncPeriod 2 on the BTM worked program: ProgTraceSync(SYNC 2) at the retirement after the 2nd message', () => {
    // sync, DB(3), IB(0,2,0) [due] -> at 0x102: PTS(2, I-CNT 1, F-ADDR 0x81): 24 | 0010+01 -> 49 |
    // 0x81 -> 04 0b. Then DB(6) = 0c 1b, IB(0, 4, U-ADDR (0x100^0x102)>>1 = 1) = 10 41 07 [due],
    // PTS(2, 1, 0x81) again, PTC(0, 0, 10) = 84 00 2b.
    expect(enc(workedProgram(), btm({ syncPeriod: 2 }))).toBe(`${SYNC_START} 0c 0f 10 21 03 24 49 04 0b 0c 1b 10 41 07 24 49 04 0b 84 00 2b`);
  });
});

describe('timestamps and SRC', () => {
  const r = [ins(0x100, 2, 0, { time: 5n }), ins(0x102, 2, JMP, { time: 7n }), ins(0x100, 2, 0, { time: 12n }), halt({ time: 20n })];
  it('absolute in the sync, relative after; the jump carries its own time', () => {
    // PTS: 24 05 00 09 (F-ADDR not last now) | TSTAMP 5 -> 17. IB(0,2,0): 10 21 01 | 7-5 = 2 -> 0b.
    // PTC(0,0,1): 84 00 05 | 20-7 = 13 -> 37.
    expect(enc(r, btm({ timestamp: true }))).toBe('24 05 00 09 17 10 21 01 0b 84 00 05 37');
  });
  it('SRC of 2 bits after TCODE', () => {
    // PTS: 24 | SRC 01 + SYNC 0001 -> 000101_00 = 14 | I-CNT 0 on a new byte -> 01 | 00 0b.
    // IB: 10 | SRC 01 + B-TYPE 00 + I-CNT 2 (10, exactly the 2 spare bits, so its byte ends the
    // field) -> 100001_01 = 85 | U-ADDR 0 -> 03.
    // PTC: 84 | SRC 01 + EVCODE 0000 -> 000001_00 = 04 | CDF 00 in bits 0-1, I-CNT 1 in bits 2-5 of
    // the next byte -> 000100_11 = 13.
    expect(enc(r, btm({ srcWidth: 2, src: 1 }))).toBe('24 14 01 00 0b 10 85 03 84 04 13');
  });
});

describe('implicit return', () => {
  // 0x100 jal (inferable call, 32-bit) -> 0x200 c.add, 0x202 c.ret -> `ret`, `ret` c.add, debug.
  const prog = (ret: number): RetirementRecord[] => [ins(0x100, 4, Itype.inferableCall), ins(0x200, 2), ins(0x202, 2, Itype.return), ins(ret, 2), halt()];
  it('none: the return is reported, IB(0, 4, (0x104^0x100)>>1 = 2)', () => {
    expect(enc(prog(0x104), btm())).toBe(`${SYNC_START} 10 41 0b 84 00 07`);
  });
  it('counter: not reported, PTC I-CNT 5', () => {
    expect(enc(prog(0x104), btm({ implicitReturn: 'counter' }))).toBe(`${SYNC_START} 84 00 17`);
  });
  it('stack: the predicted return is not reported', () => {
    expect(enc(prog(0x104), btm({ implicitReturn: 'stack' }))).toBe(`${SYNC_START} 84 00 17`);
  });
  it('stack: a return elsewhere is reported, U-ADDR (0x108^0x100)>>1 = 4 -> 13', () => {
    expect(enc(prog(0x108), btm({ implicitReturn: 'stack' }))).toBe(`${SYNC_START} 10 41 13 84 00 07`);
  });
  it('counter: a return elsewhere is still not reported (the counter cannot check)', () => {
    expect(enc(prog(0x108), btm({ implicitReturn: 'counter' }))).toBe(`${SYNC_START} 84 00 17`);
  });
});

describe('trace on/off, debug and reset', () => {
  it('trace-off after its instruction (EVCODE 4), trace-on from its instruction (SYNC 5)', () => {
    // PTC(4, 0, 2): 84 | 0100+00 -> 10 | 0b. PTS(5, 0, 0x83): 24 | 0101+0 -> 15 | 0x83 -> 0c 0b.
    // PTC(0, 0, 2) = 84 00 0b.
    const r = [ins(0x100, 2), ins(0x102, 2, 0, { trigger: Trigger.traceOff }), ins(0x104, 2), ins(0x106, 2, 0, { trigger: Trigger.traceOn }), ins(0x108, 2), halt()];
    expect(enc(r, btm())).toBe(`${SYNC_START} 84 10 0b 24 15 0c 0b 84 00 0b`);
  });
  it('halted with trace disabled: EVCODE 0, I-CNT 0', () => {
    const r = [ins(0x100, 2), ins(0x102, 2, 0, { trigger: Trigger.traceOff }), ins(0x104, 2), halt()];
    expect(enc(r, btm())).toBe(`${SYNC_START} 84 10 0b 84 00 03`);
  });
  it('exit from debug: SYNC 3 at the first retirement', () => {
    // PTS(3, 0, 0x100): 24 0d | 0x100 -> 00 13.
    const r = [ins(0x100, 2), halt(), halt(), ins(0x200, 2), halt()];
    expect(enc(r, btm())).toBe(`${SYNC_START} 84 00 07 24 0d 00 13 84 00 07`);
  });
  it('reset while tracing: SYNC 1 at the reset vector with the I-CNT before the reset', () => {
    // PTS(1, I-CNT 2, F-ADDR 0x40): 24 | 0001 + 10 -> 100001_01 = 85 | 0x40 -> 00 07.
    const rst = { ...emptyRecord(), reset: true };
    const r = [ins(0x100, 2), ins(0x102, 2), rst, rst, ins(0x80, 2), halt()];
    expect(enc(r, btm())).toBe(`${SYNC_START} 24 85 00 07 84 00 07`);
  });
  it('end of the records: the trace is disabled (EVCODE 4)', () => {
    expect(enc([ins(0x100, 2)], btm())).toBe(`${SYNC_START} 84 10 07`);
  });
});

describe('address MSB dropping', () => {
  // A start at 0xFFFF_FFFF_8000_0000: F-ADDR 0x7FFF_FFFF_C000_0000.
  const r = [ins(0xffffffff80000000n, 2), halt()];
  it('off: 63 bits in 11 MDOs', () => {
    // 24 05 | bits 0-29 zero: 00 x5 | bits 30-59 ones: fc x5 | bits 60-62: 000111_11 = 1f.
    expect(enc(r, btm())).toBe('24 05 00 00 00 00 00 fc fc fc fc fc 1f 84 00 07');
  });
  it('on: 36 bits, the last MDO all ones (extended by the decoder)', () => {
    expect(enc(r, btm({ addressMsbDrop: true }))).toBe('24 05 00 00 00 00 00 ff 84 00 07');
  });
});

describe('Ownership (trTeContext, `ownership`)', () => {
  const EXC = Itype.exception;
  const RET = Itype.trapReturn;
  /*
   * 0x100 c.add (U); 0x102 ecall (4 bytes, U: retires, then traps); 0x200 c.add (M, the handler);
   * 0x202 mret (4 bytes, M); 0x106 c.add (U); end of records.
   */
  const trapProgram = (): RetirementRecord[] => [
    ins(0x100, 2, Itype.none, { priv: Priv.U }),
    ins(0x102, 4, EXC, { priv: Priv.U }),
    ins(0x200, 2, Itype.none, { priv: Priv.M }),
    ins(0x202, 4, RET, { priv: Priv.M }),
    ins(0x106, 2, Itype.none, { priv: Priv.U }),
  ];

  it('off (the default): no Ownership message, privilege changes cost nothing', () => {
    // ProgTraceSync; IndirectBranch(B-TYPE 2, I-CNT 3, U-ADDR 0x180) = 10 39 00 1b;
    // IndirectBranch(0, 3, 0x183) = 10 31 0c 1b; ProgTraceCorrelation(EVCODE 4, CDF 0, I-CNT 1) = 84 10 07.
    expect(enc(trapProgram(), btm())).toBe(`${SYNC_START} 10 39 00 1b 10 31 0c 1b 84 10 07`);
  });

  it('after the sync, and after the message that reports the first address of the new privilege', () => {
    /*
     * 0x100: ProgTraceSync(1, 0, 0x80), then Ownership(FORMAT 2 "sync", PRV 00 U, V 0, CONTEXT 0):
     *   PROCESS = 0b0_00_10 = 2 -> 08 | 000010_11 = 0b.
     * 0x200 (M): the ecall's IndirectBranch(B-TYPE 2, I-CNT 1 + 2, U-ADDR (0x200 ^ 0x100) >> 1 = 0x180):
     *   10 | B-TYPE 10 + I-CNT 11 -> 001110_01 = 39 | 0x180 -> 000000_00, 000110_11 = 00 1b;
     *   then Ownership(FORMAT 0, PRV 11 M): PROCESS = 0b0_11_00 = 0xC -> 08 33.
     * 0x106 (U): the mret's IndirectBranch(0, 1 + 2, (0x106 ^ 0x200) >> 1 = 0x183) = 10 | 001100_01
     *   = 31 | 000011_00, 000110_11 = 0c 1b; then Ownership(FORMAT 0, U): PROCESS 0 -> 08 03.
     * End: ProgTraceCorrelation(4, CDF 0, I-CNT 1) = 84 10 07.
     */
    const r = encodeNtrace(trapProgram(), btm({ ownership: true }));
    expect(hex(r.bytes)).toBe(`${SYNC_START} 08 0b 10 39 00 1b 08 33 10 31 0c 1b 08 03 84 10 07`);
    expect(r.messages.map((m) => m.name)).toEqual(['ProgTraceSync', 'Ownership', 'IndirectBranch', 'Ownership', 'IndirectBranch', 'Ownership', 'ProgTraceCorrelation']);
    expect(r.messages[1]!.fields).toEqual({ PROCESS: 2n, FORMAT: 2, PRV: 0, V: 0, CONTEXT: 0n });
    expect(r.messages[3]!.fields).toEqual({ PROCESS: 0xcn, FORMAT: 0, PRV: 3, V: 0 });
  });

  it('a trap that keeps the privilege (M to M) sends no Ownership message', () => {
    const mOnly = trapProgram().map((x) => ({ ...x, priv: Priv.M }));
    // Only the sync's Ownership: PROCESS = 0b0_11_10 = 0xE -> 001110_11 = 3b.
    expect(enc(mOnly, btm({ ownership: true }))).toBe(`${SYNC_START} 08 3b 10 39 00 1b 10 31 0c 1b 84 10 07`);
  });

  it('a reported context change (ctype != 0) on linear code: FORMAT 2 with the new context, before its instruction is counted', () => {
    /*
     * 0x100 c.add (S, context 0x1D): sync, Ownership(FORMAT 2, PRV 01, CONTEXT 0x1D): PROCESS =
     *   0x1D << 5 | 0b0_01_10 = 0x3A6 = 11_1010_0110 -> 100110_00 = 98, 001110_11 = 3b.
     * 0x102 c.add (S, ctype 1, context 0x2A): PROCESS = 0x2A << 5 | 6 = 0x546 = 101_0100_0110 ->
     *   000110_00 = 18, 010101_11 = 57. End: ProgTraceCorrelation(4, CDF 0, I-CNT 2) = 84 10 0b.
     */
    const recs = [ins(0x100, 2, Itype.none, { priv: Priv.S, context: 0x1dn }), ins(0x102, 2, Itype.none, { priv: Priv.S, context: 0x2an, ctype: 1 })];
    expect(enc(recs, btm({ ownership: true }))).toBe(`${SYNC_START} 08 98 3b 08 18 57 84 10 0b`);
    // context_width 4: CONTEXT keeps the low 4 bits (0xD, 0xA): PROCESS 0x1A6 -> 98 1b; 0x146 -> 18 17.
    expect(enc(recs, btm({ ownership: true, contextWidth: 4 }))).toBe(`${SYNC_START} 08 98 1b 08 18 17 84 10 0b`);
    // Without ctype a new context value is not reported (E-Trace table 4.4: ctype 0 = don't report).
    expect(enc([recs[0]!, { ...recs[1]!, ctype: 0 }], btm({ ownership: true }))).toBe(`${SYNC_START} 08 98 3b 84 10 0b`);
  });

  it('a periodic sync is followed by an Ownership message, which counts as a message', () => {
    /*
     * HTM, sync_period 2, M-mode, context 7. PROCESS = 7 << 5 | 0b0_11_10 = 0xEE -> 101110_00 = b8,
     * 000011_11 = 0f.
     * 0x100 c.jr: ProgTraceSync(1, 0, 0x80), Ownership (count 1).
     * 0x200 c.jr: IndirectBranchHist(0, I-CNT 1, U-ADDR 0x180, HIST 1) = 70 | 000100_01 = 11 | 00 19
     *   | 07 (count 2: a sync is due).
     * 0x300 c.add: the pending jump goes out as IndirectBranchHistSync(SYNC 2, B-TYPE 0, I-CNT 1,
     *   F-ADDR 0x180, HIST 1) = 74 | 000010_00 = 08 | 05 | 00 19 | 07, then Ownership again.
     * End: ProgTraceCorrelation(4, CDF 1, I-CNT 1, HIST 1) = 84 50 05 07.
     */
    const m = { priv: Priv.M, context: 7n };
    const recs = [ins(0x100, 2, JMP, m), ins(0x200, 2, JMP, m), ins(0x300, 2, Itype.none, m)];
    expect(enc(recs, htm({ ownership: true, syncPeriod: 2 }))).toBe(`${SYNC_START} 08 b8 0f 70 11 00 19 07 74 08 05 00 19 07 08 b8 0f 84 50 05 07`);
  });

  it('an Ownership message lost in an overrun sets ECODE bit 3 of the Error message; SYNC 7 brings its own', () => {
    /*
     * HTM, FIFO of 8 bytes, the transport takes a byte from cycle 2 on; the messages made in cycle
     * c are offered in cycle c + 1 (latency 1, given: the RTL's 2 is checked by co-simulation).
     * cycle 0: ebreak-like trap at 0x100 (16-bit, U): ProgTraceSync(1, 0, 0x80) + Ownership(2, U)
     *   = 24 05 00 0b 08 0b; cycle 1: they enter (fill 6).
     * cycle 1: 0x200 (M): IndirectBranchHist(B-TYPE 2, I-CNT 1, U-ADDR 0x180, HIST 1) = 70 |
     *   000110_01 = 19 | 00 19 | 07 and Ownership(0, M) = 08 33. cycle 2: 5 left; 5 + 5 > 8: lost,
     *   the Ownership message with it (made for the change of privilege: ECODE bit 3).
     * cycle 3: 4 left; Error(ETYPE 0, ECODE 4 | 8 = 0xC) = 20 | 000000_00 = 00 | ECODE bits 2-3:
     *   000011_11 = 0f enters (7). Cycles 4-7 idle: 3 left.
     * cycle 8: 0x202 (M): ProgTraceSync(SYNC 7, 0, F-ADDR 0x101) = 24 | 000111_01 = 1d |
     *   000001_00 = 04, 000100_11 = 13 and Ownership(2, M) = 08 3b. cycle 9: 1 left: they enter (7).
     * Cycles 10-12 idle (4 left); end, cycle 13: ProgTraceCorrelation(4, 1, 1, 1) = 84 50 05 07;
     * cycle 14: 2 left, it enters.
     */
    const idle = (n: number): RetirementRecord[] => Array.from({ length: n }, () => emptyRecord());
    const recs = [
      ins(0x100, 2, EXC, { priv: Priv.U }),
      ins(0x200, 2, Itype.none, { priv: Priv.M }),
      ...idle(6),
      ins(0x202, 2, Itype.none, { priv: Priv.M }),
      ...idle(4),
    ];
    const r = encodeNtraceStream(recs, htm({ ownership: true }), { fifoBytes: 8, ready: (c) => c >= 2, latency: 1 });
    expect(hex(r.bytes)).toBe('24 05 00 0b 08 0b 20 00 0f 24 1d 04 13 08 3b 84 50 05 07');
    expect([r.lost, r.overruns, r.syncRetries]).toEqual([2, 1, 0]);
    expect(r.messages.find((m) => m.name === 'Error')!.fields).toEqual({ ETYPE: 0, ECODE: 0xc });
  });

  it('SYNC 7 and its Ownership message enter the FIFO together or not at all (a refused pair is a retry)', () => {
    /*
     * As above up to the Error (cycle 3, 7 bytes), then idle cycles 4, 5 (5 left).
     * cycle 6: 0x202 makes SYNC 7 + Ownership. cycle 7: 3 left; SYNC 7 alone (4 bytes) would fit,
     *   SYNC 7 + Ownership (6) does not: retry 1. 0x204: the SYNC 7 was in the stage as the cycle
     *   started, so the restart was not due: counted only.
     * cycle 8: 2 left; 0x206: ProgTraceSync(7, 0, F-ADDR 0x103) = 24 1d | 000011_00 = 0c | 13,
     *   Ownership(2, M) = 08 3b. cycle 9: 1 left: they enter (7).
     * Cycles 10-12 idle (4 left); end, cycle 13: ProgTraceCorrelation(4, 1, 1, 1); cycle 14: 2 left, it enters.
     */
    const idle = (n: number): RetirementRecord[] => Array.from({ length: n }, () => emptyRecord());
    const m = { priv: Priv.M };
    const recs = [
      ins(0x100, 2, EXC, { priv: Priv.U }),
      ins(0x200, 2, Itype.none, m),
      ...idle(4),
      ins(0x202, 2, Itype.none, m),
      ins(0x204, 2, Itype.none, m),
      ins(0x206, 2, Itype.none, m),
      ...idle(4),
    ];
    const r = encodeNtraceStream(recs, htm({ ownership: true }), { fifoBytes: 8, ready: (c) => c >= 2, latency: 1 });
    expect(hex(r.bytes)).toBe('24 05 00 0b 08 0b 20 00 0f 24 1d 0c 13 08 3b 84 50 05 07');
    expect([r.lost, r.overruns, r.syncRetries]).toEqual([2, 1, 1]);
    expect(r.messages.map((x) => x.name)).toEqual(['ProgTraceSync', 'Ownership', 'Error', 'ProgTraceSync', 'Ownership', 'ProgTraceCorrelation']);
  });
});
