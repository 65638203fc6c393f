/**
 * The encoder's output side: encapsulation into the byte stream of the design note and the output
 * FIFO of `fifo_depth_p` bytes. Back-pressure (the transport not ready) fills the FIFO; a packet that
 * does not fit is lost, the loss is reported by a support packet (qual_status trace_lost) as soon as
 * one fits, and the encoder restarts with a synchronisation. With stallEnable the hart is stalled
 * instead and nothing is lost (docs/etrace-model.md, "Output FIFO and trace loss").
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

export interface EncodeResult {
  /** The encapsulated byte stream, as it leaves the FIFO. */
  bytes: Uint8Array;
  /** The packets in the stream, in order, with their byte offset (empty unless `keepPackets`). */
  packets: { packet: Packet; offset: number; record: number }[];
  packetCount: number;
  /** The te_data packets in the stream with their byte offset (data trace; empty unless `keepPackets`). */
  dataPackets: { packet: DataPacket; offset: number; record: number }[];
  /** Packets dropped by a full FIFO. */
  dropped: number;
  /** Cycles the hart was stalled (stallEnable). */
  stallCycles: number;
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
  /** Data trace: the encoder, and the stream's accesses and responses grouped by record. */
  private readonly data?: { encoder: DataEncoder; accesses: Map<number, { a: DataAccess; n: number }[]>; responses: Map<number, LoadResponse[]>; cycle: RetirementRecord[] };

  constructor(
    config: EtraceConfig,
    private readonly opts: EncodeOptions = {},
  ) {
    this.config = config;
    this.out = new OutputFifo(config, opts.ready, opts.keepPackets ?? true, opts.departures === true && opts.ready !== undefined);
    this.encoder = new EtraceEncoder(config, (p) => this.out.offer(p), opts.observer);
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
    if (!r.sameCycle) this.out.nextCycle();
    this.encoder.push(r);
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

  finish(): EncodeResult {
    this.out.nextCycle();
    this.encoder.finish();
    return this.out.result();
  }
}

class OutputFifo {
  /** The byte stream so far; packets are written in place, accepted by moving `length`. */
  private out = new Uint8Array(1 << 16);
  private readonly packets: EncodeResult['packets'] = [];
  private readonly dataPackets: EncodeResult['dataPackets'] = [];
  /** An instruction-trace synchronisation was accepted: the data history starts afresh. */
  onSync: () => void = () => {};
  private count = 0;
  private length = 0;
  /** Bytes accepted but not yet drained. */
  private fill = 0;
  private cycle = -1;
  private lostPending = false;
  private dropped = 0;
  private stallCycles = 0;
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
  }

  /** A new cycle: the transport takes one byte if it is ready. */
  nextCycle(): void {
    this.cycle++;
    this.drain();
  }

  private drain(): void {
    if (this.fill > 0 && (this.ready === undefined || this.ready(this.cycle))) {
      this.departures?.add(this.cycle);
      this.fill--;
    }
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

  private accept(packet: Packet, size: number, record: number): void {
    if (this.keepPackets) this.packets.push({ packet, offset: this.length, record });
    if (packet.format === 3n && packet.subformat !== 2n) this.onSync();
    this.count++;
    this.length += size;
    if (this.ready !== undefined) this.fill += size;
  }

  private fits(n: number): boolean {
    return this.ready === undefined || this.fill + n <= this.config.params.fifo_depth_p;
  }

  offer(p: EmittedPacket): boolean {
    if (this.config.options.stallEnable) {
      const size = this.stage(p.packet);
      // The hart waits while the FIFO drains; the stream is the same, only later.
      while (!this.fits(size)) {
        this.stallCycles++;
        this.cycle++;
        this.drain();
      }
      this.accept(p.packet, size, p.record);
      return true;
    }
    if (this.lostPending) {
      const support = this.lossSupport();
      const size = this.stage(support);
      if (this.fits(size)) {
        this.accept(support, size, p.record);
        this.observer?.packet(support, 'trace-loss', true);
        this.lostPending = false;
        this.onLoss();
      }
      if (!this.isRetry(p.packet)) this.dropped++;
      return false;
    }
    const size = this.stage(p.packet);
    if (!this.fits(size)) {
      // After a loss the trace is already reported lost until a sync gets through: a sync that
      // does not fit yet is tried again at the next view (a retry, not a lost packet), and nothing
      // reports the loss a second time.
      if (!this.awaitingSync()) this.lostPending = true;
      if (!this.isRetry(p.packet)) this.dropped++;
      return false;
    }
    this.accept(p.packet, size, p.record);
    return true;
  }

  /**
   * A te_data packet (encapsulated with flow 3). It waits, stalls or is lost as an instruction
   * packet would; after a loss nothing of data trace goes out until the instruction sync does.
   */
  offerData(packet: DataPacket, atomicSizeField: number, record: number): boolean {
    const bytes = encapsulate(packData(packet, dataWidths(dataPacketParams(this.config.params)), this.config.params.payload_layout, atomicSizeField), this.config.params, { msgType: MSG_TYPE.data });
    const place = (): void => {
      if (this.out.length - this.length < bytes.length) {
        const bigger = new Uint8Array(Math.max(this.out.length * 2, this.length + bytes.length));
        bigger.set(this.out.subarray(0, this.length));
        this.out = bigger;
      }
      this.out.set(bytes, this.length);
      if (this.keepPackets) this.dataPackets.push({ packet, offset: this.length, record });
      this.count++;
      this.length += bytes.length;
      if (this.ready !== undefined) this.fill += bytes.length;
    };
    if (this.config.options.stallEnable) {
      while (!this.fits(bytes.length)) {
        this.stallCycles++;
        this.cycle++;
        this.drain();
      }
      place();
      return true;
    }
    if (this.lostPending || this.awaitingSync() || !this.fits(bytes.length)) {
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

  result(): EncodeResult {
    let departures: Uint32Array | undefined;
    if (this.departures) {
      // The FIFO drains to its end: the cycles after the last record.
      while (this.fill > 0) {
        this.cycle++;
        this.drain();
      }
      departures = this.departures.result();
    }
    return {
      ...(departures ? { departures } : {}),
      bytes: this.out.slice(0, this.length),
      packets: this.packets,
      dataPackets: this.dataPackets,
      packetCount: this.count,
      dropped: this.dropped,
      stallCycles: this.stallCycles,
    };
  }
}

/** F3 SF0 or SF1: the packets that end a loss (the decoder restarts at them). */
function isSync(p: Packet): boolean {
  return p.format === 3n && (p.subformat === 0n || p.subformat === 1n);
}
