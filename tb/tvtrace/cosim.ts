/**
 * Co-simulation of the generated tandem-verification trace encoder against the golden model: the
 * same records drive the model (golden-model/tvtrace/encoder.ts, one record at a time, so each
 * record's bytes and offset are known) and the RTL (through the generic Verilator harness of tb/),
 * and the two byte streams must be identical. The beats (cycle and byte count) and the cycles the
 * hart was held must also be those of the FIFO's cycle model (timing.ts).
 *
 * How the RTL is driven:
 * - A thin wrapper (`tvtrace_cosim_top`, generated here, not part of the IP) adds
 *   stall_o = rec_valid_i & ~rec_ready_o, the harness's hold: a record not taken is offered again.
 * - Record i is one frame with rec_valid_i = 1; idle frames (rec_valid_i = 0, random record ports)
 *   come between records at the mix's idle rate, and after the last record until the FIFO has
 *   drained, plus a few more (an RTL that sends too much is seen).
 * - Ports a record's kind does not use, valid bits included, get random values (the RTL must ignore
 *   them), as do the bits above a 16-bit instruction and above the store data's size.
 * - tv_ready_i of cycle t is 1 unless cycleChance(seed, t, p) (the harness's ready port, readyOffset 0).
 */
import { RvError } from '../../golden-model/common/errors.ts';
import { cycleChance, Rng } from '../../golden-model/common/rng.ts';
import { TvEncoder } from '../../golden-model/tvtrace/encoder.ts';
import { formatTvRecord } from '../../golden-model/tvtrace/formats/text.ts';
import type { TvInstr, TvMemTransaction, TvRecord } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { decodeTv } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { groupLine } from '../../golden-model/tvtrace-decoder/dump.ts';
import { TV_CSR_SLOTS, TV_KIND_CODES, TV_MEM_SLOTS, TVTRACE_TOP_MODULE, tvtracePorts } from '../../generator/tvtrace/ports.ts';
import { type BuiltModel, buildModel, installRtl } from '../build.ts';
import { frameLayout, type HarnessSpec } from '../harness-spec.ts';
import { FrameWriter, runModel } from '../run.ts';
import { tvFifoTiming } from './timing.ts';

/** The co-simulation's top: the encoder and the harness's hold output. */
export const TVTRACE_COSIM_TOP = 'tvtrace_cosim_top';

/** The wrapper module (SystemVerilog) around tvtrace_top for a configuration. */
export function tvtraceCosimWrapper(c: TvtraceRtlConfig): { name: string; content: string } {
  const ports = tvtracePorts(c);
  const decl = ports.map((p) => `  ${p.direction === 'in' ? 'input ' : 'output'} logic ${p.width > 1 ? `[${p.width - 1}:0] ` : ''}${p.name},`);
  const conns = ports.map((p, i) => `    .${p.name}(${p.name})${i === ports.length - 1 ? '' : ','}`);
  const content = [
    '// The co-simulation wrapper of tvtrace_top (tb/tvtrace/cosim.ts): stall_o tells the harness',
    '// that the record on the inputs was not taken in this cycle.',
    `module ${TVTRACE_COSIM_TOP} (`,
    ...decl,
    '  output logic stall_o',
    ');',
    `  ${TVTRACE_TOP_MODULE} u_dut (`,
    ...conns,
    '  );',
    '  assign stall_o = rec_valid_i & ~rec_ready_o;',
    'endmodule',
    '',
  ].join('\n');
  return { name: `${TVTRACE_COSIM_TOP}.sv`, content };
}

export function tvtraceHarnessSpec(c: TvtraceRtlConfig): HarnessSpec {
  return {
    top: TVTRACE_COSIM_TOP,
    ports: [...tvtracePorts(c).map((p) => ({ name: p.name, direction: p.direction, width: p.width })), { name: 'stall_o', direction: 'out', width: 1 }],
    clock: 'clk_i',
    reset: 'rst_ni',
    hold: 'stall_o',
    ready: ['tv_ready_i'],
    captures: [
      {
        name: 'tv',
        when: [
          { port: 'tv_valid_o', value: 1 },
          { port: 'tv_ready_i', value: 1 },
        ],
        // The beats' bytes come back as a byte stream with the bytes of every cycle (no record
        // per beat): tv_bytes_o valid bytes of tv_data_o, every byte when the port is byte-wide.
        data: ['tv_data_o'],
        stream: c.outBytes > 1 ? { count: 'tv_bytes_o' } : {},
      },
    ],
  };
}

/** Builds (or finds) the Verilator model of the generated RTL files `rtlFiles` with the wrapper. */
export function buildTvtraceModel(c: TvtraceRtlConfig, rtlFiles: string[], log?: (line: string) => void, fst = false): BuiltModel {
  const wrapper = installRtl([tvtraceCosimWrapper(c)]).paths;
  return buildModel({ spec: tvtraceHarnessSpec(c), rtlFiles: [...rtlFiles, ...wrapper], fst }, log);
}

/** Random bytes the frames start from (tvtraceFrameFiller). */
const FILL_POOL_BYTES = 1 << 20;
/** Size codes (2^code bytes) by byte count. */
const SIZE_CODE: readonly number[] = [0, 0, 1, 0, 2, 0, 0, 0, 3];
const NO_MEM: readonly TvMemTransaction[] = [];
/** A 64-bit value split into 32-bit halves without allocating (as golden-model/tvtrace/encoder.ts does). */
const SPLIT64 = new BigUint64Array(1);
const HALVES = new Uint32Array(SPLIT64.buffer);
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

/**
 * Bytes of the frame (FrameWriter.bytes) for one record, or for an idle cycle (`undefined`).
 *
 * Every frame starts as random bytes (a window at a random offset of a pool drawn once from `rng`),
 * so the ports a record's kind does not use, valid bits included, the bits above a 16-bit
 * instruction and above the store and memory data's size, and the CSR and memory slots above the
 * record's, are random: the RTL must ignore them. The record's own fields are then written over
 * them bit by bit (the harness masks every port to its width). No bigint arithmetic and no
 * allocation per record: a 64-bit field is split through a BigUint64Array.
 */
export function tvtraceFrameFiller(c: TvtraceRtlConfig, w: FrameWriter, rng: Rng): (r: TvRecord | undefined) => void {
  const b = w.bytes;
  const fb = b.length;
  const slots = new Map<string, number>(frameLayout(tvtraceHarnessSpec(c)).slots.map((s) => [s.name, s.offset]));
  const at = (port: string): number => {
    const o = slots.get(port);
    if (o === undefined) throw new RvError('bad-value', `tvtrace co-simulation: no frame input '${port}'`);
    return o;
  };
  const pool = new Uint8Array(FILL_POOL_BYTES + fb);
  for (let i = 0; i + 4 <= pool.length; i += 4) {
    const v = rng.u32();
    pool[i] = v;
    pool[i + 1] = v >>> 8;
    pool[i + 2] = v >>> 16;
    pool[i + 3] = v >>> 24;
  }
  const hasF = c.flen > 0;
  const xlen = c.xlen;
  const mlen = c.mlen;
  const sw = Math.max(c.xlen, c.flen);
  const recValid = at('rec_valid_i');
  const kind = at('kind_i');
  const nextPc = at('next_pc_i');
  const instrValid = at('instr_valid_i');
  const instrSize = at('instr_size_i');
  const instr = at('instr_i');
  const privValid = at('priv_valid_i');
  const priv = at('priv_i');
  const gprValid = at('gpr_valid_i');
  const gprAddr = at('gpr_addr_i');
  const gprData = at('gpr_data_i');
  const fprValid = hasF ? at('fpr_valid_i') : -1;
  const fprAddr = hasF ? at('fpr_addr_i') : -1;
  const fprData = hasF ? at('fpr_data_i') : -1;
  const csrValid = at('csr_valid_i');
  const csrAddr = at('csr_addr_i');
  const csrData = at('csr_data_i');
  const fcsrValid = at('fcsr_valid_i');
  const fcsr = at('fcsr_i');
  const eaddrValid = at('eaddr_valid_i');
  const eaddr = at('eaddr_i');
  const paddrValid = at('paddr_valid_i');
  const paddr = at('paddr_i');
  const storeValid = at('store_valid_i');
  const storeSize = at('store_size_i');
  const storeData = at('store_data_i');
  const xstatus = at('xstatus_i');
  const xcause = at('xcause_i');
  const xepc = at('xepc_i');
  const xtval = at('xtval_i');
  const mtimeValid = at('mtime_valid_i');
  const mtime = at('mtime_i');
  const mcycleValid = at('mcycle_valid_i');
  const mcycle = at('mcycle_i');
  const minstretValid = at('minstret_valid_i');
  const minstret = at('minstret_i');
  const pcPaddrValid = at('pc_paddr_valid_i');
  const pcPaddr = at('pc_paddr_i');
  const memValid = at('mem_valid_i');
  const memOp = at('mem_op_i');
  const memSize = at('mem_size_i');
  const memAddr = at('mem_addr_i');
  const memData = at('mem_data_i');
  const memRspValid = at('mem_rsp_valid_i');
  const memRspFail = at('mem_rsp_fail_i');
  const memRspData = at('mem_rsp_data_i');

  /** The low `width` (at most 32) bits of v at bit `bit` of the port at byte `o`; the other bits stay. */
  const bits = (o: number, bit: number, width: number, v: number): void => {
    let i = o + (bit >>> 3);
    let sh = bit & 7;
    for (let left = width; left > 0; i++) {
      const n = Math.min(8 - sh, left);
      const m = ((1 << n) - 1) << sh;
      b[i] = (b[i]! & ~m) | ((v << sh) & m);
      v >>>= n;
      left -= n;
      sh = 0;
    }
  };
  /** A value of up to 64 bits (below 2^width) at bit `bit` of the port at byte `o`. */
  const wide = (o: number, bit: number, width: number, v: bigint): void => {
    SPLIT64[0] = v;
    bits(o, bit, Math.min(32, width), HALVES[LOW]!);
    if (width > 32) bits(o, bit + 32, width - 32, HALVES[HIGH]!);
  };
  const setInstr = (i: TvInstr | undefined): void => {
    if (i === undefined) {
      b[instrValid] = 0;
      return;
    }
    b[instrValid] = 1;
    b[instrSize] = i.size === 32 ? 1 : 0;
    // Above a 16-bit instruction the random bits stay, which the RTL must not report.
    bits(instr, 0, i.size, i.bits);
  };
  /** Store data of `bytes` bytes: the bits above them stay random. */
  const setStore = (bytes: number, value: bigint): void => {
    b[storeSize] = SIZE_CODE[bytes]!;
    wide(storeData, 0, 8 * bytes, value);
  };
  /** The record's transactions in the first slots; the valid bits of the others 0, their ports random. */
  const setMem = (list: readonly TvMemTransaction[]): void => {
    if (list.length > TV_MEM_SLOTS) throw new RvError('bad-value', `${list.length} memory transactions; the RTL has ${TV_MEM_SLOTS} slots`);
    b[memValid] = (1 << list.length) - 1;
    let rspValid = 0;
    for (let k = 0; k < list.length; k++) {
      const t = list[k]!;
      bits(memOp, 4 * k, 4, t.op);
      bits(memSize, 2 * k, 2, SIZE_CODE[t.bytes]!);
      wide(memAddr, mlen * k, mlen, t.addr);
      if (t.data !== undefined) wide(memData, sw * k, 8 * t.bytes, t.data);
      if (t.response !== undefined) {
        rspValid |= 1 << k;
        bits(memRspFail, k, 1, t.response.ok ? 0 : 1);
        if (t.response.data !== undefined) wide(memRspData, sw * k, 8 * t.bytes, t.response.data);
      }
    }
    b[memRspValid] = rspValid;
  };

  return (r) => {
    const from = rng.u32() % FILL_POOL_BYTES;
    b.set(pool.subarray(from, from + fb));
    if (r === undefined) {
      b[recValid] = 0;
      return;
    }
    b[recValid] = 1;
    b[kind] = TV_KIND_CODES[r.kind];
    switch (r.kind) {
      case 'instruction': {
        wide(nextPc, 0, xlen, r.nextPc);
        setInstr(r.instr);
        b[privValid] = r.priv !== undefined ? 1 : 0;
        if (r.priv !== undefined) b[priv] = r.priv;
        b[gprValid] = r.gpr !== undefined ? 1 : 0;
        if (r.gpr !== undefined) {
          b[gprAddr] = r.gpr.reg;
          wide(gprData, 0, xlen, r.gpr.value);
        }
        if (r.fpr !== undefined) {
          if (!hasF) throw new RvError('bad-value', 'an FPR write, and the component has no FPR ports (flen = 0)');
          b[fprValid] = 1;
          b[fprAddr] = r.fpr.reg;
          wide(fprData, 0, c.flen, r.fpr.value);
        } else if (hasF) {
          b[fprValid] = 0;
        }
        const csrs = r.csrs;
        const n = csrs?.length ?? 0;
        if (n > TV_CSR_SLOTS) throw new RvError('bad-value', `${n} CSR writes; the RTL has ${TV_CSR_SLOTS} slots`);
        b[csrValid] = (1 << n) - 1;
        for (let k = 0; k < n; k++) {
          bits(csrAddr, 12 * k, 12, csrs![k]!.csr);
          wide(csrData, xlen * k, xlen, csrs![k]!.value);
        }
        b[fcsrValid] = r.fcsr !== undefined ? 1 : 0;
        if (r.fcsr !== undefined) wide(fcsr, 0, xlen, r.fcsr);
        b[eaddrValid] = r.eaddr !== undefined ? 1 : 0;
        if (r.eaddr !== undefined) wide(eaddr, 0, mlen, r.eaddr);
        b[paddrValid] = r.paddr !== undefined ? 1 : 0;
        if (r.paddr !== undefined) wide(paddr, 0, mlen, r.paddr);
        b[storeValid] = r.storeData !== undefined ? 1 : 0;
        if (r.storeData !== undefined) setStore(r.storeData.bytes, r.storeData.value);
        b[pcPaddrValid] = r.pcPaddr !== undefined ? 1 : 0;
        if (r.pcPaddr !== undefined) wide(pcPaddr, 0, mlen, r.pcPaddr);
        setMem(r.mem ?? NO_MEM);
        return;
      }
      case 'trap':
      case 'interrupt':
        wide(nextPc, 0, xlen, r.nextPc);
        // An interrupt has no instruction: its instruction ports stay random.
        if (r.kind === 'trap') setInstr(r.instr);
        b[priv] = r.priv;
        wide(xstatus, 0, xlen, r.status);
        wide(xcause, 0, xlen, r.cause);
        wide(xepc, 0, xlen, r.epc);
        wide(xtval, 0, xlen, r.tval);
        return;
      case 'xret':
        wide(nextPc, 0, xlen, r.nextPc);
        setInstr(r.instr);
        b[priv] = r.priv;
        wide(xstatus, 0, xlen, r.mstatus);
        return;
      case 'debug-reg':
        // The first valid of gpr, fpr, csr slot 0; the valid bits after it stay random.
        b[gprValid] = r.file === 'gpr' ? 1 : 0;
        if (r.file === 'gpr') {
          b[gprAddr] = r.index;
          wide(gprData, 0, xlen, r.value);
        } else if (r.file === 'fpr') {
          if (!hasF) throw new RvError('bad-value', 'a debug write of an FPR, and the component has no FPR ports (flen = 0)');
          b[fprValid] = 1;
          b[fprAddr] = r.index;
          wide(fprData, 0, c.flen, r.value);
        } else {
          if (hasF) b[fprValid] = 0;
          bits(csrValid, 0, 1, 1);
          bits(csrAddr, 0, 12, r.index);
          wide(csrData, 0, xlen, r.value);
        }
        return;
      case 'debug-mem':
        wide(paddr, 0, mlen, r.paddr);
        setStore(r.bytes, r.value);
        return;
      case 'reset':
        return;
      case 'unobserved':
        b[mtimeValid] = r.mtime !== undefined ? 1 : 0;
        if (r.mtime !== undefined) wide(mtime, 0, 64, r.mtime);
        b[mcycleValid] = r.mcycle !== undefined ? 1 : 0;
        if (r.mcycle !== undefined) wide(mcycle, 0, 64, r.mcycle);
        b[minstretValid] = r.minstret !== undefined ? 1 : 0;
        if (r.minstret !== undefined) wide(minstret, 0, 64, r.minstret);
        return;
    }
  };
}

/** The model's stream of `records`, with each record's offset (records that write nothing included). */
export interface TvExpected {
  readonly bytes: Uint8Array;
  /** offsets[i] = first byte of record i; offsets[records.length] = bytes.length. */
  readonly offsets: number[];
}

export function tvExpected(c: TvtraceRtlConfig, records: readonly TvRecord[]): TvExpected {
  // One encoder for the whole stream; a record's offset is the encoder's length before it.
  const enc = new TvEncoder(c);
  enc.expectRecords(records.length);
  const offsets: number[] = [0];
  for (let i = 0; i < records.length; i++) {
    enc.encode(records[i]!);
    offsets.push(enc.length);
  }
  return { bytes: enc.finish(), offsets };
}

export interface TvtraceCosimOptions {
  /** Probability that tv_ready_i is 0 in a cycle (0: always ready). */
  backpressure?: number;
  seed?: number;
  /** Probability of an idle cycle (rec_valid_i = 0) before a record. */
  idle?: number;
  /** Dump RTL cycles from..to into an FST file (the model built with fst). */
  fst?: { file: string; from: number; to: number };
}

export interface TvtraceCosimResult {
  readonly expected: TvExpected;
  readonly actual: Uint8Array;
  readonly cycles: number;
  /** Cycles the RTL held a record, and the timing model's. */
  readonly holds: number;
  readonly stalls: number;
  readonly beats: number;
  readonly mismatch?: string;
  /** The RTL cycle of the first difference. */
  readonly mismatchCycle?: number;
}

/** Idle frames after the drain: an RTL that sends more bytes than the model shows them. */
const EXTRA_FRAMES = 16;

/** Runs one co-simulation of `records` and compares the RTL's bytes, beats and holds with the model's. */
export async function cosimTvtrace(verilated: BuiltModel, c: TvtraceRtlConfig, records: readonly TvRecord[], opts: TvtraceCosimOptions = {}): Promise<TvtraceCosimResult> {
  const p = opts.backpressure ?? 0;
  const seed = opts.seed ?? 1;
  const expected = tvExpected(c, records);
  // The frames: a record's length, or null for an idle cycle before a record.
  const rng = new Rng(seed ^ 0x1d1e);
  const frames: (number | null)[] = [];
  const idle = opts.idle ?? 0;
  for (let i = 0; i < records.length; i++) {
    while (rng.chance(idle)) frames.push(null);
    frames.push(expected.offsets[i + 1]! - expected.offsets[i]!);
  }
  const timing = tvFifoTiming(frames, c, (t) => !cycleChance(seed, t, p), true);
  const spec = tvtraceHarnessSpec(c);
  const run = await runModel(
    verilated,
    spec,
    (emit) => {
      const w = new FrameWriter(spec);
      const fill = tvtraceFrameFiller(c, w, new Rng(seed ^ 0x9a7b));
      let next = 0;
      for (const f of frames) {
        fill(f === null ? undefined : records[next++]);
        emit(w);
      }
      for (let i = 0; i < timing.drain + EXTRA_FRAMES; i++) {
        fill(undefined);
        emit(w);
      }
    },
    { seed, readyChance: p, readyOffset: 0, ...(opts.fst ? { fst: opts.fst } : {}) },
  );
  // The RTL's bytes and the bytes of each cycle's beat (the stream capture), and the beats that
  // broke the port's rule (records of tv_data_o and tv_bytes_o).
  const stream = run.streams[0]!;
  const actual = stream.bytes;
  const rtl = stream.counts;
  const want = timing.counts!;
  let beats = 0;
  for (let t = 0; t < rtl.length; t++) if (rtl[t] !== 0) beats++;
  const word = c.outBytes > 1;
  const bad = run.captures[0]![0];
  let mismatch = compareTvtrace(c, records, expected, actual);
  let mismatchCycle: number | undefined;
  if (mismatch) {
    let i = 0;
    while (i < actual.length && i < expected.bytes.length && actual[i] === expected.bytes[i]) i++;
    // The cycle of the beat with byte i (the last beat when the RTL sent fewer bytes).
    let seen = 0;
    let last = 0;
    for (let t = 0; t < rtl.length; t++) {
      if (rtl[t] === 0) continue;
      last = t;
      seen += rtl[t]!;
      if (seen > i) break;
    }
    mismatchCycle = last;
  } else if (bad !== undefined) {
    const k = word ? Number(bad.values[1]!) : 1;
    mismatch = `identical bytes, but the beat of cycle ${bad.cycle} says ${k} bytes and carries 0x${bad.values[0]!.toString(16)} (bytes at and above tv_bytes_o must be zero, 1 <= tv_bytes_o <= ${c.outBytes})`;
    mismatchCycle = bad.cycle;
  } else {
    // The first cycle whose beat differs from the FIFO's cycle model, named as beat j of both.
    const cycles = Math.max(rtl.length, want.length);
    let t = 0;
    while (t < cycles && (rtl[t] ?? 0) === (want[t] ?? 0)) t++;
    if (t < cycles) {
      let j = 0;
      for (let u = 0; u < t; u++) if (rtl[u] !== 0) j++;
      const nextBeat = (counts: Uint8Array): string => {
        for (let u = t; u < counts.length; u++) if (counts[u] !== 0) return `${counts[u]} byte(s) in cycle ${u}`;
        return 'none';
      };
      let modelBeats = 0;
      for (let u = 0; u < want.length; u++) if (want[u] !== 0) modelBeats++;
      mismatch = `identical bytes, but beat ${j} differs from the FIFO's cycle model: RTL ${nextBeat(rtl)}, model ${nextBeat(want)} (${beats} RTL beats, ${modelBeats} model beats)`;
      mismatchCycle = t;
    } else if (run.holds !== timing.stalls) {
      mismatch = `identical bytes and beats, but the RTL held records for ${run.holds} cycles and the FIFO's cycle model ${timing.stalls}`;
    }
  }
  return {
    expected,
    actual,
    cycles: run.cycles,
    holds: run.holds,
    stalls: timing.stalls,
    beats,
    ...(mismatch ? { mismatch, mismatchCycle: mismatchCycle ?? 0 } : {}),
  };
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

/**
 * The first difference between the model's bytes and the RTL's: the byte, the record it belongs to
 * (its text form), both byte runs from the record's first byte, and both decoded (the model's group
 * and what the RTL's bytes from the same offset decode to).
 */
export function compareTvtrace(c: TvtraceRtlConfig, records: readonly TvRecord[], expected: TvExpected, actual: Uint8Array): string | undefined {
  const e = expected.bytes;
  const n = Math.min(e.length, actual.length);
  let offset = 0;
  while (offset < n && e[offset] === actual[offset]) offset++;
  if (offset === e.length && offset === actual.length) return undefined;
  // The record whose bytes hold the offset (the last record when the model has no more bytes).
  const offs = expected.offsets;
  let k = 0;
  let lo = 0;
  let hi = records.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (offs[mid]! <= offset) {
      k = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  while (k > 0 && offs[k]! === offs[k + 1]! && offs[k]! === offset) k--; // not a record without bytes
  const start = offs[k] ?? 0;
  const end = offs[k + 1] ?? e.length;
  const params = { xlen: c.xlen, flen: c.flen, mlen: c.mlen, ilen: c.ilen };
  const decodeAt = (bytes: Uint8Array, from: number, to: number): string => {
    const d = decodeTv(bytes.subarray(from, to), params);
    const lines = d.groups.map(groupLine);
    if (d.error) lines.push(`error: ${d.error.oneLine()}`);
    return lines.length > 0 ? lines.join(' | ') : '(nothing)';
  };
  const lines = [
    `first difference at byte ${offset} (record ${k}, ${records[k]?.kind ?? 'none'}, bytes ${start}..${end - 1} of the model's stream); model ${e.length} bytes, RTL ${actual.length} bytes`,
    `  record ${k}: ${records[k] ? formatTvRecord(records[k]!, k) : '(none)'}`,
    `  model bytes from ${start}: ${hex(e.subarray(start, Math.min(end, start + 48)))}`,
    `  RTL   bytes from ${start}: ${hex(actual.subarray(start, Math.min(actual.length, start + Math.max(48, end - start))))}`,
    `  model decodes: ${decodeAt(e, start, end)}`,
    `  RTL   decodes: ${decodeAt(actual, start, Math.min(actual.length, end))}`,
  ];
  return lines.join('\n');
}
