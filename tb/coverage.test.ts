/**
 * Every block of the registry has a coverage model, and on a case of each shipped component its hits
 * are bins of the configuration's space, some are hit, and every exclusion is a bin with a reason.
 * N-Trace: the message types counted equal the messages of the byte stream as its codec parses it.
 */
import { describe, expect, it } from 'vitest';
import { BLOCKS, resolver, shippedOf } from '../blocks/index.ts';
import type { CaseSpec, ResolvedComponent } from '../core/block.ts';
import { cycleChance } from '../golden-model/common/rng.ts';
import { NtraceStreamEncoder } from '../golden-model/ntrace/output.ts';
import type { NtraceConfig } from '../golden-model/ntrace/settings.ts';
import { ntraceCaseRecords } from './ntrace/case.ts';
import { CoverageCollector } from './coverage.ts';

const resolve = resolver('test');

describe('coverage models of every block', () => {
  for (const block of BLOCKS) {
    it(`${block.name}: hits are bins of the space, exclusions have reasons`, () => {
      expect(block.coverage, `${block.name} has a coverage model`).toBeDefined();
      for (const component of shippedOf([block.name])) {
        const r = resolve(component, []);
        const spec: CaseSpec = { component, sets: [], seed: 21, count: 3000, backpressure: block.backpressure ? 0.5 : 0 };
        const space = block.coverage!.space(r);
        const hits = block.coverage!.collect(r, spec);
        expect(Object.keys(hits).filter((b) => !space.bins.includes(b)), component).toEqual([]);
        expect(Object.values(hits).some((n) => n > 0), component).toBe(true);
        expect(new Set(space.bins).size, `${component}: bin names are unique`).toBe(space.bins.length);
        for (const [bin, reason] of Object.entries(space.excluded)) {
          expect(space.bins, component).toContain(bin);
          expect(reason.length, `${component}: ${bin}`).toBeGreaterThan(5);
        }
        // The collector groups the case under its configuration.
        const c = new CoverageCollector();
        expect(c.add(r, spec)).toBe(true);
        expect(c.result().groups.map((g) => [g.block, g.component, g.cases])).toEqual([[block.name, component, 1]]);
      }
    });
  }

  it('N-Trace: the message types counted equal the messages of the stream, as its codec parses them', () => {
    for (const component of shippedOf(['ntrace'])) {
      const r = resolve(component, []) as ResolvedComponent<NtraceConfig>;
      const spec: CaseSpec = { component, sets: [], seed: 8, count: 6000, backpressure: 0.5 };
      const hits = r.block.coverage!.collect(r, spec);
      const model = new NtraceStreamEncoder(r.config, { ready: (cycle) => !cycleChance(spec.seed, cycle, spec.backpressure) });
      for (const rec of ntraceCaseRecords(r.config, spec)) model.push(rec);
      const rows = r.block.codec!.stats(model.finish().bytes, r.config).rows;
      const fromStream: Record<string, number> = {};
      for (const row of rows) fromStream[row.kind.split(/[\s(]/)[0]!] = row.count;
      const fromHits: Record<string, number> = {};
      for (const [bin, n] of Object.entries(hits)) if (/^msg:[A-Za-z]+$/.test(bin)) fromHits[bin.slice(4)] = n;
      expect(Object.values(fromStream).reduce((x, y) => x + y, 0), component).toBeGreaterThan(50);
      expect(fromHits, `${component}: ${JSON.stringify(rows)}`).toEqual(fromStream);
    }
  });
});
