/**
 * Retirement records: the hart-to-encoder instruction trace interface of E-Trace chapter 4
 * (tables 4.1-4.6), one record per signal group per cycle.
 *
 * Conventions of this project (the spec leaves them to the implementation):
 * - `iretire` is always counted in 16-bit half-words, in single retirement too (table 4.3 counts
 *   instructions there; a single instruction of 2^ilastsize half-words is the same information).
 * - `itype` is stored with the 4-bit classification of section 4.1.1. A 3-bit interface sees it
 *   through `toItype3` (all uninferable jumps become 6, inferable jumps 0).
 * - A trap that happens when no instruction retires (a faulting load, an illegal instruction, an
 *   interrupt) is its own record with iretire = 0 and itype 1 or 2; `iaddr` then holds the address
 *   of the instruction that did not retire (the EPC). The spec calls iaddr undefined there, so
 *   nothing downstream may depend on it except checks of our own streams. ecall and ebreak retire
 *   and trap: their record has iretire > 0 and itype 1, as in the spec's reference flow.
 * - `context`, `priv`, `impdef` and `time` hold the value for the cycle; `ctype` is non-zero only on
 *   the first retirement after a context change.
 * - `sameCycle` marks a record that is a further signal group of the previous record's cycle
 *   (multiple retirement with taken_branches_p > 1). Single-retirement streams never set it.
 */

/** The itype codes of table 4.1 (4-bit classification). */
export const Itype = {
  none: 0,
  exception: 1,
  interrupt: 2,
  trapReturn: 3,
  nontakenBranch: 4,
  takenBranch: 5,
  /** Only with itype_width_p = 3: every uninferable jump. */
  uninferableJump3: 6,
  reserved7: 7,
  uninferableCall: 8,
  inferableCall: 9,
  uninferableTailCall: 10,
  inferableTailCall: 11,
  coRoutineSwap: 12,
  return: 13,
  otherUninferableJump: 14,
  otherInferableJump: 15,
} as const;
export type ItypeCode = (typeof Itype)[keyof typeof Itype];

/** Names used by `rvtrace info`, the text format and error messages. */
export const ITYPE_NAMES: readonly string[] = [
  'none',
  'exception',
  'interrupt',
  'trap-return',
  'nontaken-branch',
  'taken-branch',
  'uninferable-jump',
  'reserved',
  'uninferable-call',
  'inferable-call',
  'uninferable-tail-call',
  'inferable-tail-call',
  'co-routine-swap',
  'return',
  'other-uninferable-jump',
  'other-inferable-jump',
];

/** The itypes a 4-bit interface defines (6 and 7 are reserved there). */
export const ITYPES_4BIT: readonly number[] = [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15];

/** Context reporting behaviour, table 4.4. */
export const Ctype = { unreported: 0, imprecise: 1, precise: 2, asynchronous: 3 } as const;

/** Privilege level encoding used on `priv` (the RISC-V privilege encoding; 4 = debug mode). */
export const Priv = { U: 0, S: 1, M: 3, D: 4 } as const;

/** trigger[2:0] bits, table 4.5 / 4.7. */
export const Trigger = { traceOn: 1, traceOff: 2, notify: 4 } as const;

export interface RetirementRecord {
  /** Termination type of the block, 4-bit classification (see `Itype`). */
  itype: number;
  /** Half-words retired in this block (0 for an idle cycle or a trap that retired nothing). */
  iretire: number;
  /** log2 of the size of the last instruction in half-words: 0 = 16-bit, 1 = 32-bit. */
  ilastsize: number;
  /** Address of the first instruction of the block (for iretire = 0 traps: the EPC). */
  iaddr: bigint;
  priv: number;
  /** Exception or interrupt cause; meaningful only for itype 1 and 2. */
  cause: number;
  /** Trap value; meaningful only for itype 1 and 2. */
  tval: bigint;
  context: bigint;
  ctype: number;
  /** The block ends with a sequentially inferable jump (section 4.1.1). */
  sijump: boolean;
  /** trigger[2:0]: bit 0 trace-on, bit 1 trace-off, bit 2 notify. */
  trigger: number;
  halted: boolean;
  reset: boolean;
  impdef: number;
  /** Time stamp of the cycle (2.0 layout's `time`); the stimulus uses the cycle number. */
  time: bigint;
  /** A further signal group of the previous record's cycle. */
  sameCycle: boolean;
}

/** A record with every field at its idle value; spread it and override what matters. */
export function emptyRecord(): RetirementRecord {
  return {
    itype: 0,
    iretire: 0,
    ilastsize: 1,
    iaddr: 0n,
    priv: Priv.M,
    cause: 0,
    tval: 0n,
    context: 0n,
    ctype: 0,
    sijump: false,
    trigger: 0,
    halted: false,
    reset: false,
    impdef: 0,
    time: 0n,
    sameCycle: false,
  };
}

/** True when the record reports a trap (exception or interrupt). */
export function isTrap(r: RetirementRecord): boolean {
  return r.itype === Itype.exception || r.itype === Itype.interrupt;
}

export function isBranch(itype: number): boolean {
  return itype === Itype.nontakenBranch || itype === Itype.takenBranch;
}

/** itype 8..15 (4-bit) are jumps; 6 is the 3-bit code for every uninferable jump. */
export function isUninferableJump(itype: number): boolean {
  return (
    itype === Itype.uninferableJump3 ||
    itype === Itype.uninferableCall ||
    itype === Itype.uninferableTailCall ||
    itype === Itype.coRoutineSwap ||
    itype === Itype.return ||
    itype === Itype.otherUninferableJump
  );
}

export function isInferableJump(itype: number): boolean {
  return itype === Itype.inferableCall || itype === Itype.inferableTailCall || itype === Itype.otherInferableJump;
}

/** The itype a 3-bit interface carries for a 4-bit classification (section 4.2, table 4.1). */
export function toItype3(itype: number): number {
  if (isUninferableJump(itype)) return Itype.uninferableJump3;
  if (isInferableJump(itype)) return Itype.none;
  return itype;
}

/** Size in bytes of the last instruction of a block. */
export function lastInstructionBytes(r: RetirementRecord): number {
  return 2 << r.ilastsize;
}

/** Address of the last instruction of a block with iretire > 0. */
export function lastInstructionAddress(r: RetirementRecord): bigint {
  return r.iaddr + BigInt(r.iretire * 2 - lastInstructionBytes(r));
}

/** Address after the last instruction of a block (the sequential successor). */
export function sequentialNext(r: RetirementRecord): bigint {
  return r.iaddr + BigInt(r.iretire * 2);
}
