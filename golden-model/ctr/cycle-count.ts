/**
 * The CC field of ctrdata (v0.1.4 section 5.3, 1.0 "Cycle Counting"): a 12-bit mantissa CCM in
 * CC[11:0] and an exponent CCE in CC[15:12], of which an implementation has 0..4 bits.
 *
 * Decode (both versions): CCE = 0 -> CCM; else (2^12 + CCM) << (CCE - 1).
 * Encode: the rule printed in the ratified text ("CCE holds the index of the most significant one
 * bit minus 12") maps 4096 to zero; the corrected rule (ctr.md) is used: n < 4096 -> CCE 0,
 * CCM n; else, m = index of the highest set bit (m >= 12), CCE = m - 11, CCM = (n >> (CCE - 1)) &
 * 0xFFF. "The CC value saturates when all implemented bits in CCM and CCE are 1": with e exponent
 * bits the largest encodable count is 4095, 8191, 32764, 524224, 134201344 for e = 0..4, and any
 * larger count encodes as CCE = 2^e - 1, CCM = 0xFFF.
 */

/** The largest elapsed count CC can hold with `cceBits` exponent bits (the 1.0 table). */
export function maxCycleCount(cceBits: number): number {
  checkCceBits(cceBits);
  if (cceBits === 0) return 0xfff;
  const cceMax = (1 << cceBits) - 1;
  return (0x1000 + 0xfff) * 2 ** (cceMax - 1);
}

/** The 16-bit CC value (CCE in bits 15:12, CCM in 11:0) for an elapsed count `n`. */
export function encodeCycleCount(n: number, cceBits: number): number {
  checkCceBits(cceBits);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`cycle count ${n} is not a non-negative integer`);
  if (n > maxCycleCount(cceBits)) return (((1 << cceBits) - 1) << 12) | 0xfff;
  if (n < 0x1000) return n;
  const m = 31 - Math.clz32(n); // n <= 134201344 < 2^31
  const cce = m - 11;
  const ccm = (n >>> (cce - 1)) & 0xfff;
  return (cce << 12) | ccm;
}

/** The elapsed count a 16-bit CC value stands for (the spec's formula). */
export function decodeCycleCount(cc: number): number {
  const cce = (cc >>> 12) & 0xf;
  const ccm = cc & 0xfff;
  return cce === 0 ? ccm : (0x1000 + ccm) * 2 ** (cce - 1);
}

/**
 * The model's cycle counter saturates here: 27 bits, the CtrCycleCounter size the 1.0 table gives
 * for 4 exponent bits. Any saturating counter at least as wide as the table's width for the
 * implemented CCE bits (12, 13, 15, 19, 27) encodes the same CC values.
 */
export const CTR_COUNTER_MAX = 2 ** 27 - 1;

function checkCceBits(cceBits: number): void {
  if (!Number.isInteger(cceBits) || cceBits < 0 || cceBits > 4) throw new Error(`cceBits ${cceBits} is outside 0..4`);
}
