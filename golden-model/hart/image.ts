/**
 * Program image: what the decoder knows of the program, as address-ordered segments of bytes.
 * Built by the stimulus generator, read from our stream files, or collected from the executed
 * instructions of an imported spike-style trace (which then covers only what was executed).
 */

export interface Segment {
  base: bigint;
  bytes: Uint8Array;
}

export class ProgramImage {
  /** Segments sorted by base, non-overlapping. */
  readonly segments: Segment[];

  constructor(segments: Segment[] = []) {
    this.segments = [...segments].sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
    for (let i = 1; i < this.segments.length; i++) {
      const prev = this.segments[i - 1]!;
      if (prev.base + BigInt(prev.bytes.length) > this.segments[i]!.base) {
        throw new Error(`image segments overlap at 0x${this.segments[i]!.base.toString(16)}`);
      }
    }
  }

  /** The segment holding `addr`, or undefined. */
  private find(addr: bigint): Segment | undefined {
    // Segments are few (a handful for stimulus programs); a linear scan from a cached hit is fast.
    const last = this.lastHit;
    if (last && addr >= last.base && addr < last.base + BigInt(last.bytes.length)) return last;
    for (const s of this.segments) {
      if (addr >= s.base && addr < s.base + BigInt(s.bytes.length)) {
        this.lastHit = s;
        return s;
      }
    }
    return undefined;
  }
  private lastHit: Segment | undefined;

  /** The 16-bit parcel at `addr`, or undefined when the image does not cover it. */
  parcel(addr: bigint): number | undefined {
    const s = this.find(addr);
    if (!s) return undefined;
    const off = Number(addr - s.base);
    if (off + 1 >= s.bytes.length) return undefined;
    return s.bytes[off]! | (s.bytes[off + 1]! << 8);
  }

  /**
   * The instruction at `addr`: its encoding (16 or 32 bits) and length in bytes, or undefined when
   * the image does not cover it. Only 16- and 32-bit encodings exist in RV32/RV64 with C.
   */
  fetch(addr: bigint): { encoding: number; length: 2 | 4 } | undefined {
    const lo = this.parcel(addr);
    if (lo === undefined) return undefined;
    if ((lo & 3) !== 3) return { encoding: lo, length: 2 };
    const hi = this.parcel(addr + 2n);
    if (hi === undefined) return undefined;
    return { encoding: (lo | (hi << 16)) >>> 0, length: 4 };
  }

  /** Total bytes in the image. */
  get size(): number {
    return this.segments.reduce((n, s) => n + s.bytes.length, 0);
  }
}

/**
 * Collects instructions seen at addresses (e.g. from an imported trace) into an image. Adjacent
 * instructions merge into one segment.
 */
export class ImageBuilder {
  private readonly bytes = new Map<bigint, number>();

  /** Records an instruction; a conflicting encoding at the same address is reported to the caller. */
  put(addr: bigint, encoding: number, length: 2 | 4): 'ok' | 'conflict' {
    let conflict = false;
    for (let i = 0; i < length; i++) {
      const a = addr + BigInt(i);
      const b = (encoding >>> (8 * i)) & 0xff;
      const old = this.bytes.get(a);
      if (old !== undefined && old !== b) conflict = true;
      this.bytes.set(a, b);
    }
    return conflict ? 'conflict' : 'ok';
  }

  build(): ProgramImage {
    const addrs = [...this.bytes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const segments: Segment[] = [];
    let start = 0;
    for (let i = 1; i <= addrs.length; i++) {
      if (i === addrs.length || addrs[i] !== addrs[i - 1]! + 1n) {
        const base = addrs[start]!;
        const seg = new Uint8Array(i - start);
        for (let j = start; j < i; j++) seg[j - start] = this.bytes.get(addrs[j]!)!;
        segments.push({ base, bytes: seg });
        start = i;
      }
    }
    return new ProgramImage(segments);
  }
}
