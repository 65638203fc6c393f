import { describe, expect, it } from 'vitest';
import { csrName, memOpName, privName, regClass, regName, regNumber } from './names.ts';

describe('register names (Debug-spec numbering)', () => {
  it('GPRs by ABI and numeric name', () => {
    expect([0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1008, 0x100a, 0x101f].map((n) => regName(n))).toEqual(['zero', 'ra', 'sp', 'gp', 'tp', 's0', 'a0', 't6']);
    expect(regName(0x100a, 'numeric')).toBe('x10');
    expect(regNumber('a0')).toBe(0x100a);
    expect(regNumber('x31')).toBe(0x101f);
    expect(regNumber('fp')).toBe(0x1008);
  });

  it('FPRs', () => {
    expect(regName(0x1027)).toBe('ft7');
    expect(regName(0x102d)).toBe('fa3');
    expect(regName(0x1027, 'numeric')).toBe('f7');
    expect(regNumber('fa7')).toBe(0x1031);
  });

  it('CSRs named in the brief and the Appendix C tables', () => {
    const want: [number, string][] = [
      [0x001, 'fflags'], [0x002, 'frm'], [0x003, 'fcsr'],
      [0x300, 'mstatus'], [0x304, 'mie'], [0x305, 'mtvec'], [0x340, 'mscratch'], [0x341, 'mepc'], [0x342, 'mcause'], [0x343, 'mtval'],
      [0x100, 'sstatus'], [0x141, 'sepc'], [0x142, 'scause'], [0x143, 'stval'], [0x180, 'satp'],
      [0xb00, 'mcycle'], [0xb02, 'minstret'], [0xc00, 'cycle'], [0xc03, 'hpmcounter3'], [0x33f, 'mhpmevent31'],
      [0x3a0, 'pmpcfg0'], [0x3ef, 'pmpaddr63'], [0x7b0, 'dcsr'], [0x7b1, 'dpc'], [0xf14, 'mhartid'],
    ];
    for (const [n, name] of want) {
      expect(csrName(n)).toBe(name);
      expect(regNumber(name)).toBe(n);
    }
    expect(regName(0x7c0)).toBe('csr0x7c0');
    expect(regNumber('csr0x7c0')).toBe(0x7c0);
  });

  it('other numbers', () => {
    expect(regClass(0x1040)).toBe('other');
    expect(regName(0xc000)).toBe('reg0xc000');
    expect(regNumber('reg0xc000')).toBe(0xc000);
    expect(regNumber('nonsense')).toBeUndefined();
  });
});

describe('privilege and memory operation names', () => {
  it('U, S, M, reserved, D', () => {
    expect([0, 1, 2, 3, 4, 7].map(privName)).toEqual(['U', 'S', 'reserved', 'M', 'D', 'priv7']);
  });
  it('memory request ops 0..13', () => {
    expect([0, 1, 2, 3, 4, 12, 13, 14].map(memOpName)).toEqual(['load', 'store', 'lr', 'sc', 'amoswap', 'amomaxu', 'fetch', 'op14']);
  });
});
