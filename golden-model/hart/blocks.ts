/**
 * Multiple retirement (E-Trace section 4.2): regrouping a single-retirement stream into the blocks
 * a hart that retires several instructions per cycle would present, and expanding blocks back into
 * single retirements.
 *
 * The rules a legal block stream obeys (section 4.2 and tables 4.1-4.5):
 * - a block is a contiguous run of instructions; it ends at the first instruction with a non-zero
 *   itype (branch taken or not, jump, xRET, ecall/ebreak trap), because itype, sijump and trigger
 *   describe the block's last instruction;
 * - a cycle holds at most `taken_branches_p` groups and `retires_p` instructions;
 * - priv, context, ctype, cause/tval, impdef, halted, reset and time are per cycle (groups M and O
 *   are not replicated), so a change of any of them, or a ctype report, starts a new cycle;
 * - a trap (itype 1 or 2) can only be in the newest group of its cycle;
 * - an instruction that carries trigger bits ends its group, so trace-notify reports it and the
 *   trace-on/off point stays exactly where single retirement had it.
 * A trap that retired nothing (iretire 0) stays a group of its own: merging it into the previous
 * block would turn "exception before the next instruction" into "exception signalled with the last
 * instruction", which an encoder reports differently.
 *
 * Optionally (`oneDataAccess`) a cycle holds at most one instruction that makes a data access: a
 * hart with one data port, as the data trace interface of E-Trace table 4.9 has (one dretire a
 * cycle). An instruction that would be the cycle's second access starts a new cycle.
 */
import type { ProgramImage } from './image.ts';
import { dataAccessOf, type DataAccessInfo } from './isa/data-access.ts';
import { isTrap, type RetirementRecord, sequentialNext } from './records.ts';

export interface RetirementShape {
  /** retires_p: instructions retired per cycle at most. */
  retires_p: number;
  /** taken_branches_p: signal groups (blocks) per cycle. */
  taken_branches_p: number;
}

export interface RegroupOptions {
  /**
   * One data port: true for a single-retirement record whose instruction makes a data access; a
   * cycle then holds at most one such record (`dataAccessPredicate` classifies from the image).
   * Absent: no such limit.
   */
  oneDataAccess?: (r: RetirementRecord) => boolean;
}

/**
 * The predicate of `RegroupOptions.oneDataAccess` from the program image: a record that retires an
 * instruction making a data access (`dataAccessOf`: loads, stores, AMOs, Zicsr) that `reported`
 * keeps (default: every one; a hart whose interface has no CSR or atomic codes reports none of
 * those). A record whose instruction is not in the image makes none.
 */
export function dataAccessPredicate(image: ProgramImage, xlen: 32 | 64, reported: (info: DataAccessInfo) => boolean = () => true): (r: RetirementRecord) => boolean {
  return (r) => {
    if (r.iretire === 0) return false;
    const insn = image.fetch(r.iaddr);
    if (insn === undefined) return false;
    const info = dataAccessOf(insn.encoding, insn.length, xlen);
    return info !== undefined && reported(info);
  };
}

/** True when the per-cycle signals of two records agree (they may share a cycle). */
function sameCycleSignals(a: RetirementRecord, b: RetirementRecord): boolean {
  return (
    a.priv === b.priv &&
    a.context === b.context &&
    a.impdef === b.impdef &&
    a.halted === b.halted &&
    a.reset === b.reset
  );
}

/** Half-word counts of instructions: a single-retirement record holds exactly one instruction. */
function isSingleInstruction(r: RetirementRecord): boolean {
  return r.iretire === 1 << r.ilastsize;
}

/**
 * Regroups a single-retirement stream into blocks of up to `retires_p` instructions in up to
 * `taken_branches_p` groups per cycle. Records that are not single instructions (idle cycles,
 * halted/reset cycles, traps that retired nothing) pass through as cycles of their own or as the
 * newest group of a cycle (traps).
 */
export function regroupIntoBlocks(records: readonly RetirementRecord[], shape: RetirementShape, options: RegroupOptions = {}): RetirementRecord[] {
  if (shape.retires_p < 1 || shape.taken_branches_p < 1) {
    throw new Error('retires_p and taken_branches_p must be at least 1');
  }
  const out: RetirementRecord[] = [];
  let group: RetirementRecord | undefined; // the open group, last element of `out`
  let groupOpen = false; // its last instruction had itype 0 and no trigger: it may grow
  let cycleGroups = 0;
  let cycleInstructions = 0;
  let cycleClosed = true; // a trap ended the cycle, or there is none yet
  let cycleHead: RetirementRecord | undefined;
  const accessesData = options.oneDataAccess;
  let cycleAccess = false; // the cycle holds an instruction that makes a data access

  const startCycle = (r: RetirementRecord, access: boolean): void => {
    group = { ...r, sameCycle: false };
    out.push(group);
    cycleHead = group;
    cycleGroups = 1;
    cycleInstructions = r.iretire > 0 ? 1 : 0;
    cycleAccess = access;
  };

  for (const r of records) {
    if (r.sameCycle) throw new Error('regroupIntoBlocks expects a single-retirement stream (no sameCycle records)');
    const retires = r.iretire > 0;
    if (retires && !isSingleInstruction(r)) {
      throw new Error(`record at 0x${r.iaddr.toString(16)} retires ${r.iretire} half-words: not a single instruction`);
    }
    const idle = !retires && !isTrap(r);
    const access = retires && accessesData !== undefined && accessesData(r);
    const fitsCycle =
      !cycleClosed &&
      cycleHead !== undefined &&
      !idle &&
      r.ctype === 0 &&
      sameCycleSignals(cycleHead, r) &&
      (!retires || cycleInstructions < shape.retires_p) &&
      !(access && cycleAccess);

    if (fitsCycle && retires && groupOpen && group !== undefined && sequentialNext(group) === r.iaddr) {
      // Grow the open group by one instruction; its last instruction now decides itype and friends.
      group.iretire += r.iretire;
      group.ilastsize = r.ilastsize;
      group.itype = r.itype;
      group.sijump = r.sijump;
      group.trigger = r.trigger;
      group.cause = r.cause;
      group.tval = r.tval;
      cycleInstructions++;
      cycleAccess ||= access;
    } else if (fitsCycle && cycleGroups < shape.taken_branches_p) {
      // A further group of the same cycle (after a branch or jump, or a trap as the newest group).
      group = { ...r, sameCycle: true, time: cycleHead!.time };
      out.push(group);
      cycleGroups++;
      if (retires) cycleInstructions++;
      cycleAccess ||= access;
    } else {
      startCycle(r, access);
    }
    groupOpen = retires && r.itype === 0 && r.trigger === 0;
    // A trap must be the newest group; idle, halted and reset cycles hold nothing else.
    cycleClosed = isTrap(r) || idle;
  }
  return out;
}

/**
 * Expands blocks into single retirements, using the image for the size of each instruction inside
 * a block. The inverse of `regroupIntoBlocks` (up to the time stamps of later groups in a cycle).
 */
export function expandBlocks(records: readonly RetirementRecord[], image: ProgramImage): RetirementRecord[] {
  const out: RetirementRecord[] = [];
  for (const r of records) {
    if (r.iretire === 0 || isSingleInstruction(r)) {
      out.push({ ...r, sameCycle: false });
      continue;
    }
    let addr = r.iaddr;
    let left = r.iretire;
    let first = true;
    while (left > 0) {
      const insn = image.fetch(addr);
      if (!insn) throw new Error(`block at 0x${r.iaddr.toString(16)}: no instruction in the image at 0x${addr.toString(16)}`);
      const halfWords = insn.length / 2;
      const last = left === halfWords;
      if (halfWords > left) {
        throw new Error(`block at 0x${r.iaddr.toString(16)}: instruction at 0x${addr.toString(16)} crosses the block end`);
      }
      out.push({
        ...r,
        iaddr: addr,
        iretire: halfWords,
        ilastsize: halfWords === 2 ? 1 : 0,
        // What describes the block's end belongs to its last instruction; ctype to its first.
        itype: last ? r.itype : 0,
        sijump: last ? r.sijump : false,
        trigger: last ? r.trigger : 0,
        cause: last ? r.cause : 0,
        tval: last ? r.tval : 0n,
        ctype: first ? r.ctype : 0,
        sameCycle: false,
      });
      addr += BigInt(insn.length);
      left -= halfWords;
      first = false;
    }
  }
  return out;
}
