/**
 * Coverage data: merging adds hits exactly and in any order, the per-block summary counts a bin as
 * reachable when some configuration can reach it and covered when some configuration hit it, and
 * lists the uncovered and unexpected bins. Expected values are worked by hand from the inputs.
 */
import { describe, expect, it } from 'vitest';
import { addCase, blockCoverage, type Coverage, coverageSummary, emptyCoverage, mergeCoverage } from './coverage.ts';

const space = { bins: ['a', 'b', 'c', 'd'], excluded: { d: 'not in this configuration' } };
const where = (component: string) => ({ block: 'blk', component, sets: [] });

describe('coverage data', () => {
  it('adds the cases of a configuration, and merging shards gives the same hits in any order', () => {
    const one = emptyCoverage();
    addCase(one, where('x'), space, { a: 2, b: 1 });
    addCase(one, where('x'), space, { a: 1 });
    expect(one.groups).toHaveLength(1);
    expect(one.groups[0]!.bins).toEqual({ a: 3, b: 1, c: 0, d: 0 });
    expect(one.groups[0]!.cases).toBe(2);
    const two = emptyCoverage();
    addCase(two, where('x'), space, { c: 5 });
    addCase(two, where('y'), space, { a: 1 });
    const m1 = mergeCoverage([one, two]);
    const m2 = mergeCoverage([two, one]);
    expect(m1).toEqual(m2);
    expect(m1.groups.map((g) => [g.component, g.cases, g.bins])).toEqual([
      ['x', 3, { a: 3, b: 1, c: 5, d: 0 }],
      ['y', 1, { a: 1, b: 0, c: 0, d: 0 }],
    ]);
    // The inputs are not changed by the merge.
    expect(one.groups[0]!.bins['c']).toBe(0);
  });

  it('summarises per block: covered/total, uncovered by name, exclusions apart', () => {
    const cov = emptyCoverage();
    addCase(cov, where('x'), space, { a: 1 });
    // Another configuration that can reach d.
    addCase(cov, where('y'), { bins: ['a', 'b', 'c', 'd', 'e'], excluded: { e: 'no e here' } }, { b: 1 });
    const [b] = blockCoverage(cov);
    expect(b).toMatchObject({ block: 'blk', total: 4, covered: 2, uncovered: ['c', 'd'], excluded: { e: 'no e here' }, cases: 2 });
    const text = coverageSummary(cov);
    expect(text).toContain('coverage blk (functional): 2/4 bins (50.0%) in 2 cases, 1 excluded for every configuration');
    expect(text).toContain('uncovered: c d');
    expect(coverageSummary(cov, 1)).toContain('uncovered: c ... and 1 more');
  });

  it('keeps hits of bins outside the space as unexpected and shows them', () => {
    const cov = emptyCoverage();
    addCase(cov, where('x'), space, { a: 1, zz: 2 });
    addCase(cov, where('x'), space, { zz: 1 });
    expect(cov.groups[0]!.unexpected).toEqual({ zz: 3 });
    expect(mergeCoverage([cov, cov]).groups[0]!.unexpected).toEqual({ zz: 6 });
    expect(coverageSummary(cov)).toContain('UNEXPECTED (hit, but not bins of the coverage model: a defect of the model): zz');
  });

  it('refuses to merge other formats or other bins of one configuration, naming the file', () => {
    const a = emptyCoverage();
    addCase(a, where('x'), space, {});
    const b = emptyCoverage();
    addCase(b, where('x'), { bins: ['a'], excluded: {} }, {});
    expect(() => mergeCoverage([a, b], ['a.json', 'b.json'])).toThrow(/b\.json.*|other bins/);
    const bad = { format: 'other', groups: [] } as unknown as Coverage;
    expect(() => mergeCoverage([a, bad], ['a.json', 'c.json'])).toThrow(/coverage format "other"/);
  });
});
