import { describe, expect, it } from 'vitest';
import { validatePacketParams } from './fields.ts';
import { checkPacketParams, defaultPacketParams, packetWidths } from './params.ts';

describe('defaults', () => {
  it('1.1.1: seed Table 9.2 (attribute + 1 for the widths)', () => {
    const p = defaultPacketParams();
    expect(p).toMatchObject({
      payload_layout: '1.1.1',
      iaddress_width_p: 32,
      iaddress_lsb_p: 1,
      ecause_width_p: 4,
      privilege_width_p: 3,
      context_width_p: 1,
      nocontext_p: 0,
      notime_p: 1,
      f0s_width_p: 0,
    });
    expect(validatePacketParams(p)).toEqual([]);
  });

  it('2.0: the ratified required attributes (privilege 2, no context, no time)', () => {
    const p = defaultPacketParams('2.0');
    expect(p).toMatchObject({ privilege_width_p: 2, nocontext_p: 1, notime_p: 1 });
    expect(validatePacketParams(p)).toEqual([]);
  });
});

describe('derived widths', () => {
  it('are computed from the parameters in one place', () => {
    const p = { ...defaultPacketParams('2.0'), iaddress_width_p: 64, return_stack_size_p: 3, call_counter_size_p: 2, cache_size_p: 4, notime_p: 0, time_width_p: 40, iret_ext_p: 0 };
    expect(packetWidths(p)).toMatchObject({ address: 63, tval: 64, irdepth: 6, irets: 0, iretExt: 0, index: 4, context: 0, time: 40, doptions: 4, sijump: 0 });
    // The seed has no time field and no data trace fields in the support packet.
    expect(packetWidths({ ...p, payload_layout: '1.1.1' })).toMatchObject({ time: 0, doptions: 0 });
  });

  it('Implicit Return extension: irets (8 bits) replaces irdepth, and the support packet gets iret_ext', () => {
    // Extension texts: "irets | 8" in every revised format 0/1/2 table; the Standard Support
    // Packet's "iret_ext | 1". Only where implicit return hardware exists.
    const ext = { ...defaultPacketParams('2.0'), return_stack_size_p: 3, iret_ext_p: 1 };
    expect(defaultPacketParams().iret_ext_p).toBe(1);
    expect(packetWidths(ext)).toMatchObject({ irdepth: 0, irets: 8, iretExt: 1 });
    expect(packetWidths({ ...ext, return_stack_size_p: 0, call_counter_size_p: 5 })).toMatchObject({ irdepth: 0, irets: 8, iretExt: 1 });
    // Without a call counter or return stack the parameter changes nothing.
    expect(packetWidths({ ...ext, return_stack_size_p: 0 })).toMatchObject({ irdepth: 0, irets: 0, iretExt: 0 });
    expect(packetWidths({ ...ext, payload_layout: '1.1.1' })).toMatchObject({ irdepth: 0, irets: 8, iretExt: 1 });
    expect(checkPacketParams({ ...ext, iret_ext_p: 2 }).map((e) => e.oneLine())).toEqual(['parameters/iret_ext_p: iret_ext_p = 2 is outside 0..1']);
  });
});

describe('validation', () => {
  it('collects every problem with its parameter path', () => {
    const errors = checkPacketParams({
      ...defaultPacketParams('2.0'),
      iaddress_lsb_p: 5,
      encap_srcid_width: 17,
      encap_timestamp_width: 12,
      bpred_size_p: 1,
      cache_size_p: 1,
    });
    expect(errors.map((e) => e.location.path)).toEqual([
      'parameters/iaddress_lsb_p',
      'parameters/encap_srcid_width',
      'parameters/encap_timestamp_width',
      'parameters/f0s_width_p',
    ]);
    expect(errors.every((e) => e.code === 'invalid-component')).toBe(true);
  });
});
