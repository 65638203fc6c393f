/**
 * Regressions and sharding: a matrix run as 4 shards and merged gives the same cases and totals as
 * the same matrix in one run; shard indices come from the scheduler variables; reports are valid.
 */
import { describe, expect, it } from 'vitest';
import { resolver } from '../blocks/index.ts';
import { type CaseRecord, junitXml, matrixCases, mergeResults, parseShard, partialLine, runRegression, totals, type Matrix, type Results } from './regress.ts';

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
    // Functional coverage: the merge of the 4 shards is exactly the coverage of the one run (every
    // bin's hits, per configuration), and it is not empty.
    expect(merged.coverage).toEqual(whole.coverage);
    expect(whole.coverage!.groups.map((g) => [g.component, g.cases])).toEqual([
      ['etrace', 6],
      ['etrace-rv32-mcu', 6],
    ]);
    expect(Object.values(whole.coverage!.groups[0]!.bins).filter((n) => n > 0).length).toBeGreaterThan(20);
    // Each shard's coverage holds its own cases only (3 of the 12).
    expect(shards.map((s) => s.coverage!.groups.reduce((n, g) => n + g.cases, 0))).toEqual([3, 3, 3, 3]);
    expect(() => mergeResults([shards[0]!, shards[0]!], ['a', 'b'])).toThrow(/appears twice/);
    // Each shard lists the whole matrix (order: components, back-pressure, seeds) ...
    expect(shards[2]!.plan).toHaveLength(12);
    expect(shards[2]!.plan![10]).toBe('etrace-rv32-mcu/bp0.7/seed2');
    // ... so a merge without shard 3 (cases 2, 6 and 10: i mod 4 = 2) names them.
    expect(() => mergeResults([shards[0]!, shards[1]!, shards[3]!], ['s1', 's2', 's4'])).toThrow(
      'merge: incomplete: shard 3/4 missing; 3 of 12 cases missing (etrace/bp0/seed3, etrace-rv32-mcu/bp0/seed1, etrace-rv32-mcu/bp0.7/seed2); give every shard\'s results, or --allow-partial to merge what there is',
    );
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

/** A hand-made matrix of 2 components x 3 seeds, split into 3 shards (case i in shard (i mod 3) + 1). */
const SMALL: Matrix = { components: ['ctr', 'ctr-small'], sets: [], seeds: [1, 2, 3], backpressures: [0], count: 10 };
const PLAN = ['ctr/bp0/seed1', 'ctr/bp0/seed2', 'ctr/bp0/seed3', 'ctr-small/bp0/seed1', 'ctr-small/bp0/seed2', 'ctr-small/bp0/seed3'];
function record(index: number, status: 'passed' | 'failed' = 'passed'): CaseRecord {
  const [component, bp, seed] = PLAN[index]!.split('/') as [string, string, string];
  return { id: PLAN[index]!, index, component, sets: [], seed: Number(seed.slice(4)), count: 10, backpressure: Number(bp.slice(2)), status, records: 10, cycles: 20, metrics: { responses: 3 }, seconds: 0.5, replay: 'x' };
}
function shard(k: number, cases: number[] = PLAN.map((_, i) => i).filter((i) => i % 3 === k - 1)): Results {
  return { tool: 'rvtrace test', matrix: SMALL, plan: PLAN, shard: { index: k, count: 3 }, cases: cases.map((i) => record(i)) };
}

describe('merge of an incomplete set', () => {
  it('merges a complete set without marking it partial', () => {
    const m = mergeResults([shard(2), shard(1), shard(3)], ['s2', 's1', 's3']);
    expect(m.cases.map((c) => c.id)).toEqual(PLAN);
    expect(m.partial).toBeUndefined();
    expect(partialLine(m)).toBe('');
    expect(junitXml(m)).toContain('<testsuites name="rvtrace regress" tests="6" failures="0" time="3.000">');
  });

  it('fails naming the missing shards and their cases', () => {
    expect(() => mergeResults([shard(1)], ['s1'])).toThrow(
      "merge: incomplete: shards 2/3, 3/3 missing; 4 of 6 cases missing (ctr/bp0/seed2, ctr/bp0/seed3, ctr-small/bp0/seed2, ctr-small/bp0/seed3); give every shard's results, or --allow-partial to merge what there is",
    );
  });

  it('fails naming cases missing from a shard that is there (a shard cut short)', () => {
    expect(() => mergeResults([shard(1), shard(2, [1]), shard(3)], ['s1', 's2', 's3'])).toThrow(
      "merge: incomplete: 1 of 6 cases missing (ctr-small/bp0/seed2); give every shard's results, or --allow-partial to merge what there is",
    );
  });

  it('refuses shards of different splits', () => {
    const other: Results = { ...shard(2), shard: { index: 2, count: 4 } };
    expect(() => mergeResults([shard(1), other], ['s1', 'x'])).toThrow('merge: x is shard 2/4 but s1 is shard 1/3: shards of different splits');
  });

  it('with allowPartial, marks the result partial in the JSON, the JUnit XML and the summary line', () => {
    const m = mergeResults([shard(1), shard(3)], ['s1', 's3'], { allowPartial: true });
    expect(m.cases.map((c) => c.index)).toEqual([0, 2, 3, 5]);
    expect(m.partial).toEqual({ missingShards: ['2/3'], missingCases: ['ctr/bp0/seed2', 'ctr-small/bp0/seed2'] });
    expect(JSON.parse(JSON.stringify(m)).partial.missingCases).toEqual(['ctr/bp0/seed2', 'ctr-small/bp0/seed2']);
    expect(partialLine(m)).toBe('PARTIAL: 2 cases of the matrix not run, shard 2/3 missing: ctr/bp0/seed2, ctr-small/bp0/seed2');
    const x = junitXml(m);
    expect(x).toContain('<testsuites name="rvtrace regress (partial)" tests="6" failures="0" skipped="2" time="2.000">');
    expect(x).toContain('<property name="partial" value="2 cases not run; missing shards: 2/3"/>');
    expect(x).toContain('<testsuite name="ctr-small" tests="3" failures="0" skipped="1" time="1.000">');
    expect(x).toContain('<testcase classname="ctr" name="bp0 seed2" time="0.000">\n      <skipped message="not run: missing from the merged results"/>');
  });
});
