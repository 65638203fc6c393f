/**
 * The E-Trace instruction trace encoder: retirement records in, te_inst packets out, following the
 * algorithm and decisions of docs/etrace-model.md (section numbers below refer to the seed spec).
 *
 * Records are turned into instruction views (first and last instruction of each block) and go
 * through the three-stage pipeline previous / current / next: every decision is about `current`,
 * taken when `next` is known. Packets go to a sink (the output FIFO model, or a collector).
 */
import type { EtraceConfig, EtraceOptions, EtraceParams } from './config.ts';
import type { DataEmitted } from './data/encoder.ts';
import { Qualifier } from './filter.ts';
import { BRANCH_FMT, branchMapWidth, IRETS_MAX, iretExtension, optionFields, type Packet, type PacketFlags, packetWidths, QUAL_STATUS } from './packet/index.ts';
import { type IrField, irField, packPacket, relativeFlags } from './packet/pack.ts';
import { BranchPredictor, JumpTargetCache, ReturnPredictor } from './predictors.ts';
import { isUninferableJump, Itype, type RetirementRecord, toItype3, Trigger } from '../hart/records.ts';

/** One instruction as the encoder sees it (or a trap that retired nothing, or a halted cycle). */
interface View {
  addr: bigint;
  itype: number;
  retired: boolean;
  /** Bytes of the instruction; known for the last instruction of a block only (0 otherwise). */
  size: number;
  priv: number;
  context: bigint;
  ctype: number;
  cause: number;
  tval: bigint;
  time: bigint;
  sijump: boolean;
  notify: boolean;
  qualified: boolean;
  /** iEnable after this record's triggers (for the support packet that ends tracing). */
  enabled: boolean;
  /** The first view of its record: the record's resync units are counted here. */
  startsRecord: boolean;
  /** Resync units (cycles or half-words) of the record, and of idle cycles before it. */
  units: number;
  /** Decided when the view is current: an uninferable discontinuity (the next view is reported). */
  updiscon: boolean;
}

/** What produced a packet reporting current: kept for the support packet's qual_status. */
type Reason = 'updiscon' | 'other';

export interface EmittedPacket {
  packet: Packet;
  /** Index of the record whose arrival produced the packet (records.length at the end). */
  record: number;
}

/** Receives packets; returns false when the packet was dropped (output FIFO full). */
export type PacketSink = (p: EmittedPacket) => boolean;

/**
 * Why the flowchart (docs/etrace-model.md) sent a packet: the decision that produced it. Sync reasons
 * (F3 SF0/SF1): first-qualified, trace-loss, resync, privilege-change, context-change, trap. Reasons
 * of an F0/F1/F2 report: updiscon, implicit-return-mispredict, trap (current is a retired trap),
 * notify, resync-branches (resync_br), next-trap, next-privilege-change, next-context-change,
 * next-unqualified. Others: branch-map-full (F1 without address), branch-misprediction (F0 SF0
 * without address), context-change (F3 SF2), support-start, support-end, option-change (F3 SF3).
 */
export type EtraceReason =
  | 'first-qualified'
  | 'trace-loss'
  | 'resync'
  | 'privilege-change'
  | 'context-change'
  | 'trap'
  | 'updiscon'
  | 'implicit-return-mispredict'
  | 'notify'
  | 'resync-branches'
  | 'next-trap'
  | 'next-privilege-change'
  | 'next-context-change'
  | 'next-unqualified'
  | 'branch-map-full'
  | 'branch-misprediction'
  | 'support-start'
  | 'support-end'
  | 'option-change';

/**
 * An optional observer of the encoder's decisions (functional coverage). Called for every packet the
 * encoder offers to the output, with the reason that sent it and whether the output accepted it, and
 * for every report with its implicit-return fields (irreport, and irdepth or irets).
 */
export interface EtraceObserver {
  packet(packet: Packet, reason: EtraceReason, accepted: boolean): void;
  implicitReturn(irreport: boolean, value: bigint | undefined): void;
  /**
   * Each record's qualification (chapter 5): qualified, the comparators' watchpoint notify, whether
   * it was a halted or reset cycle, and iEnable as the triggers left it.
   */
  qualify?(qualified: boolean, notify: boolean, haltedOrReset: boolean, enabled: boolean): void;
  /** Data trace: every te_data packet the data encoder offers, with its decisions, and whether the output accepted it. */
  data?(emitted: DataEmitted, accepted: boolean): void;
}

const END_VIEW: View = {
  addr: 0n,
  itype: 0,
  retired: false,
  size: 0,
  priv: -1,
  context: 0n,
  ctype: 0,
  cause: 0,
  tval: 0n,
  time: 0n,
  sijump: false,
  notify: false,
  qualified: false,
  enabled: false,
  startsRecord: true,
  units: 0,
  updiscon: false,
};

// Module-level copies: reading them does not go through the module's export getters (hot path).
const EXCEPTION = Itype.exception;
const INTERRUPT = Itype.interrupt;
const TAKEN = Itype.takenBranch;
const NONTAKEN = Itype.nontakenBranch;
const RETURN = Itype.return;
const TRAP_RETURN = Itype.trapReturn;
const UNINFERABLE_CALL = Itype.uninferableCall;
const INFERABLE_CALL = Itype.inferableCall;

export class EtraceEncoder {
  private readonly p: EtraceParams;
  /** The run-time options in force (changed by `changeOptions`). */
  private o: EtraceOptions;
  private readonly ratified: boolean;
  private qualifier: Qualifier;
  private readonly addrBits: number;
  private readonly lsb: bigint;
  private readonly ctypeMask: number;
  private readonly addrMsb: bigint;
  private readonly ring: View[] = [0, 1, 2, 3].map(() => ({ ...END_VIEW }));
  private ringNext = 0;
  /** Implicit Return extension (irets) rather than the ratified irdepth. */
  private readonly iretExt: boolean;
  /** The field after irreport (irets or irdepth) and its width. */
  private readonly irField: IrField;
  private readonly irBits: number;
  private resyncMax = 0;
  private predictor?: BranchPredictor;
  private jtc?: JumpTargetCache;
  private returns?: ReturnPredictor;

  // pipeline
  private prev: View = END_VIEW;
  private curr: View | undefined;
  private recordIndex = 0;

  // branch map and prediction
  private branches = 0;
  private branchMap = 0;
  /** Correctly predicted branches since the last packet, while none failed. */
  private pbc = 0;
  /** A branch in the map failed its prediction (the count mode is off for this map). */
  private mapFailed = false;
  /** In count mode, the current branch failed its prediction. */
  private countFailed = false;
  /** Whether the current view's branch failed its prediction (for branch_fmt 11). */
  private currentFailed = false;

  // state between views
  private lastAddress = 0n;
  private resyncCount = 0;
  /** Resync units of the record being encoded. */
  private recordUnits = 0;
  private syncNext = true;
  /** Trace was lost: only format 3 packets are worth sending until a sync gets through. */
  private awaitingSync = false;
  /**
   * Implicit Return extension: returns that popped the stack (or counter) since the last branch or
   * the last packet that reports an instruction (formats 0-2, F3 SF0/SF1). A return counts from
   * the instruction after it on: a packet reporting the return itself does not count it.
   */
  private irets = 0;
  private trapReportedWithThaddr0 = false;
  private lastReportReason: Reason = 'other';
  private tracing = false;
  /** iEnable as last reported in a support packet. */
  private reportedEnable: boolean;
  /**
   * The return at prev was not implicit: the irreport/irdepth or irreport/irets the report of its
   * target carries (docs/etrace-model.md, implicit return).
   */
  private failedReturn: PacketFlags | undefined;
  private pendingUnits = 0;
  private finished = false;
  /**
   * Called between a block's first and last view (serial_views_p: the encoder takes one view a
   * clock, so the last view is encoded a clock later).
   */
  betweenViews: (() => void) | undefined;
  /** Observer only: the reason of the packet being decided, and of the sync that `syncNext` asks for. */
  private why: EtraceReason = 'first-qualified';
  private syncWhy: EtraceReason = 'first-qualified';

  constructor(
    private config: EtraceConfig,
    private readonly sink: PacketSink,
    private readonly observer?: EtraceObserver,
  ) {
    this.p = config.params;
    this.o = config.options;
    this.qualifier = new Qualifier(this.o);
    this.ratified = this.p.payload_layout === '2.0';
    this.addrBits = packetWidths(this.p).address;
    this.lsb = BigInt(this.p.iaddress_lsb_p);
    this.ctypeMask = (1 << this.p.ctype_width_p) - 1;
    this.addrMsb = BigInt(this.addrBits - 1);
    this.iretExt = iretExtension(this.p);
    this.irField = irField(this.p);
    this.irBits = this.iretExt ? packetWidths(this.p).irets : packetWidths(this.p).irdepth;
    this.applyOptions(config.options);
    this.reportedEnable = this.o.iEnable;
    this.support(this.o.iEnable, QUAL_STATUS.no_change, 'support-start');
  }

  /** The structures the options switch on, fresh (as after a synchronisation). */
  private applyOptions(o: EtraceOptions): void {
    this.o = o;
    this.qualifier = new Qualifier(o);
    this.resyncMax = 1 << (o.ResyncMax + 4);
    this.predictor = o.BranchPrediction ? new BranchPredictor(this.p.bpred_size_p, this.p.iaddress_lsb_p) : undefined;
    this.jtc = o.JumpTargetCache ? new JumpTargetCache(this.p.cache_size_p, this.p.iaddress_lsb_p) : undefined;
    this.returns = !o.ImplicitReturn
      ? undefined
      : this.p.return_stack_size_p > 0
        ? new ReturnPredictor('stack', this.p.return_stack_size_p)
        : new ReturnPredictor('counter', this.p.call_counter_size_p);
  }

  /**
   * A run-time configuration change (a register write) between two records. Tracing ends as at
   * the end of a trace (the last instruction is reported), a support packet reports the new
   * options (qual_status ended_* when tracing was on, so the decoder starts afresh), and the next
   * qualified instruction starts with F3 SF0 under the new options.
   */
  changeOptions(o: EtraceOptions): void {
    const wasTracing = this.curr?.qualified === true && this.tracing;
    this.advance(END_VIEW);
    this.curr = undefined;
    this.prev = END_VIEW;
    this.tracing = false;
    this.syncNext = true;
    this.clearBranches();
    this.applyOptions(o);
    this.config = { params: this.p, options: o };
    this.syncWhy = 'first-qualified';
    this.support(o.iEnable, wasTracing ? this.endedStatus() : QUAL_STATUS.no_change, 'option-change');
  }

  /** Feeds one retirement record (one signal group). */
  push(r: RetirementRecord): void {
    if (this.finished) throw new Error('EtraceEncoder.push after finish');
    // The record's units (and idle cycles before it) are counted when its first view is current.
    if (!r.sameCycle && this.o.ResyncMode === 2) this.pendingUnits += 1;
    if (this.o.ResyncMode === 3) this.pendingUnits += r.iretire;
    this.pushViews(r);
    this.recordIndex++;
  }

  /** Ends the trace: the last instruction is reported, then a support packet (enable 0). */
  finish(): void {
    if (this.finished) return;
    const wasTracing = this.curr?.qualified === true;
    this.advance(END_VIEW);
    this.finished = true;
    this.support(false, wasTracing ? this.endedStatus() : QUAL_STATUS.no_change, 'support-end');
  }

  /** Trace was lost in the output: restart with a synchronisation at the next qualified view. */
  lost(): void {
    this.syncNext = true;
    this.syncWhy = 'trace-loss';
    this.awaitingSync = true;
    this.clearBranches();
  }

  /** Whether the encoder waits for a synchronisation to get through after a loss. */
  isAwaitingSync(): boolean {
    return this.awaitingSync;
  }

  // ------------------------------------------------------------------ views

  /**
   * The next view of the ring, filled (one fixed shape, so V8 keeps the accesses fast); trap and
   * jump fields are set by the caller. The pipeline holds at most previous, current and next, so
   * a ring of four reuses a view only after it has left the pipeline: no allocation per instruction.
   */
  private makeView(
    r: RetirementRecord,
    addr: bigint,
    itype: number,
    retired: boolean,
    size: number,
    ctype: number,
    qualified: boolean,
    enabled: boolean,
    startsRecord: boolean,
    units: number,
  ): View {
    const v = this.ring[this.ringNext]!;
    this.ringNext = (this.ringNext + 1) & 3;
    v.addr = addr;
    v.itype = itype;
    v.retired = retired;
    v.size = size;
    v.priv = r.priv;
    v.context = r.context;
    v.ctype = ctype;
    v.cause = 0;
    v.tval = 0n;
    v.time = r.time;
    v.sijump = false;
    v.notify = false;
    v.qualified = qualified;
    v.enabled = enabled;
    v.startsRecord = startsRecord;
    v.units = units;
    v.updiscon = false;
    return v;
  }

  /** Feeds the views of a record into the pipeline. */
  private pushViews(r: RetirementRecord): void {
    const q = this.qualifier.qualify(r);
    const enabled = this.qualifier.iEnable;
    if (this.observer?.qualify) this.observer.qualify(q.qualified, q.notify, r.halted || r.reset, enabled);
    const ctype = r.ctype & this.ctypeMask;
    const itype = this.p.itype_width_p === 3 ? toItype3(r.itype) : r.itype;
    const units = this.pendingUnits;
    this.pendingUnits = 0;
    if (r.iretire === 0) {
      const isTrap = itype === EXCEPTION || itype === INTERRUPT;
      if (!isTrap && !r.halted && !r.reset) {
        this.pendingUnits = units; // an idle cycle: nothing to encode, its cycles count later
        return;
      }
      // Halted or in reset: the encoder behaves as for an unqualified instruction.
      const v = this.makeView(r, r.iaddr, isTrap ? itype : 0, false, 0, ctype, q.qualified && isTrap, enabled, true, units);
      v.cause = r.cause;
      v.tval = r.tval;
      this.advance(v);
      return;
    }
    const lastSize = 2 << r.ilastsize;
    const single = r.iretire * 2 === lastSize;
    if (!single) {
      this.advance(this.makeView(r, r.iaddr, 0, true, 0, ctype, q.qualified, enabled, true, units));
      this.betweenViews?.();
    }
    const last = this.makeView(
      r,
      single ? r.iaddr : r.iaddr + BigInt(r.iretire * 2 - lastSize),
      itype,
      true,
      lastSize,
      single ? ctype : 0,
      q.qualified,
      enabled,
      single,
      single ? units : 0,
    );
    last.cause = r.cause;
    last.tval = r.tval;
    last.sijump = r.sijump;
    last.notify = (r.trigger & Trigger.notify) !== 0 || q.notify;
    this.advance(last);
  }

  /** Shifts the pipeline: `next` arrives, the old current is encoded. */
  private advance(next: View): void {
    const curr = this.curr;
    if (curr !== undefined) {
      this.encode(this.prev, curr, next);
      this.prev = curr;
    }
    this.curr = next;
  }

  // ------------------------------------------------------------------ algorithm

  private isUpdiscon(prev: View, v: View, next: View, prevTraced: boolean): boolean {
    if (!v.retired) return false;
    const t = v.itype;
    // xRET is an uninferable discontinuity too (docs/etrace-model.md, definitions).
    if (t !== TRAP_RETURN && !isUninferableJump(t)) return false;
    if (this.sijumpInferable(prev, v, prevTraced)) return false;
    if (t === RETURN && this.returns && this.returnIsImplicit(this.returns, next)) return false;
    return true;
  }

  /**
   * Section 3.2.4: a sequentially inferable jump may be treated as inferable only if the constant
   * load before it was traced: `prev` retired, qualified and not lost (a sync after trace loss
   * reports the jump to a decoder that never saw the load).
   */
  private sijumpInferable(prev: View, v: View, prevTraced: boolean): boolean {
    return v.sijump && this.o.siJump && this.p.sijump_p === 1 && prev.retired && prev.qualified && prevTraced && v.itype !== TRAP_RETURN;
  }

  private isPpch(prev: View, v: View): boolean {
    return v.priv !== prev.priv || v.ctype === 2 || v.ctype === 3;
  }

  private isTrap(v: View): boolean {
    return v.itype === EXCEPTION || v.itype === INTERRUPT;
  }

  private encode(prev: View, curr: View, next: View): void {
    if (curr.startsRecord) {
      this.recordUnits = curr.units;
      this.resyncCount += curr.units;
    }
    // 1. Not qualified: tracing ends at the first unqualified view.
    if (!curr.qualified) {
      if (this.tracing) {
        this.tracing = false;
        this.support(curr.enabled, this.endedStatus(), 'support-end');
        this.syncNext = true;
        this.syncWhy = 'first-qualified';
      }
      return;
    }
    if (!this.tracing && this.reportedEnable !== true) this.support(true, QUAL_STATUS.no_change, 'support-start');
    this.tracing = true;

    // 2. Branches.
    this.currentFailed = false;
    if (curr.retired && (curr.itype === TAKEN || curr.itype === NONTAKEN)) {
      this.addBranch(curr.addr, curr.itype === TAKEN);
    }

    const failedReturn = this.failedReturn;
    this.failedReturn = undefined;
    const depthBefore = this.returns?.depth ?? 0;
    const prevTrap = this.isTrap(prev) && prev.qualified;
    const prevUpdiscon = prev.qualified && prev.updiscon;
    const currExcOnly = this.isTrap(curr) && !curr.retired;
    const nextExcOnly = this.isTrap(next) && !next.retired && next.qualified;
    // After trace loss nothing before the sync reached the decoder.
    const prevTraced = !this.awaitingSync;
    const resync = this.flowchartResync(curr, prev.qualified && prev.updiscon);
    let reportedBySync = false;
    let reported = false;

    decide: {
      // 3. The instruction after a trap.
      if (prevTrap) {
        reportedBySync = true;
        this.why = 'trap';
        if (!this.ratified) {
          // A second trap before the handler retired anything: 1.1.1 has no way to say that the
          // handler's first instruction did not retire, so only the second trap is reported.
          if (!currExcOnly) this.trapPacket(curr, prev, undefined);
        } else if (currExcOnly) {
          this.trapPacket(curr, prev, 0n);
          this.trapReportedWithThaddr0 = prevUpdiscon || this.isTrap(next);
        } else if (this.trapReportedWithThaddr0) {
          this.trapReportedWithThaddr0 = false;
          this.syncPacket(curr);
        } else {
          this.trapPacket(curr, prev, 1n);
        }
        break decide;
      }
      this.trapReportedWithThaddr0 = false;
      // A trap that retired nothing is never reported as an instruction (F3 SF0, F0/F1/F2). When a
      // packet is due here (after an uninferable jump, at a sync point) 2.0 reports the trap with
      // thaddr 0 and its EPC; 1.1.1 cannot, and the trap packet at the handler follows.
      if (currExcOnly) {
        if (this.ratified && (prevUpdiscon || this.syncNext || resync === 'exceeded' || !prev.qualified || this.isPpch(prev, curr))) {
          reportedBySync = true;
          this.why = 'trap';
          this.trapPacket(curr, curr, 0n);
          this.trapReportedWithThaddr0 = true;
        }
        break decide;
      }
      // 4. First qualified, privilege or precise context change, resync.
      if (this.syncNext || resync === 'exceeded' || !prev.qualified || this.isPpch(prev, curr)) {
        reportedBySync = true;
        if (this.observer) this.why = this.syncNext ? this.syncWhy : !prev.qualified ? 'first-qualified' : resync === 'exceeded' ? 'resync' : curr.priv !== prev.priv ? 'privilege-change' : 'context-change';
        this.syncPacket(curr);
        break decide;
      }
      // 5. The target of an uninferable discontinuity.
      if (prevUpdiscon) {
        // updiscon != notify: the next instruction produces a format 3 (section 6.6.2 case 2).
        const resyncNext = this.p.resync_policy === 'flowchart' ? resync === 'reached' : this.resyncDueAt(curr, 1);
        const updiscon = (this.isTrap(curr) && curr.retired) || nextExcOnly || (next.qualified && this.isPpch(curr, next)) || resyncNext;
        this.why = failedReturn ? 'implicit-return-mispredict' : 'updiscon';
        this.report(curr.addr, 'updiscon', { updiscon, ...(failedReturn ?? { irreport: false }) });
        reported = true;
        break decide;
      }
      // 6. A retired trap, or a notification; or resync_br: the count is reached and branches
      // wait (the format 3 that follows carries no branch map).
      const resyncBr = resync === 'reached' && (this.branches > 0 || this.pbc > 0);
      if ((this.isTrap(curr) && curr.retired) || curr.notify || resyncBr) {
        this.why = this.isTrap(curr) && curr.retired ? 'trap' : curr.notify ? 'notify' : 'resync-branches';
        this.report(curr.addr, 'other', { notify: curr.notify, ...this.irFlags(curr, depthBefore) });
        reported = true;
        break decide;
      }
      // 7. The next view needs this one reported first.
      if (this.reportNeededByNext(curr, next)) {
        if (this.observer) this.why = !next.qualified ? 'next-unqualified' : this.isTrap(next) && !next.retired ? 'next-trap' : next.priv !== curr.priv ? 'next-privilege-change' : 'next-context-change';
        this.report(curr.addr, 'other', this.irFlags(curr, depthBefore));
        reported = true;
        break decide;
      }
      // 8. A full branch map, or a failed prediction in count mode.
      if (this.countFailed) {
        this.why = 'branch-misprediction';
        this.emitFailedBranchCount();
      } else if (this.branches === 31 && this.pbc < 31) {
        this.why = 'branch-map-full';
        this.emit({ format: 1n, branches: 0n, branch_map: BigInt(this.branchMap) });
        this.clearBranches();
      }
    }

    // 9. An imprecise context change not already carried by a sync packet.
    if (curr.ctype === 1 && !reportedBySync) {
      this.why = 'context-change';
      this.emit({ format: 3n, subformat: 2n, ...this.contextFields(curr) });
    }

    // Block placement: compared at block ends only, F3 SF0 at the next view (docs/etrace-model.md).
    if (this.p.resync_policy === 'block' && this.resyncDueAt(curr, 0)) {
      this.why = 'resync-branches';
      if (this.branches > 0 || this.pbc > 0) this.report(curr.addr, 'other', this.irFlags(curr, depthBefore));
      this.syncNext = true;
      this.syncWhy = 'resync';
    }
    if (reported || reportedBySync) this.lastReportReason = reported && prevUpdiscon ? 'updiscon' : 'other';

    // Whether current is an uninferable discontinuity: decided after any synchronisation of
    // current (which empties the return stack) and before current's own call or return changes it.
    curr.updiscon = this.isUpdiscon(prev, curr, next, prevTraced);

    // Implicit return bookkeeping, after the decisions about current (irdepth is the depth before).
    // Every call pushes, sequentially inferable or not.
    if (this.returns && curr.retired) {
      if (curr.itype === UNINFERABLE_CALL || curr.itype === INFERABLE_CALL) {
        this.returns.push(curr.addr + BigInt(curr.size));
      } else if (curr.itype === RETURN) {
        this.retireReturn(this.returns, next, this.sijumpInferable(prev, curr, prevTraced));
      }
    }
  }

  /**
   * A return retires; `next` is its target. Ratified irdepth: a sequentially inferable return is
   * inferred from its constant and leaves the stack alone; an implicit one pops; a mispredicted
   * one (stack not empty) stays on the stack and its target is reported with the depth. Implicit
   * Return extension (as the decoder pseudo code of its revised decoder chapter): every return
   * with a non-empty stack pops, sequentially inferable and mispredicted ones too, and is counted;
   * it is implicit unless mispredicted or preceded by IRETS_MAX counted returns; the report of the
   * target of a return that is not implicit carries irets = the returns counted before it, with
   * irreport set whenever the return popped or that count is not 0.
   */
  private retireReturn(returns: ReturnPredictor, next: View, sijump: boolean): void {
    if (!this.iretExt) {
      if (sijump) return;
      if (returns.predicts(next.addr)) returns.pop();
      else if (returns.depth > 0) this.failedReturn = { irreport: true, irdepth: BigInt(returns.depth) };
      return;
    }
    if (returns.depth > 0) {
      if (!sijump && !this.returnIsImplicit(returns, next)) this.failedReturn = { irreport: true, irets: BigInt(Math.min(this.irets, IRETS_MAX)) };
      returns.pop();
      this.irets++;
    } else if (!sijump && this.irets > 0) {
      this.failedReturn = { irreport: true, irets: BigInt(Math.min(this.irets, IRETS_MAX)) };
    }
  }

  /** Whether a return to `next` is implicit (decided before the return's own pop). */
  private returnIsImplicit(returns: ReturnPredictor, next: View): boolean {
    if (!this.iretExt) return returns.predicts(next.addr);
    return returns.depth > 0 && returns.predicts(next.addr) && this.irets < IRETS_MAX;
  }

  /** Step 7: `next` needs `curr` reported first (a trap, privilege change or end follows). */
  private reportNeededByNext(curr: View, next: View): boolean {
    return (
      (this.isTrap(next) && !next.retired && next.qualified) ||
      (next.qualified && this.isPpch(curr, next) && this.branches + (this.pbc >= 31 ? 1 : 0) > 0) ||
      (next.qualified && next.ctype === 3) ||
      !next.qualified
    );
  }

  /**
   * The flowchart's resync state at `curr` (section 8.2; its units already counted): `reached` at
   * the count (F0/F1/F2 if branches wait, resync_br), `exceeded` after it (F3 SF0). Packets are
   * counted one at a time, so the count equals max_resync until the next packet. Cycles and
   * half-words can step over max_resync, so there `reached` is the first view at or beyond it and
   * `exceeded` every view after that one, except the target of an uninferable jump: a format 3
   * there, with the jump unreported, could stop a decoder at an earlier pass through the same
   * address (section 6.6.2 case 2), so the target is reported first (step 5 with updiscon !=
   * notify) and the format 3 follows at the next view.
   */
  private flowchartResync(curr: View, prevUpdiscon: boolean): 'below' | 'reached' | 'exceeded' {
    if (this.p.resync_policy !== 'flowchart' || this.o.ResyncMode === 0) return 'below';
    const count = this.resyncCount;
    if (this.o.ResyncMode === 1) return count > this.resyncMax ? 'exceeded' : count === this.resyncMax ? 'reached' : 'below';
    const before = count - (curr.startsRecord ? curr.units : 0);
    if (before >= this.resyncMax && !prevUpdiscon) return 'exceeded';
    return count >= this.resyncMax ? 'reached' : 'below';
  }

  /** Block placement: whether a resync is due at `v` (a retired view with itype != 0), counting `extra` more packets. */
  private resyncDueAt(v: View, extraPackets: number): boolean {
    if (this.o.ResyncMode === 0 || !v.retired || v.itype === 0) return false;
    const count = this.resyncCount + (this.o.ResyncMode === 1 ? extraPackets : 0);
    return count >= this.resyncMax;
  }

  /**
   * irreport and irdepth/irets of a packet that reports current for a reason other than an
   * uninferable discontinuity before it (steps 6, 7, the resync report). Ratified: the depth
   * before current's own call or return, whenever it is not 0. Extension: the returns counted
   * since the last branch or packet, before current, whenever that is not 0 and the count is
   * needed: not for an xRET, which the decoder cannot follow without its target's address, so no
   * earlier occurrence of it can be on its path (docs/etrace-model.md).
   */
  private irFlags(curr: View, depthBefore: number): PacketFlags {
    if (this.iretExt) {
      return this.irets > 0 && curr.itype !== TRAP_RETURN ? { irreport: true, irets: BigInt(Math.min(this.irets, IRETS_MAX)) } : { irreport: false };
    }
    return depthBefore > 0 ? { irreport: true, irdepth: BigInt(depthBefore) } : { irreport: false };
  }

  private endedStatus(): bigint {
    return this.lastReportReason === 'updiscon' ? QUAL_STATUS.ended_upd : QUAL_STATUS.ended_rep;
  }

  // ------------------------------------------------------------------ branches

  private addBranch(addr: bigint, taken: boolean): void {
    this.irets = 0;
    let ok = false;
    if (this.predictor) ok = this.predictor.update(addr, taken);
    if (this.pbc >= 31) {
      // Count mode: the map is no longer kept.
      if (ok && this.pbc < 0xffff_ffff + 31) this.pbc++;
      else {
        this.countFailed = !ok;
        this.currentFailed = !ok;
      }
      return;
    }
    this.branchMap |= (taken ? 0 : 1) << this.branches;
    this.branches++;
    if (this.predictor) {
      if (ok && !this.mapFailed) this.pbc++;
      else this.mapFailed = true;
      this.currentFailed = !ok;
      if (this.pbc >= 31) {
        this.branches = 0;
        this.branchMap = 0;
      }
    }
  }

  private clearBranches(): void {
    this.branches = 0;
    this.branchMap = 0;
    this.pbc = 0;
    this.mapFailed = false;
    this.countFailed = false;
  }

  /** F0 SF0 without address: the count of correct predictions, then the branch that failed. */
  private emitFailedBranchCount(): void {
    this.emit({ format: 0n, subformat: 0n, branch_count: BigInt(this.pbc - 31), branch_fmt: BRANCH_FMT.no_addr });
    this.clearBranches();
  }

  // ------------------------------------------------------------------ packets

  /** An address field value for `addr`: full or differential, truncated to the field width. */
  private addressField(addr: bigint): bigint {
    const mask = (1n << BigInt(this.addrBits)) - 1n;
    const value = this.o.FullAddress ? addr >> this.lsb : (addr - this.lastAddress) >> this.lsb;
    return BigInt.asUintN(this.addrBits, value) & mask;
  }

  /** F0/F1/F2 reporting the instruction at `addr` (the "format 0/1/2" box of the flowchart). */
  private report(addr: bigint, reason: Reason, flags: PacketFlags): void {
    const address = this.addressField(addr);
    // notify, updiscon and irreport are sent relative to the address MSB (docs/etrace-model.md).
    const msb = (address >> this.addrMsb) & 1n;
    const full: PacketFlags = { notify: flags.notify ?? false, updiscon: flags.updiscon ?? false, irreport: flags.irreport, irdepth: flags.irdepth, irets: flags.irets };
    this.observer?.implicitReturn(full.irreport === true, full.irdepth ?? full.irets);
    let pkt: Packet;
    if (this.pbc >= 31) {
      pkt = {
        format: 0n,
        subformat: 0n,
        branch_count: BigInt(this.pbc - 31),
        branch_fmt: this.currentFailed ? BRANCH_FMT.addr_fail : BRANCH_FMT.addr,
        address,
      };
    } else if (this.branches > 0) {
      pkt = { format: 1n, branches: BigInt(this.branches), branch_map: BigInt(this.branchMap), address };
    } else {
      pkt = { format: 2n, address };
    }
    this.setFlags(pkt, msb, full);
    const hit = reason === 'updiscon' && this.jtc ? this.jtc.lookupAndUpdate(addr) : undefined;
    if (hit !== undefined && this.pbc < 31 && !full.notify && !full.updiscon) {
      // F0 SF1 has no notify/updiscon; its irreport is relative to branch_map[MSB] (or branches[MSB]).
      const cached: Packet = { format: 0n, subformat: 1n, index: BigInt(hit), branches: BigInt(this.branches) };
      let ref = 0n;
      if (this.branches > 0) {
        cached.branch_map = BigInt(this.branchMap);
        ref = BigInt((this.branchMap >>> (branchMapWidth(this.branches) - 1)) & 1);
      }
      this.setFlags(cached, ref, { irreport: full.irreport, irdepth: full.irdepth, irets: full.irets });
      if (packPacket(cached, this.p).bits <= packPacket(pkt, this.p).bits) pkt = cached;
    }
    // Differential addresses are relative to the last address the decoder received: a packet
    // lost (or not sent while waiting for a sync) does not move it.
    if (this.emit(pkt)) this.lastAddress = addr;
    this.clearBranches();
  }

  /** Sets the relative flag fields of `pkt` (the shared definition in the packet layer). */
  private setFlags(pkt: Packet, ref: bigint, flags: PacketFlags): void {
    const f = relativeFlags(ref, flags, this.irBits, this.irField);
    if (f.notify !== undefined) {
      pkt.notify = f.notify;
      pkt.updiscon = f.updiscon;
    }
    pkt.irreport = f.irreport;
    if (this.irBits > 0) pkt[this.irField] = f[this.irField];
  }

  private contextFields(v: View): Packet {
    const w = packetWidths(this.p);
    const out: Packet = { privilege: BigInt(v.priv) & ((1n << BigInt(w.privilege)) - 1n) };
    if (w.time > 0) out.time = BigInt.asUintN(w.time, v.time);
    const cw = w.contextSf2;
    if (cw > 0) out.context = BigInt.asUintN(cw, v.context);
    return out;
  }

  private syncFields(v: View): Packet {
    const w = packetWidths(this.p);
    const out: Packet = {
      branch: v.retired && v.itype === TAKEN ? 0n : 1n,
      privilege: BigInt(v.priv) & ((1n << BigInt(w.privilege)) - 1n),
    };
    if (w.time > 0) out.time = BigInt.asUintN(w.time, v.time);
    if (w.context > 0) out.context = BigInt.asUintN(w.context, v.context);
    return out;
  }

  /** F3 SF0 reporting `v`. */
  private syncPacket(v: View): void {
    if (this.emit({ format: 3n, subformat: 0n, ...this.syncFields(v), address: BigInt.asUintN(this.addrBits, v.addr >> this.lsb) })) {
      this.afterSync(v);
    }
  }

  /**
   * F3 SF1 reporting `v` with the trap of `trap`. 1.1.1: thaddr undefined, tvalepc carries the
   * EPC for an illegal instruction. 2.0: thaddr 1 = v is the handler, 0 = v is the trap's EPC.
   */
  private trapPacket(v: View, trap: View, thaddr: bigint | undefined): void {
    const w = packetWidths(this.p);
    const interrupt = trap.itype === INTERRUPT;
    const pkt: Packet = {
      format: 3n,
      subformat: 1n,
      ...this.syncFields(v),
      ecause: BigInt(trap.cause) & ((1n << BigInt(w.ecause)) - 1n),
      interrupt: interrupt ? 1n : 0n,
    };
    const address = BigInt.asUintN(this.addrBits, v.addr >> this.lsb);
    if (!this.ratified) {
      if (!this.o.ImplicitExcept) pkt.address = address;
      // tvalepc: the EPC for an illegal instruction (its tval is the opcode), else tval.
      pkt.tvalepc = BigInt.asUintN(w.tval, trap.cause === 2 && !interrupt ? trap.addr : trap.tval);
    } else {
      pkt.thaddr = thaddr!;
      if (!(this.o.ImplicitExcept && thaddr === 1n)) pkt.address = address;
      if (!interrupt) pkt.tval = BigInt.asUintN(w.tval, trap.tval);
    }
    if (this.emit(pkt)) this.afterSync(v, pkt.address !== undefined);
  }

  /** State after a synchronisation packet; only a packet that carries an address moves lastAddress. */
  private afterSync(v: View, carriesAddress = true): void {
    if (carriesAddress) this.lastAddress = v.addr;
    // A sync restarts the count from the current record: in single retirement the synchronised
    // instruction's own half-words (or cycle), in a block the whole block's, so that both count
    // the same at the block's end (docs/etrace-model.md, resynchronisation).
    this.resyncCount = this.recordUnits;
    this.syncNext = false;
    this.awaitingSync = false;
    this.clearBranches();
    this.predictor?.reset();
    this.jtc?.reset();
    this.returns?.reset();
  }

  private support(enable: boolean, qualStatus: bigint, why: EtraceReason): void {
    this.reportedEnable = enable;
    const packet = supportPacket(this.config, enable, qualStatus);
    const accepted = this.sink({ packet, record: this.recordIndex });
    this.observer?.packet(packet, why, accepted);
  }

  /** Sends a te_inst packet; false when the output dropped it (trace lost). */
  private emit(packet: Packet): boolean {
    // After trace loss the decoder waits for a synchronisation: nothing else is worth sending.
    if (this.awaitingSync && packet.format !== 3n) return false;
    if (this.o.ResyncMode === 1) this.resyncCount++;
    // The implicit returns are counted from the last packet that moves the decoder (not F3 SF2).
    if (packet.format !== 3n || packet.subformat !== 2n) {
      this.irets = 0;
    }
    const accepted = this.sink({ packet, record: this.recordIndex });
    this.observer?.packet(packet, this.why, accepted);
    if (!accepted) this.lost();
    return accepted;
  }
}

/** Support packet (F3 SF3): enable, encoder_mode 0 (branch trace), qual_status, the options. */
export function supportPacket(config: EtraceConfig, enable: boolean, qualStatus: bigint): Packet {
  const o = config.options;
  const opts = {
    implicit_return: o.ImplicitReturn,
    implicit_exception: o.ImplicitExcept,
    full_address: o.FullAddress,
    jump_target_cache: o.JumpTargetCache,
    branch_prediction: o.BranchPrediction,
    sijump: o.siJump,
  };
  const on = enable ? 1n : 0n;
  const data = dataSupportFields(config);
  const head: Packet =
    config.params.payload_layout === '2.0'
      ? { format: 3n, subformat: 3n, ienable: on, encoder_mode: 0n, qual_status: qualStatus, dloss: 0n, ...data }
      : { format: 3n, subformat: 3n, enable: on, encoder_mode: 0n, qual_status: qualStatus, ...(config.params.dataTrace ? data : {}) };
  return { ...head, ...optionFields(opts, config.params) };
}

/**
 * The support packet's data trace fields: denable = dEnable, doptions bit 0 noAddress, bit 1 noData,
 * bits 3:2 DataCompress (the reference flow's first two bits; docs/etrace-data.md). Zero without
 * data trace.
 */
function dataSupportFields(config: EtraceConfig): { denable: bigint; doptions: bigint } {
  const o = config.options;
  if (!config.params.dataTrace) return { denable: 0n, doptions: 0n };
  return { denable: o.dEnable ? 1n : 0n, doptions: (o.noAddress ? 1n : 0n) | (o.noData ? 2n : 0n) | (BigInt(o.DataCompress) << 2n) };
}
