/**
 * Parameters of the te_inst packet layer: the packet-relevant encoder parameters of E-Trace
 * Table 9.1 (named exactly as there), the choice of payload layout, the widths the spec leaves to
 * the implementation (encoder_mode, options) and the byte-stream encapsulation parameters.
 *
 * Every width the packet tables derive from these is computed once, in `packetWidths`.
 */
import { RvError } from '../../common/errors.ts';

/** `1.1.1`: the seed spec (1.1.1-Draft). `2.0`: the ratified spec (time, thaddr, ienable/denable...). */
export type PayloadLayout = '1.1.1' | '2.0';

/**
 * Where the message type (instruction / data trace) travels in the byte stream:
 * - `flow`: in header.flow (2 = instruction, 3 = data), no type field. The project default, as in
 *   the spec repository's reference flow and the design note.
 * - `payload`: the ratified encapsulation's 2-bit `type` field (10 instruction, 11 data) starts the
 *   payload group; header.flow then carries `encap_flow` (a routing value).
 */
export type MessageTypePlacement = 'flow' | 'payload';

export interface PacketParams {
  readonly payload_layout: PayloadLayout;
  /** Width of the instruction address bus (= DXLEN). */
  readonly iaddress_width_p: number;
  /** LSB of the address bus to trace: 1 with compressed instructions, 2 otherwise. */
  readonly iaddress_lsb_p: number;
  readonly ecause_width_p: number;
  readonly privilege_width_p: number;
  readonly context_width_p: number;
  /** 1: context is excluded from te_inst packets. */
  readonly nocontext_p: number;
  /** Ratified spec only (the seed has no time field); ignored by the 1.1.1 layout. */
  readonly time_width_p: number;
  /** 1: time is excluded from te_inst packets. Ratified spec only. */
  readonly notime_p: number;
  /** Implicit return: call counter of call_counter_size_p bits (0 = none). */
  readonly call_counter_size_p: number;
  /** Implicit return: 2^return_stack_size_p entry return-address stack (0 = none). */
  readonly return_stack_size_p: number;
  /**
   * Implicit return semantics (not a Table 9.1 parameter; see `iretExtension`): 1 = the Implicit
   * Return extension v0.8 (formats 0, 1, 2 carry `irets`, the support packet an `iret_ext` bit),
   * 0 = the ratified `irdepth` (the spec's own errata: not decodable in general). No effect
   * without a call counter or return stack.
   */
  readonly iret_ext_p: number;
  /** 2^bpred_size_p entry branch predictor (0 = none): enables format 0 subformat 0. */
  readonly bpred_size_p: number;
  /** 2^cache_size_p entry jump target cache (0 = none): enables format 0 subformat 1. */
  readonly cache_size_p: number;
  /** Width of the format 0 subformat field (0 = omitted, only one optional format supported). */
  readonly f0s_width_p: number;
  /** 1: the encoder supports sequentially inferable jumps; the support packet gets a sijump bit. */
  readonly sijump_p: number;
  /**
   * The encoder also traces data accesses (data_trace_p = 1, golden-model/etrace/data/): the
   * support packet reports the data options, 2.0 in its denable/doptions fields, 1.1.1 in denable
   * and doptions fields appended after options (docs/etrace-data.md). Absent: false.
   */
  readonly dataTraceSupport?: boolean;
  /** Width of support-packet encoder_mode (implementation defined; design note: 1). */
  readonly encoder_mode_width: number;
  /** Width of ioptions (1.1.1: options); design note: 5, see IOPTION_BIT. */
  readonly ioptions_width: number;
  /** Width of doptions (2.0 only); design note: 4. */
  readonly doptions_width: number;
  /** Encapsulation srcID width in bits, 0..16. */
  readonly encap_srcid_width: number;
  /** Encapsulation timestamp width in bits (T bytes * 8), 0 = no timestamps. */
  readonly encap_timestamp_width: number;
  readonly encap_type_in: MessageTypePlacement;
  /** header.flow when the message type travels in the payload (`encap_type_in: 'payload'`). */
  readonly encap_flow: number;
}

/** Bit positions inside ioptions (1.1.1: options), the reference flow's layout (design note). */
export const IOPTION_BIT = {
  implicit_return: 0,
  implicit_exception: 1,
  full_address: 2,
  jump_target_cache: 3,
  branch_prediction: 4,
} as const;

/**
 * Defaults. Each spec parameter takes the default of the required-attributes table of the layout's
 * spec (attribute value, then the table's mapping back to the parameter):
 * - 1.1.1, seed Table 9.2: iaddress_width 31 -> iaddress_width_p 32; iaddress_lsb 0 -> 1;
 *   ecause_width 3 -> 4; privilege_width 2 -> 3; context_width 0 -> 1; nocontext 0;
 *   bpred/cache/call_counter/return_stack sizes 0; f0s_width 0; sijump 0. The seed has no time:
 *   notime_p 1.
 * - 2.0, ratified "Required instruction trace attributes": as above except privilege_width 1 -> 2,
 *   nocontext 1, notime 1, time_width 0 -> 1.
 * - Not in the spec (design note): encoder_mode 1 bit, ioptions 5, doptions 4; no srcID, no
 *   timestamp, message type in header.flow.
 * - iret_ext_p 1: implicit return, where the parameters build it, uses the Implicit Return
 *   extension (docs/etrace-model.md).
 */
export function defaultPacketParams(layout: PayloadLayout = '1.1.1'): PacketParams {
  const ratified = layout === '2.0';
  return {
    payload_layout: layout,
    iaddress_width_p: 32,
    iaddress_lsb_p: 1,
    ecause_width_p: 4,
    privilege_width_p: ratified ? 2 : 3,
    context_width_p: 1,
    nocontext_p: ratified ? 1 : 0,
    time_width_p: 1,
    notime_p: 1,
    call_counter_size_p: 0,
    return_stack_size_p: 0,
    iret_ext_p: 1,
    bpred_size_p: 0,
    cache_size_p: 0,
    f0s_width_p: 0,
    sijump_p: 0,
    encoder_mode_width: 1,
    ioptions_width: 5,
    doptions_width: 4,
    encap_srcid_width: 0,
    encap_timestamp_width: 0,
    encap_type_in: 'flow',
    encap_flow: 0,
  };
}

/** Width of irets (Implicit Return extension v0.8: 8 bits whatever the stack or counter size). */
export const IRETS_WIDTH = 8;

/** The largest irets value: the encoder reports a return explicitly rather than count beyond it. */
export const IRETS_MAX = (1 << IRETS_WIDTH) - 1;

/**
 * Bits of a return-stack depth or call count: return_stack_size_p + (return_stack_size_p > 0 ? 1
 * : 0) + call_counter_size_p (a stack of 2^n entries holds n+1-bit depths). The ratified irdepth
 * field has this width; with the Implicit Return extension the depth is no packet field.
 */
export function returnDepthWidth(p: PacketParams): number {
  return p.return_stack_size_p + (p.return_stack_size_p > 0 ? 1 : 0) + p.call_counter_size_p;
}

/**
 * Whether implicit return follows the Implicit Return extension v0.8 (irets) rather than the
 * ratified irdepth: `iret_ext_p` = 1 and the encoder has implicit return hardware (a call counter
 * or a return stack). The extension is written against the 2.0 layout; formats 0, 1 and 2 are the
 * same in the 1.1.1 layout, so it applies to both (docs/etrace-model.md).
 */
export function iretExtension(p: PacketParams): boolean {
  return p.iret_ext_p === 1 && (p.return_stack_size_p > 0 || p.call_counter_size_p > 0);
}

/** Field widths derived from the parameters; 0 means the field is absent. */
export interface PacketWidths {
  /** address: iaddress_width_p - iaddress_lsb_p (the address shifted right by iaddress_lsb_p). */
  readonly address: number;
  /** tval (2.0) / tvalepc (1.1.1): a full iaddress_width_p-bit value, not shifted. */
  readonly tval: number;
  /**
   * irdepth (ratified semantics only, 0 with the Implicit Return extension):
   * return_stack_size_p + (return_stack_size_p > 0 ? 1 : 0) + call_counter_size_p.
   */
  readonly irdepth: number;
  /** irets (Implicit Return extension only, which replaces irdepth by it): 8 bits. */
  readonly irets: number;
  /** The support packet's iret_ext bit (Standard Support Packet extension): 1 with the extension. */
  readonly iretExt: number;
  /** Jump target cache index: cache_size_p. */
  readonly index: number;
  readonly f0s: number;
  readonly privilege: number;
  readonly ecause: number;
  /** context in sync/trap packets (F3 SF0, SF1): 0 when nocontext_p. */
  readonly context: number;
  /**
   * context in F3 SF2: the seed's table 6.3 gives context_width_p with no nocontext_p condition;
   * the ratified table adds it.
   */
  readonly contextSf2: number;
  /** time: 2.0 only, 0 when notime_p. */
  readonly time: number;
  readonly encoderMode: number;
  readonly ioptions: number;
  /** 2.0, and 1.1.1 with data trace (data_trace_p). */
  readonly doptions: number;
  /** The 1.1.1 support packet's appended denable bit: 1 with data trace. */
  readonly denable111: number;
  /** The sijump option bit, above all other support-packet fields: 1 when sijump_p. */
  readonly sijump: number;
}

export function packetWidths(p: PacketParams): PacketWidths {
  const ratified = p.payload_layout === '2.0';
  const context = p.nocontext_p ? 0 : p.context_width_p;
  const ext = iretExtension(p);
  return {
    address: p.iaddress_width_p - p.iaddress_lsb_p,
    tval: p.iaddress_width_p,
    irdepth: ext ? 0 : returnDepthWidth(p),
    irets: ext ? IRETS_WIDTH : 0,
    iretExt: ext ? 1 : 0,
    index: p.cache_size_p,
    f0s: p.f0s_width_p,
    privilege: p.privilege_width_p,
    ecause: p.ecause_width_p,
    context,
    contextSf2: ratified ? context : p.context_width_p,
    time: ratified && !p.notime_p ? p.time_width_p : 0,
    encoderMode: p.encoder_mode_width,
    ioptions: p.ioptions_width,
    doptions: ratified || p.dataTraceSupport ? p.doptions_width : 0,
    denable111: !ratified && p.dataTraceSupport ? 1 : 0,
    sijump: p.sijump_p ? 1 : 0,
  };
}

/** Bits the encapsulation adds in front of the te_inst payload inside header.length's count. */
export function encapPrefixBits(p: PacketParams): number {
  return (p.encap_srcid_width % 8) + (p.encap_type_in === 'payload' ? 2 : 0);
}

/**
 * Checks a parameter set; returns every problem found (empty = valid). Includes the design note's
 * rule that the largest packet must fit the 31-byte encapsulation payload. `largestPacketBits` is
 * passed in by the caller (fields.ts knows the layouts; this module must not import it).
 */
export function checkPacketParams(p: PacketParams, largestPacketBits?: number): RvError[] {
  const errors: RvError[] = [];
  const bad = (name: string, message: string): void => {
    errors.push(new RvError('invalid-component', message, { path: `parameters/${name}` }));
  };
  const range = (name: keyof PacketParams, lo: number, hi: number): void => {
    const v = p[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) {
      bad(name, `${name} = ${String(v)} is outside ${lo}..${hi}`);
    }
  };
  if (p.payload_layout !== '1.1.1' && p.payload_layout !== '2.0') {
    bad('payload_layout', `payload_layout must be '1.1.1' or '2.0', not '${String(p.payload_layout)}'`);
  }
  range('iaddress_width_p', 2, 64);
  range('iaddress_lsb_p', 0, 3);
  if (p.iaddress_lsb_p >= p.iaddress_width_p) {
    bad('iaddress_lsb_p', `iaddress_lsb_p (${p.iaddress_lsb_p}) must be below iaddress_width_p`);
  }
  range('ecause_width_p', 1, 64);
  range('privilege_width_p', 1, 8);
  range('context_width_p', 1, 64);
  range('nocontext_p', 0, 1);
  range('time_width_p', 1, 64);
  range('notime_p', 0, 1);
  range('call_counter_size_p', 0, 32);
  range('return_stack_size_p', 0, 32);
  range('iret_ext_p', 0, 1);
  range('bpred_size_p', 0, 32);
  range('cache_size_p', 0, 32);
  range('f0s_width_p', 0, 8);
  range('sijump_p', 0, 1);
  range('encoder_mode_width', 1, 8);
  // The five option bits of IOPTION_BIT must fit.
  range('ioptions_width', 5, 32);
  range('doptions_width', 0, 32);
  range('encap_srcid_width', 0, 16);
  range('encap_timestamp_width', 0, 64);
  if (p.encap_timestamp_width % 8 !== 0) {
    bad('encap_timestamp_width', `encap_timestamp_width (${p.encap_timestamp_width}) must be a whole number of bytes`);
  }
  if (p.encap_type_in !== 'flow' && p.encap_type_in !== 'payload') {
    bad('encap_type_in', `encap_type_in must be 'flow' or 'payload'`);
  }
  range('encap_flow', 0, 3);
  if (p.bpred_size_p > 0 && p.cache_size_p > 0 && p.f0s_width_p === 0) {
    bad('f0s_width_p', 'f0s_width_p must be non-zero when both branch prediction and the jump target cache are supported');
  }
  if (largestPacketBits !== undefined) {
    const bytes = Math.ceil((largestPacketBits + encapPrefixBits(p)) / 8);
    if (bytes > 31) {
      bad('payload_layout', `the largest packet needs ${bytes} payload bytes; encapsulation allows 31`);
    }
  }
  return errors;
}
