/**
 * Regressions and sharding: a matrix run as 4 shards and merged gives the same cases and totals as
 * the same matrix in one run; shard indices come from the scheduler variables; reports are valid.
 */
import { describe, expect, it } from 'vitest';
import { resolver } from '../blocks/index.ts';
import { junitXml, matrixCases, mergeResults, parseShard, runRegression, totals, type Matrix, type Results } from './regress.ts';

const resolve = resolver('test');
const MATRIX: Matrix = { components: ['etrace', 'etrace-rv32-mcu'], sets: [], seeds: [1, 2, 3], backpressures: [0, 0.7], count: 1500 };

describe('regress', () => {
  it('4 shards merged give the same cases and totals as one run; every case runs in exactly one shard', async () => {
    const whole = await runRegression(MATRIX, { jobs: 2, resolve });
    expect(whole.cases).toHaveLength(12);
    expect(whole.cases.every((c) => c.status === 'passed')).toBe(true);
    const shards: Results[] = [];
    for (let k = 1; k <= 4; k++) shards.push(await runRegression(MATRIX, { jobs: 2, shard: { index: k, count: 4 }, resolve }));
    expect(shards.map((s) => s.cases.length)).toEqual([3, 3, 3, 3]);
    const merged = mergeResults(shards, ['s1', 's2', 's3', 's4']);
    const strip = (r: Results) => r.cases.map(({ seconds: _s, ...rest }) => rest);
    expect(strip(merged)).toEqual(strip(whole));
    const { seconds: _a, ...t1 } = totals(merged.cases);
    const { seconds: _b, ...t2 } = totals(whole.cases);
    expect(t1).toEqual(t2);
    expect(t1.records).toBeGreaterThan(12 * 1500);
    expect(() => mergeResults([shards[0]!, shards[0]!], ['a', 'b'])).toThrow(/appears twice/);
  }, 300_000);

  it('takes the shard index from Slurm, LSF and Kubernetes variables', () => {
    expect(parseShard('2/4', {})).toEqual({ index: 2, count: 4 });
    expect(parseShard('4', { SLURM_ARRAY_TASK_ID: '0' })).toEqual({ index: 1, count: 4 });
    expect(parseShard('4', { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1' })).toEqual({ index: 3, count: 4 });
    expect(parseShard('4', { LSB_JOBINDEX: '4' })).toEqual({ index: 4, count: 4 });
    expect(parseShard('4', { JOB_COMPLETION_INDEX: '2' })).toEqual({ index: 3, count: 4 });
    expect(() => parseShard('4', {})).toThrow(/no shard index/);
    expect(() => parseShard('5/4', {})).toThrow(/not within 1\.\.4/);
    expect(() => parseShard('x', {})).toThrow(/expected K\/N/);
    expect(parseShard(undefined, {})).toBeUndefined();
  });

  it('the case order is fixed: components, then back-pressure, then seeds', () => {
    expect(matrixCases(MATRIX, resolve).map((c) => c.id).slice(0, 4)).toEqual(['etrace/bp0/seed1', 'etrace/bp0/seed2', 'etrace/bp0/seed3', 'etrace/bp0.7/seed1']);
  });

  it('JUnit XML has a suite per component and a failure element, escaped, for a failed case', () => {
    const r: Results = {
      tool: 'rvtrace test',
      matrix: MATRIX,
      cases: [
        { id: 'etrace/bp0/seed1', index: 0, component: 'etrace', sets: [], seed: 1, count: 10, backpressure: 0, status: 'passed', records: 10, cycles: 12, metrics: { bytes: 5, packets: 2, lost: 0 }, seconds: 0.5, replay: 'x' },
        { id: 'etrace/bp0/seed2', index: 1, component: 'etrace', sets: [], seed: 2, count: 10, backpressure: 0, status: 'failed', records: 10, cycles: 12, metrics: { bytes: 5, packets: 2, lost: 0 }, seconds: 0.25, mismatch: 'byte 3: <a> & "b"', replay: 'npx rvtrace cosim' },
      ],
    };
    const x = junitXml(r);
    expect(x).toContain('<testsuites name="rvtrace regress" tests="2" failures="1" time="0.750">');
    expect(x).toContain('<testsuite name="etrace" tests="2" failures="1" time="0.750">');
    expect(x).toContain('<testcase classname="etrace" name="bp0 seed1" time="0.500"/>');
    expect(x).toContain('<failure message="RTL and model differ">byte 3: &lt;a&gt; &amp; &quot;b&quot;\nreplay: npx rvtrace cosim</failure>');
  });
});
