/**
 * The E-Trace encoder as a block (core/block.ts): the model's settings and configuration
 * (golden-model/etrace/), the RTL and its IP-XACT description (generator/etrace/), and the
 * co-simulation adapter, stimulus and fuzz policy (tb/etrace/).
 */
import type { Block, ResolvedComponent } from '../../core/block.ts';
import type { Rng } from '../../golden-model/common/rng.ts';
import type { Placement, StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import type { Settings } from '../../golden-model/common/settings.ts';
import { defaultDataOptions } from '../../golden-model/etrace/data/params.ts';
import { randomTraceKnobs } from '../trace-knobs.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_TOP_MODULE } from '../../golden-model/etrace/ports.ts';
import { ETRACE_OPTIONS, ETRACE_SETTINGS, etraceConfig, validateEtraceSettings } from '../../golden-model/etrace/settings.ts';
import { etraceExportComponent } from '../../generator/etrace/ipxact.ts';
import { etraceLintWaivers, renderEtraceRtl } from '../../generator/etrace/rtl.ts';
import { caseSource, etraceCaseModel, runEtraceCase } from './case.ts';
import { etraceCodec } from './codec.ts';
import { cosimEtrace } from './cosim.ts';
import { etraceCoverage } from './coverage.ts';
import { etraceVectors } from './vectors.ts';
import { etraceCheck } from './check.ts';

/**
 * The run-time options: those of tables 2.1-2.6 (filters and comparators included) and of data
 * trace. The co-simulation programs them through the APB registers (golden-model/etrace/option-writes.ts).
 */
const RUN_TIME_OPTIONS: ReadonlySet<string> = new Set([...ETRACE_OPTIONS.map((s) => s.name), ...Object.keys(defaultDataOptions())]);

/**
 * The options a hardware configuration's build resets to: every option at its default (off), but
 * iEnable and dEnable 0, so that trTeActive/trTeEnable reset to 0 and no session starts before the
 * case's options are written, and DataCompress 0 (full values), which every data hardware offers.
 */
const BUILD_OPTIONS: Settings = {
  ...Object.fromEntries(ETRACE_OPTIONS.map((s) => [s.name, s.default])),
  ...defaultDataOptions(),
  iEnable: false,
  dEnable: false,
  DataCompress: 0,
};

/**
 * Random run-time options for one case on the hardware of `r`: resync, full address, implicit
 * exception, triggers, stall, the predictors on or off, a filter where the hardware has them, and
 * the data trace options (noData and noAddress never together; a DataCompress the hardware offers;
 * the triggers' hold on dEnable).
 */
function randomOptionSets(rng: Rng, r: ResolvedComponent<EtraceConfig>): string[] {
  const below = (n: number): number => rng.int(0, n - 1);
  const pick = <T>(xs: readonly T[]): T => xs[below(xs.length)]!;
  const sets: string[] = [];
  // Short resync intervals (16 to 64 units) now and then longer ones (256, 1024: the reset value
  // is 256), which let 31 correctly predicted branches build up between two resyncs.
  sets.push(`ResyncMode=${below(4)}`, `ResyncMax=${pick([0, 1, 2, 4, 6])}`);
  if (below(4) === 0) sets.push('FullAddress=1');
  if (below(4) === 0) sets.push('ImplicitExcept=1');
  if (below(4) === 0) {
    // With triggers, now and then a session that starts with instruction tracing off.
    sets.push('iTrigEnable=1');
    if (below(3) === 0) sets.push('iEnable=0');
  }
  if (below(5) === 0) sets.push('stallEnable=1');
  const p = r.config.params;
  if (p.bpred_size_p > 0 && below(2) === 0) sets.push('BranchPrediction=0');
  if (p.cache_size_p > 0 && below(2) === 0) sets.push('JumpTargetCache=0');
  if (p.return_stack_size_p + p.call_counter_size_p > 0 && below(2) === 0) sets.push('ImplicitReturn=0');
  if (p.sijump_p > 0 && below(2) === 0) sets.push('siJump=0');
  const iFilter = p.filters_p > 0 && below(2) === 0 ? randomFilter(rng, p) : [];
  sets.push(...iFilter);
  const d = p.dataTrace;
  if (d && p.filters_p > 0 && below(2) === 0) {
    // A filter of data trace (dFilters), another than the instruction trace's.
    const free = Array.from({ length: p.filters_p }, (_, i) => i).filter((i) => !iFilter.includes(`filter${i}.filterEnable=1`));
    if (free.length > 0) sets.push(...randomDataFilter(rng, p, pick(free)));
  }
  if (d) {
    const omit = below(4);
    if (omit === 1) sets.push('noData=1');
    if (omit === 2) sets.push('noAddress=1');
    sets.push(`DataCompress=${pick([0, 1, 2, 3].filter((x) => (x & ~d.data_compress_p) === 0))}`);
    if (below(4) === 0) sets.push('dTrigEnable=1');
  }
  return sets;
}

/**
 * The stimulus knobs of an E-Trace fuzzing case: those of every instruction-trace encoder
 * (tb/trace-knobs.ts), and, each in about a quarter of the cases, code placed at address 0 or in
 * the upper half of an RV64 address space (so every address-compression length of the F0/F1/F2
 * address occurs, full and differential), runs of 256-264 calls to a branch-free leaf (so the
 * Implicit Return extension's irets reaches its largest value, 255) and runs of never-taken
 * branches (so 31 correct predictions come before jumps, traps and returns: F0 SF0 with an
 * address for each reason; in loops, more than 1,024 in a row), and calls whose return goes past
 * an inline argument word (`w_skip_return`: a return the return stack mispredicts, after such a
 * run and again in a loop, so its target is reported by F0 SF0 and, from the jump target cache,
 * F0 SF1); and a fifth of the cases quiet.
 */
export function randomEtraceKnobs(rng: Rng, r: ResolvedComponent<EtraceConfig>): Partial<StimulusKnobs> {
  const knobs = randomTraceKnobs(rng);
  const rv64 = r.config.params.iaddress_width_p > 32;
  const placements: Placement[] = rv64 ? ['low', 'sv39', 'sv48', 'sv57'] : ['low'];
  if (rng.float() < 0.25) knobs.placement = placements[rng.int(0, placements.length - 1)]!;
  if (rng.float() < 0.25) knobs.w_call_run = rng.int(1, 3);
  if (rng.float() < 0.25) knobs.w_checks = rng.int(1, 4);
  // A fifth of the cases are quiet (interrupts and faults 100 times rarer): long stretches with no
  // trap, such as more than 1,024 correct predictions in a row.
  if (rng.float() < 0.2) {
    knobs.interrupt_rate = Number((knobs.interrupt_rate! / 100).toPrecision(4));
    knobs.fault_rate = Number((knobs.fault_rate! / 100).toPrecision(4));
  }
  if (rng.float() < 0.25) knobs.w_skip_return = rng.int(1, 3);
  return knobs;
}

/**
 * One random filter that qualifies instruction trace (tables 2.4-2.6), within what the hardware can
 * filter on: the privilege, a comparator on iaddr around the start of the program (any function and
 * match mode, a notify now and then), an interrupt or exception window.
 */
function randomFilter(rng: Rng, p: EtraceConfig['params']): string[] {
  const below = (n: number): number => rng.int(0, n - 1);
  const address = (): string => `0x${(0x8000_0000 + 4 * below(0x400)).toString(16)}`;
  const n = below(p.filters_p);
  const f = `filter${n}`;
  const sets = [`iFilters=${1 << n}`, `${f}.filterEnable=1`];
  if (p.filter_privilege_p && below(2) === 0) sets.push(`${f}.matchPrivilege=1`, `${f}.matchChoicePrivilege=${1 + below(15)}`);
  if (p.comparators_p > 0 && below(2) === 0) {
    const j = `comparator${below(p.comparators_p)}`;
    sets.push(`${f}.matchComp1=1`, `${f}.comp1=${j.slice('comparator'.length)}`);
    sets.push(`${j}.pInput=0`, `${j}.pFunction=${below(6)}`, `${j}.pMatch=${address()}`, `${j}.matchMode=${below(4)}`);
    sets.push(`${j}.sInput=0`, `${j}.sFunction=${below(6)}`, `${j}.sMatch=${address()}`);
    if (below(3) === 0) sets.push(`${j}.pNotify=1`);
  }
  if (p.filter_excint_p && below(3) === 0) sets.push(`${f}.matchInterrupt=1`, `${f}.matchValueInterrupt=${below(2)}`);
  return sets;
}

/**
 * Filter `n` qualifying data trace (dFilters, tables 2.4-2.6): half the time a privilege match
 * where the hardware filters on privilege, else no condition (every access passes).
 */
function randomDataFilter(rng: Rng, p: EtraceConfig['params'], n: number): string[] {
  const below = (k: number): number => rng.int(0, k - 1);
  const f = `filter${n}`;
  const sets = [`dFilters=${1 << n}`, `${f}.filterEnable=1`];
  if (p.filter_privilege_p && below(2) === 0) sets.push(`${f}.matchPrivilege=1`, `${f}.matchChoicePrivilege=${1 + below(15)}`);
  return sets;
}

export const block: Block<EtraceConfig> = {
  name: 'etrace',
  title: 'E-Trace encoder',
  settings: ETRACE_SETTINGS,
  validate: validateEtraceSettings,
  config: etraceConfig,

  topModule: ETRACE_TOP_MODULE,
  lintWaivers: () => etraceLintWaivers(),
  // RTL code coverage waivers (points that cannot be covered by construction, each with a reason): none yet.
  codeCoverageWaivers: () => [],
  rtlTitle: 'the generated E-Trace encoder',
  rtl: (r) => renderEtraceRtl(r.config, r.provenance),
  exportComponent: (r) => etraceExportComponent(r.config, r.settings, r.vlnv, r.description),

  backpressure: true,
  metrics: [
    { name: 'bytes', help: 'trace bytes compared' },
    { name: 'packets', help: 'te_inst, support and te_data packets' },
    { name: 'lost', help: 'packets lost to back-pressure' },
  ],
  prepare(r, log) {
    etraceCaseModel(r, log);
  },
  runCase: runEtraceCase,
  async waveform(r, spec, file, from, to, log) {
    const { model } = etraceCaseModel(r, log, true);
    const { source, data } = caseSource(r.config, spec);
    await cosimEtrace(model, r.config, source, { seed: spec.seed, backpressure: spec.backpressure, fst: { file, from, to }, ...(data ? { data } : {}) });
  },

  // Hardware settings only (each configuration is a build); the run-time options: runTime below.
  randomSets(rng, r) {
    const below = (n: number): number => rng.int(0, n - 1);
    const pick = <T>(xs: readonly T[]): T => xs[below(xs.length)]!;
    const sets: string[] = [];
    if (below(3) === 0) sets.push(`fifo_depth_p=${pick([32, 48, 128])}`);
    // Register stages of the byte path (acceptance by reservation): every latency the RTL offers.
    if (below(2) === 0) sets.push(`pipeline_stages_p=${1 + below(4)}`);
    if (below(6) === 0) sets.push(`encap_srcid_width=${pick([3, 8, 12])}`);
    // Filter and comparator units, so that the cases can program filters (randomFilter).
    if (r.config.params.filters_p === 0 && below(4) === 0) sets.push('filters_p=2', 'comparators_p=2');
    const d = r.config.params.dataTrace;
    // Multiple retirement: blocks of up to 2-4 instructions (iretire counts up to 2 * retires_p
    // half-words), and up to 3 blocks a cycle. With data trace the access names its block (dblock,
    // table 4.9) and the block address is completed by iaddr_lsbs; the RTL offers its packet
    // between two blocks' packets by its reservation (pipeline stages).
    if (below(3) === 0) {
      const retires = 2 + below(3);
      sets.push(`retires_p=${retires}`, `iretire_width_p=${retires === 4 ? 4 : 3}`);
      if (d) sets.push('iaddr_lsbs_width_p=4');
      if (below(2) === 0) {
        const groups = 2 + below(2);
        sets.push(`taken_branches_p=${groups}`);
        if (d) sets.push(`dblock_width_p=${groups === 2 ? 1 : 2}`);
        if (d && r.config.params.pipeline_stages_p === 0 && !sets.some((x) => x.startsWith('pipeline_stages_p='))) sets.push('pipeline_stages_p=1');
      }
      // The views one a clock, the hart held for the later ones (not offered with data trace).
      if (!d && below(2) === 0) sets.push('serial_views_p=1');
    } else if (below(4) === 0) {
      // Single retirement takes the flowchart's resync placement by default; the block one too.
      sets.push('resync_policy=block');
    }
    return sets;
  },
  randomKnobs: randomEtraceKnobs,
  runTime: {
    names: RUN_TIME_OPTIONS,
    reset: BUILD_OPTIONS,
    randomSets: randomOptionSets,
  },

  codec: etraceCodec,
  coverage: etraceCoverage,
  vectors: etraceVectors,
  check: etraceCheck,
};
