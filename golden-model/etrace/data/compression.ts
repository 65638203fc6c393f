/**
 * Data value compression of section 7.1.3: a value is sent full, XOR-ed with or minus the previous
 * value of the same history entry, whichever DataCompress allows and needs the fewest bytes; upper
 * bytes that repeat the sign are not sent (data_len, 2.0 section "data_len field").
 */
import { mask } from '../packet/pack.ts';

export type DataCode = 'full' | 'xor' | 'diff';

/** The codes DataCompress allows, in the order that breaks ties (full first: it needs no history). */
export function allowedCodes(DataCompress: number): readonly DataCode[] {
  switch (DataCompress) {
    case 1:
      return ['full', 'xor'];
    case 2:
      return ['full', 'diff'];
    case 3:
      return ['full', 'xor', 'diff'];
    default:
      return ['full'];
  }
}

/** The coded form of a `bits`-wide value against the previous one. */
export function encodeValue(code: DataCode, value: bigint, previous: bigint, bits: number): bigint {
  switch (code) {
    case 'full':
      return value & mask(bits);
    case 'xor':
      return (value ^ previous) & mask(bits);
    case 'diff':
      return BigInt.asUintN(bits, value - previous);
  }
}

/**
 * Bytes needed to send a `bits`-wide coded value so that sign-extending the last byte sent gives it
 * back (at least one).
 */
export function bytesNeeded(coded: bigint, bits: number): number {
  for (let n = 1; n * 8 < bits; n++) {
    if (BigInt.asUintN(bits, BigInt.asIntN(n * 8, coded)) === coded) return n;
  }
  return bits / 8;
}

/** Bits needed so that sign-extending them gives the `bits`-wide coded value back (at least one). */
export function significantBits(coded: bigint, bits: number): number {
  const top = (coded >> BigInt(bits - 1)) & 1n;
  const magnitude = top === 1n ? ~coded & mask(bits) : coded;
  return Math.min(bits, magnitude.toString(2).length + (magnitude === 0n ? 0 : 1));
}

/**
 * Chooses the code for a chain of values (an atomic's operand then data, a CSR's data then operand):
 * each value is coded against the one before it in the chain, the first against `previous`. The
 * code with the fewest bytes over the chain wins; among equals the one with the fewest significant
 * bits (a value that ends its packet is sent to the bit, before the padding); then the earlier code
 * of `allowedCodes`.
 */
export function chooseCode(codes: readonly DataCode[], values: readonly bigint[], previous: bigint, bits: number): { code: DataCode; coded: bigint[] } {
  let best: { code: DataCode; coded: bigint[]; bytes: number; sig: number } | undefined;
  for (const code of codes) {
    let prev = previous;
    const coded = values.map((v) => {
      const c = encodeValue(code, v, prev, bits);
      prev = v;
      return c;
    });
    const bytes = coded.reduce((sum, c) => sum + bytesNeeded(c, bits), 0);
    const sig = coded.reduce((sum, c) => sum + significantBits(c, bits), 0);
    if (best === undefined || bytes < best.bytes || (bytes === best.bytes && sig < best.sig)) best = { code, coded, bytes, sig };
  }
  return { code: best!.code, coded: best!.coded };
}
