// The compiled copy of the TypeScript that bin/rvtrace.js runs: dist/, made by tsc with
// tsconfig.build.json (imports' .ts rewritten to .js). Plain JavaScript so that bin/rvtrace.js,
// scripts/setup.sh and vitest's global set-up can all use it before anything is compiled.
//
//   node scripts/dist.mjs     compiles dist/ when it is missing or older than a source; exit 0 when
//                             dist/ is then current, 1 when the sources do not compile
//
// "Older" is decided by modification times, as make does: dist/.stamp gets the time the last
// successful build started, and any source file or folder (a file added or removed) changed after
// it makes dist/ stale. Builds take a lock (dist.lock/, holding the builder's pid), so that
// processes started together (a test run, a script calling rvtrace in parallel) compile once.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = dirname(import.meta.dirname);

/** The folders tsconfig.build.json compiles from (cli/main.ts and what it imports). */
export const SOURCE_DIRS = ['core', 'golden-model', 'ipxact', 'generator', 'tb', 'blocks', 'cli', 'workloads'];
/** Files whose change changes the output of tsc. */
export const CONFIG_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];
export const STAMP = join('dist', '.stamp');
const LOCK = 'dist.lock';
const BUILD_HINT = 'bash scripts/setup.sh';

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * The first source (or folder, or config file) changed after `since` (ms), else undefined. Tests
 * (*.test.ts) are not part of dist/ and are skipped; so are folders that hold no code of the CLI.
 */
export function changedSince(root, since) {
  for (const f of CONFIG_FILES) if (mtime(join(root, f)) > since) return f;
  const stack = [...SOURCE_DIRS];
  while (stack.length > 0) {
    const rel = stack.pop();
    const dir = join(root, rel);
    if (mtime(dir) > since) return rel + '/';
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.')) stack.push(join(rel, e.name));
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        if (mtime(join(dir, e.name)) > since) return join(rel, e.name);
      }
    }
  }
  return undefined;
}

/** Why dist/ under `root` cannot be run as it is ('missing' or the changed source), else undefined. */
export function distStaleness(root = ROOT) {
  const stamp = mtime(join(root, STAMP));
  if (stamp < 0) return 'missing';
  return changedSince(root, stamp);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Takes dist.lock/ (waiting for a live builder, taking over from a dead one); returns its release. */
function lock(root, log) {
  const dir = join(root, LOCK);
  let waited = false;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    } catch {
      // being created or removed right now
    }
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
      rmSync(dir, { recursive: true, force: true }); // its builder died (killed); its build is void
      continue;
    }
    if (!waited) log(`waiting for another build of dist/ (pid ${owner})`);
    waited = true;
    sleep(200);
  }
}

/**
 * Links tsc's output of the command line into one file, dist/rvtrace.cjs, with commander and
 * handlebars: Node 20 loads one module far faster than the 200 tsc writes (`rvtrace --help`
 * 0.13 s of CPU instead of 0.36 s, 0.10 s with the code cache of cli/bundle.ts; README,
 * "Set-up and start-up"). esbuild only joins JavaScript here; tsc has compiled it.
 */
async function bundle(root) {
  let esbuild;
  try {
    esbuild = await import(pathToFileURL(join(root, 'node_modules', 'esbuild', 'lib', 'main.js')).href);
  } catch (e) {
    return `cannot load esbuild (${e.message}); run ${BUILD_HINT}`;
  }
  try {
    esbuild.buildSync({
      entryPoints: [join(root, 'dist', 'cli', 'worker-main.js')],
      outfile: join(root, 'dist', 'rvtrace.cjs'),
      bundle: true,
      platform: 'node',
      // CommonJS, because V8's code cache is open to a script (cli/bundle.ts), not to an ES module.
      format: 'cjs',
      target: 'node20',
      logLevel: 'error',
      define: { 'import.meta.dirname': '__dirname' },
    });
    for (const f of readdirSync(join(root, 'dist'))) if (f.startsWith('rvtrace.cjs.') && f.endsWith('.cache')) rmSync(join(root, 'dist', f), { force: true });
  } catch (e) {
    return `cannot bundle dist/ (${e.message.split('\n')[0]})`;
  }
  return undefined;
}

/**
 * Compiles dist/ under `root` unless it is current. Returns undefined when dist/ is current
 * afterwards, else the one-line reason it is not (tsc's messages have gone to stderr).
 * Synchronous but for loading esbuild, and only when dist/ is stale.
 */
export async function ensureDist(root = ROOT, log = (s) => process.stderr.write(`[dist] ${s}\n`)) {
  if (distStaleness(root) === undefined) return undefined;
  const release = lock(root, log);
  try {
    const why = distStaleness(root); // another process may have built it while we waited
    if (why === undefined) return undefined;
    const started = Date.now();
    log(why === 'missing' ? 'compiling the TypeScript into dist/ (first run)' : `compiling the TypeScript into dist/ (${why} changed)`);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: ['ignore', 2, 2] });
    if (r.error !== undefined) return `cannot run tsc (${r.error.message}); run ${BUILD_HINT}`;
    if (r.status !== 0) return `the sources do not compile (tsc -p tsconfig.build.json, messages above); fix them and run again`;
    const bundled = await bundle(root);
    if (bundled !== undefined) return bundled;
    const stamp = join(root, STAMP);
    closeSync(openSync(stamp, 'w'));
    // The build's start, not its end: a source saved during the build makes the next run build again.
    utimesSync(stamp, started / 1000, started / 1000);
    log(`dist/ compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return undefined;
  } finally {
    release();
  }
}

if (process.argv[1] === import.meta.filename) {
  const why = await ensureDist();
  if (why !== undefined) {
    process.stderr.write(`rvtrace: ${why}\n`);
    process.exitCode = 1;
  }
}
