/**
 * The stimulus that closes `pkt:F0.0:implicit-return-mispredict` and
 * `pkt:F0.1:implicit-return-mispredict` (issue 23, deliverable 5): the `w_skip_return` knob, a
 * call to a leaf that returns past an inline argument word, so the return goes elsewhere than the
 * address the call pushed and the return stack mispredicts it. The call comes after a run of
 * never-taken checks (31 and more correct predictions: the report of the return's target is an F0
 * SF0 with an address) and is the body of a short loop (the same target again: a jump target cache
 * hit, F0 SF1). Only etrace-rv64-full has the predictor, the cache and the return stack together.
 *
 * - Coverage: the model reaches both bins with the knob on seeds 1-4, and neither without it.
 * - Independent path: the decoder (written apart from the encoder) recovers every retired
 *   instruction of such a stream from the packets, the mispredicted returns' targets included.
 * - Co-simulation: a case with the knob on the shared build of etrace-rv64-full's hardware
 *   configuration (options programmed through the APB, as `regress` and `fuzz` run it) gives the
 *   model's bytes, and the coverage of that very case holds both bins.
 * - The fuzzer draws the knob for E-Trace cases.
 */
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../../blocks/testing.ts';
import type { CaseSpec } from '../../core/block.ts';
import { Rng } from '../../golden-model/common/rng.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { decodeStream } from '../../golden-model/etrace/decoder.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { decodedRuns, retiredAddresses } from '../../golden-model/hart/recovery.ts';
import { randomEtraceKnobs } from './block.ts';
import { caseStream, runEtraceCase } from './case.ts';
import { etraceCoverageHits } from './coverage.ts';

const COMPONENT = 'etrace-rv64-full';
const BINS = ['pkt:F0.0:implicit-return-mispredict', 'pkt:F0.1:implicit-return-mispredict'];
const KNOBS = { w_skip_return: 2 };
const resolved = (sets: string[] = []) => resolvedOf<EtraceConfig>('etrace', COMPONENT, sets);
const spec = (seed: number, knobs: CaseSpec['knobs'], count = 10_000): CaseSpec => ({ component: COMPONENT, sets: [], seed, count, backpressure: 0, ...(knobs ? { knobs } : {}) });

/** The implicit-return-mispredict bins of F0 that any of seeds 1..4 hit. */
function reachedBins(knobs: CaseSpec['knobs']): string[] {
  const out = new Set<string>();
  for (let seed = 1; seed <= 4; seed++) {
    for (const [bin, n] of Object.entries(etraceCoverageHits(resolved().config, spec(seed, knobs)))) if (n > 0 && BINS.includes(bin)) out.add(bin);
  }
  return [...out].sort();
}

describe('w_skip_return: implicit-return mispredictions reported by F0 SF0 and F0 SF1', () => {
  it('reaches both bins on etrace-rv64-full, which the stimulus without it does not', () => {
    expect(reachedBins(KNOBS)).toEqual(BINS);
    expect(reachedBins(undefined)).toEqual([]);
  });

  it('decodes back to every retired instruction (the decoder follows the mispredicted returns)', () => {
    const r = resolved();
    for (const seed of [1, 2]) {
      const { records, image, trapHandler } = caseStream(r.config, spec(seed, KNOBS));
      const encoded = encodeStream(records, r.config);
      expect(encoded.dropped).toBe(0);
      const decoded = decodeStream(encoded.bytes, image, { params: r.config.params, xlen: 64, trapHandler });
      expect(decodedRuns(decoded).flat(), `seed ${seed}`).toEqual(retiredAddresses(records, image));
    }
  });

  it('co-simulates on the RTL of the hardware configuration, and that case covers both bins', async () => {
    // Back-pressure as a regression's second column; seed 3 hits both bins (checked below).
    const s: CaseSpec = { ...spec(3, KNOBS, 20_000), backpressure: 0.5 };
    const result = await runEtraceCase(resolved(), s);
    expect(result.mismatch).toBeUndefined();
    expect(result.identical).toBe(true);
    const hits = etraceCoverageHits(resolved().config, s);
    for (const bin of BINS) expect(hits[bin] ?? 0, bin).toBeGreaterThan(0);
  }, 600_000);

  it('is drawn by the fuzzer in about a quarter of the E-Trace cases (seed 1, 400 draws)', () => {
    const rng = new Rng(1);
    const r = resolved();
    let drawn = 0;
    for (let i = 0; i < 400; i++) if ((randomEtraceKnobs(rng, r).w_skip_return ?? 0) > 0) drawn++;
    expect(drawn).toBeGreaterThan(60);
    expect(drawn).toBeLessThan(140);
  });
});
