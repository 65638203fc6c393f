/**
 * The PMU counter block as a block (core/block.ts): the model's settings and configuration
 * (golden-model/pmu/), the RTL and its IP-XACT description (generator/pmu/), the co-simulation
 * adapter, stimulus and fuzz policy (tb/pmu/), and its own commands `sbi-pmu` and `pmu-stat`.
 */
import { pmuCoverage } from './coverage.ts';
import type { Block } from '../../core/block.ts';
import type { Rng } from '../../golden-model/common/rng.ts';
import { PMU_TOP_MODULE } from '../../golden-model/pmu/ports.ts';
import { PMU_SETTINGS, pmuBlockConfig, type PmuBlockConfig, validatePmuSettings } from '../../golden-model/pmu/settings.ts';
import { pmuExportComponent } from '../../generator/pmu/ipxact.ts';
import { pmuLintWaivers, renderPmuRtl } from '../../generator/pmu/rtl.ts';
import { pmuCaseModel, runPmuCase } from './case.ts';
import { sbiPmuCommand } from './sbi-command.ts';
import { pmuStatCommand } from './stat-command.ts';
import { pmuVectors } from './vectors.ts';
import { pmuCheck } from './check.ts';

const rate = (rng: Rng, max: number): number => Number((rng.float() * max).toFixed(5));

export const block: Block<PmuBlockConfig> = {
  name: 'pmu',
  title: 'PMU counter block',
  settings: PMU_SETTINGS,
  validate: validatePmuSettings,
  config: pmuBlockConfig,

  topModule: PMU_TOP_MODULE,
  lintWaivers: () => pmuLintWaivers(),
  // RTL code coverage waivers (points that cannot be covered by construction, each with a reason): none yet.
  codeCoverageWaivers: () => [],
  rtlTitle: 'the generated PMU counter block',
  rtl: (r) => renderPmuRtl(r.config.config, r.config.rtl, r.settings, r.provenance),
  exportComponent: (r) => pmuExportComponent(r.config, r.settings, r.vlnv, r.description),

  // The block has no output stream: a matrix runs the first back-pressure value only.
  backpressure: false,
  metrics: [
    { name: 'responses', help: 'CSR responses compared (read data, illegal, virtual)' },
    { name: 'lcofi', help: 'counter-overflow interrupt requests compared' },
  ],
  prepare(r, log) {
    pmuCaseModel(r, log);
  },
  runCase: (r, spec, log) => runPmuCase(r, spec, log),
  async waveform(r, spec, file, from, to, log) {
    await runPmuCase(r, spec, log, { file, from, to });
  },

  randomSets(rng, r) {
    // Every PMU setting is a parameter of the hardware, so each variant is a build: draw from a pool
    // of four per component (as it is, 16-bit counters that wrap often, clamped and hard-wired
    // selectors) so that a fuzzing run reuses its builds.
    const c = r.config.config;
    const half = (1n << BigInt(Math.min(c.eventBits, 52) - 1)) - 1n;
    return rng.pick([[], ['counterWidth=16'], ['eventLegalisation=clamp', `eventMax=0x${half.toString(16)}`], ['eventLegalisation=hardwired']]);
  },
  randomKnobs(rng) {
    return { interrupt_rate: rate(rng, 0.02), fault_rate: rate(rng, 0.01), halt_rate: rate(rng, 0.002), reset_rate: rate(rng, 0.001), idle_rate: rate(rng, 0.2) };
  },

  commands: [sbiPmuCommand, pmuStatCommand],
  coverage: pmuCoverage,
  vectors: pmuVectors,
  check: pmuCheck,
};
