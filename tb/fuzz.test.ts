/**
 * The fuzzer's machinery (random legal cases, shrinking, fixtures) and the replay of every saved
 * fixture in tb/fuzz-fixtures/ against the current RTL: a failure once found stays fixed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../golden-model/common/rng.ts';
import { resolver, shippedOf } from '../blocks/index.ts';
import type { CaseSpec } from '../core/block.ts';
import { blockCoverage } from '../core/coverage.ts';
import { RvError } from '../golden-model/common/errors.ts';

const resolve = resolver('test');
const components = shippedOf();
import { buildOf, CORPUS_FILE, fuzz, growthLine, loadCorpus, loadFixtures, randomCase, randomConfig, shrink } from './fuzz.ts';

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

// Run-time options drawn per case, programmed through the register interface: one build per
// hardware configuration (tb/case.ts hardwareConfig).
describe('fuzz: one build per hardware configuration', () => {
  it('draws run-time options per case: 100 cases on one configuration keep its hardware and differ in options', () => {
    const rng = new Rng(11);
    const config = randomConfig(rng, ['etrace-rv64-full'], resolve);
    const cases = Array.from({ length: 100 }, () => randomCase(rng, [config], resolve));
    expect(new Set(cases.map((c) => buildOf(c, resolve)))).toEqual(new Set([buildOf({ ...cases[0]!, sets: config.sets }, resolve)]));
    const optionSets = new Set(cases.map((c) => JSON.stringify(c.sets.slice(config.sets.length))));
    console.log(`etrace-rv64-full, seed 11: ${optionSets.size} option sets in 100 cases on one configuration (${JSON.stringify(config.sets)})`);
    expect(optionSets.size).toBeGreaterThan(50);
    for (const c of cases) expect(() => resolve(c.component, c.sets)).not.toThrow();
  });

  it('each configuration of the pool serves casesPerBuild cases; the report counts the builds', async () => {
    const seen = new Set<string>();
    const report = await fuzz(300, 12, async () => true, {
      components: ['etrace', 'etrace-rv64-full'], resolve, coverage: false, maxCases: 250, poolSize: 2, casesPerBuild: 100,
      onCase: (spec) => void seen.add(buildOf(spec, resolve)),
    });
    expect(report.cases).toBe(250);
    expect(report.builds).toBe(seen.size);
    // Two configurations at first, a new one each time one has served 100 cases: at most 4.
    expect(report.builds).toBeGreaterThanOrEqual(2);
    expect(report.builds).toBeLessThanOrEqual(4);
  });

  it('the pool takes the components in turn: every component runs, however many there are', async () => {
    const all = ['etrace', 'etrace-2.0', 'etrace-data', 'etrace-rv32-mcu', 'etrace-rv64-full', 'ctr', 'ctr-1.0', 'ctr-rv32', 'ctr-small'];
    const seen = new Set<string>();
    await fuzz(300, 1, async () => true, {
      // One slot serving one case: 9 cases are 9 configurations (9 random draws of 9 would all differ
      // once in about 1,070 sessions: 9!/9^9).
      components: all, resolve, coverage: false, maxCases: 9, poolSize: 1, casesPerBuild: 1,
      onCase: (spec) => void seen.add(spec.component),
    });
    expect([...seen].sort()).toEqual([...all].sort());
  });

  it('one Verilator build serves 100 E-Trace cases with different run-time options, each identical to the model', async () => {
    const builds: string[] = [];
    const optionSets = new Set<string>();
    const log = (line: string) => {
      if (/: (building|cached) model/.test(line)) builds.push(line);
    };
    // Short cases (300 instructions): the point is the number of option sets on one build.
    const report = await fuzz(900, 13, async (spec) => {
      optionSets.add(JSON.stringify(spec.sets));
      const r = resolve(spec.component, spec.sets);
      return (await r.block.runCase(r, { ...spec, count: 300 }, log)).identical;
    }, { components: ['etrace-rv32-mcu'], resolve, coverage: false, maxCases: 100, poolSize: 1, casesPerBuild: 1000, dir: mkdtempSync(join(tmpdir(), 'rvtrace-fuzz-')) });
    console.log(`etrace-rv32-mcu, seed 13: ${report.cases} cases, ${report.builds} builds, ${optionSets.size} option sets, ${builds.length} model build or cache look-up`);
    expect(report.failures).toEqual([]);
    expect(report.cases).toBe(100);
    expect(report.builds).toBe(1);
    expect(builds).toHaveLength(1);
    expect(optionSets.size).toBeGreaterThan(50);
  }, 900_000);
});

// Coverage-directed fuzzing on the model-only path: the runner is a stub that passes every case, the
// coverage comes from the blocks' models (no RTL), so these run in seconds.
describe('coverage-directed fuzz', () => {
  const pass = async (): Promise<boolean> => true;
  const tmp = (): string => mkdtempSync(join(tmpdir(), 'rvtrace-fuzz-'));
  const covered = (cov: NonNullable<Awaited<ReturnType<typeof fuzz>>['coverage']>, block: string) => blockCoverage(cov).find((b) => b.block === block)!;

  it('reaches at least as many CTR bins as undirected fuzz in the same 40 cases (ctr-small, seeds 1-8), and keeps a corpus', async () => {
    // Per seed the two differ by a bin or two either way; the sum over fixed seeds is what is compared.
    let u = 0;
    let d = 0;
    let total = 0;
    const rows: string[] = [];
    let last: { dir: string; report: Awaited<ReturnType<typeof fuzz>> } | undefined;
    for (let seed = 1; seed <= 8; seed++) {
      const dir = tmp();
      const undirected = await fuzz(300, seed, pass, { components: ['ctr-small'], resolve, maxCases: 40, dir: tmp() });
      const directed = await fuzz(300, seed, pass, { components: ['ctr-small'], resolve, maxCases: 40, dir, directed: true });
      expect([undirected.cases, directed.cases, undirected.stopped, directed.stopped]).toEqual([40, 40, 'cases', 'cases']);
      const cu = covered(undirected.coverage!, 'ctr');
      const cd = covered(directed.coverage!, 'ctr');
      expect(cd.total).toBe(cu.total);
      u += cu.covered;
      d += cd.covered;
      total += cu.total;
      rows.push(`seed ${seed}: ${cu.covered}/${cd.covered}`);
      expect(undirected.corpus).toBeUndefined();
      last = { dir, report: directed };
    }
    console.log(`ctr-small, 40 cases, bins covered undirected/directed: ${rows.join(', ')}; sums ${u}/${d} of ${total}`);
    expect(d).toBeGreaterThanOrEqual(u);
    // The directed session mutated some cases and saved the cases that found new bins.
    const { dir, report: directed } = last!;
    expect(directed.mutated).toBeGreaterThan(0);
    const corpus = loadCorpus(dir);
    expect(corpus).toHaveLength(directed.corpus!);
    expect(corpus.every((e) => e.newBins.length > 0 && e.newBins.every((b) => b.startsWith('ctr:')))).toBe(true);
    // Every bin the session covered was first reached by a corpus case.
    const firsts = new Set(corpus.flatMap((e) => e.newBins));
    expect(firsts.size).toBe(Object.values(directed.coverage!.groups[0]!.bins).filter((n) => n > 0).length);
    // The corpus is not a fixture.
    expect(existsSync(join(dir, CORPUS_FILE))).toBe(true);
    expect(loadFixtures(dir)).toEqual([]);
  });

  it('--until-covered stops once every reachable bin is covered (pmu-rv32-mcu), and not before (ctr-small)', async () => {
    const done = await fuzz(300, 1, pass, { components: ['pmu-rv32-mcu'], resolve, maxCases: 200, dir: tmp(), directed: true, untilCovered: true });
    const b = covered(done.coverage!, 'pmu');
    console.log(`pmu-rv32-mcu, seed 1: stopped (${done.stopped}) after ${done.cases} of at most 200 cases at ${b.covered}/${b.total} bins`);
    expect(done.stopped).toBe('covered');
    expect(done.cases).toBeLessThan(200);
    expect(b.uncovered).toEqual([]);
    expect(b.total).toBeGreaterThan(20);
    // CTR keeps bins its stimulus does not reach in a few cases: the limit ends the session.
    const notDone = await fuzz(300, 1, pass, { components: ['ctr-small'], resolve, maxCases: 15, dir: tmp(), directed: true, untilCovered: true });
    expect(notDone.stopped).toBe('cases');
    expect(covered(notDone.coverage!, 'ctr').uncovered.length).toBeGreaterThan(0);
  });

  it('keeps drawing new configurations: corpus cases joining the pool do not restart a slot\'s count of cases served', async () => {
    const opts = { components: ['etrace', 'etrace-rv32-mcu'], resolve, maxCases: 300, poolSize: 2, casesPerBuild: 20 };
    const undirected = await fuzz(300, 5, pass, { ...opts, dir: tmp() });
    const directed = await fuzz(300, 5, pass, { ...opts, dir: tmp(), directed: true });
    console.log(`300 cases, 2 slots of 20 cases: builds undirected ${undirected.builds}, directed ${directed.builds}`);
    // 2 + 300 / 20 configurations drawn at random (some alike) when no mutation holds a slot.
    expect(undirected.builds).toBeGreaterThanOrEqual(6);
    expect(directed.builds).toBeGreaterThanOrEqual(undirected.builds / 2);
  });

  it('reports coverage growth every N cases', async () => {
    const seen: [number, string][] = [];
    await fuzz(300, 2, pass, { components: ['ctr-small', 'pmu-rv32-mcu'], resolve, maxCases: 9, dir: tmp(), directed: true, progressEvery: 3, onProgress: (n, cov) => seen.push([n, growthLine(cov)]) });
    expect(seen.map(([n]) => n)).toEqual([3, 6, 9]);
    for (const [, line] of seen) expect(line).toMatch(/^(ctr|pmu) \d+\/\d+(, (pmu) \d+\/\d+)?$/);
    // Covered counts never fall.
    const ctr = seen.map(([, l]) => Number(/ctr (\d+)/.exec(l)?.[1] ?? 0));
    expect([...ctr].sort((a, b) => a - b)).toEqual(ctr);
  });

  it('a session in the same directory starts from the saved corpus and adds to it', async () => {
    const dir = tmp();
    const first = await fuzz(300, 4, pass, { components: ['ctr-small'], resolve, maxCases: 10, dir, directed: true });
    const saved = loadCorpus(dir);
    expect(saved.length).toBe(first.corpus);
    expect(saved.length).toBeGreaterThan(0);
    const second = await fuzz(300, 5, pass, { components: ['ctr-small'], resolve, maxCases: 10, dir, directed: true });
    const after = loadCorpus(dir);
    // The first session's cases come first, then the cases new to the second session.
    expect(after.slice(0, saved.length)).toEqual(saved);
    expect(after.length).toBe(second.corpus);
    expect(after.length).toBeGreaterThan(saved.length);
    // A session of other components in the same directory neither mutates those cases nor drops them.
    const other = await fuzz(300, 6, pass, { components: ['pmu-rv32-mcu'], resolve, maxCases: 3, dir, directed: true });
    const mixed = loadCorpus(dir);
    expect(mixed.slice(0, after.length)).toEqual(after);
    expect(mixed.length).toBe(after.length + other.corpus!);
    expect(mixed.slice(after.length).every((e) => e.spec.component === 'pmu-rv32-mcu')).toBe(true);
  });

  it('a corpus file that is not one is a one-line error naming it', () => {
    const dir = tmp();
    writeFileSync(join(dir, CORPUS_FILE), '{"format": "something-else"}');
    expect(() => loadCorpus(dir)).toThrow(RvError);
    try {
      loadCorpus(dir);
    } catch (e) {
      expect((e as RvError).oneLine()).toBe(`${join(dir, CORPUS_FILE)}: not a fuzz corpus (expected {"format": "rvtrace-fuzz-corpus-1", "entries": [...]}); remove it to start a new corpus`);
    }
  });

  it('rvtrace fuzz --until-covered --no-coverage is refused in one line', () => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'bin', 'rvtrace.js'), 'fuzz', '--until-covered', '--no-coverage', '--out', tmp()], { encoding: 'utf8' });
    expect(r.stderr).toBe('rvtrace: --until-covered needs the functional coverage (leave out --no-coverage)\n');
    expect(r.status).toBe(2);
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
