/**
 * One co-simulation case of the N-Trace encoder, as the cosim, regress and fuzz commands run it: a
 * resolved component (with its `--set` overrides), a stimulus seed, a record count and a
 * back-pressure probability. The RTL is built once per configuration (tb/case.ts); every seed reuses it.
 */
import type { CaseResult, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { type CaseModel, caseModel } from '../case.ts';
import { buildNtraceModel, cosimNtrace } from './cosim.ts';

/**
 * The stimulus of a case: the random program executed for `count` instructions, in blocks of up to
 * retires_p instructions, taken_branches_p a cycle, when the component retires several a cycle.
 */
export function ntraceCaseRecords(c: NtraceConfig, spec: CaseSpec): RetirementRecord[] {
  const knobs: StimulusKnobs = { ...defaultKnobs(), xlen: c.xlen, interrupt_rate: 0.003, halt_rate: 0.0005, reset_rate: 0.0002, ...spec.knobs };
  const records = generateStimulus(knobs, spec.seed, spec.count).records;
  return c.retires > 1 || c.takenBranches > 1 ? regroupIntoBlocks(records, { retires_p: c.retires, taken_branches_p: c.takenBranches }) : records;
}

/** The Verilator model of a configuration (`fst`: the waveform build). */
export function ntraceCaseModel(r: ResolvedComponent<NtraceConfig>, log?: Log, fst = false): CaseModel {
  return caseModel(r, (paths, waves) => buildNtraceModel(r.config, paths, log, waves), fst);
}

export async function runNtraceCase(r: ResolvedComponent<NtraceConfig>, spec: CaseSpec, log?: Log, fst?: { file: string; from: number; to: number }): Promise<CaseResult> {
  const { model } = ntraceCaseModel(r, log, fst !== undefined);
  const records = ntraceCaseRecords(r.config, spec);
  const started = performance.now();
  const result = await cosimNtrace(model, r.config, records, { seed: spec.seed, backpressure: spec.backpressure, ...(fst ? { fst } : {}) });
  const seconds = (performance.now() - started) / 1000;
  const e = result.expected;
  return {
    spec,
    records: records.length,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    metrics: { bytes: e.bytes.length, messages: e.messages.length, lost: e.lost, stalls: e.stallCycles },
    summary:
      `${records.length} records, ${e.messages.length} messages, ${e.bytes.length} bytes` +
      `${e.lost ? `, ${e.lost} messages lost (${e.overruns} Error messages)` : ''}${e.stallCycles ? `, ${e.stallCycles} stall cycles` : ''}` +
      `, ${result.cycles} cycles, ${seconds.toFixed(2)} s (${(records.length / seconds / 1e6).toFixed(2)} M records/s)`,
    ...(result.mismatch ? { mismatch: result.mismatch, mismatchCycle: result.mismatchCycle ?? 0 } : {}),
  };
}
