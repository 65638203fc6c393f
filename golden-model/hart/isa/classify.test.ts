import { describe, it, expect } from 'vitest';
import {
  branchItype,
  classify,
  instructionLength,
  isSequentiallyInferable,
  sequentialTarget,
  type ControlKind,
  type InstructionInfo,
} from './classify.ts';
import type { Xlen } from '../stream.ts';

/**
 * Encodings produced by GNU assembler (GNU Binutils) 2.40 (Debian 2.40-2+4+b1):
 * `riscv64-unknown-elf-as -march=rv64gc` (rv32gc where the row says 32), linked with
 * `riscv64-unknown-elf-ld --no-relax -Ttext=0x200000` and read back with
 * `riscv64-unknown-elf-objdump -d -M no-aliases`. 32-bit rows were assembled under
 * `.option norvc`, compressed rows under `.option rvc`. Targets are written `.+N`, so the static
 * target at PC is PC + N. The assembler is not run at test time.
 */
const PC = 0x80000000n;

interface Row {
  asm: string;
  hex: number;
  xlen?: Xlen;
  mnemonic: string;
  control: ControlKind;
  itype: number;
  rd?: number;
  rs1?: number;
  /** The `.+N` of the assembly line: the expected target is PC + N. */
  offset?: bigint;
}

const jump = (asm: string, hex: number, mnemonic: string, itype: number, rd: number, rs1: number, offset?: bigint, xlen?: Xlen): Row => ({
  asm, hex, mnemonic, control: 'jump', itype, rd, rs1, offset, xlen,
});

// Section 4.1.1, bullet by bullet. Compressed forms are classified as their expansions
// (c.jr rs = jalr x0, rs; c.jalr rs = jalr x1, rs; c.j = jal x0; c.jal = jal x1).
const JUMPS: Row[] = [
  // Calls (inferable 9, uninferable 8)
  jump('jal x1, .+16', 0x010000ef, 'jal', 9, 1, -1, 16n),
  jump('jal x5, .+16', 0x010002ef, 'jal', 9, 5, -1, 16n),
  jump('jalr x1, 0(x6)', 0x000300e7, 'jalr', 8, 1, 6),
  jump('jalr x1, 0(x1)  (rs != x5: call, not return)', 0x000080e7, 'jalr', 8, 1, 1),
  jump('jalr x1, 0(x0)', 0x000000e7, 'jalr', 8, 1, 0),
  jump('jalr x5, 0(x6)', 0x000302e7, 'jalr', 8, 5, 6),
  jump('jalr x5, 0(x5)  (rs != x1: call)', 0x000282e7, 'jalr', 8, 5, 5),
  jump('c.jalr x6', 0x9302, 'c.jalr', 8, 1, 6),
  jump('c.jalr x10', 0x9502, 'c.jalr', 8, 1, 10),
  jump('c.jalr x1  (rs1 != x5: call)', 0x9082, 'c.jalr', 8, 1, 1),
  jump('c.jalr x15', 0x9782, 'c.jalr', 8, 1, 15),
  jump('c.jal .+2046 (rv32)', 0x2ffd, 'c.jal', 9, 1, -1, 2046n, 32),
  jump('c.jal .-2048 (rv32)', 0x3001, 'c.jal', 9, 1, -1, -2048n, 32),
  jump('c.jal .+4 (rv32)', 0x2011, 'c.jal', 9, 1, -1, 4n, 32),
  jump('c.jal .+96 (rv32; c.addiw x1, 1 in rv64)', 0x2085, 'c.jal', 9, 1, -1, 96n, 32),
  // Tail calls (inferable 11, uninferable 10)
  jump('jal x0, .+16', 0x0100006f, 'jal', 11, 0, -1, 16n),
  jump('jal x0, .-4', 0xffdff06f, 'jal', 11, 0, -1, -4n),
  jump('c.j .+2046', 0xaffd, 'c.j', 11, 0, -1, 2046n),
  jump('c.j .-2048', 0xb001, 'c.j', 11, 0, -1, -2048n),
  jump('c.j .+0', 0xa001, 'c.j', 11, 0, -1, 0n),
  jump('jalr x0, 0(x6)', 0x00030067, 'jalr', 10, 0, 6),
  jump('jalr x0, 0(x31)', 0x000f8067, 'jalr', 10, 0, 31),
  jump('c.jr x6', 0x8302, 'c.jr', 10, 0, 6),
  jump('c.jr x10', 0x8502, 'c.jr', 10, 0, 10),
  jump('c.jr x15', 0x8782, 'c.jr', 10, 0, 15),
  jump('c.jr x31', 0x8f82, 'c.jr', 10, 0, 31),
  // Returns (13)
  jump('jalr x0, 0(x1)', 0x00008067, 'jalr', 13, 0, 1),
  jump('jalr x0, 0(x5)', 0x00028067, 'jalr', 13, 0, 5),
  jump('jalr x6, 0(x1)', 0x00008367, 'jalr', 13, 6, 1),
  jump('jalr x31, 8(x5)', 0x00828fe7, 'jalr', 13, 31, 5),
  jump('c.jr x1', 0x8082, 'c.jr', 13, 0, 1),
  jump('c.jr x5  (a return, not a tail call)', 0x8282, 'c.jr', 13, 0, 5),
  // Co-routine swaps (12)
  jump('jalr x1, 0(x5)', 0x000280e7, 'jalr', 12, 1, 5),
  jump('jalr x5, 0(x1)', 0x000082e7, 'jalr', 12, 5, 1),
  jump('c.jalr x5  (a swap, not a call)', 0x9282, 'c.jalr', 12, 1, 5),
  // Other (inferable 15, uninferable 14)
  jump('jal x6, .+16', 0x0100036f, 'jal', 15, 6, -1, 16n),
  jump('jal x31, .-16', 0xff1fffef, 'jal', 15, 31, -1, -16n),
  jump('jalr x6, 0(x7)', 0x00038367, 'jalr', 14, 6, 7),
  jump('jalr x31, -4(x30)', 0xffcf0fe7, 'jalr', 14, 31, 30),
  jump('jalr x10, -2048(x11)', 0x80058567, 'jalr', 14, 10, 11),
];

const branch = (asm: string, hex: number, mnemonic: string, rs1: number, offset: bigint): Row => ({
  asm, hex, mnemonic, control: 'branch', itype: 0, rd: -1, rs1, offset,
});

const BRANCHES: Row[] = [
  branch('beq x10, x11, .+256', 0x10b50063, 'beq', 10, 256n),
  branch('bne x10, x11, .-256', 0xf0b510e3, 'bne', 10, -256n),
  branch('blt x10, x11, .+4094', 0x7eb54fe3, 'blt', 10, 4094n),
  branch('bge x10, x11, .-4096', 0x80b55063, 'bge', 10, -4096n),
  branch('bltu x10, x11, .+2', 0x00b56163, 'bltu', 10, 2n),
  branch('bgeu x10, x11, .-2', 0xfeb57fe3, 'bgeu', 10, -2n),
  branch('bgeu x31, x0, .-100', 0xf80ffee3, 'bgeu', 31, -100n),
  branch('c.beqz x8, .+254', 0xcc7d, 'c.beqz', 8, 254n),
  branch('c.bnez x15, .-256', 0xf381, 'c.bnez', 15, -256n),
  branch('c.beqz x9, .-2', 0xdcfd, 'c.beqz', 9, -2n),
  branch('c.bnez x10, .-2', 0xfd7d, 'c.bnez', 10, -2n),
];

const other = (asm: string, hex: number, mnemonic: string, control: ControlKind, itype: number, xlen?: Xlen): Row => ({
  asm, hex, mnemonic, control, itype, xlen,
});

const SYSTEM: Row[] = [
  other('mret', 0x30200073, 'mret', 'trap-return', 3),
  other('sret', 0x10200073, 'sret', 'trap-return', 3),
  other('uret', 0x00200073, 'uret', 'trap-return', 3),
  other('dret', 0x7b200073, 'dret', 'trap-return', 3),
  other('ecall', 0x00000073, 'ecall', 'exception', 1),
  other('ebreak', 0x00100073, 'ebreak', 'exception', 1),
  other('c.ebreak', 0x9002, 'c.ebreak', 'exception', 1),
  other('c.unimp', 0x0000, 'c.unimp', 'illegal', 0),
  other('unimp (norvc: csrrw x0, cycle, x0)', 0xc0001073, 'unimp', 'illegal', 0),
  other('wfi', 0x10500073, 'wfi', 'sequential', 0),
  other('sfence.vma x0, x0', 0x12000073, 'sfence.vma', 'sequential', 0),
];

const seq = (asm: string, hex: number, mnemonic: string, xlen?: Xlen): Row => other(asm, hex, mnemonic, 'sequential', 0, xlen);

const SEQUENTIAL: Row[] = [
  seq('lui x5, 0x12345', 0x123452b7, 'lui'),
  seq('auipc x6, 0x80000', 0x80000317, 'auipc'),
  seq('addi x1, x2, -2048', 0x80010093, 'addi'),
  seq('nop', 0x00000013, 'addi'),
  seq('add x3, x4, x5', 0x005201b3, 'add'),
  seq('sub x6, x7, x8', 0x40838333, 'sub'),
  seq('xor x9, x10, x11', 0x00b544b3, 'xor'),
  seq('or x12, x13, x14', 0x00e6e633, 'or'),
  seq('and x15, x16, x17', 0x011877b3, 'and'),
  seq('mul x1, x2, x3', 0x023100b3, 'mul'),
  seq('slli x1, x2, 63', 0x03f11093, 'slli'),
  seq('srai x1, x2, 63', 0x43f15093, 'srai'),
  seq('addw x1, x2, x3', 0x003100bb, 'addw'),
  seq('addiw x1, x2, -1', 0xfff1009b, 'addiw'),
  seq('sraiw x1, x2, 31', 0x41f1509b, 'sraiw'),
  seq('lw x10, -4(x2)', 0xffc12503, 'lw'),
  seq('lbu x1, 0(x2)', 0x00014083, 'lbu'),
  seq('ld x11, 8(x3)', 0x0081b583, 'ld'),
  seq('sw x10, 2047(x2)', 0x7ea12fa3, 'sw'),
  seq('sb x1, 0(x2)', 0x00110023, 'sb'),
  seq('sd x11, -2048(x3)', 0x80b1b023, 'sd'),
  seq('fence', 0x0ff0000f, 'fence'),
  seq('fence.i', 0x0000100f, 'fence.i'),
  seq('csrrw x1, 0x300, x2', 0x300110f3, 'csrrw'),
  seq('csrrs x3, 0xc00, x0', 0xc00021f3, 'csrrs'),
  seq('c.lui x10, 1', 0x6505, 'c.lui'),
  seq('c.li x10, -32', 0x5501, 'c.li'),
  seq('c.addi x10, 31', 0x057d, 'c.addi'),
  seq('c.addi x2, -1', 0x117d, 'c.addi'),
  seq('c.mv x10, x11', 0x852e, 'c.mv'),
  seq('c.add x10, x11', 0x952e, 'c.add'),
  seq('c.nop', 0x0001, 'c.nop'),
  seq('c.lw x8, 124(x15)', 0x5fe0, 'c.lw'),
  seq('c.sw x9, 0(x8)', 0xc004, 'c.sw'),
  seq('c.ld x8, 8(x9)', 0x6480, 'c.ld'),
  seq('c.addi4spn x8, x2, 16', 0x0800, 'c.addi4spn'),
  seq('c.slli x10, 3', 0x050e, 'c.slli'),
  seq('c.lwsp x1, 4(x2)', 0x4092, 'c.lwsp'),
  seq('c.swsp x1, 8(x2)', 0xc406, 'c.swsp'),
  seq('c.sub x8, x9', 0x8c05, 'c.sub'),
  seq('c.srli x8, 1', 0x8005, 'c.srli'),
  // The RV32 c.jal encoding space is c.addiw in RV64.
  seq('c.addiw x1, 1 (rv64; the same bits are c.jal .+96 in rv32)', 0x2085, 'c.addiw'),
  seq('rv32 c.jal .+2046 read as rv64', 0x2ffd, 'c.addiw'),
  seq('c.flw f8, 4(x9) (rv32; c.ld in rv64)', 0x60c0, 'c.flw', 32),
];

describe('classify: assembler-produced encodings', () => {
  const rows = [...JUMPS, ...BRANCHES, ...SYSTEM, ...SEQUENTIAL];
  it.each(rows.map((r) => [r.asm, r] as const))('%s', (_asm, row) => {
    const xlen = row.xlen ?? 64;
    const got = classify(row.hex, PC, xlen);
    expect(got.mnemonic).toBe(row.mnemonic);
    expect(got.control).toBe(row.control);
    expect(got.itype).toBe(row.itype);
    // A parcel whose low two bits are not 11 is 16-bit.
    expect(got.length).toBe((row.hex & 3) === 3 ? 4 : 2);
    if (row.rd !== undefined) expect(got.rd).toBe(row.rd);
    if (row.rs1 !== undefined) expect(got.rs1).toBe(row.rs1);
    if (row.offset !== undefined) expect(got.target).toBe(PC + row.offset);
    else expect(got.target).toBeUndefined();
  });
});

describe('classify: targets wrap to XLEN', () => {
  it('beq x10, x11, .+256 at 0xfffffff0 wraps to 0xf0 in RV32', () => {
    expect(classify(0x10b50063, 0xfffffff0n, 32).target).toBe(0xf0n);
    // In RV64 the same pc is not near the top, so nothing wraps.
    expect(classify(0x10b50063, 0xfffffff0n, 64).target).toBe(0x1000000f0n);
  });
  it('beq .+256 at 0xffffffffffffff00 wraps to 0 in RV64', () => {
    expect(classify(0x10b50063, 0xffffffffffffff00n, 64).target).toBe(0n);
  });
  it('bne x10, x11, .-256 at 0x80 wraps below zero', () => {
    expect(classify(0xf0b510e3, 0x80n, 32).target).toBe(0xffffff80n);
    expect(classify(0xf0b510e3, 0x80n, 64).target).toBe(0xffffffffffffff80n);
  });
  it('c.j .-2048 and c.jal .-2048 at 0x10 in RV32', () => {
    expect(classify(0xb001, 0x10n, 32).target).toBe(0xfffff810n);
    expect(classify(0x3001, 0x10n, 32).target).toBe(0xfffff810n);
  });
  it('c.beqz x8, .+254 at 0xffffff02 in RV32', () => {
    expect(classify(0xcc7d, 0xffffff02n, 32).target).toBe(0n);
  });
});

describe('classify: decoding details', () => {
  it('ignores the upper half of a word holding a 16-bit instruction', () => {
    expect(classify(0x12348082, PC, 64)).toMatchObject({ mnemonic: 'c.jr', length: 2, itype: 13 });
  });
  // Reserved encodings are not in the assembler's vocabulary; these are hand-encoded from the
  // compressed instruction table of the unprivileged ISA manual.
  it('c.jr x0 (0x8002) is reserved, not a jump', () => {
    expect(classify(0x8002, PC, 64)).toMatchObject({ mnemonic: 'unknown', control: 'sequential', itype: 0 });
  });
  it('c.lui x10, 0 (0x6501) is reserved and loads nothing', () => {
    const i = classify(0x6501, PC, 64);
    expect(i.mnemonic).toBe('unknown');
    expect(i.constantLoadRd).toBeUndefined();
  });
  it('c.addi16sp (funct3 011, rd x2) is not c.lui', () => {
    // 0x6141 = 011 0 00010 10000 01: c.addi16sp sp, 16 (nzimm[4] is bit 6).
    const i = classify(0x6141, PC, 64);
    expect(i.mnemonic).toBe('c.addi16sp');
    expect(i.constantLoadRd).toBeUndefined();
  });
  it('RV64-only opcodes are unknown in RV32', () => {
    expect(classify(0x0081b583, PC, 32).mnemonic).toBe('unknown'); // ld
    expect(classify(0x003100bb, PC, 32).mnemonic).toBe('unknown'); // addw
    expect(classify(0x03f11093, PC, 32).mnemonic).toBe('unknown'); // slli x1, x2, 63
  });
  it('an undecodable encoding is sequential', () => {
    // Major opcode 1011011 is custom-2: no standard instruction lives there.
    expect(classify(0x0000005b, PC, 64)).toMatchObject({ mnemonic: 'unknown', control: 'sequential', itype: 0, length: 4 });
  });
});

describe('constantLoadRd', () => {
  it.each([
    ['lui x5, 0x12345', 0x123452b7, 5],
    ['auipc x6, 0x80000', 0x80000317, 6],
    ['auipc x31, 1', 0x00001f97, 31],
    ['lui x0, 1', 0x00001037, 0],
    ['c.lui x10, 1', 0x6505, 10],
    ['c.lui x15, 1', 0x6785, 15],
  ] as const)('%s', (_asm, hex, rd) => {
    expect(classify(hex, PC, 64).constantLoadRd).toBe(rd);
  });
  it('is unset for other instructions', () => {
    expect(classify(0x80010093, PC, 64).constantLoadRd).toBeUndefined(); // addi
    expect(classify(0x5501, PC, 64).constantLoadRd).toBeUndefined(); // c.li
  });
});

describe('instructionLength and branchItype', () => {
  it('takes the length from the low bits of the first parcel', () => {
    // xx != 11: 16-bit; xxx11 with bits 4:2 != 111: 32-bit
    for (const parcel of [0x0000, 0x0001, 0x0002, 0x8082, 0xfffe]) expect(instructionLength(parcel)).toBe(2);
    for (const parcel of [0x0003, 0x0013, 0x00ef, 0x0073, 0xfff7]) expect(instructionLength(parcel)).toBe(4);
  });
  it('rejects 48-bit and longer encodings', () => {
    expect(() => instructionLength(0x001f)).toThrow(/longer than 32 bits/); // 48-bit
    expect(() => instructionLength(0x003f)).toThrow(/longer than 32 bits/); // 64-bit
    expect(() => instructionLength(0xffff)).toThrow(/longer than 32 bits/);
    expect(() => classify(0x0000001f, PC, 64)).toThrow(/longer than 32 bits/);
  });
  it('branchItype', () => {
    expect(branchItype(true)).toBe(5);
    expect(branchItype(false)).toBe(4);
  });
});

describe('sequentially inferable jumps', () => {
  const at = (hex: number, pc: bigint, xlen: Xlen = 64): InstructionInfo => classify(hex, pc, xlen);

  it('auipc x6, 0x12345 ; jalr x1, -16(x6)', () => {
    expect(isSequentiallyInferable(at(0x12345317, PC), at(0xff0300e7, PC + 4n))).toBe(true);
    // 0x80000000 + 0x12345000 - 16 = 0x92344ff0
    expect(sequentialTarget(0x12345317, PC, 0xff0300e7, 64)).toBe(0x92344ff0n);
    expect(sequentialTarget(0x12345317, PC, 0xff0300e7, 32)).toBe(0x92344ff0n);
  });

  it('auipc x6, %pcrel_hi ; jalr x1, %pcrel_lo at 0x200000 (objdump: target 0x12545800)', () => {
    // 0x200000 + (0x12346 << 12) - 2048 = 0x200000 + 0x12346000 - 0x800 = 0x12545800
    expect(sequentialTarget(0x12346317, 0x200000n, 0x800300e7, 64)).toBe(0x12545800n);
  });

  it('auipc x7, 0xfffff ; jalr x0, 2039(x7) at 0x200008 (objdump: 0x1ff7ff), bit 0 cleared', () => {
    // 0x200008 - 0x1000 + 2039 = 0x1ff7ff, and jalr clears bit 0: 0x1ff7fe
    expect(sequentialTarget(0xfffff397, 0x200008n, 0x7f738067, 64)).toBe(0x1ff7fen);
  });

  it('lui x7, 0x80000 ; jalr x0, 4(x7): lui sign-extends in RV64', () => {
    expect(isSequentiallyInferable(at(0x800003b7, PC), at(0x00438067, PC + 4n))).toBe(true);
    // RV64: sext(0x80000 << 12) = 0xffffffff80000000, + 4
    expect(sequentialTarget(0x800003b7, PC, 0x00438067, 64)).toBe(0xffffffff80000004n);
    // RV32: 0x80000000 + 4
    expect(sequentialTarget(0x800003b7, PC, 0x00438067, 32)).toBe(0x80000004n);
  });

  it('rv32: lui x10, 0xfffff ; jalr x1, 2047(x10)', () => {
    // 0xfffff000 + 0x7ff = 0xfffff7ff, bit 0 cleared: 0xfffff7fe
    expect(sequentialTarget(0xfffff537, PC, 0x7ff500e7, 32)).toBe(0xfffff7fen);
  });

  it('rv32: auipc x5, 0xfffff ; jalr x0, 0(x5) wraps below zero', () => {
    // 0x200008 - 0x1000 = 0x1ff008 (objdump agrees); at 0x800: 0x800 - 0x1000 = -0x800 -> 0xfffff800
    expect(sequentialTarget(0xfffff297, 0x200008n, 0x00028067, 32)).toBe(0x1ff008n);
    expect(sequentialTarget(0xfffff297, 0x800n, 0x00028067, 32)).toBe(0xfffff800n);
  });

  it('c.lui x10, 0xfffe0 ; c.jr x10', () => {
    expect(isSequentiallyInferable(at(0x7501, PC), at(0x8502, PC + 2n))).toBe(true);
    // sext(0b100000) = -32; -32 << 12 = -0x20000
    expect(sequentialTarget(0x7501, PC, 0x8502, 64)).toBe(0xfffffffffffe0000n);
    expect(sequentialTarget(0x7501, PC, 0x8502, 32)).toBe(0xfffe0000n);
  });

  it('c.lui x15, 1 ; c.jalr x15', () => {
    expect(isSequentiallyInferable(at(0x6785, PC), at(0x9782, PC + 2n))).toBe(true);
    // 1 << 12 = 0x1000; c.jalr has no offset
    expect(sequentialTarget(0x6785, PC, 0x9782, 64)).toBe(0x1000n);
  });

  it('mixed sizes: c.lui x10, 1 ; jalr x0, 16(x10) and auipc x6, 0x80000 ; c.jr x6', () => {
    expect(isSequentiallyInferable(at(0x6505, PC), at(0x01050067, PC + 2n))).toBe(true);
    // 0x1000 + 16 = 0x1010
    expect(sequentialTarget(0x6505, PC, 0x01050067, 64)).toBe(0x1010n);
    expect(isSequentiallyInferable(at(0x80000317, PC), at(0x8302, PC + 4n))).toBe(true);
    // 0x80000000 + sext(0x80000 << 12) = 0x80000000 - 0x80000000 = 0 in both XLENs
    expect(sequentialTarget(0x80000317, PC, 0x8302, 64)).toBe(0n);
    expect(sequentialTarget(0x80000317, PC, 0x8302, 32)).toBe(0n);
  });

  it('is false when the registers differ, for x0 and for non-register jumps', () => {
    // lui x6, 0x12345 ; jalr x1, 0(x7)
    expect(isSequentiallyInferable(at(0x12345337, PC), at(0x000380e7, PC + 4n))).toBe(false);
    // lui x0, 1 ; jalr x1, 0(x0): x0 holds no constant
    expect(isSequentiallyInferable(at(0x00001037, PC), at(0x000000e7, PC + 4n))).toBe(false);
    // addi x6, x0, 1 ; jalr x0, 0(x6): addi is not lui/auipc/c.lui
    expect(isSequentiallyInferable(at(0x00100313, PC), at(0x00030067, PC + 4n))).toBe(false);
    // auipc x6 ; jal x6 (inferable anyway) and auipc x6 ; beq
    expect(isSequentiallyInferable(at(0x80000317, PC), at(0x0100036f, PC + 4n))).toBe(false);
    expect(isSequentiallyInferable(at(0x80000317, PC), at(0x10b50063, PC + 4n))).toBe(false);
  });

  it('sequentialTarget rejects a pair that is not sequentially inferable', () => {
    expect(() => sequentialTarget(0x12345337, PC, 0x000380e7, 64)).toThrow(/not a sequentially inferable/);
  });
});
