/**
 * A minimal RISC-V assembler back end for the stimulus generator: one pure function per
 * instruction, returning the encoding as an unsigned number. Offsets are byte offsets from the
 * instruction's own address (as in the ISA manual), not labels. Every operand is range-checked, and
 * a bad one throws, so the generator cannot silently emit a truncated immediate.
 *
 * Compressed encoders refuse the operands that would make the encoding reserved or a hint
 * (c.jr x0, c.addi with immediate 0, ...): generated programs should only contain real instructions.
 */
import type { Xlen } from '../stream.ts';

export type BranchOp = 'beq' | 'bne' | 'blt' | 'bge' | 'bltu' | 'bgeu';

function reg(what: string, r: number): number {
  if (!Number.isInteger(r) || r < 0 || r > 31) throw new Error(`${what}: register x${r} does not exist (x0..x31)`);
  return r;
}

/** Registers x8..x15, the only ones the 3-bit fields of CL/CS/CB formats can name. */
function creg(what: string, r: number): number {
  if (!Number.isInteger(r) || r < 8 || r > 15) throw new Error(`${what}: register x${r} is not one of x8..x15`);
  return r - 8;
}

function nonZeroReg(what: string, r: number): number {
  if (reg(what, r) === 0) throw new Error(`${what}: x0 is not allowed (the encoding is reserved or a hint)`);
  return r;
}

/** Checks a signed immediate of `width` bits that must be a multiple of `align`. */
function simm(what: string, value: number, width: number, align = 1): number {
  const min = -(2 ** (width - 1));
  const max = 2 ** (width - 1) - align;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${what}: ${value} is out of range ${min}..${max}`);
  }
  if (value % align !== 0) throw new Error(`${what}: ${value} is not a multiple of ${align}`);
  return value;
}

function uimm(what: string, value: number, max: number, align = 1): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new Error(`${what}: ${value} is out of range 0..${max}`);
  if (value % align !== 0) throw new Error(`${what}: ${value} is not a multiple of ${align}`);
  return value;
}

/** Bit `from` of `value`, moved to bit position `to`. */
function bit(value: number, from: number, to: number): number {
  return ((value >> from) & 1) << to;
}

/** Bits [hi:lo] of `value`, moved so that bit lo lands at position `to`. */
function field(value: number, hi: number, lo: number, to: number): number {
  return ((value >> lo) & ((1 << (hi - lo + 1)) - 1)) << to;
}

// --- 32-bit formats -------------------------------------------------------------------------------

function rType(opcode: number, funct3: number, funct7: number, rd: number, rs1: number, rs2: number): number {
  return ((funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode) >>> 0;
}

function iType(opcode: number, funct3: number, rd: number, rs1: number, imm12: number): number {
  return (((imm12 & 0xfff) << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode) >>> 0;
}

function sType(opcode: number, funct3: number, rs1: number, rs2: number, imm12: number): number {
  return (field(imm12, 11, 5, 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | field(imm12, 4, 0, 7) | opcode) >>> 0;
}

function bType(funct3: number, rs1: number, rs2: number, offset: number): number {
  const imm = bit(offset, 12, 31) | field(offset, 10, 5, 25) | field(offset, 4, 1, 8) | bit(offset, 11, 7);
  return (imm | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | 0x63) >>> 0;
}

function uType(opcode: number, rd: number, imm20: number): number {
  return (((imm20 & 0xfffff) << 12) | (rd << 7) | opcode) >>> 0;
}

// --- control transfer -----------------------------------------------------------------------------

export function jal(rd: number, offset: number): number {
  simm('jal offset', offset, 21, 2);
  const imm = bit(offset, 20, 31) | field(offset, 10, 1, 21) | bit(offset, 11, 20) | field(offset, 19, 12, 12);
  return (imm | (reg('jal rd', rd) << 7) | 0x6f) >>> 0;
}

export function jalr(rd: number, rs1: number, imm: number): number {
  return iType(0x67, 0, reg('jalr rd', rd), reg('jalr rs1', rs1), simm('jalr offset', imm, 12));
}

const BRANCH_FUNCT3: Record<BranchOp, number> = { beq: 0, bne: 1, blt: 4, bge: 5, bltu: 6, bgeu: 7 };

export function branch(op: BranchOp, rs1: number, rs2: number, offset: number): number {
  const funct3 = BRANCH_FUNCT3[op];
  if (funct3 === undefined) throw new Error(`unknown branch ${String(op)}`);
  return bType(funct3, reg(`${op} rs1`, rs1), reg(`${op} rs2`, rs2), simm(`${op} offset`, offset, 13, 2));
}

export const beq = (rs1: number, rs2: number, offset: number): number => branch('beq', rs1, rs2, offset);
export const bne = (rs1: number, rs2: number, offset: number): number => branch('bne', rs1, rs2, offset);
export const blt = (rs1: number, rs2: number, offset: number): number => branch('blt', rs1, rs2, offset);
export const bge = (rs1: number, rs2: number, offset: number): number => branch('bge', rs1, rs2, offset);
export const bltu = (rs1: number, rs2: number, offset: number): number => branch('bltu', rs1, rs2, offset);
export const bgeu = (rs1: number, rs2: number, offset: number): number => branch('bgeu', rs1, rs2, offset);

// --- upper immediates and the hi20/lo12 split -----------------------------------------------------

/** imm20 is the value of bits 31:12, given unsigned (0..0xfffff, as the assembler writes it) or signed. */
function imm20(what: string, value: number): number {
  if (!Number.isInteger(value) || value < -0x80000 || value > 0xfffff) {
    throw new Error(`${what}: ${value} is out of range -0x80000..0xfffff`);
  }
  return value & 0xfffff;
}

export function lui(rd: number, imm: number): number {
  return uType(0x37, reg('lui rd', rd), imm20('lui immediate', imm));
}

export function auipc(rd: number, imm: number): number {
  return uType(0x17, reg('auipc rd', rd), imm20('auipc immediate', imm));
}

export interface HiLo {
  /** For lui/auipc: bits 31:12, unsigned. */
  hi20: number;
  /** For addi/jalr/loads/stores: -2048..2047. */
  lo12: number;
}

/**
 * Splits a value into hi20/lo12 so that sext32(hi20 << 12) + lo12 == value: the pair behind
 * auipc+jalr (value = target - pc) and lui+jalr/addi (value = absolute address). lo12 is signed, so
 * hi20 is rounded up when bit 11 of the value is set.
 *
 * Without `xlen` (or with 64) the sum must be exact in 64-bit arithmetic, which limits the value to
 * -0x80000800..0x7ffff7ff (lui and auipc sign-extend bit 31). With xlen 32 every value works
 * modulo 2^32, because RV32 arithmetic wraps.
 */
export function splitOffset(value: bigint | number, xlen: Xlen = 64): HiLo {
  let v = BigInt(value);
  if (xlen === 32) v = BigInt.asIntN(32, v);
  else if (v < -0x80000800n || v > 0x7ffff7ffn) {
    throw new Error(`value 0x${v.toString(16)} cannot be reached by a sign-extended hi20/lo12 pair`);
  }
  const lo12 = Number(BigInt.asIntN(12, v));
  const hi20 = Number(BigInt.asUintN(20, (v - BigInt(lo12)) >> 12n));
  return { hi20, lo12 };
}

/** splitOffset for an absolute address given as an unsigned XLEN-bit value (as addresses are stored). */
export function splitAbsolute(address: bigint, xlen: Xlen): HiLo {
  return splitOffset(BigInt.asIntN(xlen, address), xlen);
}

// --- integer computation, loads and stores --------------------------------------------------------

export function addi(rd: number, rs1: number, imm: number): number {
  return iType(0x13, 0, reg('addi rd', rd), reg('addi rs1', rs1), simm('addi immediate', imm, 12));
}

/** shamt up to 63 (RV64); an RV32 program must keep it below 32. */
export function slli(rd: number, rs1: number, shamt: number): number {
  return iType(0x13, 1, reg('slli rd', rd), reg('slli rs1', rs1), uimm('slli shift amount', shamt, 63));
}

function op(name: string, funct3: number, funct7: number) {
  return (rd: number, rs1: number, rs2: number): number =>
    rType(0x33, funct3, funct7, reg(`${name} rd`, rd), reg(`${name} rs1`, rs1), reg(`${name} rs2`, rs2));
}

export const add = op('add', 0, 0);
export const sub = op('sub', 0, 0x20);
export const xor = op('xor', 4, 0);
export const or = op('or', 6, 0);
export const and = op('and', 7, 0);

function load(name: string, funct3: number) {
  return (rd: number, base: number, offset: number): number =>
    iType(0x03, funct3, reg(`${name} rd`, rd), reg(`${name} base`, base), simm(`${name} offset`, offset, 12));
}

function store(name: string, funct3: number) {
  return (rs2: number, base: number, offset: number): number =>
    sType(0x23, funct3, reg(`${name} base`, base), reg(`${name} rs2`, rs2), simm(`${name} offset`, offset, 12));
}

export const lb = load('lb', 0);
export const lh = load('lh', 1);
export const lw = load('lw', 2);
export const ld = load('ld', 3);
export const lbu = load('lbu', 4);
export const lhu = load('lhu', 5);
export const sb = store('sb', 0);
export const sh = store('sh', 1);
export const sw = store('sw', 2);
export const sd = store('sd', 3);

export type AmoOp = 'add' | 'swap' | 'xor' | 'or' | 'and' | 'min' | 'max' | 'minu' | 'maxu';
const AMO_FUNCT5: Record<AmoOp, number> = { add: 0x00, swap: 0x01, xor: 0x04, or: 0x08, and: 0x0c, min: 0x10, max: 0x14, minu: 0x18, maxu: 0x1c };

/** amo<op>.w (width 4) or .d (width 8) rd, rs2, (rs1), aq = rl = 0. */
export function amo(op: AmoOp, width: 4 | 8, rd: number, rs2: number, rs1: number): number {
  return rType(0x2f, width === 4 ? 2 : 3, AMO_FUNCT5[op] << 2, reg(`amo${op} rd`, rd), reg(`amo${op} rs1`, rs1), reg(`amo${op} rs2`, rs2));
}

export const nop = (): number => addi(0, 0, 0);

// --- system ---------------------------------------------------------------------------------------

export const ecall = (): number => 0x00000073;
export const ebreak = (): number => 0x00100073;
export const uret = (): number => 0x00200073;
export const sret = (): number => 0x10200073;
export const mret = (): number => 0x30200073;
export const dret = (): number => 0x7b200073;
export const wfi = (): number => 0x10500073;

function csrOp(name: string, funct3: number) {
  return (rd: number, csr: number, rs1: number): number =>
    iType(0x73, funct3, reg(`${name} rd`, rd), reg(`${name} rs1`, rs1), uimm(`${name} csr`, csr, 0xfff));
}

export const csrrw = csrOp('csrrw', 1);
export const csrrs = csrOp('csrrs', 2);

/** csrrw x0, cycle, x0: a write to a read-only CSR, the standard 32-bit illegal instruction. */
export const unimp = (): number => csrrw(0, 0xc00, 0);

// --- compressed -----------------------------------------------------------------------------------

/** CJ format: offset[11|4|9:8|10|6|7|3:1|5] in bits 12:2. */
function cjType(funct3: number, offset: number): number {
  const imm =
    bit(offset, 11, 12) | bit(offset, 4, 11) | field(offset, 9, 8, 9) | bit(offset, 10, 8) |
    bit(offset, 6, 7) | bit(offset, 7, 6) | field(offset, 3, 1, 3) | bit(offset, 5, 2);
  return (funct3 << 13) | imm | 0b01;
}

/** CI format: imm[5] in bit 12, imm[4:0] in bits 6:2. */
function ciType(funct3: number, rd: number, imm6: number, quadrant: number): number {
  return (funct3 << 13) | bit(imm6, 5, 12) | (rd << 7) | field(imm6, 4, 0, 2) | quadrant;
}

/** CR format: funct4 in bits 15:12. */
function crType(funct4: number, rd: number, rs2: number): number {
  return (funct4 << 12) | (rd << 7) | (rs2 << 2) | 0b10;
}

export function cJ(offset: number): number {
  return cjType(0b101, simm('c.j offset', offset, 12, 2));
}

/** RV32 only: RV64 uses the same encoding for c.addiw. */
export function cJal(offset: number): number {
  return cjType(0b001, simm('c.jal offset', offset, 12, 2));
}

export function cJr(rs1: number): number {
  return crType(0b1000, nonZeroReg('c.jr rs1', rs1), 0);
}

export function cJalr(rs1: number): number {
  return crType(0b1001, nonZeroReg('c.jalr rs1', rs1), 0);
}

/** CB format for branches: offset[8|4:3] in bits 12:10, offset[7:6|2:1|5] in bits 6:2. */
function cbBranch(name: string, funct3: number, rs1: number, offset: number): number {
  const r = creg(`${name} rs1`, rs1);
  simm(`${name} offset`, offset, 9, 2);
  const imm =
    bit(offset, 8, 12) | field(offset, 4, 3, 10) | field(offset, 7, 6, 5) | field(offset, 2, 1, 3) | bit(offset, 5, 2);
  return (funct3 << 13) | imm | (r << 7) | 0b01;
}

export const cBeqz = (rs1: number, offset: number): number => cbBranch('c.beqz', 0b110, rs1, offset);
export const cBnez = (rs1: number, offset: number): number => cbBranch('c.bnez', 0b111, rs1, offset);

/**
 * c.lui rd, imm: loads sext(imm) << 12. imm is the 6-bit signed value (-32..31, not 0), or the
 * 20-bit form the assembler writes for negative values (0xfffe0..0xfffff).
 */
export function cLui(rd: number, imm: number): number {
  if (reg('c.lui rd', rd) === 0 || rd === 2) throw new Error('c.lui rd: x0 and x2 are not allowed (hint / c.addi16sp)');
  const v = imm >= 0xfffe0 && imm <= 0xfffff ? imm - 0x100000 : imm;
  if (v === 0) throw new Error('c.lui immediate: 0 is reserved');
  return ciType(0b011, rd, simm('c.lui immediate', v, 6), 0b01);
}

export function cLi(rd: number, imm: number): number {
  return ciType(0b010, nonZeroReg('c.li rd', rd), simm('c.li immediate', imm, 6), 0b01);
}

export function cAddi(rd: number, imm: number): number {
  if (imm === 0) throw new Error('c.addi immediate: 0 is a hint');
  return ciType(0b000, nonZeroReg('c.addi rd', rd), simm('c.addi immediate', imm, 6), 0b01);
}

export function cMv(rd: number, rs2: number): number {
  return crType(0b1000, nonZeroReg('c.mv rd', rd), nonZeroReg('c.mv rs2', rs2));
}

export function cAdd(rd: number, rs2: number): number {
  return crType(0b1001, nonZeroReg('c.add rd', rd), nonZeroReg('c.add rs2', rs2));
}

export const cNop = (): number => 0x0001;
export const cEbreak = (): number => 0x9002;
/** The all-zero parcel: defined to be illegal forever. */
export const cUnimp = (): number => 0x0000;

/** CL/CS word access: uimm[5:3] in bits 12:10, uimm[2|6] in bits 6:5. */
function cWord(name: string, funct3: number, reg1: number, base: number, offset: number): number {
  const r = creg(`${name} register`, reg1);
  const b = creg(`${name} base`, base);
  uimm(`${name} offset`, offset, 124, 4);
  return (funct3 << 13) | field(offset, 5, 3, 10) | (b << 7) | bit(offset, 2, 6) | bit(offset, 6, 5) | (r << 2);
}

export const cLw = (rd: number, base: number, offset: number): number => cWord('c.lw', 0b010, rd, base, offset);
export const cSw = (rs2: number, base: number, offset: number): number => cWord('c.sw', 0b110, rs2, base, offset);
