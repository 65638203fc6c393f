/**
 * `rvtrace fuzz --time T`: random legal configurations of the given components (default: every
 * shipped component of every block; each block's fuzz policy draws its settings and stimulus knobs),
 * against the model until the time is up; every failure is shrunk to the shortest failing stimulus and
 * saved as a fixture (tb/fuzz-fixtures/ by default) that the test suite replays.
 */
import type { Command } from 'commander';
import type { CommandDefinition } from '../../core/block.ts';
import { parseCount } from '../../core/options.ts';
import { checkOutputDir, checkOutputFile, writeOutputAtomic } from '../../core/io.ts';
import { coverageSummary, mergeCoverage } from '../../core/coverage.ts';
import { CODE_COVERAGE_HELP, codeCoverageOption, withCodeCoverage } from '../code-coverage-option.ts';
import { TOOL_VERSION } from '../../generator/render.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { replayCommand } from '../../tb/case.ts';
import { type CaseRunner, FIXTURE_DIR, fuzz, growthLine } from '../../tb/fuzz.ts';
import { resolver } from '../../blocks/index.ts';
import { componentList } from './regress.ts';

interface Options {
  time: string;
  seed: string;
  out: string;
  components?: string;
  schemaDir?: string;
  json?: string;
  coverage: boolean;
  coverageRtl?: string;
  cases?: string;
  untilCovered?: boolean;
  directed: boolean;
  progress: string;
}

/** `90`, `90s`, `5m`, `2h` -> seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text);
  if (!m) throw new RvError('bad-option', `--time ${text}: expected a duration like 90s, 10m or 2h`);
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

export const fuzzCommand: CommandDefinition<Options> = {
  name: 'fuzz',
  summary: 'fuzz the RTL of every block against its model; shrink failures and save them as test fixtures',
  settings: [],
  details: [
    'Examples:',
    '  rvtrace fuzz --time 10m',
    '  rvtrace fuzz --time 2h --seed 42 --out my-fixtures',
    '  rvtrace fuzz --time 30m --components etrace,etrace-rv64-full',
    'Each case: a component with its block\'s random settings and stimulus knobs. The hardware settings',
    'make a configuration, one Verilator build; a few are drawn from at a time, each serving 100 cases',
    'before a new one replaces it. Run-time options are drawn per case and programmed through the',
    'register interface at the case\'s start, so they cost no build; the summary line ends with the builds.',
    'E-Trace: random hardware (FIFO depth, source id, several instructions and blocks a cycle) and, per',
    'case, random options (resync, full address, implicit exception, triggers, stall, predictors on/off,',
    'data trace options), random traps/halts/resets/triggers, now and then code placed low or far up,',
    'call runs and never-taken branch runs, and random back-pressure. CTR: its settings are hardware',
    'parameters (the configurations are the components); random traps, faults, halts, resets and idle',
    'cycles, now and then fewer privilege modes and long stalls, with the co-simulation\'s random CSR program.',
    'PMU: one of four builds per component (as it is, 16-bit counters, clamped or hard-wired selectors),',
    'random traps, faults, halts, resets and idle cycles. N-Trace: every setting is a build: the mode,',
    'HIST-full timing, empty-HIST messages, implicit return (counter or stack), RepeatBranch, HIST',
    'repeats, Ownership messages, I-CNT width, periodic sync, address MSB dropping and stall flipped',
    'or kept, half the time the smallest FIFO the configuration allows; random traps/halts/resets/',
    'triggers and random back-pressure (loss and SYNC 7 recovery).',
    'Functional coverage of the passing cases (each block\'s bins, from its model) is summarised at the',
    'end (covered/total per block, uncovered bins by name) and written with --json; --no-coverage skips it.',
    'Coverage-directed (default; --no-directed turns it off): every case that reaches a bin no earlier case',
    'reached joins a corpus (DIR/fuzz-corpus.json, read back by the next session in DIR), and a quarter',
    'of the cases are children of corpus cases (the same configuration, the seed kept or new, knobs kept, scaled',
    'or redrawn), favouring parents that hit bins still rare. Coverage growth (covered/total per',
    'block) is printed every --progress cases. --until-covered stops when every bin the configurations',
    'drawn so far can reach is covered (and every component was drawn), else at --time or --cases.',
    CODE_COVERAGE_HELP,
    'In a fuzz session every run of a coverage build counts, shrinking runs included; the code coverage',
    'groups join --json.',
    'Exit status 1 when a failure was found.',
  ].join('\n'),
  options: (cmd: Command) =>
    codeCoverageOption(cmd)
      .option('--time <T>', 'how long to fuzz (90s, 10m, 2h)', '60s')
      .option('--seed <S>', 'seed of the random cases', String(Date.now() % 1_000_000))
      .option('--out <DIR>', 'where failing cases are saved', FIXTURE_DIR)
      .option('--components <LIST>', 'comma-separated components to draw from, of any block (default: every shipped component)')
      .option('--schema-dir <DIR>', 'folder with the IEEE 1685-2014/2022 schemas the components are validated against')
      .option('--json <FILE>', 'write the session as JSON: seed, cases, records, failures, coverage')
      .option('--no-coverage', 'do not collect functional coverage')
      .option('--cases <N>', 'stop after N cases (as well as at --time)')
      .option('--until-covered', 'stop early when every reachable functional bin is covered')
      .option('--no-directed', 'draw every case at random (no corpus, no steering by coverage)')
      .option('--progress <N>', 'print coverage growth every N cases', '10'),
  async run(_args, o) {
    const seconds = parseDuration(o.time);
    checkOutputDir(o.out);
    if (o.json !== undefined) checkOutputFile(o.json, '--json');
    const seed = parseCount(o.seed, '--seed', 0);
    const maxCases = o.cases === undefined ? undefined : parseCount(o.cases, '--cases', 1);
    const every = parseCount(o.progress, '--progress', 1);
    if (o.untilCovered && !o.coverage) throw new RvError('bad-option', '--until-covered needs the functional coverage (leave out --no-coverage)');
    const components = componentList(o.components);
    const resolve = resolver('fuzz', o.schemaDir);
    for (const c of components) resolve(c, []);
    process.stderr.write(`fuzzing for ${seconds} s with seed ${seed}\n`);
    let n = 0;
    const log = (l: string) => process.stderr.write(`${l}\n`);
    // A case that cannot even run (the generator or a build fails on its configuration) is a
    // failure like a mismatch: it is reported, shrunk and saved rather than ending the session.
    const run: CaseRunner = async (spec) => {
      try {
        const r = resolve(spec.component, spec.sets);
        return (await r.block.runCase(r, spec, log)).identical;
      } catch (e) {
        log(`      error: ${e instanceof RvError ? e.oneLine() : (e as Error).message}`);
        return false;
      }
    };
    const { value: report, coverage: code } = await withCodeCoverage(o.coverageRtl, () => fuzz(seconds, seed, run, {
      dir: o.out,
      components,
      resolve,
      coverage: o.coverage,
      directed: o.directed && o.coverage,
      ...(maxCases !== undefined ? { maxCases } : {}),
      untilCovered: o.untilCovered === true,
      progressEvery: every,
      onProgress: (cases, cov, corpus) => process.stderr.write(`coverage after ${cases} cases: ${growthLine(cov)}${o.directed ? ` (corpus ${corpus})` : ''}\n`),
      onCase: (spec, ok) => {
        n++;
        process.stderr.write(`${String(n).padStart(5)} ${ok ? 'ok  ' : 'FAIL'} ${replayCommand(resolve(spec.component, []).block, spec)}\n`);
      },
    }));
    if (code !== undefined) report.coverage = mergeCoverage([...(report.coverage ? [report.coverage] : []), code]);
    const why = { time: 'the time limit', cases: 'the case limit', failure: 'a failure', covered: 'every reachable bin covered' }[report.stopped ?? 'time'];
    // The builds (hardware configurations) go last: scripts match the line's start.
    process.stdout.write(`${report.cases} cases, ${report.records} instructions, ${report.failures.length} failures; stopped at ${why}${report.corpus !== undefined ? `; corpus ${report.corpus} cases, ${report.mutated} cases mutated from it` : ''}; ${report.builds} builds\n`);
    for (const f of report.failures) process.stdout.write(`saved a reproducer of ${f.count} instructions: ${replayCommand(resolve(f.component, []).block, f)}\n`);
    // The code coverage groups were summarised per module already (cli/code-coverage-option.ts).
    const functional = report.coverage?.groups.filter((g) => g.kind !== 'code') ?? [];
    if (functional.length > 0) process.stdout.write(`${coverageSummary({ ...report.coverage!, groups: functional })}\n`);
    if (o.json !== undefined) {
      // Each failure with its replay command (rvtrace report shows it).
      const failures = report.failures.map((f) => ({ ...f, replay: replayCommand(resolve(f.component, []).block, f) }));
      const out = { tool: `rvtrace ${TOOL_VERSION}`, seed, seconds, components, ...report, failures };
      writeOutputAtomic(o.json, Buffer.from(`${JSON.stringify(out, null, 1)}\n`));
    }
    return report.failures.length === 0 ? 0 : 1;
  },
};
