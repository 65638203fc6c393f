/**
 * Fuzzing the RTL against the model: random legal configurations (a component with its block's
 * random run-time settings, the block's fuzz policy), random stimulus knobs from the block (traps,
 * halts, resets, ...), random back-pressure where the block has an output stream. A failing case
 * is shrunk to the shortest stimulus that still fails and saved as a JSON fixture that
 * tb/fuzz.test.ts replays.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../golden-model/common/rng.ts';
import { ROOT } from '../generator/render.ts';
import type { CaseSpec } from '../core/block.ts';
import type { Coverage } from '../core/coverage.ts';
import { CoverageCollector } from './coverage.ts';
import type { Resolver } from './regress.ts';

export const FIXTURE_DIR = join(ROOT, 'tb', 'fuzz-fixtures');

/** Runs a case; true when RTL and model agree. */
export type CaseRunner = (spec: CaseSpec) => Promise<boolean>;

/** An integer in 0..n-1. */
const below = (rng: Rng, n: number): number => rng.int(0, n - 1);

export interface FuzzConfig {
  readonly component: string;
  readonly sets: string[];
}

/** A random legal configuration: one of `components` with the random run-time settings of its block. */
export function randomConfig(rng: Rng, components: readonly string[], resolve: Resolver): FuzzConfig {
  const component = components[below(rng, components.length)]!;
  const r = resolve(component, []);
  return { component, sets: r.block.randomSets(rng, r) };
}

/**
 * A random case on one of `pool`'s configurations (each configuration is a Verilator build, so a
 * fuzzing session draws its cases from a few of them).
 */
export function randomCase(rng: Rng, pool: readonly FuzzConfig[], resolve: Resolver): CaseSpec {
  const pick = <T>(xs: readonly T[]): T => xs[below(rng, xs.length)]!;
  const { component, sets } = pick(pool);
  return {
    component,
    sets,
    seed: below(rng, 1_000_000),
    count: 1000 + below(rng, 15_000),
    backpressure: pick([0, 0, 0.3, 0.6, 0.9]),
    knobs: resolve(component, []).block.randomKnobs(rng),
  };
}

/**
 * The smallest count (retired instructions) for which the case still fails, by bisection between
 * 1 and the failing count. A shorter stimulus is a prefix of the longer one (same seed), so the
 * failure usually survives; the result always fails.
 */
export async function shrink(spec: CaseSpec, run: CaseRunner): Promise<CaseSpec> {
  let bad = spec.count;
  let good = 0;
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (await run({ ...spec, count: mid })) good = mid;
    else bad = mid;
  }
  return { ...spec, count: bad };
}

export function fixtureName(spec: CaseSpec): string {
  return `${spec.component}-seed${spec.seed}-n${spec.count}.json`;
}

export function saveFixture(spec: CaseSpec, dir = FIXTURE_DIR): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, fixtureName(spec));
  writeFileSync(file, `${JSON.stringify(spec, null, 2)}\n`);
  return file;
}

export function loadFixtures(dir = FIXTURE_DIR): { file: string; spec: CaseSpec }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return names.map((n) => ({ file: join(dir, n), spec: JSON.parse(readFileSync(join(dir, n), 'utf8')) as CaseSpec }));
}

export interface FuzzReport {
  cases: number;
  records: number;
  failures: CaseSpec[];
  /** Functional coverage of the cases (not of the shrinking runs); absent with `coverage: false`. */
  coverage?: Coverage;
}

/** Runs random cases until `seconds` have passed; shrinks and saves every failure. */
export async function fuzz(
  seconds: number,
  seed: number,
  run: CaseRunner,
  opts: {
    components: readonly string[];
    resolve: Resolver;
    dir?: string;
    onCase?: (spec: CaseSpec, ok: boolean) => void;
    stopAfterFailure?: boolean;
    /** Collect functional coverage from the blocks' models (default true). */
    coverage?: boolean;
  },
): Promise<FuzzReport> {
  const rng = new Rng(seed);
  const { components, resolve } = opts;
  // A few configurations per session (one build each), a new one every 20 cases.
  const pool = Array.from({ length: 4 }, () => randomConfig(rng, components, resolve));
  const until = performance.now() + seconds * 1000;
  const report: FuzzReport = { cases: 0, records: 0, failures: [] };
  const coverage = opts.coverage === false ? undefined : new CoverageCollector();
  while (performance.now() < until) {
    if (report.cases > 0 && report.cases % 20 === 0) pool[below(rng, pool.length)] = randomConfig(rng, components, resolve);
    const spec = randomCase(rng, pool, resolve);
    const ok = await run(spec);
    if (coverage && ok) coverage.add(resolve(spec.component, spec.sets), spec);
    report.cases++;
    report.records += spec.count;
    opts.onCase?.(spec, ok);
    if (!ok) {
      const small = await shrink(spec, run);
      saveFixture(small, opts.dir);
      report.failures.push(small);
      if (opts.stopAfterFailure) break;
    }
  }
  if (coverage) report.coverage = coverage.result();
  return report;
}
