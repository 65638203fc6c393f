/**
 * Data trace parameters of the E-Trace encoder (section 4.4, chapter 7) and the run-time options
 * of tables 2.1-2.3 that steer it, with the field widths chapter 7 derives from them. The whole
 * data path is absent unless `data_trace_p` is 1 (the parameter in PacketParams, because the
 * support packet's layout depends on it). Rules and every choice: docs/etrace-data.md.
 */
import { RvError } from '../../common/errors.ts';
import type { PayloadLayout } from '../packet/params.ts';

export interface DataParams {
  /** Width of the data bus: the largest access is data_width_p / 8 bytes (32 or 64). */
  readonly data_width_p: number;
  /** Width of dtype: 1 loads and stores only, 3 with CSR accesses, 4 with atomics (section 4.4). */
  readonly dtype_width_p: number;
  /** 1: loads are signalled in two phases, request (lrid) and response (lid, lresp, ldata). */
  readonly data_split_p: number;
  /** 1: atomic accesses (dtype 8..14) are traced. */
  readonly data_atomics_p: number;
  /** 1: CSR accesses (dtype 4..6) are traced. */
  readonly data_csr_p: number;
  /** Width of lrid / lid (split signalling); the packets' index field. */
  readonly lrid_width_p: number;
  /** Width of iaddr_lsbs: half-word bits [w:1] of the accessing instruction's address. */
  readonly iaddr_lsbs_width_p: number;
  /** Width of dblock (several blocks per cycle). */
  readonly dblock_width_p: number;
  /** Data compression the hardware offers: bit 0 XOR, bit 1 differential (DataCompress needs them). */
  readonly data_compress_p: number;
}

/** The data trace run-time options (tables 2.1-2.3). */
export interface DataOptions {
  dEnable: boolean;
  /** trace-on / trace-off triggers set / clear dEnable. */
  dTrigEnable: boolean;
  noData: boolean;
  noAddress: boolean;
  /** 0 full values only, 1 XOR, 2 differential, 3 the shorter of XOR and differential per packet. */
  DataCompress: number;
  /** Bit N: filter N qualifies data trace; 0 = every access. */
  dFilters: number;
}

export function defaultDataParams(): DataParams {
  return {
    data_width_p: 64,
    dtype_width_p: 4,
    data_split_p: 0,
    data_atomics_p: 1,
    data_csr_p: 1,
    lrid_width_p: 2,
    iaddr_lsbs_width_p: 0,
    dblock_width_p: 0,
    data_compress_p: 3,
  };
}

export function defaultDataOptions(): DataOptions {
  return { dEnable: true, dTrigEnable: false, noData: false, noAddress: false, DataCompress: 3, dFilters: 0 };
}

/** Field widths of the te_data packets (chapter 7; docs/etrace-data.md "Packet formats"). */
export interface DataWidths {
  /** 2 with unified loads and stores only, else 3 (7.1.1). */
  readonly format: number;
  /** max(1, clog2(clog2(data_width_p/8 + 1))): 2 for 32- and 64-bit data (7.1.2). */
  readonly size: number;
  /** Atomic size field: 1.1.1 one bit (2^(size+2) bytes), 2.0 as `size`. */
  readonly atomicSize: number;
  /** Data-only and CSR diff fields: 2 bits when both XOR and differential are offered, else 1 (7.1.3). */
  readonly dataDiff: number;
  /** data_len / op_len of CSR packets: 2 for 32-bit CSRs, 3 for 64-bit (7.3.2). */
  readonly csrLen: number;
  /** address field: iaddress_width_p (the seed's daddress width). */
  readonly address: number;
  readonly lrid: number;
  readonly data: number;
}

const clog2 = (n: number): number => Math.ceil(Math.log2(n));

/** The data trace parameters with the instruction-trace parameters the packets also depend on. */
export type DataPacketParams = DataParams & { readonly iaddress_width_p: number; readonly payload_layout: PayloadLayout };

/** The data packet parameters of a configuration with data trace (a one-line error without). */
export function dataPacketParams(p: { readonly dataTrace?: DataParams; readonly iaddress_width_p: number; readonly payload_layout: PayloadLayout }): DataPacketParams {
  if (!p.dataTrace) throw new RvError('invalid-component', 'the component has no data trace (data_trace_p = 0)', { path: 'parameters/data_trace_p' });
  return { ...p.dataTrace, iaddress_width_p: p.iaddress_width_p, payload_layout: p.payload_layout };
}

export function dataWidths(p: DataPacketParams): DataWidths {
  const onlyUnifiedLoadStore = !p.data_split_p && !p.data_atomics_p && !p.data_csr_p;
  const size = Math.max(1, clog2(clog2(p.data_width_p / 8 + 1)));
  return {
    format: onlyUnifiedLoadStore ? 2 : 3,
    size,
    atomicSize: p.payload_layout === '2.0' ? size : 1,
    dataDiff: p.data_compress_p === 3 ? 2 : 1,
    csrLen: p.iaddress_width_p > 32 ? 3 : 2,
    address: p.iaddress_width_p,
    lrid: p.data_split_p ? p.lrid_width_p : 0,
    data: p.data_width_p,
  };
}

/**
 * Width of an atomic packet's op_len / data_len for a size code: 2.0 gives `size` bits (the value
 * of the size field, as for loads); the seed gives 2 + size for op_len and `size` for data_len,
 * which cannot count 4 or 8 bytes, so both use 2 + size there (docs/etrace-data.md, ambiguities).
 */
export function atomicLenBits(layout: PayloadLayout, sizeField: number): number {
  return layout === '2.0' ? sizeField : 2 + sizeField;
}

/** log2 of the access bytes from an atomic packet's size field. */
export function atomicBytesLog2(layout: PayloadLayout, sizeField: number): number {
  return layout === '2.0' ? sizeField : sizeField + 2;
}

/** DataCompress codes (table 2.2) a hardware offering `data_compress_p` accepts. */
export function supportsDataCompress(dataCompressP: number, DataCompress: number): boolean {
  return (DataCompress & ~dataCompressP) === 0;
}

/** Every problem of the data parameters and options (checked only when data_trace_p = 1). */
export function validateDataConfig(p: DataParams & { readonly iaddress_width_p: number }, o: DataOptions, filtersP: number, filters: readonly { matchEcause: boolean; matchInterrupt: boolean }[]): RvError[] {
  const errors: RvError[] = [];
  const bad = (path: string, message: string): void => {
    errors.push(new RvError('invalid-component', message, { path }));
  };
  if (p.data_width_p !== 32 && p.data_width_p !== 64) bad('parameters/data_width_p', `data_width_p must be 32 or 64, not ${p.data_width_p}`);
  if (![1, 3, 4].includes(p.dtype_width_p)) bad('parameters/dtype_width_p', `dtype_width_p must be 1, 3 or 4, not ${p.dtype_width_p}`);
  if (p.data_atomics_p && p.dtype_width_p < 4) bad('parameters/dtype_width_p', `atomics (data_atomics_p = 1) need dtype_width_p = 4, not ${p.dtype_width_p}`);
  if (p.data_csr_p && p.dtype_width_p < 3) bad('parameters/dtype_width_p', `CSR accesses (data_csr_p = 1) need dtype_width_p >= 3, not ${p.dtype_width_p}`);
  if (p.data_split_p && !(p.lrid_width_p >= 1 && p.lrid_width_p <= 8)) bad('parameters/lrid_width_p', `split loads need lrid_width_p 1..8, not ${p.lrid_width_p}`);
  if (!(p.data_compress_p >= 0 && p.data_compress_p <= 3)) bad('parameters/data_compress_p', `data_compress_p must be 0..3 (bit 0 XOR, bit 1 differential), not ${p.data_compress_p}`);
  if (!(o.DataCompress >= 0 && o.DataCompress <= 3)) bad('options/DataCompress', `DataCompress must be 0..3, not ${o.DataCompress}`);
  else if (!supportsDataCompress(p.data_compress_p, o.DataCompress)) {
    bad('options/DataCompress', `DataCompress = ${o.DataCompress} needs compression the hardware lacks (data_compress_p = ${p.data_compress_p}: bit 0 XOR, bit 1 differential)`);
  }
  if (o.noData && o.noAddress) bad('options/noData', 'noData and noAddress together leave nothing to trace');
  if (o.dFilters >>> filtersP !== 0) bad('options/dFilters', `dFilters selects filters beyond filters_p = ${filtersP}`);
  filters.forEach((f, n) => {
    if ((o.dFilters >> n) & 1 && (f.matchEcause || f.matchInterrupt)) {
      bad(`options/filter${n}.matchEcause`, `filter ${n} qualifies data trace (dFilters) and matches a trap handler window (matchEcause/matchInterrupt), which only instruction trace has`);
    }
  });
  return errors;
}
