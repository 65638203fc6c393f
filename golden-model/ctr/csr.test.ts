/**
 * Directed tests for the CSR rows of the checklist (ctr.md): WARL legalisation of every field,
 * DEPTH and its discovery, WRPTR after depth changes, the indirect entry window, RV32 `h` halves,
 * privilege and state-enable exceptions, for both spec versions. Expected values are worked out
 * by hand from the field positions the spec gives (quoted in recording.test.ts's header).
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../common/rng.ts';
import { b, config, Harness, insn, M, S, U } from './test-helpers.ts';
import { CtrUnit } from './unit.ts';

const ONES = (1n << 64n) - 1n;
const ONES32 = 0xffff_ffffn;

// v0.1.4 (§2.6) and 1.0 CSR numbers; Smcsrind numbers.
const MCTRCONTROL = 0x381, MCTRCONTROLH = 0x382, MCTRSTATUS = 0x383;
const SCTRCONTROL = 0x181, SCTRCONTROLH = 0x182, SCTRSTATUS014 = 0x183;
const VSCTRCONTROL = 0x281, VSCTRCONTROLH = 0x282;
const MCTRCTL = 0x34e, SCTRCTL = 0x14e, SCTRSTATUS = 0x14f, SCTRDEPTH = 0x15f, VSCTRCTL = 0x24e;
const MISELECT = 0x350, MIREG = 0x351, MIREG3 = 0x353, MIREG4 = 0x355, MIREG6 = 0x357;
const SISELECT = 0x150, SIREG = 0x151, VSISELECT = 0x250, VSIREG = 0x251;

const STATEEN_CTR_014 = 55;
const STATEEN_CTR_10 = 54;
const STATEEN_CSRIND = 60;

describe('WARL legalisation: writing all ones reads back the implemented fields (chapter 6, Discovery)', () => {
  it('v0.1.4 mctrcontrol, every optional field implemented', () => {
    const h = new Harness();
    h.write(MCTRCONTROL, ONES);
    // M S U = 0x7; MTE STE RASEMU BPFRZ LCOFIFRZ = bits 8..12 = 0x1F00; DEPTH 1111 (256) = 0xF0000;
    // CLR reads 0; EXCINH..ETEN = bits 33..38 = 0x7E << 32; INDCALLINH..DIROJMPINH = bits 40..47 = 0xFF00 << 32.
    expect(h.read(MCTRCONTROL)).toBe(0x0000_ff7e_000f_1f07n);
  });

  it('v0.1.4 sctrcontrol: M (bit 0) and MTE (bit 8) are read-only 0 and stay untouched in mctrcontrol', () => {
    const h = new Harness();
    h.write(SCTRCONTROL, ONES, S);
    expect(h.read(SCTRCONTROL, S)).toBe(0x0000_ff7e_000f_1e06n);
    expect(h.read(MCTRCONTROL)).toBe(0x0000_ff7e_000f_1e06n);
    h.write(MCTRCONTROL, b(0) | b(8));
    h.write(SCTRCONTROL, 0n, S);
    expect(h.read(MCTRCONTROL)).toBe(b(0) | b(8)); // DEPTH 0000 = 16 again
  });

  it('v0.1.4 vsctrcontrol: VS 1, VU 2, VSTE 9, RASEMU, BPFRZ, LCOFIFRZ, filters; DEPTH a read-only copy', () => {
    const h = new Harness({ hExt: true });
    h.write(MCTRCONTROL, 0b0011n << 16n); // DEPTH 64
    h.write(VSCTRCONTROL, ONES);
    expect(h.read(VSCTRCONTROL)).toBe(0x0000_ff7e_0003_1e06n); // DEPTH field = mctrcontrol's 0011
    h.write(VSCTRCONTROL, 0n);
    expect(h.read(MCTRCONTROL) >> 16n).toBe(0b0011n); // a vsctrcontrol write does not change DEPTH
  });

  it('v0.1.4 with no optional field: only M, S, U, DEPTH', () => {
    const h = new Harness({ rasemu: false, bpfrz: false, lcofifrz: false, externalTraps: false, filterMask: 0 });
    h.write(MCTRCONTROL, ONES);
    expect(h.read(MCTRCONTROL)).toBe(0xf_0007n);
  });

  it('v0.1.4 M-only hart: S and U read-only 0, sctrcontrol does not exist', () => {
    const h = new Harness({ sMode: false, uMode: false });
    h.write(MCTRCONTROL, 0x7n);
    expect(h.read(MCTRCONTROL)).toBe(0x1n);
    expect(h.fault(SCTRCONTROL, M)).toBe('illegal'); // §2.2: "If S-mode is not implemented, access to sctrcontrol(h) results in an illegal instruction exception."
    expect(h.fault(SISELECT, M)).toBe('illegal');
  });

  it('v0.1.4 filterMask selects the filter bits; ETEN comes with externalTraps', () => {
    const h = new Harness({ filterMask: (1 << 4) | (1 << 13), externalTraps: false });
    h.write(MCTRCONTROL, ONES);
    expect(h.read(MCTRCONTROL) >> 32n).toBe(b(4) | b(13)); // NTBREN 36, RETINH 45
  });

  it('1.0 mctrctl / sctrctl / vsctrctl', () => {
    const h = new Harness({ specVersion: '1.0', hExt: true });
    h.write(MCTRCTL, ONES);
    // U S M 0..2 = 0x7; RASEMU 7 = 0x80; STE 8, MTE 9 = 0x300; BPFRZ 11, LCOFIFRZ 12 = 0x1800;
    // filters 33..37 = 0x3E << 32, 40..47 = 0xFF00 << 32; custom 63:60 read-only 0.
    expect(h.read(MCTRCTL)).toBe(0x0000_ff3e_0000_1b87n);
    expect(h.read(SCTRCTL, S)).toBe(0x0000_ff3e_0000_1983n); // M (2) and MTE (9) read-only 0
    h.write(VSCTRCTL, ONES);
    expect(h.read(VSCTRCTL)).toBe(0x0000_ff3e_0000_1983n); // U 0, S 1, RASEMU 7, STE 8, BPFRZ 11, LCOFIFRZ 12
    h.write(SCTRCTL, 0n, S);
    expect(h.read(MCTRCTL)).toBe(b(2) | b(9));
  });

  it('status: v0.1.4 WRPTR 7:0 (bits above depth-1 read-only 0), WRAP 14, FROZEN 15; 1.0 WRPTR, FROZEN 31', () => {
    const h = new Harness();
    h.write(MCTRSTATUS, ONES);
    expect(h.read(MCTRSTATUS)).toBe(0xc00fn); // depth 16: WRPTR bits 7:4 read-only 0
    expect(h.read(SCTRSTATUS014, S)).toBe(0xc00fn); // §2.5: "an S-mode and VS-mode (writable) alias to mctrstatus"
    h.write(SCTRSTATUS014, 0x3n, S);
    expect(h.read(MCTRSTATUS)).toBe(0x3n);
    const g = new Harness({ specVersion: '1.0' });
    g.write(SCTRSTATUS, ONES);
    expect(g.read(SCTRSTATUS)).toBe(0x8000_000fn);
  });

  it('entry registers: ctrsource all bits, ctrtarget MISP only when implemented, ctrdata TYPE CCV CC', () => {
    const h = new Harness();
    h.write(MISELECT, 0x200n);
    h.write(MIREG, ONES);
    h.write(MIREG + 1, ONES);
    h.write(MIREG3, ONES);
    expect([h.read(MIREG), h.read(MIREG + 1), h.read(MIREG3)]).toEqual([ONES, ONES, 0xffff_800fn]); // CCE 4 bits
    const g = new Harness({ misp: false, cceBits: 2 });
    g.write(MISELECT, 0x200n);
    g.write(MIREG + 1, ONES);
    g.write(MIREG3, ONES);
    expect(g.read(MIREG + 1)).toBe(ONES - 1n);
    expect(g.read(MIREG3)).toBe(0x3fff_800fn); // CCE[1:0] only: data bits 29:28
    const n = new Harness({ typeField: false, cycleCounting: false, cceBits: 0 });
    n.write(MISELECT, 0x200n);
    n.write(MIREG3, ONES);
    expect(n.read(MIREG3)).toBe(0n); // "all fields within it are optional. Unimplemented fields are read-only 0"
  });

  it('mireg4..mireg6 are read-only 0 for CTR selects (chapter 3)', () => {
    const h = new Harness();
    h.write(MISELECT, 0x200n);
    h.write(MIREG4, ONES);
    expect(h.read(MIREG4)).toBe(0n);
    expect(h.read(MIREG6)).toBe(0n);
  });

  it('every control, status and depth CSR is idempotent under its own read-back (random writes, seed 4242)', () => {
    const seed = 4242;
    const rng = new Rng(seed);
    for (const [version, csrs] of [['0.1.4', [MCTRCONTROL, SCTRCONTROL, VSCTRCONTROL, MCTRSTATUS]], ['1.0', [MCTRCTL, SCTRCTL, VSCTRCTL, SCTRSTATUS, SCTRDEPTH]]] as const) {
      for (const depthLegalisation of ['clamp', 'keep'] as const) {
        const h = new Harness({ specVersion: version, hExt: true, depthMin: 32, depthMax: 128, resetDepth: 32, depthLegalisation });
        for (let i = 0; i < 200; i++) {
          const csr = rng.pick(csrs);
          h.write(csr, rng.u64());
          const r1 = h.read(csr);
          h.write(csr, r1);
          expect(h.read(csr), `seed ${seed}, ${version}, csr 0x${csr.toString(16)}, iteration ${i}`).toBe(r1);
        }
      }
    }
  });
});

describe('DEPTH and discovery', () => {
  const depthField = (h: Harness): number => Number((h.read(MCTRCONTROL) >> 16n) & 0xfn);

  it('v0.1.4 chapter 6: write 0000 reads the minimum, 1111 the maximum supported depth', () => {
    const h = new Harness({ depthMin: 32, depthMax: 128, resetDepth: 32 });
    h.write(MCTRCONTROL, 0n);
    expect(depthField(h)).toBe(0b0001); // 32
    h.write(MCTRCONTROL, 0xfn << 16n);
    expect(depthField(h)).toBe(0b0111); // 128
    h.write(MCTRCONTROL, 0b0011n << 16n);
    expect(depthField(h)).toBe(0b0011); // 64, supported
    expect(h.unit.depth).toBe(64);
  });

  it('v0.1.4 other encodings: clamp reads the highest set bit; keep leaves DEPTH unchanged', () => {
    const c = new Harness({ depthMin: 32, depthMax: 128, resetDepth: 32, depthLegalisation: 'clamp' });
    c.write(MCTRCONTROL, 0b0010n << 16n);
    expect(depthField(c)).toBe(0b0011); // 001x -> 64
    c.write(MCTRCONTROL, 0b1000n << 16n);
    expect(depthField(c)).toBe(0b0111); // 1xxx -> 256, clamped to 128
    const k = new Harness({ depthMin: 32, depthMax: 128, resetDepth: 32, depthLegalisation: 'keep' });
    k.write(MCTRCONTROL, 0b0011n << 16n);
    k.write(MCTRCONTROL, 0b0010n << 16n);
    expect(depthField(k)).toBe(0b0011); // not an encoding: unchanged
    k.write(MCTRCONTROL, 0b1111n << 16n);
    expect(depthField(k)).toBe(0b0111); // the discovery writes still work
    k.write(MCTRCONTROL, 0b0000n << 16n);
    expect(depthField(k)).toBe(0b0001);
  });

  it('1.0 sctrdepth: DEPTH[2:0] 0..4 = 16..256, 11x reserved, WPRI bits read 0', () => {
    const c = new Harness({ specVersion: '1.0', depthMin: 32, depthMax: 128, resetDepth: 32 });
    c.write(SCTRDEPTH, 0n, S);
    expect(c.read(SCTRDEPTH, S)).toBe(1n);
    c.write(SCTRDEPTH, ONES32, S);
    expect(c.read(SCTRDEPTH, S)).toBe(3n); // 111 reads as above 256, clamped to 128
    c.write(SCTRDEPTH, 2n, S);
    expect(c.read(SCTRDEPTH, S)).toBe(2n);
    expect(c.unit.depth).toBe(64);
    const k = new Harness({ specVersion: '1.0', depthMin: 32, depthMax: 128, resetDepth: 32, depthLegalisation: 'keep' });
    k.write(SCTRDEPTH, 7n, S);
    expect(k.read(SCTRDEPTH, S)).toBe(1n);
    k.write(SCTRDEPTH, 4n, S);
    expect(k.read(SCTRDEPTH, S)).toBe(1n);
  });

  it('WRPTR after a depth change: mask keeps the low bits, zero clears it', () => {
    for (const [policy, expected] of [['mask', 4n], ['zero', 0n]] as const) {
      const h = new Harness({ wrptrOnDepthChange: policy });
      h.write(MCTRCONTROL, 0b0001n << 16n); // 32
      h.write(MCTRSTATUS, 20n);
      expect(h.read(MCTRSTATUS)).toBe(20n);
      h.write(MCTRCONTROL, 0n); // 16: 20 & 15 = 4
      expect(h.read(MCTRSTATUS), policy).toBe(expected);
    }
  });

  it('newly exposed entries: keep retains them, zero clears them', () => {
    for (const policy of ['keep', 'zero'] as const) {
      const h = new Harness({ entriesOnDepthChange: policy });
      h.write(MCTRCONTROL, 0b0001n << 16n); // 32
      h.write(MISELECT, 0x200n + 20n); // logical 20 = physical (0 - 1 - 20) mod 32 = 11
      h.write(MIREG, 0x1235n);
      h.write(MISELECT, 0x200n + 5n); // logical 5 = physical 26
      h.write(MIREG, 0x5679n);
      h.write(MCTRCONTROL, 0n); // 16
      h.write(MCTRCONTROL, 0b0001n << 16n); // 32 again: physical 16..31 newly exposed
      const p = h.unit.physicalEntries();
      expect(p[11]!.source, policy).toBe(0x1235n);
      expect(p[26]!.source, policy).toBe(policy === 'keep' ? 0x5679n : 0n);
    }
  });

  it('entries at or above the depth read 0 and ignore writes', () => {
    const h = new Harness();
    h.write(MISELECT, 0x200n + 16n); // depth 16
    h.write(MIREG, ONES);
    expect(h.read(MIREG)).toBe(0n);
    expect(h.unit.physicalEntries().every((e) => e.source === 0n)).toBe(true);
  });

  it('logical entry x is physical (WRPTR - 1 - x) mod depth', () => {
    const h = new Harness();
    h.write(MCTRSTATUS, 3n);
    h.write(MISELECT, 0x200n);
    h.write(MIREG, 0xaaan);
    h.write(MISELECT, 0x205n);
    h.write(MIREG, 0xbbbn);
    const p = h.unit.physicalEntries();
    expect(p[2]!.source).toBe(0xaaan); // (3 - 1 - 0) mod 16
    expect(p[13]!.source).toBe(0xbbbn); // (3 - 1 - 5) mod 16 = 13
  });
});

describe('CSR existence and privilege', () => {
  it('a CSR the unit does not implement raises illegal instruction and reads 0', () => {
    const h = new Harness({ hExt: true });
    for (const csr of [0x7c0, 0x354, MCTRCONTROLH, MCTRCTL, SCTRDEPTH]) {
      const r = h.access(csr, false, 0n, M);
      expect(r, `0x${csr.toString(16)}`).toEqual({ rdata: 0n, illegalInstruction: true, virtualInstruction: false });
    }
    const g = new Harness({ specVersion: '1.0' });
    for (const csr of [MCTRCONTROL, MISELECT, MIREG, VSCTRCTL, 0x382]) expect(g.fault(csr, M), `0x${csr.toString(16)}`).toBe('illegal');
  });

  it('*ireg* with a select outside 0x200..0x2FF raise illegal instruction (Smcsrind recommendation)', () => {
    const h = new Harness();
    h.write(MISELECT, 0x1ffn);
    expect(h.fault(MIREG, M)).toBe('illegal');
    expect(h.fault(MIREG4, M)).toBe('illegal');
    h.write(MISELECT, 0x300n);
    expect(h.fault(MIREG3, M)).toBe('illegal');
    h.write(MISELECT, 0x2ffn);
    expect(h.fault(MIREG, M)).toBe('none');
  });

  it('privilege levels: U none, S the S-level CSRs, HS also the VS ones, M everything', () => {
    const h = new Harness({ hExt: true });
    expect(h.fault(SCTRCONTROL, U)).toBe('illegal');
    expect(h.fault(SCTRSTATUS014, U)).toBe('illegal');
    expect(h.fault(SISELECT, U)).toBe('illegal');
    expect(h.fault(MCTRCONTROL, S)).toBe('illegal');
    expect(h.fault(MCTRSTATUS, S)).toBe('illegal');
    expect(h.fault(MISELECT, S)).toBe('illegal');
    expect(h.fault(SCTRCONTROL, S)).toBe('none');
    expect(h.fault(VSCTRCONTROL, S)).toBe('none');
    expect(h.fault(VSISELECT, S)).toBe('none');
    expect(h.fault(SCTRCONTROL, M)).toBe('none');
  });

  it('V=1: VS reaches sctrcontrol (= vsctrcontrol) and sctrstatus; VS/VU direct VS CSRs and VU S CSRs are virtual; M CSRs illegal', () => {
    const h = new Harness({ hExt: true });
    expect(h.fault(VSCTRCONTROL, S, true)).toBe('virtual');
    expect(h.fault(VSISELECT, S, true)).toBe('virtual');
    expect(h.fault(SCTRCONTROL, U, true)).toBe('virtual');
    expect(h.fault(SISELECT, U, true)).toBe('virtual');
    expect(h.fault(MCTRCONTROL, S, true)).toBe('illegal');
    h.write(SCTRCONTROL, b(1) | b(2), S, true); // VS, VU in vsctrcontrol
    expect(h.read(VSCTRCONTROL)).toBe(b(1) | b(2));
    expect(h.read(MCTRCONTROL)).toBe(0n);
    expect(h.fault(SCTRSTATUS014, S, true)).toBe('none');
  });

  it('V=1: sireg* reach the same entries through vsiselect (chapter 3: no separate entries for V=1)', () => {
    const h = new Harness({ hExt: true });
    h.write(MISELECT, 0x203n);
    h.write(MIREG, 0x4445n);
    h.write(SISELECT, 0x203n, S, true); // really vsiselect
    expect(h.read(VSISELECT)).toBe(0x203n);
    expect(h.read(SISELECT)).toBe(0n);
    expect(h.read(SIREG, S, true)).toBe(0x4445n);
    expect(h.read(VSIREG, S)).toBe(0x4445n);
  });

  it('1.0: sctrdepth from VS-mode or VU-mode raises virtual instruction', () => {
    const h = new Harness({ specVersion: '1.0', hExt: true });
    expect(h.fault(SCTRDEPTH, S, true)).toBe('virtual');
    expect(h.fault(SCTRDEPTH, U, true)).toBe('virtual');
    expect(h.fault(SCTRDEPTH, S)).toBe('none');
    expect(h.fault(SCTRDEPTH, U)).toBe('illegal');
    expect(h.fault(SCTRCTL, S, true)).toBe('none'); // = vsctrctl
  });

  it('1.0 SCTRCLR: illegal in U-mode, virtual in VU-mode; no such instruction in v0.1.4', () => {
    const clr = (h: Harness, priv: number, v = false): string => {
      const r = h.step({ csr: { address: 0, write: false, wdata: 0n, priv, v, sctrclr: true } }).csr!;
      return r.illegalInstruction ? 'illegal' : r.virtualInstruction ? 'virtual' : 'none';
    };
    const h = new Harness({ specVersion: '1.0', hExt: true });
    expect([clr(h, U), clr(h, U, true), clr(h, S), clr(h, S, true), clr(h, M)]).toEqual(['illegal', 'virtual', 'none', 'none', 'none']);
    expect(clr(new Harness(), M)).toBe('illegal');
  });
});

describe('state-enable access control (v0.1.4 chapter 4, bit 55; 1.0 bit 54)', () => {
  it('v0.1.4 mstateen0.CTR=0: S-mode access to sctrcontrol, sctrstatus, sireg* in range is illegal; M-mode unaffected', () => {
    const h = new Harness({ hExt: true });
    h.mstateen0 = ONES & ~b(STATEEN_CTR_014);
    expect(h.fault(SCTRCONTROL, S)).toBe('illegal');
    expect(h.fault(SCTRCONTROLH, S)).toBe('illegal'); // RV64: does not exist anyway
    expect(h.fault(SCTRSTATUS014, S)).toBe('illegal');
    expect(h.fault(VSCTRCONTROL, S)).toBe('illegal');
    h.write(SISELECT, 0x200n, S); // siselect itself is not CTR state
    expect(h.fault(SIREG, S)).toBe('illegal');
    h.write(VSISELECT, 0x200n, S);
    expect(h.fault(VSIREG, S)).toBe('illegal');
    expect(h.fault(SCTRCONTROL, M)).toBe('none');
    expect(h.fault(SIREG, M)).toBe('none');
    h.mstateen0 = ONES & ~b(STATEEN_CTR_10); // bit 54 means nothing in v0.1.4
    expect(h.fault(SCTRCONTROL, S)).toBe('none');
  });

  it('v0.1.4 mstateen0.CTR=0: qualified transfers below M still update the entries (chapter 4)', () => {
    const h = new Harness();
    h.mstateen0 = ONES & ~b(STATEEN_CTR_014);
    h.write(MCTRCONTROL, b(1));
    h.priv = S;
    h.at(0x1000n, 11);
    h.at(0x2000n);
    expect(h.read(MCTRSTATUS)).toBe(1n);
  });

  it('1.0 mstateen0.CTR (bit 54)=0: sctrctl, sctrstatus, sctrdepth, sireg*, SCTRCLR illegal below M', () => {
    const h = new Harness({ specVersion: '1.0' });
    h.mstateen0 = ONES & ~b(STATEEN_CTR_10);
    for (const csr of [SCTRCTL, SCTRSTATUS, SCTRDEPTH]) expect(h.fault(csr, S), `0x${csr.toString(16)}`).toBe('illegal');
    h.write(SISELECT, 0x2a0n, S);
    expect(h.fault(SIREG, S)).toBe('illegal');
    const r = h.step({ csr: { address: 0, write: false, wdata: 0n, priv: S, sctrclr: true } }).csr!;
    expect(r.illegalInstruction).toBe(true);
    h.mstateen0 = ONES & ~b(STATEEN_CTR_014); // bit 55 means nothing in 1.0
    expect(h.fault(SCTRCTL, S)).toBe('none');
  });

  it('H: mstateen0.CTR=1, hstateen0.CTR=0: VS accesses that would succeed raise virtual, others illegal', () => {
    for (const [version, bitNo, ctl, status] of [['0.1.4', STATEEN_CTR_014, SCTRCONTROL, SCTRSTATUS014], ['1.0', STATEEN_CTR_10, SCTRCTL, SCTRSTATUS]] as const) {
      const h = new Harness({ specVersion: version, hExt: true });
      h.hstateen0 = ONES & ~b(bitNo);
      expect(h.fault(ctl, S, true), version).toBe('virtual');
      expect(h.fault(status, S, true), version).toBe('virtual');
      h.write(SISELECT, 0x200n, S, true); // vsiselect: not gated by the CTR bit
      expect(h.fault(SIREG, S, true), version).toBe('virtual');
      h.write(SISELECT, 0x100n, S, true);
      expect(h.fault(SIREG, S, true), version).toBe('illegal'); // would not have completed anyway
      expect(h.fault(ctl, S), version).toBe('none'); // hstateen0 only concerns V=1
      h.mstateen0 = ONES & ~b(bitNo);
      expect(h.fault(ctl, S, true), version).toBe('illegal');
    }
  });

  it('1.0 SCTRCLR from VS with hstateen0.CTR=0 raises virtual instruction', () => {
    const h = new Harness({ specVersion: '1.0', hExt: true });
    h.hstateen0 = ONES & ~b(STATEEN_CTR_10);
    const r = h.step({ csr: { address: 0, write: false, wdata: 0n, priv: S, v: true, sctrclr: true } }).csr!;
    expect(r.virtualInstruction).toBe(true);
  });

  it('Smcsrind bit 60: mstateen0[60]=0 makes *iselect/*ireg* illegal below M; hstateen0[60]=0 makes them virtual for V=1', () => {
    const h = new Harness({ hExt: true });
    h.mstateen0 = ONES & ~b(STATEEN_CSRIND);
    expect(h.fault(SISELECT, S)).toBe('illegal');
    expect(h.fault(VSISELECT, S)).toBe('illegal');
    expect(h.fault(SISELECT, S, true)).toBe('illegal');
    expect(h.fault(MISELECT, M)).toBe('none');
    expect(h.fault(SCTRCONTROL, S)).toBe('none');
    // With mstateen0[60]=1, VU access to sireg* is virtual "regardless of any other mstateen
    // bits", even when mstateen0.CTR=0 would make it illegal in S-mode.
    h.mstateen0 = ONES;
    h.write(SISELECT, 0x200n, S, true);
    h.mstateen0 = ONES & ~b(STATEEN_CTR_014);
    expect(h.fault(SIREG, U, true)).toBe('virtual');
    expect(h.fault(SIREG, S, true)).toBe('illegal');
    h.mstateen0 = ONES;
    h.hstateen0 = ONES & ~b(STATEEN_CSRIND);
    expect(h.fault(SISELECT, S, true)).toBe('virtual');
    expect(h.fault(SISELECT, S)).toBe('none');
  });

  it('without Smstateen the mstateen0/hstateen0 inputs are ignored', () => {
    const h = new Harness({ smstateen: false, hExt: true });
    h.mstateen0 = 0n;
    h.hstateen0 = 0n;
    expect(h.fault(SCTRCONTROL, S)).toBe('none');
    expect(h.fault(SCTRCONTROL, S, true)).toBe('none');
  });
});

describe('RV32', () => {
  it('v0.1.4 mctrcontrolh accesses bits 63:32 (§2.1: "In RV32, mctrcontrol[63:32] can be accessed via mctrcontrolh")', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCTRCONTROL, ONES);
    expect(h.read(MCTRCONTROL)).toBe(0x000f_1f07n);
    expect(h.read(MCTRCONTROLH)).toBe(0n);
    h.write(MCTRCONTROLH, ONES);
    expect(h.read(MCTRCONTROLH)).toBe(0xff7en);
    expect(h.read(MCTRCONTROL)).toBe(0x000f_1f07n); // the low half is untouched
    h.write(MCTRCONTROLH, b(41 - 32)); // DIRCALLINH only
    expect(h.read(MCTRCONTROLH)).toBe(0x200n);
  });

  it('v0.1.4 an h write changes the behaviour the upper bits control (DIRCALLINH)', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCTRCONTROL, b(0));
    h.write(MCTRCONTROLH, b(41 - 32));
    h.at(0x1000n, 9); // direct call: inhibited
    h.at(0x2000n, 8); // indirect call
    h.at(0x8000_3000n);
    expect(h.read(MCTRSTATUS)).toBe(1n);
    h.write(MISELECT, 0x200n);
    expect([h.read(MIREG), h.read(MIREG + 1)]).toEqual([0x2001n, 0x8000_3000n]);
  });

  it('v0.1.4 sctrcontrolh from S and vsctrcontrolh; from VS sctrcontrolh is vsctrcontrolh', () => {
    const h = new Harness({ xlen: 32, hExt: true });
    h.write(SCTRCONTROLH, ONES, S);
    expect(h.read(MCTRCONTROLH)).toBe(0xff7en);
    h.write(SCTRCONTROLH, b(4), S, true); // NTBREN in vsctrcontrol
    expect(h.read(VSCTRCONTROLH)).toBe(b(4));
    expect(h.read(MCTRCONTROLH)).toBe(0xff7en);
    h.write(VSCTRCONTROLH, 0n, S);
    expect(h.read(SCTRCONTROLH, S, true)).toBe(0n);
  });

  it('the h halves do not exist on RV64; 1.0 RV32 has no h halves and reads the low 32 bits of xctrctl', () => {
    const h = new Harness();
    expect(h.fault(MCTRCONTROLH, M)).toBe('illegal');
    expect(h.fault(SCTRCONTROLH, S)).toBe('illegal');
    const g = new Harness({ specVersion: '1.0', xlen: 32 });
    g.write(MCTRCTL, ONES);
    expect(g.read(MCTRCTL)).toBe(0x1b87n);
    expect(g.fault(MCTRCONTROLH, M)).toBe('illegal');
  });

  it('a write to an h half is a write to ctrcontrol: the next record has CCV=0', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCTRCONTROL, b(0));
    h.at(0x1000n, 11);
    h.at(0x2000n, 11);
    h.at(0x3000n, 11); // second record: CCV 1
    h.write(MCTRCONTROLH, 0n);
    h.at(0x4000n); // third record: CCV 0
    h.write(MISELECT, 0x201n);
    expect((h.read(MIREG3) >> 15n) & 1n).toBe(1n);
    h.write(MISELECT, 0x200n);
    expect((h.read(MIREG3) >> 15n) & 1n).toBe(0n);
  });

  it('RV32 addresses and data are 32 bits wide', () => {
    const h = new Harness({ xlen: 32 });
    h.write(MCTRCONTROL, b(0));
    h.rec(insn(0xffff_fffcn, 11));
    h.rec(insn(0x8000_0000n));
    h.write(MISELECT, 0x200n);
    expect(h.read(MIREG)).toBe(0xffff_fffdn);
    h.write(MIREG, ONES);
    expect(h.read(MIREG)).toBe(ONES32);
  });
});

describe('reset values', () => {
  it('everything 0 except DEPTH = resetDepth', () => {
    const u = new CtrUnit(config({ depthMin: 32, depthMax: 128, resetDepth: 64 }));
    const read = (address: number): bigint => u.step({ csr: { address, write: false, wdata: 0n, priv: M } }).csr!.rdata;
    expect(read(MCTRCONTROL)).toBe(0b0011n << 16n);
    expect(read(MCTRSTATUS)).toBe(0n);
    expect(read(MISELECT)).toBe(0n);
    expect(u.entries().length).toBe(64);
    expect(u.physicalEntries().length).toBe(128);
    expect(u.physicalEntries().every((e) => e.source === 0n && e.target === 0n && e.data === 0)).toBe(true);
  });
});
