/**
 * Dump lines, typed by hand from the seed's Appendix C tables (errata applied) and the format
 * documented in dump.ts and docs/tvtrace-decoder.md.
 */
import { describe, expect, it } from 'vitest';
import { dumpTv } from './dump.ts';
import type { TvParams } from './decoder.ts';

const RV64: TvParams = { xlen: 64, flen: 64, mlen: 64, ilen: 32 };

function b(hexText: string): Uint8Array {
  return new Uint8Array(hexText.trim().split(/\s+/).map((p) => parseInt(p, 16)));
}

const APPENDIX_C = [
  '01 03 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02',
  '01 07 0a 00 01 00 0c 00 00 00 00 11 67 00 01 10 02',
  '01 03 11 d3 f3 16 01 04 27 10 f9 f4 fe 66 ff ff ff ff 06 03 00 01 02',
  '01 03 10 0d 8d 04 0a 10 78 56 34 12 ff ff ff ff 02',
  '01 03 11 03 a2 82 00 04 04 10 aa 55 aa 55 aa 55 aa 55 07 02 08 00 00 01 00 00 00 00 02',
  '01 03 11 f3 b4 45 30 04 09 10 88 08 00 00 00 00 00 00 04 04 03 80 08 00 00 00 00 00 00 02',
  '01 07 0a 00 00 01 00 00 00 00 00 11 00 00 00 00 04 41 03 34 12 08 00 00 00 00 00 04 42 03 02 00 00 00 00 00 00 00 ' +
    '04 00 03 b0 18 00 00 0a 00 00 00 04 43 03 00 00 00 00 00 00 00 00 07 01 03 02',
  '01 07 0a 00 00 01 00 00 00 00 00 04 41 03 56 12 08 00 00 00 00 00 04 42 03 03 00 00 00 00 00 00 80 ' +
    '04 00 03 b0 18 00 00 0a 00 00 00 04 43 03 00 00 00 00 00 00 00 00 07 01 03 02',
].join(' ');

describe('dumpTv', () => {
  it('Appendix C.1 to C.8 back to back, starting at pc 0x80000000', () => {
    expect(dumpTv(b(APPENDIX_C), RV64, { pc: 0x80000000n })).toEqual([
      '0x0000 instruction pc=0x80000004(+=4) instr=0x006281b3 (32-bit) gp=0x1234',
      '0x0013 instruction pc=0xc000100 instr=0x10010067 (32-bit)',
      '0x0024 instruction pc=0xc000104(+=4) instr=0x0116f3d3 (32-bit) ft7=0xffffffff66fef4f9 fcsr|=0x1',
      '0x003b instruction pc=0xc000106(+=2) instr=0x8d0d (16-bit) a0=0xffffffff12345678',
      '0x004c instruction pc=0xc00010a(+=4) instr=0x0082a203 (32-bit) tp=0x55aa55aa55aa55aa paddr=0x1000008',
      '0x0069 instruction pc=0xc00010e(+=4) instr=0x3045b4f3 (32-bit) s1=0x888 mie=0x880',
      '0x0087 trap pc=0x10000 instr=0x00000000 (32-bit) mepc=0x81234 mcause=0x2 mstatus=0xa000018b0 mtval=0x0 priv=M',
      '0x00c7 interrupt pc=0x10000 mepc=0x81256 mcause=0x8000000000000003 mstatus=0xa000018b0 mtval=0x0 priv=M',
    ]);
  });

  it('without a known pc the increments print as pc+=N', () => {
    expect(dumpTv(b('01 03 10 0d 8d 02'), RV64)).toEqual(['0x0000 instruction pc+=2 instr=0x8d0d (16-bit)']);
  });

  it('incremental registers with a known and an unknown previous value', () => {
    expect(dumpTv(b('05 0a 10 fd 06 03 00 01 05 0b 10 01'), RV64, { regs: new Map([[0x100a, 5n], [0x003, 0x20n]]) })).toEqual([
      '0x0000 state (ungrouped) a0=0x2(+=-3) fcsr=0x21(|=0x1) a1+=1',
    ]);
  });

  it('memory accesses, store data, eaddr, mtime, pc physical address', () => {
    const s =
      '01 07 0a 04 10 00 80 00 00 00 00 11 23 30 b5 00 ' + // sd a1, 0(a0)
      '07 07 ef cd ab 89 67 45 23 01 07 03 00 20 00 80 00 00 00 00 ' +
      '08 00 20 00 80 00 00 00 00 31 ef cd ab 89 67 45 23 01 09 03 ' +
      '07 08 10 27 00 00 00 00 00 00 07 09 00 10 00 80 00 00 00 00 02';
    expect(dumpTv(b(s), RV64)).toEqual([
      '0x0000 instruction pc=0x80001004 instr=0x00b53023 (32-bit) mem.store addr=0x80002000 size=8 data=0x123456789abcdef rsp=ok rsp.size=8 ' +
        'store.data=0x123456789abcdef(8 bytes) eaddr=0x80002000 mtime=0x2710 pc.paddr=0x80001000',
    ]);
  });

  it('a load with a failed response, reset, debug write, xret, an empty group with its end implied', () => {
    const s =
      '01 0a 02 ' +
      '01 0b 04 02 10 00 00 00 80 00 00 00 00 08 00 00 00 80 00 00 00 00 20 09 12 00 00 00 00 02 ' +
      '01 07 0a 00 10 00 80 00 00 00 00 11 73 00 20 30 07 01 00 04 00 03 80 00 00 00 0a 00 00 00 02 ' +
      '01 01 02';
    expect(dumpTv(b(s), RV64)).toEqual([
      '0x0000 reset hart-reset',
      '0x0003 debug-write sp=0x80000000 mem.load addr=0x80000000 size=4 rsp=fail rsp.size=4 rsp.data=0x0 state-init',
      '0x0021 xret pc=0x80001000 instr=0x30200073 (32-bit) mstatus=0xa00000080 priv=U',
      '0x0040 empty (end implied)',
      '0x0041 empty',
    ]);
  });

  it('ends with the first error: Table C.5 as printed', () => {
    expect(dumpTv(b('01 03 10 03 a2 82 00 04 04 10 aa 55 aa 55 aa 55 aa 55 07 02 08 00 00 01 00 00 00 00 02'), RV64)).toEqual([
      '0x0005 error: unknown opcode 0x82 (130): expected an opcode 1..11, 16 or 17',
    ]);
  });

  it('groups before an error are printed, then the error', () => {
    expect(dumpTv(b('01 02 01 07 0c'), RV64)).toEqual(['0x0000 empty', '0x0004 error: additional-state identifier 12 (0x0c): expected an identifier 1..10']);
  });

  it('RV32 Sv32: 34-bit physical address, unnamed CSR and non-standard register', () => {
    expect(dumpTv(b('07 02 00 20 00 00 03 04 c0 07 01 00 00 00 04 00 c0 02 00 00 00'), { xlen: 32, flen: 0, mlen: 34 })).toEqual([
      '0x0000 state (ungrouped) csr0x7c0=0x1 reg0xc000=0x2 paddr=0x300002000',
    ]);
  });
});
