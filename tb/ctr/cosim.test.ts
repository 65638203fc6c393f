/**
 * Co-simulation of every shipped CTR component: the checked-in RTL (rtl-out/<component>, the
 * files users take) and the golden model get the same retirement stream with interleaved legal
 * and illegal CSR operations, and every CSR response (read data, illegal, virtual) must be the
 * same in the same cycle, including the final dump of every entry. One Verilator build per
 * configuration, reused for every seed. Variants beyond the shipped components switch optional
 * hardware off.
 *
 * The comparison can fail: copies of the RTL with one bit of the recorded TYPE inverted, or with
 * WRPTR advancing by two, are caught and reported with the cycle and the CSR.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderCtrRtl } from '../../generator/ctr/rtl.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';

const ctrSetup = (_command: string, name: string, sets: readonly string[]) => {
  const r = resolvedOf<CtrBlockConfig>('ctr', name, sets);
  return { ...r.config, settings: r.settings };
};
const CTR_FILELIST = 'ctr.f';
import { ROOT } from '../../generator/render.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import type { BuiltModel } from '../build.ts';
import { ctrCaseSteps } from './case.ts';
import { buildCtrModel, cosimCtr } from './cosim.ts';

const RECORDS = Number(process.env.COSIM_RECORDS ?? 20_000);
const SEEDS = [1, 2, 3];

/** The shipped RTL of a component, in compilation order (its filelist). */
function shippedRtl(name: string): string[] {
  const dir = join(ROOT, 'rtl-out', name);
  return readFileSync(join(dir, CTR_FILELIST), 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('.sv'))
    .map((f) => join(dir, f));
}

const models = new Map<string, BuiltModel>();
function model(key: string, name: string, sets: string[], files: () => string[]): BuiltModel {
  let m = models.get(key);
  if (!m) {
    const s = ctrSetup('test', name, sets);
    m = buildCtrModel(s.config, s.rtl, files());
    models.set(key, m);
  }
  return m;
}

describe('CTR co-simulation: shipped RTL against the model', () => {
  for (const name of shippedComponents('ctr')) {
    it(`${name}: seeds ${SEEDS.join(', ')}, ${RECORDS} instructions each: every CSR response identical`, async () => {
      const s = ctrSetup('test', name, []);
      const m = model(name, name, [], () => shippedRtl(name));
      const total = { compared: 0, push: 0, pop: 0, freeze: 0 };
      for (const seed of SEEDS) {
        const { steps } = ctrCaseSteps(s, { component: name, sets: [], seed, count: RECORDS, backpressure: 0 });
        const r = await cosimCtr(m, s.config, s.rtl, steps);
        expect(r.mismatch?.text, `${name} seed ${seed}`).toBeUndefined();
        expect(r.cycles).toBe(steps.length);
        total.compared += r.compared;
        total.push += r.updates.push;
        total.pop += r.updates.pop;
        total.freeze += r.updates.freeze;
      }
      expect(total.compared).toBeGreaterThan(SEEDS.length * 2 * s.config.depthMax);
      expect(total.push).toBeGreaterThan((SEEDS.length * RECORDS) / 50);
      if (s.config.rasemu) expect(total.pop).toBeGreaterThan(0);
      if (s.config.bpfrz || s.config.lcofifrz) expect(total.freeze).toBeGreaterThan(0);
    }, 300_000);
  }
});

/** Configurations beyond the shipped ones, generated into a temporary directory. */
const VARIANTS: { name: string; component: string; sets: string[] }[] = [
  { name: 'M/U hart without S (v0.1.4), no optional fields', component: 'ctr-rv32', sets: ['sMode=0', 'hExt=0', 'depthMax=16', 'resetDepth=16', 'misp=0', 'typeField=0', 'externalTraps=0', 'filterMask=0x0130'] },
  { name: '1.0 RV32 without Smstateen, DEPTH kept unless exact, new entries zeroed', component: 'ctr-1.0', sets: ['xlen=32', 'smstateen=0', 'depthMin=32', 'depthMax=128', 'resetDepth=32', 'depthLegalisation=keep', 'entriesOnDepthChange=zero', 'wrptrOnDepthChange=zero', 'cceBits=1', 'rasemuCcvPolicy=all-calls'] },
];

describe('CTR co-simulation: more configurations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ctr-cosim-'));
  it.each(VARIANTS)('$name: every CSR response identical', async ({ name, component, sets }) => {
    const s = ctrSetup('test', component, sets);
    const out = join(dir, name.replace(/\W+/g, '-'));
    const m = model(out, component, sets, () => {
      mkdirSync(out, { recursive: true });
      const files = renderCtrRtl(s.config, s.rtl, s.settings, { component, inputHash: 'test', sets });
      for (const f of files) writeFileSync(join(out, f.name), f.content);
      return files.map((f) => join(out, f.name));
    });
    for (const seed of [11, 12]) {
      const { steps } = ctrCaseSteps(s, { component, sets, seed, count: RECORDS, backpressure: 0 });
      const r = await cosimCtr(m, s.config, s.rtl, steps);
      expect(r.mismatch?.text, `seed ${seed}`).toBeUndefined();
      expect(r.updates.push).toBeGreaterThan(RECORDS / 50);
    }
  }, 300_000);
});

describe('CTR co-simulation: the comparison catches a wrong RTL', () => {
  const MUTANTS: { name: string; file: string; from: string; to: string; report: RegExp }[] = [
    {
      name: 'one inverted bit of the recorded TYPE',
      file: 'ctr_record.sv',
      from: "ent_dat_o = { 28'd0, pend_type_q } & DataMask;",
      to: "ent_dat_o = { 28'd0, pend_type_q[3:1], ~pend_type_q[0] } & DataMask;",
      report: /CSR 0x15[37] \(s?ireg3\) read from/,
    },
    {
      name: 'WRPTR advancing by two on a push',
      file: 'ctr_record.sv',
      from: "hw_wrptr_l = (wrptr_i + 1'b1) & depth_mask_i;",
      to: "hw_wrptr_l = (wrptr_i + 1'b1 + 1'b1) & depth_mask_i;",
      report: /CSR 0x[0-9a-f]{3} \((sctrstatus|s?ireg\d?)\) read from/,
    },
  ];
  it.each(MUTANTS)('$name: reported with the cycle, the CSR and both responses', async ({ file, from, to, report }) => {
    const name = 'ctr-small';
    const s = ctrSetup('test', name, []);
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ctr-mutant-'));
    const files = shippedRtl(name).map((f) => {
      const target = join(dir, f.split('/').pop()!);
      let text = readFileSync(f, 'utf8');
      if (target.endsWith(file)) {
        const before = text;
        text = text.replace(from, to);
        expect(text).not.toBe(before);
      }
      writeFileSync(target, text);
      return target;
    });
    const m = buildCtrModel(s.config, s.rtl, files);
    const { steps } = ctrCaseSteps(s, { component: name, sets: [], seed: 5, count: 3000, backpressure: 0 });
    const r = await cosimCtr(m, s.config, s.rtl, steps);
    expect(r.mismatch).toBeDefined();
    const text = r.mismatch!.text;
    expect(text).toMatch(new RegExp(`^first difference at cycle ${r.mismatch!.cycle}: `));
    expect(text).toMatch(report);
    expect(text).toMatch(/\n {2}model: rdata 0x[0-9a-f]{8}, illegal [01], virtual [01]\n {2}RTL: {3}rdata 0x[0-9a-f]{8}, illegal [01], virtual [01]\n/);
    expect(text).toMatch(/model state at the start of the cycle: depth \d+, WRPTR \d+/);
    expect(text).toMatch(/records of cycles \d+\.\.\d+:/);
  }, 120_000);
});
