/**
 * ELF reader for RISC-V programs (ELF32 and ELF64, little-endian, EM_RISCV): the entry point, the
 * XLEN (from the ELF class) and the program image as QEMU loads it: every PT_LOAD segment at its
 * physical address (p_paddr, what QEMU's ELF loader uses; bare-metal programs link with
 * p_paddr = p_vaddr), its file bytes zero-filled to p_memsz. Function, object and label symbols
 * come from .symtab when there is one (for messages: `symbolize`).
 *
 * Pure: bytes in, a value or an RvError('bad-file') naming the file and what was expected out.
 */
import { RvError } from '../common/errors.ts';
import { ProgramImage, type Segment } from './image.ts';
import type { Xlen } from './stream.ts';

export const EM_RISCV = 243;
const PT_LOAD = 1;
const ET_EXEC = 2;
const SHT_SYMTAB = 2;
/** Memory the loadable segments may take altogether (bss included): a guard against absurd files. */
export const MAX_IMAGE_BYTES = 256 * 1024 * 1024;

export interface ElfSegment {
  /** Load (physical) address. */
  paddr: bigint;
  vaddr: bigint;
  fileSize: number;
  memSize: number;
  /** p_flags: 1 X, 2 W, 4 R. */
  flags: number;
}

export interface ElfSymbol {
  name: string;
  value: bigint;
  size: bigint;
  /** STT_FUNC, STT_OBJECT, or STT_NOTYPE (assembly labels). */
  type: 'func' | 'object' | 'label';
}

export interface ElfProgram {
  xlen: Xlen;
  entry: bigint;
  /** e_flags (bit 0: RVC, bits 2:1 float ABI, ...). */
  flags: number;
  segments: ElfSegment[];
  image: ProgramImage;
  /** Named function, object and label symbols defined in a section, sorted by address. */
  symbols: ElfSymbol[];
}

const MACHINES: Record<number, string> = { 3: 'x86', 8: 'MIPS', 20: 'PowerPC', 40: 'ARM', 62: 'x86-64', 183: 'AArch64', 258: 'LoongArch' };
const TYPES: Record<number, string> = { 0: 'no file type', 1: 'relocatable object', 3: 'shared object or PIE', 4: 'core dump' };

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

/** Little-endian field reader with the bounds already checked by the caller. */
class Reader {
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    private readonly is64: boolean,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(at: number): number {
    return this.view.getUint8(at);
  }
  u16(at: number): number {
    return this.view.getUint16(at, true);
  }
  u32(at: number): number {
    return this.view.getUint32(at, true);
  }
  u64(at: number): bigint {
    return this.view.getBigUint64(at, true);
  }
  /** An address-sized field (32 or 64 bits by class). */
  word(at: number): bigint {
    return this.is64 ? this.u64(at) : BigInt(this.u32(at));
  }
}

/** Layout of the headers per class: [ELF32, ELF64] offsets and sizes. */
const L = {
  ehsize: [52, 64],
  entry: [24, 24],
  phoff: [28, 32],
  shoff: [32, 40],
  flags: [36, 48],
  phentsize: [42, 54],
  phnum: [44, 56],
  shentsize: [46, 58],
  shnum: [48, 60],
  phdr: [32, 56],
  shdr: [40, 64],
  sym: [16, 24],
} as const;

export function parseElf(bytes: Uint8Array, fileName: string): ElfProgram {
  const fail = (message: string, offset?: number): never => {
    throw new RvError('bad-file', message, offset === undefined ? { file: fileName } : { file: fileName, offset });
  };
  const size = bytes.length;
  const magic = [0x7f, 0x45, 0x4c, 0x46];
  if (size < 4 || magic.some((b, i) => bytes[i] !== b)) {
    const start = Array.from(bytes.subarray(0, 4), (b) => hex(b)).join(' ');
    fail(`not an ELF file: it starts with ${size === 0 ? 'nothing (empty file)' : start}, expected 0x7f 'E' 'L' 'F'`, 0);
  }
  if (size < 16) fail(`truncated ELF header: the file has ${size} bytes, less than the 16-byte identification`, size);
  const cls = bytes[4]!;
  if (cls !== 1 && cls !== 2) fail(`ELF class ${cls}, expected 1 (ELF32) or 2 (ELF64)`, 4);
  const data = bytes[5]!;
  if (data !== 1) {
    fail(`ELF data encoding ${data}${data === 2 ? ' (big-endian)' : ''}, expected 1 (little-endian): RISC-V programs are little-endian`, 5);
  }
  const c = cls === 2 ? 1 : 0;
  const is64 = cls === 2;
  const className = is64 ? 'ELF64' : 'ELF32';
  if (size < L.ehsize[c]) fail(`truncated ELF header: the file has ${size} bytes, an ${className} header needs ${L.ehsize[c]}`, size);
  const r = new Reader(bytes, is64);
  const machine = r.u16(18);
  if (machine !== EM_RISCV) {
    const name = MACHINES[machine];
    fail(`ELF machine ${machine}${name ? ` (${name})` : ''}, expected ${EM_RISCV} (RISC-V)`, 18);
  }
  const type = r.u16(16);
  if (type !== ET_EXEC) fail(`ELF type ${type}${TYPES[type] ? ` (${TYPES[type]})` : ''}, expected ${ET_EXEC} (executable)`, 16);
  const xlen: Xlen = is64 ? 64 : 32;
  const entry = r.word(L.entry[c]);
  const flags = r.u32(L.flags[c]);

  // Program headers: the PT_LOAD segments.
  const phoff = r.word(L.phoff[c]);
  const phnum = r.u16(L.phnum[c]);
  const phentsize = r.u16(L.phentsize[c]);
  if (phnum > 0 && phentsize !== L.phdr[c]) fail(`e_phentsize ${phentsize}, expected ${L.phdr[c]} for ${className}`, L.phentsize[c]);
  if (phoff + BigInt(phnum * phentsize) > BigInt(size)) {
    fail(
      `truncated program header table: ${phnum} entries of ${phentsize} bytes at offset ${hex(phoff)} end beyond the end of the file (${size} bytes)`,
      Number(phoff <= BigInt(size) ? phoff : BigInt(size)),
    );
  }
  const segments: ElfSegment[] = [];
  const parts: Segment[] = [];
  const limit = 1n << BigInt(xlen);
  let total = 0;
  for (let i = 0; i < phnum; i++) {
    const at = Number(phoff) + i * phentsize;
    if (r.u32(at) !== PT_LOAD) continue;
    const offset = r.word(at + (is64 ? 8 : 4));
    const vaddr = r.word(at + (is64 ? 16 : 8));
    const paddr = r.word(at + (is64 ? 24 : 12));
    const filesz = r.word(at + (is64 ? 32 : 16));
    const memsz = r.word(at + (is64 ? 40 : 20));
    const pflags = r.u32(at + (is64 ? 4 : 24));
    if (filesz > memsz) fail(`PT_LOAD segment ${i}: p_filesz ${hex(filesz)} is larger than p_memsz ${hex(memsz)}`, at);
    if (offset + filesz > BigInt(size)) {
      fail(`truncated PT_LOAD segment ${i}: ${hex(filesz)} bytes at offset ${hex(offset)} end beyond the end of the file (${size} bytes)`, at);
    }
    if (paddr + memsz > limit) fail(`PT_LOAD segment ${i} (${hex(paddr)}, ${hex(memsz)} bytes) ends beyond the ${xlen}-bit address space`, at);
    if (memsz === 0n) continue;
    total += Number(memsz > BigInt(MAX_IMAGE_BYTES) ? BigInt(MAX_IMAGE_BYTES) + 1n : memsz);
    if (total > MAX_IMAGE_BYTES) fail(`PT_LOAD segments take more than ${MAX_IMAGE_BYTES} bytes of memory, more than this reader supports`, at);
    const mem = new Uint8Array(Number(memsz));
    mem.set(bytes.subarray(Number(offset), Number(offset + filesz)));
    segments.push({ paddr, vaddr, fileSize: Number(filesz), memSize: Number(memsz), flags: pflags });
    parts.push({ base: paddr, bytes: mem });
  }
  if (segments.length === 0) fail('no PT_LOAD segment with memory: the file has nothing to load');
  const sorted = [...segments].sort((a, b) => (a.paddr < b.paddr ? -1 : a.paddr > b.paddr ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (a.paddr + BigInt(a.memSize) > b.paddr) {
      fail(`PT_LOAD segments overlap: ${hex(a.paddr)}..${hex(a.paddr + BigInt(a.memSize))} and ${hex(b.paddr)}..${hex(b.paddr + BigInt(b.memSize))}`);
    }
  }

  return { xlen, entry, flags, segments, image: new ProgramImage(parts), symbols: readSymbols(r, c, size, fail) };
}

/** .symtab's function, object and label symbols (none when the file has no section headers or no .symtab). */
function readSymbols(r: Reader, c: 0 | 1, size: number, fail: (message: string, offset?: number) => never): ElfSymbol[] {
  const is64 = c === 1;
  const shoff = r.word(L.shoff[c]);
  const shnum = r.u16(L.shnum[c]);
  const shentsize = r.u16(L.shentsize[c]);
  if (shoff === 0n || shnum === 0) return [];
  if (shentsize !== L.shdr[c]) fail(`e_shentsize ${shentsize}, expected ${L.shdr[c]} for ${is64 ? 'ELF64' : 'ELF32'}`, L.shentsize[c]);
  if (shoff + BigInt(shnum * shentsize) > BigInt(size)) {
    fail(`truncated section header table: ${shnum} entries of ${shentsize} bytes at offset ${hex(shoff)} end beyond the end of the file (${size} bytes)`);
  }
  const section = (i: number) => {
    const at = Number(shoff) + i * shentsize;
    return {
      type: r.u32(at + 4),
      offset: r.word(at + (is64 ? 24 : 16)),
      size: r.word(at + (is64 ? 32 : 20)),
      link: r.u32(at + (is64 ? 40 : 24)),
    };
  };
  const inFile = (s: { offset: bigint; size: bigint }, what: string): void => {
    if (s.offset + s.size > BigInt(size)) fail(`truncated ${what}: ${hex(s.size)} bytes at offset ${hex(s.offset)} end beyond the end of the file (${size} bytes)`);
  };
  const out: ElfSymbol[] = [];
  for (let i = 0; i < shnum; i++) {
    const symtab = section(i);
    if (symtab.type !== SHT_SYMTAB) continue;
    inFile(symtab, 'symbol table');
    if (symtab.link >= shnum) fail(`symbol table (section ${i}) links to string table section ${symtab.link}, but there are ${shnum} sections`);
    const strtab = section(symtab.link);
    inFile(strtab, 'string table');
    const strings = r.bytes.subarray(Number(strtab.offset), Number(strtab.offset + strtab.size));
    const entsize = L.sym[c];
    const count = Number(symtab.size) / entsize;
    const decoder = new TextDecoder();
    for (let k = 1; k < count; k++) {
      const at = Number(symtab.offset) + k * entsize;
      const nameOffset = r.u32(at);
      const info = r.u8(at + (is64 ? 4 : 12));
      const shndx = r.u16(at + (is64 ? 6 : 14));
      const value = r.word(at + (is64 ? 8 : 4));
      const symSize = r.word(at + (is64 ? 16 : 8));
      const stType = info & 0xf;
      if (stType > 2) continue; // STT_NOTYPE, STT_OBJECT, STT_FUNC only
      if (shndx === 0 || shndx >= 0xff00) continue; // undefined, absolute (.equ) and other special sections
      if (nameOffset >= strings.length) continue;
      let end = nameOffset;
      while (end < strings.length && strings[end] !== 0) end++;
      const name = decoder.decode(strings.subarray(nameOffset, end));
      if (name === '') continue;
      out.push({ name, value, size: symSize, type: stType === 2 ? 'func' : stType === 1 ? 'object' : 'label' });
    }
  }
  return out.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : a.name < b.name ? -1 : 1));
}

/**
 * `0x... <name+0xoff>` for the function or label symbol at or nearest below `addr` (not past a
 * function's size), else the bare address.
 */
export function symbolize(symbols: readonly ElfSymbol[], addr: bigint): string {
  let best: ElfSymbol | undefined;
  for (const s of symbols) {
    if (s.type === 'object' || s.value > addr) continue;
    if (best === undefined || s.value >= best.value) best = s;
  }
  if (best === undefined || (best.size > 0n && addr >= best.value + best.size)) return hex(addr);
  return addr === best.value ? `${hex(addr)} <${best.name}>` : `${hex(addr)} <${best.name}+${hex(addr - best.value)}>`;
}
