/**
 * The encoder's output side: encapsulation into the byte stream of the design note and the output
 * FIFO of `fifo_depth_p` bytes. Back-pressure (the transport not ready) fills the FIFO; a packet that
 * does not fit is lost, the loss is reported by a support packet (qual_status trace_lost) as soon as
 * one fits, and the encoder restarts with a synchronisation. With stallEnable the hart is stalled
 * instead and nothing is lost (docs/etrace-model.md, "Output FIFO and trace loss").
 */
import type { EtraceConfig, EtraceOptions } from './config.ts';
import { type EmittedPacket, EtraceEncoder, supportPacket } from './encoder.ts';
import { type Packet, QUAL_STATUS } from './packet/index.ts';
import { packetInto } from './packet/fast.ts';
import type { RetirementRecord } from '../hart/records.ts';

export interface EncodeResult {
  /** The encapsulated byte stream, as it leaves the FIFO. */
  bytes: Uint8Array;
  /** The packets in the stream, in order, with their byte offset (empty unless `keepPackets`). */
  packets: { packet: Packet; offset: number; record: number }[];
  packetCount: number;
  /** Packets dropped by a full FIFO. */
  dropped: number;
  /** Cycles the hart was stalled (stallEnable). */
  stallCycles: number;
}

export interface EncodeOptions {
  /**
   * Whether the transport accepts a byte in a cycle; undefined = always ready. Cycle numbers count
   * the records that start a cycle, then the cycles after the last record.
   */
  ready?: (cycle: number) => boolean;
  /** Keep every packet object in the result (for dumps and tests); default true. */
  keepPackets?: boolean;
  /** Run-time option changes (register writes), applied before the record of the given index. */
  optionChanges?: ReadonlyMap<number, EtraceOptions>;
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

  constructor(
    config: EtraceConfig,
    private readonly opts: EncodeOptions = {},
  ) {
    this.out = new OutputFifo(config, opts.ready, opts.keepPackets ?? true);
    this.encoder = new EtraceEncoder(config, (p) => this.out.offer(p));
    this.out.onLoss = () => this.encoder.lost();
    this.out.awaitingSync = () => this.encoder.isAwaitingSync();
  }

  push(r: RetirementRecord): void {
    const change = this.opts.optionChanges?.get(this.index);
    if (change) {
      this.encoder.changeOptions(change);
      this.out.setOptions(change);
    }
    if (!r.sameCycle) this.out.nextCycle();
    this.encoder.push(r);
    this.index++;
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
  private count = 0;
  private length = 0;
  /** Bytes accepted but not yet drained. */
  private fill = 0;
  private cycle = -1;
  private lostPending = false;
  private dropped = 0;
  private stallCycles = 0;
  onLoss: () => void = () => {};
  /** Whether the encoder is waiting for a synchronisation to get through after a loss. */
  awaitingSync: () => boolean = () => false;
  private mode: { implicit_exception: boolean };

  constructor(
    private config: EtraceConfig,
    private readonly ready: ((cycle: number) => boolean) | undefined,
    private readonly keepPackets: boolean,
  ) {
    this.mode = { implicit_exception: config.options.ImplicitExcept };
  }

  /** A new cycle: the transport takes one byte if it is ready. */
  nextCycle(): void {
    this.cycle++;
    this.drain();
  }

  private drain(): void {
    if (this.fill > 0 && (this.ready === undefined || this.ready(this.cycle))) this.fill--;
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
    return {
      bytes: this.out.slice(0, this.length),
      packets: this.packets,
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
