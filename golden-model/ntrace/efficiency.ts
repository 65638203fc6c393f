/**
 * N-Trace's trace efficiency: how many bits of trace an instruction costs under the N-Trace
 * encoder's modes, measured like E-Trace's (../etrace/efficiency.ts) so the two sit in one table
 * (`rvtrace bench`, workloads/efficiency-report.ts). The bytes are counted on the MSEO stream the
 * model sends (MDO << 2 | MSEO, ../shared/design/ntrace.md), and the messages by splitting that
 * stream again at its MSEO 11 bytes (mseo.ts parseNtrace), not from the encoder's bookkeeping.
 *
 * Unlike E-Trace's modes, which switch run-time options of one fixed hardware, each N-Trace mode is
 * its own hardware configuration (the encoder has no run-time options for them). Everything else
 * is the same in every mode and chosen to match E-Trace's measurement: a periodic sync every 256
 * messages (E-Trace resyncs every 256 packets), 16-bit I-CNT, no SRC, no timestamps, full
 * addresses; the output FIFO is always ready (no trace loss: encodeNtrace without an output sink).
 */
import { resolveSettings, type Settings } from '../common/settings.ts';
import type { RetirementRecord } from '../hart/records.ts';
import type { Xlen } from '../hart/stream.ts';
import { retiredInstructions } from '../etrace/efficiency.ts';
import { encodeNtrace } from './encoder.ts';
import { parseNtrace } from './mseo.ts';
import { NTRACE_SETTINGS, type NtraceConfig, ntraceConfig, validateNtraceSettings } from './settings.ts';

export interface NtraceEfficiencyMode {
  readonly name: string;
  /** The settings the mode sets (NTRACE_SETTINGS names, `--set` syntax). */
  readonly sets: readonly string[];
}

/** Branch trace messaging, history trace messaging, then HTM with a return-address stack and with repeat compression. */
export const NTRACE_EFFICIENCY_MODES: readonly NtraceEfficiencyMode[] = [
  { name: 'BTM', sets: ['ntrace_mode=btm'] },
  { name: 'HTM', sets: ['ntrace_mode=htm'] },
  { name: 'HTM + call stack', sets: ['ntrace_mode=htm', 'implicit_return=stack', 'call_stack_size=8'] },
  { name: 'HTM + call stack + repeat', sets: ['ntrace_mode=htm', 'implicit_return=stack', 'call_stack_size=8', 'repeat_branch=1', 'repeat_history=1'] },
];

/** What every mode shares besides the XLEN (the rest are NTRACE_SETTINGS defaults). */
export const NTRACE_EFFICIENCY_COMMON: readonly string[] = ['sync_period=256'];

/** The settings of one measurement (for the RTL generator too). */
export function ntraceEfficiencySettings(xlen: Xlen, mode: NtraceEfficiencyMode): Settings {
  const s = resolveSettings('efficiency', NTRACE_SETTINGS, [`xlen=${xlen}`, ...NTRACE_EFFICIENCY_COMMON, ...mode.sets]);
  const errors = validateNtraceSettings(s);
  if (errors.length > 0) throw errors[0]!;
  return s;
}

/** The configuration of one measurement. */
export function ntraceEfficiencyConfig(xlen: Xlen, mode: NtraceEfficiencyMode): NtraceConfig {
  return ntraceConfig(ntraceEfficiencySettings(xlen, mode));
}

export interface NtraceEfficiencyFigures {
  /** Instructions retired (what the trace describes). */
  instructions: number;
  /** Messages on the stream (each ends with its MSEO 11 byte). */
  messages: number;
  /** Bytes of the MSEO stream (MDO << 2 | MSEO each; no idle bytes). */
  bytes: number;
  /** bytes * 8 / instructions. */
  bitsPerInstruction: number;
}

/** Encodes the stream with `config` (transport always ready) and counts what went out. */
export function measureNtraceEfficiency(records: readonly RetirementRecord[], config: NtraceConfig): NtraceEfficiencyFigures {
  const { bytes } = encodeNtrace(records, config, { messages: false });
  let messages = 0;
  for (const item of parseNtrace(bytes, config)) {
    if (item.kind === 'error') throw new Error(`measureNtraceEfficiency: the encoder's stream does not frame at byte ${item.offset}: ${item.message}`);
    messages++;
  }
  const instructions = retiredInstructions(records);
  return { instructions, messages, bytes: bytes.length, bitsPerInstruction: instructions === 0 ? 0 : (bytes.length * 8) / instructions };
}
