/** Statistics of a retirement stream, as `rvtrace info` prints them. */
import type { ProgramImage } from './image.ts';
import { ITYPE_NAMES, Itype, isTrap, type RetirementRecord, Trigger } from './records.ts';

export interface StreamStats {
  records: number;
  cycles: number;
  /** Retired instructions; undefined when blocks cannot be split (no image). */
  instructions: number | undefined;
  halfWords: number;
  /** Count per itype code 0..15 (4-bit classification). */
  itypes: number[];
  branchesTaken: number;
  branchesNotTaken: number;
  exceptions: number;
  interrupts: number;
  /** Traps signalled when nothing retired (the trapping instruction did not complete). */
  trapsWithoutRetirement: number;
  privilegeChanges: number;
  /** Count of context reports per ctype 1..3 (index 0 unused). */
  contextReports: number[];
  sijumps: number;
  triggersOn: number;
  triggersOff: number;
  triggersNotify: number;
  haltedCycles: number;
  resetCycles: number;
  idleCycles: number;
}

export function streamStats(records: readonly RetirementRecord[], image?: ProgramImage): StreamStats {
  const s: StreamStats = {
    records: records.length,
    cycles: 0,
    instructions: 0,
    halfWords: 0,
    itypes: new Array<number>(16).fill(0),
    branchesTaken: 0,
    branchesNotTaken: 0,
    exceptions: 0,
    interrupts: 0,
    trapsWithoutRetirement: 0,
    privilegeChanges: 0,
    contextReports: [0, 0, 0, 0],
    sijumps: 0,
    triggersOn: 0,
    triggersOff: 0,
    triggersNotify: 0,
    haltedCycles: 0,
    resetCycles: 0,
    idleCycles: 0,
  };
  let prevPriv: number | undefined;
  for (const r of records) {
    if (!r.sameCycle) {
      s.cycles++;
      if (r.halted) s.haltedCycles++;
      if (r.reset) s.resetCycles++;
      if (r.iretire === 0 && !isTrap(r) && !r.halted && !r.reset) s.idleCycles++;
    }
    s.halfWords += r.iretire;
    if (s.instructions !== undefined && r.iretire > 0) {
      const n = instructionsInBlock(r, image);
      s.instructions = n === undefined ? undefined : s.instructions + n;
    }
    if (r.iretire > 0 || isTrap(r)) {
      s.itypes[r.itype & 15]!++;
      if (prevPriv !== undefined && r.priv !== prevPriv) s.privilegeChanges++;
      prevPriv = r.priv;
    }
    if (r.itype === Itype.takenBranch) s.branchesTaken++;
    if (r.itype === Itype.nontakenBranch) s.branchesNotTaken++;
    if (r.itype === Itype.exception) s.exceptions++;
    if (r.itype === Itype.interrupt) s.interrupts++;
    if (isTrap(r) && r.iretire === 0) s.trapsWithoutRetirement++;
    if (r.ctype > 0 && r.ctype < 4) s.contextReports[r.ctype]!++;
    if (r.sijump) s.sijumps++;
    if (r.trigger & Trigger.traceOn) s.triggersOn++;
    if (r.trigger & Trigger.traceOff) s.triggersOff++;
    if (r.trigger & Trigger.notify) s.triggersNotify++;
  }
  return s;
}

/**
 * The retired instructions of a stream seen a piece at a time, as `streamStats` counts them: the
 * blocks of more than one instruction (multiple retirement) are kept and counted in the image at
 * the end, as the image of an import is complete only then.
 */
export class InstructionCounter {
  private single = 0;
  private readonly blocks: RetirementRecord[] = [];

  add(records: readonly RetirementRecord[]): void {
    for (const r of records) {
      if (r.iretire === 0) continue;
      if (r.iretire === 1 << r.ilastsize) this.single++;
      else this.blocks.push(r);
    }
  }

  /** The count, or undefined when a block cannot be split (no image, or not in it). */
  total(image?: ProgramImage): number | undefined {
    let n = this.single;
    for (const r of this.blocks) {
      const k = instructionsInBlock(r, image);
      if (k === undefined) return undefined;
      n += k;
    }
    return n;
  }
}

/** Instructions in one block: one when the block is a single instruction, else counted in the image. */
function instructionsInBlock(r: RetirementRecord, image?: ProgramImage): number | undefined {
  if (r.iretire === 1 << r.ilastsize) return 1;
  if (!image) return undefined;
  let n = 0;
  let addr = r.iaddr;
  const end = r.iaddr + BigInt(r.iretire * 2);
  while (addr < end) {
    const insn = image.fetch(addr);
    if (!insn) return undefined;
    addr += BigInt(insn.length);
    n++;
  }
  return n;
}

/** Human-readable report, one fact per line, stable order (tests and users diff it). */
export function formatStats(s: StreamStats): string {
  const lines: string[] = [];
  const row = (name: string, value: string | number): void => {
    lines.push(`${name.padEnd(28)} ${value}`);
  };
  row('records', s.records);
  row('cycles', s.cycles);
  row('instructions', s.instructions ?? 'unknown (blocks without an image)');
  row('half-words', s.halfWords);
  row('branches taken', s.branchesTaken);
  row('branches not taken', s.branchesNotTaken);
  row('traps: exceptions', s.exceptions);
  row('traps: interrupts', s.interrupts);
  row('traps with nothing retired', s.trapsWithoutRetirement);
  row('privilege changes', s.privilegeChanges);
  row('context reports (ctype 1/2/3)', `${s.contextReports[1]} / ${s.contextReports[2]} / ${s.contextReports[3]}`);
  row('sequentially inferable jumps', s.sijumps);
  row('triggers on/off/notify', `${s.triggersOn} / ${s.triggersOff} / ${s.triggersNotify}`);
  row('halted cycles', s.haltedCycles);
  row('reset cycles', s.resetCycles);
  row('idle cycles', s.idleCycles);
  lines.push('itype counts:');
  for (let i = 0; i < 16; i++) {
    if (s.itypes[i] === 0 && (i === 6 || i === 7)) continue; // reserved in the 4-bit classification
    lines.push(`  ${String(i).padStart(2)} ${ITYPE_NAMES[i]!.padEnd(24)} ${s.itypes[i]}`);
  }
  return lines.join('\n');
}
