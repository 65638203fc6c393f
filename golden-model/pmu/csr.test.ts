/**
 * Directed tests of the PMU's CSR side (docs/pmu-model.md "CSRs" and "Access rules"): which CSRs
 * exist in which configuration, the exception of every access case, WARL of every field, RV32
 * halves. Expected values are typed from the spec text quoted in registers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  b,
  CYCLE,
  D,
  HCOUNTEREN,
  HPMCOUNTER,
  HPMCOUNTERH,
  Harness,
  INSTRET,
  M,
  MCOUNTEREN,
  MCOUNTINHIBIT,
  MCYCLE,
  MCYCLECFG,
  MCYCLECFGH,
  MCYCLEH,
  MHPMCOUNTER,
  MHPMCOUNTERH,
  MHPMEVENT,
  MHPMEVENTH,
  MINH,
  MINSTRET,
  MINSTRETCFG,
  MINSTRETCFGH,
  MINSTRETH,
  OF,
  ONES,
  ONES32,
  RV32_MCU,
  S,
  SCOUNTEREN,
  SCOUNTOVF,
  TIME,
  U,
} from './test-helpers.ts';

describe('CSR existence per configuration (an access from M to a missing CSR is illegal)', () => {
  const exists = (h: Harness, a: number): boolean => h.fault(a, M) === 'none';

  it('RV64 with everything: no high halves, no time, no 0xB01', () => {
    const h = new Harness();
    for (const a of [MCYCLE, MINSTRET, MHPMCOUNTER(3), MHPMCOUNTER(31), MHPMEVENT(3), MHPMEVENT(31), MCOUNTINHIBIT, MCOUNTEREN, SCOUNTEREN, HCOUNTEREN, SCOUNTOVF, MCYCLECFG, MINSTRETCFG, CYCLE, INSTRET, HPMCOUNTER(31)]) {
      expect(exists(h, a), a.toString(16)).toBe(true);
    }
    for (const a of [MCYCLEH, MHPMCOUNTERH(3), MHPMEVENTH(3), MCYCLECFGH, HPMCOUNTERH(3), TIME, 0xb01, 0xc81, 0x321 + 0x400, 0x000, 0x7a0]) {
      expect(exists(h, a), a.toString(16)).toBe(false);
    }
  });

  it('RV32 with Sscofpmf and Smcntrpmf: every high half', () => {
    const h = new Harness({ xlen: 32 });
    for (const a of [MCYCLEH, MINSTRETH, MHPMCOUNTERH(3), MHPMCOUNTERH(31), HPMCOUNTERH(0), HPMCOUNTERH(2), HPMCOUNTERH(31), MHPMEVENTH(3), MHPMEVENTH(31), MCYCLECFGH, MINSTRETCFGH]) {
      expect(exists(h, a), a.toString(16)).toBe(true);
    }
    // time/timeh, 0xB81 and mhpmevent0h..2h (0x720 is not mcountinhibith) do not exist
    for (const a of [TIME, 0xc81, 0xb81, 0x720, 0x740]) expect(exists(h, a), a.toString(16)).toBe(false);
  });

  it('RV32 without Sscofpmf: no mhpmeventh, no scountovf', () => {
    const h = new Harness({ xlen: 32, sscofpmf: false });
    expect(exists(h, MHPMEVENTH(3))).toBe(false);
    expect(exists(h, SCOUNTOVF)).toBe(false);
    expect(exists(h, MHPMCOUNTERH(3))).toBe(true);
  });

  it('without Smcntrpmf: no mcyclecfg, minstretcfg (nor their high halves)', () => {
    expect(exists(new Harness({ smcntrpmf: false }), MCYCLECFG)).toBe(false);
    expect(exists(new Harness({ smcntrpmf: false }), MINSTRETCFG)).toBe(false);
    expect(exists(new Harness({ smcntrpmf: false, xlen: 32 }), MCYCLECFGH)).toBe(false);
  });

  it('without H: no hcounteren', () => expect(exists(new Harness({ hExt: false }), HCOUNTEREN)).toBe(false));

  it('without S: no scounteren, no scountovf; mcounteren with U', () => {
    const h = new Harness({ sMode: false, hExt: false });
    expect(exists(h, SCOUNTEREN)).toBe(false);
    expect(exists(h, SCOUNTOVF)).toBe(false);
    expect(exists(h, MCOUNTEREN)).toBe(true);
  });

  it('M only: no mcounteren either', () => expect(exists(new Harness({ sMode: false, uMode: false, hExt: false }), MCOUNTEREN)).toBe(false));

  it('without Sscofpmf: no scountovf', () => expect(exists(new Harness({ sscofpmf: false }), SCOUNTOVF)).toBe(false));

  it('unimplemented counters still have their CSRs (reading 0)', () => {
    const h = new Harness({ counterMask: 0x8 });
    expect(h.read(MHPMCOUNTER(4))).toBe(0n);
    expect(h.read(MHPMEVENT(31))).toBe(0n);
    expect(h.read(HPMCOUNTER(4))).toBe(0n);
  });
});

describe('access rules: read-only CSRs and privilege (Spike order)', () => {
  it('a write to a user counter or scountovf is illegal, even from M and debug mode', () => {
    const h = new Harness();
    expect(h.fault(CYCLE, M, false, true)).toBe('illegal');
    expect(h.fault(HPMCOUNTER(3), D, false, true)).toBe('illegal');
    expect(h.fault(SCOUNTOVF, M, false, true)).toBe('illegal');
    expect(h.fault(SCOUNTOVF, S, true, true)).toBe('illegal');
    expect(h.fault(CYCLE, M)).toBe('none');
  });

  it('the read-only check comes before the privilege check: a write of scountovf from VU is illegal, its read virtual', () => {
    const h = new Harness();
    expect(h.fault(SCOUNTOVF, U, true, true)).toBe('illegal');
    expect(h.fault(SCOUNTOVF, U, true)).toBe('virtual');
  });

  it('M-level CSRs: illegal below M, also with V (only S and H levels give virtual instruction)', () => {
    const h = new Harness();
    for (const a of [MCOUNTEREN, MCOUNTINHIBIT, MCYCLE, MHPMCOUNTER(3), MHPMEVENT(3), MCYCLECFG]) {
      expect(h.fault(a, S), a.toString(16)).toBe('illegal');
      expect(h.fault(a, S, true), a.toString(16)).toBe('illegal');
      expect(h.fault(a, U), a.toString(16)).toBe('illegal');
      expect(h.fault(a, U, true), a.toString(16)).toBe('illegal');
      expect(h.fault(a, M), a.toString(16)).toBe('none');
      expect(h.fault(a, D), a.toString(16)).toBe('none');
    }
  });

  it('scounteren and scountovf (S level): HS and VS reach them; U illegal; VU virtual', () => {
    const h = new Harness();
    for (const a of [SCOUNTEREN, SCOUNTOVF]) {
      expect(h.fault(a, S), a.toString(16)).toBe('none');
      expect(h.fault(a, S, true), a.toString(16)).toBe('none');
      expect(h.fault(a, U), a.toString(16)).toBe('illegal');
      expect(h.fault(a, U, true), a.toString(16)).toBe('virtual');
    }
  });

  it('hcounteren (H level): HS reaches it; VS and VU virtual; U illegal', () => {
    const h = new Harness();
    expect(h.fault(HCOUNTEREN, S)).toBe('none');
    expect(h.fault(HCOUNTEREN, S, true)).toBe('virtual');
    expect(h.fault(HCOUNTEREN, U, true)).toBe('virtual');
    expect(h.fault(HCOUNTEREN, U)).toBe('illegal');
  });

  it('V is ignored without H and in M (the access is S, U or M)', () => {
    const h = new Harness({ hExt: false });
    expect(h.fault(SCOUNTEREN, U, true)).toBe('illegal');
    expect(h.fault(SCOUNTEREN, S, true)).toBe('none');
    expect(new Harness().fault(MCOUNTEREN, M, true)).toBe('none');
  });

  it('the reserved priv 2 is checked as U', () => {
    const h = new Harness();
    expect(h.fault(SCOUNTEREN, 2)).toBe('illegal');
    expect(h.fault(SCOUNTEREN, 2, true)).toBe('illegal');
    h.write(MCOUNTEREN, b(3));
    expect(h.fault(HPMCOUNTER(3), 2)).toBe('illegal'); // scounteren bit 3 clear
    h.write(SCOUNTEREN, b(3));
    expect(h.fault(HPMCOUNTER(3), 2)).toBe('none');
  });

  it('an access that faults reads 0 and writes nothing', () => {
    const h = new Harness();
    h.write(MHPMCOUNTER(3), 0x55n);
    const r = h.access(MHPMCOUNTER(3), true, 0x77n, { priv: S });
    expect(r).toEqual({ rdata: 0n, illegalInstruction: true, virtualInstruction: false });
    expect(h.read(MHPMCOUNTER(3))).toBe(0x55n);
    h.write(MCOUNTEREN, ONES);
    const v = h.access(HCOUNTEREN, true, ONES, { priv: S, v: true });
    expect(v).toEqual({ rdata: 0n, illegalInstruction: false, virtualInstruction: true });
    expect(h.read(HCOUNTEREN)).toBe(0n);
  });

  it('a read returns the value at the start of the cycle (csrrw returns the old value)', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), 0x5n);
    expect(h.access(MHPMEVENT(3), true, 0x6n).rdata).toBe(0x5n);
    expect(h.read(MHPMEVENT(3))).toBe(0x6n);
  });
});

describe('access rules: user counters below M (mcounteren, hcounteren, scounteren)', () => {
  /** A harness with the three enables set; hpmcounter3 is the CSR under test (bit 3). */
  const withEnables = (m: bigint, hc: bigint, sc: bigint, over = {}): Harness => {
    const h = new Harness(over);
    h.write(MCOUNTEREN, m);
    if (h.config.hExt) h.write(HCOUNTEREN, hc);
    if (h.config.sMode) h.write(SCOUNTEREN, sc);
    return h;
  };
  const A = HPMCOUNTER(3);
  const B3 = b(3);

  it('M and debug mode: always, whatever the enables', () => {
    const h = withEnables(0n, 0n, 0n);
    expect(h.fault(A, M)).toBe('none');
    expect(h.fault(A, D)).toBe('none');
  });

  it('HS: mcounteren only', () => {
    expect(withEnables(0n, B3, B3).fault(A, S)).toBe('illegal');
    expect(withEnables(B3, 0n, 0n).fault(A, S)).toBe('none');
  });

  it('U: mcounteren, then scounteren (both illegal)', () => {
    expect(withEnables(0n, B3, B3).fault(A, U)).toBe('illegal');
    expect(withEnables(B3, B3, 0n).fault(A, U)).toBe('illegal');
    expect(withEnables(B3, 0n, B3).fault(A, U)).toBe('none'); // hcounteren does not matter with V = 0
  });

  it('VS: mcounteren clear illegal, then hcounteren clear virtual; scounteren does not matter', () => {
    expect(withEnables(0n, B3, B3).fault(A, S, true)).toBe('illegal');
    expect(withEnables(B3, 0n, B3).fault(A, S, true)).toBe('virtual');
    expect(withEnables(B3, B3, 0n).fault(A, S, true)).toBe('none');
  });

  it('VU: mcounteren clear illegal; hcounteren clear virtual; scounteren clear virtual', () => {
    expect(withEnables(0n, B3, B3).fault(A, U, true)).toBe('illegal');
    expect(withEnables(0n, 0n, 0n).fault(A, U, true)).toBe('illegal');
    expect(withEnables(B3, 0n, B3).fault(A, U, true)).toBe('virtual');
    expect(withEnables(B3, 0n, 0n).fault(A, U, true)).toBe('virtual');
    expect(withEnables(B3, B3, 0n).fault(A, U, true)).toBe('virtual');
    expect(withEnables(B3, B3, B3).fault(A, U, true)).toBe('none');
  });

  it('each counter has its own bit: cycle bit 0, instret bit 2, the RV32 high halves the bit of their counter', () => {
    const h = withEnables(0x5n, 0x5n, 0x5n, { xlen: 32 });
    expect(h.fault(CYCLE, U)).toBe('none');
    expect(h.fault(INSTRET, U, true)).toBe('none');
    expect(h.fault(HPMCOUNTERH(0), U)).toBe('none');
    expect(h.fault(HPMCOUNTERH(2), S, true)).toBe('none');
    expect(h.fault(A, U)).toBe('illegal');
    expect(h.fault(HPMCOUNTERH(3), S)).toBe('illegal');
  });

  it('without S-mode, U needs only mcounteren', () => {
    const h = withEnables(B3, 0n, 0n, { sMode: false, hExt: false });
    expect(h.fault(A, U)).toBe('none');
    expect(h.fault(HPMCOUNTER(4), U)).toBe('illegal');
  });

  it('the bit of an unimplemented counter is read-only 0, so its user counter is illegal below M', () => {
    const h = withEnables(ONES, ONES, ONES, { counterMask: 0x18 });
    expect(h.fault(HPMCOUNTER(4), U)).toBe('none');
    expect(h.fault(HPMCOUNTER(5), U)).toBe('illegal');
    expect(h.fault(HPMCOUNTER(5), M)).toBe('none');
  });

  it('user counters read the machine counters', () => {
    const h = withEnables(ONES, ONES, ONES);
    h.write(MHPMCOUNTER(3), 0x1234n);
    h.write(MCYCLE, 0x42n);
    expect(h.read(A, U, true)).toBe(0x1234n);
    expect(h.read(CYCLE, U)).toBe(0x42n);
  });
});

describe('WARL', () => {
  it('mhpmevent: OF, the five inhibits and the 20 selector bits', () => {
    const h = new Harness();
    h.write(MHPMEVENT(3), ONES);
    expect(h.read(MHPMEVENT(3))).toBe(0xfc00_0000_000f_ffffn);
  });

  it('mhpmevent: the inhibit bits of missing modes read 0', () => {
    const noH = new Harness({ hExt: false });
    noH.write(MHPMEVENT(3), ONES);
    expect(noH.read(MHPMEVENT(3))).toBe(0xf000_0000_000f_ffffn);
    const mu = new Harness({ sMode: false, hExt: false });
    mu.write(MHPMEVENT(3), ONES);
    expect(mu.read(MHPMEVENT(3))).toBe(0xd000_0000_000f_ffffn); // OF, MINH, UINH
    const mOnly = new Harness({ sMode: false, uMode: false, hExt: false });
    mOnly.write(MHPMEVENT(3), ONES);
    expect(mOnly.read(MHPMEVENT(3))).toBe(0xc000_0000_000f_ffffn);
  });

  it('mhpmevent without Sscofpmf: the selector only; with 64 selector bits everything', () => {
    const h = new Harness({ sscofpmf: false });
    h.write(MHPMEVENT(3), ONES);
    expect(h.read(MHPMEVENT(3))).toBe(0xf_ffffn);
    const w = new Harness({ sscofpmf: false, eventBits: 64 });
    w.write(MHPMEVENT(3), ONES);
    expect(w.read(MHPMEVENT(3))).toBe(ONES);
  });

  it('mhpmevent clamp', () => {
    const h = new Harness({ eventBits: 8, eventLegalisation: 'clamp', eventMax: 0x40n });
    h.write(MHPMEVENT(3), 0x41n);
    expect(h.read(MHPMEVENT(3))).toBe(0x40n);
    h.write(MHPMEVENT(3), 0x3fn | OF);
    expect(h.read(MHPMEVENT(3))).toBe(0x3fn | OF);
    h.write(MHPMEVENT(3), 0xffn | MINH);
    expect(h.read(MHPMEVENT(3))).toBe(0x40n | MINH);
  });

  it('mhpmevent hardwired: the map in order from reset on; writes change only the Sscofpmf bits', () => {
    const h = new Harness({ eventLegalisation: 'hardwired' });
    expect(h.read(MHPMEVENT(3))).toBe(0x1n);
    expect(h.read(MHPMEVENT(4))).toBe(0x2n);
    expect(h.read(MHPMEVENT(21))).toBe(0n);
    h.write(MHPMEVENT(3), 0n);
    expect(h.read(MHPMEVENT(3))).toBe(0x1n);
    h.write(MHPMEVENT(3), ONES);
    expect(h.read(MHPMEVENT(3))).toBe(0xfc00_0000_0000_0001n);
  });

  it('unimplemented counters: mhpmcounter and mhpmevent read 0 and ignore writes', () => {
    const h = new Harness({ counterMask: 0x18 });
    h.write(MHPMCOUNTER(5), ONES);
    h.write(MHPMEVENT(5), ONES);
    expect(h.read(MHPMCOUNTER(5))).toBe(0n);
    expect(h.read(MHPMEVENT(5))).toBe(0n);
    expect(h.read(HPMCOUNTER(5))).toBe(0n);
  });

  it('mcountinhibit: CY, IR and the implemented counters; TM reads 0', () => {
    const h = new Harness();
    h.write(MCOUNTINHIBIT, ONES);
    expect(h.read(MCOUNTINHIBIT)).toBe(0xffff_fffdn);
    const g = new Harness({ counterMask: 0x18 });
    g.write(MCOUNTINHIBIT, ONES);
    expect(g.read(MCOUNTINHIBIT)).toBe(0x1dn);
  });

  it('mcounteren, scounteren, hcounteren: CY, TM, IR and the implemented counters', () => {
    for (const a of [MCOUNTEREN, SCOUNTEREN, HCOUNTEREN]) {
      const h = new Harness();
      h.write(a, ONES);
      expect(h.read(a)).toBe(0xffff_ffffn);
      const g = new Harness({ counterMask: 0x18 });
      g.write(a, ONES);
      expect(g.read(a)).toBe(0x1fn);
    }
  });

  it('csrrs / csrrc: only the wmask bits change', () => {
    const h = new Harness();
    h.write(MCOUNTINHIBIT, ONES, { wmask: 0x8n });
    h.write(MCOUNTINHIBIT, ONES, { wmask: 0x10n });
    expect(h.read(MCOUNTINHIBIT)).toBe(0x18n);
    h.write(MCOUNTINHIBIT, 0n, { wmask: 0x8n });
    expect(h.read(MCOUNTINHIBIT)).toBe(0x10n);
    h.write(MHPMEVENT(3), 0x12n);
    h.write(MHPMEVENT(3), ONES, { wmask: OF });
    expect(h.read(MHPMEVENT(3))).toBe(OF | 0x12n);
  });

  it('mcyclecfg / minstretcfg: the inhibit bits of the modes the hart has; bit 63 and the rest read 0', () => {
    const h = new Harness();
    h.write(MCYCLECFG, ONES);
    h.write(MINSTRETCFG, ONES);
    expect(h.read(MCYCLECFG)).toBe(0x7c00_0000_0000_0000n);
    expect(h.read(MINSTRETCFG)).toBe(0x7c00_0000_0000_0000n);
    const g = new Harness({ hExt: false });
    g.write(MCYCLECFG, ONES);
    expect(g.read(MCYCLECFG)).toBe(0x7000_0000_0000_0000n);
  });

  it('counterWidth: the upper bits of the hpm counters read 0; mcycle and minstret have 64 bits', () => {
    const h = new Harness({ counterWidth: 40 });
    h.write(MHPMCOUNTER(3), ONES);
    h.write(MCYCLE, ONES);
    h.write(MINSTRET, ONES);
    expect(h.read(MHPMCOUNTER(3))).toBe(0xff_ffff_ffffn);
    expect(h.read(MCYCLE)).toBe(ONES);
    expect(h.read(MINSTRET)).toBe(ONES);
  });
});

describe('RV32 halves', () => {
  it('mcycle / mcycleh and their user views', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCYCLE, 0x1234_5678n);
    h.write(MCYCLEH, 0x9abc_def0n);
    expect(h.unit.state().counters[0]).toBe(0x9abc_def0_1234_5678n);
    expect(h.read(MCYCLE)).toBe(0x1234_5678n);
    expect(h.read(MCYCLEH)).toBe(0x9abc_def0n);
    expect(h.read(CYCLE)).toBe(0x1234_5678n);
    expect(h.read(HPMCOUNTERH(0))).toBe(0x9abc_def0n);
  });

  it('write data above bit 31 is ignored', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCOUNTINHIBIT, ONES);
    expect(h.read(MCOUNTINHIBIT)).toBe(0xffff_fffdn);
    h.write(MHPMCOUNTER(3), 0x5_0000_0007n);
    expect(h.unit.state().counters[3]).toBe(0x7n);
  });

  it('mhpmevent / mhpmeventh: each write changes its half only', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MHPMEVENTH(3), ONES32);
    expect(h.read(MHPMEVENTH(3))).toBe(0xfc00_0000n); // bits 63..58
    expect(h.read(MHPMEVENT(3))).toBe(0n);
    h.write(MHPMEVENT(3), ONES32);
    expect(h.read(MHPMEVENT(3))).toBe(0x000f_ffffn);
    expect(h.read(MHPMEVENTH(3))).toBe(0xfc00_0000n);
    h.write(MHPMEVENTH(3), 0n);
    expect(h.unit.state().events[3]).toBe(0xf_ffffn);
  });

  it('a half is legalised together with the other half: clamp over 40 selector bits', () => {
    const h = new Harness({ xlen: 32, eventBits: 40, eventLegalisation: 'clamp', eventMax: 0x1_0000_0000n });
    h.write(MHPMEVENT(3), ONES32);
    expect(h.unit.state().events[3]).toBe(0xffff_ffffn);
    h.write(MHPMEVENTH(3), 0x1n); // 0x1_ffff_ffff > eventMax: the selector becomes 0x1_0000_0000
    expect(h.read(MHPMEVENTH(3))).toBe(0x1n);
    expect(h.read(MHPMEVENT(3))).toBe(0n);
  });

  it('mcyclecfg holds bits 31..0 (all 0), mcyclecfgh bits 63..32', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCYCLECFG, ONES32);
    h.write(MCYCLECFGH, ONES32);
    h.write(MINSTRETCFGH, ONES32);
    expect(h.read(MCYCLECFG)).toBe(0n);
    expect(h.read(MCYCLECFGH)).toBe(0x7c00_0000n);
    expect(h.read(MINSTRETCFGH)).toBe(0x7c00_0000n);
  });

  it('the RV32 MCU block (counters 3..6, 40 bits, no Sscofpmf/Smcntrpmf/H)', () => {
    const h = new Harness(RV32_MCU);
    h.write(MHPMCOUNTERH(3), ONES32);
    h.write(MHPMCOUNTER(3), ONES32);
    expect(h.read(MHPMCOUNTERH(3))).toBe(0xffn);
    expect(h.read(MHPMCOUNTER(3))).toBe(0xffff_ffffn);
    h.write(MHPMCOUNTER(7), ONES32);
    h.write(MHPMCOUNTERH(7), ONES32);
    expect(h.read(MHPMCOUNTER(7))).toBe(0n);
    expect(h.read(MHPMCOUNTERH(7))).toBe(0n);
    h.write(MCOUNTINHIBIT, ONES32);
    expect(h.read(MCOUNTINHIBIT)).toBe(0x7dn);
    h.write(MCOUNTEREN, ONES32);
    expect(h.read(MCOUNTEREN)).toBe(0x7fn);
    h.write(MHPMEVENT(3), ONES32);
    expect(h.read(MHPMEVENT(3))).toBe(0xf_ffffn);
    for (const a of [MHPMEVENTH(3), HCOUNTEREN, SCOUNTOVF, MCYCLECFG, MCYCLECFGH]) expect(h.fault(a, M), a.toString(16)).toBe('illegal');
  });
});
