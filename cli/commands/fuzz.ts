/**
 * `rvtrace fuzz --time T`: random legal configurations of the given components (default: the
 * shipped E-Trace ones; CTR components too with --components), stimulus and back-pressure against
 * the model until the time is up; every failure is shrunk to the shortest failing stimulus and
 * saved as a fixture (tb/fuzz-fixtures/ by default) that the test suite replays.
 */
import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { blockOf } from '../../tb/blocks.ts';
import { type CaseRunner, FIXTURE_DIR, fuzz } from '../../tb/fuzz.ts';
import type { CommandDefinition } from '../main.ts';
import { parseCount } from './stimulus.ts';

interface Options {
  time: string;
  seed: string;
  out: string;
  components?: string;
}

/** `90`, `90s`, `5m`, `2h` -> seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text);
  if (!m) throw new RvError('bad-option', `--time ${text}: expected a duration like 90s, 10m or 2h`);
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

export const fuzzCommand: CommandDefinition<Options> = {
  name: 'fuzz',
  summary: 'fuzz the RTL (E-Trace, or CTR with --components) against the model; shrink failures and save them as test fixtures',
  settings: [],
  details: [
    'Examples:',
    '  rvtrace fuzz --time 10m',
    '  rvtrace fuzz --time 2h --seed 42 --out my-fixtures',
    '  rvtrace fuzz --time 30m --components ctr,ctr-rv32,ctr-1.0,ctr-small',
    'Each case: a shipped component with random options (resync, full address, implicit exception,',
    'triggers, stall, FIFO depth, predictors on/off), random traps/halts/resets/triggers in the',
    'stimulus and random back-pressure. A CTR case: a CTR component (its settings are hardware',
    'parameters: the configurations are the components), random traps, faults, halts, resets and',
    'idle cycles in the stimulus, with the random CSR program of the co-simulation.',
    'Exit status 1 when a failure was found.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--time <T>', 'how long to fuzz (90s, 10m, 2h)', '60s')
      .option('--seed <S>', 'seed of the random cases', String(Date.now() % 1_000_000))
      .option('--out <DIR>', 'where failing cases are saved', FIXTURE_DIR)
      .option('--components <LIST>', 'comma-separated components to draw from, E-Trace or CTR (default: the shipped E-Trace components)'),
  async run(_args, o) {
    const seconds = parseDuration(o.time);
    const seed = parseCount(o.seed, '--seed', 0);
    const components = o.components ? o.components.split(',').map((s) => s.trim()).filter((s) => s !== '') : shippedComponents();
    if (components.length === 0) throw new RvError('bad-option', `--components ${o.components}: no component given`);
    for (const c of components) blockOf(c).resolve('fuzz', c, []);
    process.stderr.write(`fuzzing for ${seconds} s with seed ${seed}\n`);
    let n = 0;
    const log = (l: string) => process.stderr.write(`${l}\n`);
    // A case that cannot even run (the generator or a build fails on its configuration) is a
    // failure like a mismatch: it is reported, shrunk and saved rather than ending the session.
    const run: CaseRunner = async (spec) => {
      try {
        return (await blockOf(spec.component).runCase(spec, log)).identical;
      } catch (e) {
        log(`      error: ${e instanceof RvError ? e.oneLine() : (e as Error).message}`);
        return false;
      }
    };
    const report = await fuzz(seconds, seed, run, {
      dir: o.out,
      components,
      onCase: (spec, ok) => {
        n++;
        process.stderr.write(`${String(n).padStart(5)} ${ok ? 'ok  ' : 'FAIL'} ${blockOf(spec.component).replayCommand(spec)}\n`);
      },
    });
    process.stdout.write(`${report.cases} cases, ${report.records} instructions, ${report.failures.length} failures\n`);
    for (const f of report.failures) process.stdout.write(`saved a reproducer of ${f.count} instructions: ${blockOf(f.component).replayCommand(f)}\n`);
    return report.failures.length === 0 ? 0 : 1;
  },
};
