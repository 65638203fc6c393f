/**
 * The block registry: what the generic commands (generate, cosim, regress, fuzz) need to know of
 * each block, keyed by the block name a component declares in <rvtrace:block>. Adding a block is
 * one entry here plus its own folders (docs/architecture: "a block is a small contract").
 *
 * Every entry works on the same case description (component, --set overrides, seed, count of
 * retired instructions, back-pressure, stimulus knobs) and returns the same result shape, so a
 * regression may mix blocks. The E-Trace entry wraps tb/etrace-case.ts unchanged; the CTR entry
 * tb/ctr-case.ts.
 */
import { RvError } from '../golden-model/common/errors.ts';
import type { Rng } from '../golden-model/common/rng.ts';
import { resolveSettings, type SettingSpec, type Settings } from '../golden-model/common/settings.ts';
import { CTR_SETTINGS } from '../golden-model/ctr/settings.ts';
import { ETRACE_SETTINGS } from '../golden-model/etrace/settings.ts';
import type { StimulusKnobs } from '../golden-model/hart/stimulus/knobs.ts';
import { checkedConfig, loadEtraceComponent } from '../cli/etrace-config.ts';
import { ctrOutputFiles, ctrOutputNames } from '../generator/ctr/rtl.ts';
import { ctrSetup } from '../generator/rtl/ctr-config.ts';
import { etraceOutputFiles, etraceOutputNames } from '../generator/etrace/rtl.ts';
import type { OutputFile } from '../generator/render.ts';
import { componentBlock, shippedBlocks } from '../ipxact/load.ts';
import { ctrCaseModel, ctrCaseSetup, ctrReplayCommand, runCtrCase } from './ctr/case.ts';
import { caseConfig, caseModel, caseRecords, replayCommand, runCase, type CaseSpec } from './etrace/case.ts';
import { cosimEtrace } from './etrace/cosim.ts';

export type { CaseSpec };

/** The outcome of one case, the same for every block. */
export interface BlockCaseResult {
  readonly spec: CaseSpec;
  readonly records: number;
  /** E-Trace: trace bytes compared; CTR: 0. */
  readonly bytes: number;
  /** E-Trace: packets; CTR: CSR responses compared. */
  readonly packets: number;
  /** E-Trace: packets lost to back-pressure; CTR: 0. */
  readonly dropped: number;
  readonly cycles: number;
  readonly seconds: number;
  readonly identical: boolean;
  readonly mismatch?: string;
  readonly mismatchCycle?: number;
  /** What `rvtrace cosim` prints after `<component> seed <s>: ` (without the verdict). */
  readonly summary: string;
}

/** The files `rvtrace generate` writes and the IP-XACT file among them (validated before the rename). */
export interface Generated {
  readonly files: OutputFile[];
  readonly xml: string;
}

export interface Block {
  readonly name: string;
  /** Settings a component of this block (or --set) may give. */
  readonly settings: readonly SettingSpec[];
  /** The case's back-pressure changes the run (E-Trace's output stream); without it a matrix runs one value. */
  readonly backpressure: boolean;
  /** The resolved, validated settings of a component with --set overrides (throws RvError with every problem). */
  resolve(command: string, component: string, sets: readonly string[], schemaDir?: string): Settings;
  /** The output of `rvtrace generate`. */
  generate(component: string, sets: readonly string[], schemaDir?: string): Generated;
  /** Validates the configuration and builds (or finds) its Verilator model. */
  prepare(component: string, sets: readonly string[], log?: (line: string) => void): void;
  runCase(spec: CaseSpec, log?: (line: string) => void): Promise<BlockCaseResult>;
  /** The same case again on the waveform build, dumping cycles from..to into `file`. */
  waveform(spec: CaseSpec, file: string, from: number, to: number, log?: (line: string) => void): Promise<void>;
  replayCommand(spec: CaseSpec): string;
  /** Random run-time settings for a fuzzing configuration of `component` (each is a build). */
  randomSets(rng: Rng, component: string): string[];
  /** Random stimulus knobs for one fuzzing case. */
  randomKnobs(rng: Rng): Partial<StimulusKnobs>;
}

const rate = (rng: Rng, max: number): number => Number((rng.float() * max).toFixed(5));

const etrace: Block = {
  name: 'etrace',
  settings: ETRACE_SETTINGS,
  backpressure: true,
  resolve(command, component, sets, schemaDir) {
    const loaded = loadEtraceComponent({ component, ...(schemaDir !== undefined ? { schemaDir } : {}) });
    const settings = resolveSettings(command, ETRACE_SETTINGS, sets, loaded.settings);
    checkedConfig(settings, component);
    return settings;
  },
  generate(component, sets, schemaDir) {
    const o = { component, ...(schemaDir !== undefined ? { schemaDir } : {}) };
    const loaded = loadEtraceComponent(o);
    const settings = resolveSettings('generate', ETRACE_SETTINGS, sets, loaded.settings);
    const config = checkedConfig(settings, component);
    const g = { config, settings, loaded, component, sets };
    return { files: etraceOutputFiles(g), xml: etraceOutputNames(g).xml };
  },
  prepare(component, sets, log) {
    caseModel(component, sets, caseConfig(component, sets), log);
  },
  async runCase(spec, log) {
    const r = await runCase(spec, log);
    const rate = r.records / r.seconds;
    return {
      spec,
      records: r.records,
      bytes: r.bytes,
      packets: r.packets,
      dropped: r.dropped,
      cycles: r.cycles,
      seconds: r.seconds,
      identical: r.identical,
      ...(r.mismatch !== undefined ? { mismatch: r.mismatch } : {}),
      ...(r.mismatchCycle !== undefined ? { mismatchCycle: r.mismatchCycle } : {}),
      summary:
        `${r.records} records, ${r.packets} packets, ${r.bytes} bytes` +
        `${r.dropped ? `, ${r.dropped} packets lost` : ''}, ${r.cycles} cycles, ${r.seconds.toFixed(2)} s (${(rate / 1e6).toFixed(2)} M records/s)`,
    };
  },
  async waveform(spec, file, from, to, log) {
    const c = caseConfig(spec.component, spec.sets);
    const { model } = caseModel(spec.component, spec.sets, c, log, true);
    await cosimEtrace(model, c, caseRecords(c, spec), { seed: spec.seed, backpressure: spec.backpressure, fst: { file, from, to } });
  },
  replayCommand,
  randomSets(rng, component) {
    const below = (n: number): number => rng.int(0, n - 1);
    const pick = <T>(xs: readonly T[]): T => xs[below(xs.length)]!;
    const sets: string[] = [];
    sets.push(`ResyncMode=${below(4)}`, `ResyncMax=${below(3)}`);
    if (below(4) === 0) sets.push('FullAddress=1');
    if (below(4) === 0) sets.push('ImplicitExcept=1');
    if (below(4) === 0) sets.push('iTrigEnable=1');
    if (below(5) === 0) sets.push('stallEnable=1');
    if (below(3) === 0) sets.push(`fifo_depth_p=${pick([32, 48, 128])}`);
    if (below(6) === 0) sets.push(`encap_srcid_width=${pick([3, 8, 12])}`);
    const p = caseConfig(component, []).params;
    if (p.bpred_size_p > 0 && below(2) === 0) sets.push('BranchPrediction=0');
    if (p.cache_size_p > 0 && below(2) === 0) sets.push('JumpTargetCache=0');
    if (p.return_stack_size_p + p.call_counter_size_p > 0 && below(2) === 0) sets.push('ImplicitReturn=0');
    if (p.sijump_p > 0 && below(2) === 0) sets.push('siJump=0');
    // Multiple retirement: blocks of up to 2-4 instructions (iretire counts up to 2 * retires_p
    // half-words), and up to 3 blocks a cycle.
    if (below(3) === 0) {
      const retires = 2 + below(3);
      sets.push(`retires_p=${retires}`, `iretire_width_p=${retires === 4 ? 4 : 3}`);
      if (below(2) === 0) sets.push(`taken_branches_p=${2 + below(2)}`);
    }
    return sets;
  },
  randomKnobs(rng) {
    return {
      interrupt_rate: rate(rng, 0.01),
      fault_rate: rate(rng, 0.01),
      halt_rate: rate(rng, 0.002),
      reset_rate: rate(rng, 0.001),
      idle_rate: rate(rng, 0.1),
      trace_on_rate: rate(rng, 0.005),
      trace_off_rate: rate(rng, 0.005),
      // Half the cases run loop-heavy code (long loops, few data-dependent ifs): only there do the
      // branch predictor's counts (F0 SF0) and its forwarding between steps show in the trace.
      ...(rng.float() < 0.5 ? { loop_continue: Number((0.9 + rng.float() * 0.09).toFixed(5)), w_if: rng.int(0, 5) } : {}),
    };
  },
};

const ctr: Block = {
  name: 'ctr',
  settings: CTR_SETTINGS,
  backpressure: false,
  resolve(command, component, sets, schemaDir) {
    return ctrSetup(command, component, sets, schemaDir).settings;
  },
  generate(component, sets, schemaDir) {
    const s = ctrSetup('generate', component, sets, schemaDir);
    const g = { ...s, component, sets };
    return { files: ctrOutputFiles(g), xml: ctrOutputNames(g).xml };
  },
  prepare(component, sets, log) {
    ctrCaseSetup(component, sets);
    ctrCaseModel(component, sets, log);
  },
  async runCase(spec, log) {
    const r = await runCtrCase(spec, log);
    const rate = r.cycles / r.seconds;
    const u = r.result.updates;
    return {
      spec,
      records: r.records,
      bytes: 0,
      packets: r.compared,
      dropped: 0,
      cycles: r.cycles,
      seconds: r.seconds,
      identical: r.identical,
      ...(r.mismatch !== undefined ? { mismatch: r.mismatch } : {}),
      ...(r.mismatchCycle !== undefined ? { mismatchCycle: r.mismatchCycle } : {}),
      summary:
        `${r.records} records, ${r.compared} CSR responses compared, ${u.push} pushes, ${u.pop} pops, ${u.overwrite} overwrites, ${u.freeze} freezes, ` +
        `${r.cycles} cycles, ${r.seconds.toFixed(2)} s (${(rate / 1e6).toFixed(2)} M cycles/s)`,
    };
  },
  async waveform(spec, file, from, to, log) {
    await runCtrCase(spec, log, { file, from, to });
  },
  replayCommand: ctrReplayCommand,
  randomSets() {
    // Every CTR setting is a parameter of the hardware: the configurations are the components.
    return [];
  },
  randomKnobs(rng) {
    return { interrupt_rate: rate(rng, 0.02), fault_rate: rate(rng, 0.01), halt_rate: rate(rng, 0.002), reset_rate: rate(rng, 0.001), idle_rate: rate(rng, 0.1) };
  },
};

export const BLOCKS: Readonly<Record<string, Block>> = { etrace, ctr };

const blockNames = new Map<string, string>();

/**
 * The block of a component (its <rvtrace:block>). A component that cannot be read, or declares
 * no block, goes to `fallback` (E-Trace: its loader then reports the problem as before).
 */
export function blockOf(component: string, fallback = 'etrace'): Block {
  let name = blockNames.get(component);
  if (name === undefined) {
    name = componentBlock(component) ?? fallback;
    blockNames.set(component, name);
  }
  const block = BLOCKS[name];
  if (block === undefined) {
    throw new RvError('bad-option', `--component ${component}: block "${name}" has no RTL or co-simulation here (blocks: ${Object.keys(BLOCKS).join(', ')})`);
  }
  return block;
}

/** The settings of every block, each name once (for --help and the first check of --set). */
export function allBlockSettings(): SettingSpec[] {
  const seen = new Set<string>();
  const out: SettingSpec[] = [];
  for (const name of shippedBlocks()) {
    for (const s of BLOCKS[name]?.settings ?? []) {
      if (seen.has(s.name)) continue;
      seen.add(s.name);
      out.push(s);
    }
  }
  return out;
}
