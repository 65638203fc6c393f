/**
 * Reading te_data payloads (chapter 7) into named fields, written from the spec tables and
 * docs/etrace-data.md apart from the encoder (golden-model/etrace/data/), so that a round trip
 * checks one reading of the tables against another. A payload is sign-compressed: bits past its
 * end repeat its last bit.
 */
import { RvError } from '../../common/errors.ts';
import type { DataParams } from '../data/params.ts';

/** What the decoder needs to read a packet: parameters and the options of the last support packet. */
export interface ReadContext {
  readonly params: DataParams;
  readonly xlen: number;
  readonly layout: '1.1.1' | '2.0';
  readonly noData: boolean;
  readonly noAddress: boolean;
  /** The size field of the split atomic request with each lrid (table 7.10 has no size field). */
  readonly atomicSizeOf: (lrid: number) => number | undefined;
}

export interface ReadPacket {
  /** Table of the packet: 'ls', 'ls-addr', 'ls-data', 'load-req', 'load-resp', 'amo', ... */
  readonly table: string;
  /** Fields in packet order, unsigned. */
  readonly fields: readonly [string, bigint][];
}

class SignExtendingReader {
  private pos = 0;
  private readonly value: bigint;
  private readonly top: bigint;
  private readonly bits: number;
  constructor(payload: Uint8Array) {
    let v = 0n;
    for (let i = payload.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(payload[i]!);
    this.value = v;
    this.bits = payload.length * 8;
    this.top = this.bits === 0 ? 0n : (v >> BigInt(this.bits - 1)) & 1n;
  }
  take(width: number): bigint {
    let out = 0n;
    for (let i = 0; i < width; i++) {
      const at = this.pos + i;
      const bit = at < this.bits ? (this.value >> BigInt(at)) & 1n : this.top;
      out |= bit << BigInt(i);
    }
    this.pos += width;
    return out;
  }
}

const ceilLog2 = (n: number): number => {
  let k = 0;
  while (1 << k < n) k++;
  return k;
};

/** Reads one te_data payload. `offset` (the packet's byte offset) goes into errors. */
export function readDataPacket(payload: Uint8Array, ctx: ReadContext, offset: number): ReadPacket {
  const p = ctx.params;
  const r = new SignExtendingReader(payload);
  const fields: [string, bigint][] = [];
  const get = (name: string, width: number): bigint => {
    const v = r.take(width);
    fields.push([name, v]);
    return v;
  };
  const formatWidth = p.data_split_p || p.data_atomics_p || p.data_csr_p ? 3 : 2;
  const sizeWidth = Math.max(1, ceilLog2(ceilLog2(p.data_width_p / 8 + 1)));
  const atomicSizeWidth = ctx.layout === '2.0' ? sizeWidth : 1;
  // The seed gives atomics 2 + size bits of length, 2.0 gives `size` bits (the field's value).
  const atomicLen = (size: number): number => (ctx.layout === '2.0' ? size : 2 + size);
  const dataOnlyDiff = p.data_compress_p === 3 ? 2 : 1;
  const csrLen = ctx.xlen > 32 ? 3 : 2;
  const lrid = p.data_split_p ? p.lrid_width_p : 0;
  const bytesField = (lenName: string, lenWidth: number, name: string): void => {
    const len = get(lenName, lenWidth);
    get(name, 8 * (Number(len) + 1));
  };
  const format = Number(get('format', formatWidth));
  const done = (table: string): ReadPacket => ({ table, fields });
  if (format <= 3) {
    const isLoad = format <= 1;
    const size = Number(get('size', sizeWidth));
    if (ctx.noData) {
      get('diff', 1);
      get('address', ctx.xlen);
      return done('ls-addr');
    }
    if (isLoad && p.data_split_p) {
      if (ctx.noAddress) throw new RvError('bad-value', `te_data format ${format}: a split load request while noAddress is set (only its response is sent)`, { offset });
      get('lrid', lrid);
      get('diff', 1);
      get('address', ctx.xlen);
      return done('load-req');
    }
    if (ctx.noAddress) {
      get('diff', dataOnlyDiff);
      get('data', p.data_width_p);
      return done('ls-data');
    }
    get('diff', 2);
    bytesField('data_len', size, 'data');
    get('address', ctx.xlen);
    return done('ls');
  }
  if (format === 4) {
    if (!p.data_split_p) throw new RvError('bad-value', 'te_data format 4 (split load data) from an encoder with unified loads', { offset });
    get('size', sizeWidth);
    get('lrid', lrid);
    const resp = get('resp', 2);
    if (resp !== 0n) get('data', p.data_width_p);
    return done('load-resp');
  }
  if (format === 5) {
    if (!p.data_csr_p) throw new RvError('bad-value', 'te_data format 5 (CSR) from an encoder without CSR trace', { offset });
    get('subtype', 2);
    if (ctx.noData) {
      get('diff', 1);
      get('addr_msbs', 6);
      get('addr_lsbs', 6);
      return done('csr-addr');
    }
    get('diff', dataOnlyDiff);
    bytesField('data_len', csrLen, 'data');
    const msbs = get('addr_msbs', 6);
    const readOnly = msbs >> 4n === 3n;
    if (!readOnly) bytesField('op_len', csrLen, 'operand');
    get('addr_lsbs', 6);
    return done(readOnly ? 'csr-ro' : 'csr');
  }
  if (format === 6) {
    if (!p.data_atomics_p) throw new RvError('bad-value', 'te_data format 6 (atomic) from an encoder without atomic trace', { offset });
    get('subtype', 3);
    const size = Number(get('size', atomicSizeWidth));
    if (ctx.noData) {
      get('diff', 1);
      get('address', ctx.xlen);
      return done('amo-addr');
    }
    if (p.data_split_p) {
      get('lrid', lrid);
      if (ctx.noAddress) {
        get('diff', dataOnlyDiff);
        get('operand', p.data_width_p);
        return done('amo-req-noaddr');
      }
      get('diff', 2);
      bytesField('op_len', atomicLen(size), 'operand');
      get('address', ctx.xlen);
      return done('amo-req');
    }
    if (ctx.noAddress) {
      get('diff', dataOnlyDiff);
      bytesField('op_len', atomicLen(size), 'operand');
      get('data', p.data_width_p);
      return done('amo-data');
    }
    get('diff', 2);
    bytesField('op_len', atomicLen(size), 'operand');
    bytesField('data_len', atomicLen(size), 'data');
    get('address', ctx.xlen);
    return done('amo');
  }
  if (format === 7) {
    if (!p.data_split_p || !p.data_atomics_p) throw new RvError('bad-value', 'te_data format 7 (split atomic data) from an encoder without split atomics', { offset });
    const id = Number(get('lrid', lrid));
    const resp = get('resp', 2);
    if (resp !== 0n) {
      const size = ctx.atomicSizeOf(id);
      if (size === undefined) throw new RvError('bad-value', `te_data split atomic data for lrid ${id}, whose request was not seen`, { offset });
      bytesField('data_len', atomicLen(size), 'data');
    }
    return done('amo-resp');
  }
  throw new RvError('bad-value', `te_data format ${format} is not defined with 2-bit format fields`, { offset });
}
