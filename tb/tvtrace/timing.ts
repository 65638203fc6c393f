/**
 * When the bytes of the tandem-verification trace leave the generated encoder: a cycle model of
 * its output FIFO (templates/tvtrace/tvtrace_fifo.sv.hbs), which the bytes themselves do not depend
 * on (the model, golden-model/tvtrace/encoder.ts, has no timing). The co-simulation compares the
 * RTL's beats and held cycles with it, and `rvtrace encode --backpressure` reports its stall cycles.
 *
 * Cycle t, with `count` bytes in the FIFO and maybe a held record (the record register) before it:
 * - a beat of min(out_bytes, count) bytes leaves if count > 0 and the transport is ready(t);
 * - the held record enters the FIFO when its length <= fifo_bytes - count (the room before the
 *   beat), and the register is then free in this cycle;
 * - the record offered (if any) is taken into the register when that is free (empty, or emptied
 *   in this cycle), else the hart holds it (a stall cycle) and offers it again in cycle t + 1;
 * - count becomes count - beat + (the held record entered ? its length : 0).
 */

export interface TvTiming {
  /** Cycles a record was offered and not taken. */
  readonly stalls: number;
  /** Cycles until the FIFO was empty after the last frame. */
  readonly cycles: number;
  /** Cycles after the last frame was taken until the last byte left (idle frames a run needs). */
  readonly drain: number;
  /** Per cycle, the bytes of its beat (0: no beat), `cycles` entries (when asked for). */
  readonly counts?: Uint8Array;
}

/**
 * The FIFO and its record register, one cycle at a time (the rules above): the co-simulation's
 * batch model (tvFifoTiming) and `rvtrace check`, which follows a waveform cycle by cycle, both
 * step it.
 */
export class TvFifoClock {
  /** Bytes in the FIFO. */
  private count = 0;
  /** The record register: the held record's length, or null when it is empty. */
  private held: number | null = null;

  constructor(private readonly fifo: { readonly fifoBytes: number; readonly outBytes: number }) {}

  /**
   * The start of a cycle: the bytes of its beat (0 when the FIFO is empty or the transport is not
   * `ready`), and the held record enters the FIFO if it fits in the room before the beat.
   */
  step(ready: boolean): number {
    const out = this.count > 0 && ready ? Math.min(this.count, this.fifo.outBytes) : 0;
    if (this.held !== null && this.held <= this.fifo.fifoBytes - this.count) {
      this.count += this.held;
      this.held = null;
    }
    this.count -= out;
    return out;
  }

  /** The register takes a record offered in this cycle (rec_ready_o, after step). */
  get free(): boolean {
    return this.held === null;
  }

  /** A record of `length` bytes taken into the (free) register. */
  take(length: number): void {
    if (length > this.fifo.fifoBytes) throw new Error(`a record of ${length} bytes cannot enter a FIFO of ${this.fifo.fifoBytes} bytes`);
    this.held = length;
  }

  /** Nothing held and nothing in the FIFO. */
  get empty(): boolean {
    return this.count === 0 && this.held === null;
  }
}

/**
 * Runs `frames` (a record's length in bytes, or `null` for a cycle without a record) through the
 * FIFO; `ready(t)` says whether the transport takes a beat in cycle t.
 */
export function tvFifoTiming(
  frames: readonly (number | null)[],
  fifo: { readonly fifoBytes: number; readonly outBytes: number },
  ready: (cycle: number) => boolean,
  withCounts = false,
): TvTiming {
  const clock = new TvFifoClock(fifo);
  // The bytes of each cycle's beat, in a byte array that doubles (no object per beat).
  let counts = new Uint8Array(withCounts ? Math.max(1024, 4 * frames.length) : 0);
  let stalls = 0;
  let t = 0;
  const beat = (): void => {
    const n = clock.step(ready(t));
    if (!withCounts || n === 0) return;
    if (t >= counts.length) {
      const bigger = new Uint8Array(2 * counts.length);
      bigger.set(counts);
      counts = bigger;
    }
    counts[t] = n;
  };
  for (let i = 0; i < frames.length; t++) {
    const f = frames[i]!;
    beat();
    if (f === null) {
      i++;
    } else if (clock.free) {
      clock.take(f);
      i++;
    } else {
      stalls++;
    }
  }
  let drain = 0;
  for (; !clock.empty; t++, drain++) beat();
  return { stalls, cycles: t, drain, ...(withCounts ? { counts: counts.subarray(0, t) } : {}) };
}
