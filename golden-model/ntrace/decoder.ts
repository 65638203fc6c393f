/**
 * N-Trace instruction trace decoder: a message byte stream + the program image -> the retired
 * instruction addresses, in order, with gap markers where the trace is interrupted.
 *
 * Written from the ratified N-Trace 1.0 specification (Decoding Guidelines, Field Encoding,
 * Optimization Extensions, Messages details); independent of the encoder: it shares only the
 * configuration type (settings.ts), the program image and the RISC-V instruction classification.
 * The rules, including those the spec leaves open, are in docs/ntrace-decoder.md.
 *
 * Model: `pc` is the address of the next instruction to retire. A message's I-CNT (plus the I-CNT
 * of ResourceFull(I-CNT) messages since the last I-CNT report) is walked instruction by instruction
 * from `pc`; each conditional branch consumes the next HIST bit (from ResourceFull(HIST) messages,
 * then the message's own HIST, most significant bit after the stop bit first); then the message's
 * address (F-ADDR, or U-ADDR XOR the last address) becomes `pc`. Ownership messages do not move
 * `pc`: they are listed apart (who runs the instructions from a given index on).
 */
import type { ProgramImage } from '../hart/image.ts';
import { classify, type InstructionInfo } from '../hart/isa/classify.ts';
import { Itype } from '../hart/records.ts';
import { fieldOf, fieldValue, parseNtrace, TCODE, type NtraceField, type NtraceMessage } from './mseo.ts';
import type { NtraceConfig } from './settings.ts';

// --- public API -------------------------------------------------------------------------------

/**
 * Why the instruction sequence is interrupted:
 * - `unsynced`: messages before the first synchronizing message (nothing can be decoded there);
 * - `trace-off`: ProgTraceCorrelation (trace stopped or disabled: EVCODE in the detail);
 * - `trace-lost`: an Error message, or SYNC 7 (restart after overrun) while decoding;
 * - `bad-trace`: a framing error, a malformed message, or a message that does not fit the program
 *   image (detail and offset say which); the decoder waits for the next synchronizing message;
 * - `truncated`: the stream ended while tracing was on (no closing ProgTraceCorrelation);
 * - `limit`: the instruction limit of the options was reached; decoding stopped.
 */
export type NtraceGapReason = 'unsynced' | 'trace-off' | 'trace-lost' | 'bad-trace' | 'truncated' | 'limit';

export interface DecodedPc {
  readonly kind: 'pc';
  readonly address: bigint;
}

export interface DecodedGap {
  readonly kind: 'gap';
  readonly reason: NtraceGapReason;
  /** Byte offset of the message (or byte) that caused the gap; the stream length for `truncated`. */
  readonly offset: number;
  readonly detail?: string;
}

export type DecodedItem = DecodedPc | DecodedGap;

export interface DecodeProblem {
  readonly offset: number;
  readonly message: string;
}

export interface NtraceDecoderOptions {
  /** Stop (with a `limit` gap) after this many decoded instructions. Default 2^25. */
  readonly maxInstructions?: number;
}

/**
 * An Ownership message (TCODE 2) as decoded: the privilege and context of the instructions from
 * instruction `at` on (`at` = instructions decoded before the message, an index into the `pc`
 * items). After a message with an address (a sync, a trap or trap-return message) the place is
 * exact; a context change reported on linear code (a CSR write) lies somewhere in the range of the
 * next message with an I-CNT, which N-Trace does not pin down.
 */
export interface DecodedOwnership {
  /** Byte offset of the Ownership message. */
  readonly offset: number;
  readonly at: number;
  /** 0: privilege change only; 2: sync or scontext change; 3: sync or hcontext change (1 is reserved). */
  readonly format: number;
  /** PRV[1:0] and V: U 0/0, S 1/0, M 3/0, VU 0/1, VS 1/1. */
  readonly prv: number;
  readonly v: number;
  /** scontext (FORMAT 2) or hcontext (FORMAT 3); absent with FORMAT 0. */
  readonly context?: bigint;
}

export interface NtraceDecodeResult {
  readonly items: DecodedItem[];
  /**
   * Every framing error and decoding problem, in stream order (also those hidden inside an open
   * gap), and the warnings that do not interrupt the flow: reserved Ownership encodings, and (with
   * `ownership` in the configuration) a synchronizing message not followed by an Ownership message.
   */
  readonly problems: DecodeProblem[];
  /** The Ownership messages of this hart, in stream order. */
  readonly ownership: DecodedOwnership[];
}

/** Decodes a whole stream. Never throws on bad input: problems become `gap` items. */
export function decodeNtrace(bytes: Uint8Array, image: ProgramImage, c: NtraceConfig, opts: NtraceDecoderOptions = {}): DecodedItem[] {
  return decodeNtraceWithProblems(bytes, image, c, opts).items;
}

/** As decodeNtrace, with the list of problems found. */
export function decodeNtraceWithProblems(
  bytes: Uint8Array,
  image: ProgramImage,
  c: NtraceConfig,
  opts: NtraceDecoderOptions = {},
): NtraceDecodeResult {
  const d = new Decoder(image, c, opts.maxInstructions ?? 2 ** 25);
  try {
    for (const item of parseNtrace(bytes, c)) {
      if (item.kind === 'error') d.problem(item.offset, item.message);
      else d.message(item);
    }
    d.finish(bytes.length);
  } catch (e) {
    if (!(e instanceof LimitReached)) throw e;
    d.gap('limit', e.offset, `more than ${d.max} instructions decoded`);
  }
  return { items: d.out, problems: d.problems, ownership: d.ownership };
}

// --- internals --------------------------------------------------------------------------------

/** A message that does not fit: the decoder reports a gap and waits for the next sync. */
class DecodeFailure extends Error {}

class LimitReached extends Error {
  constructor(readonly offset: number) {
    super('instruction limit');
  }
}

type Flow = 'sequential' | 'branch' | 'direct-jump' | 'uninferable' | 'trap-instruction' | 'illegal';

interface Insn {
  readonly address: bigint;
  readonly item: DecodedPc;
  readonly info: InstructionInfo;
  /** Half-words (I-CNT units). */
  readonly halves: 1 | 2;
  readonly flow: Flow;
  readonly next: bigint;
  readonly target: bigint | undefined;
  readonly isCall: boolean;
  readonly isReturn: boolean;
  /** A co-routine swap (jalr with both rd and rs1 link registers, rd != rs1): pop, then push. */
  readonly isSwap: boolean;
}

function flowOf(info: InstructionInfo): Flow {
  switch (info.control) {
    case 'branch':
      return 'branch';
    case 'jump':
      return info.target !== undefined ? 'direct-jump' : 'uninferable';
    case 'trap-return':
      return 'uninferable';
    case 'exception':
      return 'trap-instruction';
    case 'illegal':
      return 'illegal';
    default:
      return 'sequential';
  }
}

const hex = (a: bigint | number): string => `0x${a.toString(16)}`;

/** Branch outcomes still to be consumed: HIST values (stop bit removed), each possibly repeated (HREPEAT). */
class HistQueue {
  private chunks: { value: bigint; nbits: number; repeat: bigint }[] = [];
  private ci = 0;
  private bi = 0;

  /** Appends a HIST value (its most significant set bit is the stop bit) `repeat` times. */
  push(hist: bigint, repeat: bigint): void {
    if (hist <= 0n) throw new DecodeFailure(`HIST ${hex(hist)} has no stop bit`);
    const nbits = hist.toString(2).length - 1;
    if (nbits === 0 || repeat <= 0n) return;
    this.chunks.push({ value: hist, nbits, repeat });
  }

  /** The next outcome (true = taken), or undefined when none is left. */
  next(): boolean | undefined {
    const ch = this.chunks[this.ci];
    if (ch === undefined) return undefined;
    const bit = (ch.value >> BigInt(ch.nbits - 1 - this.bi)) & 1n;
    if (++this.bi === ch.nbits) {
      this.bi = 0;
      if (--ch.repeat === 0n) this.ci++;
    }
    return bit === 1n;
  }

  get empty(): boolean {
    return this.ci >= this.chunks.length;
  }

  /** Outcomes left (for messages). */
  left(): bigint {
    let n = 0n;
    for (let k = this.ci; k < this.chunks.length; k++) {
      const ch = this.chunks[k]!;
      n += BigInt(ch.nbits) * ch.repeat - (k === this.ci ? BigInt(this.bi) : 0n);
    }
    return n;
  }

  clear(): void {
    this.chunks = [];
    this.ci = 0;
    this.bi = 0;
  }
}

/** How the I-CNT range of a message ends. */
type RangeEnd =
  /** DirectBranch(Sync): the last instruction is a taken conditional branch; its target is the next PC. */
  | 'taken-branch'
  /** The message carries the next PC (F-ADDR or U-ADDR). */
  | 'address'
  /** ProgTraceCorrelation: no next PC. */
  | 'none';

const SYNC_TCODES = new Set<number>([TCODE.ProgTraceSync, TCODE.DirectBranchSync, TCODE.IndirectBranchSync, TCODE.IndirectBranchHistSync]);

class Decoder {
  readonly out: DecodedItem[] = [];
  readonly problems: DecodeProblem[] = [];
  readonly ownership: DecodedOwnership[] = [];
  /** Offset of a synchronizing message whose Ownership message is still due (trTeContext). */
  private ownershipDue: number | undefined;
  private readonly insns = new Map<bigint, Insn>();
  private readonly xlen: 32 | 64;

  private synced = false;
  /** A gap has been emitted since the last decoded instruction (further gaps would say nothing new). */
  private gapOpen = false;
  private pc = 0n;
  private lastAddr = 0n;
  private stack: bigint[] = [];
  private pendingIcnt = 0;
  private readonly hist = new HistQueue();
  /** The last DirectBranch / IndirectBranch / IndirectBranchHist, for RepeatBranch. */
  private lastBranch: NtraceMessage | undefined;
  private count = 0;
  private offset = 0;

  constructor(
    private readonly image: ProgramImage,
    private readonly c: NtraceConfig,
    readonly max: number,
  ) {
    this.xlen = c.xlen;
  }

  gap(reason: NtraceGapReason, offset: number, detail?: string): void {
    this.out.push(detail === undefined ? { kind: 'gap', reason, offset } : { kind: 'gap', reason, offset, detail });
    this.gapOpen = true;
  }

  /** A framing error or a message that does not decode: gap (unless one is open) and wait for a sync. */
  problem(offset: number, message: string): void {
    this.problems.push({ offset, message });
    if (!this.gapOpen) this.gap('bad-trace', offset, message);
    this.desync();
  }

  private desync(): void {
    this.synced = false;
    this.pendingIcnt = 0;
    this.hist.clear();
    this.stack = [];
    this.lastBranch = undefined;
  }

  finish(length: number): void {
    if (!this.synced) return;
    const pending = this.pendingIcnt > 0 || !this.hist.empty ? ` (I-CNT ${this.pendingIcnt} and ${this.hist.left()} HIST bits not reported)` : '';
    this.gap('truncated', length, `the stream ended while tracing was on${pending}`);
  }

  message(m: NtraceMessage): void {
    this.offset = m.offset;
    if (this.c.srcWidth > 0 && fieldValue(m, 'SRC') !== BigInt(this.c.src)) return; // another hart's message
    if (this.ownershipDue !== undefined) {
      // "An Ownership message (if enabled) must be emitted immediately after all synchronizing
      // messages"; an Error message in between means it was lost (and says so).
      if (m.tcode !== TCODE.Ownership && m.tcode !== TCODE.Error) {
        this.problems.push({ offset: m.offset, message: `${m.name}(${m.tcode}) at byte offset ${hex(m.offset)}: no Ownership message right after the synchronizing message at ${hex(this.ownershipDue)}` });
      }
      this.ownershipDue = undefined;
    }
    if (m.tcode === TCODE.Ownership) {
      // Context only: it needs no synchronization and never interrupts the flow.
      this.ownershipMessage(m);
      return;
    }
    if (this.c.ownership && SYNC_TCODES.has(m.tcode)) this.ownershipDue = m.offset;
    try {
      if (SYNC_TCODES.has(m.tcode)) this.sync(m);
      else if (!this.synced) this.unsynced(m);
      else this.inSync(m);
    } catch (e) {
      if (e instanceof DecodeFailure) this.problem(m.offset, `${m.name}(${m.tcode}) at byte offset ${hex(m.offset)}: ${e.message}`);
      else throw e;
    }
  }

  /** Records who runs the instructions from here on; reserved encodings are warnings. */
  private ownershipMessage(m: NtraceMessage): void {
    const format = Number(fieldValue(m, 'FORMAT'));
    const prv = Number(fieldValue(m, 'PRV'));
    const v = Number(fieldValue(m, 'V'));
    const context = fieldValue(m, 'CONTEXT');
    const warn = (what: string): void => {
      this.problems.push({ offset: m.offset, message: `Ownership(2) at byte offset ${hex(m.offset)}: ${what}` });
    };
    if (format === 1) warn('FORMAT 1 is reserved');
    // U 0/00, S 0/01, M 0/11, VU 1/00, VS 1/01; every other V/PRV is reserved.
    if (prv === 2 || (v === 1 && prv === 3)) warn(`V ${v} with PRV ${prv} is a reserved privilege encoding`);
    if (format === 0 && context !== undefined) warn(`FORMAT 0 carries no CONTEXT, but PROCESS has bits set above V (${hex(context)})`);
    const at = this.count;
    this.ownership.push(format >= 2 && context !== undefined ? { offset: m.offset, at, format, prv, v, context } : { offset: m.offset, at, format, prv, v });
  }

  private unsynced(m: NtraceMessage): void {
    if (m.tcode === TCODE.Error && !this.gapOpen) this.gap('trace-lost', m.offset, 'Error message');
    else if (!this.gapOpen) this.gap('unsynced', m.offset, `${m.name}(${m.tcode}) before the first synchronizing message`);
  }

  private sync(m: NtraceMessage): void {
    const syncCode = Number(fieldValue(m, 'SYNC'));
    const faddr = this.address(fieldOf(m, 'F-ADDR')!);
    let failure: DecodeFailure | undefined;
    if (this.synced) {
      if (syncCode === 7) {
        this.gap('trace-lost', m.offset, 'SYNC 7: restart after FIFO overrun');
      } else {
        try {
          const histField = fieldValue(m, 'HIST');
          if (histField !== undefined) this.hist.push(histField, 1n);
          this.walk(this.icnt(m), m.tcode === TCODE.DirectBranchSync ? 'taken-branch' : 'address');
        } catch (e) {
          if (!(e instanceof DecodeFailure)) throw e;
          failure = e;
        }
      }
    }
    if (failure) this.problem(m.offset, `${m.name}(${m.tcode}) at byte offset ${hex(m.offset)}: ${failure.message}`);
    // Every synchronizing message resets the encoder: full address, empty counters and stack.
    this.desync();
    this.synced = true;
    this.gapOpen = false;
    this.pc = faddr;
    this.lastAddr = faddr;
  }

  private inSync(m: NtraceMessage): void {
    switch (m.tcode) {
      case TCODE.DirectBranch:
      case TCODE.IndirectBranch:
      case TCODE.IndirectBranchHist:
        this.branchMessage(m);
        this.lastBranch = m;
        return;
      case TCODE.RepeatBranch: {
        const prev = this.lastBranch;
        if (prev === undefined) throw new DecodeFailure('no branch message to repeat since the last synchronizing message');
        const bcnt = fieldValue(m, 'B-CNT')!;
        if (this.icntOf(prev) === 0 && this.pendingIcnt === 0) {
          // Nothing to walk: only the address XOR repeats (its parity matters).
          if (bcnt % 2n === 1n) this.branchMessage(prev);
          return;
        }
        for (let k = 0n; k < bcnt; k++) this.branchMessage(prev);
        return;
      }
      case TCODE.ResourceFull: {
        const rcode = Number(fieldValue(m, 'RCODE'));
        const rdata = fieldValue(m, 'RDATA');
        if (rcode === 0) this.pendingIcnt += this.number(rdata!, 'RDATA (I-CNT)');
        else if (rcode === 1) this.hist.push(rdata!, 1n);
        else if (rcode === 2) this.hist.push(rdata!, fieldValue(m, 'HREPEAT')!);
        else throw new DecodeFailure(`RCODE ${rcode} is reserved or vendor-defined: its RDATA cannot be decoded`);
        return;
      }
      case TCODE.ProgTraceCorrelation: {
        const histField = fieldValue(m, 'HIST');
        if (histField !== undefined) this.hist.push(histField, 1n);
        else if (!m.known) throw new DecodeFailure(`CDF ${fieldValue(m, 'CDF')} is reserved`);
        this.walk(this.icnt(m), 'none');
        const evcode = Number(fieldValue(m, 'EVCODE'));
        const what = evcode === 0 ? ' (entry to debug mode)' : evcode === 1 ? ' (entry to low-power mode)' : evcode === 4 ? ' (trace disabled)' : '';
        this.desync();
        this.gap('trace-off', m.offset, `ProgTraceCorrelation EVCODE ${evcode}${what}`);
        return;
      }
      case TCODE.Error:
        this.desync();
        this.gap('trace-lost', m.offset, `Error message ETYPE ${fieldValue(m, 'ETYPE')} ECODE ${hex(fieldValue(m, 'ECODE')!)}`);
        return;
      default:
        throw new DecodeFailure(`TCODE ${m.tcode} is not an N-Trace message`);
    }
  }

  /** DirectBranch, IndirectBranch, IndirectBranchHist (also when repeated by RepeatBranch). */
  private branchMessage(m: NtraceMessage): void {
    const histField = fieldValue(m, 'HIST');
    if (histField !== undefined) this.hist.push(histField, 1n);
    if (m.tcode === TCODE.DirectBranch) {
      this.walk(this.icnt(m), 'taken-branch');
      return;
    }
    this.walk(this.icnt(m), 'address');
    const next = this.lastAddr ^ this.address(fieldOf(m, 'U-ADDR')!);
    this.lastAddr = next;
    this.pc = next;
  }

  /** The message's I-CNT plus the I-CNT of ResourceFull messages since the last report; clears the latter. */
  private icnt(m: NtraceMessage): number {
    const n = this.icntOf(m) + this.pendingIcnt;
    this.pendingIcnt = 0;
    return n;
  }

  private icntOf(m: NtraceMessage): number {
    return this.number(fieldValue(m, 'I-CNT') ?? 0n, 'I-CNT');
  }

  private number(v: bigint, what: string): number {
    if (v > 0xffffffffn) throw new DecodeFailure(`${what} ${hex(v)} is larger than any encoder's counter`);
    return Number(v);
  }

  /**
   * An F-ADDR or U-ADDR field as an address (before the XOR for U-ADDR): with address MSB dropping,
   * the most significant bit of the field's last MDO is extended to the top (the field's width is
   * whole MDOs); then shifted left one bit (bit 0 is never sent) and wrapped to XLEN.
   */
  private address(f: NtraceField): bigint {
    let v = f.value;
    if (this.c.addressMsbDrop && ((v >> BigInt(f.width - 1)) & 1n) === 1n) v |= -1n << BigInt(f.width);
    return BigInt.asUintN(this.xlen, v << 1n);
  }

  private insn(address: bigint): Insn {
    const hit = this.insns.get(address);
    if (hit) return hit;
    const fetched = this.image.fetch(address);
    if (fetched === undefined) throw new DecodeFailure(`no instruction at ${hex(address)} in the program image`);
    let info: InstructionInfo;
    try {
      info = classify(fetched.encoding, address, this.xlen);
    } catch (e) {
      throw new DecodeFailure(`instruction at ${hex(address)}: ${(e as Error).message}`);
    }
    const insn: Insn = {
      address,
      item: { kind: 'pc', address },
      info,
      halves: info.length === 4 ? 2 : 1,
      flow: flowOf(info),
      next: BigInt.asUintN(this.xlen, address + BigInt(info.length)),
      target: info.target,
      isCall: info.itype === Itype.uninferableCall || info.itype === Itype.inferableCall,
      isReturn: info.itype === Itype.return,
      isSwap: info.itype === Itype.coRoutineSwap,
    };
    this.insns.set(address, insn);
    return insn;
  }

  private push(ret: bigint): void {
    if (this.c.implicitReturn === 'none' || this.c.callStackSize <= 0) return;
    // A full stack drops its oldest entry (a saturated call counter keeps counting the innermost calls).
    if (this.stack.length >= this.c.callStackSize) this.stack.shift();
    this.stack.push(ret);
  }

  /**
   * Emits the instructions of an I-CNT range (half-words) from `pc`. Afterwards `pc` is the next
   * PC where the range itself says it (a taken branch at the end of a DirectBranch range, or the
   * instruction after a sequential/direct one); the caller applies the message's address.
   */
  private walk(icnt: number, end: RangeEnd): void {
    let n = icnt;
    let last: Insn | undefined;
    while (n > 0) {
      const i = this.insn(this.pc);
      if (this.count >= this.max) throw new LimitReached(this.offset);
      this.count++;
      this.out.push(i.item);
      this.gapOpen = false;
      last = i;
      n -= i.halves;
      if (n < 0) throw new DecodeFailure(`I-CNT ${icnt} ends inside the 32-bit instruction at ${hex(i.address)}`);
      const final = n === 0;
      switch (i.flow) {
        case 'sequential':
          this.pc = i.next;
          break;
        case 'branch': {
          let taken = this.hist.next();
          if (taken === undefined) {
            if (this.c.mode === 'htm') throw new DecodeFailure(`no HIST bit left for the branch at ${hex(i.address)}`);
            // BTM: only the last instruction of a DirectBranch range is a taken branch.
            taken = final && end === 'taken-branch';
          }
          this.pc = taken ? i.target! : i.next;
          break;
        }
        case 'direct-jump':
          if (i.isCall) this.push(i.next);
          this.pc = i.target!;
          break;
        case 'uninferable': {
          // The return-address-stack hints of the unprivileged ISA (table "Return-address stack
          // prediction hints"): a co-routine swap pops, then pushes; it is always reported.
          if (i.isSwap && this.c.implicitReturn !== 'none') this.stack.pop();
          if (i.isCall || i.isSwap) this.push(i.next);
          if (i.isReturn && this.c.implicitReturn !== 'none') {
            // Every retired return pops the stack; one inside the range was implicit (not reported).
            const ret = this.stack.pop();
            if (!final) {
              if (ret === undefined) throw new DecodeFailure(`the return at ${hex(i.address)} is inside the I-CNT range but the return stack is empty`);
              this.pc = ret;
            }
            break;
          }
          if (!final) throw new DecodeFailure(`the uninferable jump (${i.info.mnemonic}) at ${hex(i.address)} is not the last instruction of the I-CNT range`);
          break;
        }
        case 'trap-instruction':
          if (!final) throw new DecodeFailure(`${i.info.mnemonic} at ${hex(i.address)} traps but is not the last instruction of the I-CNT range`);
          break;
        case 'illegal':
          throw new DecodeFailure(`the illegal instruction at ${hex(i.address)} cannot retire`);
      }
    }
    if (!this.hist.empty) throw new DecodeFailure(`${this.hist.left()} HIST bit(s) left after I-CNT ${icnt}`);
    if (end === 'taken-branch') {
      if (last === undefined) throw new DecodeFailure('a DirectBranch range with I-CNT 0 has no branch');
      if (last.flow !== 'branch') throw new DecodeFailure(`the DirectBranch range ends at ${last.info.mnemonic} at ${hex(last.address)}, not at a conditional branch`);
    }
  }
}
