/**
 * One co-simulation case of the PMU counter block, as the cosim, regress and fuzz commands run it: a
 * resolved PMU component (with its `--set` overrides), a stimulus seed and a count of retired
 * instructions (the CSR program and the event pulses ride on them, see stimulus.ts). The RTL is
 * built once per configuration (tb/case.ts); every seed reuses it. Back-pressure does not apply.
 */
import type { CaseResult, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import type { PmuCycleInput } from '../../golden-model/pmu/access.ts';
import type { PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { type CaseModel, caseModel } from '../case.ts';
import { buildPmuModel, cosimPmu } from './cosim.ts';
import { pmuUnitHart } from '../../golden-model/pmu/sbi/hart.ts';
import { runScript, type ScriptStep } from '../../golden-model/pmu/sbi/script.ts';
import { randomSbiScript } from './sbi-stimulus.ts';
import { pmuRecords, pmuSteps } from './stimulus.ts';

/** The Verilator model of a configuration (`fst`: the waveform build). */
export function pmuCaseModel(r: ResolvedComponent<PmuBlockConfig>, log?: Log, fst = false): CaseModel {
  return caseModel(r, (paths, waves) => buildPmuModel(r.config.config, r.config.rtl, paths, log, waves), fst);
}

/** The SBI calls that open every case (sbi-stimulus.ts): the kernel's side of the firmware layer. */
export const CASE_SBI_STEPS = 48;

/**
 * The steps of a case: first the cycles of a random SBI call script run by the firmware model
 * (its boot, then the calls: the firmware's M-mode CSR accesses, retirement and S-mode reads
 * between them), so that the RTL answers the firmware as the model does; then the records of the
 * stimulus generator with the CSR program and event pulses. `sbi` is the script with its answers
 * (none without S-mode).
 */
export function pmuCaseSteps(c: PmuBlockConfig, spec: CaseSpec): { steps: PmuCycleInput[]; records: number; sbi: ScriptStep[] } {
  const records = pmuRecords(c.config, spec.seed, spec.count, spec.knobs);
  const program = pmuSteps(c.config, records, spec.seed);
  // Without S-mode there is no supervisor to call the SBI.
  if (!c.config.sMode) return { steps: program, records: records.length, sbi: [] };
  const hart = pmuUnitHart(c.config, { seed: spec.seed });
  const sbi = runScript(c.config, randomSbiScript(c.config, spec.seed, CASE_SBI_STEPS), hart).steps;
  return { steps: [...hart.cycles, ...program], records: records.length, sbi };
}

/** Runs `steps` (a case's, or the cycles of an SBI script) through model and RTL. */
export async function runPmuSteps(r: ResolvedComponent<PmuBlockConfig>, spec: CaseSpec, steps: readonly PmuCycleInput[], records: number, log?: Log, fst?: { file: string; from: number; to: number }): Promise<CaseResult> {
  const { model } = pmuCaseModel(r, log, fst !== undefined);
  const started = performance.now();
  const result = await cosimPmu(model, r.config.config, r.config.rtl, steps, fst ? { fst } : {});
  const seconds = (performance.now() - started) / 1000;
  return {
    spec,
    records,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    metrics: { responses: result.compared, lcofi: result.lcofi },
    summary: `${records} records, ${result.compared} CSR responses and ${result.lcofi} LCOFI pulses compared, ${result.cycles} cycles, ${seconds.toFixed(2)} s (${(result.cycles / seconds / 1e6).toFixed(2)} M cycles/s)`,
    ...(result.mismatch ? { mismatch: result.mismatch.text, mismatchCycle: result.mismatch.cycle } : {}),
  };
}

export async function runPmuCase(r: ResolvedComponent<PmuBlockConfig>, spec: CaseSpec, log?: Log, fst?: { file: string; from: number; to: number }): Promise<CaseResult> {
  const { steps, records } = pmuCaseSteps(r.config, spec);
  return runPmuSteps(r, spec, steps, records, log, fst);
}
