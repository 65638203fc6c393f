/** Timing for the bench: the best wall time of several runs, which the machine's noise inflates least. */

/** Runs `fn` `repeat` times and returns the shortest run, in seconds. */
export function bestSeconds(fn: () => void, repeat: number): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return best;
}
