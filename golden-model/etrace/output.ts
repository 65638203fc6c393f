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
import { packetBytes } from './packet/fast.ts';
import type { RetirementRecord } from '../hart/records.ts';

export interface EncodeResult {
  /** The encapsulated byte stream, as it leaves the FIFO. */
  bytes: Uint8Array;
  /** The packets in the stream, in order, with their byte offset. */
  packets: { packet: Packet; offset: number; record: number }[];
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
  /** Run-time option changes (register writes), applied before the record of the given index. */
  optionChanges?: ReadonlyMap<number, EtraceOptions>;
}

/** Encodes a whole stream. */
export function encodeStream(records: readonly RetirementRecord[], config: EtraceConfig, opts: EncodeOptions = {}): EncodeResult {
  const out = new OutputFifo(config, opts.ready);
  const encoder = new EtraceEncoder(config, (p) => out.offer(p));
  out.onLoss = () => encoder.lost();
  records.forEach((r, i) => {
    const change = opts.optionChanges?.get(i);
    if (change) {
      encoder.changeOptions(change);
      out.setOptions(change);
    }
    if (!r.sameCycle) out.nextCycle();
    encoder.push(r);
  });
  out.nextCycle();
  encoder.finish();
  return out.result();
}

class OutputFifo {
  private readonly chunks: Uint8Array[] = [];
  private readonly packets: EncodeResult['packets'] = [];
  private length = 0;
  /** Bytes accepted but not yet drained. */
  private fill = 0;
  private cycle = -1;
  private lostPending = false;
  private dropped = 0;
  private stallCycles = 0;
  onLoss: () => void = () => {};
  private mode: { implicit_exception: boolean };

  constructor(
    private config: EtraceConfig,
    private readonly ready: ((cycle: number) => boolean) | undefined,
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

  private bytesOf(packet: Packet): Uint8Array {
    return packetBytes(packet, this.config.params, this.mode);
  }

  private accept(packet: Packet, bytes: Uint8Array, record: number): void {
    this.packets.push({ packet, offset: this.length, record });
    this.chunks.push(bytes);
    this.length += bytes.length;
    if (this.ready !== undefined) this.fill += bytes.length;
  }

  private fits(n: number): boolean {
    return this.ready === undefined || this.fill + n <= this.config.params.fifo_depth_p;
  }

  offer(p: EmittedPacket): boolean {
    const bytes = this.bytesOf(p.packet);
    if (this.config.options.stallEnable) {
      // The hart waits while the FIFO drains; the stream is the same, only later.
      while (!this.fits(bytes.length)) {
        this.stallCycles++;
        this.cycle++;
        this.drain();
      }
      this.accept(p.packet, bytes, p.record);
      return true;
    }
    if (this.lostPending) {
      const support = this.lossSupport();
      const supportBytes = this.bytesOf(support);
      if (this.fits(supportBytes.length)) {
        this.accept(support, supportBytes, p.record);
        this.lostPending = false;
        this.onLoss();
      }
      this.dropped++;
      return false;
    }
    if (!this.fits(bytes.length)) {
      this.dropped++;
      this.lostPending = true;
      return false;
    }
    this.accept(p.packet, bytes, p.record);
    return true;
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
    const bytes = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    return { bytes, packets: this.packets, dropped: this.dropped, stallCycles: this.stallCycles };
  }
}
