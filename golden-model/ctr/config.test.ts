/** CtrConfig validation: every error names the parameter and says what is allowed. */
import { describe, expect, it } from 'vitest';
import { type CtrConfig, defaultCtrConfig, validateCtrConfig } from './config.ts';
import { CtrUnit } from './unit.ts';

function errorsFor(over: Record<string, unknown>): { path: string | undefined; message: string }[] {
  const c = { ...defaultCtrConfig(), ...over } as CtrConfig;
  return validateCtrConfig(c).map((e) => ({ path: e.location.path, message: e.message }));
}

describe('validateCtrConfig', () => {
  it('accepts the default and both versions at both XLENs', () => {
    expect(validateCtrConfig(defaultCtrConfig())).toEqual([]);
    for (const specVersion of ['0.1.4', '1.0'] as const) {
      for (const xlen of [32, 64] as const) expect(errorsFor({ specVersion, xlen, hExt: true })).toEqual([]);
    }
    expect(errorsFor({ sMode: false, uMode: false })).toEqual([]); // an M-only hart (v0.1.4)
  });

  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['specVersion', { specVersion: '0.9' }, 'parameters/specVersion', /specVersion is 0\.9; allowed: 0\.1\.4, 1\.0/],
    ['xlen', { xlen: 128 }, 'parameters/xlen', /allowed: 32, 64/],
    ['depthMin', { depthMin: 48 }, 'parameters/depthMin', /allowed: 16, 32, 64, 128, 256/],
    ['depth range', { depthMin: 128, depthMax: 32, resetDepth: 32 }, 'parameters/depthMin', /larger than depthMax/],
    ['resetDepth', { depthMin: 32, depthMax: 64, resetDepth: 16 }, 'parameters/resetDepth', /allowed: 32\.\.64/],
    ['depthLegalisation', { depthLegalisation: 'round' }, 'parameters/depthLegalisation', /allowed: clamp, keep/],
    ['wrptrOnDepthChange', { wrptrOnDepthChange: 'keep' }, 'parameters/wrptrOnDepthChange', /allowed: mask, zero/],
    ['entriesOnDepthChange', { entriesOnDepthChange: 'x' }, 'parameters/entriesOnDepthChange', /allowed: keep, zero/],
    ['rasemuCcvPolicy', { rasemuCcvPolicy: 'accumulate' }, 'parameters/rasemuCcvPolicy', /allowed: popped-parent, all-calls/],
    ['filterMask reserved type', { filterMask: 1 << 6 }, 'parameters/filterMask', /subset of 0xff3e/],
    ['cceBits', { cceBits: 5 }, 'parameters/cceBits', /allowed: an integer 0\.\.4/],
    ['cceBits without counting', { cycleCounting: false, cceBits: 3 }, 'parameters/cceBits', /cycleCounting is false/],
    ['S without U', { uMode: false }, 'parameters/uMode', /S-mode only together with U-mode/],
    ['H without S', { hExt: true, sMode: false, uMode: true }, 'parameters/hExt', /only with S-mode/],
    ['1.0 without S', { specVersion: '1.0', sMode: false }, 'parameters/sMode', /Smctr depends on S-mode/],
    ['1.0 without BPFRZ', { specVersion: '1.0', bpfrz: false }, 'parameters/bpfrz', /required field/],
    ['a boolean', { misp: 1 }, 'parameters/misp', /allowed: true, false/],
  ];
  it.each(cases)('%s', (_name, over, path, message) => {
    const errors = errorsFor(over);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.path).toBe(path);
    expect(errors[0]!.message).toMatch(message);
  });

  it('collects every error, not only the first', () => {
    expect(errorsFor({ xlen: 16, cceBits: 9, filterMask: 1 }).map((e) => e.path)).toEqual(['parameters/xlen', 'parameters/filterMask', 'parameters/cceBits']);
  });

  it('CtrUnit refuses an invalid configuration', () => {
    expect(() => new CtrUnit({ ...defaultCtrConfig(), cceBits: 7 })).toThrow(/cceBits/);
  });
});
