/**
 * `rvtrace regress` runs a matrix of co-simulations (components of any block x back-pressure x
 * seeds) with a worker per core, or one shard of it; `rvtrace merge` combines shard results. Both
 * print a summary table and can write JSON results and JUnit XML.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { blockSettings, resolver, shippedOf } from '../../blocks/index.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { checkOutputDir, checkOutputFile, writeOutputAtomic } from '../../core/io.ts';
import { parseCount, parseProbability } from '../../core/options.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { coverageSummary, mergeCoverage } from '../../core/coverage.ts';
import { CODE_COVERAGE_HELP, withCodeCoverage } from '../code-coverage-option.ts';
import { junitXml, mergeResults, parseShard, partialLine, runRegression, summaryTable, totals, type Matrix, type Results } from '../../tb/regress.ts';
import { emitJobs, parseScheduler } from '../../tb/regress-emit.ts';
import { mergeCodeCoverageDirs } from '../../tb/code-coverage.ts';

interface RegressOptions {
  components?: string;
  seeds: string;
  count: string;
  backpressure: string;
  set?: string[];
  jobs?: string;
  shard?: string;
  json?: string;
  junit?: string;
  schemaDir?: string;
  coverage: boolean;
  coverageRtl?: string;
  emit?: string;
  shards?: string;
  out?: string;
  rvtrace: string;
  results: string;
  image: string;
  claim: string;
}

/** `--components LIST` (default: every shipped component), each checked now: a bad one is a one-line error before anything runs. */
export function componentList(text: string | undefined): string[] {
  const list = text === undefined ? shippedOf() : text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (list.length === 0) throw new RvError('bad-option', `--components ${text}: no component given`);
  return list;
}

/** `1-8`, `1,4,9` or a mix: the seeds, in order, without repeats. */
export function parseSeeds(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new RvError('bad-option', `--seeds ${text}: expected numbers and ranges like 1-8,12`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b - a > 1_000_000) throw new RvError('bad-option', `--seeds ${text}: bad range ${part}`);
    for (let s = a; s <= b; s++) if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** `--json` and `--junit` checked before anything runs. */
function checkReports(json: string | undefined, junit: string | undefined): void {
  if (json !== undefined) checkOutputFile(json, '--json');
  if (junit !== undefined) checkOutputFile(junit, '--junit');
}

function writeReports(r: Results, json: string | undefined, junit: string | undefined): void {
  if (json !== undefined) writeOutputAtomic(json, Buffer.from(`${JSON.stringify(r, null, 1)}\n`));
  if (junit !== undefined) writeOutputAtomic(junit, Buffer.from(junitXml(r)));
}

function report(r: Results): number {
  process.stdout.write(`${summaryTable(r)}\n`);
  const failed = r.cases.filter((c) => c.status === 'failed');
  for (const c of failed) process.stdout.write(`FAILED ${c.id}\n  replay: ${c.replay}\n`);
  const t = totals(r.cases);
  if (r.coverage !== undefined) {
    // The code coverage groups are summarised per module (cli/code-coverage-option.ts), not bin by bin.
    const text = coverageSummary({ ...r.coverage, groups: r.coverage.groups.filter((g) => g.kind !== 'code') });
    if (text !== '') process.stdout.write(`${text}\n`);
  }
  const partial = partialLine(r);
  if (partial !== '') process.stdout.write(`${partial}\n`);
  process.stdout.write(`${t.passed} passed, ${t.failed} failed${r.partial ? ` (partial: ${r.partial.missingCases.length} not run)` : ''}\n`);
  return t.failed === 0 ? 0 : 1;
}

export const regressCommand: CommandDefinition<RegressOptions> = {
  name: 'regress',
  summary: 'run a matrix of co-simulations (components of any block x back-pressure x seeds) on every core, or one shard of it',
  settings: blockSettings(),
  details: [
    'Examples:',
    '  rvtrace regress --seeds 1-8 --count 50000 --json results.json --junit results.xml',
    '  rvtrace regress --components etrace,etrace-2.0 --backpressure 0,0.5,0.9 --shard 2/4 --json shard2.json',
    '  sbatch --array=0-3 ... rvtrace regress --shard 4 --json shard-$SLURM_ARRAY_TASK_ID.json',
    'Sharding: case i runs in shard (i mod N) + 1; --shard N takes the index from SLURM_ARRAY_TASK_ID',
    '(minus SLURM_ARRAY_TASK_MIN), LSB_JOBINDEX or JOB_COMPLETION_INDEX. Combine the shards with',
    'rvtrace merge. --set applies to every component (all must be of a block with that setting).',
    'Columns: records and cycles, then each block\'s figures (E-Trace: bytes, packets, lost; CTR:',
    'responses, the CSR responses compared). Blocks without an output stream (CTR) run the first',
    'value of --backpressure only.',
    'Functional coverage: every case\'s hits of its block\'s coverage bins (named after the',
    'specification, observed from the golden model) are summed per configuration, written with the',
    'JSON results ("coverage") and summarised after the table: covered/total bins per block and the',
    'uncovered ones by name; bins a configuration cannot reach are excluded with the reason (in the',
    'JSON). --no-coverage skips it.',
    CODE_COVERAGE_HELP,
    'The code coverage groups (kind "code", bins <module>:<line>:<kind>:<detail>) join the JSON results.',
    'Scheduler jobs: --emit slurm|lsf|k8s --shards N writes (to --out, or stdout) a Slurm array batch',
    'script, an LSF job array script or a Kubernetes indexed Job manifest that runs the N shards of the',
    'matrix given by the other options, each writing <results>/shard-K.json, and then a merge into',
    '<results>/merged.json and merged.xml; submit it once (sbatch FILE, bsub < FILE, kubectl apply -f FILE).',
    'With --coverage-rtl DIR (shared by the shards) each shard writes its code coverage into DIR/shard-K',
    'and the merge merges their data into DIR/merged and DIR/annotated.',
    '  rvtrace regress --seeds 1-64 --emit slurm --shards 16 --out regress.sbatch',
    'Exit status 0 when every case is identical.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--components <LIST>', 'comma-separated components of any block (default: every shipped one of every block)')
      .option('--schema-dir <DIR>', 'folder with the IEEE 1685-2014/2022 schemas the components are validated against')
      .option('--seeds <LIST>', 'seeds: numbers and ranges, e.g. 1-8,12', '1-4')
      .option('--count <N>', 'instructions per case', '20000')
      .option('--backpressure <LIST>', 'comma-separated back-pressure probabilities', '0,0.5')
      .option('--jobs <J>', 'cases run at once (default: the number of cores)')
      .option('--shard <K/N|N>', 'run shard K of N (1-based)')
      .option('--json <FILE>', 'write the results as JSON (input of rvtrace merge)')
      .option('--junit <FILE>', 'write JUnit XML')
      .option('--no-coverage', 'do not collect functional coverage')
      .option('--coverage-rtl <DIR>', 'build the RTL with line/branch/toggle coverage and write the merged data and annotated sources into DIR')
      .option('--emit <SCHEDULER>', 'write a slurm, lsf or k8s job running the matrix in --shards shards and a merge, instead of running it')
      .option('--shards <N>', 'shards of the job --emit writes')
      .option('--out <FILE>', 'where --emit writes the job (default: stdout)')
      .option('--rvtrace <CMD>', 'how the job runs rvtrace on the cluster', 'rvtrace')
      .option('--results <DIR>', 'shared directory of the job\'s shard and merged results', 'rvtrace-results')
      .option('--image <IMAGE>', 'container image with rvtrace (--emit k8s)', 'rvtrace:latest')
      .option('--claim <NAME>', 'PersistentVolumeClaim of the shared results volume (--emit k8s)', 'rvtrace-results'),
  async run(_args, o) {
    if (o.emit !== undefined) return emit(o);
    if (o.shards !== undefined) throw new RvError('bad-option', '--shards is for --emit; to run one shard give --shard K/N');
    checkReports(o.json, o.junit);
    const matrix: Matrix = {
      components: componentList(o.components),
      sets: o.set ?? [],
      seeds: parseSeeds(o.seeds),
      backpressures: o.backpressure.split(',').map((p) => parseProbability(p.trim(), '--backpressure')),
      count: parseCount(o.count, '--count', 1),
    };
    // Every component and the --set values checked before anything is built.
    const resolve = resolver('regress', o.schemaDir);
    for (const c of matrix.components) resolve(c, matrix.sets);
    const shard = parseShard(o.shard);
    const jobs = o.jobs === undefined ? undefined : parseCount(o.jobs, '--jobs', 1);
    const tty = process.stderr.isTTY === true;
    let failed = 0;
    const started = performance.now();
    const { value: ran, coverage: code } = await withCodeCoverage(o.coverageRtl, () => runRegression(matrix, {
      resolve,
      ...(jobs !== undefined ? { jobs } : {}),
      ...(shard ? { shard } : {}),
      coverage: o.coverage,
      log: (line) => process.stderr.write(`${line}\n`),
      onCase: (done, total, c) => {
        if (c.status === 'failed') failed++;
        const width = 30;
        const bar = '#'.repeat(Math.round((done / total) * width)).padEnd(width, '.');
        const line = `[${bar}] ${done}/${total} cases, ${failed} failed, ${((performance.now() - started) / 1000).toFixed(0)} s  ${c.id} ${c.status}`;
        process.stderr.write(tty ? `\r${line.padEnd(100)}${done === total ? '\n' : ''}` : `${line}\n`);
      },
    }));
    const r: Results = code === undefined ? ran : { ...ran, coverage: mergeCoverage([...(ran.coverage ? [ran.coverage] : []), code]) };
    writeReports(r, o.json, o.junit);
    return report(r);
  },
};

/** `--emit`: the matrix options checked as for a run, then the job written. */
function emit(o: RegressOptions): number {
  const scheduler = parseScheduler(o.emit!);
  if (o.shards === undefined) throw new RvError('bad-option', `--emit ${o.emit}: give --shards N`);
  const shards = parseCount(o.shards, '--shards', 1);
  if (o.shard !== undefined) throw new RvError('bad-option', '--shard and --emit: the job gives each shard its index; drop --shard');
  if (o.json !== undefined || o.junit !== undefined) throw new RvError('bad-option', '--json/--junit and --emit: the job writes <results>/shard-K.json and merged.json (see --results)');
  if (o.out !== undefined) checkOutputFile(o.out, '--out');
  const components = componentList(o.components);
  parseSeeds(o.seeds);
  parseCount(o.count, '--count', 1);
  o.backpressure.split(',').forEach((p) => parseProbability(p.trim(), '--backpressure'));
  const resolve = resolver('regress', o.schemaDir);
  for (const c of components) resolve(c, o.set ?? []);
  const args = [
    ...(o.components !== undefined ? ['--components', o.components] : []),
    '--seeds', o.seeds,
    '--count', o.count,
    '--backpressure', o.backpressure,
    ...(o.set ?? []).flatMap((x) => ['--set', x]),
    ...(o.jobs !== undefined ? ['--jobs', o.jobs] : []),
    ...(o.schemaDir !== undefined ? ['--schema-dir', o.schemaDir] : []),
    ...(o.coverage ? [] : ['--no-coverage']),
  ];
  const text = emitJobs({ scheduler, shards, args, rvtrace: o.rvtrace, results: o.results, image: o.image, claim: o.claim, ...(o.coverageRtl !== undefined ? { codeCoverage: o.coverageRtl } : {}) });
  if (o.out === undefined) process.stdout.write(text);
  else {
    writeOutputAtomic(o.out, Buffer.from(text));
    process.stderr.write(`wrote ${o.out}: ${shards} shards on ${scheduler}\n`);
  }
  return 0;
}

interface MergeOptions {
  json?: string;
  junit?: string;
  allowPartial?: boolean;
  coverageRtl?: string;
  coverageRtlFrom?: string[];
}

export const mergeCommand: CommandDefinition<MergeOptions> = {
  name: 'merge',
  args: '<RESULTS...>',
  summary: 'merge the JSON results of regression shards into one (summary, JSON, JUnit XML)',
  settings: [],
  details: [
    'Example:',
    '  rvtrace merge shard-*.json --json all.json --junit all.xml',
    'Every shard of the split (each result file names its shard K/N) and every case of the matrix',
    '(each lists them) must be there: otherwise the merge fails, naming what is missing (exit status 2).',
    'With --allow-partial it merges what there is and marks the result partial: a "partial" field in',
    'the JSON, the missing cases as skipped test cases in the JUnit XML (suite "rvtrace regress',
    '(partial)"), a PARTIAL line in the summary; the exit status then follows the cases that ran.',
    'Functional coverage adds up exactly: the merged hits are those of one unsharded run (present',
    'when every input has coverage), and the summary lists covered/total and the uncovered bins.',
    'The shards\' RTL code coverage points are in their JSON and add up the same way; --coverage-rtl',
    'OUT --coverage-rtl-from DIR... also merges the shards\' verilator_coverage data (DIR/merged/*.dat',
    'of each shard\'s --coverage-rtl DIR) into OUT/merged/ and annotates the sources into OUT/annotated/.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--json <FILE>', 'write the merged results as JSON')
      .option('--junit <FILE>', 'write JUnit XML')
      .option('--allow-partial', 'merge an incomplete set of shards and mark the result partial instead of failing')
      .option('--coverage-rtl <OUT>', 'merge the shards\' verilator_coverage data (see --coverage-rtl-from) into OUT')
      .option('--coverage-rtl-from <DIR...>', 'the shards\' --coverage-rtl directories'),
  run(args, o) {
    checkReports(o.json, o.junit);
    if ((o.coverageRtl === undefined) !== (o.coverageRtlFrom === undefined)) throw new RvError('bad-option', '--coverage-rtl and --coverage-rtl-from go together: the output directory and the shards\' --coverage-rtl directories');
    if (o.coverageRtl !== undefined) checkOutputDir(o.coverageRtl, '--coverage-rtl');
    const parts = args.map((file) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new RvError('io', `cannot read: ${(e as Error).message}`, { file });
      }
      let r: Results;
      try {
        r = JSON.parse(text) as Results;
      } catch {
        throw new RvError('bad-file', 'not a result file of rvtrace regress (not JSON; give the --json output of a regress run)', { file });
      }
      if (r === null || typeof r !== 'object' || !Array.isArray(r.cases) || r.matrix === undefined) {
        throw new RvError('bad-file', 'not a result file of rvtrace regress (JSON without "matrix" and "cases"; give the --json output of a regress run)', { file });
      }
      const cov = r.coverage as unknown;
      if (cov !== undefined && (cov === null || typeof cov !== 'object' || !Array.isArray((cov as { groups?: unknown }).groups) || (cov as { groups: unknown[] }).groups.some((g) => g === null || typeof g !== 'object' || typeof (g as { bins?: unknown }).bins !== 'object'))) {
        throw new RvError('bad-file', '"coverage" is not the coverage of rvtrace regress (expected {format, groups: [{block, component, sets, kind, cases, bins, excluded}]})', { file });
      }
      return r;
    });
    const merged = mergeResults(parts, args, { allowPartial: o.allowPartial === true });
    if (o.coverageRtl !== undefined) {
      for (const m of mergeCodeCoverageDirs(o.coverageRtlFrom!, o.coverageRtl)) {
        process.stdout.write(`code coverage of ${m.name} (${m.sources} shard${m.sources === 1 ? '' : 's'}): ${m.merged}, annotated sources in ${m.annotated}\n`);
      }
    }
    writeReports(merged, o.json, o.junit);
    return report(merged);
  },
};
