/**
 * The byte stream: "Unformatted Trace & Diagnostic Data Packet Encapsulation for RISC-V"
 * (riscv-non-isa/e-trace-encap), normal and null packets.
 *
 * What is implemented (all groups concatenated as one bit stream, every field LSB first):
 *   header     8 bits   length[4:0] | flow[6:5] | extend[7]
 *   srcID      encap_srcid_width bits (0..16)
 *   timestamp  encap_timestamp_width bits, present when extend = 1 (T whole bytes)
 *   type       2 bits when encap_type_in = 'payload' (10 instruction, 11 data), else absent
 *   payload    the sign-compressed te_inst bits
 * header.length = ceil((type bits + payload bits + srcID bits % 8) / 8), 1..31: the srcID bits
 * beyond whole bytes count towards the length, as the encapsulation spec's "Packet Length" section
 * states, so the packet is 1 + S + T*extend + length bytes. The final byte is padded with copies of
 * the payload's top bit: the encapsulation calls padding "don't care", and a sign extension is what
 * the te_inst decoder needs.
 *
 * Project convention (design note): by default the message type travels in header.flow
 * (2 = instruction, 3 = data) and there is no type field, which is also what the spec repository's
 * reference flow reads. Null packets (length 0) are idle (extend 0) or alignment (extend 1); the
 * reader skips them.
 */
import { RvError } from '../../common/errors.ts';
import { bigintToBytes, bytesToBigint, compress, mask, type PackedPacket } from './pack.ts';
import type { PacketParams } from './params.ts';

export const MSG_TYPE = { instruction: 2, data: 3 } as const;

export interface EncapsulateOptions {
  /** 2 = instruction trace (default), 3 = data trace. */
  readonly msgType?: number;
  /** srcID value (encap_srcid_width bits). */
  readonly srcId?: bigint;
  /** Timestamp; sent (extend = 1) only when given and encap_timestamp_width > 0. */
  readonly timestamp?: bigint;
}

export interface StreamPacket {
  /** Byte offset of the header. */
  readonly offset: number;
  /** Byte offset of the first byte holding payload bits. */
  readonly payloadOffset: number;
  readonly msgType: number;
  readonly flow: number;
  readonly srcId: bigint;
  readonly timestamp?: bigint;
  /** The te_inst payload, least significant byte first, sign-padded to whole bytes. */
  readonly payload: Uint8Array;
}

/** Appends fields LSB first to a growing bit string. */
class BitWriter {
  value = 0n;
  pos = 0;
  put(v: bigint, width: number): void {
    this.value |= (v & mask(width)) << BigInt(this.pos);
    this.pos += width;
  }
}

/** One normal encapsulated packet for a te_inst payload (a `packPacket` result or raw bytes). */
export function encapsulate(packet: PackedPacket | Uint8Array, params: PacketParams, opts: EncapsulateOptions = {}): Uint8Array {
  const payload = packet instanceof Uint8Array ? packet : packet.payload;
  const payloadBits = packet instanceof Uint8Array ? payload.length * 8 : packet.bits;
  const msgType = opts.msgType ?? MSG_TYPE.instruction;
  if (msgType !== MSG_TYPE.instruction && msgType !== MSG_TYPE.data) {
    throw new RvError('bad-value', `message type ${msgType} is neither 2 (instruction) nor 3 (data)`);
  }
  if (payloadBits <= 0) throw new RvError('bad-value', 'empty payload: a normal packet carries at least one byte');
  const srcBits = params.encap_srcid_width;
  const srcId = opts.srcId ?? 0n;
  if (srcId < 0n || srcId > mask(srcBits)) {
    throw new RvError('bad-value', `srcID ${srcId} does not fit in ${srcBits} bits`, { path: 'srcId' });
  }
  const extend = opts.timestamp !== undefined && params.encap_timestamp_width > 0;
  const typeBits = params.encap_type_in === 'payload' ? 2 : 0;
  const length = Math.ceil((typeBits + payloadBits + (srcBits % 8)) / 8);
  if (length > 31) {
    throw new RvError('bad-value', `payload needs ${length} bytes; an encapsulated packet carries at most 31`);
  }
  const flow = params.encap_type_in === 'payload' ? params.encap_flow : msgType;

  const w = new BitWriter();
  w.put(BigInt(length | (flow << 5) | (extend ? 0x80 : 0)), 8);
  w.put(srcId, srcBits);
  if (extend) w.put(opts.timestamp ?? 0n, params.encap_timestamp_width);
  if (typeBits > 0) w.put(BigInt(msgType), 2);
  const data = bytesToBigint(payload) & mask(payloadBits);
  w.put(data, payloadBits);
  const total = 1 + Math.floor(srcBits / 8) + (extend ? params.encap_timestamp_width / 8 : 0) + length;
  const top = (data >> BigInt(payloadBits - 1)) & 1n;
  if (top === 1n) w.value |= mask(total * 8) ^ mask(w.pos);
  return bigintToBytes(w.value, total);
}

/** A null packet: idle (extend 0) or alignment (extend 1). */
export function nullPacket(kind: 'idle' | 'alignment', flow = 0): Uint8Array {
  return Uint8Array.of((flow << 5) | (kind === 'alignment' ? 0x80 : 0));
}

/**
 * Splits a byte stream into its normal packets, skipping null packets. Throws RvError with the
 * header's byte offset for a bad header ('bad-header') or a packet running past the end
 * ('truncated').
 */
export function* splitStream(bytes: Uint8Array, params: PacketParams): Generator<StreamPacket> {
  const srcBits = params.encap_srcid_width;
  const typeBits = params.encap_type_in === 'payload' ? 2 : 0;
  let offset = 0;
  while (offset < bytes.length) {
    const header = bytes[offset] ?? 0;
    const length = header & 0x1f;
    const flow = (header >> 5) & 3;
    const extend = (header & 0x80) !== 0;
    if (length === 0) {
      offset += 1; // null.idle or null.alignment
      continue;
    }
    if (extend && params.encap_timestamp_width === 0) {
      throw new RvError('bad-header', `header 0x${hex2(header)} announces a timestamp, but timestamps are not configured`, { offset });
    }
    const tsBits = extend ? params.encap_timestamp_width : 0;
    const total = 1 + Math.floor(srcBits / 8) + tsBits / 8 + length;
    if (offset + total > bytes.length) {
      throw new RvError(
        'truncated',
        `packet with header 0x${hex2(header)} needs ${total} bytes, only ${bytes.length - offset} remain`,
        { offset },
      );
    }
    const body = bytesToBigint(bytes.subarray(offset + 1, offset + total));
    let pos = 0;
    const take = (width: number): bigint => {
      const v = (body >> BigInt(pos)) & mask(width);
      pos += width;
      return v;
    };
    const srcId = take(srcBits);
    const timestamp = extend ? take(tsBits) : undefined;
    const msgType = typeBits > 0 ? Number(take(typeBits)) : flow;
    if (msgType !== MSG_TYPE.instruction && msgType !== MSG_TYPE.data) {
      const where = typeBits > 0 ? 'type field' : 'flow';
      throw new RvError('bad-header', `${where} ${msgType} is neither 2 (instruction) nor 3 (data)`, { offset });
    }
    const payloadBits = (total - 1) * 8 - pos;
    const payloadOffset = offset + 1 + Math.floor(pos / 8);
    let payload: Uint8Array;
    if (pos % 8 === 0) {
      payload = bytes.slice(payloadOffset, offset + total);
    } else {
      // Shifted by a partial srcID byte or the type field: realign, keeping the bits that carry
      // information (the rest is sign padding, restored by the decoder's sign extension).
      payload = compress(take(payloadBits), payloadBits).payload;
    }
    const base = { offset, payloadOffset, msgType, flow, srcId, payload };
    yield timestamp === undefined ? base : { ...base, timestamp };
    offset += total;
  }
}

function hex2(v: number): string {
  return v.toString(16).padStart(2, '0');
}
