/**
 * Co-simulation of the generated E-Trace encoder against the golden model: the same retirement
 * records drive the model (golden-model/etrace/output.ts encodeStream) and the RTL (through the
 * generic Verilator harness of tb/), and the two byte streams must be identical.
 *
 * How the RTL is driven (the cycle alignment with the model's OutputFifo):
 * - Out of reset the encoder starts a trace session (the registers reset to the component's
 *   values) and sends the first support packet: the model's constructor. A build of a hardware
 *   configuration (etraceHardwareBuild: registers reset with the session off) is first programmed
 *   with the case's options through APB writes (tb/etrace/frames.ts, the programming prologue),
 *   and everything below happens that many cycles later.
 * - Record i is the frame of cycle i; the encoder registers it and decides in cycle i + 1, so
 *   model cycle c is RTL cycle c + 1 and the harness drives tx_ready_i of RTL cycle t with the
 *   model's ready(t - 1) (readyOffset 1; not ready before).
 * - The session ends like the model's finish(): an APB write clearing trTeControl.trTeEnable whose
 *   access phase is the cycle after the last record, so the encoder ends the trace in model cycle N
 *   (RTL N + 1). Idle frames follow until the FIFO has drained.
 * - With stallEnable the harness holds a frame while stall_o is 1 (the hart waits), and both sides
 *   count the stalled cycles.
 */
import { cycleChance } from '../../golden-model/common/rng.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { type EncodeResult, encodeStream, StreamEncoder } from '../../golden-model/etrace/output.ts';
import { dumpPacket, dumpStream } from '../../golden-model/etrace/packet/index.ts';
import { encodeTextStream } from '../../golden-model/hart/formats/text.ts';
import { ProgramImage } from '../../golden-model/hart/image.ts';
import { etracePorts, ETRACE_TOP_MODULE } from '../../golden-model/etrace/ports.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import type { DataTrace } from '../../golden-model/hart/data-records.ts';
import { EtraceFrameStream, programmedReadyOffset, PROLOGUE_RECORD } from './frames.ts';
import { optionWrites } from '../../golden-model/etrace/option-writes.ts';
import type { HarnessSpec } from '../harness-spec.ts';
import { type BuiltModel, buildModel } from '../build.ts';
import { StreamCompare } from '../stream-compare.ts';
import { FrameWriter, runModel } from '../run.ts';

export function etraceHarnessSpec(c: EtraceConfig): HarnessSpec {
  return {
    top: ETRACE_TOP_MODULE,
    ports: etracePorts(c).map((p) => ({ name: p.name, direction: p.direction, width: p.width })),
    clock: 'clk_i',
    reset: 'rst_ni',
    hold: 'stall_o',
    ready: ['tx_ready_i'],
    captures: [
      {
        name: 'tx',
        when: [
          { port: 'tx_valid_o', value: 1 },
          { port: 'tx_ready_i', value: 1 },
        ],
        data: ['tx_data_o'],
      },
      {
        name: 'apb_read',
        when: [
          { port: 'psel_i', value: 1 },
          { port: 'penable_i', value: 1 },
          { port: 'pwrite_i', value: 0 },
        ],
        data: ['prdata_o', 'pslverr_o'],
      },
    ],
  };
}

export function buildEtraceModel(c: EtraceConfig, rtlFiles: string[], log?: (line: string) => void, fst = false): BuiltModel {
  return buildModel({ spec: etraceHarnessSpec(c), rtlFiles, fst }, log);
}

/** Builds of hardware configurations: cosimEtrace programs the case's options into them. */
const hardwareBuilds = new WeakSet<BuiltModel>();

/**
 * Marks `model` as a build of a hardware configuration (tb/case.ts hardwareConfig: no session out
 * of reset, every option off), so that cosimEtrace starts each run by programming the case's
 * options through the register interface. Returns the model.
 */
export function etraceHardwareBuild(model: BuiltModel): BuiltModel {
  hardwareBuilds.add(model);
  return model;
}

export interface CosimOptions {
  /** Probability that the transport is not ready in a cycle (0: always ready). */
  backpressure?: number;
  /** Seed of the back-pressure pattern. */
  seed?: number;
  fst?: { file: string; from: number; to: number };
  /**
   * The stream's data accesses (components with data trace): driven on the data ports and encoded
   * by the model. Their `at` indexes count the records of the whole source.
   */
  data?: DataTrace;
  /**
   * Program the configuration's run-time options through the APB before the session (the build's
   * registers must reset with the session off). Default: when the model was marked by
   * etraceHardwareBuild.
   */
  program?: boolean;
}

export interface CosimResult {
  /**
   * The model's result. Its `bytes` are the whole stream when the records were an array, and empty
   * for a RecordSource, whose bytes are compared as they come and dropped (`byteCount` counts them).
   */
  readonly expected: EncodeResult;
  /** The RTL's bytes, kept when the records were an array. */
  readonly actual?: Uint8Array;
  readonly cycles: number;
  readonly holds: number;
  /** Undefined when identical. */
  readonly mismatch?: Mismatch;
}

/** The result of a co-simulation of records in an array: both byte streams kept. */
export type KeptCosimResult = CosimResult & { readonly actual: Uint8Array };

export interface Mismatch {
  /** Byte offset of the first difference (or where one stream ends). */
  readonly offset: number;
  /** RTL cycle in which that byte left (or the last byte did): the centre of a waveform window. */
  cycle: number;
  /** Index of the model's packet that contains the offset. */
  readonly packet: number;
  readonly text: string;
}

/**
 * Records too many to hold: `chunks()` yields them in order, in pieces, and starts again from the
 * first on every call (a generated stimulus is generated again; see generateStimulusChunks).
 */
export interface RecordSource {
  chunks(): Iterable<readonly RetirementRecord[]>;
}


/** Lets the response messages of the harness in between chunks (they are parsed on this thread). */
const drainResponses = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs one co-simulation of `records` and compares the RTL's bytes with the model's as they come
 * (tb/stream-compare.ts). The records may be a `RecordSource`: each chunk is written as frames and
 * pushed into the model, then dropped, and so are the compared bytes, so memory does not grow with
 * the stream. Records in an array keep both byte streams in the result. The model keeps no packet
 * objects; on a mismatch it encodes the stream again for the report.
 */
export async function cosimEtrace(verilated: BuiltModel, c: EtraceConfig, records: readonly RetirementRecord[], opts?: CosimOptions): Promise<KeptCosimResult>;
export async function cosimEtrace(verilated: BuiltModel, c: EtraceConfig, records: RecordSource, opts?: CosimOptions): Promise<CosimResult>;
export async function cosimEtrace(
  verilated: BuiltModel,
  c: EtraceConfig,
  records: readonly RetirementRecord[] | RecordSource,
  opts: CosimOptions = {},
): Promise<CosimResult> {
  const p = opts.backpressure ?? 0;
  const seed = opts.seed ?? 1;
  const source: RecordSource = isRecordSource(records) ? records : { chunks: () => [records] };
  const program = (opts.program ?? hardwareBuilds.has(verilated)) ? optionWrites(c) : [];
  // With a programming prologue the session's first cycle is the prologue's last frame, an idle
  // cycle: the model gets it as its first record, with the transport not ready in it (frames.ts).
  const lead: readonly RetirementRecord[] = program.length > 0 ? [PROLOGUE_RECORD] : [];
  const harnessReady = (cycle: number): boolean => !cycleChance(seed, cycle, p);
  const ready = lead.length === 0 ? harnessReady : (cycle: number): boolean => cycle >= lead.length && harnessReady(cycle - lead.length);
  // The model with the same transport (always a finite FIFO, ready as the harness drives it),
  // encoding each record as its frame goes to the RTL: the model runs on this thread while the
  // simulator runs in its own process. The data accesses' record indexes count the lead too.
  const data = opts.data ? { data: shiftData(opts.data, lead.length) } : {};
  // The session a prologue starts begins with its first record (the RTL writes its support packet
  // in the prologue's last frame's cycle), not in the cycle before it as out of reset.
  const model = new StreamEncoder(c, { ready, keepPackets: false, sessionInFirstCycle: lead.length > 0, ...data });
  for (const r of lead) model.push(r);
  const spec = etraceHarnessSpec(c);
  const compare = new StreamCompare(!isRecordSource(records));
  const run = await runModel(
    verilated,
    spec,
    async (emit) => {
      const w = new FrameWriter(spec);
      const frames = new EtraceFrameStream(c, p, w, (chunk, first, end) => {
        emit(w);
        for (let i = first; i < end; i++) model.push(chunk[i]!);
      }, opts.data, program);
      for (const chunk of source.chunks()) {
        frames.push(chunk);
        compare.expected(model.takeBytes());
        await drainResponses();
      }
      frames.finish();
    },
    {
      seed,
      readyChance: p,
      readyOffset: programmedReadyOffset(program),
      // Capture 0 is tx (one byte of tx_data_o); the APB read captures are not used here.
      onCapture: (index, cycle, data, offset) => {
        if (index === 0) compare.actual(data[offset]!, cycle);
      },
      ...(opts.fst ? { fst: opts.fst } : {}),
    },
  );
  const finished = model.finish();
  compare.expected(finished.bytes);
  const kept = compare.keptBytes();
  const expected = { ...finished, bytes: kept?.expected ?? new Uint8Array(0) };
  const difference = compare.result();
  if (difference === undefined) return { expected, ...(kept ? { actual: kept.actual } : {}), cycles: run.cycles, holds: run.holds };
  // The report needs the packets and the records around the difference: both come again (with
  // a programming prologue its record numbers count the lead record). Before the difference the
  // RTL's bytes are the model's.
  const all = [...lead, ...allRecords(source)];
  const again = encodeStream(all, c, { ready, ...data });
  const actual = kept?.actual ?? concatBytes(again.bytes.subarray(0, difference.offset), difference.actualFrom);
  const mismatch = compareStreams(c, again, actual, all, difference.actualLength);
  if (mismatch) mismatch.cycle = difference.cycle;
  return { expected: again, ...(kept ? { actual: kept.actual } : {}), cycles: run.cycles, holds: run.holds, ...(mismatch ? { mismatch } : {}) };
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The data accesses and load responses with their record indexes moved by `by` records (a lead before the stream). */
function shiftData(data: DataTrace, by: number): DataTrace {
  if (by === 0) return data;
  return { ...data, accesses: data.accesses.map((a) => ({ ...a, at: a.at + by })), responses: data.responses.map((r) => ({ ...r, at: r.at + by })) };
}

function isRecordSource(r: readonly RetirementRecord[] | RecordSource): r is RecordSource {
  return !Array.isArray(r);
}

/** Every record of a source in one array (a mismatch report only). */
function allRecords(source: RecordSource): RetirementRecord[] {
  const out: RetirementRecord[] = [];
  for (const chunk of source.chunks()) for (const r of chunk) out.push(r);
  return out;
}

/**
 * The first difference between the model's stream and the RTL's, explained packet by packet.
 * `actualLength` is the RTL's byte count when `actual` holds only its bytes up to a little after
 * the difference.
 */
export function compareStreams(c: EtraceConfig, expected: EncodeResult, actual: Uint8Array, records: readonly RetirementRecord[], actualLength = actual.length): (Mismatch & { cycle: number }) | undefined {
  const e = expected.bytes;
  const n = Math.min(e.length, actual.length);
  let offset = 0;
  while (offset < n && e[offset] === actual[offset]) offset++;
  if (offset === e.length && offset === actual.length) return undefined;
  const packets = expected.packets;
  let index = packets.findIndex((q, i) => q.offset <= offset && (i === packets.length - 1 || packets[i + 1]!.offset > offset));
  if (index < 0) index = packets.length - 1;
  const start = index >= 0 ? packets[index]!.offset : 0;
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
  const lines = [
    `first difference at byte ${offset} (model packet ${index} at byte ${start}, from record ${packets[index]?.record ?? '?'})`,
    `  model: ${e.length} bytes, RTL: ${actualLength} bytes`,
    `  model bytes from ${start}: ${hex(e.subarray(start, start + 40))}`,
    `  RTL   bytes from ${start}: ${hex(actual.subarray(start, start + 40))}`,
  ];
  for (const k of [index - 1, index, index + 1]) {
    const q = packets[k];
    if (q) lines.push(`  model packet ${k}: ${dumpPacket(q.packet, c.params, q.offset)}`);
  }
  // Data trace: the te_data packets around the offset (they are not in `packets`).
  for (const q of expected.dataPackets.filter((d) => d.offset >= start - 8 && d.offset <= offset + 8)) {
    lines.push(`  model te_data packet at byte ${q.offset} (record ${q.record}): ${q.packet.kind} ${Object.entries(q.packet.f).map(([k, v]) => `${k}=0x${v.toString(16)}`).join(' ')}`);
  }
  // The RTL's bytes from the same packet boundary, decoded the same way (the decoding may fail:
  // the RTL's bytes need not be a valid stream).
  try {
    // Two whole packets (header.length counts the payload bytes after the header byte).
    let end = start;
    for (let k = 0; k < 2 && end < actual.length; k++) end += 1 + (actual[end]! & 0x1f);
    const rtl = dumpStream(actual.subarray(start, Math.min(end, actual.length)), c.params, { implicit_exception: c.options.ImplicitExcept, full_address: c.options.FullAddress });
    rtl.slice(0, 2).forEach((l, k) => lines.push(`  RTL   packet ${index + k}: ${l.replace(/^\s*[0-9a-f]+/, (m) => (parseInt(m, 16) + start).toString(16).padStart(m.length, '0'))}`));
  } catch (e) {
    lines.push(`  RTL   bytes do not decode: ${(e as Error).message}`);
  }
  // The retirement records around the one that produced the packet (text format).
  const at = packets[index]?.record ?? 0;
  const from = Math.max(0, at - 4);
  const around = encodeTextStream({ xlen: c.params.iaddress_width_p > 32 ? 64 : 32, retiresPerCycle: c.params.retires_p, image: new ProgramImage(), records: records.slice(from, at + 2) })
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#') && !/^(xlen|retires|records) /.test(l));
  lines.push(`  records ${from}..${Math.min(records.length, at + 2) - 1} (the packet was produced when record ${at} arrived):`);
  for (const l of around) lines.push(`    ${l}`);
  return { offset, packet: index, cycle: 0, text: lines.join('\n') };
}
