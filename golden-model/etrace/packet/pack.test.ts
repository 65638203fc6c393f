/**
 * Hand-computed packets. Every expected byte string below was worked out from the spec's tables
 * (chapter 6 of the seed, the ratified tables for 2.0): the comments walk through the bit
 * positions (bit 0 = LSB of byte 0), then the compression: L bits, top bit, the run k of copies of
 * it, kept bits L-k+1, padding to the byte with the top bit.
 *
 * HAND parameters: iaddress_width_p 32, iaddress_lsb_p 1 (address 31 bits, tval 32 bits),
 * privilege 2, context 8 (nocontext_p 0), time 8 (notime_p 0; 2.0 only), ecause 4,
 * return_stack_size_p 2 (irdepth 2+1 = 3 bits), bpred_size_p 1, cache_size_p 2 (index 2 bits),
 * f0s_width_p 1; iret_ext_p 0 (the ratified irdepth), except in the Implicit Return extension
 * tests (irets 8 bits).
 */
import { describe, expect, it } from 'vitest';
import { RvError } from '../../common/errors.ts';
import type { Packet } from './fields.ts';
import { absoluteFlags, packPacket, relativeFlags, unpackPacket, withFlags, flagsOf } from './pack.ts';
import { defaultPacketParams, type PacketParams, type PayloadLayout } from './params.ts';

function hand(layout: PayloadLayout, extra: Partial<PacketParams> = {}): PacketParams {
  return {
    ...defaultPacketParams(layout),
    iaddress_width_p: 32,
    iaddress_lsb_p: 1,
    privilege_width_p: 2,
    context_width_p: 8,
    nocontext_p: 0,
    time_width_p: 8,
    notime_p: 0,
    ecause_width_p: 4,
    return_stack_size_p: 2,
    call_counter_size_p: 0,
    bpred_size_p: 1,
    cache_size_p: 2,
    f0s_width_p: 1,
    iret_ext_p: 0,
    ...extra,
  };
}

/** Packs, compares with the hand bytes, and checks that unpacking gives the fields back. */
function check(pkt: Packet, params: PacketParams, expected: number[], mode = {}): void {
  const packed = packPacket(pkt, params, mode);
  expect(Array.from(packed.payload)).toEqual(expected);
  expect(unpackPacket(packed.payload, params, 0, mode)).toEqual(pkt);
}

describe.each(['1.1.1', '2.0'] as const)('formats 0, 1, 2 (identical in both layouts): %s', (layout) => {
  const P = hand(layout);

  it('F0 SF0 without address', () => {
    // format 00 [1:0], subformat 0 [2], branch_count 5 [34:3] -> bits 3, 5; branch_fmt 00 [36:35].
    // L = 37, top 0, highest 1 at bit 5: keep 7 bits -> 1 byte 0b0010_1000.
    check({ format: 0n, subformat: 0n, branch_count: 5n, branch_fmt: 0n }, P, [0x28]);
  });

  it('F0 SF0 with address (addr-fail)', () => {
    // format 00, subformat 0 [2], branch_count 0x100 [34:3] -> bit 11, branch_fmt 11 [36:35],
    // address all ones [67:37], notify [68], updiscon [69], irreport [70], irdepth [73:71] all 1.
    // L = 74, top 1, run of ones 73..35 (k = 39), bit 34 = 0: keep 36 bits -> 5 bytes,
    // bits 36..39 padded with 1. byte1 = bit 11 -> 0x08; byte4 = bits 35..39 -> 0xf8.
    check(
      {
        format: 0n, subformat: 0n, branch_count: 0x100n, branch_fmt: 3n,
        address: 0x7fffffffn, notify: 1n, updiscon: 1n, irreport: 1n, irdepth: 7n,
      },
      P,
      [0x00, 0x08, 0x00, 0x00, 0xf8],
    );
  });

  it('F0 SF1 with branch map', () => {
    // format 00, subformat 1 [2], index 2 [4:3] -> bit 4, branches 2 [9:5] -> bit 6,
    // branch_map 3 bits (branches 2-3) = 0b001 [12:10] -> bit 10, irreport 1 [13],
    // irdepth 5 [16:14] -> bits 14, 16. L = 17, top 1, bit 15 = 0: k = 1, keep 17 -> 3 bytes,
    // bits 17..23 padded with 1. byte0 = bits 2,4,6 = 0x54; byte1 = bits 10,13,14 = 0x64.
    check(
      { format: 0n, subformat: 1n, index: 2n, branches: 2n, branch_map: 1n, irreport: 1n, irdepth: 5n },
      P,
      [0x54, 0x64, 0xff],
    );
  });

  it('F0 SF1 without branch map (branches = 0)', () => {
    // format 00, subformat 1 [2], index 3 [4:3], branches 0 [9:5], no map, irreport 0 [10],
    // irdepth 0 [13:11]. L = 14, top 0, highest 1 bit 4: keep 6 -> 0b0001_1100.
    check({ format: 0n, subformat: 1n, index: 3n, branches: 0n, irreport: 0n, irdepth: 0n }, P, [0x1c]);
  });

  it('F1 with address', () => {
    // format 01 [1:0] -> bit 0, branches 5 [6:2] -> bits 2, 4, branch_map 7 bits (4-7) = 0b0010110
    // [13:7] -> bits 8, 9, 11, address 3 [44:14] -> bits 14, 15, notify 0 [45], updiscon 0 [46],
    // irreport 1 [47] (differs from updiscon), irdepth 2 [50:48] -> bit 49.
    // L = 51, top 0, bit 49 = 1: k = 1, keep 51 -> 7 bytes.
    // byte0 = bits 0,2,4 = 0x15; byte1 = bits 8,9,11,14,15 = 0xcb; byte5 = bit 47 = 0x80;
    // byte6 = bit 49 = 0x02.
    check(
      {
        format: 1n, branches: 5n, branch_map: 0b10110n, address: 3n,
        notify: 0n, updiscon: 0n, irreport: 1n, irdepth: 2n,
      },
      P,
      [0x15, 0xcb, 0x00, 0x00, 0x00, 0x80, 0x02],
    );
  });

  it('F1 without address (branches = 0, full 31-bit map)', () => {
    // format 01 -> bit 0, branches 0 [6:2], branch_map 1 [37:7] -> bit 7. L = 38, top 0,
    // zeros 37..8: keep 9 bits -> 2 bytes, the second only the sign: 0x81 0x00.
    check({ format: 1n, branches: 0n, branch_map: 1n }, P, [0x81, 0x00]);
    // All branches not taken: bits 7..37 are 1, top 1, run k = 31: keep 8 bits -> 0x81.
    check({ format: 1n, branches: 0n, branch_map: 0x7fffffffn }, P, [0x81]);
  });

  it('F2, compressed down to the address', () => {
    // format 10 [1:0] -> bit 1, address 0x12 [32:2] -> bits 3, 6, notify/updiscon/irreport 0,
    // irdepth 0 [38:36]. L = 39, top 0, highest 1 bit 6: keep 8 -> 0b0100_1010.
    check({ format: 2n, address: 0x12n, notify: 0n, updiscon: 0n, irreport: 0n, irdepth: 0n }, P, [0x4a]);
  });

  it('F2 whose notify differs from address[MSB]: compression stops at notify', () => {
    // As above, but notify 1 [33] (address MSB [32] is 0), updiscon, irreport, irdepth all 1.
    // L = 39, top 1, run of ones 38..33 (k = 6), bit 32 = 0: keep 34 bits -> 5 bytes.
    // byte4 = bits 32..39: 0, then 1s (bit 39 is padding) = 0xfe.
    check({ format: 2n, address: 0x12n, notify: 1n, updiscon: 1n, irreport: 1n, irdepth: 7n }, P, [0x4a, 0x00, 0x00, 0x00, 0xfe]);
  });

  it('F2 with a negative address and updiscon differing from notify', () => {
    // address -2 = 0x7ffffffe [32:2] -> bits 3..32, notify 1 [33] = address MSB, updiscon 0 [34],
    // irreport 0 [35], irdepth 0 [38:36]. L = 39, top 0, zeros 38..34 (k = 5): keep 35 -> 5 bytes.
    // byte0 = bits 1,3..7 = 0xfa; bytes 1..3 = 0xff; byte4 = bits 32, 33 = 0x03.
    check(
      { format: 2n, address: 0x7ffffffen, notify: 1n, updiscon: 0n, irreport: 0n, irdepth: 0n },
      P,
      [0xfa, 0xff, 0xff, 0xff, 0x03],
    );
  });
});

describe.each(['1.1.1', '2.0'] as const)('Implicit Return extension: irets (8 bits) after irreport, %s', (layout) => {
  const X = hand(layout, { iret_ext_p: 1 });

  it('F2 reporting 3 implicit returns', () => {
    // format 10 [1:0] -> bit 1, address 0x12 [32:2] -> bits 3, 6, notify 0 [33], updiscon 0 [34],
    // irreport 1 [35] (differs from updiscon), irets 3 [43:36] -> bits 36, 37. L = 44, top 0,
    // zeros 43..38 (k = 6): keep 39 bits -> 5 bytes. byte4 = bits 35, 36, 37 = 0x38.
    check({ format: 2n, address: 0x12n, notify: 0n, updiscon: 0n, irreport: 1n, irets: 3n }, X, [0x4a, 0x00, 0x00, 0x00, 0x38]);
  });

  it('F2 without a count: irreport and irets copy updiscon and compress away', () => {
    // As above with irreport 0, irets 0: highest 1 at bit 6, keep 8 -> 1 byte.
    check({ format: 2n, address: 0x12n, notify: 0n, updiscon: 0n, irreport: 0n, irets: 0n }, X, [0x4a]);
    // address -2 = 0x7ffffffe [32:2] -> bits 3..32, notify, updiscon, irreport 1 [35:33], irets
    // 0xff [43:36]: ones 43..3 (k = 41), keep 4 bits -> 0b1010 padded with ones = 0xfa.
    check({ format: 2n, address: 0x7ffffffen, notify: 1n, updiscon: 1n, irreport: 1n, irets: 0xffn }, X, [0xfa]);
  });

  it('F1 with address, irets 0x80', () => {
    // format 01 -> bit 0, branches 1 [6:2] -> bit 2, branch_map 0 [7], address 4 [38:8] -> bit 10,
    // notify 0 [39], updiscon 0 [40], irreport 1 [41], irets 0x80 [49:42] -> bit 49. L = 50, top 1,
    // bit 48 = 0 (k = 1): keep 50 -> 7 bytes, bits 50..55 padded with 1.
    // byte0 = bits 0, 2 = 0x05; byte1 = bit 10 = 0x04; byte5 = bit 41 = 0x02; byte6 = bit 49 + pad = 0xfe.
    check(
      { format: 1n, branches: 1n, branch_map: 0n, address: 4n, notify: 0n, updiscon: 0n, irreport: 1n, irets: 0x80n },
      X,
      [0x05, 0x04, 0x00, 0x00, 0x00, 0x02, 0xfe],
    );
  });

  it('F0 SF1 without branch map: irreport relative to branches[MSB], then irets', () => {
    // format 00, subformat 1 [2], index 1 [4:3] -> bit 3, branches 0 [9:5], irreport 1 [10]
    // (branches[MSB] is 0), irets 2 [18:11] -> bit 12. L = 19, top 0, highest 1 bit 12: keep 14
    // -> 2 bytes: 0x0c, bits 10 and 12 = 0x14.
    check({ format: 0n, subformat: 1n, index: 1n, branches: 0n, irreport: 1n, irets: 2n }, X, [0x0c, 0x14]);
  });

  it('F0 SF0 with address: irets after irreport', () => {
    // format 00, subformat 0 [2], branch_count 0 [34:3], branch_fmt 10 [36:35] -> bit 36,
    // address 0 [67:37], notify/updiscon 0 [69:68], irreport 1 [70], irets 1 [78:71] -> bit 71.
    // L = 79, top 0, highest 1 bit 71: keep 73 -> 10 bytes; byte4 = bit 36 = 0x10,
    // byte8 = bits 70, 71 = 0xc0, byte9 = bit 72, the kept sign, = 0x00.
    check(
      { format: 0n, subformat: 0n, branch_count: 0n, branch_fmt: 2n, address: 0n, notify: 0n, updiscon: 0n, irreport: 1n, irets: 1n },
      X,
      [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xc0, 0x00],
    );
  });

  it('support packet: iret_ext above every other field', () => {
    if (layout === '1.1.1') {
      // format 11, subformat 11 [3:0], enable 1 [4], encoder_mode 0 [5], qual_status 0 [7:6],
      // options 0b00001 [12:8] -> bit 8, iret_ext 1 [13]. L = 14, top 1, bit 12 = 0: keep 14 -> 2
      // bytes, bits 14, 15 padded with 1: 0x1f, 0x01 | 0x20 | 0xc0 = 0xe1.
      check({ format: 3n, subformat: 3n, enable: 1n, encoder_mode: 0n, qual_status: 0n, options: 1n, iret_ext: 1n }, X, [0x1f, 0xe1]);
    } else {
      // ... ioptions [12:8] -> bit 8, denable [13], dloss [14], doptions [18:15], iret_ext 1 [19].
      // L = 20, top 1, bit 18 = 0: keep 20 -> 3 bytes; byte2 = bit 19 + padding 20..23 = 0xf8.
      check(
        { format: 3n, subformat: 3n, ienable: 1n, encoder_mode: 0n, qual_status: 0n, ioptions: 1n, denable: 0n, dloss: 0n, doptions: 0n, iret_ext: 1n },
        X,
        [0x1f, 0x01, 0xf8],
      );
    }
  });

  it('withFlags and flagsOf use irets', () => {
    const pkt = withFlags({ format: 2n, address: 0x12n }, X, { irreport: true, irets: 3n });
    expect(pkt).toEqual({ format: 2n, address: 0x12n, notify: 0n, updiscon: 0n, irreport: 1n, irets: 3n });
    expect(flagsOf(pkt, X)).toEqual({ notify: false, updiscon: false, irreport: true, irets: 3n });
    expect(() => withFlags({ format: 2n, address: 0n }, X, { irreport: true, irets: 256n })).toThrow('irets 256 does not fit in 8 bits');
  });
});

describe('format 3, 1.1.1 layout (seed tables 6.1-6.4)', () => {
  const P = hand('1.1.1');

  it('F3 SF0 sync: branch, privilege, context, address (no time in 1.1.1)', () => {
    // format 11 [1:0], subformat 00 [3:2], branch 0 [4], privilege 1 [6:5] -> bit 5,
    // context 0xa5 [14:7] -> bits 7, 9, 12, 14, address 0x40000000 [45:15] -> bit 45.
    // L = 46, top 1, bit 44 = 0: keep 46 -> 6 bytes, bits 46, 47 padded with 1.
    // byte0 = bits 0,1,5,7 = 0xa3; byte1 = bits 9,12,14 = 0x52; byte5 = bits 45,46,47 = 0xe0.
    check(
      { format: 3n, subformat: 0n, branch: 0n, privilege: 1n, context: 0xa5n, address: 0x40000000n },
      P,
      [0xa3, 0x52, 0x00, 0x00, 0x00, 0xe0],
    );
  });

  it('F3 SF1 exception: ..., ecause, interrupt, address, tvalepc', () => {
    // format 11, subformat 01 -> bit 2, branch 1 [4], privilege 3 [6:5], context 0 [14:7],
    // ecause 2 [18:15] -> bit 16, interrupt 0 [19], address 0x20 [50:20] -> bit 25,
    // tvalepc 0x1234 [82:51] -> bits 53, 55, 56, 60, 63. L = 83, top 0, highest 1 bit 63:
    // keep 65 -> 9 bytes. byte0 = 0x77; byte2 = 0x01; byte3 = 0x02; byte6 = bits 53,55 = 0xa0;
    // byte7 = bits 56,60,63 = 0x91; byte8 = sign 0x00.
    check(
      {
        format: 3n, subformat: 1n, branch: 1n, privilege: 3n, context: 0n,
        ecause: 2n, interrupt: 0n, address: 0x20n, tvalepc: 0x1234n,
      },
      P,
      [0x77, 0x00, 0x01, 0x02, 0x00, 0x00, 0xa0, 0x91, 0x00],
    );
  });

  it('F3 SF1 in implicit exception mode has no address', () => {
    // ... ecause 2 [18:15] -> bit 16, interrupt 1 [19], tvalepc 0 [51:20]. L = 52, top 0,
    // highest 1 bit 19: keep 21 -> 3 bytes; byte2 = bits 16, 19 = 0x09.
    check(
      { format: 3n, subformat: 1n, branch: 1n, privilege: 3n, context: 0n, ecause: 2n, interrupt: 1n, tvalepc: 0n },
      P,
      [0x77, 0x00, 0x09],
      { implicit_exception: true },
    );
  });

  it('F3 SF2 context', () => {
    // format 11, subformat 10 -> bit 3, privilege 3 [5:4], context 0x80 [13:6] -> bit 13.
    // L = 14, top 1, bit 12 = 0: keep 14 -> 2 bytes, bits 14, 15 padded with 1.
    // byte0 = bits 0,1,3,4,5 = 0x3b; byte1 = bits 13,14,15 = 0xe0.
    check({ format: 3n, subformat: 2n, privilege: 3n, context: 0x80n }, P, [0x3b, 0xe0]);
  });

  it('F3 SF3 support: enable, encoder_mode, qual_status, options', () => {
    // format 11, subformat 11 [3:0], enable 1 [4], encoder_mode 0 [5], qual_status 2 (trace_lost)
    // [7:6] -> bit 7, options 0b00101 (implicit_return, full_address) [12:8] -> bits 8, 10.
    // L = 13, top 0, highest 1 bit 10: keep 12 -> 2 bytes: 0x9f, 0x05.
    check({ format: 3n, subformat: 3n, enable: 1n, encoder_mode: 0n, qual_status: 2n, options: 0b00101n }, P, [0x9f, 0x05]);
  });

  it('F3 SF3 with the sijump option bit above options', () => {
    // enable 1 [4], sijump 1 [13]. L = 14, top 1, bit 12 = 0: keep 14 -> 2 bytes:
    // 0x1f, bit 13 + padding 14, 15 = 0xe0.
    check(
      { format: 3n, subformat: 3n, enable: 1n, encoder_mode: 0n, qual_status: 0n, options: 0n, sijump: 1n },
      hand('1.1.1', { sijump_p: 1 }),
      [0x1f, 0xe0],
    );
  });
});

describe('format 3, 2.0 layout (ratified tables)', () => {
  const P = hand('2.0');

  it('F3 SF0 sync: time between privilege and context', () => {
    // format 11, subformat 00, branch 1 [4], privilege 3 [6:5], time 0x81 [14:7] -> bits 7, 14,
    // context 0x0f [22:15] -> bits 15..18, address 0x1000 [53:23] -> bit 35.
    // L = 54, top 0, highest 1 bit 35: keep 37 -> 5 bytes.
    // byte0 = bits 0,1,4,5,6,7 = 0xf3; byte1 = bits 14, 15 = 0xc0; byte2 = bits 16..18 = 0x07;
    // byte4 = bit 35 = 0x08.
    check(
      { format: 3n, subformat: 0n, branch: 1n, privilege: 3n, time: 0x81n, context: 0x0fn, address: 0x1000n },
      P,
      [0xf3, 0xc0, 0x07, 0x00, 0x08],
    );
  });

  it('F3 SF1 trap: ..., ecause, interrupt, thaddr, address, tval', () => {
    // format 11, subformat 01 -> bit 2, branch 0 [4], privilege 1 [6:5] -> bit 5,
    // time 0xff [14:7], context 0 [22:15], ecause 13 [26:23] -> bits 23, 25, 26, interrupt 0 [27],
    // thaddr 1 [28], address 0x7ffffff0 [59:29] -> bits 33..59, tval 0xdeadbeef [91:60].
    // L = 92, top 1 (tval bit 31), bit 90 = 1, bit 89 = 0: k = 2, keep 91 -> 12 bytes.
    // byte0 = bits 0,1,2,5,7 = 0xa7; byte1 = bits 8..14 = 0x7f; byte2 = bit 23 = 0x80;
    // byte3 = bits 25,26,28 = 0x16; byte4 = bits 33..39 = 0xfe; bytes 5, 6 = 0xff;
    // byte7 = address 56..59 + tval[3:0] = 0xff; byte8 = tval[11:4] = 0xee; byte9 = tval[19:12]
    // = 0xdb; byte10 = tval[27:20] = 0xea; byte11 = tval[30:28] 101 + padding = 0xfd.
    check(
      {
        format: 3n, subformat: 1n, branch: 0n, privilege: 1n, time: 0xffn, context: 0n,
        ecause: 13n, interrupt: 0n, thaddr: 1n, address: 0x7ffffff0n, tval: 0xdeadbeefn,
      },
      P,
      [0xa7, 0x7f, 0x80, 0x16, 0xfe, 0xff, 0xff, 0xff, 0xee, 0xdb, 0xea, 0xfd],
    );
  });

  it('F3 SF1 interrupt in implicit exception mode: no address (thaddr 1), no tval (interrupt)', () => {
    // branch 1 [4], privilege 3 [6:5], time 0 [14:7], context 0 [22:15], ecause 7 [26:23] ->
    // bits 23..25, interrupt 1 [27], thaddr 1 [28]. L = 29, top 1, bit 27 = 1, bit 26 = 0:
    // k = 2, keep 28 -> 4 bytes; byte2 = bit 23 = 0x80; byte3 = bits 24,25,27,28 + padding = 0xfb.
    const pkt: Packet = {
      format: 3n, subformat: 1n, branch: 1n, privilege: 3n, time: 0n, context: 0n,
      ecause: 7n, interrupt: 1n, thaddr: 1n,
    };
    check(pkt, P, [0x77, 0x00, 0x80, 0xfb], { implicit_exception: true });
    // Without implicit exception the handler address is present: the same packet lacks it.
    expect(() => packPacket(pkt, P)).toThrow(/no address field/);
  });

  it('F3 SF2 context: privilege, time, context', () => {
    // format 11, subformat 10 -> bit 3, privilege 0 [5:4], time 1 [13:6] -> bit 6,
    // context 2 [21:14] -> bit 15. L = 22, top 0, highest 1 bit 15: keep 17 -> 3 bytes.
    // byte0 = bits 0,1,3,6 = 0x4b; byte1 = bit 15 = 0x80; byte2 = sign 0.
    check({ format: 3n, subformat: 2n, privilege: 0n, time: 1n, context: 2n }, P, [0x4b, 0x80, 0x00]);
  });

  it('F3 SF3 support: ienable, encoder_mode, qual_status, ioptions, denable, dloss, doptions', () => {
    // format 11, subformat 11, ienable 1 [4], encoder_mode 0 [5], qual_status 3 [7:6],
    // ioptions 0b10000 (branch_prediction) [12:8] -> bit 12, denable 1 [13], dloss 0 [14],
    // doptions 0b1111 [18:15]. L = 19, top 1, run 18..15 (k = 4), bit 14 = 0: keep 16 -> 2 bytes
    // exactly: 0xdf, bits 12,13,15 = 0xb0.
    check(
      {
        format: 3n, subformat: 3n, ienable: 1n, encoder_mode: 0n, qual_status: 3n,
        ioptions: 0b10000n, denable: 1n, dloss: 0n, doptions: 0b1111n,
      },
      P,
      [0xdf, 0xb0],
    );
  });

  it('F3 SF3 with the sijump option bit above doptions', () => {
    // ienable 1 [4], everything else 0, sijump 1 [19]. L = 20, top 1, bit 18 = 0: keep 20 ->
    // 3 bytes: 0x1f, 0x00, bit 19 + padding 20..23 = 0xf8.
    check(
      {
        format: 3n, subformat: 3n, ienable: 1n, encoder_mode: 0n, qual_status: 0n,
        ioptions: 0n, denable: 0n, dloss: 0n, doptions: 0n, sijump: 1n,
      },
      hand('2.0', { sijump_p: 1 }),
      [0x1f, 0x00, 0xf8],
    );
  });
});

describe('compression edge cases', () => {
  it('all-zero packet keeps one bit: one zero byte', () => {
    // F0 SF0 with every field 0: L = 37 zeros, k = 37, keep 1.
    const packed = packPacket({ format: 0n, subformat: 0n, branch_count: 0n, branch_fmt: 0n }, hand('2.0'));
    expect(packed.bits).toBe(1);
    expect(packed.fullBits).toBe(37);
    expect(Array.from(packed.payload)).toEqual([0x00]);
  });

  it('all-one packet keeps one bit: one 0xff byte', () => {
    // 1.1.1 F3 SF3 with every field all ones: format 11, subformat 11, enable 1, encoder_mode 1,
    // qual_status 11, options 11111: 13 ones, k = 13, keep 1.
    const packed = packPacket(
      { format: 3n, subformat: 3n, enable: 1n, encoder_mode: 1n, qual_status: 3n, options: 0x1fn },
      hand('1.1.1'),
    );
    expect(packed.bits).toBe(1);
    expect(Array.from(packed.payload)).toEqual([0xff]);
  });

  // RV64, 2.0, time 64, context 40, ecause 6: F3 SF1 is 2+2+1+2+64+40+6+1+1+63+64 = 246 bits.
  const big: PacketParams = {
    ...defaultPacketParams('2.0'),
    iaddress_width_p: 64,
    privilege_width_p: 2,
    time_width_p: 64,
    notime_p: 0,
    context_width_p: 40,
    nocontext_p: 0,
    ecause_width_p: 6,
  };
  const trap = (tval: bigint): Packet => ({
    format: 3n, subformat: 1n, branch: 0n, privilege: 0n, time: 0n, context: 0n,
    ecause: 0n, interrupt: 0n, thaddr: 0n, address: 0n, tval,
  });

  it('a packet of exactly 31 bytes', () => {
    // tval = 1 << 63 sits at bit 182 + 63 = 245 = L - 1; bit 244 = 0, so nothing compresses:
    // keep 246 -> 31 bytes. byte0 = format 11, subformat 01 = 0x07; byte30 = bit 245 + padding
    // 246, 247 = 0xe0.
    const packed = packPacket(trap(1n << 63n), big);
    expect(packed.bits).toBe(246);
    expect(Array.from(packed.payload)).toEqual([0x07, ...new Array<number>(29).fill(0), 0xe0]);
  });

  it('a packet that needs 32 bytes cannot be encapsulated (and its parameters are rejected)', async () => {
    const { encapsulate } = await import('./encapsulate.ts');
    const { validatePacketParams } = await import('./fields.ts');
    const bigger: PacketParams = { ...big, context_width_p: 48 }; // 254 bits
    const packed = packPacket(trap(1n << 63n), bigger);
    expect(packed.payload.length).toBe(32);
    expect(() => encapsulate(packed, bigger)).toThrow(/32 bytes/);
    expect(validatePacketParams(big)).toEqual([]);
    expect(validatePacketParams(bigger).map((e) => e.message)).toEqual([
      'the largest packet needs 32 payload bytes; encapsulation allows 31',
    ]);
  });
});

describe('pack errors', () => {
  const P = hand('2.0');
  it('a value too wide for its field', () => {
    expect(() => packPacket({ format: 2n, address: 1n << 31n, notify: 0n, updiscon: 0n, irreport: 0n, irdepth: 0n }, P)).toThrow(
      'address = 2147483648 does not fit in 31 bits',
    );
  });
  it('a missing field', () => {
    expect(() => packPacket({ format: 2n, address: 0n, notify: 0n, updiscon: 0n, irreport: 0n }, P)).toThrow(
      'F2 packet has no irdepth field',
    );
  });
  it('a field the layout does not have', () => {
    expect(() => packPacket({ format: 1n, branches: 0n, branch_map: 0n, address: 0n }, P)).toThrow(
      'address is not part of a F1 packet with these parameters',
    );
  });
  it('reserved branch_fmt', () => {
    expect(() => packPacket({ format: 0n, subformat: 0n, branch_count: 0n, branch_fmt: 1n }, P)).toThrow('branch_fmt 01 is reserved');
  });
});

describe('unpack errors name the byte offset', () => {
  const P = hand('2.0');
  const err = (f: () => unknown): RvError => {
    try {
      f();
    } catch (e) {
      if (e instanceof RvError) return e;
    }
    throw new Error('no RvError');
  };

  it('reserved format 0 subformat', () => {
    // f0s_width_p 2: format 00, subformat 2 [3:2] = 0b1000.
    const e = err(() => unpackPacket(Uint8Array.of(0x08), hand('2.0', { f0s_width_p: 2 }), 100));
    expect(e.message).toMatch(/format 0 subformat 2 is reserved/);
    expect(e.location.offset).toBe(100);
  });

  it('reserved branch_fmt 01', () => {
    // format 00, subformat 0 [2], branch_count 0 [34:3], branch_fmt 01 [36:35] -> bit 35 (byte 4).
    const e = err(() => unpackPacket(Uint8Array.of(0, 0, 0, 0, 0x08), P, 10));
    expect(e.message).toMatch(/branch_fmt 01 is reserved/);
    expect(e.location.offset).toBe(14);
  });

  it('format 0 with no optional format configured', () => {
    const e = err(() => unpackPacket(Uint8Array.of(0x00), defaultPacketParams('2.0'), 7));
    expect(e.message).toMatch(/format 0 needs exactly one of/);
    expect(e.location.offset).toBe(7);
  });

  it('a payload longer than the packet can be', () => {
    // 2.0 support packet: 19 bits -> at most 3 bytes.
    const e = err(() => unpackPacket(Uint8Array.of(0x1f, 0, 0, 0), P, 50));
    expect(e.code).toBe('bad-value');
    expect(e.message).toBe('4-byte payload is longer than a F3.SF3 packet can be (19 bits, 3 bytes)');
    expect(e.location.offset).toBe(53);
  });

  it('padding that is not a sign extension', () => {
    // 2.0 support packet, 3 bytes: bit 18 (doptions MSB) = 0 but bit 19 = 1.
    const e = err(() => unpackPacket(Uint8Array.of(0x1f, 0x00, 0x08), P, 0));
    expect(e.message).toMatch(/padding above bit 18 of a F3.SF3 packet is not a sign extension/);
    expect(e.location.offset).toBe(2);
  });

  it('an empty payload', () => {
    expect(err(() => unpackPacket(new Uint8Array(0), P, 3)).code).toBe('truncated');
  });
});

describe('relative flags (notify/updiscon/irreport/irdepth)', () => {
  it('the usual case compresses away: every bit copies address[MSB]', () => {
    expect(relativeFlags(1n, { notify: false, updiscon: false, irreport: false }, 3)).toEqual({
      notify: 1n, updiscon: 1n, irreport: 1n, irdepth: 7n,
    });
  });
  it('each flag inverts its bit relative to the one before', () => {
    // notify = 1 ^ 0 = 1; updiscon = 1 ^ notify = 0; irreport = 1 ^ updiscon = 1; irdepth = depth.
    const f = relativeFlags(0n, { notify: true, updiscon: true, irreport: true, irdepth: 5n }, 3);
    expect(f).toEqual({ notify: 1n, updiscon: 0n, irreport: 1n, irdepth: 5n });
    expect(absoluteFlags(0n, f)).toEqual({ notify: true, updiscon: true, irreport: true, irdepth: 5n });
  });
  it('format 0 subformat 1: irreport relative to branch_map[MSB], no notify/updiscon', () => {
    const P = hand('2.0');
    const pkt = withFlags({ format: 0n, subformat: 1n, index: 0n, branches: 2n, branch_map: 0b100n }, P, { irreport: false });
    expect(pkt).toMatchObject({ irreport: 1n, irdepth: 7n });
    expect(pkt.notify).toBeUndefined();
    expect(flagsOf(pkt, P)).toEqual({ irreport: false });
  });
  it('irets (the extension) copies irreport when the flag is clear', () => {
    expect(relativeFlags(1n, { notify: false, updiscon: false, irreport: false }, 8, 'irets')).toEqual({
      notify: 1n, updiscon: 1n, irreport: 1n, irets: 0xffn,
    });
    const f = relativeFlags(1n, { notify: false, updiscon: false, irreport: true, irets: 9n }, 8, 'irets');
    expect(f).toEqual({ notify: 1n, updiscon: 1n, irreport: 0n, irets: 9n });
    expect(absoluteFlags(1n, f)).toEqual({ notify: false, updiscon: false, irreport: true, irets: 9n });
  });
  it('withFlags on an F2 uses address[MSB]', () => {
    const P = hand('1.1.1', { return_stack_size_p: 0 });
    const pkt = withFlags({ format: 2n, address: 0x7ffffffcn }, P, { updiscon: true, irreport: false });
    // address MSB 1: notify 1, updiscon 0, irreport 0, no irdepth (no implicit return).
    expect(pkt).toEqual({ format: 2n, address: 0x7ffffffcn, notify: 1n, updiscon: 0n, irreport: 0n });
    expect(flagsOf(pkt, P)).toEqual({ notify: false, updiscon: true, irreport: false });
  });
});
