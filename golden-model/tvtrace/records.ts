/**
 * The records a hart hands its tandem-verification trace encoder: one record per retired
 * instruction, trap, interrupt, xRET or debug-module write, plus hart reset and the unobserved
 * counters. The fields are those of the seed's `TraceData` (Trace Protocol Specification 2018-11-20,
 * Appendix B: pc, instruction with size, GPR write, FPR write, up to four CSR writes, physical and
 * effective address, memory store data with size, fcsr) and the events the protocol carries (chapter
 * 2: hart reset, state initialization, privilege mode as additional state 1, mtime as additional
 * state 8); the kinds follow the trace operations of Bluespec's Flute core (`Trace_Op` in
 * bluespec/Flute src_Core/ISA/TV_Trace_Data.bsv). docs/tvtrace-model.md describes every field.
 *
 * Conventions (every producer and consumer relies on them):
 * - `nextPc` is the pc after the group, the value the protocol reports as additional state 10 (the
 *   seed's Table C.2 "new pc value"; Flute's `Trace_Data.pc` is the same next pc). Records carry no
 *   address of the instruction itself: the protocol transmits state, and the pc state before the
 *   group is the previous group's `nextPc`.
 * - Register values are the full new register contents as unsigned numbers: GPRs and CSRs XLEN
 *   bits, FPRs FLEN bits (a single-precision result in a FLEN = 64 register is NaN-boxed: use
 *   `nanBoxSingle`). Addresses (paddr, eaddr, debug-memory address) are MLEN bits.
 * - A write to x0 may appear in a record (a core reports rd as decoded); the encoder does not
 *   report it (the seed's Table C.2 `jr` has no register field; Flute's `encode_reg`).
 * - Optional fields are absent (`undefined`), never `null`; the protocol allows any field to be
 *   omitted (partial trace, chapter 3).
 *
 * This file is a contract shared by the encoder model, the RTL, the record formats and other
 * producers: extend it only by adding optional fields or new kinds.
 */

/** Privilege mode as the privileged architecture encodes it (PRIVLEN = 2): U = 0, S = 1, M = 3. */
export type TvPriv = 0 | 1 | 3;
export const TV_PRIV = { U: 0, S: 1, M: 3 } as const satisfies Record<string, TvPriv>;

/** An instruction as the protocol carries it: opcode 16 (16-bit) or 17 (32-bit), little endian. */
export interface TvInstr {
  /** Length in bits: 16 for a compressed instruction, 32 otherwise (ILEN = 32). */
  readonly size: 16 | 32;
  /** The instruction bits, below 2^size. */
  readonly bits: number;
}

/** A write to GPR or FPR number `reg` (0-31). */
export interface TvRegWrite {
  readonly reg: number;
  /** New value: XLEN bits for a GPR, FLEN bits for an FPR. */
  readonly value: bigint;
}

/** A write to the CSR at the 12-bit address `csr` (register address = `csr`, Debug spec numbering). */
export interface TvCsrWrite {
  readonly csr: number;
  /** New value, XLEN bits. */
  readonly value: bigint;
}

/** Memory store data, the instruction-centric view (additional state 4-7). */
export interface TvStoreData {
  /** Bytes stored: 1, 2, 4 or 8 (additional state 4, 5, 6, 7). */
  readonly bytes: 1 | 2 | 4 | 8;
  /** The data, below 2^(8 * bytes). */
  readonly value: bigint;
}

/**
 * A memory transaction of an instruction as the system bus saw it: a memory request (opcode 8) and,
 * when the core reports it, its response (opcode 9), which follows the request in the stream
 * (chapter 3: "If present, a memory response field must immediately follow the corresponding memory
 * request"). Implementation dependent: an AMO may be a load and a store, an unaligned access two
 * transactions (chapter 3); the instruction-centric view is `storeData` (additional state 4-7).
 */
export interface TvMemTransaction {
  /** The request opcode of chapter 2's "Memory Request Opcode" table, 0 (load) to 13 (instruction fetch): TvMemOp. */
  readonly op: number;
  /** Bytes of the access: 1, 2, 4 or 8 (request size 0-3), at most max(XLEN, FLEN) bits (TraceData's MemData). */
  readonly bytes: 1 | 2 | 4 | 8;
  /** The address, MLEN bits. */
  readonly addr: bigint;
  /** The data written: present exactly for a store, sc or AMO (ops 1, 3, 4-12), below 2^(8 * bytes). */
  readonly data?: bigint;
  /** The response, when reported. */
  readonly response?: TvMemResponse;
}

/** A memory response: the result, and the data read, present exactly when the request is not a store or sc. */
export interface TvMemResponse {
  /** Result 0 (success) or 1 (failure). */
  readonly ok: boolean;
  readonly data?: bigint;
}

/** Whether a memory request carries data: stores, sc and AMOs (chapter 2: "0 for load"). */
export function tvMemRequestHasData(op: number): boolean {
  return op !== 0 && op !== 2 && op !== 13;
}

/** Whether a memory response carries data: all but store and sc (chapter 2: "0 for store"; tvtrace.md erratum 4). */
export function tvMemResponseHasData(op: number): boolean {
  return op !== 1 && op !== 3;
}

/**
 * A retired instruction that did not trap and is not an xRET: the seed's `TraceData` (every
 * instruction kind of Flute: OTHER, I_RD, F_GRD, F_FRD, I_LOAD, F_LOAD, I_STORE, F_STORE, AMO, CSRRX).
 */
export interface TvInstructionRecord {
  readonly kind: 'instruction';
  /** The pc after this instruction (additional state 10, or opcode 3 when it is pc + length). */
  readonly nextPc: bigint;
  /** The instruction; absent only in a partial trace. */
  readonly instr?: TvInstr;
  /** The integer destination register and its new value (not reported for x0). */
  readonly gpr?: TvRegWrite;
  /** The floating-point destination register and its new value (FLEN bits). */
  readonly fpr?: TvRegWrite;
  /**
   * CSR writes, at most four (TraceData's `Vector#(4, Maybe#(...))`), in the order the producer
   * reports them; the encoder keeps that order (Flute: the CSR instruction's CSR, then mstatus when
   * FS changed; F instructions: fflags 0x001, then mstatus 0x300).
   */
  readonly csrs?: readonly TvCsrWrite[];
  /** Physical address of the memory access (additional state 2), MLEN bits. */
  readonly paddr?: bigint;
  /** Effective address of the memory access (additional state 3), MLEN bits. */
  readonly eaddr?: bigint;
  /** Data a store, AMO or SC writes to memory (additional state 4-7). */
  readonly storeData?: TvStoreData;
  /** The new value of fcsr (CSR 0x003), XLEN bits: TraceData's `fcsr` field. */
  readonly fcsr?: bigint;
  /** A new privilege mode set by this instruction without a trap (e.g. dret); additional state 1. */
  readonly priv?: TvPriv;
  /** Memory transactions on the bus, at most MAX_MEM_TRANSACTIONS, in bus order (opcodes 8 and 9). */
  readonly mem?: readonly TvMemTransaction[];
  /**
   * The physical address of the pc after the group (additional state 9, MLEN bits): the same pc as
   * `nextPc`, since additional state reports the state a group leaves.
   */
  readonly pcPaddr?: bigint;
}

/**
 * An instruction record with every field present, `undefined` where `fields` has none, in the
 * order of TvInstructionRecord. Readers and generators make their instruction records with it so
 * that all of them have one object shape: the encoder reads a dozen fields of every record, and
 * over records of many shapes (27 in the co-simulation's mix) those reads were a fifth of its time.
 */
export function instructionRecord(fields: Omit<TvInstructionRecord, 'kind'>): TvInstructionRecord {
  return {
    kind: 'instruction',
    nextPc: fields.nextPc,
    instr: fields.instr,
    gpr: fields.gpr,
    fpr: fields.fpr,
    csrs: fields.csrs,
    paddr: fields.paddr,
    eaddr: fields.eaddr,
    storeData: fields.storeData,
    fcsr: fields.fcsr,
    priv: fields.priv,
    mem: fields.mem,
    pcPaddr: fields.pcPaddr,
  };
}

/** The trap CSRs of the privilege the trap enters: xstatus, xcause, xepc, xtval (all XLEN bits). */
export interface TvTrapState {
  /** The trap handler's address: the pc after the group. */
  readonly nextPc: bigint;
  /** Privilege mode after the trap; selects the CSR set (M: mstatus..., S: sstatus..., U: ustatus...). */
  readonly priv: TvPriv;
  /** New xstatus as the core reports it (Flute reports the full mstatus value for every level). */
  readonly status: bigint;
  /** New xcause, interrupt bit (XLEN-1) included. */
  readonly cause: bigint;
  /** New xepc. */
  readonly epc: bigint;
  /** New xtval (written on every trap: the seed's change log, 2018-09-18). */
  readonly tval: bigint;
}

/** A synchronous exception (Flute TRACE_TRAP). */
export interface TvTrapRecord extends TvTrapState {
  readonly kind: 'trap';
  /**
   * The instruction that caused the exception. Absent when there is none to report: an instruction
   * access fault or instruction page fault (Flute's encoder drops the bogus instruction then).
   */
  readonly instr?: TvInstr;
}

/** An interrupt taken (Flute TRACE_INTR): no instruction (chapter 3: "omitted for interrupts"). */
export interface TvInterruptRecord extends TvTrapState {
  readonly kind: 'interrupt';
}

/** An MRET, SRET or URET (Flute TRACE_RET). */
export interface TvXretRecord {
  readonly kind: 'xret';
  /** The return address (xepc): the pc after the group. */
  readonly nextPc: bigint;
  readonly instr?: TvInstr;
  /** Privilege mode after the return. */
  readonly priv: TvPriv;
  /** New mstatus (Flute reports mstatus, CSR 0x300, for every xRET). */
  readonly mstatus: bigint;
}

/** The register files a debug-module register write can reach. */
export type TvRegFile = 'gpr' | 'fpr' | 'csr';

/**
 * A register written by the debug module (or a loader) outside program execution: a state
 * initialization group (opcode 11; Flute TRACE_GPR_WRITE, TRACE_FPR_WRITE, TRACE_CSR_WRITE).
 */
export interface TvDebugRegRecord {
  readonly kind: 'debug-reg';
  readonly file: TvRegFile;
  /** GPR/FPR number 0-31, or CSR address 0-0xfff. */
  readonly index: number;
  /** New value: XLEN bits (GPR, CSR) or FLEN bits (FPR). */
  readonly value: bigint;
}

/** Memory written by the debug module or a loader: a state initialization group with a store request (Flute TRACE_MEM_WRITE). */
export interface TvDebugMemRecord {
  readonly kind: 'debug-mem';
  /** Physical address, MLEN bits. */
  readonly paddr: bigint;
  readonly bytes: 1 | 2 | 4 | 8;
  /** The data written, below 2^(8 * bytes). */
  readonly value: bigint;
}

/** Hart reset (opcode 10; Flute TRACE_RESET). */
export interface TvResetRecord {
  readonly kind: 'reset';
}

/**
 * Unobserved state not tied to an instruction: the seed's encoder inputs `mtime_in`, `mcycle_in`,
 * `minstret_in` (Appendix B). 64-bit values; in RV32 mcycle and minstret travel as the register
 * pair (mcycle, mcycleh) and (minstret, minstreth).
 */
export interface TvUnobservedRecord {
  readonly kind: 'unobserved';
  readonly mtime?: bigint;
  readonly mcycle?: bigint;
  readonly minstret?: bigint;
}

export type TvRecord =
  | TvInstructionRecord
  | TvTrapRecord
  | TvInterruptRecord
  | TvXretRecord
  | TvDebugRegRecord
  | TvDebugMemRecord
  | TvResetRecord
  | TvUnobservedRecord;

export type TvRecordKind = TvRecord['kind'];
export const TV_RECORD_KINDS: readonly TvRecordKind[] = ['instruction', 'trap', 'interrupt', 'xret', 'debug-reg', 'debug-mem', 'reset', 'unobserved'];

export const MAX_U64 = (1n << 64n) - 1n;
/** At most this many CSR writes per instruction record (TraceData's vector of four). */
export const MAX_CSR_WRITES = 4;
/** At most this many memory transactions per instruction record (an AMO as a load and a store, an unaligned access as two). */
export const MAX_MEM_TRANSACTIONS = 2;

/**
 * A single-precision value (32 bits) as a FLEN-bit register holds it: NaN-boxed (upper FLEN - 32
 * bits all ones, unprivileged spec "NaN Boxing of Narrower Values") when FLEN = 64, unchanged when
 * FLEN = 32. The seed's Table C.3 shows `fadd.s` writing `f9 f4 fe 66 ff ff ff ff`.
 */
export function nanBoxSingle(single: number | bigint, flen: 32 | 64): bigint {
  const v = BigInt(single) & 0xffff_ffffn;
  return flen === 64 ? v | 0xffff_ffff_0000_0000n : v;
}

/** The Debug spec's register address of GPR xN (0x1000 + N), FPR fN (0x1020 + N) or a CSR. */
export function tvRegAddress(file: TvRegFile, index: number): number {
  return file === 'gpr' ? 0x1000 + index : file === 'fpr' ? 0x1020 + index : index;
}

function u64(v: bigint): boolean {
  return v >= 0n && v <= MAX_U64;
}

function small(v: number, max: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= max;
}

function checkInstr(i: TvInstr | undefined): string | undefined {
  if (i === undefined) return undefined;
  if (i.size !== 16 && i.size !== 32) return `instr.size is ${String(i.size)}; allowed: 16 or 32`;
  if (!small(i.bits, i.size === 16 ? 0xffff : 0xffff_ffff)) return `instr.bits ${String(i.bits)} does not fit a ${i.size}-bit instruction`;
  return undefined;
}

function checkPriv(p: number, field = 'priv'): string | undefined {
  return p === 0 || p === 1 || p === 3 ? undefined : `${field} is ${String(p)}; allowed: 0 (U), 1 (S), 3 (M)`;
}

function checkBytes(bytes: number, value: bigint, field: string): string | undefined {
  if (bytes !== 1 && bytes !== 2 && bytes !== 4 && bytes !== 8) return `${field}.bytes is ${String(bytes)}; allowed: 1, 2, 4, 8`;
  if (value < 0n || value >= 1n << BigInt(8 * bytes)) return `${field} value 0x${value.toString(16)} does not fit ${bytes} byte(s)`;
  return undefined;
}

function checkMem(list: readonly TvMemTransaction[]): string | undefined {
  if (list.length > MAX_MEM_TRANSACTIONS) return `${list.length} memory transactions; allowed: at most ${MAX_MEM_TRANSACTIONS}`;
  for (const [k, t] of list.entries()) {
    const at = `mem[${k}]`;
    if (!small(t.op, 13)) return `${at}.op is ${String(t.op)}; allowed: 0-13 (the memory request opcodes)`;
    if (!u64(t.addr)) return `${at}.addr ${String(t.addr)} is not an unsigned 64-bit value`;
    if (tvMemRequestHasData(t.op) !== (t.data !== undefined)) return `${at}: op ${t.op} ${tvMemRequestHasData(t.op) ? 'needs' : 'has no'} request data`;
    const problem = t.data !== undefined ? checkBytes(t.bytes, t.data, `${at}.data`) : checkBytes(t.bytes, 0n, at);
    if (problem) return problem;
    if (t.response !== undefined) {
      const d = t.response.data;
      if (tvMemResponseHasData(t.op) !== (d !== undefined)) return `${at}.response: op ${t.op} ${tvMemResponseHasData(t.op) ? 'needs' : 'has no'} response data`;
      if (d !== undefined) {
        const bad = checkBytes(t.bytes, d, `${at}.response.data`);
        if (bad) return bad;
      }
    }
  }
  return undefined;
}

function checkValues(fields: readonly [string, bigint | undefined][]): string | undefined {
  for (const [name, v] of fields) if (v !== undefined && !u64(v)) return `${name} ${String(v)} is not an unsigned 64-bit value`;
  return undefined;
}

/**
 * The first problem of a record that no configuration can encode (ranges fixed by the protocol and
 * the record type), or undefined. Limits that depend on XLEN, FLEN or MLEN are the encoder's checks.
 */
export function checkTvRecord(r: TvRecord): string | undefined {
  switch (r.kind) {
    case 'instruction': {
      const csrs = r.csrs ?? [];
      if (csrs.length > MAX_CSR_WRITES) return `${csrs.length} CSR writes; allowed: at most ${MAX_CSR_WRITES}`;
      for (const c of csrs) {
        if (!small(c.csr, 0xfff)) return `CSR address ${String(c.csr)} is not 0-0xfff`;
        if (!u64(c.value)) return `CSR 0x${c.csr.toString(16)} value ${String(c.value)} is not an unsigned 64-bit value`;
      }
      if (r.gpr !== undefined && !small(r.gpr.reg, 31)) return `gpr.reg is ${String(r.gpr.reg)}; allowed: 0-31`;
      if (r.fpr !== undefined && !small(r.fpr.reg, 31)) return `fpr.reg is ${String(r.fpr.reg)}; allowed: 0-31`;
      return (
        checkInstr(r.instr) ??
        (r.priv !== undefined ? checkPriv(r.priv) : undefined) ??
        (r.storeData !== undefined ? checkBytes(r.storeData.bytes, r.storeData.value, 'storeData') : undefined) ??
        (r.mem !== undefined ? checkMem(r.mem) : undefined) ??
        checkValues([
          ['pcPaddr', r.pcPaddr],
          ['nextPc', r.nextPc],
          ['gpr value', r.gpr?.value],
          ['fpr value', r.fpr?.value],
          ['paddr', r.paddr],
          ['eaddr', r.eaddr],
          ['fcsr', r.fcsr],
        ])
      );
    }
    case 'trap':
    case 'interrupt':
      return (
        (r.kind === 'trap' ? checkInstr(r.instr) : undefined) ??
        checkPriv(r.priv) ??
        checkValues([
          ['nextPc', r.nextPc],
          ['status', r.status],
          ['cause', r.cause],
          ['epc', r.epc],
          ['tval', r.tval],
        ])
      );
    case 'xret':
      return checkInstr(r.instr) ?? checkPriv(r.priv) ?? checkValues([['nextPc', r.nextPc], ['mstatus', r.mstatus]]);
    case 'debug-reg':
      if (r.file !== 'gpr' && r.file !== 'fpr' && r.file !== 'csr') return `file is ${String(r.file)}; allowed: gpr, fpr, csr`;
      if (!small(r.index, r.file === 'csr' ? 0xfff : 31)) return `${r.file} index ${String(r.index)} is not ${r.file === 'csr' ? '0-0xfff' : '0-31'}`;
      return checkValues([['value', r.value]]);
    case 'debug-mem':
      return checkValues([['paddr', r.paddr]]) ?? checkBytes(r.bytes, r.value, 'data');
    case 'reset':
      return undefined;
    case 'unobserved':
      return checkValues([
        ['mtime', r.mtime],
        ['mcycle', r.mcycle],
        ['minstret', r.minstret],
      ]);
  }
}
