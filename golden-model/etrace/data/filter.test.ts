import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, emptyComparator, emptyFilter, type EtraceConfig, validateConfig } from '../config.ts';
import { encodeStream } from '../output.ts';
import { emptyRecord, Trigger, type RetirementRecord } from '../../hart/records.ts';
import type { DataAccess } from '../../hart/data-records.ts';
import { decodeDataStream } from '../data-decoder/decoder.ts';
import { accessInstructionAddress, DataQualifier } from './filter.ts';
import { defaultDataParams } from './params.ts';

const access = (daddr: bigint, at = 0, iaddrLsbs = 0): DataAccess => ({ at, dtype: 0, daddr, dsize: 3, data: 1n, lrid: 0, iaddrLsbs, dblock: 0 });

/** Filter 0: comparator 0 on daddr (input 3), 0x2000 <= daddr < 0x3000. */
function rangeConfig(): EtraceConfig {
  const comparator = { ...emptyComparator(), pInput: 3, sInput: 3, pFunction: 5, pMatch: 0x2000n, sFunction: 2, sMatch: 0x3000n, matchMode: 1 };
  return {
    params: { ...defaultParams('2.0'), iaddress_width_p: 64, filters_p: 1, comparators_p: 1, dataTrace: defaultDataParams(), dataTraceSupport: true },
    options: { ...defaultOptions(), dFilters: 1, filters: [{ ...emptyFilter(), filterEnable: true, matchComp1: true, comp1: 0 }], comparators: [comparator] },
  };
}

describe('data trace filtering', () => {
  it('rebuilds the accessing instruction address from the block address and iaddr_lsbs (half-word bits [w:1])', () => {
    expect(accessInstructionAddress(0x1000n, 2, 3)).toBe(0x1004n);
    // Block at half-word 0x803 (low bits 011); lsbs 001 is 6 half-words further on.
    expect(accessInstructionAddress(0x1006n, 1, 3)).toBe(0x1012n);
    expect(accessInstructionAddress(0x1006n, 5, 0)).toBe(0x1006n);
  });

  it('dFilters with a daddr comparator traces only the accesses in range, and the decoder gets exactly those', () => {
    const c = rangeConfig();
    expect(validateConfig(c)).toEqual([]);
    const records: RetirementRecord[] = [0, 1, 2].map((i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x100n + 4n * BigInt(i) }));
    const data = { accesses: [access(0x1000n, 0), access(0x2800n, 1), access(0x3000n, 2)], responses: [] };
    const got = decodeDataStream(encodeStream(records, c, { data }).bytes, c.params);
    expect(got.accesses.map((a) => a.daddr)).toEqual([0x2800n]);
  });

  it('dTrigEnable: trace-on and trace-off triggers set and clear dEnable', () => {
    const q = new DataQualifier({ ...defaultOptions(), dEnable: false, dTrigEnable: true }, 0);
    const r = emptyRecord();
    expect(q.traced(access(0n), r)).toBe(false);
    q.record({ ...r, trigger: Trigger.traceOn });
    expect(q.traced(access(0n), r)).toBe(true);
    q.record({ ...r, trigger: Trigger.traceOff });
    expect(q.traced(access(0n), r)).toBe(false);
  });

  it('refuses a data filter on a trap window, and dFilters without data trace, in one line naming the setting', () => {
    const c = rangeConfig();
    const trap: EtraceConfig = { ...c, options: { ...c.options, filters: [{ ...c.options.filters[0]!, matchEcause: true, matchChoiceEcause: 4n }] } };
    expect(validateConfig(trap).map((e) => `${e.location.path}: ${e.message}`)).toEqual([
      'options/filter0.matchEcause: filter 0 qualifies data trace (dFilters) and matches a trap handler window (matchEcause/matchInterrupt), which only instruction trace has',
    ]);
    const plain: EtraceConfig = { params: { ...defaultParams('2.0'), filters_p: 1 }, options: { ...defaultOptions(), dFilters: 1 } };
    expect(validateConfig(plain).map((e) => e.message)).toEqual(['dFilters needs data_trace_p = 1']);
  });
});
