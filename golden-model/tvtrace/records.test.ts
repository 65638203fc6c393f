import { describe, expect, it } from 'vitest';
import { checkTvRecord, nanBoxSingle, tvRegAddress } from './records.ts';

describe('records', () => {
  it('NaN-boxes a single into a 64-bit FPR and leaves it alone in a 32-bit one (Table C.3: f9 f4 fe 66 ff ff ff ff)', () => {
    expect(nanBoxSingle(0x66fef4f9, 64)).toBe(0xffff_ffff_66fe_f4f9n);
    expect(nanBoxSingle(0x66fef4f9, 32)).toBe(0x66fe_f4f9n);
  });

  it('numbers registers as the Debug spec does', () => {
    expect(tvRegAddress('gpr', 10)).toBe(0x100a);
    expect(tvRegAddress('fpr', 7)).toBe(0x1027);
    expect(tvRegAddress('csr', 0x341)).toBe(0x341);
  });

  it('accepts well-formed records and names the first problem of a bad one', () => {
    expect(checkTvRecord({ kind: 'instruction', nextPc: 4n, instr: { size: 16, bits: 0x8d0d }, gpr: { reg: 10, value: 1n } })).toBeUndefined();
    expect(checkTvRecord({ kind: 'reset' })).toBeUndefined();
    expect(checkTvRecord({ kind: 'instruction', nextPc: 4n, instr: { size: 16, bits: 0x10000 } })).toBe('instr.bits 65536 does not fit a 16-bit instruction');
    expect(checkTvRecord({ kind: 'instruction', nextPc: -1n })).toBe('nextPc -1 is not an unsigned 64-bit value');
    expect(checkTvRecord({ kind: 'xret', nextPc: 0n, priv: 2 as 1, mstatus: 0n })).toBe('priv is 2; allowed: 0 (U), 1 (S), 3 (M)');
    expect(checkTvRecord({ kind: 'debug-mem', paddr: 0n, bytes: 2, value: 0x10000n })).toBe('data value 0x10000 does not fit 2 byte(s)');
    const five = Array.from({ length: 5 }, (_, i) => ({ csr: i, value: 0n }));
    expect(checkTvRecord({ kind: 'instruction', nextPc: 0n, csrs: five })).toBe('5 CSR writes; allowed: at most 4');
    expect(checkTvRecord({ kind: 'debug-reg', file: 'csr', index: 0x1000, value: 0n })).toBe('csr index 4096 is not 0-0xfff');
  });
});
