/**
 * Functional coverage: the data every block's coverage model produces, its merge and its summary.
 * Generic: names no block. A block's coverage model (core/block.ts `CoverageModel`) says which bins
 * a configuration has (named after the specification), which of them cannot be reached by that
 * configuration (each with a reason), and how often one case hit each bin, observed from the golden
 * model's own decisions (the model is the reference, so its decisions are what is covered).
 *
 * The data is a list of groups, one per configuration (block, component and `--set` values) and
 * kind of coverage ("functional", or "code" for RTL code coverage: tb/code-coverage.ts), each with
 * `bins` {name: hits} and `excluded` {name: reason}. Merging adds the hits of equal groups: sums of
 * integers, so shards merge to exactly the totals of one unsharded run, in any order.
 */
import { RvError } from '../golden-model/common/errors.ts';

export const COVERAGE_FORMAT = 'rvtrace-coverage-1';

/** The bins of one configuration: every bin name, and the ones it cannot reach with the reason. */
export interface CoverageSpace {
  /** Every bin of the configuration, excluded ones included, in the model's order. */
  readonly bins: readonly string[];
  /** Bins the configuration cannot reach, by name, with the reason (e.g. "BranchPrediction is off"). */
  readonly excluded: Readonly<Record<string, string>>;
}

/** Hits by bin name, of one case or summed over many. */
export type BinHits = Record<string, number>;

/** The coverage of one configuration. */
export interface CoverageGroup {
  readonly block: string;
  readonly component: string;
  readonly sets: readonly string[];
  /** "functional" (the model's bins) or "code" (RTL line, branch and toggle points: tb/code-coverage.ts). */
  readonly kind: string;
  /** Cases that contributed. */
  cases: number;
  /** Every bin of the configuration with its hits (0 = not covered), excluded ones included. */
  readonly bins: BinHits;
  readonly excluded: Readonly<Record<string, string>>;
  /**
   * Hits of bins the configuration's space does not list: a defect of the block's coverage model
   * (its space misses a combination the model can decide), shown by the summary; absent when none.
   */
  unexpected?: BinHits;
}

export interface Coverage {
  readonly format: typeof COVERAGE_FORMAT;
  readonly groups: CoverageGroup[];
}

export function emptyCoverage(): Coverage {
  return { format: COVERAGE_FORMAT, groups: [] };
}

const groupKey = (g: { block: string; component: string; sets: readonly string[]; kind: string }): string =>
  JSON.stringify([g.block, g.component, g.sets, g.kind]);

/**
 * Adds one case's hits to `cov` (in place), in the group of its configuration. A hit of a bin the
 * space does not have (a defect of the block's coverage model) goes to `unexpected`, which the
 * summary shows, rather than ending a regression.
 */
export function addCase(cov: Coverage, where: { block: string; component: string; sets: readonly string[]; kind?: string }, space: CoverageSpace, hits: BinHits): void {
  const kind = where.kind ?? 'functional';
  const key = groupKey({ ...where, kind });
  let g = cov.groups.find((x) => groupKey(x) === key);
  if (g === undefined) {
    const bins: BinHits = {};
    for (const b of space.bins) bins[b] = 0;
    g = { block: where.block, component: where.component, sets: [...where.sets], kind, cases: 0, bins, excluded: { ...space.excluded } };
    cov.groups.push(g);
  }
  for (const [bin, n] of Object.entries(hits)) {
    if (g.bins[bin] === undefined) {
      g.unexpected ??= {};
      g.unexpected[bin] = (g.unexpected[bin] ?? 0) + n;
    } else {
      g.bins[bin] += n;
    }
  }
  g.cases++;
}

/**
 * Merges coverage of shards (or runs): groups of the same configuration and kind add their hits
 * and cases. The result lists groups sorted by key, so the same data gives the same JSON whatever
 * the order of the inputs. Groups of one configuration must have the same bins (the same model).
 */
export function mergeCoverage(parts: readonly Coverage[], names: readonly string[] = []): Coverage {
  const byKey = new Map<string, CoverageGroup>();
  parts.forEach((p, i) => {
    if (p.format !== COVERAGE_FORMAT) throw new RvError('bad-file', `merge: coverage format "${String(p.format)}", expected ${COVERAGE_FORMAT}`, { file: names[i] ?? `input ${i + 1}` });
    for (const g of p.groups) {
      const key = groupKey(g);
      const m = byKey.get(key);
      if (m === undefined) {
        byKey.set(key, { ...g, sets: [...g.sets], bins: { ...g.bins }, excluded: { ...g.excluded }, ...(g.unexpected ? { unexpected: { ...g.unexpected } } : {}) });
        continue;
      }
      const a = Object.keys(m.bins).sort().join(',');
      const b = Object.keys(g.bins).sort().join(',');
      if (a !== b) throw new RvError('bad-file', `merge: coverage of ${g.component} has other bins than in ${names[0] ?? 'the first input'} (results of different tool versions?)`, { file: names[i] ?? `input ${i + 1}` });
      for (const [bin, n] of Object.entries(g.bins)) m.bins[bin]! += n;
      for (const [bin, n] of Object.entries(g.unexpected ?? {})) {
        m.unexpected ??= {};
        m.unexpected[bin] = (m.unexpected[bin] ?? 0) + n;
      }
      m.cases += g.cases;
    }
  });
  return { format: COVERAGE_FORMAT, groups: [...byKey.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)).map(([, g]) => g) };
}

/** One block's coverage over all its configurations. */
export interface BlockCoverage {
  readonly block: string;
  readonly kind: string;
  /** Bins reachable in at least one configuration. */
  readonly total: number;
  /** Of those, bins hit in at least one configuration. */
  readonly covered: number;
  /** Reachable bins never hit, sorted. */
  readonly uncovered: readonly string[];
  /** Bins excluded in every configuration, with the first configuration's reason. */
  readonly excluded: Readonly<Record<string, string>>;
  /** Bins hit that no configuration's space lists (coverage model defects), sorted. */
  readonly unexpected: readonly string[];
  readonly cases: number;
}

/**
 * Per block and kind: a bin counts when some configuration of the block can reach it; it is
 * covered when some configuration hit it. A bin excluded by every configuration is listed apart.
 */
export function blockCoverage(cov: Coverage): BlockCoverage[] {
  const out: BlockCoverage[] = [];
  const keys = [...new Set(cov.groups.map((g) => `${g.block}\u0000${g.kind}`))].sort();
  for (const key of keys) {
    const [block, kind] = key.split('\u0000') as [string, string];
    const groups = cov.groups.filter((g) => g.block === block && g.kind === kind);
    const reachable = new Set<string>();
    const hit = new Set<string>();
    const excluded: Record<string, string> = {};
    const unexpected = new Set<string>();
    for (const g of groups) {
      for (const bin of Object.keys(g.unexpected ?? {})) unexpected.add(bin);
      for (const [bin, n] of Object.entries(g.bins)) {
        if (g.excluded[bin] !== undefined) {
          if (excluded[bin] === undefined) excluded[bin] = g.excluded[bin]!;
          continue;
        }
        reachable.add(bin);
        if (n > 0) hit.add(bin);
      }
    }
    for (const bin of reachable) delete excluded[bin];
    const uncovered = [...reachable].filter((b) => !hit.has(b)).sort();
    out.push({ block, kind, total: reachable.size, covered: hit.size, uncovered, excluded, unexpected: [...unexpected].sort(), cases: groups.reduce((s, g) => s + g.cases, 0) });
  }
  return out;
}

/**
 * The coverage summary printed after a run: one line per block (covered/total, percent, cases, bins
 * excluded), then its uncovered bins, `max` of them by name (all with `max` undefined).
 */
export function coverageSummary(cov: Coverage, max?: number): string {
  const lines: string[] = [];
  for (const b of blockCoverage(cov)) {
    const pct = b.total === 0 ? 100 : (100 * b.covered) / b.total;
    const nex = Object.keys(b.excluded).length;
    lines.push(`coverage ${b.block} (${b.kind}): ${b.covered}/${b.total} bins (${pct.toFixed(1)}%) in ${b.cases} case${b.cases === 1 ? '' : 's'}${nex > 0 ? `, ${nex} excluded for every configuration` : ''}`);
    if (b.uncovered.length > 0) {
      const shown = max === undefined ? b.uncovered : b.uncovered.slice(0, max);
      lines.push(`  uncovered: ${shown.join(' ')}${shown.length < b.uncovered.length ? ` ... and ${b.uncovered.length - shown.length} more (all in the JSON results)` : ''}`);
    }
    if (b.unexpected.length > 0) lines.push(`  UNEXPECTED (hit, but not bins of the coverage model: a defect of the model): ${b.unexpected.join(' ')}`);
  }
  return lines.join('\n');
}

/** Hits counter for a coverage model's collector: `hit('name')` adds one. */
export class HitCounter {
  readonly hits: BinHits = {};
  hit(bin: string, n = 1): void {
    this.hits[bin] = (this.hits[bin] ?? 0) + n;
  }
}
