/**
 * The data path generator (generator/etrace/data.ts): what the RTL does not implement is refused
 * with one line naming it, data filters get their module, the packet port is wide enough for the model's longest te_data packet
 * of each kind, and the output is the same byte for byte from run to run. The data path's
 * behaviour is checked by co-simulation (tb/etrace/data-cosim.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { packData, type DataKind } from '../../golden-model/etrace/data/packets.ts';
import { dataPacketParams, dataWidths } from '../../golden-model/etrace/data/params.ts';
import { encapsulate, MSG_TYPE } from '../../golden-model/etrace/packet/encapsulate.ts';
import { etraceConfigOf } from '../../blocks/testing.ts';
import { dataMaxBytes, dataResponseMaxBytes } from './data.ts';
import { renderEtraceRtl } from './rtl.ts';

const banner = { component: 'etrace-data', inputHash: 'test', sets: [] };

describe('data path generator', () => {
  it('refuses several signal groups a cycle without pipeline stages, with one line naming it', () => {
    const c = etraceConfigOf('etrace-data', ['retires_p=2', 'iretire_width_p=3', 'taken_branches_p=2', 'dblock_width_p=1', 'pipeline_stages_p=0']);
    let error: unknown;
    try {
      renderEtraceRtl(c, banner);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RvError);
    const message = (error as RvError).message;
    expect(message).toBe(
      'the RTL generator does not implement data trace with several signal groups a cycle (taken_branches_p > 1) without pipeline stages: set pipeline_stages_p >= 1',
    );
    expect(message).not.toContain('\n');
  });

  it('with several signal groups a cycle the component needs a dblock wide enough to name each (table 4.9)', () => {
    expect(() => etraceConfigOf('etrace-data', ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=3', 'dblock_width_p=1'])).toThrow(
      /dblock_width_p >= 2 \(table 4\.9/,
    );
  });

  it('multiple retirement: one group a cycle leaves dblock_i unread; with two, the access packet has a site between the groups', () => {
    const one = renderEtraceRtl(etraceConfigOf('etrace-data', ['retires_p=2', 'iretire_width_p=3', 'dblock_width_p=1']), banner);
    const top1 = one.find((f) => f.name === 'etrace_top.sv')!.content;
    expect(top1).toMatch(/unused[^;]*dblock_i/s);
    const two = renderEtraceRtl(etraceConfigOf('etrace-data', ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1']), banner);
    const enc = two.find((f) => f.name === 'etrace_encoder.sv')!.content;
    expect(enc).toContain('p_data_site0');
    expect(enc).not.toContain('p_data_site1');
    expect(two.find((f) => f.name === 'etrace_data_encoder.sv')!.content).toMatch(/input\s+logic \[5:0\]\s+trigger_i,/);
  });

  it('with filters the data path has etrace_data_filter, which takes iaddr_lsbs_i and the filter options', () => {
    const files = renderEtraceRtl(etraceConfigOf('etrace-data', ['filters_p=2', 'comparators_p=1', 'iaddr_lsbs_width_p=2']), banner);
    const names = files.map((f) => f.name);
    expect(names).toContain('etrace_data_filter.sv');
    const top = files.find((f) => f.name === 'etrace_top.sv')!.content;
    expect(top).toMatch(/\.iaddr_lsbs_i +\(iaddr_lsbs_i\)/);
    expect(top).toMatch(/\.d_filters_i +\(d_filters\[1:0\]\)/);
    expect(top).not.toMatch(/unused_data_inputs = \^\{ iaddr_lsbs_i/);
    const without = renderEtraceRtl(etraceConfigOf('etrace-data', ['comparators_p=1']), banner).map((f) => f.name);
    expect(without).not.toContain('etrace_data_filter.sv');
  });

  it('generates the same bytes every time, and nothing of the data path without data trace', () => {
    const c = etraceConfigOf('etrace-data');
    const a = renderEtraceRtl(c, banner);
    const b = renderEtraceRtl(etraceConfigOf('etrace-data'), banner);
    expect(a).toEqual(b);
    const off = renderEtraceRtl(etraceConfigOf('etrace-data', ['data_trace_p=0']), banner);
    expect(off.map((f) => f.name).filter((n) => n.startsWith('etrace_data'))).toEqual([]);
    for (const f of off) expect(f.content, f.name).not.toMatch(/dretire|etrace_data_encoder|denable_i/);
  });

  /** The longest packet of each kind the model can make: every value of the widest size, full, all ones. */
  function longest(c: EtraceConfig): number {
    const dp = dataPacketParams(c.params);
    const w = dataWidths(dp);
    const ones = (bits: number): bigint => (1n << BigInt(bits)) - 1n;
    const s = Math.log2(dp.data_width_p / 8);
    const n = BigInt((8 << s) / 8 - 1); // data_len of a full-width value
    const atomicSize = BigInt(dp.payload_layout === '2.0' ? s : s - 2);
    const csrLen = BigInt((c.params.iaddress_width_p > 32 ? 8 : 4) - 1);
    const csrValue = ones(c.params.iaddress_width_p > 32 ? 64 : 32);
    const value = ones(8 << s);
    // A 0 in the top bit of the last field keeps sign compression from removing it.
    const address = ones(w.address - 1);
    const kinds: [DataKind, Record<string, bigint>][] = [
      ['ls', { format: 3n, size: BigInt(s), diff: 3n, data_len: n, data: value, address }],
      ['ls-addr', { format: 3n, size: BigInt(s), diff: 1n, address }],
      ['ls-data', { format: 3n, size: BigInt(s), diff: ones(w.dataDiff), data: ones(w.data - 1) }],
    ];
    if (dp.data_atomics_p) {
      kinds.push(
        ['amo', { format: 6n, subtype: 6n, size: atomicSize, diff: 3n, op_len: n, operand: value, data_len: n, data: value, address }],
        ['amo-addr', { format: 6n, subtype: 6n, size: atomicSize, diff: 1n, address }],
        ['amo-data', { format: 6n, subtype: 6n, size: atomicSize, diff: ones(w.dataDiff), op_len: n, operand: value, data: ones(w.data - 1) }],
      );
    }
    if (dp.data_split_p) {
      const lrid = ones(w.lrid);
      kinds.push(['load-req', { format: 1n, size: BigInt(s), lrid, diff: 1n, address }]);
      if (dp.data_atomics_p) {
        kinds.push(
          ['amo-req', { format: 6n, subtype: 6n, size: atomicSize, lrid, diff: 3n, op_len: n, operand: value, address }],
          ['amo-req-noaddr', { format: 6n, subtype: 6n, size: atomicSize, lrid, diff: ones(w.dataDiff), operand: ones(w.data - 1) }],
        );
      }
    }
    if (dp.data_csr_p) {
      kinds.push(
        ['csr', { format: 5n, subtype: 2n, diff: ones(w.dataDiff), data_len: csrLen, data: csrValue, addr_msbs: 0x2fn, op_len: csrLen, operand: csrValue, addr_lsbs: 0x1fn }],
        ['csr-addr', { format: 5n, subtype: 2n, diff: 1n, addr_msbs: 0x3fn, addr_lsbs: 0x1fn }],
      );
    }
    return Math.max(...kinds.map(([kind, f]) => encapsulate(packData({ kind, f }, w, dp.payload_layout), c.params, { msgType: MSG_TYPE.data }).length));
  }

  /** The longest split response the model can make: okay, the widest value, all ones (a 0 on top). */
  function longestResponse(c: EtraceConfig): number {
    const dp = dataPacketParams(c.params);
    const w = dataWidths(dp);
    const ones = (bits: number): bigint => (1n << BigInt(bits)) - 1n;
    const s = Math.log2(dp.data_width_p / 8);
    const atomicSize = dp.payload_layout === '2.0' ? s : s - 2;
    const lrid = ones(w.lrid);
    const lengths = [encapsulate(packData({ kind: 'load-resp', f: { format: 4n, size: BigInt(s), lrid, resp: 3n, data: ones(w.data - 1) } }, w, dp.payload_layout), c.params, { msgType: MSG_TYPE.data }).length];
    if (dp.data_atomics_p) {
      const f = { format: 7n, lrid, resp: 3n, data_len: BigInt((8 << s) / 8 - 1), data: ones((8 << s) - 1) };
      lengths.push(encapsulate(packData({ kind: 'amo-resp', f }, w, dp.payload_layout, atomicSize), c.params, { msgType: MSG_TYPE.data }).length);
    }
    return Math.max(...lengths);
  }

  it.each([
    ['etrace-data', ['data_split_p=1']],
    ['etrace-data', ['data_split_p=1', 'lrid_width_p=8', 'payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5']],
    ['etrace-data', ['data_split_p=1', 'dtype_width_p=1', 'data_atomics_p=0', 'data_csr_p=0', 'encap_srcid_width=12']],
  ])('%s %s: the response port holds the longest split response the model makes, with not a byte to spare', (component, sets) => {
    const c = etraceConfigOf(component, sets as string[]);
    expect(dataResponseMaxBytes(c)).toBe(longestResponse(c));
  });

  it.each([
    ['etrace-data', []],
    ['etrace-data', ['data_split_p=1', 'lrid_width_p=8']],
    ['etrace-data', ['data_split_p=1', 'noAddress=1', 'lrid_width_p=5', 'payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5']],
    ['etrace-rv64-full', []],
    ['etrace-data', ['payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5']],
    ['etrace-data', ['dtype_width_p=1', 'data_atomics_p=0', 'data_csr_p=0', 'data_compress_p=1', 'DataCompress=1', 'encap_srcid_width=12']],
  ])('%s %s: the packet port holds the longest packet the model makes, with not a byte to spare', (component, sets) => {
    const c = etraceConfigOf(component, sets as string[]);
    expect(dataMaxBytes(c)).toBe(longest(c));
  });
});
