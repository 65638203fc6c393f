/**
 * The register writes that program a configuration's run-time options (tables 2.1-2.6 and the data
 * trace options) into an encoder whose registers reset to other values: the co-simulation of a
 * hardware configuration's build (tb/etrace/frames.ts) starts every case with them, so one build
 * serves every option set.
 *
 * Each word holds the reset values of the register's read-write fields under this configuration
 * (read-only fields' bits 0), from the register map (registers.ts etraceMemoryMap), the same field
 * table the RTL's reset values come from: after the writes, every read-write field holds what the
 * configuration's own RTL holds out of reset.
 * trTeControl comes last: its write sets trTeActive and trTeEnable to 1, so the session starts,
 * and samples the options, only once every other register holds its value. They are 1 whatever
 * iEnable is: iEnable is trTeInstTracing (instruction tracing within an enabled encoder, which
 * trace-on triggers may set); an encoder with iEnable 0 still sends its support packets, as the
 * model does. (A component's own RTL resets trTeActive and trTeEnable to iEnable, so one with
 * iEnable 0 comes out of reset disabled until software enables it: docs/etrace-registers.md.)
 *
 * The other way round, for `rvtrace check` of a waveform whose firmware writes the registers:
 * EtraceRegisterImage keeps the words of the register file write by write (byte strobes, field
 * access), and decodeOptions reads the run-time options back from such words.
 */
import type { Comparator, EtraceConfig, EtraceOptions, Filter } from './config.ts';
import type { DataOptions } from './data/params.ts';
import { etraceMemoryMap, registerResetValue } from './registers.ts';

/** One 32-bit APB write: a byte address and the word written (every byte lane). */
export interface RegisterWrite {
  readonly address: number;
  readonly value: number;
}

/** The name of the register whose write starts the session (written last). */
const CONTROL_REGISTER = 'trTeControl';
/** Its fields that switch the encoder on (whatever iEnable, which is trTeInstTracing). */
const ENCODER_ON: readonly string[] = ['trTeActive', 'trTeEnable'];

/**
 * One write per register with a read-write field, in address order, trTeControl last. Registers
 * that are read-only in this configuration (trTeImpl, the discovery registers) are not written.
 */
export function optionWrites(c: EtraceConfig): RegisterWrite[] {
  const writes: RegisterWrite[] = [];
  let control: RegisterWrite | undefined;
  for (const block of etraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      if (!reg.fields.some((f) => f.access === 'read-write')) continue;
      // Every writable register is a 32-bit one (the 64-bit discovery registers are read-only).
      const writable = { ...reg, fields: reg.fields.filter((f) => f.access === 'read-write').map((f) => (ENCODER_ON.includes(f.name) ? { ...f, reset: 1n } : f)) };
      const write = { address: block.baseAddress + reg.offset, value: Number(registerResetValue(writable) & 0xffff_ffffn) };
      if (reg.name === CONTROL_REGISTER) control = write;
      else writes.push(write);
    }
  }
  writes.sort((a, b) => a.address - b.address);
  if (control) writes.push(control);
  return writes;
}

/** A field of the register map: the byte address of its register and its bits there. */
interface FieldAt {
  readonly address: number;
  readonly bitOffset: number;
  readonly bitWidth: number;
}

/** Every field of the 32-bit registers of the map, by `register.field`. */
function fieldsOf(c: EtraceConfig): Map<string, FieldAt> {
  const out = new Map<string, FieldAt>();
  for (const block of etraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      if (reg.size !== 32) continue;
      for (const f of reg.fields) out.set(`${reg.name}.${f.name}`, { address: block.baseAddress + reg.offset, bitOffset: f.bitOffset, bitWidth: f.bitWidth });
    }
  }
  return out;
}

/**
 * The run-time options that registers holding `word(address)` (the 32-bit word of each register)
 * give: the inverse of optionWrites. Every option of tables 2.1-2.6 and of data trace is read from
 * its field (docs/etrace-registers.md); a field read-only in this configuration holds its constant
 * (e.g. trTeInstEnBranchPrediction 0 without a predictor). Bits of trTeInstFilters and
 * trTeDataFilters at and above filters_p select no filter. iEnable is trTeInstTracing (trTeActive
 * and trTeEnable say whether there is a session, not an option). Only the data options of a
 * configuration without data trace, which have no register (and no effect), are `c`'s.
 */
export function decodeOptions(c: EtraceConfig, word: (address: number) => number): EtraceOptions {
  const p = c.params;
  const fields = fieldsOf(c);
  const get = (register: string, field: string): bigint => {
    const f = fields.get(`${register}.${field}`);
    if (f === undefined) throw new Error(`decodeOptions: no field ${register}.${field} in the register map`);
    return (BigInt(word(f.address) >>> 0) >> BigInt(f.bitOffset)) & ((1n << BigInt(f.bitWidth)) - 1n);
  };
  const num = (register: string, field: string): number => Number(get(register, field));
  const bit = (register: string, field: string): boolean => get(register, field) === 1n;
  const unitMask = (1 << p.filters_p) - 1;
  const filters: Filter[] = [];
  for (let i = 0; i < p.filters_p; i++) {
    const ctl = `trTeFilter${i}Control`;
    const inst = `trTeFilter${i}MatchInst`;
    filters.push({
      filterEnable: bit(ctl, 'trTeFilterEnable'),
      matchPrivilege: bit(ctl, 'trTeFilterMatchPrivilege'),
      matchEcause: bit(ctl, 'trTeFilterMatchEcause'),
      matchInterrupt: bit(ctl, 'trTeFilterMatchInterrupt'),
      matchComp1: bit(ctl, 'trTeFilterMatchComp1'),
      comp1: num(ctl, 'trTeFilterComp1'),
      matchComp2: bit(ctl, 'trTeFilterMatchComp2'),
      comp2: num(ctl, 'trTeFilterComp2'),
      matchComp3: bit(ctl, 'trTeFilterMatchComp3'),
      comp3: num(ctl, 'trTeFilterComp3'),
      matchImpdef: bit(ctl, 'trTeFilterMatchImpdef'),
      matchChoicePrivilege: num(inst, 'trTeFilterMatchChoicePrivilege'),
      matchValueInterrupt: bit(inst, 'trTeFilterMatchValueInterrupt'),
      matchChoiceEcause: (get(`trTeFilter${i}MatchEcauseHigh`, 'trTeFilterMatchChoiceEcauseHigh') << 32n) | get(`trTeFilter${i}MatchEcauseLow`, 'trTeFilterMatchChoiceEcauseLow'),
      matchValueImpdef: num(`trTeFilter${i}MatchValueImpdef`, 'trTeFilterMatchValueImpdef'),
      matchMaskImpdef: num(`trTeFilter${i}MatchMaskImpdef`, 'trTeFilterMatchMaskImpdef'),
    });
  }
  const comparators: Comparator[] = [];
  for (let j = 0; j < p.comparators_p; j++) {
    const ctl = `trTeComp${j}Control`;
    const half = (name: string): bigint => get(`trTeComp${j}${name}`, `trTeComp${name}`);
    comparators.push({
      pInput: num(ctl, 'trTeCompPInput'),
      sInput: num(ctl, 'trTeCompSInput'),
      pFunction: num(ctl, 'trTeCompPFunction'),
      sFunction: num(ctl, 'trTeCompSFunction'),
      matchMode: num(ctl, 'trTeCompMatchMode'),
      pNotify: bit(ctl, 'trTeCompPNotify'),
      sNotify: bit(ctl, 'trTeCompSNotify'),
      pMatch: (half('PMatchHigh') << 32n) | half('PMatchLow'),
      sMatch: (half('SMatchHigh') << 32n) | half('SMatchLow'),
    });
  }
  const data: DataOptions = p.dataTrace
    ? {
        dEnable: bit('trTeDataControl', 'trTeDataTracing'),
        dTrigEnable: bit('trTeDataControl', 'trTeDataTrigEnable'),
        noData: bit('trTeDataControl', 'trTeDataNoValue'),
        noAddress: bit('trTeDataControl', 'trTeDataNoAddr'),
        DataCompress: num('trTeDataControl', 'rvDataCompress'),
        dFilters: num('trTeDataFilters', 'trTeDataFilters') & unitMask,
      }
    : { dEnable: c.options.dEnable, dTrigEnable: c.options.dTrigEnable, noData: c.options.noData, noAddress: c.options.noAddress, DataCompress: c.options.DataCompress, dFilters: c.options.dFilters };
  return {
    ...data,
    iEnable: bit('trTeControl', 'trTeInstTracing'),
    iTrigEnable: bit('trTeControl', 'trTeInstTrigEnable'),
    stallEnable: bit('trTeControl', 'trTeInstStallEna'),
    ResyncMode: num('trTeControl', 'trTeInstSyncMode'),
    ResyncMax: num('trTeControl', 'trTeInstSyncMax'),
    FullAddress: bit('trTeInstFeatures', 'trTeInstNoAddrDiff'),
    ImplicitExcept: bit('trTeInstFeatures', 'trTeInstNoTrapAddr'),
    siJump: bit('trTeInstFeatures', 'trTeInstEnSequentialJump'),
    ImplicitReturn: bit('trTeInstFeatures', 'trTeInstEnImplicitReturn'),
    BranchPrediction: bit('trTeInstFeatures', 'trTeInstEnBranchPrediction'),
    JumpTargetCache: bit('trTeInstFeatures', 'trTeInstEnJumpTargetCache'),
    iFilters: num('trTeInstFilters', 'trTeInstFilters') & unitMask,
    filters,
    comparators,
  };
}

/** A 32-bit register of the image: its word, the bits writes change and the write-1-to-clear bits. */
interface ImageRegister {
  readonly name: string;
  value: number;
  readonly writable: number;
  readonly oneToClear: number;
}

/**
 * The register file as software sees it, write by write (what the generated etrace_apb_regs
 * holds): every register at its reset value (registers.ts), then each APB write applied as the
 * register file applies it (docs/etrace-registers.md): only the byte lanes whose pstrb bit is 1,
 * only the bits of read-write fields (read-only fields and reserved bits keep their value; bits of
 * trTeInstFilters at and above filters_p are not stored), and a 1 written to a write-1-to-clear
 * status bit (trTeInstStallOrOverflow) clears it. A write to an address without a 32-bit register
 * changes nothing (pslverr_o). The status set by the core (trTeEmpty, trTeInstStallOrOverflow
 * being set) is not modelled: it is no option.
 */
export class EtraceRegisterImage {
  private readonly registers = new Map<number, ImageRegister>();
  private readonly active: FieldAt;
  private readonly enable: FieldAt;

  constructor(private readonly c: EtraceConfig) {
    for (const block of etraceMemoryMap(c).addressBlocks) {
      for (const reg of block.registers) {
        if (reg.size !== 32) continue;
        let writable = 0;
        let oneToClear = 0;
        for (const f of reg.fields) {
          if (f.access !== 'read-write') continue;
          const stored = f.name === 'trTeInstFilters' ? Math.min(f.bitWidth, c.params.filters_p) : f.bitWidth;
          const bits = Number(((1n << BigInt(stored)) - 1n) << BigInt(f.bitOffset)) >>> 0;
          if (f.oneToClear === true) oneToClear |= bits;
          else writable |= bits;
        }
        this.registers.set(block.baseAddress + reg.offset, { name: reg.name, value: Number(registerResetValue(reg) & 0xffff_ffffn) >>> 0, writable: writable >>> 0, oneToClear: oneToClear >>> 0 });
      }
    }
    const fields = fieldsOf(c);
    this.active = fields.get('trTeControl.trTeActive')!;
    this.enable = fields.get('trTeControl.trTeEnable')!;
  }

  /**
   * Applies the write of `data` to `address` with byte strobes `strobe` (bit k: byte lane k);
   * returns the name of the register written, undefined when there is none at the address.
   */
  write(address: number, data: number, strobe = 0b1111): string | undefined {
    const r = this.registers.get(address);
    if (r === undefined) return undefined;
    let lanes = 0;
    for (let k = 0; k < 4; k++) if ((strobe >> k) & 1) lanes |= 0xff << (8 * k);
    const d = data >>> 0;
    const w = r.writable & lanes;
    r.value = ((r.value & ~w) | (d & w)) >>> 0;
    r.value = (r.value & ~(d & r.oneToClear & lanes)) >>> 0;
    return r.name;
  }

  /** The word of the register at `address` (0 where there is none). */
  word(address: number): number {
    return this.registers.get(address)?.value ?? 0;
  }

  /** The name of the register at `address`, if any. */
  name(address: number): string | undefined {
    return this.registers.get(address)?.name;
  }

  /** trTeActive and trTeEnable both 1: the encoder runs a trace session. */
  get on(): boolean {
    const bitOf = (f: FieldAt): boolean => ((this.word(f.address) >>> f.bitOffset) & 1) === 1;
    return bitOf(this.active) && bitOf(this.enable);
  }

  /** The run-time options the registers hold now (decodeOptions). */
  options(): EtraceOptions {
    return decodeOptions(this.c, (a) => this.word(a));
  }
}
