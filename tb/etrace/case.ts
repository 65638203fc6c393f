/**
 * One co-simulation case of the E-Trace encoder, as the cosim, regress and fuzz commands run it:
 * a component (shipped name or IP-XACT file) with `--set` overrides, a stimulus seed, a record
 * count and a back-pressure probability. The RTL is generated into the cache (one directory per
 * configuration, keyed by its content) and built once per configuration; every seed reuses it.
 */
import { readFileSync } from 'node:fs';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_SETTINGS } from '../../golden-model/etrace/settings.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { checkedConfig, loadEtraceComponent } from '../../cli/etrace-config.ts';
import { componentLabel, renderEtraceRtl } from '../../generator/etrace/rtl.ts';
import { type BuiltModel, installRtl } from '../build.ts';
import { buildEtraceModel, cosimEtrace, type CosimResult } from './cosim.ts';

export interface CaseSpec {
  /** Shipped component name or IP-XACT file. */
  readonly component: string;
  readonly sets: readonly string[];
  readonly seed: number;
  /** Retired instructions of the stimulus. */
  readonly count: number;
  readonly backpressure: number;
  /** Stimulus knobs beyond the defaults (the fuzzer's). */
  readonly knobs?: Partial<StimulusKnobs>;
}

const configs = new Map<string, EtraceConfig>();

/** The configuration of a case (component + sets), validated (once per process). */
export function caseConfig(component: string, sets: readonly string[]): EtraceConfig {
  const key = JSON.stringify([component, sets]);
  let c = configs.get(key);
  if (!c) {
    const loaded = loadEtraceComponent({ component });
    c = checkedConfig(resolveSettings('cosim', ETRACE_SETTINGS, sets, loaded.settings), component);
    configs.set(key, c);
  }
  return c;
}

/** The stimulus of a case: the random program executed for `count` instructions. */
export function caseRecords(c: EtraceConfig, spec: CaseSpec): RetirementRecord[] {
  const knobs: StimulusKnobs = {
    ...defaultKnobs(),
    xlen: c.params.iaddress_width_p > 32 ? 64 : 32,
    interrupt_rate: 0.003,
    halt_rate: 0.0005,
    reset_rate: 0.0002,
    ...spec.knobs,
  };
  const records = generateStimulus(knobs, spec.seed, spec.count).records;
  // A hart that retires several instructions a cycle presents them in blocks.
  const p = c.params;
  return p.retires_p > 1 || p.taken_branches_p > 1 ? regroupIntoBlocks(records, p) : records;
}

/** Models already built in this process, by component, sets and FST (a build is a stat on a cache hit). */
const modelsByCase = new Map<string, { model: BuiltModel; rtlDir: string }>();

/**
 * The generated RTL of a configuration (cached under <cache>/rtl/<hash>) and its Verilator model.
 * `fst` asks for the waveform build (a separate cache entry).
 */
export function caseModel(component: string, sets: readonly string[], c: EtraceConfig, log?: (line: string) => void, fst = false): { model: BuiltModel; rtlDir: string } {
  const memo = JSON.stringify([component, sets, fst]);
  const known = modelsByCase.get(memo);
  if (known) return known;
  const files = renderEtraceRtl(c, { component: componentLabel(component), description: readFileSync(loadEtraceComponent({ component }).file), sets });
  const { rtlDir, paths } = installRtl(files);
  const model = buildEtraceModel(c, paths, log, fst);
  modelsByCase.set(memo, { model, rtlDir });
  return { model, rtlDir };
}

export interface CaseResult {
  readonly spec: CaseSpec;
  readonly records: number;
  readonly bytes: number;
  readonly packets: number;
  readonly dropped: number;
  readonly cycles: number;
  readonly seconds: number;
  readonly identical: boolean;
  readonly mismatch?: string;
  /** The RTL cycle of the first differing byte (for a waveform window). */
  readonly mismatchCycle?: number;
  readonly result: CosimResult;
}

export async function runCase(spec: CaseSpec, log?: (line: string) => void): Promise<CaseResult> {
  const c = caseConfig(spec.component, spec.sets);
  const { model } = caseModel(spec.component, spec.sets, c, log);
  const records = caseRecords(c, spec);
  const started = performance.now();
  const result = await cosimEtrace(model, c, records, { seed: spec.seed, backpressure: spec.backpressure });
  const seconds = (performance.now() - started) / 1000;
  return {
    spec,
    records: records.length,
    bytes: result.expected.bytes.length,
    packets: result.expected.packetCount,
    dropped: result.expected.dropped,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    ...(result.mismatch ? { mismatch: result.mismatch.text, mismatchCycle: result.mismatch.cycle } : {}),
    result,
  };
}

/** `rvtrace cosim` with a case's component, settings, knobs, seed and count (any block). */
export function cosimCommandLine(spec: { component: string; sets: readonly string[]; knobs?: object; seed: number; count: number }): string {
  const sets = spec.sets.map((s) => ` --set ${s}`).join('');
  const knobs = Object.entries(spec.knobs ?? {})
    .map(([k, v]) => ` --knob ${k}=${String(v)}`)
    .join('');
  return `npx rvtrace cosim --component ${spec.component}${sets}${knobs} --seed ${spec.seed} --count ${spec.count}`;
}

/** The command that replays a case exactly. */
export function replayCommand(spec: CaseSpec): string {
  return `${cosimCommandLine(spec)} --backpressure ${spec.backpressure}`;
}
