import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, type EtraceConfig } from '../config.ts';
import { etraceMemoryMap } from '../registers.ts';
import { defaultDataParams } from './params.ts';

function dataRegs(c: EtraceConfig) {
  return etraceMemoryMap(c).addressBlocks[0]!.registers.filter((r) => r.name.startsWith('trTeData'));
}

describe('data trace registers', () => {
  it('are absent without data trace (components without it keep their map)', () => {
    expect(dataRegs({ params: defaultParams('2.0'), options: defaultOptions() })).toEqual([]);
  });

  it('hold the data options at 0x010 and 0x01C with their reset values', () => {
    const c: EtraceConfig = {
      params: { ...defaultParams('2.0'), filters_p: 2, dataTrace: defaultDataParams(), dataTraceSupport: true },
      options: { ...defaultOptions(), dEnable: true, noAddress: true, DataCompress: 2, dFilters: 2 },
    };
    const regs = dataRegs(c);
    expect(regs.map((r) => [r.name, r.offset])).toEqual([['trTeDataControl', 0x010], ['trTeDataFilters', 0x01c]]);
    const f = Object.fromEntries(regs.flatMap((r) => r.fields.map((x) => [x.name, [x.bitOffset, x.bitWidth, x.reset]])));
    expect(f).toEqual({
      trTeDataImplemented: [0, 1, 1n],
      trTeDataTracing: [2, 1, 1n],
      trTeDataTrigEnable: [3, 1, 0n],
      trTeDataNoValue: [24, 1, 0n],
      trTeDataNoAddr: [25, 1, 1n],
      rvDataCompress: [28, 2, 2n],
      trTeDataFilters: [0, 16, 2n],
    });
  });
});
