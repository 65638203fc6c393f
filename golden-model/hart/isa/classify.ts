/**
 * RISC-V instruction decoding for trace purposes: length, a mnemonic, and the control-flow class
 * of E-Trace section 4.1.1 (the 4-bit itype of table 4.1).
 *
 * Only control flow matters to the trace, so the decoder goes as far as RV32/RV64 I, M, A, the
 * F/D loads and stores, Zicsr, Zifencei and the whole C extension; anything else is a sequential
 * instruction with mnemonic 'unknown'. Reserved encodings (c.jr x0, c.lui with immediate 0, ...)
 * are 'unknown' too: they are not jumps, whatever their neighbours look like.
 *
 * Register conventions: `rd` is the destination register, or -1 when the instruction has none
 * (branches, stores, ecall, ...); `rs1` is the base/first source register or -1. Compressed
 * instructions report the registers of their 32-bit expansion (c.j is jal x0, c.jal and c.jalr
 * write x1, c.jr writes x0), which is what the jump classification is defined on.
 */
import type { Xlen } from '../stream.ts';
import { Itype, isUninferableJump } from '../records.ts';

export type ControlKind = 'sequential' | 'branch' | 'jump' | 'trap-return' | 'exception' | 'illegal';

export interface InstructionInfo {
  /** Bytes, from the low bits of the first 16-bit parcel. */
  length: 2 | 4;
  /** e.g. 'jal', 'c.jalr', 'beq', 'mret', 'addi', 'unknown'. */
  mnemonic: string;
  control: ControlKind;
  /** For jumps: the 4-bit itype of section 4.1.1 (8..15). For trap-return (mret/sret/uret/dret): 3.
   *  For ecall/ebreak/c.ebreak: 1 (exception; these retire and trap). For sequential, branch
   *  and illegal: 0 (a branch's itype depends on whether it was taken: use branchItype). */
  itype: number;
  /** Static target of direct jumps (jal, c.j, c.jal) and branches, wrapped to XLEN bits (unsigned). */
  target?: bigint;
  /** Destination register, or -1 when none. */
  rd: number;
  /** Base/source register, or -1 when none. */
  rs1: number;
  /** Set for lui, auipc and c.lui: the register they load with a constant (for sijump, 4.1.1). */
  constantLoadRd?: number;
}

/** Bits [hi:lo] of x (fewer than 32 of them), as a non-negative number. */
function bits(x: number, hi: number, lo: number): number {
  return (x >>> lo) & ((1 << (hi - lo + 1)) - 1);
}

/** Sign-extends the low `width` bits of x. */
function sext(x: number, width: number): number {
  const shift = 32 - width;
  return (x << shift) >> shift;
}

function wrap(value: bigint, xlen: Xlen): bigint {
  return BigInt.asUintN(xlen, value);
}

export function instructionLength(firstParcel: number): 2 | 4 {
  if ((firstParcel & 0b11) !== 0b11) return 2;
  if ((firstParcel & 0b11100) !== 0b11100) return 4;
  throw new Error(
    `instruction parcel 0x${(firstParcel & 0xffff).toString(16).padStart(4, '0')} starts an encoding longer than 32 bits, which is not supported`,
  );
}

/** The itype of a retired branch (table 4.1). */
export function branchItype(taken: boolean): number {
  return taken ? Itype.takenBranch : Itype.nontakenBranch;
}

/** x1 (ra) and x5 (t0) are the link registers of the standard calling convention. */
function isLink(reg: number): boolean {
  return reg === 1 || reg === 5;
}

/** Section 4.1.1 for `jal rd` (c.j and c.jal are jal x0 and jal x1). */
function jalItype(rd: number): number {
  if (isLink(rd)) return Itype.inferableCall;
  // The spec's "other" bullet reads "jal rd where rd != x1 and rd != x5", which would include x0;
  // jal x0 is listed as a tail call, and the more specific bullet wins.
  if (rd === 0) return Itype.inferableTailCall;
  return Itype.otherInferableJump;
}

/** Section 4.1.1 for `jalr rd, rs` (c.jr rs is jalr x0, rs; c.jalr rs is jalr x1, rs). */
function jalrItype(rd: number, rs: number): number {
  // Swap first: jalr x1, x5 and jalr x5, x1 would otherwise also match the call bullet.
  if (isLink(rd) && isLink(rs) && rd !== rs) return Itype.coRoutineSwap;
  if (isLink(rd)) return Itype.uninferableCall; // includes jalr x1, x1 and jalr x5, x5
  if (isLink(rs)) return Itype.return; // any rd that is not a link register, x0 included
  if (rd === 0) return Itype.uninferableTailCall;
  return Itype.otherUninferableJump;
}

function info(
  length: 2 | 4,
  mnemonic: string,
  rd: number,
  rs1: number,
  extra: Partial<InstructionInfo> = {},
): InstructionInfo {
  return { length, mnemonic, control: 'sequential', itype: Itype.none, rd, rs1, ...extra };
}

function unknown(length: 2 | 4): InstructionInfo {
  return info(length, 'unknown', -1, -1);
}

export function classify(encoding: number, pc: bigint, xlen: Xlen): InstructionInfo {
  const length = instructionLength(encoding & 0xffff);
  return length === 2 ? classify16(encoding & 0xffff, pc, xlen) : classify32(encoding >>> 0, pc, xlen);
}

const BRANCHES = ['beq', 'bne', '', '', 'blt', 'bge', 'bltu', 'bgeu'];
const LOADS = ['lb', 'lh', 'lw', 'ld', 'lbu', 'lhu', 'lwu', ''];
const STORES = ['sb', 'sh', 'sw', 'sd', '', '', '', ''];
const OP_IMM = ['addi', 'slli', 'slti', 'sltiu', 'xori', 'srli', 'ori', 'andi'];
const OP = ['add', 'sll', 'slt', 'sltu', 'xor', 'srl', 'or', 'and'];
const OP_M = ['mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu'];
const OP_32 = ['addw', 'sllw', '', '', '', 'srlw', '', ''];
const OP_32_M = ['mulw', '', '', '', 'divw', 'divuw', 'remw', 'remuw'];
const CSR = ['', 'csrrw', 'csrrs', 'csrrc', '', 'csrrwi', 'csrrsi', 'csrrci'];
const AMO: Record<number, string> = {
  0b00010: 'lr', 0b00011: 'sc', 0b00001: 'amoswap', 0b00000: 'amoadd', 0b00100: 'amoxor',
  0b01100: 'amoand', 0b01000: 'amoor', 0b10000: 'amomin', 0b10100: 'amomax', 0b11000: 'amominu',
  0b11100: 'amomaxu',
};

/** Mnemonics that exist only in RV64. */
const RV64_ONLY = new Set(['ld', 'lwu', 'sd']);

function classify32(inst: number, pc: bigint, xlen: Xlen): InstructionInfo {
  const opcode = bits(inst, 6, 0);
  const rd = bits(inst, 11, 7);
  const funct3 = bits(inst, 14, 12);
  const rs1 = bits(inst, 19, 15);
  const funct7 = bits(inst, 31, 25);
  const immI = sext(bits(inst, 31, 20), 12);
  // '' marks a hole in a table; RV64-only loads/stores are holes in RV32.
  const rv = (name: string): string => (name === '' || (xlen === 32 && RV64_ONLY.has(name)) ? '' : name);
  const named = (name: string, dst: number, src: number): InstructionInfo =>
    name === '' ? unknown(4) : info(4, name, dst, src);

  switch (opcode) {
    case 0x37: // LUI
      return info(4, 'lui', rd, -1, { constantLoadRd: rd });
    case 0x17: // AUIPC
      return info(4, 'auipc', rd, -1, { constantLoadRd: rd });
    case 0x6f: {
      // JAL: imm[20|10:1|11|19:12] in bits 31:12
      const imm =
        (sext(bits(inst, 31, 31), 1) << 20) |
        (bits(inst, 19, 12) << 12) |
        (bits(inst, 20, 20) << 11) |
        (bits(inst, 30, 21) << 1);
      return info(4, 'jal', rd, -1, { control: 'jump', itype: jalItype(rd), target: wrap(pc + BigInt(imm), xlen) });
    }
    case 0x67: // JALR
      if (funct3 !== 0) return unknown(4);
      return info(4, 'jalr', rd, rs1, { control: 'jump', itype: jalrItype(rd, rs1) });
    case 0x63: {
      // BRANCH: imm[12|10:5] in bits 31:25, imm[4:1|11] in bits 11:7
      const name = BRANCHES[funct3]!;
      if (name === '') return unknown(4);
      const imm =
        (sext(bits(inst, 31, 31), 1) << 12) |
        (bits(inst, 7, 7) << 11) |
        (bits(inst, 30, 25) << 5) |
        (bits(inst, 11, 8) << 1);
      return info(4, name, -1, rs1, { control: 'branch', target: wrap(pc + BigInt(imm), xlen) });
    }
    case 0x03:
      return named(rv(LOADS[funct3]!), rd, rs1);
    case 0x23:
      return named(rv(STORES[funct3]!), -1, rs1);
    case 0x07:
      return named(funct3 === 2 ? 'flw' : funct3 === 3 ? 'fld' : '', rd, rs1);
    case 0x27:
      return named(funct3 === 2 ? 'fsw' : funct3 === 3 ? 'fsd' : '', -1, rs1);
    case 0x13: {
      // Shifts: RV64 has a 6-bit shamt (funct6 in 31:26), RV32 a 5-bit one (funct7).
      const shiftTop = xlen === 64 ? bits(inst, 31, 26) << 1 : funct7;
      if (funct3 === 1) return named(shiftTop === 0 ? 'slli' : '', rd, rs1);
      if (funct3 === 5) return named(shiftTop === 0 ? 'srli' : shiftTop === 0x20 ? 'srai' : '', rd, rs1);
      return named(OP_IMM[funct3]!, rd, rs1);
    }
    case 0x1b: {
      // OP-IMM-32 (RV64 only)
      if (xlen === 32) return unknown(4);
      if (funct3 === 0) return named('addiw', rd, rs1);
      if (funct3 === 1) return named(funct7 === 0 ? 'slliw' : '', rd, rs1);
      if (funct3 === 5) return named(funct7 === 0 ? 'srliw' : funct7 === 0x20 ? 'sraiw' : '', rd, rs1);
      return unknown(4);
    }
    case 0x33: {
      if (funct7 === 0) return named(OP[funct3]!, rd, rs1);
      if (funct7 === 1) return named(OP_M[funct3]!, rd, rs1);
      if (funct7 === 0x20) return named(funct3 === 0 ? 'sub' : funct3 === 5 ? 'sra' : '', rd, rs1);
      return unknown(4);
    }
    case 0x3b: {
      // OP-32 (RV64 only)
      if (xlen === 32) return unknown(4);
      if (funct7 === 0) return named(OP_32[funct3]!, rd, rs1);
      if (funct7 === 1) return named(OP_32_M[funct3]!, rd, rs1);
      if (funct7 === 0x20) return named(funct3 === 0 ? 'subw' : funct3 === 5 ? 'sraw' : '', rd, rs1);
      return unknown(4);
    }
    case 0x2f: {
      const op = AMO[bits(inst, 31, 27)];
      const width = funct3 === 2 ? '.w' : funct3 === 3 && xlen === 64 ? '.d' : '';
      return named(op === undefined || width === '' ? '' : op + width, rd, rs1);
    }
    case 0x0f:
      return named(funct3 === 0 ? 'fence' : funct3 === 1 ? 'fence.i' : '', -1, -1);
    case 0x73:
      return classifySystem(inst, rd, funct3, rs1);
    default:
      return unknown(4);
  }
}

/** Fixed SYSTEM encodings that change control flow or stop the hart. */
const SYSTEM_FIXED: Record<number, { mnemonic: string; control: ControlKind; itype: number }> = {
  0x00000073: { mnemonic: 'ecall', control: 'exception', itype: Itype.exception },
  0x00100073: { mnemonic: 'ebreak', control: 'exception', itype: Itype.exception },
  0x00200073: { mnemonic: 'uret', control: 'trap-return', itype: Itype.trapReturn },
  0x10200073: { mnemonic: 'sret', control: 'trap-return', itype: Itype.trapReturn },
  0x30200073: { mnemonic: 'mret', control: 'trap-return', itype: Itype.trapReturn },
  // dret leaves debug mode: it is a return from the debug "trap", not an uninferable jump.
  0x7b200073: { mnemonic: 'dret', control: 'trap-return', itype: Itype.trapReturn },
  0x10500073: { mnemonic: 'wfi', control: 'sequential', itype: Itype.none },
  // csrrw x0, cycle, x0 writes a read-only CSR: the canonical 32-bit illegal instruction.
  0xc0001073: { mnemonic: 'unimp', control: 'illegal', itype: Itype.none },
};

function classifySystem(inst: number, rd: number, funct3: number, rs1: number): InstructionInfo {
  const fixed = SYSTEM_FIXED[inst];
  if (fixed !== undefined) return info(4, fixed.mnemonic, -1, -1, { control: fixed.control, itype: fixed.itype });
  if (funct3 === 0) {
    if (bits(inst, 31, 25) === 0b0001001 && rd === 0) return info(4, 'sfence.vma', -1, rs1);
    return unknown(4);
  }
  const name = CSR[funct3]!;
  if (name === '') return unknown(4);
  // The immediate forms put a 5-bit constant where rs1 would be.
  return info(4, name, rd, funct3 >= 5 ? -1 : rs1);
}

/** Registers x8..x15 of the 3-bit compressed register fields. */
function creg(field: number): number {
  return field + 8;
}

function classify16(inst: number, pc: bigint, xlen: Xlen): InstructionInfo {
  if (inst === 0) return info(2, 'c.unimp', -1, -1, { control: 'illegal' });
  const quadrant = bits(inst, 1, 0);
  const funct3 = bits(inst, 15, 13);
  const rdFull = bits(inst, 11, 7);
  const rs2Full = bits(inst, 6, 2);
  const rdPrime = creg(bits(inst, 4, 2));
  const rs1Prime = creg(bits(inst, 9, 7));
  // imm[5] in bit 12, imm[4:0] in bits 6:2 (c.li, c.addi, c.addiw, c.andi, c.lui's nzimm[17:12]).
  const imm6 = sext((bits(inst, 12, 12) << 5) | rs2Full, 6);
  const c = (mnemonic: string, rd: number, rs1: number, extra: Partial<InstructionInfo> = {}): InstructionInfo =>
    info(2, mnemonic, rd, rs1, extra);

  if (quadrant === 0) {
    switch (funct3) {
      case 0: // nzuimm == 0 is reserved
        return bits(inst, 12, 5) === 0 ? unknown(2) : c('c.addi4spn', rdPrime, 2);
      case 1:
        return c('c.fld', rdPrime, rs1Prime);
      case 2:
        return c('c.lw', rdPrime, rs1Prime);
      case 3:
        return xlen === 64 ? c('c.ld', rdPrime, rs1Prime) : c('c.flw', rdPrime, rs1Prime);
      case 5:
        return c('c.fsd', -1, rs1Prime);
      case 6:
        return c('c.sw', -1, rs1Prime);
      case 7:
        return xlen === 64 ? c('c.sd', -1, rs1Prime) : c('c.fsw', -1, rs1Prime);
      default:
        return unknown(2);
    }
  }

  if (quadrant === 1) {
    switch (funct3) {
      case 0:
        return rdFull === 0 ? c('c.nop', 0, 0) : c('c.addi', rdFull, rdFull);
      case 1:
        // The same bits are c.jal in RV32 and c.addiw in RV64.
        if (xlen === 64) return rdFull === 0 ? unknown(2) : c('c.addiw', rdFull, rdFull);
        return c('c.jal', 1, -1, { control: 'jump', itype: jalItype(1), target: wrap(pc + BigInt(cjOffset(inst)), xlen) });
      case 2:
        return c('c.li', rdFull, 0);
      case 3:
        if (imm6 === 0) return unknown(2); // reserved for both c.addi16sp and c.lui
        if (rdFull === 2) return c('c.addi16sp', 2, 2);
        return c('c.lui', rdFull, -1, { constantLoadRd: rdFull });
      case 4:
        return classifyMiscAlu(inst, xlen, rs1Prime, rdPrime);
      case 5:
        return c('c.j', 0, -1, { control: 'jump', itype: jalItype(0), target: wrap(pc + BigInt(cjOffset(inst)), xlen) });
      default: {
        // c.beqz / c.bnez: offset[8|4:3] in bits 12:10, offset[7:6|2:1|5] in bits 6:2
        const offset =
          (sext(bits(inst, 12, 12), 1) << 8) |
          (bits(inst, 6, 5) << 6) |
          (bits(inst, 2, 2) << 5) |
          (bits(inst, 11, 10) << 3) |
          (bits(inst, 4, 3) << 1);
        const name = funct3 === 6 ? 'c.beqz' : 'c.bnez';
        return c(name, -1, rs1Prime, { control: 'branch', target: wrap(pc + BigInt(offset), xlen) });
      }
    }
  }

  if (quadrant === 2) {
    switch (funct3) {
      case 0: // RV32: shamt[5] = 1 is reserved
        return xlen === 32 && bits(inst, 12, 12) === 1 ? unknown(2) : c('c.slli', rdFull, rdFull);
      case 1:
        return c('c.fldsp', rdFull, 2);
      case 2:
        return rdFull === 0 ? unknown(2) : c('c.lwsp', rdFull, 2);
      case 3:
        if (xlen === 32) return c('c.flwsp', rdFull, 2);
        return rdFull === 0 ? unknown(2) : c('c.ldsp', rdFull, 2);
      case 4:
        return classifyJrMvAdd(inst, rdFull, rs2Full);
      case 5:
        return c('c.fsdsp', -1, 2);
      case 6:
        return c('c.swsp', -1, 2);
      default:
        return xlen === 64 ? c('c.sdsp', -1, 2) : c('c.fswsp', -1, 2);
    }
  }
  // Quadrant 3 is a 32-bit instruction; instructionLength never sends it here.
  return unknown(2);
}

/** c.j / c.jal: offset[11|4|9:8|10|6|7|3:1|5] in bits 12:2. */
function cjOffset(inst: number): number {
  return (
    (sext(bits(inst, 12, 12), 1) << 11) |
    (bits(inst, 8, 8) << 10) |
    (bits(inst, 10, 9) << 8) |
    (bits(inst, 6, 6) << 7) |
    (bits(inst, 7, 7) << 6) |
    (bits(inst, 2, 2) << 5) |
    (bits(inst, 11, 11) << 4) |
    (bits(inst, 5, 3) << 1)
  );
}

/** Quadrant 1, funct3 100: c.srli, c.srai, c.andi and the register-register ALU group. */
function classifyMiscAlu(inst: number, xlen: Xlen, rd: number, rs2: number): InstructionInfo {
  const group = bits(inst, 11, 10);
  const bit12 = bits(inst, 12, 12);
  if (group === 0 || group === 1) {
    if (xlen === 32 && bit12 === 1) return unknown(2); // shamt[5] reserved in RV32
    return info(2, group === 0 ? 'c.srli' : 'c.srai', rd, rd);
  }
  if (group === 2) return info(2, 'c.andi', rd, rd);
  const op = bits(inst, 6, 5);
  if (bit12 === 0) return info(2, ['c.sub', 'c.xor', 'c.or', 'c.and'][op]!, rd, rd);
  if (xlen === 64 && op < 2) return info(2, op === 0 ? 'c.subw' : 'c.addw', rd, rd);
  return unknown(2);
}

/**
 * Quadrant 2, funct3 100. bit 12 = 0: c.jr (rs2 = 0) or c.mv; bit 12 = 1: c.ebreak (rs1 = rs2 = 0),
 * c.jalr (rs2 = 0) or c.add. c.jr with rs1 = x0 is reserved, c.mv/c.add with rd = x0 are hints.
 */
function classifyJrMvAdd(inst: number, rs1: number, rs2: number): InstructionInfo {
  if (bits(inst, 12, 12) === 0) {
    if (rs2 !== 0) return info(2, 'c.mv', rs1, 0); // add rd, x0, rs2
    if (rs1 === 0) return unknown(2);
    return info(2, 'c.jr', 0, rs1, { control: 'jump', itype: jalrItype(0, rs1) });
  }
  if (rs2 !== 0) return info(2, 'c.add', rs1, rs1);
  if (rs1 === 0) return info(2, 'c.ebreak', -1, -1, { control: 'exception', itype: Itype.exception });
  return info(2, 'c.jalr', 1, rs1, { control: 'jump', itype: jalrItype(1, rs1) });
}

/** Jumps whose target comes from a register: jalr, c.jr and c.jalr (itype 8, 10, 12, 13, 14). */
function isRegisterJump(i: InstructionInfo): boolean {
  return i.control === 'jump' && isUninferableJump(i.itype);
}

/** Section 4.1.1: the jump is sequentially inferable when it is an uninferable jump (jalr, c.jr, c.jalr)
 *  whose rs1 is the rd of an immediately preceding lui, auipc or c.lui (rd != 0). */
export function isSequentiallyInferable(prev: InstructionInfo, jump: InstructionInfo): boolean {
  // rd = x0 discards the constant (lui x0 is a hint), so nothing links the pair.
  return (
    prev.constantLoadRd !== undefined &&
    prev.constantLoadRd !== 0 &&
    isRegisterJump(jump) &&
    jump.rs1 === prev.constantLoadRd
  );
}

/** The target a sequentially inferable pair computes: auipc: prevPc + (imm20<<12) + jalr imm; lui/c.lui:
 *  sign-extended (imm<<12) + jalr imm (c.jr/c.jalr have imm 0); lowest bit cleared; wrapped to XLEN.
 *  Throws when the pair is not sequentially inferable. */
export function sequentialTarget(prevEncoding: number, prevPc: bigint, jumpEncoding: number, xlen: Xlen): bigint {
  const prev = classify(prevEncoding, prevPc, xlen);
  const jump = classify(jumpEncoding, prevPc + BigInt(prev.length), xlen);
  if (!isSequentiallyInferable(prev, jump)) {
    throw new Error(`${prev.mnemonic} followed by ${jump.mnemonic} is not a sequentially inferable jump`);
  }
  let base: bigint;
  if (prev.length === 2) {
    // c.lui: nzimm[17:12], sign-extended from bit 17
    base = BigInt(sext((bits(prevEncoding, 12, 12) << 5) | bits(prevEncoding, 6, 2), 6)) << 12n;
  } else {
    // lui/auipc: imm20 << 12, sign-extended from bit 31 (this matters in RV64)
    base = BigInt((prevEncoding & 0xfffff000) | 0);
    if (prev.mnemonic === 'auipc') base += prevPc;
  }
  const offset = jump.length === 4 ? sext(bits(jumpEncoding >>> 0, 31, 20), 12) : 0;
  return wrap((base + BigInt(offset)) & ~1n, xlen);
}
