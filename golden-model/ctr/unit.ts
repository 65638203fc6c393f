/**
 * The CTR unit, clock by clock: the reference the generated RTL is compared against, cycle by
 * cycle and CSR read-back by CSR read-back. Written from the seed spec (draft v0.1.4, cited as
 * "v0.1.4 §n") and the ratified Smctr/Ssctr 1.0 (cited as "1.0 <section name>"); docs/ctr-model.md
 * describes the API, the cycle semantics and every decision on a point the spec leaves open.
 *
 * Ports (one `step` = one clock):
 * - one retirement record (golden-model/hart/records.ts; may be idle) with the V bit of its mode,
 *   the MISP bit of its transfer, and the LCOFI / breakpoint-trap signals of its trap;
 * - mstateen0 / hstateen0 (the hart's registers; only the CTR bit and the Smcsrind bit 60 are used);
 * - one CSR access (address, write, data, mask, privilege and V of the access; or SCTRCLR), answered
 *   with read data and an illegal- or virtual-instruction indication.
 *
 * Transfers. A record whose block ends with a control transfer (itype 1-5, 8-15) holds the source:
 * the address of its last instruction, iaddr + iretire*2 - (2 << ilastsize), or for a trap that
 * retired nothing (iretire = 0) the EPC in iaddr. Its target is where execution went, which only
 * the next retirement shows: the iaddr of the next record that retires something or traps. So a
 * transfer is *pending* from its record until that next record, and is qualified and written in
 * the cycle of the next record (the "completion cycle"). The pending transfer keeps its source
 * PC, type, mode (priv, V), MISP and freeze signals; the target mode is the next record's mode.
 * Idle cycles leave it pending; a halted (debug) or reset cycle drops it (its target is unknown).
 *
 * Cycle semantics (what a simple RTL does):
 * 1. A CSR access reads the state at the start of the cycle (a read in the completion cycle of a
 *    transfer does not see that transfer's record yet).
 * 2. The pending transfer is evaluated with the state at the start of the cycle (control fields,
 *    FROZEN, WRPTR), and the cycle counter counts this cycle if it is active.
 * 3. At the end of the cycle the hardware update (entry write, WRPTR/WRAP, FROZEN, counter) is
 *    applied, then the CSR write on top: where both write the same register (mctrstatus, one
 *    entry register of the same physical entry, the cycle counter and CCV flag), the CSR write
 *    wins, as in program order the instruction making the access comes after the transfer.
 */
import { type RetirementRecord, Itype, isTrap, lastInstructionAddress } from '../hart/records.ts';
import { type CtrConfig, type CtrDepth, depthIndex, validateCtrConfig } from './config.ts';
import { CTR_COUNTER_MAX, encodeCycleCount, maxCycleCount } from './cycle-count.ts';
import {
  bit,
  controlLayout,
  type ControlLayout,
  Csr014,
  Csr10,
  CsrInd,
  CTR_SELECT_FIRST,
  CTR_SELECT_LAST,
  DATA_CC_LSB,
  DATA_CCV_BIT,
  dataMask,
  depthEncoding014,
  depthOf,
  filterBit,
  legaliseDepth,
  mControlMask,
  sControlMask,
  sourceMask,
  STATEEN_CSRIND_BIT,
  stateenCtrBit,
  targetMask,
  vsControlMask,
  xlenMask,
} from './registers.ts';

/** Privilege encoding of records and accesses (records.ts `Priv`): 0 U, 1 S, 3 M, 4 debug. */
const PRIV_U = 0;
const PRIV_S = 1;
const PRIV_M = 3;
const PRIV_D = 4;

/** Interrupt cause of a local counter overflow (Sscofpmf) and exception cause of a breakpoint. */
export const LCOFI_CAUSE = 13;
export const BREAKPOINT_CAUSE = 3;

/** One CTR entry as its three registers hold it (chapter 3). */
export interface CtrEntry {
  /** ctrsource: PC[XLEN-1:1] | V. */
  source: bigint;
  /** ctrtarget: PC[XLEN-1:1] | MISP. */
  target: bigint;
  /** ctrdata: TYPE 3:0, CCV 15, CC 31:16 (unsigned 32-bit). */
  data: number;
}

export interface CtrCsrAccess {
  /** CSR number, 12 bits (ignored for SCTRCLR). */
  address: number;
  /** The access writes (csrrw; csrrs/csrrc and their immediate forms with a non-zero source). */
  write: boolean;
  wdata: bigint;
  /**
   * Bits written: new = (old & ~wmask) | (wdata & wmask). Default: all ones (csrrw). csrrs is
   * wmask = rs1, wdata = all ones; csrrc is wmask = rs1, wdata = 0.
   */
  wmask?: bigint;
  /** Privilege of the access: 0 U, 1 S, 3 M, 4 debug (treated as M). */
  priv: number;
  /** V of the access (H extension). */
  v?: boolean;
  /** Not a CSR access but the SCTRCLR instruction (1.0), checked like one. */
  sctrclr?: boolean;
}

export interface CtrCsrResponse {
  /** The CSR's value at the start of the cycle (XLEN bits); 0 when an exception is raised and for SCTRCLR. */
  rdata: bigint;
  illegalInstruction: boolean;
  virtualInstruction: boolean;
}

export interface CtrCycleInput {
  /** The cycle's retirement record; omitted = an idle cycle in the previous record's mode. */
  record?: RetirementRecord;
  /** V of the record's mode (H extension): VS = priv 1 with V, VU = priv 0 with V. */
  v?: boolean;
  /** The record's transfer was mispredicted (recorded in ctrtarget.MISP when implemented). */
  misp?: boolean;
  /** The record is the trap of a local counter overflow interrupt (see `freezeSignals`). */
  lcofiTrap?: boolean;
  /** The record is a breakpoint exception (cause 3), not an entry into debug mode. */
  breakpointTrap?: boolean;
  /** The hart's mstateen0 / hstateen0 (default all ones; ignored without Smstateen / H). */
  mstateen0?: bigint;
  hstateen0?: bigint;
  csr?: CtrCsrAccess;
}

/** What the retirement did to the CTR state this cycle (for dumps and co-simulation diagnostics). */
export type CtrUpdate =
  | { kind: 'push'; physical: number; entry: CtrEntry }
  | { kind: 'overwrite'; physical: number; entry: CtrEntry }
  | { kind: 'pop'; physical: number }
  | { kind: 'freeze' };

/**
 * What decided a transfer's fate (v0.1.4 §5, 1.0 Qualification), for functional coverage:
 * recorded; trap-source-pc-0 (trap from an inhibited mode); external-trap (recorded, target PC 0);
 * external-trap-disabled (ETEN/xTE clear); trap-return-target-pc-0; inhibited (source or both
 * modes inhibited); filtered (a transfer type filter bit); frozen; freeze-lcofi, freeze-breakpoint
 * (the transfer that freezes); debug (into or out of Debug Mode); rasemu-push, rasemu-pop,
 * rasemu-swap, rasemu-ignored (RAS emulation).
 */
export type CtrRule =
  | 'recorded'
  | 'trap-source-pc-0'
  | 'external-trap'
  | 'external-trap-disabled'
  | 'trap-return-target-pc-0'
  | 'inhibited'
  | 'filtered'
  | 'frozen'
  | 'freeze-lcofi'
  | 'freeze-breakpoint'
  | 'debug'
  | 'rasemu-push'
  | 'rasemu-pop'
  | 'rasemu-swap'
  | 'rasemu-ignored';

/** An optional observer of the unit's decisions (functional coverage); set `CtrUnit.observer`. */
export interface CtrObserver {
  /** A pending transfer met its target: its type, source and target modes, and the rule that decided it. */
  transfer(type: number, src: CtrMode, tgt: CtrMode, rule: CtrRule): void;
  /** A CSR access (or SCTRCLR, address -1) and its response. */
  csr(address: number, write: boolean, result: 'ok' | 'illegal' | 'virtual'): void;
  /** A WARL write: the field, and whether the written value was kept or legalised. */
  warl(field: 'depth' | 'control' | 'wrptr', legalised: boolean): void;
  /** The depth changed (entries). */
  depth(from: number, to: number): void;
  /**
   * An entry was written with its CC saturated: "The CC value saturates when all implemented bits
   * in CCM and CCE are 1" (v0.1.4 §5.3, 1.0 Cycle Counting), the elapsed count at or beyond the
   * largest the implemented CCE bits encode.
   */
  saturated(): void;
}

export interface CtrCycleOutput {
  csr?: CtrCsrResponse;
  update?: CtrUpdate;
}

/** A mode of the hart: priv (0 U, 1 S, 3 M, 4 debug) and V. */
export interface CtrMode {
  priv: number;
  v: boolean;
}

/** A transfer whose target is not known yet. */
export interface CtrPending {
  source: bigint;
  type: number;
  mode: CtrMode;
  misp: boolean;
  lcofi: boolean;
  breakpoint: boolean;
}

/** The architectural and internal state, for tests and dumps. */
export interface CtrState {
  /** M-level control storage (implemented bits; v0.1.4 DEPTH and CLR are not in it). */
  mctl: bigint;
  vsctl: bigint;
  depth: CtrDepth;
  wrptr: number;
  /** v0.1.4 mctrstatus.WRAP (always false in 1.0). */
  wrap: boolean;
  frozen: boolean;
  miselect: bigint;
  siselect: bigint;
  vsiselect: bigint;
  /** Active cycles counted since the last record (saturating at CTR_COUNTER_MAX). */
  counter: number;
  /** The next record gets CCV=0 (set by control writes and SCTRCLR). */
  ccvClear: boolean;
  /** A RAS pop happened since the last record (CCV policy `popped-parent`). */
  popped: boolean;
  pending: CtrPending | undefined;
}

/** The freeze signals a trap record implies by its cause (v0.1.4 §5.5, 1.0 Freeze). */
export function freezeSignals(r: RetirementRecord): { lcofiTrap: boolean; breakpointTrap: boolean } {
  return {
    lcofiTrap: r.itype === Itype.interrupt && r.cause === LCOFI_CAUSE,
    breakpointTrap: r.itype === Itype.exception && r.cause === BREAKPOINT_CAUSE,
  };
}

type Sel = 'm' | 's' | 'vs';
type Target =
  | { reg: 'mctl' | 'sctl' | 'vsctl'; half: 'full' | 'lo' | 'hi' }
  | { reg: 'status' }
  | { reg: 'depth' }
  | { reg: 'iselect'; sel: Sel }
  | { reg: 'ireg'; sel: Sel; n: number };

/** The result of the hardware side of a cycle, applied at its end. */
interface HwUpdate {
  counter: number;
  ccvClear: boolean;
  popped: boolean;
  pending: CtrPending | undefined;
  frozen: boolean;
  wrptr: number;
  wrap: boolean;
  write?: { physical: number; entry: CtrEntry };
  /** A RAS pop: clear ctrsource.V of this physical entry. */
  invalidate?: number;
  update?: CtrUpdate;
}

const ALL_ONES = (1n << 64n) - 1n;
const LO32 = 0xffff_ffffn;

export class CtrUnit {
  readonly config: CtrConfig;
  private readonly layout: ControlLayout;
  private readonly csrs: Map<number, Target>;
  private readonly mMask: bigint;
  private readonly sMask: bigint;
  private readonly vsMask: bigint;
  private readonly dMask: number;

  // Architectural state.
  private mctl = 0n;
  private vsctl = 0n;
  private depthIdx: number;
  private wrptr = 0;
  private wrap = false;
  private frozen = false;
  private miselect = 0n;
  private siselect = 0n;
  private vsiselect = 0n;
  private readonly src: bigint[];
  private readonly tgt: bigint[];
  private readonly dat: number[];
  // Internal state.
  private counter = 0;
  private ccvClear = false;
  private popped = false;
  private pending: CtrPending | undefined;
  private lastMode: CtrMode = { priv: PRIV_M, v: false };
  /** Functional coverage: sees every decision (undefined: nobody looks, nothing is spent). */
  observer?: CtrObserver;

  constructor(config: CtrConfig) {
    const errors = validateCtrConfig(config);
    if (errors.length > 0) throw errors[0]!;
    this.config = config;
    this.layout = controlLayout(config);
    this.mMask = mControlMask(config);
    this.sMask = sControlMask(config);
    this.vsMask = vsControlMask(config);
    this.dMask = dataMask(config);
    this.csrs = buildCsrMap(config);
    this.depthIdx = depthIndex(config.resetDepth);
    const n = config.depthMax;
    this.src = new Array<bigint>(n).fill(0n);
    this.tgt = new Array<bigint>(n).fill(0n);
    this.dat = new Array<number>(n).fill(0);
  }

  /**
   * Reset values (the spec gives none): every control field 0 (nothing enabled, no filter), DEPTH
   * = resetDepth, WRPTR/WRAP/FROZEN 0, every entry register 0, the *iselect registers 0, cycle
   * counter 0, no pending transfer, no pending CCV clear. Everything but DEPTH resets to 0.
   */
  reset(): void {
    this.mctl = 0n;
    this.vsctl = 0n;
    this.depthIdx = depthIndex(this.config.resetDepth);
    this.wrptr = 0;
    this.wrap = false;
    this.frozen = false;
    this.miselect = 0n;
    this.siselect = 0n;
    this.vsiselect = 0n;
    this.src.fill(0n);
    this.tgt.fill(0n);
    this.dat.fill(0);
    this.counter = 0;
    this.ccvClear = false;
    this.popped = false;
    this.pending = undefined;
    this.lastMode = { priv: PRIV_M, v: false };
  }

  get depth(): CtrDepth {
    return depthOf(this.depthIdx);
  }

  /** One clock: a retirement record (may be idle) and an optional CSR access; returns the access's response. */
  step(input: CtrCycleInput = {}): CtrCycleOutput {
    const c = this.config;
    const record = input.record;
    if (record?.sameCycle) throw new Error('CtrUnit.step: one retirement record per cycle (sameCycle records are not supported)');
    const mode: CtrMode = record ? { priv: record.priv, v: input.v ?? false } : this.lastMode;
    this.checkMode(mode, 'record');
    const mstateen0 = c.smstateen ? (input.mstateen0 ?? ALL_ONES) : ALL_ONES;
    const hstateen0 = c.smstateen && c.hExt ? (input.hstateen0 ?? ALL_ONES) : ALL_ONES;

    // 1. The CSR access: response from the start-of-cycle state, write deferred.
    const access = input.csr ? this.csrAccess(input.csr, mstateen0, hstateen0) : undefined;
    if (access && this.observer) {
      const a = input.csr!;
      const r = access.response;
      this.observer.csr(a.sctrclr ? -1 : a.address & 0xfff, a.write === true, r.illegalInstruction ? 'illegal' : r.virtualInstruction ? 'virtual' : 'ok');
    }
    // 2. The retirement: evaluated on the start-of-cycle state.
    const hw = this.retire(record, mode, input);
    // 3. End of cycle: the hardware update, then the CSR write over it.
    this.applyHw(hw);
    access?.apply?.();
    this.lastMode = mode;
    const out: CtrCycleOutput = {};
    if (access) out.csr = access.response;
    if (hw.update) out.update = hw.update;
    return out;
  }

  /** The logical entries 0..depth-1, youngest first (logical x is physical (WRPTR - 1 - x) mod depth). */
  entries(): CtrEntry[] {
    const out: CtrEntry[] = [];
    for (let x = 0; x < this.depth; x++) {
      const p = this.physical(x);
      out.push({ source: this.src[p]!, target: this.tgt[p]!, data: this.dat[p]! });
    }
    return out;
  }

  /** The physical entries 0..depthMax-1 (for co-simulation of the RTL's array). */
  physicalEntries(): CtrEntry[] {
    return this.src.map((s, p) => ({ source: s, target: this.tgt[p]!, data: this.dat[p]! }));
  }

  state(): CtrState {
    return {
      mctl: this.mctl,
      vsctl: this.vsctl,
      depth: this.depth,
      wrptr: this.wrptr,
      wrap: this.wrap,
      frozen: this.frozen,
      miselect: this.miselect,
      siselect: this.siselect,
      vsiselect: this.vsiselect,
      counter: this.counter,
      ccvClear: this.ccvClear,
      popped: this.popped,
      pending: this.pending ? { ...this.pending, mode: { ...this.pending.mode } } : undefined,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Recording (v0.1.4 chapter 5, 1.0 Behavior)

  private physical(logical: number): number {
    const d = this.depth;
    return (((this.wrptr - 1 - logical) % d) + d) % d;
  }

  private checkMode(m: CtrMode, what: string): void {
    const c = this.config;
    const ok =
      m.priv === PRIV_M || m.priv === PRIV_D
        ? !m.v
        : m.priv === PRIV_S
          ? c.sMode && (!m.v || c.hExt)
          : m.priv === PRIV_U
            ? c.uMode && (!m.v || c.hExt)
            : false;
    if (!ok) throw new Error(`CtrUnit.step: the ${what}'s mode (priv ${m.priv}, V ${m.v ? 1 : 0}) does not exist in this configuration`);
  }

  /**
   * "The current privilege mode is enabled" (v0.1.4 §5, 1.0 Behavior): mctrcontrol.M/S/U when
   * V=0, vsctrcontrol.VS/VU when V=1 (v0.1.4 chapter 2: the active control register is
   * mctrcontrol when V=0 and vsctrcontrol when V=1). Debug mode is never enabled (§5.1).
   */
  private enabled(m: CtrMode): boolean {
    const l = this.layout;
    if (m.priv === PRIV_D) return false;
    if (m.v) return has(this.vsctl, m.priv === PRIV_S ? l.s : l.u);
    return has(this.mctl, m.priv === PRIV_M ? l.m : m.priv === PRIV_S ? l.s : l.u);
  }

  /**
   * The control register whose fields other than the mode enables (filters, RASEMU, ETEN) apply
   * to a transfer: vsctrcontrol when the source or the target mode has V=1, else mctrcontrol.
   * This is the 1.0 rule ("Virtualization Mode Transitions": "For all other xctrctl fields, the
   * value in vsctrctl is used"); v0.1.4 only names "the currently active" register, which for a
   * transfer inside one mode is the same thing; the model applies the 1.0 rule to both versions.
   */
  private configFor(src: CtrMode, tgt: CtrMode): bigint {
    return src.v || tgt.v ? this.vsctl : this.mctl;
  }

  private retire(record: RetirementRecord | undefined, mode: CtrMode, input: CtrCycleInput): HwUpdate {
    const c = this.config;
    const hw: HwUpdate = {
      counter: this.counter,
      ccvClear: this.ccvClear,
      popped: this.popped,
      pending: this.pending,
      frozen: this.frozen,
      wrptr: this.wrptr,
      wrap: this.wrap,
    };
    const halted = record !== undefined && (record.halted || record.reset);
    // Cycle counting (v0.1.4 §5.3): "Qualified cycles are those executed within an enabled
    // privilege mode with FROZEN=0" (1.0: "Only cycles while CTR is active are counted").
    if (c.cycleCounting && !halted && this.enabled(mode) && !this.frozen) {
      hw.counter = Math.min(CTR_COUNTER_MAX, this.counter + 1);
    }
    if (record === undefined) return hw;
    if (halted) {
      // Debug mode or reset: the pending transfer's target is never seen.
      hw.pending = undefined;
      return hw;
    }
    const retires = record.iretire > 0 || isTrap(record);
    if (!retires) return hw; // idle: the pending transfer stays pending
    if (this.pending) this.complete(this.pending, record.iaddr & xlenMask(c), mode, hw);
    hw.pending = this.transferOf(record, mode, input);
    return hw;
  }

  /** The transfer a record ends with, if any (types 6 and 7 are reserved: no transfer). */
  private transferOf(r: RetirementRecord, mode: CtrMode, input: CtrCycleInput): CtrPending | undefined {
    const t = r.itype;
    if (t === Itype.none || t === 6 || t === 7 || t > 15) return undefined;
    if (r.iretire === 0 && !isTrap(r)) return undefined;
    const source = (r.iretire > 0 ? lastInstructionAddress(r) : r.iaddr) & xlenMask(this.config);
    return {
      source,
      type: t,
      mode,
      misp: this.config.misp && (input.misp ?? false),
      lcofi: t === Itype.interrupt && (input.lcofiTrap ?? false),
      breakpoint: t === Itype.exception && (input.breakpointTrap ?? false),
    };
  }

  /** A pending transfer meets its target: freeze, qualify, and record (or pop) into `hw`. */
  private complete(p: CtrPending, targetPc: bigint, tgt: CtrMode, hw: HwUpdate): void {
    if (this.observer === undefined) {
      this.decide(p, targetPc, tgt, hw);
      return;
    }
    const rule = this.decide(p, targetPc, tgt, hw);
    this.observer.transfer(p.type, p.mode, tgt, rule ?? 'recorded');
  }

  /** `complete` itself; returns the rule that decided (undefined: recorded by the ordinary rules). */
  private decide(p: CtrPending, targetPc: bigint, tgt: CtrMode, hw: HwUpdate): CtrRule | undefined {
    const l = this.layout;
    const src = p.mode;
    const t = p.type;

    // Freeze (v0.1.4 §5.5, 1.0 Freeze): an LCOFI trap with LCOFIFRZ=1 or a breakpoint exception
    // with BPFRZ=1 sets FROZEN, and "The LCOFI trap itself is not recorded" / "The breakpoint
    // exception itself is not recorded". The register is the one of the trap's target mode
    // (1.0: sctrctl for traps to M-mode or S-mode, vsctrctl for traps to VS-mode).
    if (p.lcofi || p.breakpoint) {
      const reg = tgt.v ? this.vsctl : this.mctl;
      if (has(reg, p.lcofi ? l.lcofifrz : l.bpfrz)) {
        hw.frozen = true;
        hw.update = { kind: 'freeze' };
        return p.lcofi ? 'freeze-lcofi' : 'freeze-breakpoint';
      }
    }
    // "mctrstatus.FROZEN is not set" (v0.1.4 §5); "Transfers into and out of Debug Mode are never recorded" (§5.1).
    if (this.frozen) return 'frozen';
    if (src.priv === PRIV_D || tgt.priv === PRIV_D) return 'debug';

    const cfg = this.configFor(src, tgt);
    const srcEn = this.enabled(src);
    const tgtEn = this.enabled(tgt);
    let sourcePc = p.source;
    let target = targetPc;
    let external = false;
    let rule: CtrRule | undefined;
    if (t === Itype.exception || t === Itype.interrupt) {
      // §5.1 table, Trap row.
      if (srcEn && tgtEn) {
        // "Recorded."
      } else if (!srcEn && tgtEn) {
        sourcePc = 0n; // "Recorded, Source PC is 0."
        rule = 'trap-source-pc-0';
      } else if (srcEn && !tgtEn) {
        // External trap: "Target PC is 0" when recorded (§5.2.1). The §5.1 table adds "type is
        // External Trap", for which ctrdata.TYPE has no code (0110 is reserved): the record keeps
        // the trap's own TYPE (1 or 2) and is recognisable by its target PC 0.
        if (!this.externalTrapEnabled(src, tgt, cfg)) return 'external-trap-disabled';
        target = 0n;
        external = true;
        rule = 'external-trap';
      } else {
        return 'inhibited'; // "Not recorded."
      }
    } else if (t === Itype.trapReturn) {
      // §5.1 table, Trap Return row.
      if (!srcEn) return 'inhibited'; // "Not recorded." (from an inhibited mode)
      if (!tgtEn) {
        target = 0n; // "Recorded, Target PC is 0."
        rule = 'trap-return-target-pc-0';
      }
    } else if (!srcEn) {
      return 'inhibited'; // "The current privilege mode is enabled"
    }

    if (has(cfg, l.rasemu)) {
      // RAS emulation (v0.1.4 §5.4): calls recorded as normal, returns pop, co-routine swaps
      // overwrite entry 0, "Other transfer types are inhibited", "Transfer Type Filtering bits are ignored".
      if (t === Itype.uninferableCall || t === Itype.inferableCall) {
        this.push(p, sourcePc, target, hw, true);
        return 'rasemu-push';
      }
      if (t === Itype.return) {
        this.pop(hw);
        return 'rasemu-pop';
      }
      if (t === Itype.coRoutineSwap) {
        this.overwrite(p, sourcePc, target, hw);
        return 'rasemu-swap';
      }
      return 'rasemu-ignored';
    }
    if (!external) {
      // §5.2: NTBREN opts in to not-taken branches; every other type is recorded unless its
      // inhibit bit is set. External traps do not depend on EXCINH/INTRINH (§5.2.1).
      if (t === Itype.nontakenBranch ? !has(cfg, filterBit(t)) : has(cfg, filterBit(t))) return 'filtered';
    }
    this.push(p, sourcePc, target, hw, false);
    return rule;
  }

  /**
   * Whether an external trap (enabled source mode, inhibited target mode) is recorded.
   * v0.1.4 §5.2.1: "only if both ETEN=1 and xTE=1, such that x is the target privilege mode";
   * ETEN of the transfer's control register, MTE/STE of mctrcontrol, VSTE of vsctrcontrol.
   * 1.0 External Traps: the xTE bit of the target mode and of every intervening mode (the modes
   * more privileged than the source and less privileged than the target) must be set.
   */
  private externalTrapEnabled(src: CtrMode, tgt: CtrMode, cfg: bigint): boolean {
    const l = this.layout;
    const te = (m: CtrMode): boolean => {
      if (m.priv === PRIV_M) return has(this.mctl, l.mte);
      if (m.priv === PRIV_S) return m.v ? has(this.vsctl, l.ste) : has(this.mctl, l.ste);
      return false; // traps do not go to U-mode
    };
    if (this.config.specVersion === '0.1.4') return has(cfg, l.eten!) && te(tgt);
    const chain: CtrMode[] = src.v
      ? [{ priv: PRIV_U, v: true }, { priv: PRIV_S, v: true }, { priv: PRIV_S, v: false }, { priv: PRIV_M, v: false }]
      : [{ priv: PRIV_U, v: false }, { priv: PRIV_S, v: false }, { priv: PRIV_M, v: false }];
    const at = (m: CtrMode): number => chain.findIndex((x) => x.priv === m.priv && x.v === m.v);
    const from = at(src);
    const to = at(tgt);
    if (from < 0 || to <= from) return false;
    for (let i = from + 1; i <= to; i++) if (!te(chain[i]!)) return false;
    return true;
  }

  /** The entry a qualified transfer writes: V=1 (v0.1.4 §5), MISP, TYPE, CCV and CC (§5.3). */
  private makeEntry(p: CtrPending, sourcePc: bigint, target: bigint, hw: HwUpdate, rasemu: boolean, swap: boolean): CtrEntry {
    const c = this.config;
    let data = c.typeField ? p.type : 0;
    if (c.cycleCounting) {
      let ccv = !this.ccvClear;
      if (rasemu) {
        if (c.rasemuCcvPolicy === 'all-calls' || swap || this.popped) ccv = false;
      }
      data |= (ccv ? 1 << DATA_CCV_BIT : 0) | (encodeCycleCount(hw.counter, c.cceBits) << DATA_CC_LSB);
      if (this.observer && hw.counter >= maxCycleCount(c.cceBits)) this.observer.saturated();
    }
    const pcMask = xlenMask(c) & ~1n;
    return {
      source: (sourcePc & pcMask) | 1n,
      target: (target & pcMask) | (p.misp ? 1n : 0n),
      data: (data & this.dMask) >>> 0,
    };
  }

  /** A record written at WRPTR, which then increments (WRAP set when it wraps: v0.1.4 §2.4). */
  private push(p: CtrPending, sourcePc: bigint, target: bigint, hw: HwUpdate, rasemu: boolean): void {
    const entry = this.makeEntry(p, sourcePc, target, hw, rasemu, false);
    const physical = this.wrptr;
    hw.write = { physical, entry };
    hw.update = { kind: 'push', physical, entry };
    if (this.wrptr === this.depth - 1) {
      hw.wrptr = 0;
      if (this.config.specVersion === '0.1.4') hw.wrap = true;
    } else {
      hw.wrptr = this.wrptr + 1;
    }
    this.recorded(hw);
  }

  /** RASEMU co-routine swap: "Entry 0 is overwritten", WRPTR unchanged (1.0: "WRPTR is not modified"). */
  private overwrite(p: CtrPending, sourcePc: bigint, target: bigint, hw: HwUpdate): void {
    const entry = this.makeEntry(p, sourcePc, target, hw, true, true);
    const physical = this.physical(0);
    hw.write = { physical, entry };
    hw.update = { kind: 'overwrite', physical, entry };
    this.recorded(hw);
  }

  /**
   * RASEMU return: "invalidating entry 0 (setting ctrsource.V=0) and rotating the CTR array" =
   * WRPTR decrements (§2.4: "decremented on qualified returns when ctrcontrol.RASEMU=1"; WRAP
   * "Cleared when WRPTR has value zero and a CTR update causes WRPTR to be decremented").
   * The cycle counter is not reset (the §5.4 note: returns "do not reset the cycle counter").
   */
  private pop(hw: HwUpdate): void {
    const physical = this.physical(0);
    hw.invalidate = physical;
    hw.update = { kind: 'pop', physical };
    if (this.wrptr === 0) {
      hw.wrptr = this.depth - 1;
      hw.wrap = false;
    } else {
      hw.wrptr = this.wrptr - 1;
    }
    hw.popped = true;
  }

  private recorded(hw: HwUpdate): void {
    hw.counter = 0;
    hw.ccvClear = false;
    hw.popped = false;
  }

  private applyHw(hw: HwUpdate): void {
    this.counter = hw.counter;
    this.ccvClear = hw.ccvClear;
    this.popped = hw.popped;
    this.pending = hw.pending;
    this.frozen = hw.frozen;
    this.wrptr = hw.wrptr;
    this.wrap = hw.wrap;
    if (hw.write) {
      const { physical, entry } = hw.write;
      this.src[physical] = entry.source;
      this.tgt[physical] = entry.target;
      this.dat[physical] = entry.data;
    }
    if (hw.invalidate !== undefined) this.src[hw.invalidate] = this.src[hw.invalidate]! & ~1n;
  }

  // ---------------------------------------------------------------------------------------------
  // CSR access (v0.1.4 chapters 2-4, 1.0 CSRs / Entry Registers / State Enable Access Control)

  private csrAccess(a: CtrCsrAccess, mstateen0: bigint, hstateen0: bigint): { response: CtrCsrResponse; apply?: () => void } {
    const c = this.config;
    const v = a.v ?? false;
    const priv = a.priv === PRIV_D ? PRIV_M : a.priv;
    this.checkMode({ priv, v }, 'CSR access');
    const fault = (kind: 'illegal' | 'virtual'): { response: CtrCsrResponse } => ({
      response: { rdata: 0n, illegalInstruction: kind === 'illegal', virtualInstruction: kind === 'virtual' },
    });
    const mCtr = has(mstateen0, stateenCtrBit(c));
    const hCtr = has(hstateen0, stateenCtrBit(c));

    if (a.sctrclr) {
      // 1.0 Supervisor CTR Clear Instruction and State Enable Access Control.
      if (c.specVersion !== '1.0') return fault('illegal'); // no such instruction in v0.1.4
      if (priv !== PRIV_M) {
        if (!mCtr) return fault('illegal');
        if (priv === PRIV_U) return fault(v ? 'virtual' : 'illegal');
        if (v && !hCtr) return fault('virtual');
      }
      return {
        response: { rdata: 0n, illegalInstruction: false, virtualInstruction: false },
        apply: () => this.clearEntries(true),
      };
    }

    const address = a.address & 0xfff;
    let target = this.csrs.get(address);
    if (!target) return fault('illegal'); // not a CSR of this unit
    const level = (address >> 8) & 3;
    const ind = target.reg === 'iselect' || target.reg === 'ireg';
    if (priv !== PRIV_M) {
      if (level === 3) return fault('illegal');
      // Smcsrind "Access control by the state-enable CSRs": mstateen0[60]=0 -> illegal; with it
      // set, VS/VU access to vsiselect/vsireg* and VU access to siselect/sireg* -> virtual,
      // "regardless of any other mstateen bits".
      if (ind && !has(mstateen0, STATEEN_CSRIND_BIT)) return fault('illegal');
      if (ind && v && (level === 2 || priv === PRIV_U)) return fault('virtual');
      // v0.1.4 chapter 4 / 1.0: mstateen0.CTR=0 -> illegal for sctrcontrol, vsctrcontrol,
      // sctrstatus (1.0: sctrdepth) and *ireg* with the select in 0x200..0x2FF.
      if (!mCtr && this.isCtrState(target, v)) return fault('illegal');
      // Privilege: S-level CSRs need S (or VS); hypervisor-level (0x2xx) need HS.
      if (!v && priv === PRIV_U) return fault('illegal');
      // H extension: VS/VU access to a hypervisor/VS CSR, or VU to a supervisor CSR -> virtual.
      if (v && (level === 2 || priv === PRIV_U)) return fault('virtual');
      // 1.0 sctrdepth: "Attempts to access sctrdepth from VS-mode or VU-mode raise a virtual-instruction exception".
      if (v && target.reg === 'depth') return fault('virtual');
      if (v) {
        // hstateen0: bit 60 for siselect/sireg* (virtual "regardless of the value of vsiselect");
        // the CTR bit for supervisor CTR state: "VS-mode accesses ... that would have completed
        // successfully if hstateen0.CTR was set raise a virtual instruction exception".
        if (ind && !has(hstateen0, STATEEN_CSRIND_BIT)) return fault('virtual');
        if (!hCtr && this.isCtrState(target, v)) return fault('virtual');
      }
    }
    // VS-mode accesses to sctrcontrol/siselect/sireg* go to vsctrcontrol/vsiselect/vsireg*.
    if (v) {
      if (target.reg === 'sctl') target = { reg: 'vsctl', half: target.half };
      else if (target.reg === 'iselect' && target.sel === 's') target = { reg: 'iselect', sel: 'vs' };
      else if (target.reg === 'ireg' && target.sel === 's') target = { reg: 'ireg', sel: 'vs', n: target.n };
    }
    // Smcsrind: accessing *ireg* while *iselect holds a value that is not implemented is
    // UNSPECIFIED; "It is recommended that implementations raise an illegal instruction exception".
    if (target.reg === 'ireg' && !inCtrRange(this.select(target.sel))) return fault('illegal');

    const width = target.reg === 'mctl' || target.reg === 'sctl' || target.reg === 'vsctl' ? (target.half === 'full' ? c.xlen : 32) : c.xlen;
    const wmaskAll = (1n << BigInt(width)) - 1n;
    const old = this.read(target) & wmaskAll;
    const response: CtrCsrResponse = { rdata: old, illegalInstruction: false, virtualInstruction: false };
    if (!a.write) return { response };
    const mask = (a.wmask ?? ALL_ONES) & wmaskAll;
    const merged = (old & ~mask) | (a.wdata & mask);
    const t = target;
    // An entry register access maps logical to physical with the start-of-cycle WRPTR.
    const physical = t.reg === 'ireg' ? this.physical(Number(this.select(t.sel)) - CTR_SELECT_FIRST) : 0;
    return { response, apply: () => this.write(t, merged, v, physical) };
  }

  /** "CTR register state" for the state-enable bits: the S/VS control and status (and 1.0 depth) CSRs and in-range *ireg*. */
  private isCtrState(t: Target, v: boolean): boolean {
    if (t.reg === 'sctl' || t.reg === 'vsctl' || t.reg === 'status' || t.reg === 'depth') return true;
    if (t.reg === 'ireg') return inCtrRange(this.select(v && t.sel === 's' ? 'vs' : t.sel));
    return false;
  }

  private select(sel: Sel): bigint {
    return sel === 'm' ? this.miselect : sel === 's' ? this.siselect : this.vsiselect;
  }

  /** v0.1.4: ctrcontrol.DEPTH in bits 19:16 (vsctrcontrol.DEPTH is a read-only copy). */
  private depthField(): bigint {
    return this.config.specVersion === '0.1.4' ? BigInt(depthEncoding014(this.depthIdx)) << BigInt(this.layout.depthLsb!) : 0n;
  }

  /** v0.1.4: the bits of ctrcontrol.DEPTH (legalised apart from the control mask); 0 in 1.0. */
  private depthBits(): bigint {
    return this.config.specVersion === '0.1.4' ? 0xfn << BigInt(this.layout.depthLsb!) : 0n;
  }

  private controlValue(reg: 'mctl' | 'sctl' | 'vsctl'): bigint {
    if (reg === 'vsctl') return this.vsctl | this.depthField();
    const m = this.mctl | this.depthField();
    return reg === 'mctl' ? m : m & ~(bit(this.layout.m) | bit(this.layout.mte));
  }

  private read(t: Target): bigint {
    const c = this.config;
    switch (t.reg) {
      case 'mctl':
      case 'sctl':
      case 'vsctl': {
        const value = this.controlValue(t.reg);
        return t.half === 'hi' ? (value >> 32n) & LO32 : t.half === 'lo' ? value & LO32 : value & xlenMask(c);
      }
      case 'status':
        // v0.1.4 §2.4: WRPTR 7:0, WRAP 14, FROZEN 15. 1.0: WRPTR 7:0, FROZEN 31.
        return c.specVersion === '0.1.4'
          ? BigInt(this.wrptr) | (this.wrap ? bit(14) : 0n) | (this.frozen ? bit(15) : 0n)
          : BigInt(this.wrptr) | (this.frozen ? bit(31) : 0n);
      case 'depth':
        return BigInt(this.depthIdx);
      case 'iselect':
        return this.select(t.sel);
      case 'ireg': {
        // mireg -> ctrsource, mireg2 -> ctrtarget, mireg3 -> ctrdata, mireg4..6 read-only 0;
        // entries at or above the depth are read-only 0 (v0.1.4 §2.1 DEPTH, 1.0 sctrdepth).
        const logical = Number(this.select(t.sel)) - CTR_SELECT_FIRST;
        if (t.n > 3 || logical >= this.depth) return 0n;
        const p = this.physical(logical);
        return (t.n === 1 ? this.src[p]! : t.n === 2 ? this.tgt[p]! : BigInt(this.dat[p]!)) & xlenMask(c);
      }
    }
  }

  private write(t: Target, merged: bigint, v: boolean, physical: number): void {
    const c = this.config;
    const l = this.layout;
    switch (t.reg) {
      case 'mctl':
      case 'sctl':
      case 'vsctl': {
        const old = this.controlValue(t.reg);
        const value = t.half === 'hi' ? (old & LO32) | (merged << 32n) : t.half === 'lo' ? (old & ~LO32) | merged : merged;
        const touchesLow = t.half !== 'hi';
        if (t.reg === 'vsctl') {
          this.vsctl = (this.vsctl & ~this.vsMask) | (value & this.vsMask);
          this.observer?.warl('control', (value & ~this.vsMask & ~this.depthBits()) !== 0n);
        } else {
          const mask = t.reg === 'mctl' ? this.mMask : this.sMask;
          this.observer?.warl('control', (value & ~mask & ~this.depthBits()) !== 0n);
          this.mctl = (this.mctl & ~mask) | (value & mask);
          if (c.specVersion === '0.1.4' && touchesLow) {
            const written = Number((value >> BigInt(l.depthLsb!)) & 0xfn);
            const legal = legaliseDepth(c, written, this.depthIdx);
            this.observer?.warl('depth', depthEncoding014(legal) !== written);
            this.setDepth(legal);
          }
        }
        // v0.1.4 §2.1 CLR: "When written to 1, zeroes all [entries]. Also zeroes mctrstatus." A
        // vsctrcontrol.CLR write clears "only when V=1" (§2.3).
        if (c.specVersion === '0.1.4' && touchesLow && has(value, l.clr!) && (t.reg !== 'vsctl' || v)) {
          this.clearEntries(false);
          this.wrptr = 0;
          this.wrap = false;
          this.frozen = false;
        }
        // §5.3: "An implementation must clear CCV for the next recorded transfer upon a write to
        // ctrcontrol"; 1.0: "The CtrCycleCounter is reset on writes to xctrctl".
        this.counter = 0;
        this.ccvClear = true;
        return;
      }
      case 'status':
        // WRPTR: "Bits above those needed to represent depth-1 ... are read-only 0".
        this.wrptr = Number(merged & 0xffn) & (this.depth - 1);
        this.observer?.warl('wrptr', this.wrptr !== Number(merged & 0xffn));
        if (c.specVersion === '0.1.4') {
          this.wrap = has(merged, 14);
          this.frozen = has(merged, 15);
        } else {
          this.frozen = has(merged, 31);
        }
        return;
      case 'depth': {
        const legal = legaliseDepth(c, Number(merged & 7n), this.depthIdx);
        this.observer?.warl('depth', legal !== Number(merged & 7n));
        this.setDepth(legal);
        return;
      }
      case 'iselect':
        if (t.sel === 'm') this.miselect = merged;
        else if (t.sel === 's') this.siselect = merged;
        else this.vsiselect = merged;
        return;
      case 'ireg': {
        const logical = Number(this.select(t.sel)) - CTR_SELECT_FIRST;
        if (t.n > 3 || logical >= this.depth) return; // read-only 0
        const p = physical;
        if (t.n === 1) this.src[p] = merged & sourceMask(c);
        else if (t.n === 2) this.tgt[p] = merged & targetMask(c);
        else this.dat[p] = Number(merged & BigInt(this.dMask)) >>> 0;
        return;
      }
    }
  }

  /** A new depth: WRPTR and newly exposed entries per the configuration (ctr.md open points). */
  private setDepth(index: number): void {
    if (index === this.depthIdx) return;
    const oldDepth = this.depth;
    const newDepth = depthOf(index);
    this.observer?.depth(oldDepth, newDepth);
    if (this.config.entriesOnDepthChange === 'zero') {
      for (let p = oldDepth; p < newDepth; p++) this.zeroEntry(p);
    }
    this.wrptr = this.config.wrptrOnDepthChange === 'mask' ? this.wrptr & (newDepth - 1) : 0;
    this.depthIdx = index;
  }

  /**
   * Zeroes every physical entry (v0.1.4 CLR; 1.0 SCTRCLR: "Zeroes all CTR Entry Registers, for all
   * DEPTH values"). SCTRCLR also "Zeroes the CTR cycle counter and CCV": the next record has CCV=0.
   */
  private clearEntries(sctrclr: boolean): void {
    for (let p = 0; p < this.src.length; p++) this.zeroEntry(p);
    if (sctrclr) {
      this.counter = 0;
      this.ccvClear = true;
    }
  }

  private zeroEntry(p: number): void {
    this.src[p] = 0n;
    this.tgt[p] = 0n;
    this.dat[p] = 0;
  }
}

/** 2^i for the bits of a 64-bit register: `has` tests one with a single BigInt operation. */
const BIT: readonly bigint[] = Array.from({ length: 64 }, (_, i) => 1n << BigInt(i));

/** Bit `bitIndex` (0-63) of a register value is set. */
function has(value: bigint, bitIndex: number): boolean {
  return (value & BIT[bitIndex]!) !== 0n;
}

function inCtrRange(select: bigint): boolean {
  return select >= BigInt(CTR_SELECT_FIRST) && select <= BigInt(CTR_SELECT_LAST);
}

/** The CSR numbers this unit implements in a configuration, with what each one accesses. */
function buildCsrMap(c: CtrConfig): Map<number, Target> {
  const m = new Map<number, Target>();
  const rv32 = c.xlen === 32;
  const control = (lo: number, hi: number | undefined, reg: 'mctl' | 'sctl' | 'vsctl'): void => {
    m.set(lo, { reg, half: rv32 ? 'lo' : 'full' });
    if (rv32 && hi !== undefined) m.set(hi, { reg, half: 'hi' });
  };
  const indirect = (base: number, sel: Sel): void => {
    m.set(base, { reg: 'iselect', sel });
    const offsets = [1, 2, 3, 5, 6, 7];
    offsets.forEach((o, i) => m.set(base + o, { reg: 'ireg', sel, n: i + 1 }));
  };
  if (c.specVersion === '0.1.4') {
    control(Csr014.mctrcontrol, Csr014.mctrcontrolh, 'mctl');
    m.set(Csr014.mctrstatus, { reg: 'status' });
    indirect(CsrInd.miselect, 'm');
    if (c.sMode) {
      control(Csr014.sctrcontrol, Csr014.sctrcontrolh, 'sctl');
      m.set(Csr014.sctrstatus, { reg: 'status' });
      indirect(CsrInd.siselect, 's');
    }
    if (c.hExt) {
      control(Csr014.vsctrcontrol, Csr014.vsctrcontrolh, 'vsctl');
      indirect(CsrInd.vsiselect, 'vs');
    }
  } else {
    // 1.0: no h halves ("RV32 cannot access xctrctl bits 63:32"), entries through siselect only.
    control(Csr10.mctrctl, undefined, 'mctl');
    control(Csr10.sctrctl, undefined, 'sctl');
    m.set(Csr10.sctrstatus, { reg: 'status' });
    m.set(Csr10.sctrdepth, { reg: 'depth' });
    indirect(CsrInd.siselect, 's');
    if (c.hExt) {
      control(Csr10.vsctrctl, undefined, 'vsctl');
      indirect(CsrInd.vsiselect, 'vs');
    }
  }
  return m;
}

/** The CSR numbers the unit answers (anything else gets an illegal-instruction response). */
export function ctrCsrNumbers(c: CtrConfig): number[] {
  return [...buildCsrMap(c).keys()].sort((a, b) => a - b);
}
