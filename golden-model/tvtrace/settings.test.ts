import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { defaultTvtraceConfig, mlenBytes, TVTRACE_SETTINGS, tvtraceConfig, validateTvtraceSettings } from './settings.ts';

const resolve = (...sets: string[]) => resolveSettings('tvtrace', TVTRACE_SETTINGS, sets);
const problems = (...sets: string[]): string[] => validateTvtraceSettings(resolve(...sets)).map((e) => e.oneLine());

describe('tvtrace settings', () => {
  it('defaults to the seed Appendix C hart (rv64gc, Sv48) in Flute order', () => {
    expect(defaultTvtraceConfig()).toEqual({ xlen: 64, flen: 64, ilen: 32, mlen: 64, fieldOrder: 'bluespec' });
    expect(problems()).toEqual([]);
  });

  it('types the settings', () => {
    expect(tvtraceConfig(resolve('xlen=32', 'flen=32', 'mlen=34', 'field_order=seed'))).toEqual({ xlen: 32, flen: 32, ilen: 32, mlen: 34, fieldOrder: 'seed' });
  });

  it('accepts the MLEN chapter 3 gives each XLEN', () => {
    expect(problems('xlen=32', 'mlen=32')).toEqual([]);
    expect(problems('xlen=32', 'mlen=34', 'flen=0')).toEqual([]);
  });

  it('names the parameter of every problem, one line each', () => {
    expect(problems('xlen=64', 'mlen=34')).toEqual(['parameters/mlen: mlen is 34 but xlen is 64; allowed: 64 (MLEN for RV64 is 64)']);
    expect(problems('xlen=32', 'mlen=64')).toEqual(['parameters/mlen: mlen is 64 but xlen is 32; allowed: 32, or 34 with supervisor mode and Sv32']);
    expect(problems('ilen=64', 'xlen=32')).toEqual([
      'parameters/ilen: ilen is 64; allowed: 32 (chapter 2 has instruction opcodes for 16- and 32-bit instructions only)',
      'parameters/mlen: mlen is 64 but xlen is 32; allowed: 32, or 34 with supervisor mode and Sv32',
    ]);
  });

  it('refuses values outside the choices before validation', () => {
    expect(() => resolve('flen=16')).toThrow('--set flen=16: expected one of 0, 32, 64');
    expect(() => resolve('field_order=spike')).toThrow('expected one of bluespec, seed');
  });

  it('rounds MLEN up to bytes: 4, 5 (Sv32), 8', () => {
    expect([mlenBytes(32), mlenBytes(34), mlenBytes(64)]).toEqual([4, 5, 8]);
  });
});
