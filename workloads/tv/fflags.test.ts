/**
 * fflags.ts: the exception flags of F/D operations from their operands and rounded result, on cases
 * typed from the unprivileged specification's F chapter and IEEE 754 (the derivation also checks
 * them against QEMU on the tv64.S fixture, which reads fflags after each operation).
 */
import { describe, expect, it } from 'vitest';
import { FLAG, fpFlags } from './fflags.ts';
import type { FpEffect, FpOp } from './insn.ts';

const d = (x: number): bigint => {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return v.getBigUint64(0);
};
/** A single NaN-boxed in a 64-bit register. */
const s = (x: number): bigint => {
  const v = new DataView(new ArrayBuffer(4));
  v.setFloat32(0, x);
  return 0xffff_ffff_0000_0000n | BigInt(v.getUint32(0));
};
const SNAN_D = 0x7ff4_0000_0000_0000n;
const QNAN_D = 0x7ff8_0000_0000_0000n;
const MAX_D = 0x7fef_ffff_ffff_ffffn;
const MIN_NORMAL_D = 0x0010_0000_0000_0000n;

function op(o: FpOp, fmt: 's' | 'd' = 'd', extra: Partial<FpEffect> = {}): FpEffect {
  return { op: o, fmt, rm: 7, rs1: 1, rs2: 2, rs3: 3, ...extra };
}
function flags(fp: FpEffect, rs1: bigint, rs2: bigint, result: bigint, opts: { rs3?: bigint; mode?: number } = {}): number {
  return fpFlags(fp, { rs1, rs2, rs3: opts.rs3 ?? 0n, result, mode: opts.mode ?? 0, flen: 64, xlen: 64 });
}

describe('fpFlags', () => {
  it('exact results raise nothing; rounded ones raise NX', () => {
    expect(flags(op('add'), d(1), d(3), d(4))).toBe(0);
    expect(flags(op('add'), d(0.1), d(0.2), d(0.1 + 0.2))).toBe(FLAG.NX);
    expect(flags(op('div'), d(1), d(3), d(1 / 3))).toBe(FLAG.NX);
    expect(flags(op('div'), d(1), d(4), d(0.25))).toBe(0);
    expect(flags(op('mul'), d(1.5), d(2), d(3))).toBe(0);
    expect(flags(op('sub'), d(1), d(1), d(0))).toBe(0);
  });

  it('overflow: OF and NX, in every rounding mode (RTZ gives the largest finite number)', () => {
    expect(flags(op('mul'), MAX_D, d(2), d(Infinity))).toBe(FLAG.OF | FLAG.NX);
    expect(flags(op('mul'), MAX_D, d(2), MAX_D, { mode: 1 })).toBe(FLAG.OF | FLAG.NX);
    expect(flags(op('add'), MAX_D, d(1), MAX_D)).toBe(FLAG.NX); // far below half an ulp
  });

  it('underflow: tiny after rounding and inexact', () => {
    expect(flags(op('mul'), MIN_NORMAL_D, MIN_NORMAL_D, d(0))).toBe(FLAG.UF | FLAG.NX);
    // An exact subnormal result is tiny but not inexact: no UF.
    expect(flags(op('mul'), MIN_NORMAL_D, d(0.5), d(2 ** -1023))).toBe(0);
  });

  it('invalid: NaN rules, 0 x inf, inf - inf, 0/0, sqrt of a negative', () => {
    expect(flags(op('add'), d(1), SNAN_D, QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('add'), d(1), QNAN_D, QNAN_D)).toBe(0);
    expect(flags(op('sub'), d(Infinity), d(Infinity), QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('add'), d(Infinity), d(-Infinity), QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('add'), d(Infinity), d(Infinity), d(Infinity))).toBe(0);
    expect(flags(op('mul'), d(0), d(Infinity), QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('div'), d(0), d(0), QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('div'), d(Infinity), d(-Infinity), QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('sqrt'), d(-1), 0n, QNAN_D)).toBe(FLAG.NV);
    expect(flags(op('sqrt'), d(-0), 0n, d(-0))).toBe(0);
    expect(flags(op('sqrt'), d(4), 0n, d(2))).toBe(0);
    expect(flags(op('sqrt'), d(2), 0n, d(Math.SQRT2))).toBe(FLAG.NX);
  });

  it('divide by zero only for a finite non-zero dividend', () => {
    expect(flags(op('div'), d(1), d(0), d(Infinity))).toBe(FLAG.DZ);
    expect(flags(op('div'), d(-1), d(-0), d(Infinity))).toBe(FLAG.DZ);
    expect(flags(op('div'), d(Infinity), d(0), d(Infinity))).toBe(0);
  });

  it('fused multiply-add: one rounding; 0 x inf is invalid even with a quiet NaN addend', () => {
    const third = d(1 / 3);
    expect(flags(op('madd'), d(0), d(Infinity), QNAN_D, { rs3: QNAN_D })).toBe(FLAG.NV);
    expect(flags(op('madd'), d(2), d(3), d(7), { rs3: d(1) })).toBe(0);
    expect(flags(op('madd'), d(1), d(3), d(3 + 1 / 3), { rs3: third })).toBe(FLAG.NX);
    // -(1/3 * 3) + 1 is exactly 2^-54 (1/3 rounded down): fnmsub gives it without rounding.
    expect(flags(op('nmsub'), third, d(3), d(2 ** -54), { rs3: d(1) })).toBe(0);
    expect(flags(op('madd'), d(Infinity), d(1), QNAN_D, { rs3: d(-Infinity) })).toBe(FLAG.NV);
    expect(flags(op('msub'), d(Infinity), d(1), d(Infinity), { rs3: d(-Infinity) })).toBe(0);
  });

  it('comparisons: flt/fle signal on any NaN, feq/fmin/fmax only on a signaling one', () => {
    expect(flags(op('lt'), d(1), QNAN_D, 0n)).toBe(FLAG.NV);
    expect(flags(op('le'), QNAN_D, d(1), 0n)).toBe(FLAG.NV);
    expect(flags(op('eq'), d(1), QNAN_D, 0n)).toBe(0);
    expect(flags(op('eq'), d(1), SNAN_D, 0n)).toBe(FLAG.NV);
    expect(flags(op('min'), d(1), QNAN_D, d(1))).toBe(0);
    expect(flags(op('max'), SNAN_D, d(1), d(1))).toBe(FLAG.NV);
    expect(flags(op('class'), SNAN_D, 0n, 0x100n)).toBe(0);
    expect(flags(op('sgnjx'), SNAN_D, SNAN_D, SNAN_D)).toBe(0);
  });

  it('float to integer: NV out of range (after rounding) or NaN, NX when rounded', () => {
    const w = op('cvt.i.f', 'd', { int: { signed: true, bits: 32 } });
    const wu = op('cvt.i.f', 'd', { int: { signed: false, bits: 32 } });
    expect(flags(w, d(1.5), 0n, 2n)).toBe(FLAG.NX);
    expect(flags(w, d(-3), 0n, (1n << 64n) - 3n)).toBe(0);
    expect(flags(w, d(1e10), 0n, 0x7fff_ffffn)).toBe(FLAG.NV);
    expect(flags(w, QNAN_D, 0n, 0x7fff_ffffn)).toBe(FLAG.NV);
    expect(flags(w, d(2 ** 31 - 0.5), 0n, 0x7fff_ffffn, { mode: 0 })).toBe(FLAG.NV); // rounds to 2^31
    expect(flags(w, d(2 ** 31 - 0.5), 0n, 0x7fff_fffen, { mode: 1 })).toBe(FLAG.NX); // RTZ stays in range
    expect(flags(wu, d(-1), 0n, 0n)).toBe(FLAG.NV);
    expect(flags(wu, d(-0.5), 0n, 0n, { mode: 1 })).toBe(FLAG.NX);
    expect(flags(wu, d(-0.5), 0n, 0n, { mode: 2 })).toBe(FLAG.NV); // RDN: -1
  });

  it('integer to float and between formats', () => {
    const sw = op('cvt.f.i', 's', { int: { signed: true, bits: 32 } });
    expect(flags(sw, 0x7fff_ffffn, 0n, s(2 ** 31))).toBe(FLAG.NX);
    expect(flags(sw, 12345n, 0n, s(12345))).toBe(0);
    const sd = op('cvt.f.f', 's', { srcFmt: 'd' });
    expect(flags(sd, d(1 / 3), 0n, s(1 / 3))).toBe(FLAG.NX);
    expect(flags(sd, MAX_D, 0n, s(Infinity))).toBe(FLAG.OF | FLAG.NX);
    expect(flags(sd, SNAN_D, 0n, s(NaN))).toBe(FLAG.NV);
    const ds = op('cvt.f.f', 'd', { srcFmt: 's' });
    expect(flags(ds, s(0.1), 0n, d(Math.fround(0.1)))).toBe(0);
  });

  it('single precision: a value that is not NaN-boxed reads as the canonical NaN', () => {
    expect(flags(op('add', 's'), s(1), s(2), s(3))).toBe(0);
    expect(flags(op('add', 's'), 0x3f80_0000n, s(2), s(NaN))).toBe(0); // not boxed: a quiet NaN, no flag
    expect(flags(op('lt', 's'), 0x3f80_0000n, s(2), 0n)).toBe(FLAG.NV);
  });
});
