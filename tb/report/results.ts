/**
 * The inputs of `rvtrace report`: JSON results of `regress`, `merge` and `fuzz`, read and checked
 * field by field, so that a file that is not one of them is a one-line error naming the file and the
 * field (never a stack trace, and before anything is written). Generic: names no block.
 */
import { readFileSync } from 'node:fs';
import { RvError } from '../../golden-model/common/errors.ts';
import { COVERAGE_FORMAT, type Coverage } from '../../core/coverage.ts';
import type { CaseRecord, Partial, Results, Shard } from '../regress.ts';

/** A failing case as the report shows it. */
export interface FailingCase {
  /** The results file it came from. */
  readonly file: string;
  readonly id: string;
  readonly component: string;
  readonly mismatch?: string;
  /** The `rvtrace cosim` command that replays the case. */
  readonly replay: string;
  /** The same command with `--fst`: cosim writes the waveform around the mismatch there. */
  readonly waveformCommand: string;
  /** A waveform file the results name, if any. */
  readonly waveform?: string;
}

/** One results file, whatever command wrote it. */
export interface ReportSource {
  readonly file: string;
  readonly kind: 'regress' | 'fuzz';
  readonly tool: string;
  /** Regression cases (none for a fuzz session, which keeps only counts). */
  readonly cases: readonly CaseRecord[];
  readonly total: number;
  readonly failed: number;
  readonly failures: readonly FailingCase[];
  readonly coverage?: Coverage;
  readonly shard?: Shard;
  readonly partial?: Partial;
  /** A fuzz session's seed and length. */
  readonly fuzz?: { readonly seed: number; readonly seconds: number; readonly records: number; readonly stopped?: string };
}

const NOT_RESULTS = 'not a results file of rvtrace (expected the --json output of regress, merge or fuzz)';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function bad(file: string, field: string, expected: string): RvError {
  return new RvError('bad-file', `${field}: expected ${expected}`, { file });
}

function str(o: Obj, key: string, file: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw bad(file, `${where}${key}`, 'a string');
  return v;
}

function num(o: Obj, key: string, file: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(file, `${where}${key}`, 'a number');
  return v;
}

/** The waveform command of a case: its replay command with `--fst`, named after the case. */
export function waveformCommand(replay: string, id: string): string {
  return `${replay} --fst ${id.replace(/[^A-Za-z0-9._-]+/g, '_')}.fst`;
}

/** Checks `coverage` of a results file (core/coverage.ts): every group's fields and every bin's hits. */
export function checkCoverage(cov: unknown, file: string): Coverage {
  if (!isObj(cov)) throw bad(file, 'coverage', 'an object {format, groups}');
  if (cov['format'] !== COVERAGE_FORMAT) throw bad(file, 'coverage.format', `"${COVERAGE_FORMAT}"`);
  const groups = cov['groups'];
  if (!Array.isArray(groups)) throw bad(file, 'coverage.groups', 'an array');
  groups.forEach((g: unknown, i) => {
    const at = `coverage.groups[${i}]`;
    if (!isObj(g)) throw bad(file, at, 'an object {block, component, sets, kind, cases, bins, excluded}');
    for (const k of ['block', 'component', 'kind']) str(g, k, file, `${at}.`);
    num(g, 'cases', file, `${at}.`);
    if (!Array.isArray(g['sets']) || g['sets'].some((s) => typeof s !== 'string')) throw bad(file, `${at}.sets`, 'an array of strings');
    for (const k of ['bins', 'unexpected']) {
      const bins = g[k];
      if (bins === undefined && k === 'unexpected') continue;
      if (!isObj(bins)) throw bad(file, `${at}.${k}`, 'an object {bin: hits}');
      for (const [b, n] of Object.entries(bins)) if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw bad(file, `${at}.${k}["${b}"]`, 'a count of hits (an integer >= 0)');
    }
    const ex = g['excluded'];
    if (!isObj(ex)) throw bad(file, `${at}.excluded`, 'an object {bin: reason}');
    for (const [b, r] of Object.entries(ex)) if (typeof r !== 'string') throw bad(file, `${at}.excluded["${b}"]`, 'a reason (a string)');
  });
  return cov as unknown as Coverage;
}

function regressSource(o: Obj, file: string): ReportSource {
  if (!isObj(o['matrix'])) throw bad(file, 'matrix', 'an object (the regression matrix)');
  const cases = o['cases'] as unknown[];
  const failures: FailingCase[] = [];
  cases.forEach((c, i) => {
    const at = `cases[${i}].`;
    if (!isObj(c)) throw bad(file, `cases[${i}]`, 'an object (a case record)');
    const id = str(c, 'id', file, at);
    str(c, 'component', file, at);
    if (c['status'] !== 'passed' && c['status'] !== 'failed') throw bad(file, `${at}status`, '"passed" or "failed"');
    num(c, 'records', file, at);
    if (c['metrics'] !== undefined && (!isObj(c['metrics']) || Object.values(c['metrics']).some((v) => typeof v !== 'number'))) throw bad(file, `${at}metrics`, 'an object {name: number}');
    if (c['mismatch'] !== undefined && typeof c['mismatch'] !== 'string') throw bad(file, `${at}mismatch`, 'a string');
    if (c['waveform'] !== undefined && typeof c['waveform'] !== 'string') throw bad(file, `${at}waveform`, 'a string (a waveform file)');
    if (c['status'] === 'failed') {
      const replay = str(c, 'replay', file, at);
      failures.push({
        file,
        id,
        component: c['component'] as string,
        ...(c['mismatch'] !== undefined ? { mismatch: c['mismatch'] as string } : {}),
        replay,
        waveformCommand: waveformCommand(replay, id),
        ...(c['waveform'] !== undefined ? { waveform: c['waveform'] as string } : {}),
      });
    }
  });
  const r = o as unknown as Results;
  return {
    file,
    kind: 'regress',
    tool: typeof o['tool'] === 'string' ? (o['tool'] as string) : 'rvtrace',
    cases: r.cases.map((c) => ({ ...c, metrics: c.metrics ?? {} })),
    total: cases.length,
    failed: failures.length,
    failures,
    ...(o['coverage'] !== undefined ? { coverage: checkCoverage(o['coverage'], file) } : {}),
    ...(r.shard !== undefined ? { shard: r.shard } : {}),
    ...(r.partial !== undefined ? { partial: r.partial } : {}),
  };
}

/** A replay command for a fuzz failure saved without one (results of an older rvtrace). */
function fuzzReplay(spec: Obj): string {
  const sets = Array.isArray(spec['sets']) ? (spec['sets'] as unknown[]).map((s) => ` --set ${String(s)}`).join('') : '';
  const knobs = isObj(spec['knobs']) ? Object.entries(spec['knobs']).map(([k, v]) => ` --knob ${k}=${String(v)}`).join('') : '';
  const bp = typeof spec['backpressure'] === 'number' && spec['backpressure'] !== 0 ? ` --backpressure ${spec['backpressure']}` : '';
  return `npx rvtrace cosim --component ${String(spec['component'])}${sets}${knobs} --seed ${String(spec['seed'])} --count ${String(spec['count'])}${bp}`;
}

function fuzzSource(o: Obj, file: string): ReportSource {
  const seed = num(o, 'seed', file, '');
  const total = num(o, 'cases', file, '');
  const failures: FailingCase[] = [];
  (o['failures'] as unknown[]).forEach((f, i) => {
    const at = `failures[${i}].`;
    if (!isObj(f)) throw bad(file, `failures[${i}]`, 'an object (a failing case)');
    const component = str(f, 'component', file, at);
    num(f, 'seed', file, at);
    num(f, 'count', file, at);
    const replay = typeof f['replay'] === 'string' ? f['replay'] : fuzzReplay(f);
    const id = `${component}/seed${String(f['seed'])}/n${String(f['count'])}`;
    failures.push({ file, id, component, replay, waveformCommand: waveformCommand(replay, id) });
  });
  return {
    file,
    kind: 'fuzz',
    tool: typeof o['tool'] === 'string' ? (o['tool'] as string) : 'rvtrace',
    cases: [],
    total,
    failed: failures.length,
    failures,
    ...(o['coverage'] !== undefined ? { coverage: checkCoverage(o['coverage'], file) } : {}),
    fuzz: { seed, seconds: typeof o['seconds'] === 'number' ? o['seconds'] : 0, records: typeof o['records'] === 'number' ? o['records'] : 0, ...(typeof o['stopped'] === 'string' ? { stopped: o['stopped'] } : {}) },
  };
}

/** Reads one results file of regress, merge or fuzz; anything else is a one-line error naming the file. */
export function readResults(file: string): ReportSource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RvError('io', `cannot read: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`, { file });
  }
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new RvError('bad-file', `${NOT_RESULTS}: not JSON`, { file });
  }
  if (!isObj(o)) throw new RvError('bad-file', `${NOT_RESULTS}: JSON but not an object`, { file });
  if (Array.isArray(o['cases'])) return regressSource(o, file);
  if (typeof o['cases'] === 'number' && Array.isArray(o['failures'])) return fuzzSource(o, file);
  throw new RvError('bad-file', `${NOT_RESULTS}: JSON without "matrix" and "cases" (regress, merge) or "cases" and "failures" (fuzz)`, { file });
}
