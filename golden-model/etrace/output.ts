/**
 * The encoder's output side: encapsulation into the byte stream of the design note and the output
 * FIFO of `fifo_depth_p` bytes. Back-pressure (the transport not ready) fills the FIFO; a packet that
 * does not fit is lost, the loss is reported by a support packet (qual_status trace_lost) as soon as
 * one fits, and the encoder restarts with a synchronisation. With stallEnable the hart is stalled
 * instead and nothing is lost (docs/etrace-model.md, "Output FIFO and trace loss").
 *
 * With serial_views_p = 1 the encoder takes one view a clock: a block's last view after its first
 * and each further group of a cycle are encoded in clocks of their own while the hart is held
 * (stall), as the RTL does.
 *
 * With pipeline_stages_p = L >= 1 the FIFO accepts a packet by a reservation (the largest size of
 * its kind) and the packet's bytes are written L cycles later with their exact size (section
 * "Pipeline (pipeline_stages_p)" of the same document).
 */
import type { EtraceConfig, EtraceOptions } from './config.ts';
import { type EmittedPacket, EtraceEncoder, type EtraceObserver, supportPacket } from './encoder.ts';
import { type Packet, QUAL_STATUS } from './packet/index.ts';
import { packetInto } from './packet/fast.ts';
import type { RetirementRecord } from '../hart/records.ts';
import type { DataAccess, DataTrace, LoadResponse } from '../hart/data-records.ts';
import { type DataEmitted, DataEncoder } from './data/encoder.ts';
import { packData, type DataPacket } from './data/packets.ts';
import { dataPacketParams, dataWidths } from './data/params.ts';
import { encapsulate, MSG_TYPE } from './packet/encapsulate.ts';
import { Departures } from '../common/departures.ts';
import { type ReservationKind, reservationBytes, reservationKind } from './reservation.ts';

export interface EncodeResult {
  /**
   * The encapsulated byte stream, as it leaves the FIFO: all of it, or the bytes after the last
   * that StreamEncoder.takeBytes handed over.
   */
  bytes: Uint8Array;
  /** The length of the whole stream (`bytes.length` when no bytes were handed over). */
  byteCount: number;
  /** The packets in the stream, in order, with their byte offset (empty unless `keepPackets`). */
  packets: { packet: Packet; offset: number; record: number }[];
  packetCount: number;
  /** The te_data packets in the stream with their byte offset (data trace; empty unless `keepPackets`). */
  dataPackets: { packet: DataPacket; offset: number; record: number }[];
  /** Packets dropped by a full FIFO. */
  dropped: number;
  /**
   * Cycles the hart was held (stall_o): while the FIFO drained (stallEnable) and, with
   * serial_views_p, while a cycle's further views were encoded (`viewHolds` of them).
   */
  stallCycles: number;
  viewHolds: number;
  /**
   * With `departures` and a `ready` transport: the cycle in which each byte leaves the FIFO, the
   * FIFO drained to its end after the last record (the cycles count as `ready` counts them).
   */
  departures?: Uint32Array;
}

export interface EncodeOptions {
  /**
   * Whether the transport accepts a byte in a cycle; undefined = always ready. Cycle numbers count
   * the records that start a cycle, then the cycles after the last record.
   */
  ready?: (cycle: number) => boolean;
  /** Keep every packet object in the result (for dumps and tests); default true. */
  keepPackets?: boolean;
  /** Record the cycle each byte leaves (needs `ready`; EncodeResult.departures). */
  departures?: boolean;
  /** Run-time option changes (register writes), applied before the record of the given index. */
  optionChanges?: ReadonlyMap<number, EtraceOptions>;
  /**
   * The stream's data accesses and split-load responses: encoded into te_data packets when the
   * component has data trace (data_trace_p = 1); ignored otherwise.
   */
  data?: DataTrace;
  /** An observer of the encoder's decisions and of the loss reports (functional coverage). */
  observer?: EtraceObserver;
  /**
   * The session starts in the cycle of the first record, as one that a register write starts (its
   * first record is the write's idle cycle): the support packet that starts it is written in cycle
   * 0. Default: in the cycle before the first record, as a session out of reset.
   */
  sessionInFirstCycle?: boolean;
}

/** Encodes a whole stream. */
export function encodeStream(records: readonly RetirementRecord[], config: EtraceConfig, opts: EncodeOptions = {}): EncodeResult {
  const s = new StreamEncoder(config, opts);
  for (const r of records) s.push(r);
  return s.finish();
}

/**
 * The same as `encodeStream`, a record at a time (a co-simulation encodes while it streams the
 * records to the RTL).
 */
export class StreamEncoder {
  private readonly out: OutputFifo;
  private readonly encoder: EtraceEncoder;
  private index = 0;
  private config: EtraceConfig;
  /** The next record is the session's first and its cycle has begun (sessionInFirstCycle). */
  private firstCycleTaken: boolean;
  /** Data trace: the encoder, and the stream's accesses and responses grouped by record. */
  private readonly data?: { encoder: DataEncoder; accesses: Map<number, { a: DataAccess; n: number }[]>; responses: Map<number, LoadResponse[]>; cycle: RetirementRecord[] };

  constructor(
    config: EtraceConfig,
    private readonly opts: EncodeOptions = {},
  ) {
    this.config = config;
    this.out = new OutputFifo(config, opts.ready, opts.keepPackets ?? true, opts.departures === true && opts.ready !== undefined);
    // The encoder writes the session's support packet when it is made: in cycle 0 if the session
    // starts with the first record, which then shares that cycle.
    if (opts.sessionInFirstCycle) this.out.nextCycle();
    this.firstCycleTaken = opts.sessionInFirstCycle === true;
    this.encoder = new EtraceEncoder(config, (p) => this.out.offer(p), opts.observer);
    // Serial views: a block's last view is encoded a clock after its first, the hart held.
    if (config.params.serial_views_p === 1) this.encoder.betweenViews = () => this.out.holdForView();
    if (opts.observer) this.out.observer = opts.observer;
    this.out.onLoss = () => this.encoder.lost();
    this.out.awaitingSync = () => this.encoder.isAwaitingSync();
    if (config.params.dataTrace && opts.data) {
      const accesses = new Map<number, { a: DataAccess; n: number }[]>();
      opts.data.accesses.forEach((a, n) => accesses.set(a.at, [...(accesses.get(a.at) ?? []), { a, n }]));
      const responses = new Map<number, LoadResponse[]>();
      for (const r of opts.data.responses) responses.set(r.at, [...(responses.get(r.at) ?? []), r]);
      const encoder = new DataEncoder(config);
      this.data = { encoder, accesses, responses, cycle: [] };
      this.out.onSync = () => encoder.resync();
    }
  }

  push(r: RetirementRecord): void {
    const change = this.opts.optionChanges?.get(this.index);
    if (change) {
      this.encoder.changeOptions(change);
      this.out.setOptions(change);
      this.config = { params: this.config.params, options: change };
      this.data?.encoder.changeOptions(this.config);
    }
    if (r.sameCycle && this.config.params.serial_views_p === 1) {
      // Serial views: the encoder takes one view a clock, so a cycle's further group is encoded in
      // a cycle of its own, during which the hart is held.
      this.out.holdForView();
      this.encoder.push({ ...r, sameCycle: false });
    } else {
      if (!r.sameCycle && !this.firstCycleTaken) this.out.nextCycle();
      this.encoder.push(r);
    }
    this.firstCycleTaken = false;
    if (this.data) this.pushData(r);
    this.index++;
  }

  /**
   * The te_data packets of the record's accesses, then of the responses that arrived with it: after
   * the instruction packets the record caused (docs/etrace-data.md, "Order in the byte stream").
   */
  private pushData(r: RetirementRecord): void {
    const d = this.data!;
    if (!r.sameCycle) d.cycle = [];
    d.cycle.push(r);
    d.encoder.record(r);
    for (const { a, n } of d.accesses.get(this.index) ?? []) {
      // dblock names the block (signal group) of the cycle whose address iaddr_lsbs completes.
      const block = a.dblock > 0 ? (d.cycle[a.dblock] ?? r) : r;
      for (const e of d.encoder.access(a, block, n)) this.offerData(e);
    }
    for (const resp of d.responses.get(this.index) ?? []) {
      for (const e of d.encoder.response(resp)) this.offerData(e);
    }
  }

  private offerData(e: DataEmitted): void {
    const accepted = this.out.offerData(e.packet, e.atomicSizeField, this.index);
    this.opts.observer?.data?.(e, accepted);
  }

  /**
   * Hands over the bytes accepted since the last call (a copy): the encoder keeps them no longer,
   * so a long stream compared as it goes (a co-simulation) does not grow in memory.
   */
  takeBytes(): Uint8Array {
    return this.out.takeBytes();
  }

  finish(): EncodeResult {
    this.out.nextCycle();
    this.encoder.finish();
    return this.out.result();
  }
}

class OutputFifo {
  /**
   * The byte stream since the bytes handed over (takeBytes); packets are written in place,
   * accepted by moving `length`.
   */
  private out = new Uint8Array(1 << 16);
  /** Bytes handed over by takeBytes: the stream offset of out[0]. */
  private handedOver = 0;
  private readonly packets: EncodeResult['packets'] = [];
  private readonly dataPackets: EncodeResult['dataPackets'] = [];
  /** An instruction-trace synchronisation was accepted: the data history starts afresh. */
  onSync: () => void = () => {};
  private count = 0;
  private length = 0;
  /** Register stages between acceptance and the FIFO write (pipeline_stages_p). */
  private readonly stages: number;
  /** Bytes written into the FIFO that have not left yet. */
  private stored = 0;
  /**
   * What acceptance counts against fifo_depth_p: `stored` plus the claim of every packet taken and
   * not landed yet (its reservation; with no stages its exact size).
   */
  private reserved = 0;
  /** Packets taken and not yet written into the FIFO, oldest first: they land in this order. */
  private readonly inFlight: { landAt: number; claim: number; size: number }[] = [];
  private cycle = -1;
  private lostPending = false;
  private dropped = 0;
  private stallCycles = 0;
  private viewHolds = 0;
  /** The cycle each byte left, when asked for. */
  private departures?: Departures;
  onLoss: () => void = () => {};
  /** Sees the support packets that report a loss (trace_lost). */
  observer?: EtraceObserver;
  /** Whether the encoder is waiting for a synchronisation to get through after a loss. */
  awaitingSync: () => boolean = () => false;
  private mode: { implicit_exception: boolean };

  constructor(
    private config: EtraceConfig,
    private readonly ready: ((cycle: number) => boolean) | undefined,
    private readonly keepPackets: boolean,
    keepDepartures: boolean,
  ) {
    if (keepDepartures) this.departures = new Departures();
    this.mode = { implicit_exception: config.options.ImplicitExcept };
    this.stages = config.params.pipeline_stages_p;
  }

  /**
   * A new cycle: the packets whose last stage was the cycle before are written into the FIFO, then
   * the transport takes one byte if it is ready (so a packet's bytes can leave from the cycle after
   * it lands: with no stages, the cycle after it was taken).
   */
  nextCycle(): void {
    this.cycle++;
    this.land();
    this.drain();
  }

  /** Writes the packets that landed at the end of the previous cycle: they count their exact size. */
  private land(): void {
    while (this.inFlight.length > 0 && this.inFlight[0]!.landAt <= this.cycle - 1) {
      const p = this.inFlight.shift()!;
      this.stored += p.size;
      this.reserved -= p.claim - p.size;
    }
  }

  private drain(): void {
    if (this.stored > 0 && (this.ready === undefined || this.ready(this.cycle))) {
      this.departures?.add(this.cycle);
      this.stored--;
      this.reserved--;
    }
  }

  /**
   * The room a packet needs free to be taken: its exact size when it is written in the cycle it is
   * decided, else its kind's reservation (the pipelined hardware decides before the size is known).
   */
  private claim(kind: ReservationKind, size: number): number {
    return this.stages === 0 ? size : reservationBytes(this.config.params, kind);
  }

  /** A packet is taken in this cycle: it lands at the end of cycle + stages. */
  private take(claim: number, size: number): void {
    if (this.ready === undefined) return; // no back-pressure model: nothing to count
    this.inFlight.push({ landAt: this.cycle + this.stages, claim, size });
    this.reserved += claim;
  }

  private fits(claim: number): boolean {
    return this.ready === undefined || this.reserved + claim <= this.config.params.fifo_depth_p;
  }

  /** The hart waits a cycle while the FIFO drains (stallEnable): landings and a departure. */
  private stall(): void {
    this.stallCycles++;
    this.nextCycle();
  }

  /** The hart waits a cycle while the encoder takes a further view of its cycle (serial_views_p). */
  holdForView(): void {
    this.viewHolds++;
    this.stall();
  }

  /** Writes the packet after the accepted bytes (not accepted yet) and returns its size. */
  private stage(packet: Packet): number {
    if (this.out.length - this.length < 64) {
      const bigger = new Uint8Array(this.out.length * 2);
      bigger.set(this.out.subarray(0, this.length));
      this.out = bigger;
    }
    return packetInto(packet, this.config.params, this.mode, this.out, this.length);
  }

  private accept(packet: Packet, size: number, claim: number, record: number): void {
    if (this.keepPackets) this.packets.push({ packet, offset: this.handedOver + this.length, record });
    if (packet.format === 3n && packet.subformat !== 2n) this.onSync();
    this.count++;
    this.length += size;
    this.take(claim, size);
  }

  offer(p: EmittedPacket): boolean {
    if (this.config.options.stallEnable) {
      const size = this.stage(p.packet);
      const claim = this.claim(reservationKind(p.packet), size);
      // The hart waits while the FIFO drains; the stream is the same, only later.
      while (!this.fits(claim)) this.stall();
      this.accept(p.packet, size, claim, p.record);
      return true;
    }
    if (this.lostPending) {
      const support = this.lossSupport();
      const size = this.stage(support);
      const claim = this.claim('support', size);
      if (this.fits(claim)) {
        this.accept(support, size, claim, p.record);
        this.observer?.packet(support, 'trace-loss', true);
        this.lostPending = false;
        this.onLoss();
      }
      if (!this.isRetry(p.packet)) this.dropped++;
      return false;
    }
    const size = this.stage(p.packet);
    const claim = this.claim(reservationKind(p.packet), size);
    if (!this.fits(claim)) {
      // After a loss the trace is already reported lost until a sync gets through: a sync that
      // does not fit yet is tried again at the next view (a retry, not a lost packet), and nothing
      // reports the loss a second time.
      if (!this.awaitingSync()) this.lostPending = true;
      if (!this.isRetry(p.packet)) this.dropped++;
      return false;
    }
    this.accept(p.packet, size, claim, p.record);
    return true;
  }

  /**
   * A te_data packet (encapsulated with flow 3). It waits, stalls or is lost as an instruction
   * packet would; after a loss nothing of data trace goes out until the instruction sync does.
   */
  offerData(packet: DataPacket, atomicSizeField: number, record: number): boolean {
    const bytes = encapsulate(packData(packet, dataWidths(dataPacketParams(this.config.params)), this.config.params.payload_layout, atomicSizeField), this.config.params, { msgType: MSG_TYPE.data });
    const claim = this.claim('data', bytes.length);
    const place = (): void => {
      if (this.out.length - this.length < bytes.length) {
        const bigger = new Uint8Array(Math.max(this.out.length * 2, this.length + bytes.length));
        bigger.set(this.out.subarray(0, this.length));
        this.out = bigger;
      }
      this.out.set(bytes, this.length);
      if (this.keepPackets) this.dataPackets.push({ packet, offset: this.handedOver + this.length, record });
      this.count++;
      this.length += bytes.length;
      this.take(claim, bytes.length);
    };
    if (this.config.options.stallEnable) {
      while (!this.fits(claim)) this.stall();
      place();
      return true;
    }
    if (this.lostPending || this.awaitingSync() || !this.fits(claim)) {
      if (!this.lostPending && !this.awaitingSync()) this.lostPending = true;
      this.dropped++;
      return false;
    }
    place();
    return true;
  }

  /** A sync offered after a loss: when dropped it is tried again, so it is not a lost packet. */
  private isRetry(p: Packet): boolean {
    return this.awaitingSync() && isSync(p);
  }

  /** New options: support packets and packing (implicit exception) follow them. */
  setOptions(o: EtraceOptions): void {
    this.config = { params: this.config.params, options: o };
    this.mode = { implicit_exception: o.ImplicitExcept };
  }

  private lossSupport(): Packet {
    return supportPacket(this.config, true, QUAL_STATUS.trace_lost);
  }

  takeBytes(): Uint8Array {
    const bytes = this.out.slice(0, this.length);
    this.handedOver += this.length;
    this.length = 0;
    return bytes;
  }

  result(): EncodeResult {
    let departures: Uint32Array | undefined;
    if (this.departures) {
      // The packets still in the stages land and the FIFO drains to its end: the cycles after the
      // last record.
      while (this.stored > 0 || this.inFlight.length > 0) this.nextCycle();
      departures = this.departures.result();
    }
    return {
      ...(departures ? { departures } : {}),
      bytes: this.out.slice(0, this.length),
      byteCount: this.handedOver + this.length,
      packets: this.packets,
      dataPackets: this.dataPackets,
      packetCount: this.count,
      dropped: this.dropped,
      stallCycles: this.stallCycles,
      viewHolds: this.viewHolds,
    };
  }
}

/** F3 SF0 or SF1: the packets that end a loss (the decoder restarts at them). */
function isSync(p: Packet): boolean {
  return p.format === 3n && (p.subformat === 0n || p.subformat === 1n);
}
