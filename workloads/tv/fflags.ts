/**
 * The IEEE 754 exception flags (fflags: NV DZ OF UF NX, bits 4..0) a RISC-V F/D instruction raises,
 * from its operands and the result QEMU computed. QEMU's CPU-state log shows the floating-point
 * registers but not fflags, so the derivation computes them: every finite operand is an exact
 * rational (BigInt), the exact result is compared with QEMU's rounded one (inexact), and rounding
 * to the format's precision with an unbounded exponent decides overflow and tininess (RISC-V
 * detects tininess after rounding; underflow = tiny and inexact). Invalid and divide-by-zero follow
 * the unprivileged specification's F chapter ("NaN generation and propagation", FMA's 0 x inf, the
 * conversions' out-of-range cases, FLT/FLE on any NaN, FEQ/FMIN/FMAX on signaling NaNs).
 *
 * The derivation checks the result against what the program itself reads from fflags/fcsr, so a
 * mistake here cannot pass silently on a program that reads them.
 */
import type { FpEffect } from './insn.ts';

export const FLAG = { NX: 1, UF: 2, OF: 4, DZ: 8, NV: 16 } as const;

interface Format {
  /** Significand bits, hidden bit included. */
  readonly p: number;
  readonly ebits: number;
  readonly bias: number;
  readonly emin: number;
  readonly emax: number;
  readonly width: 32 | 64;
}
const FMT: Record<'s' | 'd', Format> = {
  s: { p: 24, ebits: 8, bias: 127, emin: -126, emax: 127, width: 32 },
  d: { p: 53, ebits: 11, bias: 1023, emin: -1022, emax: 1023, width: 64 },
};

/** An exact value n / d (d > 0). */
interface Q {
  readonly n: bigint;
  readonly d: bigint;
}

type Cls = 'zero' | 'finite' | 'inf' | 'qnan' | 'snan';
interface Unpacked {
  readonly cls: Cls;
  readonly neg: boolean;
  /** The exact value of a zero or finite number. */
  readonly q: Q;
}

const ZERO: Q = { n: 0n, d: 1n };

/** A register value as a number of format `f` (a single that is not NaN-boxed in a 64-bit register is the canonical NaN). */
function unpack(reg: bigint, f: Format, flen: number): Unpacked {
  let v = reg;
  if (f.width === 32 && flen === 64) {
    if (reg >> 32n !== 0xffff_ffffn) return { cls: 'qnan', neg: false, q: ZERO };
    v = reg & 0xffff_ffffn;
  }
  const fracBits = BigInt(f.p - 1);
  const neg = (v >> BigInt(f.width - 1)) & 1n ? true : false;
  const exp = Number((v >> fracBits) & ((1n << BigInt(f.ebits)) - 1n));
  const frac = v & ((1n << fracBits) - 1n);
  const maxExp = (1 << f.ebits) - 1;
  if (exp === maxExp) {
    if (frac === 0n) return { cls: 'inf', neg, q: ZERO };
    return { cls: (frac >> (fracBits - 1n)) & 1n ? 'qnan' : 'snan', neg, q: ZERO };
  }
  if (exp === 0 && frac === 0n) return { cls: 'zero', neg, q: ZERO };
  const mant = exp === 0 ? frac : frac | (1n << fracBits);
  const e = (exp === 0 ? 1 : exp) - f.bias - (f.p - 1);
  const m = neg ? -mant : mant;
  return { cls: 'finite', neg, q: e >= 0 ? { n: m << BigInt(e), d: 1n } : { n: m, d: 1n << BigInt(-e) } };
}

const add = (a: Q, b: Q): Q => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const mul = (a: Q, b: Q): Q => ({ n: a.n * b.n, d: a.d * b.d });
const neg = (a: Q): Q => ({ n: -a.n, d: a.d });
const eq = (a: Q, b: Q): boolean => a.n * b.d === b.n * a.d;
/** a < b for non-negative a, b. */
const lt = (a: Q, b: Q): boolean => a.n * b.d < b.n * a.d;

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** Rounding modes by their rm encoding: 0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM. */
function roundUp(mode: number, negative: boolean, rem2: bigint, den: bigint, odd: boolean): boolean {
  // rem2 = 2 * remainder; the discarded part is rem2 / (2 * den), in [0, 1).
  if (rem2 === 0n) return false;
  switch (mode) {
    case 0:
      return rem2 > den || (rem2 === den && odd);
    case 1:
      return false;
    case 2:
      return negative;
    case 3:
      return !negative;
    default:
      return rem2 >= den;
  }
}

/** |x| rounded to p significant bits with an unbounded exponent (x != 0). */
function roundUnbounded(x: Q, p: number, mode: number): Q {
  const negative = x.n < 0n;
  const a = negative ? -x.n : x.n;
  const b = x.d;
  // e = floor(log2(a / b))
  let e = bitLength(a) - bitLength(b);
  const ge = e >= 0 ? a >= b << BigInt(e) : a << BigInt(-e) >= b;
  if (!ge) e--;
  const shift = p - 1 - e;
  const num = shift >= 0 ? a << BigInt(shift) : a;
  const den = shift >= 0 ? b : b << BigInt(-shift);
  let q = num / den;
  const r = num - q * den;
  if (roundUp(mode, negative, 2n * r, den, (q & 1n) === 1n)) q++;
  // |result| = q * 2^-shift
  return shift >= 0 ? { n: q, d: 1n << BigInt(shift) } : { n: q << BigInt(-shift), d: 1n };
}

/** x rounded to an integer. */
function roundToInt(x: Q, mode: number): bigint {
  const negative = x.n < 0n;
  const a = negative ? -x.n : x.n;
  let q = a / x.d;
  const r = a - q * x.d;
  if (roundUp(mode, negative, 2n * r, x.d, (q & 1n) === 1n)) q++;
  return negative ? -q : q;
}

const pow2 = (e: number): Q => (e >= 0 ? { n: 1n << BigInt(e), d: 1n } : { n: 1n, d: 1n << BigInt(-e) });

/**
 * Flags of a finite, exact result `x` that the hardware rounded to `result` (a register value of
 * format `f`): overflow, underflow, inexact.
 */
function finish(x: Q, result: bigint, f: Format, flen: number, mode: number): number {
  if (x.n === 0n) return 0;
  const r = unpack(result, f, flen);
  const big = roundUnbounded(x, f.p, mode);
  if (!lt(big, pow2(f.emax + 1))) return FLAG.OF | FLAG.NX;
  if (r.cls !== 'finite' && r.cls !== 'zero') throw new FlagError(`a finite exact result but the register holds ${r.cls === 'inf' ? 'an infinity' : 'a NaN'}`);
  const inexact = !eq(r.q, x);
  const tiny = lt(big, pow2(f.emin));
  return (inexact ? FLAG.NX : 0) | (tiny && inexact ? FLAG.UF : 0);
}

/** The operands and result contradict the flag rules (the derivation reports it with the instruction). */
export class FlagError extends Error {}

const isNan = (u: Unpacked): boolean => u.cls === 'qnan' || u.cls === 'snan';
const anySnan = (...us: Unpacked[]): boolean => us.some((u) => u.cls === 'snan');

export interface FpOperands {
  /** Register values before the instruction (FPRs FLEN bits, GPRs XLEN bits, as the operation reads them). */
  readonly rs1: bigint;
  readonly rs2: bigint;
  readonly rs3: bigint;
  /** The destination register's value after the instruction (FPR or GPR). */
  readonly result: bigint;
  /** The rounding mode in effect (the instruction's rm, or frm when rm is 7). */
  readonly mode: number;
  readonly flen: 32 | 64;
  readonly xlen: 32 | 64;
}

/** The flags `fp` raises with these operands and result. */
export function fpFlags(fp: FpEffect, o: FpOperands): number {
  const f = FMT[fp.fmt];
  const u = (v: bigint): Unpacked => unpack(v, f, o.flen);
  switch (fp.op) {
    case 'sgnj':
    case 'sgnjn':
    case 'sgnjx':
    case 'class':
    case 'mv.x.f':
    case 'mv.f.x':
      return 0;
    case 'min':
    case 'max':
    case 'eq':
      return anySnan(u(o.rs1), u(o.rs2)) ? FLAG.NV : 0;
    case 'lt':
    case 'le':
      return isNan(u(o.rs1)) || isNan(u(o.rs2)) ? FLAG.NV : 0;
    case 'add':
    case 'sub': {
      const a = u(o.rs1);
      const b0 = u(o.rs2);
      if (isNan(a) || isNan(b0)) return anySnan(a, b0) ? FLAG.NV : 0;
      const bNeg = fp.op === 'sub' ? !b0.neg : b0.neg;
      if (a.cls === 'inf' || b0.cls === 'inf') return a.cls === 'inf' && b0.cls === 'inf' && a.neg !== bNeg ? FLAG.NV : 0;
      return finish(add(a.q, fp.op === 'sub' ? neg(b0.q) : b0.q), o.result, f, o.flen, o.mode);
    }
    case 'mul': {
      const a = u(o.rs1);
      const b = u(o.rs2);
      if (isNan(a) || isNan(b)) return anySnan(a, b) ? FLAG.NV : 0;
      if (a.cls === 'inf' || b.cls === 'inf') return a.cls === 'zero' || b.cls === 'zero' ? FLAG.NV : 0;
      return finish(mul(a.q, b.q), o.result, f, o.flen, o.mode);
    }
    case 'div': {
      const a = u(o.rs1);
      const b = u(o.rs2);
      if (isNan(a) || isNan(b)) return anySnan(a, b) ? FLAG.NV : 0;
      if ((a.cls === 'zero' && b.cls === 'zero') || (a.cls === 'inf' && b.cls === 'inf')) return FLAG.NV;
      if (a.cls === 'inf' || b.cls === 'inf' || a.cls === 'zero') return 0;
      if (b.cls === 'zero') return FLAG.DZ;
      return finish({ n: a.q.n * b.q.d * (b.q.n < 0n ? -1n : 1n), d: a.q.d * (b.q.n < 0n ? -b.q.n : b.q.n) }, o.result, f, o.flen, o.mode);
    }
    case 'sqrt': {
      const a = u(o.rs1);
      if (isNan(a)) return a.cls === 'snan' ? FLAG.NV : 0;
      if (a.neg && a.cls !== 'zero') return FLAG.NV;
      if (a.cls !== 'finite') return 0;
      const r = u(o.result);
      if (r.cls !== 'finite') throw new FlagError('the square root of a positive number is not a finite number in the register');
      return eq(mul(r.q, r.q), a.q) ? 0 : FLAG.NX;
    }
    case 'madd':
    case 'msub':
    case 'nmsub':
    case 'nmadd': {
      const a = u(o.rs1);
      const b = u(o.rs2);
      const c = u(o.rs3);
      if (anySnan(a, b, c)) return FLAG.NV;
      // 0 x inf is invalid even when the addend is a quiet NaN (F chapter, FMA).
      if ((a.cls === 'zero' && b.cls === 'inf') || (a.cls === 'inf' && b.cls === 'zero')) return FLAG.NV;
      if (isNan(a) || isNan(b) || isNan(c)) return 0;
      const negProduct = fp.op === 'nmsub' || fp.op === 'nmadd';
      const negAddend = fp.op === 'msub' || fp.op === 'nmadd';
      const prodInf = a.cls === 'inf' || b.cls === 'inf';
      if (prodInf || c.cls === 'inf') {
        const prodNeg = (a.neg !== b.neg) !== negProduct;
        const cNeg = c.neg !== negAddend;
        return prodInf && c.cls === 'inf' && prodNeg !== cNeg ? FLAG.NV : 0;
      }
      let p = mul(a.q, b.q);
      if (negProduct) p = neg(p);
      return finish(add(p, negAddend ? neg(c.q) : c.q), o.result, f, o.flen, o.mode);
    }
    case 'cvt.f.f': {
      const src = unpack(o.rs1, FMT[fp.srcFmt!], o.flen);
      if (isNan(src)) return src.cls === 'snan' ? FLAG.NV : 0;
      if (src.cls !== 'finite') return 0;
      return finish(src.q, o.result, f, o.flen, o.mode);
    }
    case 'cvt.f.i': {
      const { signed, bits } = fp.int!;
      let v = o.rs1 & ((1n << BigInt(bits)) - 1n);
      if (signed && (v >> BigInt(bits - 1)) & 1n) v -= 1n << BigInt(bits);
      return finish({ n: v, d: 1n }, o.result, f, o.flen, o.mode);
    }
    case 'cvt.i.f': {
      const { signed, bits } = fp.int!;
      const a = u(o.rs1);
      if (isNan(a) || a.cls === 'inf') return FLAG.NV;
      if (a.cls === 'zero') return 0;
      const i = roundToInt(a.q, o.mode);
      const lo = signed ? -(1n << BigInt(bits - 1)) : 0n;
      const hi = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
      if (i < lo || i > hi) return FLAG.NV;
      return eq({ n: i, d: 1n }, a.q) ? 0 : FLAG.NX;
    }
  }
}
