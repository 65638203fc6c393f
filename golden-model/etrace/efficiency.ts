/**
 * Trace efficiency: how many bits of trace an instruction costs, for one retirement stream under
 * the encoder's optional modes. The answer to "how much bandwidth does the trace need on code
 * like mine, with which options?" (issue 7), measured on the byte stream the model sends: the
 * stream is split into its packets again (packet/encapsulate.ts splitStream), so the header and
 * payload counts come from the bytes, not from the encoder's own bookkeeping.
 *
 * The hardware (`EFFICIENCY_PARAMETERS`) is fixed and has every optional structure built; a mode
 * only switches run-time options, so the modes differ in nothing but the option under study. The
 * output FIFO is always ready (no trace loss) and the other options keep their defaults (resync
 * every 2^(4+4) = 256 packets).
 */
import { resolveSettings } from '../common/settings.ts';
import type { RetirementRecord } from '../hart/records.ts';
import type { Xlen } from '../hart/stream.ts';
import { encodeStream } from './output.ts';
import { splitStream } from './packet/encapsulate.ts';
import { bytesToBigint, compress } from './packet/pack.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';
import { type EtraceConfig, validateConfig } from './config.ts';
import type { PayloadLayout } from './packet/params.ts';

export interface EfficiencyMode {
  readonly name: string;
  /** The run-time options the mode sets (ETRACE_OPTIONS names). */
  readonly sets: readonly string[];
}

/** The spec's optional efficiency modes (section 3.2), each a run-time option. */
const OPTIONAL_MODES: readonly EfficiencyMode[] = [
  { name: 'implicit return', sets: ['ImplicitReturn=1'] },
  { name: 'branch prediction', sets: ['BranchPrediction=1'] },
  { name: 'jump target cache', sets: ['JumpTargetCache=1'] },
  { name: 'sijump', sets: ['siJump=1'] },
  // Leaves the trap handler's address out of F3 SF1 (section 3.2.4): the decoder knows *tvec.
  { name: 'implicit exception', sets: ['ImplicitExcept=1'] },
];

/** The baseline, each optional mode alone, and all of them together. */
export const EFFICIENCY_MODES: readonly EfficiencyMode[] = [
  { name: 'baseline', sets: [] },
  ...OPTIONAL_MODES,
  { name: 'all', sets: OPTIONAL_MODES.flatMap((m) => m.sets) },
];

export const EFFICIENCY_LAYOUTS: readonly PayloadLayout[] = ['1.1.1', '2.0'];

/**
 * The encoder hardware of the measurement: a 16-entry return stack, a 64-entry branch predictor,
 * a 16-entry jump target cache (format 0 has its subformat bit, f0s_width_p = 1), sijump, 4-bit
 * itype, no context or time in the packets.
 */
export function efficiencyParameters(xlen: Xlen, layout: PayloadLayout): string[] {
  return [
    `payload_layout=${layout}`,
    `iaddress_width_p=${xlen}`,
    'iaddress_lsb_p=1',
    'itype_width_p=4',
    `ecause_width_p=${xlen === 64 ? 6 : 5}`,
    'privilege_width_p=2',
    'nocontext_p=1',
    'context_width_p=1',
    'return_stack_size_p=4',
    'bpred_size_p=6',
    'cache_size_p=4',
    'f0s_width_p=1',
    'sijump_p=1',
  ];
}

/** The configuration of one measurement. */
export function efficiencyConfig(xlen: Xlen, layout: PayloadLayout, mode: EfficiencyMode): EtraceConfig {
  const sets = [...efficiencyParameters(xlen, layout), ...mode.sets];
  const config = etraceConfig(resolveSettings('efficiency', ETRACE_SETTINGS, sets));
  const errors = validateConfig(config);
  if (errors.length > 0) throw errors[0]!;
  return config;
}

export interface EfficiencyFigures {
  /** Instructions retired (what the trace describes). */
  instructions: number;
  packets: number;
  /** Bytes sent, encapsulation headers included. */
  bytes: number;
  /**
   * Bytes of te_inst payload (the packets without their encapsulation headers): what the spec's
   * reference flow (riscv-trace-spec referenceFlow, its encoder model) reports as payload bytes.
   */
  payloadBytes: number;
  /**
   * Bits of te_inst payload before the padding to whole bytes: each payload's sign-compressed
   * length (section 7), a lower bound no byte-oriented transport reaches.
   */
  payloadBits: number;
  /** bytes * 8 / instructions. */
  bitsPerInstruction: number;
  /** payloadBytes * 8 / instructions. */
  payloadBitsPerInstruction: number;
  /** payloadBits / instructions. */
  compressedBitsPerInstruction: number;
}

/** Instructions retired by a single-retirement stream (traced programs are: one record each). */
export function retiredInstructions(records: readonly RetirementRecord[]): number {
  let n = 0;
  for (const r of records) {
    if (r.iretire === 0) continue;
    if (r.iretire !== 1 << r.ilastsize) throw new Error('retiredInstructions: a block of several instructions (expected single retirement)');
    n++;
  }
  return n;
}

/** Encodes the stream with `config` (transport always ready) and counts what went out. */
export function measureEfficiency(records: readonly RetirementRecord[], config: EtraceConfig): EfficiencyFigures {
  const { bytes } = encodeStream(records, config, { keepPackets: false });
  let packets = 0;
  let payloadBytes = 0;
  let payloadBits = 0;
  for (const p of splitStream(bytes, config.params)) {
    packets++;
    payloadBytes += p.payload.length;
    // The padding repeats the top bit, so compressing the padded payload again finds the same length.
    payloadBits += compress(bytesToBigint(p.payload), p.payload.length * 8).bits;
  }
  const instructions = retiredInstructions(records);
  const per = (n: number) => (instructions === 0 ? 0 : (n * 8) / instructions);
  return {
    instructions,
    packets,
    bytes: bytes.length,
    payloadBytes,
    payloadBits,
    bitsPerInstruction: per(bytes.length),
    payloadBitsPerInstruction: per(payloadBytes),
    compressedBitsPerInstruction: instructions === 0 ? 0 : payloadBits / instructions,
  };
}
