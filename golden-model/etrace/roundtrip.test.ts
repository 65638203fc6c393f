/**
 * The round trip: retired instructions -> encoder -> packets -> decoder with the program image ->
 * the same instruction addresses. The decoder was written independently from the spec and
 * docs/etrace-model.md, so agreement checks both. Seeds are fixed and printed; a failure names the
 * configuration, the seed and the first differing position.
 */
import { describe, expect, it } from 'vitest';
import { cycleChance } from '../common/rng.ts';
import { resolveSettings } from '../common/settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { type RetirementRecord } from '../hart/records.ts';
import { trapHandler } from '../hart/stimulus/execute.ts';
import { generateProgramAndStream } from '../hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../hart/stimulus/knobs.ts';
import { validateConfig } from './config.ts';
import { decodeStream } from './decoder.ts';
import { encodeStream } from './output.ts';
import { decodedRuns, recoveryLine, retiredAddresses, traceRecovery } from '../hart/recovery.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

interface Case {
  name: string;
  sets: string[];
  knobs?: Partial<StimulusKnobs>;
  /** Regroup into blocks of this many instructions (2 groups per cycle). */
  blocks?: number;
  /** Transport not ready with this probability: trace may be lost. */
  backpressure?: number;
  /** Which records are traced, worked out independently of the encoder's filter unit. */
  traced?: (records: readonly RetirementRecord[]) => boolean[];
}

/** Records at these privileges. */
const atPrivileges = (privs: number[]) => (records: readonly RetirementRecord[]) => records.map((r) => privs.includes(r.priv));
/** Records whose address is in [lo, hi). */
const inRange = (lo: bigint, hi: bigint) => (records: readonly RetirementRecord[]) => records.map((r) => r.iaddr >= lo && r.iaddr < hi);
/** trigger[0] starts tracing (from that instruction), trigger[1] stops it (after that instruction). */
const byTriggers = (records: readonly RetirementRecord[]) => {
  let on = true;
  return records.map((r) => {
    if (r.trigger & 1) on = true;
    const traced = on;
    if (r.trigger & 2) on = false;
    return traced;
  });
};

const RV64 = ['iaddress_width_p=64', 'context_width_p=32', 'ecause_width_p=6', 'privilege_width_p=2', 'ResyncMax=0'];
const ALL_MODES = [
  'return_stack_size_p=3',
  'bpred_size_p=5',
  'cache_size_p=3',
  'f0s_width_p=1',
  'sijump_p=1',
  'ImplicitReturn=1',
  'BranchPrediction=1',
  'JumpTargetCache=1',
  'siJump=1',
];

const CASES: Case[] = [
  { name: 'baseline 1.1.1', sets: [...RV64] },
  { name: 'baseline 2.0', sets: [...RV64, 'payload_layout=2.0'] },
  { name: 'implicit return, stack', sets: [...RV64, 'return_stack_size_p=3', 'ImplicitReturn=1'] },
  { name: 'implicit return, counter', sets: [...RV64, 'call_counter_size_p=3', 'ImplicitReturn=1'] },
  // The Implicit Return extension (iret_ext_p = 1, the default) in the 2.0 layout, a 2-entry stack
  // that recursion overflows (returns that find it empty after counted ones) and a 1-bit counter.
  { name: 'implicit return, stack, 2.0', sets: [...RV64, 'return_stack_size_p=3', 'ImplicitReturn=1', 'payload_layout=2.0'] },
  { name: 'implicit return, counter, 2.0', sets: [...RV64, 'call_counter_size_p=3', 'ImplicitReturn=1', 'payload_layout=2.0'] },
  { name: 'implicit return, 2-entry stack', sets: [...RV64, 'return_stack_size_p=1', 'ImplicitReturn=1'] },
  { name: 'implicit return, 1-bit counter', sets: [...RV64, 'call_counter_size_p=1', 'ImplicitReturn=1'] },
  { name: 'branch prediction', sets: [...RV64, 'bpred_size_p=4', 'BranchPrediction=1'] },
  { name: 'jump target cache', sets: [...RV64, 'cache_size_p=3', 'JumpTargetCache=1'] },
  { name: 'sijump', sets: [...RV64, 'sijump_p=1', 'siJump=1'] },
  { name: 'full address', sets: [...RV64, 'FullAddress=1'] },
  { name: 'implicit exception', sets: [...RV64, 'ImplicitExcept=1'] },
  { name: 'all modes 1.1.1', sets: [...RV64, ...ALL_MODES] },
  { name: 'all modes 2.0', sets: [...RV64, ...ALL_MODES, 'payload_layout=2.0', 'notime_p=0', 'time_width_p=32'] },
  { name: 'itype 3-bit', sets: [...RV64, 'itype_width_p=3'] },
  { name: 'RV32', sets: ['iaddress_width_p=32', 'nocontext_p=1', 'privilege_width_p=2', 'ResyncMode=3', 'ResyncMax=2'], knobs: { xlen: 32 } },
  { name: 'RV64 without C (lsb 2)', sets: [...RV64, 'iaddress_lsb_p=2'], knobs: { compressed: false } },
  { name: 'blocks of 3, all modes', sets: [...RV64, ...ALL_MODES, 'retires_p=3', 'taken_branches_p=2'], blocks: 3 },
  {
    name: 'blocks of 3, implicit return with a counter, 2.0',
    sets: [...RV64, 'call_counter_size_p=2', 'ImplicitReturn=1', 'payload_layout=2.0', 'retires_p=3', 'taken_branches_p=2'],
    blocks: 3,
  },
  { name: 'privilege filter (U only)', sets: [...RV64, 'filters_p=1', 'iFilters=1', 'filter0.filterEnable=1', 'filter0.matchPrivilege=1', 'filter0.matchChoicePrivilege=1'], traced: atPrivileges([0]) },
  {
    name: 'address range comparator (0x80000200 <= iaddr < 0x80000800)',
    sets: [
      ...RV64,
      'filters_p=1',
      'comparators_p=1',
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
    ],
    traced: inRange(0x80000200n, 0x80000800n),
  },
  { name: 'trace-on/off triggers', sets: [...RV64, 'iTrigEnable=1'], knobs: { trace_off_rate: 0.003, trace_on_rate: 0.01 }, traced: byTriggers },
  { name: 'back-pressure, trace loss', sets: [...RV64, 'fifo_depth_p=32'], backpressure: 0.6 },
  { name: 'back-pressure with stall', sets: [...RV64, 'fifo_depth_p=32', 'stallEnable=1'], backpressure: 0.6 },
];

const SEEDS = Number(process.env.RT_SEEDS ?? 200);
const INSTRUCTIONS = 1500;

/** Index of the first difference between two sequences, or -1. */
function firstDifference(a: readonly bigint[], b: readonly bigint[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

describe('E-Trace round trip: encode then decode gives the retired addresses', () => {
  it.each(CASES)('$name (seeds 1..200, 1500 instructions each)', (c) => {
    const config = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, c.sets));
    expect(validateConfig(config).map((e) => e.oneLine())).toEqual([]);
    for (let seed = 1; seed <= SEEDS; seed++) {
      const knobs = { ...defaultKnobs(), ...c.knobs };
      const { stream, program } = generateProgramAndStream(knobs, seed, INSTRUCTIONS);
      const records = c.blocks ? regroupIntoBlocks(stream.records, { retires_p: c.blocks, taken_branches_p: 2 }) : stream.records;
      const p = c.backpressure;
      const encoded = encodeStream(records, config, p ? { ready: (cycle) => !cycleChance(seed, cycle, p) } : {});
      const decoded = decodeStream(encoded.bytes, stream.image, {
        params: config.params,
        xlen: knobs.xlen,
        trapHandler: (t) => trapHandler(program, Number(t.privilege)),
      });
      const expected = retiredAddresses(stream.records, stream.image, c.traced);
      const got = decodedRuns(decoded);
      const where = `${c.name}, seed ${seed}`;
      if (encoded.dropped === 0) {
        // Nothing lost: every traced instruction, in order, gaps only between runs.
        const flat = got.flat();
        const at = firstDifference(flat, expected);
        expect(at, `${where}: first difference at instruction ${at}`).toBe(-1);
      } else {
        // Trace lost: each run is a contiguous piece of the expected sequence, in order.
        const r = traceRecovery(decoded, expected);
        expect(r.wrongRun, `${where}: ${recoveryLine(r)}`).toBeUndefined();
      }
      if (c.backpressure && config.options.stallEnable) expect(encoded.dropped, where).toBe(0);
    }
  });

  it('follows run-time option changes mid-stream: a support packet, then a sync under the new options (seeds 1..50)', () => {
    const config = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, [...RV64, ...ALL_MODES]));
    const off = { ...config.options, ImplicitReturn: false, BranchPrediction: false, JumpTargetCache: false, siJump: false };
    const full = { ...off, FullAddress: true, ResyncMax: 3 };
    for (let seed = 1; seed <= 50; seed++) {
      const { stream } = generateProgramAndStream(defaultKnobs(), seed, 1500);
      const changes = new Map([
        [300, off],
        [700, full],
        [1100, config.options],
      ]);
      const encoded = encodeStream(stream.records, config, { optionChanges: changes });
      const decoded = decodeStream(encoded.bytes, stream.image, { params: config.params, xlen: 64 });
      const got = decodedRuns(decoded).flat();
      const at = firstDifference(got, retiredAddresses(stream.records, stream.image));
      expect(at, `seed ${seed}: first difference at instruction ${at}`).toBe(-1);
      // Four support packets at least: the start, three changes (and the end).
      expect(encoded.packets.filter((p) => p.packet.format === 3n && p.packet.subformat === 3n).length).toBeGreaterThanOrEqual(5);
    }
  });

  it('Implicit Return extension: the run that fixed what irets counts (2-entry stack, seed 239, 3000 instructions)', () => {
    // Recursion three deep: the third return finds the stack empty after two implicit returns of
    // the same instruction, and the trace reports it (a trap follows). Counting the reported
    // return itself, as the extension's draft decoder does, stops at the second occurrence.
    const config = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, [...RV64, 'return_stack_size_p=1', 'ImplicitReturn=1']));
    const { stream, program } = generateProgramAndStream(defaultKnobs(), 239, 3000);
    const encoded = encodeStream(stream.records, config);
    const decoded = decodeStream(encoded.bytes, stream.image, { params: config.params, xlen: 64, trapHandler: (t) => trapHandler(program, Number(t.privilege)) });
    const at = firstDifference(decodedRuns(decoded).flat(), retiredAddresses(stream.records, stream.image));
    expect(at, `first difference at instruction ${at}`).toBe(-1);
  });

  it('loses trace under back-pressure without stall, and never with stall (seed 3)', () => {
    const base = [...RV64, 'fifo_depth_p=32'];
    const { stream } = generateProgramAndStream(defaultKnobs(), 3, 5000);
    const ready = (cycle: number) => !cycleChance(3, cycle, 0.7);
    const lossy = encodeStream(stream.records, etraceConfig(resolveSettings('t', ETRACE_SETTINGS, base)), { ready });
    const stalled = encodeStream(stream.records, etraceConfig(resolveSettings('t', ETRACE_SETTINGS, [...base, 'stallEnable=1'])), { ready });
    const free = encodeStream(stream.records, etraceConfig(resolveSettings('t', ETRACE_SETTINGS, base)));
    expect(lossy.dropped).toBeGreaterThan(0);
    expect(stalled.dropped).toBe(0);
    expect(stalled.stallCycles).toBeGreaterThan(0);
    expect([...stalled.bytes]).toEqual([...free.bytes]);
  });
});
