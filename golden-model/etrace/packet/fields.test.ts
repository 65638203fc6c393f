/**
 * The field tables, written out from the spec's tables (seed chapter 6 for 1.1.1, the ratified
 * payload chapter for 2.0) as `name:width` in transmission order.
 *
 * Parameters T: iaddress_width_p 64, iaddress_lsb_p 1 (address 63), privilege 2, context 32,
 * time 16 (2.0), ecause 6, call_counter_size_p 4 (irdepth 4), bpred 1, cache 3 (index 3),
 * f0s_width_p 1, iret_ext_p 0 (the ratified irdepth; the Implicit Return extension's tables are
 * at the end).
 */
import { describe, expect, it } from 'vitest';
import {
  branchMapWidth,
  impliedF0Subformat,
  largestPacketBits,
  optionFields,
  optionsOf,
  packetFields,
  packetKind,
  type Packet,
  type PacketMode,
} from './fields.ts';
import { defaultPacketParams, type PacketParams, type PayloadLayout } from './params.ts';

function T(layout: PayloadLayout, extra: Partial<PacketParams> = {}): PacketParams {
  return {
    ...defaultPacketParams(layout),
    iaddress_width_p: 64,
    iaddress_lsb_p: 1,
    privilege_width_p: 2,
    context_width_p: 32,
    nocontext_p: 0,
    time_width_p: 16,
    notime_p: 0,
    ecause_width_p: 6,
    call_counter_size_p: 4,
    bpred_size_p: 1,
    cache_size_p: 3,
    f0s_width_p: 1,
    iret_ext_p: 0,
    ...extra,
  };
}

const table = (pkt: Packet, params: PacketParams, mode: PacketMode = {}): string =>
  packetFields(pkt, params, mode)
    .map((f) => `${f.name}:${f.width}`)
    .join(' ');

const ADDRESS_TAIL = 'address:63 notify:1 updiscon:1 irreport:1 irdepth:4';

describe.each(['1.1.1', '2.0'] as const)('formats 0, 1, 2 in %s', (layout) => {
  const P = T(layout);
  it('F0 SF0 (tables 6.8, 6.9)', () => {
    expect(table({ format: 0n, subformat: 0n, branch_fmt: 0n }, P)).toBe('format:2 subformat:1 branch_count:32 branch_fmt:2');
    expect(table({ format: 0n, subformat: 0n, branch_fmt: 2n }, P)).toBe(`format:2 subformat:1 branch_count:32 branch_fmt:2 ${ADDRESS_TAIL}`);
    expect(table({ format: 0n, subformat: 0n, branch_fmt: 3n }, P)).toBe(`format:2 subformat:1 branch_count:32 branch_fmt:2 ${ADDRESS_TAIL}`);
  });
  it('F0 SF1 (tables 6.10, 6.11)', () => {
    expect(table({ format: 0n, subformat: 1n, branches: 12n }, P)).toBe('format:2 subformat:1 index:3 branches:5 branch_map:15 irreport:1 irdepth:4');
    expect(table({ format: 0n, subformat: 1n, branches: 0n }, P)).toBe('format:2 subformat:1 index:3 branches:5 irreport:1 irdepth:4');
  });
  it('F1 (tables 6.6, 6.7)', () => {
    expect(table({ format: 1n, branches: 1n }, P)).toBe(`format:2 branches:5 branch_map:1 ${ADDRESS_TAIL}`);
    expect(table({ format: 1n, branches: 31n }, P)).toBe(`format:2 branches:5 branch_map:31 ${ADDRESS_TAIL}`);
    expect(table({ format: 1n, branches: 0n }, P)).toBe('format:2 branches:5 branch_map:31');
  });
  it('F2 (table 6.5)', () => {
    expect(table({ format: 2n }, P)).toBe(`format:2 ${ADDRESS_TAIL}`);
  });
  it('irdepth: return_stack_size_p + 1 + call_counter_size_p, absent without implicit return', () => {
    expect(table({ format: 2n }, T(layout, { call_counter_size_p: 0, return_stack_size_p: 3 }))).toBe(
      'format:2 address:63 notify:1 updiscon:1 irreport:1 irdepth:4',
    );
    expect(table({ format: 2n }, T(layout, { call_counter_size_p: 0 }))).toBe('format:2 address:63 notify:1 updiscon:1 irreport:1');
  });
  it('f0s_width_p 0: the subformat is not sent and implied by the one supported format', () => {
    const bpredOnly = T(layout, { cache_size_p: 0, f0s_width_p: 0 });
    expect(impliedF0Subformat(bpredOnly)).toBe(0n);
    expect(table({ format: 0n, branch_fmt: 0n }, bpredOnly)).toBe('format:2 branch_count:32 branch_fmt:2');
    const cacheOnly = T(layout, { bpred_size_p: 0, f0s_width_p: 0 });
    expect(impliedF0Subformat(cacheOnly)).toBe(1n);
    expect(packetKind({ format: 0n }, cacheOnly)).toBe('F0.SF1');
    expect(table({ format: 0n, branches: 0n }, cacheOnly)).toBe('format:2 index:3 branches:5 irreport:1 irdepth:4');
  });
});

describe('format 3 in 1.1.1 (seed tables 6.1-6.4)', () => {
  const P = T('1.1.1');
  it('SF0', () => {
    expect(table({ format: 3n, subformat: 0n }, P)).toBe('format:2 subformat:2 branch:1 privilege:2 context:32 address:63');
  });
  it('SF1, with and without implicit exception', () => {
    expect(table({ format: 3n, subformat: 1n }, P)).toBe(
      'format:2 subformat:2 branch:1 privilege:2 context:32 ecause:6 interrupt:1 address:63 tvalepc:64',
    );
    expect(table({ format: 3n, subformat: 1n }, P, { implicit_exception: true })).toBe(
      'format:2 subformat:2 branch:1 privilege:2 context:32 ecause:6 interrupt:1 tvalepc:64',
    );
  });
  it('SF2: context_width_p even with nocontext_p (table 6.3 has no condition)', () => {
    expect(table({ format: 3n, subformat: 2n }, P)).toBe('format:2 subformat:2 privilege:2 context:32');
    expect(table({ format: 3n, subformat: 2n }, T('1.1.1', { nocontext_p: 1 }))).toBe('format:2 subformat:2 privilege:2 context:32');
    expect(table({ format: 3n, subformat: 0n }, T('1.1.1', { nocontext_p: 1 }))).toBe('format:2 subformat:2 branch:1 privilege:2 address:63');
  });
  it('SF3, and sijump above options', () => {
    expect(table({ format: 3n, subformat: 3n }, P)).toBe('format:2 subformat:2 enable:1 encoder_mode:1 qual_status:2 options:5');
    expect(table({ format: 3n, subformat: 3n }, T('1.1.1', { sijump_p: 1 }))).toBe(
      'format:2 subformat:2 enable:1 encoder_mode:1 qual_status:2 options:5 sijump:1',
    );
  });
});

describe('format 3 in 2.0 (ratified)', () => {
  const P = T('2.0');
  it('SF0: time after privilege', () => {
    expect(table({ format: 3n, subformat: 0n }, P)).toBe('format:2 subformat:2 branch:1 privilege:2 time:16 context:32 address:63');
    expect(table({ format: 3n, subformat: 0n }, T('2.0', { notime_p: 1, nocontext_p: 1 }))).toBe(
      'format:2 subformat:2 branch:1 privilege:2 address:63',
    );
  });
  it('SF1: thaddr; address omitted only for thaddr 1 in implicit exception mode; tval omitted for interrupts', () => {
    const head = 'format:2 subformat:2 branch:1 privilege:2 time:16 context:32 ecause:6 interrupt:1 thaddr:1';
    expect(table({ format: 3n, subformat: 1n, interrupt: 0n, thaddr: 1n }, P)).toBe(`${head} address:63 tval:64`);
    expect(table({ format: 3n, subformat: 1n, interrupt: 1n, thaddr: 1n }, P)).toBe(`${head} address:63`);
    const ie = { implicit_exception: true };
    expect(table({ format: 3n, subformat: 1n, interrupt: 0n, thaddr: 1n }, P, ie)).toBe(`${head} tval:64`);
    expect(table({ format: 3n, subformat: 1n, interrupt: 0n, thaddr: 0n }, P, ie)).toBe(`${head} address:63 tval:64`);
    expect(table({ format: 3n, subformat: 1n, interrupt: 1n, thaddr: 1n }, P, ie)).toBe(head);
  });
  it('SF2: time, and nocontext applies', () => {
    expect(table({ format: 3n, subformat: 2n }, P)).toBe('format:2 subformat:2 privilege:2 time:16 context:32');
    expect(table({ format: 3n, subformat: 2n }, T('2.0', { nocontext_p: 1 }))).toBe('format:2 subformat:2 privilege:2 time:16');
  });
  it('SF3: ienable ... doptions, sijump last', () => {
    expect(table({ format: 3n, subformat: 3n }, T('2.0', { sijump_p: 1 }))).toBe(
      'format:2 subformat:2 ienable:1 encoder_mode:1 qual_status:2 ioptions:5 denable:1 dloss:1 doptions:4 sijump:1',
    );
  });
});

describe('selectors', () => {
  it('the list stops at a selector whose value is not known yet', () => {
    const P = T('2.0');
    expect(table({}, P)).toBe('format:2');
    expect(table({ format: 1n }, P)).toBe('format:2 branches:5');
    expect(table({ format: 3n }, P)).toBe('format:2 subformat:2');
    expect(table({ format: 0n, subformat: 0n }, P)).toBe('format:2 subformat:1 branch_count:32 branch_fmt:2');
  });
  it('branch_map widths (design note)', () => {
    const widths = Array.from({ length: 32 }, (_, b) => branchMapWidth(b));
    expect(widths).toEqual([31, 1, 3, 3, ...Array<number>(4).fill(7), ...Array<number>(8).fill(15), ...Array<number>(16).fill(31)]);
    expect(() => branchMapWidth(32)).toThrow('branches = 32 is outside 0..31');
  });
  it('format 0 subformats need the matching feature', () => {
    expect(() => packetFields({ format: 0n, subformat: 1n }, T('2.0', { cache_size_p: 0 }))).toThrow(/needs a jump target cache/);
    expect(() => packetFields({ format: 0n, subformat: 0n }, T('2.0', { bpred_size_p: 0 }))).toThrow(/needs a branch predictor/);
  });
});

describe('options', () => {
  it('bit assignment of the design note, sijump as its own field', () => {
    const opts = {
      implicit_return: true,
      implicit_exception: false,
      full_address: true,
      jump_target_cache: false,
      branch_prediction: true,
      sijump: true,
    };
    const P = T('2.0', { sijump_p: 1 });
    expect(optionFields(opts, P)).toEqual({ ioptions: 0b10101n, sijump: 1n });
    expect(optionFields(opts, T('1.1.1'))).toEqual({ options: 0b10101n });
    expect(optionsOf({ ioptions: 0b10101n, sijump: 1n })).toEqual(opts);
  });
});

/**
 * The Implicit Return extension v0.8 (etrace-2.0-updates/extensions.adoc): "All formats and fields
 * are the same, except irdepth is replaced by irets throughout", irets 8 bits, in the revised
 * tables of format 2, format 1 (with address; the no-address form has no flags), format 0
 * subformat 0 (with address) and subformat 1 (with and without branch map). The Standard Support
 * Packet's iret_ext bit: one bit, above every other field of our support packet.
 */
describe.each(['1.1.1', '2.0'] as const)('Implicit Return extension in %s', (layout) => {
  const X = T(layout, { iret_ext_p: 1 });
  const TAIL = 'address:63 notify:1 updiscon:1 irreport:1 irets:8';
  it('formats 0, 1, 2: irets in place of irdepth, whatever the counter or stack size', () => {
    expect(table({ format: 2n }, X)).toBe(`format:2 ${TAIL}`);
    expect(table({ format: 2n }, T(layout, { iret_ext_p: 1, call_counter_size_p: 0, return_stack_size_p: 3 }))).toBe(`format:2 ${TAIL}`);
    expect(table({ format: 1n, branches: 5n }, X)).toBe(`format:2 branches:5 branch_map:7 ${TAIL}`);
    expect(table({ format: 1n, branches: 0n }, X)).toBe('format:2 branches:5 branch_map:31');
    expect(table({ format: 0n, subformat: 0n, branch_fmt: 3n }, X)).toBe(`format:2 subformat:1 branch_count:32 branch_fmt:2 ${TAIL}`);
    expect(table({ format: 0n, subformat: 0n, branch_fmt: 0n }, X)).toBe('format:2 subformat:1 branch_count:32 branch_fmt:2');
    expect(table({ format: 0n, subformat: 1n, branches: 3n }, X)).toBe('format:2 subformat:1 index:3 branches:5 branch_map:3 irreport:1 irets:8');
    expect(table({ format: 0n, subformat: 1n, branches: 0n }, X)).toBe('format:2 subformat:1 index:3 branches:5 irreport:1 irets:8');
  });
  it('no implicit return hardware: neither irdepth nor irets', () => {
    expect(table({ format: 2n }, T(layout, { iret_ext_p: 1, call_counter_size_p: 0 }))).toBe('format:2 address:63 notify:1 updiscon:1 irreport:1');
  });
  it('support packet: iret_ext last (above sijump), always 1', () => {
    const head = layout === '2.0' ? 'ienable:1 encoder_mode:1 qual_status:2 ioptions:5 denable:1 dloss:1 doptions:4' : 'enable:1 encoder_mode:1 qual_status:2 options:5';
    expect(table({ format: 3n, subformat: 3n }, X)).toBe(`format:2 subformat:2 ${head} iret_ext:1`);
    expect(table({ format: 3n, subformat: 3n }, T(layout, { iret_ext_p: 1, sijump_p: 1 }))).toBe(`format:2 subformat:2 ${head} sijump:1 iret_ext:1`);
    const none = { implicit_return: false, implicit_exception: false, full_address: false, jump_target_cache: false, branch_prediction: false, sijump: false };
    expect(optionFields(none, X)).toMatchObject({ iret_ext: 1n });
    expect(optionFields(none, T(layout))).not.toHaveProperty('iret_ext');
  });
});

describe('largest packet', () => {
  it("the design note's worst case: F3 SF1 with 32-bit context and 64-bit time on RV64 is 30 bytes", () => {
    // 2+2+1+2+64+32+6+1+1+63+64 = 238 bits.
    const P = T('2.0', { time_width_p: 64, bpred_size_p: 0, cache_size_p: 0, f0s_width_p: 0, call_counter_size_p: 0 });
    expect(largestPacketBits(P)).toBe(238);
    expect(Math.ceil(238 / 8)).toBe(30);
  });
});
