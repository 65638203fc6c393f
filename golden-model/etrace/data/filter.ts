/**
 * Which data accesses are traced (tables 2.1 and 2.3, chapter 5): dEnable (set and cleared by the
 * trace-on/off triggers when dTrigEnable), and the filters dFilters selects. A data filter sees the
 * accessing instruction's own address (block address combined with iaddr_lsbs, section 4.4), the
 * access address (comparator input 3), and the record's context, tval, privilege and impdef.
 * Comparators keep their own latch state for data trace: the instruction qualifier's comparators
 * see records, these see accesses (docs/etrace-data.md, "Filtering").
 */
import type { Comparator, EtraceOptions, Filter } from '../config.ts';
import { compare } from '../filter.ts';
import type { DataAccess } from '../../hart/data-records.ts';
import { type RetirementRecord, Trigger } from '../../hart/records.ts';

/**
 * The accessing instruction's address: the block's first address with half-word bits [w:1]
 * replaced by iaddr_lsbs, moved forward to the first address at or after the block start with
 * those bits (w is one more bit than a block needs, so the result is unique). w = 0: the block's
 * address (exact for single retirement).
 */
export function accessInstructionAddress(blockAddress: bigint, iaddrLsbs: number, width: number): bigint {
  if (width === 0) return blockAddress;
  const m = (1n << BigInt(width)) - 1n;
  const offset = (BigInt(iaddrLsbs) - (blockAddress >> 1n)) & m;
  return blockAddress + 2n * offset;
}

interface AccessView {
  iaddr: bigint;
  daddr: bigint;
  r: RetirementRecord;
}

function input(sel: number, v: AccessView): bigint {
  return sel === 0 ? v.iaddr : sel === 1 ? v.r.context : sel === 2 ? v.r.tval : v.daddr;
}

class DataComparator {
  private latched = false;
  constructor(private readonly c: Comparator) {}
  evaluate(v: AccessView): boolean {
    const c = this.c;
    const pValue = input(c.pInput, v);
    const p = c.sFunction === 6 ? compare(c.pFunction, pValue & c.sMatch, c.pMatch & c.sMatch) : compare(c.pFunction, pValue, c.pMatch);
    const s = c.sFunction === 6 ? true : compare(c.sFunction, input(c.sInput, v), c.sMatch);
    switch (c.matchMode) {
      case 0:
        return p;
      case 1:
        return p && s;
      case 2:
        return !(p && s);
      default: {
        if (p) this.latched = true;
        const out = this.latched;
        if (this.latched && s) this.latched = false;
        return out;
      }
    }
  }
}

function filterMatches(f: Filter, r: RetirementRecord, comps: boolean[]): boolean {
  if (!f.filterEnable) return false;
  if (f.matchComp1 && !comps[f.comp1]) return false;
  if (f.matchComp2 && !comps[f.comp2]) return false;
  if (f.matchComp3 && !comps[f.comp3]) return false;
  if (f.matchPrivilege && ((f.matchChoicePrivilege >> r.priv) & 1) === 0) return false;
  if (f.matchImpdef && (r.impdef & f.matchMaskImpdef) !== (f.matchValueImpdef & f.matchMaskImpdef)) return false;
  // A trap-handler window (matchEcause / matchInterrupt) is an instruction-trace notion: a data
  // filter that asks for it matches nothing (validateConfig rejects it when dFilters selects it).
  return !(f.matchEcause || f.matchInterrupt);
}

export class DataQualifier {
  private enabled: boolean;
  private readonly comparators: DataComparator[];

  constructor(
    private readonly o: EtraceOptions,
    private readonly iaddrLsbsWidth: number,
  ) {
    this.enabled = o.dEnable;
    this.comparators = o.comparators.map((c) => new DataComparator(c));
  }

  /** A record goes by: its triggers move dEnable when dTrigEnable. */
  record(r: RetirementRecord): void {
    if (!this.o.dTrigEnable) return;
    if (r.trigger & Trigger.traceOn) this.enabled = true;
    if (r.trigger & Trigger.traceOff) this.enabled = false;
  }

  get dEnable(): boolean {
    return this.enabled;
  }

  /** Whether an access retired in record `r` (its block) is traced. */
  traced(a: DataAccess, r: RetirementRecord): boolean {
    if (!this.enabled || r.halted || r.reset) return false;
    if (this.o.dFilters === 0) return true;
    const view = { iaddr: accessInstructionAddress(r.iaddr, a.iaddrLsbs, this.iaddrLsbsWidth), daddr: a.daddr, r };
    const comps = this.comparators.map((c) => c.evaluate(view));
    return this.o.filters.some((f, i) => ((this.o.dFilters >> i) & 1) === 1 && filterMatches(f, r, comps));
  }
}
