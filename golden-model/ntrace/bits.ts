/**
 * The Nexus (IEEE-ISTO 5001) byte format N-Trace uses, as ../shared/design/ntrace.md "Byte format"
 * states it: each byte is MDO[5:0] << 2 | MSEO[1:0]; MSEO 00 = start of a message or inside a
 * field, 01 = last byte of a variable-length field, 11 = last byte of the message. Fields and
 * messages go least significant bit first.
 *
 * - `fix(n, v)`: n bits right after the previous field; fixed fields share bytes.
 * - `var(v)`: right after the previous field (it may fill the spare bits of the byte holding the
 *   preceding fixed fields); bit length of v, at least 1 bit; zero-padded to the end of its byte,
 *   which gets MSEO 01. A second variable field therefore starts on a new byte, and a variable field
 *   that starts on a byte boundary costs at least one byte even when it is zero.
 * - `end()`: the last byte of the message gets MSEO 11 (every N-Trace message ends with a
 *   variable field, so that byte held MSEO 01).
 */

const TWO32 = 4294967296;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Bits needed for a non-negative integer below 2^53 (0 for 0). */
export function bitLength(v: number): number {
  if (v < TWO32) return 32 - Math.clz32(v);
  return 64 - Math.clz32(Math.floor(v / TWO32));
}

/** Bits needed for a non-negative bigint (0 for 0n). */
export function bitLengthBig(v: bigint): number {
  if (v <= SAFE) return bitLength(Number(v));
  return v.toString(2).length;
}

export class NexusWriter {
  private buf: Uint8Array;
  private len = 0;
  /** The MDO being filled and how many of its 6 bits are used. */
  private mdo = 0;
  private nbits = 0;

  constructor(capacity = 4096) {
    this.buf = new Uint8Array(capacity);
  }

  get length(): number {
    return this.len;
  }

  private push(b: number): void {
    if (this.len === this.buf.length) {
      const n = new Uint8Array(this.buf.length * 2);
      n.set(this.buf);
      this.buf = n;
    }
    this.buf[this.len++] = b;
  }

  /** A fixed field of n bits (n <= 30). */
  fix(n: number, v: number): void {
    let i = 0;
    while (i < n) {
      const room = 6 - this.nbits;
      const t = n - i < room ? n - i : room;
      this.mdo |= ((v >>> i) & ((1 << t) - 1)) << this.nbits;
      this.nbits += t;
      i += t;
      if (this.nbits === 6) {
        this.push(this.mdo << 2);
        this.mdo = 0;
        this.nbits = 0;
      }
    }
  }

  /**
   * A variable field holding v (0 <= v < 2^53) in `len` bits (default: its bit length, at least 1).
   * An explicit `len` keeps only the low `len` bits of v.
   */
  var(v: number, len?: number): void {
    let rem = len ?? (bitLength(v) || 1);
    for (;;) {
      const room = 6 - this.nbits;
      const t = rem < room ? rem : room;
      const p = 1 << t;
      const chunk = v % p;
      v = (v - chunk) / p;
      this.mdo |= chunk << this.nbits;
      this.nbits += t;
      rem -= t;
      if (rem === 0) {
        this.push((this.mdo << 2) | 1);
        this.mdo = 0;
        this.nbits = 0;
        return;
      }
      if (this.nbits === 6) {
        this.push(this.mdo << 2);
        this.mdo = 0;
        this.nbits = 0;
      }
    }
  }

  /** `var` for a bigint (addresses, timestamps). */
  varBig(v: bigint, len?: number): void {
    if (v <= SAFE) {
      this.var(Number(v), len);
      return;
    }
    let rem = len ?? bitLengthBig(v);
    if (len !== undefined) v &= (1n << BigInt(len)) - 1n;
    // Split into chunks of 24 bits so the number path does the byte packing.
    while (rem > 0) {
      const t = rem > 24 ? 24 : rem;
      const chunk = Number(v & 0xffffffn);
      v >>= 24n;
      rem -= t;
      if (rem === 0) {
        this.var(chunk, t);
        return;
      }
      this.fix(t, chunk);
    }
  }

  /** Ends the message: MSEO 11 on its last byte. */
  end(): void {
    this.buf[this.len - 1]! |= 3;
  }

  /** Forgets everything from byte `len` on (a message boundary: no MDO is being filled there). */
  truncate(len: number): void {
    this.len = len;
    this.mdo = 0;
    this.nbits = 0;
  }

  /** The bytes written so far (a copy). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  /** The bytes from `from` on (a copy). */
  slice(from: number, to = this.len): Uint8Array {
    return this.buf.slice(from, to);
  }
}
