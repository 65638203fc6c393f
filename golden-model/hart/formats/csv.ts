/**
 * Value parsing shared by the two CSV imports: hexadecimal without 0x, or decimal where the producer
 * writes decimal (the E-Trace reference flow prints its small fields with %d), with errors that name
 * the column, the value and the line.
 */
import { RvError } from '../../common/errors.ts';
import type { Xlen } from '../stream.ts';
import { decSmall, decU64, hexSmall, hexU64, isHex, MAX_U32, stripInterruptBit } from './common.ts';

/** How a column's numbers are written. */
export type Radix = 'hex' | 'dec';

const DIGITS = /^[0-9]+$/;

export class CsvLine {
  /** The values of the current line and its number (1-based); set by the caller per line. */
  values: string[] = [];
  line = 0;
  private readonly xlenMask: bigint;

  constructor(
    readonly file: string,
    readonly columns: readonly string[],
    readonly xlen: Xlen,
  ) {
    this.xlenMask = (1n << BigInt(xlen)) - 1n;
  }

  fail(message: string): never {
    throw new RvError('bad-value', message, { file: this.file, line: this.line });
  }

  private text(c: number): string {
    return this.values[c]!.trim();
  }

  badHex(c: number): never {
    this.fail(`bad hex value "${this.text(c)}" in column ${this.columns[c]}, expected hexadecimal digits without 0x`);
  }

  badDecimal(c: number): never {
    this.fail(`bad decimal value "${this.text(c)}" in column ${this.columns[c]}, expected decimal digits`);
  }

  u64(c: number, radix: Radix = 'hex'): bigint {
    const s = this.text(c);
    const v = radix === 'hex' ? hexU64(s) : decU64(s);
    if (v === undefined) {
      if (radix === 'hex' ? isHex(s) : DIGITS.test(s)) this.fail(`value "${s}" in column ${this.columns[c]} does not fit in 64 bits`);
      return radix === 'hex' ? this.badHex(c) : this.badDecimal(c);
    }
    return v;
  }

  /** Hex digits of any width (data of two packed 64-bit values is 128 bits). */
  hexWide(c: number): bigint {
    const s = this.text(c);
    if (!isHex(s)) this.badHex(c);
    return BigInt('0x' + s);
  }

  /** An address-sized value: XLEN bits, or for RV32 a sign-extended 64-bit value (simulators keep 64-bit registers). */
  addr(c: number): bigint {
    const v = this.u64(c);
    if (v <= this.xlenMask) return v;
    if (this.xlen === 32 && v >> 31n === 0x1_ffff_ffffn) return v & this.xlenMask;
    this.fail(`value "${this.text(c)}" in column ${this.columns[c]} does not fit in ${this.xlen} bits (xlen ${this.xlen})`);
  }

  small(c: number, max: number, expected: string, radix: Radix = 'hex'): number {
    const s = this.text(c);
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
    const v = stripInterruptBit(this.u64(c, radix), this.xlen);
    if (v > BigInt(MAX_U32)) this.fail(`${this.columns[c]} "${this.text(c)}" does not fit in 32 bits (after removing the interrupt bit)`);
    return Number(v);
  }
}
