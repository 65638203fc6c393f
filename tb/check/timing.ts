/**
 * Trace bytes in their cycles (`rvtrace check`): the E-Trace and N-Trace models say in which cycle
 * each byte leaves their output FIFO (their departures), so a byte of the waveform that is right but
 * leaves in another cycle is a divergence, as it is for the testbench of `rvtrace vectors`.
 */
import type { ByteLog } from './logs.ts';

/** How many of the model's bytes leave before waveform cycle `end` (`due` does not decrease). */
export function dueBefore(due: ArrayLike<number>, end: number): number {
  let lo = 0;
  let hi = due.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (due[mid]! < end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first of the waveform's first `count` bytes (whose values are the model's) that left in
 * another cycle than the model's `due` one: the divergence is the earlier of the two cycles.
 */
export function firstMistimed(actual: ByteLog, due: ArrayLike<number>, count: number): { byte: number; cycle: number; text: string } | undefined {
  for (let k = 0; k < count; k++) {
    const seen = actual.cycles[k]!;
    const want = due[k]!;
    if (seen === want) continue;
    const cycle = Math.min(seen, want);
    const byte = `0x${actual.bytes[k]!.toString(16).padStart(2, '0')}`;
    return { byte: k, cycle, text: `first divergence at byte ${k}, waveform cycle ${cycle}: the byte (${byte}, the model's) left the encoder in cycle ${seen}, the model sends it in cycle ${want}${k > 0 ? ` (bytes 0 to ${k - 1} left in their cycles)` : ''}` };
  }
  return undefined;
}

/** The index of the last of `items` (in stream order) that starts at or before byte `byte`, or -1. */
export function itemAt(items: readonly { readonly offset: number }[], byte: number): number {
  let k = -1;
  while (k + 1 < items.length && items[k + 1]!.offset <= byte) k++;
  return k;
}
