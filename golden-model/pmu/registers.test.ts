/**
 * The masks and layouts the RTL generator takes from registers.ts, checked against values typed
 * from the spec text: Sscofpmf "mhpmevent[63] OF, [62] MINH, [61] SINH, [60] UINH, [59] VSINH,
 * [58] VUINH"; Smcntrpmf the same inhibit bits in mcyclecfg/minstretcfg; the priv spec's counter
 * bitmaps (bit 0 CY, 1 TM, 2 IR, n HPMn); CSR number bits 9..8 = level, 11..10 = 3 read-only.
 */
import { describe, expect, it } from 'vitest';
import {
  cfgMask,
  counterEnableMask,
  counterMaskOf,
  countInhibitMask,
  csrLevel,
  csrReadOnly,
  eventReadMask,
  eventWritableMask,
  hardwiredSelector,
  legaliseEvent,
  legaliseSelector,
  modeInhibitMask,
  readHalf,
  scountovfMask,
  writeHalf,
} from './registers.ts';
import { defaultPmuConfig } from './settings.ts';

const cfg = defaultPmuConfig;

describe('mode-inhibit bits of the modes the hart has (Sscofpmf / Smcntrpmf)', () => {
  it('M, S, U, VS, VU: bits 62..58', () => expect(modeInhibitMask(cfg())).toBe(0x7c00_0000_0000_0000n));
  it('no H: VSINH and VUINH read 0', () => expect(modeInhibitMask(cfg({ hExt: false }))).toBe(0x7000_0000_0000_0000n));
  it('M and U: MINH and UINH', () => expect(modeInhibitMask(cfg({ sMode: false, hExt: false }))).toBe(0x5000_0000_0000_0000n));
  it('M only: MINH', () => expect(modeInhibitMask(cfg({ sMode: false, uMode: false, hExt: false }))).toBe(0x4000_0000_0000_0000n));
});

describe('mhpmevent masks', () => {
  it('Sscofpmf, 20 selector bits: OF, the five inhibits, bits 19..0', () => {
    expect(eventReadMask(cfg())).toBe(0xfc00_0000_000f_ffffn);
    expect(eventWritableMask(cfg())).toBe(0xfc00_0000_000f_ffffn);
  });
  it('without Sscofpmf: the selector only', () => expect(eventReadMask(cfg({ sscofpmf: false }))).toBe(0xf_ffffn));
  it('hardwired: only the Sscofpmf bits are writable', () => expect(eventWritableMask(cfg({ eventLegalisation: 'hardwired' }))).toBe(0xfc00_0000_0000_0000n));
});

describe('selector legalisation', () => {
  const clamp = cfg({ eventBits: 8, eventLegalisation: 'clamp', eventMax: 0x40n });
  it('mask keeps eventBits bits', () => expect(legaliseSelector(cfg({ eventBits: 8 }), 3, 0x1234n)).toBe(0x34n));
  it('clamp: above eventMax becomes eventMax, after masking', () => {
    expect(legaliseSelector(clamp, 3, 0x41n)).toBe(0x40n);
    expect(legaliseSelector(clamp, 3, 0x3fn)).toBe(0x3fn);
    expect(legaliseSelector(clamp, 3, 0x40n)).toBe(0x40n);
    expect(legaliseSelector(clamp, 3, 0x141n)).toBe(0x40n); // masked to 0x41 first
    expect(legaliseSelector(clamp, 3, 0x100n)).toBe(0x0n); // masked to 0
  });
  it('hardwired: mhpmevent<n> = the (n-3)-th item of the default map (18 items), 0 past its end', () => {
    const h = cfg({ eventLegalisation: 'hardwired' });
    expect(hardwiredSelector(h, 3)).toBe(0x1n);
    expect(hardwiredSelector(h, 4)).toBe(0x2n);
    expect(hardwiredSelector(h, 11)).toBe(0x10019n); // item 8
    expect(hardwiredSelector(h, 20)).toBe(0x106n); // item 17, the last
    expect(hardwiredSelector(h, 21)).toBe(0n);
    expect(legaliseSelector(h, 4, 0x5n)).toBe(0x2n);
  });
  it('legaliseEvent: bits 57..56 and selector bits above eventBits read 0; unimplemented counters 0', () => {
    expect(legaliseEvent(cfg(), 3, 0x0300_0000_0010_0001n)).toBe(0x1n);
    expect(legaliseEvent(cfg(), 3, 0x8400_0000_0000_0005n)).toBe(0x8400_0000_0000_0005n); // OF, VUINH
    expect(legaliseEvent(cfg({ counterMask: 0x8 }), 4, 0x5n)).toBe(0n);
  });
});

describe('counter widths and bitmaps', () => {
  it('mcycle and minstret 64 bits, hpm counterWidth bits, missing counters none', () => {
    const c = cfg({ counterMask: 0x18, counterWidth: 40 });
    expect(counterMaskOf(c, 0)).toBe((1n << 64n) - 1n);
    expect(counterMaskOf(c, 2)).toBe((1n << 64n) - 1n);
    expect(counterMaskOf(c, 3)).toBe(0xff_ffff_ffffn);
    expect(counterMaskOf(c, 5)).toBe(0n);
    expect(counterMaskOf(c, 1)).toBe(0n);
  });
  it('counter-enable bits: CY, TM, IR and the implemented counters; mcountinhibit without TM', () => {
    expect(counterEnableMask(cfg())).toBe(0xffff_ffff);
    expect(countInhibitMask(cfg())).toBe(0xffff_fffd);
    expect(counterEnableMask(cfg({ counterMask: 0x78 }))).toBe(0x7f);
    expect(countInhibitMask(cfg({ counterMask: 0x78 }))).toBe(0x7d);
    expect(counterEnableMask(cfg({ counterMask: 0x8000_0010 }))).toBe(0x8000_0017);
  });
  it('scountovf: the implemented hpm counters with Sscofpmf', () => {
    expect(scountovfMask(cfg({ counterMask: 0x78 }))).toBe(0x78);
    expect(scountovfMask(cfg({ sscofpmf: false }))).toBe(0);
  });
  it('mcyclecfg / minstretcfg: the inhibit bits with Smcntrpmf', () => {
    expect(cfgMask(cfg())).toBe(0x7c00_0000_0000_0000n);
    expect(cfgMask(cfg({ hExt: false }))).toBe(0x7000_0000_0000_0000n);
    expect(cfgMask(cfg({ smcntrpmf: false }))).toBe(0n);
  });
});

describe('RV32 halves', () => {
  const rv32 = cfg({ xlen: 32 });
  it('readHalf: bits 31..0, or 63..32 for the h CSR; RV64 the whole value', () => {
    expect(readHalf(rv32, 0x1111_2222_3333_4444n, false)).toBe(0x3333_4444n);
    expect(readHalf(rv32, 0x1111_2222_3333_4444n, true)).toBe(0x1111_2222n);
    expect(readHalf(cfg(), 0x1111_2222_3333_4444n, false)).toBe(0x1111_2222_3333_4444n);
  });
  it('writeHalf: written half from the start value, the other half from `other`', () => {
    const start = 0x1111_2222_3333_4444n;
    const other = 0x5555_6666_7777_8888n;
    // (0x33334444 & ~0xffff0000) | (0xaaaabbbb & 0xffff0000) = 0xaaaa4444
    expect(writeHalf(rv32, start, other, false, 0xaaaa_bbbbn, 0xffff_0000n)).toBe(0x5555_6666_aaaa_4444n);
    // (0x11112222 & ~0xffff0000) | 0xaaaa0000 = 0xaaaa2222
    expect(writeHalf(rv32, start, other, true, 0xaaaa_bbbbn, 0xffff_0000n)).toBe(0xaaaa_2222_7777_8888n);
    // wdata bits above XLEN are ignored
    expect(writeHalf(rv32, 0n, 0n, false, 0x1_0000_0001n, 0xffff_ffff_ffffn)).toBe(0x1n);
  });
});

describe('CSR number fields', () => {
  it('level = bits 9..8', () => {
    expect(csrLevel(0xb00)).toBe(3);
    expect(csrLevel(0x320)).toBe(3);
    expect(csrLevel(0x606)).toBe(2);
    expect(csrLevel(0x106)).toBe(1);
    expect(csrLevel(0xda0)).toBe(1);
    expect(csrLevel(0xc00)).toBe(0);
  });
  it('read-only = bits 11..10 both set', () => {
    expect(csrReadOnly(0xc00)).toBe(true);
    expect(csrReadOnly(0xc9f)).toBe(true);
    expect(csrReadOnly(0xda0)).toBe(true);
    expect(csrReadOnly(0xb00)).toBe(false);
    expect(csrReadOnly(0x723)).toBe(false);
  });
});
