/**
 * Trace qualification: filters and comparators of chapter 5 (tables 2.3-2.6) and the trace-on /
 * trace-off triggers of section 4.2.4.
 *
 * Decisions where chapter 5 (informative) leaves freedom, applied identically by the RTL:
 * - Comparators compare unsigned values; `iaddr` is the address of the block's first instruction.
 * - matchMode 3 (latch) is true from the record where P matches through the record where S matches.
 * - matchEcause / matchInterrupt start at a trap whose cause (or interrupt flag) matches: the trap
 *   record and the handler are qualified until the xRET that returns from that trap, inclusive;
 *   traps nested inside count, so the matching xRET is found by depth.
 * - trigger[0] (trace-on) qualifies from its own instruction; trigger[1] (trace-off) after its own
 *   instruction. Both act only when iTrigEnable is set; they set or clear iEnable as table 2.1 says.
 */
import type { Comparator, EtraceOptions, Filter } from './config.ts';
import { Itype, type RetirementRecord, Trigger } from '../hart/records.ts';

/** A comparator's function (table 2.6 pFunction/sFunction) applied to an input and its match value. */
export function compare(fn: number, value: bigint, match: bigint): boolean {
  switch (fn) {
    case 0:
      return value === match;
    case 1:
      return value !== match;
    case 2:
      return value < match;
    case 3:
      return value <= match;
    case 4:
      return value > match;
    case 5:
      return value >= match;
    default:
      return true; // 6 (reserved / mask) and 7: always match
  }
}

function input(sel: number, r: RetirementRecord): bigint {
  return sel === 0 ? r.iaddr : sel === 1 ? r.context : sel === 2 ? r.tval : 0n;
}

class ComparatorUnit {
  private latched = false;
  constructor(private readonly c: Comparator) {}

  /** Evaluates the comparator on a record; returns its output and whether it asks for a notify. */
  evaluate(r: RetirementRecord): { out: boolean; notify: boolean } {
    const c = this.c;
    const pValue = input(c.pInput, r);
    const p =
      c.sFunction === 6
        ? compare(c.pFunction, pValue & c.sMatch, c.pMatch & c.sMatch)
        : compare(c.pFunction, pValue, c.pMatch);
    const s = c.sFunction === 6 ? true : compare(c.sFunction, input(c.sInput, r), c.sMatch);
    let out: boolean;
    switch (c.matchMode) {
      case 0:
        out = p;
        break;
      case 1:
        out = p && s;
        break;
      case 2:
        out = !(p && s);
        break;
      default: {
        if (p) this.latched = true;
        out = this.latched;
        if (this.latched && s) this.latched = false;
        break;
      }
    }
    const notify = (c.pNotify && c.pInput === 0 && p) || (c.sNotify && c.sInput === 0 && s && c.sFunction !== 6);
    return { out, notify };
  }
}

class FilterUnit {
  /** Trap nesting depth while an ecause / interrupt match is active (0 = not active). */
  private trapDepth = 0;
  constructor(private readonly f: Filter) {}

  matches(r: RetirementRecord, comps: boolean[]): boolean {
    const f = this.f;
    if (!f.filterEnable) return false;
    // The trap window keeps state, so it sees every record whatever the other conditions say.
    const inWindow = f.matchEcause || f.matchInterrupt ? this.trapWindow(r) : true;
    if (f.matchComp1 && !comps[f.comp1]) return false;
    if (f.matchComp2 && !comps[f.comp2]) return false;
    if (f.matchComp3 && !comps[f.comp3]) return false;
    if (f.matchPrivilege && ((f.matchChoicePrivilege >> r.priv) & 1) === 0) return false;
    if (f.matchImpdef && (r.impdef & f.matchMaskImpdef) !== (f.matchValueImpdef & f.matchMaskImpdef)) return false;
    return inWindow;
  }

  /** Whether `r` lies inside a matching trap handler (including the trap and its xRET). */
  private trapWindow(r: RetirementRecord): boolean {
    const f = this.f;
    const isTrap = r.itype === Itype.exception || r.itype === Itype.interrupt;
    if (this.trapDepth > 0) {
      if (isTrap) this.trapDepth++;
      if (r.itype === Itype.trapReturn && r.iretire > 0) this.trapDepth--;
      return true;
    }
    if (!isTrap) return false;
    const interrupt = r.itype === Itype.interrupt;
    const causeOk = !f.matchEcause || ((f.matchChoiceEcause >> BigInt(r.cause)) & 1n) === 1n;
    const intOk = !f.matchInterrupt || interrupt === f.matchValueInterrupt;
    if (causeOk && intOk) {
      this.trapDepth = 1;
      return true;
    }
    return false;
  }
}

const QUALIFIED = { qualified: true, notify: false } as const;
const NOT_QUALIFIED = { qualified: false, notify: false } as const;

/** Qualification of each record for instruction trace. */
export class Qualifier {
  private readonly comparators: ComparatorUnit[];
  private readonly filters: FilterUnit[];
  private enabled: boolean;

  constructor(private readonly o: EtraceOptions) {
    this.comparators = o.comparators.map((c) => new ComparatorUnit(c));
    this.filters = o.filters.map((f) => new FilterUnit(f));
    this.enabled = o.iEnable;
    this.simple = o.comparators.length === 0 && o.iFilters === 0 && !o.iTrigEnable;
  }
  private readonly simple: boolean;

  /** iEnable as the triggers left it. */
  get iEnable(): boolean {
    return this.enabled;
  }

  /**
   * Qualifies a record (halted and reset cycles are never qualified) and reports whether a
   * comparator asks for the block's last instruction to be reported (a watchpoint).
   */
  qualify(r: RetirementRecord): { qualified: boolean; notify: boolean } {
    if (this.simple) {
      // No comparators, filters or triggers: the common case, kept allocation-free.
      return r.halted || r.reset || !this.enabled ? NOT_QUALIFIED : QUALIFIED;
    }
    let notify = false;
    const comps = this.comparators.map((c) => {
      const e = c.evaluate(r);
      notify ||= e.notify;
      return e.out;
    });
    let filtered = true;
    if (this.o.iFilters !== 0) {
      filtered = false;
      // Every filter is evaluated (their trap windows keep state), any selected one qualifies.
      this.filters.forEach((f, i) => {
        const m = f.matches(r, comps);
        if ((this.o.iFilters >> i) & 1 && m) filtered = true;
      });
    }
    if (this.o.iTrigEnable && r.trigger & Trigger.traceOn) this.enabled = true;
    const qualified = this.enabled && filtered && !r.halted && !r.reset;
    if (this.o.iTrigEnable && r.trigger & Trigger.traceOff) this.enabled = false;
    return { qualified, notify: notify && qualified };
  }
}
