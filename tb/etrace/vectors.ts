/**
 * The E-Trace case as vectors (rvtrace vectors): the frames of tb/etrace/frames.ts for the case's
 * records, the byte stream the model (StreamEncoder with the same transport) expects on the tx
 * capture, each byte in the cycle its output FIFO lets it go (model cycle c is the testbench's
 * cycle c + READY_OFFSET, frames.ts), and no APB read (the frames make none). The model counts
 * stalled cycles, which are the frames the RTL holds with stallEnable.
 */
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { VectorCase } from '../../core/vectors.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { StreamEncoder } from '../../golden-model/etrace/output.ts';
import { FrameWriter } from '../run.ts';
import { caseSource } from './case.ts';
import { etraceHarnessSpec } from './cosim.ts';
import { EtraceFrameStream, READY_OFFSET } from './frames.ts';

export function etraceVectors(r: ResolvedComponent<EtraceConfig>, spec: CaseSpec): VectorCase {
  const c = r.config;
  const p = spec.backpressure;
  const seed = spec.seed;
  const { source, data } = caseSource(c, spec);
  const harness = etraceHarnessSpec(c);
  const model = new StreamEncoder(c, { ready: (cycle) => !cycleChance(seed, cycle, p), keepPackets: false, departures: true, ...(data ? { data } : {}) });
  const w = new FrameWriter(harness);
  const frames: Uint8Array[] = [];
  let records = 0;
  const stream = new EtraceFrameStream(
    c,
    p,
    w,
    (chunk, first, end) => {
      frames.push(w.bytes.slice());
      for (let i = first; i < end; i++) model.push(chunk[i]!);
      records += end - first;
    },
    data,
  );
  for (const chunk of source.chunks()) stream.push(chunk);
  stream.finish();
  const e = model.finish();
  return {
    harness,
    frames,
    seed,
    readyChance: p,
    readyOffset: READY_OFFSET,
    expected: [
      { cycles: true, responses: Array.from(e.bytes, (b, k) => ({ values: [BigInt(b)], cycle: e.departures![k]! + READY_OFFSET })) },
      { cycles: true, responses: [] },
    ],
    holds: e.stallCycles,
    summary: `${records} records, ${e.packetCount} packets, ${e.bytes.length} bytes${e.dropped ? `, ${e.dropped} packets lost` : ''}${e.stallCycles ? `, ${e.stallCycles} stall cycles` : ''}`,
  };
}
