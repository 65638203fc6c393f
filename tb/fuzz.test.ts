/**
 * The fuzzer's machinery (random legal cases, shrinking, fixtures) and the replay of every saved
 * fixture in tb/fuzz-fixtures/ against the current RTL: a failure once found stays fixed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../golden-model/common/rng.ts';
import { caseConfig, runCase, type CaseSpec } from './etrace/case.ts';
import { blockOf } from './blocks.ts';
import { fuzz, loadFixtures, randomCase, randomConfig, shrink } from './fuzz.ts';

describe('fuzz machinery', () => {
  it('shrinks a failure to the smallest failing count, in about log2(count) runs', async () => {
    let runs = 0;
    const spec: CaseSpec = { component: 'etrace', sets: [], seed: 1, count: 20_000, backpressure: 0 };
    const small = await shrink(spec, async (s) => {
      runs++;
      return s.count < 1234; // fails from 1234 instructions on
    });
    expect(small.count).toBe(1234);
    expect(runs).toBeLessThanOrEqual(16);
  });

  it('random cases are legal configurations, and the same seed gives the same cases', () => {
    const a = new Rng(5);
    const b = new Rng(5);
    for (let i = 0; i < 30; i++) {
      const x = randomCase(a, [randomConfig(a)]);
      expect(randomCase(b, [randomConfig(b)])).toEqual(x);
      expect(() => caseConfig(x.component, x.sets)).not.toThrow();
      expect(x.count).toBeGreaterThanOrEqual(1000);
    }
  });

  it('saves a shrunk failure as a fixture that loads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-fuzz-'));
    const report = await fuzz(30, 3, async (s) => s.count < 500, { dir, stopAfterFailure: true });
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]!.count).toBe(500);
    const saved = loadFixtures(dir);
    expect(saved.map((f) => f.spec)).toEqual(report.failures);
  });
});

// Every saved fixture (a case that once failed, shrunk) replays identically on the current RTL.
// A fixture of any block replays through that block's runner.
it.each(loadFixtures().map((f) => ({ name: f.file.split('/').pop()!, spec: f.spec })))('fuzz fixture $name replays identically', async ({ spec }) => {
  const r = await blockOf(spec.component).runCase(spec);
  expect(r.mismatch).toBeUndefined();
  expect(r.identical).toBe(true);
});
