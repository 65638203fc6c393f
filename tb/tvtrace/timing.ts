/**
 * When the bytes of the tandem-verification trace leave the generated encoder: a cycle model of
 * its output FIFO (templates/tvtrace/tvtrace_fifo.sv.hbs), which the bytes themselves do not depend
 * on (the model, golden-model/tvtrace/encoder.ts, has no timing). The co-simulation compares the
 * RTL's beats and held cycles with it, and `rvtrace encode --backpressure` reports its stall cycles.
 *
 * Cycle t, with `count` bytes in the FIFO before it:
 * - a beat of min(out_bytes, count) bytes leaves if count > 0 and the transport is ready(t);
 * - the record offered (if any) is taken when its length <= fifo_bytes - count (the room before
 *   the beat), else the hart holds it (a stall cycle) and offers it again in cycle t + 1;
 * - count becomes count - beat + (taken ? length : 0).
 */

export interface TvBeat {
  readonly cycle: number;
  readonly bytes: number;
}

export interface TvTiming {
  /** Cycles a record was offered and not taken. */
  readonly stalls: number;
  /** Cycles until the FIFO was empty after the last frame. */
  readonly cycles: number;
  /** Cycles after the last frame was taken until the last byte left (idle frames a run needs). */
  readonly drain: number;
  /** Every beat, in order (when `beats` was asked for). */
  readonly beats?: TvBeat[];
}

/**
 * Runs `frames` (a record's length in bytes, or `null` for a cycle without a record) through the
 * FIFO; `ready(t)` says whether the transport takes a beat in cycle t.
 */
export function tvFifoTiming(
  frames: readonly (number | null)[],
  fifo: { readonly fifoBytes: number; readonly outBytes: number },
  ready: (cycle: number) => boolean,
  withBeats = false,
): TvTiming {
  const cap = fifo.fifoBytes;
  const b = fifo.outBytes;
  const beats: TvBeat[] | undefined = withBeats ? [] : undefined;
  let count = 0;
  let stalls = 0;
  let t = 0;
  const beat = (): number => {
    if (count === 0 || !ready(t)) return 0;
    const n = Math.min(count, b);
    beats?.push({ cycle: t, bytes: n });
    return n;
  };
  for (let i = 0; i < frames.length; t++) {
    const f = frames[i]!;
    if (f !== null && f > cap) throw new Error(`a record of ${f} bytes cannot enter a FIFO of ${cap} bytes`);
    const out = beat();
    if (f === null) {
      i++;
    } else if (f <= cap - count) {
      count += f;
      i++;
    } else {
      stalls++;
    }
    count -= out;
  }
  let drain = 0;
  for (; count > 0; t++, drain++) count -= beat();
  return { stalls, cycles: t, drain, ...(beats ? { beats } : {}) };
}
