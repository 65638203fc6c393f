/**
 * Which retired instructions access data, as the data trace interface (E-Trace table 4.9) sees them:
 * loads (LOAD, LOAD-FP and their compressed forms), stores (STORE, STORE-FP, compressed), AMOs
 * (opcode 0x2f except lr and sc, which table 4.9 has no code for) and Zicsr instructions. The
 * dtype is the one such an access carries; `dsize` the log2 of one value's bytes where the
 * encoding says it (CSR accesses are XLEN wide, so the caller supplies that).
 *
 * This is the rule the E-Trace reference flow's spike uses to decide which instructions write a row
 * of its data-trace CSV (decoded from the opcode alone), so joining that CSV row by row with the
 * retired instructions lines up.
 */
import { Dtype } from '../data-records.ts';

export interface DataAccessInfo {
  kind: 'load' | 'store' | 'amo' | 'csr';
  dtype: number;
  /** log2 of the access's byte count (one value); undefined for CSR accesses (XLEN wide). */
  dsize: number | undefined;
}

/** AMO funct5 -> dtype; max/min stand for their unsigned forms too (table 4.9 has one code each). */
const AMO_DTYPE: Readonly<Record<number, number>> = {
  0x00: Dtype.atomicAdd,
  0x01: Dtype.atomicSwap,
  0x04: Dtype.atomicXor,
  0x08: Dtype.atomicOr,
  0x0c: Dtype.atomicAnd,
  0x10: Dtype.atomicMin,
  0x14: Dtype.atomicMax,
  0x18: Dtype.atomicMin,
  0x1c: Dtype.atomicMax,
};

/** CSR funct3 -> dtype (csrrw/csrrwi, csrrs/csrrsi, csrrc/csrrci). */
const CSR_DTYPE: Readonly<Record<number, number>> = {
  1: Dtype.csrReadWrite,
  2: Dtype.csrReadSet,
  3: Dtype.csrReadClear,
  5: Dtype.csrReadWrite,
  6: Dtype.csrReadSet,
  7: Dtype.csrReadClear,
};

/** Compressed funct3 -> log2 bytes in quadrants 0 and 2 (c.fld/c.lw/c.ld, c.fsd/c.sw/c.sd, ...). */
function compressedSize(funct3: number, xlen: 32 | 64): number {
  const f = funct3 & 3;
  if (f === 1) return 3; // c.fld, c.fsd (and their sp forms)
  if (f === 2) return 2; // c.lw, c.sw
  return xlen === 32 ? 2 : 3; // c.flw / c.ld, c.fsw / c.sd
}

/** The data access an instruction makes when it retires, or undefined when it makes none. */
export function dataAccessOf(encoding: number, length: 2 | 4, xlen: 32 | 64): DataAccessInfo | undefined {
  if (length === 2) {
    const quadrant = encoding & 3;
    const funct3 = (encoding >> 13) & 7;
    if (quadrant !== 0 && quadrant !== 2) return undefined;
    if (funct3 >= 1 && funct3 <= 3) return { kind: 'load', dtype: Dtype.load, dsize: compressedSize(funct3, xlen) };
    if (funct3 >= 5) return { kind: 'store', dtype: Dtype.store, dsize: compressedSize(funct3, xlen) };
    return undefined;
  }
  const opcode = encoding & 0x7f;
  const funct3 = (encoding >>> 12) & 7;
  switch (opcode) {
    case 0x03: // LOAD: lb lh lw ld lbu lhu lwu
    case 0x07: // LOAD-FP: flw fld (flh, flq)
      return { kind: 'load', dtype: Dtype.load, dsize: funct3 & 3 };
    case 0x23: // STORE
    case 0x27: // STORE-FP
      return { kind: 'store', dtype: Dtype.store, dsize: funct3 & 3 };
    case 0x2f: {
      const dtype = AMO_DTYPE[encoding >>> 27];
      return dtype === undefined ? undefined : { kind: 'amo', dtype, dsize: funct3 & 3 };
    }
    case 0x73: {
      const dtype = CSR_DTYPE[funct3];
      return dtype === undefined ? undefined : { kind: 'csr', dtype, dsize: undefined };
    }
    default:
      return undefined;
  }
}
