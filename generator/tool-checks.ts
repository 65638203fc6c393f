/**
 * For tests: running the RTL tools on generated RTL and reading what they say, the same way in every
 * block's RTL tests and in the shipped components' gates (blocks/gates.test.ts).
 */
import { spawnSync } from 'node:child_process';

export interface ToolResult {
  status: number;
  /** stdout then stderr, and a last line naming the signal when the tool was killed. */
  out: string;
}

/** Runs a tool in `cwd`; after `timeout` ms it is killed (status -1): e.g. a simulation that never advances. */
export function runTool(cmd: string, args: readonly string[], cwd: string, timeout?: number, env: NodeJS.ProcessEnv = process.env): ToolResult {
  const limit = timeout !== undefined ? { timeout, killSignal: 'SIGKILL' as const } : {};
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20, env, ...limit });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${cmd} is not installed (scripts/setup.sh installs it)`);
  const killed = r.signal !== null ? `\n${cmd} killed by ${r.signal}${timeout !== undefined ? ` (time limit ${timeout} ms)` : ''}` : '';
  return { status: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}${killed}` };
}

/** Icarus's notes about constructs it simulates correctly but not optimally. */
const ICARUS_NOTES = [/sorry: constant selects in always_\* processes are not currently supported \(all bits will be included\)\.$/, /sorry: Case unique\/unique0 qualities are ignored\.$/];

/** The lines of Icarus's output that are not its known harmless notes. */
export function icarusProblems(out: string): string[] {
  return out.split('\n').filter((l) => l.trim() !== '' && !ICARUS_NOTES.some((re) => re.test(l)));
}

/**
 * Yosys on `files` with `top`: elaboration and the start of `synth`'s coarse part (`proc`, which
 * infers latches, then the constant folding and clean-up `synth` runs before its own `check`);
 * then no latch may be left and `check` must pass (it finds undriven, multiply driven and looping
 * nets). The rest of synthesis (opt, fsm, wreduce, alumacc, share, memory, then the mapping to
 * gates) optimises that netlist without changing either verdict and costs most of the time
 * (ntrace-full: 19 s here, 98 s to the end of the coarse part, minutes to gates). Cell counts and
 * logic depths, which need all of it, are measured by workloads/gates.ts and `rvtrace bench`.
 */
export function yosysLatchCheck(files: readonly string[], top: string, cwd: string): ToolResult {
  const script = [
    `read_verilog -sv ${files.join(' ')}`,
    `hierarchy -check -top ${top}`,
    'proc',
    'opt_expr',
    'opt_clean',
    'select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_*',
    'check -assert',
  ].join('; ');
  return runTool('yosys', ['-q', '-p', script], cwd);
}

/** What a latch check's output must not contain beside a zero exit status. */
export const LATCH_INFERRED = /(?<!No )latch inferred/i;
