/**
 * E-Trace instruction trace decoder: encapsulated te_inst byte stream + program image -> the
 * retired instruction addresses, in order, with gap markers where tracing stopped or packets were
 * lost.
 *
 * Written from the spec (chapter 11's pseudo code, extended to every mode) and from
 * docs/etrace-model.md, which fixes what the encoder does where the spec is silent. It does not
 * share code with the encoder beyond the packet layer and the prediction structures whose indexing
 * is part of the trace format (predictors.ts), so a round trip checks both sides.
 *
 * Model of the decoder state: `cur` is the last instruction known to have retired (it has been
 * emitted); its own branch outcome, if it is a branch, is the oldest entry of the branch
 * information still to be consumed. Every address packet moves `cur` forward along the program
 * until it reaches the reported instruction; a packet never reports `cur` again without moving.
 *
 * Implicit return: with the Implicit Return extension v0.8 (iret_ext_p = 1, the default) the
 * return count irets of its revised decoder pseudo code names the occurrence; the ratified irdepth
 * (iret_ext_p = 0) is decoded as well as its flags allow, which is not always (spec issue #254).
 *
 * Where a packet alone does not say which occurrence of an address it reports, the decoder stops
 * tentatively and lets the next packet decide (6.6.2 and 6.5.1, extended to resync packets: see
 * `settleTentative`, `resumeThenSync`, `followToSync`). Two facts only the 1.1.1 layout leaves
 * open (did a reported instruction retire before a trap?) are decided in `faultedAt`.
 */
import { RvError } from '../common/errors.ts';
import type { ProgramImage } from '../hart/image.ts';
import {
  classify,
  isSequentiallyInferable,
  sequentialTarget,
  type InstructionInfo,
} from '../hart/isa/classify.ts';
import { Itype } from '../hart/records.ts';
import type { EtraceParams } from './config.ts';
import {
  flagsOf,
  iretExtension,
  optionsOf,
  packetKind,
  packetWidths,
  splitStream,
  unpackPacket,
  BRANCH_FMT,
  MSG_TYPE,
  QUAL_STATUS,
  type IOptions,
  type Packet,
  type PacketKind,
} from './packet/index.ts';
import { BranchPredictor, JumpTargetCache, ReturnPredictor } from './predictors.ts';

// --- public API -------------------------------------------------------------------------------

/**
 * Why the instruction sequence is interrupted:
 * - `trace-off`: a support packet ended qualification while the encoder stays enabled (filter,
 *   trace-off trigger, halt, reset);
 * - `end`: a support packet reported the encoder disabled (the end of trace);
 * - `trace-lost`: a support packet reported lost packets; the decoder waits for the next sync;
 * - `truncated`: the byte stream ended while tracing was still on (no closing support packet).
 */
export type GapReason = 'trace-off' | 'end' | 'trace-lost' | 'truncated';

export interface DecodedPc {
  readonly kind: 'pc';
  readonly address: bigint;
}

export interface DecodedGap {
  readonly kind: 'gap';
  readonly reason: GapReason;
  /** Byte offset of the packet that reported the gap (the stream length for `truncated`). */
  readonly offset: number;
}

export type DecodedItem = DecodedPc | DecodedGap;

/** What the decoder passes to the trap handler table in implicit exception mode. */
export interface TrapEntry {
  readonly cause: bigint;
  readonly interrupt: boolean;
  /** Privilege of the handler (the packet's privilege field). */
  readonly privilege: bigint;
  readonly context: bigint;
}

export interface DecoderOptions {
  params: EtraceParams;
  xlen: 32 | 64;
  /**
   * Implicit exception mode (section 3.2.3): the trap handler address for a trap packet that
   * carries none. Needed only when a support packet enables the mode.
   */
  trapHandler?: (trap: TrapEntry) => bigint;
  /**
   * Runaway guard: the most instructions followed for one packet without consuming any branch
   * outcome (a malformed stream could otherwise loop forever on `j .`). Default 2^22.
   */
  maxStraightLine?: number;
}

/**
 * Decodes a whole encapsulated stream. Throws RvError (with the byte offset of the offending
 * packet) when the stream is malformed or does not fit the program image.
 */
export function decodeStream(bytes: Uint8Array, image: ProgramImage, opts: DecoderOptions): DecodedItem[] {
  const decoder = new Decoder(image, opts);
  for (const sp of splitStream(bytes, opts.params)) {
    if (sp.msgType !== MSG_TYPE.instruction) continue; // data trace is not decoded here
    decoder.packet(sp.payload, sp.offset, sp.payloadOffset);
  }
  decoder.finish(bytes.length);
  return decoder.out;
}

// --- instructions -----------------------------------------------------------------------------

/** How an instruction moves the PC, as far as the decoder is concerned. */
const Kind = {
  sequential: 0,
  branch: 1,
  /** jal, c.j, c.jal: static target. */
  directJump: 2,
  /** jalr, c.jr, c.jalr: target from a register. */
  indirectJump: 3,
  /** mret, sret, uret, dret. */
  trapReturn: 4,
  /** ecall, ebreak, c.ebreak: retire, then trap. */
  trapInstruction: 5,
  /** Encodings that cannot retire. */
  illegal: 6,
} as const;
type KindCode = (typeof Kind)[keyof typeof Kind];

function kindOf(info: InstructionInfo): KindCode {
  switch (info.control) {
    case 'branch':
      return Kind.branch;
    case 'jump':
      return info.target !== undefined ? Kind.directJump : Kind.indirectJump;
    case 'trap-return':
      return Kind.trapReturn;
    case 'exception':
      return Kind.trapInstruction;
    case 'illegal':
      return Kind.illegal;
    default:
      return Kind.sequential;
  }
}

/**
 * One instruction of the image, classified once. Successors are linked lazily, so following a
 * path is pointer chasing: no map look-up, no bigint arithmetic and no allocation per step. The
 * output item is shared by every visit of the address.
 */
class Insn {
  readonly item: DecodedPc;
  readonly kind: KindCode;
  readonly isCall: boolean;
  readonly isReturn: boolean;
  /** The sequential successor (and the return address a call pushes). */
  readonly nextAddress: bigint;
  next: Insn | undefined;
  target: Insn | undefined;
  /** Cache of the last sequentially inferable pair ending here: its first instruction and target. */
  siFrom: Insn | undefined;
  siTarget: Insn | undefined;

  constructor(
    readonly address: bigint,
    readonly encoding: number,
    readonly info: InstructionInfo,
    xlen: 32 | 64,
  ) {
    this.item = { kind: 'pc', address };
    this.kind = kindOf(info);
    this.isCall = info.itype === Itype.uninferableCall || info.itype === Itype.inferableCall;
    this.isReturn = info.itype === Itype.return;
    this.nextAddress = BigInt.asUintN(xlen, address + BigInt(info.length));
  }

  hex(): string {
    return `0x${this.address.toString(16)}`;
  }
}

// --- what a packet asks the decoder to reach ----------------------------------------------------

/** The instruction a packet reports, and the flags that say which occurrence of it is meant. */
interface Goal {
  /** undefined: a packet without address; stop at its last branch. */
  address: bigint | undefined;
  /** F3 SF0 resync / privilege change: stop at the first occurrence, no flags. */
  sync: boolean;
  notify: boolean;
  updiscon: boolean;
  irreport: boolean;
  /** Ratified implicit return: the stack depth (or call count) at the reported instruction. */
  irdepth: number;
  /** Implicit Return extension: returns popped since the last branch or packet, up to the report. */
  irets: number;
  /** Resuming a tentative stop: only the target of an uninferable jump ends the path. */
  updisconOnly: boolean;
  /** An F0/F1/F2 address report (these feed the jump target cache). */
  delta: boolean;
  /** Sync only: stop only where the previous instruction was not sequential (a resync point). */
  afterControl: boolean;
}

/** The decoder's position and branch queue, saved while an interpretation is tried. */
interface WalkState {
  outLength: number;
  cur: Insn | undefined;
  prev: Insn | undefined;
  mapBits: number;
  mapCount: number;
  mapQuiet: number;
  predRun: number;
  failAfterRun: boolean;
  ras: bigint[];
  iretCount: number;
}

type Stop = 'updiscon' | 'inferred' | 'notify' | 'last-branch' | 'reached';

/**
 * 1.1.1 layout only: a reported instruction that may not have retired. That layout reports the
 * target of an uninferable jump with F0/F1/F2 even when the target traps before retiring (2.0 uses
 * F3 SF1 thaddr 0 instead), and reports a trap handler with F3 SF1 even when a second trap hits it
 * at once. Only the next packet can tell (see `faultedAt`).
 */
interface Uncertain {
  insn: Insn;
  /** out.length right after it was emitted. */
  outLength: number;
  /** 'target': reported as the target of an uninferable jump; the updiscon flag was clear. */
  targetFlagClear: boolean;
}

const QUIET = true;

class Decoder {
  readonly out: DecodedItem[] = [];

  private readonly params: EtraceParams;
  private readonly xlen: 32 | 64;
  private readonly lsb: bigint;
  private readonly addressWidth: number;
  private readonly addressFieldWidth: number;
  private readonly ratified: boolean;
  private readonly trapHandler: ((trap: TrapEntry) => bigint) | undefined;
  private readonly maxStraightLine: number;
  private readonly insns = new Map<bigint, Insn>();

  private options: IOptions = {
    implicit_return: false,
    implicit_exception: false,
    full_address: false,
    jump_target_cache: false,
    branch_prediction: false,
    sijump: false,
  };

  /** Byte offset of the packet being decoded (for errors). */
  private offset = 0;
  private synced = false;
  /** 2.0: an F3 SF1 with thaddr 0 was seen; the next sync packet reports the handler. */
  private trapPending = false;
  private cur: Insn | undefined;
  /** The instruction retired just before `cur` (sijump needs it); undefined after a jump in. */
  private prev: Insn | undefined;
  private lastAddress = 0n;
  /** Privilege and context of the last sync, trap or context packet. */
  private privilege: bigint | undefined;
  private context = 0n;

  // Branch outcomes still to consume, oldest first: explicit bits (1 = not taken), then `predRun`
  // correctly predicted branches, then (if failAfterRun) one that failed its prediction.
  private mapBits = 0;
  private mapCount = 0;
  /** Map bits whose branch already updated the predictor before a sync reset it. */
  private mapQuiet = 0;
  private predRun = 0;
  private failAfterRun = false;
  private straightLine = 0;

  private readonly predictor: BranchPredictor | undefined;
  private readonly cache: JumpTargetCache | undefined;
  /** Implicit return: predicted return addresses, oldest first (also in call counter mode). */
  private ras: bigint[] = [];
  /** Implicit Return extension (irets) rather than the ratified irdepth (see `iretExtension`). */
  private readonly iretExt: boolean;
  /**
   * Extension: returns popped since the last branch or the start of the packet being followed
   * (the spec decoder's `irets`). A return pops, and counts, when the path leaves it.
   */
  private iretCount = 0;
  private readonly rasKind: 'stack' | 'counter' | undefined;
  private readonly rasCapacity: number;

  /** A stop at an address reached without an uninferable jump; the next packet confirms it. */
  private tentative: Goal | undefined;
  /**
   * The last packet said the next one is about the next instruction: a sync or trap packet, a
   * tentative or notify stop, or the target of an uninferable jump with updiscon set.
   */
  private announcedNext = false;
  private uncertain: Uncertain | undefined;

  constructor(
    private readonly image: ProgramImage,
    opts: DecoderOptions,
  ) {
    const p = opts.params;
    this.params = p;
    this.xlen = opts.xlen;
    this.lsb = BigInt(p.iaddress_lsb_p);
    this.addressWidth = p.iaddress_width_p;
    this.addressFieldWidth = packetWidths(p).address;
    this.ratified = p.payload_layout === '2.0';
    this.iretExt = iretExtension(p);
    this.trapHandler = opts.trapHandler;
    this.maxStraightLine = opts.maxStraightLine ?? 1 << 22;
    this.predictor = p.bpred_size_p > 0 ? new BranchPredictor(p.bpred_size_p, p.iaddress_lsb_p) : undefined;
    this.cache = p.cache_size_p > 0 ? new JumpTargetCache(p.cache_size_p, p.iaddress_lsb_p) : undefined;
    // The decoder needs the addresses even in call counter mode, so it keeps its own stack; its
    // capacity is the encoder's (ReturnPredictor.max), and like the encoder's saturating counter
    // a full stack forgets its oldest entry, which keeps the depths equal.
    this.rasKind = p.return_stack_size_p > 0 ? 'stack' : p.call_counter_size_p > 0 ? 'counter' : undefined;
    this.rasCapacity =
      this.rasKind === undefined
        ? 0
        : new ReturnPredictor(this.rasKind, this.rasKind === 'stack' ? p.return_stack_size_p : p.call_counter_size_p).max;
  }

  // --- packets ---------------------------------------------------------------------------------

  packet(payload: Uint8Array, offset: number, payloadOffset: number): void {
    this.offset = offset;
    const pkt = unpackPacket(payload, this.params, payloadOffset, { implicit_exception: this.options.implicit_exception });
    const kind = packetKind(pkt, this.params);
    if (kind !== 'F3.SF2' && kind !== 'F3.SF1') this.uncertain = undefined;
    switch (kind) {
      case 'F3.SF3':
        this.support(pkt);
        return;
      case 'F3.SF2':
        // Context only: no address, and it does not settle a tentative stop.
        this.privilege = pkt.privilege;
        this.context = pkt.context ?? 0n;
        return;
      case 'F3.SF1':
        this.trap(pkt);
        return;
      case 'F3.SF0':
        this.sync(pkt);
        return;
      default:
        this.addressPacket(pkt, kind);
    }
  }

  /** End of the byte stream. */
  finish(length: number): void {
    this.offset = length;
    this.settleTentative(false);
    if (this.synced) this.gap('truncated', length);
    this.synced = false;
  }

  private support(pkt: Packet): void {
    const qual = pkt.qual_status ?? QUAL_STATUS.no_change;
    const enabled = (pkt.enable ?? pkt.ienable ?? 0n) === 1n;
    // ended_upd: the last address packet would have been sent anyway because of an uninferable
    // jump, so a tentative stop was the first pass and the real one is after that jump (6.5.1).
    // A mere configuration report (no_change, still enabled) settles nothing.
    if (qual !== QUAL_STATUS.no_change || !enabled) this.settleTentative(qual === QUAL_STATUS.ended_upd);
    this.setOptions(optionsOf(pkt));
    if (qual === QUAL_STATUS.trace_lost) {
      this.gap('trace-lost', this.offset);
      this.unsync();
    } else if (qual !== QUAL_STATUS.no_change || !enabled) {
      if (this.synced) this.gap(enabled ? 'trace-off' : 'end', this.offset);
      this.unsync();
    }
  }

  private setOptions(o: IOptions): void {
    if (o.branch_prediction && this.predictor === undefined) {
      throw this.error('the support packet enables branch prediction, but bpred_size_p is 0');
    }
    if (o.jump_target_cache && this.cache === undefined) {
      throw this.error('the support packet enables the jump target cache, but cache_size_p is 0');
    }
    if (o.implicit_return && this.rasKind === undefined) {
      throw this.error('the support packet enables implicit return, but call_counter_size_p and return_stack_size_p are 0');
    }
    this.options = o;
  }

  private unsync(): void {
    this.synced = false;
    this.trapPending = false;
    this.cur = undefined;
    this.prev = undefined;
    this.uncertain = undefined;
    this.tentative = undefined;
  }

  /** F3 SF0: start of trace, privilege change, precise context change or resync. */
  private sync(pkt: Packet): void {
    const address = this.fullAddress(pkt.address ?? 0n);
    const target = this.insnAt(address);
    const branchBit = target.kind === Kind.branch ? Number(pkt.branch ?? 1n) : -1;
    const changed = pkt.privilege !== this.privilege || (pkt.context ?? 0n) !== this.context;
    const tentative = this.tentative;
    this.tentative = undefined;
    if (!this.synced || this.trapPending || this.cur === undefined) {
      this.jumpTo(target);
    } else {
      const oneStep = this.mayStepTo(this.cur, target);
      if (tentative !== undefined && !oneStep && this.resumeThenSync(tentative, target, branchBit, changed)) {
        // done: the tentative stop was too early (see resumeThenSync)
      } else if (this.announcedNext && oneStep) {
        // The last packet was sent because of this one (a privilege or context change or a
        // resync at the next instruction): one step, whatever the address.
        this.followToSync(target, branchBit, true);
      } else {
        // The flowchart places a resync one instruction after the last one the decoder can place
        // (section 8.2), so the first occurrence is the one (the spec's decoder stops there); a block
        // encoder resyncs at block ends only, after an instruction that is not sequential.
        this.followToSync(target, branchBit, changed || this.params.resync_policy === 'flowchart');
      }
    }
    this.announcedNext = true;
    this.resetAtSync(branchBit);
    this.lastAddress = address;
    this.privilege = pkt.privilege;
    this.context = pkt.context ?? 0n;
    this.synced = true;
    this.trapPending = false;
    if (!this.ratified) this.uncertain = { insn: target, outLength: this.out.length, targetFlagClear: false };
  }

  /**
   * A sync packet after a tentative stop at R. If R was final (6.6.2 case 3), the last packet was
   * sent because of this one (privilege or context change of R's successor, or a resync due at
   * R) and this one reports R's successor. When it reports anything else, the stop was too early:
   * either R was the first pass and the address packet meant the pass after a later uninferable
   * jump (the sync is then a resync that became due further on), or the report was a later
   * occurrence of R that the flags cannot tell apart (same depth, reached through a return and a
   * call with no branch between). The decoder moves on to the next stop the packet allows until
   * the sync fits. Returns false (state restored) when no reading fits the program.
   */
  private resumeThenSync(t: Goal, target: Insn, branchBit: number, changed: boolean): boolean {
    const saved = this.snapshot();
    try {
      for (let attempt = 0; attempt < 64; attempt++) {
        const stop = this.follow(t);
        if (stop === 'updiscon') {
          this.followToSync(target, branchBit, changed);
          return true;
        }
        if (this.cur !== undefined && this.mayStepTo(this.cur, target)) {
          this.followOnce(target, branchBit, false);
          return true;
        }
      }
    } catch (e) {
      if (!(e instanceof RvError)) throw e;
    }
    this.restore(saved);
    return false;
  }

  /**
   * A sync packet while synced reports an instruction the decoder reaches from `cur`: after a
   * resync F1, a privilege or context change, or a resync due after a stretch with nothing to
   * report. A resync is due only after an instruction that is not sequential (itype != 0), so
   * unless `firstOccurrence` (privilege or context changed, or the last packet announced this
   * one) the decoder first looks for an occurrence reached that way: the address may be a loop
   * label passed once by falling through before the jump back that preceded the resync. A context change
   * reported as an asynchronous discontinuity (ctype 3) does not follow from the old context at
   * all: when no path fits, the decoder takes the address as a jump.
   */
  private followToSync(target: Insn, branchBit: number, firstOccurrence: boolean): void {
    const attempts = firstOccurrence ? [false] : [true, false];
    for (const afterControl of attempts) {
      const saved = this.snapshot();
      try {
        this.followOnce(target, branchBit, afterControl);
        return;
      } catch (e) {
        if (!(e instanceof RvError)) throw e;
        this.restore(saved);
      }
    }
    this.jumpTo(target);
  }

  private followOnce(target: Insn, branchBit: number, afterControl: boolean): void {
    if (branchBit >= 0) this.appendMap(branchBit, 1, QUIET);
    const goal = this.goal(target.address, { sync: true });
    goal.afterControl = afterControl;
    this.follow(goal);
  }

  /** Whether `to` can be the next instruction retired after `from` (every branch outcome allowed). */
  private mayStepTo(from: Insn, to: Insn): boolean {
    switch (from.kind) {
      case Kind.sequential:
        return from.nextAddress === to.address;
      case Kind.branch:
        return from.nextAddress === to.address || from.info.target === to.address;
      case Kind.directJump:
        return from.info.target === to.address;
      case Kind.indirectJump: {
        if (this.needsAddress(from)) return true;
        const si = this.sijumpTarget(this.prev, from);
        return (si?.address ?? this.ras[this.ras.length - 1]) === to.address;
      }
      case Kind.trapReturn:
        return true;
      default:
        return false;
    }
  }

  /** What a failed attempt must undo (predictor and cache are reset by the sync anyway). */
  private snapshot(): WalkState {
    return {
      outLength: this.out.length,
      cur: this.cur,
      prev: this.prev,
      mapBits: this.mapBits,
      mapCount: this.mapCount,
      mapQuiet: this.mapQuiet,
      predRun: this.predRun,
      failAfterRun: this.failAfterRun,
      ras: this.ras.slice(),
      iretCount: this.iretCount,
    };
  }

  private restore(s: WalkState): void {
    this.out.length = s.outLength;
    this.cur = s.cur;
    this.prev = s.prev;
    this.mapBits = s.mapBits;
    this.mapCount = s.mapCount;
    this.mapQuiet = s.mapQuiet;
    this.predRun = s.predRun;
    this.failAfterRun = s.failAfterRun;
    this.ras = s.ras;
    this.iretCount = s.iretCount;
  }

  /** F3 SF1: a trap. */
  private trap(pkt: Packet): void {
    const doubt = this.uncertain;
    this.uncertain = undefined;
    if (doubt !== undefined && this.faultedAt(doubt, pkt)) this.retract(doubt);
    this.settleTentative(false);
    this.synced = true;
    this.privilege = pkt.privilege;
    this.context = pkt.context ?? 0n;
    this.announcedNext = true;
    if (this.ratified && pkt.thaddr === 0n) {
      // The address is the EPC of a trap whose instruction did not retire; the handler comes
      // with the next sync packet, which must be taken as a jump, not followed.
      this.lastAddress = this.fullAddress(pkt.address ?? 0n);
      this.cur = undefined;
      this.prev = undefined;
      this.trapPending = true;
      this.resetAtSync(-1);
      return;
    }
    let handler: bigint;
    if (pkt.address !== undefined) {
      handler = this.fullAddress(pkt.address);
      this.lastAddress = handler;
    } else {
      handler = this.implicitHandler(pkt);
    }
    const target = this.insnAt(handler);
    this.jumpTo(target);
    this.resetAtSync(target.kind === Kind.branch ? Number(pkt.branch ?? 1n) : -1);
    this.trapPending = false;
    if (!this.ratified) this.uncertain = { insn: target, outLength: this.out.length, targetFlagClear: false };
  }

  private implicitHandler(pkt: Packet): bigint {
    if (this.trapHandler === undefined) {
      throw this.error('implicit exception: the trap packet has no handler address and no trap handler table was given');
    }
    return this.trapHandler({
      cause: pkt.ecause ?? 0n,
      interrupt: pkt.interrupt === 1n,
      privilege: pkt.privilege ?? 0n,
      context: pkt.context ?? 0n,
    });
  }

  /**
   * 1.1.1 only: did the trap of `pkt` hit the reported instruction itself (so it did not retire)?
   * The layout does not say; the decoder relies on two facts. A target of an uninferable jump that
   * retired and is followed by a trap packet had its updiscon flag set (the trap follows it); so a
   * clear flag means the target trapped. Otherwise tvalepc decides: it is the EPC of an illegal
   * instruction and the fetch address of an instruction fault or breakpoint. An ebreak retires
   * before its trap, so a breakpoint at one counts as retired.
   */
  private faultedAt(u: Uncertain, pkt: Packet): boolean {
    if (u.targetFlagClear) return true;
    if (pkt.interrupt === 1n) return false;
    const cause = pkt.ecause ?? 0n;
    const tval = pkt.tvalepc ?? 0n;
    const a = u.insn.address;
    if (cause === 2n) return tval === a;
    if (cause === 1n || cause === 12n) return tval >= a && tval < u.insn.nextAddress;
    if (cause === 3n) return tval === a && u.insn.kind !== Kind.trapInstruction;
    return false;
  }

  private retract(u: Uncertain): void {
    if (this.out.length === u.outLength && this.out[u.outLength - 1] === u.insn.item) this.out.pop();
  }

  /** F0, F1, F2: branch information and/or an address. */
  private addressPacket(pkt: Packet, kind: PacketKind): void {
    if (!this.synced) throw this.error(`${formatName(kind)} with no preceding sync`);
    if (this.trapPending) throw this.error(`${formatName(kind)} after a trap packet without handler address (thaddr 0); expected a sync packet`);
    this.settleTentative(true);
    // The returns this packet reports are counted from here.
    this.iretCount = 0;
    const goal = this.goalOf(pkt, kind);
    const stop = this.follow(goal);
    this.announcedNext = stop === 'updiscon' ? goal.updiscon : stop !== 'last-branch';
    if (stop === 'updiscon') {
      this.rememberTarget(goal);
      if (!this.ratified && this.cur !== undefined) {
        this.uncertain = { insn: this.cur, outLength: this.out.length, targetFlagClear: !goal.updiscon };
      }
    } else if (stop === 'inferred') {
      this.tentative = goal;
    }
  }

  /** Reads the branch information of an F0/F1/F2 into the queue and builds what to reach. */
  private goalOf(pkt: Packet, kind: PacketKind): Goal {
    const branches = Number(pkt.branches ?? 0n);
    switch (kind) {
      case 'F1':
        this.appendMap(Number(pkt.branch_map ?? 0n), branches === 0 ? 31 : branches);
        if (branches === 0) return this.goal(undefined, {});
        break;
      case 'F0.SF0': {
        if (!this.options.branch_prediction || this.predictor === undefined) {
          throw this.error('branch count packet (format 0 subformat 0) while branch prediction is off');
        }
        if (this.predRun > 0 || this.failAfterRun) throw this.error('branch count packet before the previous count was used up');
        this.predRun = Number(pkt.branch_count ?? 0n) + 31;
        const fmt = pkt.branch_fmt ?? BRANCH_FMT.no_addr;
        this.failAfterRun = fmt !== BRANCH_FMT.addr;
        if (fmt === BRANCH_FMT.no_addr) return this.goal(undefined, {});
        break;
      }
      case 'F0.SF1': {
        if (!this.options.jump_target_cache || this.cache === undefined) {
          throw this.error('jump target cache packet (format 0 subformat 1) while the cache is off');
        }
        if (branches !== 0) this.appendMap(Number(pkt.branch_map ?? 0n), branches);
        const index = Number(pkt.index ?? 0n);
        const address = this.cache.at(index);
        if (address === undefined) throw this.error(`jump target cache entry ${index} is empty`);
        this.lastAddress = address;
        const flags = flagsOf(pkt, this.params);
        return this.goal(address, { irreport: flags?.irreport, irdepth: flags?.irdepth, irets: flags?.irets, delta: true });
      }
      default:
        break;
    }
    const address = this.deltaAddress(pkt.address ?? 0n);
    this.lastAddress = address;
    const flags = flagsOf(pkt, this.params);
    return this.goal(address, {
      notify: flags?.notify,
      updiscon: flags?.updiscon,
      irreport: flags?.irreport,
      irdepth: flags?.irdepth,
      irets: flags?.irets,
      delta: true,
    });
  }

  private goal(
    address: bigint | undefined,
    f: { sync?: boolean; notify?: boolean; updiscon?: boolean; irreport?: boolean; irdepth?: bigint; irets?: bigint; delta?: boolean },
  ): Goal {
    return {
      address,
      sync: f.sync ?? false,
      notify: f.notify ?? false,
      updiscon: f.updiscon ?? false,
      irreport: f.irreport ?? false,
      irdepth: Number(f.irdepth ?? 0n),
      irets: Number(f.irets ?? 0n),
      updisconOnly: false,
      delta: f.delta ?? false,
      afterControl: false,
    };
  }

  /**
   * The previous packet stopped at its address on a pass that did not come from an uninferable
   * jump (6.6.2 cases 1 and 3). The packet now arriving decides: another F0/F1/F2 (`resume`) means
   * the report was the target of a later uninferable jump (case 1), so the path goes on to it;
   * a format 3 or an ended_rep support packet means the stop was right (case 3).
   */
  private settleTentative(resume: boolean): void {
    const t = this.tentative;
    this.tentative = undefined;
    if (t === undefined || !resume || this.cur === undefined) return;
    // 1.1.1: an uninferable jump reported because the next instruction traps is followed by an
    // F0/F1/F2 reporting its (trapping) target. Case 1 would need the jump to jump to itself.
    if (this.needsAddress(this.cur)) return;
    t.updisconOnly = true;
    if (this.follow(t) === 'updiscon') this.rememberTarget(t);
  }

  /** Jump target cache: every F0/F1/F2 report of an uninferable jump's target was looked up. */
  private rememberTarget(goal: Goal): void {
    if (goal.delta && goal.address !== undefined && this.options.jump_target_cache && this.cache !== undefined) {
      this.cache.insert(goal.address);
    }
  }

  private gap(reason: GapReason, offset: number): void {
    const last = this.out[this.out.length - 1];
    if (last !== undefined && last.kind === 'gap') return;
    this.out.push({ kind: 'gap', reason, offset });
  }

  // --- addresses ---------------------------------------------------------------------------------

  private fullAddress(field: bigint): bigint {
    return BigInt.asUintN(this.addressWidth, field << this.lsb);
  }

  private deltaAddress(field: bigint): bigint {
    if (this.options.full_address) return this.fullAddress(field);
    const delta = BigInt.asIntN(this.addressFieldWidth, field) << this.lsb;
    return BigInt.asUintN(this.addressWidth, this.lastAddress + delta);
  }

  private insnAt(address: bigint): Insn {
    const known = this.insns.get(address);
    if (known !== undefined) return known;
    const fetched = this.image.fetch(address);
    if (fetched === undefined) throw this.error(`no instruction in the image at 0x${address.toString(16)}`);
    const insn = new Insn(address, fetched.encoding, classify(fetched.encoding, address, this.xlen), this.xlen);
    this.insns.set(address, insn);
    return insn;
  }

  private tryInsnAt(address: bigint): Insn | undefined {
    return this.insns.get(address) ?? (this.image.fetch(address) === undefined ? undefined : this.insnAt(address));
  }

  private sequentialNext(n: Insn): Insn {
    return (n.next ??= this.insnAt(n.nextAddress));
  }

  private staticTarget(n: Insn): Insn {
    return (n.target ??= this.insnAt(n.info.target ?? n.nextAddress));
  }

  // --- state resets --------------------------------------------------------------------------------

  private jumpTo(target: Insn): void {
    this.cur = target;
    this.prev = undefined;
    this.out.push(target.item);
  }

  /**
   * F3 SF0/SF1: branch information, predictor, jump target cache and return stack start afresh.
   * The reported instruction's own branch outcome (`branchBit`, -1 if it is no branch) updated
   * the encoder's predictor before the reset, so consuming it must not update the decoder's.
   */
  private resetAtSync(branchBit: number): void {
    this.mapBits = 0;
    this.mapCount = 0;
    this.mapQuiet = 0;
    this.predRun = 0;
    this.failAfterRun = false;
    this.predictor?.reset();
    this.cache?.reset();
    this.ras = [];
    this.iretCount = 0;
    if (branchBit >= 0) this.appendMap(branchBit, 1, QUIET);
  }

  // --- branch information -------------------------------------------------------------------------

  private appendMap(bits: number, count: number, quiet = false): void {
    if (this.predRun > 0 || this.failAfterRun) throw this.error('branch map after a branch count that was not used up');
    if (this.mapCount + count > 32) {
      throw this.error(`${this.mapCount} branch outcomes were not used before the next ${count}`);
    }
    const valid = count === 32 ? bits : bits & (2 ** count - 1);
    this.mapBits = (this.mapBits | (valid << this.mapCount)) >>> 0;
    if (quiet) this.mapQuiet = (this.mapQuiet | (1 << this.mapCount)) >>> 0;
    this.mapCount += count;
  }

  private branchesLeft(): number {
    return this.mapCount + this.predRun + (this.failAfterRun ? 1 : 0);
  }

  /** The outcome of the branch `n`, consumed from the queue; the predictor learns it. */
  private takeBranch(n: Insn): boolean {
    this.straightLine = 0;
    this.iretCount = 0;
    const bp = this.options.branch_prediction ? this.predictor : undefined;
    if (this.mapCount > 0) {
      const taken = (this.mapBits & 1) === 0;
      const quiet = (this.mapQuiet & 1) !== 0;
      this.mapBits >>>= 1;
      this.mapQuiet >>>= 1;
      this.mapCount--;
      if (bp !== undefined && !quiet) bp.update(n.address, taken);
      return taken;
    }
    if (bp !== undefined && (this.predRun > 0 || this.failAfterRun)) {
      let taken = bp.predict(n.address);
      if (this.predRun > 0) this.predRun--;
      else {
        this.failAfterRun = false;
        taken = !taken;
      }
      bp.update(n.address, taken);
      return taken;
    }
    throw this.error(`branch map exhausted at ${n.hex()}`);
  }

  /**
   * Stopping at branch `n` whose outcome is still queued as a prediction: turn it into an
   * explicit bit now (no other branch can come between), so that bits of later packets, which are
   * appended behind it, keep their order.
   */
  private settleLeftover(n: Insn): void {
    const bp = this.predictor;
    if (n.kind !== Kind.branch || this.mapCount > 0 || bp === undefined) return;
    if (this.predRun === 1 && !this.failAfterRun) {
      this.predRun = 0;
      this.appendMap(bp.predict(n.address) ? 0 : 1, 1);
    } else if (this.predRun === 0 && this.failAfterRun) {
      this.failAfterRun = false;
      this.appendMap(bp.predict(n.address) ? 1 : 0, 1);
    }
  }

  // --- implicit return ---------------------------------------------------------------------------

  private get implicitReturn(): boolean {
    return this.options.implicit_return && this.rasKind !== undefined;
  }

  private push(n: Insn, stack: bigint[] = this.ras): void {
    if (stack.length === this.rasCapacity) stack.shift();
    stack.push(n.nextAddress);
  }

  /** The encoder's rule: a stack predicts a return only to its top, a counter every return. */
  private predicts(target: bigint, stack: bigint[] = this.ras): boolean {
    if (stack.length === 0) return false;
    return this.rasKind === 'counter' || stack[stack.length - 1] === target;
  }

  /**
   * Implicit Return extension: a return leaving a non-empty stack is the one the packet reports
   * (mispredicted, or one too many for irets) when irreport is set, every branch before the
   * reported instruction has been used and irets counts exactly the returns before it in this
   * packet (the spec decoder's `te_inst.irets == irets - 1`, which counts after its pop).
   */
  private reportedReturn(goal: Goal): boolean {
    if (goal.address === undefined || !goal.irreport || goal.irets !== this.iretCount) return false;
    const target = this.tryInsnAt(goal.address);
    return this.branchesLeft() === (target?.kind === Kind.branch ? 1 : 0);
  }

  /**
   * Ratified irdepth: a return while the stack is not empty is implicit unless it is the
   * mispredicted one the packet reports (stack mode only: a counter predicts every return). The
   * packet says so with irreport and irdepth = the depth at the return, the target is not the
   * stack's top, and every branch before the target has been used. Chapter 11 stops at the first
   * return at that depth; but a depth report of a later instruction (same flags) can also meet
   * such a return on its way, so the decoder first checks whether treating the return as implicit
   * reaches the reported address at the reported depth without further branch information, and
   * prefers that. (The flags cannot always tell: the ratified semantics is not decodable in
   * general, spec issue #254; iret.test.ts shows two runs with the same packets.)
   */
  private mispredicted(goal: Goal): boolean {
    if (this.rasKind !== 'stack' || goal.address === undefined || !goal.irreport) return false;
    if (goal.irdepth !== this.ras.length || this.ras[this.ras.length - 1] === goal.address) return false;
    const target = this.tryInsnAt(goal.address);
    if (target === undefined || this.branchesLeft() !== (target.kind === Kind.branch ? 1 : 0)) return false;
    return !this.implicitReachesGoal(goal);
  }

  /** Extension: a return pops a non-empty stack and counts; returns what it popped. */
  private popCounted(): bigint {
    this.iretCount++;
    return this.ras.pop() ?? 0n;
  }

  /** Dry run from the return's predicted target: no output, no branch information, a copied stack. */
  private implicitReachesGoal(goal: Goal): boolean {
    const stack = this.ras.slice();
    let cur = this.tryInsnAt(stack.pop() ?? 0n);
    let prev: Insn | undefined;
    for (let steps = 0; cur !== undefined && steps < 1 << 16; steps++) {
      if (cur.address === goal.address && !goal.updiscon && stack.length === goal.irdepth) return true;
      let next: bigint | undefined;
      switch (cur.kind) {
        case Kind.sequential:
          next = cur.nextAddress;
          break;
        case Kind.directJump:
          if (cur.isCall) this.push(cur, stack);
          next = cur.info.target;
          break;
        case Kind.indirectJump: {
          const si = this.sijumpTarget(prev, cur);
          if (si !== undefined) {
            if (cur.isReturn && this.predicts(si.address, stack)) stack.pop();
            else if (cur.isCall) this.push(cur, stack);
            next = si.address;
          } else if (cur.isReturn && stack.length > 0) {
            next = stack.pop();
          } else {
            return false;
          }
          break;
        }
        default:
          return false; // a branch would need information the packet does not have
      }
      prev = cur;
      cur = next === undefined ? undefined : this.tryInsnAt(next);
    }
    return false;
  }

  // --- following the program ----------------------------------------------------------------------

  /** The target of a sequentially inferable jump `n` right after `prev`, or undefined. */
  private sijumpTarget(prev: Insn | undefined, n: Insn): Insn | undefined {
    if (!this.options.sijump || prev === undefined || prev.nextAddress !== n.address) return undefined;
    if (n.siFrom === prev) return n.siTarget;
    if (!isSequentiallyInferable(prev.info, n.info)) return undefined;
    const target = this.insnAt(sequentialTarget(prev.encoding, prev.address, n.encoding, this.xlen));
    n.siFrom = prev;
    n.siTarget = target;
    return target;
  }

  /** True when leaving `n` needs an address from a packet. */
  private needsAddress(n: Insn): boolean {
    if (n.kind === Kind.trapReturn) return true;
    if (n.kind !== Kind.indirectJump) return false;
    if (this.sijumpTarget(this.prev, n) !== undefined) return false;
    return !(n.isReturn && this.implicitReturn && this.ras.length > 0);
  }

  /**
   * Moves from `cur` to the instruction the goal describes, emitting every instruction on the
   * way. Returns how it stopped: at the target of an uninferable jump (`updiscon`, final), at an
   * address reached otherwise (`inferred`, tentative; `notify` and `reached` are final), or at
   * the last branch of a packet without address (`last-branch`).
   */
  private follow(goal: Goal): Stop {
    this.straightLine = 0;
    // Compared by identity: one Insn per address. An address outside the image can only be
    // reached as the target of an uninferable jump, where insnAt reports it.
    const goalInsn = goal.address === undefined || goal.updisconOnly ? undefined : this.tryInsnAt(goal.address);
    for (;;) {
      const from = this.cur;
      if (from === undefined) throw this.error('no current instruction to follow from');
      let viaAddress = false;
      let next: Insn;
      switch (from.kind) {
        case Kind.sequential:
          next = this.sequentialNext(from);
          break;
        case Kind.branch:
          next = this.takeBranch(from) ? this.staticTarget(from) : this.sequentialNext(from);
          break;
        case Kind.directJump:
          if (from.isCall && this.implicitReturn) this.push(from);
          next = this.staticTarget(from);
          break;
        case Kind.indirectJump: {
          const inferred = this.indirectTarget(from, goal);
          viaAddress = inferred === undefined;
          next = inferred ?? this.reportedTarget(from, goal);
          if (viaAddress && from.isCall && this.implicitReturn) this.push(from);
          break;
        }
        case Kind.trapReturn:
          viaAddress = true;
          next = this.reportedTarget(from, goal);
          break;
        case Kind.trapInstruction:
          throw this.error(`the path goes past ${from.info.mnemonic} at ${from.hex()}, which traps, without a trap packet`);
        default:
          throw this.error(`the path reaches an illegal instruction at ${from.hex()}`);
      }
      this.prev = from;
      this.cur = next;
      this.out.push(next.item);

      const left = this.branchesLeft();
      const own = next.kind === Kind.branch ? 1 : 0;
      if (viaAddress) {
        if (left !== own) throw this.error(`${left - own} unprocessed branches before ${next.hex()}`);
        this.settleLeftover(next);
        return 'updiscon';
      }
      if (goal.address === undefined) {
        if (own === 1 && left === 1) {
          this.settleLeftover(next);
          return 'last-branch';
        }
      } else if (next === goalInsn && left === own && !(goal.afterControl && from.kind === Kind.sequential)) {
        const stop = this.stopHere(goal);
        if (stop !== undefined) {
          this.settleLeftover(next);
          return stop;
        }
      }
      if (++this.straightLine > this.maxStraightLine) {
        throw this.error(`followed ${this.maxStraightLine} instructions from ${from.hex()} without reaching the reported instruction`);
      }
    }
  }

  /**
   * At the reported address with all branches used, reached without an uninferable jump. A sync
   * packet stops at once. Otherwise the implicit returns must match: with the extension, at least
   * irets returns popped in this packet before it when irreport is set (the spec decoder's
   * `unprocessed_implicit_returns`, except that a return at the reported address does not count:
   * docs/etrace-model.md); ratified, the depth must be irdepth when irreport, else 0
   * (docs/etrace-model.md reports every non-zero depth). Then notify makes the stop final (6.6.2
   * case 4), a set updiscon flag forbids it (case 2: the report is the target of an uninferable
   * jump later on), and otherwise the stop is tentative (cases 1 and 3).
   */
  private stopHere(goal: Goal): Stop | undefined {
    if (goal.sync) return 'reached';
    if (this.iretExt) {
      if (this.implicitReturn && goal.irreport && this.iretCount < goal.irets) return undefined;
    } else if (this.implicitReturn && this.ras.length !== (goal.irreport ? goal.irdepth : 0)) return undefined;
    if (goal.notify) return 'notify';
    if (goal.updiscon) return undefined;
    return 'inferred';
  }

  /** The target of jalr/c.jr/c.jalr when the decoder can infer it (sijump, implicit return). */
  private indirectTarget(n: Insn, goal: Goal): Insn | undefined {
    const si = this.sijumpTarget(this.prev, n);
    if (si !== undefined) {
      if (this.implicitReturn) {
        // The target is known, so the encoder's implicit-return rule can be applied exactly
        // (with the extension every return pops a non-empty stack).
        if (n.isReturn && this.iretExt) {
          if (this.ras.length > 0) this.popCounted();
        } else if (n.isReturn && this.predicts(si.address)) this.ras.pop();
        else if (n.isCall) this.push(n);
      }
      return si;
    }
    if (this.iretExt) {
      if (!n.isReturn || !this.implicitReturn || this.ras.length === 0) return undefined;
      const reported = this.reportedReturn(goal);
      const predicted = this.popCounted();
      return reported ? undefined : this.insnAt(predicted);
    }
    if (n.isReturn && this.implicitReturn && this.ras.length > 0 && !this.mispredicted(goal)) {
      return this.insnAt(this.ras.pop() ?? 0n);
    }
    return undefined;
  }

  private reportedTarget(n: Insn, goal: Goal): Insn {
    if (goal.address === undefined) {
      throw this.error(`uninferable ${n.info.mnemonic} at ${n.hex()}, but the packet carries no address`);
    }
    return this.insnAt(goal.address);
  }

  private error(message: string): RvError {
    return new RvError('bad-value', `packet at byte offset ${this.offset}: ${message}`, { offset: this.offset });
  }
}

function formatName(kind: PacketKind): string {
  switch (kind) {
    case 'F0.SF0':
      return 'format 0 subformat 0';
    case 'F0.SF1':
      return 'format 0 subformat 1';
    case 'F1':
      return 'format 1';
    case 'F2':
      return 'format 2';
    default:
      return `format 3 subformat ${kind.slice(-1)}`;
  }
}
