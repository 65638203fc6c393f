/**
 * A co-simulation's two byte streams compared as they come: the model's in pieces (as its encoder
 * hands them over) and the RTL's a byte at a time with the cycle it left. Compared bytes are
 * dropped, so memory follows only the distance between the two (the model runs a little ahead of
 * the simulator), not the stream's length. What a mismatch report needs is kept: the offset of the
 * first difference, the RTL's bytes from there on (up to AFTER_DIFFERENCE) and that byte's cycle;
 * the bytes before it are the model's, which the report encodes again.
 */

/** RTL bytes kept after the first difference: enough for the report's packets around it. */
const AFTER_DIFFERENCE = 256;

export class StreamCompare {
  /** Bytes that one side sent and the other has not yet (only one side is ever ahead). */
  private pending = new Uint8Array(1 << 12);
  private pendingCycles = new Float64Array(1 << 12);
  private head = 0;
  private tail = 0;
  /** Which side the pending bytes are from. */
  private modelAhead = true;
  private expectedCount = 0;
  private actualCount = 0;
  private lastCycle = 0;
  private difference: number | undefined;
  private differenceCycle = 0;
  /** The RTL's bytes from the first difference on. */
  private readonly after: number[] = [];
  /** Every byte of both sides, when kept (a test's stream, decoded after the run). */
  private readonly kept?: { expected: Growing; actual: Growing };

  constructor(keep = false) {
    if (keep) this.kept = { expected: new Growing(), actual: new Growing() };
  }

  /** The model's next bytes. */
  expected(bytes: Uint8Array): void {
    this.kept?.expected.append(bytes);
    for (const byte of bytes) {
      const offset = this.expectedCount++;
      if (!this.modelAhead && this.head < this.tail) this.compare(offset, byte, this.pending[this.head]!, this.pendingCycles[this.head++]!);
      else if (this.difference === undefined) this.hold(byte, 0, true);
    }
  }

  /** The RTL's next byte and the cycle it left in. */
  actual(byte: number, cycle: number): void {
    this.kept?.actual.push(byte);
    const offset = this.actualCount++;
    this.lastCycle = cycle;
    if (this.difference !== undefined) {
      if (this.after.length < AFTER_DIFFERENCE) this.after.push(byte);
    } else if (this.modelAhead && this.head < this.tail) this.compare(offset, this.pending[this.head++]!, byte, cycle);
    else this.hold(byte, cycle, false);
  }

  /** Byte `offset` of both streams: the first that differs is remembered with the RTL's bytes from it on. */
  private compare(offset: number, expected: number, actual: number, cycle: number): void {
    if (this.difference !== undefined || expected === actual) return;
    this.difference = offset;
    this.differenceCycle = cycle;
    this.after.push(actual);
    // The RTL's bytes that came after this one and waited for the model's.
    if (!this.modelAhead) for (let i = this.head; i < this.tail && this.after.length < AFTER_DIFFERENCE; i++) this.after.push(this.pending[i]!);
  }

  private hold(byte: number, cycle: number, fromModel: boolean): void {
    if (this.head === this.tail) {
      this.head = this.tail = 0;
      this.modelAhead = fromModel;
    }
    if (this.tail === this.pending.length) this.makeRoom();
    this.pending[this.tail] = byte;
    this.pendingCycles[this.tail++] = cycle;
  }

  /** Moves the pending bytes to the front, in a larger buffer when they fill half of it. */
  private makeRoom(): void {
    const n = this.tail - this.head;
    const size = n * 2 > this.pending.length ? this.pending.length * 2 : this.pending.length;
    const bytes = new Uint8Array(size);
    const cycles = new Float64Array(size);
    bytes.set(this.pending.subarray(this.head, this.tail));
    cycles.set(this.pendingCycles.subarray(this.head, this.tail));
    this.pending = bytes;
    this.pendingCycles = cycles;
    this.head = 0;
    this.tail = n;
  }

  /**
   * The outcome once both streams have ended: undefined when identical; else the offset of the
   * first difference (or where the shorter stream ends), the RTL's byte count, its bytes from that
   * offset on (at most AFTER_DIFFERENCE) and the cycle that byte left in (of the RTL's last byte
   * when it sent none there).
   */
  result(): { offset: number; cycle: number; actualLength: number; actualFrom: Uint8Array } | undefined {
    let offset = this.difference;
    let cycle = this.differenceCycle;
    if (offset === undefined) {
      if (this.expectedCount === this.actualCount) return undefined;
      offset = Math.min(this.expectedCount, this.actualCount);
      cycle = this.lastCycle;
      // The RTL's extra bytes are the pending ones.
      if (!this.modelAhead) for (let i = this.head; i < this.tail && this.after.length < AFTER_DIFFERENCE; i++) this.after.push(this.pending[i]!);
      if (this.after.length > 0 && !this.modelAhead) cycle = this.pendingCycles[this.head]!;
    }
    return { offset, cycle, actualLength: this.actualCount, actualFrom: Uint8Array.from(this.after) };
  }

  /** Every byte of each side (only when constructed with `keep`). */
  keptBytes(): { expected: Uint8Array; actual: Uint8Array } | undefined {
    return this.kept ? { expected: this.kept.expected.bytes(), actual: this.kept.actual.bytes() } : undefined;
  }
}

/** A byte array that grows by doubling. */
class Growing {
  private data = new Uint8Array(1 << 12);
  private length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.data.length) return;
    const bigger = new Uint8Array(Math.max(this.data.length * 2, this.length + n));
    bigger.set(this.data.subarray(0, this.length));
    this.data = bigger;
  }

  push(byte: number): void {
    this.reserve(1);
    this.data[this.length++] = byte;
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.data.set(bytes, this.length);
    this.length += bytes.length;
  }

  bytes(): Uint8Array {
    return this.data.slice(0, this.length);
  }
}
