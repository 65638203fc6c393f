/**
 * Value parsing shared by the CSV imports: hexadecimal without 0x, or decimal where the producer
 * writes decimal (the E-Trace reference flow prints its small fields with %d), with errors that name
 * the column, the value and the line.
 *
 * A line is scanned in place (`scan` finds where each value starts and ends) and the values are read
 * from the text by position: no array of strings per line and no regular expression per value, as
 * files have millions of lines. The strings of a value are only made for an error message or for
 * the rare value too long for the number fast path.
 */
import { RvError } from '../../common/errors.ts';
import type { Xlen } from '../stream.ts';
import { big, decSmall, decU64, hexSmall, hexU64, isHex, MAX_U32, scanDec, scanHex, stripInterruptBit } from './common.ts';

/** How a column's numbers are written. */
export type Radix = 'hex' | 'dec';

const DIGITS = /^[0-9]+$/;

export class CsvLine {
  /** The current line's number (1-based); set by the caller per line. */
  line = 0;
  /** Values found on the current line by `scan` (may exceed the columns: the caller checks). */
  count = 0;
  private text = '';
  /** Where each value starts and ends in `text`, white space around it excluded. */
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly xlenMask: bigint;
  private readonly xlenMax: number;

  constructor(
    readonly file: string,
    readonly columns: readonly string[],
    readonly xlen: Xlen,
  ) {
    this.xlenMask = (1n << BigInt(xlen)) - 1n;
    this.xlenMax = xlen === 32 ? MAX_U32 : Number.MAX_SAFE_INTEGER;
    this.starts = new Int32Array(columns.length);
    this.ends = new Int32Array(columns.length);
  }

  /** Finds the comma-separated values of text[start, end) (one line); sets `count`. */
  scan(text: string, start: number, end: number): void {
    this.text = text;
    const cap = this.columns.length;
    const starts = this.starts;
    const ends = this.ends;
    let n = 0;
    let i = start;
    // One pass over the characters: skip leading white space, walk to the comma, trim the end.
    for (;;) {
      while (i < end && text.charCodeAt(i) <= 32) i++;
      const a = i;
      let b = i;
      let c = 0;
      while (i < end && (c = text.charCodeAt(i)) !== 44 /* , */) {
        i++;
        if (c > 32) b = i;
      }
      if (n < cap) {
        starts[n] = a;
        ends[n] = b;
      }
      n++;
      if (i >= end) break;
      i++; // the comma
    }
    this.count = n;
  }

  fail(message: string): never {
    throw new RvError('bad-value', message, { file: this.file, line: this.line });
  }

  /** The value of column c as written (white space around it removed). */
  value(c: number): string {
    return this.text.slice(this.starts[c]!, this.ends[c]!);
  }

  badHex(c: number): never {
    this.fail(`bad hex value "${this.value(c)}" in column ${this.columns[c]}, expected hexadecimal digits without 0x`);
  }

  badDecimal(c: number): never {
    this.fail(`bad decimal value "${this.value(c)}" in column ${this.columns[c]}, expected decimal digits`);
  }

  /** Column c as a number when it is short enough to be exact (see scanHex), else -1. */
  private quick(c: number, radix: Radix): number {
    return radix === 'hex' ? scanHex(this.text, this.starts[c]!, this.ends[c]!) : scanDec(this.text, this.starts[c]!, this.ends[c]!);
  }

  u64(c: number, radix: Radix = 'hex'): bigint {
    const q = this.quick(c, radix);
    if (q >= 0) return big(q);
    const s = this.value(c);
    const v = radix === 'hex' ? hexU64(s) : decU64(s);
    if (v === undefined) {
      if (radix === 'hex' ? isHex(s) : DIGITS.test(s)) this.fail(`value "${s}" in column ${this.columns[c]} does not fit in 64 bits`);
      return radix === 'hex' ? this.badHex(c) : this.badDecimal(c);
    }
    return v;
  }

  /** Hex digits of any width (data of two packed 64-bit values is 128 bits). */
  hexWide(c: number): bigint {
    const q = this.quick(c, 'hex');
    if (q >= 0) return big(q);
    const s = this.value(c);
    if (!isHex(s)) this.badHex(c);
    return BigInt('0x' + s);
  }

  /**
   * An address-sized value as a number, when it is written with at most 13 digits and fits XLEN
   * bits; otherwise -1, and `addr` gives the value or the error. Lets importers key caches by
   * address without a bigint per row.
   */
  addrNumber(c: number): number {
    const q = this.quick(c, 'hex');
    return q <= this.xlenMax ? q : -1;
  }

  /** An address-sized value: XLEN bits, or for RV32 a sign-extended 64-bit value (simulators keep 64-bit registers). */
  addr(c: number): bigint {
    const q = this.addrNumber(c);
    if (q >= 0) return big(q);
    const v = this.u64(c);
    if (v <= this.xlenMask) return v;
    if (this.xlen === 32 && v >> 31n === 0x1_ffff_ffffn) return v & this.xlenMask;
    this.fail(`value "${this.value(c)}" in column ${this.columns[c]} does not fit in ${this.xlen} bits (xlen ${this.xlen})`);
  }

  small(c: number, max: number, expected: string, radix: Radix = 'hex'): number {
    const q = this.quick(c, radix);
    if (q >= 0 && q <= max) return q;
    const s = this.value(c);
    const v = radix === 'hex' ? hexSmall(s, max) : decSmall(s, max);
    if (v === undefined) {
      if (radix === 'hex' && !isHex(s)) this.badHex(c);
      if (radix === 'dec' && !DIGITS.test(s)) this.badDecimal(c);
      this.fail(`bad ${this.columns[c]} value "${s}", expected ${expected}`);
    }
    return v;
  }

  /** A trap cause without the mcause interrupt flag, in 32 bits. */
  cause(c: number, radix: Radix = 'hex'): number {
    const q = this.quick(c, radix);
    // Below 2^31 there is no interrupt flag to remove, whatever the XLEN.
    if (q >= 0 && q < 0x8000_0000) return q;
    const v = stripInterruptBit(this.u64(c, radix), this.xlen);
    if (v > BigInt(MAX_U32)) this.fail(`${this.columns[c]} "${this.value(c)}" does not fit in 32 bits (after removing the interrupt bit)`);
    return Number(v);
  }
}
