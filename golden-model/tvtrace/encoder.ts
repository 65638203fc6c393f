/**
 * The tandem-verification trace encoder: records (records.ts) to the byte stream of the Trace
 * Protocol Specification 2018-11-20, chapter 2. A plain concatenation of opcodes and payloads: every
 * record but `unobserved` becomes one group (begin group 01 ... end group 02); multi-byte fields are
 * little endian; register data is XLEN bits (GPR, CSR) or FLEN bits (FPR), addresses MLEN bits
 * rounded up to bytes, the pc XLEN bits.
 *
 * The protocol leaves the order of fields inside a group free (chapter 3); byte-exact comparison
 * needs one. `field_order = bluespec` follows Bluespec's Flute encoder (bluespec/Flute
 * src_Core/Core/TV_Encode.bsv), so streams match what Bluespec's tandem verifiers consume;
 * `field_order = seed` follows the seed's Appendix C examples. The orders are listed per kind in
 * docs/tvtrace-model.md.
 *
 * The encoder keeps the state a decoder holds that the compact opcodes depend on: the pc (for
 * opcode 3, increment pc) and fcsr (for opcode 6, OR). Only the seed order uses them.
 */
import { RvError } from '../common/errors.ts';
import { Csr, sizeCode, TvOp, TvState, trapCsrs } from './protocol.ts';
import {
  MAX_CSR_WRITES,
  MAX_MEM_TRANSACTIONS,
  tvMemRequestHasData,
  tvMemResponseHasData,
  type TvCsrWrite,
  type TvInstr,
  type TvMemTransaction,
  type TvPriv,
  type TvRecord,
  type TvRegWrite,
  type TvStoreData,
} from './records.ts';
import { mlenBytes, type TvtraceConfig } from './settings.ts';

/** State the decoder already holds when the stream starts (e.g. after a previous trace). */
export interface TvEncoderStart {
  /** The pc the decoder holds; without it the first group reports the pc in full. */
  readonly pc?: bigint;
  /** The fcsr value the decoder holds; without it the first fcsr is reported in full. */
  readonly fcsr?: bigint;
}

/**
 * The most bytes one record can take (an instruction with every field at 64 bits: 193,
 * maxTvRecordBytes), with margin: a field of fewer than 8 bytes is written as 8 (see uBytes), so up
 * to 7 bytes past the record.
 */
const MAX_RECORD_BYTES = 256;

/**
 * A 64-bit value split into two 32-bit numbers without allocating: store it in a BigUint64Array and
 * read the halves through a Uint32Array over the same memory (native byte order, hence LOW/HIGH).
 * DataView.setBigUint64 costs three times as much, per-byte BigInt shifts allocate.
 */
const SPLIT64 = new BigUint64Array(1);
const HALVES = new Uint32Array(SPLIT64.buffer);
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

/** 2^(8 * bytes) for the store sizes 1, 2, 4, 8 by size code: the exclusive limit of their data. */
const STORE_LIMIT = [1n << 8n, 1n << 16n, 1n << 32n, 1n << 64n] as const;

export class TvEncoder {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private n = 0;
  /** Records encoded so far: the index named in error messages. */
  private count = 0;
  /** Records the caller will hand over in all, when it knows (sizes the buffer); 0 = unknown. */
  private expected = 0;

  private readonly seed: boolean;
  private readonly xBytes: 4 | 8;
  private readonly xMax: bigint;
  /** 2^XLEN: the pc wraps around it. */
  private readonly xModulus: bigint;
  private readonly fBytes: 0 | 4 | 8;
  private readonly fMax: bigint;
  private readonly mBytes: number;
  private readonly mMax: bigint;

  /** The pc as the decoder knows it (valid when pcKnown). */
  private pc = 0n;
  private pcKnown: boolean;
  private fcsr = 0n;
  private fcsrKnown: boolean;

  constructor(
    readonly config: TvtraceConfig,
    start: TvEncoderStart = {},
  ) {
    this.seed = config.fieldOrder === 'seed';
    this.xBytes = config.xlen === 64 ? 8 : 4;
    this.xMax = (1n << BigInt(config.xlen)) - 1n;
    this.xModulus = this.xMax + 1n;
    this.fBytes = config.flen === 64 ? 8 : config.flen === 32 ? 4 : 0;
    this.fMax = (1n << BigInt(config.flen)) - 1n;
    this.mBytes = mlenBytes(config.mlen);
    this.mMax = (1n << BigInt(config.mlen)) - 1n;
    this.pcKnown = start.pc !== undefined;
    this.pc = start.pc ?? 0n;
    this.fcsrKnown = start.fcsr !== undefined;
    this.fcsr = start.fcsr ?? 0n;
  }

  /** Appends the bytes of one record. Throws an RvError naming the record and field when a value does not fit. */
  encode(r: TvRecord): void {
    if (this.n + MAX_RECORD_BYTES > this.buf.length) this.grow();
    const start = this.n;
    const { pc, pcKnown, fcsr, fcsrKnown } = this;
    try {
      switch (r.kind) {
        case 'instruction':
          if (this.seed) this.instructionSeed(r.nextPc, r.instr, r.gpr, r.fpr, r.csrs, r.fcsr, r.paddr, r.eaddr, r.storeData, r.priv, r.mem, r.pcPaddr);
          else this.instructionBluespec(r.nextPc, r.instr, r.gpr, r.fpr, r.csrs, r.fcsr, r.paddr, r.eaddr, r.storeData, r.priv, r.mem, r.pcPaddr);
          break;
        case 'trap':
        case 'interrupt':
          this.trap(r.nextPc, r.kind === 'trap' ? r.instr : undefined, r.priv, r.status, r.cause, r.epc, r.tval);
          break;
        case 'xret':
          this.xret(r.nextPc, r.instr, r.priv, r.mstatus);
          break;
        case 'debug-reg':
          this.debugReg(r.file, r.index, r.value);
          break;
        case 'debug-mem':
          this.debugMem(r.paddr, r.bytes, r.value);
          break;
        case 'reset':
          // Flute rl_log_trace_RESET: 01 0a 02. The pc and fcsr after reset are the decoder's own
          // business (reset vector, implementation-defined values): report them in full again.
          this.u8(TvOp.beginGroup);
          this.u8(TvOp.hartReset);
          this.u8(TvOp.endGroup);
          this.pcKnown = false;
          this.fcsrKnown = false;
          break;
        case 'unobserved':
          this.unobserved(r.mtime, r.mcycle, r.minstret);
          break;
        default:
          throw this.fail(`unknown record kind ${JSON.stringify((r as { kind: unknown }).kind)}`);
      }
    } catch (e) {
      // Nothing half-written, and the state the decoder would hold is unchanged.
      this.n = start;
      this.pc = pc;
      this.pcKnown = pcKnown;
      this.fcsr = fcsr;
      this.fcsrKnown = fcsrKnown;
      throw e;
    }
    this.count++;
  }

  /** The number of bytes encoded so far (the offset of the next record's first byte). */
  get length(): number {
    return this.n;
  }

  /** The bytes encoded so far (a copy). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.n);
  }

  /** Tells the encoder how many records it will get in all, so that its buffer grows once or twice. */
  expectRecords(count: number): void {
    this.expected = count;
  }

  /** The bytes encoded so far without a copy: the last call on this encoder. */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.n);
  }

  /** The bytes encoded so far; the encoder continues with an empty buffer and the same state. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.n);
    this.n = 0;
    return out;
  }

  // ---- groups -----------------------------------------------------------------------------

  /**
   * Flute's order (TV_Encode.bsv, the rules of TRACE_OTHER ... TRACE_CSRRX):
   * pc, [pc paddr], instr, [priv], [rd], [frd], [store data], [eaddr], [paddr], [memory requests,
   * each with its response], [CSR writes in record order], [fcsr].
   * rd before store data before eaddr is TRACE_AMO; frd, eaddr, then mstatus is TRACE_F_LOAD; rd or
   * frd, then fflags, then mstatus is TRACE_F_GRD / TRACE_F_FRD; rd, csr, mstatus is TRACE_CSRRX.
   * priv (after the instruction, as TRACE_RET places it), paddr, the pc's paddr (beside the pc),
   * memory transactions (after the addresses) and fcsr are not in Flute's instruction records: their
   * places are ours.
   */
  private instructionBluespec(
    nextPc: bigint,
    instr: TvInstr | undefined,
    gpr: TvRegWrite | undefined,
    fpr: TvRegWrite | undefined,
    csrs: readonly TvCsrWrite[] | undefined,
    fcsr: bigint | undefined,
    paddr: bigint | undefined,
    eaddr: bigint | undefined,
    storeData: TvStoreData | undefined,
    priv: TvPriv | undefined,
    mem: readonly TvMemTransaction[] | undefined,
    pcPaddr: bigint | undefined,
  ): void {
    this.u8(TvOp.beginGroup);
    this.pcFull(nextPc);
    if (pcPaddr !== undefined) this.address(TvState.pcPaddr, pcPaddr, 'pcPaddr');
    if (instr !== undefined) this.instr(instr);
    if (priv !== undefined) this.priv(priv);
    if (gpr !== undefined) this.gpr(gpr.reg, gpr.value);
    if (fpr !== undefined) this.fpr(fpr.reg, fpr.value);
    if (storeData !== undefined) this.storeData(storeData);
    if (eaddr !== undefined) this.address(TvState.eaddr, eaddr, 'eaddr');
    if (paddr !== undefined) this.address(TvState.paddr, paddr, 'paddr');
    if (mem !== undefined) this.memTransactions(mem);
    if (csrs !== undefined) this.csrs(csrs);
    if (fcsr !== undefined) this.fcsrFull(fcsr);
    this.u8(TvOp.endGroup);
    this.pc = nextPc;
    this.pcKnown = true;
  }

  /**
   * The seed's order (Appendix C): pc (opcode 3 when it is the known pc plus the instruction
   * length: Tables C.1, C.3-C.6; else additional state 10: Table C.2), [pc paddr], instr, rd (C.1,
   * C.4-C.6), frd (C.3), CSR writes (C.6), fcsr (C.3, opcode 6 when only new bits are set), paddr
   * (C.5), eaddr, store data, memory requests with their responses, priv (last, as in C.7). The seed
   * shows no example with eaddr, store data, memory transactions, the pc's paddr or priv on an
   * instruction; their places follow Appendix D's field lists ("pc, instr, gpr, paddr, eaddr,
   * memdata"), the bus transactions after the instruction-centric memdata, the pc's paddr beside the pc.
   */
  private instructionSeed(
    nextPc: bigint,
    instr: TvInstr | undefined,
    gpr: TvRegWrite | undefined,
    fpr: TvRegWrite | undefined,
    csrs: readonly TvCsrWrite[] | undefined,
    fcsr: bigint | undefined,
    paddr: bigint | undefined,
    eaddr: bigint | undefined,
    storeData: TvStoreData | undefined,
    priv: TvPriv | undefined,
    mem: readonly TvMemTransaction[] | undefined,
    pcPaddr: bigint | undefined,
  ): void {
    this.u8(TvOp.beginGroup);
    this.checkX(nextPc, 'nextPc');
    // Opcode 3 needs an instruction field in the same group (chapter 3) and a pc the decoder knows;
    // it stands for pc + instruction length modulo 2^XLEN.
    if (instr !== undefined && this.pcKnown && this.isIncrement(nextPc, instr.size === 16 ? 2n : 4n)) {
      this.u8(TvOp.incrementPc);
    } else {
      this.pcFull(nextPc);
    }
    if (pcPaddr !== undefined) this.address(TvState.pcPaddr, pcPaddr, 'pcPaddr');
    if (instr !== undefined) this.instr(instr);
    if (gpr !== undefined) this.gpr(gpr.reg, gpr.value);
    if (fpr !== undefined) this.fpr(fpr.reg, fpr.value);
    if (csrs !== undefined) this.csrs(csrs);
    if (fcsr !== undefined) this.fcsrSeed(fcsr);
    if (paddr !== undefined) this.address(TvState.paddr, paddr, 'paddr');
    if (eaddr !== undefined) this.address(TvState.eaddr, eaddr, 'eaddr');
    if (storeData !== undefined) this.storeData(storeData);
    if (mem !== undefined) this.memTransactions(mem);
    if (priv !== undefined) this.priv(priv);
    this.u8(TvOp.endGroup);
    this.pc = nextPc;
    this.pcKnown = true;
  }

  /** Whether nextPc is the known pc plus `step` modulo 2^XLEN (one BigInt made, not three). */
  private isIncrement(nextPc: bigint, step: bigint): boolean {
    const d = nextPc - this.pc;
    return d === step || d === step - this.xModulus;
  }

  /**
   * Traps and interrupts (no instruction). Flute (rl_log_trace_TRAP, rl_log_trace_INTR): pc, [instr],
   * priv, xstatus, xcause, xepc, xtval. The seed (Tables C.7, C.8): pc, [instr], xepc, xcause,
   * xstatus, xtval, priv. The CSR set is that of the new privilege.
   */
  private trap(nextPc: bigint, instr: TvInstr | undefined, priv: TvPriv, status: bigint, cause: bigint, epc: bigint, tval: bigint): void {
    // Indexed, not destructured: array destructuring goes through an iterator object.
    const set = trapCsrs(this.checkPriv(priv));
    const aStatus = set[0];
    const aCause = set[1];
    const aEpc = set[2];
    const aTval = set[3];
    this.u8(TvOp.beginGroup);
    this.pcFull(nextPc);
    if (instr !== undefined) this.instr(instr);
    if (this.seed) {
      this.reg(aEpc, epc, 'epc');
      this.reg(aCause, cause, 'cause');
      this.reg(aStatus, status, 'status');
      this.reg(aTval, tval, 'tval');
      this.priv(priv);
    } else {
      this.priv(priv);
      this.reg(aStatus, status, 'status');
      this.reg(aCause, cause, 'cause');
      this.reg(aEpc, epc, 'epc');
      this.reg(aTval, tval, 'tval');
    }
    this.u8(TvOp.endGroup);
    this.pc = nextPc;
    this.pcKnown = true;
  }

  /** Flute (rl_log_trace_RET): pc, instr, priv, mstatus. The seed order puts priv last, as in C.7. */
  private xret(nextPc: bigint, instr: TvInstr | undefined, priv: TvPriv, mstatus: bigint): void {
    this.checkPriv(priv);
    this.u8(TvOp.beginGroup);
    this.pcFull(nextPc);
    if (instr !== undefined) this.instr(instr);
    if (this.seed) {
      this.reg(Csr.mstatus, mstatus, 'mstatus');
      this.priv(priv);
    } else {
      this.priv(priv);
      this.reg(Csr.mstatus, mstatus, 'mstatus');
    }
    this.u8(TvOp.endGroup);
    this.pc = nextPc;
    this.pcKnown = true;
  }

  /**
   * A debug-module register write: a state initialization group (chapter 3: "primarily intended for
   * use during program loading by the debug module"), Flute rl_log_trace_GPR_WRITE and its FPR and
   * CSR siblings: 01 0b 04 reg value 02. A write to x0 leaves 01 0b 02, as Flute's encode_reg does.
   * FPR data is FLEN bits (chapter 2; Flute before 2022 sent XLEN bits here).
   */
  private debugReg(file: 'gpr' | 'fpr' | 'csr', index: number, value: bigint): void {
    this.u8(TvOp.beginGroup);
    this.u8(TvOp.stateInitialization);
    if (file === 'gpr') this.gpr(index, value);
    else if (file === 'fpr') this.fpr(index, value);
    else if (file === 'csr') {
      this.checkCsr(index);
      this.reg(index, value, 'value');
      this.noteCsrWrite(index, value);
    } else throw this.fail(`debug-reg file is ${JSON.stringify(file)}; allowed: gpr, fpr, csr`);
    this.u8(TvOp.endGroup);
  }

  /**
   * A debug-module memory write (Flute rl_log_trace_MEM_WRITE): 01 0b 08 paddr (MLEN) op|size data 02,
   * a store request without a response (responses may be omitted, chapter 3).
   */
  private debugMem(paddr: bigint, bytes: 1 | 2 | 4 | 8, value: bigint): void {
    const code = this.checkStore(bytes, value, 'data');
    this.u8(TvOp.beginGroup);
    this.u8(TvOp.stateInitialization);
    this.u8(TvOp.memoryRequest);
    this.mlen(paddr, 'paddr');
    // op in bits 3:0, size in bits 7:4 (chapter 3: "the first field starting at the least significant bit").
    this.u8((code << 4) | 1);
    this.uBytes(value, bytes);
    this.u8(TvOp.endGroup);
  }

  /**
   * Unobserved state (Appendix B's mtime_in, mcycle_in, minstret_in) outside any group: chapter 3,
   * "State changes that occur outside begin and end group do not convey any ordering other than
   * after the prior end group and before the next begin group". A group would ask a tandem verifier
   * to step an instruction. RV32 sends the counters as the register pairs (x, xh).
   */
  private unobserved(mtime: bigint | undefined, mcycle: bigint | undefined, minstret: bigint | undefined): void {
    if (mtime !== undefined) {
      if (mtime < 0n || mtime > 0xffff_ffff_ffff_ffffn) throw this.fail(`mtime 0x${mtime.toString(16)} does not fit 64 bits`);
      this.u8(TvOp.additionalState);
      this.u8(TvState.mtime);
      this.uBytes(mtime, 8);
    }
    if (mcycle !== undefined) this.counter(Csr.mcycle, Csr.mcycleh, mcycle, 'mcycle');
    if (minstret !== undefined) this.counter(Csr.minstret, Csr.minstreth, minstret, 'minstret');
  }

  private counter(low: number, high: number, value: bigint, field: string): void {
    if (value < 0n || value > 0xffff_ffff_ffff_ffffn) throw this.fail(`${field} 0x${value.toString(16)} does not fit 64 bits`);
    if (this.xBytes === 8) {
      this.reg(low, value, field);
    } else {
      this.reg(low, value & 0xffff_ffffn, field);
      this.reg(high, value >> 32n, field);
    }
  }

  // ---- fields -----------------------------------------------------------------------------

  /** Additional state 10: the pc after the group, XLEN bits. */
  private pcFull(nextPc: bigint): void {
    this.u8(TvOp.additionalState);
    this.u8(TvState.pc);
    this.xlen(nextPc, 'nextPc');
  }

  private instr(i: TvInstr): void {
    const bits = i.bits;
    if (i.size === 32) {
      if (!(bits >= 0 && bits <= 0xffff_ffff && Number.isInteger(bits))) throw this.fail(`instr.bits ${String(bits)} does not fit a 32-bit instruction`);
      this.u8(TvOp.instruction32);
      this.view.setUint32(this.n, bits, true);
      this.n += 4;
    } else if (i.size === 16) {
      if (!(bits >= 0 && bits <= 0xffff && Number.isInteger(bits))) throw this.fail(`instr.bits ${String(bits)} does not fit a 16-bit instruction`);
      this.u8(TvOp.instruction16);
      this.view.setUint16(this.n, bits, true);
      this.n += 2;
    } else {
      throw this.fail(`instr.size is ${String(i.size)}; allowed: 16 or 32`);
    }
  }

  /** Additional state 1, one byte. */
  private priv(p: TvPriv): void {
    this.u8(TvOp.additionalState);
    this.u8(TvState.priv);
    this.u8(this.checkPriv(p));
  }

  /** A GPR write as a full register; x0 is not reported (Table C.2; Flute's encode_reg). */
  private gpr(reg: number, value: bigint): void {
    if (!(reg >= 0 && reg <= 31 && Number.isInteger(reg))) throw this.fail(`gpr.reg is ${String(reg)}; allowed: 0-31`);
    if (reg === 0) {
      this.checkX(value, 'gpr value');
      return;
    }
    this.reg(0x1000 + reg, value, 'gpr value');
  }

  /** An FPR write as a full register of FLEN bits (Table C.3: "note: full FLEN register"). */
  private fpr(reg: number, v: bigint): void {
    if (!(reg >= 0 && reg <= 31 && Number.isInteger(reg))) throw this.fail(`fpr.reg is ${String(reg)}; allowed: 0-31`);
    if (this.fBytes === 0) throw this.fail(`an FPR write (f${reg}) but flen is 0`);
    if (v < 0n || v > this.fMax) throw this.fail(`fpr value 0x${v.toString(16)} does not fit FLEN = ${this.config.flen}`);
    this.u8(TvOp.fullRegister);
    this.view.setUint16(this.n, 0x1020 + reg, true);
    this.n += 2;
    this.uBytes(v, this.fBytes);
  }

  private csrs(list: readonly TvCsrWrite[]): void {
    if (list.length > MAX_CSR_WRITES) throw this.fail(`${list.length} CSR writes; allowed: at most ${MAX_CSR_WRITES}`);
    for (let i = 0; i < list.length; i++) {
      const { csr, value } = list[i]!;
      this.checkCsr(csr);
      // The field name is only built for the message (a string per write otherwise).
      if (value < 0n || value > this.xMax) this.checkX(value, `CSR 0x${csr.toString(16)} value`);
      this.reg(csr, value, '');
      this.noteCsrWrite(csr, value);
    }
  }

  private fcsrFull(v: bigint): void {
    this.reg(Csr.fcsr, v, 'fcsr');
    this.fcsr = v;
    this.fcsrKnown = true;
  }

  /**
   * Table C.3: `06 03 00 01`, "fcsr bits to set (i.e., new floating point exceptions)". Opcode 6 ORs
   * an 8-bit mask into the register the decoder holds, so it fits when the decoder's fcsr is known,
   * no bit is cleared and every new bit is in the low byte; otherwise fcsr goes in full.
   */
  private fcsrSeed(v: bigint): void {
    this.checkX(v, 'fcsr');
    const set = v & ~this.fcsr;
    if (this.fcsrKnown && (this.fcsr & ~v) === 0n && set <= 0xffn) {
      this.u8(TvOp.orRegister);
      this.view.setUint16(this.n, Csr.fcsr, true);
      this.n += 2;
      this.u8(Number(set));
      this.fcsr = v;
    } else {
      this.fcsrFull(v);
    }
  }

  /**
   * fflags and frm are fields of fcsr: a write to them changes the fcsr the decoder's tandem verifier
   * holds in a way only a model of those CSRs knows, so after one the encoder reports fcsr in full again.
   */
  private noteCsrWrite(csr: number, value: bigint): void {
    if (csr === Csr.fcsr) {
      this.fcsr = value;
      this.fcsrKnown = true;
    } else if (csr === Csr.fflags || csr === Csr.frm) {
      this.fcsrKnown = false;
    }
  }

  /** Additional state 4-7: the store data of 1, 2, 4 or 8 bytes (at most max(XLEN, FLEN) bits, TraceData's MemData). */
  private storeData(d: TvStoreData): void {
    const code = this.checkStore(d.bytes, d.value, 'storeData');
    this.u8(TvOp.additionalState);
    this.u8(TvState.storeData8 + code);
    this.uBytes(d.value, d.bytes);
  }

  /**
   * Memory requests (opcode 8: MLEN address, op in bits 3:0 and size in bits 7:4, data for a store,
   * sc or AMO), each followed by its response when there is one (opcode 9: size in bits 3:0, result
   * in bits 7:4, data unless a store or sc; chapter 3: the response "must immediately follow").
   */
  private memTransactions(list: readonly TvMemTransaction[]): void {
    if (list.length > MAX_MEM_TRANSACTIONS) throw this.fail(`${list.length} memory transactions; allowed: at most ${MAX_MEM_TRANSACTIONS}`);
    for (let k = 0; k < list.length; k++) {
      const { op, bytes, addr, data, response } = list[k]!;
      if (!(Number.isInteger(op) && op >= 0 && op <= 13)) throw this.fail(`mem[${k}].op is ${String(op)}; allowed: 0-13 (the memory request opcodes)`);
      if (tvMemRequestHasData(op) !== (data !== undefined)) throw this.fail(`mem[${k}]: op ${op} ${data === undefined ? 'needs' : 'has no'} request data`);
      // The field names are built only for a message (a string per transaction otherwise).
      const code = this.storeCode(bytes, data ?? 0n) ?? this.checkStore(bytes, data ?? 0n, `mem[${k}].data`);
      this.u8(TvOp.memoryRequest);
      if (addr < 0n || addr > this.mMax) this.mlen(addr, `mem[${k}].addr`);
      this.uBytes(addr, this.mBytes);
      this.u8(op | (code << 4));
      if (data !== undefined) this.uBytes(data, bytes);
      if (response === undefined) continue;
      const rd = response.data;
      if (tvMemResponseHasData(op) !== (rd !== undefined)) throw this.fail(`mem[${k}].response: op ${op} ${rd === undefined ? 'needs' : 'has no'} response data`);
      if (rd !== undefined && this.storeCode(bytes, rd) === undefined) this.checkStore(bytes, rd, `mem[${k}].response.data`);
      this.u8(TvOp.memoryResponse);
      this.u8(code | ((response.ok ? 0 : 1) << 4));
      if (rd !== undefined) this.uBytes(rd, bytes);
    }
  }

  /** Additional state 2, 3 or 9: an MLEN address. */
  private address(id: number, a: bigint, field: string): void {
    this.u8(TvOp.additionalState);
    this.u8(id);
    this.mlen(a, field);
  }

  /** Opcode 4 with a 16-bit register address and XLEN data. */
  private reg(address: number, value: bigint, field: string): void {
    this.u8(TvOp.fullRegister);
    this.view.setUint16(this.n, address, true);
    this.n += 2;
    this.xlen(value, field);
  }

  // ---- bytes ------------------------------------------------------------------------------

  private u8(b: number): void {
    this.buf[this.n++] = b;
  }

  private xlen(v: bigint, field: string): void {
    this.checkX(v, field);
    this.uBytes(v, this.xBytes);
  }

  private mlen(v: bigint, field: string): void {
    if (v < 0n || v > this.mMax) throw this.fail(`${field} 0x${v.toString(16)} does not fit MLEN = ${this.config.mlen}`);
    this.uBytes(v, this.mBytes);
  }

  /**
   * The low `bytes` (at most 8) bytes of v, least significant first; v is below 2^64 (checked by the
   * caller). All eight bytes are written and the stream advances by `bytes`: the next field
   * overwrites the rest, and the buffer keeps MAX_RECORD_BYTES spare. Per-byte BigInt shifts or a
   * Number() of a 32-bit value would each allocate, and an allocation per field dominates the encoder.
   */
  private uBytes(v: bigint, bytes: number): void {
    SPLIT64[0] = v;
    const lo = HALVES[LOW]!;
    const hi = HALVES[HIGH]!;
    const b = this.buf;
    const n = this.n;
    b[n] = lo;
    b[n + 1] = lo >>> 8;
    b[n + 2] = lo >>> 16;
    b[n + 3] = lo >>> 24;
    b[n + 4] = hi;
    b[n + 5] = hi >>> 8;
    b[n + 6] = hi >>> 16;
    b[n + 7] = hi >>> 24;
    this.n = n + bytes;
  }

  /**
   * A bigger buffer. With the record count known, room for all of them at the bytes per record so
   * far plus 5 %; else twice the size. A 1 M-record stream is 30 MB: doubling alone allocates twice
   * that, and V8 answers that much fresh ArrayBuffer memory with a full garbage collection over every
   * live record (the bench: a third of the time).
   */
  private grow(): void {
    const need = this.n + MAX_RECORD_BYTES;
    const projected = this.count > 0 && this.expected > this.count ? Math.ceil((this.n / this.count) * this.expected * 1.05) + MAX_RECORD_BYTES : 0;
    const bigger = new Uint8Array(projected > need ? projected : Math.max(need, this.buf.length * 2));
    bigger.set(this.buf.subarray(0, this.n));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }

  // ---- checks -----------------------------------------------------------------------------

  private checkX(v: bigint, field: string): void {
    if (v < 0n || v > this.xMax) throw this.fail(`${field} 0x${v.toString(16)} does not fit XLEN = ${this.config.xlen}`);
  }

  private checkPriv(p: number): TvPriv {
    if (p !== 0 && p !== 1 && p !== 3) throw this.fail(`priv is ${String(p)}; allowed: 0 (U), 1 (S), 3 (M)`);
    return p;
  }

  private checkCsr(csr: number): void {
    if (!(csr >= 0 && csr <= 0xfff && Number.isInteger(csr))) throw this.fail(`CSR address ${String(csr)} is not 0-0xfff`);
  }

  /** The size code of a store whose bytes and data are valid (checkStore's rules), else undefined. */
  private storeCode(bytes: number, value: bigint): 0 | 1 | 2 | 3 | undefined {
    if (bytes !== 1 && bytes !== 2 && bytes !== 4 && bytes !== 8) return undefined;
    if (bytes * 8 > this.config.xlen && bytes * 8 > this.config.flen) return undefined;
    const code = sizeCode(bytes);
    return value >= 0n && value < STORE_LIMIT[code] ? code : undefined;
  }

  /** The size code of a store; the data must fit the bytes, and the bytes max(XLEN, FLEN). */
  private checkStore(bytes: number, value: bigint, field: string): 0 | 1 | 2 | 3 {
    if (bytes !== 1 && bytes !== 2 && bytes !== 4 && bytes !== 8) throw this.fail(`${field}.bytes is ${String(bytes)}; allowed: 1, 2, 4, 8`);
    const widest = Math.max(this.config.xlen, this.config.flen);
    if (bytes * 8 > widest) throw this.fail(`${field} of ${bytes} bytes is wider than max(XLEN, FLEN) = ${widest} bits`);
    if (value < 0n || value >= STORE_LIMIT[sizeCode(bytes)]) throw this.fail(`${field} value 0x${value.toString(16)} does not fit ${bytes} byte(s)`);
    return sizeCode(bytes);
  }

  private fail(message: string): RvError {
    return new RvError('bad-value', `record ${this.count}: ${message}`, { path: `records/${this.count}` });
  }
}

/** Encodes a whole record list (a fresh encoder; `start` is the state the decoder holds). */
export function encodeTvRecords(records: Iterable<TvRecord>, config: TvtraceConfig, start: TvEncoderStart = {}): Uint8Array {
  const enc = new TvEncoder(config, start);
  if (Array.isArray(records)) {
    // An index loop: for-of over a million records leaves an iterator result object per record.
    const list = records as readonly TvRecord[];
    enc.expectRecords(list.length);
    for (let i = 0; i < list.length; i++) enc.encode(list[i]!);
  } else {
    for (const r of records) enc.encode(r);
  }
  return enc.finish();
}
