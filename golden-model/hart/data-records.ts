/**
 * Data retirement records: the hart-to-encoder data trace interface of E-Trace section 4.4
 * (table 4.9), carried beside the instruction retirement records of the same stream.
 *
 * Conventions of this project (the spec leaves them to the implementation):
 * - An access or a split-load response belongs to the cycle of one instruction retirement record:
 *   `at` is that record's index in `RetirementStream.records`. Several accesses may share a record
 *   (multiple retirement); their order in the array is their retirement order. A response that
 *   arrives in a cycle with nothing retired points at an idle record (iretire = 0, itype 0).
 * - `dsize` is log2 of the access size in bytes, as on the interface.
 * - `data` is the unified `data` signal, or `sdata` for the store part of a split-signalled access.
 *   For CSR accesses and atomics it packs two values (table 4.9): the store data in the low half and
 *   the load data or operand in the high half, each half 2^dsize bytes wide.
 * - Split signalling: a load (or the load part of an atomic) retires with `lrid` and no load data;
 *   its `LoadResponse` (lid = that lrid) follows in the same or a later cycle, in any order relative
 *   to other loads' responses.
 */
import { RvError } from '../common/errors.ts';

/** dtype codes of table 4.9 (2, 3, 7 and 15 are reserved). */
export const Dtype = {
  load: 0,
  store: 1,
  csrReadWrite: 4,
  csrReadSet: 5,
  csrReadClear: 6,
  atomicSwap: 8,
  atomicAdd: 9,
  atomicAnd: 10,
  atomicOr: 11,
  atomicXor: 12,
  atomicMax: 13,
  atomicMin: 14,
} as const;

/** Names used by the text format, `dump` and error messages; reserved codes are undefined. */
export const DTYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'load',
  1: 'store',
  4: 'csr-rw',
  5: 'csr-rs',
  6: 'csr-rc',
  8: 'amo-swap',
  9: 'amo-add',
  10: 'amo-and',
  11: 'amo-or',
  12: 'amo-xor',
  13: 'amo-max',
  14: 'amo-min',
};

export function isCsrAccess(dtype: number): boolean {
  return dtype >= 4 && dtype <= 6;
}

export function isAtomic(dtype: number): boolean {
  return dtype >= 8 && dtype <= 14;
}

/** lresp codes of table 4.9. */
export const Lresp = { none: 0, okay: 2, error: 3 } as const;

export interface DataAccess {
  /** Index of the retirement record of the cycle in which the access retired (dretire high). */
  at: number;
  dtype: number;
  daddr: bigint;
  /** The access is 2^dsize bytes. */
  dsize: number;
  /** Unified `data`, or split `sdata`; two packed values for CSR and atomic accesses. */
  data: bigint;
  /** Split signalling: the load request ID (`lrid`); 0 for unified signalling and stores. */
  lrid: number;
  /** Low bits of the accessing instruction's address (optional signal; 0 when absent). */
  iaddrLsbs: number;
  /** Block of the cycle in which the access retired (optional signal; 0 when absent). */
  dblock: number;
}

export interface LoadResponse {
  /** Index of the retirement record of the cycle in which the response arrived. */
  at: number;
  /** The `lrid` of the access this answers. */
  lid: number;
  /** Lresp.okay or Lresp.error. */
  lresp: number;
  /** Load data; meaningful only with lresp = okay. */
  ldata: bigint;
}

/** The data side of a retirement stream: empty arrays when the hart signals no data trace. */
export interface DataTrace {
  accesses: DataAccess[];
  responses: LoadResponse[];
}

/** True for the dtype codes table 4.9 defines (reserved codes 2, 3, 7 and 15 are not). */
export function isDefinedDtype(dtype: number): boolean {
  return DTYPE_NAMES[dtype] !== undefined;
}

/** Accesses whose `data` packs two values (store data low, load data or operand high). */
export function hasTwoValues(dtype: number): boolean {
  return isCsrAccess(dtype) || isAtomic(dtype);
}

/** Accesses with a load part, which split signalling answers with a LoadResponse. */
export function hasLoadPart(dtype: number): boolean {
  return dtype === Dtype.load || isAtomic(dtype);
}

/** Bits `data` may use: one value of 2^dsize bytes, or two for CSR and atomic accesses. */
export function dataBits(dtype: number, dsize: number): number {
  return (hasTwoValues(dtype) ? 2 : 1) * 8 * 2 ** dsize;
}

/**
 * Split signalling is recognised by its responses: a unified stream has none. (A split stream whose
 * loads all lie beyond its end has none either, and then reads as unified: nothing differs.)
 */
export function isSplit(data: DataTrace): boolean {
  return data.responses.length > 0;
}

/** Largest dsize our formats store: 3 bits, 128-byte accesses. */
export const MAX_DSIZE = 7;

const MAX_U64 = (1n << 64n) - 1n;
const MAX_U32 = 0xffff_ffff;

function isU32(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= MAX_U32;
}

function bad(path: string, message: string): never {
  throw new RvError('bad-value', `${path}: ${message}`, { path });
}

/**
 * Checks the data trace of a stream against the conventions in this file's header: every access
 * and response points at an existing record, in retirement order, with a defined dtype, a value that
 * fits its size, and (split signalling) every load answered exactly once, after it retired, by a
 * response naming an ID that is in flight. The writers of our formats call it, so a bad in-memory
 * stream fails before anything is written, naming the field.
 */
export function checkDataTrace(stream: { readonly records: readonly unknown[]; readonly data?: DataTrace }): void {
  const data = stream.data;
  if (data === undefined) return;
  const n = stream.records.length;
  let prevAt = 0;
  for (let i = 0; i < data.accesses.length; i++) {
    const a = data.accesses[i]!;
    const p = `data.accesses[${i}]`;
    if (!Number.isInteger(a.at) || a.at < 0 || a.at >= n) bad(`${p}.at`, `${a.at} is not a record index, expected 0-${n - 1}`);
    if (a.at < prevAt) bad(`${p}.at`, `${a.at} is before the previous access's record ${prevAt}, expected retirement order`);
    prevAt = a.at;
    if (!isDefinedDtype(a.dtype)) bad(`${p}.dtype`, `${a.dtype} is not a dtype of table 4.9, expected 0, 1, 4-6 or 8-14`);
    if (!Number.isInteger(a.dsize) || a.dsize < 0 || a.dsize > MAX_DSIZE) bad(`${p}.dsize`, `${a.dsize}, expected 0-${MAX_DSIZE}`);
    if (typeof a.daddr !== 'bigint' || a.daddr < 0n || a.daddr > MAX_U64) bad(`${p}.daddr`, `${String(a.daddr)}, expected an unsigned 64-bit value`);
    const bits = dataBits(a.dtype, a.dsize);
    if (typeof a.data !== 'bigint' || a.data < 0n || a.data >> BigInt(bits) !== 0n) {
      bad(`${p}.data`, `${typeof a.data === 'bigint' ? `0x${a.data.toString(16)}` : String(a.data)} does not fit ${bits} bits (dsize ${a.dsize})`);
    }
    for (const f of ['lrid', 'iaddrLsbs', 'dblock'] as const) {
      if (!isU32(a[f])) bad(`${p}.${f}`, `${a[f]}, expected 0-4294967295`);
    }
  }
  if (!isSplit(data)) return;

  // Split: replay the interface in order; an ID is in flight from its load's cycle to its response.
  const inFlight = new Map<number, number>(); // lrid -> access index
  let next = 0;
  prevAt = 0;
  for (let i = 0; i < data.responses.length; i++) {
    const r = data.responses[i]!;
    const p = `data.responses[${i}]`;
    if (!Number.isInteger(r.at) || r.at < 0 || r.at >= n) bad(`${p}.at`, `${r.at} is not a record index, expected 0-${n - 1}`);
    if (r.at < prevAt) bad(`${p}.at`, `${r.at} is before the previous response's record ${prevAt}, expected arrival order`);
    prevAt = r.at;
    // Loads retired up to this cycle may be answered (same cycle included).
    for (; next < data.accesses.length && data.accesses[next]!.at <= r.at; next++) issue(next);
    if (r.lresp !== Lresp.okay && r.lresp !== Lresp.error) bad(`${p}.lresp`, `${r.lresp}, expected 2 (okay) or 3 (error)`);
    const k = inFlight.get(r.lid);
    if (k === undefined) bad(`${p}.lid`, `${r.lid} answers no load in flight at record ${r.at}`);
    inFlight.delete(r.lid);
    const a = data.accesses[k]!;
    const bits = 8 * 2 ** a.dsize;
    if (typeof r.ldata !== 'bigint' || r.ldata < 0n || r.ldata >> BigInt(bits) !== 0n) {
      bad(`${p}.ldata`, `${typeof r.ldata === 'bigint' ? `0x${r.ldata.toString(16)}` : String(r.ldata)} does not fit the ${bits}-bit load of data.accesses[${k}]`);
    }
  }
  for (; next < data.accesses.length; next++) issue(next);
  if (inFlight.size > 0) {
    const k = [...inFlight.values()][0]!;
    bad(`data.accesses[${k}].lrid`, `the load with lrid ${data.accesses[k]!.lrid} never gets a response, expected one LoadResponse per split load`);
  }

  function issue(k: number): void {
    const a = data!.accesses[k]!;
    if (!hasLoadPart(a.dtype)) return;
    const other = inFlight.get(a.lrid);
    if (other !== undefined) bad(`data.accesses[${k}].lrid`, `${a.lrid} is still in flight for data.accesses[${other}], expected a free ID`);
    inFlight.set(a.lrid, k);
  }
}
