/**
 * The N-Trace case as vectors (rvtrace vectors): the frames cosimNtrace (tb/ntrace/cosim.ts) sends
 * for the case's records (the APB prologue, the cycles with their run-time register accesses, the
 * end record, the drain and the APB epilogue), the MSEO bytes the model (NtraceStreamEncoder with
 * the same transport) expects, each in the cycle its FIFO lets it go (model cycle c is the
 * testbench's cycle c + NTRACE_READY_OFFSET), and the register model's response of every APB access
 * (under its mask). The RTL holds a frame for each further signal group of a cycle and for each of
 * the model's stall cycles.
 *
 * The order of the steps is cosimNtrace's: the model takes every frame's records before any frame
 * is written (the APB epilogue's expected values need the model's end-of-run status).
 */
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { VectorCase } from '../../core/vectors.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { NtraceStreamEncoder } from '../../golden-model/ntrace/output.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { FrameWriter } from '../run.ts';
import { NtraceApbSession } from './apb.ts';
import { ntraceCaseRecords } from './case.ts';
import { endOfTraceRecord, NTRACE_READY_OFFSET, ntraceCycles, ntraceFrameWriter, ntraceHarnessSpec } from './cosim.ts';

export function ntraceVectors(r: ResolvedComponent<NtraceConfig>, spec: CaseSpec): VectorCase {
  const c = r.config;
  const p = spec.backpressure;
  const seed = spec.seed;
  const records = ntraceCaseRecords(c, spec);
  const drain = Math.ceil((2 * c.fifoBytes) / Math.max(0.01, 1 - p)) + 64;
  const cycles = ntraceCycles(records);
  const apb = new NtraceApbSession(c, cycles.length, drain, true);
  const runFrames: RetirementRecord[][] = [...apb.prologueRecords().map((x) => [x]), ...cycles, [endOfTraceRecord(records[records.length - 1])]];
  const model = new NtraceStreamEncoder(c, { ready: (cycle) => !cycleChance(seed, cycle, p), departures: true });
  runFrames.forEach((rs, f) => {
    for (const x of apb.frame(f, rs)) model.push(x.sameCycle ? { ...x, sameCycle: false } : x);
  });
  const expected = model.finish();
  apb.endOfRun(expected.stallOrOverflow);
  const total = apb.frames(cycles.length, drain);
  for (let f = runFrames.length; f < total; f++) apb.frame(f, [emptyRecord()]);
  const groupHolds = records.length - cycles.length;

  const harness = ntraceHarnessSpec(c);
  const w = new FrameWriter(harness);
  const fill = ntraceFrameWriter(c, w);
  const bus = apb.driver(w);
  const frames: Uint8Array[] = [];
  let index = 0;
  runFrames.forEach((rs, f) => {
    fill(rs, index);
    bus(f);
    frames.push(w.bytes.slice());
    index += rs.length;
  });
  fill([emptyRecord()], index);
  for (let f = runFrames.length; f < total; f++) {
    bus(f);
    frames.push(w.bytes.slice());
  }
  const apbResponses = apb.expectedResponses().map((x) => ({ values: [BigInt(x.data), x.error ? 1n : 0n], mask: [BigInt(x.mask), 1n] }));
  return {
    harness,
    frames,
    seed,
    readyChance: p,
    readyOffset: NTRACE_READY_OFFSET,
    expected: [
      { cycles: true, responses: Array.from(expected.bytes, (b, k) => ({ values: [BigInt(b)], cycle: expected.departures![k]! + NTRACE_READY_OFFSET })) },
      { cycles: false, responses: apbResponses },
    ],
    holds: expected.stallCycles + groupHolds,
    summary:
      `${records.length} records, ${expected.messages.length} messages, ${expected.bytes.length} bytes` +
      `${expected.lost ? `, ${expected.lost} messages lost` : ''}${expected.stallCycles ? `, ${expected.stallCycles} stall cycles` : ''}, ${apbResponses.length} APB accesses`,
  };
}
