/**
 * Directed tests for the recording rows of the behaviour checklist in ctr.md (the CSR rows are in
 * csr.test.ts). Each expected value is worked out by hand from the spec sentence quoted next to
 * it; register numbers and bit positions are written here from the spec text, not imported from
 * the model, so the model's register map is checked too.
 *
 * v0.1.4 ctrcontrol (§2.1): M 0, S 1, U 2, CLR 7, MTE 8, STE 9, RASEMU 10, BPFRZ 11, LCOFIFRZ 12,
 * DEPTH 19:16, EXCINH 33, INTRINH 34, TRETINH 35, NTBREN 36, TKBRINH 37, ETEN 38, INDCALLINH 40,
 * DIRCALLINH 41, INDJUMPINH 42, DIRJUMPINH 43, CORSWAPINH 44, RETINH 45, INDOJMPINH 46,
 * DIROJMPINH 47. mctrstatus (§2.4): WRPTR 7:0, WRAP 14, FROZEN 15.
 * 1.0 mctrctl: U 0, S 1, M 2, RASEMU 7, STE 8, MTE 9, BPFRZ 11, LCOFIFRZ 12, filters as above.
 * TYPE (§3.3): 1 exception, 2 interrupt, 3 trap return, 4 not-taken branch, 5 taken branch,
 * 8 indirect call, 9 direct call, 10 indirect jump, 11 direct jump, 12 co-routine swap, 13 return.
 */
import { describe, expect, it } from 'vitest';
import { b, D, Harness, insn, M, S, trap, U } from './test-helpers.ts';

// v0.1.4 CSR numbers (§2.6) and indirect access (chapter 3, Smcsrind).
const MCTRCONTROL = 0x381;
const MCTRSTATUS = 0x383;
const MISELECT = 0x350;
// 1.0 CSR numbers.
const MCTRCTL = 0x34e;
const VSCTRCTL = 0x24e;
const SCTRSTATUS = 0x14f;
const SISELECT = 0x150;

// v0.1.4 ctrcontrol bits.
const M_EN = 0, S_EN = 1, U_EN = 2, CLR = 7, MTE = 8, STE = 9, RASEMU = 10, BPFRZ = 11, LCOFIFRZ = 12;
const EXCINH = 33, INTRINH = 34, TRETINH = 35, NTBREN = 36, TKBRINH = 37, ETEN = 38;
const DIRCALLINH = 41, DIRJUMPINH = 43, RETINH = 45;
// 1.0 ctrctl bits.
const U10 = 0, S10 = 1, M10 = 2, RASEMU10 = 7, STE10 = 8, MTE10 = 9, LCOFIFRZ10 = 12;

const TYPE = (data: bigint): number => Number(data & 0xfn);
const wrptr = (h: Harness, csr = MCTRSTATUS): number => Number(h.read(csr) & 0xffn);

describe('qualification (v0.1.4 §5: enabled mode, type not inhibited, not FROZEN)', () => {
  it('records a transfer of an enabled mode: source = the block\'s last instruction, target = the next record', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN)); // §2.1: M enables recording in M-mode
    // A block c.nop (0x1000, 16-bit) + jal x0 (0x1002, 32-bit): iretire = 1 + 2 half-words,
    // ilastsize 1 -> the last instruction is at 0x1000 + 3*2 - 4 = 0x1002.
    h.rec({ ...insn(0x1000n, 11), iretire: 3, ilastsize: 1 });
    h.at(0x2000n);
    const e = h.entry(0, MISELECT);
    expect(e.source).toBe(0x1002n | 1n); // §3.1: PC[XLEN-1:1] | V; §5: "Recorded transfers will set the ctrsource.V bit to 1"
    expect(e.target).toBe(0x2000n); // §3.2: PC | MISP (0)
    expect(TYPE(e.data)).toBe(11); // §3.3: 1011 direct jump
    expect(wrptr(h)).toBe(1); // §2.4: "Incremented on new transfers recorded"
  });

  it('a compressed last instruction: source = iaddr + iretire*2 - 2', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.rec({ ...insn(0x1000n, 13), iretire: 3, ilastsize: 0 }); // 32-bit at 0x1000, c.jr ra at 0x1004
    h.at(0x3000n);
    expect(h.entry(0, MISELECT).source).toBe(0x1004n | 1n);
  });

  it('does not record transfers of a mode that is not enabled', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN)); // U (bit 2) stays 0
    h.priv = U;
    h.at(0x1000n, 11);
    h.at(0x2000n, 5);
    h.at(0x3000n);
    expect(wrptr(h)).toBe(0);
    expect(h.entry(0, MISELECT).source).toBe(0n);
  });

  it('does not record a type whose inhibit bit is set, and records the others', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(DIRJUMPINH)); // §2.1 DIRJUMPINH: inhibit direct jumps (type 11)
    h.at(0x1000n, 11); // direct jump: inhibited
    h.at(0x2000n, 5); // taken branch: recorded when the next record shows the target
    h.at(0x2100n);
    expect(wrptr(h)).toBe(1);
    const e = h.entry(0, MISELECT);
    expect(e.source).toBe(0x2001n);
    expect(e.target).toBe(0x2100n);
    expect(TYPE(e.data)).toBe(5);
  });

  it('each inhibit bit blocks its own type only (EXCINH..DIROJMPINH = bit 32 + TYPE)', () => {
    for (const t of [1, 2, 3, 5, 8, 9, 10, 11, 12, 13, 14, 15]) {
      const h = new Harness();
      h.write(MCTRCONTROL, b(M_EN) | b(32 + t));
      const other = t === 5 ? 11 : 5;
      // Every transfer stays in M-mode (traps from M to M, mret to M).
      h.at(0x1000n, t);
      h.at(0x2000n, other);
      h.at(0x3000n);
      expect(wrptr(h), `type ${t}`).toBe(1);
      expect(TYPE(h.entry(0, MISELECT).data), `type ${t}`).toBe(other);
    }
  });

  it('records nothing while mctrstatus.FROZEN is set', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.write(MCTRSTATUS, b(15)); // §2.4 FROZEN: "Inhibit transfer recording"
    h.at(0x1000n, 11);
    h.at(0x2000n);
    expect(wrptr(h)).toBe(0);
    h.write(MCTRSTATUS, 0n);
    h.at(0x2004n, 11);
    h.at(0x3000n);
    expect(wrptr(h)).toBe(1);
  });
});

describe('privilege mode transitions (v0.1.4 §5.1 table)', () => {
  it('trap from an inhibited mode to an enabled mode: recorded, source PC 0', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN)); // U inhibited
    h.rec(insn(0x3000n, 1, U, { cause: 8 })); // ecall in U
    h.rec(insn(0x100n, 0, M)); // M handler
    const e = h.entry(0, MISELECT);
    expect(e.source).toBe(1n); // "Recorded, Source PC is 0." (V = 1)
    expect(e.target).toBe(0x100n);
    expect(TYPE(e.data)).toBe(1);
  });

  it('trap return to an inhibited mode: recorded, target PC 0', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.rec(insn(0x180n, 3, M)); // mret
    h.rec(insn(0x3004n, 0, U));
    const e = h.entry(0, MISELECT);
    expect(e.source).toBe(0x181n);
    expect(e.target).toBe(0n); // "Recorded, Target PC is 0."
    expect(TYPE(e.data)).toBe(3);
  });

  it('trap return from an inhibited mode: not recorded', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(U_EN)); // S inhibited, U enabled
    h.rec(insn(0x200n, 3, S)); // sret
    h.rec(insn(0x3004n, 0, U)); // "Trap Return, Inhibited source: Not recorded."
    expect(wrptr(h)).toBe(0);
  });

  it('trap and trap return between enabled modes: recorded as normal', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(U_EN) | b(S_EN));
    h.rec(trap(0x3000n, 13, U)); // load page fault in U, retires nothing: source = EPC
    h.rec(insn(0x200n, 3, S)); // S handler is a single sret
    h.rec(insn(0x3000n, 0, U));
    const [older, youngest] = [h.entry(1, MISELECT), h.entry(0, MISELECT)];
    expect([older.source, older.target, TYPE(older.data)]).toEqual([0x3001n, 0x200n, 1]);
    expect([youngest.source, youngest.target, TYPE(youngest.data)]).toEqual([0x201n, 0x3000n, 3]);
  });

  it('trap between inhibited modes: not recorded', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN)); // U and S inhibited
    h.rec(trap(0x3000n, 13, U));
    h.rec(insn(0x200n, 0, S));
    expect(wrptr(h)).toBe(0);
  });

  it('an interrupt records type 2 with the EPC (the interrupted instruction) as source', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11); // jump to 0x1800, interrupted before 0x1800 retires
    h.rec(trap(0x1800n, 7, M, true));
    h.at(0x100n);
    const [jump, irq] = [h.entry(1, MISELECT), h.entry(0, MISELECT)];
    expect([jump.source, jump.target]).toEqual([0x1001n, 0x1800n]); // the jump's target is the EPC
    expect([irq.source, irq.target, TYPE(irq.data)]).toEqual([0x1801n, 0x100n, 2]);
  });

  describe('external traps, v0.1.4 §5.2.1: "only if both ETEN=1 and xTE=1, x the target mode"', () => {
    const run = (control: bigint, targetPriv = M): Harness => {
      const h = new Harness();
      h.write(MCTRCONTROL, control);
      h.rec(insn(0x3000n, 1, U, { cause: 8 })); // ecall from enabled U
      h.rec(insn(0x100n, 0, targetPriv)); // to an inhibited mode
      return h;
    };
    it('not recorded by default, nor with only one of ETEN and MTE', () => {
      expect(wrptr(run(b(U_EN)))).toBe(0);
      expect(wrptr(run(b(U_EN) | b(ETEN)))).toBe(0);
      expect(wrptr(run(b(U_EN) | b(MTE)))).toBe(0);
      expect(wrptr(run(b(U_EN) | b(ETEN) | b(STE)))).toBe(0); // STE is for traps to S
    });
    it('recorded with ETEN=MTE=1, target PC 0, even with EXCINH=1 ("does not depend on EXCINH/INTRINH")', () => {
      const h = run(b(U_EN) | b(ETEN) | b(MTE) | b(EXCINH));
      const e = h.entry(0, MISELECT);
      expect([e.source, e.target, TYPE(e.data)]).toEqual([0x3001n, 0n, 1]);
    });
    it('to S-mode with ETEN=STE=1', () => {
      const h = run(b(U_EN) | b(ETEN) | b(STE), S);
      expect(h.entry(0, MISELECT).target).toBe(0n);
      expect(wrptr(h)).toBe(1);
    });
    it('not recorded with RASEMU=1 ("Other transfer types are inhibited")', () => {
      expect(wrptr(run(b(U_EN) | b(ETEN) | b(MTE) | b(RASEMU)))).toBe(0);
    });
  });

  describe('external traps, 1.0: the xTE bits of the target and every intervening mode', () => {
    const run = (control: bigint, from: number, to: number): number => {
      const h = new Harness({ specVersion: '1.0' });
      h.write(MCTRCTL, control);
      h.rec(trap(0x3000n, 13, from));
      h.rec(insn(0x100n, 0, to));
      return wrptr(h, SCTRSTATUS);
    };
    it('U -> S needs STE; U -> M needs MTE and STE; S -> M needs MTE', () => {
      expect(run(b(U10), U, S)).toBe(0);
      expect(run(b(U10) | b(STE10), U, S)).toBe(1);
      expect(run(b(U10) | b(MTE10), U, M)).toBe(0); // "the external trap enable bit(s) for any intervening modes must also be set"
      expect(run(b(U10) | b(MTE10) | b(STE10), U, M)).toBe(1);
      expect(run(b(S10) | b(MTE10), S, M)).toBe(1);
      expect(run(b(S10) | b(STE10), S, M)).toBe(0);
    });
    it('VU -> HS needs sctrctl.STE and vsctrctl.STE; VU -> VS needs vsctrctl.STE', () => {
      const h = (mctl: bigint, vsctl: bigint, toV: boolean): number => {
        const x = new Harness({ specVersion: '1.0', hExt: true });
        x.write(MCTRCTL, mctl);
        x.write(VSCTRCTL, vsctl);
        x.step({ record: trap(0x3000n, 13, U), v: true });
        x.step({ record: insn(0x100n, 0, S), v: toV });
        return wrptr(x, SCTRSTATUS);
      };
      expect(h(0n, b(U10) | b(STE10), false)).toBe(0);
      expect(h(b(STE10), b(U10), false)).toBe(0);
      expect(h(b(STE10), b(U10) | b(STE10), false)).toBe(1);
      expect(h(0n, b(U10) | b(STE10), true)).toBe(1);
      expect(h(b(STE10), b(U10), true)).toBe(0);
    });
    it('in records for external traps, ctrtarget.PC is 0', () => {
      const x = new Harness({ specVersion: '1.0' });
      x.write(MCTRCTL, b(U10) | b(STE10));
      x.rec(trap(0x3000n, 13, U));
      x.rec(insn(0x100n, 0, S));
      expect(x.entry(0, SISELECT).target).toBe(0n);
    });
  });

  it('1.0: a transition between V=1 and V=0 uses vsctrctl for the filter bits ("Virtualization Mode Transitions")', () => {
    // VU-mode exception to HS-mode, vsctrctl.U=1 and sctrctl.S=1: both modes enabled; the 1.0
    // note: "whether the trap is recorded then depends on the CTR configuration (e.g., the
    // transfer type filter bits) in vsctrctl, not in sctrctl".
    const run = (mctl: bigint, vsctl: bigint): number => {
      const h = new Harness({ specVersion: '1.0', hExt: true });
      h.write(MCTRCTL, mctl);
      h.write(VSCTRCTL, vsctl);
      h.step({ record: trap(0x3000n, 13, U), v: true });
      h.step({ record: insn(0x100n, 0, S), v: false });
      return wrptr(h, SCTRSTATUS);
    };
    expect(run(b(S10), b(U10))).toBe(1);
    expect(run(b(S10), b(U10) | b(EXCINH))).toBe(0);
    expect(run(b(S10) | b(EXCINH), b(U10))).toBe(1);
    // The other direction: sret from HS-mode into VU-mode also takes TRETINH from vsctrctl.
    const back = (mctl: bigint, vsctl: bigint): number => {
      const h = new Harness({ specVersion: '1.0', hExt: true });
      h.write(MCTRCTL, mctl);
      h.write(VSCTRCTL, vsctl);
      h.step({ record: insn(0x200n, 3, S), v: false });
      h.step({ record: insn(0x3004n, 0, U), v: true });
      return wrptr(h, SCTRSTATUS);
    };
    expect(back(b(S10), b(U10))).toBe(1);
    expect(back(b(S10), b(U10) | b(TRETINH))).toBe(0);
    expect(back(b(S10) | b(TRETINH), b(U10))).toBe(1);
  });

  it('transfers into and out of debug mode are never recorded (§5.1)', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(ETEN) | b(MTE));
    h.rec(insn(0x1000n, 1, M, { cause: 3 })); // ebreak entering debug mode
    h.rec(insn(0x800n, 0, D));
    h.rec(insn(0x804n, 3, D)); // dret
    h.rec(insn(0x1004n, 0, M));
    expect(wrptr(h)).toBe(0);
  });

  it('a halted or reset cycle drops the pending transfer (its target is never seen)', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.rec({ ...insn(0x2000n), iretire: 0, halted: true });
    h.at(0x2000n);
    h.at(0x2004n, 11);
    h.rec({ ...insn(0x0n), iretire: 0, reset: true });
    h.at(0x0n);
    expect(wrptr(h)).toBe(0);
  });

  it('idle cycles keep the transfer pending until the next retirement', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.idle(5);
    expect(wrptr(h)).toBe(0);
    h.at(0x2000n);
    expect(wrptr(h)).toBe(1);
    expect(h.entry(0, MISELECT).target).toBe(0x2000n);
  });
});

describe('NTBREN (v0.1.4 §5.2: not-taken branches are opt-in)', () => {
  it('a not-taken branch is recorded only with NTBREN=1, with TYPE 4 and the fall-through as target', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 4);
    h.at(0x1004n);
    expect(wrptr(h)).toBe(0);
    h.write(MCTRCONTROL, b(M_EN) | b(NTBREN));
    h.at(0x1008n, 4);
    h.at(0x100cn);
    const e = h.entry(0, MISELECT);
    expect([e.source, e.target, TYPE(e.data)]).toEqual([0x1009n, 0x100cn, 4]);
  });

  it('TKBRINH inhibits taken branches', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(TKBRINH));
    h.at(0x1000n, 5);
    h.at(0x2000n);
    expect(wrptr(h)).toBe(0);
  });
});

describe('RAS emulation (v0.1.4 §5.4)', () => {
  const setup = (extra = 0n): Harness => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(RASEMU) | extra);
    h.at(0x1000n, 9); // direct call -> 0x2000
    h.at(0x2000n);
    h.at(0x2010n, 8); // indirect call -> 0x3000
    h.at(0x3000n);
    return h;
  };

  it('calls are recorded as normal (pushed)', () => {
    const h = setup();
    expect(wrptr(h)).toBe(2);
    expect(h.entry(0, MISELECT).source).toBe(0x2011n);
    expect(h.entry(1, MISELECT).source).toBe(0x1001n);
  });

  it('a return pops: entry 0 invalidated (V=0) and rotated to entry depth-1, WRPTR decremented', () => {
    const h = setup();
    h.at(0x3008n, 13); // ret -> 0x2014
    h.at(0x2014n);
    expect(wrptr(h)).toBe(1); // §2.4: "decremented on qualified returns when ctrcontrol.RASEMU=1"
    expect(h.entry(0, MISELECT).source).toBe(0x1001n); // entries 1.. move to 0..
    const last = h.entry(15, MISELECT); // "(invalidated) entry 0 moves to entry depth-1" (depth 16)
    expect(last.source).toBe(0x2010n); // V cleared, PC kept
    expect(last.target).toBe(0x3000n);
  });

  it('a co-routine swap overwrites entry 0 and leaves WRPTR', () => {
    const h = setup();
    h.at(0x3008n, 12); // co-routine swap -> 0x4000
    h.at(0x4000n);
    expect(wrptr(h)).toBe(2);
    const e = h.entry(0, MISELECT);
    expect([e.source, e.target, TYPE(e.data)]).toEqual([0x3009n, 0x4000n, 12]);
    expect(h.entry(1, MISELECT).source).toBe(0x1001n);
  });

  it('other transfer types are inhibited', () => {
    const h = setup();
    for (const t of [1, 3, 4, 5, 10, 11, 14, 15]) {
      h.at(0x3000n + BigInt(t) * 16n, t);
    }
    h.rec(trap(0x5000n, 7, M, true));
    h.at(0x6000n);
    expect(wrptr(h)).toBe(2);
  });

  it('transfer type filtering bits are ignored (DIRCALLINH, RETINH, NTBREN)', () => {
    const h = setup(b(DIRCALLINH) | b(RETINH) | b(NTBREN));
    expect(wrptr(h)).toBe(2); // the direct call was still pushed
    h.at(0x3004n, 4); // not-taken branch: inhibited in RAS mode even with NTBREN
    h.at(0x3008n, 13);
    h.at(0x2014n);
    expect(wrptr(h)).toBe(1); // the return still popped
  });

  it('FROZEN stops RAS pops too', () => {
    const h = setup();
    h.write(MCTRSTATUS, 2n | b(15));
    h.at(0x3008n, 13);
    h.at(0x2014n);
    expect(wrptr(h)).toBe(2);
  });
});

describe('freeze (v0.1.4 §5.5)', () => {
  it('LCOFIFRZ: an LCOFI trap sets FROZEN and is not recorded; later transfers are not recorded', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(LCOFIFRZ));
    h.at(0x1000n, 11);
    h.rec(trap(0x2000n, 13, M, true), { lcofiTrap: true }); // the jump completes here
    h.at(0x100n, 11); // handler: its jump is not recorded either
    h.at(0x180n);
    const status = h.read(MCTRSTATUS);
    expect(status & b(15)).toBe(b(15)); // FROZEN
    expect(status & 0xffn).toBe(1n); // only the jump before the interrupt
    expect(h.entry(0, MISELECT).source).toBe(0x1001n);
  });

  it('without LCOFIFRZ the LCOFI trap is recorded as an interrupt', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.rec(trap(0x2000n, 13, M, true), { lcofiTrap: true });
    h.at(0x100n);
    expect(h.read(MCTRSTATUS)).toBe(1n);
    expect(TYPE(h.entry(0, MISELECT).data)).toBe(2);
  });

  it('BPFRZ: a breakpoint exception sets FROZEN and is not recorded; clearing FROZEN resumes recording', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(BPFRZ));
    h.at(0x1000n, 1, { breakpointTrap: true }); // ebreak retires and traps (cause 3)
    h.at(0x100n);
    expect(h.read(MCTRSTATUS)).toBe(b(15));
    h.write(MCTRSTATUS, 0n); // "This inhibits CTR recording until software clears FROZEN"
    h.at(0x104n, 3);
    h.at(0x1004n);
    expect(h.read(MCTRSTATUS)).toBe(1n);
    expect(TYPE(h.entry(0, MISELECT).data)).toBe(3);
  });

  it('freezes even when the trap would not have been recorded (source and target inhibited)', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(BPFRZ)); // no mode enabled
    h.rec(insn(0x3000n, 1, U, { cause: 3 }), { breakpointTrap: true });
    h.rec(insn(0x100n, 0, M));
    expect(h.read(MCTRSTATUS)).toBe(b(15));
  });

  it('1.0: traps to VS-mode use vsctrctl.LCOFIFRZ, traps to HS-mode sctrctl.LCOFIFRZ', () => {
    const run = (mctl: bigint, vsctl: bigint, toV: boolean): bigint => {
      const h = new Harness({ specVersion: '1.0', hExt: true });
      h.write(MCTRCTL, mctl);
      h.write(VSCTRCTL, vsctl);
      h.step({ record: trap(0x3000n, 13, U, true), v: true, lcofiTrap: true });
      h.step({ record: insn(0x100n, 0, S), v: toV });
      return h.read(SCTRSTATUS) & b(31);
    };
    expect(run(0n, b(LCOFIFRZ10), true)).toBe(b(31));
    expect(run(b(LCOFIFRZ10), 0n, true)).toBe(0n);
    expect(run(b(LCOFIFRZ10), 0n, false)).toBe(b(31));
    expect(run(0n, b(LCOFIFRZ10), false)).toBe(0n);
  });
});

describe('WRPTR and WRAP (v0.1.4 §2.4)', () => {
  it('WRPTR wraps after depth-1 and sets WRAP; the oldest entry is overwritten', () => {
    const h = new Harness(); // depth 16 at reset
    h.write(MCTRCONTROL, b(M_EN));
    for (let i = 0; i < 16; i++) h.at(0x1000n + BigInt(i) * 0x100n, 11);
    expect(h.read(MCTRSTATUS)).toBe(15n); // 15 recorded so far (the 16th is pending)
    h.at(0x9000n, 11); // completes the 16th: WRPTR 15 -> 0 with WRAP
    expect(h.read(MCTRSTATUS)).toBe(b(14)); // WRAP set, WRPTR 0
    h.at(0xa000n); // completes the 17th, written at physical 0 over the first
    expect(h.read(MCTRSTATUS)).toBe(b(14) | 1n);
    expect(h.entry(0, MISELECT).source).toBe(0x9001n);
    expect(h.entry(15, MISELECT).source).toBe(0x1101n); // the second record is now the oldest
  });

  it('a RASEMU return at WRPTR 0 wraps WRPTR to depth-1 and clears WRAP', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(RASEMU));
    h.write(MCTRSTATUS, b(14)); // WRPTR 0, WRAP 1
    h.at(0x3000n, 13);
    h.at(0x2000n);
    expect(h.read(MCTRSTATUS)).toBe(15n); // "Cleared when WRPTR has value zero and a CTR update causes WRPTR to be decremented"
  });

  it('1.0 sctrstatus has no WRAP; WRPTR wraps the same way', () => {
    const h = new Harness({ specVersion: '1.0' });
    h.write(MCTRCTL, b(M10));
    for (let i = 0; i < 17; i++) h.at(0x1000n + BigInt(i) * 0x100n, 11);
    expect(h.read(SCTRSTATUS)).toBe(0n);
    h.at(0x9000n);
    expect(h.read(SCTRSTATUS)).toBe(1n);
  });
});

describe('cycle counting (v0.1.4 §5.3)', () => {
  const CCV = (d: bigint): boolean => ((d >> 15n) & 1n) === 1n;
  const CC = (d: bigint): number => Number((d >> 16n) & 0xffffn);

  it('CC counts the cycles since the prior record; CCV=0 for the first record after a ctrcontrol write', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN)); // cycle 0: M enabled at its end
    h.at(0x1000n, 11); // cycle 1: counted (M enabled, not frozen)
    h.at(0x2000n, 11); // cycle 2: first record written: 2 cycles (1, 2)
    h.idle(5); // cycles 3..7
    h.at(0x3000n); // cycle 8: second record: cycles 3..8 = 6 since the prior record (cycle 2)
    const first = h.entry(1, MISELECT).data;
    const second = h.entry(0, MISELECT).data;
    // "An implementation must clear CCV for the next recorded transfer upon a write to ctrcontrol"
    expect(CCV(first)).toBe(false);
    expect(CC(first)).toBe(2);
    expect(CCV(second)).toBe(true);
    expect(CC(second)).toBe(6);
  });

  it('a ctrcontrol write between records clears CCV of the next record only', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.at(0x2000n, 11); // record 1 (CCV 0: after the enabling write)
    h.at(0x3000n, 11); // record 2 (CCV 1)
    h.write(MCTRCONTROL, b(M_EN)); // same value: still a write
    h.at(0x4000n, 11); // record 3 (CCV 0)
    h.at(0x5000n); // record 4 (CCV 1)
    const ccv = [3, 2, 1, 0].map((x) => CCV(h.entry(x, MISELECT).data));
    expect(ccv).toEqual([false, true, false, true]);
  });

  it('cycles in an inhibited mode or while FROZEN are not counted ("Qualified cycles")', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.at(0x2000n, 11); // record 1; counting restarts after this cycle
    h.priv = U;
    h.idle(10); // not counted: U inhibited
    h.priv = M;
    h.idle(3); // counted: 3
    h.step({ csr: { address: MCTRSTATUS, write: true, wdata: b(15), priv: M } }); // counted (FROZEN set at its end): 4
    h.idle(7); // not counted (FROZEN)
    h.step({ csr: { address: MCTRSTATUS, write: true, wdata: 1n, priv: M } }); // WRPTR 1, FROZEN 0; FROZEN at the start: not counted
    h.at(0x3000n); // counted: 5; record 2 written
    expect(CC(h.entry(0, MISELECT).data)).toBe(5);
  });

  it('CC saturates at the largest value the implemented CCE bits hold', () => {
    const run = (cceBits: number, idle: number): number => {
      const h = new Harness({ cceBits });
      h.write(MCTRCONTROL, b(M_EN));
      h.at(0x1000n, 11);
      h.at(0x2000n, 11);
      h.idle(idle);
      h.at(0x3000n);
      return CC(h.entry(0, MISELECT).data);
    };
    expect(run(0, 5000)).toBe(0x0fff); // 5001 cycles > 4095: all implemented bits 1
    expect(run(4, 4999)).toBe(0x1388); // 5000 cycles: CCE 1, CCM 904
    expect(run(1, 9000)).toBe(0x1fff); // > 8191
  });

  it('without cycle counting CCV and CC read 0', () => {
    const h = new Harness({ cycleCounting: false, cceBits: 0 });
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.idle(3);
    h.at(0x2000n, 11);
    h.at(0x3000n);
    expect(h.entry(0, MISELECT).data).toBe(11n);
  });

  it('RASEMU, policy popped-parent: a call after a pop has CCV=0, swaps have CCV=0', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(RASEMU));
    h.at(0x1000n, 9); // call A
    h.at(0x2000n, 9); // A recorded (CCV 0: after the control write); call B
    h.at(0x3000n, 13); // B recorded (CCV 1); return
    h.at(0x2004n, 9); // B popped; call C
    h.at(0x4000n, 9); // C recorded: CCV 0 (its predecessor was popped); call D
    h.at(0x5000n, 12); // D recorded: CCV 1; co-routine swap
    h.at(0x6000n, 9); // the swap overwrites D: CCV 0; call E
    h.at(0x7000n); // E recorded: CCV 1
    const seen = [3, 2, 1, 0].map((x) => {
      const d = h.entry(x, MISELECT);
      return [d.source, CCV(d.data)];
    });
    expect(seen).toEqual([
      [0x1001n, false],
      [0x2005n, false],
      [0x5001n, false],
      [0x6001n, true],
    ]);
  });

  it('RASEMU, popped-parent: a call recorded after a call (no pop in between) has CCV=1', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(RASEMU));
    h.at(0x1000n, 9);
    h.at(0x2000n, 9); // A
    h.at(0x3000n, 9); // B: CCV 1
    h.at(0x4000n);
    expect(CCV(h.entry(0, MISELECT).data)).toBe(true);
  });

  it('RASEMU, policy all-calls: every record has CCV=0', () => {
    const h = new Harness({ rasemuCcvPolicy: 'all-calls' });
    h.write(MCTRCONTROL, b(M_EN) | b(RASEMU));
    h.at(0x1000n, 9);
    h.at(0x2000n, 9);
    h.at(0x3000n, 9);
    h.at(0x4000n);
    expect([2, 1, 0].map((x) => CCV(h.entry(x, MISELECT).data))).toEqual([false, false, false]);
  });

  it('returns do not reset the cycle counter', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN) | b(RASEMU));
    h.at(0x1000n, 9); // 1
    h.at(0x2000n, 13); // 2: call recorded (counter restarts)
    h.at(0x1004n, 9); // 3: return pops, counter keeps counting
    h.at(0x3000n); // 4: call recorded: cycles 3, 4
    expect(CC(h.entry(0, MISELECT).data)).toBe(2);
  });
});

describe('MISP', () => {
  it('the misp input of the transfer\'s record lands in ctrtarget bit 0 when implemented', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 5, { misp: true });
    h.at(0x2000n);
    expect(h.entry(0, MISELECT).target).toBe(0x2001n);
    const t = new Harness({ misp: false });
    t.write(MCTRCONTROL, b(M_EN));
    t.at(0x1000n, 5, { misp: true });
    t.at(0x2000n);
    expect(t.entry(0, MISELECT).target).toBe(0x2000n); // "MISP is read-only 0 when not implemented"
  });
});

describe('CLR (v0.1.4 §2.1) and SCTRCLR (1.0)', () => {
  it('writing CLR=1 zeroes the entries and mctrstatus; CLR reads 0', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.at(0x2000n, 11);
    h.at(0x3000n);
    h.write(MCTRSTATUS, 2n | b(14) | b(15));
    h.write(MCTRCONTROL, b(M_EN) | b(CLR));
    expect(h.read(MCTRCONTROL) & b(CLR)).toBe(0n);
    expect(h.read(MCTRSTATUS)).toBe(0n); // "Also zeroes mctrstatus."
    for (let x = 0; x < 16; x++) expect(h.entry(x, MISELECT)).toEqual({ source: 0n, target: 0n, data: 0n });
  });

  it('vsctrcontrol.CLR clears only when written with V=1 (§2.3)', () => {
    const h = new Harness({ hExt: true });
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.at(0x2000n);
    h.write(0x281, b(CLR), M); // vsctrcontrol from M-mode (V=0): no clear
    expect(h.read(MCTRSTATUS)).toBe(1n);
    h.write(0x181, b(CLR), S, true); // sctrcontrol from VS-mode = vsctrcontrol with V=1
    expect(h.read(MCTRSTATUS)).toBe(0n);
    expect(h.entry(0, MISELECT).source).toBe(0n);
  });

  it('SCTRCLR zeroes every entry and the cycle counter but not sctrstatus; the next record has CCV=0', () => {
    const h = new Harness({ specVersion: '1.0' });
    h.write(MCTRCTL, b(M10));
    h.at(0x1000n, 11);
    h.at(0x2000n, 11);
    h.at(0x3000n, 11); // record 2 (CCV 1)
    h.step({ csr: { address: 0, write: false, wdata: 0n, priv: S, sctrclr: true } });
    expect(h.read(SCTRSTATUS)).toBe(2n); // not zeroed
    expect(h.entry(0, SISELECT)).toEqual({ source: 0n, target: 0n, data: 0n });
    expect(h.entry(1, SISELECT)).toEqual({ source: 0n, target: 0n, data: 0n });
    h.at(0x4000n); // record 3
    expect((h.entry(0, SISELECT).data >> 15n) & 1n).toBe(0n); // "the first recorded transfer following SCTRCLR will have ctrdata.CCV=0"
  });
});

describe('cycle semantics', () => {
  it('a CSR read in a completion cycle sees the state before the record; the next cycle sees it', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    const out = h.step({ record: insn(0x2000n), csr: { address: MCTRSTATUS, write: false, wdata: 0n, priv: M } });
    expect(out.csr!.rdata).toBe(0n);
    expect(out.update).toMatchObject({ kind: 'push', physical: 0 });
    expect(h.read(MCTRSTATUS)).toBe(1n);
  });

  it('a CSR write to mctrstatus in the cycle of a push wins over the hardware increment', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.step({ record: insn(0x2000n), csr: { address: MCTRSTATUS, write: true, wdata: 7n, priv: M } });
    expect(h.read(MCTRSTATUS)).toBe(7n); // the entry was written at physical 0, the increment lost
    h.write(MISELECT, 0x200n + 6n); // logical 6 = physical (7 - 1 - 6) = 0
    expect(h.read(0x351)).toBe(0x1001n);
  });

  it('an entry-register write in the cycle of a push maps logical to physical with the start-of-cycle WRPTR', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.at(0x2000n, 11); // record 1 at physical 0, WRPTR 1
    h.write(MISELECT, 0x200n);
    // Record 2 goes to physical 1 (WRPTR 1 -> 2); the mireg write targets logical 0 at the
    // start of the cycle = physical 0 (record 1), not the new entry.
    h.step({ record: insn(0x3000n), csr: { address: 0x351, write: true, wdata: 0x7777n, priv: M } });
    expect(h.unit.physicalEntries()[0]!.source).toBe(0x7777n);
    expect(h.entry(0, MISELECT).source).toBe(0x2001n);
    expect(h.entry(1, MISELECT).source).toBe(0x7777n);
  });

  it('a transfer completing in the cycle of a ctrcontrol write is qualified with the old value', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, b(M_EN));
    h.at(0x1000n, 11);
    h.step({ record: insn(0x2000n), csr: { address: MCTRCONTROL, write: true, wdata: 0n, priv: M } });
    expect(h.read(MCTRSTATUS)).toBe(1n);
  });
});
