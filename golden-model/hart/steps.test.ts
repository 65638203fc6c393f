/**
 * The shared steps -> records conversion. Its rules are exercised through both importers
 * (formats/spike-csv.test.ts, formats/qemu-log.test.ts); these tests cover what only the module
 * itself shows: the optional flow check, the record callback and dropping the last step.
 */
import { describe, expect, it } from 'vitest';
import { beq, ecall, jal, jalr, mret, nop } from './isa/encode.ts';
import { classify } from './isa/classify.ts';
import { Itype } from './records.ts';
import { type Step, StepConverter } from './steps.ts';

const step = (addr: bigint, encoding: number | undefined, fields: Partial<Step> = {}): Step => ({
  addr,
  info: encoding === undefined ? undefined : classify(encoding, addr, 64),
  priv: 3,
  trap: undefined,
  cause: 0,
  tval: 0n,
  line: Number(addr & 0xffn),
  ...fields,
});

const fail = (message: string, line: number): never => {
  throw new Error(`line ${line}: ${message}`);
};

describe('StepConverter', () => {
  it('makes one record per step, lagging one step, and can drop the last one', () => {
    const records: [bigint, number][] = [];
    const c = new StepConverter(64, { onRecord: (r, s) => records.push([s.addr, r.itype]) });
    c.push(step(0x100n, beq(0, 0, 8)));
    expect(c.records).toEqual([]);
    c.push(step(0x108n, ecall(), { trap: 'exception', cause: 11 }));
    c.push(step(0x200n, nop()));
    expect(records).toEqual([
      [0x100n, Itype.takenBranch],
      [0x108n, Itype.exception],
    ]);
    expect(c.retired).toBe(2);
    expect(c.discardPending().map((r) => r.iaddr)).toEqual([0x100n, 0x108n]);
    expect(c.finish().length).toBe(2);
  });

  it('accepts every legal successor with the flow check on', () => {
    const c = new StepConverter(64, { checkFlow: true, fail });
    const steps = [
      step(0x100n, beq(0, 0, 8)), // taken
      step(0x108n, beq(0, 0, 8)), // then not taken
      step(0x10cn, jal(0, 0x100)), // direct jump
      step(0x20cn, jalr(0, 6, 0)), // indirect: anywhere
      step(0x300n, mret()), // trap return: anywhere
      step(0x400n, nop()),
      step(0x404n, undefined, { trap: 'interrupt', cause: 7 }), // an interrupt before the successor
      step(0x800n, nop()), // after a trap: anywhere
    ];
    for (const s of steps) c.push(s);
    expect(c.finish().map((r) => r.itype)).toEqual([5, 4, 11, 10, 3, 0, 2, 0]);
  });

  it.each([
    ['a branch', beq(0, 0, 8), 0x10an, 'line 10: beq at 0x100 is followed by 0x10a, which is neither its target 0x108 nor its successor 0x104'],
    ['a direct jump', jal(0, 0x40), 0x104n, 'line 4: jal at 0x100 is followed by 0x104, not by its target 0x140'],
    ['a sequential instruction', nop(), 0x108n, 'line 8: addi at 0x100 is followed by 0x108, not by its successor 0x104'],
  ])('rejects %s followed by an impossible address (at the next step)', (_, encoding, next, message) => {
    const c = new StepConverter(64, { checkFlow: true, fail });
    c.push(step(0x100n, encoding));
    expect(() => c.push(step(next, nop()))).toThrow(message);
  });

  it('names an interrupt where the successor should be', () => {
    const c = new StepConverter(64, { checkFlow: true, fail });
    c.push(step(0x100n, nop()));
    expect(() => c.push(step(0x180n, undefined, { trap: 'interrupt', cause: 7 }))).toThrow('line 128: addi at 0x100 is followed by an interrupt at 0x180, not by its successor 0x104');
  });
});
