/**
 * Builds the Verilator model of a DUT together with its generated harness (harness.ts) into a
 * content-addressed cache: one directory per key, where the key is the sha256 of the RTL files'
 * contents, the harness source, the extra flags, `verilator --version`, the FST flag and (only for a
 * code coverage build) the coverage flags. A hit is a
 * stat; a miss verilates and compiles in a temporary directory beside the entry and renames it into
 * place, so concurrent builds of the same key never see each other's half-written files.
 *
 * Cache root: $RVTRACE_CACHE, else <repo>/.cache/verilator. An entry holds harness.cpp, obj/
 * (Verilator's output and the binary obj/rvtrace_harness), build.log and build.json (the inputs).
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { finishedWriting, startedWriting } from '../core/unfinished-files.ts';
import { RvError } from '../golden-model/common/errors.ts';
import { findOnPath } from '../golden-model/common/paths.ts';
import { ROOT, sha256Hex } from '../generator/render.ts';
import { CODE_COVERAGE_FLAGS, codeCoverageOn } from './code-coverage.ts';
import type { HarnessSpec } from './harness-spec.ts';
import { renderHarness } from './harness.ts';

export interface BuildRequest {
  spec: HarnessSpec;
  /** Absolute paths, in compilation order. */
  rtlFiles: string[];
  /** Extra Verilator arguments (e.g. `-GDepth=8`, `-Wno-fatal`), part of the key. */
  flags?: string[];
  /** Build with --trace-fst (a separate cache entry), needed for RunOptions.fst. */
  fst?: boolean;
  /**
   * Build with RTL code coverage (tb/code-coverage.ts: line and toggle points; a separate cache
   * entry whose harness writes the points at the end of a run). Default: while a code coverage
   * session is open, every build but a waveform build.
   */
  coverage?: boolean;
}

export interface BuiltModel {
  /** The harness executable. */
  binary: string;
  /** The cache entry. */
  dir: string;
  /** sha256 hex of the build inputs. */
  key: string;
  /** True when the entry existed already. */
  cached: boolean;
  /** Built with RTL code coverage: runModel names the file its points go to. */
  coverage: boolean;
  /** Wall time of buildModel. */
  seconds: number;
}

export const HARNESS_BINARY = 'rvtrace_harness';

/** Part of every key: bump it when the way a model is built changes (not needed for template edits, which change the harness source). */
const BUILD_RECIPE = '2';

/**
 * The fixed Verilator arguments of every build (part of the key). OPT_FAST=-O2 compiles the
 * model's hot code with -O2 instead of Verilator's default -Os: the E-Trace co-simulation runs
 * about 1.6x faster (measured with rvtrace bench), for a few seconds more per build.
 */
export const BASE_FLAGS: readonly string[] = ['--cc', '--exe', '--build', '-j', '2', '-O2', '--x-assign', 'fast', '--x-initial', 'fast', '--assert', '-MAKEFLAGS', 'OPT_FAST=-O2'];

export function cacheRoot(): string {
  const env = process.env['RVTRACE_CACHE'];
  return env !== undefined && env !== '' ? env : join(ROOT, '.cache', 'verilator');
}

/**
 * Installs generated RTL in the content-addressed folder `<cache>/../rtl/<hash>` (written whole
 * through a temporary folder; a folder already there is reused) and returns the files' paths.
 */
export function installRtl(files: readonly { name: string; content: string }[]): { rtlDir: string; paths: string[] } {
  const hash = sha256Hex(Buffer.from(files.map((f) => `${f.name}\n${f.content}`).join('\n'))).slice(0, 16);
  const rtlDir = join(cacheRoot(), '..', 'rtl', hash);
  if (!existsSync(rtlDir)) {
    const tmp = `${rtlDir}.tmp-${process.pid}`;
    startedWriting(tmp);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    for (const f of files) writeFileSync(join(tmp, f.name), f.content);
    try {
      renameSync(tmp, rtlDir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another process installed it first
    }
    finishedWriting(tmp);
  }
  return { rtlDir, paths: files.map((f) => join(rtlDir, f.name)) };
}

let versionMemo: string | undefined;

/** The size and modification time of the verilator executables on PATH: they change when Verilator does. */
function verilatorStamp(): string | undefined {
  const parts: string[] = [];
  for (const name of ['verilator', 'verilator_bin']) {
    const p = findOnPath(name);
    if (p === undefined) continue;
    const st = statSync(p);
    parts.push(`${p} ${st.size} ${st.mtimeMs}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * `verilator --version`, run once per process; across processes it is remembered in
 * <cache>/verilator-version.json while the executables keep their size and time (the command
 * costs about 0.2 s, a part of every short co-simulation).
 */
export function verilatorVersion(): string {
  if (versionMemo !== undefined) return versionMemo;
  const stamp = verilatorStamp();
  const memoFile = join(cacheRoot(), 'verilator-version.json');
  if (stamp !== undefined) {
    try {
      const m = JSON.parse(readFileSync(memoFile, 'utf8')) as { stamp?: unknown; version?: unknown };
      if (m.stamp === stamp && typeof m.version === 'string') return (versionMemo = m.version);
    } catch {
      // no memo yet
    }
  }
  const r = spawnSync('verilator', ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error !== undefined ? r.error.message : (r.stderr || `exit status ${r.status}`);
    throw new RvError('tool-failure', `cannot run verilator --version (scripts/setup.sh installs Verilator): ${why.trim()}`);
  }
  versionMemo = r.stdout.trim();
  if (stamp !== undefined) {
    try {
      mkdirSync(cacheRoot(), { recursive: true });
      const tmp = `${memoFile}.tmp-${process.pid}`;
      writeFileSync(tmp, `${JSON.stringify({ stamp, version: versionMemo })}\n`);
      renameSync(tmp, memoFile);
    } catch {
      // a read-only cache: the version is asked again next time
    }
  }
  return versionMemo;
}

interface KeyParts {
  harness: string;
  contents: Buffer[];
  flags: readonly string[];
  version: string;
  fst: boolean;
  coverage: boolean;
}

function keyOf(p: KeyParts): string {
  const h = createHash('sha256');
  const part = (label: string, data: string | Buffer): void => {
    const b = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    h.update(`${label} ${b.length}\n`);
    h.update(b);
  };
  part('rvtrace-tb-build', BUILD_RECIPE);
  part('base-flags', JSON.stringify(BASE_FLAGS));
  p.contents.forEach((c, i) => part(`rtl${i}`, c));
  part('harness', p.harness);
  part('flags', JSON.stringify(p.flags));
  part('verilator', p.version);
  part('fst', p.fst ? '1' : '0');
  // Only a coverage build adds a part: the key of a plain build is what it was before coverage existed.
  if (p.coverage) part('coverage', JSON.stringify(CODE_COVERAGE_FLAGS));
  return h.digest('hex');
}

function readRtl(files: readonly string[]): Buffer[] {
  if (files.length === 0) throw new RvError('bad-option', 'buildModel: no RTL files');
  return files.map((f) => {
    if (!isAbsolute(f)) throw new RvError('bad-option', 'buildModel: RTL file paths must be absolute', { file: f });
    try {
      return readFileSync(f);
    } catch (e) {
      throw new RvError('io', `cannot read: ${(e as Error).message}`, { file: f });
    }
  });
}

/** The cache key of a request, computed as buildModel computes it (reads the files, no build). */
export function buildKey(req: BuildRequest): string {
  const coverage = wantsCoverage(req);
  return keyOf({ harness: renderHarness(req.spec, { coverage }), contents: readRtl(req.rtlFiles), flags: req.flags ?? [], version: verilatorVersion(), fst: req.fst === true, coverage });
}

function wantsCoverage(req: BuildRequest): boolean {
  return req.coverage ?? (codeCoverageOn() && req.fst !== true);
}

/**
 * Moves a finished build directory `tmp` to `dir` by one rename. When another process got there
 * first (dir exists with its binary), `tmp` is deleted and 'existing' is returned; an entry without
 * its binary (left by hand, never by this code) is replaced.
 */
export function installBuildDir(tmp: string, dir: string): 'installed' | 'existing' {
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(tmp, dir);
      return 'installed';
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EISDIR') throw e;
      if (existsSync(join(dir, 'obj', HARNESS_BINARY))) {
        rmSync(tmp, { recursive: true, force: true });
        return 'existing';
      }
      if (attempt > 0) throw e;
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function tail(text: string, lines: number): string {
  const all = text.trimEnd().split('\n');
  return (all.length > lines ? [`... (${all.length - lines} earlier lines in build.log)`, ...all.slice(-lines)] : all).join('\n');
}

/** Builds (or finds in the cache) the harness binary for `req`. Throws an RvError with Verilator's messages on failure. */
export function buildModel(req: BuildRequest, log: (line: string) => void = () => {}): BuiltModel {
  const t0 = performance.now();
  const seconds = (): number => Math.round(performance.now() - t0) / 1000;
  const top = req.spec.top;
  const coverage = wantsCoverage(req);
  const harness = renderHarness(req.spec, { coverage });
  const contents = readRtl(req.rtlFiles);
  const flags = req.flags ?? [];
  const fst = req.fst === true;
  const key = keyOf({ harness, contents, flags, version: verilatorVersion(), fst, coverage });
  const what = `${fst ? ' (FST)' : ''}${coverage ? ' (code coverage)' : ''}`;
  const root = cacheRoot();
  const dir = join(root, key);
  const binary = join(dir, 'obj', HARNESS_BINARY);
  if (existsSync(binary)) {
    log(`[tb] ${top}: cached model ${key.slice(0, 16)}${what}`);
    return { binary, dir, key, coverage, cached: true, seconds: seconds() };
  }

  mkdirSync(root, { recursive: true });
  // Named before it exists, so that an interrupted run (whose thread is stopped mid-build) can
  // remove it whenever the signal comes: the launcher hears of it first.
  const tmp = join(root, `.tmp-${key.slice(0, 16)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  startedWriting(tmp);
  try {
    mkdirSync(tmp);
    const harnessFile = join(tmp, 'harness.cpp');
    writeFileSync(harnessFile, harness);
    // Verilator reads the original files, so its messages (and $error/$fatal at run time) name
    // them; they are hashed again afterwards in case they changed during the build.
    const includeDirs = [...new Set(req.rtlFiles.map((f) => dirname(f)))].map((d) => `-I${d}`);
    const args = [
      ...BASE_FLAGS,
      ...(fst ? ['--trace-fst'] : []),
      ...(coverage ? CODE_COVERAGE_FLAGS : []),
      '--top-module',
      top,
      '-Mdir',
      join(tmp, 'obj'),
      '-o',
      HARNESS_BINARY,
      ...includeDirs,
      ...flags,
      ...req.rtlFiles,
      harnessFile,
    ];
    const ccache = findOnPath('ccache') !== undefined;
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (ccache) {
      env['OBJCACHE'] = 'ccache';
      // Rewrites the temporary directory's absolute paths, so equal sources hit across keys.
      env['CCACHE_BASEDIR'] = tmp;
      env['CCACHE_NOHASHDIR'] = '1';
    }
    log(`[tb] ${top}: building model ${key.slice(0, 16)}${fst ? ' with FST tracing' : ''}${coverage ? ' with code coverage' : ''} (ccache ${ccache ? 'on' : 'not installed'})`);
    log(`[tb] verilator ${args.map((a) => a.replace(tmp, '<tmp>')).join(' ')}`);
    const r = spawnSync('verilator', args, { cwd: tmp, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    writeFileSync(join(tmp, 'build.log'), output);
    if (r.error !== undefined) throw new RvError('tool-failure', `cannot run verilator: ${r.error.message}`);
    if (r.status !== 0 || !existsSync(join(tmp, 'obj', HARNESS_BINARY))) {
      const messages = (r.stderr ?? '').trim() !== '' ? r.stderr : output;
      throw new RvError('tool-failure', `verilator could not build ${top} (exit status ${r.status ?? r.signal}):\n${tail(messages, 80)}`);
    }
    const after = readRtl(req.rtlFiles);
    const changed = req.rtlFiles.find((_, i) => !after[i]!.equals(contents[i]!));
    if (changed !== undefined) throw new RvError('io', 'the file changed while Verilator was building it; build again', { file: changed });
    const built = seconds();
    writeFileSync(
      join(tmp, 'build.json'),
      `${JSON.stringify({ key, top, fst, coverage, flags, verilator: verilatorVersion(), rtlFiles: req.rtlFiles, seconds: built }, null, 2)}\n`,
    );
    const how = installBuildDir(tmp, dir);
    log(`[tb] ${top}: built in ${built.toFixed(1)} s${how === 'existing' ? ' (a concurrent build of the same key finished first; using it)' : ''}`);
    return { binary, dir, key, coverage, cached: false, seconds: seconds() };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  } finally {
    finishedWriting(tmp);
  }
}
