/**
 * Executes the control flow of a generated program and records what a single-retirement hart
 * would present to the trace encoder, one record per cycle.
 *
 * The executor does not model data: where the program's behaviour depends on register values (is
 * this branch taken, which function does this pointer hold) it follows the instruction's
 * `Behaviour` and draws from the random generator. Everything else comes from the real encodings:
 * each instruction is classified from its bits (never from the generator's intent), direct targets
 * are the encoded ones, and a sequentially inferable pair is flagged only when the target its two
 * instructions compute is the one taken.
 *
 * Events injected between instructions: interrupts (in non-handler code), page faults on loads,
 * an M-mode interrupt on S-handler entry (a second trap before the handler retires anything),
 * context changes (ctype 1 on a satp write, 2 on a process switch at sret, 3 asynchronously),
 * trigger pulses (trace on/off/notify), idle cycles and long stalls, halts and resets.
 */
import type { Rng } from '../../common/rng.ts';
import { classify, type InstructionInfo, isSequentiallyInferable, sequentialTarget, branchItype } from '../isa/classify.ts';
import { Ctype, Itype, Priv, type RetirementRecord, Trigger } from '../records.ts';
import type { AssembledInstruction, Behaviour } from './asm.ts';
import type { StimulusKnobs } from './knobs.ts';
import type { ProgramLayout } from './program.ts';

type Frame =
  | { kind: 'call'; ret: bigint; fn: string }
  | { kind: 'swap'; ret: bigint }
  | { kind: 'trap'; ret: bigint; priv: number; reexecute: boolean };

/** Exception and interrupt causes (RISC-V privileged spec, mcause). */
const Cause = {
  illegalInstruction: 2,
  breakpoint: 3,
  ecallU: 8,
  ecallS: 9,
  ecallM: 11,
  loadPageFault: 13,
  supervisorTimer: 5,
  machineTimer: 7,
} as const;

/** Exceptions from U that go to the S handler (the rest go to M). */
const DELEGATED_TO_S: ReadonlySet<number> = new Set([Cause.ecallU, Cause.loadPageFault]);

/**
 * The handler a trap went to, from the privilege it runs at (the privilege field of a trap packet):
 * what a decoder in implicit exception mode needs to know about this program.
 */
export function trapHandler(layout: ProgramLayout, handlerPrivilege: number): bigint {
  return handlerPrivilege === Priv.S ? layout.strap : layout.mtrap;
}

export class Executor {
  private readonly byAddress = new Map<bigint, AssembledInstruction>();
  private readonly infoCache = new Map<bigint, InstructionInfo>();
  private out: RetirementRecord[] = [];

  private pc: bigint;
  private priv: number = Priv.M;
  private frames: Frame[] = [];
  private context = 0n;
  private pendingCtype = 0;
  private traceOn = true;
  private cycle = 0n;
  private retired = 0;
  /** The instruction retired last, if nothing (trap, reset) came between it and now, and its classification. */
  private prev: AssembledInstruction | undefined;
  private prevInfo: InstructionInfo | undefined;

  constructor(
    private readonly layout: ProgramLayout,
    private readonly k: StimulusKnobs,
    private readonly rng: Rng,
  ) {
    for (const s of layout.sections) for (const i of s.instructions) this.byAddress.set(i.address, i);
    this.pc = layout.resetVector;
  }

  /** Runs until `count` instructions have retired. */
  run(count: number): RetirementRecord[] {
    while (this.retired < count) this.step();
    return this.out;
  }

  /**
   * The same records as `run`, handed over in chunks of about `size` records (whole steps; a step
   * never changes a record it handed over), so that a consumer that drops each chunk after use
   * holds memory independent of `count`.
   */
  *chunks(count: number, size: number): Generator<RetirementRecord[]> {
    while (this.retired < count) {
      this.step();
      if (this.out.length >= size) {
        const chunk = this.out;
        this.out = [];
        yield chunk;
      }
    }
    if (this.out.length > 0) {
      const chunk = this.out;
      this.out = [];
      yield chunk;
    }
  }

  private label(name: string): bigint {
    const a = this.layout.labels.get(name);
    if (a === undefined) throw new Error(`stimulus: no label ${name}`);
    return a;
  }

  private info(insn: AssembledInstruction): InstructionInfo {
    let i = this.infoCache.get(insn.address);
    if (!i) {
      i = classify(insn.encoding, insn.address, this.k.xlen);
      this.infoCache.set(insn.address, i);
    }
    return i;
  }

  private record(fields: Partial<RetirementRecord>): RetirementRecord {
    // Every field written in one literal, in the order of emptyRecord(): all records share one
    // object shape, which keeps the consumers' field reads (model, frame writer) monomorphic.
    const r: RetirementRecord = {
      itype: fields.itype ?? 0,
      iretire: fields.iretire ?? 0,
      ilastsize: fields.ilastsize ?? 1,
      iaddr: fields.iaddr ?? this.pc,
      priv: fields.priv ?? this.priv,
      cause: fields.cause ?? 0,
      tval: fields.tval ?? 0n,
      context: fields.context ?? this.context,
      ctype: fields.ctype ?? 0,
      sijump: fields.sijump ?? false,
      trigger: fields.trigger ?? 0,
      halted: fields.halted ?? false,
      reset: fields.reset ?? false,
      impdef: fields.impdef ?? 0,
      time: fields.time ?? this.cycle,
      sameCycle: fields.sameCycle ?? false,
    };
    this.cycle++;
    this.out.push(r);
    return r;
  }

  private get inHandler(): boolean {
    return this.frames.some((f) => f.kind === 'trap');
  }

  private step(): void {
    const k = this.k;
    const rng = this.rng;
    // Asynchronous events happen at instruction boundaries.
    if (rng.chance(k.reset_rate)) return this.reset();
    if (rng.chance(k.halt_rate)) this.halt();
    if (rng.chance(k.idle_rate)) this.record({});
    // Tested only when used, so that streams without long stalls stay what they were.
    if (k.long_stall_rate > 0 && rng.chance(k.long_stall_rate)) for (let i = 0; i < k.long_stall_cycles; i++) this.record({});
    if (!this.inHandler && rng.chance(k.interrupt_rate)) return this.interrupt();
    if (rng.chance(k.async_context_rate)) this.changeContext(Ctype.asynchronous);

    const insn = this.byAddress.get(this.pc);
    if (!insn) throw new Error(`stimulus: execution reached 0x${this.pc.toString(16)}, which holds no instruction`);
    const info = this.info(insn);
    const b = insn.behaviour;

    if (b?.kind === 'load' && !this.inHandler && rng.chance(k.fault_rate)) {
      // The load does not complete: the trap retires nothing and the handler re-executes it.
      return this.trap(Itype.exception, Cause.loadPageFault, rng.u64() & this.addressMask(), this.pc, true);
    }

    switch (info.control) {
      case 'sequential':
        this.retire(insn, info, Itype.none, insn.address + BigInt(insn.length));
        if (b?.kind === 'context-write') this.changeContext(Ctype.imprecise);
        return;
      case 'branch': {
        const taken = this.branchTaken(b, insn);
        this.retire(insn, info, branchItype(taken), taken ? info.target! : insn.address + BigInt(insn.length));
        return;
      }
      case 'jump':
        return this.jump(insn, info, b);
      case 'trap-return':
        return this.trapReturn(insn, info, b);
      case 'exception': {
        // ecall / ebreak retire, then trap; the handler resumes after them.
        const cause = info.mnemonic === 'ecall' ? this.ecallCause() : Cause.breakpoint;
        const tval = info.mnemonic === 'ecall' ? 0n : insn.address;
        const r = this.retire(insn, info, Itype.exception, insn.address);
        r.cause = cause;
        r.tval = tval;
        this.enterHandler(cause, false, insn.address + BigInt(insn.length), false);
        return;
      }
      case 'illegal':
        // The illegal instruction does not retire; the handler emulates it and skips it.
        return this.trap(Itype.exception, Cause.illegalInstruction, BigInt(insn.encoding), insn.address + BigInt(insn.length), false);
    }
  }

  private addressMask(): bigint {
    return (1n << BigInt(this.k.xlen)) - 1n;
  }

  private ecallCause(): number {
    return this.priv === Priv.U ? Cause.ecallU : this.priv === Priv.S ? Cause.ecallS : Cause.ecallM;
  }

  /**
   * Emits the record of a retired instruction, with the pending context report and triggers. The
   * record is written out here rather than through `record()`: this is the record of nearly every
   * step, and building a fields object for `record()` to read back made the generator about 1.4x
   * slower (chunked, as the co-simulations draw it).
   */
  private retire(insn: AssembledInstruction, info: InstructionInfo, itype: number, next: bigint): RetirementRecord {
    const trigger = this.triggers();
    // The fields in the order of emptyRecord(), as record() writes them (one object shape).
    const r: RetirementRecord = {
      itype,
      iretire: insn.length / 2,
      ilastsize: insn.length === 4 ? 1 : 0,
      iaddr: this.pc,
      priv: this.priv,
      cause: 0,
      tval: 0n,
      context: this.context,
      ctype: this.pendingCtype,
      sijump: false,
      trigger,
      halted: false,
      reset: false,
      impdef: 0,
      time: this.cycle,
      sameCycle: false,
    };
    this.cycle++;
    this.out.push(r);
    this.pendingCtype = 0;
    this.retired++;
    this.prev = insn;
    this.prevInfo = info;
    this.pc = next;
    return r;
  }

  private triggers(): number {
    const k = this.k;
    let t = 0;
    if (this.traceOn && this.rng.chance(k.trace_off_rate)) {
      t |= Trigger.traceOff;
      this.traceOn = false;
    } else if (!this.traceOn && this.rng.chance(k.trace_on_rate)) {
      t |= Trigger.traceOn;
      this.traceOn = true;
    }
    if (this.rng.chance(k.notify_rate)) t |= Trigger.notify;
    return t;
  }

  private branchTaken(b: Behaviour | undefined, insn: AssembledInstruction): boolean {
    switch (b?.kind) {
      case 'if':
        return this.rng.chance(b.pTaken);
      case 'loop':
        return this.rng.chance(this.k.loop_continue);
      case 'recurse-guard': {
        const depth = this.frames.filter((f) => f.kind === 'call' && f.fn === b.fn).length;
        return depth >= this.k.max_recursion || this.rng.chance(0.35);
      }
      case 'trap-kind-guard': {
        const top = this.topTrap();
        return top.reexecute;
      }
      default:
        throw new Error(`stimulus: branch at 0x${insn.address.toString(16)} has no behaviour`);
    }
  }

  private topTrap(): Extract<Frame, { kind: 'trap' }> {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.kind === 'trap') return f;
    }
    throw new Error(`stimulus: trap handler code at 0x${this.pc.toString(16)} runs outside a trap`);
  }

  private jump(insn: AssembledInstruction, info: InstructionInfo, b: Behaviour | undefined): void {
    const at = `0x${insn.address.toString(16)}`;
    let next: bigint;
    switch (b?.kind) {
      case 'call':
      case 'tail':
      case 'jump':
      case 'swap-out': {
        const name = this.rng.pick(b.targets);
        next = this.label(name);
        if (b.kind === 'call') this.frames.push({ kind: 'call', ret: insn.address + BigInt(insn.length), fn: name });
        if (b.kind === 'swap-out') this.frames.push({ kind: 'swap', ret: insn.address + BigInt(insn.length) });
        break;
      }
      case 'return':
      case 'swap-back': {
        const f = this.frames.pop();
        const want = b.kind === 'return' ? 'call' : 'swap';
        if (!f || f.kind !== want) throw new Error(`stimulus: ${b.kind} at ${at} without a matching ${want} frame`);
        next = f.ret + BigInt(b.kind === 'return' ? (b.skip ?? 0) : 0);
        break;
      }
      default:
        throw new Error(`stimulus: jump at ${at} has no behaviour`);
    }
    if (info.target !== undefined && info.target !== next) {
      throw new Error(`stimulus: direct jump at ${at} encodes 0x${info.target.toString(16)} but behaves as 0x${next.toString(16)}`);
    }
    // Sequentially inferable: the constant load retired right before, and its value is the target.
    const prev = this.prev;
    const prevInfo = this.prevInfo!;
    const sijump =
      prev !== undefined &&
      prev.address + BigInt(prevInfo.length) === insn.address &&
      isSequentiallyInferable(prevInfo, info) &&
      sequentialTarget(prev.encoding, prev.address, insn.encoding, this.k.xlen) === next;
    const r = this.retire(insn, info, info.itype, next);
    r.sijump = sijump;
  }

  private trapReturn(insn: AssembledInstruction, info: InstructionInfo, b: Behaviour | undefined): void {
    if (b?.kind === 'enter-user') {
      this.retire(insn, info, Itype.trapReturn, this.label('main'));
      this.priv = this.layout.userPriv;
      return;
    }
    const f = this.frames.pop();
    if (!f || f.kind !== 'trap') throw new Error(`stimulus: xRET at 0x${insn.address.toString(16)} outside a trap`);
    const wasSret = info.mnemonic === 'sret';
    this.retire(insn, info, Itype.trapReturn, f.ret);
    this.priv = f.priv;
    if (wasSret && f.priv === Priv.U && this.rng.chance(this.k.context_switch_rate)) {
      this.changeContext(Ctype.precise);
    }
  }

  private changeContext(ctype: number): void {
    this.context = BigInt(this.rng.u32());
    // A later, stronger report wins over a weaker pending one (precise over imprecise).
    this.pendingCtype = Math.max(this.pendingCtype, ctype);
  }

  /** A trap that retires nothing: its record carries the EPC in iaddr. */
  private trap(itype: number, cause: number, tval: bigint, ret: bigint, reexecute: boolean): void {
    this.record({ itype, cause, tval });
    this.enterHandler(cause, itype === Itype.interrupt, ret, reexecute);
  }

  private interrupt(): void {
    const toS = this.k.privileges === 'MSU' && this.priv !== Priv.M && this.rng.chance(0.5);
    this.trap(Itype.interrupt, toS ? Cause.supervisorTimer : Cause.machineTimer, 0n, this.pc, true);
  }

  /** Chooses the handler (delegation to S for some traps from U), pushes the trap frame, jumps. */
  private enterHandler(cause: number, interrupt: boolean, ret: bigint, reexecute: boolean): void {
    const k = this.k;
    let toS = false;
    if (k.privileges === 'MSU' && this.priv === Priv.U) {
      // Delegation by cause, as medeleg/mideleg would set it: a decoder in implicit exception mode
      // can then find the handler from the cause alone.
      toS = interrupt ? cause === Cause.supervisorTimer : DELEGATED_TO_S.has(cause);
    }
    this.frames.push({ kind: 'trap', ret, priv: this.priv, reexecute });
    this.prev = undefined;
    if (toS) {
      this.pc = this.layout.strap;
      this.priv = Priv.S;
      if (this.rng.chance(k.nested_interrupt_rate)) {
        // An M-mode interrupt is taken before the S handler retires its first instruction.
        this.record({ itype: Itype.interrupt, cause: Cause.machineTimer });
        this.frames.push({ kind: 'trap', ret: this.pc, priv: Priv.S, reexecute: true });
        this.pc = this.layout.mtrap;
        this.priv = Priv.M;
      }
    } else {
      this.pc = this.layout.mtrap;
      this.priv = Priv.M;
    }
  }

  private halt(): void {
    const n = this.rng.int(1, 20);
    for (let i = 0; i < n; i++) this.record({ halted: true });
    this.prev = undefined;
  }

  private reset(): void {
    const n = this.rng.int(2, 10);
    this.priv = Priv.M;
    for (let i = 0; i < n; i++) this.record({ reset: true, context: 0n });
    this.pc = this.layout.resetVector;
    this.frames = [];
    this.context = 0n;
    this.pendingCtype = 0;
    this.prev = undefined;
  }
}
