/**
 * The N-Trace encoder's output side: the MSEO byte stream leaves through an output FIFO of
 * `fifoBytes` bytes, one byte per cycle the transport is ready. A message that does not fit is
 * lost (trTeInstStallEna = 0): the encoder reports the overrun once with an Error message (ETYPE 0,
 * as soon as it fits) and restarts the trace with ProgTraceSync(SYNC 7) (as soon as that fits). With
 * stall (trTeInstStallEna = 1) the hart waits instead and nothing is lost. The rules, cycle by
 * cycle, are in docs/ntrace-model.md "Output FIFO, overrun and stall"; the RTL implements them.
 */
import {
  type NtraceEncodeOptions,
  NtraceEncoder,
  type NtraceSink,
  OFFER_ERROR,
  OFFER_MESSAGE,
  OFFER_SYNC7,
} from './encoder.ts';
import type { NtraceMessage } from './messages.ts';
import type { NtraceConfig } from './settings.ts';
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
  /** Cycles after the last record spent at most waiting for a pending Error message and for the FIFO to empty (default 2^20). */
  drainLimit?: number;
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
 * `encodeNtraceStream` a record at a time: a co-simulation pushes each record as it streams it to
 * the RTL and compares the bytes so far (`bytes`) or at the end (`finish()`).
 */
export class NtraceStreamEncoder implements NtraceSink {
  private readonly enc: NtraceEncoder;
  private readonly ready: ((cycle: number) => boolean) | undefined;
  private readonly stall: boolean;
  private readonly capacity: number;
  private readonly drainLimit: number;
  /** The current cycle (-1 before the first record). */
  private cycle = -1;
  /** Bytes in the FIFO. */
  private fill = 0;
  private state = NORMAL;
  /** Time of the first message lost (the Error message's TSTAMP). */
  private lossTime = 0n;
  private lost = 0;
  private overruns = 0;
  private syncRetries = 0;
  private stallCycles = 0;
  private stallOrOverflow = false;

  constructor(config: NtraceConfig, opts: NtraceStreamOptions = {}) {
    this.enc = new NtraceEncoder(config, opts);
    this.enc.connect(this);
    this.ready = opts.ready;
    this.stall = opts.stall ?? config.stallEnable;
    this.capacity = opts.fifoBytes ?? config.fifoBytes;
    this.drainLimit = opts.drainLimit ?? 1 << 20;
  }

  /** The bytes that entered the FIFO so far. */
  get bytes(): Uint8Array {
    return this.enc.bytes;
  }

  /** Bytes waiting in the FIFO. */
  get fifoFill(): number {
    return this.fill;
  }

  get currentCycle(): number {
    return this.cycle;
  }

  push(r: RetirementRecord): void {
    if (!r.sameCycle || this.cycle < 0) this.nextCycle();
    this.enc.push(r);
  }

  /** The end of the records: one more cycle for the trace stop, then cycles until the FIFO is empty. */
  finish(): NtraceStreamResult {
    this.nextCycle();
    const { messages } = this.enc.finish();
    // An Error message still due after the records goes out here (as the last message).
    for (let k = 0; k < this.drainLimit && (this.fill > 0 || this.state === LOST); k++) this.nextCycle();
    return {
      bytes: this.enc.bytes,
      messages,
      lost: this.lost,
      overruns: this.overruns,
      syncRetries: this.syncRetries,
      stallCycles: this.stallCycles,
      stallOrOverflow: this.stallOrOverflow,
      cycles: this.cycle + 1,
      errorUnsent: this.state === LOST,
    };
  }

  /**
   * A new cycle: one byte leaves if the transport is ready; the encoder learns the state the FIFO
   * ended the last cycle in (an Error message that entered then makes the restart due now); then a
   * pending Error message is offered.
   */
  private nextCycle(): void {
    this.tick();
    this.enc.beginCycle();
    if (this.state === LOST) this.enc.sendError(this.lossTime);
  }

  private tick(): void {
    this.cycle++;
    if (this.fill > 0 && (this.ready === undefined || this.ready(this.cycle))) this.fill--;
  }

  /** NtraceSink: whether a message of `size` bytes enters the FIFO now. */
  offer(size: number, what: number, t: bigint): boolean {
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
      this.fill += size;
      return true;
    }
    if (this.state === NORMAL) {
      if (fits) {
        this.fill += size;
        return true;
      }
      // what is OFFER_MESSAGE here: Error and SYNC 7 exist only after a loss.
      this.state = LOST;
      this.lossTime = t;
      this.stallOrOverflow = true;
      this.lost++;
      return false;
    }
    if (what === OFFER_MESSAGE) {
      this.lost++;
      return false;
    }
    if (what === OFFER_ERROR && this.state === LOST) {
      if (!fits) return false;
      this.fill += size;
      this.state = ERROR_SENT;
      this.overruns++;
      return true;
    }
    if (what === OFFER_SYNC7 && this.state === ERROR_SENT) {
      if (!fits) {
        this.syncRetries++;
        return false;
      }
      this.fill += size;
      this.state = NORMAL;
      return true;
    }
    throw new Error(`N-Trace output: offer of kind ${what} in FIFO state ${this.state}`);
  }
}
