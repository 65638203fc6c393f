/**
 * One co-simulation case of the CTR unit, as the cosim, regress and fuzz commands run it: a resolved
 * CTR component (with its `--set` overrides), a stimulus seed and a count of retired instructions
 * (the CSR program rides on them, see stimulus.ts). The RTL is built once per configuration
 * (tb/case.ts); every seed reuses it. Back-pressure does not apply (the unit has no output stream).
 */
import type { CaseResult, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { type CaseModel, caseModel } from '../case.ts';
import { buildCtrModel, cosimCtr, type CtrCosimResult } from './cosim.ts';
import { ctrRecords, ctrSteps, type CtrStep } from './stimulus.ts';

/** The steps of a case: records of the stimulus generator with the CSR program. */
export function ctrCaseSteps(c: CtrBlockConfig, spec: CaseSpec): { steps: CtrStep[]; records: number } {
  const records = ctrRecords(c.config, spec.seed, spec.count, spec.knobs);
  return { steps: ctrSteps(c.config, records, spec.seed), records: records.length };
}

/** The Verilator model of a configuration (`fst`: the waveform build). */
export function ctrCaseModel(r: ResolvedComponent<CtrBlockConfig>, log?: Log, fst = false): CaseModel {
  return caseModel(r, (paths, waves) => buildCtrModel(r.config.config, r.config.rtl, paths, log, waves), fst);
}

export interface CtrCaseResult extends CaseResult {
  readonly result: CtrCosimResult;
}

export async function runCtrCase(r: ResolvedComponent<CtrBlockConfig>, spec: CaseSpec, log?: Log, fst?: { file: string; from: number; to: number }): Promise<CtrCaseResult> {
  const { model } = ctrCaseModel(r, log, fst !== undefined);
  const { steps, records } = ctrCaseSteps(r.config, spec);
  const started = performance.now();
  const result = await cosimCtr(model, r.config.config, r.config.rtl, steps, fst ? { fst } : {});
  const seconds = (performance.now() - started) / 1000;
  const u = result.updates;
  return {
    spec,
    records,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    metrics: { responses: result.compared },
    summary:
      `${records} records, ${result.compared} CSR responses compared, ${u.push} pushes, ${u.pop} pops, ${u.overwrite} overwrites, ${u.freeze} freezes, ` +
      `${result.cycles} cycles, ${seconds.toFixed(2)} s (${(result.cycles / seconds / 1e6).toFixed(2)} M cycles/s)`,
    ...(result.mismatch ? { mismatch: result.mismatch.text, mismatchCycle: result.mismatch.cycle } : {}),
    result,
  };
}
