/**
 * The design note's checked vector (2.0 layout): XLEN 64 (iaddress_width_p 64), iaddress_lsb_p 1,
 * context 32 bits, no time, ecause 5 bits, privilege 2 bits (the sync packet's context starts at
 * bit 7, so privilege is bits 6:5), no optional modes (no irdepth). The note lists "six packets";
 * the byte string holds seven headers (support, sync, F2, F1, trap, F2, support).
 *
 * Field values worked out by hand from the bytes:
 *
 * 41 1f  header: length 1, flow 2 (instruction). 0x1f = 0b0001_1111: format 11, subformat 11,
 *        ienable 1 [4], encoder_mode 0 [5], qual_status 00 [7:6]; ioptions, denable, dloss,
 *        doptions sign-extended 0. L = 19, keep 6 bits.
 * 47 73 00 00 00 00 00 04  length 7. 0x73 = 0b0111_0011: format 11, subformat 00, branch 1 [4],
 *        privilege 3 [6:5]; context [38:7] = 0; address [101:39]: byte6 = 0x04 -> bit 50 ->
 *        address bit 11 = 0x800 -> byte address 0x1000. L = 102, keep 52 -> 7 bytes.
 * 45 02 e0 ff ff 00  F2: format 10; address [64:2]: bits 13..31 -> 0x3ffff800 (0x7ffff000 bytes
 *        = 0x80000000 - 0x1000); notify/updiscon/irreport [67:65] = 0 (copies of address MSB 0).
 *        L = 68, keep 33 -> 5 bytes (the last only sign).
 * 4a 85 2d 00 00 00 00 00 00 00 ff  F1: 0x85: format 01, branches 1 [6:2], branch_map 1 [7]
 *        (not taken); address [70:8] = 0x2d (0x5a bytes); notify 0 [71]; updiscon 1 [72] (flag
 *        set: a trap follows); irreport 1 [73] (= updiscon, flag clear). L = 74, top 1, k = 2,
 *        keep 73 -> 10 bytes, bits 73..79 padding.
 * 4a 77 00 00 00 00 21 07 00 00 10  F3 SF1: 0x77: format 11, subformat 01, branch 1, privilege 3;
 *        context [38:7] = 0; ecause [43:39] = 2 (bit 40); interrupt 0 [44]; thaddr 1 [45];
 *        address [108:46] = bits 48, 49, 50, 76 -> 0x4000001c (byte address 0x80000038);
 *        tval [172:109] = 0. L = 173, keep 78 -> 10 bytes.
 * 41 f2  F2: 0xf2 = 0b1111_0010: format 10, address [64:2] = ...11100 = -4 (-8 bytes), as 63 bits
 *        0x7ffffffffffffffc; notify, updiscon, irreport 1 (copies of address MSB 1). Keep 5 bits.
 * 41 4f  0x4f = 0b0100_1111: format 11, subformat 11, ienable 0, encoder_mode 0, qual_status 01
 *        (ended_rep) [7:6]; the rest 0.
 */
import { describe, expect, it } from 'vitest';
import { dumpStream } from './dump.ts';
import { encapsulate, splitStream } from './encapsulate.ts';
import type { Packet } from './fields.ts';
import { packPacket, unpackPacket } from './pack.ts';
import { defaultPacketParams, type PacketParams } from './params.ts';
import { validatePacketParams } from './fields.ts';

const params: PacketParams = {
  ...defaultPacketParams('2.0'),
  iaddress_width_p: 64,
  iaddress_lsb_p: 1,
  context_width_p: 32,
  nocontext_p: 0,
  notime_p: 1,
  ecause_width_p: 5,
  privilege_width_p: 2,
};

const support = (ienable: bigint, qual_status: bigint): Packet => ({
  format: 3n, subformat: 3n, ienable, encoder_mode: 0n, qual_status, ioptions: 0n, denable: 0n, dloss: 0n, doptions: 0n,
});

const packets: { pkt: Packet; bytes: number[] }[] = [
  { pkt: support(1n, 0n), bytes: [0x41, 0x1f] },
  {
    pkt: { format: 3n, subformat: 0n, branch: 1n, privilege: 3n, context: 0n, address: 0x800n },
    bytes: [0x47, 0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04],
  },
  {
    pkt: { format: 2n, address: 0x3ffff800n, notify: 0n, updiscon: 0n, irreport: 0n },
    bytes: [0x45, 0x02, 0xe0, 0xff, 0xff, 0x00],
  },
  {
    pkt: { format: 1n, branches: 1n, branch_map: 1n, address: 0x2dn, notify: 0n, updiscon: 1n, irreport: 1n },
    bytes: [0x4a, 0x85, 0x2d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff],
  },
  {
    pkt: {
      format: 3n, subformat: 1n, branch: 1n, privilege: 3n, context: 0n,
      ecause: 2n, interrupt: 0n, thaddr: 1n, address: 0x4000001cn, tval: 0n,
    },
    bytes: [0x4a, 0x77, 0x00, 0x00, 0x00, 0x00, 0x21, 0x07, 0x00, 0x00, 0x10],
  },
  {
    pkt: { format: 2n, address: 0x7ffffffffffffffcn, notify: 1n, updiscon: 1n, irreport: 1n },
    bytes: [0x41, 0xf2],
  },
  { pkt: support(0n, 1n), bytes: [0x41, 0x4f] },
];

const stream = Uint8Array.from(packets.flatMap((p) => p.bytes));

describe('design note checked vector (2.0)', () => {
  it('its parameters are valid', () => {
    expect(validatePacketParams(params)).toEqual([]);
  });

  it.each(packets.map((p, i) => [i, p] as const))('packet %i packs and encapsulates to the note bytes', (_i, { pkt, bytes }) => {
    expect(Array.from(encapsulate(packPacket(pkt, params), params))).toEqual(bytes);
  });

  it('the stream splits and unpacks back to the same fields', () => {
    const got = [...splitStream(stream, params)].map((sp) => unpackPacket(sp.payload, params, sp.payloadOffset));
    expect(got).toEqual(packets.map((p) => p.pkt));
  });

  it('dumps as one line per packet', () => {
    expect(dumpStream(stream, params)).toEqual([
      '000000  F3.SF3 support  ienable=1 encoder_mode=0 qual_status=0(no_change) ioptions=0b00000 denable=0 dloss=0 doptions=0b0000',
      '000002  F3.SF0 sync  branch=1 privilege=3 context=0x0 address=0x1000',
      '00000a  F2 addr-only  address=0x7ffff000 notify=0 updiscon=0 irreport=0',
      '000010  F1 diff-delta  branches=1 branch_map=0b1 address=0x5a notify=0 updiscon=1 irreport=1',
      '00001b  F3.SF1 trap  branch=1 privilege=3 context=0x0 ecause=0x2 interrupt=0 thaddr=1 address=0x80000038 tval=0x0',
      '000026  F2 addr-only  address=-0x8 notify=1 updiscon=1 irreport=1',
      '000028  F3.SF3 support  ienable=0 encoder_mode=0 qual_status=1(ended_rep) ioptions=0b00000 denable=0 dloss=0 doptions=0b0000',
    ]);
  });
});
