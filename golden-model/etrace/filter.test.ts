/**
 * Qualification (chapter 5, tables 2.3-2.6) on short hand-made record sequences; each expected
 * list is worked out from the table descriptions in the comment above it.
 */
import { describe, expect, it } from 'vitest';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';
import { defaultOptions, emptyComparator, emptyFilter, type EtraceOptions } from './config.ts';
import { Qualifier } from './filter.ts';

const insn = (iaddr: bigint, extra: Partial<RetirementRecord> = {}): RetirementRecord => ({ ...emptyRecord(), iaddr, iretire: 2, ...extra });
const trap = (cause: number, interrupt = false): RetirementRecord => ({ ...emptyRecord(), iaddr: 0x200n, itype: interrupt ? Itype.interrupt : Itype.exception, cause });
const xret = (): RetirementRecord => insn(0x1fcn, { itype: Itype.trapReturn });

function run(o: Partial<EtraceOptions>, records: RetirementRecord[]): boolean[] {
  const q = new Qualifier({ ...defaultOptions(), ...o });
  return records.map((r) => q.qualify(r).qualified);
}

describe('Qualifier', () => {
  it('traces everything with no filter selected, nothing halted or in reset', () => {
    expect(run({}, [insn(0x100n), insn(0x104n, { halted: true }), insn(0x108n, { reset: true }), insn(0x10cn)])).toEqual([true, false, false, true]);
  });

  it('matchEcause: from a matching trap through the xRET that returns from it, nested traps included', () => {
    // Cause 8 selected. 0x100 no; trap 2 no; trap 8 starts; handler; nested trap 2 (depth 2);
    // its xRET (depth 1); the outer xRET (depth 0, still traced); 0x104 no.
    const f = { ...emptyFilter(), filterEnable: true, matchEcause: true, matchChoiceEcause: 1n << 8n };
    const records = [insn(0x100n), trap(2), trap(8), insn(0x200n), trap(2), xret(), xret(), insn(0x104n)];
    expect(run({ iFilters: 1, filters: [f] }, records)).toEqual([false, false, true, true, true, true, true, false]);
  });

  it('matchInterrupt matches itype 2 when matchValueInterrupt is 1', () => {
    const f = { ...emptyFilter(), filterEnable: true, matchInterrupt: true, matchValueInterrupt: true };
    expect(run({ iFilters: 1, filters: [f] }, [trap(8), insn(0x200n), xret(), trap(7, true), insn(0x200n), xret(), insn(0x300n)])).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it('matchImpdef compares under the mask; filters not selected by iFilters do not qualify', () => {
    const f = { ...emptyFilter(), filterEnable: true, matchImpdef: true, matchValueImpdef: 0b1010, matchMaskImpdef: 0b1110 };
    const records = [insn(0x100n, { impdef: 0b1011 }), insn(0x104n, { impdef: 0b0010 }), insn(0x108n, { impdef: 0b1010 })];
    expect(run({ iFilters: 1, filters: [f] }, records)).toEqual([true, false, true]);
    expect(run({ iFilters: 2, filters: [f, { ...emptyFilter() }] }, records)).toEqual([false, false, false]);
  });

  it('comparator latch mode: from the record where P matches through the one where S matches', () => {
    // P: iaddr == 0x104; S: iaddr == 0x10c.
    const c = { ...emptyComparator(), pInput: 0, pFunction: 0, pMatch: 0x104n, sInput: 0, sFunction: 0, sMatch: 0x10cn, matchMode: 3 };
    const f = { ...emptyFilter(), filterEnable: true, matchComp1: true, comp1: 0 };
    const records = [0x100n, 0x104n, 0x108n, 0x10cn, 0x110n, 0x104n].map((a) => insn(a));
    expect(run({ iFilters: 1, filters: [f], comparators: [c] }, records)).toEqual([false, true, true, true, false, true]);
  });

  it('sFunction 6 uses sMatch as a mask for the primary comparison, and pNotify reports matches', () => {
    // (iaddr & 0xff00) == (0x1200 & 0xff00)
    const c = { ...emptyComparator(), pInput: 0, pFunction: 0, pMatch: 0x1234n, sFunction: 6, sMatch: 0xff00n, matchMode: 0, pNotify: true };
    const q = new Qualifier({ ...defaultOptions(), comparators: [c] });
    expect([0x1200n, 0x12ffn, 0x1300n].map((a) => q.qualify(insn(a)).notify)).toEqual([true, true, false]);
  });

  it('trace-on/off triggers act only with iTrigEnable: on from its instruction, off after its instruction', () => {
    const records = [insn(0x100n, { trigger: 2 }), insn(0x104n), insn(0x108n, { trigger: 1 }), insn(0x10cn)];
    expect(run({ iTrigEnable: true }, records)).toEqual([true, false, true, true]);
    expect(run({ iTrigEnable: false }, records)).toEqual([true, true, true, true]);
  });
});
