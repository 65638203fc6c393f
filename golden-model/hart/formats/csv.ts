/**
 * Value parsing shared by the two CSV imports: hexadecimal without 0x, as both producers write it,
 * with errors that name the column, the value and the line.
 */
import { RvError } from '../../common/errors.ts';
import type { Xlen } from '../stream.ts';
import { hexSmall, hexU64, isHex, MAX_U32, stripInterruptBit } from './common.ts';

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

  u64(c: number): bigint {
    const s = this.text(c);
    const v = hexU64(s);
    if (v === undefined) {
      if (isHex(s)) this.fail(`value "${s}" in column ${this.columns[c]} does not fit in 64 bits`);
      this.badHex(c);
    }
    return v;
  }

  /** An address-sized value: XLEN bits, or for RV32 a sign-extended 64-bit value (simulators keep 64-bit registers). */
  addr(c: number): bigint {
    const v = this.u64(c);
    if (v <= this.xlenMask) return v;
    if (this.xlen === 32 && v >> 31n === 0x1_ffff_ffffn) return v & this.xlenMask;
    this.fail(`value "${this.text(c)}" in column ${this.columns[c]} does not fit in ${this.xlen} bits (xlen ${this.xlen})`);
  }

  small(c: number, max: number, expected: string): number {
    const s = this.text(c);
    const v = hexSmall(s, max);
    if (v === undefined) {
      if (!isHex(s)) this.badHex(c);
      this.fail(`bad ${this.columns[c]} value "${s}", expected ${expected}`);
    }
    return v;
  }

  /** A trap cause without the mcause interrupt flag, in 32 bits. */
  cause(c: number): number {
    const v = stripInterruptBit(this.u64(c), this.xlen);
    if (v > BigInt(MAX_U32)) this.fail(`${this.columns[c]} "${this.text(c)}" does not fit in 32 bits (after removing the interrupt bit)`);
    return Number(v);
  }
}
