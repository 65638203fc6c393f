import { describe, expect, it } from 'vitest';
import { dataAccessPredicate, expandBlocks, regroupIntoBlocks } from './blocks.ts';
import { ImageBuilder, type ProgramImage } from './image.ts';
import { dataAccessOf } from './isa/data-access.ts';
import { emptyRecord, Itype, type RetirementRecord } from './records.ts';
import { defaultKnobs } from './stimulus/knobs.ts';
import { generateStimulus } from './stimulus/generate.ts';

/** A single-retirement record of one instruction of `bytes` bytes. */
function insn(iaddr: bigint, bytes: 2 | 4, itype: number = Itype.none): RetirementRecord {
  return { ...emptyRecord(), iaddr, iretire: bytes / 2, ilastsize: bytes === 4 ? 1 : 0, itype };
}

describe('regroupIntoBlocks', () => {
  it('reproduces Example 1 of E-Trace section 4.2.5 (table 4.8): 9 instructions, four blocks', () => {
    // Table 4.8: 1000 divuw, 1004 add, 1008 or, 100C c.jalr | 0940 addi, 0944 c.beq(z) (not taken)
    // | 0946 c.bnez (taken) | 0988 lbu, 098C csrrw.
    const singles = [
      insn(0x1000n, 4),
      insn(0x1004n, 4),
      insn(0x1008n, 4),
      insn(0x100cn, 2, Itype.uninferableCall),
      insn(0x0940n, 4),
      insn(0x0944n, 2, Itype.nontakenBranch),
      insn(0x0946n, 2, Itype.takenBranch),
      insn(0x0988n, 4),
      insn(0x098cn, 4),
    ];
    const blocks = regroupIntoBlocks(singles, { retires_p: 4, taken_branches_p: 1 });
    expect(blocks.map((b) => [b.iretire, b.iaddr, b.itype, b.sameCycle])).toEqual([
      [7, 0x1000n, 8, false],
      [3, 0x0940n, 4, false],
      [1, 0x0946n, 5, false],
      [4, 0x0988n, 0, false],
    ]);
  });

  it('puts several blocks in one cycle up to taken_branches_p, and respects retires_p', () => {
    const singles = [insn(0x100n, 4), insn(0x104n, 4, Itype.takenBranch), insn(0x200n, 2), insn(0x202n, 2, Itype.return), insn(0x300n, 4)];
    const two = regroupIntoBlocks(singles, { retires_p: 8, taken_branches_p: 2 });
    expect(two.map((b) => [b.iaddr, b.iretire, b.sameCycle])).toEqual([
      [0x100n, 4, false],
      [0x200n, 2, true],
      [0x300n, 2, false],
    ]);
    const narrow = regroupIntoBlocks(singles, { retires_p: 3, taken_branches_p: 2 });
    // Three instructions per cycle: 0x100, 0x104 | 0x200 ... the cycle is full after 0x200.
    expect(narrow.map((b) => [b.iaddr, b.iretire, b.sameCycle])).toEqual([
      [0x100n, 4, false],
      [0x200n, 1, true],
      [0x202n, 1, false],
      [0x300n, 2, true],
    ]);
  });

  it('keeps a trap that retired nothing as the newest group, and starts a new cycle on a privilege or context change', () => {
    const trap = { ...emptyRecord(), iaddr: 0x108n, itype: Itype.exception, cause: 13 };
    const handler = { ...insn(0x400n, 4), priv: 3 };
    const singles = [insn(0x100n, 4), insn(0x104n, 4), trap, handler, { ...insn(0x404n, 4), priv: 3, ctype: 1, context: 5n }];
    const blocks = regroupIntoBlocks(singles, { retires_p: 4, taken_branches_p: 4 });
    expect(blocks.map((b) => [b.iaddr, b.iretire, b.itype, b.sameCycle])).toEqual([
      [0x100n, 4, 0, false],
      [0x108n, 0, Itype.exception, true],
      [0x400n, 2, 0, false],
      [0x404n, 2, 0, false],
    ]);
  });

  it('ends a group at an instruction that carries trigger bits', () => {
    const singles = [insn(0x100n, 4), { ...insn(0x104n, 4), trigger: 4 }, insn(0x108n, 4)];
    const blocks = regroupIntoBlocks(singles, { retires_p: 4, taken_branches_p: 1 });
    expect(blocks.map((b) => [b.iaddr, b.iretire, b.trigger])).toEqual([
      [0x100n, 4, 4],
      [0x108n, 2, 0],
    ]);
  });

  it('expandBlocks inverts regroupIntoBlocks on generated streams (seed 11, 20,000 instructions)', () => {
    const s = generateStimulus(defaultKnobs(), 11, 20_000);
    for (const shape of [
      { retires_p: 2, taken_branches_p: 1 },
      { retires_p: 3, taken_branches_p: 2 },
      { retires_p: 4, taken_branches_p: 4 },
    ]) {
      const blocks = regroupIntoBlocks(s.records, shape);
      expect(blocks.length).toBeLessThan(s.records.length);
      const back = expandBlocks(blocks, s.image);
      // Time stamps are per cycle, so instructions merged into a block share the block's.
      const strip = (r: RetirementRecord) => ({ ...r, time: 0n });
      expect(back.map(strip)).toEqual(s.records.map(strip));
    }
  });

  it('expandBlocks splits a block by the instruction sizes in the image', () => {
    const b = new ImageBuilder();
    b.put(0x1000n, 0x00000013, 4); // addi x0,x0,0
    b.put(0x1004n, 0x0001, 2); // c.nop
    b.put(0x1006n, 0x8082, 2); // c.jr ra
    const block = { ...emptyRecord(), iaddr: 0x1000n, iretire: 4, ilastsize: 0, itype: Itype.return, ctype: 2 };
    const singles = expandBlocks([block], b.build());
    expect(singles.map((r) => [r.iaddr, r.iretire, r.itype, r.ctype])).toEqual([
      [0x1000n, 2, 0, 2],
      [0x1004n, 1, 0, 0],
      [0x1006n, 1, Itype.return, 0],
    ]);
  });

  describe('one data access per cycle (oneDataAccess)', () => {
    // riscv64: lw a0,8(gp); sw a0,8(gp); csrw mtvec,a0; addi x0,x0,0; beq x0,x0,0.
    const LW = 0x0081a503;
    const SW = 0x00a1a423;
    const CSRW = 0x30551073;
    const NOP = 0x00000013;
    const BEQ = 0x00000063;
    function program(code: [bigint, number][]): ProgramImage {
      const b = new ImageBuilder();
      for (const [addr, encoding] of code) b.put(addr, encoding, 4);
      return b.build();
    }
    const shape = (b: RetirementRecord) => [b.iaddr, b.iretire, b.sameCycle];

    it('splits a block that would hold two loads; without the option it is one block', () => {
      const code: [bigint, number][] = [[0x100n, NOP], [0x104n, LW], [0x108n, NOP], [0x10cn, LW], [0x110n, NOP]];
      const image = program(code);
      const singles = code.map(([a]) => insn(a, 4));
      const s = { retires_p: 8, taken_branches_p: 1 };
      expect(regroupIntoBlocks(singles, s).map(shape)).toEqual([[0x100n, 10, false]]);
      expect(regroupIntoBlocks(singles, s, {}).map(shape)).toEqual([[0x100n, 10, false]]);
      expect(regroupIntoBlocks(singles, s, { oneDataAccess: dataAccessPredicate(image, 64) }).map(shape)).toEqual([
        [0x100n, 6, false],
        [0x10cn, 4, false],
      ]);
    });

    it('a load in group 0 and a store in group 1 go to two cycles', () => {
      const code: [bigint, number][] = [[0x100n, LW], [0x104n, BEQ], [0x200n, SW], [0x204n, NOP]];
      const image = program(code);
      const singles = [insn(0x100n, 4), insn(0x104n, 4, Itype.takenBranch), insn(0x200n, 4), insn(0x204n, 4)];
      const s = { retires_p: 8, taken_branches_p: 2 };
      expect(regroupIntoBlocks(singles, s).map(shape)).toEqual([
        [0x100n, 4, false],
        [0x200n, 4, true],
      ]);
      expect(regroupIntoBlocks(singles, s, { oneDataAccess: dataAccessPredicate(image, 64) }).map(shape)).toEqual([
        [0x100n, 4, false],
        [0x200n, 4, false],
      ]);
      // A group without an access still joins the cycle of one with an access.
      const noStore = program([[0x100n, LW], [0x104n, BEQ], [0x200n, NOP], [0x204n, NOP]]);
      expect(regroupIntoBlocks(singles, s, { oneDataAccess: dataAccessPredicate(noStore, 64) }).map(shape)).toEqual([
        [0x100n, 4, false],
        [0x200n, 4, true],
      ]);
    });

    it('counts only the accesses the predicate reports (a hart without CSR codes)', () => {
      const code: [bigint, number][] = [[0x100n, CSRW], [0x104n, LW]];
      const image = program(code);
      const singles = code.map(([a]) => insn(a, 4));
      const s = { retires_p: 4, taken_branches_p: 1 };
      expect(regroupIntoBlocks(singles, s, { oneDataAccess: dataAccessPredicate(image, 64) }).map(shape)).toEqual([
        [0x100n, 2, false],
        [0x104n, 2, false],
      ]);
      const noCsr = dataAccessPredicate(image, 64, (info) => info.kind !== 'csr');
      expect(regroupIntoBlocks(singles, s, { oneDataAccess: noCsr }).map(shape)).toEqual([[0x100n, 4, false]]);
    });

    it('generated streams: no cycle holds two accesses, and expandBlocks still inverts (seed 12, 20,000 instructions)', () => {
      const s = generateStimulus(defaultKnobs(), 12, 20_000);
      const accesses = (r: RetirementRecord): number => {
        let n = 0;
        for (let pc = r.iaddr; pc < r.iaddr + 2n * BigInt(r.iretire); ) {
          const i = s.image.fetch(pc)!;
          if (dataAccessOf(i.encoding, i.length, s.xlen) !== undefined) n++;
          pc += BigInt(i.length);
        }
        return n;
      };
      for (const shape of [
        { retires_p: 2, taken_branches_p: 1 },
        { retires_p: 4, taken_branches_p: 2 },
      ]) {
        const free = regroupIntoBlocks(s.records, shape);
        const blocks = regroupIntoBlocks(s.records, shape, { oneDataAccess: dataAccessPredicate(s.image, s.xlen) });
        const perCycle: number[] = [];
        for (const b of blocks) {
          if (!b.sameCycle) perCycle.push(0);
          perCycle[perCycle.length - 1]! += accesses(b);
        }
        expect(Math.max(...perCycle)).toBe(1);
        // The limit costs cycles: the same stream without it has cycles with two accesses.
        expect(blocks.filter((b) => !b.sameCycle).length).toBeGreaterThan(free.filter((b) => !b.sameCycle).length);
        const strip = (r: RetirementRecord) => ({ ...r, time: 0n });
        expect(expandBlocks(blocks, s.image).map(strip)).toEqual(s.records.map(strip));
      }
    });
  });
});
