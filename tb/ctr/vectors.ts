/**
 * The CTR case as vectors (rvtrace vectors): the frames of ctrFrameWriter for the case's steps and,
 * from the model (CtrUnit, one step a clock), every CSR response and SCTRCLR outcome in its cycle
 * (frame k is cycle k, as in tb/ctr/cosim.ts).
 */
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { ExpectedResponse, VectorCase } from '../../core/vectors.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { CtrUnit } from '../../golden-model/ctr/unit.ts';
import { FrameWriter } from '../run.ts';
import { ctrCaseSteps } from './case.ts';
import { ctrFrameWriter, ctrHarnessSpec } from './cosim.ts';

export function ctrVectors(r: ResolvedComponent<CtrBlockConfig>, spec: CaseSpec): VectorCase {
  const { config: c, rtl } = r.config;
  const { steps, records } = ctrCaseSteps(r.config, spec);
  const harness = ctrHarnessSpec(c, rtl);
  const w = new FrameWriter(harness);
  const fill = ctrFrameWriter(c, rtl, w);
  const unit = new CtrUnit(c);
  const frames: Uint8Array[] = [];
  const accesses: ExpectedResponse[] = [];
  const clears: ExpectedResponse[] = [];
  const bit = (b: boolean): bigint => (b ? 1n : 0n);
  steps.forEach((s, i) => {
    fill(s, i);
    frames.push(w.bytes.slice());
    let out: ReturnType<CtrUnit['step']>;
    try {
      out = unit.step(s);
    } catch (e) {
      throw new RvError('bad-value', `step ${i}: ${(e as Error).message}`);
    }
    if (s.csr === undefined) return;
    const x = out.csr!;
    if (s.csr.sctrclr) clears.push({ values: [bit(x.illegalInstruction), bit(x.virtualInstruction)], cycle: i });
    else accesses.push({ values: [x.rdata, bit(x.illegalInstruction), bit(x.virtualInstruction)], cycle: i });
  });
  return {
    harness,
    frames,
    seed: spec.seed,
    readyChance: 0,
    readyOffset: 0,
    expected: harness.captures.map((cap) => ({ cycles: true, responses: cap.name === 'csr' ? accesses : clears })),
    holds: 0,
    summary: `${records} records, ${accesses.length} CSR responses${clears.length ? `, ${clears.length} SCTRCLR` : ''}`,
  };
}
