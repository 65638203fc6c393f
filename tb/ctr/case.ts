/**
 * One co-simulation case of the CTR unit, as the cosim, regress and fuzz commands run it: a CTR
 * component (shipped name or IP-XACT file) with `--set` overrides, a stimulus seed and a count of
 * retired instructions (the CSR program rides on them, see tb/ctr-stimulus.ts). The RTL is
 * generated into the cache (one directory per configuration, keyed by its content) and built
 * once per configuration; every seed reuses it. Back-pressure does not apply (the unit has no
 * output stream) and is only carried in the case's name.
 */
import { readFileSync } from 'node:fs';
import type { StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { renderCtrRtl } from '../../generator/ctr/rtl.ts';
import { type CtrSetup, ctrSetup } from '../../generator/rtl/ctr-config.ts';
import { componentLabel } from '../../generator/etrace/rtl.ts';
import { type BuiltModel, installRtl } from '../build.ts';
import { buildCtrModel, cosimCtr, type CtrCosimResult } from './cosim.ts';
import { cosimCommandLine } from '../etrace/case.ts';
import { ctrRecords, ctrSteps, type CtrStep } from './stimulus.ts';

export interface CtrCaseSpec {
  readonly component: string;
  readonly sets: readonly string[];
  readonly seed: number;
  /** Retired instructions of the stimulus. */
  readonly count: number;
  readonly backpressure: number;
  readonly knobs?: Partial<StimulusKnobs>;
}

/** The validated configuration of a case (once per process). */
export function ctrCaseSetup(component: string, sets: readonly string[]): CtrSetup {
  return ctrSetup('cosim', component, sets);
}

/** The steps of a case: records of the stimulus generator with the CSR program. */
export function ctrCaseSteps(s: CtrSetup, spec: CtrCaseSpec): { steps: CtrStep[]; records: number } {
  const records = ctrRecords(s.config, spec.seed, spec.count, spec.knobs);
  return { steps: ctrSteps(s.config, records, spec.seed), records: records.length };
}

const models = new Map<string, { model: BuiltModel; rtlDir: string; files: string[] }>();

/** The generated RTL of a configuration (cached under <cache>/rtl/<hash>) and its Verilator model. */
export function ctrCaseModel(component: string, sets: readonly string[], log?: (line: string) => void, fst = false): { model: BuiltModel; rtlDir: string; files: string[] } {
  const memo = JSON.stringify([component, sets, fst]);
  const known = models.get(memo);
  if (known) return known;
  const s = ctrCaseSetup(component, sets);
  const files = renderCtrRtl(s.config, s.rtl, s.settings, { component: componentLabel(component), description: readFileSync(s.loaded.file), sets });
  const { rtlDir, paths } = installRtl(files);
  const model = buildCtrModel(s.config, s.rtl, paths, log, fst);
  const entry = { model, rtlDir, files: paths };
  models.set(memo, entry);
  return entry;
}

export interface CtrCaseResult {
  readonly spec: CtrCaseSpec;
  readonly records: number;
  /** CSR responses compared. */
  readonly compared: number;
  readonly cycles: number;
  readonly seconds: number;
  readonly identical: boolean;
  readonly mismatch?: string;
  readonly mismatchCycle?: number;
  readonly result: CtrCosimResult;
}

export async function runCtrCase(spec: CtrCaseSpec, log?: (line: string) => void, fst?: { file: string; from: number; to: number }): Promise<CtrCaseResult> {
  const s = ctrCaseSetup(spec.component, spec.sets);
  const { model } = ctrCaseModel(spec.component, spec.sets, log, fst !== undefined);
  const { steps, records } = ctrCaseSteps(s, spec);
  const started = performance.now();
  const result = await cosimCtr(model, s.config, s.rtl, steps, fst ? { fst } : {});
  const seconds = (performance.now() - started) / 1000;
  return {
    spec,
    records,
    compared: result.compared,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    ...(result.mismatch ? { mismatch: result.mismatch.text, mismatchCycle: result.mismatch.cycle } : {}),
    result,
  };
}

/** The command that replays a case exactly. */
export function ctrReplayCommand(spec: CtrCaseSpec): string {
  return cosimCommandLine(spec);
}
