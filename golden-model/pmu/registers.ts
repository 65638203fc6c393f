/**
 * The PMU counter block's bit layouts and WARL legalisation (docs/pmu-model.md, "CSRs"): pure
 * functions of the configuration returning bigint (64-bit registers) or number (32-bit bitmaps).
 * The unit (unit.ts) holds the state; the RTL generator takes its masks and bit positions from
 * here, so the model and the RTL cannot disagree on a bit.
 *
 * Spec text the layouts come from:
 * - Sscofpmf: "mhpmevent[63] OF, [62] MINH, [61] SINH, [60] UINH, [59] VSINH, [58] VUINH";
 *   "If a mode is not implemented, the corresponding inhibit bit is read-only zero".
 * - Smcntrpmf: mcyclecfg / minstretcfg have the same MINH..VUINH bits 62..58 (bit 63 reserved).
 * - Priv spec (Zicntr/Zihpm, mcountinhibit, mcounteren): bit n of a counter bitmap is counter n
 *   (0 CY, 1 TM, 2 IR, 3..31 HPMn); mcountinhibit bit 1 is read-only 0 (time is not inhibited);
 *   RV32 reaches bits 63..32 of a 64-bit CSR through its `h` partner.
 */
import { IR, type PmuConfig, TM, implementedCounterBits } from './config.ts';

export const bit = (n: number): bigint => 1n << BigInt(n);

const ONES64 = (1n << 64n) - 1n;

/** Bit positions of mhpmevent (Sscofpmf) and of mcyclecfg / minstretcfg (Smcntrpmf; no OF). */
export const EVENT_BITS = {
  of: 63,
  minh: 62,
  sinh: 61,
  uinh: 60,
  vsinh: 59,
  vuinh: 58,
} as const;

/** Bits 57..56 of mhpmevent are reserved (read 0) with Sscofpmf; the selector ends below them. */
export const SSCOFPMF_SELECTOR_LIMIT = 56;

/** A mode of the hart as the counters filter it: M, S (HS with H), U, VS, VU. */
export type PmuMode = 'm' | 's' | 'u' | 'vs' | 'vu';

/** The inhibit bit (62..58) of a mode, in mhpmevent and in the cfg registers. */
export function modeInhibitBit(mode: PmuMode): number {
  switch (mode) {
    case 'm':
      return EVENT_BITS.minh;
    case 's':
      return EVENT_BITS.sinh;
    case 'u':
      return EVENT_BITS.uinh;
    case 'vs':
      return EVENT_BITS.vsinh;
    case 'vu':
      return EVENT_BITS.vuinh;
  }
}

/** The mode-inhibit bits of the modes the hart has (the others are read-only 0). */
export function modeInhibitMask(c: PmuConfig): bigint {
  let m = bit(EVENT_BITS.minh);
  if (c.sMode) m |= bit(EVENT_BITS.sinh);
  if (c.uMode) m |= bit(EVENT_BITS.uinh);
  if (c.hExt) m |= bit(EVENT_BITS.vsinh) | bit(EVENT_BITS.vuinh);
  return m;
}

/** The implemented selector bits of mhpmevent: eventBits-1..0. */
export function selectorMask(c: PmuConfig): bigint {
  return bit(c.eventBits) - 1n;
}

/** The Sscofpmf bits of mhpmevent: OF and the inhibit bits of the modes the hart has (0 without Sscofpmf). */
export function sscofpmfMask(c: PmuConfig): bigint {
  return c.sscofpmf ? bit(EVENT_BITS.of) | modeInhibitMask(c) : 0n;
}

/** Every bit of an implemented mhpmevent that can read 1. */
export function eventReadMask(c: PmuConfig): bigint {
  return selectorMask(c) | sscofpmfMask(c);
}

/** The bits of an implemented mhpmevent a write can change (the selector is read-only when hardwired). */
export function eventWritableMask(c: PmuConfig): bigint {
  return c.eventLegalisation === 'hardwired' ? sscofpmfMask(c) : eventReadMask(c);
}

/** The selector hard-wired into mhpmevent<index> (eventLegalisation "hardwired"): the (index-3)-th item of the event map, 0 past its end. */
export function hardwiredSelector(c: PmuConfig, index: number): bigint {
  return (c.events[index - 3]?.selector ?? 0n) & selectorMask(c);
}

/** A written selector, legalised (WARL): mask to eventBits; clamp to eventMax; or the hard-wired one. */
export function legaliseSelector(c: PmuConfig, index: number, selector: bigint): bigint {
  switch (c.eventLegalisation) {
    case 'mask':
      return selector & selectorMask(c);
    case 'clamp': {
      const s = selector & selectorMask(c);
      return s > c.eventMax ? c.eventMax : s;
    }
    case 'hardwired':
      return hardwiredSelector(c, index);
  }
}

/**
 * The full 64-bit mhpmevent<index> a written value becomes: the legalised selector and the
 * Sscofpmf bits of the modes the hart has; 0 for a counter that is not implemented.
 */
export function legaliseEvent(c: PmuConfig, index: number, value: bigint): bigint {
  if (index < 3 || !counterIsImplemented(c, index)) return 0n;
  return legaliseSelector(c, index, value) | (value & sscofpmfMask(c));
}

/** The reset value of mhpmevent<index>: 0, except the hard-wired selector. */
export function eventResetValue(c: PmuConfig, index: number): bigint {
  return legaliseEvent(c, index, 0n);
}

/** Whether counter `index` (0 mcycle, 2 minstret, 3..31 mhpmcounter) exists; 1 (time) is not a PMU counter. */
export function counterIsImplemented(c: PmuConfig, index: number): boolean {
  return index >= 0 && index < 32 && ((implementedCounterBits(c) >>> index) & 1) === 1;
}

/** The implemented bits of counter `index`: 64 for mcycle and minstret, counterWidth for an implemented mhpmcounter, none otherwise. */
export function counterMaskOf(c: PmuConfig, index: number): bigint {
  if (index === 0 || index === IR) return ONES64;
  return counterIsImplemented(c, index) ? bit(c.counterWidth) - 1n : 0n;
}

/** The writable bits of mcounteren, scounteren and hcounteren: CY, TM, IR and the implemented counters. */
export function counterEnableMask(c: PmuConfig): number {
  return (implementedCounterBits(c) | (1 << TM)) >>> 0;
}

/** The writable bits of mcountinhibit: CY, IR and the implemented counters (TM is read-only 0). */
export function countInhibitMask(c: PmuConfig): number {
  return implementedCounterBits(c);
}

/** The bits of scountovf that can read 1: the implemented hpm counters (with Sscofpmf). */
export function scountovfMask(c: PmuConfig): number {
  return c.sscofpmf ? (c.counterMask & ~7) >>> 0 : 0;
}

/** The implemented bits of mcyclecfg and minstretcfg: the inhibit bits of the modes the hart has (with Smcntrpmf). */
export function cfgMask(c: PmuConfig): bigint {
  return c.smcntrpmf ? modeInhibitMask(c) : 0n;
}

/** All ones over XLEN. */
export function xlenMask(c: PmuConfig): bigint {
  return c.xlen === 32 ? 0xffff_ffffn : ONES64;
}

/**
 * What a CSR access sees of a 64-bit register: the whole value on RV64; on RV32 bits 31..0, or
 * bits 63..32 for the `h` CSR.
 */
export function readHalf(c: PmuConfig, value: bigint, high: boolean): bigint {
  if (c.xlen === 64) return value;
  return high ? (value >> 32n) & 0xffff_ffffn : value & 0xffff_ffffn;
}

/**
 * A 64-bit register after a write of one half (the whole register on RV64), before
 * legalisation: the written half is (start & ~wmask) | (wdata & wmask) over XLEN bits, taken from
 * `start` (the value at the start of the cycle); the other half is taken from `other` (the value
 * the rest of the cycle left there).
 */
export function writeHalf(c: PmuConfig, start: bigint, other: bigint, high: boolean, wdata: bigint, wmask: bigint): bigint {
  const x = xlenMask(c);
  const half = (readHalf(c, start, high) & ~wmask & x) | (wdata & wmask & x);
  if (c.xlen === 64) return half;
  return high ? (half << 32n) | (other & 0xffff_ffffn) : (other & 0xffff_ffff_0000_0000n) | half;
}

/** The privilege level a CSR number requires: bits 9..8 (0 U, 1 S, 2 H, 3 M). */
export function csrLevel(address: number): number {
  return (address >> 8) & 3;
}

/** A read-only CSR number: bits 11..10 = 3. */
export function csrReadOnly(address: number): boolean {
  return ((address >> 10) & 3) === 3;
}
