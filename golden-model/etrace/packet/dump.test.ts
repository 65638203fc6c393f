import { describe, expect, it } from 'vitest';
import { dumpPacket, dumpStream } from './dump.ts';
import { encapsulate } from './encapsulate.ts';
import type { Packet } from './fields.ts';
import { packPacket } from './pack.ts';
import { defaultPacketParams, type PacketParams } from './params.ts';

// RV32, lsb 1, return stack 2 (irdepth 3: the ratified semantics), bpred + cache (index 2), f0s 1, 1.1.1.
const P: PacketParams = {
  ...defaultPacketParams('1.1.1'),
  privilege_width_p: 2,
  nocontext_p: 1,
  return_stack_size_p: 2,
  iret_ext_p: 0,
  bpred_size_p: 1,
  cache_size_p: 2,
  f0s_width_p: 1,
};
// The same with the Implicit Return extension: irets (8 bits), and iret_ext in the support packet.
const X: PacketParams = { ...P, iret_ext_p: 1 };

describe('dumpPacket', () => {
  it('format 0 packets', () => {
    expect(dumpPacket({ format: 0n, subformat: 0n, branch_count: 40n, branch_fmt: 0n }, P, 0)).toBe(
      '000000  F0.SF0 branch-count  branch_count=40 branch_fmt=0(no-addr)',
    );
    expect(
      dumpPacket({ format: 0n, subformat: 1n, index: 2n, branches: 2n, branch_map: 1n, irreport: 1n, irdepth: 5n }, P, 0x123),
    ).toBe('000123  F0.SF1 jump-target  index=2 branches=2 branch_map=0b001 irreport=1 irdepth=5');
  });

  it('differential addresses are signed byte offsets, full addresses unsigned', () => {
    // address field 0x7ffffffe (31 bits) = -2 -> -4 bytes.
    const f2: Packet = { format: 2n, address: 0x7ffffffen, notify: 1n, updiscon: 1n, irreport: 1n, irdepth: 7n };
    expect(dumpPacket(f2, P, 0)).toBe('000000  F2 addr-only  address=-0x4 notify=1 updiscon=1 irreport=1 irdepth=7');
    expect(dumpPacket(f2, P, 0, { full_address: true })).toBe(
      '000000  F2 addr-only  address=0xfffffffc notify=1 updiscon=1 irreport=1 irdepth=7',
    );
  });

  it('1.1.1 trap and support packets', () => {
    expect(
      dumpPacket({ format: 3n, subformat: 1n, branch: 1n, privilege: 3n, ecause: 2n, interrupt: 0n, address: 0x4000001cn, tvalepc: 0x80000030n }, P, 0x12),
    ).toBe('000012  F3.SF1 trap  branch=1 privilege=3 ecause=0x2 interrupt=0 address=0x80000038 tvalepc=0x80000030');
    expect(dumpPacket({ format: 3n, subformat: 3n, enable: 1n, encoder_mode: 0n, qual_status: 3n, options: 2n }, P, 0)).toBe(
      '000000  F3.SF3 support  enable=1 encoder_mode=0 qual_status=3(ended_upd) options=0b00010',
    );
  });
});

describe('dumpPacket with the Implicit Return extension', () => {
  it('shows irets and iret_ext by their names', () => {
    expect(dumpPacket({ format: 2n, address: 0x7ffffffen, notify: 1n, updiscon: 1n, irreport: 0n, irets: 3n }, X, 0)).toBe(
      '000000  F2 addr-only  address=-0x4 notify=1 updiscon=1 irreport=0 irets=3',
    );
    expect(dumpPacket({ format: 0n, subformat: 1n, index: 1n, branches: 0n, irreport: 1n, irets: 2n }, X, 0x40)).toBe(
      '000040  F0.SF1 jump-target  index=1 branches=0 irreport=1 irets=2',
    );
    expect(dumpPacket({ format: 3n, subformat: 3n, enable: 1n, encoder_mode: 0n, qual_status: 0n, options: 1n, iret_ext: 1n }, X, 0)).toBe(
      '000000  F3.SF3 support  enable=1 encoder_mode=0 qual_status=0(no_change) options=0b00001 iret_ext=1',
    );
  });
});

describe('dumpStream', () => {
  it('follows the implicit exception option of support packets, shows data packets raw', () => {
    const trap: Packet = { format: 3n, subformat: 1n, branch: 1n, privilege: 3n, ecause: 2n, interrupt: 0n, tvalepc: 0n };
    const stream = Uint8Array.from([
      // support packet: implicit_exception (options bit 1) on
      ...encapsulate(packPacket({ format: 3n, subformat: 3n, enable: 1n, encoder_mode: 0n, qual_status: 0n, options: 2n }, P), P),
      // a trap without address, readable only in that mode
      ...encapsulate(packPacket(trap, P, { implicit_exception: true }), P),
      0x61, 0xab,
    ]);
    expect(dumpStream(stream, P)).toEqual([
      '000000  F3.SF3 support  enable=1 encoder_mode=0 qual_status=0(no_change) options=0b00010',
      '000003  F3.SF1 trap  branch=1 privilege=3 ecause=0x2 interrupt=0 tvalepc=0x0',
      '000006  data  payload=ab',
    ]);
  });

  it('shows srcID and timestamp first when configured', () => {
    const params: PacketParams = { ...P, encap_srcid_width: 8, encap_timestamp_width: 16 };
    const bytes = encapsulate(packPacket({ format: 1n, branches: 0n, branch_map: 5n }, params), params, { srcId: 7n, timestamp: 0x1234n });
    expect(dumpStream(bytes, params)).toEqual([
      '000000  F1 diff-delta  srcid=7 timestamp=0x1234 branches=0 branch_map=0b0000000000000000000000000000101',
    ]);
  });
});
