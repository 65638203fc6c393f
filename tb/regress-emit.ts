/**
 * `rvtrace regress --emit slurm|lsf|k8s --shards N`: the job script (or manifest) that runs the N
 * shards of a regression on a scheduler with one submit, then merges them. Each shard runs
 * `rvtrace regress ... --shard N --json <dir>/shard-<K>.json`, the shard index coming from the
 * scheduler's variable as `--shard N` reads it (tb/regress.ts parseShard): SLURM_ARRAY_TASK_ID
 * (array 0..N-1), LSB_JOBINDEX (array 1..N), JOB_COMPLETION_INDEX (indexed Job, 0..N-1). The merge
 * (`rvtrace merge`, JSON and JUnit XML of the whole matrix, coverage summary) runs after every shard:
 * Slurm: a job the first array task submits with `--dependency=afterany:<array>`; LSF: a job the first
 * element submits with `-w "ended(<array>)"`; Kubernetes: a second Job that waits until every shard's
 * JSON result is on the shared volume. With `--coverage-rtl DIR` (a directory the shards share) each
 * shard writes its RTL code coverage into DIR/shard-K and the merge step merges their data.
 */
import { RvError } from '../golden-model/common/errors.ts';

export type Scheduler = 'slurm' | 'lsf' | 'k8s';
export const SCHEDULERS: readonly Scheduler[] = ['slurm', 'lsf', 'k8s'];

export interface EmitOptions {
  readonly scheduler: Scheduler;
  readonly shards: number;
  /** The regress arguments of the matrix (components, seeds, count, ...), without --shard/--json/--emit. */
  readonly args: readonly string[];
  /** How the cluster runs rvtrace (default `rvtrace`). */
  readonly rvtrace: string;
  /** Where the shards' results and the merged results go (a directory shared by the shards). */
  readonly results: string;
  /** Kubernetes: the container image with rvtrace, and the claim of the shared volume. */
  readonly image: string;
  readonly claim: string;
  /**
   * RTL code coverage (`--coverage-rtl DIR`): each shard writes into DIR/shard-K, and the merge step
   * merges them into DIR/merged and DIR/annotated (rvtrace merge --coverage-rtl-from).
   */
  readonly codeCoverage?: string;
}

export function parseScheduler(text: string): Scheduler {
  if ((SCHEDULERS as readonly string[]).includes(text)) return text as Scheduler;
  throw new RvError('bad-option', `--emit ${text}: expected one of ${SCHEDULERS.join(', ')}`);
}

/** A word for a POSIX shell: unchanged when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const line = (words: readonly string[]): string => words.map(shellWord).join(' ');

/**
 * The shard step as shell lines: K (1-based) from `index` (a shell expression), the shard's JSON and
 * JUnit files named by K, then `rvtrace regress ... --shard N` (which reads the same variable).
 */
function shardLines(o: EmitOptions, index: string, keepStatus: boolean): string[] {
  const json = `"$RESULTS/shard-$K.json"`;
  const junit = `"$RESULTS/shard-$K.xml"`;
  const coverage = o.codeCoverage === undefined ? '' : ` --coverage-rtl ${shellWord(o.codeCoverage)}/shard-$K`;
  const run = `${o.rvtrace} ${line(['regress', ...o.args, '--shard', String(o.shards)])} --json ${json} --junit ${junit}${coverage}`;
  return [
    `K=$(( ${index} ))`,
    `mkdir -p "$RESULTS"`,
    `rm -f ${json} ${junit}`,
    ...(keepStatus
      ? [run]
      : [
          '# A case that fails is in the results (the merge reports it); the pod fails only when no',
          '# results were written (a bad input, a build failure), so Kubernetes does not rerun the shard.',
          `${run} || [ -s ${json} ]`,
        ]),
  ];
}

/** The merge step (it runs in its own job: the results directory is written out, not a variable). */
function mergeCommand(o: EmitOptions): string {
  const dir = shellWord(o.results);
  const c = o.codeCoverage === undefined ? undefined : shellWord(o.codeCoverage);
  const coverage = c === undefined ? '' : ` --coverage-rtl ${c} --coverage-rtl-from ${c}/shard-*`;
  return `${o.rvtrace} merge ${dir}/shard-*.json --json ${dir}/merged.json --junit ${dir}/merged.xml${coverage}`;
}

function slurm(o: EmitOptions): string {
  return [
    '#!/bin/bash',
    `# rvtrace regress as a Slurm array job: ${o.shards} shards, then a merge job. Submit once:`,
    '#   sbatch <this file>',
    '#SBATCH --job-name=rvtrace-regress',
    `#SBATCH --array=0-${o.shards - 1}`,
    '#SBATCH --output=rvtrace-regress-%A_%a.out',
    'set -u',
    `RESULTS=${shellWord(o.results)}`,
    '# The first task submits the merge, to run when every task of the array has ended.',
    'if [ "${SLURM_ARRAY_TASK_ID}" = "${SLURM_ARRAY_TASK_MIN:-0}" ]; then',
    `  sbatch --job-name=rvtrace-merge --dependency=afterany:"\${SLURM_ARRAY_JOB_ID}" --output=rvtrace-merge-%j.out --wrap=${shellWord(mergeCommand(o))}`,
    'fi',
    '# Shard K = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1, as --shard N reads it.',
    'run_shard() {',
    ...shardLines(o, '${SLURM_ARRAY_TASK_ID} - ${SLURM_ARRAY_TASK_MIN:-0} + 1', true).map((l) => `  ${l}`),
    '}',
    'run_shard',
    '',
  ].join('\n');
}

function lsf(o: EmitOptions): string {
  return [
    '#!/bin/bash',
    `# rvtrace regress as an LSF job array: ${o.shards} shards, then a merge job. Submit once:`,
    '#   bsub < <this file>',
    `#BSUB -J "rvtrace-regress[1-${o.shards}]"`,
    '#BSUB -o rvtrace-regress-%J_%I.out',
    'set -u',
    `RESULTS=${shellWord(o.results)}`,
    '# The first element submits the merge, to run when every element of the array has ended.',
    'if [ "${LSB_JOBINDEX}" = "1" ]; then',
    `  bsub -J rvtrace-merge -w "ended(\${LSB_JOBID})" -o rvtrace-merge-%J.out ${shellWord(mergeCommand(o))}`,
    'fi',
    '# Shard K = LSB_JOBINDEX (1-based), as --shard N reads it.',
    'run_shard() {',
    ...shardLines(o, '${LSB_JOBINDEX}', true).map((l) => `  ${l}`),
    '}',
    'run_shard',
    '',
  ].join('\n');
}

/** A YAML double-quoted scalar (JSON string syntax is valid YAML). */
const q = (s: string): string => JSON.stringify(s);

function k8s(o: EmitOptions): string {
  const shard = ['set -u', `RESULTS=${shellWord(o.results)}`, ...shardLines(o, '${JOB_COMPLETION_INDEX} + 1', false)].join('\n');
  const merge = [
    'set -u',
    `RESULTS=${shellWord(o.results)}`,
    `# Waits until every shard has written its results, then merges them.`,
    `while [ "$(ls "$RESULTS"/shard-*.json 2>/dev/null | wc -l)" -lt ${o.shards} ]; do sleep 10; done`,
    mergeCommand(o),
  ].join('\n');
  const volume = [
    '      volumes:',
    '        - name: results',
    '          persistentVolumeClaim:',
    `            claimName: ${q(o.claim)}`,
  ];
  const container = (name: string, script: string): string[] => [
    '      containers:',
    `        - name: ${q(name)}`,
    `          image: ${q(o.image)}`,
    `          workingDir: "/work"`,
    '          command: ["/bin/sh", "-c"]',
    `          args: [${q(script)}]`,
    '          volumeMounts:',
    '            - name: results',
    '              mountPath: "/work"',
  ];
  return [
    `# rvtrace regress as a Kubernetes indexed Job (${o.shards} shards, JOB_COMPLETION_INDEX 0..${o.shards - 1}) and`,
    '# a merge Job that waits for every shard\'s results on the shared volume. Apply once:',
    '#   kubectl apply -f <this file>',
    `# The volume claim ${o.claim} must exist (ReadWriteMany); results go to ${o.results}/ on it.`,
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    '  name: "rvtrace-regress"',
    'spec:',
    `  completions: ${o.shards}`,
    `  parallelism: ${o.shards}`,
    '  completionMode: Indexed',
    '  backoffLimit: 0',
    '  template:',
    '    spec:',
    '      restartPolicy: Never',
    ...container('shard', shard),
    ...volume,
    '---',
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    '  name: "rvtrace-merge"',
    'spec:',
    '  backoffLimit: 0',
    '  template:',
    '    spec:',
    '      restartPolicy: Never',
    ...container('merge', merge),
    ...volume,
    '',
  ].join('\n');
}

export function emitJobs(o: EmitOptions): string {
  if (!Number.isInteger(o.shards) || o.shards < 1) throw new RvError('bad-option', `--shards ${o.shards}: expected a count of 1 or more`);
  return o.scheduler === 'slurm' ? slurm(o) : o.scheduler === 'lsf' ? lsf(o) : k8s(o);
}
