import { describe, expect, it } from 'vitest';
import { checkContinuity } from './continuity.ts';
import { ImageBuilder } from './image.ts';
import * as enc from './isa/encode.ts';
import { emptyRecord, Itype, type RetirementRecord } from './records.ts';

// A tiny program (encodings from the assembler module, checked against GNU as in its own tests):
//   0x100 addi a0,a0,1       0x104 beq a0,x0,+8 (-> 0x10c)   0x108 jal ra,+0x20 (-> 0x128)
//   0x10c auipc t1,0         0x110 jalr ra,16(t1) (-> 0x11c) 0x11c c.jr ra
function image() {
  const b = new ImageBuilder();
  const put = (a: bigint, e: number) => b.put(a, e, (e & 3) === 3 ? 4 : 2);
  put(0x100n, enc.addi(10, 10, 1));
  put(0x104n, enc.beq(10, 0, 8));
  put(0x108n, enc.jal(1, 0x20));
  put(0x10cn, enc.auipc(6, 0));
  put(0x110n, enc.jalr(1, 6, 16));
  put(0x114n, enc.addi(0, 0, 0));
  put(0x118n, enc.addi(0, 0, 0));
  put(0x11cn, enc.cJr(1));
  return b.build();
}
const rec = (iaddr: bigint, bytes: 2 | 4, itype = 0, extra: Partial<RetirementRecord> = {}): RetirementRecord => ({
  ...emptyRecord(),
  iaddr,
  iretire: bytes / 2,
  ilastsize: bytes === 4 ? 1 : 0,
  itype,
  ...extra,
});

describe('checkContinuity', () => {
  it('accepts a consistent stream: sequential, taken branch, sijump pair, uninferable return', () => {
    const records = [
      rec(0x100n, 4),
      rec(0x104n, 4, Itype.takenBranch), // beq -> 0x10c
      rec(0x10cn, 4), // auipc t1, 0: t1 = 0x10c
      rec(0x110n, 4, Itype.uninferableCall, { sijump: true }), // jalr ra, 16(t1) -> 0x11c
      rec(0x11cn, 2, Itype.return), // c.jr ra: its target is reported, anything goes
      rec(0x100n, 4),
    ];
    expect(checkContinuity(records, image(), 64)).toEqual([]);
  });

  it('reports a block that does not start where the sijump pair leads', () => {
    const records = [rec(0x10cn, 4), rec(0x110n, 4, Itype.uninferableCall, { sijump: true }), rec(0x114n, 4)];
    const errs = checkContinuity(records, image(), 64);
    expect(errs.map((e) => e.index)).toEqual([2]);
    expect(errs[0]!.message).toBe('block starts at 0x114, but the previous record implies 0x11c');
  });

  it('reports a wrong itype, a wrong branch outcome and a misplaced trap', () => {
    const img = image();
    expect(checkContinuity([rec(0x100n, 4, Itype.takenBranch)], img, 64)[0]!.message).toContain('is not a branch');
    expect(checkContinuity([rec(0x104n, 4, Itype.nontakenBranch), rec(0x10cn, 4)], img, 64)[0]!.message).toContain(
      'previous record implies 0x108',
    );
    expect(checkContinuity([rec(0x108n, 4, Itype.otherInferableJump)], img, 64)[0]!.message).toContain('classifies as 9');
    const trap = { ...emptyRecord(), iaddr: 0x10cn, itype: Itype.interrupt };
    expect(checkContinuity([rec(0x100n, 4), trap], img, 64)[0]!.message).toContain('execution had arrived at 0x104');
  });

  it('reports an sijump flag without a preceding constant load', () => {
    const img = image();
    const errs = checkContinuity([rec(0x11cn, 2, Itype.return, { sijump: true })], img, 64);
    expect(errs[0]!.message).toContain('does not directly follow');
  });
});
