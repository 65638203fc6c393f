import { describe, it, expect } from 'vitest';
import * as enc from './encode.ts';

/**
 * Golden encodings produced by GNU assembler (GNU Binutils) 2.40 (Debian 2.40-2+4+b1):
 * `riscv64-unknown-elf-as -march=rv64gc` (rv32gc for c.jal), linked with
 * `riscv64-unknown-elf-ld --no-relax -Ttext=0x200000` and read back with
 * `riscv64-unknown-elf-objdump -d -M no-aliases`. 32-bit rows were assembled under `.option norvc`
 * so that the assembler could not compress them. Branch and jump targets are written `.+N`, so the
 * offset the encoder gets is N. The assembler is not run at test time.
 */
const GOLDEN: Array<[asm: string, hex: number, encode: () => number]> = [
  ['jal x1, .+2048', 0x001000ef, () => enc.jal(1, 2048)],
  ['jal x0, .-4', 0xffdff06f, () => enc.jal(0, -4)],
  ['jal x5, .+1048574', 0x7ffff2ef, () => enc.jal(5, 1048574)],
  ['jal x6, .-1048576', 0x8000036f, () => enc.jal(6, -1048576)],
  ['jalr x1, 0(x5)', 0x000280e7, () => enc.jalr(1, 5, 0)],
  ['jalr x0, 2047(x1)', 0x7ff08067, () => enc.jalr(0, 1, 2047)],
  ['jalr x10, -2048(x11)', 0x80058567, () => enc.jalr(10, 11, -2048)],
  ['beq x1, x2, .+8', 0x00208463, () => enc.beq(1, 2, 8)],
  ['bne x3, x4, .-4096', 0x80419063, () => enc.bne(3, 4, -4096)],
  ['blt x5, x6, .+4094', 0x7e62cfe3, () => enc.blt(5, 6, 4094)],
  ['bge x7, x8, .-2', 0xfe83dfe3, () => enc.bge(7, 8, -2)],
  ['bltu x9, x10, .+2048', 0x00a4e0e3, () => enc.bltu(9, 10, 2048)],
  ['bgeu x31, x0, .-100', 0xf80ffee3, () => enc.bgeu(31, 0, -100)],
  ['beq x1, x2, .+8 (branch())', 0x00208463, () => enc.branch('beq', 1, 2, 8)],
  ['bgeu x31, x0, .-100 (branch())', 0xf80ffee3, () => enc.branch('bgeu', 31, 0, -100)],
  ['lui x5, 0x12345', 0x123452b7, () => enc.lui(5, 0x12345)],
  ['lui x5, 0xfffff', 0xfffff2b7, () => enc.lui(5, 0xfffff)],
  ['lui x5, 0xfffff (signed -1)', 0xfffff2b7, () => enc.lui(5, -1)],
  ['lui x5, 0', 0x000002b7, () => enc.lui(5, 0)],
  ['auipc x6, 0x80000', 0x80000317, () => enc.auipc(6, 0x80000)],
  ['auipc x31, 1', 0x00001f97, () => enc.auipc(31, 1)],
  ['addi x1, x2, -2048', 0x80010093, () => enc.addi(1, 2, -2048)],
  ['addi x1, x2, 2047', 0x7ff10093, () => enc.addi(1, 2, 2047)],
  ['add x3, x4, x5', 0x005201b3, () => enc.add(3, 4, 5)],
  ['sub x6, x7, x8', 0x40838333, () => enc.sub(6, 7, 8)],
  ['xor x9, x10, x11', 0x00b544b3, () => enc.xor(9, 10, 11)],
  ['or x12, x13, x14', 0x00e6e633, () => enc.or(12, 13, 14)],
  ['and x15, x16, x17', 0x011877b3, () => enc.and(15, 16, 17)],
  ['slli x1, x2, 63', 0x03f11093, () => enc.slli(1, 2, 63)],
  ['slli x1, x2, 1', 0x00111093, () => enc.slli(1, 2, 1)],
  ['lw x10, -4(x2)', 0xffc12503, () => enc.lw(10, 2, -4)],
  ['sw x10, 2047(x2)', 0x7ea12fa3, () => enc.sw(10, 2, 2047)],
  ['ld x11, 8(x3)', 0x0081b583, () => enc.ld(11, 3, 8)],
  ['sd x11, -2048(x3)', 0x80b1b023, () => enc.sd(11, 3, -2048)],
  ['ecall', 0x00000073, () => enc.ecall()],
  ['ebreak', 0x00100073, () => enc.ebreak()],
  ['mret', 0x30200073, () => enc.mret()],
  ['sret', 0x10200073, () => enc.sret()],
  ['uret', 0x00200073, () => enc.uret()],
  ['dret', 0x7b200073, () => enc.dret()],
  ['wfi', 0x10500073, () => enc.wfi()],
  ['csrrw x1, 0x300, x2', 0x300110f3, () => enc.csrrw(1, 0x300, 2)],
  ['csrrs x3, 0xc00, x0', 0xc00021f3, () => enc.csrrs(3, 0xc00, 0)],
  ['csrrw x0, 0xfff, x31', 0xffff9073, () => enc.csrrw(0, 0xfff, 31)],
  ['unimp (norvc)', 0xc0001073, () => enc.unimp()],
  ['nop', 0x00000013, () => enc.nop()],
  // Compressed, rv64gc under .option rvc.
  ['c.j .+2046', 0xaffd, () => enc.cJ(2046)],
  ['c.j .-2048', 0xb001, () => enc.cJ(-2048)],
  ['c.j .+0', 0xa001, () => enc.cJ(0)],
  ['c.jr x1', 0x8082, () => enc.cJr(1)],
  ['c.jr x5', 0x8282, () => enc.cJr(5)],
  ['c.jr x10', 0x8502, () => enc.cJr(10)],
  ['c.jr x31', 0x8f82, () => enc.cJr(31)],
  ['c.jalr x1', 0x9082, () => enc.cJalr(1)],
  ['c.jalr x5', 0x9282, () => enc.cJalr(5)],
  ['c.jalr x10', 0x9502, () => enc.cJalr(10)],
  ['c.beqz x8, .+254', 0xcc7d, () => enc.cBeqz(8, 254)],
  ['c.bnez x15, .-256', 0xf381, () => enc.cBnez(15, -256)],
  ['c.beqz x9, .-2', 0xdcfd, () => enc.cBeqz(9, -2)],
  ['c.bnez x10, .-2', 0xfd7d, () => enc.cBnez(10, -2)],
  ['c.lui x10, 1', 0x6505, () => enc.cLui(10, 1)],
  ['c.lui x10, 0xfffff', 0x757d, () => enc.cLui(10, 0xfffff)],
  ['c.lui x10, 0xfffff (signed -1)', 0x757d, () => enc.cLui(10, -1)],
  ['c.lui x10, 31', 0x657d, () => enc.cLui(10, 31)],
  ['c.lui x10, 0xfffe0', 0x7501, () => enc.cLui(10, 0xfffe0)],
  ['c.lui x10, 0xfffe0 (signed -32)', 0x7501, () => enc.cLui(10, -32)],
  ['c.li x10, -32', 0x5501, () => enc.cLi(10, -32)],
  ['c.li x1, 31', 0x40fd, () => enc.cLi(1, 31)],
  ['c.addi x10, 31', 0x057d, () => enc.cAddi(10, 31)],
  ['c.addi x2, -1', 0x117d, () => enc.cAddi(2, -1)],
  ['c.mv x10, x11', 0x852e, () => enc.cMv(10, 11)],
  ['c.mv x1, x5', 0x8096, () => enc.cMv(1, 5)],
  ['c.add x10, x11', 0x952e, () => enc.cAdd(10, 11)],
  ['c.add x5, x1', 0x9286, () => enc.cAdd(5, 1)],
  ['c.nop', 0x0001, () => enc.cNop()],
  ['c.ebreak', 0x9002, () => enc.cEbreak()],
  ['c.lw x8, 124(x15)', 0x5fe0, () => enc.cLw(8, 15, 124)],
  ['c.sw x9, 0(x8)', 0xc004, () => enc.cSw(9, 8, 0)],
  ['c.unimp', 0x0000, () => enc.cUnimp()],
  // rv32gc: c.jal only exists in RV32.
  ['c.jal .+2046', 0x2ffd, () => enc.cJal(2046)],
  ['c.jal .-2048', 0x3001, () => enc.cJal(-2048)],
  ['c.jal .+4', 0x2011, () => enc.cJal(4)],
  // riscv64-unknown-elf-as -march=rv64ga
  ['amoadd.w s0, a0, (s1)', 0x00a4a42f, () => enc.amo('add', 4, 8, 10, 9)],
  ['amomaxu.d a1, a2, (a3)', 0xe0c6b5af, () => enc.amo('maxu', 8, 11, 12, 13)],
];

describe('encoders match the GNU assembler', () => {
  it.each(GOLDEN)('%s', (_asm, hex, encode) => {
    expect(encode()).toBe(hex);
  });

  it('returns unsigned numbers', () => {
    for (const [, , encode] of GOLDEN) expect(encode()).toBeGreaterThanOrEqual(0);
  });
});

/**
 * Golden hi/lo pairs: `lui x5, %hi(V)` / `addi x5, x5, %lo(V)` assembled by the same binutils 2.40
 * (rv64gc unless marked rv32gc). The split is the same arithmetic for an auipc offset; the two
 * %pcrel_hi/%pcrel_lo rows were linked at 0x200000 (second pair at 0x200008).
 */
const SPLITS: Array<[what: string, value: bigint, xlen: 32 | 64, lui: number, addi: number]> = [
  ['%hi/%lo(0x12345fff)', 0x12345fffn, 64, 0x123462b7, 0xfff28293],
  ['%hi/%lo(0x12345800)', 0x12345800n, 64, 0x123462b7, 0x80028293],
  ['%hi/%lo(0x123457ff)', 0x123457ffn, 64, 0x123452b7, 0x7ff28293],
  ['%hi/%lo(0x7ffff7ff)', 0x7ffff7ffn, 64, 0x7ffff2b7, 0x7ff28293],
  ['%hi/%lo(-0x80000800)', -0x80000800n, 64, 0x800002b7, 0x80028293],
  ['%hi/%lo(-1)', -1n, 64, 0x000002b7, 0xfff28293],
  ['%hi/%lo(-0x1000)', -0x1000n, 64, 0xfffff2b7, 0x00028293],
  ['%hi/%lo(0x800)', 0x800n, 64, 0x000012b7, 0x80028293],
  ['%hi/%lo(0)', 0n, 64, 0x000002b7, 0x00028293],
  ['rv32gc %hi/%lo(0x80000000)', 0x80000000n, 32, 0x800002b7, 0x00028293],
  ['rv32gc %hi/%lo(0xfffff800)', 0xfffff800n, 32, 0x000002b7, 0x80028293],
  ['rv32gc %hi/%lo(0x7ffff800)', 0x7ffff800n, 32, 0x800002b7, 0x80028293],
];

describe('splitOffset / splitAbsolute', () => {
  it.each(SPLITS)('%s', (_what, value, xlen, luiHex, addiHex) => {
    const { hi20, lo12 } = enc.splitOffset(value, xlen);
    expect(enc.lui(5, hi20)).toBe(luiHex);
    expect(enc.addi(5, 5, lo12)).toBe(addiHex);
  });

  it('accepts numbers as well as bigints', () => {
    expect(enc.splitOffset(0x12345800)).toEqual(enc.splitOffset(0x12345800n));
  });

  it('auipc x6, %pcrel_hi / jalr x1, %pcrel_lo at 0x200000 to 0x12545800', () => {
    const { hi20, lo12 } = enc.splitOffset(0x12545800n - 0x200000n);
    expect(enc.auipc(6, hi20)).toBe(0x12346317);
    expect(enc.jalr(1, 6, lo12)).toBe(0x800300e7);
  });

  it('auipc x7, %pcrel_hi / jalr x0, %pcrel_lo at 0x200008 to 0x1ff7ff (negative offset)', () => {
    const { hi20, lo12 } = enc.splitOffset(0x1ff7ffn - 0x200008n);
    expect(enc.auipc(7, hi20)).toBe(0xfffff397);
    expect(enc.jalr(0, 7, lo12)).toBe(0x7f738067);
  });

  it('splitAbsolute takes unsigned XLEN-bit addresses', () => {
    // 0xffffffff7ffff800 is -0x80000800 in RV64: same pair as the row above.
    expect(enc.splitAbsolute(0xffffffff7ffff800n, 64)).toEqual({ hi20: 0x80000, lo12: -2048 });
    expect(enc.splitAbsolute(0xfffff800n, 32)).toEqual({ hi20: 0, lo12: -2048 });
  });

  it('rejects values a sign-extended pair cannot reach in RV64', () => {
    // lui 0x80000 sign-extends to 0xffffffff80000000 in RV64, so 0x7ffff800 is out of reach there.
    expect(() => enc.splitOffset(0x7ffff800n)).toThrow(/cannot be reached/);
    expect(() => enc.splitOffset(-0x80000801n)).toThrow(/cannot be reached/);
    expect(() => enc.splitAbsolute(0x80000000n, 64)).toThrow(/cannot be reached/);
  });
});

describe('range and alignment errors', () => {
  const cases: Array<[string, () => number, RegExp]> = [
    ['jal offset too far', () => enc.jal(1, 1048576), /jal offset: 1048576 is out of range/],
    ['jal offset too far back', () => enc.jal(1, -1048578), /out of range/],
    ['jal odd offset', () => enc.jal(1, 3), /jal offset: 3 is not a multiple of 2/],
    ['jal register x32', () => enc.jal(32, 0), /jal rd: register x32 does not exist/],
    ['jal fractional offset', () => enc.jal(1, 2.5), /out of range/],
    ['jalr immediate 2048', () => enc.jalr(1, 2, 2048), /jalr offset/],
    ['jalr negative register', () => enc.jalr(1, -1, 0), /jalr rs1/],
    ['branch offset 4096', () => enc.beq(1, 2, 4096), /beq offset: 4096 is out of range -4096..4094/],
    ['branch offset -4098', () => enc.bne(1, 2, -4098), /out of range/],
    ['branch odd offset', () => enc.blt(1, 2, 5), /not a multiple of 2/],
    ['lui immediate 0x100000', () => enc.lui(1, 0x100000), /lui immediate/],
    ['auipc immediate -0x80001', () => enc.auipc(1, -0x80001), /auipc immediate/],
    ['addi immediate -2049', () => enc.addi(1, 2, -2049), /addi immediate/],
    ['slli shift 64', () => enc.slli(1, 2, 64), /slli shift amount: 64/],
    ['lw offset 2048', () => enc.lw(1, 2, 2048), /lw offset/],
    ['sd offset -2049', () => enc.sd(1, 2, -2049), /sd offset/],
    ['csr 0x1000', () => enc.csrrw(1, 0x1000, 2), /csrrw csr/],
    ['add register x33', () => enc.add(1, 2, 33), /add rs2/],
    ['c.j offset 2048', () => enc.cJ(2048), /c.j offset: 2048 is out of range -2048..2046/],
    ['c.j odd offset', () => enc.cJ(3), /not a multiple of 2/],
    ['c.jal offset -2050', () => enc.cJal(-2050), /c.jal offset/],
    ['c.jr x0 (reserved)', () => enc.cJr(0), /c.jr rs1: x0 is not allowed/],
    ['c.jalr x0 (c.ebreak)', () => enc.cJalr(0), /c.jalr rs1: x0/],
    ['c.beqz x7', () => enc.cBeqz(7, 0), /c.beqz rs1: register x7 is not one of x8..x15/],
    ['c.bnez x16', () => enc.cBnez(16, 0), /x8..x15/],
    ['c.beqz offset 256', () => enc.cBeqz(8, 256), /c.beqz offset: 256 is out of range -256..254/],
    ['c.bnez odd offset', () => enc.cBnez(8, 7), /not a multiple of 2/],
    ['c.lui x2 (c.addi16sp)', () => enc.cLui(2, 1), /x0 and x2/],
    ['c.lui x0 (hint)', () => enc.cLui(0, 1), /x0 and x2/],
    ['c.lui immediate 0', () => enc.cLui(10, 0), /reserved/],
    ['c.lui immediate 32', () => enc.cLui(10, 32), /c.lui immediate: 32 is out of range/],
    ['c.lui immediate 0xfffdf', () => enc.cLui(10, 0xfffdf), /out of range/],
    ['c.li immediate 32', () => enc.cLi(10, 32), /c.li immediate/],
    ['c.li x0 (hint)', () => enc.cLi(0, 1), /c.li rd: x0/],
    ['c.addi immediate 0 (hint)', () => enc.cAddi(10, 0), /hint/],
    ['c.addi immediate -33', () => enc.cAddi(10, -33), /out of range/],
    ['c.mv rs2 x0', () => enc.cMv(10, 0), /c.mv rs2: x0/],
    ['c.add rd x0', () => enc.cAdd(0, 1), /c.add rd: x0/],
    ['c.lw offset 128', () => enc.cLw(8, 9, 128), /c.lw offset: 128 is out of range 0..124/],
    ['c.lw misaligned offset', () => enc.cLw(8, 9, 2), /not a multiple of 4/],
    ['c.sw base x16', () => enc.cSw(8, 16, 0), /c.sw base/],
  ];
  it.each(cases)('%s', (_what, f, message) => {
    expect(f).toThrow(message);
  });
});
