/**
 * The N-Trace encoder's golden model: retirement records in, N-Trace messages out, following the
 * seed's rules (chapter 10.1 of RISC-V N-Trace 1.0, ../shared/specs/ntrace-message-generation-rules.txt)
 * and the rest of the specification; every decision where the spec leaves freedom is in
 * docs/ntrace-model.md, cited there by section.
 *
 * Shape: one pass, no pipeline. A discontinuity (taken branch in BTM, uninferable jump, xRET,
 * trap) is remembered as `pending` and sent when the next instruction retires (or the next trap
 * record arrives), because its message reports that next address; everything else is decided on
 * the record that causes it. With `ownership` (trTeContext) an Ownership message follows what that
 * record sent first (the pending message or a sync), before its own instructions are counted.
 */
import { NexusWriter } from './bits.ts';
import {
  BTYPE,
  directBranch,
  directBranchSync,
  ECODE,
  errorMessage,
  ETYPE,
  EVCODE,
  indirectBranch,
  indirectBranchHist,
  indirectBranchHistSync,
  indirectBranchSync,
  type MessageFormat,
  NTRACE_MAX_BCNT,
  NTRACE_MAX_HREPEAT,
  type NtraceMessage,
  type NtraceMessageName,
  ownership,
  OWNERSHIP_FORMAT,
  ownershipProcess,
  progTraceCorrelation,
  progTraceSync,
  RCODE,
  repeatBranch,
  resourceFull,
  SYNC,
} from './messages.ts';
import type { NtraceConfig } from './settings.ts';
import { Itype, lastInstructionAddress, type RetirementRecord, Trigger } from '../hart/records.ts';

export interface NtraceEncodeOptions {
  /** Time source for TSTAMP (when the configuration has timestamps); default: the record's `time`. */
  timestamps?: (r: RetirementRecord, index: number) => bigint;
  /** Keep the list of messages with their fields (default true; off for speed). */
  messages?: boolean;
}

/** What a message offered to an output sink is (output.ts). */
/** A trace message: refused = lost. */
export const OFFER_MESSAGE = 0;
/** The SYNC 7 synchronizing message after an overrun: refused = tried again at the next traced record. */
export const OFFER_SYNC7 = 1;
/** The Error message reporting an overrun. */
export const OFFER_ERROR = 2;

/** A message handed to an output sink: its bytes and what the output FIFO decides it by. */
export interface NtraceOffer {
  bytes: Uint8Array;
  /** OFFER_*. */
  what: number;
  /** The time of its event (the Error message's TSTAMP time when it is the first message lost). */
  t: bigint;
  /** The TSTAMP time it carries (0 without timestamps): the base of the next relative TSTAMP once it entered. */
  ts: bigint;
  /** Its messages (SYNC 7 and its Ownership message are one piece), offsets from the start of `bytes`. */
  messages: NtraceMessage[];
  /** An Ownership message on its own: lost before the Error message entered, it sets ECODE bit 3. */
  ownership: boolean;
  /** That Ownership message is there only because of the synchronizing message before it. */
  onlyAfterSync: boolean;
}

/**
 * Where the messages go when an output FIFO is modelled (output.ts): every message, once written,
 * is handed over and leaves the encoder's byte stream. The FIFO decides later whether it enters;
 * the encoder never learns it, except through setRecover (the restart after an overrun).
 */
export interface NtraceSink {
  take(offer: NtraceOffer): void;
}

export interface NtraceEncodeResult {
  bytes: Uint8Array;
  messages: NtraceMessage[];
}

// Module-level copies (hot path).
const EXCEPTION = Itype.exception;
const INTERRUPT = Itype.interrupt;
const TRAP_RETURN = Itype.trapReturn;
const NONTAKEN = Itype.nontakenBranch;
const TAKEN = Itype.takenBranch;
const JUMP3 = Itype.uninferableJump3;
const UCALL = Itype.uninferableCall;
const ICALL = Itype.inferableCall;
const UTAIL = Itype.uninferableTailCall;
const SWAP = Itype.coRoutineSwap;
const RETURN = Itype.return;
const UJUMP = Itype.otherUninferableJump;
const TRACE_ON = Trigger.traceOn;
const TRACE_OFF = Trigger.traceOff;

/** What the next retirement has to report. */
const NONE = 0;
const DIRECT = 1;
const INDIRECT = 2;
/** A return popped from the stack: reported only if the next address differs from the prediction. */
const RETURN_PREDICTED = 3;

/** What the last message sent was, for RepeatBranch / HREPEAT. */
const LAST_OTHER = 0;
const LAST_INDIRECT = 1;
const LAST_HIST_FULL = 2;

const HIST_SPEC_LIMIT = 2 ** 30; // the seed's enco_opt_limHIST
const HIST_FULL_REGISTER = 2 ** 31; // stop bit in bit 31: the 32-bit register is full

export class NtraceEncoder {
  private readonly w: NexusWriter;
  private readonly f: MessageFormat;
  private readonly htm: boolean;
  private readonly plainWhenEmpty: boolean;
  private readonly icntLimit: number;
  private readonly histSpec: boolean;
  private readonly irMode: number; // 0 none, 1 counter, 2 stack
  private readonly stackSize: number;
  private readonly syncPeriod: number;
  private readonly ts: boolean;
  private readonly timeOf: ((r: RetirementRecord, index: number) => bigint) | undefined;
  private readonly record: boolean;
  /** trTeContext: Ownership messages. */
  private readonly own: boolean;
  /** The records' context bits that CONTEXT carries. */
  private readonly contextMask: bigint;
  readonly messages: NtraceMessage[] = [];

  private index = 0;
  // trace state
  private enabled = true;
  private running = false;
  private halted = false;
  private inReset = false;
  /** Events since the trace stopped, for the SYNC reason of the restart. */
  private sawDebug = false;
  private disabledByTrigger = false;
  /** The hart went through reset while the trace ran: the next retirement sends SYNC 1. */
  private resetSync = false;
  /** A ProgTraceCorrelation(EVCODE 4) was the last thing sent: a halt then sends EVCODE 0 too. */
  private offReported = false;

  // counters
  private icnt = 0;
  private hist = 1;
  private histFullPending = false;
  private lastAddr = 0n;
  private pending = NONE;
  private pendingBtype = 0;
  private pendingTime = 0n;
  private predicted = 0n;

  // periodic sync
  private sinceSync = 0;
  private syncDue = false;

  // repeats
  private last = LAST_OTHER;
  private lastIcnt = 0;
  private lastBtype = 0;
  private lastHist = 0;
  private lastTcode = 0;
  private bcnt = 0;
  private lastHistFull = 0;
  private hrepeat = 0;
  private repeatTime = 0n;

  // implicit return
  private calls = 0;
  private readonly stack: bigint[] = [];

  // timestamps
  private lastTs = 0n;

  // ownership (trTeContext)
  /** A synchronizing message went out for the record being handled: an Ownership message follows it. */
  private synced = false;
  /** The `priv` last reported in an Ownership message (-1: none yet). */
  private ownPriv = -1;

  // output (output.ts)
  private sink: NtraceSink | undefined;
  /**
   * The restart is due: the next start or traced record sends SYNC 7. Set by the output as each
   * cycle starts (setRecover); cleared when the SYNC 7 is made (the output makes it due again if
   * it does not enter).
   */
  private recover = false;
  /**
   * With `ownership`: the byte offset of a SYNC 7 written but not handed over yet (-1: none); it
   * goes together with its Ownership message, with its time.
   */
  private restartAt = -1;
  private restartTime = 0n;

  constructor(
    private readonly c: NtraceConfig,
    opts: NtraceEncodeOptions = {},
  ) {
    this.w = new NexusWriter(1 << 16);
    this.f = { srcWidth: c.srcWidth, src: c.src, timestamp: c.timestamp, addressMsbDrop: c.addressMsbDrop, xlen: c.xlen };
    this.htm = c.mode === 'htm';
    this.plainWhenEmpty = c.emptyHistIndirect === 'plain';
    this.icntLimit = 2 ** c.icntWidth;
    this.histSpec = c.histFull === 'spec';
    this.irMode = c.implicitReturn === 'none' ? 0 : c.implicitReturn === 'counter' ? 1 : 2;
    this.stackSize = c.callStackSize;
    this.syncPeriod = c.syncPeriod;
    this.ts = c.timestamp;
    this.timeOf = opts.timestamps;
    this.record = opts.messages !== false;
    this.own = c.ownership;
    this.contextMask = (1n << BigInt(c.contextWidth)) - 1n;
  }

  get bytes(): Uint8Array {
    return this.w.bytes();
  }

  /** Hands every message to `sink` (output.ts), which decides whether it enters the FIFO. */
  connect(sink: NtraceSink): void {
    this.sink = sink;
  }

  /** The output's state as a cycle starts (output.ts): whether the restart (SYNC 7) is due. */
  setRecover(due: boolean): void {
    this.recover = due;
  }

  /**
   * The Error message of an overrun (ETYPE 0, ECODE 4: program trace messages lost, plus bit 3
   * (ECODE 0xC) when an Ownership message was among them) for time `t` (the first message lost),
   * TSTAMP relative to `base` (the last TSTAMP that entered the FIFO; t is clamped to it). Made
   * for the output, which offers it; the encoder's state is untouched.
   */
  makeError(t: bigint, base: bigint, ownershipLost: boolean): NtraceOffer {
    const o = this.w.length;
    const at = t < base ? base : t;
    const ts = this.ts ? at - base : 0n;
    const ecode = ECODE.programTraceLost | (ownershipLost ? ECODE.ownershipLost : 0);
    errorMessage(this.w, this.f, ETYPE.overrun, ecode, ts);
    if (this.record) this.rec('Error', o, { ETYPE: ETYPE.overrun, ECODE: ecode }, ts);
    return this.handOver(o, OFFER_ERROR, t, this.ts ? at : 0n, false, false);
  }

  /** The bytes written from `o` on and their messages, taken out of the encoder's stream. */
  private handOver(o: number, what: number, t: bigint, ts: bigint, ownership: boolean, onlyAfterSync: boolean): NtraceOffer {
    const bytes = this.w.slice(o);
    this.w.truncate(o);
    let first = this.messages.length;
    while (first > 0 && this.messages[first - 1]!.offset >= o) first--;
    const messages = this.messages.splice(first);
    for (const m of messages) m.offset -= o;
    return { bytes, what, t, ts, messages, ownership, onlyAfterSync };
  }

  /** Hands the message written from byte `o` on to the sink. */
  private out(o: number, what: number, t: bigint, ownership = false, onlyAfterSync = false): void {
    this.sink!.take(this.handOver(o, what, t, this.lastTs, ownership, onlyAfterSync));
  }

  // ------------------------------------------------------------------ records

  push(r: RetirementRecord): void {
    const t = this.ts ? (this.timeOf ? this.timeOf(r, this.index) : r.time) : 0n;
    this.index++;
    if (r.halted) {
      if (!this.halted) {
        if (this.running) this.stop(EVCODE.debugEntry, t);
        else if (this.offReported) this.correlation(EVCODE.debugEntry, 0, 1, t); // "Hart halted with trace disabled"
        this.offReported = false;
        this.sawDebug = true;
        this.halted = true;
      }
      return;
    }
    this.halted = false;
    if (r.reset) {
      if (!this.inReset && this.running) {
        this.foldPending(t);
        this.resetSync = true;
      }
      this.inReset = true;
      return;
    }
    this.inReset = false;
    const trig = r.trigger;
    // trace-on qualifies from its own instruction: the last one of a block.
    const turnedOn = (trig & TRACE_ON) !== 0 && !this.enabled;
    if (turnedOn) this.enabled = true;
    const retires = r.iretire > 0 || r.itype === EXCEPTION || r.itype === INTERRUPT;
    if (retires && this.enabled) {
      let n = r.iretire;
      if (!this.running) {
        let from = r.iaddr;
        if (turnedOn && n > 1 << r.ilastsize) {
          n = 1 << r.ilastsize;
          from = lastInstructionAddress(r);
        }
        this.start(from, t);
      } else this.reportPending(r, t);
      if (this.own) this.reportOwnership(r, t);
      this.account(r, n, t);
    }
    if ((trig & TRACE_OFF) !== 0 && this.enabled) {
      if (this.running) {
        this.stop(EVCODE.traceDisabled, t);
        this.offReported = true;
      }
      this.enabled = false;
      this.disabledByTrigger = true;
    }
  }

  /** End of the records: the trace is disabled (ProgTraceCorrelation EVCODE 4) if it runs. */
  finish(): NtraceEncodeResult {
    if (this.running) this.stop(EVCODE.traceDisabled, this.lastTs);
    this.flushRepeats();
    return { bytes: this.w.bytes(), messages: this.messages };
  }

  // ------------------------------------------------------------------ decisions

  /** The first traced retirement after a start, reset, debug exit or trace enable. */
  private start(addr: bigint, t: bigint): void {
    const reason = this.recover ? SYNC.overrun : this.sawDebug ? SYNC.debugExit : this.disabledByTrigger ? SYNC.traceEnable : SYNC.reset;
    this.sawDebug = false;
    this.disabledByTrigger = false;
    this.offReported = false;
    this.running = true;
    this.pending = NONE;
    this.sync(reason, NONE, 0, addr, t);
  }

  /** At a retirement (or a trap record): send what the previous one left pending. */
  private reportPending(r: RetirementRecord, t: bigint): void {
    if (this.histFullPending && !this.recover) this.histFullNow(t);
    let p = this.pending;
    if (p === NONE && !this.syncDue && !this.resetSync && !this.recover) return;
    const addr = r.iaddr;
    if (p === RETURN_PREDICTED) p = addr === this.predicted ? NONE : INDIRECT;
    this.pending = NONE;
    if (this.recover) {
      this.resetSync = false;
      this.restart(addr, t);
    } else if (this.resetSync) {
      this.resetSync = false;
      this.sync(SYNC.reset, NONE, 0, addr, t);
    } else if (this.syncDue) {
      this.sync(SYNC.periodic, p, this.pendingBtype, addr, p === NONE ? t : this.pendingTime);
    } else if (p === DIRECT) {
      this.direct(this.pendingTime);
    } else if (p === INDIRECT) {
      this.indirect(this.pendingBtype, addr, this.pendingTime);
    }
  }

  /**
   * The restart after an overrun: ProgTraceSync(SYNC 7, I-CNT 0, F-ADDR of this record). What the
   * encoder counted since the loss (I-CNT, HIST, the pending message, repeats) describes
   * instructions whose start a decoder lost: it is dropped, and the trace restarts here.
   */
  private restart(addr: bigint, t: bigint): void {
    this.icnt = 0;
    this.hist = 1;
    this.histFullPending = false;
    this.bcnt = 0;
    this.hrepeat = 0;
    this.sync(SYNC.overrun, NONE, 0, addr, t);
  }

  /**
   * trTeContext (spec "Ownership Message"; "Synchronizing Messages": "An Ownership message (if
   * enabled) must be emitted immediately after all synchronizing messages"). Called for every
   * traced record right after what it sent first (a sync, or the pending message that reports
   * this record's address, so the decoder knows where the new privilege starts) and before its
   * own instructions are counted:
   * - after a synchronizing message that went out: FORMAT 2 (sync or scontext), PRV, V, CONTEXT;
   * - else at a reported context change (ctype != 0): FORMAT 2 with the new context;
   * - else when the privilege differs from the one last reported (a trap or trap return into
   *   another privilege, ecall/ebreak included): FORMAT 0, PRV and V only.
   */
  private reportOwnership(r: RetirementRecord, t: bigint): void {
    const afterSync = this.synced;
    this.synced = false;
    const withContext = afterSync || r.ctype !== 0;
    if (!withContext && r.priv === this.ownPriv) return;
    // Made only because of the sync before it: not reported lost when that sync did not enter.
    const onlyAfterSync = r.ctype === 0 && r.priv === this.ownPriv;
    this.ownPriv = r.priv;
    // The records carry no virtualization mode: V is 0 and PRV the privilege's two bits.
    const format = withContext ? OWNERSHIP_FORMAT.scontext : OWNERSHIP_FORMAT.privilege;
    const context = withContext ? r.context & this.contextMask : 0n;
    const process = ownershipProcess(format, r.priv & 3, 0, context);
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, false);
    ownership(this.w, this.f, process, ts);
    if (this.record) {
      const fields: Record<string, number | bigint> = { PROCESS: process, FORMAT: format, PRV: r.priv & 3, V: 0 };
      if (withContext) fields.CONTEXT = context;
      this.rec('Ownership', o, fields, ts);
    }
    if (this.restartAt >= 0) {
      // SYNC 7 and this message, offered as one piece: both enter, or neither (a SYNC 7 retry).
      const at = this.restartAt;
      this.restartAt = -1;
      this.sink!.take(this.handOver(at, OFFER_SYNC7, this.restartTime, this.lastTs, false, false));
    } else if (this.sink !== undefined) {
      this.out(o, OFFER_MESSAGE, t, true, onlyAfterSync);
    }
    this.counted();
  }

  /** I-CNT (n half-words of the record are traced), HIST and the discontinuity of one record. */
  private account(r: RetirementRecord, n: number, t: bigint): void {
    if (n > 0) {
      const total = this.icnt + n;
      if (total > this.icntLimit) {
        if (this.icnt > 0) this.icntFull(this.icnt, t);
        let rest = n;
        while (rest > this.icntLimit) {
          this.icntFull(this.icntLimit, t);
          rest -= this.icntLimit;
        }
        this.icnt = rest;
      } else {
        this.icnt = total;
      }
    }
    const it = r.itype;
    if (it === 0) return;
    if (it === NONTAKEN || it === TAKEN) {
      if (this.htm) this.addHist(it === TAKEN ? 1 : 0, t);
      else if (it === TAKEN) this.setPending(DIRECT, 0, t);
      return;
    }
    if (it === EXCEPTION) return this.setPending(INDIRECT, BTYPE.exception, t);
    if (it === INTERRUPT) return this.setPending(INDIRECT, BTYPE.interrupt, t);
    if (it === TRAP_RETURN || it === JUMP3 || it === UTAIL || it === UJUMP) return this.setPending(INDIRECT, 0, t);
    if (it === UCALL || it === ICALL) {
      if (this.irMode !== 0) this.pushCall(r.iaddr + BigInt(r.iretire * 2));
      if (it === UCALL) this.setPending(INDIRECT, 0, t);
      return;
    }
    if (it === RETURN) {
      if (this.irMode === 1) {
        if (this.calls > 0) {
          this.calls--;
          return; // implicit
        }
      } else if (this.irMode === 2 && this.stack.length > 0) {
        this.predicted = this.stack.pop()!;
        this.setPending(RETURN_PREDICTED, 0, t);
        return;
      }
      return this.setPending(INDIRECT, 0, t);
    }
    if (it === SWAP) {
      // A co-routine swap is a return and a call: always reported; pops then pushes.
      if (this.irMode === 1) {
        if (this.calls > 0) this.calls--;
      } else if (this.irMode === 2) this.stack.pop();
      if (this.irMode !== 0) this.pushCall(r.iaddr + BigInt(r.iretire * 2));
      return this.setPending(INDIRECT, 0, t);
    }
    // inferable tail call / other inferable jump: nothing
  }

  private setPending(kind: number, btype: number, t: bigint): void {
    this.pending = kind;
    this.pendingBtype = btype;
    this.pendingTime = t;
  }

  private pushCall(ret: bigint): void {
    if (this.irMode === 1) {
      if (this.calls < this.stackSize) this.calls++;
      return;
    }
    if (this.stack.length === this.stackSize) this.stack.shift();
    this.stack.push(ret);
  }

  private addHist(bit: number, t: bigint): void {
    const h = this.hist * 2 + bit;
    if (this.histSpec) {
      if (h >= HIST_SPEC_LIMIT) {
        // The seed: send the history before this branch, keep this branch's bit.
        this.hist = 2 + bit;
        this.histFull((h - bit) / 2, t);
        return;
      }
    } else if (h >= HIST_FULL_REGISTER) {
      this.histFullPending = true;
    }
    this.hist = h;
  }

  /** Deferred HIST full: the full 32-bit register one retirement later. */
  private histFullNow(t: bigint): void {
    this.histFullPending = false;
    const h = this.hist;
    this.hist = 1;
    this.histFull(h, t);
  }

  /** Sends a pending DirectBranch (it needs no address); an indirect one is folded into what follows. */
  private foldPending(t: bigint): void {
    if (this.histFullPending) this.histFullNow(t);
    if (this.pending === DIRECT) this.direct(this.pendingTime);
    this.pending = NONE;
  }

  private stop(evcode: number, t: bigint): void {
    this.foldPending(t);
    this.correlation(evcode, this.icnt, this.hist, t);
    this.icnt = 0;
    this.hist = 1;
    this.running = false;
    this.resetSync = false;
  }

  // ------------------------------------------------------------------ messages

  private stamp(t: bigint, absolute: boolean): bigint {
    if (!this.ts) return 0n;
    if (absolute) {
      this.lastTs = t;
      return t;
    }
    if (t < this.lastTs) t = this.lastTs;
    const rel = t - this.lastTs;
    this.lastTs = t;
    return rel;
  }

  private rec(name: NtraceMessageName, offset: number, fields: Record<string, number | bigint>, tstamp: bigint): void {
    if (this.ts) fields.TSTAMP = tstamp;
    this.messages.push({ name, offset, fields });
  }

  /** Every message but the repeat messages themselves: pending repeats go first. */
  private before(): void {
    if (this.bcnt > 0 || this.hrepeat > 0) this.flushRepeats();
    this.last = LAST_OTHER;
  }

  private counted(): void {
    if (this.syncPeriod > 0 && ++this.sinceSync >= this.syncPeriod) this.syncDue = true;
  }

  private flushRepeats(): void {
    if (this.bcnt > 0) {
      const o = this.w.length;
      const ts = this.stamp(this.repeatTime, false);
      repeatBranch(this.w, this.f, this.bcnt, ts);
      if (this.record) this.rec('RepeatBranch', o, { 'B-CNT': this.bcnt }, ts);
      this.bcnt = 0;
      if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, this.repeatTime);
    }
    if (this.hrepeat > 0) {
      const o = this.w.length;
      const ts = this.stamp(this.repeatTime, false);
      resourceFull(this.w, this.f, RCODE.histRepeat, this.lastHistFull, this.hrepeat, ts);
      if (this.record) this.rec('ResourceFull', o, { RCODE: RCODE.histRepeat, RDATA: this.lastHistFull, HREPEAT: this.hrepeat }, ts);
      this.hrepeat = 0;
      if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, this.repeatTime);
    }
  }

  private sync(reason: number, kind: number, btype: number, addr: bigint, t: bigint): void {
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, true);
    const faddr = addr >> 1n;
    const icnt = this.icnt;
    const hist = this.hist;
    if (kind === DIRECT) {
      directBranchSync(this.w, this.f, reason, icnt, faddr, ts);
      if (this.record) this.rec('DirectBranchSync', o, { SYNC: reason, 'I-CNT': icnt, 'F-ADDR': faddr }, ts);
    } else if (kind === INDIRECT) {
      if (this.htm && !(hist === 1 && this.plainWhenEmpty)) {
        indirectBranchHistSync(this.w, this.f, reason, btype, icnt, faddr, hist, ts);
        if (this.record) this.rec('IndirectBranchHistSync', o, { SYNC: reason, 'B-TYPE': btype, 'I-CNT': icnt, 'F-ADDR': faddr, HIST: hist }, ts);
      } else {
        indirectBranchSync(this.w, this.f, reason, btype, icnt, faddr, ts);
        if (this.record) this.rec('IndirectBranchSync', o, { SYNC: reason, 'B-TYPE': btype, 'I-CNT': icnt, 'F-ADDR': faddr }, ts);
      }
    } else if (hist === 1) {
      progTraceSync(this.w, this.f, reason, icnt, faddr, ts);
      if (this.record) this.rec('ProgTraceSync', o, { SYNC: reason, 'I-CNT': icnt, 'F-ADDR': faddr }, ts);
    } else {
      indirectBranchHistSync(this.w, this.f, reason, 0, icnt, faddr, hist, ts);
      if (this.record) this.rec('IndirectBranchHistSync', o, { SYNC: reason, 'B-TYPE': 0, 'I-CNT': icnt, 'F-ADDR': faddr, HIST: hist }, ts);
    }
    if (this.sink !== undefined) {
      // The restart is made once; a refused SYNC 7 is made due again by the output (setRecover)
      // and tried at a later traced record; the state is reset either way.
      const overrun = reason === SYNC.overrun;
      if (overrun) this.recover = false;
      if (overrun && this.own) {
        // Handed over with its Ownership message (reportOwnership): a SYNC 7 enters as soon as it
        // fits, so an Ownership message offered after it would hardly ever fit and every restart
        // would be followed by a new loss.
        this.restartAt = o;
        this.restartTime = t;
      } else {
        this.out(o, overrun ? OFFER_SYNC7 : OFFER_MESSAGE, t);
      }
    }
    // Every synchronizing message is followed by an Ownership message (whether it enters the FIFO
    // is the output's business).
    if (this.own) this.synced = true;
    // A synchronizing message resets the encoder state.
    this.icnt = 0;
    this.hist = 1;
    this.histFullPending = false;
    this.lastAddr = addr;
    this.calls = 0;
    this.stack.length = 0;
    this.sinceSync = 0;
    this.syncDue = false;
    this.last = LAST_OTHER;
  }

  private direct(t: bigint): void {
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, false);
    directBranch(this.w, this.f, this.icnt, ts);
    if (this.record) this.rec('DirectBranch', o, { 'I-CNT': this.icnt }, ts);
    if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, t);
    this.icnt = 0;
    this.counted();
  }

  private indirect(btype: number, addr: bigint, t: bigint): void {
    const icnt = this.icnt;
    const hist = this.hist;
    const withHist = this.htm && !(hist === 1 && this.plainWhenEmpty);
    const tcode = withHist ? 28 : 4;
    const uaddr = (addr ^ this.lastAddr) >> 1n;
    this.icnt = 0;
    this.hist = 1;
    if (
      this.c.repeatBranch &&
      this.last === LAST_INDIRECT &&
      uaddr === 0n &&
      this.lastTcode === tcode &&
      this.lastIcnt === icnt &&
      this.lastBtype === btype &&
      this.lastHist === hist
    ) {
      this.repeatTime = t;
      if (++this.bcnt === NTRACE_MAX_BCNT) this.flushRepeats();
      this.counted();
      return;
    }
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, false);
    if (withHist) {
      indirectBranchHist(this.w, this.f, btype, icnt, uaddr, hist, ts);
      if (this.record) this.rec('IndirectBranchHist', o, { 'B-TYPE': btype, 'I-CNT': icnt, 'U-ADDR': uaddr, HIST: hist }, ts);
    } else {
      indirectBranch(this.w, this.f, btype, icnt, uaddr, ts);
      if (this.record) this.rec('IndirectBranch', o, { 'B-TYPE': btype, 'I-CNT': icnt, 'U-ADDR': uaddr }, ts);
    }
    if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, t);
    this.lastAddr = addr;
    if (uaddr === 0n) {
      this.last = LAST_INDIRECT;
      this.lastTcode = tcode;
      this.lastIcnt = icnt;
      this.lastBtype = btype;
      this.lastHist = hist;
    }
    this.counted();
  }

  private icntFull(value: number, t: bigint): void {
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, false);
    resourceFull(this.w, this.f, RCODE.icnt, value, 0, ts);
    if (this.record) this.rec('ResourceFull', o, { RCODE: RCODE.icnt, RDATA: value }, ts);
    if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, t);
    this.counted();
  }

  private histFull(value: number, t: bigint): void {
    if (this.c.repeatHistory && this.last === LAST_HIST_FULL && value === this.lastHistFull) {
      this.repeatTime = t;
      if (++this.hrepeat === NTRACE_MAX_HREPEAT) this.flushRepeats();
      this.counted();
      return;
    }
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, false);
    resourceFull(this.w, this.f, RCODE.hist, value, 0, ts);
    if (this.record) this.rec('ResourceFull', o, { RCODE: RCODE.hist, RDATA: value }, ts);
    if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, t);
    this.last = LAST_HIST_FULL;
    this.lastHistFull = value;
    this.counted();
  }

  private correlation(evcode: number, icnt: number, hist: number, t: bigint): void {
    this.before();
    const o = this.w.length;
    const ts = this.stamp(t, false);
    const cdf = this.htm ? 1 : 0;
    progTraceCorrelation(this.w, this.f, evcode, cdf, icnt, hist, ts);
    if (this.record) {
      const fields: Record<string, number | bigint> = { EVCODE: evcode, CDF: cdf, 'I-CNT': icnt };
      if (cdf === 1) fields.HIST = hist;
      this.rec('ProgTraceCorrelation', o, fields, ts);
    }
    if (this.sink !== undefined) this.out(o, OFFER_MESSAGE, t);
    this.counted();
  }
}

/** Encodes a whole stream of retirement records (the end of the records disables the trace). */
export function encodeNtrace(records: readonly RetirementRecord[], c: NtraceConfig, opts: NtraceEncodeOptions = {}): NtraceEncodeResult {
  const e = new NtraceEncoder(c, opts);
  for (let i = 0; i < records.length; i++) e.push(records[i]!);
  return e.finish();
}
