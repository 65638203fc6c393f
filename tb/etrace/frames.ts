/**
 * The input frames that drive the generated E-Trace encoder for a retirement stream: one frame per
 * clock cycle, every input port set. Shared by the Verilator co-simulation (tb/etrace/cosim.ts) and
 * the Icarus smoke test, so both simulators see the same cycles.
 *
 * Cycle alignment with the model's OutputFifo (golden-model/etrace/output.ts):
 * - Out of reset the encoder starts a trace session (the registers reset to the component's
 *   values) and sends the first support packet: the model's constructor.
 * - Or, with a programming prologue (`program`: golden-model/etrace/option-writes.ts optionWrites),
 *   for a build of the hardware configuration (tb/case.ts hardwareConfig), whose registers reset
 *   with every option off and iEnable 0, so that trTeActive/trTeEnable are 0 and no session starts
 *   out of reset: the first frames are one APB write per option register (a setup frame, then an
 *   access frame), trTeControl last, the hart inputs those of an idle cycle (PROLOGUE_RECORD).
 *   The last write's access phase sets trTeActive and trTeEnable, so the session starts in the
 *   next cycle, RTL cycle PROLOGUE = 2 * writes, with every register holding what the
 *   configuration's own RTL holds out of reset (until then there is no session: no packet, no
 *   stall, and the filter, resync and data state restart with the session). Unlike a start out of
 *   reset, the ingress then holds a cycle of the hart, the prologue's last frame, and the encoder
 *   counts it as the session's first cycle (a resync unit with ResyncMode 2, an input of the
 *   comparators). So the model gets the same idle record first (cosim.ts), as its cycle 0 = RTL
 *   cycle PROLOGUE, and the records follow, model cycle c + 1 = RTL cycle c + PROLOGUE + 1: the
 *   harness's readyOffset is programmedReadyOffset = READY_OFFSET + PROLOGUE, and the model's
 *   transport is not ready in its cycle 0 (the RTL's FIFO is empty then: the session's support
 *   packet is written in that cycle, so the model writes it there too, `sessionInFirstCycle`, not
 *   in the cycle before its first record as out of reset) and in cycle c + 1 as the harness's
 *   ready(c).
 * - Cycle c's records (a record and the `sameCycle` records after it: signal group 0, 1, ... of
 *   the cycle) are the frame of cycle c; the encoder registers it and decides in cycle c + 1, so
 *   model cycle c is RTL cycle c + READY_OFFSET, and tx_ready_i of RTL cycle t is the model's
 *   ready(t - 1). Groups the cycle does not use are driven with zeros (an absent group).
 * - Data trace (table 4.9): the cycle's frame carries the access of whichever of its records has
 *   one (one a cycle), with dblock_i that record's signal group, and the split-load response, which
 *   must be on the cycle's last record: the RTL sends the access's packet after its group's te_inst
 *   packets and the response's after all of them, the model after those of their record.
 * - The session ends like the model's finish(): an APB write clearing trTeControl.trTeEnable whose
 *   access phase is the cycle after the last record, so the encoder ends the trace in model cycle N.
 *   Idle frames follow until the FIFO has drained.
 */
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import type { DataAccess, DataTrace, LoadResponse } from '../../golden-model/hart/data-records.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { RegisterWrite } from '../../golden-model/etrace/option-writes.ts';
import { emptyRecord, toItype3, type RetirementRecord } from '../../golden-model/hart/records.ts';

/** Model cycle c is RTL cycle c + READY_OFFSET (without a programming prologue). */
export const READY_OFFSET = 1;

/**
 * The hart's inputs during the programming prologue: an idle cycle (nothing retired, no trap). The
 * last prologue frame is the session's first cycle for the encoder, so the model gets this record
 * first too.
 */
export const PROLOGUE_RECORD: Readonly<RetirementRecord> = Object.freeze({ ...emptyRecord(), iretire: 0, itype: 0, iaddr: 0n });

/** The frames of a programming prologue of `writes`: a setup and an access frame per write. */
export function prologueFrames(writes: readonly RegisterWrite[]): number {
  return 2 * writes.length;
}

/** The harness's readyOffset with a programming prologue of `writes`: model cycle c is RTL cycle c + this. */
export function programmedReadyOffset(writes: readonly RegisterWrite[]): number {
  return READY_OFFSET + prologueFrames(writes);
}

/** trTeControl's address: the end-of-trace write goes there. */
const CONTROL_ADDRESS = 0x000;

/** The trTeControl value that ends the session: trTeActive 1, trTeEnable 0, trTeInstTracing as configured. */
function endOfTraceWrite(c: EtraceConfig): number {
  return 0b001 | (c.options.iEnable ? 0b100 : 0);
}

/** Sets one input port of the current frame. */
export type SetPort = (port: string, value: number | bigint) => void;

/** Writes one port of the current frame (bound to the port: no lookup per frame). */
export type PortSetter = (value: number | bigint) => void;

/** Where frames are written: a setter per input port (tb/run.ts FrameWriter is one). */
export interface FrameSink {
  setter(port: string): PortSetter;
}

export type ApbPhase = 'idle' | 'setup' | 'access';

/** An APB write: byte address, data and byte strobes (pstrb_i). */
interface ApbWrite {
  readonly address: number;
  readonly value: number;
  readonly strobe: number;
}

/**
 * The frames of a whole run, in order: the programming prologue's writes (`program`, when given),
 * one per cycle of records, then the end-of-trace register
 * write (its setup phase rides on the last cycle's frame, its access phase follows), then idle
 * frames until the FIFO has drained. Every input is written into `sink` for each frame, then
 * `emit(first, end)` is called with the frame's records, indexes first..end-1 (first = end for the
 * frames after the records).
 */
export function writeEtraceFrames(
  c: EtraceConfig,
  records: readonly RetirementRecord[],
  backpressure: number,
  sink: FrameSink,
  emit: (first: number, end: number) => void,
  data?: DataTrace,
  program?: readonly RegisterWrite[],
): void {
  const frames = new EtraceFrameStream(c, backpressure, sink, (_records, first, end) => emit(first, end), data, program);
  frames.push(records);
  frames.finish();
}

/**
 * The frames of `writeEtraceFrames` for records that arrive in chunks (a stream too long to hold):
 * `push` each chunk in order, then `finish`. `emit(records, first, end)` gets the frame's records
 * as records[first..end-1] of the chunk they came in (or of a small array holding a cycle that
 * spans two chunks); a chunk may be dropped once `push` returned. The last cycle seen is held back
 * until the next chunk or `finish`, as it may continue in the next chunk (sameCycle records) and
 * the last cycle's frame carries the setup phase of the end-of-trace write.
 */
export class EtraceFrameStream {
  private readonly hart: (records: readonly RetirementRecord[], first: number, end: number) => void;
  private readonly idleHart: () => void;
  /** The APB inputs of a frame: a phase of write `w` (default: the end-of-trace write; idle: all 0). */
  private readonly apb: (phase: ApbPhase, w?: ApbWrite) => void;
  /** Data trace (table 4.9): drives the cycle's access (with its signal group) and split load response, or none. */
  private readonly dataPorts: ((a: DataAccess | undefined, group: number, r?: LoadResponse) => void) | undefined;
  /** The access of each record that has one, by the record's index in the stream. */
  private readonly accessAt = new Map<number, DataAccess>();
  /** Split loads: the load response of each record that has one (the interface takes one a cycle). */
  private readonly responseAt = new Map<number, LoadResponse>();
  private readonly groups: number;
  private readonly drain: number;
  /** The held-back last cycle: records[first..end-1], the index of its first record in the stream. */
  private held: { records: readonly RetirementRecord[]; first: number; end: number; index: number } | undefined;
  /** Records pushed before the current chunk (for error messages). */
  private base = 0;
  private started = false;

  constructor(
    c: EtraceConfig,
    backpressure: number,
    sink: FrameSink,
    private readonly emit: (records: readonly RetirementRecord[], first: number, end: number) => void,
    data?: DataTrace,
    /** The programming prologue's writes (optionWrites of the case's configuration); none: no prologue. */
    private readonly program: readonly RegisterWrite[] = [],
  ) {
    const p = c.params;
    this.dataPorts = p.dataTrace ? dataSetters(c, sink) : undefined;
    if (this.dataPorts) {
      for (const a of data?.accesses ?? []) {
        if (this.accessAt.has(a.at)) throw new RvError('bad-value', `record ${a.at}: two data accesses in one cycle; the data interface (table 4.9) takes one a cycle`);
        this.accessAt.set(a.at, a);
      }
    }
    if (this.dataPorts && p.dataTrace?.data_split_p) {
      for (const r of data?.responses ?? []) {
        if (this.responseAt.has(r.at)) throw new RvError('bad-value', `record ${r.at}: two load responses in one cycle; the data interface (table 4.9) takes one a cycle`);
        this.responseAt.set(r.at, r);
      }
    }
    const ports = new Set(etracePorts(c).map((q) => q.name));
    const optional = (name: string): PortSetter | undefined => (ports.has(name) ? sink.setter(name) : undefined);
    const itype = sink.setter('itype_i');
    const iretire = sink.setter('iretire_i');
    const ilastsize = sink.setter('ilastsize_i');
    const iaddr = sink.setter('iaddr_i');
    const sijump = optional('sijump_i');
    const cause = sink.setter('cause_i');
    const tval = sink.setter('tval_i');
    const priv = sink.setter('priv_i');
    const context = optional('context_i');
    const ctype = sink.setter('ctype_i');
    const trigger = sink.setter('trigger_i');
    const halted = sink.setter('halted_i');
    const reset = sink.setter('reset_i');
    const impdef = optional('impdef_i');
    const time = optional('time_i');
    const psel = sink.setter('psel_i');
    const penable = sink.setter('penable_i');
    const pwrite = sink.setter('pwrite_i');
    const paddr = sink.setter('paddr_i');
    const pwdata = sink.setter('pwdata_i');
    const pstrb = sink.setter('pstrb_i');
    const privMask = (1 << p.privilege_width_p) - 1;
    const causeMask = (1 << p.ecause_width_p) - 1;
    const ctypeMask = (1 << p.ctype_width_p) - 1;
    const impdefMask = (1 << p.impdef_width_p) - 1;
    // 64-bit fields need no mask (bigint arithmetic per frame is the expensive part).
    const mask = (w: number) => (w >= 64 ? (v: bigint) => v : ((m: bigint) => (v: bigint) => v & m)((1n << BigInt(w)) - 1n));
    const addrMask = mask(p.iaddress_width_p);
    const ctxMask = mask(p.context_width_p);
    const timeMask = mask(p.time_width_p);
    const itype3 = p.itype_width_p === 3;
    const endWrite = endOfTraceWrite(c);

    const groups = p.taken_branches_p;
    this.groups = groups;
    const itypeOf = (r: RetirementRecord) => (itype3 ? toItype3(r.itype) : r.itype);
    /** Group k of a replicated port in bits [k*w +: w] (group 0 is the oldest record of the cycle). */
    const grouped = (records: readonly RetirementRecord[], first: number, end: number, w: number, value: (r: RetirementRecord) => bigint): bigint => {
      let v = 0n;
      for (let i = end - 1; i >= first; i--) v = (v << BigInt(w)) | value(records[i]!);
      return v;
    };
    this.hart = (records, first, end) => {
      const r = records[first]!;
      if (groups === 1) {
        itype(itypeOf(r));
        iretire(r.iretire);
        ilastsize(r.ilastsize);
        iaddr(addrMask(r.iaddr));
        sijump?.(r.sijump ? 1 : 0);
        trigger(r.trigger & 7);
      } else {
        itype(grouped(records, first, end, p.itype_width_p, (g) => BigInt(itypeOf(g))));
        iretire(grouped(records, first, end, p.iretire_width_p, (g) => BigInt(g.iretire)));
        ilastsize(grouped(records, first, end, p.lastsize_width_p, (g) => BigInt(g.ilastsize)));
        iaddr(grouped(records, first, end, p.iaddress_width_p, (g) => addrMask(g.iaddr)));
        sijump?.(grouped(records, first, end, 1, (g) => (g.sijump ? 1n : 0n)));
        trigger(grouped(records, first, end, 3, (g) => BigInt(g.trigger & 7)));
      }
      // The cycle's fields: a trap is the newest group's (a trap ends its cycle).
      const newest = records[end - 1]!;
      cause(newest.cause & causeMask);
      tval(addrMask(newest.tval));
      priv(r.priv & privMask);
      context?.(ctxMask(r.context));
      ctype(r.ctype & ctypeMask);
      halted(r.halted ? 1 : 0);
      reset(r.reset ? 1 : 0);
      impdef?.(r.impdef & impdefMask);
      time?.(timeMask(r.time));
    };
    this.idleHart = (): void => {
      for (const s of [itype, iretire, ilastsize, iaddr, sijump, cause, tval, priv, context, ctype, trigger, halted, reset, impdef, time]) s?.(0);
    };
    // The end-of-trace write changes trTeControl's low byte only; a prologue write, every byte.
    const endOfTrace: ApbWrite = { address: CONTROL_ADDRESS, value: endWrite, strobe: 0b0001 };
    this.apb = (phase: ApbPhase, w: ApbWrite = endOfTrace): void => {
      const idle = phase === 'idle';
      psel(idle ? 0 : 1);
      penable(phase === 'access' ? 1 : 0);
      pwrite(idle ? 0 : 1);
      paddr(idle ? 0 : w.address);
      pwdata(idle ? 0 : w.value);
      pstrb(idle ? 0 : w.strobe);
    };
    // The FIFO holds at most fifo_depth_p bytes; a byte leaves in each ready cycle, on average one
    // cycle in 1/(1 - backpressure): twice that, for the randomness (and at least 1% ready).
    this.drain = Math.ceil((2 * p.fifo_depth_p) / Math.max(0.01, 1 - backpressure)) + 64;
  }

  /** The programming prologue (when there is one), then the APB idle for the records' frames. */
  private start(): void {
    if (this.started) return;
    this.started = true;
    const none: readonly RetirementRecord[] = [];
    if (this.program.length > 0) {
      this.hart([PROLOGUE_RECORD], 0, 1);
      this.dataPorts?.(undefined, 0);
      for (const { address, value } of this.program) {
        const w: ApbWrite = { address, value, strobe: 0b1111 };
        this.apb('setup', w);
        this.emit(none, 0, 0);
        this.apb('access', w);
        this.emit(none, 0, 0);
      }
    }
    this.apb('idle');
  }

  /** The frames of the cycles of `records` (the next records of the stream), but the last. */
  push(records: readonly RetirementRecord[]): void {
    this.start();
    const n = records.length;
    let first = 0;
    // sameCycle records at the start continue the held-back cycle: that cycle moves into an array
    // of its own (a few records).
    const h = this.held;
    if (h !== undefined && n > 0 && records[0]!.sameCycle) {
      let end = 1;
      while (end < n && records[end]!.sameCycle) end++;
      const joined = [...h.records.slice(h.first, h.end), ...records.slice(0, end)];
      this.held = undefined;
      this.hold(joined, 0, joined.length, h.index);
      first = end;
    }
    for (; first < n; ) {
      let end = first + 1;
      while (end < n && records[end]!.sameCycle) end++;
      this.flushHeld();
      this.hold(records, first, end, this.base + first);
      first = end;
    }
    this.base += n;
  }

  private hold(records: readonly RetirementRecord[], first: number, end: number, index: number): void {
    if (end - first > this.groups) {
      throw new RvError('bad-value', `record ${index}: ${end - first} signal groups in one cycle, more than taken_branches_p = ${this.groups}`);
    }
    this.held = { records, first, end, index };
  }

  /** The frame of the held-back cycle (`last`: no cycle follows). */
  private flushHeld(last = false): void {
    const h = this.held;
    if (h === undefined) return;
    this.hart(h.records, h.first, h.end);
    if (this.dataPorts) this.cycleData(h.index, h.end - h.first);
    if (last) this.apb('setup');
    this.emit(h.records, h.first, h.end);
    this.held = undefined;
  }

  /**
   * The data ports of the cycle whose records are `index`..`index + groups - 1` of the stream: the
   * access of whichever record has one, with that record's signal group, and the response, which
   * the RTL sends after all of the cycle's te_inst packets, so it must be on the cycle's last record
   * (where the model sends it).
   */
  private cycleData(index: number, groups: number): void {
    let access: { a: DataAccess; group: number } | undefined;
    let response: LoadResponse | undefined;
    for (let g = 0; g < groups; g++) {
      const a = this.accessAt.get(index + g);
      if (a !== undefined) {
        if (access !== undefined) throw new RvError('bad-value', `record ${index + g}: a second data access in the cycle of record ${index}; the data interface (table 4.9) takes one a cycle`);
        access = { a, group: g };
      }
      const r = this.responseAt.get(index + g);
      if (r !== undefined) {
        if (g !== groups - 1) throw new RvError('bad-value', `record ${index + g}: a load response in signal group ${g} of a cycle of ${groups}; the RTL sends it after the cycle's last group, expected it on record ${index + groups - 1}`);
        response = r;
      }
    }
    this.dataPorts!(access?.a, access?.group ?? 0, response);
  }

  /** The last cycle's frame, the end-of-trace write and the frames that drain the FIFO. */
  finish(): void {
    this.start();
    const none: readonly RetirementRecord[] = [];
    if (this.held !== undefined) {
      this.flushHeld(true);
    } else {
      this.idleHart();
      this.dataPorts?.(undefined, 0);
      this.apb('setup');
      this.emit(none, 0, 0);
    }
    this.idleHart();
    this.dataPorts?.(undefined, 0);
    this.apb('access');
    this.emit(none, 0, 0);
    this.apb('idle');
    for (let i = 0; i < this.drain; i++) this.emit(none, 0, 0);
  }
}

/** The same frames, each as a callback that sets every input by name (for other simulators). */
export function etraceFrames(c: EtraceConfig, records: readonly RetirementRecord[], backpressure: number, frame: (fill: (set: SetPort) => void) => void, data?: DataTrace): void {
  const values = new Map<string, number | bigint>();
  const sink: FrameSink = { setter: (port) => (value) => void values.set(port, value) };
  writeEtraceFrames(c, records, backpressure, sink, () => frame((set) => values.forEach((v, k) => set(k, v))), data);
}

/**
 * The setter of the data access ports (etracePorts: dretire_i, dtype_i, daddr_i, dsize_i, data_i,
 * iaddr_lsbs_i, dblock_i): an access and the signal group of its record in the cycle, or none
 * (dretire_i 0, the rest 0). data_i takes the access's data as the records hold it: the store value
 * in the low 2^dsize bytes, a CSR's or atomic's other value above them. iaddr_lsbs_i takes the low
 * iaddr_lsbs_width_p bits of the access's iaddrLsbs. dblock_i is the group; the access's `dblock`
 * must name it (a component with several groups a cycle has a dblock_i wide enough: validateConfig).
 */
function dataSetters(c: EtraceConfig, sink: FrameSink): (a: DataAccess | undefined, group: number, r?: LoadResponse) => void {
  const p = c.params;
  const ports = new Set(etracePorts(c).map((q) => q.name));
  const dretire = sink.setter('dretire_i');
  const dtype = sink.setter('dtype_i');
  const daddr = sink.setter('daddr_i');
  const dsize = sink.setter('dsize_i');
  const value = sink.setter('data_i');
  const lsbs = ports.has('iaddr_lsbs_i') ? sink.setter('iaddr_lsbs_i') : undefined;
  const lsbsMask = (1 << (p.dataTrace?.iaddr_lsbs_width_p ?? 0)) - 1;
  const dblock = ports.has('dblock_i') ? sink.setter('dblock_i') : undefined;
  // Split loads: lrid with the access; lresp, lid and ldata of the cycle's response.
  const split = ports.has('lrid_i') ? { lrid: sink.setter('lrid_i'), lresp: sink.setter('lresp_i'), lid: sink.setter('lid_i'), ldata: sink.setter('ldata_i') } : undefined;
  const addrMask = (1n << BigInt(p.iaddress_width_p)) - 1n;
  return (a, group, r) => {
    if (a && a.dblock !== group) {
      throw new RvError('bad-value', `record ${a.at}: a data access with dblock ${a.dblock} in signal group ${group} of its cycle; expected dblock to name its group`);
    }
    if (split) {
      split.lrid(a?.lrid ?? 0);
      split.lresp(r?.lresp ?? 0);
      split.lid(r?.lid ?? 0);
      split.ldata(r?.ldata ?? 0n);
    }
    dretire(a ? 1 : 0);
    dtype(a?.dtype ?? 0);
    daddr(a ? a.daddr & addrMask : 0n);
    dsize(a?.dsize ?? 0);
    value(a?.data ?? 0n);
    lsbs?.(a ? a.iaddrLsbs & lsbsMask : 0);
    dblock?.(group);
  };
}
