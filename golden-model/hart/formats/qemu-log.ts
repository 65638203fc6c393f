/**
 * Import of QEMU 7.2's execution log of a bare-metal RISC-V program (qemu-system-riscv32/64,
 * `-singlestep -d exec,int,nochain`, usually with `-icount shift=0`), with the program's image and
 * XLEN (from its ELF), into a single-retirement stream. docs/trace-elf.md describes the log and
 * every decision below; the row -> record rules are those of the spike-csv import (../steps.ts).
 *
 * The lines that matter (everything else is counted and ignored):
 *   Trace 0: 0x7f...00 [0000000000000000/0000000080000010/00209003/ff020201] [symbol]
 *       a translation block is entered: cs_base / pc / TB flags / cflags. With -singlestep a block
 *       is one instruction (cflags bits 8:0 = 1, checked). The line is written *before* the block
 *       runs, so it only becomes an executed instruction when no cancellation follows:
 *   Stopped execution of TB chain before 0x7f...00 [0000000080000086]
 *       the block just entered did not start (an exit request: interrupt, icount budget);
 *   cpu_io_recompile: rewound execution of TB to 0000000080000012
 *       (icount) the block did an I/O access not at its end: it is undone and logged again;
 *   riscv_cpu_do_interrupt: hart:0, async:0, cause:0000000000000008, epc:0x000000008000008c, tval:0x0000000000000000, desc=user_ecall
 *       a trap. async 0: an exception raised by the instruction at epc (the block just entered:
 *       ecall/ebreak retire and trap, anything else did not retire), or an instruction fetch fault
 *       at epc (nothing entered there). async 1: an interrupt taken before the instruction at epc.
 *
 * Steps before the first instruction at the ELF entry (QEMU's reset ROM at 0x1000) are skipped.
 *
 * Privilege: TB flags bits 1:0 (MEM_IDX, which QEMU 7.2 sets to the privilege of the block;
 * mstatus.MPRV does not change it there) give the privilege of every executed instruction, so
 * retired instructions and the exceptions they raise are exact. A trap with no executed
 * instruction (interrupt, fetch fault) happens at the privilege the hart is in between two
 * instructions; that is the previous instruction's unless it was an xRET or the trap came
 * right after another trap. Those cases are derived by following mstatus.MPP/SPP: a trap into M
 * saves the privilege in MPP, mret restores it, a CSR write to mstatus/sstatus makes it unknown;
 * an unknown value becomes known when an instruction runs at it (the trap record is then
 * completed). Traps go to M unless a CSR instruction wrote medeleg or mideleg; then the handler's
 * first instruction tells where they went. Every derived privilege is checked against the TB
 * flags where both are known. One assumption, counted in the stats, covers what the log cannot
 * show: a trap handler that rewrote mstatus (saving and restoring it, as trap vectors do) lost
 * the privilege it would restore; when it then returns (xRET) to the trap's EPC, the privilege
 * of that instruction is taken as the one the trap interrupted. A trap whose privilege is still
 * unknown at the end is an error naming it.
 */
import { RvError } from '../../common/errors.ts';
import type { ProgramImage } from '../image.ts';
import { Itype, Priv, type RetirementRecord } from '../records.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { classify, type InstructionInfo } from '../isa/classify.ts';
import { FETCH_FAULTS, type Step, StepConverter } from '../steps.ts';
import { scanDec, scanHex, stripInterruptBit } from './common.ts';

export interface QemuLogOptions {
  /** The program as loaded (ELF PT_LOAD segments): instruction encodings come from here. */
  image: ProgramImage;
  xlen: Xlen;
  /** ELF entry point: steps before the first instruction there are QEMU's boot code. */
  entry: bigint;
  /** The log's name in error messages. */
  fileName: string;
  /** Stop after this many retired instructions (the stream is truncated there). */
  maxInstructions?: number;
}

export interface QemuLogStats {
  /** Lines read. */
  lines: number;
  /** Retired instructions (in the stream). */
  instructions: number;
  /** Exception records (itype 1), ecall/ebreak included. */
  exceptions: number;
  /** Interrupt records (itype 2). */
  interrupts: number;
  /** Instructions QEMU executed before the ELF entry (its reset ROM). */
  bootInstructions: number;
  /** Trace lines of blocks that did not run (Stopped / rewound). */
  cancelled: number;
  /** Lines that are none of the four kinds above (ignored). */
  otherLines: number;
  /** Trap records whose privilege is that of the instruction their handler returned to (the one assumption). */
  assumedPrivileges: number;
  /** The conversion stopped at maxInstructions. */
  truncated: boolean;
}

export interface QemuLogResult {
  stream: RetirementStream;
  stats: QemuLogStats;
}

// --- privilege derivation ----------------------------------------------------------------------

/**
 * A privilege level at some point of the execution, possibly not known yet. Trap records made at
 * an unknown privilege wait on it and are completed when it becomes known.
 */
class PrivVar {
  waiting: RetirementRecord[] = [];
  /** The first trap record waiting (for the error message). */
  firstWaitingLine = 0;
  /** The value is the assumed one (see the file comment), not derived. */
  assumed = false;
  constructor(
    public value: number | undefined,
    /** Why the value is not known, or where it came from (for error messages). */
    public why: string,
  ) {}
}
const PRIV_NAMES = ['U', 'S', '2', 'M'];
const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

/** What the converter needs of an instruction, found once per address. */
interface Insn {
  info: InstructionInfo;
  /** The CSR the instruction writes, if it is a CSR instruction that writes. */
  csrWrite: number | undefined;
  /** The sequential successor of its address (wrapped to XLEN). */
  successor: bigint;
}

interface QemuStep extends Step {
  privVar: PrivVar;
}

/** What is known of an address QEMU entered: its pc as a bigint, and its instruction once executed there. */
interface PcEntry {
  pc: bigint;
  insn: Insn | undefined;
}

/** An entered block (one instruction) whose execution is not confirmed yet. */
interface Entered {
  line: number;
  pc: bigint;
  /** The entry of the pc in the per-address cache. */
  known: PcEntry;
  priv: number;
}

/** Hex values below this are exact as numbers (scanHex's 13 digits after leading zeros). */
const EXACT = 2 ** 52;
const PC_SLOTS = 4096;

const CSR_SSTATUS = 0x100;
const CSR_MSTATUS = 0x300;
const CSR_MEDELEG = 0x302;
const CSR_MIDELEG = 0x303;
const MAX_CAUSE = 0xffff_ffff;

/** The CSR a 32-bit Zicsr instruction writes (csrrw/csrrwi always; the others when rs1/uimm != 0). */
function csrWritten(encoding: number): number | undefined {
  if ((encoding & 0x7f) !== 0x73) return undefined;
  const funct3 = (encoding >>> 12) & 7;
  if (funct3 === 0 || funct3 === 4) return undefined;
  const rs1 = (encoding >>> 15) & 31;
  return funct3 === 1 || funct3 === 5 || rs1 !== 0 ? encoding >>> 20 : undefined;
}

const TRACE_MALFORMED = 'malformed Trace line, expected "Trace <cpu>: <host address> [<cs_base>/<pc>/<flags>/<cflags>]"';
const INT_RE = /^riscv_cpu_do_interrupt: hart:(\d+), async:(\d+), cause:([0-9a-f]+), epc:0x([0-9a-f]+), tval:0x([0-9a-f]+), desc=(\S*)/;
const STOPPED_RE = /^Stopped execution of TB chain before \S+ \[([0-9a-f]+)\]/;
const REWOUND_RE = /^cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)/;

/**
 * A Trace line in its common form: CPU 0, a 0x host address, four fields of lowercase hex digits,
 * tested where a line starts (sticky: `lastIndex` is the line's start; no character it matches is
 * a newline, so a match never runs into the next line). Every line it matches is read by the
 * general scan without an error, to the same values.
 */
const TRACE_COMMON = /Trace 0: 0x[0-9a-f]+ \[[0-9a-f]+\/[0-9a-f]+\/[0-9a-f]+\/[0-9a-f]+\]/y;

/**
 * Lowercase hex digits text[start, end) (known to be digits) as a number, exact below 2^52 (at or
 * above it only compared with 2^52, as the value is then read from the text).
 */
function hexDigits(text: string, start: number, end: number): number {
  let v = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    v = v * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  return v;
}

/** Hex digits text[start, end) as a number (flags fields are at most 8 digits; longer ones as parseInt reads them). */
function hexField(text: string, start: number, end: number): number {
  const v = scanHex(text, start, end);
  return v >= 0 ? v : Number.parseInt(text.slice(start, end), 16);
}

const newStep = (): QemuStep => ({ addr: 0n, info: undefined, priv: 0, trap: undefined, cause: 0, tval: 0n, line: 0, privVar: new PrivVar(undefined, ''), successor: undefined });

/**
 * Push-style converter: `line()` for each line of the log in order (without the newline), or
 * `feed()` for each piece of its text, then `finish()`. Both return false once maxInstructions is
 * reached (stop reading then).
 */
export class QemuLogConverter {
  private readonly opts: QemuLogOptions;
  private readonly xlen: Xlen;
  private readonly steps: StepConverter<QemuStep>;
  /** By the pc as a number (below 2^52) or as written: loops enter the same addresses again and again. */
  private readonly pcs = new Map<number | string, PcEntry>();
  private lineNo = 0;
  /** Where the fields of the Trace line being read start (each after the previous one's separator). */
  private readonly fieldAt = new Int32Array(5);
  /** The values of the Trace line's four hex fields (exact below 2^52). */
  private readonly fieldValues = new Float64Array(4);
  /** The direct-mapped cache in front of `pcs`: a pc (as a number) and its entry per slot. */
  private readonly slotPcs = new Float64Array(PC_SLOTS).fill(-1);
  private readonly slotEntries: (PcEntry | undefined)[] = new Array<PcEntry | undefined>(PC_SLOTS).fill(undefined);
  private readonly stepObjects: QemuStep[] = [newStep(), newStep()];
  private turn = 0;
  private readonly enteredBlock: Entered = { line: 0, pc: 0n, known: { pc: 0n, insn: undefined }, priv: 0 };
  private entered: Entered | undefined;
  private started = false;
  private done = false;
  private readonly stats: QemuLogStats = {
    lines: 0,
    instructions: 0,
    exceptions: 0,
    interrupts: 0,
    bootInstructions: 0,
    cancelled: 0,
    otherLines: 0,
    assumedPrivileges: 0,
    truncated: false,
  };

  // Privilege state (see the file comment).
  private privNow: PrivVar = new PrivVar(undefined, 'the privilege before the first instruction');
  private mpp: PrivVar = new PrivVar(undefined, 'the reset value of mstatus.MPP');
  private spp: PrivVar = new PrivVar(undefined, 'the reset value of mstatus.SPP');
  /** A CSR instruction wrote medeleg or mideleg: traps may go to S. */
  private delegation = false;
  /** With delegation: the privilege a trap came from, until its handler's first instruction shows where it went. */
  private trapFrom: PrivVar | undefined;
  private readonly unresolved = new Set<PrivVar>();
  /** Unknown privileges of trap records, by the record's address (the EPC a handler may return to). */
  private readonly resume = new Map<bigint, PrivVar[]>();
  /** The previous retired instruction was an xRET. */
  private afterXret = false;

  constructor(opts: QemuLogOptions) {
    this.opts = opts;
    this.xlen = opts.xlen;
    this.steps = new StepConverter<QemuStep>(opts.xlen, {
      checkFlow: true,
      fail: (message, line) => this.fail(message, line),
      onRecord: (record, step) => this.onRecord(record, step),
    });
  }

  private fail(message: string, line = this.lineNo): never {
    throw new RvError('bad-value', message, { file: this.opts.fileName, line });
  }

  /** Parses hex digits from the log as a value of at most XLEN bits. */
  private addr(text: string, what: string): bigint {
    const v = text.length <= 13 ? BigInt(Number.parseInt(text, 16)) : BigInt('0x' + text);
    if (v >> BigInt(this.xlen) !== 0n) this.fail(`${what} ${hex(v)} does not fit in ${this.xlen} bits (the ELF is ${this.xlen}-bit)`);
    return v;
  }

  /** One line of the log (without its newline). */
  line(text: string): boolean {
    return this.lineAt(text, 0, text.length);
  }

  /**
   * A piece of the log's text that ends at the end of a line (or of the log): its lines, read in
   * place (no string per line but the rare ones that are not a common Trace line). A '\r' before
   * a newline is not part of the line.
   */
  feed(piece: string): boolean {
    const length = piece.length;
    for (let start = 0; start < length; ) {
      const newline = piece.indexOf('\n', start);
      const next = newline < 0 ? length : newline + 1;
      let end = newline < 0 ? length : newline;
      if (end > start && piece.charCodeAt(end - 1) === 13 /* \r */) end--;
      if (!this.lineAt(piece, start, end)) return false;
      start = next;
    }
    return !this.done;
  }

  /** The line text[start, end). */
  private lineAt(text: string, start: number, end: number): boolean {
    if (this.done) return false;
    this.lineNo++;
    this.stats.lines++;
    const c = start < end ? text.charCodeAt(start) : 0;
    if (c === 84 /* T */) {
      TRACE_COMMON.lastIndex = start;
      if (TRACE_COMMON.test(text)) {
        this.traceCommon(text, start);
        return !this.done;
      }
    }
    const line = start === 0 && end === text.length ? text : text.slice(start, end);
    if (c === 84 /* T */ && line.startsWith('Trace ')) this.trace(line);
    else if (c === 114 /* r */ && line.startsWith('riscv_cpu_do_interrupt:')) this.trap(line);
    else if (c === 83 /* S */ && line.startsWith('Stopped execution')) this.cancel(line, STOPPED_RE, 'Stopped execution line');
    else if (c === 99 /* c */ && line.startsWith('cpu_io_recompile:')) this.cancel(line, REWOUND_RE, 'cpu_io_recompile line');
    else this.stats.otherLines++;
    return !this.done;
  }

  /**
   * Reads "Trace <cpu>: <host address> [<cs_base>/<pc>/<flags>/<cflags>]" (one line per executed
   * instruction). The common form (CPU 0, a 0x host address, four fields of lowercase hex digits)
   * is recognised by one regular expression test, which checks every character in native code, and
   * its three values are then read in place; any other line is scanned character by character,
   * which gives the same values or the error. No strings but the pc's on its first sight.
   *
   * This one is the common form (`lineAt` tested TRACE_COMMON at `start`): it finds the fields and
   * reads their values in place.
   */
  private traceCommon(text: string, start: number): void {
    const values = this.fieldValues;
    const at = this.fieldAt;
    // at[k] is where field k starts, at[k + 1] - 1 where it ends (its '/' or ']').
    at[1] = text.indexOf('/', text.indexOf('[', start + 11)) + 1;
    at[2] = text.indexOf('/', at[1]!) + 1;
    at[3] = text.indexOf('/', at[2]!) + 1;
    at[4] = text.indexOf(']', at[3]!) + 1;
    for (let k = 1; k < 4; k++) values[k] = hexDigits(text, at[k]!, at[k + 1]! - 1);
    this.entering(text);
  }

  /** Any other Trace line: read by the general scan (the same values or its error), then as `entering` reads it. */
  private trace(text: string): void {
    this.traceFields(text);
    this.entering(text);
  }

  /** The block a Trace line enters, from the fields `traceCommon` or `traceFields` found. */
  private entering(text: string): void {
    const values = this.fieldValues;
    const at = this.fieldAt;
    // Loops execute the same addresses again and again: parse each pc once. A small direct-mapped
    // cache of the last pcs seen in front of the map spares most lookups by a number key.
    let known: PcEntry | undefined;
    const pcNumber = values[1]!;
    const slot = (pcNumber >>> 1) & (PC_SLOTS - 1);
    if (pcNumber < EXACT && this.slotPcs[slot] === pcNumber) known = this.slotEntries[slot]!;
    else {
      const pcKey = pcNumber < EXACT ? pcNumber : text.slice(at[1]!, at[2]! - 1);
      known = this.pcs.get(pcKey);
      if (known === undefined) {
        known = { pc: this.addr(text.slice(at[1]!, at[2]! - 1), 'pc'), insn: undefined };
        this.pcs.set(pcKey, known);
      }
      if (pcNumber < EXACT) {
        this.slotPcs[slot] = pcNumber;
        this.slotEntries[slot] = known;
      }
    }
    const pc = known.pc;
    const flags = values[2]! < EXACT ? values[2]! : hexField(text, at[2]!, at[3]! - 1);
    const cflags = values[3]! < EXACT ? values[3]! : hexField(text, at[3]!, at[4]! - 1);
    const count = cflags & 0x1ff;
    if (count !== 1) {
      this.fail(
        `the translation block at ${hex(pc)} may hold ${count === 0 ? 'any number of' : count} instructions (cflags ${hex(cflags)}): ` +
          'the log then shows only the first instruction of each block; run QEMU with -singlestep',
      );
    }
    const xl = (flags >>> 20) & 3;
    const wantXl = this.xlen === 32 ? 1 : 2;
    if (xl !== wantXl) {
      this.fail(
        `TB flags ${hex(flags)} at ${hex(pc)}: XL (bits 21:20) is ${xl}, expected ${wantXl} for RV${this.xlen}: ` +
          'either the log is not from QEMU 7.2 (whose TB flags layout this import reads), the ELF class does not match the QEMU binary, or the program changed XLEN (not supported)',
      );
    }
    const memIdx = flags & 7;
    if (memIdx > 3) this.fail(`TB flags ${hex(flags)} at ${hex(pc)}: virtualization mode (H extension) is not supported`);
    if (memIdx === 2) this.fail(`TB flags ${hex(flags)} at ${hex(pc)}: privilege 2 is reserved`);
    // The block entered before this one ran (nothing cancelled it).
    if (this.entered !== undefined) this.executed(this.entered, undefined);
    // One object for the entered block, filled again for each (nothing keeps it past the next line).
    const e = this.enteredBlock;
    e.line = this.lineNo;
    e.pc = pc;
    e.known = known;
    e.priv = memIdx;
    this.entered = e;
  }

  /**
   * The general reading of a Trace line, character by character: fills fieldAt and fieldValues (as
   * the fast path of `trace` does) or throws the line's error.
   */
  private traceFields(text: string): void {
    const end = text.length;
    let i = 6; // after "Trace "
    const cpuStart = i;
    while (i < end && text.charCodeAt(i) !== 58 /* : */) i++;
    const cpuEnd = i;
    if (scanDec(text, cpuStart, cpuEnd) < 0 || text.charCodeAt(i + 1) !== 32) this.fail(TRACE_MALFORMED);
    i += 2;
    const host = i;
    while (i < end && text.charCodeAt(i) > 32) i++;
    if (i === host || text.charCodeAt(i) !== 32 || text.charCodeAt(i + 1) !== 91 /* [ */) this.fail(TRACE_MALFORMED);
    i += 2;
    // The four hex fields, each ended by '/' and the last by ']', read as they are checked (a value
    // is exact below 2^52: at most 13 digits after leading zeros, as scanHex reads them).
    const at = this.fieldAt;
    const values = this.fieldValues;
    at[0] = i;
    for (let k = 0; k < 4; k++) {
      const from = i;
      const stop = k < 3 ? 47 /* / */ : 93; /* ] */
      let c = 0;
      let v = 0;
      while (i < end && (c = text.charCodeAt(i)) !== stop) {
        if (c >= 48 && c <= 57) v = v * 16 + (c - 48);
        else if (c >= 97 && c <= 102) v = v * 16 + (c - 87);
        else this.fail(TRACE_MALFORMED);
        i++;
      }
      if (i === from || i >= end) this.fail(TRACE_MALFORMED);
      values[k] = v;
      i++;
      at[k + 1] = i;
    }
    if (cpuEnd !== cpuStart + 1 || text.charCodeAt(cpuStart) !== 48) {
      this.fail(`Trace line of CPU ${text.slice(cpuStart, cpuEnd)}: only single-hart programs (CPU 0) are supported`);
    }
  }

  private cancel(text: string, re: RegExp, what: string): void {
    const m = re.exec(text);
    if (!m) this.fail(`malformed ${what}`);
    const pc = this.addr(m[1]!, 'pc');
    if (this.entered === undefined || this.entered.pc !== pc) {
      this.fail(`${what} for ${hex(pc)}, but the last block entered ${this.entered ? `is at ${hex(this.entered.pc)}` : 'was already accounted for'}`);
    }
    this.entered = undefined;
    this.stats.cancelled++;
  }

  private trap(text: string): void {
    const m = INT_RE.exec(text);
    if (!m) {
      this.fail('malformed riscv_cpu_do_interrupt line, expected "riscv_cpu_do_interrupt: hart:<n>, async:<0|1>, cause:<hex>, epc:0x<hex>, tval:0x<hex>, desc=<name>"');
    }
    if (m[1] !== '0') this.fail(`trap on hart ${m[1]}: only single-hart programs (hart 0) are supported`);
    if (m[2] !== '0' && m[2] !== '1') this.fail(`async:${m[2]}, expected 0 or 1`);
    const async = m[2] === '1';
    const causeValue = stripInterruptBit(BigInt('0x' + m[3]!), this.xlen);
    if (causeValue > BigInt(MAX_CAUSE)) this.fail(`cause ${hex(causeValue)} does not fit in 32 bits`);
    const cause = Number(causeValue);
    const epc = this.addr(m[4]!, 'epc');
    const tval = this.addr(m[5]!, 'tval');
    const entered = this.entered;
    this.entered = undefined;
    if (!async && entered !== undefined && entered.pc === epc) {
      // The instruction just entered raised the exception.
      this.executed(entered, { cause, tval });
      return;
    }
    // Anything entered before ran to completion; the trap happened before the instruction at epc.
    if (entered !== undefined) this.executed(entered, undefined);
    if (!async && !FETCH_FAULTS.has(cause)) {
      this.fail(
        `exception cause ${cause} (${m[6]}) at ${hex(epc)}, but QEMU did not log entering the instruction there` +
          (entered ? ` (the last one entered is at ${hex(entered.pc)})` : '') +
          '; only instruction fetch faults (causes 1, 12, 20) happen before an instruction is entered',
      );
    }
    if (!this.started) return; // a trap in the boot code
    const privVar = this.privNow;
    this.push(epc, undefined, 0, async ? 'interrupt' : 'exception', cause, tval, this.lineNo, privVar, undefined);
    this.enterTrap(privVar);
  }

  /** An entered instruction ran: it retired, or it raised `exception`. */
  private executed(e: Entered, exception: { cause: number; tval: bigint } | undefined): void {
    if (!this.started) {
      if (e.pc !== this.opts.entry) {
        this.stats.bootInstructions++;
        return;
      }
      this.started = true;
    }
    const insn = this.instruction(e);
    // The privilege shown by the TB flags is what the derivation said, or completes it.
    this.resolve(this.privNow, e);
    if (this.trapFrom !== undefined) {
      // The first instruction of a handler (delegation possible): now we know where the trap went.
      if (e.priv === Priv.M) this.mpp = this.trapFrom;
      else if (e.priv === Priv.S) this.spp = this.trapFrom;
      this.trapFrom = undefined;
    }
    if (this.afterXret && this.resume.size > 0) this.resumed(e);
    this.afterXret = false;
    const privVar = this.privNow;
    if (exception !== undefined) {
      if (insn.info.mnemonic === 'ecall' && exception.cause !== 8 + e.priv) {
        this.fail(`ecall at ${hex(e.pc)} raised cause ${exception.cause}, but the TB flags say it ran in ${PRIV_NAMES[e.priv]}-mode (cause ${8 + e.priv})`);
      }
      this.push(e.pc, insn.info, e.priv, 'exception', exception.cause, exception.tval, e.line, privVar, undefined);
      this.enterTrap(privVar);
      return;
    }
    this.push(e.pc, insn.info, e.priv, undefined, 0, 0n, e.line, privVar, insn.successor);
    // What the retired instruction does to the privilege state.
    const csr = insn.csrWrite;
    if (csr === CSR_MSTATUS) {
      this.mpp = new PrivVar(undefined, `mstatus.MPP as written by the CSR instruction at ${hex(e.pc)} (line ${e.line})`);
      this.spp = new PrivVar(undefined, `mstatus.SPP as written by the CSR instruction at ${hex(e.pc)} (line ${e.line})`);
    } else if (csr === CSR_SSTATUS) {
      this.spp = new PrivVar(undefined, `sstatus.SPP as written by the CSR instruction at ${hex(e.pc)} (line ${e.line})`);
    } else if (csr === CSR_MEDELEG || csr === CSR_MIDELEG) {
      this.delegation = true;
    }
    if (insn.info.control === 'trap-return') {
      const m = insn.info.mnemonic;
      const from = m === 'mret' ? this.mpp : m === 'sret' ? this.spp : new PrivVar(undefined, `the privilege after the ${m} at ${hex(e.pc)}`);
      if (from.value === undefined) from.why = `${from.why}, restored by the ${m} at ${hex(e.pc)} (line ${e.line})`;
      this.privNow = from;
      this.afterXret = true;
      if (m === 'mret') this.mpp = new PrivVar(undefined, `mstatus.MPP after the mret at ${hex(e.pc)} (line ${e.line})`);
      if (m === 'sret') this.spp = new PrivVar(undefined, `sstatus.SPP after the sret at ${hex(e.pc)} (line ${e.line})`);
    }
  }

  /** The first instruction after an xRET: trap records at its address with an unknown privilege take its privilege. */
  private resumed(e: Entered): void {
    const vars = this.resume.get(e.pc);
    if (vars === undefined) return;
    this.resume.delete(e.pc);
    for (const v of vars) {
      if (v.value !== undefined) continue;
      this.stats.assumedPrivileges += v.waiting.length;
      this.resolve(v, e);
      v.assumed = true;
    }
  }

  /** A trap is taken at privilege `from`: where it goes and what it saves. */
  private enterTrap(from: PrivVar): void {
    this.afterXret = false;
    if (!this.delegation) {
      // medeleg and mideleg reset to 0 and were never written: every trap goes to M.
      this.mpp = from;
      this.privNow = new PrivVar(Priv.M, `set by the trap on line ${this.lineNo}, which goes to M-mode as no CSR instruction wrote medeleg or mideleg`);
      return;
    }
    if (this.trapFrom !== undefined) {
      // A second trap before the first one's handler ran: MPP/SPP hold one of two unknowns.
      this.mpp = new PrivVar(undefined, `mstatus.MPP after two traps in a row (line ${this.lineNo})`);
      this.spp = new PrivVar(undefined, `sstatus.SPP after two traps in a row (line ${this.lineNo})`);
    }
    this.trapFrom = from;
    this.privNow = new PrivVar(undefined, `the privilege of the handler of the trap on line ${this.lineNo} (medeleg/mideleg were written, so it may be S-mode)`);
  }

  /** The privilege `v` is the one the TB flags show for the executed instruction `e`. */
  private resolve(v: PrivVar, e: Entered): void {
    const priv = e.priv;
    if (v.value === undefined) {
      v.value = priv;
      v.why = `set by the instruction at ${hex(e.pc)} on line ${e.line}`;
      for (const r of v.waiting) r.priv = priv;
      v.waiting = [];
      this.unresolved.delete(v);
      return;
    }
    if (v.value !== priv) {
      if (v.assumed) {
        this.fail(
          `the TB flags say the instruction at ${hex(e.pc)} ran in ${PRIV_NAMES[priv]}-mode, but an earlier trap whose privilege ` +
            `was taken from the instruction its handler returned to (${PRIV_NAMES[v.value]}-mode) must have happened at this privilege`,
          e.line,
        );
      }
      this.fail(`the TB flags say the instruction at ${hex(e.pc)} ran in ${PRIV_NAMES[priv]}-mode, but the privilege derived from the log is ${PRIV_NAMES[v.value]}-mode, ${v.why}`, e.line);
    }
  }

  /**
   * Gives the step converter a step. Two step objects are used in turn, not one per line: the
   * converter keeps only the step it was last given (until the next one makes it a record).
   */
  private push(
    addr: bigint,
    info: InstructionInfo | undefined,
    priv: number,
    trap: QemuStep['trap'],
    cause: number,
    tval: bigint,
    line: number,
    privVar: PrivVar,
    successor: bigint | undefined,
  ): void {
    if (this.done) return;
    const step = this.stepObjects[this.turn]!;
    this.turn ^= 1;
    step.addr = addr;
    step.info = info;
    step.priv = priv;
    step.trap = trap;
    step.cause = cause;
    step.tval = tval;
    step.line = line;
    step.privVar = privVar;
    step.successor = successor;
    this.steps.push(step);
    const max = this.opts.maxInstructions;
    if (max !== undefined && this.steps.retired >= max) {
      this.done = true;
      this.stats.truncated = true;
    }
  }

  private onRecord(record: RetirementRecord, step: QemuStep): void {
    const v = step.privVar;
    if (v.value !== undefined) record.priv = v.value;
    else {
      if (v.waiting.length === 0) v.firstWaitingLine = step.line;
      v.waiting.push(record);
      this.unresolved.add(v);
      const list = this.resume.get(record.iaddr);
      if (list === undefined) this.resume.set(record.iaddr, [v]);
      else if (!list.includes(v)) list.push(v);
    }
    if (record.itype === Itype.exception) this.stats.exceptions++;
    else if (record.itype === Itype.interrupt) this.stats.interrupts++;
  }

  /** The instruction at the entered pc, from the image (classified once per address). */
  private instruction(e: Entered): Insn {
    const cached = e.known.insn;
    if (cached !== undefined) return cached;
    const fetched = this.opts.image.fetch(e.pc);
    if (fetched === undefined) {
      this.fail(`QEMU executed ${hex(e.pc)}, which the ELF's loadable segments do not hold (code outside the program, or copied at run time?)`, e.line);
    }
    let info: InstructionInfo;
    try {
      info = classify(fetched.encoding, e.pc, this.xlen);
    } catch (err) {
      return this.fail(`instruction at ${hex(e.pc)}: ${(err as Error).message}`, e.line);
    }
    const insn: Insn = {
      info,
      csrWrite: fetched.length === 4 ? csrWritten(fetched.encoding) : undefined,
      successor: BigInt.asUintN(this.xlen, e.pc + BigInt(info.length)),
    };
    e.known.insn = insn;
    return insn;
  }

  finish(): QemuLogResult {
    if (!this.done && this.entered !== undefined) {
      // The last block entered: QEMU ended during or after it (the exit store ends the run).
      this.executed(this.entered, undefined);
      this.entered = undefined;
    }
    if (!this.started) {
      this.fail(`the log never reaches the ELF entry ${hex(this.opts.entry)} (${this.stats.bootInstructions} instructions before it)`, this.lineNo);
    }
    const records = this.done ? this.steps.discardPending() : this.steps.finish();
    for (const v of this.unresolved) {
      if (v.waiting.length === 0) continue;
      const r = v.waiting[0]!;
      this.fail(
        `the privilege at the ${r.itype === Itype.interrupt ? 'interrupt' : 'trap'} before ${hex(r.iaddr)} cannot be derived from the log: ` +
          `it is ${v.why}, no instruction ran at that privilege before the value was overwritten, and no trap return came back to ${hex(r.iaddr)}`,
        v.firstWaitingLine,
      );
    }
    this.stats.instructions = this.steps.retired;
    return { stream: { xlen: this.xlen, retiresPerCycle: 1, image: this.opts.image, records }, stats: { ...this.stats } };
  }
}

/**
 * Converts a whole log given as lines: an array, a generator, or an async line reader, whose
 * items are lines or batches of lines (arrays: a reader that yields a chunk's lines at once
 * saves an await per line).
 */
export async function convertQemuLog(
  lines: Iterable<string | readonly string[]> | AsyncIterable<string | readonly string[]>,
  opts: QemuLogOptions,
): Promise<QemuLogResult> {
  const c = new QemuLogConverter(opts);
  outer: for await (const item of lines) {
    if (typeof item === 'string') {
      if (!c.line(item)) break;
      continue;
    }
    for (const line of item) if (!c.line(line)) break outer;
  }
  return c.finish();
}

/** Converts a whole log given as pieces of its text, each ending at a line end (`QemuLogConverter.feed`). */
export function convertQemuLogText(pieces: Iterable<string>, opts: QemuLogOptions): QemuLogResult {
  const c = new QemuLogConverter(opts);
  for (const piece of pieces) if (!c.feed(piece)) break;
  return c.finish();
}
