/**
 * The N-Trace encoder as a block (core/block.ts): the model's settings and configuration
 * (golden-model/ntrace/), the RTL and its IP-XACT description (generator/ntrace/), and the
 * co-simulation adapter, stimulus and fuzz policy (tb/ntrace/).
 */
import { ntraceCoverage } from './coverage.ts';
import type { Block } from '../../core/block.ts';
import { randomTraceKnobs } from '../trace-knobs.ts';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { NTRACE_TOP_MODULE } from '../../golden-model/ntrace/ports.ts';
import { registerMapErrors } from '../../golden-model/ntrace/registers.ts';
import { minNtraceFifoBytes, NTRACE_SETTINGS, ntraceConfig, type NtraceConfig, validateNtraceSettings } from '../../golden-model/ntrace/settings.ts';
import { ntraceExportComponent } from '../../generator/ntrace/ipxact.ts';
import { ntraceLintWaivers, renderNtraceRtl } from '../../generator/ntrace/rtl.ts';
import { ntraceCaseModel, runNtraceCase } from './case.ts';
import { ntraceCodec } from './codec.ts';
import { ntraceVectors } from './vectors.ts';
import { ntraceCheck } from './check.ts';

export const block: Block<NtraceConfig> = {
  name: 'ntrace',
  title: 'N-Trace encoder',
  settings: NTRACE_SETTINGS,
  // The settings' own rules, then what the register map cannot describe (registers.ts).
  validate: (s) => {
    const errors = validateNtraceSettings(s);
    return errors.length > 0 ? errors : registerMapErrors(ntraceConfig(s));
  },
  config: ntraceConfig,

  topModule: NTRACE_TOP_MODULE,
  lintWaivers: () => ntraceLintWaivers(),
  // RTL code coverage waivers (points that cannot be covered by construction, each with a reason): none yet.
  codeCoverageWaivers: () => [],
  rtlTitle: 'the generated N-Trace encoder',
  rtl: (r) => renderNtraceRtl(r.config, r.settings, r.provenance),
  exportComponent: (r) => ntraceExportComponent(r.config, r.settings, r.vlnv, r.description),

  backpressure: true,
  metrics: [
    { name: 'bytes', help: 'MSEO bytes compared' },
    { name: 'messages', help: 'messages the model sent' },
    { name: 'lost', help: 'messages lost to back-pressure' },
    { name: 'stalls', help: 'cycles the hart was stalled' },
  ],
  prepare(r, log) {
    ntraceCaseModel(r, log);
  },
  runCase: (r, spec, log) => runNtraceCase(r, spec, log),
  async waveform(r, spec, file, from, to, log) {
    await runNtraceCase(r, spec, log, { file, from, to });
  },

  randomSets(rng, r) {
    // Every N-Trace setting is a parameter of the hardware, so each draw is a build: the mode and
    // the options (implicit return, repeats, Ownership messages, ...) are flipped or kept, and half the time the FIFO is made as small as the
    // configuration allows (loss and recovery, or stalls, under back-pressure).
    const c = r.config;
    const below = (n: number): number => rng.int(0, n - 1);
    const sets: string[] = [];
    const mode = below(3) === 0 ? (c.mode === 'htm' ? 'btm' : 'htm') : c.mode;
    if (mode !== c.mode) sets.push(`ntrace_mode=${mode}`, ...(mode === 'btm' ? ['repeat_history=0'] : []));
    if (mode === 'htm' && below(3) === 0) sets.push(`hist_full=${c.histFull === 'spec' ? 'deferred' : 'spec'}`);
    if (mode === 'htm' && below(4) === 0) sets.push(`empty_hist_indirect=${c.emptyHistIndirect === 'hist' ? 'plain' : 'hist'}`);
    if (below(3) === 0) sets.push(`implicit_return=${rng.pick(['none', 'counter', 'stack'])}`, `call_stack_size=${1 + below(8)}`);
    if (below(4) === 0) sets.push(`repeat_branch=${c.repeatBranch ? 0 : 1}`);
    if (mode === 'htm' && below(4) === 0) sets.push(`repeat_history=${c.repeatHistory ? 0 : 1}`);
    if (below(4) === 0) sets.push(`ownership=${c.ownership ? 0 : 1}`);
    if (below(3) === 0) sets.push(`icnt_width=${1 + below(22)}`);
    if (below(3) === 0) sets.push(`sync_period=${below(64)}`);
    if (below(4) === 0) sets.push(`address_msb_drop=${c.addressMsbDrop ? 0 : 1}`);
    if (below(5) === 0) sets.push(`stall_enable=${c.stallEnable ? 0 : 1}`);
    const drawn = ntraceConfig(resolveSettings('fuzz', NTRACE_SETTINGS, sets, r.settings));
    const largest = minNtraceFifoBytes(drawn);
    if (below(2) === 0) sets.push(`fifo_bytes=${largest + below(16)}`);
    else if (drawn.fifoBytes < largest) sets.push(`fifo_bytes=${largest}`);
    return sets;
  },
  randomKnobs: randomTraceKnobs,

  codec: ntraceCodec,
  coverage: ntraceCoverage,
  vectors: ntraceVectors,
  check: ntraceCheck,
};
