/**
 * `pmu-stat` on a short run typed by hand: the counts are worked out from the record list and the
 * event table of docs/pmu-model.md, and the names from the SBI PMU spec's event tables.
 */
import { describe, expect, it } from 'vitest';
import { Itype } from '../hart/records.ts';
import { eventNames, formatStat, pmuStat } from './stat.ts';
import { defaultPmuConfig } from './settings.ts';
import { idle, insn, S, U } from './test-helpers.ts';

describe('pmu-stat', () => {
  // 8 records: 6 retire; the ecall traps and does not retire; one idle cycle; one interrupt of nothing.
  const records = [
    insn(Itype.none, U),
    insn(Itype.takenBranch, U),
    insn(Itype.nontakenBranch, U),
    insn(Itype.exception, U, { cause: 8 }), // ecall: an exception, not an instruction retired
    idle(S),
    insn(Itype.inferableCall, S),
    insn(Itype.return, S),
    insn(Itype.trapReturn, S),
  ];
  const c = defaultPmuConfig();
  // input1 (cache misses, selector 4) high in cycles 0 and 5; input2 (branch misses, 6) in cycle 2.
  const events = (i: number): number => (i === 0 || i === 5 ? 0b010 : i === 2 ? 0b100 : 0);
  const s = pmuStat(c, records, { events });
  const count = (counter: string): bigint | undefined => s.rows.find((r) => r.counter === counter)?.count;
  const byPerf = (perf: string): bigint | undefined => s.rows.find((r) => r.perf === perf && r.counter.startsWith('mhpm'))?.count;

  it('counts cycles and instructions on mcycle and minstret from the first record on', () => {
    expect(count('mcycle')).toBe(8n);
    expect(count('minstret')).toBe(6n);
  });

  it('counts the events of the map on the programmable counters, in map order', () => {
    expect(s.rows.slice(2, 5).map((r) => r.counter)).toEqual(['mhpmcounter3', 'mhpmcounter4', 'mhpmcounter5']);
    expect(byPerf('cycles')).toBe(8n);
    expect(byPerf('instructions')).toBe(6n);
    expect(byPerf('cache-misses')).toBe(2n);
    expect(byPerf('branch-misses')).toBe(1n);
    expect(byPerf('branches')).toBe(2n);
    expect(s.rows.find((r) => r.perf === 'r100 (taken_branches)')?.count).toBe(1n);
    expect(s.rows.find((r) => r.perf === 'r101 (calls)')?.count).toBe(1n);
    expect(s.rows.find((r) => r.perf === 'r102 (returns)')?.count).toBe(1n);
    expect(s.rows.find((r) => r.perf === 'r104 (exceptions)')?.count).toBe(1n);
    expect(s.rows.find((r) => r.perf === 'r106 (trap_returns)')?.count).toBe(1n);
  });

  it('names events as the SBI spec and perf do', () => {
    expect(eventNames(1n, { kind: 'stream', name: 'cycles' })).toEqual({ sbi: 'SBI_PMU_HW_CPU_CYCLES (0x1)', perf: 'cycles' });
    // Cache event: type 1, cache id DTLB (3), op WRITE (1), result MISS (1): 0x10000 | 3 << 3 | 1 << 1 | 1.
    expect(eventNames(0x1001bn, { kind: 'input', input: 6 })).toEqual({ sbi: 'SBI_PMU_HW_CACHE_DTLB.WRITE.MISS (0x1001b)', perf: 'dTLB-store-misses' });
    expect(eventNames(0x10000n, { kind: 'input', input: 0 }).perf).toBe('L1-dcache-loads');
  });

  it('prints IPC beside instructions and the miss rate beside branch-misses', () => {
    const text = formatStat('t', s);
    expect(text).toMatch(/6 {2}instructions .*# {2}0\.75 insn per cycle/);
    expect(text).toMatch(/1 {2}branch-misses .*# {2}50\.00% of all branches/);
  });
});
