/**
 * What an instruction does to architectural state, for deriving tandem-verification records from
 * QEMU's CPU-state log (derive.ts): the registers it writes, its memory access (base register,
 * offset, width, data source), its CSR operation, its floating-point operation (for fflags), its
 * control flow; plus a disassembly for reports.
 *
 * Length, mnemonic and destination/base registers of the integer, A, Zicsr, Zifencei and C
 * instructions come from the repository's ISA classifier (golden-model/hart/isa/classify.ts); this
 * file adds the operands the classifier does not extract (immediates, rs2, CSR numbers) and the
 * F/D computational instructions it leaves as 'unknown'. RV32/RV64 I, M, A, F, D, C, Zicsr,
 * Zifencei; anything else is `unknown` (the derivation refuses to guess what it does).
 */
import { classify } from '../../golden-model/hart/isa/classify.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import { CSR_NAMES } from '../../golden-model/tvtrace-decoder/names.ts';

export interface RegRef {
  readonly file: 'x' | 'f';
  readonly reg: number;
}

export type AmoOp = 'swap' | 'add' | 'xor' | 'and' | 'or' | 'min' | 'max' | 'minu' | 'maxu';

export interface MemEffect {
  readonly kind: 'load' | 'store' | 'amo' | 'lr' | 'sc';
  /** Base register (rs1). */
  readonly base: number;
  /** Signed offset added to the base (0 for A instructions). */
  readonly offset: number;
  readonly bytes: 1 | 2 | 4 | 8;
  /** Integer loads: the value is sign-extended (lb, lh, lw on RV64, ...); AMOs and lr of words too. */
  readonly signed: boolean;
  /** Register holding the data a store, AMO or sc writes (rs2). */
  readonly data?: RegRef;
  readonly amo?: AmoOp;
}

export interface CsrEffect {
  readonly csr: number;
  readonly op: 'rw' | 'rs' | 'rc';
  /** Source operand: a register (rs1) or a 5-bit immediate. */
  readonly src: { readonly reg: number } | { readonly imm: number };
  /** csrrw/csrrwi always write; csrrs/csrrc(i) only with a non-zero rs1 / immediate. */
  readonly writes: boolean;
}

export type FpOp =
  | 'add' | 'sub' | 'mul' | 'div' | 'sqrt'
  | 'sgnj' | 'sgnjn' | 'sgnjx' | 'min' | 'max'
  | 'madd' | 'msub' | 'nmsub' | 'nmadd'
  | 'eq' | 'lt' | 'le' | 'class'
  | 'cvt.f.f' | 'cvt.i.f' | 'cvt.f.i'
  | 'mv.x.f' | 'mv.f.x';

export interface FpEffect {
  readonly op: FpOp;
  /** Format of the operation (for conversions between formats: the destination's). */
  readonly fmt: 's' | 'd';
  /** Source format of cvt.f.f. */
  readonly srcFmt?: 's' | 'd';
  /** Rounding-mode field (7 = dynamic, frm). */
  readonly rm: number;
  readonly rs1: number;
  readonly rs2: number;
  readonly rs3: number;
  /** Integer side of cvt.i.f / cvt.f.i: w, wu, l, lu. */
  readonly int?: { readonly signed: boolean; readonly bits: 32 | 64 };
}

export type Control =
  | { readonly kind: 'sequential' }
  | { readonly kind: 'branch'; readonly target: bigint; readonly rs1: number; readonly rs2: number; readonly cond: string }
  | { readonly kind: 'jal'; readonly target: bigint }
  | { readonly kind: 'jalr'; readonly base: number; readonly offset: number }
  | { readonly kind: 'xret'; readonly which: 'mret' | 'sret' | 'uret' | 'dret' }
  | { readonly kind: 'ecall' | 'ebreak' | 'wfi' };

export interface InsnEffects {
  readonly length: 2 | 4;
  /** The encoding (16 or 32 bits). */
  readonly bits: number;
  readonly mnemonic: string;
  /** Disassembly with ABI register names, e.g. `addi a0, a1, -3`, `lw a5, 8(sp)`. */
  readonly text: string;
  /** The integer register written (as decoded: may be 0). */
  readonly rd?: number;
  /** The floating-point register written. */
  readonly frd?: number;
  readonly mem?: MemEffect;
  readonly csr?: CsrEffect;
  readonly fp?: FpEffect;
  readonly control: Control;
  /** Not an instruction this decoder knows (or reserved): the derivation stops on it. */
  readonly unknown?: boolean;
}

const X = [
  'zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2', 's0', 's1', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5',
  'a6', 'a7', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6',
];
const F = [
  'ft0', 'ft1', 'ft2', 'ft3', 'ft4', 'ft5', 'ft6', 'ft7', 'fs0', 'fs1', 'fa0', 'fa1', 'fa2', 'fa3', 'fa4', 'fa5',
  'fa6', 'fa7', 'fs2', 'fs3', 'fs4', 'fs5', 'fs6', 'fs7', 'fs8', 'fs9', 'fs10', 'fs11', 'ft8', 'ft9', 'ft10', 'ft11',
];
export const xName = (r: number): string => X[r] ?? `x${r}`;
export const fName = (r: number): string => F[r] ?? `f${r}`;

/** A CSR by its privileged-spec name (the decoder's table), else its number. */
export const csrText = (csr: number): string => CSR_NAMES.get(csr) ?? `0x${csr.toString(16)}`;

function bits(x: number, hi: number, lo: number): number {
  return (x >>> lo) & ((1 << (hi - lo + 1)) - 1);
}
function sext(x: number, width: number): number {
  const s = 32 - width;
  return (x << s) >> s;
}
const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

const LOAD_BYTES: Record<string, [1 | 2 | 4 | 8, boolean]> = {
  lb: [1, true], lh: [2, true], lw: [4, true], ld: [8, true], lbu: [1, false], lhu: [2, false], lwu: [4, false],
};
const STORE_BYTES: Record<string, 1 | 2 | 4 | 8> = { sb: 1, sh: 2, sw: 4, sd: 8 };
const AMO_OPS: Record<string, AmoOp> = {
  amoswap: 'swap', amoadd: 'add', amoxor: 'xor', amoand: 'and', amoor: 'or', amomin: 'min', amomax: 'max', amominu: 'minu', amomaxu: 'maxu',
};
const RM_TEXT = ['rne', 'rtz', 'rdn', 'rup', 'rmm', 'rm5', 'rm6', 'dyn'];

/** The effects of the instruction `encoding` (16 or 32 bits) at `pc`. */
export function decodeInsn(encoding: number, pc: bigint, xlen: Xlen): InsnEffects {
  const info = classify(encoding, pc, xlen);
  return info.length === 2 ? decode16(encoding & 0xffff, pc, xlen, info.mnemonic) : decode32(encoding >>> 0, pc, xlen, info.mnemonic, info.target);
}

const SEQ: Control = { kind: 'sequential' };

function unknownInsn(length: 2 | 4, enc: number, mnemonic = 'unknown'): InsnEffects {
  return { length, bits: enc, mnemonic, text: `${mnemonic} (0x${enc.toString(16).padStart(length * 2, '0')})`, control: SEQ, unknown: true };
}

function decode32(inst: number, pc: bigint, xlen: Xlen, mnemonic: string, target: bigint | undefined): InsnEffects {
  const opcode = bits(inst, 6, 0);
  const rd = bits(inst, 11, 7);
  const funct3 = bits(inst, 14, 12);
  const rs1 = bits(inst, 19, 15);
  const rs2 = bits(inst, 24, 20);
  const immI = sext(bits(inst, 31, 20), 12);
  const immS = sext((bits(inst, 31, 25) << 5) | bits(inst, 11, 7), 12);
  const base = { length: 4 as const, bits: inst, mnemonic };
  const m = mnemonic;

  if (m === 'unknown') {
    if (opcode === 0x53 || opcode === 0x43 || opcode === 0x47 || opcode === 0x4b || opcode === 0x4f) return decodeFp(inst, xlen);
    return unknownInsn(4, inst);
  }
  if (m === 'lui' || m === 'auipc') {
    return { ...base, text: `${m} ${xName(rd)}, ${hex(bits(inst, 31, 12))}`, rd, control: SEQ };
  }
  if (m === 'jal') return { ...base, text: `jal ${xName(rd)}, ${hex(target!)}`, rd, control: { kind: 'jal', target: target! } };
  if (m === 'jalr') return { ...base, text: `jalr ${xName(rd)}, ${immI}(${xName(rs1)})`, rd, control: { kind: 'jalr', base: rs1, offset: immI } };
  if (opcode === 0x63) {
    return { ...base, text: `${m} ${xName(rs1)}, ${xName(rs2)}, ${hex(target!)}`, control: { kind: 'branch', target: target!, rs1, rs2, cond: m } };
  }
  const load = LOAD_BYTES[m];
  if (load !== undefined) {
    return { ...base, text: `${m} ${xName(rd)}, ${immI}(${xName(rs1)})`, rd, mem: { kind: 'load', base: rs1, offset: immI, bytes: load[0], signed: load[1] }, control: SEQ };
  }
  const store = STORE_BYTES[m];
  if (store !== undefined) {
    return { ...base, text: `${m} ${xName(rs2)}, ${immS}(${xName(rs1)})`, mem: { kind: 'store', base: rs1, offset: immS, bytes: store, signed: false, data: { file: 'x', reg: rs2 } }, control: SEQ };
  }
  if (m === 'flw' || m === 'fld') {
    return { ...base, text: `${m} ${fName(rd)}, ${immI}(${xName(rs1)})`, frd: rd, mem: { kind: 'load', base: rs1, offset: immI, bytes: m === 'flw' ? 4 : 8, signed: false }, control: SEQ };
  }
  if (m === 'fsw' || m === 'fsd') {
    return {
      ...base,
      text: `${m} ${fName(rs2)}, ${immS}(${xName(rs1)})`,
      mem: { kind: 'store', base: rs1, offset: immS, bytes: m === 'fsw' ? 4 : 8, signed: false, data: { file: 'f', reg: rs2 } },
      control: SEQ,
    };
  }
  if (opcode === 0x13 || opcode === 0x1b) {
    // Shifts print the shamt, the rest the sign-extended immediate.
    const shift = funct3 === 1 || funct3 === 5;
    const imm = shift ? bits(inst, xlen === 64 && opcode === 0x13 ? 25 : 24, 20) : immI;
    return { ...base, text: `${m} ${xName(rd)}, ${xName(rs1)}, ${shift ? hex(imm) : imm}`, rd, control: SEQ };
  }
  if (opcode === 0x33 || opcode === 0x3b) return { ...base, text: `${m} ${xName(rd)}, ${xName(rs1)}, ${xName(rs2)}`, rd, control: SEQ };
  if (opcode === 0x2f) {
    const [op, width] = m.split('.') as [string, string];
    const bytes = width === 'd' ? 8 : 4;
    const order = `${bits(inst, 26, 26) ? '.aq' : ''}${bits(inst, 25, 25) ? '.rl' : ''}`;
    if (op === 'lr') {
      return { ...base, text: `${m}${order} ${xName(rd)}, (${xName(rs1)})`, rd, mem: { kind: 'lr', base: rs1, offset: 0, bytes, signed: true }, control: SEQ };
    }
    const kind = op === 'sc' ? 'sc' : 'amo';
    const amo = AMO_OPS[op];
    return {
      ...base,
      text: `${m}${order} ${xName(rd)}, ${xName(rs2)}, (${xName(rs1)})`,
      rd,
      mem: { kind, base: rs1, offset: 0, bytes, signed: true, data: { file: 'x', reg: rs2 }, ...(amo ? { amo } : {}) },
      control: SEQ,
    };
  }
  if (m === 'fence' || m === 'fence.i' || m === 'sfence.vma') return { ...base, text: m, control: SEQ };
  if (m === 'ecall' || m === 'ebreak' || m === 'wfi') return { ...base, text: m, control: { kind: m } };
  if (m === 'mret' || m === 'sret' || m === 'uret' || m === 'dret') return { ...base, text: m, control: { kind: 'xret', which: m } };
  if (m.startsWith('csrr')) {
    const csr = bits(inst, 31, 20);
    const imm = funct3 >= 5;
    const op = (['', 'rw', 'rs', 'rc'] as const)[funct3 & 3]!;
    if (op === '') return unknownInsn(4, inst);
    const src = imm ? { imm: rs1 } : { reg: rs1 };
    const writes = op === 'rw' || rs1 !== 0;
    return { ...base, text: `${m} ${xName(rd)}, ${csrText(csr)}, ${imm ? rs1 : xName(rs1)}`, rd, csr: { csr, op, src, writes }, control: SEQ };
  }
  if (m === 'unimp') return unknownInsn(4, inst, 'unimp');
  return unknownInsn(4, inst, m);
}

/** OP-FP and the fused multiply-adds (F and D; H and Q are unknown). */
function decodeFp(inst: number, xlen: Xlen): InsnEffects {
  const opcode = bits(inst, 6, 0);
  const rd = bits(inst, 11, 7);
  const rm = bits(inst, 14, 12);
  const rs1 = bits(inst, 19, 15);
  const rs2 = bits(inst, 24, 20);
  const fmtBits = bits(inst, 26, 25);
  if (fmtBits > 1) return unknownInsn(4, inst);
  const fmt = fmtBits === 0 ? 's' : 'd';
  const rmText = rm === 7 ? '' : `, ${RM_TEXT[rm]}`;
  const mk = (mnemonic: string, text: string, fp: FpEffect, dest: 'f' | 'x'): InsnEffects => ({
    length: 4,
    bits: inst,
    mnemonic,
    text: `${mnemonic} ${text}`,
    ...(dest === 'f' ? { frd: rd } : { rd }),
    fp,
    control: SEQ,
  });
  const fx = { rs1, rs2, rs3: 0, rm };
  if (opcode !== 0x53) {
    const op = (['madd', 'msub', 'nmsub', 'nmadd'] as const)[(opcode >> 2) & 3]!;
    const rs3 = bits(inst, 31, 27);
    const m = `f${op}.${fmt}`;
    return mk(m, `${fName(rd)}, ${fName(rs1)}, ${fName(rs2)}, ${fName(rs3)}${rmText}`, { op, fmt, rm, rs1, rs2, rs3 }, 'f');
  }
  const funct5 = bits(inst, 31, 27);
  const three = `${fName(rd)}, ${fName(rs1)}, ${fName(rs2)}`;
  switch (funct5) {
    case 0x00:
    case 0x01:
    case 0x02:
    case 0x03: {
      const op = (['add', 'sub', 'mul', 'div'] as const)[funct5]!;
      return mk(`f${op}.${fmt}`, `${three}${rmText}`, { op, fmt, ...fx }, 'f');
    }
    case 0x0b:
      if (rs2 !== 0) break;
      return mk(`fsqrt.${fmt}`, `${fName(rd)}, ${fName(rs1)}${rmText}`, { op: 'sqrt', fmt, ...fx }, 'f');
    case 0x04: {
      const op = (['sgnj', 'sgnjn', 'sgnjx'] as const)[rm];
      if (op === undefined) break;
      return mk(`f${op}.${fmt}`, three, { op, fmt, ...fx }, 'f');
    }
    case 0x05: {
      const op = (['min', 'max'] as const)[rm];
      if (op === undefined) break;
      return mk(`f${op}.${fmt}`, three, { op, fmt, ...fx }, 'f');
    }
    case 0x08: {
      // fcvt.s.d (fmt s, rs2 = 1) and fcvt.d.s (fmt d, rs2 = 0).
      if (rs2 !== (fmtBits === 0 ? 1 : 0)) break;
      const srcFmt = fmt === 's' ? 'd' : 's';
      return mk(`fcvt.${fmt}.${srcFmt}`, `${fName(rd)}, ${fName(rs1)}${rmText}`, { op: 'cvt.f.f', fmt, srcFmt, ...fx }, 'f');
    }
    case 0x14: {
      const op = (['le', 'lt', 'eq'] as const)[rm];
      if (op === undefined) break;
      return mk(`f${op}.${fmt}`, `${xName(rd)}, ${fName(rs1)}, ${fName(rs2)}`, { op, fmt, ...fx }, 'x');
    }
    case 0x18:
    case 0x1a: {
      const int = [{ n: 'w', signed: true, bits: 32 }, { n: 'wu', signed: false, bits: 32 }, { n: 'l', signed: true, bits: 64 }, { n: 'lu', signed: false, bits: 64 }][rs2];
      if (int === undefined || (int.bits === 64 && xlen === 32)) break;
      const i = { signed: int.signed, bits: int.bits as 32 | 64 };
      return funct5 === 0x18
        ? mk(`fcvt.${int.n}.${fmt}`, `${xName(rd)}, ${fName(rs1)}${rmText}`, { op: 'cvt.i.f', fmt, int: i, ...fx }, 'x')
        : mk(`fcvt.${fmt}.${int.n}`, `${fName(rd)}, ${xName(rs1)}${rmText}`, { op: 'cvt.f.i', fmt, int: i, ...fx }, 'f');
    }
    case 0x1c:
      if (rs2 !== 0) break;
      if (rm === 0) {
        if (fmt === 'd' && xlen === 32) break;
        return mk(`fmv.x.${fmt === 's' ? 'w' : 'd'}`, `${xName(rd)}, ${fName(rs1)}`, { op: 'mv.x.f', fmt, ...fx }, 'x');
      }
      if (rm === 1) return mk(`fclass.${fmt}`, `${xName(rd)}, ${fName(rs1)}`, { op: 'class', fmt, ...fx }, 'x');
      break;
    case 0x1e:
      if (rs2 !== 0 || rm !== 0 || (fmt === 'd' && xlen === 32)) break;
      return mk(`fmv.${fmt === 's' ? 'w' : 'd'}.x`, `${fName(rd)}, ${xName(rs1)}`, { op: 'mv.f.x', fmt, ...fx }, 'f');
  }
  return unknownInsn(4, inst);
}

function decode16(inst: number, pc: bigint, xlen: Xlen, mnemonic: string): InsnEffects {
  const m = mnemonic;
  const base = { length: 2 as const, bits: inst, mnemonic: m };
  if (m === 'unknown' || m === 'c.unimp') return unknownInsn(2, inst, m);
  const rdFull = bits(inst, 11, 7);
  const rs2Full = bits(inst, 6, 2);
  const rdP = bits(inst, 4, 2) + 8;
  const rs1P = bits(inst, 9, 7) + 8;
  const imm6 = sext((bits(inst, 12, 12) << 5) | rs2Full, 6);
  // Offsets of the compressed loads and stores (scaled, unsigned).
  const offW = (bits(inst, 12, 10) << 3) | (bits(inst, 6, 6) << 2) | (bits(inst, 5, 5) << 6);
  const offD = (bits(inst, 12, 10) << 3) | (bits(inst, 6, 5) << 6);
  const offLwsp = (bits(inst, 12, 12) << 5) | (bits(inst, 6, 4) << 2) | (bits(inst, 3, 2) << 6);
  const offLdsp = (bits(inst, 12, 12) << 5) | (bits(inst, 6, 5) << 3) | (bits(inst, 4, 2) << 6);
  const offSwsp = (bits(inst, 12, 9) << 2) | (bits(inst, 8, 7) << 6);
  const offSdsp = (bits(inst, 12, 10) << 3) | (bits(inst, 9, 7) << 6);
  const ld = (rd: number, file: 'x' | 'f', b: number, off: number, bytes: 4 | 8, signed: boolean): InsnEffects => ({
    ...base,
    text: `${m} ${file === 'x' ? xName(rd) : fName(rd)}, ${off}(${xName(b)})`,
    ...(file === 'x' ? { rd } : { frd: rd }),
    mem: { kind: 'load', base: b, offset: off, bytes, signed },
    control: SEQ,
  });
  const st = (src: number, file: 'x' | 'f', b: number, off: number, bytes: 4 | 8): InsnEffects => ({
    ...base,
    text: `${m} ${file === 'x' ? xName(src) : fName(src)}, ${off}(${xName(b)})`,
    mem: { kind: 'store', base: b, offset: off, bytes, signed: false, data: { file, reg: src } },
    control: SEQ,
  });
  switch (m) {
    case 'c.lw':
      return ld(rdP, 'x', rs1P, offW, 4, true);
    case 'c.ld':
      return ld(rdP, 'x', rs1P, offD, 8, true);
    case 'c.flw':
      return ld(rdP, 'f', rs1P, offW, 4, false);
    case 'c.fld':
      return ld(rdP, 'f', rs1P, offD, 8, false);
    case 'c.sw':
      return st(rdP, 'x', rs1P, offW, 4);
    case 'c.sd':
      return st(rdP, 'x', rs1P, offD, 8);
    case 'c.fsw':
      return st(rdP, 'f', rs1P, offW, 4);
    case 'c.fsd':
      return st(rdP, 'f', rs1P, offD, 8);
    case 'c.lwsp':
      return ld(rdFull, 'x', 2, offLwsp, 4, true);
    case 'c.ldsp':
      return ld(rdFull, 'x', 2, offLdsp, 8, true);
    case 'c.flwsp':
      return ld(rdFull, 'f', 2, offLwsp, 4, false);
    case 'c.fldsp':
      return ld(rdFull, 'f', 2, offLdsp, 8, false);
    case 'c.swsp':
      return st(rs2Full, 'x', 2, offSwsp, 4);
    case 'c.sdsp':
      return st(rs2Full, 'x', 2, offSdsp, 8);
    case 'c.fswsp':
      return st(rs2Full, 'f', 2, offSwsp, 4);
    case 'c.fsdsp':
      return st(rs2Full, 'f', 2, offSdsp, 8);
    case 'c.addi4spn': {
      const nzuimm = (bits(inst, 12, 11) << 4) | (bits(inst, 10, 7) << 6) | (bits(inst, 6, 6) << 2) | (bits(inst, 5, 5) << 3);
      return { ...base, text: `${m} ${xName(rdP)}, sp, ${nzuimm}`, rd: rdP, control: SEQ };
    }
    case 'c.nop':
      return { ...base, text: m, control: SEQ };
    case 'c.addi':
    case 'c.addiw':
    case 'c.li':
      return { ...base, text: `${m} ${xName(rdFull)}, ${imm6}`, rd: rdFull, control: SEQ };
    case 'c.addi16sp': {
      const nz = sext((bits(inst, 12, 12) << 9) | (bits(inst, 4, 3) << 7) | (bits(inst, 5, 5) << 6) | (bits(inst, 2, 2) << 5) | (bits(inst, 6, 6) << 4), 10);
      return { ...base, text: `${m} sp, ${nz}`, rd: 2, control: SEQ };
    }
    case 'c.lui':
      return { ...base, text: `${m} ${xName(rdFull)}, ${hex(imm6 & 0xfffff)}`, rd: rdFull, control: SEQ };
    case 'c.srli':
    case 'c.srai':
      return { ...base, text: `${m} ${xName(rs1P)}, ${hex((bits(inst, 12, 12) << 5) | rs2Full)}`, rd: rs1P, control: SEQ };
    case 'c.andi':
      return { ...base, text: `${m} ${xName(rs1P)}, ${imm6}`, rd: rs1P, control: SEQ };
    case 'c.sub':
    case 'c.xor':
    case 'c.or':
    case 'c.and':
    case 'c.subw':
    case 'c.addw':
      return { ...base, text: `${m} ${xName(rs1P)}, ${xName(rdP)}`, rd: rs1P, control: SEQ };
    case 'c.slli':
      return { ...base, text: `${m} ${xName(rdFull)}, ${hex((bits(inst, 12, 12) << 5) | rs2Full)}`, rd: rdFull, control: SEQ };
    case 'c.mv':
    case 'c.add':
      return { ...base, text: `${m} ${xName(rdFull)}, ${xName(rs2Full)}`, rd: rdFull, control: SEQ };
    case 'c.j':
    case 'c.jal': {
      const info = classify(inst, pc, xlen);
      return { ...base, text: `${m} ${hex(info.target!)}`, ...(m === 'c.jal' ? { rd: 1 } : {}), control: { kind: 'jal', target: info.target! } };
    }
    case 'c.jr':
      return { ...base, text: `${m} ${xName(rdFull)}`, control: { kind: 'jalr', base: rdFull, offset: 0 } };
    case 'c.jalr':
      return { ...base, text: `${m} ${xName(rdFull)}`, rd: 1, control: { kind: 'jalr', base: rdFull, offset: 0 } };
    case 'c.beqz':
    case 'c.bnez': {
      const info = classify(inst, pc, xlen);
      return { ...base, text: `${m} ${xName(rs1P)}, ${hex(info.target!)}`, control: { kind: 'branch', target: info.target!, rs1: rs1P, rs2: 0, cond: m === 'c.beqz' ? 'beq' : 'bne' } };
    }
    case 'c.ebreak':
      return { ...base, text: m, control: { kind: 'ebreak' } };
  }
  return unknownInsn(2, inst, m);
}

/** The disassembly of an instruction word for a report (`unknown (0x...)` when not decodable). */
export function disassemble(encoding: number, pc: bigint, xlen: Xlen): string {
  try {
    return decodeInsn(encoding, pc, xlen).text;
  } catch {
    return `unknown (0x${(encoding >>> 0).toString(16)})`;
  }
}
