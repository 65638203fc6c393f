/**
 * The model of an encoder block behind the waveform (`rvtrace check`): an encoder model with an
 * output FIFO asks whether the transport was ready in its cycles (`ready(m)`), and a model that
 * stalls the hart asks for cycles after the record it is given. So the records rebuilt from the
 * waveform go to the model only once the waveform has run `lookahead` cycles past them, and the
 * ready input of each waveform cycle is kept from the cycle the model last asked for on.
 *
 * Model cycle m is waveform cycle m + `offset` (the RTL decides a record in the cycle after its
 * frame). After the waveform has ended, a cycle past its end reads as ready: the model's FIFO drains
 * what is left (bytes that leave after the end are not compared), and a sink left not ready at
 * the end cannot hold the model for ever.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import { BitWindow } from './logs.ts';

/** How far the waveform runs ahead of the model (cycles): the longest stall the model can wait out. */
export const LOOKAHEAD = 1 << 16;

export class LaggedFeed<R> {
  private readonly readyBits = new BitWindow();
  private readonly queue: { record: R; cycle: number }[] = [];
  private head = 0;
  private asked = 0;
  private ended = false;

  /**
   * `push` gives a record to the model; `hasReady` false: no ready input (the transport is
   * always ready).
   */
  constructor(
    private readonly push: (record: R) => void,
    private readonly offset: number,
    private readonly hasReady: boolean,
    private readonly lookahead = LOOKAHEAD,
  ) {}

  /** The model's ready callback. */
  readonly ready = (m: number): boolean => {
    if (!this.hasReady) return true;
    const t = m + this.offset;
    this.asked = t;
    const bits = this.readyBits;
    if (t < bits.end) return bits.get(t);
    if (this.ended) return true;
    throw new RvError('bad-value', `the model stalls past waveform cycle ${t}, more than ${this.lookahead} cycles behind the waveform: the stall is longer than the check follows`);
  };

  /** The ready input of the next waveform cycle (cycles in order from 0). */
  readyInput(bit: boolean): void {
    if (this.hasReady) this.readyBits.push(bit);
  }

  /** A record of waveform cycle `cycle`; records that the waveform has run far enough past go to the model. */
  add(record: R, cycle: number): void {
    this.queue.push({ record, cycle });
  }

  /** Gives the model the records the waveform, now at cycle `now`, has run `lookahead` cycles past. */
  advance(now: number): void {
    this.feed(now - this.lookahead);
  }

  /** The waveform has ended: every record goes to the model. */
  end(): void {
    this.ended = true;
    this.feed(Number.POSITIVE_INFINITY);
  }

  private feed(upTo: number): void {
    const q = this.queue;
    while (this.head < q.length && q[this.head]!.cycle <= upTo) this.push(q[this.head++]!.record);
    if (this.head > 4096 && this.head * 2 > q.length) {
      q.splice(0, this.head);
      this.head = 0;
    }
    // The model asks for cycles in order: the ones before its last question are done with.
    this.readyBits.drop(this.asked);
  }
}
