/**
 * N-Trace's efficiency measurement. Expected values come from ../shared/design/ntrace.md (its
 * worked bytes: 17 bytes in BTM, 16 in HTM, for a 17-instruction program) and from what each mode is
 * defined to send (one message per reported discontinuity; a return-address stack removes the
 * returns it predicts; repeat compression folds identical messages), not from the encoder.
 */
import { describe, expect, it } from 'vitest';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';
import { measureNtraceEfficiency, NTRACE_EFFICIENCY_MODES, ntraceEfficiencyConfig } from './efficiency.ts';

function ins(addr: number, size: 2 | 4, itype: number = Itype.none): RetirementRecord {
  return { ...emptyRecord(), iaddr: BigInt(addr), iretire: size / 2, ilastsize: size === 4 ? 1 : 0, itype };
}
const T = Itype.takenBranch;
const NT = Itype.nontakenBranch;
const JMP = Itype.otherUninferableJump;

/** ntrace.md's worked program (17 instructions), then the hart enters debug mode. */
function workedProgram(): RetirementRecord[] {
  return [
    ...[ins(0x100, 2), ins(0x102, 4, T), ins(0x200, 2), ins(0x202, 2, JMP)],
    ...[ins(0x100, 2), ins(0x102, 4, NT), ins(0x106, 4), ins(0x10a, 4, T), ins(0x300, 4), ins(0x304, 4, JMP)],
    ...[ins(0x100, 2), ins(0x102, 4, NT), ins(0x106, 4), ins(0x10a, 4, NT), ins(0x10e, 2), ins(0x110, 4), ins(0x114, 2)],
    { ...emptyRecord(), halted: true },
  ];
}

/** A loop calling a function `n` times: jal, 3 instructions ending in ret, a taken branch back. */
function callLoop(n: number): RetirementRecord[] {
  const out: RetirementRecord[] = [];
  for (let i = 0; i < n; i++) out.push(ins(0x1000, 4), ins(0x1004, 4, Itype.inferableCall), ins(0x2000, 4), ins(0x2004, 4), ins(0x2008, 4, Itype.return), ins(0x1008, 4, T));
  return out;
}

const mode = (name: string) => NTRACE_EFFICIENCY_MODES.find((m) => m.name === name)!;
const measure = (records: RetirementRecord[], name: string, xlen: 32 | 64 = 64) => measureNtraceEfficiency(records, ntraceEfficiencyConfig(xlen, mode(name)));

describe('N-Trace efficiency measurement', () => {
  it("ntrace.md's worked bytes: BTM 17 bytes in 6 messages, HTM 16 bytes in 4, for 17 instructions", () => {
    // BTM `24 05 00 0b | 0c 0f | 10 21 03 | 0c 1f | 10 41 03 | 84 00 2f`: 6 bytes end in MSEO 11.
    expect(measure(workedProgram(), 'BTM')).toEqual({ instructions: 17, messages: 6, bytes: 17, bitsPerInstruction: 8 });
    // HTM `24 05 00 0b | 70 51 01 0f | 70 b1 01 17 | 84 40 2d 13`.
    expect(measure(workedProgram(), 'HTM')).toEqual({ instructions: 17, messages: 4, bytes: 16, bitsPerInstruction: 128 / 17 });
    // No call or return: the stack and the repeat compression change nothing.
    expect(measure(workedProgram(), 'HTM + call stack').bytes).toBe(16);
    expect(measure(workedProgram(), 'HTM + call stack + repeat').bytes).toBe(16);
    // RV32: the same addresses, the same bytes.
    expect(measure(workedProgram(), 'BTM', 32).bytes).toBe(17);
  });

  it('each mode sends what it is defined to on a call loop (200 iterations, 1200 instructions)', () => {
    const records = callLoop(200);
    const btm = measure(records, 'BTM');
    const htm = measure(records, 'HTM');
    const stack = measure(records, 'HTM + call stack');
    const repeat = measure(records, 'HTM + call stack + repeat');
    for (const f of [btm, htm, stack, repeat]) expect(f.instructions).toBe(1200);
    // BTM: a DirectBranch per taken branch and an IndirectBranch per return.
    expect(btm.messages).toBeGreaterThanOrEqual(400);
    // HTM: the branch goes into HIST; every return is an IndirectBranchHist (4 bytes each from the
    // second: TCODE | B-TYPE + I-CNT 12 | U-ADDR 0 | HIST 0b11).
    expect(htm.messages).toBeGreaterThanOrEqual(200);
    expect(htm.messages).toBeLessThan(btm.messages);
    expect(htm.bytes).toBeGreaterThanOrEqual(800);
    // The stack predicts every return: only HIST full messages (one per 30 branches: at most 7),
    // the start and the end.
    expect(stack.messages).toBeLessThanOrEqual(9);
    // The HIST full messages are all the same: HREPEAT folds them.
    expect(repeat.messages).toBeLessThan(stack.messages);
    expect(repeat.bytes).toBeLessThan(stack.bytes);
    for (const f of [btm, htm, stack, repeat]) expect(f.bitsPerInstruction).toBeCloseTo((f.bytes * 8) / 1200, 12);
  });

  it('every mode is a valid configuration for both XLENs; the modes differ only in what they name', () => {
    for (const xlen of [32, 64] as const) {
      for (const m of NTRACE_EFFICIENCY_MODES) {
        const c = ntraceEfficiencyConfig(xlen, m);
        expect(c.xlen).toBe(xlen);
        expect(c.syncPeriod).toBe(256);
        expect(c.timestamp).toBe(false);
      }
    }
    expect(ntraceEfficiencyConfig(64, mode('BTM')).mode).toBe('btm');
    expect(ntraceEfficiencyConfig(64, mode('HTM + call stack'))).toMatchObject({ mode: 'htm', implicitReturn: 'stack', callStackSize: 8, repeatBranch: false, repeatHistory: false });
    expect(ntraceEfficiencyConfig(64, mode('HTM + call stack + repeat'))).toMatchObject({ implicitReturn: 'stack', repeatBranch: true, repeatHistory: true });
  });
});
