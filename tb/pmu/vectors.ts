/**
 * The PMU case as vectors (rvtrace vectors): the frames of pmuFrameWriter for the case's steps and,
 * from the model (PmuUnit, one step a clock), every CSR response and every lcofi_o pulse in its
 * cycle (frame k is cycle k, as in tb/pmu/cosim.ts).
 */
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { ExpectedResponse, VectorCase } from '../../core/vectors.ts';
import type { PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { FrameWriter } from '../run.ts';
import { pmuCaseSteps } from './case.ts';
import { pmuFrameWriter, pmuHarnessSpec } from './cosim.ts';

export function pmuVectors(r: ResolvedComponent<PmuBlockConfig>, spec: CaseSpec): VectorCase {
  const { config: c, rtl } = r.config;
  const { steps, records } = pmuCaseSteps(r.config, spec);
  const harness = pmuHarnessSpec(c, rtl);
  const w = new FrameWriter(harness);
  const fill = pmuFrameWriter(c, rtl, w);
  const unit = new PmuUnit(c);
  const frames: Uint8Array[] = [];
  const responses: ExpectedResponse[] = [];
  const lcofi: ExpectedResponse[] = [];
  const bit = (b: boolean): bigint => (b ? 1n : 0n);
  steps.forEach((s, i) => {
    fill(s, i);
    frames.push(w.bytes.slice());
    const out = unit.step(s);
    if (s.csr) responses.push({ values: [out.csr!.rdata, bit(out.csr!.illegalInstruction), bit(out.csr!.virtualInstruction)], cycle: i });
    if (out.lcofi) lcofi.push({ values: [1n], cycle: i });
  });
  return {
    harness,
    frames,
    seed: spec.seed,
    readyChance: 0,
    readyOffset: 0,
    expected: harness.captures.map((cap) => ({ cycles: true, responses: cap.name === 'csr' ? responses : lcofi })),
    holds: 0,
    summary: `${records} records, ${responses.length} CSR responses, ${lcofi.length} LCOFI pulses`,
  };
}
