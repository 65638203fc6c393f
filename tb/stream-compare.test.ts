import { describe, expect, it } from 'vitest';
import { StreamCompare } from './stream-compare.ts';

/** A stream of n bytes with a pattern that does not repeat soon. */
const stream = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 37 + (i >> 8)) & 0xff);

/**
 * Feeds both sides interleaved: the model in pieces of `piece` bytes, `lead` bytes ahead of the
 * RTL (negative: behind it); RTL byte i leaves in cycle 1000 + 2i.
 */
function feed(compare: StreamCompare, model: Uint8Array, rtl: Uint8Array, piece: number, lead: number): void {
  let m = 0;
  let r = 0;
  while (m < model.length || r < rtl.length) {
    if (m < model.length && (r >= rtl.length || m - r < lead)) {
      compare.expected(model.subarray(m, Math.min(model.length, m + piece)));
      m = Math.min(model.length, m + piece);
    } else {
      compare.actual(rtl[r]!, 1000 + 2 * r);
      r++;
    }
  }
}

describe('StreamCompare', () => {
  for (const lead of [5000, 100, 1, -1, -5000]) {
    it(`finds no difference in identical streams (model ${lead > 0 ? 'ahead' : 'behind'} by ${Math.abs(lead)} bytes)`, () => {
      const s = stream(20_000);
      const compare = new StreamCompare();
      feed(compare, s, s.slice(), 64, lead);
      expect(compare.result()).toBeUndefined();
    });

    it(`reports the first differing byte, its cycle and the RTL's bytes from it (model ${lead > 0 ? 'ahead' : 'behind'} by ${Math.abs(lead)})`, () => {
      const s = stream(20_000);
      const rtl = s.slice();
      rtl[12_345] ^= 0x10;
      rtl[12_346] ^= 0x01;
      const compare = new StreamCompare();
      feed(compare, s, rtl, 64, lead);
      const d = compare.result()!;
      expect(d.offset).toBe(12_345);
      expect(d.cycle).toBe(1000 + 2 * 12_345);
      expect(d.actualLength).toBe(20_000);
      expect(Array.from(d.actualFrom.subarray(0, 3))).toEqual([rtl[12_345], rtl[12_346], rtl[12_347]]);
      expect(d.actualFrom.length).toBe(256);
    });
  }

  it('reports where a shorter RTL stream ends, at the cycle of its last byte', () => {
    const s = stream(3000);
    const compare = new StreamCompare();
    feed(compare, s, s.subarray(0, 2000), 100, 50);
    expect(compare.result()).toEqual({ offset: 2000, cycle: 1000 + 2 * 1999, actualLength: 2000, actualFrom: new Uint8Array(0) });
  });

  it('reports where a longer RTL stream goes on, with its extra bytes and the cycle of the first', () => {
    const s = stream(3000);
    const compare = new StreamCompare();
    feed(compare, s.subarray(0, 2000), s, 100, -50);
    const d = compare.result()!;
    expect(d.offset).toBe(2000);
    expect(d.cycle).toBe(1000 + 2 * 2000);
    expect(d.actualLength).toBe(3000);
    expect(Array.from(d.actualFrom)).toEqual(Array.from(s.subarray(2000, 2256)));
  });

  it('keeps both streams only when asked', () => {
    const s = stream(5000);
    const rtl = s.slice();
    rtl[4000] = ~rtl[4000]! & 0xff;
    const kept = new StreamCompare(true);
    feed(kept, s, rtl, 7, 30);
    expect(kept.keptBytes()).toEqual({ expected: s, actual: rtl });
    const dropped = new StreamCompare();
    feed(dropped, s, rtl, 7, 30);
    expect(dropped.keptBytes()).toBeUndefined();
    expect(dropped.result()?.offset).toBe(4000);
  });
});
