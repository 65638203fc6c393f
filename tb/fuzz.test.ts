/**
 * The fuzzer's machinery (random legal cases, shrinking, fixtures) and the replay of every saved
 * fixture in tb/fuzz-fixtures/ against the current RTL: a failure once found stays fixed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../golden-model/common/rng.ts';
import { resolver, shippedOf } from '../blocks/index.ts';
import type { CaseSpec } from '../core/block.ts';

const resolve = resolver('test');
const components = shippedOf();
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
      const x = randomCase(a, [randomConfig(a, components, resolve)], resolve);
      expect(randomCase(b, [randomConfig(b, components, resolve)], resolve)).toEqual(x);
      expect(() => resolve(x.component, x.sets)).not.toThrow();
      expect(x.count).toBeGreaterThanOrEqual(1000);
    }
  });

  it('saves a shrunk failure as a fixture that loads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-fuzz-'));
    const report = await fuzz(30, 3, async (s) => s.count < 500, { dir, stopAfterFailure: true, components, resolve });
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]!.count).toBe(500);
    const saved = loadFixtures(dir);
    expect(saved.map((f) => f.spec)).toEqual(report.failures);
  });

  it('collects the functional coverage of the passing cases only', async () => {
    // A stub runner (no RTL): every case passes, then one in three fails; the coverage comes from the models.
    let n = 0;
    const passing: CaseSpec[] = [];
    const report = await fuzz(120, 9, async (s) => {
      const ok = n++ % 3 !== 2;
      if (ok) passing.push(s);
      return ok;
    }, { dir: mkdtempSync(join(tmpdir(), 'rvtrace-fuzz-')), stopAfterFailure: true, components: ['etrace', 'ctr-small'], resolve });
    const cov = report.coverage!;
    // stopAfterFailure: the third case fails, is shrunk (its runs are not cases), and the session ends.
    expect(report.cases).toBe(3);
    const counted = cov.groups.reduce((k, g) => k + g.cases, 0);
    expect(counted).toBe(2);
    expect(new Set(cov.groups.map((g) => g.component))).toEqual(new Set(passing.slice(0, 2).map((s) => s.component)));
    expect(cov.groups.every((g) => Object.values(g.bins).some((h) => h > 0))).toBe(true);
    const off = await fuzz(0.5, 9, async () => true, { components: ['etrace'], resolve, coverage: false });
    expect(off.coverage).toBeUndefined();
  });
});

// Every saved fixture (a case that once failed, shrunk) replays identically on the current RTL.
// A fixture of any block replays through that block's runner.
it.each(loadFixtures().map((f) => ({ name: f.file.split('/').pop()!, spec: f.spec })))('fuzz fixture $name replays identically', async ({ spec }) => {
  const r = resolve(spec.component, spec.sets);
  const result = await r.block.runCase(r, spec);
  expect(result.mismatch).toBeUndefined();
  expect(result.identical).toBe(true);
});
