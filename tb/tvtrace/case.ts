/**
 * One co-simulation case of the tandem-verification trace encoder, as the cosim, regress and fuzz
 * commands run it: a resolved component (with its `--set` overrides), a stimulus seed, a record
 * count, a back-pressure probability and stimulus knobs (stimulus.ts tvMixFromKnobs). The RTL is
 * built once per configuration (tb/case.ts); every seed reuses it.
 */
import type { CaseResult, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { type CaseModel, caseModel } from '../case.ts';
import { buildTvtraceModel, cosimTvtrace } from './cosim.ts';
import { generateTvRecords, tvMixFromKnobs } from './stimulus.ts';

/** The records of a case. */
export function tvtraceCaseRecords(c: TvtraceRtlConfig, spec: CaseSpec): TvRecord[] {
  return generateTvRecords(c, spec.seed, spec.count, tvMixFromKnobs(spec.knobs));
}

/** The Verilator model of a configuration (`fst`: the waveform build). */
export function tvtraceCaseModel(r: ResolvedComponent<TvtraceRtlConfig>, log?: Log, fst = false): CaseModel {
  return caseModel(r, (paths, waves) => buildTvtraceModel(r.config, paths, log, waves), fst);
}

export async function runTvtraceCase(r: ResolvedComponent<TvtraceRtlConfig>, spec: CaseSpec, log?: Log, fst?: { file: string; from: number; to: number }): Promise<CaseResult> {
  const { model } = tvtraceCaseModel(r, log, fst !== undefined);
  const records = tvtraceCaseRecords(r.config, spec);
  const started = performance.now();
  const result = await cosimTvtrace(model, r.config, records, { seed: spec.seed, backpressure: spec.backpressure, idle: tvMixFromKnobs(spec.knobs).idle, ...(fst ? { fst } : {}) });
  const seconds = (performance.now() - started) / 1000;
  const bytes = result.expected.bytes.length;
  return {
    spec,
    records: records.length,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    metrics: { bytes, beats: result.beats, stalls: result.holds },
    summary:
      `${records.length} records, ${bytes} bytes in ${result.beats} beats${result.holds ? `, ${result.holds} stall cycles` : ''}` +
      `, ${result.cycles} cycles, ${seconds.toFixed(2)} s (${Math.round(records.length / seconds)} records/s)`,
    ...(result.mismatch ? { mismatch: result.mismatch, mismatchCycle: result.mismatchCycle ?? 0 } : {}),
  };
}
