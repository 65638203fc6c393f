/**
 * Growing logs for the block checks of `rvtrace check`, in typed arrays (no object per cycle):
 * the bytes an output handshake moved with their cycles, and a window of one bit per cycle (a
 * ready input) that the model reads a little behind the waveform.
 */

/** Bytes and the cycle each one moved (an output handshake's, in a check or a co-simulation). */
export class ByteLog {
  bytes = new Uint8Array(1 << 12);
  cycles = new Float64Array(1 << 12);
  length = 0;

  /** The bytes of a capture file: the sink's file has no cycles (all 0). */
  static of(bytes: Uint8Array): ByteLog {
    const log = new ByteLog();
    for (const b of bytes) log.push(b, 0);
    return log;
  }

  push(byte: number, cycle: number): void {
    if (this.length === this.bytes.length) {
      const bytes = new Uint8Array(this.length * 2);
      bytes.set(this.bytes);
      this.bytes = bytes;
      const cycles = new Float64Array(this.length * 2);
      cycles.set(this.cycles);
      this.cycles = cycles;
    }
    this.bytes[this.length] = byte;
    this.cycles[this.length++] = cycle;
  }

  /** The bytes so far (a view: valid until the next push). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** The cycle of byte `offset`, or of the last byte when there is no such byte (0 when none). */
  cycleOf(offset: number): number {
    return this.length === 0 ? 0 : this.cycles[Math.min(offset, this.length - 1)]!;
  }
}

/**
 * One bit per cycle from cycle 0, of which only the cycles from `drop`'s argument on are kept:
 * memory follows the distance between the writer (the waveform) and the reader (the model).
 */
export class BitWindow {
  private bits = new Uint8Array(1 << 12);
  /** The cycle of bits[0]. */
  private base = 0;
  /** Cycles written: 0 .. end - 1. */
  end = 0;

  push(bit: boolean): void {
    const i = this.end - this.base;
    if (i === this.bits.length) {
      const bigger = new Uint8Array(this.bits.length * 2);
      bigger.set(this.bits);
      this.bits = bigger;
    }
    this.bits[i] = bit ? 1 : 0;
    this.end++;
  }

  /** The bit of `cycle` (written, and not dropped). */
  get(cycle: number): boolean {
    if (cycle < this.base || cycle >= this.end) throw new RangeError(`cycle ${cycle} outside ${this.base}..${this.end - 1}`);
    return this.bits[cycle - this.base] === 1;
  }

  /** Forgets the cycles before `cycle` (moving the rest down once half the array is unused). */
  drop(cycle: number): void {
    const n = Math.min(cycle, this.end) - this.base;
    if (n <= 0 || n < this.bits.length / 2) return;
    this.bits.copyWithin(0, n, this.end - this.base);
    this.base += n;
  }
}
