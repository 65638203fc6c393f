/**
 * Co-simulation of every shipped PMU component: the checked-in RTL (rtl-out/<component>, the files
 * users take) and the golden model get the same retirement stream, event pulses and legal and
 * illegal CSR operations, and every CSR response and every lcofi_o pulse must be the same in the same
 * cycle. One Verilator build per configuration, reused for every seed; variants beyond the shipped
 * components cover RV32 with Sscofpmf, the other selector legalisations, narrow counters, no
 * programmable counters and an empty event map.
 *
 * Independent of the model: a wrap in the cycle the low half of its mhpmevent is written (RV32),
 * with the answers typed from docs/pmu-model.md; an SBI script replayed through the RTL
 * (`sbi-pmu --rtl`). The comparison can fail: RTL copies with an LCOFI on every wrap, or with the
 * counter-enable check skipped, are caught and reported with the cycle and the CSR.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../../blocks/testing.ts';
import { renderPmuRtl } from '../../generator/pmu/rtl.ts';
import { ROOT } from '../../generator/render.ts';
import type { Settings } from '../../golden-model/common/settings.ts';
import { emptyRecord } from '../../golden-model/hart/records.ts';
import type { PmuCsrAccess, PmuCycleInput } from '../../golden-model/pmu/access.ts';
import { CSR } from '../../golden-model/pmu/csr-map.ts';
import { StepperHart } from '../../golden-model/pmu/sbi/hart.ts';
import { runScript } from '../../golden-model/pmu/sbi/script.ts';
import type { PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import type { BuiltModel } from '../build.ts';
import { pmuCaseSteps } from './case.ts';
import { buildPmuModel, cosimPmu } from './cosim.ts';

const RECORDS = Number(process.env.COSIM_RECORDS ?? 30_000);
const SEEDS = [1, 2, 3];

function shippedRtl(name: string): string[] {
  const dir = join(ROOT, 'rtl-out', name);
  return readFileSync(join(dir, 'pmu.f'), 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('.sv'))
    .map((f) => join(dir, f));
}

const setup = (name: string, sets: readonly string[] = []): PmuBlockConfig & { settings: Settings } => {
  const r = resolvedOf<PmuBlockConfig>('pmu', name, sets);
  return { ...r.config, settings: r.settings };
};

const tmp = mkdtempSync(join(tmpdir(), 'rvtrace-pmu-cosim-'));
const models = new Map<string, BuiltModel>();
/** The Verilator model of a shipped component, or of a variant generated into a temporary folder. */
function model(name: string, sets: readonly string[] = []): BuiltModel {
  const key = JSON.stringify([name, sets]);
  let m = models.get(key);
  if (m) return m;
  const s = setup(name, sets);
  let files: string[];
  if (sets.length === 0) {
    files = shippedRtl(name);
  } else {
    const out = join(tmp, [name, ...sets].join('-').replace(/\W+/g, '-'));
    mkdirSync(out, { recursive: true });
    const rendered = renderPmuRtl(s.config, s.rtl, s.settings, { component: name, inputHash: 'test', sets: [...sets] });
    for (const f of rendered) writeFileSync(join(out, f.name), f.content);
    files = rendered.filter((f) => f.name.endsWith('.sv')).map((f) => join(out, f.name));
  }
  m = buildPmuModel(s.config, s.rtl, files);
  models.set(key, m);
  return m;
}

describe('PMU co-simulation: shipped RTL against the model', () => {
  for (const name of shippedComponents('pmu')) {
    it(`${name}: seeds ${SEEDS.join(', ')}, ${RECORDS} instructions each: every CSR response and LCOFI identical`, async () => {
      const s = setup(name);
      const m = model(name);
      let compared = 0;
      let lcofi = 0;
      for (const seed of SEEDS) {
        const { steps } = pmuCaseSteps(s, { component: name, sets: [], seed, count: RECORDS, backpressure: 0 });
        const r = await cosimPmu(m, s.config, s.rtl, steps);
        expect(r.mismatch?.text, `${name} seed ${seed}`).toBeUndefined();
        expect(r.cycles).toBe(steps.length);
        compared += r.compared;
        lcofi += r.lcofi;
      }
      expect(compared).toBeGreaterThan((SEEDS.length * RECORDS) / 40);
      // Counters are written just below overflow: with Sscofpmf, LCOFI happens.
      if (s.config.sscofpmf) expect(lcofi).toBeGreaterThan(SEEDS.length * 10);
      else expect(lcofi).toBe(0);
    }, 300_000);
  }
});

const VARIANTS: { name: string; component: string; sets: string[] }[] = [
  { name: 'RV32 with Sscofpmf and Smcntrpmf (mhpmeventh, mcyclecfgh)', component: 'pmu', sets: ['xlen=32'] },
  { name: 'clamped selectors, 16-bit counters', component: 'pmu', sets: ['eventLegalisation=clamp', 'eventMax=0x10000', 'counterWidth=16'] },
  { name: 'hard-wired selectors, gaps in the counters', component: 'pmu-qemu-virt', sets: ['eventLegalisation=hardwired', 'counterMask=0x5a28'] },
  { name: 'QEMU virt without Sscofpmf', component: 'pmu-qemu-virt', sets: ['sscofpmf=0'] },
  { name: 'M/S/U without H, RV64, 40-bit counters', component: 'pmu', sets: ['hExt=0', 'counterWidth=40', 'smcntrpmf=0'] },
  { name: 'no programmable counters (counterMask 0)', component: 'pmu', sets: ['counterMask=0'] },
  { name: 'an empty event map, RV32 (the counters count nothing)', component: 'pmu', sets: ['events=', 'xlen=32'] },
];

describe('PMU co-simulation: more configurations', () => {
  it.each(VARIANTS)('$name: every CSR response and LCOFI identical', async ({ component, sets }) => {
    const s = setup(component, sets);
    const m = model(component, sets);
    for (const seed of [11, 12]) {
      const { steps } = pmuCaseSteps(s, { component, sets, seed, count: RECORDS, backpressure: 0 });
      const r = await cosimPmu(m, s.config, s.rtl, steps);
      expect(r.mismatch?.text, `seed ${seed}`).toBeUndefined();
    }
  }, 300_000);
});

describe('PMU co-simulation: directed cases with answers from docs/pmu-model.md', () => {
  const M = 3;
  const at = (csr?: PmuCsrAccess): PmuCycleInput => ({ record: { ...emptyRecord(), priv: M }, ...(csr ? { csr } : {}) });
  const w = (address: number, wdata: bigint, wmask = 0xffff_ffffn): PmuCsrAccess => ({ address, write: true, wdata, wmask, priv: M });
  const r = (address: number): PmuCsrAccess => ({ address, write: false, wdata: 0n, priv: M });

  it('RV32: a counter wraps in the cycle the low half of its mhpmevent is written: OF (high half) is set, LCOFI once', async () => {
    const sets = ['xlen=32'];
    const s = setup('pmu', sets);
    const steps: PmuCycleInput[] = [
      at(w(CSR.mcountinhibit, 0xffff_ffffn)), // 0: everything inhibited while programming
      at(w(CSR.mhpmevent + 3, 1n)), // 1: selector 1 = cycles
      at(w(CSR.mhpmeventh + 3, 0n)), // 2: OF and inhibits clear
      at(w(CSR.mcycleh + 3, 0xffff_ffffn)), // 3
      at(w(CSR.mcycle + 3, 0xffff_fffen)), // 4: 2^64 - 2
      at(w(CSR.mcountinhibit, 0n)), // 5: counts from cycle 6 on
      at(), // 6: -> 2^64 - 1
      at(w(CSR.mhpmevent + 3, 1n)), // 7: wraps to 0 in this cycle; the low half is written with the same selector
      at(r(CSR.mhpmeventh + 3)), // 8: OF (bit 63 = bit 31 of the high half) set; lcofi_o high in this cycle
      at(r(CSR.mcycle + 3)), // 9: 1 (counted in cycle 8)
    ];
    const unit = new PmuUnit(s.config);
    const outs = steps.map((x) => unit.step(x));
    expect(outs[8]!.csr!.rdata).toBe(0x8000_0000n);
    expect(outs[9]!.csr!.rdata).toBe(1n);
    expect(outs.map((o, i) => (o.lcofi ? i : -1)).filter((i) => i >= 0)).toEqual([8]);
    const got = await cosimPmu(model('pmu', sets), s.config, s.rtl, steps);
    expect(got.mismatch?.text).toBeUndefined();
    expect(got.lcofi).toBe(1);
  }, 300_000);

  it('sbi-pmu --rtl: every cycle of the qemu-virt script replayed through the RTL gives the same CSR responses', async () => {
    const s = setup('pmu-qemu-virt');
    const hart = new StepperHart(s.config, new PmuUnit(s.config), { seed: 1 });
    const script = readFileSync(join(ROOT, 'golden-model/pmu/sbi/test-fixtures/qemu-virt-all.sbi'), 'utf8');
    runScript(s.config, script, hart);
    expect(hart.cycles.length).toBeGreaterThan(50);
    const got = await cosimPmu(model('pmu-qemu-virt'), s.config, s.rtl, hart.cycles);
    expect(got.mismatch?.text).toBeUndefined();
    expect(got.compared).toBe(hart.cycles.filter((c) => c.csr).length);
  }, 300_000);
});

describe('PMU co-simulation: the comparison catches a wrong RTL', () => {
  const MUTANTS: { name: string; file: string; from: string; to: string; report: RegExp }[] = [
    {
      name: 'an LCOFI request on every wrap, OF set or not',
      file: 'pmu_counter.sv',
      from: 'assign ovf_o = wrap && !of_q;',
      to: 'assign ovf_o = wrap;',
      report: /lcofi_o pulse \d+: model at cycle (\d+|\(none\)), RTL at cycle \d+/,
    },
    {
      name: 'the mcounteren check of the user counters skipped',
      file: 'pmu_csr.sv',
      from: 'end else if (d_ucnt && !acc_m && !mcounteren_q[d_idx]) begin',
      to: 'end else if (1\'b0) begin',
      report: /CSR 0xc[0-9a-f]{2} \((cycle|instret|hpmcounter\d+)\) read from [USV]/,
    },
  ];
  it.each(MUTANTS)('$name: reported with the cycle and what differs', async ({ file, from, to, report }) => {
    const name = 'pmu-qemu-virt';
    const s = setup(name);
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-pmu-mutant-'));
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
    const m = buildPmuModel(s.config, s.rtl, files);
    const { steps } = pmuCaseSteps(s, { component: name, sets: [], seed: 5, count: 20000, backpressure: 0 });
    const r = await cosimPmu(m, s.config, s.rtl, steps);
    expect(r.mismatch).toBeDefined();
    expect(r.mismatch!.text).toMatch(new RegExp(`^first difference at cycle ${r.mismatch!.cycle}: `));
    expect(r.mismatch!.text).toMatch(report);
  }, 300_000);
});
