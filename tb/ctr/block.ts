/**
 * The CTR unit as a block (core/block.ts): the model's settings and configuration
 * (golden-model/ctr/), the RTL and its IP-XACT description (generator/ctr/), the co-simulation
 * adapter, stimulus and fuzz policy (tb/ctr/), and its own command `ctr-dump`.
 */
import type { Block } from '../../core/block.ts';
import type { Rng } from '../../golden-model/common/rng.ts';
import { CTR_TOP_MODULE } from '../../golden-model/ctr/ports.ts';
import { CTR_SETTINGS, ctrBlockConfig, type CtrBlockConfig, validateCtrSettings } from '../../golden-model/ctr/settings.ts';
import { ctrExportComponent } from '../../generator/ctr/ipxact.ts';
import { ctrLintWaivers, renderCtrRtl } from '../../generator/ctr/rtl.ts';
import { ctrCaseModel, runCtrCase } from './case.ts';
import { ctrCoverage } from './coverage.ts';
import { ctrDumpCommand } from './dump-command.ts';
import { ctrVectors } from './vectors.ts';
import { ctrCheck } from './check.ts';

const rate = (rng: Rng, max: number): number => Number((rng.float() * max).toFixed(5));

export const block: Block<CtrBlockConfig> = {
  name: 'ctr',
  title: 'CTR unit',
  settings: CTR_SETTINGS,
  validate: validateCtrSettings,
  config: ctrBlockConfig,

  topModule: CTR_TOP_MODULE,
  lintWaivers: () => ctrLintWaivers(),
  // RTL code coverage waivers (points that cannot be covered by construction, each with a reason): none yet.
  codeCoverageWaivers: () => [],
  rtlTitle: 'the generated CTR unit',
  rtl: (r) => renderCtrRtl(r.config.config, r.config.rtl, r.settings, r.provenance),
  exportComponent: (r) => ctrExportComponent(r.config, r.settings, r.vlnv, r.description),

  // The unit has no output stream: a matrix runs the first back-pressure value only.
  backpressure: false,
  metrics: [{ name: 'responses', help: 'CSR responses compared (read data, illegal, virtual)' }],
  prepare(r, log) {
    ctrCaseModel(r, log);
  },
  runCase: (r, spec, log) => runCtrCase(r, spec, log),
  async waveform(r, spec, file, from, to, log) {
    await runCtrCase(r, spec, log, { file, from, to });
  },

  randomSets() {
    // Every CTR setting is a parameter of the hardware: the configurations are the components.
    return [];
  },
  randomKnobs(rng) {
    return { interrupt_rate: rate(rng, 0.02), fault_rate: rate(rng, 0.01), halt_rate: rate(rng, 0.002), reset_rate: rate(rng, 0.001), idle_rate: rate(rng, 0.1) };
  },

  synthesisCheckSets: (r) => (r.config.config.depthMax > 64 ? ['depthMax=64'] : []),

  commands: [ctrDumpCommand],
  coverage: ctrCoverage,
  vectors: ctrVectors,
  check: ctrCheck,
};
