/**
 * The CTR unit as a block (core/block.ts): the model's settings and configuration
 * (golden-model/ctr/), the RTL and its IP-XACT description (generator/ctr/), the co-simulation
 * adapter, stimulus and fuzz policy (tb/ctr/), and its own command `ctr-dump`.
 */
import type { Block } from '../../core/block.ts';
import type { Rng } from '../../golden-model/common/rng.ts';
import { maxCycleCount } from '../../golden-model/ctr/cycle-count.ts';
import type { PrivilegeSet, StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
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
/**
 * Long stalls are drawn only where CC saturates within this many cycles (a stall is up to twice
 * that). Each cycle of a case is a record and a step in memory, about 1 KB (a case with 1.4 M
 * cycles peaked at 1.35 GB), so configurations whose CC saturates later (3 or 4 CCE bits:
 * 524,224 or 134,201,344 cycles) get no long stalls.
 */
const LONG_STALL_MAX = 1 << 17;

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
  randomKnobs(rng, r) {
    const knobs: Partial<StimulusKnobs> = { interrupt_rate: rate(rng, 0.02), fault_rate: rate(rng, 0.01), halt_rate: rate(rng, 0.002), reset_rate: rate(rng, 0.001), idle_rate: rate(rng, 0.1) };
    const c = r.config.config;
    // A quarter of the cases run a program with fewer privilege modes than the hart has (main in
    // U with M handlers only, or everything in M): traps and ebreaks from M to M.
    const fewer: PrivilegeSet[] = c.sMode ? ['MU', 'M'] : c.uMode ? ['M'] : [];
    if (fewer.length > 0 && rng.float() < 0.25) knobs.privileges = fewer[rng.int(0, fewer.length - 1)]!;
    // A fifth of the cases have long stalls of half to twice the elapsed count CC encodes before it
    // saturates (where that is at most LONG_STALL_MAX), so CC's largest exponents and its
    // saturation occur.
    const ccMax = c.cycleCounting ? maxCycleCount(c.cceBits) : Infinity;
    if (ccMax <= LONG_STALL_MAX && rng.float() < 0.2) {
      // About one stall in 10,000 instructions.
      knobs.long_stall_rate = 0.0001;
      knobs.long_stall_cycles = Math.round(ccMax * 2 ** (rng.float() * 2 - 1));
    }
    return knobs;
  },

  synthesisCheckSets: (r) => (r.config.config.depthMax > 64 ? ['depthMax=64'] : []),

  commands: [ctrDumpCommand],
  coverage: ctrCoverage,
  vectors: ctrVectors,
  check: ctrCheck,
};
