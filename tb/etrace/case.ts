/**
 * One co-simulation case of the E-Trace encoder, as the cosim, regress and fuzz commands run it: a
 * resolved component (with its `--set` overrides), a stimulus seed, a record count and a
 * back-pressure probability. The RTL is built once per hardware configuration (tb/case.ts); every
 * seed and every set of run-time options reuses it (they are programmed through the APB).
 */
import type { CaseResult, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { TrapEntry } from '../../golden-model/etrace/decoder.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import type { ProgramImage } from '../../golden-model/hart/image.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { trapHandler as handlerOf } from '../../golden-model/hart/stimulus/execute.ts';
import { generateProgramAndStream, generateStimulusChunks } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { addDataAccesses, defaultDataKnobs } from '../../golden-model/hart/stimulus/data.ts';
import { type DataTrace, isAtomic, isCsrAccess } from '../../golden-model/hart/data-records.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { type CaseModel, caseModel } from '../case.ts';
import { buildEtraceModel, cosimEtrace, type CosimResult, etraceHardwareBuild, type RecordSource } from './cosim.ts';

/** The stimulus of a case: the random program executed for `count` instructions. */
export function caseRecords(c: EtraceConfig, spec: CaseSpec): RetirementRecord[] {
  return caseStream(c, spec).records;
}

/** The same with what a decoder needs: the program image and its trap handlers (implicit exception). */
export function caseStream(c: EtraceConfig, spec: CaseSpec): { records: RetirementRecord[]; image: ProgramImage; trapHandler: (trap: TrapEntry) => bigint; data?: DataTrace } {
  const { stream, program } = generateProgramAndStream(caseKnobs(c, spec), spec.seed, spec.count);
  const { records, image } = stream;
  const trapHandler = (trap: TrapEntry) => handlerOf(program, Number(trap.privilege));
  const p = c.params;
  // Data trace: the accesses of the stream's loads, stores, AMOs and CSR instructions, unified or
  // split as the component signals them. A hart whose interface has no CSR or atomic codes
  // (data_csr_p, data_atomics_p 0) reports none.
  const d = p.dataTrace;
  // Split loads: as many load IDs as lrid_width_p gives.
  const split = d?.data_split_p ? { signalling: 'split' as const, lrids: 1 << d.lrid_width_p } : { signalling: 'unified' as const };
  const all = d ? addDataAccesses(stream, { ...defaultDataKnobs(), ...split }, spec.seed).data : undefined;
  const kept = all && d ? { ...all, accesses: all.accesses.filter((a) => (d.data_csr_p || !isCsrAccess(a.dtype)) && (d.data_atomics_p || !isAtomic(a.dtype))) } : undefined;
  const data = kept && d?.data_split_p ? oneResponsePerCycle(kept, records.length) : kept;
  // A hart that retires several instructions a cycle presents them in blocks.
  return { records: p.retires_p > 1 || p.taken_branches_p > 1 ? regroupIntoBlocks(records, p) : records, image, trapHandler, ...(data ? { data } : {}) };
}

/**
 * Split loads: the data interface takes one load response a cycle (table 4.9 has one lresp, lid,
 * ldata), while the stimulus may answer two loads in the same record. Each response that shares
 * its record moves to the nearest free record where it is still valid: not before its load's
 * record, and before the next load that reuses its lrid; the responses with the narrowest such
 * window choose first, the nearest record (earlier first) to where the stimulus put them. A
 * response with no such record is an error naming it.
 */
export function oneResponsePerCycle(data: DataTrace, records: number): DataTrace {
  // The loads with a load part, per lrid, in order: the k-th response of an lrid answers its k-th.
  const loads = new Map<number, number[]>();
  for (const a of data.accesses) if (a.dtype === 0 || isAtomic(a.dtype)) loads.set(a.lrid, [...(loads.get(a.lrid) ?? []), a.at]);
  const answered = new Map<number, number>();
  const windows = data.responses.map((r) => {
    const k = answered.get(r.lid) ?? 0;
    answered.set(r.lid, k + 1);
    const of = loads.get(r.lid) ?? [];
    return { r, k, lo: of[k] ?? 0, hi: of[k + 1] !== undefined ? of[k + 1]! - 1 : records - 1 };
  });
  // The tightest windows choose first.
  const taken = new Set<number>();
  const moved = [...windows]
    .sort((a, b) => a.hi - a.lo - (b.hi - b.lo) || a.r.at - b.r.at)
    .map(({ r, k, lo, hi }) => {
      const order = [r.at];
      for (let d = 1; r.at - d >= lo || r.at + d <= hi; d++) order.push(r.at - d, r.at + d);
      const at = order.find((x) => x >= lo && x <= hi && !taken.has(x));
      if (at === undefined) throw new RvError('bad-value', `load response ${k} of lrid ${r.lid} (record ${r.at}): no cycle between its load and the next use of its lrid without another response`);
      taken.add(at);
      return { ...r, at };
    });
  return { ...data, responses: moved.sort((a, b) => a.at - b.at) };
}

/** The stimulus knobs of a case: the defaults with more interrupts, halts and resets, then the case's own. */
function caseKnobs(c: EtraceConfig, spec: CaseSpec): StimulusKnobs {
  return {
    ...defaultKnobs(),
    xlen: c.params.iaddress_width_p > 32 ? 64 : 32,
    interrupt_rate: 0.003,
    halt_rate: 0.0005,
    reset_rate: 0.0002,
    ...spec.knobs,
  };
}

/**
 * The records of `caseStream` as a source for cosimEtrace, with the data accesses: with single
 * retirement and no data trace they are generated chunk by chunk while the co-simulation runs
 * (memory independent of the count); regrouping into blocks and adding data accesses work on the
 * whole stream, so multiple retirement and data trace hold it.
 */
export function caseSource(c: EtraceConfig, spec: CaseSpec): { source: RecordSource; data?: DataTrace } {
  const p = c.params;
  if (p.retires_p > 1 || p.taken_branches_p > 1 || p.dataTrace) {
    const { records, data } = caseStream(c, spec);
    return { source: { chunks: () => [records] }, ...(data ? { data } : {}) };
  }
  const stimulus = generateStimulusChunks(caseKnobs(c, spec), spec.seed, spec.count);
  return { source: { chunks: () => stimulus.chunks() } };
}

/**
 * The Verilator model of the hardware configuration of `r` (tb/case.ts; `fst`: the waveform build),
 * marked so that cosimEtrace programs each case's run-time options through the APB.
 */
export function etraceCaseModel(r: ResolvedComponent<EtraceConfig>, log?: Log, fst = false): CaseModel {
  return caseModel(r, (paths, waves) => etraceHardwareBuild(buildEtraceModel(r.config, paths, log, waves)), fst);
}

export interface EtraceCaseResult extends CaseResult {
  readonly result: CosimResult;
}

export async function runEtraceCase(r: ResolvedComponent<EtraceConfig>, spec: CaseSpec, log?: Log): Promise<EtraceCaseResult> {
  const { model } = etraceCaseModel(r, log);
  const { source, data } = caseSource(r.config, spec);
  // Counts the records as they pass (each pass of the source has them all).
  let count = 0;
  const counted: RecordSource = {
    *chunks() {
      count = 0;
      for (const chunk of source.chunks()) {
        count += chunk.length;
        yield chunk;
      }
    },
  };
  // The time includes generating the stimulus: it is made while the co-simulation runs.
  const started = performance.now();
  const result = await cosimEtrace(model, r.config, counted, { seed: spec.seed, backpressure: spec.backpressure, ...(data ? { data } : {}) });
  const seconds = (performance.now() - started) / 1000;
  const e = result.expected;
  return {
    spec,
    records: count,
    cycles: result.cycles,
    seconds,
    identical: result.mismatch === undefined,
    metrics: { bytes: e.bytes.length, packets: e.packetCount, lost: e.dropped },
    summary:
      `${count} records, ${e.packetCount} packets, ${e.bytes.length} bytes` +
      `${e.dropped ? `, ${e.dropped} packets lost` : ''}, ${result.cycles} cycles, ${seconds.toFixed(2)} s (${(count / seconds / 1e6).toFixed(2)} M records/s)`,
    ...(result.mismatch ? { mismatch: result.mismatch.text, mismatchCycle: result.mismatch.cycle } : {}),
    result,
  };
}
