/**
 * Packing and unpacking te_inst payloads: field concatenation (first field in the least significant
 * bits, every field LSB first) and sign-based compression (design note; spec chapter 6 preamble).
 *
 * This layer packs the values it is given. The relative encodings of notify, updiscon, irreport and
 * irdepth/irets are the encoder's choice of values; `relativeFlags`/`absoluteFlags` are the one shared
 * definition of that encoding for the encoder and the decoder.
 */
import { RvError } from '../../common/errors.ts';
import {
  impliedF0Subformat,
  packetFields,
  packetKind,
  type FieldName,
  type FieldSpec,
  type Packet,
  type PacketMode,
} from './fields.ts';
import { packetWidths, type PacketParams } from './params.ts';

export interface PackedPacket {
  /** Bits kept after compression (L - k + 1); the payload is this rounded up to whole bytes. */
  readonly bits: number;
  /** Bits of the packet before compression (L). */
  readonly fullBits: number;
  /** The payload, least significant byte first, padded with copies of its top bit. */
  readonly payload: Uint8Array;
}

export const mask = (width: number): bigint => (1n << BigInt(width)) - 1n;

/** Little-endian bytes -> unsigned bigint. */
export function bytesToBigint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i] ?? 0);
  return v;
}

/** The low `count` bytes of `value`, least significant first. */
export function bigintToBytes(value: bigint, count: number): Uint8Array {
  const out = new Uint8Array(count);
  let v = value;
  for (let i = 0; i < count; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * Sign-based compression of an L-bit value: keep the low L-k+1 bits, where k is the length of the
 * run of bits equal to bit L-1 counted down from the MSB, and pad to a byte with copies of the top
 * bit.
 */
export function compress(value: bigint, fullBits: number): PackedPacket {
  const top = (value >> BigInt(fullBits - 1)) & 1n;
  // The bits below the run: for a positive value its significant bits, for a negative one those of
  // its complement. One copy of the sign goes on top of them.
  const significant = top === 1n ? ~value & mask(fullBits) : value;
  const bits = Math.min(fullBits, significant.toString(2).length + (significant === 0n ? 0 : 1));
  const bytes = Math.ceil(bits / 8);
  const padding = top === 1n ? mask(bytes * 8) ^ mask(bits) : 0n;
  return { bits, fullBits, payload: bigintToBytes((value & mask(bits)) | padding, bytes) };
}

/** The ordered fields of `pkt` with their bit positions. */
export function fieldPositions(pkt: Packet, params: PacketParams, mode: PacketMode = {}): (FieldSpec & { lsb: number })[] {
  let lsb = 0;
  return packetFields(pkt, params, mode).map((f) => {
    const placed = { ...f, lsb };
    lsb += f.width;
    return placed;
  });
}

/**
 * Packs a packet. Every field of its layout must be present and fit its width; a field that is not
 * part of the layout is an error too (it would be silently lost). Format 0 may carry `subformat`
 * when f0s_width_p is 0, if it equals the implied value.
 */
export function packPacket(pkt: Packet, params: PacketParams, mode: PacketMode = {}): PackedPacket {
  const fields = packetFields(pkt, params, mode);
  let value = 0n;
  let pos = 0;
  for (const f of fields) {
    const v = pkt[f.name];
    if (v === undefined) {
      throw new RvError('bad-value', `${packetKind(pkt, params)} packet has no ${f.name} field`, { path: f.name });
    }
    if (v < 0n || v > mask(f.width)) {
      throw new RvError('bad-value', `${f.name} = ${v} does not fit in ${f.width} bits`, { path: f.name });
    }
    value |= v << BigInt(pos);
    pos += f.width;
  }
  const names = new Set<FieldName>(fields.map((f) => f.name));
  for (const key of Object.keys(pkt) as FieldName[]) {
    if (names.has(key) || pkt[key] === undefined) continue;
    if (key === 'subformat' && pkt.format === 0n && pkt.subformat === impliedF0Subformat(params)) continue;
    throw new RvError('bad-value', `${key} is not part of a ${packetKind(pkt, params)} packet with these parameters`, {
      path: key,
    });
  }
  return compress(value, pos);
}

/**
 * Unpacks a payload received at byte `offset` of a stream (used in error locations). Sign-extends
 * from the last received bit, reads the selectors first to find the layout, and checks that the
 * payload is no longer than the packet can be and that its padding is a sign extension.
 */
export function unpackPacket(payload: Uint8Array, params: PacketParams, offset = 0, mode: PacketMode = {}): Packet {
  if (payload.length === 0) {
    throw new RvError('truncated', 'empty te_inst payload', { offset });
  }
  const n = payload.length * 8;
  const raw = bytesToBigint(payload);
  const top = (raw >> BigInt(n - 1)) & 1n;
  // Two's complement value of the received bits: BigInt shifts of negatives replicate the sign,
  // which is exactly the decoder's sign extension.
  const extended = top === 1n ? raw - (1n << BigInt(n)) : raw;
  const read = (lsb: number, width: number): bigint => (extended >> BigInt(lsb)) & mask(width);

  const pkt: Packet = {};
  let pos = 0;
  let lastLsb = 0;
  for (let i = 0; ; i++) {
    let fields: FieldSpec[];
    try {
      fields = packetFields(pkt, params, mode);
    } catch (e) {
      if (!(e instanceof RvError)) throw e;
      // The offending selector is the field just read.
      throw new RvError(e.code, `${e.message} (te_inst payload at byte offset ${offset})`, {
        offset: offset + Math.floor(lastLsb / 8),
        path: e.location.path,
      });
    }
    const f = fields[i];
    if (f === undefined) break;
    pkt[f.name] = read(pos, f.width);
    lastLsb = pos;
    pos += f.width;
    // The not-transmitted format 0 subformat, right after format so dumps list it in order.
    if (f.name === 'format' && pkt.format === 0n && packetWidths(params).f0s === 0) {
      const implied = impliedF0Subformat(params);
      if (implied !== undefined) pkt.subformat = implied;
    }
  }

  const maxBytes = Math.ceil(pos / 8);
  if (payload.length > maxBytes) {
    throw new RvError(
      'bad-value',
      `${payload.length}-byte payload is longer than a ${packetKind(pkt, params)} packet can be (${pos} bits, ${maxBytes} bytes)`,
      { offset: offset + maxBytes },
    );
  }
  if (n > pos) {
    // Bits pos-1 .. n-1 of a compressed packet are all copies of one bit.
    const tail = raw >> BigInt(pos - 1);
    if (tail !== 0n && tail !== mask(n - pos + 1)) {
      throw new RvError(
        'bad-value',
        `padding above bit ${pos - 1} of a ${packetKind(pkt, params)} packet is not a sign extension`,
        { offset: offset + payload.length - 1 },
      );
    }
  }
  return pkt;
}

/** What notify, updiscon, irreport and irdepth/irets mean (the encoder's view). */
export interface PacketFlags {
  /** Reported because of a notification request (trigger[2]); formats with an address only. */
  readonly notify?: boolean;
  /** Instruction after an uninferable discontinuity that precedes a format 3; formats with an address. */
  readonly updiscon?: boolean;
  /** Implicit-return misprediction, or a depth / return count report. */
  readonly irreport: boolean;
  /** Ratified semantics: return-stack depth or call count, sent when irreport is set. */
  readonly irdepth?: bigint;
  /** Implicit Return extension: implicit returns since the last branch or packet, sent when irreport is set. */
  readonly irets?: bigint;
}

/** The transmitted field values (irdepth or irets: the one the layout has, see `irField`). */
export interface FlagFields {
  readonly notify?: bigint;
  readonly updiscon?: bigint;
  readonly irreport: bigint;
  readonly irdepth?: bigint;
  readonly irets?: bigint;
}

/** The field after irreport: irets with the Implicit Return extension, else irdepth. */
export type IrField = 'irdepth' | 'irets';

export function irField(params: PacketParams): IrField {
  return packetWidths(params).irets > 0 ? 'irets' : 'irdepth';
}

/**
 * Encodes flags relative to the bit before them (`prev`: address[MSB] in formats 0/1/2,
 * branch_map[MSB] or branches[MSB] in format 0 subformat 1): notify = flag ^ prev;
 * updiscon = flag ^ notify; irreport = flag ^ updiscon (or ^ prev when there is no updiscon);
 * irdepth (or irets, `field`) = the value when irreport's flag is set, else every bit a copy of
 * irreport. Pass `notify`/`updiscon` only for packets that have those fields.
 */
export function relativeFlags(prev: bigint, flags: PacketFlags, irWidth: number, field: IrField = 'irdepth'): FlagFields {
  // (no closures here: this runs for every packet the encoder model sends)
  let last = prev & 1n;
  let notify: bigint | undefined;
  let updiscon: bigint | undefined;
  if (flags.notify !== undefined || flags.updiscon !== undefined) {
    notify = (flags.notify ? 1n : 0n) ^ last;
    updiscon = (flags.updiscon ? 1n : 0n) ^ notify;
    last = updiscon;
  }
  const irreport = (flags.irreport ? 1n : 0n) ^ last;
  const given = field === 'irets' ? flags.irets : flags.irdepth;
  const count = given ?? 0n;
  if (flags.irreport && (count < 0n || count > mask(irWidth))) {
    throw new RvError('bad-value', `${field} ${count} does not fit in ${irWidth} bits`, { path: field });
  }
  const value = flags.irreport ? count : irreport === 1n ? mask(irWidth) : 0n;
  const out: FlagFields = field === 'irets' ? { irreport, irets: value } : { irreport, irdepth: value };
  return notify === undefined ? out : { notify, updiscon, ...out };
}

/** Decodes transmitted flag fields (the inverse of `relativeFlags`). */
export function absoluteFlags(prev: bigint, fields: Partial<FlagFields>): PacketFlags {
  let last = prev & 1n;
  let notify: boolean | undefined;
  let updiscon: boolean | undefined;
  if (fields.notify !== undefined && fields.updiscon !== undefined) {
    notify = (fields.notify ^ last) === 1n;
    updiscon = (fields.updiscon ^ fields.notify) === 1n;
    last = fields.updiscon;
  }
  const irreport = fields.irreport !== undefined && (fields.irreport ^ last) === 1n;
  const out: PacketFlags = !irreport
    ? { irreport }
    : fields.irets !== undefined
      ? { irreport, irets: fields.irets }
      : { irreport, irdepth: fields.irdepth ?? 0n };
  return notify === undefined ? out : { notify, updiscon, ...out };
}

/**
 * The bit the flags of `pkt` are relative to: address[MSB] for packets with an address,
 * branch_map[MSB] or branches[MSB] for format 0 subformat 1. Undefined for packets without flags.
 */
export function flagsReference(pkt: Packet, params: PacketParams): bigint | undefined {
  const kind = packetKind(pkt, params);
  if (kind === 'F0.SF1') {
    const branches = pkt.branches ?? 0n;
    if (branches === 0n) return (branches >> 4n) & 1n;
    const width = packetFields(pkt, params).find((f) => f.name === 'branch_map')?.width ?? 1;
    return ((pkt.branch_map ?? 0n) >> BigInt(width - 1)) & 1n;
  }
  if (pkt.address === undefined || kind.startsWith('F3')) return undefined;
  return (pkt.address >> BigInt(packetWidths(params).address - 1)) & 1n;
}

/** `pkt` with its flag fields set from `flags` relative to the right reference bit. */
export function withFlags(pkt: Packet, params: PacketParams, flags: PacketFlags): Packet {
  const prev = flagsReference(pkt, params);
  if (prev === undefined) {
    throw new RvError('bad-value', `a ${packetKind(pkt, params)} packet has no notify/updiscon/irreport fields`);
  }
  const field = irField(params);
  const width = field === 'irets' ? packetWidths(params).irets : packetWidths(params).irdepth;
  // Format 0 subformat 1 has no notify/updiscon: irreport follows branch_map[MSB] directly.
  const chain: PacketFlags =
    packetKind(pkt, params) === 'F0.SF1'
      ? { irreport: flags.irreport, irdepth: flags.irdepth, irets: flags.irets }
      : { ...flags, notify: flags.notify ?? false, updiscon: flags.updiscon ?? false };
  const out: Packet = { ...pkt, ...relativeFlags(prev, chain, width, field) };
  if (width === 0) delete out[field];
  return out;
}

/** The flags a received packet carries (undefined for packets without flag fields). */
export function flagsOf(pkt: Packet, params: PacketParams): PacketFlags | undefined {
  const prev = flagsReference(pkt, params);
  return prev === undefined ? undefined : absoluteFlags(prev, pkt);
}
