/**
 * The PMU block's settings: every parameter a component or `--set` may give, with its kind and
 * default, and the typed configuration built from them (config.ts holds the meaning of each).
 * The defaults are the `pmu` component: an RV64 hart with H, 29 programmable 64-bit counters,
 * Sscofpmf and Smcntrpmf, eight event inputs, selectors named after the SBI event codes.
 */
import type { RvError } from '../common/errors.ts';
import type { SettingSpec, Settings } from '../common/settings.ts';
import { type EventLegalisation, parsePlatformMaps, type PmuConfig, type SbiBehaviour, validatePmuConfig } from './config.ts';

/**
 * The default event map: SBI hardware event codes as selectors (1 cycles, 2 instructions, 3 cache
 * references, 4 cache misses, 5 branches, 6 branch misses, 8/9 stalled cycles front/back end), the
 * SBI cache event codes of the TLB misses QEMU counts, and raw selectors 0x100.. for the rest of
 * the stream events.
 */
export const DEFAULT_EVENTS =
  '0x1=cycles,0x2=instructions,0x3=input0,0x4=input1,0x5=branches,0x6=input2,0x8=input3,0x9=input4,' +
  '0x10019=input5,0x1001b=input6,0x10021=input7,' +
  '0x100=taken_branches,0x101=calls,0x102=returns,0x103=jumps,0x104=exceptions,0x105=interrupts,0x106=trap_returns';

/** `riscv,event-to-mhpmcounters` of the default platform: every event on every programmable counter, cycles also on mcycle, instructions on minstret. */
export const DEFAULT_EVENT_TO_COUNTERS =
  '<0x1 0x1 0xfffffff9 0x2 0x2 0xfffffffc 0x3 0x6 0xfffffff8 0x8 0x9 0xfffffff8 0x10019 0x10019 0xfffffff8 0x1001b 0x1001b 0xfffffff8 0x10021 0x10021 0xfffffff8>';

/** `riscv,raw-event-to-mhpmcounters` of the default platform: raw selectors 0x100..0x107 on every programmable counter. */
export const DEFAULT_RAW_EVENT_TO_COUNTERS = '<0x0 0x100 0xffffffff 0xfffffff8 0xfffffff8>';

const bool = (name: string, def: boolean, help: string): SettingSpec => ({ name, kind: 'bool', default: def, help });
const text = (name: string, def: string, help: string): SettingSpec => ({ name, kind: 'string', default: def, help });

export const PMU_CONFIG_SETTINGS: readonly SettingSpec[] = [
  { name: 'xlen', kind: 'choice', choices: ['32', '64'], default: '64', help: 'XLEN of the hart (RV32 has the high-half CSRs)' },
  bool('sMode', true, 'the hart implements S-mode (scounteren, scountovf, SINH)'),
  bool('uMode', true, 'the hart implements U-mode (mcounteren, UINH)'),
  bool('hExt', true, 'the hart implements the H extension (hcounteren, VSINH/VUINH, the V bit)'),
  { name: 'counterMask', kind: 'int', default: 0xfffffff8, min: 0, max: 0xffffffff, help: 'bit n (3..31): mhpmcounter<n> is implemented (gaps allowed)' },
  { name: 'counterWidth', kind: 'int', default: 64, min: 8, max: 64, help: 'implemented bits of every mhpmcounter (mcycle and minstret have 64)' },
  bool('sscofpmf', true, 'Sscofpmf: OF and the mode-inhibit bits in mhpmevent, scountovf, the overflow interrupt'),
  bool('smcntrpmf', true, 'Smcntrpmf: mcyclecfg and minstretcfg filter mcycle and minstret by mode'),
  { name: 'eventBits', kind: 'int', default: 20, min: 1, max: 64, help: 'implemented selector bits of mhpmevent' },
  { name: 'eventLegalisation', kind: 'choice', choices: ['mask', 'clamp', 'hardwired'], default: 'mask', help: 'WARL of a selector write: keep eventBits bits, clamp to eventMax, or read-only (the event map in order)' },
  { name: 'eventMax', kind: 'bigint', default: 0xfffffn, help: 'the largest selector with eventLegalisation "clamp"' },
  { name: 'eventInputs', kind: 'int', default: 8, min: 0, max: 32, help: 'event inputs (event_i bits, one count per cycle each)' },
  text('events', DEFAULT_EVENTS, 'selector -> event map, SELECTOR=EVENT items separated by commas (events: cycles, instructions, branches, taken_branches, calls, returns, jumps, exceptions, interrupts, trap_returns, input<k>)'),
  { name: 'sbi_behaviour', kind: 'choice', choices: ['opensbi-1.9', 'spec'], default: 'opensbi-1.9', help: 'the SBI PMU firmware model: OpenSBI 1.9 answers, or the spec-literal variant (docs/pmu-sbi.md)' },
  { name: 'firmwareCounters', kind: 'int', default: 16, min: 0, max: 32, help: 'firmware counters the SBI layer offers after the hardware counters' },
  text('eventToCounters', DEFAULT_EVENT_TO_COUNTERS, 'riscv,event-to-mhpmcounters: cells <first last counter-bitmap>...'),
  text('eventToSelector', '', 'riscv,event-to-mhpmevent: cells <event selector-hi selector-lo>... (absent: the selector is the event index)'),
  text('rawEventToCounters', DEFAULT_RAW_EVENT_TO_COUNTERS, 'riscv,raw-event-to-mhpmcounters: cells <selector-hi selector-lo mask-hi mask-lo counter-bitmap>...'),
];

/** The hart interface width of the generated RTL (the E-Trace encoder's Table 9.1 name and default). */
export const PMU_RTL_SETTINGS: readonly SettingSpec[] = [
  { name: 'iretire_width_p', kind: 'int', default: 3, min: 2, max: 8, help: 'width of iretire_i (half-words retired in the record)' },
];

export const PMU_SETTINGS: readonly SettingSpec[] = [...PMU_CONFIG_SETTINGS, ...PMU_RTL_SETTINGS];

export interface PmuRtlParams {
  readonly iretire_width_p: number;
}

/** The PMU block's configuration: the counter block with its platform, and the RTL's port widths. */
export interface PmuBlockConfig {
  readonly config: PmuConfig;
  readonly rtl: PmuRtlParams;
}

function mapTexts(s: Settings) {
  return { events: String(s.events), eventToCounters: String(s.eventToCounters), eventToSelector: String(s.eventToSelector), rawEventToCounters: String(s.rawEventToCounters) };
}

/** The model's configuration from resolved settings (every PMU_SETTINGS name present). */
export function pmuConfig(s: Settings): PmuConfig {
  return {
    xlen: Number(s.xlen) as 32 | 64,
    sMode: s.sMode as boolean,
    uMode: s.uMode as boolean,
    hExt: s.hExt as boolean,
    counterMask: s.counterMask as number,
    counterWidth: s.counterWidth as number,
    sscofpmf: s.sscofpmf as boolean,
    smcntrpmf: s.smcntrpmf as boolean,
    eventBits: s.eventBits as number,
    eventLegalisation: s.eventLegalisation as EventLegalisation,
    eventMax: s.eventMax as bigint,
    eventInputs: s.eventInputs as number,
    sbiBehaviour: s.sbi_behaviour as SbiBehaviour,
    firmwareCounters: s.firmwareCounters as number,
    ...parsePlatformMaps(mapTexts(s)),
  };
}

export function pmuBlockConfig(s: Settings): PmuBlockConfig {
  return { config: pmuConfig(s), rtl: { iretire_width_p: s.iretire_width_p as number } };
}

/** Every problem of a set of PMU settings (paths `parameters/<name>`). */
export function validatePmuSettings(s: Settings): RvError[] {
  return validatePmuConfig(pmuConfig(s), mapTexts(s));
}

/** The default configuration (the `pmu` component), for tests and examples. */
export function defaultPmuConfig(over: Partial<PmuConfig> = {}): PmuConfig {
  const s: Settings = {};
  for (const spec of PMU_CONFIG_SETTINGS) s[spec.name] = spec.default;
  return { ...pmuConfig(s), ...over };
}
