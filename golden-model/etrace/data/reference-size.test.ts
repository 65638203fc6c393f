/**
 * The size model of the reference flow's data encoder against a hand-worked example of what
 * data_encoder_model.py writes (address-and-data mode, data_width_p = daddress_width_p = 64):
 *
 * 1. store word 0x12345678 at 0x80001000, the first of its size: format 3 bits = 2 (store,
 *    aligned), size 2 bits (max(1, clog2(clog2(64/8 + 1)))) = 2, diff 2 bits = 1 (the script puts
 *    DIFF_ADDR_XOR_DATA on every packet, the first too), data_len 2 bits (the value of size) = 3,
 *    data 32 bits = 0x12345678 (the first value of a size is sent as is), address 64 bits =
 *    0x80001000 >> 2 = 0x20000400. 105 bits whose top 34 are zero: 72 kept, 9 bytes + 1 header = 10.
 * 2. store word 0x12345679 at 0x80001004: data is the arithmetic difference 1, still 32 bits wide
 *    (data_len is always the access size), address difference 1 at bit 41: 43 bits kept, 6 bytes
 *    + 1 header = 7.
 * 3. the same access in no-data mode after (1): format, size, diff 1 bit, address difference 1 at
 *    bit 6: 8 bits, 1 byte + header = 2.
 */
import { describe, expect, it } from 'vitest';
import type { DataAccess } from '../../hart/data-records.ts';
import { referenceFlowBytes } from './reference-size.ts';

const a = (daddr: bigint, data: bigint): DataAccess => ({ at: 0, dtype: 1, daddr, dsize: 2, data, lrid: 0, iaddrLsbs: 0, dblock: 0 });
const o = { dataWidth: 64, daddressWidth: 64, noData: false, noAddress: false, fullAddress: false, fullData: false };

describe('reference flow data encoder size model', () => {
  it('address and data: the hand-worked packets', () => {
    expect(referenceFlowBytes([a(0x80001000n, 0x12345678n), a(0x80001004n, 0x12345679n)], o)).toEqual([10, 7]);
  });
  it('no-data: address only, differential after the first', () => {
    expect(referenceFlowBytes([a(0x80001000n, 0x12345678n), a(0x80001004n, 0x12345679n)], { ...o, noData: true })[1]).toBe(2);
  });
});
