import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RvError } from '../common/errors.ts';
import { parseElf, symbolize } from './elf.ts';

const fixture = (name: string): Uint8Array => readFileSync(new URL(`./test-fixtures/elf/${name}`, import.meta.url));

describe('ELF reader', () => {
  it.each([
    ['valid-rv64.elf', 64],
    ['valid-rv32.elf', 32],
  ] as const)('reads %s: entry, XLEN, PT_LOAD segments zero-filled to p_memsz, symbols', (name, xlen) => {
    const elf = parseElf(fixture(name), name);
    expect(elf.xlen).toBe(xlen);
    expect(elf.entry).toBe(0x8000_0000n);
    expect(elf.flags).toBe(5);
    expect(elf.segments.map((s) => [s.paddr, s.fileSize, s.memSize, s.flags])).toEqual([
      [0x8000_0000n, 8, 8, 5],
      [0x8000_1000n, 4, 16, 6],
    ]);
    expect(elf.image.segments.map((s) => [s.base, Array.from(s.bytes)])).toEqual([
      [0x8000_0000n, [0x13, 0, 0, 0, 0x73, 0, 0, 0]],
      [0x8000_1000n, [0x78, 0x56, 0x34, 0x12, ...new Array<number>(12).fill(0)]],
    ]);
    expect(elf.image.fetch(0x8000_0004n)).toEqual({ encoding: 0x73, length: 4 });
    // The absolute and the undefined symbols are left out.
    expect(elf.symbols).toEqual([
      { name: '_start', value: 0x8000_0000n, size: 8n, type: 'func' },
      { name: 'loop', value: 0x8000_0004n, size: 0n, type: 'label' },
      { name: 'table', value: 0x8000_1000n, size: 4n, type: 'object' },
    ]);
  });

  it('names addresses after the nearest function or label', () => {
    const { symbols } = parseElf(fixture('valid-rv64.elf'), 'x');
    expect(symbolize(symbols, 0x8000_0000n)).toBe('0x80000000 <_start>');
    expect(symbolize(symbols, 0x8000_0002n)).toBe('0x80000002 <_start+0x2>');
    expect(symbolize(symbols, 0x8000_0006n)).toBe('0x80000006 <loop+0x2>');
    expect(symbolize(symbols, 0x7fff_fffen)).toBe('0x7ffffffe');
    expect(symbolize([{ name: 'f', value: 0x100n, size: 4n, type: 'func' }], 0x104n)).toBe('0x104');
  });

  describe('malformed files (one fixture per message; each names the file)', () => {
    const cases: [string, string, number | undefined][] = [
      ['empty.bin', "not an ELF file: it starts with nothing (empty file), expected 0x7f 'E' 'L' 'F'", 0],
      ['not-elf.txt', "not an ELF file: it starts with 0x23 0x21 0x2f 0x62, expected 0x7f 'E' 'L' 'F'", 0],
      ['truncated-ident.elf', 'truncated ELF header: the file has 10 bytes, less than the 16-byte identification', 10],
      ['bad-class.elf', 'ELF class 3, expected 1 (ELF32) or 2 (ELF64)', 4],
      ['big-endian.elf', 'ELF data encoding 2 (big-endian), expected 1 (little-endian): RISC-V programs are little-endian', 5],
      ['truncated-header.elf', 'truncated ELF header: the file has 40 bytes, an ELF64 header needs 64', 40],
      ['wrong-machine.elf', 'ELF machine 62 (x86-64), expected 243 (RISC-V)', 18],
      ['relocatable.elf', 'ELF type 1 (relocatable object), expected 2 (executable)', 16],
      ['bad-phentsize.elf', 'e_phentsize 32, expected 56 for ELF64', 54],
      ['truncated-phdrs.elf', 'truncated program header table: 3 entries of 56 bytes at offset 0x40 end beyond the end of the file (100 bytes)', 64],
      ['truncated-segment.elf', 'truncated PT_LOAD segment 0: 0x8 bytes at offset 0x10000 end beyond the end of the file (848 bytes)', 64],
      ['filesz-over-memsz.elf', 'PT_LOAD segment 2: p_filesz 0x4 is larger than p_memsz 0x2', 176],
      ['beyond-address-space.elf', 'PT_LOAD segment 2 (0xfffffff8, 0x10 bytes) ends beyond the 32-bit address space', 116],
      ['too-large.elf', 'PT_LOAD segments take more than 268435456 bytes of memory, more than this reader supports', 176],
      ['no-load.elf', 'no PT_LOAD segment with memory: the file has nothing to load', undefined],
      ['overlap.elf', 'PT_LOAD segments overlap: 0x80000000..0x80000008 and 0x80000004..0x80000014', undefined],
      ['bad-shentsize.elf', 'e_shentsize 40, expected 64 for ELF64', 58],
      ['truncated-shdrs.elf', 'truncated section header table: 6 entries of 64 bytes at offset 0x1d0 end beyond the end of the file (592 bytes)', undefined],
      ['truncated-symtab.elf', 'truncated symbol table: 0x90 bytes at offset 0x10000 end beyond the end of the file (848 bytes)', undefined],
      ['bad-strtab-link.elf', 'symbol table (section 3) links to string table section 9, but there are 6 sections', undefined],
      ['truncated-strtab.elf', 'truncated string table: 0x1d bytes at offset 0x10000 end beyond the end of the file (848 bytes)', undefined],
    ];
    it.each(cases)('%s', (name, message, offset) => {
      let error: unknown;
      try {
        parseElf(fixture(name), `fixtures/${name}`);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RvError);
      const e = error as RvError;
      expect(e.code).toBe('bad-file');
      expect(e.message).toBe(message);
      expect(e.location).toEqual(offset === undefined ? { file: `fixtures/${name}` } : { file: `fixtures/${name}`, offset });
    });
  });
});
