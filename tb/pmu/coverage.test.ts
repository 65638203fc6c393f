/**
 * The PMU coverage model's SBI bins: every answer of a case's SBI call script lands on a bin of the
 * spec's error tables (an answer outside them would hit a bin outside the space), no bin the space
 * excludes with a reason is ever hit, and with the spec's own behaviour (sbi_behaviour=spec) a few
 * cases reach every answer the tables list but FAILED (which the firmware model cannot give).
 */
import { describe, expect, it } from 'vitest';
import { resolver } from '../../blocks/index.ts';
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { pmuCaseSteps } from './case.ts';
import { pmuCoverageHits, pmuCoverageSpace } from './coverage.ts';

const resolve = resolver('test');
const pmu = (component: string, sets: string[] = []) => resolve(component, sets) as ResolvedComponent<PmuBlockConfig>;

function union(component: string, sets: string[], seeds: number[]): Record<string, number> {
  const r = pmu(component, sets);
  const out: Record<string, number> = {};
  for (const seed of seeds) {
    const spec: CaseSpec = { component, sets, seed, count: 1500, backpressure: 0 };
    for (const [bin, n] of Object.entries(pmuCoverageHits(r.config, spec))) out[bin] = (out[bin] ?? 0) + n;
  }
  return out;
}

describe('PMU functional coverage: the SBI layer', () => {
  for (const [component, sets] of [
    ['pmu', []],
    ['pmu-qemu-virt', []],
    ['pmu', ['sbi_behaviour=spec', 'xlen=32']],
  ] as [string, string[]][]) {
    it(`${component} ${sets.join(' ')}: every SBI answer is a bin of the spec's tables, none excluded`, () => {
      const space = pmuCoverageSpace(pmu(component, sets).config.config);
      const hits = union(component, sets, [1, 2, 3]);
      expect(Object.keys(hits).filter((b) => !space.bins.includes(b))).toEqual([]);
      expect(Object.keys(hits).filter((b) => space.excluded[b] !== undefined)).toEqual([]);
      // The answers counted are the script's ecalls (the case opens with the script).
      const calls = [1, 2, 3].reduce((n, seed) => n + pmuCaseSteps(pmu(component, sets).config, { component, sets, seed, count: 1500, backpressure: 0 }).sbi.filter((s) => s.kind === 'ecall').length, 0);
      const answers = Object.entries(hits).filter(([b]) => b.startsWith('sbi:')).reduce((n, [, v]) => n + v, 0);
      expect(answers).toBe(calls);
      expect(calls).toBeGreaterThan(60);
    });
  }

  it('with sbi_behaviour=spec, eight cases reach every answer of the tables the firmware can give', () => {
    const sets = ['sbi_behaviour=spec'];
    const space = pmuCoverageSpace(pmu('pmu', sets).config.config);
    const hits = union('pmu', sets, [1, 2, 3, 4, 5, 6, 7, 8]);
    const sbi = space.bins.filter((b) => b.startsWith('sbi:'));
    // Typed from the SBI specification's PMU chapter: 9 functions, 28 answers in their tables.
    expect(sbi).toHaveLength(28);
    expect(sbi.filter((b) => space.excluded[b] !== undefined).sort()).toEqual(['sbi:event_get_info:FAILED', 'sbi:event_get_info:NOT_SUPPORTED', 'sbi:snapshot_set_shmem:FAILED', 'sbi:snapshot_set_shmem:NOT_SUPPORTED']);
    expect(sbi.filter((b) => space.excluded[b] === undefined && !hits[b])).toEqual([]);
  });

  it('a hart without S-mode (pmu-rv32-mcu) makes no SBI calls: the SBI bins are excluded with the reason', () => {
    const space = pmuCoverageSpace(pmu('pmu-rv32-mcu').config.config);
    const sbi = space.bins.filter((b) => b.startsWith('sbi:'));
    expect(sbi.length).toBeGreaterThan(0);
    for (const b of sbi) expect(space.excluded[b]).toMatch(/no S-mode/);
    expect(Object.keys(union('pmu-rv32-mcu', [], [1])).filter((b) => b.startsWith('sbi:'))).toEqual([]);
  });

  it('OpenSBI 1.9 (the shipped behaviour) answers snapshot_set_shmem with NOT_SUPPORTED only', () => {
    const space = pmuCoverageSpace(pmu('pmu').config.config);
    expect(space.excluded['sbi:snapshot_set_shmem:SUCCESS']).toMatch(/OpenSBI does not support snapshots/);
    const hits = union('pmu', [], [1, 2, 3, 4]);
    expect(hits['sbi:snapshot_set_shmem:NOT_SUPPORTED']).toBeGreaterThan(0);
    expect(Object.keys(hits).filter((b) => b.startsWith('sbi:snapshot_set_shmem:') && !b.endsWith(':NOT_SUPPORTED'))).toEqual([]);
  });
});
