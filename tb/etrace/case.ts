/**
 * One co-simulation case of the E-Trace encoder, as the cosim, regress and fuzz commands run it: a
 * resolved component (with its `--set` overrides), a stimulus seed, a record count and a
 * back-pressure probability. The RTL is built once per hardware configuration (tb/case.ts); every
 * seed and every set of run-time options reuses it (they are programmed through the APB).
 */
import type { CaseResult, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { TrapEntry } from '../../golden-model/etrace/decoder.ts';
import { dataAccessPredicate, regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
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

/**
 * The same with what a decoder needs: the program image and its trap handlers (implicit exception).
 *
 * Data trace (table 4.9): the accesses of the stream's loads, stores, AMOs and CSR instructions,
 * unified or split as the component signals them; a hart whose interface has no CSR or atomic codes
 * (data_csr_p, data_atomics_p 0) reports none. With multiple retirement (retires_p or
 * taken_branches_p > 1) the records are regrouped into blocks first, with at most one instruction
 * that makes a reported access a cycle (the interface has one dretire), and the accesses are added
 * to the blocks: each access's `at` is the block record that holds its instruction, `dblock` that
 * record's group in its cycle, `iaddrLsbs` the instruction's pc >> 1. Split loads: one response a
 * cycle, on the cycle's last record (`oneResponsePerCycle`).
 */
export function caseStream(c: EtraceConfig, spec: CaseSpec): { records: RetirementRecord[]; image: ProgramImage; trapHandler: (trap: TrapEntry) => bigint; data?: DataTrace } {
  const { stream, program } = generateProgramAndStream(caseKnobs(c, spec), spec.seed, spec.count);
  const { image } = stream;
  const trapHandler = (trap: TrapEntry) => handlerOf(program, Number(trap.privilege));
  const p = c.params;
  const d = p.dataTrace;
  const reported = (dtype: number): boolean => d !== undefined && (d.data_csr_p === 1 || !isCsrAccess(dtype)) && (d.data_atomics_p === 1 || !isAtomic(dtype));
  // A hart that retires several instructions a cycle presents them in blocks; with data trace, one
  // data access a cycle.
  const multiple = p.retires_p > 1 || p.taken_branches_p > 1;
  const records = multiple ? regroupIntoBlocks(stream.records, p, d ? { oneDataAccess: dataAccessPredicate(image, stream.xlen, (info) => reported(info.dtype)) } : {}) : stream.records;
  // Split loads: as many load IDs as lrid_width_p gives.
  const split = d?.data_split_p ? { signalling: 'split' as const, lrids: 1 << d.lrid_width_p } : { signalling: 'unified' as const };
  const all = d ? addDataAccesses({ ...stream, records }, { ...defaultDataKnobs(), ...split }, spec.seed).data : undefined;
  const kept = all ? { ...all, accesses: all.accesses.filter((a) => reported(a.dtype)) } : undefined;
  const data = kept && d?.data_split_p ? oneResponsePerCycle(kept, records) : kept;
  return { records, image, trapHandler, ...(data ? { data } : {}) };
}

/**
 * Split loads: the data interface takes one load response a cycle (table 4.9 has one lresp, lid,
 * ldata), while the stimulus may answer two loads in the same record or cycle. The RTL sends a
 * cycle's response after all of the cycle's te_inst packets, the model after those of the
 * response's record: so a response may only sit on a cycle's last record (a record not followed by
 * a `sameCycle` one; with single retirement every record). Each response moves to the nearest such
 * record (its own cycle's first, then earlier and later cycles alternately) that no other response
 * took and where it is still valid: not before its load's record, and before the next load that
 * reuses its lrid; the responses with the narrowest such window choose first. A response with no
 * such record is an error naming it.
 */
export function oneResponsePerCycle(data: DataTrace, records: readonly RetirementRecord[]): DataTrace {
  const n = records.length;
  // The cycles' last records in order, and the cycle of each record.
  const lasts: number[] = [];
  const cycleOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    cycleOf[i] = lasts.length;
    if (i + 1 === n || !records[i + 1]!.sameCycle) lasts.push(i);
  }
  // The loads with a load part, per lrid, in order: the k-th response of an lrid answers its k-th.
  const loads = new Map<number, number[]>();
  for (const a of data.accesses) if (a.dtype === 0 || isAtomic(a.dtype)) loads.set(a.lrid, [...(loads.get(a.lrid) ?? []), a.at]);
  const answered = new Map<number, number>();
  const windows = data.responses.map((r) => {
    const k = answered.get(r.lid) ?? 0;
    answered.set(r.lid, k + 1);
    const of = loads.get(r.lid) ?? [];
    return { r, k, lo: of[k] ?? 0, hi: of[k + 1] !== undefined ? of[k + 1]! - 1 : n - 1 };
  });
  // The tightest windows choose first.
  const taken = new Set<number>();
  const moved = [...windows]
    .sort((a, b) => a.hi - a.lo - (b.hi - b.lo) || a.r.at - b.r.at)
    .map(({ r, k, lo, hi }) => {
      const c = cycleOf[r.at] ?? lasts.length - 1;
      const order = [c];
      for (let d = 1; (c - d >= 0 && lasts[c - d]! >= lo) || (c + d < lasts.length && lasts[c + d]! <= hi); d++) order.push(c - d, c + d);
      const cycle = order.find((x) => x >= 0 && x < lasts.length && lasts[x]! >= lo && lasts[x]! <= hi && !taken.has(lasts[x]!));
      if (cycle === undefined) throw new RvError('bad-value', `load response ${k} of lrid ${r.lid} (record ${r.at}): no cycle between its load and the next use of its lrid without another response`);
      const at = lasts[cycle]!;
      taken.add(at);
      return { ...r, at };
    });
  return { ...data, responses: moved.sort((a, b) => a.at - b.at) };
}

/** The stimulus knobs of a case: the defaults with more interrupts, halts and resets, then the case's own. */
export function caseKnobs(c: EtraceConfig, spec: CaseSpec): StimulusKnobs {
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
    metrics: { bytes: e.byteCount, packets: e.packetCount, lost: e.dropped },
    summary:
      `${count} records, ${e.packetCount} packets, ${e.byteCount} bytes` +
      `${e.dropped ? `, ${e.dropped} packets lost` : ''}, ${result.cycles} cycles, ${seconds.toFixed(2)} s (${(count / seconds / 1e6).toFixed(2)} M records/s)`,
    ...(result.mismatch ? { mismatch: result.mismatch.text, mismatchCycle: result.mismatch.cycle } : {}),
    result,
  };
}
