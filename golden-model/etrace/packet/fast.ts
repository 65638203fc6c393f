/**
 * The hot path of the encoder model: a packet straight to its encapsulated bytes, without bigint
 * arithmetic on the whole packet. Same result as `encapsulate(packPacket(...))` (a differential test
 * checks it on every packet kind); `packPacket` stays the readable reference and the validator.
 *
 * Fields are written into a reusable byte buffer a few bits at a time; the layout of each packet
 * shape (format, subformat, selectors) is computed once by `packetFields` and cached.
 */
import { encapsulate } from './encapsulate.ts';
import { type FieldSpec, packetFields, type Packet, type PacketMode } from './fields.ts';
import { packPacket } from './pack.ts';
import type { PacketParams } from './params.ts';

const layouts = new WeakMap<PacketParams, Map<number, FieldSpec[]>>();

/** A small selector value (undefined -> 7) for the layout key. */
const sel = (v: bigint | undefined): number => (v === undefined ? 7 : Number(v) & 7);

function layoutOf(pkt: Packet, params: PacketParams, mode: PacketMode): FieldSpec[] {
  let perParams = layouts.get(params);
  if (!perParams) {
    perParams = new Map();
    layouts.set(params, perParams);
  }
  // Everything the layout depends on: format, subformat, branch_fmt, the branch map width class
  // (branches 0, 1, 2-3, 4-7, 8-15, 16-31), interrupt, thaddr and the implicit exception mode.
  const b = pkt.branches === undefined ? 7 : pkt.branches === 0n ? 6 : 32 - Math.clz32(Number(pkt.branches));
  const key =
    sel(pkt.format) |
    (sel(pkt.subformat) << 3) |
    (sel(pkt.branch_fmt) << 6) |
    (b << 9) |
    (sel(pkt.interrupt) << 13) |
    (sel(pkt.thaddr) << 16) |
    ((mode.implicit_exception ? 1 : 0) << 19);
  let fields = perParams.get(key);
  if (!fields) {
    fields = packetFields(pkt, params, mode);
    perParams.set(key, fields);
  }
  return fields;
}

const buf = new Uint8Array(64);

/** Writes the low `width` (<= 32) bits of the unsigned 32-bit `value` at bit `pos`. */
function putBits(value: number, width: number, pos: number): void {
  let v = value >>> 0;
  while (width > 0) {
    const byte = pos >> 3;
    const off = pos & 7;
    const n = Math.min(8 - off, width);
    buf[byte] = buf[byte]! | ((v & ((1 << n) - 1)) << off);
    v = n === 32 ? 0 : v >>> n;
    pos += n;
    width -= n;
  }
}

/** Can the bytes be built here, or does an encapsulation option need the general path? */
function simpleEncapsulation(params: PacketParams): boolean {
  return params.encap_srcid_width === 0 && params.encap_type_in === 'flow';
}

/** The encapsulated bytes of `pkt` (header byte, then the compressed payload). */
export function packetBytes(pkt: Packet, params: PacketParams, mode: PacketMode = {}): Uint8Array {
  const out = new Uint8Array(64);
  return out.slice(0, packetInto(pkt, params, mode, out, 0));
}

/**
 * Writes the encapsulated bytes of `pkt` at `dst[at]` (room for 64 bytes needed) and returns how
 * many were written: the encoder's output buffer takes packets without an allocation each.
 */
export function packetInto(pkt: Packet, params: PacketParams, mode: PacketMode, dst: Uint8Array, at: number): number {
  if (!simpleEncapsulation(params)) return copy(encapsulate(packPacket(pkt, params, mode), params), dst, at);
  const fields = layoutOf(pkt, params, mode);
  let total = 0;
  for (const f of fields) total += f.width;
  const bytes = (total + 7) >> 3;
  buf.fill(0, 0, bytes + 1);
  let pos = 0;
  for (const f of fields) {
    const v = pkt[f.name];
    if (v === undefined) return copy(encapsulate(packPacket(pkt, params, mode), params), dst, at); // the reference reports it
    if (f.width <= 32) {
      putBits(Number(BigInt.asUintN(32, v)), f.width, pos);
    } else {
      let rest = v;
      for (let done = 0; done < f.width; done += 32) {
        putBits(Number(BigInt.asUintN(32, rest)), Math.min(32, f.width - done), pos + done);
        rest >>= 32n;
      }
    }
    pos += f.width;
  }
  // Sign-based compression: keep the bits below the run of copies of the top bit, plus one copy.
  const top = (buf[(total - 1) >> 3]! >> ((total - 1) & 7)) & 1;
  let keep = 1;
  for (let i = total - 2; i >= 0; i--) {
    if (((buf[i >> 3]! >> (i & 7)) & 1) !== top) {
      keep = i + 2;
      break;
    }
  }
  const length = (keep + 7) >> 3;
  if (top === 1) {
    // Pad the last byte above `keep` with ones.
    const last = length - 1;
    const used = keep - last * 8;
    buf[last] = buf[last]! | ((0xff << used) & 0xff);
  }
  if (length > 31) return copy(encapsulate(packPacket(pkt, params, mode), params), dst, at); // the reference throws
  dst[at] = length | (2 << 5); // flow 2: instruction trace, no extend
  for (let i = 0; i < length; i++) dst[at + 1 + i] = buf[i]!;
  return length + 1;
}

function copy(bytes: Uint8Array, dst: Uint8Array, at: number): number {
  dst.set(bytes, at);
  return bytes.length;
}
