/**
 * The tandem-verification trace encoder's settings: the widths the encoder and a decoder agree on
 * out of band (the seed's chapter 3: "must agree on all parameters that impact trace data, including
 * but not limited to XLEN, FLEN, ILEN, and MLEN") and the order of fields inside a group, which the
 * protocol leaves free. docs/tvtrace-model.md describes each one.
 */
import { RvError } from '../common/errors.ts';
import type { SettingSpec, Settings } from '../common/settings.ts';
import { MAX_MEM_TRANSACTIONS } from './records.ts';

/**
 * Order of the fields inside a group:
 * - `bluespec`: as Bluespec's Flute core emits them (bluespec/Flute src_Core/Core/TV_Encode.bsv), the
 *   pc always as additional state 10 and every register as a full register;
 * - `seed`: as the seed's Appendix C examples show them, with opcode 3 (increment pc) when the next
 *   pc is the known pc plus the instruction length, and opcode 6 (OR) for fcsr when only new bits are set.
 */
export type TvFieldOrder = 'bluespec' | 'seed';

export interface TvtraceConfig {
  /** Width of x registers, CSRs and the pc. */
  readonly xlen: 32 | 64;
  /** Width of f registers; 0 = no F extension. */
  readonly flen: 0 | 32 | 64;
  /** Maximum instruction length; chapter 2 has instruction opcodes up to 32 bits only. */
  readonly ilen: 32;
  /** Bits of a memory address: 32 (RV32), 34 (RV32 with S mode and Sv32), 64 (RV64). */
  readonly mlen: 32 | 34 | 64;
  readonly fieldOrder: TvFieldOrder;
}

export const TVTRACE_SETTINGS: readonly SettingSpec[] = [
  { name: 'xlen', kind: 'choice', choices: ['32', '64'], default: '64', help: 'width of x registers, CSRs and the pc (XLEN)' },
  { name: 'flen', kind: 'choice', choices: ['0', '32', '64'], default: '64', help: 'width of f registers (FLEN); 0 = no floating point' },
  { name: 'ilen', kind: 'int', default: 32, min: 16, max: 64, help: 'maximum instruction length in bits (ILEN); the protocol has opcodes up to 32' },
  { name: 'mlen', kind: 'choice', choices: ['32', '34', '64'], default: '64', help: 'bits of a memory address (MLEN): 64 for RV64, 32 for RV32, 34 for RV32 with Sv32' },
  {
    name: 'field_order',
    kind: 'choice',
    choices: ['bluespec', 'seed'],
    default: 'bluespec',
    help: 'order of fields in a group: as Bluespec Flute emits them, or as the seed Appendix C shows (with increment-pc and OR-fcsr opcodes)',
  },
];

export function tvtraceConfig(s: Settings): TvtraceConfig {
  return {
    xlen: Number(s.xlen) as 32 | 64,
    flen: Number(s.flen) as 0 | 32 | 64,
    ilen: s.ilen as 32,
    mlen: Number(s.mlen) as 32 | 34 | 64,
    fieldOrder: s.field_order as TvFieldOrder,
  };
}

/** The default configuration (RV64 with D and Sv39/48, the seed's Appendix C hart) with overrides. */
export function defaultTvtraceConfig(over: Partial<TvtraceConfig> = {}): TvtraceConfig {
  const s: Settings = {};
  for (const spec of TVTRACE_SETTINGS) s[spec.name] = spec.default;
  return { ...tvtraceConfig(s), ...over };
}

function err(param: string, message: string): RvError {
  return new RvError('invalid-component', message, { path: `parameters/${param}` });
}

/** Every problem of a set of settings, each one line naming `parameters/<name>` and what is allowed. */
export function validateTvtraceSettings(s: Settings): RvError[] {
  const errors: RvError[] = [];
  const xlen = Number(s.xlen);
  const mlen = Number(s.mlen);
  if (s.ilen !== 32) {
    errors.push(err('ilen', `ilen is ${String(s.ilen)}; allowed: 32 (chapter 2 has instruction opcodes for 16- and 32-bit instructions only)`));
  }
  // Chapter 3: "MLEN for RV64 is 64. MLEN for RV32 is 34 when supervisor mode and Sv32 are supported, and 32 otherwise."
  if (xlen === 64 && mlen !== 64) errors.push(err('mlen', `mlen is ${mlen} but xlen is 64; allowed: 64 (MLEN for RV64 is 64)`));
  if (xlen === 32 && mlen === 64) errors.push(err('mlen', 'mlen is 64 but xlen is 32; allowed: 32, or 34 with supervisor mode and Sv32'));
  return errors;
}

/** Bytes of an MLEN field: MLEN rounded up to a multiple of 8 bits (chapter 3). */
export function mlenBytes(mlen: number): number {
  return Math.ceil(mlen / 8);
}

// ---- the generated RTL's settings ----------------------------------------------------------------

/**
 * Settings of the generated encoder that do not change a byte of the stream, only when the bytes
 * leave (the model, encoder.ts, ignores them; the co-simulation's timing model and `rvtrace encode
 * --backpressure` use them for the stall cycles):
 * - `out_bytes`: bytes per beat of the output port: 1 is the seed's Appendix B `Get#(Bit#(8)) out`;
 *   2, 4 or 8 make a word-wide port whose beat carries min(out_bytes, bytes in the FIFO) bytes, the
 *   first byte of the stream in bits 7:0, with a byte count.
 * - `fifo_bytes`: the output FIFO's size in bytes; a record enters whole or waits (the hart is held),
 *   so it must hold the longest record of the configuration (maxTvRecordBytes).
 */
export interface TvtraceRtlConfig extends TvtraceConfig {
  readonly outBytes: 1 | 2 | 4 | 8;
  readonly fifoBytes: number;
}

export const TVTRACE_RTL_SETTINGS: readonly SettingSpec[] = [
  {
    name: 'out_bytes',
    kind: 'choice',
    choices: ['1', '2', '4', '8'],
    default: '1',
    help: 'bytes per beat of the output port: 1 = byte-wide (the seed Appendix B Get#(Bit#(8))), 2/4/8 = word-wide with a byte count (does not change the bytes)',
  },
  {
    name: 'fifo_bytes',
    kind: 'int',
    default: 256,
    min: 16,
    max: 1024,
    help: 'output FIFO size in bytes, 16 to 1024; at least the longest record of the configuration (does not change the bytes)',
  },
];

/** Every setting of the tvtrace block: the model's, then the RTL's. */
export const TVTRACE_BLOCK_SETTINGS: readonly SettingSpec[] = [...TVTRACE_SETTINGS, ...TVTRACE_RTL_SETTINGS];

export function tvtraceRtlConfig(s: Settings): TvtraceRtlConfig {
  return { ...tvtraceConfig(s), outBytes: Number(s.out_bytes) as 1 | 2 | 4 | 8, fifoBytes: s.fifo_bytes as number };
}

/**
 * The most bytes one record can take in a configuration (either field order: the seed order only
 * shortens fields). The longest is an instruction with every field: begin, pc (2 + XLEN/8), the
 * pc's paddr (2 + MLEN bytes), a 32-bit instruction (5), privilege (3), rd and frd (3 + XLEN/8,
 * 3 + FLEN/8), store data (2 + max(XLEN, FLEN)/8), eaddr and paddr (2 + MLEN bytes each), two
 * memory transactions (each an AMO: request 2 + MLEN bytes + data, response 2 + data, data
 * max(XLEN, FLEN)/8), four CSRs and fcsr (3 + XLEN/8 each), end. The other kinds are listed for the smaller configurations' sake.
 */
export function maxTvRecordBytes(c: TvtraceConfig): number {
  const x = c.xlen / 8;
  const f = c.flen / 8;
  const m = mlenBytes(c.mlen);
  const widest = Math.max(x, f);
  const reg = 3 + x;
  // A memory transaction at its longest: an AMO's request with data and its response with data.
  const transaction = 1 + m + 1 + widest + (1 + 1 + widest);
  const instruction = 1 + (2 + x) + (2 + m) + 5 + 3 + reg + (f > 0 ? 3 + f : 0) + (2 + widest) + 2 * (2 + m) + MAX_MEM_TRANSACTIONS * transaction + 4 * reg + reg + 1;
  const trap = 1 + (2 + x) + 5 + 3 + 4 * reg + 1;
  const debugReg = 3 + 3 + widest;
  const debugMem = 3 + 1 + m + 1 + widest;
  const unobserved = 10 + (x === 8 ? 2 * reg : 4 * reg);
  return Math.max(instruction, trap, debugReg, debugMem, unobserved);
}

/** validateTvtraceSettings, then what the RTL's settings need. */
export function validateTvtraceRtlSettings(s: Settings): RvError[] {
  const errors = validateTvtraceSettings(s);
  if (errors.length > 0) return errors;
  const c = tvtraceRtlConfig(s);
  const longest = maxTvRecordBytes(c);
  if (c.fifoBytes < longest) {
    errors.push(err('fifo_bytes', `fifo_bytes is ${c.fifoBytes}; allowed: at least ${longest}, the longest record of RV${c.xlen} with FLEN ${c.flen} and MLEN ${c.mlen} (a record enters the FIFO whole)`));
  }
  return errors;
}
