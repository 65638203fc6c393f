/**
 * Directed tests of counting (docs/pmu-model.md "Counting"): the events of the table, event
 * inputs, mcountinhibit, the Sscofpmf and Smcntrpmf mode filters (an xRET counts in the mode it
 * executed in, a trapping instruction does not retire), halted/reset/debug, overflow with OF and
 * the lcofi pulse, scountovf, and the timing of CSR writes against the cycle's counting.
 * Expected counts are worked out by hand from the records each test feeds.
 */
import { describe, expect, it } from 'vitest';
import { emptyRecord } from '../hart/records.ts';
import {
  b,
  D,
  HCOUNTEREN,
  halted,
  Harness,
  idle,
  insn,
  M,
  MCOUNTEREN,
  MCOUNTINHIBIT,
  MCYCLE,
  MCYCLECFG,
  MHPMCOUNTER,
  MHPMCOUNTERH,
  MHPMEVENT,
  MHPMEVENTH,
  MINH,
  MINSTRET,
  MINSTRETCFG,
  OF,
  ONES,
  ONES32,
  RV32_MCU,
  S,
  SCOUNTOVF,
  SINH,
  U,
  UINH,
  VSINH,
  VUINH,
} from './test-helpers.ts';

const counter = (h: Harness, n: number): bigint => h.unit.state().counters[n]!;
const event = (h: Harness, n: number): bigint => h.unit.state().events[n]!;

describe('the stream events (default map: 0x1 cycles, 0x2 instructions, 0x5 branches, 0x100..0x106)', () => {
  /** Counters 3..12 programmed with the ten stream events in the table's order. */
  const SELECTORS: [number, bigint][] = [
    [3, 0x1n], // cycles
    [4, 0x2n], // instructions
    [5, 0x5n], // branches
    [6, 0x100n], // taken_branches
    [7, 0x101n], // calls
    [8, 0x102n], // returns
    [9, 0x103n], // jumps
    [10, 0x104n], // exceptions
    [11, 0x105n], // interrupts
    [12, 0x106n], // trap_returns
  ];
  const programmed = (): Harness => {
    const h = new Harness();
    for (const [n, sel] of SELECTORS) h.write(MHPMEVENT(n), sel);
    return h;
  };

  it('one retired instruction of each 4-bit itype', () => {
    const h = programmed();
    for (const t of [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15]) h.cycle(insn(t));
    // 14 cycles; 13 instructions (itype 1 traps: ecall/ebreak do not retire); branches 4, 5;
    // taken 5; calls 8, 9; returns 13; jumps 10, 11, 12, 14, 15; exception 1; interrupt 2; xRET 3.
    expect([3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => counter(h, n))).toEqual([14n, 13n, 2n, 1n, 2n, 1n, 5n, 1n, 1n, 1n]);
    expect(counter(h, 0)).toBe(14n);
    expect(counter(h, 2)).toBe(13n);
  });

  it('a trap that retires nothing (iretire 0): cycles and exceptions, no instruction', () => {
    const h = programmed();
    h.cycle({ ...idle(), itype: 1 });
    h.cycle({ ...idle(), itype: 2 });
    expect([3, 4, 10, 11].map((n) => counter(h, n))).toEqual([2n, 0n, 1n, 1n]);
    expect(counter(h, 2)).toBe(0n);
  });

  it('an idle cycle counts cycles only', () => {
    const h = programmed();
    h.cycle(idle());
    expect([3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => counter(h, n))).toEqual([1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]);
    expect(counter(h, 0)).toBe(1n);
  });

  it('selector 0 and a selector not in the map count nothing', () => {
    const h = new Harness();
    h.write(MHPMEVENT(4), 0x7n);
    h.cycles(3, insn(5));
    expect(counter(h, 3)).toBe(0n);
    expect(counter(h, 4)).toBe(0n);
  });
});

describe('event inputs (0x3 input0, 0x4 input1, 0x10021 input7)', () => {
  it('one count per cycle an input is high, in any cycle that counts; bits above eventInputs ignored', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), 0x3n);
    h.write(MHPMEVENT(4), 0x4n);
    h.write(MHPMEVENT(5), 0x10021n);
    h.cycle(idle(), false, 0b1);
    h.cycle(insn(), false, 0b1000_0011);
    h.cycle(insn(), false, 0);
    h.cycle(idle(), false, 0b1_0000_0000); // input 8 does not exist
    expect([3, 4, 5].map((n) => counter(h, n))).toEqual([2n, 1n, 1n]);
  });

  it('not while halted', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), 0x3n);
    h.cycle(halted(), false, 1);
    expect(counter(h, 3)).toBe(0n);
  });
});

describe('halted, reset and debug mode count nothing', () => {
  for (const [name, rec] of [
    ['halted', { ...insn(), halted: true }],
    ['reset', { ...insn(), reset: true }],
    ['debug mode (priv 4)', insn(0, D)],
  ] as const) {
    it(name, () => {
      const h = new Harness();
      h.write(MHPMEVENT(3), 0x1n);
      h.write(MHPMEVENT(4), 0x2n);
      h.cycles(3, rec);
      expect([0, 2, 3, 4].map((n) => counter(h, n))).toEqual([0n, 0n, 0n, 0n]);
    });
  }

  it('the reserved priv 2 counts nothing', () => {
    const h = new Harness();
    h.cycle(insn(0, 2));
    expect(counter(h, 0)).toBe(0n);
  });

  it('record.reset does not reset the registers', () => {
    const h = new Harness();
    h.write(MCYCLE, 5n);
    h.cycle({ ...emptyRecord(), reset: true });
    expect(counter(h, 0)).toBe(5n);
  });
});

describe('mcountinhibit', () => {
  it('CY, IR and HPMn stop their counter only; the write takes effect after its cycle', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), 0x1n);
    h.write(MHPMEVENT(4), 0x1n);
    h.write(MCOUNTINHIBIT, b(0) | b(2) | b(3), { record: insn() }); // this cycle still counts
    expect([0, 2, 3, 4].map((n) => counter(h, n))).toEqual([1n, 1n, 1n, 1n]);
    h.cycles(2, insn());
    expect([0, 2, 3, 4].map((n) => counter(h, n))).toEqual([1n, 1n, 1n, 3n]);
    h.write(MCOUNTINHIBIT, 0n);
    h.cycle(insn());
    expect([0, 2, 3, 4].map((n) => counter(h, n))).toEqual([2n, 2n, 2n, 4n]);
  });
});

/** The five modes: priv, V. */
const MODES: [string, number, boolean][] = [
  ['M', M, false],
  ['S', S, false],
  ['U', U, false],
  ['VS', S, true],
  ['VU', U, true],
];

describe('Sscofpmf mode filtering (mhpmevent MINH, SINH, UINH, VSINH, VUINH)', () => {
  it('each inhibit bit stops its mode only', () => {
    const h = new Harness();
    const inh = [MINH, SINH, UINH, VSINH, VUINH];
    inh.forEach((bitv, i) => h.write(MHPMEVENT(3 + i), 0x1n | bitv));
    for (const [name, priv, v] of MODES) {
      const before = [3, 4, 5, 6, 7].map((n) => counter(h, n));
      h.cycle(insn(0, priv), v);
      const delta = [3, 4, 5, 6, 7].map((n, i) => counter(h, n) - before[i]!);
      // counter 3+i misses exactly mode i
      const expected = MODES.map(([m]) => (m === name ? 0n : 1n));
      expect(delta, name).toEqual(expected);
    }
  });

  it('without H, V is ignored: priv 1 with V counts as S (SINH), the VS/VU bits read 0', () => {
    const h = new Harness({ hExt: false });
    h.write(MHPMEVENT(3), 0x1n | SINH | VSINH | VUINH);
    expect(event(h, 3)).toBe(0x1n | SINH);
    h.cycle(insn(0, S), true);
    h.cycle(insn(0, U), true);
    expect(counter(h, 3)).toBe(1n); // only the U cycle
  });

  it('without Sscofpmf the inhibit bits do not exist (mask legalisation drops them)', () => {
    const h = new Harness({ sscofpmf: false });
    h.write(MHPMEVENT(3), 0x1n | MINH);
    expect(event(h, 3)).toBe(0x1n);
    h.cycle(insn());
    expect(counter(h, 3)).toBe(1n);
  });

  it('xRET counts in the mode it executed in: sret in S is stopped by SINH, not UINH', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), 0x106n | SINH); // trap_returns
    h.write(MHPMEVENT(4), 0x106n | UINH);
    h.cycle(insn(3, S)); // sret, executed in S, returning to U
    expect(counter(h, 3)).toBe(0n);
    expect(counter(h, 4)).toBe(1n);
  });

  it('mcountinhibit and the mode filter both stop a counter', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), 0x1n);
    h.write(MCOUNTINHIBIT, b(3));
    h.cycle(insn(0, U));
    expect(counter(h, 3)).toBe(0n);
  });
});

describe('Smcntrpmf (mcyclecfg / minstretcfg)', () => {
  it('each inhibit bit of mcyclecfg stops mcycle in its mode only; minstretcfg likewise for minstret', () => {
    const inh = [MINH, SINH, UINH, VSINH, VUINH];
    inh.forEach((bitv, i) => {
      const h = new Harness();
      h.write(MCYCLECFG, bitv);
      h.write(MINSTRETCFG, bitv);
      const seen: bigint[] = [];
      for (const [, priv, v] of MODES) {
        const c0 = counter(h, 0);
        const i0 = counter(h, 2);
        h.cycle(insn(0, priv), v);
        seen.push(counter(h, 0) - c0, counter(h, 2) - i0);
      }
      const expected = MODES.flatMap((_, j) => (j === i ? [0n, 0n] : [1n, 1n]));
      expect(seen, `inhibit bit ${62 - i}`).toEqual(expected);
    });
  });

  it('mret executed in M is filtered by MINH; an sret in S by SINH (not by the mode it returns to)', () => {
    const h = new Harness();
    h.write(MINSTRETCFG, MINH);
    h.cycle(insn(3, M)); // mret to S
    expect(counter(h, 2)).toBe(0n);
    h.write(MINSTRETCFG, UINH);
    h.cycle(insn(3, S)); // sret to U
    expect(counter(h, 2)).toBe(1n);
  });

  it('ecall from U traps and does not retire: mcycle counts, minstret does not', () => {
    const h = new Harness();
    h.cycle(insn(1, U)); // itype 1 with iretire 2
    expect(counter(h, 0)).toBe(1n);
    expect(counter(h, 2)).toBe(0n);
  });
});

describe('Sscofpmf overflow and lcofi (16-bit counters)', () => {
  const setup = (over = {}): Harness => {
    const h = new Harness({ counterWidth: 16, ...over });
    h.write(MHPMEVENT(3), 0x1n); // cycles
    h.write(MHPMCOUNTER(3), 0xfffen);
    return h;
  };

  it('the wrap sets OF; lcofi is high in the next cycle only, once until OF is cleared, then again', () => {
    const h = setup();
    expect(h.cycle(insn()).lcofi).toBe(false); // 0xffff
    expect(counter(h, 3)).toBe(0xffffn);
    expect(h.cycle(insn()).lcofi).toBe(false); // wraps to 0 at this edge
    expect(counter(h, 3)).toBe(0n);
    expect(event(h, 3)).toBe(OF | 0x1n);
    expect(h.cycle(insn()).lcofi).toBe(true); // the cycle after the edge
    expect(h.cycle(insn()).lcofi).toBe(false);
    // A second wrap with OF still set: no new request.
    h.write(MHPMCOUNTER(3), 0xffffn);
    expect(h.cycles(3, insn())).toEqual([false, false, false]);
    expect(counter(h, 3)).toBe(2n);
    // Clear OF, wrap again: a new request.
    h.write(MHPMEVENT(3), 0x1n);
    h.write(MHPMCOUNTER(3), 0xffffn);
    expect(h.cycles(3, insn())).toEqual([false, true, false]);
    expect(event(h, 3)).toBe(OF | 0x1n);
  });

  it('a CSR write of all ones does not overflow, even in a counting cycle', () => {
    const h = setup();
    h.write(MHPMCOUNTER(3), ONES, { record: insn() });
    expect(counter(h, 3)).toBe(0xffffn);
    expect(event(h, 3)).toBe(0x1n);
    expect(h.cycle(insn()).lcofi).toBe(false); // wraps now
    expect(h.cycle(insn()).lcofi).toBe(true);
  });

  it('a counter written in a cycle is not also incremented; the others count', () => {
    const h = setup();
    h.write(MHPMEVENT(4), 0x1n);
    h.write(MHPMCOUNTER(3), 100n, { record: insn() });
    expect(counter(h, 3)).toBe(100n);
    expect(counter(h, 4)).toBe(1n);
    expect(counter(h, 0)).toBe(1n);
    h.cycle(insn());
    expect(counter(h, 3)).toBe(101n);
    h.write(MCYCLE, 7n, { record: insn() });
    h.write(MINSTRET, 9n, { record: insn() });
    expect(counter(h, 0)).toBe(8n); // 7, then counted in the minstret write's cycle
    expect(counter(h, 2)).toBe(9n);
  });

  it('a write in the cycle the counter would wrap: the written value, no OF, no lcofi', () => {
    const h = setup();
    h.cycle(insn()); // 0xffff
    h.write(MHPMCOUNTER(3), 5n, { record: insn() });
    expect(counter(h, 3)).toBe(5n);
    expect(event(h, 3)).toBe(0x1n);
    expect(h.cycle(insn()).lcofi).toBe(false);
  });

  it('a write with wmask 0 is still a write: the counter keeps its value and does not count', () => {
    const h = setup();
    h.write(MHPMCOUNTER(3), ONES, { record: insn(), wmask: 0n });
    expect(counter(h, 3)).toBe(0xfffen);
  });

  it('two counters wrapping in one cycle: one pulse', () => {
    const h = setup();
    h.write(MHPMEVENT(4), 0x1n);
    h.write(MHPMCOUNTER(4), 0xfffen);
    expect(h.cycles(3, insn())).toEqual([false, false, true]);
    expect(event(h, 3) & OF).toBe(OF);
    expect(event(h, 4) & OF).toBe(OF);
  });

  it('an mhpmevent write in the cycle of the wrap loses the OF (the written half); lcofi still pulses', () => {
    const h = setup();
    h.cycle(insn());
    h.write(MHPMEVENT(3), 0x1n | MINH, { record: insn() });
    expect(counter(h, 3)).toBe(0n);
    expect(event(h, 3)).toBe(0x1n | MINH);
    expect(h.cycle(insn()).lcofi).toBe(true);
  });

  it('RV32: a write of mhpmevent (bits 31..0) in the cycle of the wrap keeps the OF of mhpmeventh', () => {
    const h = setup({ xlen: 32 });
    h.cycle(insn());
    h.write(MHPMEVENT(3), 0x2n, { record: insn() });
    expect(event(h, 3)).toBe(OF | 0x2n);
    expect(h.read(MHPMEVENTH(3))).toBe(0x8000_0000n);
  });

  it('RV32: a write of mhpmeventh in the cycle of the wrap loses the OF', () => {
    const h = setup({ xlen: 32 });
    h.cycle(insn());
    h.write(MHPMEVENTH(3), 0n, { record: insn() });
    expect(event(h, 3)).toBe(0x1n);
  });

  it('an inhibited counter does not wrap', () => {
    const h = setup();
    h.write(MHPMEVENT(3), 0x1n | MINH);
    h.write(MHPMCOUNTER(3), 0xffffn);
    expect(h.cycles(2, insn())).toEqual([false, false]);
    expect(counter(h, 3)).toBe(0xffffn);
  });

  it('mcycle wraps at 64 bits without OF or lcofi', () => {
    const h = new Harness();
    h.write(MCYCLE, ONES);
    expect(h.cycles(2, insn())).toEqual([false, false]);
    expect(counter(h, 0)).toBe(1n);
  });

  it('without Sscofpmf the counter wraps silently', () => {
    const h = setup({ sscofpmf: false });
    expect(h.cycles(3, insn())).toEqual([false, false, false]);
    expect(counter(h, 3)).toBe(1n);
    expect(event(h, 3)).toBe(0x1n);
  });
});

describe('scountovf', () => {
  const withOverflows = (): Harness => {
    const h = new Harness();
    h.write(MHPMEVENT(3), OF);
    h.write(MHPMEVENT(5), OF);
    return h;
  };

  it('bit n = mhpmevent<n>.OF masked by mcounteren, also in M', () => {
    const h = withOverflows();
    expect(h.read(SCOUNTOVF)).toBe(0n);
    h.write(MCOUNTEREN, b(3));
    expect(h.read(SCOUNTOVF)).toBe(0x8n);
    expect(h.read(SCOUNTOVF, S)).toBe(0x8n);
    h.write(MCOUNTEREN, ONES);
    expect(h.read(SCOUNTOVF)).toBe(0x28n);
    expect(h.read(SCOUNTOVF, S)).toBe(0x28n);
    expect(h.read(SCOUNTOVF, M, true)).toBe(0x28n); // V is ignored in M
  });

  it('with V = 1 (VS) also masked by hcounteren', () => {
    const h = withOverflows();
    h.write(MCOUNTEREN, ONES);
    expect(h.read(SCOUNTOVF, S, true)).toBe(0n);
    h.write(HCOUNTEREN, b(5));
    expect(h.read(SCOUNTOVF, S, true)).toBe(0x20n);
    h.write(MCOUNTEREN, b(3));
    expect(h.read(SCOUNTOVF, S, true)).toBe(0n);
    expect(h.read(SCOUNTOVF, S)).toBe(0x8n);
  });

  it('an overflow shows in scountovf', () => {
    const h = new Harness({ counterWidth: 8 });
    h.write(MCOUNTEREN, ONES);
    h.write(MHPMEVENT(31), 0x1n);
    h.write(MHPMCOUNTER(31), 0xffn);
    h.cycle(insn());
    expect(h.read(SCOUNTOVF, S)).toBe(0x8000_0000n);
  });
});

describe('the RV32 MCU block (counters 3..6 of 40 bits, no Sscofpmf)', () => {
  it('the carry into the high half and the wrap at 40 bits, without OF or lcofi', () => {
    const h = new Harness(RV32_MCU);
    h.write(MHPMEVENT(3), 0x2n); // instructions
    h.write(MHPMEVENT(6), 0x3n); // input0
    h.write(MHPMCOUNTER(3), ONES32);
    h.cycle(insn());
    expect(h.read(MHPMCOUNTER(3))).toBe(0n);
    expect(h.read(MHPMCOUNTERH(3))).toBe(1n);
    h.write(MHPMCOUNTERH(3), 0xffn);
    h.write(MHPMCOUNTER(3), ONES32);
    expect(h.cycle(insn()).lcofi).toBe(false);
    expect(counter(h, 3)).toBe(0n);
    expect(h.cycle(insn()).lcofi).toBe(false);
    expect(h.read(MHPMEVENT(3))).toBe(0x2n);
    h.cycle(idle(), false, 1);
    expect(counter(h, 6)).toBe(1n);
  });

  it('a write of one half in a counting cycle: that counter keeps its other half and does not count', () => {
    const h = new Harness(RV32_MCU);
    h.write(MHPMEVENT(3), 0x1n);
    h.write(MHPMCOUNTER(3), 7n);
    h.write(MHPMCOUNTERH(3), 0x1n, { record: insn() });
    expect(counter(h, 3)).toBe(0x1_0000_0007n);
  });
});
