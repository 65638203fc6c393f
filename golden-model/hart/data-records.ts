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
