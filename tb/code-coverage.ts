/**
 * RTL code coverage (line and toggle points of Verilator's `--coverage-line --coverage-toggle`).
 * Generic: names no block. While a session is open (`startCodeCoverage(dir)`), buildModel builds
 * coverage models (a cache entry of its own; waveform builds stay plain), caseModel registers which
 * configuration each model is, and runModel gives each run of a coverage model a file of its own
 * under `<dir>/cases/`. `finishCodeCoverage()` closes the session: per configuration it merges the
 * cases' files with `verilator_coverage --write`, writes annotated sources with `--annotate`, and
 * returns the points as coverage groups of kind "code" (core/coverage.ts): one case per run, bins
 * `<module>:<line>:<kind>:<detail>` (kind "line", "branch" or "toggle"; detail the statement kind
 * such as "block", "case", "if", "else", or the signal bit of a toggle point), summed over the
 * instances of a module and over points that share a line and a detail, so `rvtrace report` shows
 * them per module.
 * Points a block waives (Block.codeCoverageWaivers: cannot toggle by construction) are excluded
 * with their reason.
 *
 * Verilator 5.006 has no `--coverage-branch` option: `--coverage-line` also writes the "branch"
 * points (the taken and not-taken arms of an `if` without an `else`), which is its branch coverage.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CodeCoverageWaiver } from '../core/block.ts';
import { type BinHits, type Coverage, type CoverageSpace, addCase, emptyCoverage } from '../core/coverage.ts';
import { RvError } from '../golden-model/common/errors.ts';

/** The Verilator arguments of a code coverage build. */
export const CODE_COVERAGE_FLAGS: readonly string[] = ['--coverage-line', '--coverage-toggle'];

/** The configuration a coverage model was built for. */
export interface CodeCoverageOwner {
  readonly block: string;
  readonly component: string;
  readonly sets: readonly string[];
  readonly waivers: readonly CodeCoverageWaiver[];
}

interface Session {
  readonly dir: string;
  readonly owners: Map<string, CodeCoverageOwner>;
  readonly files: Map<string, string[]>;
  next: number;
}

let session: Session | undefined;

/** Opens a session writing into `dir` (created; its `cases/`, `merged/` and `annotated/` are replaced). */
export function startCodeCoverage(dir: string): void {
  if (session !== undefined) throw new RvError('bad-option', 'code coverage: a session is already open');
  const abs = resolve(dir);
  for (const sub of ['cases', 'merged', 'annotated']) rmSync(join(abs, sub), { recursive: true, force: true });
  mkdirSync(join(abs, 'cases'), { recursive: true });
  session = { dir: abs, owners: new Map(), files: new Map(), next: 0 };
}

/** True while a session is open: builds (other than waveform builds) are coverage builds. */
export function codeCoverageOn(): boolean {
  return session !== undefined;
}

/** caseModel: the model with cache key `key` is the configuration `owner`. */
export function registerCoverageModel(key: string, owner: CodeCoverageOwner): void {
  session?.owners.set(key, owner);
}

/** runModel: the file the next run of the coverage model `key` writes (absolute). */
export function coverageFileFor(key: string): string {
  const s = session;
  if (s === undefined) throw new RvError('bad-option', 'runModel: the model is built with code coverage but no code coverage session is open (startCodeCoverage)');
  const file = join(s.dir, 'cases', `${key.slice(0, 16)}-${String(s.next++).padStart(6, '0')}.dat`);
  const list = s.files.get(key) ?? [];
  list.push(file);
  s.files.set(key, list);
  return file;
}

/** Closes the session without merging (the run failed); its files stay in the directory. */
export function abandonCodeCoverage(): void {
  session = undefined;
}

/** One coverage point of a Verilator coverage data file. */
export interface CoveragePoint {
  readonly module: string;
  readonly file: string;
  readonly line: number;
  /** "line", "branch" or "toggle" (from the page `v_<kind>/<module>`). */
  readonly kind: string;
  /** The signal bit of a toggle point, the statement kind ("if", "else", "block", ...) of a line point. */
  readonly detail: string;
  readonly count: number;
}

/**
 * The points of a coverage data file (`C '<fields>' <count>` lines; fields are `\x01key\x02value`
 * pairs: `f` file, `l` line, `page` v_<kind>/<module>, `o` the comment). `name` is for messages.
 */
export function parseCoverageData(text: string, name: string): CoveragePoint[] {
  const out: CoveragePoint[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (line === '' || line.startsWith('#')) return;
    const m = /^C '(.*)' (\d+)$/s.exec(line);
    if (m === null) throw new RvError('bad-file', `not a coverage point ("C '<fields>' <count>")`, { file: name, line: i + 1 });
    const fields = new Map<string, string>();
    for (const part of m[1]!.split('\x01')) {
      if (part === '') continue;
      const sep = part.indexOf('\x02');
      if (sep > 0) fields.set(part.slice(0, sep), part.slice(sep + 1));
    }
    const page = fields.get('page') ?? '';
    const pm = /^v_([a-z]+)\/(.+)$/.exec(page);
    const lineNo = Number(fields.get('l'));
    if (pm === null || !Number.isInteger(lineNo)) throw new RvError('bad-file', 'coverage point without page v_<kind>/<module> or line number', { file: name, line: i + 1 });
    out.push({ module: pm[2]!, file: fields.get('f') ?? '', line: lineNo, kind: pm[1]!, detail: fields.get('o') ?? '', count: Number(m[2]) });
  });
  return out;
}

/** The bin of a point: `<module>:<line>:<kind>:<detail>` (the module first, for the report). */
export function pointBin(p: CoveragePoint): string {
  return `${p.module}:${p.line}:${p.kind}:${p.detail}`;
}

/** Glob match with `*` (any run) and `?` (one character). */
function globMatch(glob: string, text: string): boolean {
  const re = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
  return re.test(text);
}

/** The space and hits of one run's points: bins summed over instances, waived bins excluded with their reason. */
export function pointsToBins(points: readonly CoveragePoint[], waivers: readonly CodeCoverageWaiver[]): { space: CoverageSpace; hits: BinHits } {
  const hits: BinHits = {};
  for (const p of points) {
    const bin = pointBin(p);
    hits[bin] = (hits[bin] ?? 0) + p.count;
  }
  const bins = Object.keys(hits).sort();
  const excluded: Record<string, string> = {};
  for (const bin of bins) {
    const w = waivers.find((x) => globMatch(x.bin, bin));
    if (w !== undefined) excluded[bin] = w.reason.join(' ');
  }
  return { space: { bins, excluded }, hits };
}

function runVerilatorCoverage(args: string[]): void {
  const r = spawnSync('verilator_coverage', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error !== undefined) throw new RvError('tool-failure', `cannot run verilator_coverage: ${r.error.message}`);
  if (r.status !== 0) throw new RvError('tool-failure', `verilator_coverage ${args[0]} failed (exit status ${r.status ?? r.signal}): ${(r.stderr || r.stdout).trim().split('\n')[0]}`);
}

/** What a session produced. */
export interface CodeCoverageResult {
  /** Groups of kind "code", one per configuration; a run is a case. */
  readonly coverage: Coverage;
  /** Per configuration: the merged data file and the annotated sources' folder. */
  readonly outputs: readonly {
    readonly component: string;
    readonly sets: readonly string[];
    /** Absent when no run of the configuration wrote data. */
    readonly merged?: string;
    readonly annotated?: string;
    /** Runs whose data was merged. */
    readonly cases: number;
    /** Runs that wrote no data (stopped before the end of the harness, e.g. by an assertion). */
    readonly missing: number;
  }[];
}

/**
 * Closes the session: per configuration, `verilator_coverage --write <dir>/merged/<n>.dat` of its
 * runs' files and `--annotate <dir>/annotated/<n>` (written through a temporary name), and the
 * groups of kind "code". A run that wrote no file (the harness stopped before its end) is left out
 * and counted in `missing`.
 */
export function finishCodeCoverage(): CodeCoverageResult {
  const s = session;
  if (s === undefined) throw new RvError('bad-option', 'code coverage: no session is open');
  session = undefined;
  const coverage = emptyCoverage();
  const outputs: CodeCoverageResult['outputs'][number][] = [];
  const keys = [...s.files.keys()].sort();
  mkdirSync(join(s.dir, 'merged'), { recursive: true });
  mkdirSync(join(s.dir, 'annotated'), { recursive: true });
  keys.forEach((key, n) => {
    const files = s.files.get(key)!;
    const owner = s.owners.get(key);
    if (owner === undefined) throw new RvError('bad-option', `code coverage: model ${key.slice(0, 16)} ran without a registered configuration (caseModel)`);
    // A run the harness did not finish (an assertion aborted it) wrote no file: it is left out and counted.
    const written = files.filter((f) => existsSync(f));
    for (const f of written) {
      const { space, hits } = pointsToBins(parseCoverageData(readFileSync(f, 'latin1'), f), owner.waivers);
      addCase(coverage, { block: owner.block, component: owner.component, sets: owner.sets, kind: 'code' }, space, hits);
    }
    const missing = files.length - written.length;
    if (written.length === 0) {
      outputs.push({ component: owner.component, sets: owner.sets, cases: 0, missing });
      return;
    }
    const name = `${owner.component.replace(/[^A-Za-z0-9_.-]/g, '_')}-${key.slice(0, 8)}`;
    const merged = join(s.dir, 'merged', `${name}.dat`);
    const annotated = join(s.dir, 'annotated', name);
    runVerilatorCoverage(['--write', `${merged}.tmp`, ...written]);
    renameSync(`${merged}.tmp`, merged);
    rmSync(`${annotated}.tmp`, { recursive: true, force: true });
    runVerilatorCoverage(['--annotate', `${annotated}.tmp`, merged]);
    renameSync(`${annotated}.tmp`, annotated);
    outputs.push({ component: owner.component, sets: owner.sets, merged, annotated, cases: written.length, missing });
  });
  return { coverage, outputs };
}

/**
 * The merge of the `--coverage-rtl` directories of several runs (the shards of a regression) into
 * `out`: per configuration (a `merged/<component>-<key>.dat` name; shards of one matrix build the
 * same configurations, so the names agree), `verilator_coverage --write out/merged/<name>.dat` of
 * every source's file of that name, then `--annotate out/annotated/<name>`. Verilator adds the
 * counts, so the result is the data of one unsharded run. Returns the merged files, in name order.
 */
export function mergeCodeCoverageDirs(sources: readonly string[], out: string): { name: string; merged: string; annotated: string; sources: number }[] {
  const byName = new Map<string, string[]>();
  for (const dir of sources) {
    const merged = join(resolve(dir), 'merged');
    if (!existsSync(merged)) throw new RvError('io', 'not a --coverage-rtl directory (no merged/ folder of verilator_coverage data)', { file: dir });
    for (const f of readdirSync(merged).filter((n) => n.endsWith('.dat')).sort()) {
      const list = byName.get(f) ?? [];
      list.push(join(merged, f));
      byName.set(f, list);
    }
  }
  if (byName.size === 0) throw new RvError('io', `no coverage data (merged/*.dat) in ${sources.join(', ')}`);
  const abs = resolve(out);
  for (const sub of ['merged', 'annotated']) {
    rmSync(join(abs, sub), { recursive: true, force: true });
    mkdirSync(join(abs, sub), { recursive: true });
  }
  return [...byName.keys()].sort().map((file) => {
    const name = file.replace(/\.dat$/, '');
    const merged = join(abs, 'merged', file);
    const annotated = join(abs, 'annotated', name);
    runVerilatorCoverage(['--write', `${merged}.tmp`, ...byName.get(file)!]);
    renameSync(`${merged}.tmp`, merged);
    runVerilatorCoverage(['--annotate', `${annotated}.tmp`, merged]);
    renameSync(`${annotated}.tmp`, annotated);
    return { name, merged, annotated, sources: byName.get(file)!.length };
  });
}

/** One module's code coverage: per kind, points covered and counted (waived points apart). */
export interface ModuleCodeCoverage {
  readonly block: string;
  readonly module: string;
  readonly kinds: Readonly<Record<string, { readonly covered: number; readonly total: number; readonly waived: number }>>;
}

/**
 * Per block and module (the bin name up to the first `:`), over every configuration's groups of kind
 * "code": a point counts per configuration, covered when hit; waived points are counted apart.
 */
export function codeCoverageByModule(cov: Coverage): ModuleCodeCoverage[] {
  const acc = new Map<string, { block: string; module: string; kinds: Record<string, { covered: number; total: number; waived: number }> }>();
  for (const g of cov.groups) {
    if (g.kind !== 'code') continue;
    for (const [bin, n] of Object.entries(g.bins)) {
      const [module = '', , kind = ''] = bin.split(':');
      const key = `${g.block}\u0000${module}`;
      let m = acc.get(key);
      if (m === undefined) acc.set(key, (m = { block: g.block, module, kinds: {} }));
      const k = (m.kinds[kind] ??= { covered: 0, total: 0, waived: 0 });
      if (g.excluded[bin] !== undefined) k.waived++;
      else {
        k.total++;
        if (n > 0) k.covered++;
      }
    }
  }
  return [...acc.keys()].sort().map((k) => acc.get(k)!);
}

/** One line per module: `code coverage <block> <module>: line a/b, branch c/d, toggle e/f[, n waived]`. */
export function codeCoverageSummary(cov: Coverage): string {
  return codeCoverageByModule(cov)
    .map((m) => {
      const kinds = Object.keys(m.kinds).sort();
      const waived = kinds.reduce((s, k) => s + m.kinds[k]!.waived, 0);
      return `code coverage ${m.block} ${m.module}: ${kinds.map((k) => `${k} ${m.kinds[k]!.covered}/${m.kinds[k]!.total}`).join(', ')}${waived > 0 ? `, ${waived} waived` : ''}`;
    })
    .join('\n');
}
