/**
 * Writes the ELF fixtures of ../../elf.test.ts (run from the repository root:
 * `npx tsx golden-model/hart/test-fixtures/elf/make-fixtures.ts`). The files are checked in; this
 * script documents exactly how each one was made. README.md lists them.
 *
 * valid-rv64.elf / valid-rv32.elf are minimal hand-built executables: two PT_LOAD segments (8
 * bytes of code at 0x80000000; 4 bytes of data at 0x80001000 with p_memsz 16, so 12 bytes of bss),
 * a PT_NOTE, and a .symtab with a function, an object, a label, an absolute (.equ) symbol and an
 * undefined one. Every other file is one of them with a single defect, one per error message of
 * elf.ts.
 */
import { writeFileSync } from 'node:fs';

type Cls = 32 | 64;

interface Layout {
  bytes: Uint8Array;
  view: DataView;
  cls: Cls;
  phoff: number;
  phentsize: number;
  shoff: number;
  shentsize: number;
  symtabIndex: number;
}

function build(cls: Cls): Layout {
  const is64 = cls === 64;
  const ehsize = is64 ? 64 : 52;
  const phentsize = is64 ? 56 : 32;
  const shentsize = is64 ? 64 : 40;
  const symsize = is64 ? 24 : 16;
  const phnum = 3;
  const code = [0x13, 0x00, 0x00, 0x00, 0x73, 0x00, 0x00, 0x00]; // nop; ecall
  const data = [0x78, 0x56, 0x34, 0x12];
  const strtab = '\0_start\0table\0loop\0UART\0puts\0';
  const shstrtab = '\0.text\0.data\0.symtab\0.strtab\0.shstrtab\0';
  const name = (table: string, s: string): number => table.indexOf(`\0${s}\0`) + 1;

  const phoff = ehsize;
  const codeOff = phoff + phnum * phentsize;
  const dataOff = codeOff + code.length;
  const strOff = dataOff + data.length;
  const symOff = (strOff + strtab.length + 7) & ~7;
  const symCount = 6;
  const shstrOff = symOff + symCount * symsize;
  const shoff = (shstrOff + shstrtab.length + 7) & ~7;
  const shnum = 6;
  const total = shoff + shnum * shentsize;

  const bytes = new Uint8Array(total);
  const v = new DataView(bytes.buffer);
  const w = (at: number, value: bigint | number): void => {
    if (is64) v.setBigUint64(at, BigInt(value), true);
    else v.setUint32(at, Number(value), true);
  };
  bytes.set([0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, 1, 1, 0], 0);
  v.setUint16(16, 2, true); // ET_EXEC
  v.setUint16(18, 243, true); // EM_RISCV
  v.setUint32(20, 1, true);
  w(24, 0x8000_0000n); // e_entry
  w(is64 ? 32 : 28, phoff);
  w(is64 ? 40 : 32, shoff);
  v.setUint32(is64 ? 48 : 36, 0x5, true); // e_flags: RVC, double-float ABI
  v.setUint16(is64 ? 52 : 40, ehsize, true);
  v.setUint16(is64 ? 54 : 42, phentsize, true);
  v.setUint16(is64 ? 56 : 44, phnum, true);
  v.setUint16(is64 ? 58 : 46, shentsize, true);
  v.setUint16(is64 ? 60 : 48, shnum, true);
  v.setUint16(is64 ? 62 : 50, 5, true); // e_shstrndx

  const phdr = (i: number, type: number, flags: number, offset: number, addr: bigint, filesz: number, memsz: number): void => {
    const at = phoff + i * phentsize;
    v.setUint32(at, type, true);
    if (is64) {
      v.setUint32(at + 4, flags, true);
      w(at + 8, offset);
      w(at + 16, addr);
      w(at + 24, addr);
      w(at + 32, filesz);
      w(at + 40, memsz);
      w(at + 48, 0x1000);
    } else {
      w(at + 4, offset);
      w(at + 8, addr);
      w(at + 12, addr);
      w(at + 16, filesz);
      w(at + 20, memsz);
      v.setUint32(at + 24, flags, true);
      w(at + 28, 0x1000);
    }
  };
  phdr(0, 1, 5, codeOff, 0x8000_0000n, code.length, code.length);
  phdr(1, 4, 4, strOff, 0n, 0, 0); // PT_NOTE: not loaded
  phdr(2, 1, 6, dataOff, 0x8000_1000n, data.length, 16);
  bytes.set(code, codeOff);
  bytes.set(data, dataOff);
  bytes.set(Array.from(strtab, (c) => c.charCodeAt(0)), strOff);
  bytes.set(Array.from(shstrtab, (c) => c.charCodeAt(0)), shstrOff);

  const sym = (i: number, nameOff: number, info: number, shndx: number, value: bigint, size: number): void => {
    const at = symOff + i * symsize;
    v.setUint32(at, nameOff, true);
    if (is64) {
      v.setUint8(at + 4, info);
      v.setUint16(at + 6, shndx, true);
      w(at + 8, value);
      w(at + 16, size);
    } else {
      w(at + 4, value);
      w(at + 8, size);
      v.setUint8(at + 12, info);
      v.setUint16(at + 14, shndx, true);
    }
  };
  sym(1, name(strtab, '_start'), 0x12, 1, 0x8000_0000n, 8); // GLOBAL FUNC
  sym(2, name(strtab, 'table'), 0x11, 2, 0x8000_1000n, 4); // GLOBAL OBJECT
  sym(3, name(strtab, 'loop'), 0x00, 1, 0x8000_0004n, 0); // LOCAL NOTYPE: an assembly label
  sym(4, name(strtab, 'UART'), 0x00, 0xfff1, 0x1000_0000n, 0); // absolute (.equ): left out
  sym(5, name(strtab, 'puts'), 0x12, 0, 0n, 0); // undefined: left out

  const shdr = (i: number, nameOff: number, type: number, offset: number, size: number, link: number, entsize: number, addr = 0n): void => {
    const at = shoff + i * shentsize;
    v.setUint32(at, nameOff, true);
    v.setUint32(at + 4, type, true);
    if (is64) {
      w(at + 16, addr);
      w(at + 24, offset);
      w(at + 32, size);
      v.setUint32(at + 40, link, true);
      w(at + 56, entsize);
    } else {
      w(at + 12, addr);
      w(at + 16, offset);
      w(at + 20, size);
      v.setUint32(at + 24, link, true);
      w(at + 36, entsize);
    }
  };
  shdr(1, name(shstrtab, '.text'), 1, codeOff, code.length, 0, 0, 0x8000_0000n);
  shdr(2, name(shstrtab, '.data'), 1, dataOff, data.length, 0, 0, 0x8000_1000n);
  shdr(3, name(shstrtab, '.symtab'), 2, symOff, symCount * symsize, 4, symsize);
  shdr(4, name(shstrtab, '.strtab'), 3, strOff, strtab.length, 0, 0);
  shdr(5, name(shstrtab, '.shstrtab'), 3, shstrOff, shstrtab.length, 0, 0);
  return { bytes, view: v, cls, phoff, phentsize, shoff, shentsize, symtabIndex: 3 };
}

/** A copy of the layout's bytes with `edit` applied. */
function variant(l: Layout, edit: (v: DataView, l: Layout) => void): Uint8Array {
  const copy = l.bytes.slice();
  edit(new DataView(copy.buffer), l);
  return copy;
}

const e64 = build(64);
const e32 = build(32);
const ph64 = (i: number, field: 'type' | 'offset' | 'paddr' | 'filesz' | 'memsz'): number =>
  e64.phoff + i * e64.phentsize + { type: 0, offset: 8, paddr: 24, filesz: 32, memsz: 40 }[field];
const sh64 = (i: number, field: 'offset' | 'link'): number => e64.shoff + i * e64.shentsize + { offset: 24, link: 40 }[field];

const files: Record<string, Uint8Array> = {
  'valid-rv64.elf': e64.bytes,
  'valid-rv32.elf': e32.bytes,
  'empty.bin': new Uint8Array(0),
  'not-elf.txt': new TextEncoder().encode('#!/bin/sh\necho not an ELF\n'),
  'truncated-ident.elf': e64.bytes.slice(0, 10),
  'bad-class.elf': variant(e64, (v) => v.setUint8(4, 3)),
  'big-endian.elf': variant(e64, (v) => v.setUint8(5, 2)),
  'truncated-header.elf': e64.bytes.slice(0, 40),
  'wrong-machine.elf': variant(e64, (v) => v.setUint16(18, 62, true)),
  'relocatable.elf': variant(e64, (v) => v.setUint16(16, 1, true)),
  'bad-phentsize.elf': variant(e64, (v) => v.setUint16(54, 32, true)),
  'truncated-phdrs.elf': e64.bytes.slice(0, 100),
  'truncated-segment.elf': variant(e64, (v) => v.setBigUint64(ph64(0, 'offset'), 0x10000n, true)),
  'filesz-over-memsz.elf': variant(e64, (v) => v.setBigUint64(ph64(2, 'memsz'), 2n, true)),
  'beyond-address-space.elf': variant(e32, (v, l) => v.setUint32(l.phoff + 2 * l.phentsize + 12, 0xffff_fff8, true)),
  'too-large.elf': variant(e64, (v) => v.setBigUint64(ph64(2, 'memsz'), 0x2000_0000n, true)),
  'no-load.elf': variant(e64, (v) => {
    v.setUint32(ph64(0, 'type'), 4, true);
    v.setUint32(ph64(2, 'type'), 4, true);
  }),
  'overlap.elf': variant(e64, (v) => v.setBigUint64(ph64(2, 'paddr'), 0x8000_0004n, true)),
  'bad-shentsize.elf': variant(e64, (v) => v.setUint16(58, 40, true)),
  'truncated-shdrs.elf': e64.bytes.slice(0, e64.shoff + 2 * e64.shentsize),
  'truncated-symtab.elf': variant(e64, (v) => v.setBigUint64(sh64(3, 'offset'), 0x10000n, true)),
  'bad-strtab-link.elf': variant(e64, (v) => v.setUint32(sh64(3, 'link'), 9, true)),
  'truncated-strtab.elf': variant(e64, (v) => v.setBigUint64(sh64(4, 'offset'), 0x10000n, true)),
};

const dir = new URL('./', import.meta.url);
for (const [name, bytes] of Object.entries(files)) writeFileSync(new URL(name, dir), bytes);
process.stdout.write(`wrote ${Object.keys(files).length} files\n`);
