/**
 * The CTR block's settings: every parameter a component or `--set` may give, with its kind and
 * default, and the typed configuration built from them. Names are those of `CtrConfig`
 * (config.ts; docs/ctr-model.md explains each one), plus the two widths of the hart interface the
 * generated RTL shares with the E-Trace encoder (Table 9.1 names, `iretire_width_p` and
 * `lastsize_width_p`), which the model does not need. This is the block-specific knowledge the
 * generic component reader (ipxact/load.ts) and the CLI rely on.
 */
import type { RvError } from '../common/errors.ts';
import type { SettingSpec, Settings } from '../common/settings.ts';
import { CTR_ALL_FILTERS, type CtrConfig, type CtrDepth, defaultCtrConfig, validateCtrConfig } from './config.ts';

const D = defaultCtrConfig();

function bool(name: keyof CtrConfig, help: string): SettingSpec {
  return { name, kind: 'bool', default: D[name] as boolean, help };
}

function choice(name: string, choices: readonly string[], def: string, help: string): SettingSpec {
  return { name, kind: 'choice', choices, default: def, help };
}

const DEPTHS = ['16', '32', '64', '128', '256'] as const;

/** The parameters of `CtrConfig`, in the order of config.ts. */
export const CTR_CONFIG_SETTINGS: readonly SettingSpec[] = [
  choice('specVersion', ['0.1.4', '1.0'], D.specVersion, 'CTR spec: the seed draft v0.1.4 or the ratified Smctr/Ssctr 1.0'),
  choice('xlen', ['32', '64'], String(D.xlen), 'XLEN of the hart (= MXLEN = SXLEN = VSXLEN)'),
  bool('sMode', 'the hart implements S-mode (1.0 requires it)'),
  bool('uMode', 'the hart implements U-mode'),
  bool('hExt', 'the hart implements the H extension (vsctrcontrol/vsctrctl, vsiselect, the V bit)'),
  bool('smstateen', 'Smstateen: mstateen0/hstateen0 gate S/VS access to CTR state'),
  choice('depthMin', DEPTHS, String(D.depthMin), 'smallest supported depth'),
  choice('depthMax', DEPTHS, String(D.depthMax), 'largest supported depth (the RTL array holds this many entries)'),
  choice('resetDepth', DEPTHS, String(D.resetDepth), 'DEPTH after reset'),
  choice('depthLegalisation', ['clamp', 'keep'], D.depthLegalisation, 'WARL of a write of an unsupported DEPTH'),
  choice('wrptrOnDepthChange', ['mask', 'zero'], D.wrptrOnDepthChange, 'WRPTR after a depth change: low bits kept, or 0'),
  choice('entriesOnDepthChange', ['keep', 'zero'], D.entriesOnDepthChange, 'entries newly exposed by a larger depth: kept, or zeroed'),
  bool('rasemu', 'RASEMU (RAS emulation) implemented'),
  bool('bpfrz', 'BPFRZ (freeze on breakpoint) implemented; required in 1.0'),
  bool('lcofifrz', 'LCOFIFRZ (freeze on counter-overflow interrupt) implemented'),
  bool('externalTraps', 'external trap recording (ETEN in v0.1.4, MTE, STE, VSTE)'),
  { name: 'filterMask', kind: 'int', default: D.filterMask, min: 0, max: 0xffff, help: `transfer type filter bits implemented: bit t = the bit 32+t of TYPE t (a subset of 0x${CTR_ALL_FILTERS.toString(16)})` },
  bool('typeField', 'ctrdata.TYPE implemented'),
  bool('misp', 'ctrtarget.MISP implemented (the misp_i input)'),
  bool('cycleCounting', 'ctrdata.CCV and CC implemented'),
  { name: 'cceBits', kind: 'int', default: D.cceBits, min: 0, max: 4, help: 'implemented exponent bits of CC (0 without cycle counting)' },
  choice('rasemuCcvPolicy', ['popped-parent', 'all-calls'], D.rasemuCcvPolicy, 'CCV of records made with RASEMU=1'),
];

/** The hart interface widths of the generated RTL (the E-Trace encoder's Table 9.1 names and defaults). */
export const CTR_RTL_SETTINGS: readonly SettingSpec[] = [
  { name: 'iretire_width_p', kind: 'int', default: 3, min: 2, max: 8, help: 'width of iretire_i (half-words retired in the record; 2 counts one 32-bit instruction)' },
  { name: 'lastsize_width_p', kind: 'int', default: 1, min: 1, max: 2, help: 'width of ilastsize_i (the last instruction is 2^ilastsize half-words)' },
];

export const CTR_SETTINGS: readonly SettingSpec[] = [...CTR_CONFIG_SETTINGS, ...CTR_RTL_SETTINGS];

/** The hart interface of the generated RTL. */
export interface CtrRtlParams {
  readonly iretire_width_p: number;
  readonly lastsize_width_p: number;
}

/** The model's configuration from resolved settings (every CTR_SETTINGS name present). */
export function ctrConfig(s: Settings): CtrConfig {
  return {
    specVersion: s.specVersion as CtrConfig['specVersion'],
    xlen: Number(s.xlen) as 32 | 64,
    sMode: s.sMode as boolean,
    uMode: s.uMode as boolean,
    hExt: s.hExt as boolean,
    smstateen: s.smstateen as boolean,
    depthMin: Number(s.depthMin) as CtrDepth,
    depthMax: Number(s.depthMax) as CtrDepth,
    resetDepth: Number(s.resetDepth) as CtrDepth,
    depthLegalisation: s.depthLegalisation as CtrConfig['depthLegalisation'],
    wrptrOnDepthChange: s.wrptrOnDepthChange as CtrConfig['wrptrOnDepthChange'],
    entriesOnDepthChange: s.entriesOnDepthChange as CtrConfig['entriesOnDepthChange'],
    rasemu: s.rasemu as boolean,
    bpfrz: s.bpfrz as boolean,
    lcofifrz: s.lcofifrz as boolean,
    externalTraps: s.externalTraps as boolean,
    filterMask: s.filterMask as number,
    typeField: s.typeField as boolean,
    misp: s.misp as boolean,
    cycleCounting: s.cycleCounting as boolean,
    cceBits: s.cceBits as number,
    rasemuCcvPolicy: s.rasemuCcvPolicy as CtrConfig['rasemuCcvPolicy'],
  };
}

/** The RTL's hart interface widths from resolved settings. */
export function ctrRtlParams(s: Settings): CtrRtlParams {
  return { iretire_width_p: s.iretire_width_p as number, lastsize_width_p: s.lastsize_width_p as number };
}

/** The CTR block's configuration: the unit the model implements and the RTL's port widths. */
export interface CtrBlockConfig {
  readonly config: CtrConfig;
  readonly rtl: CtrRtlParams;
}

export function ctrBlockConfig(s: Settings): CtrBlockConfig {
  return { config: ctrConfig(s), rtl: ctrRtlParams(s) };
}

/** The settings of a configuration (the inverse of ctrConfig), e.g. for an export. */
export function ctrSettings(c: CtrConfig, rtl: CtrRtlParams = { iretire_width_p: 3, lastsize_width_p: 1 }): Settings {
  const out: Settings = {};
  for (const spec of CTR_CONFIG_SETTINGS) {
    const v = c[spec.name as keyof CtrConfig];
    out[spec.name] = spec.kind === 'choice' ? String(v) : v;
  }
  out.iretire_width_p = rtl.iretire_width_p;
  out.lastsize_width_p = rtl.lastsize_width_p;
  return out;
}

/**
 * Every problem of a set of CTR settings (all CTR_SETTINGS names present): the configuration's
 * rules (validateCtrConfig, paths `parameters/<name>`), except for values the loader or `--set`
 * already rejected as out of range.
 */
export function validateCtrSettings(settings: Settings): RvError[] {
  const outOfRange = new Set(
    CTR_SETTINGS.filter((s) => {
      const v = settings[s.name];
      if (s.kind === 'choice') return !s.choices?.includes(String(v));
      return typeof v === 'number' && ((s.min !== undefined && v < s.min) || (s.max !== undefined && v > s.max));
    }).map((s) => s.name),
  );
  return validateCtrConfig(ctrConfig(settings)).filter((e) => !outOfRange.has(e.location.path?.split('/').pop() ?? ''));
}
