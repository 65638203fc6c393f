/**
 * Hand-computed te_data packets. Each expected byte string was worked out from the field tables of
 * chapter 7 (2.0 text for the 2.0 layout, the seed's atomic size/op_len for 1.1.1) with the field
 * values written beside it, packed first field at the LSB, sign-compressed, and given the header
 * `0x60 | length` (flow 3 = data trace): not taken from the model.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, type EtraceConfig } from '../config.ts';
import { type DataAccess, type LoadResponse, Lresp } from '../../hart/data-records.ts';
import { emptyRecord } from '../../hart/records.ts';
import { encapsulate, MSG_TYPE } from '../packet/encapsulate.ts';
import { DataEncoder, type DataEmitted } from './encoder.ts';
import { packData } from './packets.ts';
import { dataPacketParams, dataWidths, defaultDataParams, type DataParams } from './params.ts';

function config(layout: '1.1.1' | '2.0', xlen: 32 | 64, data: Partial<DataParams>, options: Partial<EtraceConfig['options']> = {}): EtraceConfig {
  return {
    params: { ...defaultParams(layout), iaddress_width_p: xlen, dataTrace: { ...defaultDataParams(), data_width_p: xlen, ...data }, dataTraceSupport: true },
    options: { ...defaultOptions(), ...options },
  };
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

function bytesOf(c: EtraceConfig, e: DataEmitted): string {
  const packed = packData(e.packet, dataWidths(dataPacketParams(c.params)), c.params.payload_layout, e.atomicSizeField);
  return hex(encapsulate(packed, c.params, { msgType: MSG_TYPE.data }));
}

function access(dtype: number, daddr: bigint, dsize: number, data: bigint, lrid = 0): DataAccess {
  return { at: 0, dtype, daddr, dsize, data, lrid, iaddrLsbs: 0, dblock: 0 };
}

/** Encodes accesses in order on one fresh encoder (one history) and returns each one's bytes. */
function run(c: EtraceConfig, steps: (DataAccess | LoadResponse)[]): string[] {
  const enc = new DataEncoder(c);
  const r = emptyRecord();
  return steps.flatMap((s, i) => ('dtype' in s ? enc.access(s, r, i) : enc.response(s)).map((e) => bytesOf(c, e)));
}

const full64 = config('2.0', 64, { data_split_p: 0 });

describe('te_data packets typed from the tables', () => {
  it('unified store/load, aligned: sync (diff 00), then XOR (diff 01, tie with differential), then differential (diff 11)', () => {
    // 1: format 010, size 10, diff 00, data_len 11, data 0x12345678, address 0x80001000>>2.
    // 2: format 010, size 10, diff 01, data_len 00, data 0x01 (0x12345678 ^ 0x12345679), address +1.
    // 3: load word at 0x80001000, 0x12345680: XOR 0xf9 needs 2 bytes, difference 7 one: format 000,
    //    size 10, diff 11, data_len 00, data 0x07, address -1.
    expect(run(full64, [access(1, 0x80001000n, 2, 0x12345678n), access(1, 0x80001004n, 2, 0x12345679n), access(0, 0x80001000n, 2, 0x12345680n)])).toEqual([
      '69 92 f1 ac 68 24 00 08 00 40',
      '63 32 02 02',
      '63 70 0e fe',
    ]);
  });

  it('unaligned halfword load: format 001, the byte address', () => {
    // format 001, size 01, diff 00, data_len (1 bit) 1, data 0xbeef, address 0x80002001.
    expect(run(full64, [access(0, 0x80002001n, 1, 0xbeefn)])).toEqual(['68 89 ef be 01 20 00 80 00']);
  });

  it('byte load: data_len has no bits, one data byte', () => {
    // format 000, size 00, diff 00, data 0x80, address 0x80003000 (aligned to a byte: not shifted).
    expect(run(full64, [access(0, 0x80003000n, 0, 0x80n)])).toEqual(['66 00 40 00 18 00 40']);
  });

  it('noData: address only (table 7.2), full then differential', () => {
    // format 000, size 11, diff 0, address 0x80006010>>3; then diff 1, address -2 (0x80006000).
    expect(run(config('2.0', 64, {}, { noData: true }), [access(0, 0x80006010n, 3, 0n), access(0, 0x80006000n, 3, 5n)])).toEqual(['65 98 00 03 00 04', '61 b8']);
  });

  it('noAddress: data only (table 7.3), full then XOR', () => {
    // format 010, size 11, diff 00, data 0x1234; then diff 01, data 0x1 (0x1234 ^ 0x1235).
    expect(run(config('2.0', 64, {}, { noAddress: true }), [access(1, 0x100n, 3, 0x1234n), access(1, 0x200n, 3, 0x1235n)])).toEqual(['63 1a 1a 09', '62 ba 00']);
  });

  it('unified atomic, 2.0 layout: subtype 001 (ADD), size as loads, op_len/data_len of size bits', () => {
    // format 110, subtype 001, size 10, diff 00, op_len 00, operand 5, data_len 01, data 0x1234,
    // address 0x80004000>>2. The interface packs operand (written) low, data (read) high.
    expect(run(full64, [access(9, 0x80004000n, 2, 5n | (0x1234n << 32n))])).toEqual(['69 8e 50 10 8d 04 00 04 00 08']);
  });

  it('unified atomic, 1.1.1 layout: 1-bit size (8 bytes = 1), op_len and data_len of 2 + size bits', () => {
    // format 110, subtype 000 (swap), size 1, diff 00, op_len 000, operand 0x7f, data_len 000,
    // data 0xff (all ones sign-extends from one byte), address 0x80004008>>3.
    expect(run(config('1.1.1', 64, {}), [access(8, 0x80004008n, 3, 0x7fn | (((1n << 64n) - 1n) << 64n))])).toEqual(['68 46 f0 87 ff 00 04 00 08']);
  });

  it('CSR with operand (table 7.11), then a read-only CSR without (table 7.12) compressed by XOR', () => {
    // csrrw mstatus: format 101, subtype 00, diff 00, data_len 001, data 0x1800 (read), addr_msbs
    // 001100, op_len 001, operand 0x1008 (written), addr_lsbs 000000.
    // csrrs cycle: format 101, subtype 01, diff 01, data_len 000, data 0x10 (0x1018 ^ 0x1008),
    // addr_msbs 110000, addr_lsbs 000000.
    expect(run(full64, [access(4, 0x300n, 3, 0x1008n | (0x1800n << 64n)), access(5, 0xc00n, 3, 0x1018n << 64n)])).toEqual(['67 85 00 60 30 41 80 00', '64 2d 40 c0 00']);
  });

  it('CSR address only (table 7.13): full, then differential', () => {
    // format 101, subtype 10 (RC), diff 0, addr_msbs 001100, addr_lsbs 0; then diff 1, 0x305 - 0x300.
    expect(run(config('2.0', 64, {}, { noData: true }), [access(6, 0x300n, 3, 0n), access(6, 0x305n, 3, 0n)])).toEqual(['62 15 03', '62 35 50']);
  });

  it('split load: request (table 7.4) and response (table 7.5), then an error response without data', () => {
    const c = config('2.0', 64, { data_split_p: 1, lrid_width_p: 2 });
    const resp = (lid: number, lresp: number, ldata: bigint): LoadResponse => ({ at: 0, lid, lresp, ldata });
    // request: format 000, size 11, lrid 10, diff 0, address 0x80005000>>3.
    // response: format 100, size 11, lrid 10, resp 10 (full), data 0xdeadbeef.
    // request: format 000, size 11, lrid 01, diff 1, address +1; response: format 100, size 11,
    // lrid 01, resp 00 (error: no data).
    expect(run(c, [access(0, 0x80005000n, 3, 0n, 2), resp(2, Lresp.okay, 0xdeadbeefn), access(0, 0x80005008n, 3, 0n, 1), resp(1, Lresp.error, 0n)])).toEqual([
      '65 58 00 0a 00 10',
      '66 5c df 7d 5b bd 01',
      '62 b8 01',
      '61 3c',
    ]);
  });

  it('2-bit format field when only unified loads and stores are traced (RV32)', () => {
    // format 10, size 10, diff 00, data_len 00, data 0x2a, address 0x20000000>>2 (32 bits).
    const c = config('2.0', 32, { data_atomics_p: 0, data_csr_p: 0, dtype_width_p: 1 });
    expect(run(c, [access(1, 0x20000000n, 2, 0x2an)])).toEqual(['66 0a 2a 00 00 00 08']);
  });

  it('XOR only offered (data_compress_p 1): data-only diff field of 1 bit', () => {
    // format 00, size 10, diff 0, data 0x12345678; then diff 1, data 0xffffffff (the XOR with ~).
    const c = config('2.0', 32, { data_atomics_p: 0, data_csr_p: 0, dtype_width_p: 1, data_compress_p: 1 }, { noAddress: true, DataCompress: 1 });
    expect(run(c, [access(0, 0n, 2, 0x12345678n), access(0, 0n, 2, 0xedcba987n)])).toEqual(['65 08 cf 8a 46 02', '61 f8']);
  });

  it('DataCompress 0 sends every value full (diff 00) even with a history', () => {
    const c = config('2.0', 64, {}, { DataCompress: 0 });
    // Second packet: format 010, size 10, diff 00, data_len 11, data 0x12345679, address 0x80001004>>2.
    expect(run(c, [access(1, 0x80001000n, 2, 0x12345678n), access(1, 0x80001004n, 2, 0x12345679n)])[1]).toBe('69 92 f3 ac 68 24 02 08 00 40');
  });

  it('differential address with full data (diff 10) when no compression is shorter; unaligned store word', () => {
    // store d 0 at 0x80001000: format 010, size 11, diff 00, data_len 000, data 0x00, address >>3.
    // store d 0x0123456789abcdef at 0x80001008: XOR and difference with 0 are the value itself, so
    // full wins the tie: diff 10, data_len 111, data (64 bits), address +1.
    expect(run(full64, [access(1, 0x80001000n, 3, 0n), access(1, 0x80001008n, 3, 0x0123456789abcdefn)])).toEqual(['66 1a 00 00 08 00 40', '6a da bf 37 af 26 9e 15 8d 04 04']);
    // store w 0x11 at 0x80001002: format 011, size 10, diff 00, data_len 00, data 0x11, byte address.
    expect(run(full64, [access(1, 0x80001002n, 2, 0x11n)])).toEqual(['67 13 22 04 20 00 00 01']);
  });

  it('atomic address only (table 7.7) and data and operand only (table 7.8)', () => {
    // amoswap.d at 0x80004008, noData: format 110, subtype 000, size 11, diff 0, address >>3.
    expect(run(config('2.0', 64, {}, { noData: true }), [access(8, 0x80004008n, 3, 0n)])).toEqual(['65 c6 02 10 00 20']);
    // amoor.w, noAddress, operand 0xf0 written, 0x0f read: format 110, subtype 011, size 10, diff 00,
    // op_len 01 (0xf0 needs 2 bytes to stay positive), operand 0x00f0, data (64 bits) 0x0f.
    expect(run(config('2.0', 64, {}, { noAddress: true }), [access(11, 0x80004000n, 2, 0xf0n | (0x0fn << 32n))])).toEqual(['65 9e 04 0f f0 00']);
  });

  it('split atomic: request with operand and address (table 7.9), response XOR-compressed (table 7.10)', () => {
    const c = config('2.0', 64, { data_split_p: 1, lrid_width_p: 2 });
    // amomax.d lrid 3 operand 2 at 0x80004010: format 110, subtype 101, size 11, lrid 11, diff 00,
    // op_len 000, operand 0x02, address >>3. Response 3: against the operand 2, XOR 1 (as short as the
    // difference 1, and XOR comes first): format 111, lrid 11, resp 01, data_len 000, data 0x01.
    expect(run(c, [access(13, 0x80004010n, 3, 2n, 3), { at: 0, lid: 3, lresp: Lresp.okay, ldata: 3n }])).toEqual(['67 ee 03 01 01 04 00 08', '62 3f 04']);
    // noAddress: amoand.w lrid 1 operand 0x55: format 110, subtype 010, size 10, lrid 01, diff 00,
    // operand (64 bits) 0x55.
    const n = config('2.0', 64, { data_split_p: 1, lrid_width_p: 2 }, { noAddress: true });
    expect(run(n, [access(10, 0x80004000n, 2, 0x55n, 1)])).toEqual(['63 96 51 05']);
  });

  it('split loads under noAddress: responses only, full then differential (resp 11)', () => {
    const c = config('2.0', 64, { data_split_p: 1, lrid_width_p: 2 }, { noAddress: true });
    // Response lrid 0, 0x1000: format 100, size 10, lrid 00, resp 10, data 0x1000. Response lrid 1,
    // 0x0fff: XOR 0x1fff needs 2 bytes, the difference -1 one: resp 11, data all ones.
    const steps = [access(0, 0x80005000n, 2, 0n, 0), access(0, 0x80005004n, 2, 0n, 1), { at: 0, lid: 0, lresp: Lresp.okay, ldata: 0x1000n }, { at: 0, lid: 1, lresp: Lresp.okay, ldata: 0xfffn }];
    expect(run(c, steps)).toEqual(['63 14 01 20', '61 b4']);
  });

  it('data only with differential data (diff 11)', () => {
    // format 010, size 10, diff 00, data 0x1000; then 0x0fff: diff 11, data all ones.
    expect(run(config('2.0', 64, {}, { noAddress: true }), [access(1, 0n, 2, 0x1000n), access(1, 4n, 2, 0xfffn)])).toEqual(['63 12 00 08', '61 f2']);
  });

  it('the history resets at a sync: the same access after resync() is full again', () => {
    const enc = new DataEncoder(full64);
    const a = access(1, 0x80001000n, 2, 0x12345678n);
    enc.access(a, emptyRecord(), 0);
    enc.resync();
    expect(bytesOf(full64, enc.access(a, emptyRecord(), 1)[0]!)).toBe('69 92 f1 ac 68 24 00 08 00 40');
  });
});
