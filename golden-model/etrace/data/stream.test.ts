/**
 * Data packets in the combined byte stream (docs/etrace-data.md, "Order in the byte stream"): in
 * each cycle the instruction packets the cycle caused come first, then the data packets of its
 * accesses in retirement order, then those of its split-load responses; the support packet reports
 * dEnable and doptions.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, type EtraceConfig } from '../config.ts';
import { encodeStream } from '../output.ts';
import { splitStream, unpackPacket } from '../packet/index.ts';
import { defaultDataParams } from './params.ts';
import { emptyRecord, type RetirementRecord } from '../../hart/records.ts';
import type { DataTrace } from '../../hart/data-records.ts';
import { decodeDataStream } from '../data-decoder/decoder.ts';

function config(layout: '1.1.1' | '2.0', options: Partial<EtraceConfig['options']> = {}): EtraceConfig {
  return { params: { ...defaultParams(layout), iaddress_width_p: 64, dataTrace: defaultDataParams(), dataTraceSupport: true }, options: { ...defaultOptions(), ...options } };
}
const recs: RetirementRecord[] = [0, 1, 2].map((i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x1000n + 4n * BigInt(i) }));
const base = { lrid: 0, iaddrLsbs: 0, dblock: 0 };
const trace: DataTrace = {
  accesses: [
    { ...base, at: 0, dtype: 1, daddr: 0x2000n, dsize: 3, data: 1n },
    { ...base, at: 1, dtype: 0, daddr: 0x2008n, dsize: 3, data: 2n },
    { ...base, at: 1, dtype: 0, daddr: 0x2010n, dsize: 2, data: 3n },
  ],
  responses: [],
};

function kinds(c: EtraceConfig): string[] {
  const bytes = encodeStream(recs, c, { data: trace }).bytes;
  return [...splitStream(bytes, c.params)].map((sp) => {
    if (sp.msgType === 3) return `data ${(sp.payload[0]! & 7).toString(2).padStart(3, '0')}`;
    const p = unpackPacket(sp.payload, c.params, sp.offset);
    return `F${p.format}${p.format === 3n ? `.SF${p.subformat}` : ''}`;
  });
}

describe('data trace in the byte stream', () => {
  it('orders the packets of a cycle: instruction packets first, then the accesses in retirement order', () => {
    // Record 0's cycle: the support packet, then its store. Record 1's cycle: the F3 SF0 reporting
    // record 0 (the encoder sees one instruction ahead), then record 1's two loads. The stream ends
    // with the last instruction's report and the support packet.
    expect(kinds(config('2.0'))).toEqual(['F3.SF3', 'data 010', 'F3.SF0', 'data 000', 'data 000', 'F2', 'F3.SF3']);
  });

  it('a component without data trace ignores the stream data (no flow 3 packets)', () => {
    const c: EtraceConfig = { params: { ...defaultParams('2.0'), iaddress_width_p: 64 }, options: defaultOptions() };
    expect(kinds(c).some((k) => k.startsWith('data'))).toBe(false);
  });

  for (const layout of ['1.1.1', '2.0'] as const) {
    it(`reports dEnable and doptions (bit 0 noAddress, bit 1 noData, bits 3:2 DataCompress) in the ${layout} support packet`, () => {
      const c = config(layout, { noData: true, DataCompress: 2 });
      const first = [...splitStream(encodeStream(recs, c, { data: trace }).bytes, c.params)][0]!;
      const p = unpackPacket(first.payload, c.params, 0);
      expect([p.denable, p.doptions]).toEqual([1n, 0b1010n]);
    });
  }
});

describe('run-time option changes', () => {
  it('the decoder follows noData switched on mid-stream through the support packets', () => {
    const c = config('2.0');
    const records: RetirementRecord[] = Array.from({ length: 40 }, (_, i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x1000n + 4n * BigInt(i) }));
    const accesses = records.map((_, i) => ({ lrid: 0, iaddrLsbs: 0, dblock: 0, at: i, dtype: 1, daddr: 0x2000n + 8n * BigInt(i), dsize: 3, data: BigInt(i * 3) }));
    const changes = new Map([[20, { ...c.options, noData: true }]]);
    const bytes = encodeStream(records, c, { data: { accesses, responses: [] }, optionChanges: changes }).bytes;
    const got = decodeDataStream(bytes, c.params).accesses;
    expect(got.map((a) => [a.daddr, a.data])).toEqual(accesses.map((a, i) => [a.daddr, i < 20 ? a.data : undefined]));
  });
});
