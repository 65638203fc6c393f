/**
 * The start-up rows of `rvtrace bench` (issue 22): what a user's script calling rvtrace per file
 * pays, measured as that script sees it, the whole process from spawn to exit: `rvtrace --help`
 * (goal 150 ms) and `rvtrace encode` of a 1,000-record stream (goal 250 ms). The median of several
 * runs after one warm-up, so that one slow run on a shared machine does not decide.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../golden-model/common/paths.ts';
import { writeOutputAtomic } from '../core/io.ts';
import { RvError } from '../golden-model/common/errors.ts';
import { encodeBinaryStream } from '../golden-model/hart/formats/binary.ts';
import { generateStimulus } from '../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../golden-model/hart/stimulus/knobs.ts';

export interface StartupRow {
  what: string;
  rate: string;
  goal: string;
  detail: string;
}

const BIN = join(REPO_ROOT, 'bin', 'rvtrace.js');

/** Wall milliseconds of each of `runs` runs of `node bin/rvtrace.js ...args`, after one warm-up. */
function wallTimes(args: readonly string[], runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new RvError('tool-failure', `bench: rvtrace ${args.join(' ')} failed (status ${r.status ?? r.signal}): ${r.stderr.trim()}`);
    if (i > 0) times.push(ms);
  }
  return times.sort((a, b) => a - b);
}

function row(what: string, times: number[], goalMs: number, detail: string): StartupRow {
  const median = times[times.length >> 1]!;
  return {
    what,
    rate: `${median.toFixed(0)} ms`,
    goal: `≤ ${goalMs} ms: ${median <= goalMs ? 'met' : 'MISSED'}`,
    detail: `whole process, median of ${times.length} runs (${times[0]!.toFixed(0)}-${times[times.length - 1]!.toFixed(0)} ms); ${detail}`,
  };
}

export function startupRows(runs = 9): StartupRow[] {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-bench-startup-'));
  try {
    const stream = generateStimulus(defaultKnobs(), 1, 1000);
    const input = join(dir, 'in.bin');
    writeOutputAtomic(input, encodeBinaryStream({ ...stream, records: stream.records.slice(0, 1000) }));
    return [
      row('start-up: rvtrace --help', wallTimes(['--help'], runs), 150, 'node bin/rvtrace.js --help'),
      row('start-up: rvtrace encode, 1,000 records', wallTimes(['encode', '--in', input, '--out', join(dir, 'out.te')], runs), 250, 'default component'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
