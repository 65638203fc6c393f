/**
 * A small two-pass assembler for generated programs: items with labels, a layout pass that
 * relaxes compressed jumps and branches whose target turns out to be out of reach, and an encoding
 * pass. Each instruction can carry a `Behaviour` that tells the executor how it acts at run time
 * (the image alone cannot say whether a branch is taken or where a jalr goes).
 */
import * as enc from '../isa/encode.ts';
import type { BranchOp } from '../isa/encode.ts';

/** How an instruction behaves when executed; the executor's only source of dynamic decisions. */
export type Behaviour =
  | { kind: 'load' }
  | { kind: 'if'; pTaken: number }
  | { kind: 'loop' }
  | { kind: 'recurse-guard'; fn: string }
  | { kind: 'trap-kind-guard' }
  | { kind: 'call'; targets: string[] }
  | { kind: 'tail'; targets: string[] }
  | { kind: 'jump'; targets: string[] }
  /** A return to the address its call pushed plus `skip` bytes (0 when absent). */
  | { kind: 'return'; skip?: number }
  | { kind: 'swap-out'; targets: string[] }
  | { kind: 'swap-back' }
  | { kind: 'xret' }
  | { kind: 'enter-user' }
  | { kind: 'context-write' }
  | { kind: 'trap' };

export type { BranchOp };

type Item =
  | { op: 'raw'; encoding: number; length: 2 | 4; behaviour?: Behaviour }
  | { op: 'label'; name: string }
  | { op: 'align'; bytes: number }
  | { op: 'branch'; cond: BranchOp; rs1: number; rs2: number; target: string; short: boolean; behaviour: Behaviour }
  /** jal rd, target; `short` tries c.j (rd 0) or c.jal (rd 1, RV32). */
  | { op: 'jal'; rd: number; target: string; short: boolean; behaviour: Behaviour }
  /** auipc rd, %pcrel_hi(target) then jalr link, %pcrel_lo(rd): a sequentially inferable pair. */
  | { op: 'auipc-jalr'; rd: number; link: number; target: string; behaviour: Behaviour }
  /** lui rd, %hi(target) then jalr link, %lo(rd): absolute, for targets in the low 2 GiB. */
  | { op: 'lui-jalr'; rd: number; link: number; target: string; behaviour: Behaviour };

export interface AssembledInstruction {
  address: bigint;
  length: 2 | 4;
  encoding: number;
  behaviour?: Behaviour;
}

export interface Section {
  base: bigint;
  bytes: Uint8Array;
  instructions: AssembledInstruction[];
}

const C_BRANCH_REGS = (r: number): boolean => r >= 8 && r <= 15;

export class Assembler {
  private readonly items: Item[] = [];
  constructor(
    readonly base: bigint,
    private readonly xlen: 32 | 64,
    private readonly compressed: boolean,
  ) {}

  label(name: string): this {
    this.items.push({ op: 'label', name });
    return this;
  }
  align(bytes: number): this {
    this.items.push({ op: 'align', bytes });
    return this;
  }
  raw(encoding: number, behaviour?: Behaviour): this {
    const length = (encoding & 3) === 3 ? 4 : 2;
    if (length === 2 && !this.compressed) throw new Error('16-bit instruction in a program without the C extension');
    this.items.push({ op: 'raw', encoding: encoding >>> 0, length, behaviour });
    return this;
  }
  branch(cond: BranchOp, rs1: number, rs2: number, target: string, behaviour: Behaviour): this {
    // c.beqz/c.bnez exist for a compare with x0 on registers x8..x15.
    const short = this.compressed && rs2 === 0 && C_BRANCH_REGS(rs1) && (cond === 'beq' || cond === 'bne');
    this.items.push({ op: 'branch', cond, rs1, rs2, target, short, behaviour });
    return this;
  }
  jal(rd: number, target: string, behaviour: Behaviour, preferShort = true): this {
    const short = preferShort && this.compressed && (rd === 0 || (rd === 1 && this.xlen === 32));
    this.items.push({ op: 'jal', rd, target, short, behaviour });
    return this;
  }
  auipcJalr(rd: number, link: number, target: string, behaviour: Behaviour): this {
    this.items.push({ op: 'auipc-jalr', rd, link, target, behaviour });
    return this;
  }
  luiJalr(rd: number, link: number, target: string, behaviour: Behaviour): this {
    this.items.push({ op: 'lui-jalr', rd, link, target, behaviour });
    return this;
  }

  private size(item: Item): number {
    switch (item.op) {
      case 'raw':
        return item.length;
      case 'label':
      case 'align':
        return 0; // alignment padding is computed during layout
      case 'branch':
      case 'jal':
        return item.short ? 2 : 4;
      case 'auipc-jalr':
      case 'lui-jalr':
        return 8;
    }
  }

  /** Addresses of every label; relaxes short forms until every target is in reach. */
  layout(): Map<string, bigint> {
    for (;;) {
      const labels = new Map<string, bigint>();
      let addr = this.base;
      for (const item of this.items) {
        if (item.op === 'label') {
          if (labels.has(item.name)) throw new Error(`label ${item.name} defined twice`);
          labels.set(item.name, addr);
        } else if (item.op === 'align') {
          addr = alignUp(addr, item.bytes);
        }
        addr += BigInt(this.size(item));
      }
      // Relax: a short branch or jump whose target is out of its range becomes the 32-bit form.
      let changed = false;
      addr = this.base;
      for (const item of this.items) {
        if (item.op === 'align') addr = alignUp(addr, item.bytes);
        if ((item.op === 'branch' || item.op === 'jal') && item.short) {
          const target = labels.get(item.target);
          if (target === undefined) throw new Error(`undefined label ${item.target}`);
          const off = Number(target - addr);
          const reach = item.op === 'branch' ? 256 : 2048;
          if (off < -reach || off >= reach) {
            item.short = false;
            changed = true;
          }
        }
        addr += BigInt(this.size(item));
      }
      if (!changed) return labels;
    }
  }

  /** Encodes every item; `external` resolves labels defined in other sections. */
  assemble(labels: Map<string, bigint>, external: (name: string) => bigint | undefined = () => undefined): Section {
    const resolve = (name: string): bigint => {
      const a = labels.get(name) ?? external(name);
      if (a === undefined) throw new Error(`undefined label ${name}`);
      return a;
    };
    const out: AssembledInstruction[] = [];
    const bytes: number[] = [];
    let addr = this.base;
    const emit = (encoding: number, length: 2 | 4, behaviour?: Behaviour): void => {
      out.push({ address: addr, length, encoding: encoding >>> 0, behaviour });
      for (let i = 0; i < length; i++) bytes.push((encoding >>> (8 * i)) & 0xff);
      addr += BigInt(length);
    };
    for (const item of this.items) {
      switch (item.op) {
        case 'label':
          break;
        case 'align':
          // Padding is never executed; c.nop / nop keep a disassembly readable.
          while (addr % BigInt(item.bytes) !== 0n) {
            if (this.compressed && addr % 4n !== 0n) emit(enc.cNop(), 2);
            else emit(enc.nop(), 4);
          }
          break;
        case 'raw':
          emit(item.encoding, item.length, item.behaviour);
          break;
        case 'branch': {
          const off = Number(resolve(item.target) - addr);
          if (item.short) {
            const e = item.cond === 'beq' ? enc.cBeqz(item.rs1, off) : enc.cBnez(item.rs1, off);
            emit(e, 2, item.behaviour);
          } else {
            emit(enc.branch(item.cond, item.rs1, item.rs2, off), 4, item.behaviour);
          }
          break;
        }
        case 'jal': {
          const off = Number(resolve(item.target) - addr);
          if (item.short) emit(item.rd === 0 ? enc.cJ(off) : enc.cJal(off), 2, item.behaviour);
          else emit(enc.jal(item.rd, off), 4, item.behaviour);
          break;
        }
        case 'auipc-jalr': {
          const off = resolve(item.target) - addr;
          const { hi20, lo12 } = enc.splitOffset(off, this.xlen);
          emit(enc.auipc(item.rd, hi20), 4);
          emit(enc.jalr(item.link, item.rd, lo12), 4, item.behaviour);
          break;
        }
        case 'lui-jalr': {
          const { hi20, lo12 } = enc.splitAbsolute(resolve(item.target), this.xlen);
          emit(enc.lui(item.rd, hi20), 4);
          emit(enc.jalr(item.link, item.rd, lo12), 4, item.behaviour);
          break;
        }
      }
    }
    return { base: this.base, bytes: Uint8Array.from(bytes), instructions: out };
  }
}

export function alignUp(addr: bigint, bytes: number): bigint {
  const b = BigInt(bytes);
  return ((addr + b - 1n) / b) * b;
}
