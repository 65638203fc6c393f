/**
 * The tandem-verification trace encoder as a block (core/block.ts): the model's settings plus the
 * RTL's (golden-model/tvtrace/settings.ts), the RTL and its IP-XACT description (generator/tvtrace/),
 * and the co-simulation adapter, record stimulus, fuzz policy and trace codec (tb/tvtrace/).
 */
import { tvtraceCoverage } from './coverage.ts';
import type { Block } from '../../core/block.ts';
import type { Rng } from '../../golden-model/common/rng.ts';
import { maxTvRecordBytes, TVTRACE_BLOCK_SETTINGS, tvtraceRtlConfig, type TvtraceRtlConfig, validateTvtraceRtlSettings } from '../../golden-model/tvtrace/settings.ts';
import { tvtraceExportComponent } from '../../generator/tvtrace/ipxact.ts';
import { TVTRACE_TOP_MODULE } from '../../generator/tvtrace/ports.ts';
import { renderTvtraceRtl, tvtraceLintWaivers } from '../../generator/tvtrace/rtl.ts';
import { runTvtraceCase, tvtraceCaseModel } from './case.ts';
import { tvtraceCodec } from './codec.ts';
import { tvtraceVectors } from './vectors.ts';
import { tvtraceCheck } from './check.ts';

const rate = (rng: Rng, max: number): number => Number((rng.float() * max).toFixed(5));

export const block: Block<TvtraceRtlConfig> = {
  name: 'tvtrace',
  title: 'tandem-verification trace encoder',
  settings: TVTRACE_BLOCK_SETTINGS,
  validate: validateTvtraceRtlSettings,
  config: tvtraceRtlConfig,

  topModule: TVTRACE_TOP_MODULE,
  lintWaivers: () => tvtraceLintWaivers(),
  // RTL code coverage waivers (points that cannot be covered by construction, each with a reason): none yet.
  codeCoverageWaivers: () => [],
  rtlTitle: 'the generated tandem-verification trace encoder',
  rtl: (r) => renderTvtraceRtl(r.config, r.settings, r.provenance),
  exportComponent: (r) => tvtraceExportComponent(r.config, r.settings, r.vlnv, r.description),

  backpressure: true,
  metrics: [
    { name: 'bytes', help: 'trace bytes compared' },
    { name: 'beats', help: 'beats of the output port' },
    { name: 'stalls', help: 'cycles a record waited for room in the FIFO' },
  ],
  prepare(r, log) {
    tvtraceCaseModel(r, log);
  },
  runCase: (r, spec, log) => runTvtraceCase(r, spec, log),
  async waveform(r, spec, file, from, to, log) {
    await runTvtraceCase(r, spec, log, { file, from, to });
  },

  randomSets(rng, r) {
    // The model's widths are the component's (its hart); the port width and the FIFO size are the
    // RTL's: another beat width half the time, and a FIFO from the longest record (a stall for
    // almost every long record) to four times it, half the time.
    const sets: string[] = [];
    if (rng.chance(0.5)) sets.push(`out_bytes=${rng.pick(['1', '2', '4', '8'])}`);
    if (rng.chance(0.5)) {
      const longest = maxTvRecordBytes(r.config);
      sets.push(`fifo_bytes=${longest + rng.int(0, 3 * longest)}`);
    }
    return sets;
  },
  randomKnobs(rng) {
    return {
      fault_rate: rate(rng, 0.1),
      interrupt_rate: rate(rng, 0.05),
      reset_rate: rate(rng, 0.01),
      halt_rate: rate(rng, 0.1),
      idle_rate: rate(rng, 0.5),
    };
  },

  codec: tvtraceCodec,
  coverage: tvtraceCoverage,
  vectors: tvtraceVectors,
  check: tvtraceCheck,
};
