/**
 * The PMU counter block, clock by clock: the reference the generated `pmu_top` is compared
 * against, CSR read-back by CSR read-back. Written from the privileged architecture (Zicntr,
 * Zihpm, mcountinhibit, the counter-enable registers, the H extension's hcounteren), Sscofpmf and
 * Smcntrpmf; docs/pmu-model.md states the rules and every decision where the specs leave a choice.
 *
 * One `step` = one clock (access.ts has the port timing):
 * 1. The CSR access is answered from the state at the start of the cycle; an access that raises
 *    an exception reads 0 and writes nothing.
 * 2. The cycle counts (docs/pmu-model.md "Counting"), still from the start-of-cycle state: the
 *    selectors, inhibits and filters in force are those before the cycle's write. An hpm counter
 *    that wraps sets its OF (Sscofpmf) and, if OF was clear, requests lcofi for the next cycle.
 * 3. The CSR write takes effect at the clock edge, after the counting: a counter written in the
 *    cycle is not counted in it, so a write never overflows.
 *
 * `step` is the only way the state changes (the SBI firmware layer drives the block through it
 * with M-mode CSR accesses); `state` and `peek` only look.
 */
import type { RetirementRecord } from '../hart/records.ts';
import type { PmuCsrAccess, PmuCsrResponse, PmuCycleInput, PmuCycleOutput } from './access.ts';
import { CY, eventOf, hpmCounters, IR, type PmuConfig, STREAM_EVENTS, type StreamEvent } from './config.ts';
import { type PmuCsr, pmuCsrDecode } from './csr-map.ts';
import {
  bit,
  cfgMask,
  counterEnableMask,
  counterMaskOf,
  countInhibitMask,
  csrLevel,
  csrReadOnly,
  EVENT_BITS,
  eventResetValue,
  legaliseEvent,
  modeInhibitBit,
  type PmuMode,
  readHalf,
  selectorMask,
  writeHalf,
  xlenMask,
} from './registers.ts';

/** Privilege encoding of records and accesses: 0 U, 1 S, 3 M, 4 debug. */
const PRIV_U = 0;
const PRIV_S = 1;
const PRIV_M = 3;
const PRIV_D = 4;

const OF = bit(EVENT_BITS.of);
const NOTHING: PmuCycleOutput = Object.freeze({ lcofi: false });
const LCOFI_ONLY: PmuCycleOutput = Object.freeze({ lcofi: true });

/** The inhibit bit of each counting mode as a bigint (computed once, not per cycle). */
const MODE_BIT: Readonly<Record<PmuMode, bigint>> = {
  m: bit(modeInhibitBit('m')),
  s: bit(modeInhibitBit('s')),
  u: bit(modeInhibitBit('u')),
  vs: bit(modeInhibitBit('vs')),
  vu: bit(modeInhibitBit('vu')),
};

/** The architectural state, for tests and dumps (copies; index n of the arrays is counter n). */
export interface PmuState {
  /** mcycle (0), minstret (2), mhpmcounter3..31; index 1 and unimplemented counters hold 0. */
  counters: bigint[];
  /** mhpmevent3..31 at indices 3..31 (64-bit, OF and the inhibit bits included); 0..2 hold 0. */
  events: bigint[];
  mcountinhibit: number;
  mcounteren: number;
  scounteren: number;
  hcounteren: number;
  mcyclecfg: bigint;
  minstretcfg: bigint;
  /** lcofi_o in the next cycle. */
  lcofi: boolean;
}

/** The outcome of the access checks (docs/pmu-model.md "Access rules"). */
export type PmuAccessFault = 'none' | 'illegal' | 'virtual';

/** The counter-enable registers the access checks read. */
export interface CounterEnables {
  mcounteren: number;
  hcounteren: number;
  scounteren: number;
}

/** The bit of STREAM_EVENTS' event `name` in a cycle's stream-event bitmap. */
function streamBit(name: StreamEvent): number {
  return 1 << STREAM_EVENTS.indexOf(name);
}

const EV_CYCLES = streamBit('cycles');
const EV_INSTRUCTIONS = streamBit('instructions');
const EV_BRANCHES = streamBit('branches');
const EV_TAKEN = streamBit('taken_branches');
const EV_CALLS = streamBit('calls');
const EV_RETURNS = streamBit('returns');
const EV_JUMPS = streamBit('jumps');
const EV_EXCEPTIONS = streamBit('exceptions');
const EV_INTERRUPTS = streamBit('interrupts');
const EV_TRAP_RETURNS = streamBit('trap_returns');

/** The stream events of a record's itype (docs/pmu-model.md, the events table), besides cycles and instructions. */
const ITYPE_EVENTS: readonly number[] = (() => {
  const t = new Array<number>(16).fill(0);
  t[1] = EV_EXCEPTIONS;
  t[2] = EV_INTERRUPTS;
  t[3] = EV_TRAP_RETURNS;
  t[4] = EV_BRANCHES;
  t[5] = EV_BRANCHES | EV_TAKEN;
  t[8] = t[9] = EV_CALLS;
  t[13] = EV_RETURNS;
  t[10] = t[11] = t[12] = t[14] = t[15] = EV_JUMPS;
  return t;
})();

/**
 * The stream events of a cycle in which the block counts (not halted, not in reset, not in debug
 * mode): cycles always; instructions when something retired and the record is not an exception
 * (an instruction that traps does not retire: ecall, ebreak, a faulting load); the itype's events.
 */
export function streamEvents(r: RetirementRecord): number {
  let e = EV_CYCLES | (ITYPE_EVENTS[r.itype] ?? 0);
  if (r.iretire > 0 && r.itype !== 1) e |= EV_INSTRUCTIONS;
  return e;
}

/**
 * The mode a cycle counts in: M for priv 3; S or U with V (V only with H). Debug mode (priv 4)
 * and the reserved priv 2 count nothing (docs/pmu-model.md "Counting").
 */
export function countingMode(c: PmuConfig, priv: number, v: boolean): PmuMode | undefined {
  const virt = v && c.hExt;
  if (priv === PRIV_M) return 'm';
  if (priv === PRIV_S) return virt ? 'vs' : 's';
  if (priv === PRIV_U) return virt ? 'vu' : 'u';
  return undefined;
}

/**
 * The privilege level of an access and its V (docs/pmu-model.md "Access rules"): M (and debug
 * mode) 3, HS 2, VS 1, U and VU 0. V only below M and only with H. The reserved priv 2 is
 * treated as U.
 */
export function accessLevel(c: PmuConfig, priv: number, v: boolean): { level: number; v: boolean } {
  if (priv === PRIV_M || priv === PRIV_D) return { level: 3, v: false };
  const virt = v && c.hExt && (priv === PRIV_S || priv === PRIV_U);
  if (priv === PRIV_S) return { level: virt ? 1 : 2, v: virt };
  return { level: 0, v: virt };
}

/**
 * The exception an access raises, in the order of Spike's `csr_t::verify_permissions` and
 * `counter_proxy_csr_t::verify_permissions` (docs/pmu-model.md "Access rules").
 */
export function accessFault(c: PmuConfig, address: number, write: boolean, priv: number, v: boolean, en: CounterEnables): PmuAccessFault {
  // 1. A CSR the configuration does not have.
  const csr = pmuCsrDecode(c, address);
  if (csr === undefined) return 'illegal';
  // 2. A write to a read-only CSR (bits 11..10 = 3).
  if (write && csrReadOnly(address)) return 'illegal';
  // 3. Privilege: "attempts to access a CSR without appropriate privilege level raise
  // illegal-instruction ... or virtual-instruction exceptions" (H: VS/VU accessing an S or H CSR).
  const a = accessLevel(c, priv, v);
  const level = csrLevel(address);
  if (a.level < level) return a.v && (level === 1 || level === 2) ? 'virtual' : 'illegal';
  // 4. The user counters below M: mcounteren, then hcounteren (V = 1), then scounteren (U, VU).
  if (csr.kind === 'user-counter' && a.level < 3) {
    const n = csr.index;
    if (((en.mcounteren >>> n) & 1) === 0) return 'illegal';
    if (a.v && ((en.hcounteren >>> n) & 1) === 0) return 'virtual';
    if (a.level === 0 && c.sMode && ((en.scounteren >>> n) & 1) === 0) return a.v ? 'virtual' : 'illegal';
  }
  return 'none';
}

/** A CSR write decided in the access phase and applied at the end of the cycle. */
interface PendingWrite {
  csr: PmuCsr;
  /** The written register's value at the start of the cycle (64 bits). */
  start: bigint;
  wdata: bigint;
  wmask: bigint;
}

/**
 * A counter's implemented bits (up to 64) as two 32-bit halves held in numbers. Counting allocates
 * nothing; a bigint add would allocate a new bigint for every counter every cycle, and that, not the
 * arithmetic, was most of a co-simulation's time.
 */
class CounterValue {
  private hi = 0;
  private lo = 0;
  private readonly loMax: number;
  private readonly hiMax: number;

  constructor(private readonly width: number) {
    this.loMax = width >= 32 ? 0xffff_ffff : 2 ** width - 1;
    this.hiMax = width > 32 ? 2 ** (width - 32) - 1 : 0;
  }

  get(): bigint {
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** Sets the value (bits above the width already cleared by the caller). */
  set(v: bigint): void {
    this.lo = Number(v & 0xffff_ffffn);
    this.hi = Number(v >> 32n);
  }

  /** Adds one; true when the implemented bits wrapped from all ones to 0. */
  increment(): boolean {
    if (this.lo !== this.loMax) {
      this.lo++;
      return false;
    }
    this.lo = 0;
    if (this.width <= 32) return true;
    if (this.hi !== this.hiMax) {
      this.hi++;
      return false;
    }
    this.hi = 0;
    return true;
  }
}

export class PmuUnit {
  readonly config: PmuConfig;
  /** The decode of every CSR number (undefined: not a PMU CSR here). */
  private readonly decode: (PmuCsr | undefined)[];
  /** The implemented mhpmcounter indices. */
  private readonly hpm: readonly number[];
  private readonly inputMask: number;
  private readonly enableMask: number;
  private readonly inhibitMask: number;
  private readonly cfgBits: bigint;
  private readonly xmask: bigint;

  // Architectural state.
  private readonly counters: CounterValue[];
  private readonly events: bigint[] = new Array<bigint>(32).fill(0n);
  private mcountinhibit = 0;
  private mcounteren = 0;
  private scounteren = 0;
  private hcounteren = 0;
  private readonly cfg: [bigint, bigint] = [0n, 0n];
  private lcofiNext = false;

  // What each hpm counter's selector counts (derived from events[n]): stream-event bits, input bits.
  private readonly countsStream: number[] = new Array<number>(32).fill(0);
  private readonly countsInput: number[] = new Array<number>(32).fill(0);

  constructor(config: PmuConfig) {
    this.config = config;
    this.decode = [];
    for (let a = 0; a < 0x1000; a++) this.decode.push(pmuCsrDecode(config, a));
    this.hpm = hpmCounters(config);
    this.counters = Array.from({ length: 32 }, (_, n) => new CounterValue(counterMaskOf(config, n) === 0n ? 0 : n === 0 || n === IR ? 64 : config.counterWidth));
    this.inputMask = config.eventInputs >= 32 ? 0xffff_ffff : (1 << config.eventInputs) - 1;
    this.enableMask = counterEnableMask(config);
    this.inhibitMask = countInhibitMask(config);
    this.cfgBits = cfgMask(config);
    this.xmask = xlenMask(config);
    // Reset: every register 0, except a hard-wired selector.
    for (const n of this.hpm) this.setEvent(n, eventResetValue(config, n));
  }

  /** One clock. */
  step(input: PmuCycleInput): PmuCycleOutput {
    const lcofi = this.lcofiNext;
    let response: PmuCsrResponse | undefined;
    let write: PendingWrite | undefined;
    if (input.csr !== undefined) {
      const r = this.access(input.csr);
      response = r.response;
      write = r.write;
    }
    const written = write !== undefined && write.csr.kind === 'counter' ? write.csr.index : -1;
    this.lcofiNext = this.count(input, written);
    if (write !== undefined) this.apply(write);
    if (response !== undefined) return { csr: response, lcofi };
    // Most cycles have no access: one shared (frozen) output each, nothing allocated.
    return lcofi ? LCOFI_ONLY : NOTHING;
  }

  /** A copy of the architectural state. */
  state(): PmuState {
    return {
      counters: this.counters.map((x) => x.get()),
      events: [...this.events],
      mcountinhibit: this.mcountinhibit,
      mcounteren: this.mcounteren,
      scounteren: this.scounteren,
      hcounteren: this.hcounteren,
      mcyclecfg: this.cfg[0],
      minstretcfg: this.cfg[1],
      lcofi: this.lcofiNext,
    };
  }

  /** What CSR `address` reads now without any access check (scountovf as an access with V = `v` sees it); undefined when it is not a PMU CSR here. */
  peek(address: number, v = false): bigint | undefined {
    const csr = this.decode[address & 0xfff];
    return csr === undefined ? undefined : this.value(csr, v);
  }

  // ---------------------------------------------------------------------------------------------
  // CSR access

  private access(a: PmuCsrAccess): { response: PmuCsrResponse; write?: PendingWrite } {
    const c = this.config;
    const en = { mcounteren: this.mcounteren, hcounteren: this.hcounteren, scounteren: this.scounteren };
    const fault = accessFault(c, a.address, a.write, a.priv, a.v ?? false, en);
    if (fault !== 'none') return { response: { rdata: 0n, illegalInstruction: fault === 'illegal', virtualInstruction: fault === 'virtual' } };
    const csr = this.decode[a.address]!;
    const rdata = this.value(csr, accessLevel(c, a.priv, a.v ?? false).v);
    const response = { rdata, illegalInstruction: false, virtualInstruction: false };
    if (!a.write) return { response };
    const start = this.register(csr);
    return { response, write: { csr, start, wdata: a.wdata & this.xmask, wmask: (a.wmask ?? this.xmask) & this.xmask } };
  }

  /** The whole (64-bit) register a CSR is a view or half of, as it is now. */
  private register(csr: PmuCsr): bigint {
    switch (csr.kind) {
      case 'counter':
      case 'user-counter':
        return this.counters[csr.index]!.get();
      case 'event':
        return this.events[csr.index]!;
      case 'cfg':
        return this.cfg[csr.index === 0 ? 0 : 1];
      case 'mcountinhibit':
        return BigInt(this.mcountinhibit);
      case 'mcounteren':
        return BigInt(this.mcounteren);
      case 'scounteren':
        return BigInt(this.scounteren);
      case 'hcounteren':
        return BigInt(this.hcounteren);
      case 'scountovf':
        return 0n;
    }
  }

  /** What a read of the CSR returns (XLEN bits). */
  private value(csr: PmuCsr, v: boolean): bigint {
    const c = this.config;
    switch (csr.kind) {
      case 'counter':
      case 'user-counter':
      case 'event':
      case 'cfg':
        return readHalf(c, this.register(csr), csr.high);
      case 'scountovf':
        return BigInt(this.scountovf(v));
      default:
        return this.register(csr);
    }
  }

  /**
   * scountovf: bit n = mhpmevent<n>.OF, readable when mcounteren bit n is set (in M and S
   * modes), and with V = 1 when hcounteren bit n is set too (Sscofpmf); otherwise 0.
   */
  private scountovf(v: boolean): number {
    let ovf = 0;
    for (const n of this.hpm) if ((this.events[n]! & OF) !== 0n) ovf |= 1 << n;
    ovf &= this.mcounteren;
    if (v) ovf &= this.hcounteren;
    return ovf >>> 0;
  }

  /** The end-of-cycle CSR write: the written half from the start of the cycle, legalised. */
  private apply(w: PendingWrite): void {
    const c = this.config;
    const csr = w.csr;
    const bitmap = (mask: number): number => Number(writeHalf(c, w.start, w.start, false, w.wdata, w.wmask) & BigInt(mask));
    switch (csr.kind) {
      case 'counter':
        // Not counted this cycle: the other half is still its start value.
        this.counters[csr.index]!.set(writeHalf(c, w.start, w.start, csr.high, w.wdata, w.wmask) & counterMaskOf(c, csr.index));
        return;
      case 'event':
        // The other half keeps the cycle's hardware update (OF), the written half loses it.
        this.setEvent(csr.index, legaliseEvent(c, csr.index, writeHalf(c, w.start, this.events[csr.index]!, csr.high, w.wdata, w.wmask)));
        return;
      case 'cfg':
        this.cfg[csr.index === 0 ? 0 : 1] = writeHalf(c, w.start, w.start, csr.high, w.wdata, w.wmask) & this.cfgBits;
        return;
      case 'mcountinhibit':
        this.mcountinhibit = bitmap(this.inhibitMask);
        return;
      case 'mcounteren':
        this.mcounteren = bitmap(this.enableMask);
        return;
      case 'scounteren':
        this.scounteren = bitmap(this.enableMask);
        return;
      case 'hcounteren':
        this.hcounteren = bitmap(this.enableMask);
        return;
      case 'user-counter':
      case 'scountovf':
        return; // read-only: the access was illegal
    }
  }

  /** Sets mhpmevent<n> (legal value) and what its selector counts. */
  private setEvent(n: number, value: bigint): void {
    const c = this.config;
    this.events[n] = value;
    const e = eventOf(c, value & selectorMask(c));
    this.countsStream[n] = e?.kind === 'stream' ? streamBit(e.name) : 0;
    this.countsInput[n] = e?.kind === 'input' && e.input < 32 ? (1 << e.input) >>> 0 : 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Counting

  /** Counts the cycle (counter `written` excepted); returns whether an overflow set a clear OF. */
  private count(input: PmuCycleInput, written: number): boolean {
    const c = this.config;
    const r = input.record;
    if (r.halted || r.reset) return false;
    const mode = countingMode(c, r.priv, input.v ?? false);
    if (mode === undefined) return false;
    const modeBit = MODE_BIT[mode];
    const stream = streamEvents(r);
    const inputs = (input.events ?? 0) & this.inputMask;
    const inhibit = this.mcountinhibit;

    // mcycle and minstret (64 bits, no OF), filtered by mcyclecfg / minstretcfg (0 without Smcntrpmf).
    if (written !== 0 && ((inhibit >>> CY) & 1) === 0 && (this.cfg[0] & modeBit) === 0n) this.counters[0]!.increment();
    if (written !== IR && (stream & EV_INSTRUCTIONS) !== 0 && ((inhibit >>> IR) & 1) === 0 && (this.cfg[1] & modeBit) === 0n) {
      this.counters[IR]!.increment();
    }

    let lcofi = false;
    for (const n of this.hpm) {
      if (n === written || ((inhibit >>> n) & 1) !== 0) continue;
      if ((stream & this.countsStream[n]!) === 0 && (inputs & this.countsInput[n]!) === 0) continue;
      const ev = this.events[n]!;
      // Sscofpmf mode filter (without Sscofpmf these bits may be selector bits).
      if (c.sscofpmf && (ev & modeBit) !== 0n) continue;
      if (this.counters[n]!.increment() && c.sscofpmf) {
        // Wrap of the implemented bits: Sscofpmf sets OF and requests LCOFI when OF was clear.
        if ((ev & OF) === 0n) lcofi = true;
        this.events[n] = ev | OF;
      }
    }
    return lcofi;
  }
}
