/**
 * The APB register map of the generated N-Trace encoder, with every value computed from the
 * configuration, and the model of its run-time behaviour (NtraceControlRegisters). The RTL
 * (templates/ntrace/ntrace_apb_regs.sv.hbs) implements exactly this map, the co-simulation reads
 * it back and writes it, and `rvtrace ipxact` exports it as the component's memory map.
 * docs/ntrace-registers.md explains it register by register, with the source of each field.
 *
 * One address block, `control`, 0x000-0xFFF: the trace encoder registers of the ratified RISC-V
 * Trace Control Interface (TCI; riscv-non-isa/tg-nexus-trace docs/tci/tci_encoder_control.adoc,
 * offsets from docs/tci/tci_control_interface.adoc "Summary of Trace Encoder Registers"), with the
 * N-Trace meaning of each field (docs/ntrace/ntrace_controls.adoc "N-Trace Specific Trace
 * Controls"): trTeInstMode 3 = BTM, 6 = HTM; trTeFormat 1; trTeProtocolMajor/Minor 1/0;
 * trTeInstNoAddrDiff, trTeInstNoTrapAddr, trTeInstEnBranchPrediction, trTeInstEnJumpTargetCache
 * "not applicable, must be hard coded as 0"; trTeDataImplemented 0.
 *
 * Every N-Trace setting is a parameter of the hardware (the RTL is generated for it), so every
 * WARL field that selects an option is a read-only constant showing the component's choice:
 *   ntrace_mode -> trTeInstMode (btm 3, htm 6); stall_enable -> trTeInstStallEna;
 *   sync_period -> trTeInstSyncMode (0 when 0, else 1: count messages) and trTeInstSyncMax (below);
 *   implicit_return -> trTeInstEnImplicitReturn and trTeInstImplicitReturnMode (none 0, counter 1,
 *   stack 3: full addresses); repeat_history -> trTeInstEnRepeatedHistory; address_msb_drop ->
 *   trTeInstExtendAddrMSB; src_width -> trTeSrcBits; src -> trTeSrcID (0 without SRC);
 *   ownership -> trTeContext (Ownership messages);
 *   timestamp -> trTsControl (trTsMode 1 External, trTsEnable 1, trTsWidth 63).
 * trTeInstSyncMax: the TCI sends a sync when the count reaches 2^(trTeInstSyncMax + 4); the
 * encoder sends one every sync_period messages. The field shows the smallest m with
 * 2^(m + 4) >= sync_period, an upper bound of the interval, exact when sync_period is a power of
 * two from 16 to 2^19 (sync_period 7 reads 0, i.e. "at most 16"; 256 reads 4; 1000 reads 6).
 * sync_period above 2^19 cannot be shown (it would need 16) and is rejected (registerMapErrors).
 *
 * Run time (NtraceControlRegisters; the RTL does the same, cycle for cycle of the taken records):
 * - trTeActive, trTeEnable, trTeInstTracing are read-write and reset to 1: the encoder traces from
 *   reset, as the golden model does (the TCI resets them to 0; a deviation).
 * - trTeInstTracing is the encoder's trace enable, the one the trace-on and trace-off triggers set
 *   and clear (trTeInstTrigEnable reads 1: the triggers always act, as in the model). It changes
 *   with each record the encoder takes that is neither halted nor in reset (the encoder ignores
 *   the triggers of those): a trace-on trigger sets it, then a trace-off trigger clears it.
 * - A write of trTeControl byte 0 sets trTeActive to bit 0 and trTeEnable to bits 1 AND 0 (the
 *   TCI: an inactive component is disabled). It asks for trTeInstTracing = bits 2 AND 1 AND 0:
 *   when that differs from trTeInstTracing, a trace-on (or trace-off) trigger is added to the
 *   record taken in the cycle of the write, or to the first one after it that is neither halted
 *   nor in reset (the request waits; a later write replaces it). So a write of 0 to
 *   trTeInstTracing (or trTeEnable, or trTeActive) ends the trace exactly as a trace-off trigger
 *   on that record would (ProgTraceCorrelation EVCODE 4), and a write of 1 restarts it as a
 *   trace-on trigger (ProgTraceSync SYNC 5 at the next retirement).
 * - While trTeActive or trTeEnable is 0 the hart's trace-on triggers are ignored (the TCI:
 *   trTeEnable allows trTeInstTracing to turn tracing on).
 * - trTeInstStallOrOverflow (write 1 to clear) is set when trace is lost (in the RTL: when the
 *   overrun's Error message enters the FIFO) or the hart is stalled; a write setting trTeEnable
 *   from 0 to 1 clears it too (the TCI). A set wins over a clear in the same cycle.
 * - trTeEmpty reads 1 when the output FIFO is empty. trTsActive is a read-only copy of trTeActive.
 * - Registers the TCI reset sequence writes (trTeInstFilters, trTeDataControl, trTeDataFilters,
 *   trTsControl, trTeTrig*Control) exist and read 0 where the encoder has no such function, so
 *   that sequence gets no bus error; any other address, or one not word-aligned, answers pslverr.
 */
import { RvError } from '../common/errors.ts';
import type { AddressBlockSpec, FieldAccess, MemoryMapSpec, RegisterField, RegisterSpec } from '../common/register-map.ts';
import { Trigger, type RetirementRecord } from '../hart/records.ts';
import type { NtraceConfig } from './settings.ts';

export type { AddressBlockSpec, FieldAccess, MemoryMapSpec, RegisterField, RegisterSpec };

export const NTRACE_CONTROL_BASE = 0x0;
/** The TCI gives every trace component a 4 KiB window. */
export const NTRACE_CONTROL_RANGE = 0x1000;

/** trTeInstMode of each mode (N-Trace "N-Trace Specific Trace Controls"). */
export const TR_TE_INST_MODE = { btm: 3, htm: 6 } as const;
/** trTeInstImplicitReturnMode of each implicit_return (TCI trTeInstFeatures). */
export const TR_TE_IMPLICIT_RETURN_MODE = { none: 0, counter: 1, stack: 3 } as const;
/** The largest sync_period trTeInstSyncMax can describe: 2^(15 + 4). */
export const MAX_DESCRIBED_SYNC_PERIOD = 1 << 19;

const b = (v: boolean): bigint => (v ? 1n : 0n);
const n = (v: number): bigint => BigInt(v);

function field(name: string, bitOffset: number, bitWidth: number, access: FieldAccess, reset: bigint, description: string, source?: string): RegisterField {
  return source === undefined ? { name, bitOffset, bitWidth, access, reset, description } : { name, bitOffset, bitWidth, access, reset, description, source };
}
const ro = (name: string, bitOffset: number, bitWidth: number, reset: bigint, description: string, source?: string): RegisterField =>
  field(name, bitOffset, bitWidth, 'read-only', reset, description, source);

/** trTeInstSyncMax for a sync_period: the smallest m with 2^(m + 4) >= sync_period (0 when there is no periodic sync). */
export function syncMaxOf(syncPeriod: number): number {
  let m = 0;
  while (2 ** (m + 4) < syncPeriod) m++;
  return m;
}

/** The whole register map of a configuration. */
export function ntraceMemoryMap(c: NtraceConfig): MemoryMapSpec {
  return {
    name: 'ntrace_regs',
    description: 'N-Trace encoder registers on the APB port: the RISC-V Trace Control Interface trace encoder registers.',
    addressBlocks: [controlBlock(c)],
  };
}

function controlBlock(c: NtraceConfig): AddressBlockSpec {
  const src = c.srcWidth > 0;
  const registers: RegisterSpec[] = [
    {
      name: 'trTeControl',
      offset: 0x000,
      size: 32,
      description: 'Trace Encoder Control Register (TCI).',
      fields: [
        field('trTeActive', 0, 1, 'read-write', 1n, 'Encoder active; 0 also clears trTeEnable. Resets to 1.'),
        field('trTeEnable', 1, 1, 'read-write', 1n, 'Encoder enabled (written as bits 1 AND 0); a write of 0 ends the trace, and hart trace-on triggers are ignored while 0. Resets to 1.'),
        field('trTeInstTracing', 2, 1, 'read-write', 1n, 'Instruction trace on: set and cleared by trace-on/off triggers and by writes (bits 2 AND 1 AND 0). Resets to 1.'),
        ro('trTeEmpty', 3, 1, 1n, 'Reads 1 when the output FIFO is empty.'),
        ro('trTeInstMode', 4, 3, n(TR_TE_INST_MODE[c.mode]), 'Instruction trace mode: 3 BTM (branch trace messaging), 6 HTM (history trace messaging).', 'ntrace_mode'),
        c.ownership
          ? ro('trTeContext', 9, 1, 1n, 'Ownership messages (TCODE 2) after every synchronizing message, at a privilege change and at a reported context change (ownership).', 'ownership')
          : ro('trTeContext', 9, 1, 0n, 'Ownership messages: not generated (0).', 'ownership'),
        ro('trTeInstTrigEnable', 11, 1, 1n, 'Trace-on/off triggers set and clear trTeInstTracing: always (1).'),
        { ...field('trTeInstStallOrOverflow', 12, 1, 'read-write', 0n, 'Set when trace was lost or the hart was stalled; write 1 to clear (also cleared when trTeEnable is written from 0 to 1).'), oneToClear: true },
        ro('trTeInstStallEna', 13, 1, b(c.stallEnable), 'Stall the hart instead of losing trace (stall_enable).', 'stall_enable'),
        ro('trTeInhibitSrc', 15, 1, 0n, 'SRC is sent whenever trTeSrcBits is not 0 (0).'),
        ro('trTeInstSyncMode', 16, 2, c.syncPeriod > 0 ? 1n : 0n, 'Periodic synchronization: 0 off, 1 counting messages (sync_period > 0).', 'sync_period'),
        ro('trTeInstSyncMax', 20, 4, n(syncMaxOf(c.syncPeriod)), 'Smallest m with 2^(m + 4) >= sync_period: the periodic sync interval is at most 2^(m + 4) messages.', 'sync_period'),
        ro('trTeFormat', 24, 3, 1n, 'Trace format: 1, N-Trace.'),
      ],
    },
    {
      name: 'trTeImpl',
      offset: 0x004,
      size: 32,
      description: 'Trace Encoder Implementation Register (TCI).',
      fields: [
        ro('trTeVerMajor', 0, 4, 1n, 'Control interface major version: 1.'),
        ro('trTeVerMinor', 4, 4, 0n, 'Control interface minor version: 0.'),
        ro('trTeCompType', 8, 4, 1n, 'Component type: 1, trace encoder.'),
        ro('trTeProtocolMajor', 16, 4, 1n, 'N-Trace protocol major version: 1.'),
        ro('trTeProtocolMinor', 20, 4, 0n, 'N-Trace protocol minor version: 0.'),
      ],
    },
    {
      name: 'trTeInstFeatures',
      offset: 0x008,
      size: 32,
      description: 'Trace Instruction Features Register (TCI): the N-Trace optimizations of this component.',
      fields: [
        ro('trTeInstNoAddrDiff', 0, 1, 0n, 'Not applicable to N-Trace: 0.'),
        ro('trTeInstNoTrapAddr', 1, 1, 0n, 'Not applicable to N-Trace: 0.'),
        ro('trTeInstEnSequentialJump', 2, 1, 0n, 'Sequential jump optimization: not implemented (0).'),
        ro('trTeInstEnImplicitReturn', 3, 1, b(c.implicitReturn !== 'none'), 'Implicit return optimization (implicit_return is not none).', 'implicit_return'),
        ro('trTeInstEnBranchPrediction', 4, 1, 0n, 'Not applicable to N-Trace: 0.'),
        ro('trTeInstEnJumpTargetCache', 5, 1, 0n, 'Not applicable to N-Trace: 0.'),
        ro('trTeInstImplicitReturnMode', 6, 2, n(TR_TE_IMPLICIT_RETURN_MODE[c.implicitReturn]), 'Implicit return: 0 none, 1 call counter, 3 return-address stack with full addresses.', 'implicit_return'),
        ro('trTeInstEnRepeatedHistory', 8, 1, b(c.repeatHistory), 'Repeated history optimization: ResourceFull RCODE 2 with HREPEAT (repeat_history).', 'repeat_history'),
        ro('trTeInstEnAllJumps', 9, 1, 0n, 'Messages for direct jumps: not generated (0).'),
        ro('trTeInstExtendAddrMSB', 10, 1, b(c.addressMsbDrop), 'Virtual addresses optimization: identical F-ADDR/U-ADDR MSBs dropped (address_msb_drop).', 'address_msb_drop'),
        ro('trTeSrcID', 16, 12, src ? n(c.src) : 0n, 'SRC value of this encoder (src; 0 without SRC).', 'src'),
        ro('trTeSrcBits', 28, 4, n(c.srcWidth), 'Bits of the SRC field (src_width).', 'src_width'),
      ],
    },
    {
      name: 'trTeInstFilters',
      offset: 0x00c,
      size: 32,
      description: 'Trace Instruction Filters Register (TCI): no filters, all instructions are traced.',
      fields: [ro('trTeInstFilters', 0, 16, 0n, 'No filters (0).')],
    },
    {
      name: 'trTeDataControl',
      offset: 0x010,
      size: 32,
      description: 'Data Trace Control Register (TCI): N-Trace 1.0 has no data trace.',
      fields: [ro('trTeDataImplemented', 0, 1, 0n, 'Data trace: not implemented (0, as N-Trace requires).')],
    },
    {
      name: 'trTeDataFilters',
      offset: 0x01c,
      size: 32,
      description: 'Trace Data Filters Register (TCI): no data trace.',
      fields: [ro('trTeDataFilters', 0, 16, 0n, 'No filters (0).')],
    },
    {
      name: 'trTsControl',
      offset: 0x040,
      size: 32,
      description: c.timestamp
        ? 'Timestamp Control Register (TCI): the timestamp comes from the tstamp_i input (External) and is in every message the spec names.'
        : 'Timestamp Control Register (TCI): no timestamp unit (trTsMode 0).',
      fields: c.timestamp
        ? [
            ro('trTsActive', 0, 1, 1n, 'Read-only copy of trTeActive (no separate timestamp reset).'),
            ro('trTsCount', 1, 1, 0n, 'No internal counter (0).'),
            ro('trTsRunInDebug', 3, 1, 0n, 'No internal counter (0).'),
            ro('trTsMode', 4, 3, 1n, 'Timestamp mode: 1, External (tstamp_i).', 'timestamp'),
            ro('trTsPrescale', 8, 2, 0n, 'No prescaler (0).'),
            ro('trTsEnable', 15, 1, 1n, 'TSTAMP fields are in the messages (timestamp).', 'timestamp'),
            ro('trTsWidth', 24, 6, 63n, 'Timestamp width: tstamp_i has 64 bits, more than this 6-bit field holds; reads 63.'),
          ]
        : [ro('trTsMode', 4, 3, 0n, 'Timestamp mode: 0, none.', 'timestamp')],
    },
    {
      name: 'trTeTrigDbgControl',
      offset: 0x050,
      size: 32,
      description: 'Debug Trigger Control Register (TCI): no vendor-specific trigger setup.',
      fields: [ro('trTeTrigDbgControl', 0, 32, 0n, 'Nothing to set up (0): the trigger_i inputs always act.')],
    },
    {
      name: 'trTeTrigExtInControl',
      offset: 0x054,
      size: 32,
      description: 'External Trigger Input Control Register (TCI): no external trigger inputs.',
      fields: [ro('trTeTrigExtInAction0', 0, 4, 0n, 'No external trigger input 0: no action (0).')],
    },
    {
      name: 'trTeTrigExtOutControl',
      offset: 0x058,
      size: 32,
      description: 'External Trigger Output Control Register (TCI): no external trigger outputs.',
      fields: [ro('trTeTrigExtOutEvent0', 0, 4, 0n, 'No external trigger output 0 (0).')],
    },
  ];
  return {
    name: 'control',
    baseAddress: NTRACE_CONTROL_BASE,
    range: NTRACE_CONTROL_RANGE,
    width: 32,
    description: 'RISC-V Trace Control Interface trace encoder registers.',
    registers,
  };
}

/**
 * What the map cannot describe: a sync_period trTeInstSyncMax cannot bound (above 2^19), and any
 * value that does not fit its field. Each error names the setting, as `parameters/<name>`.
 */
export function registerMapErrors(c: NtraceConfig): RvError[] {
  const errors: RvError[] = [];
  if (c.syncPeriod > MAX_DESCRIBED_SYNC_PERIOD) {
    errors.push(new RvError('invalid-component', `sync_period is ${c.syncPeriod}; allowed: 0..${MAX_DESCRIBED_SYNC_PERIOD} (trTeInstSyncMax can say at most 2^19 messages)`, { path: 'parameters/sync_period' }));
    return errors;
  }
  for (const block of ntraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      for (const f of reg.fields) {
        if (f.reset >= 0n && f.reset < 1n << BigInt(f.bitWidth)) continue;
        errors.push(new RvError('invalid-component', `${f.source ?? f.name} gives ${reg.name}.${f.name} the value ${f.reset}, which does not fit its ${f.bitWidth}-bit field`, { path: `parameters/${f.source ?? f.name}` }));
      }
    }
  }
  return errors;
}

/** The register at a byte address (word-aligned, inside the map), if any. */
export function registerAt(c: NtraceConfig, address: number): RegisterSpec | undefined {
  for (const block of ntraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) if (address === block.baseAddress + reg.offset) return reg;
  }
  return undefined;
}

/** The 32-bit word an APB read at `address` returns after reset (undefined: no register there). */
export function resetWord(c: NtraceConfig, address: number): bigint | undefined {
  const reg = registerAt(c, address);
  if (reg === undefined) return undefined;
  let value = 0n;
  for (const f of reg.fields) value |= f.reset << BigInt(f.bitOffset);
  return value;
}

/** Every register word address of a configuration, in map order. */
export function registerAddresses(c: NtraceConfig): number[] {
  return ntraceMemoryMap(c).addressBlocks.flatMap((block) => block.registers.map((r) => block.baseAddress + r.offset));
}

// ---------------------------------------------------------------------------------------------
// Run time

/** The APB answer of an access: read data (0 for writes and errors) and pslverr. */
export interface ApbResponse {
  readonly data: number;
  readonly error: boolean;
}

const TR_TE_CONTROL = 0x000;
const STALL_OR_OVERFLOW_BIT = 12;

/**
 * The run-time state of the register file and its effect on the trace (the rules are in the
 * comment at the top of this file). Use: for each frame (one record the encoder takes, in order),
 * first the frame's register access (`read`/`write`), then `take(record)`, and give the record it
 * returns to the encoder: the hart's record with the triggers the register file passes on.
 * `empty` and `stallOrOverflow` are status the owner sets from the output FIFO.
 */
export class NtraceControlRegisters {
  active = true;
  enable = true;
  tracing = true;
  /** A trace-on or trace-off request from a write, waiting for a record neither halted nor in reset. */
  pending: 'none' | 'on' | 'off' = 'none';
  stallOrOverflow = false;
  /** trTeEmpty: the output FIFO is empty. */
  empty = true;
  private readonly words = new Map<number, RegisterSpec>();

  constructor(readonly config: NtraceConfig) {
    for (const block of ntraceMemoryMap(config).addressBlocks) for (const reg of block.registers) this.words.set(block.baseAddress + reg.offset, reg);
  }

  /** The value of a field now. */
  private value(f: RegisterField): bigint {
    switch (f.name) {
      case 'trTeActive':
      case 'trTsActive':
        return b(this.active);
      case 'trTeEnable':
        return b(this.enable);
      case 'trTeInstTracing':
        return b(this.tracing);
      case 'trTeEmpty':
        return b(this.empty);
      case 'trTeInstStallOrOverflow':
        return b(this.stallOrOverflow);
      default:
        if (f.access !== 'read-only') throw new Error(`NtraceControlRegisters: no run-time rule for ${f.name}`);
        return f.reset;
    }
  }

  read(address: number): ApbResponse {
    const reg = this.words.get(address);
    if (reg === undefined) return { data: 0, error: true };
    let v = 0n;
    for (const f of reg.fields) v |= this.value(f) << BigInt(f.bitOffset);
    return { data: Number(v), error: false };
  }

  /** An APB write of `data` with byte strobes `strb`; read-only fields ignore it. */
  write(address: number, data: number, strb: number): ApbResponse {
    if (!this.words.has(address)) return { data: 0, error: true };
    if (address !== TR_TE_CONTROL) return { data: 0, error: false };
    if ((strb & 1) !== 0) {
      const a = (data & 1) !== 0;
      const e = a && (data & 2) !== 0;
      const want = e && (data & 4) !== 0;
      if (e && !this.enable) this.stallOrOverflow = false;
      this.active = a;
      this.enable = e;
      this.pending = want === this.tracing ? 'none' : want ? 'on' : 'off';
    }
    if ((strb & 2) !== 0 && ((data >>> STALL_OR_OVERFLOW_BIT) & 1) !== 0) this.stallOrOverflow = false;
    return { data: 0, error: false };
  }

  /** The record the encoder takes, with the triggers the register file passes on; updates trTeInstTracing. */
  take(r: RetirementRecord): RetirementRecord {
    const on = this.pending === 'on' || ((r.trigger & Trigger.traceOn) !== 0 && this.active && this.enable);
    const off = this.pending === 'off' || (r.trigger & Trigger.traceOff) !== 0;
    if (!r.halted && !r.reset) {
      if (on) this.tracing = true;
      if (off) this.tracing = false;
      this.pending = 'none';
    }
    const trigger = (r.trigger & Trigger.notify) | (on ? Trigger.traceOn : 0) | (off ? Trigger.traceOff : 0);
    return trigger === r.trigger ? r : { ...r, trigger };
  }
}
