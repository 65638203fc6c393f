/**
 * Runs the testbench of a vectors directory (write.ts) in Icarus Verilog 11 or Verilator 5.006, as
 * the README's command lines do, for the tests. Verilator's build goes into a cache folder keyed by
 * the SystemVerilog sources (the `$readmemh` files are read at run time, from the directory), so a
 * configuration is compiled once however many vectors run on it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../golden-model/common/paths.ts';

export interface SimRun {
  /** The PASS/FAIL line, or undefined when the run printed none. */
  readonly verdict: string | undefined;
  readonly status: number | null;
  readonly output: string;
  readonly timedOut: boolean;
}

/** The files of a filelist (comments and blank lines dropped), relative to the directory. */
export function filelistFiles(dir: string, filelist: string): string[] {
  return readFileSync(join(dir, filelist), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('//'));
}

function verdictOf(out: string): string | undefined {
  return out.split('\n').find((l) => /^(PASS|FAIL) /.test(l));
}

function run(cmd: string, args: string[], cwd: string, timeoutMs: number, env?: NodeJS.ProcessEnv): { status: number | null; out: string; timedOut: boolean } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 << 20, ...(env ? { env } : {}) });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, timedOut: r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' };
}

/** `iverilog -g2012 -s <module> -c <filelist>`, then `vvp -n`, from the directory. */
export function runIcarus(dir: string, module: string, filelist: string, timeoutMs = 60_000): SimRun {
  const vvp = join(dir, '..', `${module}-${process.pid}.vvp`);
  try {
    const c = run('iverilog', ['-g2012', '-s', module, '-o', vvp, '-c', filelist], dir, timeoutMs);
    if (c.status !== 0) return { verdict: undefined, status: c.status, output: c.out, timedOut: c.timedOut };
    const s = run('vvp', ['-n', vvp], dir, timeoutMs);
    return { verdict: verdictOf(s.out), status: s.status, output: s.out, timedOut: s.timedOut };
  } finally {
    rmSync(vvp, { force: true });
  }
}

/** `verilator --binary [flags] --top-module <module> -f <filelist>` (build cached by source and flags), then the binary, from the directory. */
export function runVerilator(dir: string, module: string, filelist: string, timeoutMs = 60_000, flags: readonly string[] = []): SimRun {
  const files = filelistFiles(dir, filelist);
  const h = createHash('sha256');
  for (const f of [filelist, ...files]) h.update(f).update('\0').update(readFileSync(join(dir, f))).update('\0');
  // Extra flags (rvtrace check's tests add --trace) are a build of their own.
  if (flags.length > 0) h.update(flags.join('\0'));
  const root = join(process.env['RVTRACE_CACHE'] ?? join(REPO_ROOT, '.cache'), 'vectors');
  const obj = join(root, h.digest('hex').slice(0, 24));
  const binary = join(obj, `V${module}`);
  if (!existsSync(binary)) {
    mkdirSync(root, { recursive: true });
    const tmp = `${obj}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    // -O0: the runs are short; the C++ compile is most of the time.
    const b = run(
      'verilator',
      ['--binary', '-j', '2', ...flags, '--top-module', module, '-f', filelist, '-Mdir', tmp, '-MAKEFLAGS', 'OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0'],
      dir,
      30 * 60_000,
      { ...process.env, ...(spawnSync('sh', ['-c', 'command -v ccache']).status === 0 ? { OBJCACHE: 'ccache' } : {}) },
    );
    if (b.status !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      return { verdict: undefined, status: b.status, output: b.out, timedOut: b.timedOut };
    }
    rmSync(obj, { recursive: true, force: true });
    renameSync(tmp, obj);
  }
  const s = run(binary, [], dir, timeoutMs);
  return { verdict: verdictOf(s.out), status: s.status, output: s.out, timedOut: s.timedOut };
}
