/**
 * The cycle each byte of an output stream leaves its FIFO, in byte order (the E-Trace and N-Trace
 * output models record it when asked; `rvtrace vectors` expects every byte in its cycle).
 */
export class Departures {
  private cycles = new Uint32Array(1 << 12);
  private count = 0;

  /** The next byte of the stream leaves in `cycle`. */
  add(cycle: number): void {
    if (this.count === this.cycles.length) {
      const bigger = new Uint32Array(2 * this.count);
      bigger.set(this.cycles);
      this.cycles = bigger;
    }
    this.cycles[this.count++] = cycle;
  }

  /** The cycles of the bytes that have left. */
  result(): Uint32Array {
    return this.cycles.slice(0, this.count);
  }
}
