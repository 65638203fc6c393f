import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, type EtraceConfig, validateConfig } from '../config.ts';
import { emptyRecord } from '../../hart/records.ts';
import { DataEncoder } from './encoder.ts';
import { dataWidths, defaultDataParams, type DataParams } from './params.ts';

function config(data: Partial<DataParams>, options: Partial<EtraceConfig['options']> = {}): EtraceConfig {
  return { params: { ...defaultParams('2.0'), iaddress_width_p: 64, dataTrace: { ...defaultDataParams(), ...data }, dataTraceSupport: true }, options: { ...defaultOptions(), ...options } };
}
const messages = (c: EtraceConfig): string[] => validateConfig(c).map((e) => `${e.location.path}: ${e.message}`);

describe('data trace parameters', () => {
  it('derive the widths of chapter 7 (format 2 bits only for unified loads and stores; size 2 bits for 32/64-bit data)', () => {
    const w = dataWidths({ ...defaultDataParams(), data_atomics_p: 0, data_csr_p: 0, dtype_width_p: 1, iaddress_width_p: 32, payload_layout: '1.1.1', data_width_p: 32, data_compress_p: 2 });
    expect([w.format, w.size, w.atomicSize, w.dataDiff, w.csrLen, w.address]).toEqual([2, 2, 1, 1, 2, 32]);
    const v = dataWidths({ ...defaultDataParams(), iaddress_width_p: 64, payload_layout: '2.0' });
    expect([v.format, v.size, v.atomicSize, v.dataDiff, v.csrLen]).toEqual([3, 2, 2, 2, 3]);
  });

  it('refuse what the hardware cannot do, one line each naming the setting', () => {
    expect(messages(config({ data_compress_p: 1 }, { DataCompress: 2 }))).toEqual([
      'options/DataCompress: DataCompress = 2 needs compression the hardware lacks (data_compress_p = 1: bit 0 XOR, bit 1 differential)',
    ]);
    expect(messages(config({ data_atomics_p: 1, dtype_width_p: 3 }))).toEqual(['parameters/dtype_width_p: atomics (data_atomics_p = 1) need dtype_width_p = 4, not 3']);
    expect(messages(config({}, { noData: true, noAddress: true }))).toEqual(['options/noData: noData and noAddress together leave nothing to trace']);
    expect(messages(config({ data_width_p: 48 }))).toEqual(['parameters/data_width_p: data_width_p must be 32 or 64, not 48']);
  });

  it('the encoder refuses an access the component cannot trace, naming it', () => {
    const enc = new DataEncoder(config({ data_atomics_p: 0 }));
    const a = { at: 7, dtype: 9, daddr: 0x1000n, dsize: 2, data: 0n, lrid: 0, iaddrLsbs: 0, dblock: 0 };
    expect(() => enc.access(a, emptyRecord(), 3)).toThrow('data access 3 (record 7): amo-add needs a component with data_atomics_p = 1');
    expect(() => enc.access({ ...a, dtype: 15 }, emptyRecord(), 3)).toThrow('data access 3 (record 7): reserved dtype 15 is not a data access type of table 4.9');
    expect(() => new DataEncoder(config({})).access({ ...a, dtype: 8, daddr: 0x1002n }, emptyRecord(), 4)).toThrow('data access 4 (record 7): amo-swap must be 4 or 8 bytes at an aligned address, not dsize 2 at 0x1002');
  });
});
