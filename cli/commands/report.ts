/**
 * `rvtrace report RESULTS... --out DIR`: a self-contained HTML page (DIR/index.html) and a
 * plain-text summary (DIR/summary.txt, also printed) of regress, merge and fuzz results; with
 * `--screenshot FILE` a PNG of the page through headless Chromium.
 */
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { CommandDefinition } from '../../core/block.ts';
import { checkOutputDir, checkOutputFile, writeOutputAtomic } from '../../core/io.ts';
import { finishedWriting, startedWriting } from '../../core/unfinished-files.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { haveChromium, screenshot } from '../../tb/report/chromium.ts';
import { htmlReport, reportData, textSummary } from '../../tb/report/render.ts';
import { readResults } from '../../tb/report/results.ts';

interface Options {
  out: string;
  screenshot?: string;
  title: string;
}

export const reportCommand: CommandDefinition<Options> = {
  name: 'report',
  args: '<RESULTS...>',
  summary: 'write a self-contained HTML report and a text summary of regress, merge and fuzz results',
  settings: [],
  details: [
    'Examples:',
    '  rvtrace report merged.json --out report',
    '  rvtrace report regress.json fuzz.json --out report --screenshot report.png',
    'RESULTS are --json files of rvtrace regress, merge or fuzz. DIR/index.html is one file with its CSS',
    'and SVG inline (no script, nothing loaded from anywhere): the pass/fail verdict, each results file,',
    'cases per component, functional coverage per block (the uncovered bins by name, the excluded bins',
    'with their reasons), RTL code coverage per module when the results carry it, a chart of each block',
    'figure per retired instruction per component (e.g. trace bytes per instruction), and every failing',
    'case with its replay command and waveform command. DIR/summary.txt holds the same in plain text',
    '(also printed). --screenshot needs Debian\'s chromium (scripts/install-chromium.sh installs it).',
    'Exit status 0 when the report is written (the verdict is in it), 2 on bad input.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--out <DIR>', 'directory for index.html and summary.txt')
      .option('--screenshot <FILE>', 'also write a PNG of the page (headless Chromium)')
      .option('--title <TEXT>', 'the page title', 'rvtrace report'),
  run(args, o) {
    checkOutputDir(o.out);
    if (o.screenshot !== undefined) {
      checkOutputFile(o.screenshot, '--screenshot');
      if (!haveChromium()) throw new RvError('tool-failure', '--screenshot: chromium is missing (install Debian\'s chromium: scripts/install-chromium.sh)');
    }
    if (args.length === 0) throw new RvError('bad-option', 'report: no results file given');
    // Every input is read and checked before anything is written.
    const data = reportData(args.map(readResults));
    const summary = textSummary(data);
    const html = join(o.out, 'index.html');
    writeOutputAtomic(html, htmlReport(data, o.title));
    writeOutputAtomic(join(o.out, 'summary.txt'), summary);
    process.stdout.write(summary);
    if (o.screenshot !== undefined) {
      const tmp = `${o.screenshot}.tmp-${process.pid}.png`;
      startedWriting(tmp);
      try {
        screenshot(html, tmp);
        renameSync(tmp, o.screenshot);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e instanceof RvError ? e : new RvError('io', `cannot write: ${(e as Error).message}`, { file: o.screenshot });
      } finally {
        finishedWriting(tmp);
      }
      process.stdout.write(`screenshot: ${o.screenshot}\n`);
    }
    process.stdout.write(`report: ${html}\n`);
    return 0;
  },
};
