/**
 * The APB register map of the generated E-Trace encoder, with every reset value computed from the
 * configuration. The RTL issue implements exactly this map, the co-simulation compares read-backs
 * against it, and `rvtrace ipxact` exports it as the component's memory map. docs/etrace-registers.md
 * explains it register by register.
 *
 * Two address blocks in one memory map (byte addresses, 32-bit APB data):
 *
 * 1. `control`, 0x000-0xFFF: the register layout of the ratified RISC-V Trace Control Interface
 *    (trTeControl 0x000, trTeImpl 0x004, trTeInstFeatures 0x008, trTeInstFilters 0x00C, filter i at
 *    0x400 + 0x20*i, comparator j at 0x600 + 0x20*j), with its field positions wherever one of our
 *    options exists. The run-time options of E-Trace tables 2.1-2.6 map onto TCI fields:
 *      iEnable -> trTeInstTracing (and trTeActive, trTeEnable), iTrigEnable -> trTeInstTrigEnable,
 *      stallEnable -> trTeInstStallEna, ResyncMode -> trTeInstSyncMode, ResyncMax -> trTeInstSyncMax,
 *      FullAddress -> trTeInstNoAddrDiff, ImplicitExcept -> trTeInstNoTrapAddr,
 *      siJump -> trTeInstEnSequentialJump, ImplicitReturn -> trTeInstEnImplicitReturn,
 *      BranchPrediction -> trTeInstEnBranchPrediction, JumpTargetCache -> trTeInstEnJumpTargetCache,
 *      iFilters -> trTeInstFilters, filter<N>.* -> trTeFilter<N>*, comparator<N>.* -> trTeComp<N>*.
 *    Deviations (each also in docs/etrace-registers.md):
 *    - Reset values. The TCI resets trTeActive and trTeEnable to 0 and leaves most WARL fields
 *      undefined; here every field resets to the component's value (the options are the reset
 *      state), and trTeActive/trTeEnable/trTeInstTracing reset to iEnable, so the encoder traces
 *      from reset exactly as the golden model does without any register write.
 *    - WARL fields whose hardware is absent (e.g. trTeInstEnBranchPrediction with bpred_size_p = 0)
 *      are read-only 0 rather than writable-but-ignored.
 *    - trTeInstMode is read-only 6 and trTeFormat read-only 0, as the E-Trace control chapter says;
 *      trTeContext is read-only and says whether context is in te_inst packets (nocontext_p = 0),
 *      since context inclusion is a build parameter here, not a run-time choice.
 *    - trTeImpl bits 31:24 (vendor-specific) hold rvPayloadLayout: 0 for the ratified 2.0 layout,
 *      1 for the seed's 1.1.1-draft layout (trTeProtocolMajor/Minor are 0/0 = E-Trace 2.0.x).
 *    - Comparator function code 6 keeps the meaning of the seed's table 2.6 (primary: always
 *      match; secondary: sMatch masks pMatch), which the golden model implements; the TCI redefines
 *      primary code 6 as "always false".
 *    - Data trace (only with data_trace_p = 1): trTeDataControl and trTeDataFilters, see
 *      dataRegisters. Not present (no model behind them): trTeFilter<i>MatchData (data filters
 *      use the comparators' daddr input instead), the timestamp unit (0x040-0x04C) and the trigger-control
 *      registers (0x050-0x058), trTeInstImplicitReturnMode is read-only.
 *
 * 2. `discovery`, 0x1000-0x100F: the seed's discovery registers of section 9.2, discovery_info_0
 *    and discovery_info_1, in their own address block. Decision on the offsets: section 9.2 puts
 *    two 64-bit registers at 'h0 and 'h4, which in a byte-addressed map (addressUnitBits 8, as the
 *    example itself says) would overlap in bytes 4-7. The example's 'h4 can only be meant as the
 *    second 64-bit word, so here discovery_info_0 is at 0x1000 and discovery_info_1 at 0x1008,
 *    each 64 bits; over the 32-bit APB each is read as two words, the low half (bits 31:0) at the
 *    lower address. Fields and bit positions are the example's (their reset values follow Tables
 *    9.2-9.4); the example leaves bits 48-63 of discovery_info_1 unused, and the ratified 2.0
 *    attributes notime and time_width (which the example predates) go there: notime at bit 48,
 *    time_width at bits 54:49.
 *    Attributes mapped as "parameter - 1" cannot say 0 for a parameter that is 0 (filters_p,
 *    comparators_p, impdef_width_p): they read 0 then; trTeInstFilters, read-only 0 without
 *    filters, tells "no filters" apart from "one filter".
 */
import { RvError } from '../common/errors.ts';
import type { AddressBlockSpec, FieldAccess, MemoryMapSpec, RegisterField, RegisterSpec } from '../common/register-map.ts';
import type { EtraceConfig } from './config.ts';

export type { AddressBlockSpec, FieldAccess, MemoryMapSpec, RegisterField, RegisterSpec };

export const CONTROL_BLOCK_BASE = 0x0;
export const CONTROL_BLOCK_RANGE = 0x1000;
export const DISCOVERY_BLOCK_BASE = 0x1000;
export const DISCOVERY_BLOCK_RANGE = 0x10;
export const FILTER_BASE = 0x400;
export const COMPARATOR_BASE = 0x600;
export const UNIT_STRIDE = 0x20;

/** Version of this encoder implementation, reported in discovery_info_0.version/minor_revision. */
export const IMPLEMENTATION_VERSION = { major: 1, minor: 0 } as const;

const b = (v: boolean): bigint => (v ? 1n : 0n);
const n = (v: number): bigint => BigInt(v);

function field(name: string, bitOffset: number, bitWidth: number, access: FieldAccess, reset: bigint, description: string, source?: string): RegisterField {
  return source === undefined ? { name, bitOffset, bitWidth, access, reset, description } : { name, bitOffset, bitWidth, access, reset, description, source };
}
const rw = (present: boolean): FieldAccess => (present ? 'read-write' : 'read-only');

/** The whole register map for a configuration. */
export function etraceMemoryMap(c: EtraceConfig): MemoryMapSpec {
  return {
    name: 'etrace_regs',
    description: 'E-Trace encoder registers on the APB port: Trace Control Interface layout, then the discovery registers.',
    addressBlocks: [controlBlock(c), discoveryBlock(c)],
  };
}

/**
 * Data trace control (only with data_trace_p = 1, so components without data trace keep their
 * map): trTeDataControl at 0x010 and trTeDataFilters at 0x01C, the offsets of the Trace Control
 * Interface. The bit positions inside trTeDataControl are this model's choice, to be checked
 * against the TCI document (not among the project's specs) before the RTL implements them;
 * DataCompress has no TCI field and takes vendor bits (docs/etrace-registers.md).
 */
function dataRegisters(c: EtraceConfig): RegisterSpec[] {
  const d = c.params.dataTrace!;
  const o = c.options;
  return [
    {
      name: 'trTeDataControl',
      offset: 0x010,
      size: 32,
      description: 'Trace Data Control Register (E-Trace data trace options, tables 2.1 and 2.2).',
      fields: [
        field('trTeDataImplemented', 0, 1, 'read-only', 1n, 'Data trace is implemented (data_trace_p = 1).'),
        field('trTeDataTracing', 2, 1, 'read-write', b(o.dEnable), 'Data trace enable (E-Trace dEnable).', 'dEnable'),
        field('trTeDataTrigEnable', 3, 1, 'read-write', b(o.dTrigEnable), 'Trace-on/off triggers set and clear trTeDataTracing (E-Trace dTrigEnable).', 'dTrigEnable'),
        field('trTeDataNoValue', 24, 1, 'read-write', b(o.noData), 'Omit data values from data trace packets (E-Trace noData).', 'noData'),
        field('trTeDataNoAddr', 25, 1, 'read-write', b(o.noAddress), 'Omit addresses from data trace packets (E-Trace noAddress).', 'noAddress'),
        field('rvDataCompress', 28, 2, rw(d.data_compress_p > 0), n(o.DataCompress), 'Vendor field: E-Trace DataCompress, 0 full values, 1 XOR, 2 differential, 3 the shorter; values the hardware lacks are refused.', 'DataCompress'),
      ],
    },
    {
      name: 'trTeDataFilters',
      offset: 0x01c,
      size: 32,
      description: 'Trace Data Filters Register (E-Trace dFilters): bit N selects filter N; bits at and above filters_p read 0.',
      fields: [field('trTeDataFilters', 0, 16, rw(c.params.filters_p > 0), n(o.dFilters), 'Filters that qualify data trace; 0 = every access.', 'dFilters')],
    },
  ];
}

function controlBlock(c: EtraceConfig): AddressBlockSpec {
  const p = c.params;
  const o = c.options;
  const implicitReturn = (p.call_counter_size_p > 0 || p.return_stack_size_p > 0) && p.itype_width_p === 4;
  const registers: RegisterSpec[] = [
    {
      name: 'trTeControl',
      offset: 0x000,
      size: 32,
      description: 'Trace Encoder Control Register (TCI layout).',
      fields: [
        field('trTeActive', 0, 1, 'read-write', b(o.iEnable), 'Primary activate bit; resets to iEnable.', 'iEnable'),
        field('trTeEnable', 1, 1, 'read-write', b(o.iEnable), 'Encoder enable; resets to iEnable.', 'iEnable'),
        field('trTeInstTracing', 2, 1, 'read-write', b(o.iEnable), 'Instruction trace enable (E-Trace iEnable).', 'iEnable'),
        field('trTeEmpty', 3, 1, 'read-only', 1n, 'Reads 1 when all trace has been emitted.'),
        field('trTeInstMode', 4, 3, 'read-only', 6n, 'Instruction trace mode: 6, as E-Trace requires.'),
        field('trTeContext', 9, 1, 'read-only', b(p.nocontext_p === 0), 'Context is in te_inst packets (nocontext_p = 0).', 'nocontext_p'),
        field('trTeInstTrigEnable', 11, 1, 'read-write', b(o.iTrigEnable), 'Trace-on/off triggers set and clear trTeInstTracing (E-Trace iTrigEnable).', 'iTrigEnable'),
        { ...field('trTeInstStallOrOverflow', 12, 1, 'read-write', 0n, 'Set when trace was lost or the hart was stalled; write 1 to clear.'), oneToClear: true },
        field('trTeInstStallEna', 13, 1, 'read-write', b(o.stallEnable), 'Stall the hart instead of losing trace (E-Trace stallEnable).', 'stallEnable'),
        field('trTeInhibitSrc', 15, 1, rw(p.encap_srcid_width > 0), 0n, 'Leave the source id out of the encapsulation header.'),
        field('trTeInstSyncMode', 16, 2, 'read-write', n(o.ResyncMode), 'Resynchronisation counts: 0 off, 1 packets, 2 cycles, 3 half-words (E-Trace ResyncMode).', 'ResyncMode'),
        field('trTeInstSyncMax', 20, 4, 'read-write', n(o.ResyncMax), 'Resynchronisation interval 2^(value + 4) (E-Trace ResyncMax).', 'ResyncMax'),
        field('trTeFormat', 24, 3, 'read-only', 0n, 'Trace format: 0, E-Trace.'),
      ],
    },
    {
      name: 'trTeImpl',
      offset: 0x004,
      size: 32,
      description: 'Trace Encoder Implementation Register (TCI layout).',
      fields: [
        field('trTeVerMajor', 0, 4, 'read-only', 1n, 'Control interface major version: 1.'),
        field('trTeVerMinor', 4, 4, 'read-only', 0n, 'Control interface minor version: 0.'),
        field('trTeCompType', 8, 4, 'read-only', 1n, 'Component type: 1, trace encoder.'),
        field('trTeProtocolMajor', 16, 4, 'read-only', 0n, 'E-Trace protocol major version: 0 (2.0.x).'),
        field('trTeProtocolMinor', 20, 4, 'read-only', 0n, 'E-Trace protocol minor version: 0.'),
        field('rvPayloadLayout', 24, 8, 'read-only', b(p.payload_layout === '1.1.1'), 'Vendor field: te_inst payload layout, 0 = ratified 2.0, 1 = seed 1.1.1-draft.', 'payload_layout'),
      ],
    },
    {
      name: 'trTeInstFeatures',
      offset: 0x008,
      size: 32,
      description: 'Trace Instruction Features Register (TCI layout): the optional modes of E-Trace table 2.2.',
      fields: [
        field('trTeInstNoAddrDiff', 0, 1, 'read-write', b(o.FullAddress), 'Send full addresses only (E-Trace FullAddress).', 'FullAddress'),
        field('trTeInstNoTrapAddr', 1, 1, 'read-write', b(o.ImplicitExcept), 'Leave the trap handler address out (E-Trace ImplicitExcept).', 'ImplicitExcept'),
        field('trTeInstEnSequentialJump', 2, 1, rw(p.sijump_p === 1), b(o.siJump), 'Sequentially inferable jumps are inferable (E-Trace siJump); read-only 0 without sijump_p.', 'siJump'),
        field('trTeInstEnImplicitReturn', 3, 1, rw(implicitReturn), b(o.ImplicitReturn), 'Implicit return (E-Trace ImplicitReturn); read-only 0 without a call counter or return stack.', 'ImplicitReturn'),
        field('trTeInstEnBranchPrediction', 4, 1, rw(p.bpred_size_p > 0), b(o.BranchPrediction), 'Branch prediction (E-Trace BranchPrediction); read-only 0 without a predictor.', 'BranchPrediction'),
        field('trTeInstEnJumpTargetCache', 5, 1, rw(p.cache_size_p > 0), b(o.JumpTargetCache), 'Jump target cache (E-Trace JumpTargetCache); read-only 0 without a cache.', 'JumpTargetCache'),
        field('trTeInstImplicitReturnMode', 6, 2, 'read-only', p.return_stack_size_p > 0 ? 3n : p.call_counter_size_p > 0 ? 1n : 0n,
          'Implicit return implementation: 0 none, 1 call counter, 3 return-address stack (full address compare).'),
        field('trTeSrcID', 16, 12, rw(p.encap_srcid_width > 0), 0n, 'Source id sent in the encapsulation header.'),
        field('trTeSrcBits', 28, 4, 'read-only', n(p.encap_srcid_width), 'Source id bits (encap_srcid_width).', 'encap_srcid_width'),
      ],
    },
    {
      name: 'trTeInstFilters',
      offset: 0x00C,
      size: 32,
      description: 'Trace Instruction Filters Register (TCI layout, E-Trace iFilters): bit N selects filter N; bits at and above filters_p read 0.',
      fields: [field('trTeInstFilters', 0, 16, rw(p.filters_p > 0), n(o.iFilters), 'Filters that qualify instruction trace; 0 = trace everything.', 'iFilters')],
    },
  ];
  if (p.dataTrace) registers.push(...dataRegisters(c));
  c.options.filters.slice(0, p.filters_p).forEach((f, i) => {
    const base = FILTER_BASE + UNIT_STRIDE * i;
    const s = (name: string): string => `filter${i}.${name}`;
    registers.push(
      {
        name: `trTeFilter${i}Control`,
        offset: base,
        size: 32,
        description: `Filter ${i} control (TCI layout, E-Trace table 2.4).`,
        fields: [
          field('trTeFilterEnable', 0, 1, 'read-write', b(f.filterEnable), 'Filter enable.', s('filterEnable')),
          field('trTeFilterMatchPrivilege', 1, 1, 'read-write', b(f.matchPrivilege), 'Match the privileges of trTeFilterMatchChoicePrivilege.', s('matchPrivilege')),
          field('trTeFilterMatchEcause', 2, 1, 'read-write', b(f.matchEcause), 'Match from a trap whose cause is in trTeFilterMatchChoiceEcause until its return.', s('matchEcause')),
          field('trTeFilterMatchInterrupt', 3, 1, 'read-write', b(f.matchInterrupt), 'Match from an interrupt or exception (trTeFilterMatchValueInterrupt) until its return.', s('matchInterrupt')),
          field('trTeFilterMatchComp1', 4, 1, 'read-write', b(f.matchComp1), 'Comparator trTeFilterComp1 must match.', s('matchComp1')),
          field('trTeFilterComp1', 5, 3, 'read-write', n(f.comp1), 'First comparator.', s('comp1')),
          field('trTeFilterMatchComp2', 8, 1, 'read-write', b(f.matchComp2), 'Comparator trTeFilterComp2 must match.', s('matchComp2')),
          field('trTeFilterComp2', 9, 3, 'read-write', n(f.comp2), 'Second comparator.', s('comp2')),
          field('trTeFilterMatchComp3', 12, 1, 'read-write', b(f.matchComp3), 'Comparator trTeFilterComp3 must match.', s('matchComp3')),
          field('trTeFilterComp3', 13, 3, 'read-write', n(f.comp3), 'Third comparator.', s('comp3')),
          field('trTeFilterMatchImpdef', 16, 1, 'read-write', b(f.matchImpdef), 'Match impdef against value and mask.', s('matchImpdef')),
        ],
      },
      {
        name: `trTeFilter${i}MatchInst`,
        offset: base + 0x04,
        size: 32,
        description: `Filter ${i} instruction match control (TCI layout, E-Trace table 2.5).`,
        fields: [
          field('trTeFilterMatchChoicePrivilege', 0, 8, 'read-write', n(f.matchChoicePrivilege), 'Bit N: match privilege N.', s('matchChoicePrivilege')),
          field('trTeFilterMatchValueInterrupt', 8, 1, 'read-write', b(f.matchValueInterrupt), '1: match interrupts (itype 2); 0: exceptions (itype 1).', s('matchValueInterrupt')),
        ],
      },
      {
        name: `trTeFilter${i}MatchEcauseLow`,
        offset: base + 0x08,
        size: 32,
        description: `Filter ${i} cause choice, causes 0-31.`,
        fields: [field('trTeFilterMatchChoiceEcauseLow', 0, 32, 'read-write', f.matchChoiceEcause & 0xffff_ffffn, 'Bit N: match cause N.', s('matchChoiceEcause'))],
      },
      {
        name: `trTeFilter${i}MatchEcauseHigh`,
        offset: base + 0x0c,
        size: 32,
        description: `Filter ${i} cause choice, causes 32-63.`,
        fields: [field('trTeFilterMatchChoiceEcauseHigh', 0, 32, 'read-write', f.matchChoiceEcause >> 32n, 'Bit N: match cause N + 32.', s('matchChoiceEcause'))],
      },
      {
        name: `trTeFilter${i}MatchValueImpdef`,
        offset: base + 0x10,
        size: 32,
        description: `Filter ${i} impdef value.`,
        fields: [field('trTeFilterMatchValueImpdef', 0, 32, 'read-write', n(f.matchValueImpdef), 'Match when (impdef & mask) == (value & mask).', s('matchValueImpdef'))],
      },
      {
        name: `trTeFilter${i}MatchMaskImpdef`,
        offset: base + 0x14,
        size: 32,
        description: `Filter ${i} impdef mask.`,
        fields: [field('trTeFilterMatchMaskImpdef', 0, 32, 'read-write', n(f.matchMaskImpdef), 'Match when (impdef & mask) == (value & mask).', s('matchMaskImpdef'))],
      },
    );
  });
  c.options.comparators.slice(0, p.comparators_p).forEach((cmp, j) => {
    const base = COMPARATOR_BASE + UNIT_STRIDE * j;
    const s = (name: string): string => `comparator${j}.${name}`;
    const half = (name: string, offset: number, value: bigint, high: boolean, source: string): RegisterSpec => ({
      name: `trTeComp${j}${name}`,
      offset,
      size: 32,
      description: `Comparator ${j} ${name.startsWith('P') ? 'primary' : 'secondary'} match value, bits ${high ? '63:32' : '31:0'}.`,
      fields: [field(`trTeComp${name}`, 0, 32, 'read-write', high ? value >> 32n : value & 0xffff_ffffn, 'Match value half.', source)],
    });
    registers.push(
      {
        name: `trTeComp${j}Control`,
        offset: base,
        size: 32,
        description: `Comparator ${j} control (TCI layout, E-Trace table 2.6).`,
        fields: [
          field('trTeCompPInput', 0, 2, 'read-write', n(cmp.pInput), 'Primary input: 0 iaddr, 1 context, 2 tval.', s('pInput')),
          field('trTeCompSInput', 2, 2, 'read-write', n(cmp.sInput), 'Secondary input, coded as trTeCompPInput.', s('sInput')),
          field('trTeCompPFunction', 4, 3, 'read-write', n(cmp.pFunction), 'Primary function: 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=, 6 and 7 always (seed table 2.6).', s('pFunction')),
          field('trTeCompSFunction', 8, 3, 'read-write', n(cmp.sFunction), 'Secondary function, as primary; 6 uses sMatch as a mask for pMatch.', s('sFunction')),
          field('trTeCompMatchMode', 12, 2, 'read-write', n(cmp.matchMode), '0 P, 1 P && S, 2 !(P && S), 3 from P until after S.', s('matchMode')),
          field('trTeCompPNotify', 14, 1, 'read-write', b(cmp.pNotify), 'Report the address on a primary match.', s('pNotify')),
          field('trTeCompSNotify', 15, 1, 'read-write', b(cmp.sNotify), 'Report the address on a secondary match.', s('sNotify')),
        ],
      },
      half('PMatchLow', base + 0x10, cmp.pMatch, false, s('pMatch')),
      half('PMatchHigh', base + 0x14, cmp.pMatch, true, s('pMatch')),
      half('SMatchLow', base + 0x18, cmp.sMatch, false, s('sMatch')),
      half('SMatchHigh', base + 0x1c, cmp.sMatch, true, s('sMatch')),
    );
  });
  return {
    name: 'control',
    baseAddress: CONTROL_BLOCK_BASE,
    range: CONTROL_BLOCK_RANGE,
    width: 32,
    description: 'RISC-V Trace Control Interface registers of the encoder.',
    registers,
  };
}

function discoveryBlock(c: EtraceConfig): AddressBlockSpec {
  const p = c.params;
  const ro = (name: string, bitOffset: number, bitWidth: number, reset: number, description: string, source?: string): RegisterField =>
    field(name, bitOffset, bitWidth, 'read-only', n(reset), description, source);
  return {
    name: 'discovery',
    baseAddress: DISCOVERY_BLOCK_BASE,
    range: DISCOVERY_BLOCK_RANGE,
    width: 32,
    description: 'Discovery registers of the seed spec, section 9.2 (64-bit, each read as two 32-bit words, low word first).',
    registers: [
      {
        name: 'discovery_info_0',
        offset: 0x0,
        size: 64,
        description: 'Discovery attributes (seed section 9.2, Tables 9.2-9.3).',
        fields: [
          ro('version', 0, 4, IMPLEMENTATION_VERSION.major, 'Encoder implementation major version.'),
          ro('minor_revision', 4, 4, IMPLEMENTATION_VERSION.minor, 'Encoder implementation minor revision.'),
          ro('arch', 8, 4, p.arch_p, 'arch_p.', 'arch_p'),
          ro('bpred_size', 12, 4, p.bpred_size_p, 'bpred_size_p.', 'bpred_size_p'),
          ro('cache_size', 16, 4, p.cache_size_p, 'cache_size_p.', 'cache_size_p'),
          ro('call_counter_size', 20, 3, p.call_counter_size_p, 'call_counter_size_p.', 'call_counter_size_p'),
          ro('comparators', 23, 3, Math.max(p.comparators_p - 1, 0), 'comparators_p - 1 (0 when there are none).', 'comparators_p'),
          ro('context_type_width', 26, 5, p.ctype_width_p - 1, 'ctype_width_p - 1.', 'ctype_width_p'),
          ro('context_width', 31, 5, p.context_width_p - 1, 'context_width_p - 1.', 'context_width_p'),
          ro('ecause_choice', 36, 3, p.ecause_choice_p, 'ecause_choice_p.', 'ecause_choice_p'),
          ro('ecause_width', 39, 4, p.ecause_width_p - 1, 'ecause_width_p - 1.', 'ecause_width_p'),
          ro('filters', 43, 4, Math.max(p.filters_p - 1, 0), 'filters_p - 1 (0 when there are none).', 'filters_p'),
          ro('filter_context', 47, 1, p.filter_context_p, 'filter_context_p.', 'filter_context_p'),
          ro('filter_excint', 48, 4, p.filter_excint_p, 'filter_excint_p.', 'filter_excint_p'),
          ro('filter_privilege', 52, 1, p.filter_privilege_p, 'filter_privilege_p.', 'filter_privilege_p'),
          ro('filter_tval', 53, 1, p.filter_tval_p, 'filter_tval_p.', 'filter_tval_p'),
          ro('filter_impdef', 54, 1, p.filters_p > 0 && p.impdef_width_p > 0 ? 1 : 0, 'Filters can match impdef (filters_p > 0 and impdef_width_p > 0; no Table 9.1 parameter).'),
          ro('f0s_width', 55, 2, p.f0s_width_p, 'f0s_width_p.', 'f0s_width_p'),
          ro('iaddress_lsb', 57, 2, p.iaddress_lsb_p - 1, 'iaddress_lsb_p - 1.', 'iaddress_lsb_p'),
        ],
      },
      {
        name: 'discovery_info_1',
        offset: 0x8,
        size: 64,
        description: 'Discovery attributes (seed section 9.2, Tables 9.2 and 9.4; notime and time_width from the ratified 2.0 table).',
        fields: [
          ro('iaddress_width', 0, 7, p.iaddress_width_p - 1, 'iaddress_width_p - 1.', 'iaddress_width_p'),
          ro('ilastsize_width', 7, 7, p.lastsize_width_p - 1, 'lastsize_width_p - 1.', 'lastsize_width_p'),
          ro('itype_width', 14, 7, p.itype_width_p - 1, 'itype_width_p - 1.', 'itype_width_p'),
          ro('iretire_width', 21, 7, p.iretire_width_p - 1, 'iretire_width_p - 1.', 'iretire_width_p'),
          ro('nocontext', 28, 1, p.nocontext_p, 'nocontext_p.', 'nocontext_p'),
          ro('privilege_width', 29, 2, p.privilege_width_p - 1, 'privilege_width_p - 1.', 'privilege_width_p'),
          ro('retires', 31, 3, p.retires_p - 1, 'retires_p - 1.', 'retires_p'),
          ro('return_stack_size', 34, 4, p.return_stack_size_p, 'return_stack_size_p.', 'return_stack_size_p'),
          ro('sijump', 38, 1, p.sijump_p, 'sijump_p.', 'sijump_p'),
          ro('taken_branches', 39, 4, p.taken_branches_p - 1, 'taken_branches_p - 1.', 'taken_branches_p'),
          ro('impdef_width', 43, 5, Math.max(p.impdef_width_p - 1, 0), 'impdef_width_p - 1 (0 when there is no impdef).', 'impdef_width_p'),
          ro('notime', 48, 1, p.payload_layout === '2.0' ? p.notime_p : 1, 'notime_p (1 with the 1.1.1 layout, which has no time).', 'notime_p'),
          ro('time_width', 49, 6, p.time_width_p - 1, 'time_width_p - 1.', 'time_width_p'),
        ],
      },
    ],
  };
}

/**
 * Every reset value that does not fit its field: the map cannot describe such a configuration
 * (e.g. context_width_p = 64 has no 5-bit context_width attribute). Each error names the setting
 * the value comes from, as `parameters/<name>`.
 */
export function registerMapErrors(c: EtraceConfig): RvError[] {
  const errors: RvError[] = [];
  const seen = new Set<string>();
  for (const block of etraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      for (const f of reg.fields) {
        if (f.reset >= 0n && f.reset < 1n << BigInt(f.bitWidth)) continue;
        const source = f.source ?? f.name;
        if (seen.has(source)) continue;
        seen.add(source);
        errors.push(new RvError('invalid-component',
          `${source} gives ${reg.name}.${f.name} the value ${f.reset}, which does not fit its ${f.bitWidth}-bit field (0..${(1n << BigInt(f.bitWidth)) - 1n})`,
          { path: `parameters/${source}` }));
      }
    }
  }
  return errors;
}

/** The 32-bit word an APB read at `address` returns after reset (the model of register read-back). */
export function resetWord(c: EtraceConfig, address: number): bigint | undefined {
  for (const block of etraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      const start = block.baseAddress + reg.offset;
      const bytes = reg.size / 8;
      if (address < start || address >= start + bytes || (address - start) % 4 !== 0) continue;
      return (registerResetValue(reg) >> BigInt((address - start) * 8)) & 0xffff_ffffn;
    }
  }
  return undefined;
}

/** A register's value after reset: every field's reset value at its bit offset. */
export function registerResetValue(reg: RegisterSpec): bigint {
  let value = 0n;
  for (const f of reg.fields) value |= f.reset << BigInt(f.bitOffset);
  return value;
}
