/**
 * `--coverage-rtl DIR` of `cosim`, `regress` and `fuzz`: the run's Verilator models are built with
 * RTL code coverage (tb/code-coverage.ts) and DIR receives each run's data (`cases/`), the merged
 * data per configuration (`merged/`) and the annotated sources (`annotated/`); the per-module
 * summary goes to stdout.
 */
import type { Command } from 'commander';
import type { Coverage } from '../core/coverage.ts';
import { checkOutputDir } from '../core/io.ts';
import { abandonCodeCoverage, codeCoverageSummary, finishCodeCoverage, startCodeCoverage } from '../tb/code-coverage.ts';

export const CODE_COVERAGE_HELP = [
  '--coverage-rtl DIR builds the RTL with Verilator line, branch and toggle coverage (its own cache',
  'entry: the plain build is untouched) and writes into DIR each run\'s data (cases/), their merge per',
  'configuration by verilator_coverage (merged/<component>-<key>.dat) and the annotated sources',
  '(annotated/<component>-<key>/); a line per module gives the covered/total points of each kind.',
  'Points a block waives (cannot be covered by construction) are reported as waived, with the reason.',
].join('\n');

export function codeCoverageOption(cmd: Command): Command {
  return cmd.option('--coverage-rtl <DIR>', 'build the RTL with line/branch/toggle coverage and write the merged data and annotated sources into DIR');
}

/** Runs `fn` with code coverage into `dir` (when given) and prints the per-module summary; the groups of kind "code". */
export async function withCodeCoverage<T>(dir: string | undefined, fn: () => Promise<T>): Promise<{ value: T; coverage?: Coverage }> {
  if (dir === undefined) return { value: await fn() };
  checkOutputDir(dir, '--coverage-rtl');
  startCodeCoverage(dir);
  let value: T;
  try {
    value = await fn();
  } catch (e) {
    abandonCodeCoverage();
    throw e;
  }
  const done = finishCodeCoverage();
  const text = codeCoverageSummary(done.coverage);
  if (text !== '') process.stdout.write(`${text}\n`);
  for (const o of done.outputs) {
    const where = o.merged === undefined ? 'no data' : `${o.merged}, annotated sources in ${o.annotated}`;
    const lost = o.missing > 0 ? `; ${o.missing} run${o.missing === 1 ? '' : 's'} stopped before writing coverage data, left out` : '';
    process.stdout.write(`code coverage of ${o.component} (${o.cases} run${o.cases === 1 ? '' : 's'}): ${where}${lost}\n`);
  }
  return { value, coverage: done.coverage };
}
