/**
 * The E-Trace block's settings: every parameter (Table 9.1 names) and run-time option (Tables
 * 2.1-2.6 names) a component or `--set` may give, with its kind and default, and the typed
 * configuration built from them. This is the block-specific knowledge the generic component
 * reader and the CLI rely on.
 */
import type { RvError } from '../common/errors.ts';
import type { SettingSpec, Settings } from '../common/settings.ts';
import { type Comparator, defaultOptions, defaultParams, emptyComparator, emptyFilter, type EtraceConfig, type Filter, validateConfig } from './config.ts';
import { registerMapErrors } from './registers.ts';
import { defaultDataOptions, defaultDataParams } from './data/params.ts';

const MAX_FILTERS = 16;
const MAX_COMPARATORS = 8;

function int(name: string, def: number, min: number, max: number, help: string): SettingSpec {
  return { name, kind: 'int', default: def, min, max, help };
}
function bool(name: string, def: boolean, help: string): SettingSpec {
  return { name, kind: 'bool', default: def, help };
}

const P = defaultParams('1.1.1');
const O = defaultOptions();

/** Parameters (Table 9.1 and the implementation's own, documented in docs/etrace-model.md). */
export const ETRACE_PARAMETERS: readonly SettingSpec[] = [
  { name: 'payload_layout', kind: 'choice', choices: ['1.1.1', '2.0'], default: '1.1.1', help: 'te_inst payload layout: the seed draft or the ratified 2.0' },
  int('iaddress_width_p', P.iaddress_width_p, 2, 64, 'width of the instruction address bus (DXLEN)'),
  int('iaddress_lsb_p', P.iaddress_lsb_p, 1, 2, 'LSB of the traced address: 1 with compressed instructions, 2 without'),
  { name: 'itype_width_p', kind: 'choice', choices: ['3', '4'], default: String(P.itype_width_p), help: 'width of itype (4 classifies calls and returns)' },
  int('ecause_width_p', P.ecause_width_p, 1, 64, 'width of the exception cause'),
  // The seed's table 9.2 reads as 3; 2 bits carry U, S and M, and it is the ratified default.
  int('privilege_width_p', 2, 1, 8, 'width of the privilege level'),
  int('context_width_p', P.context_width_p, 1, 64, 'width of the context bus'),
  int('nocontext_p', P.nocontext_p, 0, 1, 'exclude context from te_inst packets'),
  int('time_width_p', P.time_width_p, 1, 64, 'width of the time bus (2.0 layout)'),
  int('notime_p', P.notime_p, 0, 1, 'exclude time from te_inst packets (2.0 layout)'),
  int('call_counter_size_p', P.call_counter_size_p, 0, 31, 'implicit return call counter bits (0: none)'),
  int('return_stack_size_p', P.return_stack_size_p, 0, 16, 'implicit return stack of 2^n entries (0: none)'),
  int('iret_ext_p', P.iret_ext_p, 0, 1, 'implicit return semantics: 1 Implicit Return extension v0.8 (irets), 0 ratified irdepth (not decodable in general)'),
  int('bpred_size_p', P.bpred_size_p, 0, 16, 'branch predictor of 2^n entries (0: none)'),
  int('cache_size_p', P.cache_size_p, 0, 16, 'jump target cache of 2^n entries (0: none)'),
  int('f0s_width_p', P.f0s_width_p, 0, 8, 'width of the format 0 subformat field'),
  int('sijump_p', P.sijump_p, 0, 1, 'the hart signals sequentially inferable jumps'),
  int('retires_p', P.retires_p, 1, 64, 'instructions retired per cycle at most'),
  int('taken_branches_p', P.taken_branches_p, 1, 16, 'signal groups (blocks) per cycle'),
  {
    name: 'resync_policy',
    kind: 'choice',
    choices: ['auto', 'flowchart', 'block'],
    default: 'auto',
    help: 'resync placement: Figure 8.1 per instruction (flowchart, single retirement only), at block ends (block); auto = flowchart when retires_p = 1',
  },
  int('ctype_width_p', P.ctype_width_p, 1, 2, 'width of ctype'),
  int('impdef_width_p', P.impdef_width_p, 0, 32, 'width of the impdef side-band bus'),
  int('filters_p', P.filters_p, 0, MAX_FILTERS, 'number of filters'),
  int('comparators_p', P.comparators_p, 0, MAX_COMPARATORS, 'number of comparators'),
  int('fifo_depth_p', P.fifo_depth_p, 32, 65536, 'output FIFO depth in bytes'),
  int(
    'pipeline_stages_p',
    P.pipeline_stages_p,
    0,
    4,
    "register stages between the encoder's decisions and the output FIFO write: 0 accepts packets by their exact size in the cycle they are decided; 1-4 accept by reservation (the largest packet of the kind) and write them that many cycles later",
  ),
  int(
    'serial_views_p',
    P.serial_views_p,
    0,
    1,
    'with retires_p > 1 or taken_branches_p > 1: 0 encodes the cycle\'s views together (their steps chained in one clock); 1 encodes one view a clock (a block of several instructions is two: its first and last instruction) and holds the hart (stall_o) while the cycle\'s further views wait',
  ),
  int('arch_p', P.arch_p, 0, 255, 'architecture specification version (discovery)'),
  int('ecause_choice_p', P.ecause_choice_p, 0, 6, 'exception cause bits matched by filter multiple choice'),
  int('filter_context_p', P.filter_context_p, 0, 1, 'filtering on context supported'),
  int('filter_excint_p', P.filter_excint_p, 0, 8, 'filtering on exception cause / interrupt supported (nesting 2^n)'),
  int('filter_privilege_p', P.filter_privilege_p, 0, 1, 'filtering on privilege supported'),
  int('filter_tval_p', P.filter_tval_p, 0, 1, 'filtering on tval supported'),
  int('iretire_width_p', P.iretire_width_p, 1, 8, 'width of the iretire bus'),
  int('lastsize_width_p', P.lastsize_width_p, 1, 2, 'width of the ilastsize bus'),
  int('encap_srcid_width', P.encap_srcid_width, 0, 16, 'encapsulation source id bits'),
  int('encap_timestamp_width', P.encap_timestamp_width, 0, 64, 'encapsulation timestamp bits (whole bytes)'),
];

/** Run-time options (tables 2.1-2.3), and the filter and comparator fields (tables 2.4-2.6). */
export const ETRACE_OPTIONS: readonly SettingSpec[] = [
  bool('iEnable', O.iEnable, 'instruction trace enable'),
  bool('iTrigEnable', O.iTrigEnable, 'trace-on/off triggers set and clear iEnable'),
  bool('stallEnable', O.stallEnable, 'stall the hart instead of losing trace'),
  int('ResyncMode', O.ResyncMode, 0, 3, 'resync counts 0 off, 1 packets, 2 cycles, 3 half-words'),
  int('ResyncMax', O.ResyncMax, 0, 15, 'resync interval 2^(ResyncMax+4)'),
  bool('FullAddress', O.FullAddress, 'send full addresses only'),
  bool('ImplicitExcept', O.ImplicitExcept, 'omit the trap handler address'),
  bool('siJump', O.siJump, 'treat sequentially inferable jumps as inferable'),
  bool('ImplicitReturn', O.ImplicitReturn, 'do not report predicted returns'),
  bool('BranchPrediction', O.BranchPrediction, 'branch predictor enabled'),
  bool('JumpTargetCache', O.JumpTargetCache, 'jump target cache enabled'),
  int('iFilters', O.iFilters, 0, 0xffff, 'filters that qualify instruction trace (bit mask, 0: all)'),

  ...filterSpecs(),
  ...comparatorSpecs(),
];

const D = defaultDataParams();
const DO = defaultDataOptions();

/**
 * Data trace parameters and options (docs/etrace-data.md). Kept apart from ETRACE_PARAMETERS and
 * ETRACE_OPTIONS, which the generated RTL and its IP-XACT export list: the RTL has no data trace
 * yet, so a component without data trace stays byte-identical.
 */
export const ETRACE_DATA_SETTINGS: readonly SettingSpec[] = [
  int('data_trace_p', 0, 0, 1, 'data trace (chapter 7): 0 none, 1 te_data packets beside te_inst'),
  int('data_width_p', D.data_width_p, 32, 64, 'data trace: width of the data bus (32 or 64)'),
  int('dtype_width_p', D.dtype_width_p, 1, 4, 'data trace: width of dtype (1 loads/stores, 3 with CSR, 4 with atomics)'),
  int('data_split_p', D.data_split_p, 0, 1, 'data trace: loads signalled in request and response phases'),
  int('data_atomics_p', D.data_atomics_p, 0, 1, 'data trace: atomic accesses traced'),
  int('data_csr_p', D.data_csr_p, 0, 1, 'data trace: CSR accesses traced'),
  int('lrid_width_p', D.lrid_width_p, 1, 8, 'data trace: width of lrid/lid (split loads)'),
  int('iaddr_lsbs_width_p', D.iaddr_lsbs_width_p, 0, 8, 'data trace: width of iaddr_lsbs (data filters with several instructions per block)'),
  int('dblock_width_p', D.dblock_width_p, 0, 4, 'data trace: width of dblock (several blocks per cycle)'),
  int('data_compress_p', D.data_compress_p, 0, 3, 'data trace: compression offered, bit 0 XOR, bit 1 differential'),
  bool('dEnable', DO.dEnable, 'data trace enable (with data_trace_p)'),
  bool('dTrigEnable', DO.dTrigEnable, 'trace-on/off triggers set and clear dEnable'),
  bool('noData', DO.noData, 'omit data values from data trace packets'),
  bool('noAddress', DO.noAddress, 'omit addresses from data trace packets'),
  int('DataCompress', DO.DataCompress, 0, 3, 'data compression: 0 full values, 1 XOR, 2 differential, 3 the shorter per packet'),
  int('dFilters', DO.dFilters, 0, 0xffff, 'filters that qualify data trace (bit mask, 0: all)'),
];

export const ETRACE_SETTINGS: readonly SettingSpec[] = [...ETRACE_PARAMETERS, ...ETRACE_OPTIONS, ...ETRACE_DATA_SETTINGS];

function filterSpecs(): SettingSpec[] {
  const f = emptyFilter();
  const out: SettingSpec[] = [];
  for (let n = 0; n < MAX_FILTERS; n++) {
    for (const [field, value] of Object.entries(f)) {
      const name = `filter${n}.${field}`;
      const help = `filter ${n} ${field}`;
      if (typeof value === 'boolean') out.push({ ...bool(name, value, help), hidden: true });
      else if (typeof value === 'bigint') out.push({ name, kind: 'bigint', default: value, help, hidden: true });
      else out.push({ ...int(name, value as number, 0, field.startsWith('comp') ? MAX_COMPARATORS - 1 : 0x7fffffff, help), hidden: true });
    }
  }
  return out;
}

function comparatorSpecs(): SettingSpec[] {
  const c = emptyComparator();
  const out: SettingSpec[] = [];
  for (let n = 0; n < MAX_COMPARATORS; n++) {
    for (const [field, value] of Object.entries(c)) {
      const name = `comparator${n}.${field}`;
      const help = `comparator ${n} ${field}`;
      if (typeof value === 'boolean') out.push({ ...bool(name, value, help), hidden: true });
      else if (typeof value === 'bigint') out.push({ name, kind: 'bigint', default: value, help, hidden: true });
      else out.push({ ...int(name, value as number, 0, field === 'matchMode' ? 3 : field.endsWith('Input') ? 3 : 7, help), hidden: true });
    }
  }
  return out;
}

/** The typed configuration from resolved settings (every ETRACE_SETTINGS name present). */
export function etraceConfig(s: Settings): EtraceConfig {
  const layout = s.payload_layout as '1.1.1' | '2.0';
  const num = (name: string): number => s[name] as number;
  const params = {
    ...defaultParams(layout),
    payload_layout: layout,
    itype_width_p: Number(s.itype_width_p) as 3 | 4,
    resync_policy: s.resync_policy === 'auto' ? (num('retires_p') === 1 ? 'flowchart' : 'block') : s.resync_policy,
  } as Record<string, unknown>;
  const chosen = new Set(['payload_layout', 'itype_width_p', 'resync_policy']);
  for (const spec of ETRACE_PARAMETERS) {
    if (!chosen.has(spec.name)) params[spec.name] = num(spec.name);
  }
  const filters: Filter[] = [];
  for (let n = 0; n < num('filters_p'); n++) {
    const f = emptyFilter() as unknown as Record<string, unknown>;
    for (const field of Object.keys(f)) f[field] = s[`filter${n}.${field}`];
    filters.push(f as unknown as Filter);
  }
  const comparators: Comparator[] = [];
  for (let n = 0; n < num('comparators_p'); n++) {
    const c = emptyComparator() as unknown as Record<string, unknown>;
    for (const field of Object.keys(c)) c[field] = s[`comparator${n}.${field}`];
    comparators.push(c as unknown as Comparator);
  }
  const dataTrace =
    num('data_trace_p') === 1
      ? {
          data_width_p: num('data_width_p'),
          dtype_width_p: num('dtype_width_p'),
          data_split_p: num('data_split_p'),
          data_atomics_p: num('data_atomics_p'),
          data_csr_p: num('data_csr_p'),
          lrid_width_p: num('lrid_width_p'),
          iaddr_lsbs_width_p: num('iaddr_lsbs_width_p'),
          dblock_width_p: num('dblock_width_p'),
          data_compress_p: num('data_compress_p'),
        }
      : undefined;
  if (dataTrace) {
    params.dataTrace = dataTrace;
    params.dataTraceSupport = true;
  }
  const options = {
    ...defaultOptions(),
    iEnable: s.iEnable as boolean,
    iTrigEnable: s.iTrigEnable as boolean,
    stallEnable: s.stallEnable as boolean,
    ResyncMode: num('ResyncMode'),
    ResyncMax: num('ResyncMax'),
    FullAddress: s.FullAddress as boolean,
    ImplicitExcept: s.ImplicitExcept as boolean,
    siJump: s.siJump as boolean,
    ImplicitReturn: s.ImplicitReturn as boolean,
    BranchPrediction: s.BranchPrediction as boolean,
    JumpTargetCache: s.JumpTargetCache as boolean,
    iFilters: num('iFilters'),
    dEnable: s.dEnable as boolean,
    dTrigEnable: s.dTrigEnable as boolean,
    noData: s.noData as boolean,
    noAddress: s.noAddress as boolean,
    DataCompress: num('DataCompress'),
    dFilters: num('dFilters'),
    filters,
    comparators,
  };
  return { params: params as unknown as EtraceConfig['params'], options };
}

/**
 * Every problem of a set of E-Trace settings (all ETRACE_SETTINGS names present): the
 * configuration's own rules (validateConfig) and the values the register map cannot hold
 * (registerMapErrors), the latter only for parameters the former did not already reject. This is
 * the check the component loader runs, with each error's `parameters/<name>` or `options/<name>`
 * path pointing at the parameter concerned.
 */
export function validateEtraceSettings(settings: Settings): RvError[] {
  const config = etraceConfig(settings);
  const errors = validateConfig(config);
  // A value outside its setting's range is the loader's (or --set's) to report, in those words.
  const outOfRange = ETRACE_SETTINGS.filter((s) => typeof settings[s.name] === 'number' && ((s.min !== undefined && (settings[s.name] as number) < s.min) || (s.max !== undefined && (settings[s.name] as number) > s.max)));
  const rejected = new Set([...errors.map((e) => e.location.path?.split('/').pop()), ...outOfRange.map((s) => s.name)]);
  return [...errors, ...registerMapErrors(config).filter((e) => !rejected.has(e.location.path?.split('/').pop()))];
}
