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
import type { TvMemTransaction, TvRecord } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { decodeTv } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { groupLine } from '../../golden-model/tvtrace-decoder/dump.ts';
import { TV_CSR_SLOTS, TV_KIND_CODES, TV_MEM_SLOTS, TVTRACE_TOP_MODULE, tvtracePorts } from '../../generator/tvtrace/ports.ts';
import { type BuiltModel, buildModel, installRtl } from '../build.ts';
import type { HarnessSpec } from '../harness-spec.ts';
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
        data: c.outBytes > 1 ? ['tv_data_o', 'tv_bytes_o'] : ['tv_data_o'],
      },
    ],
  };
}

/** Builds (or finds) the Verilator model of the generated RTL files `rtlFiles` with the wrapper. */
export function buildTvtraceModel(c: TvtraceRtlConfig, rtlFiles: string[], log?: (line: string) => void, fst = false): BuiltModel {
  const wrapper = installRtl([tvtraceCosimWrapper(c)]).paths;
  return buildModel({ spec: tvtraceHarnessSpec(c), rtlFiles: [...rtlFiles, ...wrapper], fst }, log);
}

/** Writes one record (or an idle cycle: `undefined`) into a frame; `rng` draws the ignored ports. */
export function tvtraceFrameWriter(c: TvtraceRtlConfig, w: FrameWriter, rng: Rng): (r: TvRecord | undefined) => void {
  const s = (port: string) => w.setter(port);
  const recValid = s('rec_valid_i');
  const kind = s('kind_i');
  const nextPc = s('next_pc_i');
  const instrValid = s('instr_valid_i');
  const instrSize = s('instr_size_i');
  const instr = s('instr_i');
  const privValid = s('priv_valid_i');
  const priv = s('priv_i');
  const gprValid = s('gpr_valid_i');
  const gprAddr = s('gpr_addr_i');
  const gprData = s('gpr_data_i');
  const hasF = c.flen > 0;
  const fprValid = hasF ? s('fpr_valid_i') : undefined;
  const fprAddr = hasF ? s('fpr_addr_i') : undefined;
  const fprData = hasF ? s('fpr_data_i') : undefined;
  const csrValid = s('csr_valid_i');
  const csrAddr = s('csr_addr_i');
  const csrData = s('csr_data_i');
  const fcsrValid = s('fcsr_valid_i');
  const fcsr = s('fcsr_i');
  const eaddrValid = s('eaddr_valid_i');
  const eaddr = s('eaddr_i');
  const paddrValid = s('paddr_valid_i');
  const paddr = s('paddr_i');
  const storeValid = s('store_valid_i');
  const storeSize = s('store_size_i');
  const storeData = s('store_data_i');
  const xstatus = s('xstatus_i');
  const xcause = s('xcause_i');
  const xepc = s('xepc_i');
  const xtval = s('xtval_i');
  const mtimeValid = s('mtime_valid_i');
  const mtime = s('mtime_i');
  const mcycleValid = s('mcycle_valid_i');
  const mcycle = s('mcycle_i');
  const minstretValid = s('minstret_valid_i');
  const minstret = s('minstret_i');
  const pcPaddrValid = s('pc_paddr_valid_i');
  const pcPaddr = s('pc_paddr_i');
  const memValid = s('mem_valid_i');
  const memOp = s('mem_op_i');
  const memSize = s('mem_size_i');
  const memAddr = s('mem_addr_i');
  const memData = s('mem_data_i');
  const memRspValid = s('mem_rsp_valid_i');
  const memRspFail = s('mem_rsp_fail_i');
  const memRspData = s('mem_rsp_data_i');
  const sw = BigInt(Math.max(c.xlen, c.flen));
  const mlen = BigInt(c.mlen);
  const xlen = BigInt(c.xlen);
  const swMask = (1n << BigInt(Math.max(c.xlen, c.flen))) - 1n;
  const sizeCode = (bytes: number): number => (bytes === 1 ? 0 : bytes === 2 ? 1 : bytes === 4 ? 2 : 3);

  /** Every valid bit random: the kind's own fields set them again. */
  const randomValids = (): void => {
    const v = rng.u32();
    instrValid(v & 1);
    privValid((v >>> 1) & 1);
    gprValid((v >>> 2) & 1);
    fprValid?.((v >>> 3) & 1);
    csrValid((v >>> 4) & 0xf);
    fcsrValid((v >>> 8) & 1);
    eaddrValid((v >>> 9) & 1);
    paddrValid((v >>> 10) & 1);
    storeValid((v >>> 11) & 1);
    mtimeValid((v >>> 12) & 1);
    mcycleValid((v >>> 13) & 1);
    minstretValid((v >>> 14) & 1);
    storeSize((v >>> 15) & 3);
    instrSize((v >>> 17) & 1);
    pcPaddrValid((v >>> 18) & 1);
    memValid((v >>> 19) & 3);
    memRspValid((v >>> 21) & 3);
    memRspFail((v >>> 23) & 3);
    memOp((v >>> 25) & 0x7f);
  };
  /**
   * The memory transaction slots: the record's in the first slots; above them, and above each
   * transaction's size, random values (valid bits 0 for unused slots).
   */
  const setMem = (list: readonly TvMemTransaction[]): void => {
    let valid = 0;
    let rspValid = 0;
    let fail = rng.u32() & 3;
    let op = rng.u32() & 0xff;
    let size = rng.u32() & 0xf;
    let addr = 0n;
    let data = 0n;
    let rdata = 0n;
    for (let k = 0; k < TV_MEM_SLOTS; k++) {
      const t = list[k];
      const kk = BigInt(k);
      if (t === undefined) {
        addr |= (rng.u64() & ((1n << mlen) - 1n)) << (mlen * kk);
        data |= (rng.u64() & ((1n << sw) - 1n)) << (sw * kk);
        rdata |= (rng.u64() & ((1n << sw) - 1n)) << (sw * kk);
        continue;
      }
      valid |= 1 << k;
      op = (op & ~(0xf << (4 * k))) | (t.op << (4 * k));
      size = (size & ~(3 << (2 * k))) | (sizeCode(t.bytes) << (2 * k));
      addr |= t.addr << (mlen * kk);
      const above = t.bytes === 8 ? 0n : (rng.u64() << BigInt(8 * t.bytes)) & ((1n << sw) - 1n);
      data |= ((t.data ?? rng.u64() & ((1n << sw) - 1n)) | (t.data !== undefined ? above : 0n)) << (sw * kk);
      if (t.response !== undefined) {
        rspValid |= 1 << k;
        fail = (fail & ~(1 << k)) | ((t.response.ok ? 0 : 1) << k);
        rdata |= ((t.response.data ?? rng.u64() & ((1n << sw) - 1n)) | (t.response.data !== undefined ? above : 0n)) << (sw * kk);
      } else {
        rdata |= (rng.u64() & ((1n << sw) - 1n)) << (sw * kk);
      }
    }
    memValid(valid);
    memRspValid(rspValid);
    memRspFail(fail);
    memOp(op);
    memSize(size);
    memAddr(addr);
    memData(data);
    memRspData(rdata);
  };
  const setInstr = (i: { size: 16 | 32; bits: number } | undefined): void => {
    if (i === undefined) {
      instrValid(0);
      return;
    }
    instrValid(1);
    instrSize(i.size === 32 ? 1 : 0);
    // Above a 16-bit instruction: random bits, which the RTL must not report.
    instr(i.size === 32 ? i.bits : (((rng.u32() & 0xffff) << 16) | i.bits) >>> 0);
  };
  const setStore = (bytes: number, value: bigint): void => {
    storeSize(sizeCode(bytes));
    const above = bytes === 8 ? 0n : (rng.u64() << BigInt(8 * bytes)) & swMask;
    storeData(value | above);
  };

  return (r) => {
    randomValids();
    if (r === undefined) {
      recValid(0);
      kind(rng.int(0, 7));
      return;
    }
    recValid(1);
    kind(TV_KIND_CODES[r.kind]);
    switch (r.kind) {
      case 'instruction': {
        nextPc(r.nextPc);
        setInstr(r.instr);
        privValid(r.priv !== undefined ? 1 : 0);
        if (r.priv !== undefined) priv(r.priv);
        gprValid(r.gpr !== undefined ? 1 : 0);
        if (r.gpr !== undefined) {
          gprAddr(r.gpr.reg);
          gprData(r.gpr.value);
        }
        if (r.fpr !== undefined) {
          if (!fprValid) throw new RvError('bad-value', 'an FPR write, and the component has no FPR ports (flen = 0)');
          fprValid(1);
          fprAddr!(r.fpr.reg);
          fprData!(r.fpr.value);
        } else {
          fprValid?.(0);
        }
        const csrs = r.csrs ?? [];
        if (csrs.length > TV_CSR_SLOTS) throw new RvError('bad-value', `${csrs.length} CSR writes; the RTL has ${TV_CSR_SLOTS} slots`);
        csrValid((1 << csrs.length) - 1);
        if (csrs.length > 0) {
          // The slots after the record's CSRs keep random values (their valid bits are 0).
          let addr = rng.u64() << BigInt(12 * csrs.length);
          let data = 0n;
          for (let k = 0; k < TV_CSR_SLOTS; k++) data |= (k < csrs.length ? csrs[k]!.value : rng.u64() & ((1n << xlen) - 1n)) << (xlen * BigInt(k));
          csrs.forEach((w, k) => (addr |= BigInt(w.csr) << BigInt(12 * k)));
          csrAddr(addr & ((1n << BigInt(12 * TV_CSR_SLOTS)) - 1n));
          csrData(data);
        }
        fcsrValid(r.fcsr !== undefined ? 1 : 0);
        if (r.fcsr !== undefined) fcsr(r.fcsr);
        eaddrValid(r.eaddr !== undefined ? 1 : 0);
        if (r.eaddr !== undefined) eaddr(r.eaddr);
        paddrValid(r.paddr !== undefined ? 1 : 0);
        if (r.paddr !== undefined) paddr(r.paddr);
        storeValid(r.storeData !== undefined ? 1 : 0);
        if (r.storeData !== undefined) setStore(r.storeData.bytes, r.storeData.value);
        pcPaddrValid(r.pcPaddr !== undefined ? 1 : 0);
        if (r.pcPaddr !== undefined) pcPaddr(r.pcPaddr);
        if ((r.mem?.length ?? 0) > TV_MEM_SLOTS) throw new RvError('bad-value', `${r.mem!.length} memory transactions; the RTL has ${TV_MEM_SLOTS} slots`);
        setMem(r.mem ?? []);
        return;
      }
      case 'trap':
      case 'interrupt':
        nextPc(r.nextPc);
        // An interrupt has no instruction: its instruction ports keep random values.
        if (r.kind === 'trap') setInstr(r.instr);
        priv(r.priv);
        xstatus(r.status);
        xcause(r.cause);
        xepc(r.epc);
        xtval(r.tval);
        return;
      case 'xret':
        nextPc(r.nextPc);
        setInstr(r.instr);
        priv(r.priv);
        xstatus(r.mstatus);
        return;
      case 'debug-reg':
        // The first valid of gpr, fpr, csr slot 0; the others keep random valid bits after it.
        gprValid(r.file === 'gpr' ? 1 : 0);
        if (r.file === 'gpr') {
          gprAddr(r.index);
          gprData(r.value);
        } else if (r.file === 'fpr') {
          if (!fprValid) throw new RvError('bad-value', 'a debug write of an FPR, and the component has no FPR ports (flen = 0)');
          fprValid(1);
          fprAddr!(r.index);
          fprData!(r.value);
        } else {
          fprValid?.(0);
          csrValid(1 | (rng.int(0, 7) << 1));
          csrAddr((rng.u64() << 12n | BigInt(r.index)) & ((1n << BigInt(12 * TV_CSR_SLOTS)) - 1n));
          csrData((((rng.u64() << 64n) | rng.u64()) << xlen | r.value) & ((1n << (xlen * BigInt(TV_CSR_SLOTS))) - 1n));
        }
        return;
      case 'debug-mem':
        paddr(r.paddr);
        setStore(r.bytes, r.value);
        return;
      case 'reset':
        return;
      case 'unobserved':
        mtimeValid(r.mtime !== undefined ? 1 : 0);
        if (r.mtime !== undefined) mtime(r.mtime);
        mcycleValid(r.mcycle !== undefined ? 1 : 0);
        if (r.mcycle !== undefined) mcycle(r.mcycle);
        minstretValid(r.minstret !== undefined ? 1 : 0);
        if (r.minstret !== undefined) minstret(r.minstret);
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
  const enc = new TvEncoder(c);
  const offsets: number[] = [0];
  const pieces: Uint8Array[] = [];
  let n = 0;
  for (const r of records) {
    enc.encode(r);
    const b = enc.take();
    pieces.push(b);
    n += b.length;
    offsets.push(n);
  }
  const bytes = new Uint8Array(n);
  let o = 0;
  for (const b of pieces) {
    bytes.set(b, o);
    o += b.length;
  }
  return { bytes, offsets };
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
  // The frames: records with idle cycles before some of them.
  const rng = new Rng(seed ^ 0x1d1e);
  const frames: (number | null)[] = [];
  const order: (TvRecord | undefined)[] = [];
  records.forEach((r, i) => {
    while (rng.chance(opts.idle ?? 0)) {
      frames.push(null);
      order.push(undefined);
    }
    frames.push(expected.offsets[i + 1]! - expected.offsets[i]!);
    order.push(r);
  });
  const timing = tvFifoTiming(frames, c, (t) => !cycleChance(seed, t, p), true);
  const spec = tvtraceHarnessSpec(c);
  const run = await runModel(
    verilated,
    spec,
    (emit) => {
      const w = new FrameWriter(spec);
      const fill = tvtraceFrameWriter(c, w, new Rng(seed ^ 0x9a7b));
      for (const r of order) {
        fill(r);
        emit(w);
      }
      for (let i = 0; i < timing.drain + EXTRA_FRAMES; i++) {
        fill(undefined);
        emit(w);
      }
    },
    { seed, readyChance: p, readyOffset: 0, ...(opts.fst ? { fst: opts.fst } : {}) },
  );
  const captured = run.captures[0] ?? [];
  const word = c.outBytes > 1;
  const want = timing.beats!;
  // The bytes of the beats (no bigint operation per byte), and the first beat unlike the model's.
  let actual = new Uint8Array(expected.bytes.length + 64);
  let n = 0;
  let dirty: string | undefined;
  let badBeat = -1;
  captured.forEach((cap, j) => {
    const data = cap.values[0]!;
    const k = word ? Number(cap.values[1]!) : 1;
    if (badBeat < 0 && (want[j]?.cycle !== cap.cycle || want[j]?.bytes !== k)) badBeat = j;
    if (n + 8 > actual.length) {
      const bigger = new Uint8Array(2 * actual.length);
      bigger.set(actual);
      actual = bigger;
    }
    if (!word) {
      actual[n++] = Number(data);
    } else {
      let lo = Number(data & 0xffff_ffffn);
      let hi = c.outBytes > 4 ? Number(data >> 32n) : 0;
      for (let b = 0; b < k; b++) {
        actual[n++] = lo & 0xff;
        lo = (lo >>> 8) | ((hi & 0xff) << 24);
        hi >>>= 8;
      }
    }
    if (dirty === undefined && (k < 1 || k > c.outBytes || data >> BigInt(8 * k) !== 0n)) {
      dirty = `the beat of cycle ${cap.cycle} says ${k} bytes and carries 0x${data.toString(16)} (bytes at and above tv_bytes_o must be zero, 1 <= tv_bytes_o <= ${c.outBytes})`;
    }
  });
  actual = actual.subarray(0, n);
  let mismatch = compareTvtrace(c, records, expected, actual);
  let mismatchCycle: number | undefined;
  if (mismatch) {
    let i = 0;
    while (i < actual.length && i < expected.bytes.length && actual[i] === expected.bytes[i]) i++;
    // The cycle of the beat with byte i.
    let seen = 0;
    const beat = captured.find((cap) => (seen += word ? Number(cap.values[1]!) : 1) > i) ?? captured[captured.length - 1];
    mismatchCycle = beat?.cycle ?? 0;
  } else if (dirty) {
    mismatch = `identical bytes, but ${dirty}`;
  } else if (badBeat >= 0 || captured.length !== want.length) {
    const j = badBeat >= 0 ? badBeat : Math.min(captured.length, want.length);
    const got = captured[j];
    const rtl = got ? `${word ? Number(got.values[1]!) : 1} byte(s) in cycle ${got.cycle}` : 'none';
    const model = want[j] ? `${want[j]!.bytes} byte(s) in cycle ${want[j]!.cycle}` : 'none';
    mismatch = `identical bytes, but beat ${j} differs from the FIFO's cycle model: RTL ${rtl}, model ${model} (${captured.length} RTL beats, ${want.length} model beats)`;
    mismatchCycle = got?.cycle ?? want[j]?.cycle ?? 0;
  } else if (run.holds !== timing.stalls) {
    mismatch = `identical bytes and beats, but the RTL held records for ${run.holds} cycles and the FIFO's cycle model ${timing.stalls}`;
  }
  return {
    expected,
    actual,
    cycles: run.cycles,
    holds: run.holds,
    stalls: timing.stalls,
    beats: captured.length,
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
