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
 * Runs `frames` (a record's length in bytes, or `null` for a cycle without a record) through the
 * FIFO; `ready(t)` says whether the transport takes a beat in cycle t.
 */
export function tvFifoTiming(
  frames: readonly (number | null)[],
  fifo: { readonly fifoBytes: number; readonly outBytes: number },
  ready: (cycle: number) => boolean,
  withCounts = false,
): TvTiming {
  const cap = fifo.fifoBytes;
  const b = fifo.outBytes;
  // The bytes of each cycle's beat, in a byte array that doubles (no object per beat).
  let counts = new Uint8Array(withCounts ? Math.max(1024, 4 * frames.length) : 0);
  let count = 0;
  /** The record register: the held record's length, or null when it is empty. */
  let held: number | null = null;
  let stalls = 0;
  let t = 0;
  const beat = (): number => {
    if (count === 0 || !ready(t)) return 0;
    const n = Math.min(count, b);
    if (withCounts) {
      if (t >= counts.length) {
        const bigger = new Uint8Array(2 * counts.length);
        bigger.set(counts);
        counts = bigger;
      }
      counts[t] = n;
    }
    return n;
  };
  /** The held record enters the FIFO if it fits in the room before this cycle's beat. */
  const enter = (): void => {
    if (held !== null && held <= cap - count) {
      count += held;
      held = null;
    }
  };
  for (let i = 0; i < frames.length; t++) {
    const f = frames[i]!;
    if (f !== null && f > cap) throw new Error(`a record of ${f} bytes cannot enter a FIFO of ${cap} bytes`);
    const out = beat();
    enter();
    if (f === null) {
      i++;
    } else if (held === null) {
      held = f;
      i++;
    } else {
      stalls++;
    }
    count -= out;
  }
  let drain = 0;
  for (; count > 0 || held !== null; t++, drain++) {
    const out = beat();
    enter();
    count -= out;
  }
  return { stalls, cycles: t, drain, ...(withCounts ? { counts: counts.subarray(0, t) } : {}) };
}
