/**
 * The data trace decoder: reads the te_data packets of an E-Trace byte stream (flow 3) back into the
 * sequence of data accesses and split-load responses, undoing the compression of section 7.1.3 with
 * its own copy of the history (per access size, plus CSR values and numbers), which every
 * instruction-trace F3 SF0, SF1 or SF3 packet clears. What noData / noAddress left out stays
 * undefined. Independent of the encoder (golden-model/etrace/data/); the rules it follows are
 * docs/etrace-data.md.
 */
import { RvError } from '../../common/errors.ts';
import type { EtraceParams } from '../config.ts';
import { MSG_TYPE, splitStream } from '../packet/encapsulate.ts';
import { unpackPacket } from '../packet/pack.ts';
import { readDataPacket, type ReadPacket } from './packets.ts';
import type { DataTrace } from '../../hart/data-records.ts';

export interface DecodedAccess {
  /** Byte offset of the packet that reported the access (its request for a split access). */
  offset: number;
  dtype: number;
  /** log2 of the access bytes (CSR accesses: of XLEN/8; the CSR packets carry no size). */
  dsize: number;
  /** The access address, or the CSR number; undefined with noAddress. */
  daddr?: bigint;
  /**
   * Unified data; atomics and CSR accesses pack the value written (operand) low and the value read
   * high; split accesses: the operand of an atomic, undefined for a load (its response has it).
   * Undefined with noData.
   */
  data?: bigint;
  /** Split signalling: the load request ID. */
  lrid?: number;
  /** The accessing instruction's address, once `attachAccesses` has matched it. */
  pc?: bigint;
}

export interface DecodedResponse {
  offset: number;
  lid: number;
  /** 2 okay, 3 error (table 4.9). */
  lresp: number;
  ldata?: bigint;
}

export interface DecodedData {
  accesses: DecodedAccess[];
  responses: DecodedResponse[];
}

type Code = 'full' | 'xor' | 'diff';

const maskOf = (bits: number): bigint => (1n << BigInt(bits)) - 1n;

function undo(code: Code, coded: bigint, previous: bigint | undefined, bits: number, offset: number): bigint {
  if (code === 'full') return coded & maskOf(bits);
  if (previous === undefined) throw new RvError('bad-value', `te_data ${code}-compressed value without a previous value of its size since the last sync`, { offset });
  return code === 'xor' ? (coded ^ previous) & maskOf(bits) : BigInt.asUintN(bits, previous + coded);
}

/** A length-prefixed value: n bytes sign-extended to `bits`. */
function widen(field: bigint, bytes: number, bits: number): bigint {
  return BigInt.asUintN(bits, BigInt.asIntN(Math.min(bytes * 8, bits), field));
}

interface History {
  addr?: bigint;
  data?: bigint;
}

export class DataDecoder {
  private history: History[] = [{}, {}, {}, {}];
  private csr: History = {};
  private noData = false;
  private noAddress = false;
  /** Split requests by lrid: the access size and whether it is atomic (and its size field). */
  private readonly pending = new Map<number, { s: number; atomic: boolean; sizeField: number }>();
  readonly out: DecodedData = { accesses: [], responses: [] };

  constructor(private readonly params: EtraceParams) {
    if (!params.dataTrace) throw new RvError('invalid-component', 'the component has no data trace (data_trace_p = 0)', { path: 'parameters/data_trace_p' });
  }

  private get xlen(): number {
    return this.params.iaddress_width_p;
  }

  /** An instruction-trace packet: a sync or support packet clears the history; a support packet sets the options. */
  instructionPacket(payload: Uint8Array, offset: number): void {
    const low = payload[0] ?? 0;
    if ((low & 3) !== 3) return;
    const subformat = (low >> 2) & 3;
    if (subformat === 2) return;
    this.history = [{}, {}, {}, {}];
    this.csr = {};
    if (subformat === 3) {
      const pkt = unpackPacket(payload, this.params, offset);
      const d = pkt.doptions ?? 0n;
      this.noAddress = (d & 1n) === 1n;
      this.noData = (d & 2n) === 2n;
    }
  }

  /** A te_data packet: decodes it, and returns its fields as read (for dumps). */
  dataPacket(payload: Uint8Array, offset: number): ReadPacket {
    const dp = this.params.dataTrace!;
    const pkt = readDataPacket(
      payload,
      {
        params: dp,
        xlen: this.xlen,
        layout: this.params.payload_layout,
        noData: this.noData,
        noAddress: this.noAddress,
        atomicSizeOf: (id) => this.pending.get(id)?.sizeField,
      },
      offset,
    );
    this.interpret(pkt, offset);
    return pkt;
  }

  private dataOnlyCode(diff: bigint, offset: number): Code {
    const hw = this.params.dataTrace!.data_compress_p;
    if (hw === 3) {
      if (diff === 2n) throw new RvError('bad-value', 'te_data diff 10 is reserved in data-only packets', { offset });
      return diff === 0n ? 'full' : diff === 1n ? 'xor' : 'diff';
    }
    if (diff === 0n) return 'full';
    if (hw === 0) throw new RvError('bad-value', 'te_data compressed data from an encoder that offers no data compression', { offset });
    return hw === 1 ? 'xor' : 'diff';
  }

  private address(format: number, s: number, diff: boolean, field: bigint, h: History, offset: number, alwaysAligned = false): bigint {
    const shift = alwaysAligned || format % 2 === 0 ? BigInt(s) : 0n;
    if (!diff) return BigInt.asUintN(this.xlen, field << shift);
    if (h.addr === undefined) throw new RvError('bad-value', 'te_data differential address without a previous address of its size since the last sync', { offset });
    return BigInt.asUintN(this.xlen, BigInt.asUintN(this.xlen, (h.addr >> shift) + field) << shift);
  }

  private interpret(pkt: ReadPacket, offset: number): void {
    const f = new Map(pkt.fields);
    const v = (name: string): bigint => f.get(name) ?? 0n;
    const format = Number(v('format'));
    const layout = this.params.payload_layout;
    const atomicS = (sizeField: number): number => (layout === '2.0' ? sizeField : sizeField + 2);
    const addrDataCode = (diff: bigint): Code => (diff === 1n ? 'xor' : diff === 3n ? 'diff' : 'full');
    const acc = (a: Omit<DecodedAccess, 'offset'>): void => {
      this.out.accesses.push({ offset, ...a });
    };
    switch (pkt.table) {
      case 'ls': {
        const s = Number(v('size'));
        const bits = 8 << s;
        const h = this.history[s]!;
        const diff = v('diff');
        const data = undo(addrDataCode(diff), widen(v('data'), Number(v('data_len')) + 1, bits), h.data, bits, offset);
        const daddr = this.address(format, s, diff !== 0n, v('address'), h, offset);
        h.addr = daddr;
        h.data = data;
        return acc({ dtype: format >> 1, dsize: s, daddr, data });
      }
      case 'ls-addr': {
        const s = Number(v('size'));
        const h = this.history[s]!;
        const daddr = this.address(format, s, v('diff') === 1n, v('address'), h, offset);
        h.addr = daddr;
        return acc({ dtype: format >> 1, dsize: s, daddr });
      }
      case 'ls-data': {
        const s = Number(v('size'));
        const bits = 8 << s;
        const h = this.history[s]!;
        const data = undo(this.dataOnlyCode(v('diff'), offset), v('data') & maskOf(bits), h.data, bits, offset);
        h.data = data;
        return acc({ dtype: format >> 1, dsize: s, data });
      }
      case 'load-req': {
        const s = Number(v('size'));
        const h = this.history[s]!;
        const daddr = this.address(format, s, v('diff') === 1n, v('address'), h, offset);
        h.addr = daddr;
        const lrid = Number(v('lrid'));
        this.pending.set(lrid, { s, atomic: false, sizeField: s });
        return acc({ dtype: 0, dsize: s, daddr, lrid });
      }
      case 'load-resp':
      case 'amo-resp': {
        const lid = Number(v('lrid'));
        const req = this.pending.get(lid);
        this.pending.delete(lid);
        const resp = v('resp');
        if (resp === 0n) {
          this.out.responses.push({ offset, lid, lresp: 3 });
          return;
        }
        const s = pkt.table === 'load-resp' ? Number(v('size')) : req!.s;
        const bits = 8 << s;
        const h = this.history[s]!;
        const code: Code = resp === 1n ? 'xor' : resp === 2n ? 'full' : 'diff';
        const coded = pkt.table === 'load-resp' ? v('data') & maskOf(bits) : widen(v('data'), Number(v('data_len')) + 1, bits);
        const ldata = undo(code, coded, h.data, bits, offset);
        h.data = ldata;
        this.out.responses.push({ offset, lid, lresp: 2, ldata });
        return;
      }
      case 'amo':
      case 'amo-data':
      case 'amo-req':
      case 'amo-req-noaddr':
      case 'amo-addr': {
        const sizeField = Number(v('size'));
        const s = atomicS(sizeField);
        const bits = 8 << s;
        const h = this.history[s]!;
        const dtype = 8 + Number(v('subtype'));
        const diff = v('diff');
        const lrid = this.params.dataTrace!.data_split_p ? Number(v('lrid')) : undefined;
        if (lrid !== undefined && pkt.table !== 'amo-addr') this.pending.set(lrid, { s, atomic: true, sizeField });
        const withLrid = lrid !== undefined && pkt.table !== 'amo-addr' ? { lrid } : {};
        if (pkt.table === 'amo-addr') {
          const daddr = this.address(format, s, diff === 1n, v('address'), h, offset, true);
          h.addr = daddr;
          return acc({ dtype, dsize: s, daddr });
        }
        const hasAddress = pkt.table === 'amo' || pkt.table === 'amo-req';
        const code = hasAddress ? addrDataCode(diff) : this.dataOnlyCode(diff, offset);
        const opCoded = pkt.table === 'amo-req-noaddr' ? v('operand') & maskOf(bits) : widen(v('operand'), Number(v('op_len')) + 1, bits);
        const operand = undo(code, opCoded, h.data, bits, offset);
        let last = operand;
        let data = operand;
        if (pkt.table === 'amo' || pkt.table === 'amo-data') {
          const dCoded = pkt.table === 'amo' ? widen(v('data'), Number(v('data_len')) + 1, bits) : v('data') & maskOf(bits);
          const loaded = undo(code, dCoded, operand, bits, offset);
          last = loaded;
          data = operand | (loaded << BigInt(bits));
        }
        h.data = last;
        if (hasAddress) {
          const daddr = this.address(format, s, diff !== 0n, v('address'), h, offset, true);
          h.addr = daddr;
          return acc({ dtype, dsize: s, daddr, data, ...withLrid });
        }
        return acc({ dtype, dsize: s, data, ...withLrid });
      }
      case 'csr':
      case 'csr-ro': {
        const s = this.xlen > 32 ? 3 : 2;
        const bits = 8 << s;
        const code = this.dataOnlyCode(v('diff'), offset);
        const read = undo(code, widen(v('data'), Number(v('data_len')) + 1, bits), this.csr.data, bits, offset);
        let operand = 0n;
        let last = read;
        if (pkt.table === 'csr') {
          operand = undo(code, widen(v('operand'), Number(v('op_len')) + 1, bits), read, bits, offset);
          last = operand;
        }
        const daddr = (v('addr_msbs') << 6n) | v('addr_lsbs');
        this.csr.data = last;
        this.csr.addr = daddr;
        return acc({ dtype: 4 + Number(v('subtype')), dsize: s, daddr, data: operand | (read << BigInt(bits)) });
      }
      case 'csr-addr': {
        const field = (v('addr_msbs') << 6n) | v('addr_lsbs');
        let daddr = field;
        if (v('diff') === 1n) {
          if (this.csr.addr === undefined) throw new RvError('bad-value', 'te_data differential CSR number without a previous one since the last sync', { offset });
          daddr = (this.csr.addr + field) & 0xfffn;
        }
        this.csr.addr = daddr;
        return acc({ dtype: 4 + Number(v('subtype')), dsize: this.xlen > 32 ? 3 : 2, daddr });
      }
      default:
        throw new RvError('bad-value', `te_data packet table ${pkt.table} not handled`, { offset });
    }
  }
}

/** Decodes the data side of a whole byte stream. */
export function decodeDataStream(bytes: Uint8Array, params: EtraceParams): DecodedData {
  const d = new DataDecoder(params);
  for (const sp of splitStream(bytes, params)) {
    if (sp.msgType === MSG_TYPE.data) d.dataPacket(sp.payload, sp.offset);
    else d.instructionPacket(sp.payload, sp.payloadOffset);
  }
  return d.out;
}

/**
 * The decoded data trace as the stream formats' DataTrace: `at` is the byte offset of the packet
 * (it orders accesses and responses as the stream did; the records are the instruction decoder's).
 * What noData / noAddress omitted is 0.
 */
export function toDataTrace(d: DecodedData): DataTrace {
  return {
    accesses: d.accesses.map((a) => ({ at: a.offset, dtype: a.dtype, daddr: a.daddr ?? 0n, dsize: a.dsize, data: a.data ?? 0n, lrid: a.lrid ?? 0, iaddrLsbs: 0, dblock: 0 })),
    responses: d.responses.map((r) => ({ at: r.offset, lid: r.lid, lresp: r.lresp, ldata: r.ldata ?? 0n })),
  };
}
