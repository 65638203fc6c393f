/**
 * The CTR coverage model: its hits agree with what the unit did, counted from the unit's own outputs
 * of the same steps (pushes, pops, overwrites, freezes, illegal and virtual responses) without the
 * observer; exclusions carry reasons; a stimulus without traps leaves the trap bins uncovered.
 */
import { describe, expect, it } from 'vitest';
import { resolver } from '../../blocks/index.ts';
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import { addCase, blockCoverage, coverageSummary, emptyCoverage } from '../../core/coverage.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { CtrUnit } from '../../golden-model/ctr/unit.ts';
import { ctrCaseSteps } from './case.ts';
import { ctrCoverageHits, ctrCoverageSpace } from './coverage.ts';

const resolve = resolver('test');
const ctr = (component: string) => resolve(component, []) as ResolvedComponent<CtrBlockConfig>;

const sum = (hits: Record<string, number>, test: (bin: string) => boolean): number =>
  Object.entries(hits).reduce((n, [bin, k]) => n + (test(bin) ? k : 0), 0);

describe('CTR functional coverage', () => {
  for (const component of ['ctr', 'ctr-1.0', 'ctr-rv32']) {
    it(`agrees with the unit's outputs of the same steps (${component})`, () => {
      const r = ctr(component);
      const spec: CaseSpec = { component, sets: [], seed: 5, count: 6000, backpressure: 0 };
      const hits = ctrCoverageHits(r.config, spec);
      const unit = new CtrUnit(r.config.config);
      const n = { push: 0, pop: 0, overwrite: 0, freeze: 0, illegal: 0, virtual: 0, ok: 0 };
      for (const s of ctrCaseSteps(r.config, spec).steps) {
        const out = unit.step(s);
        if (out.update) n[out.update.kind]++;
        if (out.csr) n[out.csr.illegalInstruction ? 'illegal' : out.csr.virtualInstruction ? 'virtual' : 'ok']++;
      }
      expect(n.push).toBeGreaterThan(50);
      expect(n.illegal).toBeGreaterThan(10);
      const pushes = new Set(['recorded', 'trap-source-pc-0', 'external-trap', 'trap-return-target-pc-0', 'rasemu-push']);
      expect(sum(hits, (b) => b.startsWith('xfer:') && pushes.has(b.split(':')[3]!))).toBe(n.push);
      expect(sum(hits, (b) => b.endsWith(':rasemu-pop'))).toBe(n.pop);
      expect(sum(hits, (b) => b.endsWith(':rasemu-swap'))).toBe(n.overwrite);
      expect(sum(hits, (b) => /:freeze-(lcofi|breakpoint)$/.test(b))).toBe(n.freeze);
      for (const result of ['ok', 'illegal', 'virtual'] as const) expect(sum(hits, (b) => b.startsWith('csr:') && b.endsWith(`:${result}`))).toBe(n[result]);
      const space = ctrCoverageSpace(r.config.config);
      expect(Object.keys(hits).filter((b) => !space.bins.includes(b))).toEqual([]);
    });
  }

  it('sees transfers into, out of and within the debug-mode runs of the stimulus (never recorded)', () => {
    const r = ctr('ctr-1.0');
    const hits = ctrCoverageHits(r.config, { component: 'ctr-1.0', sets: [], seed: 1, count: 20000, backpressure: 0 });
    for (const b of ['debug:entry', 'debug:exit', 'debug:within']) expect(hits[b], b).toBeGreaterThan(0);
    // No debug-mode transfer is counted as recorded.
    expect(Object.keys(hits).filter((b) => b.includes(':debug'))).toEqual([]);
  });

  it('excludes what a configuration cannot reach, with the reason', () => {
    const v014 = ctrCoverageSpace(ctr('ctr').config.config);
    expect(v014.excluded['csr:sctrclr:ok']).toMatch(/v0\.1\.4 has no SCTRCLR/);
    expect(v014.excluded['csr:sctrclr:illegal']).toBeUndefined();
    const v10 = ctrCoverageSpace(ctr('ctr-1.0').config.config);
    expect(v10.excluded['csr:sctrclr:ok']).toBeUndefined();
    expect(v10.bins).toContain('xfer:exception:up:external-trap');
  });

  it('a stimulus without traps leaves the trap bins uncovered, and the summary names them', () => {
    const r = ctr('ctr-1.0');
    const space = ctrCoverageSpace(r.config.config);
    const run = (knobs: CaseSpec['knobs']) => {
      const cov = emptyCoverage();
      for (const seed of [1, 2]) {
        const spec: CaseSpec = { component: 'ctr-1.0', sets: [], seed, count: 6000, backpressure: 0, ...(knobs ? { knobs } : {}) };
        addCase(cov, { block: 'ctr', component: 'ctr-1.0', sets: [] }, space, ctrCoverageHits(r.config, spec));
      }
      return cov;
    };
    // (Trap returns stay: the program starts in M and drops to its mode with an xRET.)
    const trapBins = ['xfer:exception:up:recorded', 'xfer:interrupt:up:recorded'];
    const withTraps = blockCoverage(run(undefined))[0]!;
    for (const b of trapBins) expect(withTraps.uncovered).not.toContain(b);
    const cov = run({ interrupt_rate: 0, nested_interrupt_rate: 0, fault_rate: 0, w_ecall: 0, w_ebreak: 0, w_illegal: 0 });
    const without = blockCoverage(cov)[0]!;
    for (const b of trapBins) expect(without.uncovered).toContain(b);
    const summary = coverageSummary(cov);
    for (const b of trapBins) expect(summary).toContain(b);
  });

  /** The bins matching `re` that any of the seeds hit. */
  const reached = (component: string, knobs: CaseSpec['knobs'], re: RegExp, seeds: number[], count = 8000): string[] => {
    const r = ctr(component);
    const out = new Set<string>();
    for (const seed of seeds) {
      const hits = ctrCoverageHits(r.config, { component, sets: [], seed, count, backpressure: 0, ...(knobs ? { knobs } : {}) });
      for (const [b, n] of Object.entries(hits)) if (n > 0 && re.test(b)) out.add(b);
    }
    return [...out];
  };

  it('a program running in M only (knob privileges=M) takes breakpoints from M to M: the BPFRZ freeze of a same-mode exception', () => {
    const bin = 'xfer:exception:same:freeze-breakpoint';
    for (const component of ['ctr-1.0', 'ctr-rv32']) {
      expect(reached(component, { privileges: 'M' }, /freeze-breakpoint$/, [1, 2, 3, 4]), component).toContain(bin);
      // Its ebreaks run in U (main and the functions) otherwise: from U up to M, never the same mode.
      expect(reached(component, undefined, /freeze-breakpoint$/, [1, 2, 3, 4]), component).not.toContain(bin);
    }
  });

  it('long stalls (long_stall_rate) saturate CC: beyond 32764 cycles with 2 CCE bits (ctr-rv32), an entry with CC all ones', () => {
    // The 1.0 table: with 2 CCE bits the largest elapsed count is (4096 + 4095) * 2^2 = 32764.
    const r = ctr('ctr-rv32');
    expect(r.config.config.cceBits).toBe(2);
    const bin = 'cycle-count:saturated';
    expect(reached('ctr-rv32', { long_stall_rate: 0.0002, long_stall_cycles: 40_000 }, /^cycle-count:/, [1, 2, 3], 5000)).toContain(bin);
    expect(reached('ctr-rv32', undefined, /^cycle-count:/, [1, 2, 3], 5000)).not.toContain(bin);
    // The entries say the same, read from the unit's own state (not the observer): in each case
    // where the bin is hit some ctrdata has CCE = 3 and CCM = 0xFFF (CC, bits 31:16, = 0x3FFF).
    let cases = 0;
    for (const seed of [1, 2, 3]) {
      const spec: CaseSpec = { component: 'ctr-rv32', sets: [], seed, count: 5000, backpressure: 0, knobs: { long_stall_rate: 0.0002, long_stall_cycles: 40_000 } };
      if (!ctrCoverageHits(r.config, spec)[bin]) continue;
      cases++;
      const unit = new CtrUnit(r.config.config);
      let saturated = 0;
      for (const s of ctrCaseSteps(r.config, spec).steps) {
        unit.step(s);
        for (const e of unit.entries()) if (((e.data >>> 16) & 0xffff) === 0x3fff) saturated++;
      }
      expect(saturated, `seed ${seed}`).toBeGreaterThan(0);
    }
    expect(cases).toBeGreaterThan(0);
  });
});
