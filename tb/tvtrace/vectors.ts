/**
 * The tandem-verification trace case as vectors (rvtrace vectors): the frames cosimTvtrace
 * (tb/tvtrace/cosim.ts) sends for the case's records (records with idle cycles between them, then
 * idle frames until the FIFO has drained and a few more), and every beat the model expects in its
 * cycle: the bytes of the model's stream (TvEncoder) cut into beats by the FIFO's cycle model
 * (timing.ts), which also gives the cycles a record is held. The top is the co-simulation wrapper
 * (tvtraceCosimWrapper: stall_o for the hold), written beside the RTL.
 */
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { ExpectedResponse, VectorCase } from '../../core/vectors.ts';
import { cycleChance, Rng } from '../../golden-model/common/rng.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { captureRecordPorts, type HarnessSpec } from '../harness-spec.ts';
import { FrameWriter } from '../run.ts';
import { tvtraceCaseRecords } from './case.ts';
import { tvExpected, tvtraceCosimWrapper, tvtraceFrameFiller, tvtraceHarnessSpec } from './cosim.ts';
import { tvMixFromKnobs } from './stimulus.ts';
import { tvFifoTiming } from './timing.ts';

/** Idle frames after the drain, as cosimTvtrace sends: an RTL that sends too much is seen. */
const EXTRA_FRAMES = 16;

export function tvtraceVectors(r: ResolvedComponent<TvtraceRtlConfig>, spec: CaseSpec): VectorCase {
  const c = r.config;
  const p = spec.backpressure;
  const seed = spec.seed;
  const records = tvtraceCaseRecords(c, spec);
  const idle = tvMixFromKnobs(spec.knobs).idle;
  const expected = tvExpected(c, records);
  const rng = new Rng(seed ^ 0x1d1e);
  const sizes: (number | null)[] = [];
  const order: (TvRecord | undefined)[] = [];
  records.forEach((x, i) => {
    while (rng.chance(idle)) {
      sizes.push(null);
      order.push(undefined);
    }
    sizes.push(expected.offsets[i + 1]! - expected.offsets[i]!);
    order.push(x);
  });
  const timing = tvFifoTiming(sizes, c, (t) => !cycleChance(seed, t, p), true);
  // The co-simulation takes the beats back as a byte stream; a testbench compares each beat's ports.
  const cosimSpec = tvtraceHarnessSpec(c);
  const harness: HarnessSpec = { ...cosimSpec, captures: cosimSpec.captures.map((x) => ({ name: x.name, when: x.when, data: captureRecordPorts(x) })) };
  const w = new FrameWriter(harness);
  const fill = tvtraceFrameFiller(c, w, new Rng(seed ^ 0x9a7b));
  const frames: Uint8Array[] = [];
  for (const x of order) {
    fill(x);
    frames.push(w.bytes.slice());
  }
  for (let i = 0; i < timing.drain + EXTRA_FRAMES; i++) {
    fill(undefined);
    frames.push(w.bytes.slice());
  }
  // Each beat: its bytes, the first in bits 7:0 (zero above), and their count on a word-wide port.
  const word = c.outBytes > 1;
  let at = 0;
  const beats: ExpectedResponse[] = [];
  timing.counts!.forEach((bytes, cycle) => {
    if (bytes === 0) return;
    let data = 0n;
    for (let k = bytes - 1; k >= 0; k--) data = (data << 8n) | BigInt(expected.bytes[at + k]!);
    at += bytes;
    beats.push({ values: word ? [data, BigInt(bytes)] : [data], cycle });
  });
  const wrapper = tvtraceCosimWrapper(c);
  return {
    harness,
    frames,
    seed,
    readyChance: p,
    readyOffset: 0,
    expected: [{ cycles: true, responses: beats }],
    holds: timing.stalls,
    extraRtl: [{ name: wrapper.name, content: wrapper.content }],
    summary: `${records.length} records, ${expected.bytes.length} bytes in ${beats.length} beats${timing.stalls ? `, ${timing.stalls} stall cycles` : ''}`,
  };
}
