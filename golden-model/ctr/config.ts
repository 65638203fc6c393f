/**
 * Configuration of the Control Transfer Records (CTR) unit: the parameters of the future IP-XACT
 * component, shared by the golden model and the RTL templates.
 *
 * Sources: the seed spec `../shared/specs/control-transfer-records-v0.1.4.txt` (draft v0.1.4, the
 * default variant), the ratified Smctr/Ssctr 1.0 (second variant, `specVersion: '1.0'`) and the
 * working notes `../shared/design/ctr.md`. Every point ctr.md lists as left open by the spec is a
 * parameter here, with the default ctr.md states; docs/ctr-model.md explains each one.
 */
import { RvError } from '../common/errors.ts';

export type CtrSpecVersion = '0.1.4' | '1.0';

/** The CTR depths both versions can encode (v0.1.4 section 2.1 DEPTH, 1.0 `sctrdepth`). */
export type CtrDepth = 16 | 32 | 64 | 128 | 256;
export const CTR_DEPTHS: readonly CtrDepth[] = [16, 32, 64, 128, 256];

/**
 * How a write of a DEPTH value that is not supported is legalised (WARL; ctr.md open point).
 * - `clamp`: v0.1.4 reads the written 4 bits by their highest set bit (0000 = 16, 0001 = 32,
 *   001x = 64, 01xx = 128, 1xxx = 256), 1.0 reads the reserved 11x as "above 256"; the depth is
 *   then clamped into [depthMin, depthMax]. No state dependence: a priority encoder and a clamp.
 * - `keep`: a write of an unsupported value leaves DEPTH unchanged, except that v0.1.4's 0000 and
 *   1111 still give the minimum and maximum (chapter 6, Discovery, requires it).
 */
export type CtrDepthLegalisation = 'clamp' | 'keep';

/**
 * WRPTR after a change of depth (ctr.md open point; 1.0 says "unspecified but legal").
 * - `mask`: WRPTR keeps its low log2(new depth) bits (default).
 * - `zero`: WRPTR becomes 0.
 */
export type CtrWrptrOnDepthChange = 'mask' | 'zero';

/**
 * Physical entries newly exposed by a larger depth (ctr.md open point; 1.0: "unspecified but legal").
 * - `keep`: they hold whatever they held before (default; nothing to do in hardware).
 * - `zero`: the physical entries [old depth, new depth) are zeroed.
 */
export type CtrEntriesOnDepthChange = 'keep' | 'zero';

/**
 * CCV of records made while RASEMU=1 (v0.1.4 section 5.4 note, 1.0 RAS Emulation Mode note; ctr.md
 * open point). Returns that pop a call do not reset the cycle counter, so the count of a later
 * call does not measure the time since its parent.
 * - `popped-parent`: a call recorded after a pop (since the previous record) has CCV=0, and a
 *   co-routine swap (which replaces entry 0) always has CCV=0 (default).
 * - `all-calls`: every record made with RASEMU=1 has CCV=0.
 */
export type CtrRasemuCcvPolicy = 'popped-parent' | 'all-calls';

export interface CtrConfig {
  /** '0.1.4': the seed draft (default); '1.0': the ratified Smctr/Ssctr. */
  readonly specVersion: CtrSpecVersion;
  /** The hart's XLEN (= MXLEN = SXLEN = VSXLEN here; no XLEN switching). */
  readonly xlen: 32 | 64;
  /** The hart implements S-mode (then U-mode too). 1.0 requires it ("Smctr depends on S-mode"). */
  readonly sMode: boolean;
  /** The hart implements U-mode. */
  readonly uMode: boolean;
  /** The hart implements the H extension: vsctrcontrol / vsctrctl, vsiselect/vsireg*, the V bit. */
  readonly hExt: boolean;
  /**
   * Smstateen is implemented: the `mstateen0` / `hstateen0` inputs gate access to CTR state
   * (bit 55 in v0.1.4, 54 in 1.0; bit 60 for the indirect CSRs). Without it they are ignored.
   */
  readonly smstateen: boolean;
  /** Smallest and largest supported depth; every depth in between is supported (section 2.1 DEPTH). */
  readonly depthMin: CtrDepth;
  readonly depthMax: CtrDepth;
  /** Depth selected at reset (the spec gives no reset value). */
  readonly resetDepth: CtrDepth;
  readonly depthLegalisation: CtrDepthLegalisation;
  readonly wrptrOnDepthChange: CtrWrptrOnDepthChange;
  readonly entriesOnDepthChange: CtrEntriesOnDepthChange;
  /** Optional control fields (v0.1.4 section 2.1: "All other fields are optional"). */
  readonly rasemu: boolean;
  /** Required in 1.0. */
  readonly bpfrz: boolean;
  readonly lcofifrz: boolean;
  /** External trap recording: ETEN (v0.1.4 only), MTE, STE (with S-mode), VSTE / vsctrctl.STE (with H). */
  readonly externalTraps: boolean;
  /**
   * The transfer type filter bits implemented: bit t set = the control bit 32+t of TYPE t
   * (EXCINH = type 1 ... DIROJMPINH = type 15; NTBREN is type 4). Types 0, 6 and 7 have none.
   */
  readonly filterMask: number;
  /** ctrdata.TYPE is implemented (optional; "Implementations that do not support this field will report 0"). */
  readonly typeField: boolean;
  /** ctrtarget.MISP is implemented: the `misp` input is recorded; otherwise MISP is read-only 0. */
  readonly misp: boolean;
  /** Cycle counting (ctrdata CCV and CC) is implemented. */
  readonly cycleCounting: boolean;
  /** Implemented exponent bits of CC (CCE), 0..4 (section 5.3). */
  readonly cceBits: number;
  readonly rasemuCcvPolicy: CtrRasemuCcvPolicy;
}

/** Every filter bit the spec defines: types 1-5 and 8-15. */
export const CTR_ALL_FILTERS = 0xff3e;

/** An RV64 M/S/U hart without H, Smstateen present, every optional CTR feature implemented. */
export function defaultCtrConfig(): CtrConfig {
  return {
    specVersion: '0.1.4',
    xlen: 64,
    sMode: true,
    uMode: true,
    hExt: false,
    smstateen: true,
    depthMin: 16,
    depthMax: 256,
    resetDepth: 16,
    depthLegalisation: 'clamp',
    wrptrOnDepthChange: 'mask',
    entriesOnDepthChange: 'keep',
    rasemu: true,
    bpfrz: true,
    lcofifrz: true,
    externalTraps: true,
    filterMask: CTR_ALL_FILTERS,
    typeField: true,
    misp: true,
    cycleCounting: true,
    cceBits: 4,
    rasemuCcvPolicy: 'popped-parent',
  };
}

/** log2(depth) - 4: the 1.0 DEPTH encoding and the index used throughout the model. */
export function depthIndex(depth: CtrDepth): number {
  return CTR_DEPTHS.indexOf(depth);
}

function err(param: string, message: string): RvError {
  return new RvError('invalid-component', message, { path: `parameters/${param}` });
}

/** Every problem with a configuration, each naming the parameter and what is allowed. */
export function validateCtrConfig(c: CtrConfig): RvError[] {
  const errors: RvError[] = [];
  const oneOf = <T>(param: keyof CtrConfig, value: T, allowed: readonly T[]): boolean => {
    if (allowed.includes(value)) return true;
    errors.push(err(param, `${param} is ${String(value)}; allowed: ${allowed.map(String).join(', ')}`));
    return false;
  };
  oneOf('specVersion', c.specVersion, ['0.1.4', '1.0'] as const);
  oneOf('xlen', c.xlen, [32, 64] as const);
  const booleans: (keyof CtrConfig)[] = [
    'sMode', 'uMode', 'hExt', 'smstateen', 'rasemu', 'bpfrz', 'lcofifrz', 'externalTraps', 'typeField', 'misp', 'cycleCounting',
  ];
  for (const b of booleans) oneOf(b, c[b], [true, false]);
  const dmin = oneOf('depthMin', c.depthMin, CTR_DEPTHS);
  const dmax = oneOf('depthMax', c.depthMax, CTR_DEPTHS);
  const dreset = oneOf('resetDepth', c.resetDepth, CTR_DEPTHS);
  if (dmin && dmax && c.depthMin > c.depthMax) {
    errors.push(err('depthMin', `depthMin (${c.depthMin}) is larger than depthMax (${c.depthMax}); the supported depths are the range depthMin..depthMax`));
  }
  if (dmin && dmax && dreset && (c.resetDepth < c.depthMin || c.resetDepth > c.depthMax)) {
    errors.push(err('resetDepth', `resetDepth (${c.resetDepth}) is not a supported depth; allowed: ${c.depthMin}..${c.depthMax}`));
  }
  oneOf('depthLegalisation', c.depthLegalisation, ['clamp', 'keep'] as const);
  oneOf('wrptrOnDepthChange', c.wrptrOnDepthChange, ['mask', 'zero'] as const);
  oneOf('entriesOnDepthChange', c.entriesOnDepthChange, ['keep', 'zero'] as const);
  oneOf('rasemuCcvPolicy', c.rasemuCcvPolicy, ['popped-parent', 'all-calls'] as const);
  if (!Number.isInteger(c.filterMask) || c.filterMask < 0 || (c.filterMask & ~CTR_ALL_FILTERS) !== 0) {
    errors.push(err('filterMask', `filterMask is ${String(c.filterMask)}; allowed: a subset of 0x${CTR_ALL_FILTERS.toString(16)} (bit t = filter bit of TYPE t, t in 1..5, 8..15)`));
  }
  if (!Number.isInteger(c.cceBits) || c.cceBits < 0 || c.cceBits > 4) {
    errors.push(err('cceBits', `cceBits is ${String(c.cceBits)}; allowed: an integer 0..4`));
  } else if (!c.cycleCounting && c.cceBits !== 0) {
    errors.push(err('cceBits', `cceBits is ${c.cceBits} but cycleCounting is false; allowed: 0 without cycle counting`));
  }
  if (c.sMode && !c.uMode) errors.push(err('uMode', 'uMode is false but sMode is true; allowed: S-mode only together with U-mode'));
  if (c.hExt && !c.sMode) errors.push(err('hExt', 'hExt is true but sMode is false; allowed: the H extension only with S-mode'));
  if (c.specVersion === '1.0') {
    if (!c.sMode) errors.push(err('sMode', 'sMode is false; allowed with specVersion 1.0: true (Smctr depends on S-mode)'));
    if (!c.bpfrz) errors.push(err('bpfrz', 'bpfrz is false; allowed with specVersion 1.0: true (BPFRZ is a required field)'));
  }
  return errors;
}
