/**
 * The CTR register map of both spec versions: CSR numbers, field positions, the bits each
 * configuration implements, and the WARL legalisation of DEPTH. Pure functions of the
 * configuration; the unit (unit.ts) holds the state.
 *
 * v0.1.4 (seed, chapter 2 and section 2.6):
 *   mctrcontrol 0x381 (RV32: mctrcontrolh 0x382 = bits 63:32), mctrstatus 0x383,
 *   sctrcontrol 0x181 (h 0x182), sctrstatus 0x183, vsctrcontrol 0x281 (h 0x282).
 *   ctrcontrol: M 0, S 1, U 2, CLR 7, MTE 8, STE 9, RASEMU 10, BPFRZ 11, LCOFIFRZ 12,
 *   DEPTH 19:16, filter bits 33..47 (bit 32 + TYPE; ETEN at 38). vsctrcontrol: VS 1, VU 2, VSTE 9
 *   ("Bit positions for VSTE, VS, and VU in vsctrcontrol match those for STE, S, and U").
 *   mctrstatus: WRPTR 7:0, WRAP 14, FROZEN 15.
 *   Entries: miselect/siselect/vsiselect 0x200..0x2FF with *ireg/*ireg2/*ireg3 (chapter 3).
 * 1.0 (ratified): mctrctl 0x34E, sctrctl 0x14E, vsctrctl 0x24E (64-bit, no h halves),
 *   sctrstatus 0x14F (WRPTR 7:0, FROZEN 31), sctrdepth 0x15F (DEPTH 2:0).
 *   ctrctl: U 0, S 1, M 2, RASEMU 7, STE 8, MTE 9, BPFRZ 11, LCOFIFRZ 12, filters 33..47.
 *   vsctrctl: U 0, S 1, RASEMU 7, STE 8, BPFRZ 11, LCOFIFRZ 12, filters. Entries only through
 *   siselect/vsiselect.
 * Smcsrind/Sscsrind: miselect 0x350, mireg 0x351-0x353, mireg4-6 0x355-0x357 (0x354 is miph);
 *   siselect 0x150..., vsiselect 0x250... (same offsets).
 */
import type { CtrConfig, CtrDepth } from './config.ts';
import { CTR_DEPTHS, depthIndex } from './config.ts';

export const Csr014 = {
  mctrcontrol: 0x381,
  mctrcontrolh: 0x382,
  mctrstatus: 0x383,
  sctrcontrol: 0x181,
  sctrcontrolh: 0x182,
  sctrstatus: 0x183,
  vsctrcontrol: 0x281,
  vsctrcontrolh: 0x282,
} as const;

export const Csr10 = {
  mctrctl: 0x34e,
  sctrctl: 0x14e,
  sctrstatus: 0x14f,
  sctrdepth: 0x15f,
  vsctrctl: 0x24e,
} as const;

export const CsrInd = {
  miselect: 0x350,
  mireg: 0x351,
  mireg2: 0x352,
  mireg3: 0x353,
  mireg4: 0x355,
  mireg5: 0x356,
  mireg6: 0x357,
  siselect: 0x150,
  sireg: 0x151,
  sireg2: 0x152,
  sireg3: 0x153,
  sireg4: 0x155,
  sireg5: 0x156,
  sireg6: 0x157,
  vsiselect: 0x250,
  vsireg: 0x251,
  vsireg2: 0x252,
  vsireg3: 0x253,
  vsireg4: 0x255,
  vsireg5: 0x256,
  vsireg6: 0x257,
} as const;

/** The *iselect range of the CTR entries: 0x200 + logical entry (chapter 3). */
export const CTR_SELECT_FIRST = 0x200;
export const CTR_SELECT_LAST = 0x2ff;

/** The SCTRCLR instruction (1.0): func12 0x104, rs1 0, funct3 0, rd 0, opcode SYSTEM. */
export const SCTRCLR_ENCODING = 0x10400073;

/** The CTR bit of mstateen0 / hstateen0: 55 in v0.1.4 (chapter 4), 54 in 1.0. */
export function stateenCtrBit(c: CtrConfig): number {
  return c.specVersion === '0.1.4' ? 55 : 54;
}

/** The Smcsrind bit of mstateen0 / hstateen0 (siselect, sireg*, vsiselect, vsireg*). */
export const STATEEN_CSRIND_BIT = 60;

/** Field positions of the control register (the M-mode one; the VS one uses S and U for VS and VU). */
export interface ControlLayout {
  readonly m: number;
  readonly s: number;
  readonly u: number;
  readonly mte: number;
  /** STE in [ms]ctrcontrol, VSTE / vsctrctl.STE in the VS register. */
  readonly ste: number;
  readonly rasemu: number;
  readonly bpfrz: number;
  readonly lcofifrz: number;
  /** v0.1.4 only. */
  readonly clr?: number;
  readonly depthLsb?: number;
  readonly eten?: number;
}

export const LAYOUT_014: ControlLayout = { m: 0, s: 1, u: 2, clr: 7, mte: 8, ste: 9, rasemu: 10, bpfrz: 11, lcofifrz: 12, depthLsb: 16, eten: 38 };
export const LAYOUT_10: ControlLayout = { u: 0, s: 1, m: 2, rasemu: 7, ste: 8, mte: 9, bpfrz: 11, lcofifrz: 12 };

export function controlLayout(c: CtrConfig): ControlLayout {
  return c.specVersion === '0.1.4' ? LAYOUT_014 : LAYOUT_10;
}

/** The filter bit of a transfer TYPE: 32 + TYPE (EXCINH 33 ... DIROJMPINH 47; NTBREN 36). */
export function filterBit(type: number): number {
  return 32 + type;
}

export const bit = (n: number): bigint => 1n << BigInt(n);

/** The bits of the M-level control register the configuration implements as storage (not CLR, not DEPTH). */
export function mControlMask(c: CtrConfig): bigint {
  const l = controlLayout(c);
  let m = bit(l.m);
  if (c.sMode) m |= bit(l.s);
  if (c.uMode) m |= bit(l.u);
  if (c.externalTraps) {
    m |= bit(l.mte);
    if (c.sMode) m |= bit(l.ste);
    if (l.eten !== undefined) m |= bit(l.eten);
  }
  if (c.rasemu) m |= bit(l.rasemu);
  if (c.bpfrz) m |= bit(l.bpfrz);
  if (c.lcofifrz) m |= bit(l.lcofifrz);
  m |= filterBits(c);
  return m;
}

/** The bits of the S-level view (sctrcontrol / sctrctl): M and MTE are read-only 0 there. */
export function sControlMask(c: CtrConfig): bigint {
  const l = controlLayout(c);
  return mControlMask(c) & ~(bit(l.m) | bit(l.mte));
}

/** The bits vsctrcontrol / vsctrctl implements (0 without H). */
export function vsControlMask(c: CtrConfig): bigint {
  if (!c.hExt) return 0n;
  const l = controlLayout(c);
  let m = bit(l.s) | bit(l.u);
  if (c.externalTraps) {
    m |= bit(l.ste);
    if (l.eten !== undefined) m |= bit(l.eten);
  }
  if (c.rasemu) m |= bit(l.rasemu);
  if (c.bpfrz) m |= bit(l.bpfrz);
  if (c.lcofifrz) m |= bit(l.lcofifrz);
  m |= filterBits(c);
  return m;
}

function filterBits(c: CtrConfig): bigint {
  let m = 0n;
  for (let t = 0; t < 16; t++) if ((c.filterMask >> t) & 1) m |= bit(filterBit(t));
  return m;
}

/** v0.1.4 DEPTH encodings 0000, 0001, 0011, 0111, 1111 for 16..256. */
export function depthEncoding014(index: number): number {
  return (1 << index) - 1;
}

/**
 * The depth index (0..4) a write of `value` selects (WARL), given the current index.
 * v0.1.4: `value` is DEPTH[3:0] of the written ctrcontrol; 1.0: DEPTH[2:0] of sctrdepth.
 */
export function legaliseDepth(c: CtrConfig, value: number, current: number): number {
  const lo = depthIndex(c.depthMin);
  const hi = depthIndex(c.depthMax);
  const clamp = (i: number): number => Math.min(hi, Math.max(lo, i));
  if (c.specVersion === '0.1.4') {
    const v = value & 0xf;
    // Chapter 6 (Discovery): 0000 reads back the minimum, 1111 the maximum supported depth.
    if (v === 0) return lo;
    if (v === 0xf) return hi;
    if (c.depthLegalisation === 'clamp') return clamp(32 - Math.clz32(v)); // highest set bit + 1
    const exact = [0, 1, 2, 3, 4].find((i) => depthEncoding014(i) === v);
    return exact !== undefined && exact >= lo && exact <= hi ? exact : current;
  }
  const v = value & 0x7;
  if (c.depthLegalisation === 'clamp') return clamp(Math.min(v, 4)); // 11x (reserved) reads as above 256
  return v >= lo && v <= hi ? v : current;
}

export function depthOf(index: number): CtrDepth {
  return CTR_DEPTHS[index]!;
}

/** ctrdata bits: TYPE 3:0, CCV 15, CC 31:16 (CCM 27:16, CCE 31:28). */
export const DATA_CCV_BIT = 15;
export const DATA_CC_LSB = 16;

/** The ctrdata bits the configuration implements (everything else reads 0: WPRI and unimplemented fields). */
export function dataMask(c: CtrConfig): number {
  let m = c.typeField ? 0xf : 0;
  if (c.cycleCounting) m |= (1 << DATA_CCV_BIT) | (0xfff << DATA_CC_LSB) | (((1 << c.cceBits) - 1) << (DATA_CC_LSB + 12));
  return m >>> 0;
}

/** XLEN ones (a constant per XLEN: the model asks for it on every transfer). */
export function xlenMask(c: CtrConfig): bigint {
  return c.xlen === 32 ? 0xffff_ffffn : 0xffff_ffff_ffff_ffffn;
}

/** ctrsource: PC[XLEN-1:1] and V (bit 0), all writable. */
export function sourceMask(c: CtrConfig): bigint {
  return xlenMask(c);
}

/** ctrtarget: PC[XLEN-1:1], and MISP (bit 0) when implemented. */
export function targetMask(c: CtrConfig): bigint {
  return c.misp ? xlenMask(c) : xlenMask(c) & ~1n;
}
