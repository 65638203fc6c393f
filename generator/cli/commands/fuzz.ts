/**
 * `rvtrace fuzz --time T`: random legal E-Trace configurations, stimulus and back-pressure against
 * the model until the time is up; every failure is shrunk to the shortest failing stimulus and
 * saved as a fixture (tb/fuzz-fixtures/ by default) that the test suite replays.
 */
import type { Command } from 'commander';
import { RvError } from '../../../golden-model/common/errors.ts';
import { replayCommand, runCase } from '../../../tb/etrace-case.ts';
import { FIXTURE_DIR, fuzz } from '../../../tb/fuzz.ts';
import type { CommandDefinition } from '../main.ts';
import { parseCount } from './stimulus.ts';

interface Options {
  time: string;
  seed: string;
  out: string;
}

/** `90`, `90s`, `5m`, `2h` -> seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text);
  if (!m) throw new RvError('bad-option', `--time ${text}: expected a duration like 90s, 10m or 2h`);
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

export const fuzzCommand: CommandDefinition<Options> = {
  name: 'fuzz',
  summary: 'fuzz the E-Trace RTL against the model; shrink failures and save them as test fixtures',
  settings: [],
  details: [
    'Examples:',
    '  rvtrace fuzz --time 10m',
    '  rvtrace fuzz --time 2h --seed 42 --out my-fixtures',
    'Each case: a shipped component with random options (resync, full address, implicit exception,',
    'triggers, stall, FIFO depth, predictors on/off), random traps/halts/resets/triggers in the',
    'stimulus and random back-pressure. Exit status 1 when a failure was found.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--time <T>', 'how long to fuzz (90s, 10m, 2h)', '60s')
      .option('--seed <S>', 'seed of the random cases', String(Date.now() % 1_000_000))
      .option('--out <DIR>', 'where failing cases are saved', FIXTURE_DIR),
  async run(_args, o) {
    const seconds = parseDuration(o.time);
    const seed = parseCount(o.seed, '--seed', 0);
    process.stderr.write(`fuzzing for ${seconds} s with seed ${seed}\n`);
    let n = 0;
    const report = await fuzz(seconds, seed, async (spec) => (await runCase(spec, (l) => process.stderr.write(`${l}\n`))).identical, {
      dir: o.out,
      onCase: (spec, ok) => {
        n++;
        process.stderr.write(`${String(n).padStart(5)} ${ok ? 'ok  ' : 'FAIL'} ${replayCommand(spec)}\n`);
      },
    });
    process.stdout.write(`${report.cases} cases, ${report.records} instructions, ${report.failures.length} failures\n`);
    for (const f of report.failures) process.stdout.write(`saved a reproducer of ${f.count} instructions: ${replayCommand(f)}\n`);
    return report.failures.length === 0 ? 0 : 1;
  },
};
