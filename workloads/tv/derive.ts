/**
 * Tandem-verification records (golden-model/tvtrace/records.ts) from QEMU's CPU-state log: for every
 * instruction, trap and interrupt of a bare-metal program, the state it changed, as a core's trace
 * encoder would report it (the fields of the seed's TraceData, in the roles Bluespec's Flute gives
 * them). docs/trace-elf.md ("--tv") lists how each field is derived; in short:
 *
 * - the log shows the CPU state (pc, x0-x31, f0-f31, the CSRs QEMU prints) before every block of
 *   one instruction, and every trap; the state after an instruction is the state before the next
 *   block (traps and xRETs change no GPR or FPR, so that holds across an interrupt too);
 * - which registers an instruction writes, its memory address and data, its CSR operation come
 *   from decoding it (insn.ts, on the repository's ISA classifier); values written come from the
 *   state after it; addresses and store data from the state before it; fflags from fflags.ts;
 * - a trap's CSRs are those of the privilege it enters (the TB flags of the handler's block), read
 *   from the state after it and checked against QEMU's trap line.
 *
 * The derivation checks itself as it goes and stops with an error naming the log line rather than
 * write a record it cannot vouch for: the next pc must be the instruction's successor computed from
 * the registers; no register may change that the instruction does not write; every load must return
 * what the derived stores left in memory; every read of a CSR QEMU does not print (fflags, fcsr, ...)
 * must return the derived value; a trap's CSRs must agree with QEMU's trap line.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { ProgramImage } from '../../golden-model/hart/image.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import { instructionRecord, type TvCsrWrite, type TvInstr, type TvPriv, type TvRecord, type TvStoreData } from '../../golden-model/tvtrace/records.ts';
import { fpFlags, FlagError } from './fflags.ts';
import { decodeInsn, type InsnEffects, csrText, xName, fName } from './insn.ts';
import { ShadowMemory } from './memory.ts';
import type { CpuDump, CpuLogEvents, CpuLogParser } from './qemu-cpu.ts';

export interface DeriveOptions {
  xlen: Xlen;
  /**
   * Width of the FPR values in the records: 64 (QEMU's registers as they are), 32 (the NaN-boxing
   * removed: a hart with F only) or 0 (no floating-point registers in the log: an F instruction is
   * an error).
   */
  flen: 0 | 32 | 64;
  image: ProgramImage;
  /** The ELF entry: everything before the first block there is QEMU's reset ROM and is skipped. */
  entry: bigint;
  /** The log's name in error messages. */
  fileName: string;
  /** Stop after this many records. */
  maxRecords?: number;
}

export interface DeriveStats {
  /** Records by kind. */
  instructions: number;
  traps: number;
  interrupts: number;
  xrets: number;
  loads: number;
  stores: number;
  amos: number;
  csrInstructions: number;
  fpInstructions: number;
  /** Memory accesses whose paddr is not derivable (address translation on): reported without paddr. */
  withoutPaddr: number;
  /** Blocks QEMU ran before the ELF entry (its reset ROM). */
  bootBlocks: number;
  /** Blocks entered but not run (Stopped execution / cpu_io_recompile). */
  cancelled: number;
  truncated: boolean;
}

/** CSR addresses of the names QEMU 7.2 prints in its CPU state (target/riscv/cpu.c riscv_cpu_dump_state). */
const DUMP_CSR_ADDRESS: Record<string, number> = {
  mhartid: 0xf14, mstatus: 0x300, mstatush: 0x310, hstatus: 0x600, vsstatus: 0x200, mip: 0x344, mie: 0x304,
  mideleg: 0x303, hideleg: 0x603, medeleg: 0x302, hedeleg: 0x602, mtvec: 0x305, stvec: 0x105, vstvec: 0x205,
  mepc: 0x341, sepc: 0x141, vsepc: 0x241, mcause: 0x342, scause: 0x142, vscause: 0x242, mtval: 0x343,
  stval: 0x143, htval: 0x643, mtval2: 0x34b, mscratch: 0x340, sscratch: 0x140, satp: 0x180,
};

const CSR = {
  fflags: 0x001, frm: 0x002, fcsr: 0x003, sstatus: 0x100, sie: 0x104, sip: 0x144,
  mstatus: 0x300, mie: 0x304, mideleg: 0x303, mip: 0x344, mepc: 0x341, sepc: 0x141,
  mcause: 0x342, scause: 0x142, mtval: 0x343, stval: 0x143, satp: 0x180,
} as const;

/** Values the CPU holds after reset for CSRs QEMU does not print (QEMU 7.2 riscv_cpu_reset; the reset ROM leaves them). */
function resetCsrs(): Map<number, bigint> {
  const m = new Map<number, bigint>([
    [0x306, 0n], // mcounteren
    [0x106, 0n], // scounteren
    [0x30a, 0n], // menvcfg
    [0x10a, 0n], // senvcfg
    [0x320, 0n], // mcountinhibit
  ]);
  for (let i = 0; i < 16; i++) m.set(0x3a0 + i, 0n); // pmpcfg
  for (let i = 0; i < 64; i++) m.set(0x3b0 + i, 0n); // pmpaddr
  return m;
}

/** CSRs derived from others or computed exactly (fflags.ts): a read that disagrees is an error. */
const VIEWS: ReadonlySet<number> = new Set([0x100, 0x104, 0x144, 0x001, 0x002, 0x003]);

/** Counters and other CSRs whose value changes by itself: reads are not checked, writes not remembered. */
function volatileCsr(c: number): boolean {
  return c === CSR.mip || c === CSR.sip || (c >= 0xb00 && c <= 0xb1f) || (c >= 0xb80 && c <= 0xb9f) || (c >= 0xc00 && c <= 0xc1f) || (c >= 0xc80 && c <= 0xc9f) || c === 0x015;
}

// mstatus fields (privileged spec).
const MS = {
  SIE: 1n << 1n, MIE: 1n << 3n, SPIE: 1n << 5n, UBE: 1n << 6n, MPIE: 1n << 7n, SPP: 1n << 8n,
  MPP: 3n << 11n, FS: 3n << 13n, XS: 3n << 15n, MPRV: 1n << 17n, SUM: 1n << 18n, MXR: 1n << 19n,
  TVM: 1n << 20n, TW: 1n << 21n, TSR: 1n << 22n, VS: 3n << 9n,
} as const;

interface Entered {
  readonly line: number;
  readonly pc: bigint;
  readonly flags: number;
  readonly dump: CpuDump;
}
type Pending =
  | { readonly kind: 'exec'; readonly e: Entered }
  | {
      readonly kind: 'trap';
      readonly line: number;
      readonly async: boolean;
      readonly cause: bigint;
      readonly epc: bigint;
      readonly tval: bigint;
      readonly desc: string;
      /** The instruction that raised the exception (its block was entered and did not run). */
      readonly instr?: Entered;
      /** The state before the trap. */
      readonly before: CpuDump;
    };

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

export class TvDeriver implements CpuLogEvents {
  readonly records: TvRecord[] = [];
  /** The address of each record's instruction (for an interrupt or fetch fault: the epc). */
  readonly pcs: bigint[] = [];
  readonly stats: DeriveStats = {
    instructions: 0, traps: 0, interrupts: 0, xrets: 0, loads: 0, stores: 0, amos: 0, csrInstructions: 0,
    fpInstructions: 0, withoutPaddr: 0, bootBlocks: 0, cancelled: 0, truncated: false,
  };
  /** maxRecords reached: stop feeding the log. */
  done = false;

  private readonly xlen: Xlen;
  private readonly xmask: bigint;
  private readonly top: bigint;
  private readonly mem: ShadowMemory;
  private readonly csrShadow = resetCsrs();
  /** The record entry of the last write of each CSR in csrShadow, until the program reads it back. */
  private readonly csrWrites = new Map<number, { csr: number; value: bigint }>();
  private fflags = 0n;
  private frm = 0n;
  private started = false;
  private entered: Entered | undefined;
  private last: { dump: CpuDump; flags: number } | undefined;
  private pending: Pending[] = [];
  private readonly insns = new Map<bigint, InsnEffects>();
  /** Index of each printed CSR in a dump, by address. */
  private csrIndex: Map<number, number> | undefined;
  private checkedFlags = -1;

  constructor(
    private readonly opts: DeriveOptions,
    private readonly parser: Pick<CpuLogParser, 'csrNames'>,
  ) {
    this.xlen = opts.xlen;
    this.xmask = (1n << BigInt(opts.xlen)) - 1n;
    this.top = 1n << BigInt(opts.xlen - 1);
    this.mem = new ShadowMemory(opts.image);
  }

  private fail(message: string, line: number): never {
    throw new RvError('bad-value', message, { file: this.opts.fileName, line });
  }

  // --- log events ------------------------------------------------------------------------------

  enter(line: number, pc: bigint, flags: number, dump: CpuDump): void {
    if (this.done) return;
    if (flags !== this.checkedFlags) this.checkFlags(flags, line);
    if (!this.started) {
      if (pc !== this.opts.entry) {
        this.stats.bootBlocks++;
        this.last = { dump, flags };
        return;
      }
      this.started = true;
      this.entered = undefined;
      this.pending = [];
    }
    if (this.entered !== undefined) this.pending.push({ kind: 'exec', e: this.entered });
    if (this.pending.length > 0) this.finalize({ dump, flags, line });
    this.entered = { line, pc, flags, dump };
    this.last = { dump, flags };
  }

  cancel(line: number, pc: bigint): void {
    if (!this.started || this.done) return;
    const e = this.entered;
    if (e === undefined || e.pc !== pc) this.fail(`a block at ${hex(pc)} did not run, but the block entered just before is ${e ? `at ${hex(e.pc)}` : 'none'}`, line);
    this.entered = undefined;
    this.stats.cancelled++;
  }

  trap(line: number, async: boolean, cause: bigint, epc: bigint, tval: bigint, desc: string): void {
    if (!this.started || this.done) return;
    const before = this.last!.dump;
    const e = this.entered;
    this.entered = undefined;
    if (e !== undefined && !async && e.pc === epc) {
      this.pending.push({ kind: 'trap', line, async, cause, epc, tval, desc, instr: e, before });
      return;
    }
    if (e !== undefined) this.pending.push({ kind: 'exec', e });
    this.pending.push({ kind: 'trap', line, async, cause, epc, tval, desc, before });
  }

  /** The end of the log: the last block entered ran (the store that ended QEMU). */
  end(): void {
    if (this.done) return;
    if (!this.started) this.fail(`no instruction at the ELF entry ${hex(this.opts.entry)} in the log`, 0);
    if (this.entered !== undefined) this.pending.push({ kind: 'exec', e: this.entered });
    this.entered = undefined;
    if (this.pending.length > 0) this.finalize(undefined);
  }

  private checkFlags(flags: number, line: number): void {
    // TB flags of QEMU 7.2: bits 2:0 MEM_IDX (the privilege; bit 2 = hypervisor access), 21:20 XL.
    const xl = (flags >> 20) & 3;
    if (xl !== (this.xlen === 64 ? 2 : 1)) this.fail(`TB flags ${flags.toString(16)}: XL = ${xl}, expected ${this.xlen === 64 ? 2 : 1} (RV${this.xlen}; QEMU 7.2's TB flags layout)`, line);
    if ((flags & 7) === 2 || (flags & 4) !== 0) this.fail(`TB flags ${flags.toString(16)}: MEM_IDX ${flags & 7} is not a privilege of QEMU 7.2 without virtualization`, line);
    this.checkedFlags = flags;
  }

  // --- state access --------------------------------------------------------------------------

  private x(d: CpuDump, r: number): bigint {
    return r === 0 ? 0n : BigInt('0x' + d.xText(r));
  }

  private f(d: CpuDump, r: number, line: number): bigint {
    if (!d.hasF) this.fail('a floating-point instruction, but the log has no f registers (the ELF declares no hardware floating point: its float ABI is soft)', line);
    return BigInt('0x' + d.fText(r));
  }

  private index(): Map<number, number> {
    if (this.csrIndex === undefined) {
      const m = new Map<number, number>();
      (this.parser.csrNames ?? []).forEach((n, i) => {
        const a = DUMP_CSR_ADDRESS[n];
        if (a !== undefined) m.set(a, i);
      });
      for (const need of ['mstatus', 'mepc', 'mcause', 'mtval']) {
        if (!m.has(DUMP_CSR_ADDRESS[need]!)) this.fail(`QEMU's CPU state has no ${need}`, 0);
      }
      this.csrIndex = m;
    }
    return this.csrIndex;
  }

  private addrs: number[] | undefined;
  /** The address of each CSR QEMU prints, by its index (-1 for a name not known here). */
  private dumpAddrs(): number[] {
    return (this.addrs ??= (this.parser.csrNames ?? []).map((n) => DUMP_CSR_ADDRESS[n] ?? -1));
  }

  /** A CSR QEMU prints, or undefined when it does not print it. */
  private dumped(d: CpuDump, csr: number): bigint | undefined {
    const i = this.index().get(csr);
    return i === undefined ? undefined : BigInt('0x' + d.csrText(i));
  }

  private mustDump(d: CpuDump, csr: number): bigint {
    return this.dumped(d, csr)!;
  }

  private sstatusMask(): bigint {
    // SIE SPIE UBE SPP VS FS XS SUM MXR, UXL (RV64), SD.
    let m = MS.SIE | MS.SPIE | MS.UBE | MS.SPP | MS.VS | MS.FS | MS.XS | MS.SUM | MS.MXR | this.top;
    if (this.xlen === 64) m |= 3n << 32n;
    return m;
  }

  /** mstatus with SD recomputed from FS, XS, VS. */
  private withSd(m: bigint): bigint {
    const dirty = (m & MS.FS) === MS.FS || (m & MS.XS) === MS.XS || (m & MS.VS) === MS.VS;
    return dirty ? m | this.top : m & ~this.top;
  }

  private fcsr(): bigint {
    return (this.frm << 5n) | this.fflags;
  }

  /** The value of a CSR before an instruction, or undefined when not known. */
  private csrBefore(d: CpuDump, c: number): bigint | undefined {
    const v = this.dumped(d, c);
    if (v !== undefined) return v;
    switch (c) {
      case CSR.sstatus:
        return this.mustDump(d, CSR.mstatus) & this.sstatusMask();
      case CSR.sie:
        return (this.dumped(d, CSR.mie) ?? 0n) & (this.dumped(d, CSR.mideleg) ?? 0n);
      case CSR.sip:
        return (this.dumped(d, CSR.mip) ?? 0n) & (this.dumped(d, CSR.mideleg) ?? 0n);
      case CSR.fflags:
        return this.fflags;
      case CSR.frm:
        return this.frm;
      case CSR.fcsr:
        return this.fcsr();
    }
    return this.csrShadow.get(c);
  }

  // --- records -------------------------------------------------------------------------------

  private push(r: TvRecord, pc: bigint): void {
    this.records.push(r);
    this.pcs.push(pc);
    if (this.opts.maxRecords !== undefined && this.records.length >= this.opts.maxRecords) {
      this.done = true;
      this.stats.truncated = true;
    }
  }

  private fetch(pc: bigint, line: number): { eff: InsnEffects; instr: TvInstr } {
    const lo = this.mem.parcel(pc);
    let enc: number | undefined;
    if (lo !== undefined) {
      if ((lo & 3) !== 3) enc = lo;
      else {
        const hi = this.mem.parcel(pc + 2n);
        if (hi !== undefined) enc = (lo | (hi << 16)) >>> 0;
      }
    }
    if (enc === undefined) this.fail(`an instruction at ${hex(pc)}, outside the program's image and the memory it wrote`, line);
    let eff = this.insns.get(pc);
    if (eff === undefined || eff.bits !== enc) {
      try {
        eff = decodeInsn(enc, pc, this.xlen);
      } catch {
        // An encoding longer than 32 bits (the classifier refuses those): only a trap can report it.
        eff = { length: 4, bits: enc, mnemonic: 'unknown', text: `unknown (0x${enc.toString(16)})`, control: { kind: 'sequential' }, unknown: true };
      }
      this.insns.set(pc, eff);
    }
    return { eff, instr: { size: eff.length === 2 ? 16 : 32, bits: enc } };
  }

  /**
   * The events since the last CPU state, with the state after them (`after`, undefined at the end of
   * the log). Patterns: an instruction; a trap; an instruction then a trap (an interrupt or a fetch
   * fault right after it: the state between the two is not in the log).
   */
  private finalize(after: { dump: CpuDump; flags: number; line: number } | undefined): void {
    const ev = this.pending;
    this.pending = [];
    if (ev.length === 1 && ev[0]!.kind === 'exec') {
      this.exec(ev[0]!.e, after, after?.dump, undefined);
    } else if (ev.length === 1 && ev[0]!.kind === 'trap') {
      this.trapRecord(ev[0]!, after, true);
    } else if (ev.length === 2 && ev[0]!.kind === 'exec' && ev[1]!.kind === 'trap') {
      const t = ev[1]!;
      this.exec(ev[0]!.e, undefined, after?.dump, t.epc);
      if (!this.done) this.trapRecord(t, after, false);
    } else {
      const first = ev[0]!;
      this.fail(`${ev.length} traps without an instruction between them (${ev.map((e) => (e.kind === 'trap' ? e.desc : 'instruction')).join(', ')}): the state between them is not in the log`, first.kind === 'trap' ? first.line : first.e.line);
    }
  }

  /** The pc of a CPU state. */
  private nextOf(d: CpuDump): bigint {
    return BigInt('0x' + d.pc);
  }

  /**
   * One executed instruction. `after` is the state right after it (with its TB flags) when the log
   * has it; `regsAfter` the state after it as far as GPRs and FPRs go (also across a following
   * trap); `next` the pc after it when known.
   */
  private exec(
    e: Entered,
    after: { dump: CpuDump; flags: number; line: number } | undefined,
    regsAfter: CpuDump | undefined,
    nextKnown: bigint | undefined,
  ): void {
    const B = e.dump;
    const line = e.line;
    const { eff, instr } = this.fetch(e.pc, line);
    const where = `${hex(e.pc)} (${eff.text})`;
    if (eff.unknown) this.fail(`cannot derive the effects of ${eff.text} at ${hex(e.pc)}: not an instruction of RV${this.xlen}IMAFDC with Zicsr and Zifencei`, line);
    const csrAfter = after?.dump;
    const next = after !== undefined ? this.nextOf(after.dump) : nextKnown;

    // The successor the registers before the instruction imply.
    const c = eff.control;
    let successor: bigint;
    switch (c.kind) {
      case 'sequential':
      case 'wfi':
        successor = (e.pc + BigInt(eff.length)) & this.xmask;
        break;
      case 'branch': {
        const a = this.x(B, c.rs1);
        const b = this.x(B, c.rs2);
        const sa = a >= this.top ? a - (this.top << 1n) : a;
        const sb = b >= this.top ? b - (this.top << 1n) : b;
        const taken = c.cond === 'beq' ? a === b : c.cond === 'bne' ? a !== b : c.cond === 'blt' ? sa < sb : c.cond === 'bge' ? sa >= sb : c.cond === 'bltu' ? a < b : a >= b;
        successor = taken ? c.target : (e.pc + BigInt(eff.length)) & this.xmask;
        break;
      }
      case 'jal':
        successor = c.target;
        break;
      case 'jalr':
        successor = (this.x(B, c.base) + BigInt(c.offset)) & this.xmask & ~1n;
        break;
      case 'xret':
        if (c.which !== 'mret' && c.which !== 'sret') this.fail(`${c.which} at ${hex(e.pc)} retired: only mret and sret are supported`, line);
        successor = this.mustDump(B, c.which === 'mret' ? CSR.mepc : CSR.sepc);
        break;
      default:
        this.fail(`${eff.text} at ${hex(e.pc)} ran without a trap`, line);
    }
    const nextPc = next ?? successor;
    if (nextPc !== successor) {
      this.fail(`${where} is followed by ${hex(nextPc)}; its registers give ${hex(successor)} (a block or trap line missing from the log?)`, after?.line ?? line);
    }

    // GPRs and FPRs: only the destination may change.
    if (regsAfter !== undefined) this.checkRegs(B, regsAfter, eff.rd, eff.frd, where, after?.line ?? line);
    const needAfter = (what: string): CpuDump => {
      if (regsAfter === undefined) this.fail(`the log ends before the ${what} of ${where} is known`, line);
      return regsAfter;
    };

    const rec: {
      kind: 'instruction';
      nextPc: bigint;
      instr: TvInstr;
      gpr?: { reg: number; value: bigint };
      fpr?: { reg: number; value: bigint };
      csrs?: TvCsrWrite[];
      paddr?: bigint;
      eaddr?: bigint;
      storeData?: TvStoreData;
    } = { kind: 'instruction', nextPc, instr };
    if (eff.rd !== undefined && eff.rd !== 0) rec.gpr = { reg: eff.rd, value: this.x(needAfter(`result in ${xName(eff.rd)}`), eff.rd) };
    if (eff.frd !== undefined) rec.fpr = { reg: eff.frd, value: this.fprValue(this.f(needAfter(`result in ${fName(eff.frd)}`), eff.frd, line)) };

    // Memory.
    const m = eff.mem;
    if (m !== undefined) this.memory(e, eff, m, B, regsAfter, rec, where);

    // mstatus after the instruction (FS turns Dirty on a floating-point write).
    const special = eff.fp !== undefined || eff.frd !== undefined || eff.csr !== undefined || c.kind === 'xret';
    const mstatusBefore = special ? this.mustDump(B, CSR.mstatus) : 0n;
    const fsDirty = this.withSd(mstatusBefore | MS.FS);
    const mstatusAfter = special && csrAfter !== undefined ? this.mustDump(csrAfter, CSR.mstatus) : undefined;
    const allowed: number[] = [CSR.mip];

    if (eff.fp !== undefined) {
      this.stats.fpInstructions++;
      const fp = eff.fp;
      const A = needAfter('result');
      const mode = fp.rm === 7 ? Number(this.frm) : fp.rm;
      if (mode > 4) this.fail(`${where} ran with rounding mode ${mode}, which is reserved`, line);
      const intSrc = fp.op === 'cvt.f.i' || fp.op === 'mv.f.x';
      const fr = (r: number): bigint => this.f(B, r, line);
      let flags: number;
      try {
        flags = fpFlags(fp, {
          rs1: intSrc ? this.x(B, fp.rs1) : fr(fp.rs1),
          rs2: intSrc ? 0n : fr(fp.rs2),
          rs3: intSrc ? 0n : fr(fp.rs3),
          result: eff.frd !== undefined ? this.f(A, eff.frd, line) : this.x(A, eff.rd!),
          mode,
          flen: 64,
          xlen: this.xlen,
        });
      } catch (err) {
        if (err instanceof FlagError) this.fail(`cannot derive the fflags of ${where}: ${err.message}`, line);
        throw err;
      }
      this.fflags |= BigInt(flags);
      rec.csrs = [
        { csr: CSR.fflags, value: this.fflags },
        { csr: CSR.mstatus, value: mstatusAfter ?? (eff.frd !== undefined ? fsDirty : mstatusBefore) },
      ];
      allowed.push(CSR.mstatus);
    } else if (eff.frd !== undefined) {
      // A floating-point load: Flute's F_LOAD reports mstatus too.
      rec.csrs = [{ csr: CSR.mstatus, value: mstatusAfter ?? fsDirty }];
      allowed.push(CSR.mstatus);
    }

    if (eff.csr !== undefined) {
      this.stats.csrInstructions++;
      this.csrInstruction(e, eff, B, csrAfter, regsAfter, rec, allowed, where);
    }

    let out: TvRecord = instructionRecord(rec);
    if (c.kind === 'xret') {
      const mret = c.which === 'mret';
      const newPriv = Number(mret ? (mstatusBefore & MS.MPP) >> 11n : (mstatusBefore & MS.SPP) >> 8n);
      let ms = mstatusBefore;
      if (mret) {
        ms = (ms & ~MS.MIE) | ((ms & MS.MPIE) !== 0n ? MS.MIE : 0n);
        ms = (ms | MS.MPIE) & ~MS.MPP;
      } else {
        ms = (ms & ~MS.SIE) | ((ms & MS.SPIE) !== 0n ? MS.SIE : 0n);
        ms = (ms | MS.SPIE) & ~MS.SPP;
      }
      if (newPriv !== 3) ms &= ~MS.MPRV;
      if (after !== undefined) {
        const p = after.flags & 3;
        if (p !== newPriv) this.fail(`${where} returned to privilege ${p}; mstatus.${mret ? 'MPP' : 'SPP'} before it was ${newPriv}`, after.line);
        if (mstatusAfter !== ms) this.fail(`mstatus after ${where} is ${hex(mstatusAfter!)}; the xRET rule gives ${hex(ms)}`, after.line);
      }
      if (newPriv === 2) this.fail(`${where} returns to the reserved privilege 2`, line);
      allowed.push(CSR.mstatus);
      out = { kind: 'xret', nextPc, instr, priv: newPriv as TvPriv, mstatus: mstatusAfter ?? ms };
      this.stats.xrets++;
    } else {
      this.stats.instructions++;
    }

    // No CSR QEMU prints may change beyond what the instruction writes (mip changes by itself).
    if (csrAfter !== undefined) {
      const addrs = this.dumpAddrs();
      for (let i = 0; i < addrs.length; i++) {
        const addr = addrs[i]!;
        if (csrAfter.csrLine(i) !== B.csrLine(i) && !allowed.includes(addr)) {
          this.fail(`${csrText(addr)} changed from 0x${B.csrText(i)} to 0x${csrAfter.csrText(i)} at ${where}, which does not write it`, after!.line);
        }
      }
    }
    this.push(out, e.pc);
  }

  /** No GPR but `rd` and no FPR but `frd` changed from `B` to `A`. */
  private checkRegs(B: CpuDump, A: CpuDump, rd: number | undefined, frd: number | undefined, where: string, line: number): void {
    for (let k = 0; k < 8; k++) {
      if (A.xLine(k) === B.xLine(k)) continue;
      for (let r = 4 * k; r < 4 * k + 4; r++) {
        if (r !== rd && r !== 0 && A.xText(r) !== B.xText(r)) this.fail(`${xName(r)} changed from 0x${B.xText(r)} to 0x${A.xText(r)} at ${where}, which does not write it`, line);
      }
    }
    if (!B.hasF || !A.hasF) return;
    for (let k = 0; k < 8; k++) {
      if (A.fLine(k) === B.fLine(k)) continue;
      for (let r = 4 * k; r < 4 * k + 4; r++) {
        if (r !== frd && A.fText(r) !== B.fText(r)) this.fail(`${fName(r)} changed from 0x${B.fText(r)} to 0x${A.fText(r)} at ${where}, which does not write it`, line);
      }
    }
  }

  /** An FPR value as the records hold it (FLEN bits). */
  private fprValue(v: bigint): bigint {
    if (this.opts.flen === 64) return v;
    return v & 0xffff_ffffn;
  }

  private memory(
    e: Entered,
    eff: InsnEffects,
    m: NonNullable<InsnEffects['mem']>,
    B: CpuDump,
    A: CpuDump | undefined,
    rec: { gpr?: { reg: number; value: bigint }; eaddr?: bigint; paddr?: bigint; storeData?: TvStoreData; fpr?: { reg: number; value: bigint } },
    where: string,
  ): void {
    const line = e.line;
    const eaddr = (this.x(B, m.base) + BigInt(m.offset)) & this.xmask;
    rec.eaddr = eaddr;
    // Physical = effective unless address translation may apply: satp not Bare and an effective
    // privilege below M (mstatus.MPRV with MPP for loads and stores).
    const satp = this.dumped(B, CSR.satp) ?? 0n;
    const mstatus = this.mustDump(B, CSR.mstatus);
    const priv = e.flags & 3;
    const dataPriv = (mstatus & MS.MPRV) !== 0n ? Number((mstatus & MS.MPP) >> 11n) : priv;
    const bare = this.xlen === 64 ? satp >> 60n === 0n : satp >> 31n === 0n;
    if (bare || dataPriv === 3) rec.paddr = eaddr;
    else this.stats.withoutPaddr++;
    const bytes = m.bytes;
    const mask = (1n << BigInt(8 * bytes)) - 1n;
    const tracked = rec.paddr !== undefined && this.mem.tracked(eaddr, bytes);
    const signExtend = (v: bigint): bigint => (m.signed && (v >> BigInt(8 * bytes - 1)) & 1n ? (v | ~mask) & this.xmask : v);
    const need = (): CpuDump => {
      if (A === undefined) this.fail(`the log ends before the result of ${where} is known`, line);
      return A;
    };
    const src = (): bigint => (m.data!.file === 'x' ? this.x(B, m.data!.reg) : this.f(B, m.data!.reg, line)) & mask;

    if (m.kind === 'load' || m.kind === 'lr') {
      this.stats.loads++;
      const isF = eff.frd !== undefined;
      const rd = isF ? eff.frd! : eff.rd!;
      if (!isF && rd === 0) return;
      const got = isF ? this.f(need(), rd, line) : this.x(need(), rd);
      const raw = got & mask;
      if (isF && bytes === 4 && got >> 32n !== 0xffff_ffffn) this.fail(`${where} loaded 0x${got.toString(16)} into ${fName(rd)}, not a NaN-boxed single`, line);
      if (!isF && got !== signExtend(raw)) this.fail(`${where} loaded 0x${got.toString(16)}, which is not the ${m.signed ? 'sign' : 'zero'}-extension of ${bytes} byte(s)`, line);
      if (tracked) {
        const known = this.mem.read(eaddr, bytes);
        if (known !== undefined && known !== raw) {
          this.fail(`${where} loaded 0x${raw.toString(16)} from ${hex(eaddr)}, but the stores derived so far left 0x${known.toString(16)} there`, line);
        }
        this.mem.write(eaddr, bytes, raw);
      }
      return;
    }
    if (m.kind === 'store') {
      this.stats.stores++;
      const v = src();
      rec.storeData = { bytes, value: v };
      if (tracked) this.mem.write(eaddr, bytes, v);
      return;
    }
    // AMOs and sc.
    this.stats.amos++;
    const rd = eff.rd!;
    if (m.kind === 'sc') {
      const ok = this.x(need(), rd) === 0n;
      if (ok) {
        const v = src();
        rec.storeData = { bytes, value: v };
        if (tracked) this.mem.write(eaddr, bytes, v);
      }
      return;
    }
    let old: bigint | undefined;
    if (rd !== 0) old = this.x(need(), rd) & mask;
    const known = tracked ? this.mem.read(eaddr, bytes) : undefined;
    if (old !== undefined && known !== undefined && old !== known) {
      this.fail(`${where} read 0x${old.toString(16)} from ${hex(eaddr)}, but the stores derived so far left 0x${known.toString(16)} there`, line);
    }
    old ??= known;
    if (old === undefined) this.fail(`cannot derive the data ${where} writes: rd is x0 and the old value at ${hex(eaddr)} is not known`, line);
    const b = src();
    const bits = BigInt(8 * bytes);
    const sgn = (v: bigint): bigint => ((v >> (bits - 1n)) & 1n ? v - (1n << bits) : v);
    let nv: bigint;
    switch (m.amo!) {
      case 'swap': nv = b; break;
      case 'add': nv = (old + b) & mask; break;
      case 'xor': nv = old ^ b; break;
      case 'and': nv = old & b; break;
      case 'or': nv = old | b; break;
      case 'min': nv = sgn(old) <= sgn(b) ? old : b; break;
      case 'max': nv = sgn(old) >= sgn(b) ? old : b; break;
      case 'minu': nv = old <= b ? old : b; break;
      case 'maxu': nv = old >= b ? old : b; break;
    }
    rec.storeData = { bytes, value: nv };
    if (tracked) this.mem.write(eaddr, bytes, nv);
  }

  private csrInstruction(
    e: Entered,
    eff: InsnEffects,
    B: CpuDump,
    A: CpuDump | undefined,
    R: CpuDump | undefined,
    rec: { csrs?: TvCsrWrite[] },
    allowed: number[],
    where: string,
  ): void {
    const line = e.line;
    const { csr: c, op, src, writes } = eff.csr!;
    let old = this.csrBefore(B, c);
    const rd = eff.rd!;
    if (rd !== 0 && R !== undefined && !volatileCsr(c)) {
      const got = this.x(R, rd);
      const remembered = this.dumped(B, c) === undefined && !VIEWS.has(c);
      if (old === undefined) old = got;
      else if (got !== (old & this.xmask)) {
        const w = this.csrWrites.get(c);
        if (!remembered) this.fail(`${where} read 0x${got.toString(16)} from ${csrText(c)}; the derivation expected 0x${old.toString(16)}`, line);
        // A WARL CSR QEMU does not print: what it holds is what the program reads back, which
        // corrects the value recorded for the last write (nothing read it in between).
        if (w !== undefined) w.value = got;
        old = got;
      }
      if (remembered) this.csrShadow.set(c, got);
      this.csrWrites.delete(c);
    }
    if (!writes) return;
    const operand = 'reg' in src ? this.x(B, src.reg) : BigInt(src.imm);
    if (op !== 'rw' && old === undefined) this.fail(`cannot derive the value ${where} writes: ${csrText(c)} is not in QEMU's log and the program has not read it before`, line);
    const computed = (op === 'rw' ? operand : op === 'rs' ? old! | operand : old! & ~operand) & this.xmask;
    const mstatusBefore = this.mustDump(B, CSR.mstatus);
    const msAfter = A !== undefined ? this.mustDump(A, CSR.mstatus) : undefined;
    let value: bigint;
    const writes2: TvCsrWrite[] = [];
    const dumpedAfter = A !== undefined ? this.dumped(A, c) : undefined;
    if (dumpedAfter !== undefined) {
      value = dumpedAfter;
      allowed.push(c);
      if (c === CSR.mstatus) allowed.push(CSR.mstatus);
    } else if (c === CSR.sstatus) {
      const m = this.sstatusMask() & ~this.top;
      const ms = msAfter ?? this.withSd((mstatusBefore & ~m) | (computed & m));
      value = ms & this.sstatusMask();
      allowed.push(CSR.mstatus);
    } else if (c === CSR.sie || c === CSR.sip) {
      const full = c === CSR.sie ? CSR.mie : CSR.mip;
      allowed.push(full);
      const deleg = this.dumped(A ?? B, CSR.mideleg) ?? 0n;
      value = A !== undefined ? (this.dumped(A, full) ?? 0n) & deleg : computed & deleg;
    } else if (c === CSR.fflags || c === CSR.frm || c === CSR.fcsr) {
      if (c === CSR.fflags) this.fflags = computed & 0x1fn;
      else if (c === CSR.frm) this.frm = computed & 7n;
      else {
        this.fflags = computed & 0x1fn;
        this.frm = (computed >> 5n) & 7n;
      }
      value = c === CSR.fflags ? this.fflags : c === CSR.frm ? this.frm : this.fcsr();
      allowed.push(CSR.mstatus);
    } else if (this.index().has(c)) {
      // A printed CSR written right before a trap: the log has no state in between.
      value = c === CSR.mstatus ? this.legalMstatus(mstatusBefore, computed) : computed;
    } else {
      value = computed;
      if (!volatileCsr(c)) this.csrShadow.set(c, computed);
    }
    const write = { csr: c, value };
    if (!this.index().has(c) && !VIEWS.has(c) && !volatileCsr(c)) this.csrWrites.set(c, write);
    writes2.push(write);
    // A side effect on mstatus (FS Dirty after an fcsr write, the sstatus view) is reported after it.
    if (c !== CSR.mstatus) {
      const ms = msAfter ?? (c === CSR.fflags || c === CSR.frm || c === CSR.fcsr ? this.withSd(mstatusBefore | MS.FS) : c === CSR.sstatus ? this.withSd((mstatusBefore & ~(this.sstatusMask() & ~this.top)) | (computed & this.sstatusMask() & ~this.top)) : mstatusBefore);
      if (ms !== mstatusBefore) writes2.push({ csr: CSR.mstatus, value: ms });
    }
    rec.csrs = [...(rec.csrs ?? []), ...writes2];
  }

  /** The fields of mstatus software can write in QEMU 7.2 (M-mode, no hypervisor state). */
  private legalMstatus(before: bigint, written: bigint): bigint {
    const m = MS.SIE | MS.MIE | MS.SPIE | MS.MPIE | MS.SPP | MS.MPP | MS.FS | MS.MPRV | MS.SUM | MS.MXR | MS.TVM | MS.TW | MS.TSR;
    return this.withSd((before & ~m) | (written & m));
  }

  /** A trap or interrupt record: its CSRs from the state after it, checked against QEMU's trap line. */
  private trapRecord(t: Pending & { kind: 'trap' }, after: { dump: CpuDump; flags: number; line: number } | undefined, alone: boolean): void {
    if (after === undefined) this.fail(`the log ends with a trap (${t.desc}) before its handler's first block`, t.line);
    const A = after.dump;
    const priv = after.flags & 3;
    if (priv !== 3 && priv !== 1) this.fail(`the trap (${t.desc}) entered privilege ${priv}; only traps into M and S mode are supported`, after.line);
    const m = priv === 3;
    const status = m ? this.mustDump(A, CSR.mstatus) : this.mustDump(A, CSR.mstatus) & this.sstatusMask();
    const cause = this.mustDump(A, m ? CSR.mcause : CSR.scause);
    const epc = this.mustDump(A, m ? CSR.mepc : CSR.sepc);
    const tval = this.mustDump(A, m ? CSR.mtval : CSR.stval);
    const wantCause = (t.cause & ~this.top) | (t.async ? this.top : 0n);
    const name = m ? 'm' : 's';
    if (cause !== wantCause) this.fail(`${name}cause is ${hex(cause)} after the trap (${t.desc}); QEMU's trap line says cause ${hex(t.cause)}${t.async ? ' (interrupt)' : ''}`, after.line);
    if (epc !== t.epc) this.fail(`${name}epc is ${hex(epc)} after the trap (${t.desc}); QEMU's trap line says epc ${hex(t.epc)}`, after.line);
    if (tval !== t.tval) this.fail(`${name}tval is ${hex(tval)} after the trap (${t.desc}); QEMU's trap line says tval ${hex(t.tval)}`, after.line);
    const nextPc = this.nextOf(A);
    if (alone) this.checkRegs(t.before, A, undefined, undefined, `the trap (${t.desc})`, after.line);
    const base = { nextPc, priv: priv as TvPriv, status, cause, epc, tval };
    if (t.async) {
      this.stats.interrupts++;
      this.push({ kind: 'interrupt', ...base }, t.epc);
      return;
    }
    this.stats.traps++;
    if (t.instr !== undefined) {
      const { instr } = this.fetch(t.instr.pc, t.instr.line);
      this.push({ kind: 'trap', ...base, instr }, t.instr.pc);
    } else {
      this.push({ kind: 'trap', ...base }, t.epc);
    }
  }
}
