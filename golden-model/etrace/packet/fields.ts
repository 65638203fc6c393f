/**
 * The te_inst field tables of E-Trace chapter 6, for both payload layouts.
 *
 * A packet is a plain object keyed by field name. `packetFields` lists, in table order (the first
 * field goes to the least significant bits), the fields the packet has given the parameters and the
 * values of its selector fields (format, subformat, branch_fmt, branches, interrupt, thaddr). Every
 * selector precedes the fields it governs, so a reader can call it again after each field it reads:
 * while a selector is still unknown the list stops at that selector.
 */
import { RvError } from '../../common/errors.ts';
import {
  checkPacketParams,
  IOPTION_BIT,
  packetWidths,
  type PacketParams,
} from './params.ts';

export type FieldName =
  | 'format'
  | 'subformat'
  // format 0
  | 'branch_count'
  | 'branch_fmt'
  | 'index'
  // formats 0, 1
  | 'branches'
  | 'branch_map'
  // formats 0, 1, 2
  | 'address'
  | 'notify'
  | 'updiscon'
  | 'irreport'
  | 'irdepth'
  | 'irets'
  // format 3
  | 'branch'
  | 'privilege'
  | 'time'
  | 'context'
  | 'ecause'
  | 'interrupt'
  | 'thaddr'
  | 'tvalepc'
  | 'tval'
  | 'enable'
  | 'ienable'
  | 'encoder_mode'
  | 'qual_status'
  | 'options'
  | 'ioptions'
  | 'denable'
  | 'dloss'
  | 'doptions'
  | 'sijump'
  | 'iret_ext';

/** A te_inst packet: field name -> unsigned field value (addresses are the transmitted bits). */
export type Packet = { [K in FieldName]?: bigint };

export interface FieldSpec {
  readonly name: FieldName;
  readonly width: number;
}

export type PacketKind = 'F0.SF0' | 'F0.SF1' | 'F1' | 'F2' | 'F3.SF0' | 'F3.SF1' | 'F3.SF2' | 'F3.SF3';

/** Names of the kinds for dumps (the spec's names where it has one). */
export const KIND_NAMES: Readonly<Record<PacketKind, string>> = {
  'F0.SF0': 'branch-count',
  'F0.SF1': 'jump-target',
  F1: 'diff-delta',
  F2: 'addr-only',
  'F3.SF0': 'sync',
  'F3.SF1': 'trap',
  'F3.SF2': 'context',
  'F3.SF3': 'support',
};

/** qual_status codes of the support packet (3 is ended_upd in 1.1.1, renamed ended_ntr in 2.0). */
export const QUAL_STATUS = { no_change: 0n, ended_rep: 1n, trace_lost: 2n, ended_upd: 3n, ended_ntr: 3n } as const;

/** branch_fmt codes of format 0 subformat 0 (1 is reserved). */
export const BRANCH_FMT = { no_addr: 0n, addr: 2n, addr_fail: 3n } as const;

/** Run-time state the layout depends on beyond the packet itself: the implicit exception option. */
export interface PacketMode {
  readonly implicit_exception?: boolean;
}

/**
 * branch_map width for a branch count (design note / table 6.6): 1 -> 1, 2-3 -> 3, 4-7 -> 7,
 * 8-15 -> 15, 16-31 -> 31, and 0 -> 31 (a full map; in format 1 it also means "no address").
 */
export function branchMapWidth(branches: number): number {
  if (!Number.isInteger(branches) || branches < 0 || branches > 31) {
    throw new RvError('bad-value', `branches = ${branches} is outside 0..31`, { path: 'branches' });
  }
  if (branches === 0) return 31;
  // The smallest 2^n - 1 that holds `branches` bits.
  let width = 1;
  while (width < branches) width = width * 2 + 1;
  return width;
}

/**
 * The format 0 subformat of a packet. With f0s_width_p = 0 the field is not sent and the value is
 * the only optional format the parameters support (section 6.8.1).
 */
export function impliedF0Subformat(params: PacketParams): bigint | undefined {
  if (params.f0s_width_p > 0) return undefined;
  if (params.bpred_size_p > 0 && params.cache_size_p === 0) return 0n;
  if (params.cache_size_p > 0 && params.bpred_size_p === 0) return 1n;
  return undefined;
}

function reserved(field: FieldName, message: string): RvError {
  return new RvError('bad-value', message, { path: field });
}

/**
 * The ordered fields of `pkt` (widths > 0 only). Throws RvError('bad-value', path = field name) for
 * a reserved or unsupported selector value. Stops after a selector whose value is not yet known.
 */
export function packetFields(pkt: Packet, params: PacketParams, mode: PacketMode = {}): FieldSpec[] {
  const w = packetWidths(params);
  const ratified = params.payload_layout === '2.0';
  const out: FieldSpec[] = [];
  const add = (name: FieldName, width: number): void => {
    if (width > 0) out.push({ name, width });
  };
  // The tail shared by every packet that carries a differential address (formats 0, 1, 2).
  const addressTail = (): void => {
    add('address', w.address);
    add('notify', 1);
    add('updiscon', 1);
    add('irreport', 1);
    add('irdepth', w.irdepth);
    add('irets', w.irets);
  };

  add('format', 2);
  const format = pkt.format;
  if (format === undefined) return out;

  switch (format) {
    case 0n: {
      add('subformat', w.f0s);
      const subformat = w.f0s > 0 ? pkt.subformat : impliedF0Subformat(params);
      if (subformat === undefined) {
        if (w.f0s > 0) return out;
        throw reserved('format', 'format 0 needs exactly one of branch prediction (bpred_size_p) and the jump target cache (cache_size_p) when f0s_width_p is 0');
      }
      if (subformat === 0n) {
        if (params.bpred_size_p === 0) {
          throw reserved('subformat', 'format 0 subformat 0 (branch count) needs a branch predictor, but bpred_size_p is 0');
        }
        add('branch_count', 32);
        add('branch_fmt', 2);
        const fmt = pkt.branch_fmt;
        if (fmt === undefined) return out;
        if (fmt === 1n) throw reserved('branch_fmt', 'branch_fmt 01 is reserved');
        if (fmt !== 0n) addressTail();
      } else if (subformat === 1n) {
        if (params.cache_size_p === 0) {
          throw reserved('subformat', 'format 0 subformat 1 (jump target index) needs a jump target cache, but cache_size_p is 0');
        }
        add('index', w.index);
        add('branches', 5);
        const branches = pkt.branches;
        if (branches === undefined) return out;
        // branches = 0: no branch_map at all (table 6.11); irreport is then relative to branches[MSB].
        if (branches !== 0n) add('branch_map', branchMapWidth(Number(branches)));
        add('irreport', 1);
        add('irdepth', w.irdepth);
        add('irets', w.irets);
      } else {
        throw reserved('subformat', `format 0 subformat ${subformat} is reserved`);
      }
      return out;
    }
    case 1n: {
      add('branches', 5);
      const branches = pkt.branches;
      if (branches === undefined) return out;
      add('branch_map', branchMapWidth(Number(branches)));
      // branches = 0: a full map and nothing else (table 6.7).
      if (branches !== 0n) addressTail();
      return out;
    }
    case 2n:
      addressTail();
      return out;
    case 3n: {
      add('subformat', 2);
      const subformat = pkt.subformat;
      if (subformat === undefined) return out;
      switch (subformat) {
        case 0n:
          add('branch', 1);
          add('privilege', w.privilege);
          add('time', w.time);
          add('context', w.context);
          add('address', w.address);
          return out;
        case 1n: {
          add('branch', 1);
          add('privilege', w.privilege);
          add('time', w.time);
          add('context', w.context);
          add('ecause', w.ecause);
          add('interrupt', 1);
          if (!ratified) {
            // 1.1.1: the address is omitted in implicit exception mode; tvalepc always present.
            if (!mode.implicit_exception) add('address', w.address);
            add('tvalepc', w.tval);
            return out;
          }
          add('thaddr', 1);
          const interrupt = pkt.interrupt;
          const thaddr = pkt.thaddr;
          if (interrupt === undefined || thaddr === undefined) return out;
          // 2.0: implicit exception omits the trap handler address only (thaddr = 1); tval is
          // omitted for interrupts.
          if (!(mode.implicit_exception && thaddr === 1n)) add('address', w.address);
          if (interrupt !== 1n) add('tval', w.tval);
          return out;
        }
        case 2n:
          add('privilege', w.privilege);
          add('time', w.time);
          add('context', w.contextSf2);
          return out;
        case 3n:
          add(ratified ? 'ienable' : 'enable', 1);
          add('encoder_mode', w.encoderMode);
          add('qual_status', 2);
          add(ratified ? 'ioptions' : 'options', w.ioptions);
          if (ratified) {
            add('denable', 1);
            add('dloss', 1);
            add('doptions', w.doptions);
          } else if (w.denable111) {
            // Data trace in the seed's layout: its options field is implementation defined, and
            // the data options follow it (docs/etrace-data.md).
            add('denable', 1);
            add('doptions', w.doptions);
          }
          add('sijump', w.sijump);
          // Standard Support Packet extension: the Implicit Return extension is implemented. The
          // rest of our support packet keeps the reference flow's layout (docs/etrace-model.md).
          add('iret_ext', w.iretExt);
          return out;
        default:
          throw reserved('subformat', `subformat ${subformat} is outside 0..3`);
      }
    }
    default:
      throw reserved('format', `format ${format} is outside 0..3`);
  }
}

/** The kind of a packet from its format and subformat (format 0 may infer the subformat). */
export function packetKind(pkt: Packet, params: PacketParams): PacketKind {
  switch (pkt.format) {
    case 0n: {
      const sf = params.f0s_width_p > 0 ? pkt.subformat : (impliedF0Subformat(params) ?? pkt.subformat);
      return sf === 1n ? 'F0.SF1' : 'F0.SF0';
    }
    case 1n:
      return 'F1';
    case 2n:
      return 'F2';
    default:
      return (['F3.SF0', 'F3.SF1', 'F3.SF2', 'F3.SF3'] as const)[Number(pkt.subformat ?? 0n) & 3];
  }
}

/**
 * The largest packet, in bits, before compression: the longest variant of every kind the
 * parameters allow (full branch maps with addresses, traps with address and tval).
 */
export function largestPacketBits(params: PacketParams): number {
  const candidates: Packet[] = [
    { format: 1n, branches: 31n },
    { format: 2n },
    { format: 3n, subformat: 0n },
    { format: 3n, subformat: 1n, interrupt: 0n, thaddr: 1n },
    { format: 3n, subformat: 2n },
    { format: 3n, subformat: 3n },
  ];
  if (params.bpred_size_p > 0) candidates.push({ format: 0n, subformat: 0n, branch_fmt: 2n });
  if (params.cache_size_p > 0) candidates.push({ format: 0n, subformat: 1n, branches: 31n });
  let max = 0;
  for (const c of candidates) {
    let bits = 0;
    try {
      for (const f of packetFields(c, params)) bits += f.width;
    } catch {
      continue; // a kind these parameters cannot produce (e.g. format 0 without f0s_width_p)
    }
    max = Math.max(max, bits);
  }
  return max;
}

/** All problems of a parameter set (empty = valid), including the 31-byte largest-packet limit. */
export function validatePacketParams(params: PacketParams): RvError[] {
  const basic = checkPacketParams(params);
  if (basic.length > 0) return basic;
  return checkPacketParams(params, largestPacketBits(params));
}

/** The run-time options a support packet reports (design note bit assignment). */
export interface IOptions {
  readonly implicit_return: boolean;
  readonly implicit_exception: boolean;
  readonly full_address: boolean;
  readonly jump_target_cache: boolean;
  readonly branch_prediction: boolean;
  readonly sijump: boolean;
}

/**
 * The options field(s) of a support packet for these options: ioptions/options, sijump if present,
 * and iret_ext (always 1: it says the encoder implements the extension) if present.
 */
export function optionFields(opts: IOptions, params: PacketParams): Packet {
  let bits = 0n;
  for (const [name, bit] of Object.entries(IOPTION_BIT) as [keyof typeof IOPTION_BIT, number][]) {
    if (opts[name]) bits |= 1n << BigInt(bit);
  }
  const field: FieldName = params.payload_layout === '2.0' ? 'ioptions' : 'options';
  const out: Packet = { [field]: bits };
  if (params.sijump_p) out.sijump = opts.sijump ? 1n : 0n;
  if (packetWidths(params).iretExt > 0) out.iret_ext = 1n;
  return out;
}

/** The options a support packet reports (the inverse of `optionFields`). */
export function optionsOf(pkt: Packet): IOptions {
  const bits = pkt.ioptions ?? pkt.options ?? 0n;
  const on = (name: keyof typeof IOPTION_BIT): boolean => ((bits >> BigInt(IOPTION_BIT[name])) & 1n) === 1n;
  return {
    implicit_return: on('implicit_return'),
    implicit_exception: on('implicit_exception'),
    full_address: on('full_address'),
    jump_target_cache: on('jump_target_cache'),
    branch_prediction: on('branch_prediction'),
    sijump: pkt.sijump === 1n,
  };
}
