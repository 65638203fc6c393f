/**
 * `rvtrace regress --emit slurm|lsf|k8s --shards N`: the Slurm and LSF scripts pass `bash -n`, the
 * Kubernetes manifest parses as YAML (PyYAML, a parser apart from the writer) into an indexed Job
 * and a merge Job; and each job, run here as N processes with its scheduler's index variable set
 * (the scheduler's submit command a stub that records the merge step), then merged by that merge
 * step, gives the results and the functional coverage of the unsharded run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitJobs, type EmitOptions, shellWord } from './regress-emit.ts';
import type { Results } from './regress.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const RVTRACE = `${shellWord(process.execPath)} ${shellWord(BIN)}`;
const ARGS = ['--components', 'ctr-small', '--seeds', '1-4', '--count', '400', '--backpressure', '0', '--jobs', '1'];

const options = (scheduler: EmitOptions['scheduler'], results: string): EmitOptions => ({ scheduler, shards: 4, args: ARGS, rvtrace: RVTRACE, results, image: 'rvtrace:1', claim: 'rv-results' });

/** PyYAML's reading of a multi-document YAML text, as JSON. */
function parseYaml(text: string): unknown[] {
  const r = spawnSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(sys.stdin))))'], { input: text, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown[];
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ status: number; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (status) => resolve({ status: status ?? -1, out }));
  });
}

/** A directory with stub `sbatch` and `bsub` that append their arguments (one per line) to <dir>/submitted. */
function stubs(dir: string): string {
  const bin = join(dir, 'stub-bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['sbatch', 'bsub']) {
    writeFileSync(join(bin, name), `#!/bin/bash\nprintf '%s\\n' "$@" > ${shellWord(join(dir, 'submitted'))}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

const strip = (r: Results) => ({ cases: r.cases.map(({ seconds: _s, ...rest }) => rest), coverage: r.coverage });

describe('regress --emit', () => {
  it('writes scripts that bash -n accepts and a manifest that parses as an indexed Job and a merge Job', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-emit-'));
    for (const s of ['slurm', 'lsf'] as const) {
      const file = join(dir, `${s}.sh`);
      const text = emitJobs(options(s, 'res'));
      writeFileSync(file, text);
      const r = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(text).toContain(s === 'slurm' ? '#SBATCH --array=0-3' : '#BSUB -J "rvtrace-regress[1-4]"');
    }
    const docs = parseYaml(emitJobs(options('k8s', 'res'))) as { kind: string; metadata: { name: string }; spec: Record<string, unknown> & { template: { spec: { containers: { image: string; args: string[] }[]; volumes: { persistentVolumeClaim: { claimName: string } }[] } } } }[];
    expect(docs.map((d) => [d.kind, d.metadata.name])).toEqual([
      ['Job', 'rvtrace-regress'],
      ['Job', 'rvtrace-merge'],
    ]);
    expect(docs[0]!.spec).toMatchObject({ completions: 4, parallelism: 4, completionMode: 'Indexed' });
    for (const d of docs) {
      const c = d.spec.template.spec.containers[0]!;
      expect(c.image).toBe('rvtrace:1');
      expect(d.spec.template.spec.volumes[0]!.persistentVolumeClaim.claimName).toBe('rv-results');
      const r = spawnSync('sh', ['-n'], { input: c.args[0], encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
  });

  it('with --coverage-rtl DIR each shard writes DIR/shard-K and the merge merges them into DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-emit-cov-'));
    for (const s of ['slurm', 'lsf'] as const) {
      const file = join(dir, `${s}.sh`);
      const text = emitJobs({ ...options(s, 'res'), codeCoverage: 'cov dir' });
      writeFileSync(file, text);
      const r = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(text).toContain(`--coverage-rtl 'cov dir'/shard-$K`);
      // The merge command is quoted once more inside the submit line.
      expect(text).toMatch(/merge res\/shard-\*\.json .*--coverage-rtl .*cov dir.* --coverage-rtl-from .*cov dir.*\/shard-\*/);
    }
    const plain = emitJobs(options('slurm', 'res'));
    expect(plain).not.toContain('--coverage-rtl');
  });

  it('runs as 4 processes with the index variable set, and the merge step gives the unsharded results and coverage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-emit-run-'));
    // The unsharded run first (it also builds the Verilator model the shards then find in the cache).
    const whole = await run(process.execPath, [BIN, 'regress', ...ARGS, '--json', join(dir, 'whole.json')], {}, ROOT);
    expect(whole.status, whole.out).toBe(0);
    expect(whole.out).toMatch(/coverage ctr \(functional\): \d+\/\d+ bins/);
    const expected = strip(JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8')) as Results);
    expect(expected.cases).toHaveLength(4);
    const path = `${stubs(dir)}:${process.env['PATH']}`;
    const variants = [
      { s: 'slurm' as const, env: (k: number) => ({ SLURM_ARRAY_TASK_ID: String(k), SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_JOB_ID: '77' }) },
      { s: 'lsf' as const, env: (k: number) => ({ LSB_JOBINDEX: String(k + 1), LSB_JOBID: '77' }) },
      { s: 'k8s' as const, env: (k: number) => ({ JOB_COMPLETION_INDEX: String(k) }) },
    ];
    for (const v of variants) {
      const results = join(dir, `${v.s}-results`);
      const text = emitJobs(options(v.s, results));
      let shardScript: string;
      let mergeScript: string;
      if (v.s === 'k8s') {
        const docs = parseYaml(text) as { spec: { template: { spec: { containers: { args: string[] }[] } } } }[];
        shardScript = docs[0]!.spec.template.spec.containers[0]!.args[0]!;
        mergeScript = docs[1]!.spec.template.spec.containers[0]!.args[0]!;
      } else {
        shardScript = text;
        mergeScript = '';
      }
      const file = join(dir, `${v.s}.job`);
      writeFileSync(file, shardScript);
      const shards = await Promise.all([0, 1, 2, 3].map((k) => run(v.s === 'k8s' ? 'sh' : 'bash', [file], { ...v.env(k), PATH: path }, dir)));
      for (const r of shards) expect(r.status, r.out).toBe(0);
      if (v.s !== 'k8s') {
        // The first task submitted the merge job: its command is the last argument given to the stub.
        const submitted = readFileSync(join(dir, 'submitted'), 'utf8').trim().split('\n');
        const last = submitted[submitted.length - 1]!;
        mergeScript = v.s === 'slurm' ? last.replace(/^--wrap=/, '') : last;
        expect(submitted.join(' ')).toContain(v.s === 'slurm' ? '--dependency=afterany:77' : 'ended(77)');
      }
      const merge = await run('sh', ['-c', mergeScript], {}, dir);
      expect(merge.status, merge.out).toBe(0);
      expect(merge.out).toMatch(/coverage ctr \(functional\): \d+\/\d+ bins/);
      const merged = strip(JSON.parse(readFileSync(join(results, 'merged.json'), 'utf8')) as Results);
      expect(merged).toEqual(expected);
    }
  }, 900_000);
});
