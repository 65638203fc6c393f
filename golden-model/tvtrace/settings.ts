/**
 * The tandem-verification trace encoder's settings: the widths the encoder and a decoder agree on
 * out of band (the seed's chapter 3: "must agree on all parameters that impact trace data, including
 * but not limited to XLEN, FLEN, ILEN, and MLEN") and the order of fields inside a group, which the
 * protocol leaves free. docs/tvtrace-model.md describes each one.
 */
import { RvError } from '../common/errors.ts';
import type { SettingSpec, Settings } from '../common/settings.ts';

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
