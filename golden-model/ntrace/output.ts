/**
 * The N-Trace encoder's output side: the MSEO byte stream leaves through an output FIFO of
 * `fifoBytes` bytes, one byte per cycle the transport is ready. The messages the encoder makes in
 * a cycle are offered to the FIFO ntraceOutputLatency(config) cycles later (the RTL's register
 * stages between decision and output). A message that does not fit is lost (trTeInstStallEna = 0): the
 * encoder reports the overrun once with an Error message (ETYPE 0, as soon as it fits) and
 * restarts the trace with ProgTraceSync(SYNC 7) (as soon as that fits). With stall
 * (trTeInstStallEna = 1) the hart waits instead and nothing is lost. The rules, cycle by cycle,
 * are in docs/ntrace-model.md "Output FIFO, overrun and stall"; the RTL implements them.
 */
import {
  type NtraceEncodeOptions,
  NtraceEncoder,
  type NtraceOffer,
  type NtraceSink,
  OFFER_MESSAGE,
  OFFER_SYNC7,
} from './encoder.ts';
import type { NtraceMessage } from './messages.ts';
import type { NtraceConfig } from './settings.ts';
import { Departures } from '../common/departures.ts';
import type { RetirementRecord } from '../hart/records.ts';

export interface NtraceStreamOptions extends NtraceEncodeOptions {
  /**
   * Whether the transport takes a byte in a cycle; undefined = always ready (the FIFO is still
   * modelled: one byte per cycle). Cycles are numbered from 0: each record that starts a cycle,
   * each stall cycle, then the cycles after the last record.
   */
  ready?: (cycle: number) => boolean;
  /** trTeInstStallEna; default `config.stallEnable`. */
  stall?: boolean;
  /** FIFO size in bytes; default `config.fifoBytes`. */
  fifoBytes?: number;
  /**
   * Cycles from the decision of a message to its offer to the FIFO; default
   * ntraceOutputLatency(config), the generated RTL's. Other values (at least 1) model the same
   * rules with another pipeline.
   */
  latency?: number;
  /** Cycles after the last record spent at most waiting for a pending Error message and for the FIFO to empty (default 2^20). */
  drainLimit?: number;
  /** Record the cycle each byte leaves (needs `ready`; NtraceStreamResult.departures). */
  departures?: boolean;
}

export interface NtraceStreamResult {
  /** The byte stream as it leaves the FIFO (every message that entered it, in order). */
  bytes: Uint8Array;
  /** The messages of `bytes` with their offsets (empty with `messages: false`). */
  messages: NtraceMessage[];
  /** Messages the encoder made that did not enter the FIFO (refused SYNC 7 retries are not counted). */
  lost: number;
  /** Overruns reported: Error messages sent. */
  overruns: number;
  /** SYNC 7 messages that did not fit and were tried again at the next traced record. */
  syncRetries: number;
  /** Cycles the hart was stalled (stall only). */
  stallCycles: number;
  /** trTeInstStallOrOverflow: a message was lost or the hart was stalled. */
  stallOrOverflow: boolean;
  /** Cycles simulated: 0 .. cycles-1, up to the one in which the last byte left (or the drain limit). */
  cycles: number;
  /** An overrun whose Error message never fitted before the drain limit (the transport never got ready). */
  errorUnsent: boolean;
  /** With `departures` and a `ready` transport: the cycle in which each byte of `bytes` left. */
  departures?: Uint32Array;
}

/** Encodes a whole stream of records through the output FIFO. */
export function encodeNtraceStream(records: readonly RetirementRecord[], config: NtraceConfig, opts: NtraceStreamOptions = {}): NtraceStreamResult {
  const s = new NtraceStreamEncoder(config, opts);
  for (let i = 0; i < records.length; i++) s.push(records[i]!);
  return s.finish();
}

/** FIFO states. */
const NORMAL = 0;
/** A message was lost; the Error message has not entered yet. Every message is dropped. */
const LOST = 1;
/** The Error message entered; waiting for SYNC 7 to enter. Every other message is dropped. */
const ERROR_SENT = 2;

/**
 * Cycles from the decision of a message to its offer to the FIFO in the generated RTL: ntrace_output
 * registers the decision's slots (stage A), then their bytes and lengths (stage B), and offers them
 * from stage B (issue 25: the message layout and the FIFO's acceptance and write each fill most of
 * a cycle). With timestamps a stage T between them holds the slots with their TSTAMP (the time
 * since the last TSTAMP made, which takes most of a cycle before the layout can start).
 */
export function ntraceOutputLatency(config: NtraceConfig): number {
  return config.timestamp ? 3 : 2;
}

/**
 * `encodeNtraceStream` a record at a time: a co-simulation pushes each record as it streams it to
 * the RTL and compares the bytes so far (`bytes`) or at the end (`finish()`).
 */
export class NtraceStreamEncoder implements NtraceSink {
  private readonly enc: NtraceEncoder;
  private readonly ready: ((cycle: number) => boolean) | undefined;
  private readonly stall: boolean;
  private readonly capacity: number;
  private readonly drainLimit: number;
  private readonly latency: number;
  /** The current cycle (-1 before the first record). */
  private cycle = -1;
  /** Bytes in the FIFO. */
  private fill = 0;
  private state = NORMAL;
  /** Time of the first message lost (the Error message's TSTAMP time). */
  private lossTime = 0n;
  /** The TSTAMP time of the last message that entered (the base of the Error message's TSTAMP). */
  private lastTs = 0n;
  /** An Ownership message was lost and no Error message has reported it yet (ECODE bit 3). */
  private ownershipLost = false;
  private lost = 0;
  private overruns = 0;
  private syncRetries = 0;
  private stallCycles = 0;
  private stallOrOverflow = false;
  /** The bytes that entered the FIFO, and their messages. */
  private out = new Uint8Array(1 << 12);
  private outLength = 0;
  /** The cycle each byte left, when asked for. */
  private departures?: Departures;
  private readonly messages: NtraceMessage[] = [];
  /** The messages made in the current cycle. */
  private made: NtraceOffer[] = [];
  /** The messages of earlier cycles not offered yet, one list per cycle, oldest first. */
  private readonly stage: NtraceOffer[][] = [];

  constructor(config: NtraceConfig, opts: NtraceStreamOptions = {}) {
    this.enc = new NtraceEncoder(config, opts);
    this.enc.connect(this);
    this.ready = opts.ready;
    this.stall = opts.stall ?? config.stallEnable;
    this.capacity = opts.fifoBytes ?? config.fifoBytes;
    this.drainLimit = opts.drainLimit ?? 1 << 20;
    this.latency = opts.latency ?? ntraceOutputLatency(config);
    if (opts.departures === true && opts.ready !== undefined) this.departures = new Departures();
    if (!Number.isInteger(this.latency) || this.latency < 1) throw new Error(`N-Trace output latency ${this.latency}: at least 1 cycle`);
  }

  /** The bytes that entered the FIFO so far. */
  get bytes(): Uint8Array {
    return this.out.slice(0, this.outLength);
  }

  get currentCycle(): number {
    return this.cycle;
  }

  push(r: RetirementRecord): void {
    if (!r.sameCycle || this.cycle < 0) this.nextCycle();
    this.enc.push(r);
  }

  /** NtraceSink: a message the encoder made in this cycle. */
  take(offer: NtraceOffer): void {
    this.made.push(offer);
  }

  /**
   * The end of the records: one more cycle for the trace stop, then cycles until the messages
   * still in the stage have been offered, the FIFO is empty and no Error message is due.
   */
  finish(): NtraceStreamResult {
    this.nextCycle();
    this.enc.finish();
    for (let k = 0; k < this.drainLimit && (this.fill > 0 || this.state === LOST || this.made.length > 0 || this.stage.some((c) => c.length > 0)); k++) this.nextCycle();
    return {
      bytes: this.bytes,
      messages: this.messages,
      lost: this.lost,
      overruns: this.overruns,
      syncRetries: this.syncRetries,
      stallCycles: this.stallCycles,
      stallOrOverflow: this.stallOrOverflow,
      cycles: this.cycle + 1,
      errorUnsent: this.state === LOST,
      ...(this.departures ? { departures: this.departures.result() } : {}),
    };
  }

  /**
   * A new cycle: the last cycle's messages move into the stage; one byte leaves if the transport
   * is ready; the encoder learns whether the restart is due (the state the FIFO ended the last
   * cycle in: ERROR_SENT, with no SYNC 7 in the stage); a pending Error message is offered; then
   * the messages made `latency` cycles ago. The encoder handles the cycle's records
   * after this.
   */
  private nextCycle(): void {
    if (this.cycle >= 0) {
      this.stage.push(this.made);
      this.made = [];
    }
    this.tick();
    this.enc.setRecover(this.state === ERROR_SENT && !this.stage.some((c) => c.some((o) => o.what === OFFER_SYNC7)));
    if (this.state === LOST) this.offerError();
    if (this.stage.length >= this.latency) this.offerCycle(this.stage.shift()!);
  }

  private tick(): void {
    this.cycle++;
    if (this.fill > 0 && (this.ready === undefined || this.ready(this.cycle))) {
      this.departures?.add(this.cycle);
      this.fill--;
    }
  }

  /** The Error message: it enters if it fits, else it is offered again next cycle. */
  private offerError(): void {
    const e = this.enc.makeError(this.lossTime, this.lastTs, this.ownershipLost);
    if (this.fill + e.bytes.length > this.capacity) return;
    this.enter(e);
    this.state = ERROR_SENT;
    this.overruns++;
    this.ownershipLost = false;
  }

  /**
   * The messages of one cycle, in order. Without stall they enter as a prefix: after the first
   * one refused (or an Error message that did not fit) the rest of the cycle's are refused too.
   */
  private offerCycle(offers: readonly NtraceOffer[]): void {
    let held = !this.stall && this.state === LOST;
    for (const o of offers) {
      const refused = held || !this.offer(o);
      if (refused && held) this.refuseHeld(o);
      if (o.ownership && this.state === LOST && !(held && o.onlyAfterSync)) this.ownershipLost = true;
      held = held || refused;
    }
  }

  /** A message after one refused in its cycle: dropped (a SYNC 7 is a retry). */
  private refuseHeld(o: NtraceOffer): void {
    if (o.what === OFFER_SYNC7) this.syncRetries++;
    // An Ownership message there only because of a sync that did not enter was not made.
    else if (!(o.ownership && o.onlyAfterSync)) this.lost++;
  }

  private enter(o: NtraceOffer): void {
    const n = o.bytes.length;
    if (this.outLength + n > this.out.length) {
      const grown = new Uint8Array(Math.max(this.out.length * 2, this.outLength + n));
      grown.set(this.out.subarray(0, this.outLength));
      this.out = grown;
    }
    for (const m of o.messages) {
      m.offset += this.outLength;
      this.messages.push(m);
    }
    this.out.set(o.bytes, this.outLength);
    this.outLength += n;
    this.fill += n;
    this.lastTs = o.ts;
  }

  /** Whether a message enters the FIFO now (not after a refused one of its cycle). */
  private offer(o: NtraceOffer): boolean {
    const size = o.bytes.length;
    const fits = this.fill + size <= this.capacity;
    if (this.stall) {
      if (!fits) {
        if (size > this.capacity) throw new Error(`a ${size}-byte message cannot enter a ${this.capacity}-byte FIFO (fifo_bytes too small)`);
        this.stallOrOverflow = true;
        // The hart waits while the FIFO drains; the cycles go on.
        while (this.fill + size > this.capacity) {
          this.stallCycles++;
          this.tick();
        }
      }
      this.enter(o);
      return true;
    }
    if (this.state === NORMAL) {
      if (fits) {
        this.enter(o);
        return true;
      }
      // A message (Error and SYNC 7 exist only after a loss).
      this.state = LOST;
      this.lossTime = o.t;
      this.stallOrOverflow = true;
      this.lost++;
      return false;
    }
    if (o.what === OFFER_MESSAGE) {
      this.lost++;
      return false;
    }
    if (o.what === OFFER_SYNC7 && this.state === ERROR_SENT) {
      if (!fits) {
        this.syncRetries++;
        return false;
      }
      this.enter(o);
      this.state = NORMAL;
      return true;
    }
    throw new Error(`N-Trace output: offer of kind ${o.what} in FIFO state ${this.state}`);
  }
}
