/**
 * N-Trace settings: the Ownership options (trTeContext) and their validation.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { defaultNtraceConfig, maxNtraceMessageBytes, NTRACE_SETTINGS, ntraceConfig, validateNtraceSettings } from './settings.ts';

const settings = (...sets: string[]) => resolveSettings('test', NTRACE_SETTINGS, sets);

describe('N-Trace settings: ownership (trTeContext) and context_width', () => {
  it('off by default; context_width 32', () => {
    const c = defaultNtraceConfig();
    expect(c.ownership).toBe(false);
    expect(c.contextWidth).toBe(32);
    expect(ntraceConfig(settings('ownership=1', 'context_width=16'))).toMatchObject({ ownership: true, contextWidth: 16 });
  });

  it('CONTEXT carries the scontext CSR: context_width at most XLEN when ownership is on', () => {
    expect(validateNtraceSettings(settings('ownership=1', 'xlen=32', 'context_width=64')).map((e) => e.message)).toEqual([
      'context_width is 64 but xlen is 32; allowed: 0..32 (CONTEXT carries the scontext CSR, at most XLEN bits)',
    ]);
    expect(validateNtraceSettings(settings('ownership=1', 'xlen=32', 'context_width=32'))).toEqual([]);
    expect(validateNtraceSettings(settings('ownership=1', 'context_width=64'))).toEqual([]);
    // Without Ownership messages the width is unused.
    expect(validateNtraceSettings(settings('xlen=32', 'context_width=64'))).toEqual([]);
  });

  it('an Ownership message is never the largest message (so fifo_bytes needs no new bound)', () => {
    for (const xlen of [32, 64] as const)
      for (const srcWidth of [0, 1, 5, 12])
        for (const icntWidth of [1, 8, 22])
          for (const mode of ['btm', 'htm'] as const)
            for (const timestamp of [false, true]) {
              const c = defaultNtraceConfig({ xlen, srcWidth, icntWidth, mode, timestamp, ownership: true, contextWidth: xlen });
              // TCODE 6 + SRC + PROCESS (FORMAT 2, PRV 2, V 1, CONTEXT) to the end of its byte, then TSTAMP.
              const ownershipBytes = Math.ceil((6 + srcWidth + 5 + xlen) / 6) + (timestamp ? Math.ceil(64 / 6) : 0);
              expect(ownershipBytes, JSON.stringify({ xlen, srcWidth, icntWidth, mode, timestamp })).toBeLessThanOrEqual(maxNtraceMessageBytes(c));
            }
  });
});
