/**
 * The E-Trace codec with data trace: encode takes the stream's data, decode gives the instruction
 * addresses and (decodeEtraceData) the accesses attached to their instructions, dump names every
 * data field.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, type EtraceConfig } from '../../golden-model/etrace/config.ts';
import { defaultDataParams } from '../../golden-model/etrace/data/params.ts';
import { ProgramImage } from '../../golden-model/hart/image.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import type { DataTrace } from '../../golden-model/hart/data-records.ts';
import { decodeEtraceData, etraceCodec } from './codec.ts';

// lw x5,0(x10); addi x0,x0,0; sw x5,4(x10); csrrw x0,mstatus,x5; amoadd.w x6,x5,(x10); addi.
const program = [0x00052283, 0x00000013, 0x00552223, 0x30029073, 0x0052a32f, 0x00000013];
const bytes = new Uint8Array(program.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
const image = new ProgramImage([{ base: 0x80000000n, bytes }]);
const records: RetirementRecord[] = program.map((_, i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x80000000n + 4n * BigInt(i) }));
const base = { lrid: 0, iaddrLsbs: 0, dblock: 0 };
const data: DataTrace = {
  accesses: [
    { ...base, at: 0, dtype: 0, daddr: 0x80001000n, dsize: 2, data: 0x1234n },
    { ...base, at: 2, dtype: 1, daddr: 0x80001004n, dsize: 2, data: 0x1234n },
    { ...base, at: 3, dtype: 4, daddr: 0x300n, dsize: 3, data: 0x1234n | (0x1800n << 64n) },
    { ...base, at: 4, dtype: 9, daddr: 0x80001000n, dsize: 2, data: 0x1234n | (0x1234n << 32n) },
  ],
  responses: [],
};
const configOf = (layout: '1.1.1' | '2.0'): EtraceConfig => ({
  params: { ...defaultParams(layout), iaddress_width_p: 64, dataTrace: defaultDataParams(), dataTraceSupport: true },
  options: defaultOptions(),
});
const config = configOf('2.0');

describe('E-Trace codec with data trace', () => {
  const encoded = etraceCodec.encode(records, config, { data });

  it('the instruction decoder reads the 1.1.1 support packet with its appended data options', () => {
    const c = configOf('1.1.1');
    const items = etraceCodec.decode(etraceCodec.encode(records, c, { data }).bytes, image, c, {});
    expect(items.flatMap((i) => (i.kind === 'pc' ? [i.address] : []))).toEqual(records.map((r) => r.iaddr));
  });

  it('decodes the instructions as without data, and attaches each access to its instruction', () => {
    const items = etraceCodec.decode(encoded.bytes, image, config, {});
    const pcs = items.flatMap((i) => (i.kind === 'pc' ? [i.address] : []));
    expect(pcs).toEqual(records.map((r) => r.iaddr));
    const got = decodeEtraceData(encoded.bytes, image, config, pcs);
    expect(got.accesses.map((a) => [a.pc, a.dtype, a.daddr, a.data])).toEqual([
      [0x80000000n, 0, 0x80001000n, 0x1234n],
      [0x80000008n, 1, 0x80001004n, 0x1234n],
      [0x8000000cn, 4, 0x300n, 0x1234n | (0x1800n << 64n)],
      [0x80000010n, 9, 0x80001000n, 0x1234n | (0x1234n << 32n)],
    ]);
  });

  it('dump names every data field', () => {
    const lines = etraceCodec.dump(encoded.bytes, config).filter((l) => / D\d /.test(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/D0 load-aligned \(ls\) {2}size=2 diff=0 data_len=1 data=0x1234 address=0x20000400 {2}-> dtype=0 dsize=2 daddr=0x80001000 value=0x1234$/);
    expect(lines[2]).toMatch(/D5 csr \(csr\) {2}subtype=0\(rw\) diff=0 data_len=1 data=0x1800 addr_msbs=0xc op_len=1 operand=0x1234 addr_lsbs=0x0/);
  });

  it('--data-out without data trace in the component is a one-line error', () => {
    const plain: EtraceConfig = { params: { ...defaultParams('2.0'), iaddress_width_p: 64 }, options: defaultOptions() };
    expect(() => etraceCodec.decode(etraceCodec.encode(records, plain, {}).bytes, image, plain, { 'data-out': 'x.csv' })).toThrow(/--data-out x.csv: the component has no data trace/);
  });
});

describe('E-Trace codec statistics with data trace', () => {
  it('counts te_data packets per format', () => {
    const s = etraceCodec.stats(etraceCodec.encode(records, config, { data }).bytes, config);
    const rows = Object.fromEntries(s.rows.filter((r) => r.kind.startsWith('D')).map((r) => [r.kind, r.count]));
    expect(rows).toEqual({ 'D0 load-aligned': 1, 'D2 store-aligned': 1, 'D5 csr': 1, 'D6 atomic': 1 });
  });
});
