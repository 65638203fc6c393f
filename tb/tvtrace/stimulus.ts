/**
 * Random tandem-verification records (golden-model/tvtrace/records.ts) for the co-simulation, the
 * round-trip tests and `rvtrace fuzz`: every kind, and inside `instruction` every shape a Flute core
 * reports (Flute's Trace_Op: OTHER, I_RD, F_GRD, F_FRD, I_LOAD, F_LOAD, I_STORE, F_STORE, AMO,
 * CSRRX), plus the shapes only the protocol allows (a new privilege on an instruction, no
 * instruction at all, every field at once, four CSR writes, a separate fcsr, x0 writes, memory
 * transactions with and without responses, the pc's physical address).
 *
 * Values fit the configuration (XLEN, FLEN, MLEN, store data up to max(XLEN, FLEN)), so the model
 * encodes every record; they are drawn to reach every byte of every field (all ones, zero, small,
 * sign-extended, random). The pc follows the records: pc + 2 or 4, a jump, a trap vector, xepc.
 * The same seed gives the same records.
 */
import { Rng } from '../../golden-model/common/rng.ts';
import type { StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { Csr } from '../../golden-model/tvtrace/protocol.ts';
import { instructionRecord, nanBoxSingle, tvMemRequestHasData, tvMemResponseHasData, type TvMemTransaction, type TvCsrWrite, type TvInstr, type TvPriv, type TvRecord, type TvRecordKind, type TvStoreData } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceConfig } from '../../golden-model/tvtrace/settings.ts';

/** Probabilities per record of the kinds other than `instruction`, and of an idle cycle. */
export interface TvMix {
  trap: number;
  interrupt: number;
  xret: number;
  debugReg: number;
  debugMem: number;
  reset: number;
  unobserved: number;
  /** A cycle without a record (rec_valid_i = 0) before a record: the co-simulation's, not a record. */
  idle: number;
}

export const DEFAULT_TV_MIX: Readonly<TvMix> = {
  trap: 0.03,
  interrupt: 0.015,
  xret: 0.03,
  debugReg: 0.02,
  debugMem: 0.015,
  reset: 0.003,
  unobserved: 0.02,
  idle: 0.05,
};

/**
 * The mix of a case: the defaults, with the stimulus knobs that have a meaning here (`rvtrace cosim
 * --knob`): fault_rate (traps), interrupt_rate, reset_rate, halt_rate (debug-module writes, half
 * registers, half memory), idle_rate. The other knobs shape programs, which records are not.
 */
export function tvMixFromKnobs(knobs: Partial<StimulusKnobs> = {}): TvMix {
  const m = { ...DEFAULT_TV_MIX };
  if (knobs.fault_rate !== undefined) m.trap = knobs.fault_rate;
  if (knobs.interrupt_rate !== undefined) m.interrupt = knobs.interrupt_rate;
  if (knobs.reset_rate !== undefined) m.reset = knobs.reset_rate;
  if (knobs.halt_rate !== undefined) {
    m.debugReg = knobs.halt_rate / 2;
    m.debugMem = knobs.halt_rate / 2;
  }
  if (knobs.idle_rate !== undefined) m.idle = knobs.idle_rate;
  return m;
}

/** The instruction shapes and their weights. */
const SHAPES = [
  ['alu', 30], // I_RD: rd
  ['alu-x0', 3], // rd = x0: not reported
  ['branch', 10], // OTHER: nothing but the pc
  ['link', 5], // jal/jalr with rd: a jump and rd
  ['load', 10], // I_LOAD: rd, eaddr (and paddr)
  ['store', 8], // I_STORE: store data, eaddr (and paddr)
  ['amo', 4], // AMO: rd, store data, eaddr
  ['fp', 6], // F_FRD: frd, fflags, mstatus
  ['fp-gpr', 2], // F_GRD: rd, fflags, mstatus
  ['fp-load', 3], // F_LOAD: frd, eaddr, mstatus
  ['fp-store', 2], // F_STORE: store data, eaddr
  ['csr', 4], // CSRRX: rd, csr, mstatus
  ['priv', 1], // dret and friends: a new privilege
  ['fcsr', 1], // TraceData's separate fcsr
  ['partial', 1], // no instruction (partial trace)
  ['everything', 1], // every field at once, four CSR writes, two memory transactions
  ['bus', 3], // memory transactions (opcodes 8, 9) with the pc's paddr: the bus view of loads, stores, AMOs, fetches
] as const;
type Shape = (typeof SHAPES)[number][0];

const FP_SHAPES: ReadonlySet<Shape> = new Set(['fp', 'fp-load', 'fp-store']);

export class TvStimulus {
  private readonly rng: Rng;
  private readonly xMax: bigint;
  private readonly mMax: bigint;
  private readonly widest: 1 | 2 | 4 | 8;
  private readonly shapes: Shape[];
  private readonly weights: number[];
  private pc: bigint;

  constructor(
    private readonly c: TvtraceConfig,
    seed: number,
  ) {
    this.rng = new Rng(seed ^ 0x7f4a7c15);
    this.xMax = (1n << BigInt(c.xlen)) - 1n;
    this.mMax = (1n << BigInt(c.mlen)) - 1n;
    this.widest = (Math.max(c.xlen, c.flen) / 8) as 4 | 8;
    const usable = SHAPES.filter(([s]) => c.flen > 0 || !FP_SHAPES.has(s));
    this.shapes = usable.map(([s]) => s);
    this.weights = usable.map(([, w]) => w);
    this.pc = 0x8000_0000n;
  }

  /** The next record of a mix. */
  next(mix: TvMix): TvRecord {
    const r = this.rng;
    const p = r.float();
    let acc = 0;
    const kinds: [number, TvRecordKind][] = [
      [mix.trap, 'trap'],
      [mix.interrupt, 'interrupt'],
      [mix.xret, 'xret'],
      [mix.debugReg, 'debug-reg'],
      [mix.debugMem, 'debug-mem'],
      [mix.reset, 'reset'],
      [mix.unobserved, 'unobserved'],
    ];
    for (const [q, kind] of kinds) {
      acc += q;
      if (p < acc) return this.record(kind);
    }
    return this.instruction(this.shapes[r.weighted(this.weights)]!);
  }

  /** A record of one kind (an instruction of a random shape). */
  record(kind: TvRecordKind): TvRecord {
    const r = this.rng;
    switch (kind) {
      case 'instruction':
        return this.instruction(this.shapes[r.weighted(this.weights)]!);
      case 'trap':
      case 'interrupt': {
        const priv = this.priv();
        const code = BigInt(r.int(0, 15));
        const cause = kind === 'interrupt' ? (1n << BigInt(this.c.xlen - 1)) | code : code;
        const epc = this.pc;
        this.pc = this.aligned();
        const fetchFault = kind === 'trap' && r.chance(0.2);
        return {
          kind,
          nextPc: this.pc,
          ...(kind === 'trap' && !fetchFault ? { instr: this.instr() } : {}),
          priv,
          status: this.x(),
          cause,
          epc,
          tval: this.x(),
        } as TvRecord;
      }
      case 'xret': {
        this.pc = this.aligned();
        const word = r.pick([0x30200073, 0x10200073, 0x00200073]); // mret, sret, uret
        return { kind, nextPc: this.pc, ...(r.chance(0.95) ? { instr: { size: 32, bits: word } as TvInstr } : {}), priv: this.priv(), mstatus: this.x() };
      }
      case 'debug-reg': {
        const file = r.pick(this.c.flen > 0 ? (['gpr', 'fpr', 'csr'] as const) : (['gpr', 'csr'] as const));
        const index = file === 'csr' ? r.int(0, 0xfff) : r.chance(0.1) ? 0 : r.int(0, 31);
        return { kind, file, index, value: file === 'fpr' ? this.f() : this.x() };
      }
      case 'debug-mem': {
        const bytes = this.storeBytes();
        return { kind, paddr: this.m(), bytes, value: this.bytesValue(bytes) };
      }
      case 'reset':
        this.pc = this.aligned();
        return { kind };
      case 'unobserved': {
        const which = r.int(0, 7); // bits: mtime, mcycle, minstret; 0 = nothing at all
        return {
          kind,
          ...(which & 1 ? { mtime: this.u64() } : {}),
          ...(which & 2 ? { mcycle: this.u64() } : {}),
          ...(which & 4 ? { minstret: this.u64() } : {}),
        };
      }
    }
  }

  private instruction(shape: Shape): TvRecord {
    const r = this.rng;
    const instr = this.instr();
    const jump = shape === 'branch' || shape === 'link' ? r.chance(0.5) : r.chance(0.01);
    this.pc = jump ? this.aligned() : (this.pc + BigInt(instr.size / 8)) & this.xMax;
    const nextPc = this.pc;
    const rd = (): { reg: number; value: bigint } => ({ reg: r.int(1, 31), value: this.x() });
    const frd = (): { reg: number; value: bigint } => ({ reg: r.int(0, 31), value: this.f() });
    const mem = (): { eaddr: bigint; paddr?: bigint } => ({ eaddr: this.m(), ...(r.chance(0.3) ? { paddr: this.m() } : {}) });
    const fflags = (): TvCsrWrite[] => [{ csr: Csr.fflags, value: BigInt(r.int(0, 31)) }, ...(r.chance(0.5) ? [{ csr: Csr.mstatus, value: this.x() }] : [])];
    switch (shape) {
      case 'alu':
        return instructionRecord({ nextPc, instr, gpr: rd() });
      case 'alu-x0':
        return instructionRecord({ nextPc, instr, gpr: { reg: 0, value: this.x() } });
      case 'branch':
        return instructionRecord({ nextPc, instr });
      case 'link':
        return instructionRecord({ nextPc, instr, gpr: { reg: r.pick([1, 5]), value: this.x() } });
      case 'load':
        return instructionRecord({ nextPc, instr, gpr: rd(), ...mem() });
      case 'store':
        return instructionRecord({ nextPc, instr, storeData: this.store(), ...mem() });
      case 'amo':
        return instructionRecord({ nextPc, instr, gpr: rd(), storeData: this.store(r.pick([4, 8])), ...mem() });
      case 'fp':
        return instructionRecord({ nextPc, instr, fpr: frd(), csrs: fflags() });
      case 'fp-gpr':
        return instructionRecord({ nextPc, instr, gpr: rd(), csrs: fflags() });
      case 'fp-load':
        return instructionRecord({ nextPc, instr, fpr: frd(), ...mem(), csrs: [{ csr: Csr.mstatus, value: this.x() }] });
      case 'fp-store':
        return instructionRecord({ nextPc, instr, storeData: this.store(), ...mem() });
      case 'csr': {
        const csrs: TvCsrWrite[] = r.chance(0.7) ? [{ csr: r.int(0, 0xfff), value: this.x() }] : [];
        if (r.chance(0.2)) csrs.push({ csr: Csr.mstatus, value: this.x() });
        return instructionRecord({ nextPc, instr, gpr: r.chance(0.9) ? rd() : { reg: 0, value: this.x() }, ...(csrs.length > 0 ? { csrs } : {}) });
      }
      case 'priv':
        return instructionRecord({ nextPc, instr, priv: this.priv(), ...(r.chance(0.5) ? { gpr: rd() } : {}) });
      case 'fcsr':
        return instructionRecord({ nextPc, instr, ...(r.chance(0.5) && this.c.flen > 0 ? { fpr: frd() } : { gpr: rd() }), fcsr: this.x() });
      case 'partial':
        return instructionRecord({ nextPc, ...(r.chance(0.5) ? { gpr: rd() } : {}) });
      case 'everything':
        return instructionRecord({
          nextPc,
          instr,
          priv: this.priv(),
          gpr: rd(),
          ...(this.c.flen > 0 ? { fpr: frd() } : {}),
          csrs: Array.from({ length: r.int(1, 4) }, () => ({ csr: r.int(0, 0xfff), value: this.x() })),
          paddr: this.m(),
          eaddr: this.m(),
          storeData: this.store(),
          fcsr: this.x(),
          pcPaddr: this.m(),
          mem: [this.transaction(), this.transaction()],
        });
      case 'bus': {
        const n = r.int(1, 2);
        return instructionRecord({
          nextPc,
          instr,
          ...(r.chance(0.5) ? { gpr: rd() } : {}),
          ...(r.chance(0.5) ? { pcPaddr: this.m() } : {}),
          ...mem(),
          mem: Array.from({ length: n }, () => this.transaction()),
        });
      }
    }
  }

  /** A memory transaction of any op, size and result, with a response 70 % of the time. */
  private transaction(): TvMemTransaction {
    const r = this.rng;
    const op = r.int(0, 13);
    const bytes = this.storeBytes();
    const withResponse = r.chance(0.7);
    return {
      op,
      bytes,
      addr: this.m(),
      ...(tvMemRequestHasData(op) ? { data: this.bytesValue(bytes) } : {}),
      ...(withResponse ? { response: { ok: r.chance(0.9), ...(tvMemResponseHasData(op) ? { data: this.bytesValue(bytes) } : {}) } } : {}),
    };
  }

  // ---- values ---------------------------------------------------------------------------------

  private priv(): TvPriv {
    return this.rng.pick([0, 1, 3] as const);
  }

  /** A 16-bit (low bits not 11) or 32-bit (low bits 11) instruction. */
  private instr(): TvInstr {
    const r = this.rng;
    if (r.chance(0.3)) {
      let bits = r.int(0, 0xffff);
      if ((bits & 3) === 3) bits &= ~1;
      return { size: 16, bits };
    }
    return { size: 32, bits: (r.u32() | 3) >>> 0 };
  }

  /** A value of `bits` bits reaching every byte: zero, all ones, small, sign-extended 32-bit, or random. */
  private value(bits: number): bigint {
    const r = this.rng;
    const max = (1n << BigInt(bits)) - 1n;
    switch (r.int(0, 9)) {
      case 0:
        return 0n;
      case 1:
        return max;
      case 2:
        return BigInt(r.int(0, 255));
      case 3: {
        const w = BigInt(r.u32());
        return (w & 0x8000_0000n ? w | (max & ~0xffff_ffffn) : w) & max;
      }
      default:
        return r.u64() & max;
    }
  }

  private x(): bigint {
    return this.value(this.c.xlen);
  }

  /** An FPR value: FLEN bits, a NaN-boxed single half the time when FLEN = 64. */
  private f(): bigint {
    if (this.c.flen === 64 && this.rng.chance(0.5)) return nanBoxSingle(this.rng.u32(), 64);
    return this.value(this.c.flen);
  }

  private m(): bigint {
    return this.value(this.c.mlen) & this.mMax;
  }

  private u64(): bigint {
    return this.value(64);
  }

  private storeBytes(): 1 | 2 | 4 | 8 {
    const all = ([1, 2, 4, 8] as const).filter((b) => b <= this.widest);
    return this.rng.pick(all);
  }

  private bytesValue(bytes: number): bigint {
    return this.value(8 * bytes);
  }

  private store(bytes?: 4 | 8): TvStoreData {
    const b = bytes !== undefined && bytes <= this.widest ? bytes : this.storeBytes();
    return { bytes: b, value: this.bytesValue(b) };
  }

  /** A 2-aligned pc below 2^XLEN (a jump target, a trap vector, an xepc). */
  private aligned(): bigint {
    return this.value(this.c.xlen) & (this.xMax - 1n);
  }
}

/** `count` random records of a configuration (the idle rate of the mix is not used here). */
export function generateTvRecords(c: TvtraceConfig, seed: number, count: number, mix: TvMix = DEFAULT_TV_MIX): TvRecord[] {
  const s = new TvStimulus(c, seed);
  return Array.from({ length: count }, () => s.next(mix));
}
