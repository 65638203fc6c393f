/**
 * What the RTL generator and the IP-XACT export need of the PMU CSRs' bit layouts beyond the
 * model's own: the RTL's 5-bit vector of the mode-inhibit bits and the named fields of the register
 * map. Bit positions, masks, legalisation and counter widths are the model's
 * (golden-model/pmu/registers.ts), imported from there, so that the model and the RTL cannot
 * disagree on a bit.
 */
import { CY, IR, type PmuConfig, TM } from '../../golden-model/pmu/config.ts';
import { counterMaskOf, EVENT_BITS, modeInhibitBit, modeInhibitMask, type PmuMode } from '../../golden-model/pmu/registers.ts';

/**
 * The mode-inhibit bits of mhpmevent (Sscofpmf) and of mcyclecfg/minstretcfg (Smcntrpmf) as the
 * RTL keeps them: a 5-bit vector, highest register bit first (vector bit 4 = MINH, bit 62, ...
 * bit 0 = VUINH, bit 58), and the mode of a cycle as a one-hot vector in the same order, so that
 * "inhibited in this mode" is one AND. The field names are the specification's.
 */
export const MODE_FIELDS = ['MINH', 'SINH', 'UINH', 'VSINH', 'VUINH'] as const;
export const MODE_COUNT = MODE_FIELDS.length;
/** Register bit of vector bit 0 (VUINH). */
export const MODE_LSB = EVENT_BITS.vuinh;

const FIELD_MODE: Record<(typeof MODE_FIELDS)[number], PmuMode> = { MINH: 'm', SINH: 's', UINH: 'u', VSINH: 'vs', VUINH: 'vu' };

/** The register bit of a mode field. */
export function modeBit(field: (typeof MODE_FIELDS)[number]): number {
  return modeInhibitBit(FIELD_MODE[field]);
}

/** The modes the hart has, as the 5-bit vector above (the model's mode-inhibit mask, shifted down). */
export function modeMask(c: PmuConfig): number {
  return Number(modeInhibitMask(c) >> BigInt(MODE_LSB));
}

/** The implemented bits of the counter `index` (0 mcycle, 2 minstret: 64; hpm: counterWidth or 0), from the model's counter mask. */
export function counterBits(c: PmuConfig, index: number): number {
  const m = counterMaskOf(c, index);
  return m === 0n ? 0 : m.toString(2).length;
}

/** One named field of a CSR, in the bits of one CSR (one half on RV32). */
export interface PmuField {
  readonly name: string;
  readonly lsb: number;
  readonly width: number;
  readonly access: 'read-only' | 'read-write';
  readonly reset: bigint;
  readonly description: string;
}

/** A 64-bit register's fields as seen through the CSR of `half` (0: bits 31..0 or all of RV64, 1: bits 63..32). */
export function fieldsOfHalf(fields: readonly PmuField[], xlen: 32 | 64, half: 0 | 1): PmuField[] {
  if (xlen === 64) return [...fields];
  const lo = half * 32;
  const out: PmuField[] = [];
  for (const f of fields) {
    const a = Math.max(f.lsb, lo);
    const b = Math.min(f.lsb + f.width, lo + 32);
    if (a >= b) continue;
    const split = a !== f.lsb || b !== f.lsb + f.width;
    out.push({ ...f, name: split ? `${f.name}${half === 1 ? '_HI' : '_LO'}` : f.name, lsb: a - lo, width: b - a, reset: (f.reset >> BigInt(a - f.lsb)) & ((1n << BigInt(b - a)) - 1n) });
  }
  return out;
}

/** A bit map of counters as fields (CY, TM, IR, HPM<n>) for the bits set in `mask`. */
export function counterBitFields(mask: number, access: PmuField['access'], what: (n: number) => string): PmuField[] {
  const names: Record<number, string> = { [CY]: 'CY', [TM]: 'TM', [IR]: 'IR' };
  const out: PmuField[] = [];
  for (let n = 0; n < 32; n++) {
    if ((mask >>> n) & 1) out.push({ name: names[n] ?? `HPM${n}`, lsb: n, width: 1, access, reset: 0n, description: what(n) });
  }
  return out;
}
