/**
 * Co-simulation of trace filtering and comparators (golden-model/etrace/filter.ts against
 * etrace_filter in the generated RTL): each case must give identical bytes, and the filter must
 * actually remove trace (fewer bytes than the same case with iFilters = 0, comparators and their
 * notifies unchanged).
 *
 * The filters and comparators are run-time options: every case, and its unfiltered twin, runs on
 * the build of its hardware configuration (tb/case.ts; four builds for the whole file), with the
 * options programmed through the APB registers (tb/etrace/frames.ts).
 */
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../../blocks/testing.ts';
import type { CaseSpec } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { runEtraceCase } from './case.ts';

const runCase = (spec: CaseSpec) => runEtraceCase(resolvedOf<EtraceConfig>('etrace', spec.component, spec.sets), spec);

const RECORDS = Number(process.env.COSIM_RECORDS ?? 20_000);
const UNITS = ['filters_p=2', 'comparators_p=2'];

interface FilterCase {
  readonly name: string;
  readonly sets: readonly string[];
  readonly seed: number;
  readonly backpressure: number;
  readonly knobs?: CaseSpec['knobs'];
}

const CASES: FilterCase[] = [
  {
    name: 'privilege filter (U only)',
    sets: [...UNITS, 'iFilters=1', 'filter0.filterEnable=1', 'filter0.matchPrivilege=1', 'filter0.matchChoicePrivilege=1'],
    seed: 1,
    backpressure: 0,
  },
  {
    name: 'privilege filter (S or M, filter 1), back-pressure',
    sets: [...UNITS, 'iFilters=2', 'filter1.filterEnable=1', 'filter1.matchPrivilege=1', 'filter1.matchChoicePrivilege=10'],
    seed: 2,
    backpressure: 0.5,
  },
  {
    name: 'ecause trap window (illegal instruction, breakpoint handlers)',
    sets: [...UNITS, 'iFilters=1', 'filter0.filterEnable=1', 'filter0.matchEcause=1', 'filter0.matchChoiceEcause=0xc'],
    seed: 3,
    backpressure: 0,
  },
  {
    name: 'ecause and interrupt trap window (supervisor timer interrupt), nested interrupts',
    sets: [
      ...UNITS,
      'ecause_choice_p=6',
      'iFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchEcause=1',
      'filter0.matchChoiceEcause=0x20',
      'filter0.matchInterrupt=1',
      'filter0.matchValueInterrupt=1',
    ],
    seed: 3,
    backpressure: 0.3,
    knobs: { nested_interrupt_rate: 0.5 },
  },
  {
    name: 'interrupt trap window, nested interrupts, back-pressure',
    sets: [...UNITS, 'iFilters=2', 'filter1.filterEnable=1', 'filter1.matchInterrupt=1', 'filter1.matchValueInterrupt=1'],
    seed: 4,
    backpressure: 0.5,
    knobs: { interrupt_rate: 0.01, nested_interrupt_rate: 0.5 },
  },
  {
    name: 'exception window or U privilege (two filters)',
    sets: [
      ...UNITS,
      'iFilters=3',
      'filter0.filterEnable=1',
      'filter0.matchInterrupt=1',
      'filter0.matchValueInterrupt=0',
      'filter1.filterEnable=1',
      'filter1.matchPrivilege=1',
      'filter1.matchChoicePrivilege=1',
    ],
    seed: 5,
    backpressure: 0,
  },
  {
    name: 'address-range comparator (matchMode 1) with notify',
    sets: [
      ...UNITS,
      'iFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchComp1=1',
      'filter0.comp1=0',
      'comparator0.pInput=0',
      'comparator0.pFunction=5',
      'comparator0.pMatch=0x80000200',
      'comparator0.sInput=0',
      'comparator0.sFunction=2',
      'comparator0.sMatch=0x80000800',
      'comparator0.matchMode=1',
      // A watchpoint on a narrower range: notify when P (iaddr >= 0x80000700) or S (iaddr < 0x80000780).
      'comparator1.pInput=0',
      'comparator1.pFunction=5',
      'comparator1.pMatch=0x80000700',
      'comparator1.pNotify=1',
      'comparator1.sInput=0',
      'comparator1.sFunction=2',
      'comparator1.sMatch=0x80000210',
      'comparator1.sNotify=1',
      'comparator1.matchMode=1',
    ],
    seed: 1,
    backpressure: 0,
  },
  {
    name: 'latch comparator (matchMode 3), back-pressure',
    sets: [
      ...UNITS,
      'iFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchComp2=1',
      'filter0.comp2=1',
      'comparator1.pInput=0',
      'comparator1.pFunction=2',
      'comparator1.pMatch=0x80000300',
      'comparator1.sInput=0',
      'comparator1.sFunction=4',
      'comparator1.sMatch=0x80000900',
      'comparator1.matchMode=3',
    ],
    seed: 6,
    backpressure: 0.5,
  },
  {
    name: 'masked comparator (sFunction 6), comparator 3 of the filter',
    sets: [
      ...UNITS,
      'iFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchComp3=1',
      'filter0.comp3=0',
      'comparator0.pInput=0',
      // (iaddr & 0xfffffc00) == (0x80000000 & 0xfffffc00): the first KiB of the program.
      'comparator0.pFunction=0',
      'comparator0.pMatch=0x80000000',
      'comparator0.sFunction=6',
      'comparator0.sMatch=0xfffffc00',
    ],
    seed: 7,
    backpressure: 0,
  },
];

/**
 * Several signal groups a cycle (blocks of up to three instructions, two blocks a cycle): the
 * groups are qualified in order, so the stateful units (a trap window with nesting, a latch) are
 * chained through the cycle. Stall mode keeps every packet (two blocks a cycle outrun the port).
 */
const GROUPS = ['retires_p=3', 'iretire_width_p=3', 'taken_branches_p=2', 'stallEnable=1'];
for (const name of ['exception window or U privilege (two filters)', 'latch comparator (matchMode 3), back-pressure']) {
  const base = CASES.find((c) => c.name === name)!;
  CASES.push({ ...base, name: `${name}, two blocks a cycle`, sets: [...base.sets, ...GROUPS] });
}

describe('etrace filters and comparators: RTL and model', () => {
  it.each(CASES)('$name: identical bytes, trace removed', async ({ sets, seed, backpressure, knobs }) => {
    const spec: CaseSpec = { component: 'etrace', sets, seed, count: RECORDS, backpressure, ...(knobs ? { knobs } : {}) };
    const r = await runCase(spec);
    expect(r.mismatch).toBeUndefined();
    expect(r.identical).toBe(true);
    const unfiltered = await runCase({ ...spec, sets: sets.filter((s) => !s.startsWith('iFilters=')) });
    expect(unfiltered.identical).toBe(true);
    expect(r.metrics.bytes).toBeGreaterThan(0);
    expect(r.metrics.bytes).toBeLessThan(unfiltered.metrics.bytes!);
  }, 600_000);
});
