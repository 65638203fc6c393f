/**
 * Hand-built streams for the format tests: every field at its extremes, RV32 and RV64, multiple
 * retirement groups, traps that retired nothing, sideband records.
 */
import { RvError } from '../../common/errors.ts';
import { ProgramImage } from '../image.ts';
import { emptyRecord, Itype, Priv, type RetirementRecord, Trigger } from '../records.ts';
import type { RetirementStream } from '../stream.ts';

const MAX64 = 0xffff_ffff_ffff_ffffn;

function rec(fields: Partial<RetirementRecord>): RetirementRecord {
  return { ...emptyRecord(), ...fields };
}

/** RV64, three instructions per cycle at most, three image segments (one of odd length, one ending at 2^64). */
export function extremeStream64(): RetirementStream {
  return {
    xlen: 64,
    retiresPerCycle: 3,
    image: new ProgramImage([
      { base: 0x8000_0000n, bytes: Uint8Array.from([0x97, 0x02, 0x00, 0x00, 0x01, 0x00]) },
      { base: 0xffff_ffff_ffff_fff0n, bytes: Uint8Array.from({ length: 16 }, (_, i) => 0xf0 + i) },
      { base: 0x1000n, bytes: Uint8Array.from([0xff, 0x00, 0x7f]) },
    ]),
    records: [
      rec({ iaddr: 0x8000_0000n, iretire: 2, ilastsize: 1 }),
      rec({ iaddr: 0x8000_0004n, iretire: 1, ilastsize: 0, time: 1n }),
      // A block of several instructions ending in a sequentially inferable call, first after a
      // precise context change into S-mode with an all-ones context.
      rec({
        iaddr: 0x8000_0006n,
        iretire: 7,
        ilastsize: 0,
        itype: Itype.uninferableCall,
        sijump: true,
        priv: Priv.S,
        context: MAX64,
        ctype: 2,
        time: 1000n,
      }),
      // A further group of the same cycle: a taken branch.
      rec({ iaddr: 0x8000_0100n, iretire: 3, ilastsize: 1, itype: Itype.takenBranch, priv: Priv.S, context: MAX64, time: 1000n, sameCycle: true }),
      // A trap that retired nothing, at the top of the address space, with extreme cause and tval.
      rec({
        iaddr: 0xffff_ffff_ffff_fffen,
        itype: Itype.exception,
        cause: 0xffff_ffff,
        tval: 0xffff_ffff_ffff_fffen,
        priv: Priv.S,
        context: MAX64,
        time: 1001n,
      }),
      // Halted with every trigger bit, the largest impdef and the largest time, at address 0.
      rec({ iaddr: 0n, halted: true, trigger: Trigger.traceOn | Trigger.traceOff | Trigger.notify, impdef: 0xffff_ffff, time: MAX64, priv: Priv.D }),
      // Reset: time goes back to 0 (the largest negative delta).
      rec({ iaddr: 0n, reset: true, itype: Itype.otherInferableJump, iretire: 2, ilastsize: 1, ctype: 3, time: 0n, priv: 7 }),
      rec({ iaddr: 0x4n, itype: Itype.interrupt, cause: 0, time: 0n, priv: Priv.U }),
      // The largest block; itype 7 is reserved but our formats store every 4-bit value.
      rec({ iaddr: 0x4n, itype: Itype.reserved7, iretire: 0xffff_ffff, ilastsize: 1, time: 5n, tval: 0n, cause: 12 }),
      // A second group after a large block: iaddr far beyond the sequential successor of the previous record.
      rec({ iaddr: 0x1_0000_0004n, itype: Itype.return, iretire: 1, ilastsize: 0, time: 5n, sameCycle: true, trigger: Trigger.notify }),
      rec({ iaddr: 0x1_0000_0006n, iretire: 2, ilastsize: 1, time: 6n, ctype: 1, context: 0n }),
    ],
  };
}

/** RV32 with a 64-bit context (the context width does not follow XLEN). */
export function extremeStream32(): RetirementStream {
  return {
    xlen: 32,
    retiresPerCycle: 1,
    image: new ProgramImage([{ base: 0xffff_fff8n, bytes: Uint8Array.from([0x13, 0, 0, 0, 0x01, 0, 0x82, 0x80]) }]),
    records: [
      rec({ iaddr: 0xffff_fff8n, iretire: 2, ilastsize: 1 }),
      rec({ iaddr: 0xffff_fffcn, iretire: 1, ilastsize: 0, context: MAX64, ctype: 2 }),
      rec({ iaddr: 0xffff_fffen, iretire: 1, ilastsize: 0, itype: Itype.return, context: MAX64 }),
      rec({ iaddr: 0x0n, itype: Itype.exception, cause: 1, tval: 0xffff_fffen, context: MAX64, priv: Priv.U }),
      rec({ iaddr: 0x0n, itype: Itype.exception, iretire: 2, ilastsize: 1, cause: 11, tval: 0n, context: 0n }),
    ],
  };
}

export function emptyStream(): RetirementStream {
  return { xlen: 64, retiresPerCycle: 1, image: new ProgramImage(), records: [] };
}

/** Streams compare by value; the image by its segments. */
export function streamValue(s: RetirementStream): unknown {
  return {
    xlen: s.xlen,
    retiresPerCycle: s.retiresPerCycle,
    segments: s.image.segments.map((seg) => ({ base: seg.base, bytes: Array.from(seg.bytes) })),
    records: s.records,
    data: s.data,
  };
}

/** The RvError a call throws, for asserting message, code and location together. */
export function thrown(f: () => unknown): RvError {
  try {
    f();
  } catch (e) {
    if (e instanceof RvError) return e;
    throw e;
  }
  throw new Error('expected an RvError');
}
