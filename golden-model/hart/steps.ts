/**
 * Executed steps -> retirement records: the part every importer of an instruction set simulator's
 * trace shares (spike-style CSV, QEMU's execution log). An importer reads its format, finds the
 * instruction at each step and says whether the step trapped; this module decides what retired and
 * how, and builds the single-retirement records.
 *
 * A step is one of (the semantics of docs/formats.md, "spike-csv", which this module implements):
 * - an interrupt taken before the instruction at `addr` executed (`addr` is the EPC; `info` is
 *   undefined: nothing was fetched): a trap record with iretire 0, itype 2;
 * - an exception with nothing fetched (an instruction fetch fault at `addr`): a trap record with
 *   iretire 0, itype 1;
 * - an instruction that raised an exception: ecall, ebreak and c.ebreak retire and trap (iretire =
 *   their half-words, itype 1); anything else did not retire (iretire 0, itype 1, iaddr = its
 *   address, ilastsize left at 1);
 * - an instruction that retired: a branch is taken when the next step is not at its sequential
 *   successor (the last step counts as not taken: nothing shows it left the sequential path); a
 *   jump gets its 4-bit itype and sijump when the previous retired instruction makes it
 *   sequentially inferable (section 4.1.1; a trap in between breaks the pair); xRET is itype 3.
 *   'exception' instructions that did not trap (ebreak entering debug mode), 'illegal' and
 *   'sequential' ones are ordinary retirements.
 * cause and tval are kept on trap records only (0 on the others); time is the record's cycle
 * number counting from 0; context and ctype are 0.
 *
 * Conversion lags one step behind: a step becomes a record when the next step's address is known.
 */
import { Itype, type RetirementRecord } from './records.ts';
import type { Xlen } from './stream.ts';
import { branchItype, type InstructionInfo, isSequentiallyInferable } from './isa/classify.ts';

/** Instruction access fault, instruction page fault, instruction guest-page fault: nothing was fetched. */
export const FETCH_FAULTS: ReadonlySet<number> = new Set([1, 12, 20]);

export interface Step {
  /** Address of the instruction; for an interrupt or a fetch fault, the EPC. */
  addr: bigint;
  /** The instruction at `addr`, when it was fetched (undefined for interrupts and fetch faults). */
  info: InstructionInfo | undefined;
  /** Privilege level of the step (records.ts `Priv` encoding). */
  priv: number;
  /** The trap the step raised (exception) or that was taken before it (interrupt). */
  trap: 'exception' | 'interrupt' | undefined;
  /** Cause without the interrupt flag; used on trap steps only. */
  cause: number;
  /** Trap value; used on trap steps only. */
  tval: bigint;
  /** Where the step comes from (a line of the input), for error messages. */
  line: number;
  /**
   * The sequential successor of `addr` (addr + the instruction's length, wrapped to XLEN), when the
   * importer has it (importers cache what they know per address); computed when undefined.
   */
  successor?: bigint;
}

export interface StepOptions<S extends Step> {
  /**
   * Check that each retired instruction's next step is one of its possible successors (the
   * sequential successor, a branch's target, a direct jump's target; anything after an indirect
   * jump or xRET). `fail` reports a violation at the next step's line.
   */
  checkFlow?: boolean;
  /** Called with every record as it is made, and the step it came from. */
  onRecord?: (record: RetirementRecord, step: S) => void;
  /** Throws the error of a step (message, line); required with checkFlow. */
  fail?: (message: string, line: number) => never;
}

const hex = (v: bigint): string => `0x${v.toString(16)}`;

export class StepConverter<S extends Step = Step> {
  /** The records made so far, or since the last `take()`. */
  records: RetirementRecord[] = [];
  /** Instructions retired so far (records with iretire > 0). */
  retired = 0;
  /** Records made so far, taken or not (a record's time). */
  private made = 0;
  /** The step waiting for its successor's address. */
  private pending: S | undefined;
  /** The previous retired instruction, for sijump; undefined after a trap. */
  private prevInfo: InstructionInfo | undefined;
  /** Sequential successors by instruction (importers classify each address once, so the info objects repeat). */
  private readonly successors = new WeakMap<InstructionInfo, { addr: bigint; next: bigint }>();

  constructor(
    private readonly xlen: Xlen,
    private readonly opts: StepOptions<S> = {},
  ) {}

  /** Adds a step; the previous one becomes its record now that its successor is known. */
  push(step: S): void {
    if (this.pending !== undefined) this.convert(this.pending, step);
    this.pending = step;
  }

  /** Converts the last step (its successor unknown: a last branch counts as not taken). */
  finish(): RetirementRecord[] {
    if (this.pending !== undefined) this.convert(this.pending, undefined);
    this.pending = undefined;
    return this.records;
  }

  /**
   * Hands over the records made since the last call (all of them at the first): a reader that
   * passes its records on in chunks keeps none of them.
   */
  take(): RetirementRecord[] {
    const taken = this.records;
    this.records = [];
    return taken;
  }

  /** Drops the last step without converting it (a truncated conversion stops before it). */
  discardPending(): RetirementRecord[] {
    this.pending = undefined;
    return this.records;
  }

  private emit(step: S, itype: number, iretire: number, ilastsize: number, trap: boolean, sijump: boolean): void {
    const record: RetirementRecord = {
      itype,
      iretire,
      ilastsize,
      iaddr: step.addr,
      priv: step.priv,
      cause: trap ? step.cause : 0,
      tval: trap ? step.tval : 0n,
      context: 0n,
      ctype: 0,
      sijump,
      trigger: 0,
      halted: false,
      reset: false,
      impdef: 0,
      time: BigInt(this.made++),
      sameCycle: false,
    };
    this.records.push(record);
    if (iretire > 0) this.retired++;
    this.opts.onRecord?.(record, step);
  }

  private convert(step: S, next: S | undefined): void {
    const info = step.info;
    if (info === undefined) {
      // Nothing was fetched at addr: a trap record only.
      this.emit(step, step.trap === 'interrupt' ? Itype.interrupt : Itype.exception, 0, 1, true, false);
      this.prevInfo = undefined;
      return;
    }
    const iretire = info.length / 2;
    const ilastsize = info.length === 4 ? 1 : 0;
    if (step.trap !== undefined) {
      // ecall/ebreak retire and trap; anything else that traps did not complete. (An instruction
      // step with trap 'interrupt' cannot come from the importers; it is treated as an exception.)
      if (info.control === 'exception') this.emit(step, Itype.exception, iretire, ilastsize, true, false);
      else this.emit(step, Itype.exception, 0, 1, true, false);
      this.prevInfo = undefined;
      return;
    }
    let successor = step.successor;
    if (successor === undefined) {
      let known = this.successors.get(info);
      if (known === undefined || known.addr !== step.addr) {
        known = { addr: step.addr, next: BigInt.asUintN(this.xlen, step.addr + BigInt(info.length)) };
        this.successors.set(info, known);
      }
      successor = known.next;
    }
    let itype: number = Itype.none;
    let sijump = false;
    if (info.control === 'branch') {
      itype = branchItype(next !== undefined && next.addr !== successor);
    } else if (info.control === 'jump') {
      itype = info.itype;
      sijump = this.prevInfo !== undefined && isSequentiallyInferable(this.prevInfo, info);
    } else if (info.control === 'trap-return') {
      itype = Itype.trapReturn;
    }
    if (this.opts.checkFlow && next !== undefined) this.checkSuccessor(step, info, successor, next);
    this.emit(step, itype, iretire, ilastsize, false, sijump);
    this.prevInfo = info;
  }

  private checkSuccessor(step: S, info: InstructionInfo, successor: bigint, next: S): void {
    switch (info.control) {
      case 'branch':
        if (next.addr !== successor && next.addr !== info.target) {
          this.flowError(step, info, next, `which is neither its target ${hex(info.target!)} nor its successor ${hex(successor)}`);
        }
        return;
      case 'jump':
        if (info.target !== undefined && next.addr !== info.target) this.flowError(step, info, next, `not by its target ${hex(info.target)}`);
        return;
      case 'trap-return':
        return;
      default:
        if (next.addr !== successor) this.flowError(step, info, next, `not by its successor ${hex(successor)}`);
    }
  }

  /** Reports a step that cannot follow `step` (the message is only built here: checks run per step). */
  private flowError(step: S, info: InstructionInfo, next: S, why: string): never {
    const fail = this.opts.fail;
    if (fail === undefined) throw new Error('StepConverter: checkFlow needs fail');
    const nextWhat = next.info === undefined ? `${next.trap === 'interrupt' ? 'an interrupt' : 'a fetch fault'} at ${hex(next.addr)}` : hex(next.addr);
    return fail(`${info.mnemonic} at ${hex(step.addr)} is followed by ${nextWhat}, ${why}`, next.line);
  }
}
