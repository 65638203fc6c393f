/**
 * The data trace encoder (chapter 7): turns each traced data access and split-load response into
 * te_data packets, keeping the compression history that section 7.1.3 defines per access size
 * (plus one entry for CSR values and numbers). The history is forgotten at every instruction-trace
 * synchronisation (`resync`), so the first packet of each size after one is full. The rules, in the
 * order hardware applies them: docs/etrace-data.md.
 */
import { RvError } from '../../common/errors.ts';
import type { EtraceConfig } from '../config.ts';
import { type DataAccess, DTYPE_NAMES, isAtomic, isCsrAccess, type LoadResponse, Lresp } from '../../hart/data-records.ts';
import type { RetirementRecord } from '../../hart/records.ts';
import { mask } from '../packet/pack.ts';
import { allowedCodes, bytesNeeded, chooseCode, type DataCode } from './compression.ts';
import { DataQualifier } from './filter.ts';
import { DATA_FORMAT, type DataPacket } from './packets.ts';
import { dataPacketParams, type DataParams, type DataWidths, dataWidths } from './params.ts';

/** diff codes of the packets with address and data (tables 7.1, 7.6, 7.9): the data part. */
const ADDR_DATA_DIFF: Record<DataCode, bigint> = { full: 2n, xor: 1n, diff: 3n };
/** resp codes of the split data phases (tables 7.5, 7.10). */
const RESP_CODE: Record<DataCode, bigint> = { full: 2n, xor: 1n, diff: 3n };

export interface DataEmitted {
  packet: DataPacket;
  /** An amo-resp's data_len width depends on its request's size field (no field of its own). */
  atomicSizeField: number;
  /** The decisions behind the packet, for functional coverage: how its value was sent ('sync': address and data both full, no history)... */
  value?: 'sync' | DataCode;
  /** ... and its address (absent when the packet has neither). */
  address?: 'full' | 'differential';
}

type Decisions = Pick<DataEmitted, 'value' | 'address'>;

/** The decisions of a packet with an address field only: its diff bit says full or differential. */
const addressOnly = (diff: bigint): Decisions => ({ address: diff === 0n ? 'full' : 'differential' });

/** The decisions of a packet with address and value: after a sync both are full, else the address is differential. */
const withAddress = (sync: boolean, code: DataCode): Decisions => (sync ? { value: 'sync', address: 'full' } : { value: code, address: 'differential' });

interface SizeHistory {
  addr?: bigint;
  data?: bigint;
}

interface PendingLoad {
  /** log2 of the access bytes. */
  s: number;
  atomic: boolean;
}

export class DataEncoder {
  private readonly w: DataWidths;
  private readonly history: SizeHistory[] = [{}, {}, {}, {}];
  private csr: SizeHistory = {};
  /** Split requests whose response is still to come, by lrid (only those that were traced). */
  private readonly pending = new Map<number, PendingLoad>();
  private qualifier: DataQualifier;
  private readonly p: DataParams;

  constructor(private config: EtraceConfig) {
    const dp = dataPacketParams(config.params);
    this.p = dp;
    this.w = dataWidths(dp);
    this.qualifier = new DataQualifier(config.options, dp.iaddr_lsbs_width_p);
  }

  /** New run-time options (a support packet follows them, which resyncs). */
  changeOptions(config: EtraceConfig): void {
    this.config = config;
    this.qualifier = new DataQualifier(config.options, this.p.iaddr_lsbs_width_p);
  }

  /** An instruction-trace synchronisation (F3 SF0, SF1 or SF3) went out: start afresh. */
  resync(): void {
    for (const h of this.history) {
      h.addr = undefined;
      h.data = undefined;
    }
    this.csr = {};
  }

  /** Each record, before its accesses: triggers move dEnable. */
  record(r: RetirementRecord): void {
    this.qualifier.record(r);
  }

  get dEnable(): boolean {
    return this.qualifier.dEnable;
  }

  /** The packets of one access retired in record `r` (its block); none when it is not traced. */
  access(a: DataAccess, r: RetirementRecord, index: number): DataEmitted[] {
    this.check(a, index);
    if (!this.qualifier.traced(a, r)) return [];
    if (isCsrAccess(a.dtype)) return [this.csrPacket(a)];
    if (isAtomic(a.dtype)) return this.atomic(a);
    return this.loadStore(a);
  }

  /** The packet of a split-load response; none when its request was not traced (or noData dropped it). */
  response(resp: LoadResponse): DataEmitted[] {
    const req = this.pending.get(resp.lid);
    if (req === undefined) return [];
    this.pending.delete(resp.lid);
    const o = this.config.options;
    const h = this.history[req.s]!;
    const bits = 8 << req.s;
    const atomicSizeField = this.atomicSizeField(req.s);
    if (resp.lresp !== Lresp.okay) {
      const f = { format: BigInt(req.atomic ? DATA_FORMAT.splitAtomicData : DATA_FORMAT.splitLoadData), lrid: BigInt(resp.lid), resp: 0n };
      return [{ packet: req.atomic ? { kind: 'amo-resp', f } : { kind: 'load-resp', f: { ...f, size: BigInt(req.s) } }, atomicSizeField }]; // an error: no value
    }
    const value = resp.ldata & mask(bits);
    const { code, coded } = h.data === undefined ? { code: 'full' as const, coded: [value] } : chooseCode(allowedCodes(o.DataCompress), [value], h.data, bits);
    h.data = value;
    if (req.atomic) {
      const n = bytesNeeded(coded[0]!, bits);
      return [
        {
          packet: { kind: 'amo-resp', f: { format: BigInt(DATA_FORMAT.splitAtomicData), lrid: BigInt(resp.lid), resp: RESP_CODE[code], data_len: BigInt(n - 1), data: coded[0]! & mask(8 * n) } },
          atomicSizeField,
          value: code,
        },
      ];
    }
    return [
      {
        packet: {
          kind: 'load-resp',
          f: { format: BigInt(DATA_FORMAT.splitLoadData), size: BigInt(req.s), lrid: BigInt(resp.lid), resp: RESP_CODE[code], data: this.dataOnlyField(coded[0]!, bits) },
        },
        atomicSizeField: 0,
        value: code,
      },
    ];
  }

  private check(a: DataAccess, index: number): void {
    const p = this.p;
    const where = `data access ${index} (record ${a.at})`;
    const name = DTYPE_NAMES[a.dtype] ?? `reserved dtype ${a.dtype}`;
    if (DTYPE_NAMES[a.dtype] === undefined) throw new RvError('bad-value', `${where}: ${name} is not a data access type of table 4.9`);
    if (isCsrAccess(a.dtype) && !p.data_csr_p) throw new RvError('bad-value', `${where}: ${name} needs a component with data_csr_p = 1`);
    if (isAtomic(a.dtype) && !p.data_atomics_p) throw new RvError('bad-value', `${where}: ${name} needs a component with data_atomics_p = 1`);
    const csrSize = this.config.params.iaddress_width_p > 32 ? 3 : 2;
    // CSR packets carry no size: a decoder takes XLEN-wide CSRs (docs/etrace-data.md).
    if (isCsrAccess(a.dtype) && a.dsize !== csrSize) throw new RvError('bad-value', `${where}: ${name} values must be XLEN wide (dsize ${csrSize}), not dsize ${a.dsize}`);
    if (8 << a.dsize > p.data_width_p) throw new RvError('bad-value', `${where}: dsize ${a.dsize} (${1 << a.dsize} bytes) is wider than data_width_p = ${p.data_width_p}`);
    if (isAtomic(a.dtype) && (a.dsize < 2 || (a.daddr & ((1n << BigInt(a.dsize)) - 1n)) !== 0n)) {
      throw new RvError('bad-value', `${where}: ${name} must be 4 or 8 bytes at an aligned address, not dsize ${a.dsize} at 0x${a.daddr.toString(16)}`);
    }
  }

  private atomicSizeField(s: number): number {
    return this.config.params.payload_layout === '2.0' ? s : s - 2;
  }

  /** The address field: shifted right by the size when aligned (the aligned formats), else the byte address. */
  private addressField(daddr: bigint, s: number, h: SizeHistory, aligned: boolean): { diff: bigint; address: bigint } {
    const bits = this.w.address;
    const shift = aligned ? BigInt(s) : 0n;
    if (h.addr === undefined || this.config.options.DataCompress === 0) return { diff: 0n, address: (daddr >> shift) & mask(bits) };
    return { diff: 1n, address: BigInt.asUintN(bits, (daddr >> shift) - (h.addr >> shift)) };
  }

  /** A data-only field (data_width_p bits): the coded value sign-extended, so sign compression trims it. */
  private dataOnlyField(coded: bigint, bits: number): bigint {
    return BigInt.asUintN(this.w.data, BigInt.asIntN(bits, coded));
  }

  /** diff of the data-only and CSR formats: 1 or 2 bits (7.1.3). */
  private dataOnlyDiff(code: DataCode): bigint {
    if (code === 'full') return 0n;
    if (this.w.dataDiff === 2) return code === 'xor' ? 1n : 3n;
    return 1n;
  }

  private loadStore(a: DataAccess): DataEmitted[] {
    const o = this.config.options;
    const s = a.dsize;
    const bits = 8 << s;
    const h = this.history[s]!;
    const aligned = (a.daddr & ((1n << BigInt(s)) - 1n)) === 0n;
    const isLoad = a.dtype === 0;
    const format = BigInt(isLoad ? (aligned ? DATA_FORMAT.loadAligned : DATA_FORMAT.loadUnaligned) : aligned ? DATA_FORMAT.storeAligned : DATA_FORMAT.storeUnaligned);
    const size = BigInt(s);
    const split = isLoad && this.p.data_split_p === 1;
    const out = (packet: DataPacket, decided: Decisions): DataEmitted[] => [{ packet, atomicSizeField: 0, ...decided }];
    if (o.noData) {
      // Address only, the unified format even with split signalling (2.0, chapter 7 preamble).
      const { diff, address } = this.addressField(a.daddr, s, h, aligned);
      h.addr = a.daddr;
      return out({ kind: 'ls-addr', f: { format, size, diff, address } }, addressOnly(diff));
    }
    if (split) {
      this.pending.set(a.lrid, { s, atomic: false });
      if (o.noAddress) return []; // the response alone carries what is left: index and data
      const { diff, address } = this.addressField(a.daddr, s, h, aligned);
      h.addr = a.daddr;
      return out({ kind: 'load-req', f: { format, size, lrid: BigInt(a.lrid), diff, address } }, addressOnly(diff));
    }
    const value = a.data & mask(bits);
    if (o.noAddress) {
      const { code, coded } = h.data === undefined ? { code: 'full' as const, coded: [value] } : chooseCode(allowedCodes(o.DataCompress), [value], h.data, bits);
      h.data = value;
      return out({ kind: 'ls-data', f: { format, size, diff: this.dataOnlyDiff(code), data: this.dataOnlyField(coded[0]!, bits) } }, { value: code });
    }
    const sync = h.addr === undefined || h.data === undefined || o.DataCompress === 0;
    const { code, coded } = sync ? { code: 'full' as const, coded: [value] } : chooseCode(allowedCodes(o.DataCompress), [value], h.data!, bits);
    const { address } = this.addressField(a.daddr, s, sync ? {} : h, aligned);
    h.addr = a.daddr;
    h.data = value;
    const n = bytesNeeded(coded[0]!, bits);
    return out({ kind: 'ls', f: { format, size, diff: sync ? 0n : ADDR_DATA_DIFF[code], data_len: BigInt(n - 1), data: coded[0]! & mask(8 * n), address } }, withAddress(sync, code));
  }

  private atomic(a: DataAccess): DataEmitted[] {
    const o = this.config.options;
    const s = a.dsize;
    const bits = 8 << s;
    const h = this.history[s]!;
    const sizeField = this.atomicSizeField(s);
    const head = { format: BigInt(DATA_FORMAT.atomic), subtype: BigInt(a.dtype - 8), size: BigInt(sizeField) };
    const out = (packet: DataPacket, decided: Decisions): DataEmitted[] => [{ packet, atomicSizeField: sizeField, ...decided }];
    // The low half is what the hart writes (rs2, "operand"), the high half what it reads ("data"); split: data holds the operand only.
    const operand = a.data & mask(bits);
    const loaded = (a.data >> BigInt(bits)) & mask(bits);
    const split = this.p.data_split_p === 1;
    if (o.noData) {
      const { diff, address } = this.addressField(a.daddr, s, h, true);
      h.addr = a.daddr;
      return out({ kind: 'amo-addr', f: { ...head, diff, address } }, addressOnly(diff));
    }
    const values = split ? [operand] : [operand, loaded];
    if (o.noAddress) {
      const { code, coded } = h.data === undefined ? { code: 'full' as const, coded: values } : chooseCode(allowedCodes(o.DataCompress), values, h.data, bits);
      h.data = values[values.length - 1];
      const n = bytesNeeded(coded[0]!, bits);
      const opFields = { op_len: BigInt(n - 1), operand: coded[0]! & mask(8 * n) };
      if (split) {
        this.pending.set(a.lrid, { s, atomic: true });
        return out({ kind: 'amo-req-noaddr', f: { ...head, lrid: BigInt(a.lrid), diff: this.dataOnlyDiff(code), operand: this.dataOnlyField(coded[0]!, bits) } }, { value: code });
      }
      return out({ kind: 'amo-data', f: { ...head, diff: this.dataOnlyDiff(code), ...opFields, data: this.dataOnlyField(coded[1]!, bits) } }, { value: code });
    }
    const sync = h.addr === undefined || h.data === undefined || o.DataCompress === 0;
    const { code, coded } = sync ? { code: 'full' as const, coded: values } : chooseCode(allowedCodes(o.DataCompress), values, h.data!, bits);
    const { address } = this.addressField(a.daddr, s, sync ? {} : h, true);
    h.addr = a.daddr;
    h.data = values[values.length - 1];
    const diff = sync ? 0n : ADDR_DATA_DIFF[code];
    const nOp = bytesNeeded(coded[0]!, bits);
    const opFields = { op_len: BigInt(nOp - 1), operand: coded[0]! & mask(8 * nOp) };
    if (split) {
      this.pending.set(a.lrid, { s, atomic: true });
      return out({ kind: 'amo-req', f: { ...head, lrid: BigInt(a.lrid), diff, ...opFields, address } }, withAddress(sync, code));
    }
    const nData = bytesNeeded(coded[1]!, bits);
    return out({ kind: 'amo', f: { ...head, diff, ...opFields, data_len: BigInt(nData - 1), data: coded[1]! & mask(8 * nData), address } }, withAddress(sync, code));
  }

  private csrPacket(a: DataAccess): DataEmitted {
    const o = this.config.options;
    const bits = 8 << a.dsize;
    const number = a.daddr & 0xfffn;
    const head = { format: BigInt(DATA_FORMAT.csr), subtype: BigInt(a.dtype - 4) };
    const done = (packet: DataPacket, decided: Decisions): DataEmitted => ({ packet, atomicSizeField: 0, ...decided });
    if (o.noData) {
      const differential = this.csr.addr !== undefined && o.DataCompress !== 0;
      const value = differential ? BigInt.asUintN(12, number - this.csr.addr!) : number;
      this.csr.addr = number;
      return done({ kind: 'csr-addr', f: { ...head, diff: differential ? 1n : 0n, addr_msbs: value >> 6n, addr_lsbs: value & 0x3fn } }, { address: differential ? 'differential' : 'full' });
    }
    // Table 7.12: a read-only CSR (number[11:10] = 3) has no operand (rs1 is x0 for every legal access).
    const readOnly = (number >> 10n) === 3n;
    const operand = a.data & mask(bits);
    const read = (a.data >> BigInt(bits)) & mask(bits);
    const values = readOnly ? [read] : [read, operand];
    const { code, coded } = this.csr.data === undefined ? { code: 'full' as const, coded: values } : chooseCode(allowedCodes(o.DataCompress), values, this.csr.data, bits);
    this.csr.data = values[values.length - 1];
    this.csr.addr = number;
    const nData = bytesNeeded(coded[0]!, bits);
    const f: Record<string, bigint> = { ...head, diff: this.dataOnlyDiff(code), data_len: BigInt(nData - 1), data: coded[0]! & mask(8 * nData), addr_msbs: number >> 6n, addr_lsbs: number & 0x3fn };
    if (!readOnly) {
      const nOp = bytesNeeded(coded[1]!, bits);
      f.op_len = BigInt(nOp - 1);
      f.operand = coded[1]! & mask(8 * nOp);
    }
    return done({ kind: 'csr', f }, { value: code });
  }
}

