/**
 * Regressions: a matrix of co-simulation cases (components of any block x back-pressure x seeds),
 * run with a worker per core, optionally one shard of it, with JSON results and JUnit XML; and the
 * merge of shard results. The case order is fixed, so shard K of N always runs the same cases and merging
 * the N shards gives the totals of the whole matrix.
 */
import { availableParallelism } from 'node:os';
import { RvError } from '../golden-model/common/errors.ts';
import { TOOL_VERSION } from '../generator/render.ts';
import type { CaseSpec, ResolvedComponent } from '../core/block.ts';
import { type Coverage, mergeCoverage } from '../core/coverage.ts';
import { replayCommand } from './case.ts';
import { CoverageCollector } from './coverage.ts';

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/**
 * `--shard K/N`, or `--shard N` with the index from the scheduler's environment:
 * SLURM_ARRAY_TASK_ID (relative to SLURM_ARRAY_TASK_MIN, default 0), LSB_JOBINDEX (1-based),
 * JOB_COMPLETION_INDEX (Kubernetes indexed jobs, 0-based).
 */
export function parseShard(text: string | undefined, env: NodeJS.ProcessEnv = process.env): Shard | undefined {
  if (text === undefined) return undefined;
  const explicit = /^(\d+)\/(\d+)$/.exec(text);
  let index: number;
  let count: number;
  if (explicit) {
    index = Number(explicit[1]);
    count = Number(explicit[2]);
  } else if (/^\d+$/.test(text)) {
    count = Number(text);
    const slurm = env['SLURM_ARRAY_TASK_ID'];
    const lsf = env['LSB_JOBINDEX'];
    const k8s = env['JOB_COMPLETION_INDEX'];
    if (slurm !== undefined) index = Number(slurm) - Number(env['SLURM_ARRAY_TASK_MIN'] ?? 0) + 1;
    else if (lsf !== undefined) index = Number(lsf);
    else if (k8s !== undefined) index = Number(k8s) + 1;
    else throw new RvError('bad-option', `--shard ${text}: no shard index (give K/${text}, or run under Slurm, LSF or a Kubernetes indexed job)`);
  } else {
    throw new RvError('bad-option', `--shard ${text}: expected K/N (1 <= K <= N) or N`);
  }
  if (!(Number.isInteger(index) && Number.isInteger(count) && count >= 1 && index >= 1 && index <= count)) {
    throw new RvError('bad-option', `--shard ${text}: shard index ${index} is not within 1..${count}`);
  }
  return { index, count };
}

export interface Matrix {
  readonly components: readonly string[];
  readonly sets: readonly string[];
  readonly seeds: readonly number[];
  readonly backpressures: readonly number[];
  readonly count: number;
}

export interface CaseRecord {
  readonly id: string;
  readonly index: number;
  readonly component: string;
  readonly sets: readonly string[];
  readonly seed: number;
  readonly count: number;
  readonly backpressure: number;
  readonly status: 'passed' | 'failed';
  readonly records: number;
  readonly cycles: number;
  /** The block's figures (core/block.ts MetricSpec), e.g. E-Trace bytes and packets. */
  readonly metrics: Readonly<Record<string, number>>;
  readonly seconds: number;
  readonly mismatch?: string;
  readonly replay: string;
}

/** The resolved component of a case's component and `--set` overrides (resolved once by the caller). */
export type Resolver = (component: string, sets: readonly string[]) => ResolvedComponent;

export interface Results {
  readonly tool: string;
  readonly matrix: Matrix;
  /**
   * The id of every case of the whole matrix, in order (a case's index is its position), written
   * by every shard: what a merge must find.
   */
  readonly plan?: readonly string[];
  readonly shard?: Shard;
  /** Only in a merge made with `allowPartial` that lacked something: the shards and cases no result file had. */
  readonly partial?: Partial;
  readonly cases: CaseRecord[];
  /**
   * Functional coverage of the cases (core/coverage.ts), collected from each block's model; absent
   * when the run was made without it (or a merge had a part without it).
   */
  readonly coverage?: Coverage;
}

/** What a partial merge lacks: shards as `K/N`, cases by id. */
export interface Partial {
  readonly missingShards: readonly string[];
  readonly missingCases: readonly string[];
}

/** Every case of the matrix, in the fixed order. */
export function matrixCases(m: Matrix, resolve: Resolver): (CaseSpec & { index: number; id: string })[] {
  const out: (CaseSpec & { index: number; id: string })[] = [];
  for (const component of m.components) {
    // A block without an output stream (CTR) runs the first back-pressure value only.
    const backpressures = resolve(component, m.sets).block.backpressure ? m.backpressures : m.backpressures.slice(0, 1);
    for (const backpressure of backpressures) {
      for (const seed of m.seeds) {
        const index = out.length;
        out.push({ index, id: `${component}/bp${backpressure}/seed${seed}`, component, sets: m.sets, seed, count: m.count, backpressure });
      }
    }
  }
  return out;
}

export interface RegressOptions {
  readonly resolve: Resolver;
  readonly jobs?: number;
  readonly shard?: Shard;
  /** Called after every case (progress). */
  readonly onCase?: (done: number, total: number, c: CaseRecord) => void;
  readonly log?: (line: string) => void;
  /** Collect functional coverage from the blocks' models (default true). */
  readonly coverage?: boolean;
}

export async function runRegression(m: Matrix, opts: RegressOptions): Promise<Results> {
  const all = matrixCases(m, opts.resolve);
  const shard = opts.shard;
  const mine = shard ? all.filter((c) => c.index % shard.count === shard.index - 1) : all;
  // One build per configuration, before the cases run (each build uses both cores). Each
  // component goes to its block, so a matrix may mix blocks.
  for (const component of new Set(mine.map((c) => c.component))) {
    const r = opts.resolve(component, m.sets);
    r.block.prepare(r, opts.log);
  }
  const jobs = Math.max(1, opts.jobs ?? availableParallelism());
  const results: CaseRecord[] = new Array(mine.length);
  const coverage = opts.coverage === false ? undefined : new CoverageCollector();
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < mine.length) {
      const k = next++;
      const spec = mine[k]!;
      const resolved = opts.resolve(spec.component, spec.sets);
      const r = await resolved.block.runCase(resolved, spec);
      // Coverage counts passing cases only (a case the RTL fails did not exercise what it covers).
      if (r.identical) coverage?.add(resolved, spec);
      const record: CaseRecord = {
        id: spec.id,
        index: spec.index,
        component: spec.component,
        sets: spec.sets,
        seed: spec.seed,
        count: spec.count,
        backpressure: spec.backpressure,
        status: r.identical ? 'passed' : 'failed',
        records: r.records,
        cycles: r.cycles,
        metrics: r.metrics,
        seconds: Number(r.seconds.toFixed(3)),
        ...(r.mismatch !== undefined ? { mismatch: r.mismatch } : {}),
        replay: replayCommand(resolved.block, spec),
      };
      results[k] = record;
      done++;
      opts.onCase?.(done, mine.length, record);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, mine.length) }, worker));
  return {
    tool: `rvtrace ${TOOL_VERSION}`,
    matrix: m,
    plan: all.map((c) => c.id),
    ...(shard ? { shard } : {}),
    cases: results,
    ...(coverage ? { coverage: coverage.result() } : {}),
  };
}

export interface MergeOptions {
  /** Merge an incomplete set (shards or cases missing) and mark the result partial instead of failing. */
  readonly allowPartial?: boolean;
}

/** `a, b, c` of the first few names, then `and N more`. */
function someOf(names: readonly string[], shown = 5): string {
  const head = names.slice(0, shown).join(', ');
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}

/**
 * Merges shard results of one matrix: every case once, in matrix order. A set that lacks a shard
 * (each result names its shard K/N) or a case of the matrix (each result lists every case of the
 * matrix) is an error naming what is missing, unless `allowPartial`: the result then says what it
 * lacks (`partial`).
 */
export function mergeResults(parts: readonly Results[], names: readonly string[], opts: MergeOptions = {}): Results {
  if (parts.length === 0) throw new RvError('bad-option', 'merge: no result files');
  const first = JSON.stringify(parts[0]!.matrix);
  const byIndex = new Map<number, CaseRecord>();
  parts.forEach((p, i) => {
    if (JSON.stringify(p.matrix) !== first) throw new RvError('bad-file', `merge: ${names[i]} is a different regression (matrix) than ${names[0]}`, { file: names[i]! });
    for (const c of p.cases) {
      if (byIndex.has(c.index)) throw new RvError('bad-file', `merge: case ${c.id} appears twice (a shard given twice?)`, { file: names[i]! });
      byIndex.set(c.index, c);
    }
  });
  // Shards: every K of the N the shards were cut into, unless a whole run is among the files.
  const sharded = parts.map((p, i) => ({ shard: p.shard, name: names[i]! })).filter((x): x is { shard: Shard; name: string } => x.shard !== undefined);
  const missingShards: string[] = [];
  if (sharded.length === parts.length) {
    const n = sharded[0]!.shard.count;
    const other = sharded.find((x) => x.shard.count !== n);
    if (other) throw new RvError('bad-file', `merge: ${other.name} is shard ${other.shard.index}/${other.shard.count} but ${sharded[0]!.name} is shard ${sharded[0]!.shard.index}/${n}: shards of different splits`, { file: other.name });
    const present = new Set(sharded.map((x) => x.shard.index));
    for (let k = 1; k <= n; k++) if (!present.has(k)) missingShards.push(`${k}/${n}`);
  }
  const plan = parts.find((p) => p.plan !== undefined)?.plan;
  const missingCases = plan === undefined ? [] : plan.filter((_, index) => !byIndex.has(index));
  const cases = [...byIndex.values()].sort((a, b) => a.index - b.index);
  // Coverage adds up exactly (hits are counts); it is there only when every part has it.
  const coverage = parts.every((p) => p.coverage !== undefined) ? mergeCoverage(parts.map((p) => p.coverage!), names) : undefined;
  const merged: Results = { tool: parts[0]!.tool, matrix: parts[0]!.matrix, ...(plan !== undefined ? { plan } : {}), cases, ...(coverage ? { coverage } : {}) };
  if (missingShards.length === 0 && missingCases.length === 0) return merged;
  if (!opts.allowPartial) {
    const what = [
      ...(missingShards.length > 0 ? [`shard${missingShards.length > 1 ? 's' : ''} ${someOf(missingShards)} missing`] : []),
      ...(missingCases.length > 0 ? [`${missingCases.length} of ${plan!.length} cases missing (${someOf(missingCases)})`] : []),
    ];
    throw new RvError('bad-file', `merge: incomplete: ${what.join('; ')}; give every shard's results, or --allow-partial to merge what there is`);
  }
  return { ...merged, partial: { missingShards, missingCases } };
}

/** The summary's line about a partial merge ('' for a complete one). */
export function partialLine(r: Results): string {
  const p = r.partial;
  if (p === undefined) return '';
  const shards = p.missingShards.length > 0 ? `, shard${p.missingShards.length > 1 ? 's' : ''} ${someOf(p.missingShards)}` : '';
  const cases = p.missingCases.length > 0 ? `: ${someOf(p.missingCases)}` : '';
  return `PARTIAL: ${p.missingCases.length} case${p.missingCases.length === 1 ? '' : 's'} of the matrix not run${shards} missing${cases}`;
}

export interface Totals {
  cases: number;
  passed: number;
  failed: number;
  records: number;
  cycles: number;
  /** Each block figure summed, by name. */
  metrics: Record<string, number>;
  seconds: number;
}

export function totals(cases: readonly CaseRecord[]): Totals {
  const t: Totals = { cases: 0, passed: 0, failed: 0, records: 0, cycles: 0, metrics: {}, seconds: 0 };
  for (const c of cases) {
    t.cases++;
    if (c.status === 'passed') t.passed++;
    else t.failed++;
    t.records += c.records;
    t.cycles += c.cycles;
    for (const [name, v] of Object.entries(c.metrics)) t.metrics[name] = (t.metrics[name] ?? 0) + v;
    t.seconds += c.seconds;
  }
  return t;
}

/**
 * The summary table: one row per component, then the total. The blocks' figures follow the
 * records and cycles, one column each ('-' for a component whose block does not count it).
 */
export function summaryTable(r: Results): string {
  const metrics = [...new Set(r.cases.flatMap((c) => Object.keys(c.metrics)))];
  const rows: string[][] = [['component', 'cases', 'passed', 'failed', 'records', 'cycles', ...metrics, 'seconds']];
  const components = [...new Set(r.cases.map((c) => c.component))];
  const row = (name: string, t: Totals) => [
    name,
    String(t.cases),
    String(t.passed),
    String(t.failed),
    String(t.records),
    String(t.cycles),
    ...metrics.map((m) => (t.metrics[m] === undefined ? '-' : String(t.metrics[m]))),
    t.seconds.toFixed(1),
  ];
  for (const comp of components) rows.push(row(comp, totals(r.cases.filter((c) => c.component === comp))));
  rows.push(row('total', totals(r.cases)));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((x) => x[i]!.length)));
  return rows.map((x) => x.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ')).join('\n');
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: a test suite per component, a test case per (back-pressure, seed). */
export function junitXml(r: Results): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const t = totals(r.cases);
  const missing = r.partial?.missingCases ?? [];
  // A partial merge: its name says so, and each missing case is a skipped test case of its component.
  const name = r.partial ? 'rvtrace regress (partial)' : 'rvtrace regress';
  const skippedAttr = (n: number): string => (r.partial ? ` skipped="${n}"` : '');
  out.push(`<testsuites name="${name}" tests="${t.cases + missing.length}" failures="${t.failed}"${skippedAttr(missing.length)} time="${t.seconds.toFixed(3)}">`);
  if (r.partial) {
    const shards = r.partial.missingShards.length > 0 ? `; missing shards: ${r.partial.missingShards.join(', ')}` : '';
    out.push(`  <properties><property name="partial" value="${xml(`${missing.length} cases not run${shards}`)}"/></properties>`);
  }
  // A missing case's component from its id (component/bpP/seedS; a component may be a path).
  const componentOf = (id: string): string => id.slice(0, id.lastIndexOf('/', id.lastIndexOf('/') - 1));
  const missingOf = (comp: string): string[] => missing.filter((id) => componentOf(id) === comp);
  for (const comp of new Set([...r.cases.map((c) => c.component), ...missing.map(componentOf)])) {
    const cases = r.cases.filter((c) => c.component === comp);
    const ct = totals(cases);
    const skipped = missingOf(comp);
    out.push(`  <testsuite name="${xml(comp)}" tests="${ct.cases + skipped.length}" failures="${ct.failed}"${skippedAttr(skipped.length)} time="${ct.seconds.toFixed(3)}">`);
    for (const c of cases) {
      const name = `bp${c.backpressure} seed${c.seed}`;
      if (c.status === 'passed') {
        out.push(`    <testcase classname="${xml(comp)}" name="${xml(name)}" time="${c.seconds.toFixed(3)}"/>`);
      } else {
        out.push(`    <testcase classname="${xml(comp)}" name="${xml(name)}" time="${c.seconds.toFixed(3)}">`);
        out.push(`      <failure message="RTL and model differ">${xml(`${c.mismatch ?? ''}\nreplay: ${c.replay}`)}</failure>`);
        out.push('    </testcase>');
      }
    }
    for (const id of skipped) {
      out.push(`    <testcase classname="${xml(comp)}" name="${xml(id.slice(comp.length + 1).replace('/', ' '))}" time="0.000">`);
      out.push('      <skipped message="not run: missing from the merged results"/>');
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
