/**
 * The bit layouts and masks of the PMU CSRs as the RTL generator and the IP-XACT export need them
 * (docs/pmu-model.md, "CSRs"): one place for every bit position and mask the generated RTL and
 * the register map use. The golden model keeps its own (golden-model/pmu/registers.ts); the two
 * are written from the same text and compared by co-simulation.
 */
import { CY, hpmCounters, implementedCounterBits, IR, type PmuConfig, TM } from '../../golden-model/pmu/config.ts';

/** mhpmevent (Sscofpmf) and mcyclecfg/minstretcfg: the overflow bit. */
export const OF_BIT = 63;

/**
 * The mode-inhibit bits of mhpmevent (Sscofpmf) and of mcyclecfg/minstretcfg (Smcntrpmf), highest
 * first: bit 62 MINH, 61 SINH, 60 UINH, 59 VSINH, 58 VUINH. The RTL keeps them as a 5-bit vector
 * in this order (vector bit 4 = MINH ... bit 0 = VUINH), and the mode of a cycle as a one-hot
 * vector in the same order, so that "inhibited in this mode" is one AND.
 */
export const MODE_FIELDS = ['MINH', 'SINH', 'UINH', 'VSINH', 'VUINH'] as const;
export const MODE_LSB = 58;
export const MODE_COUNT = MODE_FIELDS.length;

/** The modes the hart has, as the 5-bit vector above (M always; S, U, and VS/VU with H). */
export function modeMask(c: PmuConfig): number {
  const present = [true, c.sMode, c.uMode, c.hExt, c.hExt];
  return present.reduce((m, p, i) => (p ? m | (1 << (MODE_COUNT - 1 - i)) : m), 0);
}

/** The bit of a mode field in the 64-bit register. */
export function modeBit(field: (typeof MODE_FIELDS)[number]): number {
  return MODE_LSB + MODE_COUNT - 1 - MODE_FIELDS.indexOf(field);
}

/** mcountinhibit: CY, IR and the implemented counters (TM reads 0). */
export function inhibitMask(c: PmuConfig): number {
  return implementedCounterBits(c);
}

/** mcounteren, scounteren, hcounteren: CY, TM, IR and the implemented counters. */
export function enableMask(c: PmuConfig): number {
  return (implementedCounterBits(c) | (1 << TM)) >>> 0;
}

/** The implemented (readable, and apart from OF's hardware update, writable) bits of mhpmevent. */
export function eventMask(c: PmuConfig): bigint {
  let m = (1n << BigInt(c.eventBits)) - 1n;
  if (c.sscofpmf) m |= (1n << BigInt(OF_BIT)) | (BigInt(modeMask(c)) << BigInt(MODE_LSB));
  return m;
}

/** The implemented bits of mcyclecfg and minstretcfg (Smcntrpmf): the inhibit bits of the hart's modes. */
export function cfgMask(c: PmuConfig): bigint {
  return c.smcntrpmf ? BigInt(modeMask(c)) << BigInt(MODE_LSB) : 0n;
}

/**
 * The hard-wired selector of mhpmevent<n> with eventLegalisation "hardwired": that of the
 * (n-3)-th item of the event map, 0 past its end.
 */
export function hardwiredSelector(c: PmuConfig, n: number): bigint {
  return c.events[n - 3]?.selector ?? 0n;
}

/** The selector a write of `value` (the 64-bit register value) leaves in mhpmevent<n>. */
export function legaliseSelector(c: PmuConfig, n: number, value: bigint): bigint {
  const sel = value & ((1n << BigInt(c.eventBits)) - 1n);
  switch (c.eventLegalisation) {
    case 'mask':
      return sel;
    case 'clamp':
      return sel > c.eventMax ? c.eventMax : sel;
    case 'hardwired':
      return hardwiredSelector(c, n);
  }
}

/** The implemented bits of the counter `index` (0 mcycle, 2 minstret: 64; hpm: counterWidth or 0). */
export function counterBits(c: PmuConfig, index: number): number {
  if (index === CY || index === IR) return 64;
  return hpmCounters(c).includes(index) ? c.counterWidth : 0;
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
