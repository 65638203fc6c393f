/**
 * Configuration of the E-Trace encoder model: the parameters of Table 9.1 (named as the spec
 * names them; those the packet layer needs live in PacketParams) and the run-time options of
 * Tables 2.1-2.6, also under the spec's names.
 */
import { RvError } from '../common/errors.ts';
import { defaultPacketParams, type PacketParams, type PayloadLayout } from './packet/params.ts';
import { validatePacketParams } from './packet/fields.ts';
import { type DataOptions, type DataParams, defaultDataOptions, validateDataConfig } from './data/params.ts';
import { largestReservation } from './reservation.ts';

export interface EtraceParams extends PacketParams {
  /**
   * Data trace (data_trace_p = 1): its parameters; absent without data trace. Nested so that the
   * instruction-trace RTL, which knows nothing of data trace, sees the same parameters as before.
   */
  readonly dataTrace?: DataParams;
  /** 3: every uninferable jump is itype 6 (no implicit return possible); 4: full classification. */
  readonly itype_width_p: 3 | 4;
  readonly retires_p: number;
  readonly taken_branches_p: number;
  readonly ctype_width_p: number;
  readonly impdef_width_p: number;
  /** Number of filters and comparators of the filtering unit (chapter 5, tables 2.3-2.6). */
  readonly filters_p: number;
  readonly comparators_p: number;
  /** Output FIFO depth in bytes (encapsulated packets); back-pressure fills it. */
  readonly fifo_depth_p: number;
  /**
   * Register stages between the encoder's decisions and the output FIFO write, 0..4. 0: a packet
   * is accepted by its exact size in the cycle it is decided. 1-4: it is accepted by a reservation
   * (the largest packet of its kind, reservation.ts), so acceptance does not wait for its bytes, and
   * written with its exact size that many cycles later (docs/etrace-model.md, "Pipeline").
   */
  readonly pipeline_stages_p: number;
  /**
   * With blocks (retires_p > 1) or several signal groups a cycle (taken_branches_p > 1): 0, the
   * encoder takes the cycle's views together (its steps chained in one clock); 1, one view a clock
   * (a block of several instructions is two views, its first and last instruction), the hart held
   * (stall) while a cycle's further views wait (docs/etrace-model.md, "Serial views").
   */
  readonly serial_views_p: number;
  /** Architecture specification version (discovery only; 0 = initial version). */
  readonly arch_p: number;
  /** Bits of the exception cause matched by the filters' multiple choice. */
  readonly ecause_choice_p: number;
  /** Filtering capabilities: context, exception cause / interrupt (nesting 2^n), privilege, tval. */
  readonly filter_context_p: number;
  readonly filter_excint_p: number;
  readonly filter_privilege_p: number;
  readonly filter_tval_p: number;
  /** Widths of the iretire and ilastsize buses. */
  readonly iretire_width_p: number;
  readonly lastsize_width_p: number;
  /**
   * Where a resynchronisation by count goes (section 8.2). `flowchart`: Figure 8.1 per instruction
   * (F0/F1/F2 at the count when the branch map is not empty, F3 SF0 once it is exceeded); needs
   * single retirement. `block`: checked at block ends only, F3 SF0 at the next view, which a block
   * encoder can always place (docs/etrace-model.md, resynchronisation).
   */
  readonly resync_policy: ResyncPolicy;
}

export type ResyncPolicy = 'flowchart' | 'block';

/** Comparator control, table 2.6. */
export interface Comparator {
  /** 0 iaddr, 1 context, 2 tval, 3 daddr (data trace: only data filters see it; 0 for instructions). */
  pInput: number;
  sInput: number;
  /** 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=, 6/7 always. */
  pFunction: number;
  /** As pFunction; 6 uses sMatch as a mask for pMatch. */
  sFunction: number;
  /** 0 P, 1 P&&S, 2 !(P&&S), 3 latch: set on P, cleared after S. */
  matchMode: number;
  pMatch: bigint;
  sMatch: bigint;
  pNotify: boolean;
  sNotify: boolean;
}

/** Filter control and match values, tables 2.4-2.5. */
export interface Filter {
  filterEnable: boolean;
  matchComp1: boolean;
  comp1: number;
  matchComp2: boolean;
  comp2: number;
  matchComp3: boolean;
  comp3: number;
  matchPrivilege: boolean;
  matchChoicePrivilege: number;
  matchEcause: boolean;
  matchChoiceEcause: bigint;
  matchInterrupt: boolean;
  matchValueInterrupt: boolean;
  matchImpdef: boolean;
  matchValueImpdef: number;
  matchMaskImpdef: number;
}

/** Run-time options, tables 2.1-2.3. */
export interface EtraceOptions extends DataOptions {
  iEnable: boolean;
  /** trace-on / trace-off triggers may set / clear iEnable. */
  iTrigEnable: boolean;
  stallEnable: boolean;
  /** 0 off, 1 packets, 2 cycles, 3 half-words. */
  ResyncMode: number;
  /** Resync interval is 2^(ResyncMax + 4). */
  ResyncMax: number;
  FullAddress: boolean;
  ImplicitExcept: boolean;
  siJump: boolean;
  ImplicitReturn: boolean;
  BranchPrediction: boolean;
  JumpTargetCache: boolean;
  /** Bit N: filter N qualifies instruction trace; 0 = trace everything. */
  iFilters: number;
  filters: Filter[];
  comparators: Comparator[];
}

export interface EtraceConfig {
  params: EtraceParams;
  options: EtraceOptions;
}

export function defaultParams(layout: PayloadLayout = '1.1.1'): EtraceParams {
  return {
    ...defaultPacketParams(layout),
    itype_width_p: 4,
    retires_p: 1,
    taken_branches_p: 1,
    ctype_width_p: 2,
    impdef_width_p: 0,
    filters_p: 0,
    comparators_p: 0,
    fifo_depth_p: 64,
    pipeline_stages_p: 0,
    serial_views_p: 0,
    arch_p: 0,
    ecause_choice_p: 5,
    filter_context_p: 1,
    filter_excint_p: 1,
    filter_privilege_p: 1,
    filter_tval_p: 1,
    iretire_width_p: 3,
    lastsize_width_p: 1,
    resync_policy: 'flowchart',
  };
}

export function defaultOptions(): EtraceOptions {
  return {
    ...defaultDataOptions(),
    iEnable: true,
    iTrigEnable: false,
    stallEnable: false,
    ResyncMode: 1,
    ResyncMax: 4,
    FullAddress: false,
    ImplicitExcept: false,
    siJump: false,
    ImplicitReturn: false,
    BranchPrediction: false,
    JumpTargetCache: false,
    iFilters: 0,
    filters: [],
    comparators: [],
  };
}

export function emptyFilter(): Filter {
  return {
    filterEnable: false,
    matchComp1: false,
    comp1: 0,
    matchComp2: false,
    comp2: 0,
    matchComp3: false,
    comp3: 0,
    matchPrivilege: false,
    matchChoicePrivilege: 0,
    matchEcause: false,
    matchChoiceEcause: 0n,
    matchInterrupt: false,
    matchValueInterrupt: false,
    matchImpdef: false,
    matchValueImpdef: 0,
    matchMaskImpdef: 0,
  };
}

export function emptyComparator(): Comparator {
  return { pInput: 0, sInput: 0, pFunction: 7, sFunction: 7, matchMode: 0, pMatch: 0n, sMatch: 0n, pNotify: false, sNotify: false };
}

/**
 * Every problem of a configuration (empty = valid): parameter ranges of the spec, the 31-byte
 * packet limit, and options the parameters cannot support (an option whose hardware is absent is an
 * error rather than silently ignored, so a user never believes a mode is on when it is not).
 */
export function validateConfig(c: EtraceConfig): RvError[] {
  const p = c.params;
  const o = c.options;
  const errors = validatePacketParams(p);
  const bad = (path: string, message: string): void => {
    errors.push(new RvError('invalid-component', message, { path }));
  };
  if (p.itype_width_p !== 3 && p.itype_width_p !== 4) bad('parameters/itype_width_p', `itype_width_p must be 3 or 4, not ${p.itype_width_p}`);
  if (p.iaddress_lsb_p !== 1 && p.iaddress_lsb_p !== 2) bad('parameters/iaddress_lsb_p', `iaddress_lsb_p must be 1 or 2, not ${p.iaddress_lsb_p}`);
  if (p.ctype_width_p !== 1 && p.ctype_width_p !== 2) bad('parameters/ctype_width_p', `ctype_width_p must be 1 or 2, not ${p.ctype_width_p}`);
  if (!(p.retires_p >= 1 && p.retires_p <= 64)) bad('parameters/retires_p', `retires_p must be 1..64, not ${p.retires_p}`);
  if (!(p.taken_branches_p >= 1 && p.taken_branches_p <= 16)) bad('parameters/taken_branches_p', `taken_branches_p must be 1..16, not ${p.taken_branches_p}`);
  if (!(p.filters_p >= 0 && p.filters_p <= 16)) bad('parameters/filters_p', `filters_p must be 0..16, not ${p.filters_p}`);
  if (!(p.comparators_p >= 0 && p.comparators_p <= 8)) bad('parameters/comparators_p', `comparators_p must be 0..8, not ${p.comparators_p}`);
  if (!(p.fifo_depth_p >= 32 && p.fifo_depth_p <= 65536)) bad('parameters/fifo_depth_p', `fifo_depth_p must be 32..65536 bytes (a whole largest packet must fit), not ${p.fifo_depth_p}`);
  if (!(Number.isInteger(p.pipeline_stages_p) && p.pipeline_stages_p >= 0 && p.pipeline_stages_p <= 4)) bad('parameters/pipeline_stages_p', `pipeline_stages_p must be 0..4, not ${p.pipeline_stages_p}`);
  if (p.serial_views_p !== 0 && p.serial_views_p !== 1) bad('parameters/serial_views_p', `serial_views_p must be 0 or 1, not ${p.serial_views_p}`);
  else if (p.serial_views_p === 1 && p.taken_branches_p === 1 && p.retires_p === 1) {
    bad('parameters/serial_views_p', 'serial_views_p = 1 needs retires_p > 1 or taken_branches_p > 1 (with one instruction a cycle there is one view a cycle already)');
  }
  else if (p.serial_views_p === 1 && p.dataTrace) bad('parameters/serial_views_p', 'serial_views_p = 1 is not implemented with data trace (data_trace_p = 1)');
  if (p.call_counter_size_p > 0 && p.return_stack_size_p > 0) {
    bad('parameters/call_counter_size_p', 'implicit return uses a call counter or a return stack, not both (call_counter_size_p and return_stack_size_p are both non-zero)');
  }
  if (!(o.ResyncMode >= 0 && o.ResyncMode <= 3)) bad('options/ResyncMode', `ResyncMode must be 0..3, not ${o.ResyncMode}`);
  if (!(o.ResyncMax >= 0 && o.ResyncMax <= 15)) bad('options/ResyncMax', `ResyncMax must be 0..15, not ${o.ResyncMax}`);
  if (o.ImplicitReturn && p.call_counter_size_p === 0 && p.return_stack_size_p === 0) {
    bad('options/ImplicitReturn', 'ImplicitReturn needs call_counter_size_p or return_stack_size_p');
  }
  if (o.ImplicitReturn && p.itype_width_p === 3) bad('options/ImplicitReturn', 'ImplicitReturn needs itype_width_p = 4 (section 4.2)');
  if (o.BranchPrediction && p.bpred_size_p === 0) bad('options/BranchPrediction', 'BranchPrediction needs bpred_size_p > 0');
  if (o.JumpTargetCache && p.cache_size_p === 0) bad('options/JumpTargetCache', 'JumpTargetCache needs cache_size_p > 0');
  if (o.siJump && p.sijump_p === 0) bad('options/siJump', 'siJump needs sijump_p = 1');
  // iretire counts the half-words of up to retires_p instructions of up to 2 half-words each.
  if ((1 << p.iretire_width_p) - 1 < 2 * p.retires_p) {
    bad('parameters/iretire_width_p', `iretire_width_p = ${p.iretire_width_p} cannot count the ${2 * p.retires_p} half-words of retires_p = ${p.retires_p} instructions`);
  }
  if (p.resync_policy === 'flowchart' && p.retires_p > 1) {
    bad(
      'parameters/resync_policy',
      `resync_policy flowchart needs retires_p = 1, not ${p.retires_p}: with blocks the F3 SF0 may belong on a block's second instruction, whose address the hart interface does not give (use block)`,
    );
  }
  if (p.lastsize_width_p < 1) bad('parameters/lastsize_width_p', 'lastsize_width_p must be at least 1 (16- and 32-bit instructions)');
  // A filter may only use the inputs the hardware can filter on (Table 9.3).
  o.filters.forEach((f, n) => {
    const where = `options/filter${n}`;
    if (!f.filterEnable) return;
    if (f.matchPrivilege && !p.filter_privilege_p) bad(`${where}.matchPrivilege`, 'matchPrivilege needs filter_privilege_p = 1');
    if ((f.matchEcause || f.matchInterrupt) && !p.filter_excint_p) bad(`${where}.matchEcause`, 'matching on exception cause or interrupt needs filter_excint_p > 0');
    if (f.matchEcause && f.matchChoiceEcause >> BigInt(p.ecause_choice_p) !== 0n) {
      bad(`${where}.matchChoiceEcause`, `matchChoiceEcause selects causes beyond the ${p.ecause_choice_p} bits of ecause_choice_p`);
    }
    if (f.matchImpdef && p.impdef_width_p === 0) bad(`${where}.matchImpdef`, 'matchImpdef needs impdef_width_p > 0');
    for (const [on, comp] of [[f.matchComp1, f.comp1], [f.matchComp2, f.comp2], [f.matchComp3, f.comp3]] as const) {
      if (on && comp >= o.comparators.length) bad(`${where}.comp`, `comparator ${comp} is not configured (comparators_p = ${p.comparators_p})`);
    }
  });
  o.comparators.forEach((c, n) => {
    const where = `options/comparator${n}`;
    for (const input of [c.pInput, c.sInput]) {
      if (input === 1 && !p.filter_context_p) bad(`${where}.pInput`, 'comparing the context needs filter_context_p = 1');
      if (input === 2 && !p.filter_tval_p) bad(`${where}.pInput`, 'comparing tval needs filter_tval_p = 1');
      if (input === 3 && !p.dataTrace) bad(`${where}.pInput`, 'daddr (3) is a data trace input and needs data_trace_p = 1');
    }
  });
  // Table 4.9: dblock is required when the block signals are replicated; it must name every group.
  if (p.dataTrace && p.taken_branches_p > 1 && 1 << p.dataTrace.dblock_width_p < p.taken_branches_p) {
    bad(
      'parameters/dblock_width_p',
      `data trace with taken_branches_p = ${p.taken_branches_p} signal groups a cycle needs dblock_width_p >= ${Math.ceil(Math.log2(p.taken_branches_p))} (table 4.9: the group an access belongs to), not ${p.dataTrace.dblock_width_p}`,
    );
  }
  if (p.dataTrace) errors.push(...validateDataConfig({ ...p.dataTrace, iaddress_width_p: p.iaddress_width_p }, o, p.filters_p, o.filters));
  else if (o.dFilters !== 0) bad('options/dFilters', 'dFilters needs data_trace_p = 1');
  if (o.iFilters >>> p.filters_p !== 0) bad('options/iFilters', `iFilters selects filters beyond filters_p = ${p.filters_p}`);
  if (o.filters.length > p.filters_p) bad('options/filters', `${o.filters.length} filters configured, filters_p is ${p.filters_p}`);
  if (o.comparators.length > p.comparators_p) bad('options/comparators', `${o.comparators.length} comparators configured, comparators_p is ${p.comparators_p}`);
  // Pipelined, a packet is accepted only when its kind's largest size is free: a stall would never
  // end if that were more than the FIFO holds. Checked on otherwise valid parameters only.
  if (p.pipeline_stages_p >= 1 && errors.length === 0) {
    const largest = largestReservation(p);
    if (largest > p.fifo_depth_p) bad('parameters/fifo_depth_p', `fifo_depth_p = ${p.fifo_depth_p} is below the largest reservation of ${largest} bytes that pipeline_stages_p >= 1 needs`);
  }
  return errors;
}
