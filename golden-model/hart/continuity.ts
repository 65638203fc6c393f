/**
 * Checks that a retirement stream is a possible execution of its program image: every record's
 * itype agrees with the instruction the image holds at the end of the block, and every next
 * address is the one the image and the record imply:
 *   - itype 0 or a not-taken branch: the sequential successor;
 *   - a taken branch or an inferable jump: the static target encoded in the instruction;
 *   - a sequentially inferable jump: the target its constant load and the jump compute;
 *   - an uninferable jump, xRET or trap: any address (the target is what the trace reports);
 *   - a trap that retired nothing happens at the address where the flow had arrived (its EPC).
 * Idle and halted cycles change nothing; a reset restarts anywhere (at the reset vector).
 *
 * This is deliberately separate from the stimulus executor: it sees only the records and the
 * image, as a decoder would, and classifies instructions from their bits.
 */
import { classify, type InstructionInfo, isSequentiallyInferable, sequentialTarget } from './isa/classify.ts';
import type { ProgramImage } from './image.ts';
import {
  isBranch,
  isTrap,
  Itype,
  ITYPE_NAMES,
  lastInstructionAddress,
  type RetirementRecord,
  sequentialNext,
} from './records.ts';
import type { Xlen } from './stream.ts';

export interface ContinuityError {
  /** Index of the record where the problem shows. */
  index: number;
  message: string;
}

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** Returns the problems found (at most `limit`), in stream order; an empty list means consistent. */
export function checkContinuity(
  records: readonly RetirementRecord[],
  image: ProgramImage,
  xlen: Xlen,
  limit = 20,
): ContinuityError[] {
  const errors: ContinuityError[] = [];
  const infos = new Map<bigint, InstructionInfo>();
  const info = (addr: bigint): InstructionInfo | undefined => {
    let i = infos.get(addr);
    if (!i) {
      const f = image.fetch(addr);
      if (!f) return undefined;
      i = classify(f.encoding, addr, xlen);
      infos.set(addr, i);
    }
    return i;
  };

  /** Where execution must continue, or undefined when any address is acceptable. */
  let expected: bigint | undefined;
  /** The last retired instruction, for sequentially inferable pairs. */
  let prev: { addr: bigint; info: InstructionInfo } | undefined;

  for (let i = 0; i < records.length && errors.length < limit; i++) {
    const r = records[i]!;
    const fail = (message: string): void => {
      errors.push({ index: i, message });
    };
    if (r.reset) {
      expected = undefined;
      prev = undefined;
      continue;
    }
    if (r.iretire === 0) {
      if (isTrap(r)) {
        if (expected !== undefined && r.iaddr !== expected) {
          fail(`trap with nothing retired at ${hex(r.iaddr)}, but execution had arrived at ${hex(expected)}`);
        }
        expected = undefined; // the handler address is reported
        prev = undefined;
      } else if (r.itype !== 0) {
        fail(`itype ${r.itype} (${ITYPE_NAMES[r.itype]}) on a cycle that retires nothing`);
      }
      continue;
    }
    if (expected !== undefined && r.iaddr !== expected) {
      fail(`block starts at ${hex(r.iaddr)}, but the previous record implies ${hex(expected)}`);
    }
    // Every instruction inside a block is sequential; the last one is described by itype.
    const last = lastInstructionAddress(r);
    for (let a = r.iaddr; a < last; ) {
      const inner = info(a);
      if (!inner) {
        fail(`no instruction in the image at ${hex(a)}`);
        break;
      }
      if (inner.control !== 'sequential') {
        fail(`${inner.mnemonic} at ${hex(a)} is inside a block but changes control flow`);
      }
      prev = { addr: a, info: inner };
      a += BigInt(inner.length);
    }
    const li = info(last);
    if (!li) {
      fail(`no instruction in the image at ${hex(last)}`);
      expected = undefined;
      prev = undefined;
      continue;
    }
    if (li.length !== 2 << r.ilastsize) {
      fail(`ilastsize ${r.ilastsize} but the instruction at ${hex(last)} is ${li.length} bytes`);
    }
    const seq = sequentialNext(r);
    expected = nextAddress(r, li, seq, prev, image, xlen, fail);
    prev = isTrap(r) ? undefined : { addr: last, info: li };
  }
  return errors;
}

function nextAddress(
  r: RetirementRecord,
  li: InstructionInfo,
  seq: bigint,
  prev: { addr: bigint; info: InstructionInfo } | undefined,
  image: ProgramImage,
  xlen: Xlen,
  fail: (m: string) => void,
): bigint | undefined {
  const name = `${li.mnemonic} at ${hex(lastInstructionAddress(r))}`;
  const itypeName = `itype ${r.itype} (${ITYPE_NAMES[r.itype]})`;
  if (isBranch(r.itype)) {
    if (li.control !== 'branch') fail(`${itypeName} but ${name} is not a branch`);
    return r.itype === Itype.takenBranch ? li.target : seq;
  }
  if (li.control === 'branch') fail(`${name} is a branch but the record says ${itypeName}`);
  if (isTrap(r)) {
    if (r.itype === Itype.exception && li.control !== 'exception' && li.control !== 'sequential') {
      fail(`${name} cannot retire and trap (${li.control})`);
    }
    return undefined; // the handler address is reported
  }
  if (r.itype !== li.itype) {
    fail(`${itypeName} but ${name} classifies as ${li.itype} (${ITYPE_NAMES[li.itype]})`);
    return undefined;
  }
  if (li.control === 'jump' && li.target !== undefined) return li.target;
  if (r.sijump) {
    if (!prev || prev.addr + BigInt(prev.info.length) !== lastInstructionAddress(r) || !isSequentiallyInferable(prev.info, li)) {
      fail(`sijump set on ${name}, which does not directly follow a matching auipc/lui/c.lui`);
      return undefined;
    }
    return sequentialTarget(image.fetch(prev.addr)!.encoding, prev.addr, image.fetch(lastInstructionAddress(r))!.encoding, xlen);
  }
  if (li.control === 'jump' || li.control === 'trap-return') return undefined;
  return seq;
}
