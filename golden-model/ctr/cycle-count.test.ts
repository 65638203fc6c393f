/**
 * The CC encoding (v0.1.4 §5.3, 1.0 Cycle Counting, ctr.md "Cycle count encoding"). Every
 * expected value below is worked out by hand from the corrected encoder rule:
 *   n < 4096 -> CCE 0, CCM n; else m = index of the highest set bit, CCE = m - 11,
 *   CCM = (n >> (CCE - 1)) & 0xFFF;
 * saturation ("The CC value saturates when all implemented bits in CCM and CCE are 1") at
 * 4095, 8191, 32764, 524224, 134201344 for 0..4 exponent bits (the 1.0 table), and checked against
 * the decode formula: CCE = 0 -> CCM, else (2^12 + CCM) << (CCE - 1).
 */
import { describe, expect, it } from 'vitest';
import { decodeCycleCount, encodeCycleCount, maxCycleCount } from './cycle-count.ts';

// [n, cceBits, CC]: hand-computed. The comment gives m, CCE, CCM where n >= 4096.
const TABLE: [number, number, number][] = [
  // 0 exponent bits: CCE is read-only 0, the largest count is 4095.
  [0, 0, 0x0000],
  [1, 0, 0x0001],
  [4095, 0, 0x0fff],
  [4096, 0, 0x0fff], // saturated
  [8191, 0, 0x0fff],
  // 1 exponent bit: CCE 0..1, largest 8191.
  [4095, 1, 0x0fff],
  [4096, 1, 0x1000], // m 12, CCE 1, CCM 4096 & 0xFFF = 0
  [4097, 1, 0x1001], // m 12, CCE 1, CCM 1
  [8191, 1, 0x1fff], // m 12, CCE 1, CCM 4095
  [8192, 1, 0x1fff], // saturated
  // 2 exponent bits: CCE 0..3, largest 32764.
  [8191, 2, 0x1fff],
  [8192, 2, 0x2000], // m 13, CCE 2, CCM (8192 >> 1) & 0xFFF = 0
  [8193, 2, 0x2000], // m 13, CCE 2, CCM (8193 >> 1) & 0xFFF = 0 (undercount by 1)
  [16383, 2, 0x2fff], // m 13, CCE 2, CCM 8191 & 0xFFF = 4095
  [16384, 2, 0x3000], // m 14, CCE 3, CCM (16384 >> 2) & 0xFFF = 0
  [32764, 2, 0x3fff], // m 14, CCE 3, CCM (32764 >> 2) & 0xFFF = 4095
  [32765, 2, 0x3fff], // saturated
  [32767, 2, 0x3fff],
  // 3 exponent bits: CCE 0..7, largest 524224.
  [32765, 3, 0x3fff], // m 14, CCE 3, CCM 8191 & 0xFFF
  [32768, 3, 0x4000], // m 15, CCE 4, CCM (32768 >> 3) & 0xFFF = 0
  [524224, 3, 0x7fff], // m 18, CCE 7, CCM (524224 >> 6) & 0xFFF = 4095
  [524225, 3, 0x7fff], // saturated
  [524287, 3, 0x7fff],
  // 4 exponent bits: CCE 0..15, largest 134201344.
  [4095, 4, 0x0fff],
  [4096, 4, 0x1000],
  [5000, 4, 0x1388], // m 12, CCE 1, CCM 5000 - 4096 = 904 = 0x388
  [8191, 4, 0x1fff],
  [8192, 4, 0x2000],
  [524288, 4, 0x8000], // m 19, CCE 8, CCM (524288 >> 7) & 0xFFF = 0
  [134201344, 4, 0xffff], // m 26, CCE 15, CCM (134201344 >> 14) & 0xFFF = 4095
  [134201345, 4, 0xffff], // saturated
  [134217727, 4, 0xffff],
  [134217728, 4, 0xffff],
];

describe('encodeCycleCount', () => {
  it.each(TABLE)('n = %i with %i exponent bits -> CC 0x%s', (n, e, cc) => {
    expect(encodeCycleCount(n, e).toString(16)).toBe(cc.toString(16));
  });

  it('the saturation values are the 1.0 table: 4095, 8191, 32764, 524224, 134201344', () => {
    expect([0, 1, 2, 3, 4].map(maxCycleCount)).toEqual([4095, 8191, 32764, 524224, 134201344]);
    for (let e = 0; e <= 4; e++) {
      const max = maxCycleCount(e);
      const all = (((1 << e) - 1) << 12) | 0xfff; // every implemented CCE and CCM bit set
      expect(encodeCycleCount(max, e)).toBe(all);
      expect(decodeCycleCount(all)).toBe(max);
      expect(encodeCycleCount(max + 1, e)).toBe(all);
      expect(encodeCycleCount(max - 1, e)).not.toBe(all);
    }
  });

  it('around every boundary the encoding decodes to n minus the dropped low bits, never more', () => {
    const around = [4095, 4096, 8191, 8192, 16383, 16384, 32764, 32767, 32768, 65535, 65536, 524224, 524287, 524288, 134201344];
    for (let e = 0; e <= 4; e++) {
      const max = maxCycleCount(e);
      for (const center of around) {
        for (let n = Math.max(0, center - 3); n <= center + 3; n++) {
          const cc = encodeCycleCount(n, e);
          const cce = cc >>> 12;
          expect(cce, `n ${n}, e ${e}`).toBeLessThan(1 << e); // unimplemented CCE bits are 0
          if (n > max) {
            expect(decodeCycleCount(cc)).toBe(max);
            continue;
          }
          const decoded = decodeCycleCount(cc);
          // CCE <= 1 is exact; CCE > 1 drops the CCE-1 low bits ("the bottom 2 bits ... are not reported" for CCE=3).
          const granule = cce <= 1 ? 1 : 2 ** (cce - 1);
          expect(decoded, `n ${n}, e ${e}`).toBe(n - (n % granule));
        }
      }
    }
  });

  it('is monotonic in n for every exponent width (0..40000)', () => {
    for (let e = 0; e <= 4; e++) {
      let prev = -1;
      let firstDecrease = -1;
      for (let n = 0; n <= 40000 && firstDecrease < 0; n++) {
        const d = decodeCycleCount(encodeCycleCount(n, e));
        if (d < prev) firstDecrease = n;
        prev = d;
      }
      expect(firstDecrease, `e ${e}`).toBe(-1);
    }
  });

  it('rejects negative counts and exponent widths outside 0..4', () => {
    expect(() => encodeCycleCount(-1, 4)).toThrow();
    expect(() => encodeCycleCount(1, 5)).toThrow();
  });
});

describe('decodeCycleCount', () => {
  it('uses the spec formula: CCE 0 -> CCM, else (2^12 + CCM) << (CCE - 1)', () => {
    expect(decodeCycleCount(0x0abc)).toBe(0xabc);
    expect(decodeCycleCount(0x1000)).toBe(4096);
    expect(decodeCycleCount(0x1fff)).toBe(8191);
    expect(decodeCycleCount(0x2000)).toBe(8192);
    expect(decodeCycleCount(0x3001)).toBe((4096 + 1) * 4);
    expect(decodeCycleCount(0x7fff)).toBe(524224);
    expect(decodeCycleCount(0xffff)).toBe(134201344);
  });
});
