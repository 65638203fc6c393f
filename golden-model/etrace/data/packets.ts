/**
 * te_data packets (chapter 7): their kinds, the ordered fields of each with its width, and packing
 * into a payload. Fields are concatenated as in te_inst packets, the first field in the least
 * significant bits, and the whole packet is sign-compressed (packet/pack.ts `compress`), so the
 * address or data that ends a packet loses its redundant upper bytes.
 */
import { RvError } from '../../common/errors.ts';
import { compress, mask, type PackedPacket } from '../packet/pack.ts';
import type { PayloadLayout } from '../packet/params.ts';
import { atomicLenBits, type DataWidths } from './params.ts';

/** format codes (tables 7.1-7.13). */
export const DATA_FORMAT = {
  loadAligned: 0,
  loadUnaligned: 1,
  storeAligned: 2,
  storeUnaligned: 3,
  splitLoadData: 4,
  csr: 5,
  atomic: 6,
  splitAtomicData: 7,
} as const;

/**
 * The packet kinds: unified load/store with address and data (7.1), address only (7.2), data only
 * (7.3); split load request (7.4) and response (7.5); unified atomic with address and data (7.6),
 * address only (7.7), data only (7.8); split atomic request (7.9, and its form without address),
 * split atomic response (7.10); CSR with address and data (7.11, 7.12 without operand for a
 * read-only CSR) and address only (7.13).
 */
export type DataKind =
  | 'ls'
  | 'ls-addr'
  | 'ls-data'
  | 'load-req'
  | 'load-resp'
  | 'amo'
  | 'amo-addr'
  | 'amo-data'
  | 'amo-req'
  | 'amo-req-noaddr'
  | 'amo-resp'
  | 'csr'
  | 'csr-addr';

export interface DataPacket {
  readonly kind: DataKind;
  /** Field values (unsigned, already truncated to their widths by `dataFields`' caller). */
  readonly f: Readonly<Record<string, bigint>>;
}

export interface FieldWidth {
  readonly name: string;
  readonly width: number;
}

/** The ordered fields of a packet; widths of data/operand follow data_len/op_len. */
export function dataFields(pkt: DataPacket, w: DataWidths, layout: PayloadLayout): FieldWidth[] {
  const f = pkt.f;
  const len = (name: string): number => 8 * (Number(f[name] ?? 0n) + 1);
  const out: FieldWidth[] = [{ name: 'format', width: w.format }];
  const add = (name: string, width: number): void => {
    out.push({ name, width });
  };
  const atomicSize = Number(f.size ?? 0n);
  switch (pkt.kind) {
    case 'ls':
      add('size', w.size);
      add('diff', 2);
      add('data_len', Number(f.size ?? 0n));
      add('data', len('data_len'));
      add('address', w.address);
      break;
    case 'ls-addr':
      add('size', w.size);
      add('diff', 1);
      add('address', w.address);
      break;
    case 'ls-data':
      add('size', w.size);
      add('diff', w.dataDiff);
      add('data', w.data);
      break;
    case 'load-req':
      add('size', w.size);
      add('lrid', w.lrid);
      add('diff', 1);
      add('address', w.address);
      break;
    case 'load-resp':
      add('size', w.size);
      add('lrid', w.lrid);
      add('resp', 2);
      if (f.resp !== 0n) add('data', w.data);
      break;
    case 'amo':
      add('subtype', 3);
      add('size', w.atomicSize);
      add('diff', 2);
      add('op_len', atomicLenBits(layout, atomicSize));
      add('operand', len('op_len'));
      add('data_len', atomicLenBits(layout, atomicSize));
      add('data', len('data_len'));
      add('address', w.address);
      break;
    case 'amo-addr':
      add('subtype', 3);
      add('size', w.atomicSize);
      add('diff', 1);
      add('address', w.address);
      break;
    case 'amo-data':
      add('subtype', 3);
      add('size', w.atomicSize);
      add('diff', w.dataDiff);
      add('op_len', atomicLenBits(layout, atomicSize));
      add('operand', len('op_len'));
      add('data', w.data);
      break;
    case 'amo-req':
      add('subtype', 3);
      add('size', w.atomicSize);
      add('lrid', w.lrid);
      add('diff', 2);
      add('op_len', atomicLenBits(layout, atomicSize));
      add('operand', len('op_len'));
      add('address', w.address);
      break;
    case 'amo-req-noaddr':
      add('subtype', 3);
      add('size', w.atomicSize);
      add('lrid', w.lrid);
      add('diff', w.dataDiff);
      add('operand', w.data);
      break;
    case 'amo-resp':
      // No size field (table 7.10): the decoder knows it from the request with the same lrid.
      add('lrid', w.lrid);
      add('resp', 2);
      if (f.resp !== 0n) {
        add('data_len', atomicLenBits(layout, atomicSize));
        add('data', len('data_len'));
      }
      break;
    case 'csr':
      add('subtype', 2);
      add('diff', w.dataDiff);
      add('data_len', w.csrLen);
      add('data', len('data_len'));
      add('addr_msbs', 6);
      if (f.op_len !== undefined) {
        add('op_len', w.csrLen);
        add('operand', len('op_len'));
      }
      add('addr_lsbs', 6);
      break;
    case 'csr-addr':
      add('subtype', 2);
      add('diff', 1);
      add('addr_msbs', 6);
      add('addr_lsbs', 6);
      break;
  }
  return out;
}

/**
 * Packs a packet. An amo-resp's data_len width needs the request's size field, which is no field
 * of its own: `atomicSizeField` gives it.
 */
export function packData(pkt: DataPacket, w: DataWidths, layout: PayloadLayout, atomicSizeField = 0): PackedPacket {
  const withSize = pkt.kind === 'amo-resp' ? { kind: pkt.kind, f: { ...pkt.f, size: BigInt(atomicSizeField) } } : pkt;
  let value = 0n;
  let pos = 0;
  for (const { name, width } of dataFields(withSize, w, layout)) {
    const v = pkt.f[name];
    if (v === undefined) throw new RvError('bad-value', `te_data ${pkt.kind}: field ${name} missing`);
    if (v < 0n || v > mask(width)) throw new RvError('bad-value', `te_data ${pkt.kind}: ${name} = ${v} does not fit ${width} bits`);
    value |= v << BigInt(pos);
    pos += width;
  }
  return compress(value, pos);
}
