/**
 * Runs a built harness (build.ts) on a stream of frames and collects its captures.
 *
 * `produce` may be synchronous and emit 10^7 frames in one loop: `emit` copies each frame into a
 * ring in a SharedArrayBuffer and, when the ring is full, blocks the calling thread (Atomics.wait)
 * until the I/O thread (run-worker.mjs) has moved frames on to the child's stdin, which itself waits
 * for the pipe to drain. Memory stays bounded by the ring (4 MiB) and one block in flight; the
 * captures come back as stdout chunks and are parsed incrementally (ResponseParser).
 */
import { statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { REPO_ROOT } from '../golden-model/common/paths.ts';
import { RvError } from '../golden-model/common/errors.ts';
import type { BuiltModel } from './build.ts';
import { coverageFileFor } from './code-coverage.ts';
import { captureDataBytes, captureRecordPorts, checkSpec, frameLayout, specHash, type FrameSlot, type HarnessSpec } from './harness-spec.ts';
import { CAPTURE_HEAD_BYTES, IN_HEADER_BYTES, OUT_HEADER_BYTES, STREAM_CHUNK_BYTES, STREAM_HEAD_BYTES, TRAILER_BYTES, WIRE_VERSION } from './harness.ts';

export interface RunOptions {
  /** Seed of the ready pattern (default 1). */
  seed?: number;
  /** Probability that the ready ports are 0 in a cycle; 0 (default) = always ready. */
  readyChance?: number;
  /** Ready ports are 0 in cycles before this one (default 0). */
  readyOffset?: number;
  /** Cycles with reset asserted before the first frame (default 2). */
  resetCycles?: number;
  /** Dump cycles from..to (inclusive; cycle 0 is the first frame's, reset cycles are negative) to an FST file. The model must be built with fst: true. */
  fst?: { file: string; from: number; to: number };
  /** Stop after this many cycles (0 or absent: run until the frames end); the remaining frames are read and dropped. */
  maxCycles?: number;
  /**
   * Takes each capture as it is parsed instead of keeping it in RunResult.captures (which then
   * stays empty): no object per capture in long runs. `data[offset..]` holds the capture's values,
   * little-endian, in the order of its data ports, each in ceil(width / 8) bytes; valid during
   * the call only.
   */
  onCapture?: CaptureSink;
}

export type CaptureSink = (index: number, cycle: number, data: Uint8Array, offset: number) => void;

export interface Capture {
  index: number;
  cycle: number;
  values: bigint[];
}

/** What a stream capture (HarnessSpec captures[i].stream) brought back. */
export interface CaptureStream {
  /** The valid bytes of every beat, in order. */
  readonly bytes: Uint8Array;
  /** Per cycle from cycle 0: the number of bytes the cycle's beat appended (0: no beat). */
  readonly counts: Uint8Array;
}

export interface RunResult {
  /** Per capture index, in cycle order (of a stream capture: only the beats that broke its rule). */
  captures: Capture[][];
  /** Per capture index: the streams of a stream capture, undefined for the others. */
  streams: (CaptureStream | undefined)[];
  /** Cycles after reset. */
  cycles: number;
  /** Frames the DUT took. */
  frames: number;
  /** Cycles in which the DUT held its frame (cycles = frames + holds). */
  holds: number;
}

// ---------------------------------------------------------------------------------------------
// Frames

interface Slot extends FrameSlot {
  readonly maxNumber: number;
  readonly maxBig: bigint;
}

/**
 * One frame of inputs. `set` changes a port for the next `emit`; ports not set keep the value of
 * the previous frame (0 at first). `bytes` is the frame as it goes on the wire.
 */
export class FrameWriter {
  readonly bytes: Uint8Array;
  readonly specHash: string;
  private readonly slots: Map<string, Slot>;
  private readonly top: string;

  constructor(spec: HarnessSpec) {
    checkSpec(spec);
    const layout = frameLayout(spec);
    this.bytes = new Uint8Array(layout.frameBytes);
    this.specHash = specHash(spec);
    this.top = spec.top;
    this.slots = new Map(
      layout.slots.map((s) => {
        const maxBig = (1n << BigInt(s.width)) - 1n;
        return [s.name, { ...s, maxBig, maxNumber: s.width >= 53 ? Number.MAX_SAFE_INTEGER : Number(maxBig) }];
      }),
    );
  }

  set(port: string, value: number | bigint): void {
    const s = this.slots.get(port);
    if (s === undefined) {
      throw new RvError('bad-value', `FrameWriter: '${port}' is not a frame input of ${this.top} (frame inputs: ${[...this.slots.keys()].join(', ')})`);
    }
    const b = this.bytes;
    const o = s.offset;
    if (typeof value === 'number') {
      if (!(Number.isInteger(value) && value >= 0 && value <= s.maxNumber)) throw this.range(s, value);
      if (s.bytes <= 4) {
        let v = value;
        for (let i = 0; i < s.bytes; i++) {
          b[o + i] = v & 0xff;
          v >>>= 8;
        }
        return;
      }
      const lo = value % 4294967296;
      this.put64(s, lo, (value - lo) / 4294967296);
      return;
    }
    if (typeof value !== 'bigint') throw this.range(s, value);
    if (value < 0n || value > s.maxBig) throw this.range(s, value);
    if (s.bytes <= 8) {
      this.put64(s, Number(value & 0xffffffffn), Number(value >> 32n));
      return;
    }
    let v = value;
    for (let i = 0; i < s.bytes; i += 4) {
      let w = Number(v & 0xffffffffn);
      v >>= 32n;
      for (let k = i; k < i + 4 && k < s.bytes; k++) {
        b[o + k] = w & 0xff;
        w >>>= 8;
      }
    }
  }

  /**
   * A setter bound to one port: the same checks and bytes as `set`, without the lookup, and with a
   * fast path for the common shapes (up to 4 bytes from a number, 8 bytes from a bigint).
   */
  setter(port: string): (value: number | bigint) => void {
    const s = this.slots.get(port);
    if (s === undefined) return (value) => this.set(port, value); // reports the unknown port
    const b = this.bytes;
    const o = s.offset;
    const n = s.bytes;
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return (value) => {
      if (typeof value === 'number' && n <= 4 && value >= 0 && value <= s.maxNumber && Number.isInteger(value)) {
        let v = value;
        for (let i = 0; i < n; i++) {
          b[o + i] = v & 0xff;
          v >>>= 8;
        }
      } else if (typeof value === 'bigint' && n === 8 && value >= 0n && value <= s.maxBig) {
        view.setBigUint64(o, value, true);
      } else if (typeof value === 'bigint' && n <= 4 && value >= 0n && value <= s.maxBig) {
        let v = Number(value);
        for (let i = 0; i < n; i++) {
          b[o + i] = v & 0xff;
          v >>>= 8;
        }
      } else {
        this.set(port, value);
      }
    };
  }

  /** Writes lo (32 bits) and hi (< 2^32) into a slot of 5 or more bytes, zeros above. */
  private put64(s: Slot, lo: number, hi: number): void {
    const b = this.bytes;
    const o = s.offset;
    for (let i = 0; i < 4; i++) {
      b[o + i] = lo & 0xff;
      lo >>>= 8;
    }
    for (let i = 4; i < s.bytes; i++) {
      b[o + i] = hi & 0xff;
      hi >>>= 8;
    }
  }

  private range(s: Slot, value: unknown): RvError {
    return new RvError('bad-value', `FrameWriter: ${String(value)} is not a ${s.width}-bit unsigned value for '${s.name}'`);
  }
}

// ---------------------------------------------------------------------------------------------
// Responses

/** Shared bigints 0..65535 (bigints are immutable): one- and two-byte values allocate nothing. */
let smallBigints: bigint[] | undefined;
function small(): bigint[] {
  smallBigints ??= Array.from({ length: 65536 }, (_, i) => BigInt(i));
  return smallBigints;
}

/** Reads `n` little-endian bytes as an unsigned value. */
function readLE(b: Buffer, o: number, n: number): bigint {
  if (n === 1) return small()[b[o]!]!;
  if (n === 2) return small()[b[o]! | (b[o + 1]! << 8)]!;
  if (n <= 6) return BigInt(b.readUIntLE(o, n));
  if (n <= 12) {
    const lo = b.readUIntLE(o, 6);
    const hi = b.readUIntLE(o + 6, n - 6);
    return hi === 0 ? BigInt(lo) : (BigInt(hi) << 48n) | BigInt(lo);
  }
  let v = 0n;
  for (let i = n; i > 0; ) {
    const k = Math.min(6, i);
    i -= k;
    v = (v << BigInt(8 * k)) | BigInt(b.readUIntLE(o + i, k));
  }
  return v;
}

/** A byte array that grows by doubling (the streams of a stream capture). */
class GrowBytes {
  private buf = new Uint8Array(1 << 16);
  private n = 0;
  append(src: Uint8Array, from: number, to: number): void {
    const len = to - from;
    if (this.n + len > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.n + len, 2 * this.buf.length));
      bigger.set(this.buf.subarray(0, this.n));
      this.buf = bigger;
    }
    this.buf.set(src.subarray(from, to), this.n);
    this.n += len;
  }
  view(): Uint8Array {
    return this.buf.subarray(0, this.n);
  }
}

export interface Trailer {
  cycles: number;
  frames: number;
  holds: number;
  /** bit 0: stopped at maxCycles; bit 1: the DUT called $finish. */
  flags: number;
}

/** Incremental parser of the response stream (tb/README.md); feed it chunks cut anywhere. */
export class ResponseParser {
  readonly captures: Capture[][];
  trailer: Trailer | undefined;
  private headerSeen = false;
  private rest: Buffer | undefined;
  /** Stream offset of the first byte of `rest` (or of the next chunk). */
  private offset = 0;
  private readonly dataBytes: number[][];
  private readonly recordBytes: number[];
  private readonly hash: bigint;
  /** Per capture index: [counts, bytes] of a stream capture. */
  private readonly streamParts: ([GrowBytes, GrowBytes] | undefined)[];

  constructor(
    spec: HarnessSpec,
    /** Where captures go instead of `captures` (see RunOptions.onCapture). */
    private readonly sink?: CaptureSink,
  ) {
    const width = new Map(spec.ports.map((p) => [p.name, p.width]));
    this.dataBytes = spec.captures.map((c) => captureRecordPorts(c).map((d) => Math.ceil(width.get(d)! / 8)));
    this.streamParts = spec.captures.map((c) => (c.stream !== undefined ? [new GrowBytes(), new GrowBytes()] : undefined));
    this.recordBytes = captureDataBytes(spec).map((n) => CAPTURE_HEAD_BYTES + n);
    this.captures = spec.captures.map(() => []);
    this.hash = BigInt(`0x${specHash(spec)}`);
  }

  private fail(message: string, at: number): never {
    throw new RvError('bad-file', `harness response stream: ${message}`, { offset: this.offset + at });
  }

  feed(chunk: Uint8Array): void {
    const incoming = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const b = this.rest === undefined ? incoming : Buffer.concat([this.rest, incoming]);
    let pos = 0;
    for (;;) {
      const left = b.length - pos;
      if (left === 0) break;
      if (!this.headerSeen) {
        if (left < OUT_HEADER_BYTES) break;
        if (b.toString('latin1', pos, pos + 4) !== 'RVTO') this.fail('does not start with RVTO', pos);
        if (b.readUInt32LE(pos + 4) !== WIRE_VERSION) this.fail(`version ${b.readUInt32LE(pos + 4)}, expected ${WIRE_VERSION}`, pos + 4);
        if (b.readBigUInt64LE(pos + 8) !== this.hash) this.fail('the harness was built for another spec', pos + 8);
        this.headerSeen = true;
        pos += OUT_HEADER_BYTES;
        continue;
      }
      if (this.trailer !== undefined) this.fail('bytes after the trailer', pos);
      const tag = b[pos]!;
      if (tag === 0x43) {
        if (left < 3) break;
        const index = b.readUInt16LE(pos + 1);
        const size = this.recordBytes[index];
        if (size === undefined) this.fail(`capture index ${index} out of range`, pos + 1);
        if (left < size) break;
        const cycle = b.readUInt32LE(pos + 3) + b.readInt32LE(pos + 7) * 4294967296;
        if (this.sink !== undefined) {
          this.sink(index, cycle, b, pos + CAPTURE_HEAD_BYTES);
          pos += size;
          continue;
        }
        const values: bigint[] = [];
        let o = pos + CAPTURE_HEAD_BYTES;
        for (const n of this.dataBytes[index]!) {
          values.push(readLE(b, o, n));
          o += n;
        }
        this.captures[index]!.push({ index, cycle, values });
        pos += size;
      } else if (tag === 0x53) {
        // A chunk of a stream capture: u16 index, u8 part (0 counts, 1 bytes), u32 length, bytes.
        if (left < STREAM_HEAD_BYTES) break;
        const index = b.readUInt16LE(pos + 1);
        const parts = this.streamParts[index];
        if (parts === undefined) this.fail(`stream record for capture ${index}, which is not a stream capture`, pos + 1);
        const part = b[pos + 3]!;
        if (part > 1) this.fail(`stream record part ${part}, expected 0 or 1`, pos + 3);
        const len = b.readUInt32LE(pos + 4);
        if (len > STREAM_CHUNK_BYTES) this.fail(`stream record of ${len} bytes, at most ${STREAM_CHUNK_BYTES}`, pos + 4);
        if (left < STREAM_HEAD_BYTES + len) break;
        parts[part]!.append(b, pos + STREAM_HEAD_BYTES, pos + STREAM_HEAD_BYTES + len);
        pos += STREAM_HEAD_BYTES + len;
      } else if (tag === 0x54) {
        if (left < TRAILER_BYTES) break;
        const u64 = (o: number): number => Number(b.readBigUInt64LE(pos + o));
        this.trailer = { cycles: u64(1), frames: u64(9), holds: u64(17), flags: b.readUInt32LE(pos + 25) };
        pos += TRAILER_BYTES;
      } else {
        this.fail(`unknown record tag 0x${tag.toString(16)}`, pos);
      }
    }
    this.offset += pos; // the stream offset of b[0] from now on is that of the old b[pos]
    this.rest = pos < b.length ? Buffer.from(b.subarray(pos)) : undefined;
  }

  /** The streams of each stream capture so far (views: valid until the next feed). */
  streams(): (CaptureStream | undefined)[] {
    return this.streamParts.map((p) => (p === undefined ? undefined : { counts: p[0].view(), bytes: p[1].view() }));
  }

  /** Checks that the stream ended after a complete trailer. */
  finish(): Trailer {
    if (this.rest !== undefined) this.fail(`${this.rest.length} bytes of an incomplete record at the end`, 0);
    if (this.trailer === undefined) this.fail('no trailer (the harness stopped early)', 0);
    return this.trailer;
  }
}

// ---------------------------------------------------------------------------------------------
// Stimulus header

export const CTRL_W = 0;
export const CTRL_R = 1;
export const CTRL_CLOSED = 2;
export const CTRL_ABORT = 3;
export const CTRL_WBELL = 4;
export const CTRL_RBELL = 5;
const CTRL_BYTES = 64;
const RING_BYTES = 4 << 20;
const CHUNK_BYTES = 1 << 20;

function intOption(name: string, v: number | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < min || v > max) throw new RvError('bad-option', `runModel: ${name} must be an integer in ${min}..${max}, not ${v}`);
  return v;
}

/** The stimulus stream header for a spec and options (tb/README.md). */
export function encodeHeader(spec: HarnessSpec, opts: RunOptions): Buffer {
  const seed = intOption('seed', opts.seed, 1, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const readyChance = opts.readyChance ?? 0;
  if (!Number.isFinite(readyChance)) throw new RvError('bad-option', `runModel: readyChance must be a finite number, not ${readyChance}`);
  const readyOffset = intOption('readyOffset', opts.readyOffset, 0, -(2 ** 52), 2 ** 52);
  const resetCycles = intOption('resetCycles', opts.resetCycles, 2, 0, 0xffff_ffff);
  const maxCycles = intOption('maxCycles', opts.maxCycles, 0, 0, 2 ** 52);
  let from = 0;
  let to = -1;
  let path = Buffer.alloc(0);
  if (opts.fst !== undefined) {
    from = intOption('fst.from', opts.fst.from, 0, -resetCycles, 2 ** 52);
    to = intOption('fst.to', opts.fst.to, 0, from, 2 ** 52);
    path = Buffer.from(resolvePath(opts.fst.file), 'utf8');
    if (path.length > 4096) throw new RvError('bad-option', 'runModel: the FST path is longer than 4096 bytes');
  }
  const h = Buffer.alloc(IN_HEADER_BYTES + path.length);
  h.write('RVTI', 0, 'latin1');
  h.writeUInt32LE(WIRE_VERSION, 4);
  h.writeBigUInt64LE(BigInt(`0x${specHash(spec)}`), 8);
  h.writeUInt32LE(frameLayout(spec).frameBytes, 16);
  h.writeUInt32LE(seed >>> 0, 20);
  h.writeDoubleLE(readyChance, 24);
  h.writeBigInt64LE(BigInt(readyOffset), 32);
  h.writeUInt32LE(resetCycles, 40);
  h.writeUInt32LE(opts.fst !== undefined ? 1 : 0, 44);
  h.writeBigInt64LE(BigInt(maxCycles), 48);
  h.writeBigInt64LE(BigInt(from), 56);
  h.writeBigInt64LE(BigInt(to), 64);
  h.writeUInt32LE(path.length, 72);
  path.copy(h, IN_HEADER_BYTES);
  return h;
}

// ---------------------------------------------------------------------------------------------
// Running

// Plain JavaScript, never compiled: from dist/ it is found beside the sources.
const WORKER_URL = pathToFileURL(join(REPO_ROOT, 'tb', 'run-worker.mjs'));

/** Thrown by emit when the harness stopped reading; runModel replaces it with the harness's error. */
class HarnessStopped extends Error {}

interface ExitMessage {
  type: 'exit';
  code: number | null;
  signal: string | null;
  stderr: string;
  spawnError?: string;
  pumpError?: string;
}

/** The harness binary, its stdio pipes driven from a worker thread; see the file comment. */
export async function runModel(
  model: BuiltModel,
  spec: HarnessSpec,
  produce: (emit: (w: FrameWriter) => void) => void | Promise<void>,
  opts: RunOptions = {},
): Promise<RunResult> {
  checkSpec(spec);
  const header = encodeHeader(spec, opts);
  try {
    statSync(model.binary);
  } catch (e) {
    throw new RvError('tool-failure', `the harness binary is missing: ${(e as Error).message}`, { file: model.binary });
  }
  const hash = specHash(spec);
  const fb = frameLayout(spec).frameBytes;
  const capacity = fb === 0 ? 1 << 16 : Math.max(64, Math.floor(RING_BYTES / fb));
  const chunkFrames = fb === 0 ? 1 << 16 : Math.max(1, Math.min(capacity >> 2, Math.floor(CHUNK_BYTES / fb)));
  const publishEvery = Math.max(1, chunkFrames >> 2);
  const sab = new SharedArrayBuffer(CTRL_BYTES + capacity * fb);
  const ctrl = new Int32Array(sab, 0, CTRL_BYTES / 4);
  const ring = new Uint8Array(sab, CTRL_BYTES, capacity * fb);
  const parser = new ResponseParser(spec, opts.onCapture);

  const worker = new Worker(WORKER_URL, {
    workerData: { binary: model.binary, args: model.coverage ? ['--coverage-file', coverageFileFor(model.key)] : [], header, sab, ctrlBytes: CTRL_BYTES, frameBytes: fb, capacity, chunkFrames },
    execArgv: [],
  });
  let parseError: unknown;
  const exited = new Promise<ExitMessage>((resolve, reject) => {
    worker.on('message', (m: { type: 'out'; data: Uint8Array } | ExitMessage) => {
      if (m.type === 'out') {
        if (parseError !== undefined) return;
        try {
          parser.feed(m.data);
        } catch (e) {
          parseError = e;
        }
      } else {
        resolve(m);
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new RvError('tool-failure', `the co-simulation I/O thread ended (status ${code}) before the harness`)));
  });
  exited.catch(() => {}); // observed below

  // ---- the frame ring (see run-worker.mjs)
  let slot = 0;
  let written = 0;
  let published = 0;
  let space = capacity;
  let emitted = 0;
  let closed = false;
  let flushQueued = false;
  const publish = (): void => {
    published = written;
    Atomics.store(ctrl, CTRL_W, written | 0);
    Atomics.add(ctrl, CTRL_WBELL, 1);
    Atomics.notify(ctrl, CTRL_WBELL);
  };
  const queuedPublish = (): void => {
    flushQueued = false;
    if (!closed && published !== written) publish();
  };
  const waitForSpace = (): void => {
    publish();
    for (;;) {
      const bell = Atomics.load(ctrl, CTRL_RBELL);
      if (Atomics.load(ctrl, CTRL_ABORT) !== 0) throw new HarnessStopped('the harness stopped reading frames');
      space = capacity - ((written - Atomics.load(ctrl, CTRL_R)) >>> 0);
      if (space > 0) return;
      Atomics.wait(ctrl, CTRL_RBELL, bell, 1000);
    }
  };
  const emit = (w: FrameWriter): void => {
    if (closed) throw new RvError('bad-option', 'runModel: emit called after produce finished');
    if (w.specHash !== hash) throw new RvError('bad-option', `runModel: the FrameWriter was made for another spec than ${spec.top}'s`);
    if (space === 0) waitForSpace();
    if (fb > 0) {
      const src = w.bytes;
      const base = slot * fb;
      if (fb <= 32) {
        for (let i = 0; i < fb; i++) ring[base + i] = src[i]!;
      } else {
        ring.set(src, base);
      }
    }
    if (++slot === capacity) slot = 0;
    written = (written + 1) >>> 0;
    space--;
    emitted++;
    if (((written - published) >>> 0) >= publishEvery) {
      publish();
    } else if (!flushQueued) {
      flushQueued = true;
      setImmediate(queuedPublish);
    }
  };

  let produceError: unknown;
  try {
    await produce(emit);
  } catch (e) {
    produceError = e;
  }
  closed = true;
  publish();
  Atomics.store(ctrl, CTRL_CLOSED, 1);
  Atomics.add(ctrl, CTRL_WBELL, 1);
  Atomics.notify(ctrl, CTRL_WBELL);
  if (produceError !== undefined && !(produceError instanceof HarnessStopped)) {
    worker.postMessage({ type: 'kill' });
    await exited.catch(() => undefined);
    await worker.terminate();
    throw produceError;
  }
  let exit: ExitMessage;
  try {
    exit = await exited;
  } finally {
    await worker.terminate();
  }

  const stderr = exit.stderr.trimEnd();
  if (exit.spawnError !== undefined) throw new RvError('tool-failure', `cannot start the harness ${model.binary}: ${exit.spawnError}`);
  const status = exit.signal !== null ? `signal ${exit.signal}` : `exit status ${exit.code}`;
  if (exit.code !== 0 || /%Error/.test(stderr)) {
    throw new RvError('tool-failure', `co-simulation of ${spec.top} failed (${status}):\n${stderr === '' ? '(no output on stderr)' : stderr}`, { file: model.binary });
  }
  if (exit.pumpError !== undefined) throw new RvError('tool-failure', `co-simulation of ${spec.top}: writing frames failed: ${exit.pumpError}`);
  if (produceError !== undefined) throw new RvError('tool-failure', `co-simulation of ${spec.top}: the harness stopped reading frames but exited with status 0:\n${stderr}`);
  if (parseError !== undefined) throw parseError;
  const trailer = parser.finish();
  if ((trailer.flags & 3) === 0 && trailer.frames !== emitted) {
    throw new RvError('tool-failure', `co-simulation of ${spec.top}: ${emitted} frames were sent but the harness reports ${trailer.frames}`);
  }
  return { captures: parser.captures, streams: parser.streams(), cycles: trailer.cycles, frames: trailer.frames, holds: trailer.holds };
}
