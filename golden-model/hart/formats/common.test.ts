/** `big`: the bigint of a scanned number, from a small cache when the number was seen recently. */
import { describe, expect, it } from 'vitest';
import { big } from './common.ts';

describe('big', () => {
  it('gives the value of every number, also of numbers that share a cache slot', () => {
    // 2, 8194 and 2^32 + 2 fall into the same slot of the 4096-slot cache (bits 12:1 of the value).
    const values = [0, 2, 8194, 2, 2 ** 32 + 2, 8194, 2 ** 52 - 1, 0x8000_0000, 0x8000_0000, 1, 3, 2 ** 53 - 1];
    const expected = [0n, 2n, 8194n, 2n, 4294967298n, 8194n, 4503599627370495n, 2147483648n, 2147483648n, 1n, 3n, 9007199254740991n];
    expect(values.map(big)).toEqual(expected);
    for (let v = 0; v < 50_000; v += 7) expect(big(v)).toBe(BigInt(v));
  });
});
