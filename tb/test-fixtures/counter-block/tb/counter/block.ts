/** The counter block: settings, RTL, IP-XACT description and co-simulation adapter. */
import type { Block, CaseSpec, Log, ResolvedComponent } from '../../core/block.ts';
import { Rng } from '../../golden-model/common/rng.ts';
import { COUNTER_SETTINGS, counterConfig, type CounterConfig, CounterModel } from '../../golden-model/counter/model.ts';
import { renderCounterRtl } from '../../generator/counter/rtl.ts';
import { exportParameter } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import { buildModel } from '../build.ts';
import { caseModel } from '../case.ts';
import type { HarnessSpec } from '../harness-spec.ts';
import { FrameWriter, runModel } from '../run.ts';

const spec = (c: CounterConfig): HarnessSpec => ({
  top: 'counter_top',
  ports: [
    { name: 'clk_i', direction: 'in', width: 1 },
    { name: 'rst_ni', direction: 'in', width: 1 },
    { name: 'en_i', direction: 'in', width: 1 },
    { name: 'clear_i', direction: 'in', width: 1 },
    { name: 'count_o', direction: 'out', width: c.width },
  ],
  clock: 'clk_i',
  reset: 'rst_ni',
  captures: [{ name: 'count', when: [{ port: 'en_i', value: 1 }], data: ['count_o'] }],
});

async function run(r: ResolvedComponent<CounterConfig>, s: CaseSpec, log?: Log, fst?: { file: string; from: number; to: number }) {
  const { model } = caseModel(r, (paths, waves) => buildModel({ spec: spec(r.config), rtlFiles: paths, fst: waves }, log), fst !== undefined);
  const rng = new Rng(s.seed);
  const inputs = Array.from({ length: s.count }, () => ({ en: rng.float() < 0.7, clear: rng.float() < 0.01 }));
  const golden = new CounterModel(r.config);
  const expected = inputs.flatMap((x) => { const v = golden.step(x.en, x.clear); return x.en ? [v] : []; });
  const started = performance.now();
  const result = await runModel(model, spec(r.config), (emit) => {
    const w = new FrameWriter(spec(r.config));
    for (const x of inputs) {
      w.set('en_i', x.en ? 1 : 0);
      w.set('clear_i', x.clear ? 1 : 0);
      emit(w);
    }
  }, fst ? { fst } : {});
  const actual = result.captures[0]!.map((c) => Number(c.values[0]));
  const at = expected.findIndex((v, i) => actual[i] !== v);
  const differs = at >= 0 || actual.length !== expected.length;
  const seconds = (performance.now() - started) / 1000;
  return {
    spec: s,
    records: s.count,
    cycles: result.cycles,
    seconds,
    identical: !differs,
    metrics: { counts: expected.length },
    summary: `${expected.length} counts compared, ${result.cycles} cycles`,
    ...(differs ? { mismatch: `count ${at}: RTL ${actual[at]}, model ${expected[at]}`, mismatchCycle: result.captures[0]![Math.max(0, at)]?.cycle ?? 0 } : {}),
  };
}

export const block: Block<CounterConfig> = {
  name: 'counter',
  title: 'counter',
  settings: COUNTER_SETTINGS,
  validate: () => [],
  config: counterConfig,
  topModule: 'counter_top',
  lintWaivers: () => [],
  rtlTitle: 'the generated counter',
  rtl: (r) => renderCounterRtl(r.config, r.provenance),
  exportComponent: (r) => ({
    vlnv: r.vlnv,
    description: r.description,
    parameters: COUNTER_SETTINGS.map((s) => exportParameter(s, r.settings[s.name]!)),
    busInterfaces: [],
    memoryMaps: [],
    instantiation: { name: 'rtl', language: 'systemverilog', moduleName: 'counter_top', moduleParameters: [], fileSetRef: 'rtl' },
    ports: [
      { name: 'clk_i', direction: 'in' },
      { name: 'rst_ni', direction: 'in' },
      { name: 'en_i', direction: 'in' },
      { name: 'clear_i', direction: 'in' },
      { name: 'count_o', direction: 'out', left: 'width_p - 1', right: '0' },
    ],
    fileSets: [{ name: 'rtl', files: [{ name: 'counter_top.sv', fileType: 'systemVerilogSource' }] }],
    vendorExtensions: [{ name: `${RVTRACE_PREFIX}:block`, children: ['counter'] }],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  }),
  backpressure: false,
  metrics: [{ name: 'counts', help: 'counts compared' }],
  prepare(r, log) {
    caseModel(r, (paths, waves) => buildModel({ spec: spec(r.config), rtlFiles: paths, fst: waves }, log));
  },
  runCase: (r, s, log) => run(r, s, log),
  async waveform(r, s, file, from, to, log) {
    await run(r, s, log, { file, from, to });
  },
  randomSets: (rng) => [`step_p=${rng.int(1, 9)}`],
  randomKnobs: () => ({}),
};
