import { describe, expect, it } from 'vitest';
import { checkContinuity } from '../continuity.ts';
import { Itype, ITYPES_4BIT, type RetirementRecord } from '../records.ts';
import { streamStats } from '../stats.ts';
import { generateStimulus } from './generate.ts';
import { defaultKnobs, type StimulusKnobs } from './knobs.ts';

const knobs = (over: Partial<StimulusKnobs> = {}): StimulusKnobs => ({ ...defaultKnobs(), ...over });

describe('stimulus generator', () => {
  it('is deterministic: the same seed gives the same stream, another seed another stream', () => {
    const a = generateStimulus(knobs(), 7, 5000);
    const b = generateStimulus(knobs(), 7, 5000);
    const c = generateStimulus(knobs(), 8, 5000);
    expect(b.records).toEqual(a.records);
    expect(b.image.segments).toEqual(a.image.segments);
    expect(c.records).not.toEqual(a.records);
  });

  it('stops after exactly the requested number of retired instructions', () => {
    const s = generateStimulus(knobs(), 3, 12_345);
    expect(streamStats(s.records, s.image).instructions).toBe(12_345);
  });

  it('produces every itype a 4-bit interface defines within 100,000 instructions (seed 7)', () => {
    const s = generateStimulus(knobs(), 7, 100_000);
    const stats = streamStats(s.records, s.image);
    for (const t of ITYPES_4BIT) expect(stats.itypes[t], `itype ${t}`).toBeGreaterThan(0);
    expect(stats.itypes[6]).toBe(0);
    expect(stats.itypes[7]).toBe(0);
    // The other events the issue asks for.
    expect(stats.trapsWithoutRetirement).toBeGreaterThan(0);
    expect(stats.privilegeChanges).toBeGreaterThan(0);
    expect(stats.contextReports.slice(1).every((n) => n > 0)).toBe(true);
    expect(stats.sijumps).toBeGreaterThan(0);
    expect(stats.triggersOn * stats.triggersOff * stats.triggersNotify).toBeGreaterThan(0);
    expect(stats.haltedCycles).toBeGreaterThan(0);
    expect(stats.resetCycles).toBeGreaterThan(0);
    expect(stats.records).toBeGreaterThan(stats.instructions!);
  });

  it('executor invariant: every next address is the one image and record imply, over 1,000,000 instructions (seed 2024)', () => {
    const s = generateStimulus(knobs(), 2024, 1_000_000);
    expect(checkContinuity(s.records, s.image, s.xlen)).toEqual([]);
  });

  it.each([
    ['RV32 with C', { xlen: 32 as const }],
    ['RV64 without C', { compressed: false }],
    ['RV32 without C, M mode only', { xlen: 32 as const, compressed: false, privileges: 'M' as const }],
    ['RV64, M and U', { privileges: 'MU' as const, functions: 5 }],
    ['one function, heavy events', { functions: 1, interrupt_rate: 0.02, fault_rate: 0.05, halt_rate: 0.002, reset_rate: 0.001 }],
  ])('executor invariant holds for %s (seeds 1-5, 50,000 instructions)', (_name, over) => {
    for (let seed = 1; seed <= 5; seed++) {
      const s = generateStimulus(knobs(over), seed, 50_000);
      expect(checkContinuity(s.records, s.image, s.xlen), `seed ${seed}`).toEqual([]);
    }
  });

  it('without the C extension every instruction is 32-bit and 4-byte aligned', () => {
    const s = generateStimulus(knobs({ compressed: false }), 5, 20_000);
    const retired = s.records.filter((r: RetirementRecord) => r.iretire > 0);
    expect(retired.every((r) => r.iretire === 2 && r.ilastsize === 1 && r.iaddr % 4n === 0n)).toBe(true);
  });
});

/** The longest run of consecutive records that satisfy `p`. */
function longestRun(records: readonly RetirementRecord[], p: (r: RetirementRecord) => boolean): number {
  let best = 0;
  let n = 0;
  for (const r of records) {
    n = p(r) ? n + 1 : 0;
    best = Math.max(best, n);
  }
  return best;
}

describe('stimulus knobs for coverage closure (issue 23)', () => {
  const retired = (rs: readonly RetirementRecord[]): RetirementRecord[] => rs.filter((r) => r.iretire > 0);
  // Region bases typed from the knob's definition: the upper halves of the Sv39/48/57 address spaces
  // start at -2^38, -2^47, -2^56 (64-bit two's complement); `low` puts the code at 0, the ROM at 1 MiB.
  const cases: [string, Partial<StimulusKnobs>, bigint, bigint][] = [
    ['low (RV64)', { placement: 'low' }, 0x10_0000n, 0x0n],
    ['low (RV32)', { placement: 'low', xlen: 32 }, 0x10_0000n, 0x0n],
    ['sv39', { placement: 'sv39' }, 0x1000n, 0xffff_ffc0_0000_0000n],
    ['sv48', { placement: 'sv48' }, 0x1000n, 0xffff_8000_0000_0000n],
    ['sv57', { placement: 'sv57' }, 0x1000n, 0xff00_0000_0000_0000n],
  ];
  it.each(cases)('placement %s: every instruction retires in the ROM or the code region asked for, and both are executed', (_name, over, rom, code) => {
    for (let seed = 1; seed <= 3; seed++) {
      const s = generateStimulus(knobs(over), seed, 20_000);
      const rs = retired(s.records);
      const inRom = rs.filter((r) => r.iaddr >= rom && r.iaddr < rom + 0x1_0000n).length;
      const inCode = rs.filter((r) => r.iaddr >= code && r.iaddr < code + 0x10_0000n).length;
      expect(inRom + inCode, `seed ${seed}`).toBe(rs.length);
      expect(inRom, `seed ${seed}: ROM`).toBeGreaterThan(0);
      expect(inCode, `seed ${seed}: code`).toBeGreaterThan(1000);
      expect(checkContinuity(s.records, s.image, s.xlen), `seed ${seed}`).toEqual([]);
    }
  });

  it('placement sv39/sv48/sv57 on an RV32 hart is a one-line error naming the knob', () => {
    expect(() => generateStimulus(knobs({ placement: 'sv48', xlen: 32 }), 1, 100)).toThrow(/^knob placement=sv48: expected default or low on an RV32 hart/);
  });

  it('the default placement keeps rom_base and code_base', () => {
    const s = generateStimulus(knobs({ rom_base: 0x2000n, code_base: 0x4000_0000n }), 1, 5000);
    expect(retired(s.records).every((r) => (r.iaddr >= 0x2000n && r.iaddr < 0x1_2000n) || (r.iaddr >= 0x4000_0000n && r.iaddr < 0x4010_0000n))).toBe(true);
  });

  // Returns between two branches: more than 255 (the Implicit Return extension's irets counts 8 bits).
  const returnsBetweenBranches = (rs: readonly RetirementRecord[]): number => {
    let best = 0;
    let n = 0;
    for (const r of rs) {
      if (r.itype === Itype.takenBranch || r.itype === Itype.nontakenBranch) n = 0;
      else if (r.itype === Itype.return) best = Math.max(best, ++n);
    }
    return best;
  };
  it('w_call_run: runs of at least 256 returns with no branch between them, which ordinary programs lack', () => {
    const on = generateStimulus(knobs({ w_call_run: 3 }), 4, 50_000);
    expect(returnsBetweenBranches(on.records)).toBeGreaterThanOrEqual(256);
    expect(checkContinuity(on.records, on.image, on.xlen)).toEqual([]);
    const off = generateStimulus(knobs(), 4, 50_000);
    expect(returnsBetweenBranches(off.records)).toBeLessThan(256);
  });

  it('w_checks: runs of at least 64 not-taken branches in a row, one right before a trap handler\'s xRET', () => {
    const on = generateStimulus(knobs({ w_checks: 2 }), 5, 50_000);
    expect(longestRun(on.records, (r) => r.itype === Itype.nontakenBranch)).toBeGreaterThanOrEqual(64);
    // Before an xRET: 64 not-taken branches among the last 70 records.
    const rs = on.records;
    const beforeXret = rs.some((r, i) => r.itype === Itype.trapReturn && i >= 70 && rs.slice(i - 70, i).filter((x) => x.itype === Itype.nontakenBranch).length >= 64);
    expect(beforeXret).toBe(true);
    expect(checkContinuity(on.records, on.image, on.xlen)).toEqual([]);
    const off = generateStimulus(knobs(), 5, 50_000);
    expect(longestRun(off.records, (r) => r.itype === Itype.nontakenBranch)).toBeLessThan(64);
  });

  // Returns whose target is 4 bytes past the return address their call pushed (the address after
  // the call), followed through the records' own calls and returns; traps and resets start afresh.
  const returnsPastTheirCall = (rs: readonly RetirementRecord[]): number => {
    // The return addresses of the code a trap interrupted wait under those of its handler.
    let pushed: bigint[][] = [[]];
    let n = 0;
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i]!;
      if (r.reset) pushed = [[]];
      if (r.iretire === 0 && r.itype !== Itype.exception && r.itype !== Itype.interrupt) continue;
      const calls = pushed.at(-1)!;
      if (r.itype === Itype.exception || r.itype === Itype.interrupt) pushed.push([]);
      else if (r.itype === Itype.trapReturn) {
        if (pushed.length > 1) pushed.pop();
      } else if (r.itype === Itype.inferableCall || r.itype === Itype.uninferableCall) calls.push(r.iaddr + BigInt(2 * r.iretire));
      else if (r.itype === Itype.return && calls.length > 0) {
        const expected = calls.pop()!;
        const next = rs.slice(i + 1).find((x) => x.iretire > 0 || x.itype !== 0);
        if (next && next.iretire > 0 && next.iaddr === expected + 4n) n++;
      }
    }
    return n;
  };
  it('w_skip_return: returns to 4 bytes past the address their call pushed, which ordinary programs lack', () => {
    const on = generateStimulus(knobs({ w_skip_return: 2 }), 6, 50_000);
    expect(returnsPastTheirCall(on.records)).toBeGreaterThan(20);
    expect(checkContinuity(on.records, on.image, on.xlen)).toEqual([]);
    const off = generateStimulus(knobs(), 6, 50_000);
    expect(returnsPastTheirCall(off.records)).toBe(0);
  });

  const idle = (r: RetirementRecord): boolean => r.iretire === 0 && r.itype === Itype.none && !r.halted && !r.reset;
  it('long_stall_rate: stalls of long_stall_cycles idle cycles; without it no two idle cycles in a row', () => {
    const on = generateStimulus(knobs({ long_stall_rate: 0.001, long_stall_cycles: 5000 }), 6, 10_000);
    expect(longestRun(on.records, idle)).toBeGreaterThanOrEqual(5000);
    expect(streamStats(on.records, on.image).instructions).toBe(10_000);
    const off = generateStimulus(knobs(), 6, 10_000);
    expect(longestRun(off.records, idle)).toBe(1);
  });
});
