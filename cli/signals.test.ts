// SIGINT and SIGTERM end the whole run (cli/launcher.ts): the test sends each signal to the
// rvtrace process alone (not its process group, which a terminal would signal, so nothing but
// rvtrace itself can end the children) while Verilator compiles a model and while a harness runs
// a case, then checks that no process of the run is left and that no partial file is.
// The processes of a run are recognised by a marker in their environment, which every child
// inherits, so those that lost their parent are found too.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const COMPONENT = 'ctr-small';

interface Proc {
  pid: number;
  name: string;
}

/** The living processes (zombies excluded) whose environment holds RVTRACE_SIGNAL_TEST=marker. */
function processesOf(marker: string): Proc[] {
  const needle = `RVTRACE_SIGNAL_TEST=${marker}\0`;
  const found: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').includes(needle)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      found.push({ pid: Number(name), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Every file or folder below `dir` whose name marks it as unfinished (`.tmp-`). */
function partials(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => p.split('/').some((part) => part.includes('.tmp-')));
}

async function waitFor<T>(what: string, ms: number, probe: () => T | undefined): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Run {
  child: ChildProcess;
  marker: string;
  output: () => string;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts rvtrace (through npx: in a process group of its own, for a group's signal). */
function start(args: string[], env: Record<string, string>, via: 'node' | 'npx' = 'node'): Run {
  const marker = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const [cmd, argv] = via === 'node' ? [process.execPath, [BIN, ...args]] : ['npx', ['--no-install', 'rvtrace', ...args]];
  const child = spawn(cmd, argv, {
    cwd: ROOT,
    env: { ...process.env, ...env, RVTRACE_SIGNAL_TEST: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: via === 'npx',
  });
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, marker, output: () => text, ended };
}

/** Waits until the run's processes are all gone (killed processes take a moment to be reaped). */
async function survivors(marker: string): Promise<Proc[]> {
  const until = Date.now() + 5000;
  let left = processesOf(marker);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesOf(marker);
  }
  return left;
}

const work = mkdtempSync(join(tmpdir(), 'rvtrace-signals-'));
/** A cache with the component's model built, for the cases. */
const builtCache = join(work, 'built', 'verilator');

beforeAll(() => {
  const r = spawnSync(process.execPath, [BIN, 'cosim', '-c', COMPONENT, '--count', '100'], { cwd: ROOT, env: { ...process.env, RVTRACE_CACHE: builtCache }, encoding: 'utf8' });
  expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
}, 600_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('a signal to rvtrace', () => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    it(`${sig} during a Verilator build ends verilator, make and the compilers, and leaves no .tmp-* folder in the cache`, async () => {
      const cache = join(work, `build-${sig}`, 'verilator');
      // Without ccache the compilers run long enough to be caught at work.
      const run = start(['cosim', '-c', COMPONENT, '--count', '2000'], { RVTRACE_CACHE: cache, CCACHE_DISABLE: '1' });
      const compilers = await waitFor('the C++ compiler of the model', 120_000, () => {
        const p = processesOf(run.marker);
        return p.some((x) => /^(cc1plus|g\+\+|c\+\+)$/.test(x.name)) ? p : undefined;
      });
      expect(compilers.map((p) => p.name)).toContain('make');
      expect(partials(cache).length, 'the build folder exists while it builds').toBeGreaterThan(0);
      run.child.kill(sig);
      const end = await run.ended;
      expect(end.signal, run.output()).toBe(sig);
      expect(await survivors(run.marker)).toEqual([]);
      expect(partials(join(cache, '..'))).toEqual([]);
      // No model was installed: the cache holds no entry (only the memo of `verilator --version` and
      // the component xmllint found valid).
      expect(readdirSync(cache).filter((n) => n !== 'verilator-version.json' && n !== 'xsd-valid')).toEqual([]);
      expect(run.output()).toContain(`rvtrace: ${sig}: stopping the run`);
    });

    it(`${sig} during a regression case ends the harness and writes neither results nor partial files`, async () => {
      const out = join(work, `case-${sig}`);
      const run = start(['regress', '--components', COMPONENT, '--seeds', '1-2', '--count', '2000000', '--json', join(out, 'r.json'), '--junit', join(out, 'r.xml')], {
        RVTRACE_CACHE: builtCache,
      });
      await waitFor('the harness', 120_000, () => (processesOf(run.marker).some((p) => p.name === 'rvtrace_harness') ? true : undefined));
      run.child.kill(sig);
      const end = await run.ended;
      expect(end.signal, run.output()).toBe(sig);
      expect(await survivors(run.marker)).toEqual([]);
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
      expect(partials(join(builtCache, '..'))).toEqual([]);
    });
  }

  // npm passes a signal on to the shell it runs rvtrace through, not to rvtrace. SIGTERM ends that
  // shell (rvtrace then notices npm is gone); SIGINT it holds until its command ends, as every shell
  // does, since a terminal's Ctrl-C goes to the whole process group: it is sent so here.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) it(`${sig} through npx (${sig === 'SIGINT' ? 'to its process group, as Ctrl-C' : 'to npx alone'}) ends the run the same way`, async () => {
    const out = join(work, `npx-${sig}`);
    const run = start(['regress', '--components', COMPONENT, '--seeds', '1', '--count', '2000000', '--json', join(out, 'r.json')], { RVTRACE_CACHE: builtCache }, 'npx');
    await waitFor('the harness', 120_000, () => (processesOf(run.marker).some((p) => p.name === 'rvtrace_harness') ? true : undefined));
    if (sig === 'SIGINT') process.kill(-run.child.pid!, sig);
    else run.child.kill(sig);
    const end = await run.ended;
    // npm ends by the signal, or with status 128 + its number.
    expect(end.signal === sig || end.code === 128 + (sig === 'SIGINT' ? 2 : 15), `${JSON.stringify(end)}\n${run.output()}`).toBe(true);
    expect(await survivors(run.marker)).toEqual([]);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it('a second signal kills at once, the run and its processes with it', async () => {
    const cache = join(work, 'twice', 'verilator');
    const run = start(['cosim', '-c', COMPONENT, '--count', '2000'], { RVTRACE_CACHE: cache, CCACHE_DISABLE: '1' });
    await waitFor('make', 120_000, () => (processesOf(run.marker).some((p) => p.name === 'make') ? true : undefined));
    // Signals do not queue: two sent at once may arrive as one. The second goes once the first is
    // seen. The first stop can still end the run before the second arrives (it ends by SIGTERM
    // then); either way nothing of the run may be left.
    run.child.kill('SIGTERM');
    await waitFor('the first signal seen', 30_000, () => (run.output().includes('stopping the run') ? true : undefined));
    run.child.kill('SIGTERM');
    const end = await run.ended;
    expect(['SIGKILL', 'SIGTERM'], run.output()).toContain(end.signal);
    expect(await survivors(run.marker)).toEqual([]);
    expect(partials(join(cache, '..'))).toEqual([]);
  });
});
