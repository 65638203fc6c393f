/**
 * Fuzzing the RTL against the model: random legal hardware configurations (a component with its
 * block's random hardware settings; each is a Verilator build), on each many cases with random
 * run-time options (a block with `runTime` has them programmed through its register interface, so
 * they cost no build), random stimulus knobs from the block (traps, halts, resets, ...) and random
 * back-pressure where the block has an output stream. A failing case is shrunk to the shortest
 * stimulus that still fails and saved as a JSON fixture that tb/fuzz.test.ts replays.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../golden-model/common/rng.ts';
import { ROOT } from '../generator/render.ts';
import type { CaseSpec } from '../core/block.ts';
import { blockCoverage, type Coverage } from '../core/coverage.ts';
import { writeOutputAtomic } from '../core/io.ts';
import { RvError } from '../golden-model/common/errors.ts';
import { hardwareSets } from './case.ts';
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

/**
 * A random legal configuration: one of `components` with the random settings of its block (with
 * run-time options, hardware settings only: a configuration is one build).
 */
export function randomConfig(rng: Rng, components: readonly string[], resolve: Resolver, component = components[below(rng, components.length)]!): FuzzConfig {
  const r = resolve(component, []);
  return { component, sets: r.block.randomSets(rng, r) };
}

/**
 * A random case on one of `pool`'s configurations (each configuration is a Verilator build, so a
 * fuzzing session draws its cases from a few of them).
 */
export function randomCase(rng: Rng, pool: readonly FuzzConfig[], resolve: Resolver): CaseSpec {
  return caseOn(rng, pool[below(rng, pool.length)]!, resolve);
}

/**
 * A random case on `config`: the block's random run-time options (Block.runTime, drawn per case:
 * they are programmed through the registers, not built), seed, count, back-pressure and knobs.
 */
export function caseOn(rng: Rng, config: FuzzConfig, resolve: Resolver): CaseSpec {
  const { component, sets } = config;
  const r = resolve(component, sets);
  const options = r.block.runTime?.randomSets(rng, r) ?? [];
  return {
    component,
    sets: [...sets, ...options],
    seed: below(rng, 1_000_000),
    count: 1000 + below(rng, 15_000),
    backpressure: [0, 0, 0.3, 0.6, 0.9][below(rng, 5)]!,
    knobs: r.block.randomKnobs(rng, r),
  };
}

/** The build a case runs on: its component and hardware settings (tb/case.ts hardwareSets). */
export function buildOf(spec: CaseSpec, resolve: Resolver): string {
  return JSON.stringify([spec.component, hardwareSets(resolve(spec.component, []).block, spec.sets)]);
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
  return names.filter((n) => n !== CORPUS_FILE).map((n) => ({ file: join(dir, n), spec: JSON.parse(readFileSync(join(dir, n), 'utf8')) as CaseSpec }));
}

/** The corpus file in the fuzz output directory (not a fixture: loadFixtures skips it). */
export const CORPUS_FILE = 'fuzz-corpus.json';
const CORPUS_FORMAT = 'rvtrace-fuzz-corpus-1';
/** At most this many corpus cases are saved (the newest). */
export const CORPUS_MAX = 1000;

/** A case that reached bins no earlier case of the session had reached (by block: `block:bin`). */
export interface CorpusEntry {
  readonly spec: CaseSpec;
  readonly newBins: readonly string[];
}

/** The corpus saved in `dir` (none when there is no file); a file that is not one is a one-line error. */
export function loadCorpus(dir: string): CorpusEntry[] {
  const file = join(dir, CORPUS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  let o: { format?: unknown; entries?: unknown };
  try {
    o = JSON.parse(text) as typeof o;
  } catch {
    throw new RvError('bad-file', `not a fuzz corpus (not JSON); remove it to start a new corpus`, { file });
  }
  const ok = (e: unknown): e is CorpusEntry => {
    const x = e as CorpusEntry | null;
    return x !== null && typeof x === 'object' && typeof x.spec === 'object' && x.spec !== null && typeof x.spec.component === 'string' && Array.isArray(x.spec.sets) && typeof x.spec.seed === 'number' && typeof x.spec.count === 'number' && Array.isArray(x.newBins);
  };
  if (o === null || o.format !== CORPUS_FORMAT || !Array.isArray(o.entries)) throw new RvError('bad-file', `not a fuzz corpus (expected {"format": "${CORPUS_FORMAT}", "entries": [...]}); remove it to start a new corpus`, { file });
  const bad = o.entries.findIndex((e) => !ok(e));
  if (bad >= 0) throw new RvError('bad-file', `entries[${bad}]: expected {spec: {component, sets, seed, count, ...}, newBins: [...]}`, { file });
  return o.entries as CorpusEntry[];
}

export function saveCorpus(dir: string, entries: readonly CorpusEntry[]): string {
  const file = join(dir, CORPUS_FILE);
  writeOutputAtomic(file, `${JSON.stringify({ format: CORPUS_FORMAT, entries }, null, 1)}\n`);
  return file;
}

/**
 * A child of a corpus case: the same configuration, the same seed or a new one, each stimulus knob
 * kept, scaled by 1/2..2 or drawn afresh from the block's fuzz policy, the count scaled by 1/2..2,
 * and, where the block has an output stream, the back-pressure kept or drawn afresh.
 */
export function mutateCase(rng: Rng, parent: CaseSpec, resolve: Resolver): CaseSpec {
  const r = resolve(parent.component, parent.sets);
  const fresh = r.block.randomKnobs(rng, r);
  const knobs: Record<string, unknown> = { ...(parent.knobs ?? {}) };
  for (const [k, v] of Object.entries(fresh)) {
    const roll = rng.float();
    const old = knobs[k];
    if (old === undefined || roll < 0.3) knobs[k] = v;
    // A rate or weight scaled (a probability stays one).
    else if (roll < 0.6 && typeof old === 'number' && typeof v === 'number') knobs[k] = Number(Math.min(old < 1 && v <= 1 ? 1 : Infinity, old * 2 ** (rng.float() * 2 - 1)).toPrecision(4));
  }
  const count = Math.max(1000, Math.min(16_000, Math.round(parent.count * 2 ** (rng.float() * 2 - 1))));
  const backpressure = rng.chance(0.3) ? [0, 0, 0.3, 0.6, 0.9][below(rng, 5)]! : parent.backpressure;
  // Half the children keep the seed: what the seed decides besides the retirement stream (a block's
  // random CSR program, say) then meets other knobs, which is how a rare bin's neighbours are found.
  const seed = rng.chance(0.5) ? parent.seed : below(rng, 1_000_000);
  return { component: parent.component, sets: [...parent.sets], seed, count, backpressure, knobs: knobs as CaseSpec['knobs'] };
}

export interface FuzzReport {
  cases: number;
  /** Hardware configurations the cases ran on (each one Verilator build). */
  builds: number;
  records: number;
  failures: CaseSpec[];
  /** Functional coverage of the cases (not of the shrinking runs); absent with `coverage: false`. */
  coverage?: Coverage;
  /** Directed sessions: cases that reached new bins (saved as the corpus) and cases mutated from them. */
  corpus?: number;
  mutated?: number;
  /** Why the session ended: the time limit, the case limit, a failure, or every reachable bin covered. */
  stopped?: 'time' | 'cases' | 'failure' | 'covered';
}

/** Covered/total per block, as the progress line shows it: `ctr 40/52, etrace 180/260`. */
export function growthLine(cov: Coverage): string {
  return blockCoverage(cov)
    .map((b) => `${b.block}${b.kind === 'functional' ? '' : ` (${b.kind})`} ${b.covered}/${b.total}`)
    .join(', ');
}

/**
 * True when every bin reachable by the configurations drawn so far is covered and every one of
 * `components` has been drawn (so that each block's bins are known).
 */
export function allCovered(cov: Coverage, components: readonly string[]): boolean {
  const seen = new Set(cov.groups.map((g) => g.component));
  if (!components.every((c) => seen.has(c))) return false;
  return blockCoverage(cov).every((b) => b.uncovered.length === 0);
}

export interface FuzzOptions {
  components: readonly string[];
  resolve: Resolver;
  dir?: string;
  onCase?: (spec: CaseSpec, ok: boolean) => void;
  stopAfterFailure?: boolean;
  /** Collect functional coverage from the blocks' models (default true). */
  coverage?: boolean;
  /**
   * Steer by coverage (needs coverage): keep a corpus of the cases that reached new bins and draw
   * a quarter of the cases as mutations of them, favouring those that hit bins still rare; the corpus
   * is saved in `dir` (CORPUS_FILE) and read back by the next session. Default false.
   */
  directed?: boolean;
  /** Stop after this many cases (besides the time). */
  maxCases?: number;
  /** Stop when every reachable bin of the configurations drawn so far is covered (needs coverage). */
  untilCovered?: boolean;
  /** Configurations (builds) drawn from at a time (default 4). */
  poolSize?: number;
  /** Cases a configuration of the pool serves before a new one replaces it (default 100). */
  casesPerBuild?: number;
  /** Called every `progressEvery` cases (default 10) with the coverage so far. */
  onProgress?: (cases: number, cov: Coverage, corpus: number) => void;
  progressEvery?: number;
}

/**
 * Runs random cases until `seconds` have passed (or `maxCases`, or with `untilCovered` every
 * reachable bin is covered); shrinks and saves every failure.
 */
export async function fuzz(seconds: number, seed: number, run: CaseRunner, opts: FuzzOptions): Promise<FuzzReport> {
  const rng = new Rng(seed);
  const { components, resolve } = opts;
  // A few configurations at a time (one build each); each serves `casesPerBuild` cases (with
  // run-time options drawn per case), then a new one replaces it.
  // The components take their turn (from a random one on), so a session runs every component it
  // is given: drawn at random, one of nine could go unrun in a 10-minute session.
  let turn = below(rng, components.length);
  const nextConfig = (): FuzzConfig => randomConfig(rng, components, resolve, components[turn++ % components.length]!);
  const pool = Array.from({ length: opts.poolSize ?? 4 }, nextConfig);
  const served = pool.map(() => 0);
  const perBuild = opts.casesPerBuild ?? 100;
  const builds = new Set<string>();
  const until = performance.now() + seconds * 1000;
  const report: FuzzReport = { cases: 0, builds: 0, records: 0, failures: [], stopped: 'time' };
  const coverage = opts.coverage === false ? undefined : new CoverageCollector();
  const directed = opts.directed === true && coverage !== undefined;
  const dir = opts.dir ?? FIXTURE_DIR;
  // Directed: the corpus (earlier sessions' first, when the file holds cases of these components)
  // and, per `block:bin`, how many cases of this session hit it.
  const loaded = directed ? loadCorpus(dir) : [];
  const corpus: CorpusEntry[] = loaded.filter((e) => components.includes(e.spec.component));
  // Cases of other components stay in the file.
  const others = loaded.filter((e) => !components.includes(e.spec.component));
  const casesHitting = new Map<string, number>();
  // The bins each corpus case hit (`block:bin`; of an earlier session's case, the ones it found first).
  const binsOf: string[][] = corpus.map((e) => [...e.newBins]);
  const inPool = (spec: CaseSpec): boolean => pool.some((c) => buildOf({ ...spec, ...c }, resolve) === buildOf(spec, resolve));
  let mutated = 0;
  const every = opts.progressEvery ?? 10;
  const block = (spec: CaseSpec) => resolve(spec.component, []).block;
  while (performance.now() < until) {
    if (opts.maxCases !== undefined && report.cases >= opts.maxCases) {
      report.stopped = 'cases';
      break;
    }
    let spec: CaseSpec;
    if (directed && corpus.length > 0 && rng.chance(0.25)) {
      // A parent weighted by how rare the bins it hit still are (a bin hit by k cases weighs 1/k^2).
      const weights = binsOf.map((bins) => bins.reduce((w, b) => w + 1 / Math.max(1, casesHitting.get(b) ?? 1) ** 2, 0) + 0.01);
      const parent = corpus[rng.weighted(weights)]!.spec;
      spec = mutateCase(rng, parent, resolve);
      // Its configuration joins the pool (one build, as when the pool changes). The slot keeps its
      // count of cases served: restarting it let the corpus's configurations hold the pool for good
      // (a 10-minute session ran 3,700 cases on 6 builds, none of them with filter hardware).
      if (!inPool(spec)) {
        const i = below(rng, pool.length);
        pool[i] = { component: spec.component, sets: hardwareSets(block(spec), spec.sets) };
      }
      mutated++;
    } else {
      const i = below(rng, pool.length);
      spec = caseOn(rng, pool[i]!, resolve);
      if (++served[i]! >= perBuild) {
        pool[i] = nextConfig();
        served[i] = 0;
      }
    }
    builds.add(buildOf(spec, resolve));
    report.builds = builds.size;
    const ok = await run(spec);
    if (coverage && ok) {
      const r = resolve(spec.component, spec.sets);
      const hits = coverage.addHits(r, spec);
      if (directed && hits !== undefined) {
        const fresh: string[] = [];
        for (const [bin, n] of Object.entries(hits)) {
          if (n <= 0) continue;
          const key = `${r.block.name}:${bin}`;
          const k = casesHitting.get(key) ?? 0;
          if (k === 0) fresh.push(key);
          casesHitting.set(key, k + 1);
        }
        if (fresh.length > 0) {
          corpus.push({ spec, newBins: fresh.sort() });
          binsOf.push(Object.entries(hits).filter(([, n]) => n > 0).map(([b]) => `${r.block.name}:${b}`));
        }
      }
    }
    report.cases++;
    report.records += spec.count;
    opts.onCase?.(spec, ok);
    if (!ok) {
      const small = await shrink(spec, run);
      saveFixture(small, opts.dir);
      report.failures.push(small);
      if (opts.stopAfterFailure) {
        report.stopped = 'failure';
        break;
      }
    }
    if (coverage && (opts.onProgress !== undefined || opts.untilCovered)) {
      const progress = opts.onProgress !== undefined && report.cases % every === 0;
      if (progress || opts.untilCovered) {
        const cov = coverage.result();
        if (progress) opts.onProgress!(report.cases, cov, corpus.length);
        if (opts.untilCovered && allCovered(cov, components)) {
          report.stopped = 'covered';
          break;
        }
      }
    }
  }
  if (coverage) report.coverage = coverage.result();
  if (directed) {
    report.corpus = corpus.length;
    report.mutated = mutated;
    // The newest CORPUS_MAX cases are kept: each session adds the cases that were new to it.
    if (corpus.length > 0) saveCorpus(dir, [...others, ...corpus].slice(-CORPUS_MAX));
  }
  return report;
}
