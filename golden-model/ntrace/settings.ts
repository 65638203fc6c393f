/**
 * The N-Trace encoder's settings: every parameter a component or `--set` may give (the names the
 * block's issue fixed), and the typed configuration the encoder and the decoder share. The meaning
 * of each option is in ../shared/design/ntrace.md and docs/ntrace-model.md.
 */
import { RvError } from '../common/errors.ts';
import type { SettingSpec, Settings } from '../common/settings.ts';

export type NtraceMode = 'btm' | 'htm';
export type ImplicitReturn = 'none' | 'counter' | 'stack';
export type HistFull = 'spec' | 'deferred';
export type EmptyHistIndirect = 'hist' | 'plain';

export interface NtraceConfig {
  /** Address width of the hart (XLEN). */
  readonly xlen: 32 | 64;
  readonly mode: NtraceMode;
  readonly implicitReturn: ImplicitReturn;
  /** Entries of the call counter's range or of the return-address stack. */
  readonly callStackSize: number;
  /** RepeatBranch messages for a repeated indirect-branch message. */
  readonly repeatBranch: boolean;
  /** HIST repeat compression (ResourceFull RCODE 2 with HREPEAT). */
  readonly repeatHistory: boolean;
  /** When ResourceFull(HIST full) goes out: the seed's pseudo-code, or one retirement later with the full register. */
  readonly histFull: HistFull;
  /** A discontinuity with an empty HIST in HTM: IndirectBranchHist, or IndirectBranch. */
  readonly emptyHistIndirect: EmptyHistIndirect;
  /** Bits of I-CNT: ResourceFull(I-CNT full) before it would exceed 2^icntWidth. */
  readonly icntWidth: number;
  /** Messages between periodic syncs (SYNC 2); 0 = none. */
  readonly syncPeriod: number;
  /** Bits of the SRC field after TCODE; 0 = none. */
  readonly srcWidth: number;
  /** The value of SRC (the hart's index). */
  readonly src: number;
  /** A timestamp input and the TSTAMP field on the messages the spec names. */
  readonly timestamp: boolean;
  /** Drop identical address MSBs of F-ADDR/U-ADDR in multiples of 6 bits. */
  readonly addressMsbDrop: boolean;
  /** Bytes of the output FIFO (output.ts; docs/ntrace-model.md "Output FIFO, overrun and stall"). */
  readonly fifoBytes: number;
  /** trTeInstStallEna: a message that does not fit stalls the hart instead of being lost. */
  readonly stallEnable: boolean;
  /**
   * trTeContext: Ownership messages (TCODE 2) with the privilege and the context, after every
   * synchronizing message, at a change of privilege and at a reported context change (ctype != 0).
   */
  readonly ownership: boolean;
  /** Bits of the records' context reported in an Ownership message's CONTEXT (the scontext value). */
  readonly contextWidth: number;
  /**
   * Multiple retirement, with E-Trace's names (table 9.1): retires_p, instructions retired in a
   * cycle at most (a block of up to 2 * retires_p half-words); taken_branches_p, signal groups
   * (blocks) a cycle; iretire_width_p, bits of each group's iretire. The encoder takes any records;
   * these size the RTL's hart interface (docs/ntrace-model.md "RTL").
   */
  readonly retires: number;
  readonly takenBranches: number;
  readonly iretireWidth: number;
}

const bool = (name: string, def: boolean, help: string): SettingSpec => ({ name, kind: 'bool', default: def, help });
const choice = (name: string, choices: readonly string[], def: string, help: string): SettingSpec => ({ name, kind: 'choice', choices, default: def, help });

export const NTRACE_CONFIG_SETTINGS: readonly SettingSpec[] = [
  choice('xlen', ['32', '64'], '64', 'address width of the hart'),
  choice('ntrace_mode', ['btm', 'htm'], 'htm', 'branch trace messaging (a message per taken branch) or history trace messaging (branch outcomes in HIST)'),
  choice('implicit_return', ['none', 'counter', 'stack'], 'none', 'returns not reported: none, a call counter, or a return-address stack'),
  { name: 'call_stack_size', kind: 'int', default: 8, min: 0, max: 64, help: 'entries of the call counter range or of the return-address stack' },
  bool('repeat_branch', false, 'RepeatBranch messages for repeated indirect-branch messages'),
  bool('repeat_history', false, 'HIST repeat compression: ResourceFull RCODE 2 with HREPEAT'),
  choice('hist_full', ['spec', 'deferred'], 'spec', 'ResourceFull(HIST full): as soon as the limit bit is reached (the seed), or one retirement later with the full register (the task group reference code)'),
  choice('empty_hist_indirect', ['hist', 'plain'], 'hist', 'a discontinuity with an empty HIST in HTM: IndirectBranchHist or IndirectBranch'),
  { name: 'icnt_width', kind: 'int', default: 16, min: 1, max: 22, help: 'bits of I-CNT before a ResourceFull(I-CNT full) is due (the seed: 16)' },
  { name: 'sync_period', kind: 'int', default: 0, min: 0, max: 1 << 20, help: 'messages between periodic syncs (SYNC 2); 0 = none' },
  { name: 'src_width', kind: 'int', default: 0, min: 0, max: 12, help: 'bits of the SRC field after TCODE; 0 = none' },
  { name: 'src', kind: 'int', default: 0, min: 0, max: 4095, help: 'the SRC value (the hart index)' },
  bool('timestamp', false, 'a timestamp input and TSTAMP on the messages the spec names'),
  bool('address_msb_drop', false, 'drop identical address MSBs of F-ADDR/U-ADDR in multiples of 6 bits'),
  { name: 'fifo_bytes', kind: 'int', default: 64, min: 8, max: 65536, help: 'bytes of the output FIFO; one byte leaves per cycle the transport is ready (at least the largest message)' },
  bool('stall_enable', false, 'trTeInstStallEna: stall the hart while a message does not fit in the FIFO instead of losing it (Error + SYNC 7)'),
  bool('ownership', false, 'trTeContext: Ownership messages (TCODE 2) with privilege and context after every synchronizing message, at a privilege change and at a reported context change (ctype != 0)'),
  { name: 'context_width', kind: 'int', default: 32, min: 0, max: 64, help: 'bits of the context input (the scontext value) reported in the CONTEXT of Ownership messages; at most XLEN' },
  { name: 'retires_p', kind: 'int', default: 1, min: 1, max: 64, help: 'instructions retired per cycle at most (multiple retirement: blocks of up to 2 * retires_p half-words)' },
  { name: 'taken_branches_p', kind: 'int', default: 1, min: 1, max: 16, help: 'signal groups (blocks) per cycle; the RTL takes one a clock, stalling the hart for the others' },
  { name: 'iretire_width_p', kind: 'int', default: 2, min: 2, max: 8, help: 'bits of each group\'s iretire (half-words): at least enough for 2 * retires_p' },
];

export const NTRACE_SETTINGS: readonly SettingSpec[] = NTRACE_CONFIG_SETTINGS;

export function ntraceConfig(s: Settings): NtraceConfig {
  return {
    xlen: Number(s.xlen) as 32 | 64,
    mode: s.ntrace_mode as NtraceMode,
    implicitReturn: s.implicit_return as ImplicitReturn,
    callStackSize: s.call_stack_size as number,
    repeatBranch: s.repeat_branch as boolean,
    repeatHistory: s.repeat_history as boolean,
    histFull: s.hist_full as HistFull,
    emptyHistIndirect: s.empty_hist_indirect as EmptyHistIndirect,
    icntWidth: s.icnt_width as number,
    syncPeriod: s.sync_period as number,
    srcWidth: s.src_width as number,
    src: s.src as number,
    timestamp: s.timestamp as boolean,
    addressMsbDrop: s.address_msb_drop as boolean,
    fifoBytes: s.fifo_bytes as number,
    stallEnable: s.stall_enable as boolean,
    ownership: s.ownership as boolean,
    contextWidth: s.context_width as number,
    retires: s.retires_p as number,
    takenBranches: s.taken_branches_p as number,
    iretireWidth: s.iretire_width_p as number,
  };
}

/** The default configuration with overrides (tests, examples). */
export function defaultNtraceConfig(over: Partial<NtraceConfig> = {}): NtraceConfig {
  const s: Settings = {};
  for (const spec of NTRACE_SETTINGS) s[spec.name] = spec.default;
  return { ...ntraceConfig(s), ...over };
}

function err(param: string, message: string): RvError {
  return new RvError('invalid-component', message, { path: `parameters/${param}` });
}

/** Every problem of a set of N-Trace settings, each naming the parameter and what is allowed. */
export function validateNtraceSettings(s: Settings): RvError[] {
  const c = ntraceConfig(s);
  const errors: RvError[] = [];
  if (c.implicitReturn !== 'none' && c.callStackSize === 0) errors.push(err('call_stack_size', `call_stack_size is 0 but implicit_return is "${c.implicitReturn}"; allowed: 1..64`));
  if (c.repeatHistory && c.mode !== 'htm') errors.push(err('repeat_history', 'repeat_history is 1 but ntrace_mode is "btm"; allowed: HIST repeat compression only in HTM'));
  if (c.srcWidth > 0 && c.src >= 2 ** c.srcWidth) errors.push(err('src', `src is ${c.src}; allowed: below 2^src_width = ${2 ** c.srcWidth}`));
  if (c.ownership && c.contextWidth > c.xlen) {
    errors.push(err('context_width', `context_width is ${c.contextWidth} but xlen is ${c.xlen}; allowed: 0..${c.xlen} (CONTEXT carries the scontext CSR, at most XLEN bits)`));
  }
  if (2 ** c.iretireWidth - 1 < 2 * c.retires) {
    errors.push(err('iretire_width_p', `iretire_width_p is ${c.iretireWidth} but retires_p = ${c.retires} needs ${2 * c.retires} half-words; allowed: ${Math.ceil(Math.log2(2 * c.retires + 1))}..8`));
  }
  const least = minNtraceFifoBytes(c);
  const what = c.ownership ? 'a restart (SYNC 7) with its Ownership message' : 'the largest message of this configuration';
  if (c.fifoBytes < least) errors.push(err('fifo_bytes', `fifo_bytes is ${c.fifoBytes} but ${what} takes up to ${least} bytes; allowed: ${least}..65536`));
  return errors;
}

/**
 * The bytes of the largest message this configuration can produce: the synchronizing message with
 * the most fields (IndirectBranchHistSync in HTM, IndirectBranchSync in BTM) with every variable
 * field at its widest: I-CNT up to 2^icntWidth (icntWidth + 1 bits), F-ADDR XLEN - 1 bits (with
 * address MSB dropping up to 6 * ceil(XLEN / 6) bits), HIST 32 bits, TSTAMP 64 bits. Every other
 * message, the Error message included, is smaller. The FIFO must hold it, or it never fits.
 * An Ownership message (TCODE, SRC, PROCESS of 5 + contextWidth bits, TSTAMP) is never larger: with
 * contextWidth <= XLEN (validated) its at most 11 + SRC + XLEN bits before TSTAMP fit in the bytes
 * the sync spends on its 13 + SRC + XLEN bits at least (TCODE, SRC, SYNC, B-TYPE, I-CNT, F-ADDR).
 */
export function maxNtraceMessageBytes(c: NtraceConfig): number {
  const fixed = 6 + c.srcWidth + 4 + 2; // TCODE, SRC, SYNC, B-TYPE
  const icntBits = c.icntWidth + 1;
  const bytes = (bits: number): number => Math.ceil(bits / 6);
  const addrBits = c.addressMsbDrop ? 6 * Math.ceil(c.xlen / 6) : c.xlen - 1;
  return bytes(fixed + icntBits) + bytes(addrBits) + (c.mode === 'htm' ? bytes(32) : 0) + (c.timestamp ? bytes(64) : 0);
}

/** The bytes of the largest Ownership message: TCODE, SRC and PROCESS (CONTEXT, V, PRV, FORMAT), then TSTAMP. */
export function maxNtraceOwnershipBytes(c: NtraceConfig): number {
  return Math.ceil((6 + c.srcWidth + c.contextWidth + 5) / 6) + (c.timestamp ? Math.ceil(64 / 6) : 0);
}

/**
 * The smallest FIFO that can always take what must enter whole: the largest message, and with
 * Ownership messages a SYNC 7 restart with its Ownership message (they enter together or not at
 * all: a FIFO smaller than the pair would never restart the trace after an overrun). The pair is
 * bounded by the largest message plus the largest Ownership message.
 */
export function minNtraceFifoBytes(c: NtraceConfig): number {
  return maxNtraceMessageBytes(c) + (c.ownership ? maxNtraceOwnershipBytes(c) : 0);
}
