import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import type { EtraceConfig } from './config.ts';
import { etraceMemoryMap, registerMapErrors, resetWord, type RegisterSpec } from './registers.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

const config = (sets: string[] = []): EtraceConfig => etraceConfig(resolveSettings('test', ETRACE_SETTINGS, sets));
const FULL = [
  'filters_p=2', 'comparators_p=2', 'iFilters=3', 'filter1.filterEnable=1', 'filter1.matchComp2=1', 'filter1.comp2=1',
  'filter0.matchChoiceEcause=0x1f', 'comparator1.pMatch=0x123456789abcdef0', 'comparator1.pFunction=2', 'comparator1.matchMode=3',
];

function register(c: EtraceConfig, name: string): RegisterSpec {
  for (const b of etraceMemoryMap(c).addressBlocks) for (const r of b.registers) if (r.name === name) return r;
  throw new Error(`no register ${name}`);
}
function field(c: EtraceConfig, reg: string, name: string): { bitOffset: number; bitWidth: number; reset: bigint; access: string } {
  const f = register(c, reg).fields.find((x) => x.name === name);
  if (!f) throw new Error(`no field ${reg}.${name}`);
  return f;
}

describe('register map', () => {
  it('lays out the Trace Control Interface registers at their ratified offsets', () => {
    const m = etraceMemoryMap(config(FULL));
    const control = m.addressBlocks.find((b) => b.name === 'control')!;
    expect(control.baseAddress).toBe(0);
    expect(control.range).toBe(0x1000);
    const at = new Map(control.registers.map((r) => [r.name, r.offset]));
    expect(at.get('trTeControl')).toBe(0x000);
    expect(at.get('trTeImpl')).toBe(0x004);
    expect(at.get('trTeInstFeatures')).toBe(0x008);
    expect(at.get('trTeInstFilters')).toBe(0x00c);
    expect(at.get('trTeFilter0Control')).toBe(0x400);
    expect(at.get('trTeFilter1MatchInst')).toBe(0x424);
    expect(at.get('trTeFilter1MatchMaskImpdef')).toBe(0x434);
    expect(at.get('trTeComp0Control')).toBe(0x600);
    expect(at.get('trTeComp1PMatchLow')).toBe(0x630);
    expect(at.get('trTeComp1SMatchHigh')).toBe(0x63c);
    expect(at.has('trTeFilter2Control')).toBe(false);
    expect(at.has('trTeComp2Control')).toBe(false);
  });

  it('keeps the TCI field positions of the options', () => {
    const c = config();
    const pos = (reg: string, name: string): [number, number] => {
      const f = field(c, reg, name);
      return [f.bitOffset, f.bitWidth];
    };
    expect(pos('trTeControl', 'trTeActive')).toEqual([0, 1]);
    expect(pos('trTeControl', 'trTeInstTracing')).toEqual([2, 1]);
    expect(pos('trTeControl', 'trTeInstMode')).toEqual([4, 3]);
    expect(pos('trTeControl', 'trTeInstTrigEnable')).toEqual([11, 1]);
    expect(pos('trTeControl', 'trTeInstStallEna')).toEqual([13, 1]);
    expect(pos('trTeControl', 'trTeInstSyncMode')).toEqual([16, 2]);
    expect(pos('trTeControl', 'trTeInstSyncMax')).toEqual([20, 4]);
    expect(pos('trTeControl', 'trTeFormat')).toEqual([24, 3]);
    expect(pos('trTeInstFeatures', 'trTeInstNoAddrDiff')).toEqual([0, 1]);
    expect(pos('trTeInstFeatures', 'trTeInstNoTrapAddr')).toEqual([1, 1]);
    expect(pos('trTeInstFeatures', 'trTeInstEnSequentialJump')).toEqual([2, 1]);
    expect(pos('trTeInstFeatures', 'trTeInstEnImplicitReturn')).toEqual([3, 1]);
    expect(pos('trTeInstFeatures', 'trTeInstEnBranchPrediction')).toEqual([4, 1]);
    expect(pos('trTeInstFeatures', 'trTeInstEnJumpTargetCache')).toEqual([5, 1]);
    expect(pos('trTeInstFilters', 'trTeInstFilters')).toEqual([0, 16]);
  });

  it('has no overlapping fields or registers, and every field fits its register', () => {
    for (const sets of [[], FULL]) {
      for (const b of etraceMemoryMap(config(sets)).addressBlocks) {
        const bytes: number[] = [];
        for (const r of b.registers) {
          for (let i = 0; i < r.size / 8; i++) bytes.push(r.offset + i);
          expect(r.offset + r.size / 8).toBeLessThanOrEqual(b.range);
          expect(r.offset % 4).toBe(0);
          let used = 0n;
          for (const f of r.fields) {
            const mask = ((1n << BigInt(f.bitWidth)) - 1n) << BigInt(f.bitOffset);
            expect(used & mask, `${r.name}.${f.name}`).toBe(0n);
            used |= mask;
            expect(f.bitOffset + f.bitWidth, `${r.name}.${f.name}`).toBeLessThanOrEqual(r.size);
          }
        }
        expect(new Set(bytes).size, b.name).toBe(bytes.length);
      }
    }
  });

  it('computes reset values from the options and parameters', () => {
    const c = config(['ResyncMode=3', 'ResyncMax=8', 'stallEnable=1', 'FullAddress=1']);
    expect(field(c, 'trTeControl', 'trTeInstSyncMode').reset).toBe(3n);
    expect(field(c, 'trTeControl', 'trTeInstSyncMax').reset).toBe(8n);
    expect(field(c, 'trTeControl', 'trTeInstStallEna').reset).toBe(1n);
    expect(field(c, 'trTeInstFeatures', 'trTeInstNoAddrDiff').reset).toBe(1n);
    expect(field(c, 'trTeControl', 'trTeInstMode').reset).toBe(6n);
    // iEnable = 1, TCI format 0, empty, mode 6, context in packets, resync 3 / 8, stall enabled.
    expect(resetWord(c, 0x000)).toBe(0b111n | (1n << 3n) | (6n << 4n) | (1n << 9n) | (1n << 13n) | (3n << 16n) | (8n << 20n));
    expect(field(c, 'trTeInstFeatures', 'trTeInstEnBranchPrediction').access).toBe('read-only');
    const full = config(['bpred_size_p=2', 'BranchPrediction=1', 'return_stack_size_p=3', 'ImplicitReturn=1']);
    expect(field(full, 'trTeInstFeatures', 'trTeInstEnBranchPrediction')).toMatchObject({ access: 'read-write', reset: 1n });
    expect(field(full, 'trTeInstFeatures', 'trTeInstImplicitReturnMode').reset).toBe(3n);
    expect(field(config(['payload_layout=2.0']), 'trTeImpl', 'rvPayloadLayout').reset).toBe(0n);
    expect(field(c, 'trTeImpl', 'rvPayloadLayout').reset).toBe(1n);
  });

  it('maps filters and comparators, 64-bit values split into low and high words', () => {
    const c = config(FULL);
    expect(resetWord(c, 0x00c)).toBe(3n);
    expect(field(c, 'trTeFilter1Control', 'trTeFilterComp2').reset).toBe(1n);
    expect(resetWord(c, 0x420)).toBe(1n | (1n << 8n) | (1n << 9n));
    expect(resetWord(c, 0x408)).toBe(0x1fn);
    expect(resetWord(c, 0x630)).toBe(0x9abcdef0n);
    expect(resetWord(c, 0x634)).toBe(0x12345678n);
    expect(resetWord(c, 0x620)).toBe(0n | (7n << 8n) | (2n << 4n) | (3n << 12n));
  });

  it('puts discovery_info_0 and _1 in their own block at 0x1000 and 0x1008 with Table 9.2-9.4 values', () => {
    const c = config(['iaddress_width_p=64', 'context_width_p=32', 'ecause_width_p=6', 'privilege_width_p=2', 'return_stack_size_p=4', 'sijump_p=1']);
    const d = etraceMemoryMap(c).addressBlocks.find((b) => b.name === 'discovery')!;
    expect(d.baseAddress).toBe(0x1000);
    expect(d.registers.map((r) => [r.name, r.offset, r.size])).toEqual([['discovery_info_0', 0, 64], ['discovery_info_1', 8, 64]]);
    const v = (reg: string, name: string): bigint => field(c, reg, name).reset;
    expect(v('discovery_info_0', 'context_width')).toBe(31n);
    expect(field(c, 'discovery_info_0', 'context_width')).toMatchObject({ bitOffset: 31, bitWidth: 5 });
    expect(v('discovery_info_0', 'ecause_width')).toBe(5n);
    expect(v('discovery_info_0', 'iaddress_lsb')).toBe(0n);
    expect(v('discovery_info_1', 'iaddress_width')).toBe(63n);
    expect(v('discovery_info_1', 'itype_width')).toBe(3n);
    expect(v('discovery_info_1', 'privilege_width')).toBe(1n);
    expect(v('discovery_info_1', 'return_stack_size')).toBe(4n);
    expect(v('discovery_info_1', 'sijump')).toBe(1n);
    expect(v('discovery_info_1', 'iretire_width')).toBe(2n);
    // context_width straddles the two 32-bit words of discovery_info_0: 31 = 0b11111.
    expect((resetWord(c, 0x1000)! >> 31n) & 1n).toBe(1n);
    expect(resetWord(c, 0x1004)! & 0xfn).toBe(0xfn);
    expect(resetWord(c, 0x1002)).toBeUndefined();
    expect(resetWord(c, 0x2000)).toBeUndefined();
  });

  it('reports values the map cannot hold, at the parameter they come from', () => {
    expect(registerMapErrors(config())).toEqual([]);
    const errors = registerMapErrors(config(['context_width_p=64', 'retires_p=9', 'iretire_width_p=5', 'f0s_width_p=4']));
    expect(errors.map((e) => e.location.path)).toEqual(['parameters/context_width_p', 'parameters/f0s_width_p', 'parameters/retires_p']);
    expect(errors[0]!.message).toBe('context_width_p gives discovery_info_0.context_width the value 63, which does not fit its 5-bit field (0..31)');
  });
});
