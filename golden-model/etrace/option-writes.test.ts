/**
 * The register image and the decode of its words into run-time options (option-writes.ts
 * EtraceRegisterImage, decodeOptions), the inverse of optionWrites:
 * - round trip: options -> optionWrites -> an image of the hardware configuration (every option
 *   off, no session) -> decodeOptions gives the options back, for every shipped E-Trace component
 *   and for option sets drawn as the fuzzer draws them (hardware settings, then run-time options);
 * - words typed from docs/etrace-registers.md (not from the register map), written with byte
 *   strobes, over read-only fields and to addresses without a register, decode to options typed
 *   from the same tables.
 */
import { describe, expect, it } from 'vitest';
import { shippedOf } from '../../blocks/index.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import { hardwareConfig } from '../../tb/case.ts';
import { Rng } from '../common/rng.ts';
import { type EtraceConfig, type EtraceOptions, emptyComparator, emptyFilter } from './config.ts';
import { decodeOptions, EtraceRegisterImage, optionWrites } from './option-writes.ts';

/** The options that `writes` leave in an image of `hw` (registers reset with every option off). */
function roundTrip(c: EtraceConfig, hw: EtraceConfig): { options: EtraceOptions; on: boolean; direct: EtraceOptions } {
  const image = new EtraceRegisterImage(hw);
  const writes = optionWrites(c);
  for (const w of writes) expect(image.write(w.address, w.value), `0x${w.address.toString(16)}`).toBeDefined();
  // decodeOptions straight from the written words (every register with a read-write field is written).
  const words = new Map(writes.map((w) => [w.address, w.value]));
  const direct = decodeOptions(hw, (a) => words.get(a) ?? 0);
  return { options: image.options(), on: image.on, direct };
}

/** What a configuration without data trace keeps of `hw`'s options: its data options, which have no register. */
function expectedOf(c: EtraceConfig, hw: EtraceConfig): EtraceOptions {
  if (c.params.dataTrace) return c.options;
  const { dEnable, dTrigEnable, noData, noAddress, DataCompress, dFilters } = hw.options;
  return { ...c.options, dEnable, dTrigEnable, noData, noAddress, DataCompress, dFilters };
}

describe('decodeOptions(optionWrites(options)) gives the options back', () => {
  it.each(shippedOf(['etrace']))('%s: its own options, through an image of its hardware configuration', (component) => {
    const r = resolvedOf<EtraceConfig>('etrace', component);
    const hw = hardwareConfig(r).config;
    // The image starts elsewhere: the hardware configuration has no session and every option off.
    expect(new EtraceRegisterImage(hw).on).toBe(false);
    const back = roundTrip(r.config, hw);
    expect(back.options).toEqual(expectedOf(r.config, hw));
    expect(back.direct).toEqual(expectedOf(r.config, hw));
    expect(back.on).toBe(true);
    // The component's own reset image decodes to its options too (a session out of reset).
    const own = new EtraceRegisterImage(r.config);
    expect(own.options()).toEqual(r.config.options);
    expect(own.on).toBe(r.config.options.iEnable);
  });

  // Seeds 1..150, printed by the test name on failure: a shipped component, the fuzzer's hardware
  // settings for it (Block.randomSets), then its run-time options for one case (runTime.randomSets).
  const SEEDS = Array.from({ length: 150 }, (_, i) => i + 1);
  /** The component and settings the fuzzer draws with `seed`, resolved. */
  const fuzzerDraw = (seed: number) => {
    const rng = new Rng(seed);
    const components = shippedOf(['etrace']);
    const component = components[rng.int(0, components.length - 1)]!;
    const base = resolvedOf<EtraceConfig>('etrace', component);
    const hardware = base.block.randomSets(rng, base);
    const onHardware = resolvedOf<EtraceConfig>('etrace', component, hardware);
    const sets = [...hardware, ...onHardware.block.runTime!.randomSets(rng, onHardware)];
    return { component, sets, r: resolvedOf<EtraceConfig>('etrace', component, sets) };
  };

  it.each(SEEDS)('fuzzer draw, seed %i', (seed) => {
    const { component, sets, r } = fuzzerDraw(seed);
    const hw = hardwareConfig(r).config;
    const back = roundTrip(r.config, hw);
    expect(back.options, `${component} ${sets.join(' ')}`).toEqual(expectedOf(r.config, hw));
    expect(back.direct).toEqual(expectedOf(r.config, hw));
  });

  it('the draws cover filters, comparators, data trace and the options of table 2.1-2.2 (the round trip saw them)', () => {
    const seen = new Set<string>();
    for (const seed of SEEDS) {
      const o = fuzzerDraw(seed).r.config.options;
      if (o.filters.some((f) => f.filterEnable)) seen.add('filter');
      if (o.comparators.some((k) => k.pMatch !== 0n)) seen.add('comparator');
      if (o.noData || o.noAddress || o.DataCompress === 1) seen.add('data');
      if (o.stallEnable) seen.add('stall');
      if (!o.iEnable) seen.add('iEnable 0');
      if (o.ImplicitExcept) seen.add('ImplicitExcept');
      if (o.ResyncMode === 0) seen.add('ResyncMode 0');
    }
    expect([...seen].sort()).toEqual(['ImplicitExcept', 'ResyncMode 0', 'comparator', 'data', 'filter', 'iEnable 0', 'stall'].sort());
  });
});

describe('the register image: words typed from docs/etrace-registers.md', () => {
  // etrace-rv64-full's hardware (predictor, jump target cache, return stack, sijump, data trace with
  // every compression) with two filters and comparators; its registers reset with every option off.
  const hw = hardwareConfig(resolvedOf<EtraceConfig>('etrace', 'etrace-rv64-full', ['filters_p=2', 'comparators_p=2'])).config;

  it('decodes every field from its TCI bit position', () => {
    const image = new EtraceRegisterImage(hw);
    // trTeControl: trTeActive 0, trTeEnable 1, trTeInstTracing 2, trTeInstTrigEnable 11,
    // trTeInstStallEna 13, trTeInstSyncMode 17:16, trTeInstSyncMax 23:20.
    expect(image.write(0x000, (1 << 2) | (1 << 11) | (1 << 13) | (3 << 16) | (9 << 20))).toBe('trTeControl');
    // trTeInstFeatures: NoAddrDiff 0, NoTrapAddr 1, EnSequentialJump 2, EnImplicitReturn 3,
    // EnBranchPrediction 4, EnJumpTargetCache 5.
    image.write(0x008, (1 << 1) | (1 << 3) | (1 << 5));
    // trTeInstFilters 15:0: bits at and above filters_p (2) read 0.
    image.write(0x00c, 0xfffe);
    // trTeDataControl: trTeDataTracing 2, trTeDataTrigEnable 3, trTeDataNoValue 24,
    // trTeDataNoAddr 25, rvDataCompress 29:28; trTeDataFilters 15:0 at 0x01C.
    image.write(0x010, (1 << 2) | (1 << 25) | (2 << 28));
    image.write(0x01c, 0x1);
    // Filter 1 at 0x420: Enable 0, MatchComp1 4, Comp1 7:5; MatchInst: ChoicePrivilege 7:0,
    // ValueInterrupt 8; MatchEcauseLow/High, MatchValueImpdef, MatchMaskImpdef.
    image.write(0x420, (1 << 0) | (1 << 1) | (1 << 4) | (1 << 5));
    image.write(0x424, 0x0b | (1 << 8));
    image.write(0x428, 0x8000_0001);
    image.write(0x42c, 0x2);
    image.write(0x430, 0x1234);
    image.write(0x434, 0xff00_00ff);
    // Comparator 1 at 0x620: PInput 1:0, SInput 3:2, PFunction 6:4, SFunction 10:8, MatchMode
    // 13:12, PNotify 14, SNotify 15; PMatch at +0x10/+0x14, SMatch at +0x18/+0x1C.
    image.write(0x620, 2 | (1 << 2) | (4 << 4) | (6 << 8) | (3 << 12) | (1 << 14));
    image.write(0x630, 0x8000_0400);
    image.write(0x634, 0x1);
    image.write(0x638, 0xffff_f000);
    image.write(0x63c, 0xffff_ffff);
    expect(image.on).toBe(false);
    // trTeActive and trTeEnable last (the byte lane of bits 7:0 only).
    image.write(0x000, 0b111, 0b0001);
    expect(image.on).toBe(true);
    const o = image.options();
    expect([o.iEnable, o.iTrigEnable, o.stallEnable, o.ResyncMode, o.ResyncMax]).toEqual([true, true, true, 3, 9]);
    expect([o.FullAddress, o.ImplicitExcept, o.siJump, o.ImplicitReturn, o.BranchPrediction, o.JumpTargetCache]).toEqual([false, true, false, true, false, true]);
    expect(o.iFilters).toBe(2);
    expect([o.dEnable, o.dTrigEnable, o.noData, o.noAddress, o.DataCompress, o.dFilters]).toEqual([true, false, false, true, 2, 1]);
    expect(o.filters[0]).toEqual(emptyFilter());
    expect(o.filters[1]).toEqual({
      ...emptyFilter(),
      filterEnable: true,
      matchPrivilege: true,
      matchComp1: true,
      comp1: 1,
      matchChoicePrivilege: 0x0b,
      matchValueInterrupt: true,
      matchChoiceEcause: 0x2_8000_0001n,
      matchValueImpdef: 0x1234,
      matchMaskImpdef: 0xff00_00ff,
    });
    // Comparator 0 as the hardware configuration resets it (settings: functions 7, always).
    expect(o.comparators[0]).toEqual(emptyComparator());
    expect(o.comparators[1]).toEqual({ pInput: 2, sInput: 1, pFunction: 4, sFunction: 6, matchMode: 3, pNotify: true, sNotify: false, pMatch: 0x1_8000_0400n, sMatch: 0xffff_ffff_ffff_f000n });
  });

  it('byte strobes: only the lanes written change; read-only fields, reserved bits and other addresses keep their value', () => {
    const image = new EtraceRegisterImage(hw);
    const control = image.word(0x000);
    // Reset, bits 15:0: trTeEmpty 1 (bit 3), trTeInstMode 6 (6:4), trTeContext 1 (9), the rest 0
    // (no session, every option off; bits 23:16 hold the resync defaults).
    expect(control & 0xffff).toBe((1 << 3) | (6 << 4) | (1 << 9));
    // Lane 2 only (bits 23:16): trTeInstSyncMode 2 and trTeInstSyncMax 5 change, trTeActive and
    // trTeEnable (lane 0) do not, though the word has them 1.
    image.write(0x000, 0xffff_ffff & ((2 << 16) | (5 << 20) | 0b11 | (1 << 13)), 0b0100);
    let o = image.options();
    expect([o.ResyncMode, o.ResyncMax, o.stallEnable, image.on]).toEqual([2, 5, false, false]);
    // trTeInstMode, trTeFormat (read-only) and reserved bits written: unchanged.
    image.write(0x000, (7 << 4) | (7 << 24) | (1 << 30), 0b1111);
    expect(image.word(0x000) & ((7 << 4) | (7 << 24) | (1 << 30))).toBe(6 << 4);
    // A 1 written to trTeInstStallOrOverflow (write 1 to clear) does not set it.
    image.write(0x000, 1 << 12, 0b0010);
    expect((image.word(0x000) >>> 12) & 1).toBe(0);
    // The read-only write above wrote every lane: SyncMode and SyncMax 0.
    o = image.options();
    expect([o.ResyncMode, o.ResyncMax]).toEqual([0, 0]);
    // trTeImpl is read-only; 0x002 (not word-aligned) and 0x0f0 have no register.
    const impl = image.word(0x004);
    expect(image.write(0x004, 0xffff_ffff)).toBe('trTeImpl');
    expect(image.word(0x004)).toBe(impl);
    expect(image.write(0x002, 0xffff_ffff)).toBeUndefined();
    expect(image.write(0x0f0, 0xffff_ffff)).toBeUndefined();
    // Half a comparator match value through two lanes.
    image.write(0x610, 0xaabb_ccdd, 0b0011);
    expect(image.options().comparators[0]!.pMatch).toBe(0xccddn);
  });

  it('a field read-only in the configuration keeps its constant: etrace has no predictor, filters or data trace', () => {
    const plain = hardwareConfig(resolvedOf<EtraceConfig>('etrace', 'etrace')).config;
    const image = new EtraceRegisterImage(plain);
    image.write(0x008, 0x3f);
    image.write(0x00c, 0xffff);
    const o = image.options();
    // trTeInstNoAddrDiff and trTeInstNoTrapAddr are read-write; bits 2-5 read-only 0 here.
    expect([o.FullAddress, o.ImplicitExcept, o.siJump, o.ImplicitReturn, o.BranchPrediction, o.JumpTargetCache, o.iFilters]).toEqual([true, true, false, false, false, false, 0]);
    expect(image.word(0x008)).toBe(0b11);
    expect(image.word(0x00c)).toBe(0);
  });
});
