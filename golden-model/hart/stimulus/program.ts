/**
 * Builds a random but valid program: real RV32/RV64 (+C) encodings laid out in two regions.
 *
 *   ROM  (rom_base)   reset vector: a few set-up instructions, then an auipc+jalr pair into the
 *                     code region; at rom_base+0x1000 library leaf functions called through
 *                     c.lui/lui + jalr pairs (absolute constants need low addresses).
 *   code (code_base)  entry (mret into main at the lowest privilege), main's endless loop of calls,
 *                     the M and S trap handlers, the generated functions and co-routines (and,
 *                     with call runs, their leaf).
 * The placement knob moves both regions (regionBases): code at 0 with the ROM above it, or code
 * in the upper half of an RV64 address space far above the ROM.
 *
 * Control flow is real: branch and jal offsets point at their targets, auipc/lui pairs compute
 * their jump targets, returns go back through the link register the call used (x1, or x5 for
 * millicode-style functions). What the image cannot say (branch outcomes, jalr targets) is in each
 * instruction's `Behaviour`, which the executor follows.
 *
 * Register conventions: x1/x5 link registers, x15 (a5) function pointers, x6 (t1) the constant of
 * sequentially inferable pairs, x28 (t3) jump-table targets, x7 (t2) the rd of other jumps. Filler
 * instructions never write these, so no filler can form an accidental sequentially inferable pair.
 */
import { RvError } from '../../common/errors.ts';
import type { Rng } from '../../common/rng.ts';
import * as enc from '../isa/encode.ts';
import { Assembler, type Behaviour, type BranchOp, type Section } from './asm.ts';
import type { Placement, StimulusKnobs } from './knobs.ts';

const RA = 1;
const SP = 2;
const GP = 3;
const T0 = 5;
const T1 = 6;
const T2 = 7;
const A5 = 15;
const T3 = 28;
/** Registers fillers may write: s0, s1, a0-a4 (x8-x14, the compressed set minus a5) and s2-s11. */
const FILLER_REGS = [8, 9, 10, 11, 12, 13, 14, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27];
/** The statements every program may have (weights w_straight .. w_illegal); the optional ones follow. */
const FIXED_STATEMENTS = 13;
const C_FILLER_REGS = [8, 9, 10, 11, 12, 13, 14];
const CSR_MEPC = 0x341;
const CSR_MSCRATCH = 0x340;
const CSR_SEPC = 0x141;
const CSR_SSCRATCH = 0x140;
const CSR_SATP = 0x180;

export type FunctionKind = 'normal' | 'recursive' | 'millicode' | 'coroutine';

export interface ProgramLayout {
  sections: Section[];
  /** Label addresses: reset, entry, main, mtrap, strap, f<i>, co<i>, rom<i>. */
  labels: Map<string, bigint>;
  resetVector: bigint;
  mtrap: bigint;
  strap: bigint;
  /** Privilege main runs at. */
  userPriv: number;
  functionKinds: Map<string, FunctionKind>;
}

interface Fn {
  name: string;
  kind: FunctionKind;
  index: number;
}
/** The calls of a call run (w_call_run) and the leaf they call. */
export const CALL_RUN_MIN = 256;
export const CALL_RUN_MAX = 264;
export const CALL_RUN_LEAF = 'leaf';
/** The leaf that skip-return calls (w_skip_return) call, and the bytes it skips after its call. */
export const SKIP_RETURN_LEAF = 'skip-leaf';
const SKIPPED_BYTES = 4;
/** The never-taken branches of a run of checks (w_checks). */
export const CHECKS_MIN = 64;
export const CHECKS_MAX = 72;
/** The checks of a loop of checks (w_checks), whose body then fits 128 bytes. */
const LOOP_CHECKS_MIN = 24;
const LOOP_CHECKS_MAX = 30;

/** main: may call every function, has no caller to return to. */
const MAIN: Fn = { name: 'main', kind: 'normal', index: -1 };

/** The upper half of an Sv39/Sv48/Sv57 virtual address space starts at -2^38, -2^47, -2^56. */
const UPPER_HALF: Readonly<Record<'sv39' | 'sv48' | 'sv57', bigint>> = {
  sv39: BigInt.asUintN(64, -(1n << 38n)),
  sv48: BigInt.asUintN(64, -(1n << 47n)),
  sv57: BigInt.asUintN(64, -(1n << 56n)),
};
/** The ROM of the `low` placement: 1 MiB above the code region at address 0. */
const LOW_ROM = 0x10_0000n;

/** The bases of the ROM and code regions the knobs ask for (knobs.ts Placement). */
export function regionBases(k: Pick<StimulusKnobs, 'placement' | 'rom_base' | 'code_base' | 'xlen'>): { rom: bigint; code: bigint } {
  const p: Placement = k.placement;
  if (p === 'default') return { rom: k.rom_base, code: k.code_base };
  if (p === 'low') return { rom: LOW_ROM, code: 0n };
  if (k.xlen !== 64) throw new RvError('bad-option', `knob placement=${p}: expected default or low on an RV${k.xlen} hart (${p} is an RV64 address space)`);
  return { rom: k.rom_base, code: UPPER_HALF[p] };
}

export function buildProgram(knobs: StimulusKnobs, rng: Rng): ProgramLayout {
  const gen = new Generator(knobs, rng);
  return gen.build();
}

class Generator {
  private readonly rom: Assembler;
  private readonly code: Assembler;
  private labelCounter = 0;
  private readonly fns: Fn[] = [];
  private readonly coroutines: string[] = [];
  private readonly romFns = ['rom0', 'rom1'];
  /** Bases of the ROM and code regions (the placement knob). */
  private readonly romBase: bigint;
  private readonly codeBase: bigint;

  constructor(
    private readonly k: StimulusKnobs,
    private readonly rng: Rng,
  ) {
    const { rom, code } = regionBases(k);
    this.romBase = rom;
    this.codeBase = code;
    this.rom = new Assembler(rom, k.xlen, k.compressed);
    this.code = new Assembler(code, k.xlen, k.compressed);
  }

  build(): ProgramLayout {
    const k = this.k;
    for (let i = 0; i < k.functions; i++) {
      // The first function recurses; a quarter of the rest are millicode-style (link in x5).
      const kind: FunctionKind = i === 0 ? 'recursive' : i % 4 === 3 ? 'millicode' : this.rng.chance(0.15) ? 'recursive' : 'normal';
      this.fns.push({ name: `f${i}`, kind, index: i });
    }
    for (let i = 0; i < Math.max(1, Math.floor(k.functions / 8)); i++) this.coroutines.push(`co${i}`);

    this.buildRom();
    this.buildEntryAndMain();
    this.buildHandler('mtrap', 'M');
    if (k.privileges === 'MSU') this.buildHandler('strap', 'S');
    for (const f of this.fns) this.buildFunction(f);
    for (const c of this.coroutines) this.buildCoroutine(c);
    if (k.w_call_run > 0) this.buildCallRunLeaf();
    if (k.w_skip_return > 0) this.buildSkipReturnLeaf();

    const romLabels = this.rom.layout();
    const codeLabels = this.code.layout();
    const all = new Map([...romLabels, ...codeLabels]);
    const rom = this.rom.assemble(romLabels, (n) => all.get(n));
    const code = this.code.assemble(codeLabels, (n) => all.get(n));
    const kinds = new Map<string, FunctionKind>(this.fns.map((f) => [f.name, f.kind]));
    return {
      sections: [rom, code],
      labels: all,
      resetVector: all.get('reset')!,
      mtrap: all.get('mtrap')!,
      strap: all.get('strap') ?? all.get('mtrap')!,
      userPriv: k.privileges === 'M' ? 3 : 0,
      functionKinds: kinds,
    };
  }

  private local(prefix: string): string {
    return `${prefix}.L${this.labelCounter++}`;
  }

  // ---------------------------------------------------------------- fillers

  /** One random sequential instruction. */
  private filler(a: Assembler): void {
    const rng = this.rng;
    const rd = rng.pick(FILLER_REGS);
    const rs = rng.pick(FILLER_REGS);
    const c = this.k.compressed && rng.chance(0.45);
    if (c) {
      const crd = rng.pick(C_FILLER_REGS);
      switch (rng.int(0, 5)) {
        case 0:
          a.raw(enc.cAddi(crd, rng.int(1, 31)));
          return;
        case 1:
          a.raw(enc.cLi(crd, rng.int(-32, 31)));
          return;
        case 2:
          a.raw(enc.cMv(crd, rng.pick(C_FILLER_REGS)));
          return;
        case 3:
          a.raw(enc.cAdd(crd, rng.pick(C_FILLER_REGS)));
          return;
        case 4:
          a.raw(enc.cLw(crd, rng.pick(C_FILLER_REGS), 4 * rng.int(0, 31)), { kind: 'load' });
          return;
        default:
          a.raw(enc.cSw(rng.pick(C_FILLER_REGS), rng.pick(C_FILLER_REGS), 4 * rng.int(0, 31)));
          return;
      }
    }
    switch (rng.int(0, 8)) {
      case 0:
        a.raw(enc.addi(rd, rs, rng.int(-2048, 2047)));
        return;
      case 1:
        a.raw(enc.add(rd, rs, rng.pick(FILLER_REGS)));
        return;
      case 2:
        a.raw(enc.xor(rd, rs, rng.pick(FILLER_REGS)));
        return;
      case 3:
        a.raw(enc.slli(rd, rs, rng.int(0, this.k.xlen - 1)));
        return;
      case 4:
        a.raw(this.k.xlen === 64 && rng.chance(0.5) ? enc.ld(rd, SP, 8 * rng.int(0, 255)) : enc.lw(rd, GP, 4 * rng.int(-512, 511)), {
          kind: 'load',
        });
        return;
      case 5:
        a.raw(this.k.xlen === 64 && rng.chance(0.5) ? enc.sd(rs, SP, 8 * rng.int(0, 255)) : enc.sw(rs, GP, 4 * rng.int(-512, 511)));
        return;
      case 6:
        a.raw(enc.lui(rd, rng.int(0, 0xfffff)));
        return;
      case 7:
        a.raw(enc.sub(rd, rs, rng.pick(FILLER_REGS)));
        return;
      default:
        a.raw(enc.and(rd, rs, rng.pick(FILLER_REGS)));
        return;
    }
  }

  private fillers(a: Assembler, min: number, max: number): void {
    const n = this.rng.int(min, max);
    for (let i = 0; i < n; i++) this.filler(a);
  }

  private randomCond(): BranchOp {
    return this.rng.pick<BranchOp>(['beq', 'bne', 'blt', 'bge', 'bltu', 'bgeu']);
  }

  /** A conditional branch comparing filler registers, or a c.beqz/c.bnez candidate. */
  private condBranch(a: Assembler, target: string, behaviour: Behaviour): void {
    if (this.k.compressed && this.rng.chance(0.4)) {
      a.branch(this.rng.chance(0.5) ? 'beq' : 'bne', this.rng.pick(C_FILLER_REGS), 0, target, behaviour);
    } else {
      a.branch(this.randomCond(), this.rng.pick(FILLER_REGS), this.rng.pick(FILLER_REGS), target, behaviour);
    }
  }

  // ---------------------------------------------------------------- regions

  private buildRom(): void {
    const a = this.rom;
    a.label('reset');
    this.fillers(a, 3, 6);
    // Into the code region with an auipc + jalr x0 pair: a sequentially inferable tail call.
    // auipc + jalr reach pc + 0x7ffff7ff at most; the pair sits a few bytes above rom_base.
    const reach = this.codeBase - this.romBase;
    if (reach <= 0x7ffff000n) {
      a.auipcJalr(T1, 0, 'entry', { kind: 'tail', targets: ['entry'] });
    } else {
      // Too far for auipc: load the address (not modelled) and jump through a register.
      a.raw(enc.ld(A5, GP, 0));
      a.raw(enc.jalr(0, A5, 0), { kind: 'tail', targets: ['entry'] });
    }
    // Library leaf functions at a 4 KiB boundary, so c.lui alone can form their address.
    a.align(0x1000);
    for (const name of this.romFns) {
      a.align(0x100);
      a.label(name);
      this.fillers(a, 2, 8);
      if (this.k.compressed && this.rng.chance(0.5)) a.raw(enc.cJr(RA), { kind: 'return' });
      else a.raw(enc.jalr(0, RA, 0), { kind: 'return' });
    }
  }

  private buildEntryAndMain(): void {
    const a = this.code;
    a.label('entry');
    this.fillers(a, 2, 5);
    if (this.k.privileges === 'M') {
      a.jal(0, 'main', { kind: 'tail', targets: ['main'] });
    } else {
      // mepc = main, MPP = U: mret drops to user mode.
      a.raw(enc.csrrw(0, CSR_MEPC, 10));
      a.raw(enc.mret(), { kind: 'enter-user' });
    }
    a.align(4);
    a.label('main');
    this.fillers(a, 1, 4);
    a.label('main.loop');
    const calls = Math.max(4, Math.min(12, this.fns.length));
    for (let i = 0; i < calls; i++) {
      this.statement(a, MAIN, 1);
      this.fillers(a, 0, 3);
    }
    a.jal(0, 'main.loop', { kind: 'jump', targets: ['main.loop'] });
  }

  /**
   * A trap handler. It saves state, then a branch on the trap kind skips the "advance the EPC past
   * the trapping instruction" code for interrupts and faults (which re-execute), then returns.
   * The S handler may make an SBI call (ecall to M) and switch context (a satp write).
   */
  private buildHandler(name: 'mtrap' | 'strap', level: 'M' | 'S'): void {
    const a = this.code;
    a.align(64);
    a.label(name);
    const scratch = level === 'M' ? CSR_MSCRATCH : CSR_SSCRATCH;
    const epc = level === 'M' ? CSR_MEPC : CSR_SEPC;
    a.raw(enc.csrrw(SP, scratch, SP));
    this.fillers(a, 1, 3);
    const skip = this.local(name);
    a.branch('bne', 8, 0, skip, { kind: 'trap-kind-guard' });
    a.raw(enc.csrrs(9, epc, 0));
    a.raw(enc.addi(9, 9, 4));
    a.raw(enc.csrrw(0, epc, 9));
    a.label(skip);
    this.fillers(a, 1, 4);
    if (level === 'S') {
      const noCall = this.local(name);
      a.branch('beq', 10, 0, noCall, { kind: 'if', pTaken: 0.8 });
      a.raw(enc.ecall());
      a.label(noCall);
      const noSwitch = this.local(name);
      a.branch('beq', 11, 0, noSwitch, { kind: 'if', pTaken: 0.85 });
      a.raw(enc.csrrw(0, CSR_SATP, 12), { kind: 'context-write' });
      a.label(noSwitch);
    } else {
      // A small loop, as a handler polling a status register would have.
      const top = this.local(name);
      a.label(top);
      this.fillers(a, 1, 3);
      this.condBranch(a, top, { kind: 'loop' });
    }
    this.fillers(a, 1, 3);
    if (this.k.w_checks > 0) this.checks(a, name);
    a.raw(enc.csrrw(SP, scratch, SP));
    a.raw(level === 'M' ? enc.mret() : enc.sret(), { kind: 'xret' });
  }

  private buildFunction(f: Fn): void {
    const a = this.code;
    a.align(this.k.compressed && this.rng.chance(0.5) ? 2 : 4);
    a.label(f.name);
    const budget = this.rng.int(3, 9);
    if (f.kind === 'recursive') {
      // if (depth allows) f(); -- the guard decides from the executor's recursion depth.
      const skip = this.local(f.name);
      this.fillers(a, 1, 3);
      a.branch('beq', 10, 0, skip, { kind: 'recurse-guard', fn: f.name });
      this.fillers(a, 0, 2);
      a.jal(RA, f.name, { kind: 'call', targets: [f.name] });
      a.label(skip);
    }
    for (let i = 0; i < budget; i++) this.statement(a, f, 0);
    this.fillers(a, 0, 2);
    this.emitReturn(a, f.kind === 'millicode' ? T0 : RA);
  }

  private emitReturn(a: Assembler, link: number): void {
    if (this.k.compressed && this.rng.chance(0.5)) a.raw(enc.cJr(link), { kind: 'return' });
    else a.raw(enc.jalr(0, link, 0), { kind: 'return' });
  }

  /** A co-routine: entered by a swap (jalr x1, x5 / c.jalr x5), left by a swap back (jalr x5, x1). */
  private buildCoroutine(name: string): void {
    const a = this.code;
    a.align(4);
    a.label(name);
    this.fillers(a, 2, 8);
    const skip = this.local(name);
    this.condBranch(a, skip, { kind: 'if', pTaken: 0.5 });
    this.fillers(a, 1, 3);
    a.label(skip);
    a.raw(enc.jalr(T0, RA, 0), { kind: 'swap-back' });
  }

  /** Functions `f` may call: later ones only, so the call graph has no cycles but self-recursion. */
  private callees(f: Fn, kind: 'normal' | 'millicode'): Fn[] {
    return this.fns.filter((g) => g.index > f.index && (kind === 'millicode' ? g.kind === 'millicode' : g.kind !== 'millicode'));
  }

  /**
   * One statement of a function body. `depth` bounds nesting; calls are likelier in main, so the
   * main loop spreads its time over the whole program. Millicode functions are leaves: they may not
   * call (their link register x5 is live), so they get no call statements.
   */
  private statement(a: Assembler, f: Fn, depth: number): void {
    const k = this.k;
    const inMain = f === MAIN;
    const leaf = f.kind === 'millicode';
    const w = [
      k.w_straight,
      k.w_if,
      depth < 2 ? k.w_loop : 0,
      leaf ? 0 : k.w_call * (inMain ? 4 : 1),
      leaf ? 0 : k.w_indirect_call * (inMain ? 3 : 1),
      leaf ? 0 : k.w_sijump_call * (inMain ? 3 : 1),
      // main has no caller to return to, and a recursive function must come back to its own frame.
      leaf || inMain || f.kind === 'recursive' ? 0 : k.w_tail_call,
      k.w_jump_table,
      k.w_other_jump,
      leaf ? 0 : k.w_swap,
      k.w_ecall,
      k.w_ebreak,
      k.w_illegal,
    ];
    // Appended only when used: an extra zero weight could still change a pick at the float edge.
    const optional: (() => void)[] = [];
    if (k.w_amo > 0) {
      w.push(k.w_amo);
      optional.push(() => this.atomic(a));
    }
    if (k.w_narrow > 0) {
      w.push(k.w_narrow);
      optional.push(() => this.narrowAccess(a));
    }
    if (k.w_call_run > 0) {
      w.push(leaf ? 0 : k.w_call_run);
      optional.push(() => this.callRun(a));
    }
    if (k.w_checks > 0) {
      w.push(k.w_checks);
      optional.push(() => this.checksStatement(a, f.name));
    }
    if (k.w_skip_return > 0) {
      // A call: not from a leaf, whose link register is live.
      w.push(leaf ? 0 : k.w_skip_return);
      optional.push(() => this.skipReturnStatement(a, f.name));
    }
    const pick = this.rng.weighted(w);
    if (pick >= FIXED_STATEMENTS) return optional[pick - FIXED_STATEMENTS]!();
    switch (pick) {
      case 0:
        this.fillers(a, 1, 6);
        return;
      case 1:
        return this.ifStatement(a, f, depth);
      case 2:
        return this.loopStatement(a, f, depth);
      case 3:
        return this.directCall(a, f);
      case 4:
        return this.indirectCall(a, f);
      case 5:
        return this.sijumpCall(a, f);
      case 6:
        return this.tailCall(a, f);
      case 7:
        return this.jumpTable(a, f);
      case 8:
        return this.otherJump(a, f);
      case 9:
        return this.swap(a);
      case 10:
        a.raw(enc.ecall(), { kind: 'trap' });
        return;
      case 11:
        a.raw(this.k.compressed && this.rng.chance(0.5) ? enc.cEbreak() : enc.ebreak(), { kind: 'trap' });
        return;
      default:
        a.raw(this.k.compressed && this.rng.chance(0.5) ? enc.cUnimp() : enc.unimp(), { kind: 'trap' });
        return;
    }
  }

  /**
   * A run of 256 to 264 direct calls in a row (jal ra) to a leaf without branches: 256 returns
   * that the return stack predicts, with no branch between them, more than the Implicit Return
   * extension's irets (8 bits) counts, so the 256th is reported with irets 255.
   */
  private callRun(a: Assembler): void {
    const n = this.rng.int(CALL_RUN_MIN, CALL_RUN_MAX);
    for (let i = 0; i < n; i++) a.jal(RA, CALL_RUN_LEAF, { kind: 'call', targets: [CALL_RUN_LEAF] }, false);
  }

  /**
   * A run of CHECKS_MIN..CHECKS_MAX error checks: conditional branches to the end of the run that
   * are never taken. A predictor reset to "not taken" gets each right, so even after a map with a
   * failed prediction (sent when it holds 31 branches) at least 31 correct predictions follow.
   */
  private checks(a: Assembler, owner: string, min = CHECKS_MIN, max = CHECKS_MAX): void {
    const fail = this.local(owner);
    const n = this.rng.int(min, max);
    for (let i = 0; i < n; i++) this.condBranch(a, fail, { kind: 'if', pTaken: 0 });
    a.label(fail);
  }

  /**
   * A run of checks, or (half the time) a loop whose body is a shorter one, as validating every
   * element of an array would be: the loop branch is predicted right until the loop ends, so in
   * about 40 iterations more than 1,024 correct predictions come in a row. The loop's 24 to 30
   * checks and its branch take less than 128 bytes, so no two of them share an entry of a 64-entry
   * predictor indexed by address bits 6:1.
   */
  private checksStatement(a: Assembler, owner: string): void {
    if (!this.rng.chance(0.5)) return this.checks(a, owner);
    const top = this.local(owner);
    a.label(top);
    this.checks(a, owner, LOOP_CHECKS_MIN, LOOP_CHECKS_MAX);
    // About 50 elements (a mean of 1 / (1 - 0.98) iterations), whatever loop_continue says.
    this.condBranch(a, top, { kind: 'if', pTaken: 0.98 });
  }

  /**
   * A run of checks, then a loop of a few iterations whose body calls the skip-return leaf, which
   * returns past the word after the call (an inline argument): the return goes to the call's
   * address + 8, not to the + 4 the call pushed, so a return stack mispredicts it and its target
   * is reported with irreport. The first report comes after 31 and more correct predictions (F0
   * SF0 with an address); the next iterations report the same target again, which a jump target
   * cache then holds (F0 SF1).
   */
  private skipReturnStatement(a: Assembler, owner: string): void {
    this.checks(a, owner);
    const top = this.local(owner);
    a.label(top);
    a.jal(RA, SKIP_RETURN_LEAF, { kind: 'call', targets: [SKIP_RETURN_LEAF] }, false);
    // The skipped word: never executed (a nop holding the argument, should it be).
    a.raw(enc.addi(0, 0, this.rng.int(0, 2047)));
    this.fillers(a, 0, 2);
    // About three iterations, whatever loop_continue says.
    this.condBranch(a, top, { kind: 'if', pTaken: 0.7 });
  }

  /** The leaf of skipReturnStatement: `jalr x0, 4(ra)`, a return past the word after its call. */
  private buildSkipReturnLeaf(): void {
    const a = this.code;
    a.align(4);
    a.label(SKIP_RETURN_LEAF);
    a.raw(enc.jalr(0, RA, SKIPPED_BYTES), { kind: 'return', skip: SKIPPED_BYTES });
  }

  /**
   * The leaf the call runs call: a bare return (no branch, no call, no load that could fault), so a
   * run is about 2 x 256 instructions for an interrupt to fall into.
   */
  private buildCallRunLeaf(): void {
    const a = this.code;
    a.align(4);
    a.label(CALL_RUN_LEAF);
    this.emitReturn(a, RA);
  }

  /** Byte and half-word loads and stores on globals (naturally aligned): each size, each direction. */
  private narrowAccess(a: Assembler): void {
    const rng = this.rng;
    for (const bytes of [1, 2]) {
      const offset = bytes * rng.int(0, 255);
      const reg = rng.pick(FILLER_REGS);
      const load = bytes === 1 ? rng.pick([enc.lb, enc.lbu]) : rng.pick([enc.lh, enc.lhu]);
      if (rng.chance(0.5)) a.raw(load(reg, GP, offset), { kind: 'load' });
      else a.raw((bytes === 1 ? enc.sb : enc.sh)(reg, GP, offset));
    }
  }

  /** An AMO on one of 64 globals: addi rd, gp, offset; amo<op> rd2, rs2, (rd). */
  private atomic(a: Assembler): void {
    const rng = this.rng;
    const width = this.k.xlen === 64 && rng.chance(0.5) ? 8 : 4;
    const ptr = rng.pick(FILLER_REGS);
    a.raw(enc.addi(ptr, GP, width * rng.int(0, 63)));
    const ops: enc.AmoOp[] = ['add', 'swap', 'xor', 'or', 'and', 'min', 'max', 'minu', 'maxu'];
    a.raw(enc.amo(rng.pick(ops), width, rng.pick(FILLER_REGS), rng.pick(FILLER_REGS), ptr));
  }

  private ifStatement(a: Assembler, f: Fn, depth: number): void {
    const els = this.local(f.name);
    this.condBranch(a, els, { kind: 'if', pTaken: this.rng.pick([0.1, 0.5, 0.9]) });
    this.fillers(a, 1, 4);
    if (depth < 2 && this.rng.chance(0.3)) this.statement(a, f, depth + 1);
    if (this.rng.chance(0.4)) {
      // if-else: the then-part jumps over the else-part.
      const end = this.local(f.name);
      a.jal(0, end, { kind: 'jump', targets: [end] });
      a.label(els);
      this.fillers(a, 1, 4);
      a.label(end);
    } else {
      a.label(els);
    }
  }

  private loopStatement(a: Assembler, f: Fn, depth: number): void {
    const top = this.local(f.name);
    a.label(top);
    this.fillers(a, 1, 5);
    if (this.rng.chance(0.3)) this.statement(a, f, depth + 1);
    this.condBranch(a, top, { kind: 'loop' });
  }

  private directCall(a: Assembler, f: Fn): void {
    const milli = this.rng.chance(0.25) ? this.callees(f, 'millicode') : [];
    if (milli.length > 0) {
      const g = this.rng.pick(milli);
      a.jal(T0, g.name, { kind: 'call', targets: [g.name] });
      return;
    }
    const callees = this.callees(f, 'normal');
    if (callees.length === 0) return this.fillers(a, 1, 2);
    const g = this.rng.pick(callees);
    a.jal(RA, g.name, { kind: 'call', targets: [g.name] }, this.rng.chance(0.5));
  }

  private indirectCall(a: Assembler, f: Fn): void {
    const milli = this.rng.chance(0.2);
    const pool = this.callees(f, milli ? 'millicode' : 'normal');
    if (pool.length === 0) return this.fillers(a, 1, 2);
    const targets = [...new Set([this.rng.pick(pool), this.rng.pick(pool), this.rng.pick(pool)].map((g) => g.name))];
    a.raw(this.k.xlen === 64 ? enc.ld(A5, GP, 8 * this.rng.int(0, 63)) : enc.lw(A5, GP, 4 * this.rng.int(0, 63)));
    if (milli) a.raw(enc.jalr(T0, A5, 0), { kind: 'call', targets });
    else if (this.k.compressed && this.rng.chance(0.5)) a.raw(enc.cJalr(A5), { kind: 'call', targets });
    else a.raw(enc.jalr(RA, A5, 0), { kind: 'call', targets });
  }

  /** auipc + jalr to a function, or lui / c.lui + jalr / c.jalr to a ROM function. */
  private sijumpCall(a: Assembler, f: Fn): void {
    const choice = this.rng.int(0, 2);
    if (choice === 0) {
      const pool = this.callees(f, 'normal');
      if (pool.length === 0) return this.fillers(a, 1, 2);
      const g = this.rng.pick(pool);
      a.auipcJalr(T1, RA, g.name, { kind: 'call', targets: [g.name] });
      return;
    }
    // The ROM functions sit in the low 2 GiB: lui can form their address on RV32 and RV64.
    if (choice === 1 && this.k.compressed && this.romReachableByCLui()) {
      // c.lui t1, rom0>>12 ; c.jalr t1  (rom0 is 4 KiB aligned)
      const rom0 = this.romBase + 0x1000n;
      a.raw(enc.cLui(T1, Number(rom0 >> 12n)));
      a.raw(enc.cJalr(T1), { kind: 'call', targets: ['rom0'] });
      return;
    }
    const target = this.rng.pick(this.romFns);
    a.luiJalr(T1, RA, target, { kind: 'call', targets: [target] });
  }

  /** c.lui takes a 6-bit signed, non-zero immediate: addresses 0x1000..0x1f000. */
  private romReachableByCLui(): boolean {
    const rom0 = this.romBase + 0x1000n;
    return rom0 % 0x1000n === 0n && rom0 >= 0x1000n && rom0 <= 0x1f000n;
  }

  private tailCall(a: Assembler, f: Fn): void {
    const pool = this.callees(f, 'normal');
    if (pool.length === 0) return this.fillers(a, 1, 2);
    if (this.rng.chance(0.5)) {
      const g = this.rng.pick(pool);
      a.jal(0, g.name, { kind: 'tail', targets: [g.name] });
    } else {
      const targets = [...new Set([this.rng.pick(pool), this.rng.pick(pool)].map((g) => g.name))];
      a.raw(this.k.xlen === 64 ? enc.ld(A5, GP, 8 * this.rng.int(0, 63)) : enc.lw(A5, GP, 4 * this.rng.int(0, 63)));
      if (this.k.compressed && this.rng.chance(0.5)) a.raw(enc.cJr(A5), { kind: 'tail', targets });
      else a.raw(enc.jalr(0, A5, 0), { kind: 'tail', targets });
    }
    // The code after a tail call is reached only by branches that jump over it; keep it valid.
    const after = this.local(f.name);
    a.label(after);
  }

  /** switch through a jump table: jalr x7, 0(x28) (rd not a link register: "other" uninferable). */
  private jumpTable(a: Assembler, f: Fn): void {
    const cases = [this.local(f.name), this.local(f.name), this.local(f.name)];
    const end = this.local(f.name);
    a.raw(this.k.xlen === 64 ? enc.ld(T3, GP, 8 * this.rng.int(0, 63)) : enc.lw(T3, GP, 4 * this.rng.int(0, 63)));
    a.raw(enc.jalr(T2, T3, 0), { kind: 'jump', targets: cases });
    for (const c of cases) {
      a.label(c);
      this.fillers(a, 1, 3);
      a.jal(0, end, { kind: 'jump', targets: [end] });
    }
    a.label(end);
  }

  /** jal x7, label: an inferable jump that is neither call nor tail call. */
  private otherJump(a: Assembler, f: Fn): void {
    const over = this.local(f.name);
    a.jal(T2, over, { kind: 'jump', targets: [over] });
    this.fillers(a, 1, 2); // skipped
    a.label(over);
  }

  private swap(a: Assembler): void {
    const co = this.rng.pick(this.coroutines);
    a.raw(this.k.xlen === 64 ? enc.ld(T0, GP, 8 * this.rng.int(0, 63)) : enc.lw(T0, GP, 4 * this.rng.int(0, 63)));
    if (this.k.compressed && this.rng.chance(0.5)) a.raw(enc.cJalr(T0), { kind: 'swap-out', targets: [co] });
    else a.raw(enc.jalr(RA, T0, 0), { kind: 'swap-out', targets: [co] });
  }
}
