/**
 * Data accesses for a retirement stream: for every retired load, store, AMO and CSR instruction of
 * the stream (found in its image, `dataAccessOf`), the access the data trace interface of E-Trace
 * table 4.9 would signal, with addresses and values that behave like a program's:
 *
 * - addresses come from the instruction's base register and offset; the stack pointer moves down
 *   and up with the calls and returns of the records, other base registers walk arrays (the
 *   pointer advances by the access size) or jump to another element nearby;
 * - a load returns what the last store to that address left; other values repeat the previous
 *   value of that size, differ from it by a small delta, are small integers, pointers into the
 *   data regions, or random;
 * - CSR accesses read a shadow of the CSR and write it by their operation; AMOs combine the old
 *   memory value with their operand;
 * - split signalling gives every load (and AMO) a free load ID and answers it within a window of
 *   cycles, so responses come out of order; some responses are errors;
 * - `iaddrLsbs` holds the accessing instruction's half-word address bits (pc >> 1, the low
 *   IADDR_LSBS_BITS of them: every consumer masks to iaddr_lsbs_width_p) and `dblock` the index of
 *   the access's record within its cycle (0 for a cycle's first record, 1 for the `sameCycle` record
 *   after it, ...): the signal group whose block address iaddr_lsbs completes.
 *
 * Only the data is invented: the records and the image are not changed. The same stream, knobs and
 * seed give the same accesses. docs/data-stimulus.md describes the knobs.
 */
import { Rng } from '../../common/rng.ts';
import { RvError } from '../../common/errors.ts';
import { type DataAccess, type DataTrace, Dtype, hasLoadPart, isAtomic, type LoadResponse, Lresp } from '../data-records.ts';
import { dataAccessOf, type DataAccessInfo } from '../isa/data-access.ts';
import { Itype } from '../records.ts';
import type { RetirementStream } from '../stream.ts';

export interface DataKnobs {
  /** Unified (every value with the access) or split loads (ID now, response later). */
  signalling: 'unified' | 'split';
  /** Split: load IDs (lrid values 0..lrids-1), i.e. loads in flight at most. */
  lrids: number;
  /** Split: a response comes 0..window cycles (records) after its load. */
  response_window: number;
  /** Split: probability that a response is an error (no data). */
  error_rate: number;
  /** Probability that a value repeats the previous value of its size. */
  repeat_rate: number;
  /** Probability that a value is the previous value of its size plus a small delta. */
  delta_rate: number;
  /** Probability that a load or store through a non-stack base register walks on to the next element. */
  stride_rate: number;
  /** Base of the global data the gp register points into. */
  globals_base: bigint;
  /** Top of the stack (sp before the first call). */
  stack_top: bigint;
  /** Base of the heap the other base registers point into. */
  heap_base: bigint;
}

export function defaultDataKnobs(): DataKnobs {
  return {
    signalling: 'unified',
    lrids: 8,
    response_window: 6,
    error_rate: 0.02,
    repeat_rate: 0.25,
    delta_rate: 0.25,
    stride_rate: 0.7,
    globals_base: 0x8010_0000n,
    stack_top: 0x8020_0000n,
    heap_base: 0x8040_0000n,
  };
}

export const DATA_KNOB_HELP: Record<keyof DataKnobs, string> = {
  signalling: 'unified: values with the access; split: loads answered later, out of order',
  lrids: 'split: load IDs (loads in flight at most)',
  response_window: 'split: a response comes at most this many cycles after its load',
  error_rate: 'split: error responses per load',
  repeat_rate: 'values that repeat the previous value of their size',
  delta_rate: 'values that are the previous value plus a small delta',
  stride_rate: 'accesses through a pointer that walk on to the next element',
  globals_base: 'address the gp register points at',
  stack_top: 'stack pointer before the first call',
  heap_base: 'base of the region other pointers point into',
};

const SP = 2;
const GP = 3;

/** Bits of pc >> 1 kept in `iaddrLsbs` (iaddr_lsbs_width_p is at most 8). */
export const IADDR_LSBS_BITS = 16;

/** The stream with a data trace for its load, store, AMO and CSR instructions. */
export function addDataAccesses(stream: RetirementStream, knobs: DataKnobs, seed: number): RetirementStream {
  return { ...stream, data: new DataGenerator(stream, knobs, new Rng(seed ^ 0x0da7a5ed)).run() };
}

/** Where a load or store's address comes from: base register and signed offset. */
function baseAndOffset(encoding: number, length: 2 | 4, xlen: 32 | 64): { base: number; offset: number } {
  if (length === 4) {
    const base = (encoding >>> 15) & 31;
    const opcode = encoding & 0x7f;
    if (opcode === 0x2f) return { base, offset: 0 };
    const imm = opcode === 0x23 || opcode === 0x27 ? ((encoding >> 25) << 5) | ((encoding >>> 7) & 31) : encoding >> 20;
    return { base, offset: imm };
  }
  const funct3 = (encoding >> 13) & 7;
  const bit = (i: number): number => (encoding >> i) & 1;
  const bits = (hi: number, lo: number): number => (encoding >> lo) & ((1 << (hi - lo + 1)) - 1);
  const double = (funct3 & 3) === 1 || ((funct3 & 3) === 3 && xlen === 64);
  if ((encoding & 3) === 0) {
    // CL/CS: rs1' in bits 9:7; uimm[5:3] in 12:10, then [2|6] or [7:6] in 6:5.
    const base = 8 + bits(9, 7);
    const offset = (bits(12, 10) << 3) | (double ? bits(6, 5) << 6 : (bit(6) << 2) | (bit(5) << 6));
    return { base, offset };
  }
  // Quadrant 2, sp-relative.
  if (funct3 <= 3) {
    const offset = double ? (bit(12) << 5) | (bits(6, 5) << 3) | (bits(4, 2) << 6) : (bit(12) << 5) | (bits(6, 4) << 2) | (bits(3, 2) << 6);
    return { base: SP, offset };
  }
  const offset = double ? (bits(12, 10) << 3) | (bits(9, 7) << 6) : (bits(12, 9) << 2) | (bits(8, 7) << 6);
  return { base: SP, offset };
}

const LSBS_MASK = (1n << BigInt(IADDR_LSBS_BITS)) - 1n;

/** Which instruction of the cycle made an access: its half-word address bits and its signal group. */
interface Where {
  iaddrLsbs: number;
  dblock: number;
}

class DataGenerator {
  private readonly accesses: DataAccess[] = [];
  private readonly responses: LoadResponse[] = [];
  /** Shadow memory: address -> last value stored there and its size. */
  private readonly memory = new Map<bigint, { dsize: number; value: bigint }>();
  private readonly csrs = new Map<number, bigint>();
  /** Last value seen per dsize, for repeats and small deltas. */
  private readonly last: bigint[] = [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n];
  private readonly pointers = new Map<number, bigint>();
  /** Pointers an addi just set: their next use is at exactly that address. */
  private readonly exact = new Set<number>();
  private sp: bigint;
  private readonly frames: bigint[] = [];
  /** Split: lrid -> its response's record index. */
  private readonly inFlight = new Map<number, { response: number; access: number }>();
  private readonly addrMask: bigint;

  constructor(
    private readonly stream: RetirementStream,
    private readonly k: DataKnobs,
    private readonly rng: Rng,
  ) {
    this.sp = k.stack_top;
    this.addrMask = (1n << BigInt(stream.xlen)) - 1n;
    if (k.signalling === 'split' && (!Number.isInteger(k.lrids) || k.lrids < 1)) {
      throw new RvError('bad-option', `data lrids ${k.lrids}: expected at least 1 load ID`, { path: 'lrids' });
    }
  }

  run(): DataTrace {
    const { records, image } = this.stream;
    for (let i = 0, group = 0; i < records.length; i++) {
      const r = records[i]!;
      group = r.sameCycle && i > 0 ? group + 1 : 0;
      const end = r.iaddr + 2n * BigInt(r.iretire);
      for (let pc = r.iaddr; pc < end; ) {
        const insn = image.fetch(pc);
        if (insn === undefined) {
          throw new RvError('bad-value', `record ${i}: the instruction at 0x${pc.toString(16)} is not in the image, expected every retired instruction there`, {
            path: `records[${i}]`,
          });
        }
        const info = dataAccessOf(insn.encoding, insn.length, this.stream.xlen);
        if (info !== undefined) this.access(i, insn.encoding, insn.length, info, { iaddrLsbs: Number((pc >> 1n) & LSBS_MASK), dblock: group });
        else this.followAddi(insn.encoding, insn.length);
        pc += BigInt(insn.length);
      }
      this.moveStack(r.itype, r.iretire);
    }
    this.responses.sort((a, b) => a.at - b.at);
    return { accesses: this.accesses, responses: this.responses };
  }

  /** Calls push a frame, returns pop it: the stack addresses of nested functions differ. */
  private moveStack(itype: number, iretire: number): void {
    if (iretire === 0) return;
    if (itype === Itype.inferableCall || itype === Itype.uninferableCall) {
      this.frames.push(this.sp);
      this.sp -= 16n * BigInt(this.rng.int(1, 8));
    } else if (itype === Itype.return && this.frames.length > 0) {
      this.sp = this.frames.pop()!;
    }
  }

  private access(at: number, encoding: number, length: 2 | 4, info: DataAccessInfo, where: Where): void {
    const xlen = this.stream.xlen;
    if (info.kind === 'csr') return this.csrAccess(at, encoding, info.dtype, where);
    const dsize = info.dsize!;
    const bytes = 1 << dsize;
    const { base, offset } = baseAndOffset(encoding, length, xlen);
    const daddr = (this.pointer(base, bytes) + BigInt(offset)) & this.addrMask & ~BigInt(info.kind === 'amo' ? bytes - 1 : 0);
    const sizeMask = (1n << BigInt(8 * bytes)) - 1n;
    let data: bigint;
    let loaded: bigint | undefined;
    if (info.kind === 'store') {
      data = this.value(dsize);
      this.memory.set(daddr, { dsize, value: data });
    } else if (info.kind === 'load') {
      const known = this.memory.get(daddr);
      loaded = known !== undefined && known.dsize === dsize ? known.value : this.value(dsize);
      this.memory.set(daddr, { dsize, value: loaded });
      data = loaded;
    } else {
      const known = this.memory.get(daddr);
      const old = known !== undefined && known.dsize === dsize ? known.value : this.value(dsize);
      const operand = this.value(dsize);
      this.memory.set(daddr, { dsize, value: amoResult(encoding >>> 27, old, operand, 8 * bytes) & sizeMask });
      loaded = old;
      data = operand | (old << BigInt(8 * bytes));
    }
    const a: DataAccess = { at, dtype: info.dtype, daddr, dsize, data, lrid: 0, ...where };
    if (this.k.signalling === 'split' && hasLoadPart(info.dtype)) {
      a.lrid = this.issue(at);
      // The loaded value travels in the response; an atomic keeps its operand in the low half.
      a.data = isAtomic(info.dtype) ? data & sizeMask : 0n;
      const delay = this.rng.int(0, this.k.response_window);
      const response = Math.min(this.stream.records.length - 1, at + delay);
      const error = this.rng.chance(this.k.error_rate);
      this.responses.push({ at: response, lid: a.lrid, lresp: error ? Lresp.error : Lresp.okay, ldata: error ? 0n : loaded! });
      this.inFlight.set(a.lrid, { response, access: this.accesses.length });
    }
    this.accesses.push(a);
  }

  /**
   * A free load ID at record `at`: one whose response came before this cycle. When every ID is in
   * flight the hart would stall; here the earliest response is moved to the cycle before (its load
   * retired before that), as a stall would have let it arrive.
   */
  private issue(at: number): number {
    for (let id = 0; id < this.k.lrids; id++) {
      const f = this.inFlight.get(id);
      if (f === undefined || f.response < at) return id;
    }
    let best = -1;
    for (const [id, f] of this.inFlight) {
      const load = this.accesses[f.access]!;
      if (load.at < at && (best < 0 || f.response < this.inFlight.get(best)!.response)) best = id;
    }
    if (best < 0) {
      throw new RvError('bad-option', `data lrids ${this.k.lrids}: record ${at} retires more loads than there are load IDs`, { path: 'lrids' });
    }
    let k = this.responses.length - 1;
    while (this.responses[k]!.lid !== best) k--;
    this.responses[k]!.at = at - 1;
    this.inFlight.get(best)!.response = at - 1;
    return best;
  }

  /**
   * `addi rd, rs1, imm` from a known pointer makes rd that pointer plus imm (how code takes the
   * address of a global or a stack slot); other writes to rd are not followed.
   */
  private followAddi(encoding: number, length: 2 | 4): void {
    if (length !== 4 || (encoding & 0x707f) !== 0x13) return;
    const rd = (encoding >>> 7) & 31;
    const rs1 = (encoding >>> 15) & 31;
    if (rd === 0 || (rs1 !== SP && rs1 !== GP && !this.pointers.has(rs1))) return;
    const value = (this.peek(rs1) + BigInt(encoding >> 20)) & this.addrMask;
    if (rd === SP) this.sp = value;
    else {
      this.pointers.set(rd, value);
      this.exact.add(rd);
    }
  }

  private peek(reg: number): bigint {
    return reg === SP ? this.sp : reg === GP ? this.k.globals_base : this.pointers.get(reg)!;
  }

  /** The value of pointer register `reg`, moved as programs move pointers. */
  private pointer(reg: number, bytes: number): bigint {
    if (reg === SP) return this.sp;
    if (reg === GP) return this.k.globals_base;
    let p = this.pointers.get(reg);
    if (p !== undefined && this.exact.delete(reg)) return p;
    if (p === undefined) {
      p = this.k.heap_base + 8n * BigInt(this.rng.int(0, 8191));
    } else if (this.rng.chance(this.k.stride_rate)) {
      p += BigInt(bytes);
    } else {
      p += 8n * BigInt(this.rng.int(-64, 64));
    }
    this.pointers.set(reg, p);
    return p;
  }

  /** A value of 2^dsize bytes with the locality real data has. */
  private value(dsize: number): bigint {
    const bits = 8 * (1 << dsize);
    const mask = (1n << BigInt(bits)) - 1n;
    const rng = this.rng;
    const prev = this.last[dsize]!;
    let v: bigint;
    const x = rng.float();
    if (x < this.k.repeat_rate) v = prev;
    else if (x < this.k.repeat_rate + this.k.delta_rate) v = prev + BigInt(rng.int(-16, 16));
    else {
      switch (rng.int(0, 3)) {
        case 0:
          v = BigInt(rng.int(0, 255));
          break;
        case 1:
          v = BigInt(-rng.int(1, 64));
          break;
        case 2:
          v = rng.pick([this.k.globals_base, this.k.heap_base, this.sp]) + 8n * BigInt(rng.int(0, 4095));
          break;
        default:
          v = rng.u64();
      }
    }
    v &= mask;
    this.last[dsize] = v;
    return v;
  }

  private csrAccess(at: number, encoding: number, dtype: number, where: Where): void {
    const xlen = this.stream.xlen;
    const csr = encoding >>> 20;
    const funct3 = (encoding >>> 12) & 7;
    const rs1 = (encoding >>> 15) & 31;
    const mask = (1n << BigInt(xlen)) - 1n;
    const old = this.csrs.get(csr) ?? this.value(xlen === 64 ? 3 : 2);
    // The ...i forms take rs1's field as a 5-bit immediate; rs1 = x0 reads 0.
    const operand = funct3 >= 5 ? BigInt(rs1) : rs1 === 0 ? 0n : this.value(xlen === 64 ? 3 : 2);
    const next = dtype === Dtype.csrReadWrite ? operand : dtype === Dtype.csrReadSet ? old | operand : old & ~operand & mask;
    this.csrs.set(csr, next);
    this.accesses.push({ at, dtype, daddr: BigInt(csr), dsize: xlen === 64 ? 3 : 2, data: operand | (old << BigInt(xlen)), lrid: 0, ...where });
  }
}

/** The value an AMO stores: funct5 of amo<op> applied to the old value and the operand (`bits` wide). */
function amoResult(funct5: number, old: bigint, operand: bigint, bits: number): bigint {
  const signed = (v: bigint): bigint => BigInt.asIntN(bits, v);
  switch (funct5) {
    case 0x00:
      return old + operand;
    case 0x01:
      return operand;
    case 0x04:
      return old ^ operand;
    case 0x08:
      return old | operand;
    case 0x0c:
      return old & operand;
    case 0x10:
      return signed(old) < signed(operand) ? old : operand;
    case 0x14:
      return signed(old) > signed(operand) ? old : operand;
    case 0x18:
      return old < operand ? old : operand;
    default:
      return old > operand ? old : operand;
  }
}
