/**
 * Encapsulation by hand. Header = length[4:0] | flow[6:5] | extend[7]; then srcID, timestamp, type
 * and payload as one LSB-first bit stream (see encapsulate.ts for the reading of the ratified
 * encapsulation spec). The payload used is the F2 `0x4a` of pack.test.ts (8 significant bits,
 * top bit 0).
 */
import { describe, expect, it } from 'vitest';
import { RvError } from '../../common/errors.ts';
import { encapsulate, nullPacket, splitStream } from './encapsulate.ts';
import { defaultPacketParams, type PacketParams } from './params.ts';

const P = defaultPacketParams('2.0');
const F2 = { bits: 8, fullBits: 39, payload: Uint8Array.of(0x4a) };

const err = (f: () => unknown): RvError => {
  try {
    f();
  } catch (e) {
    if (e instanceof RvError) return e;
  }
  throw new Error('no RvError');
};

describe('encapsulate', () => {
  it('default: flow 2 carries "instruction trace", no srcID, no timestamp', () => {
    // length 1 | flow 2 << 5 = 0x41.
    expect(Array.from(encapsulate(F2, P))).toEqual([0x41, 0x4a]);
    // Data trace: flow 3 -> 0x61.
    expect(Array.from(encapsulate(F2, P, { msgType: 3 }))).toEqual([0x61, 0x4a]);
  });

  it('an 8-bit srcID is a whole byte before the payload', () => {
    expect(Array.from(encapsulate(F2, { ...P, encap_srcid_width: 8 }, { srcId: 0x33n }))).toEqual([0x41, 0x33, 0x4a]);
  });

  it('a 4-bit srcID shares the first payload byte and counts towards header.length', () => {
    // length = ceil((8 + 4 % 8) / 8) = 2 -> header 0x42. Bits: srcID 0101 [3:0], payload [11:4],
    // padding [15:12] = copies of payload bit 7 (0). byte1 = 0xa5, byte2 = 0x04.
    expect(Array.from(encapsulate(F2, { ...P, encap_srcid_width: 4 }, { srcId: 5n }))).toEqual([0x42, 0xa5, 0x04]);
  });

  it('12-bit srcID, 16-bit timestamp and a type field in the payload', () => {
    // length = ceil((2 + 8 + 12 % 8) / 8) = 2, flow 0 (encap_flow), extend 1 -> header 0x82.
    // Bits: srcID 0xabc [11:0], timestamp 0x1234 [27:12], type 10 [29:28], payload 0x4a [37:30],
    // padding [39:38] = 0. byte1 = 0xbc; byte2 = 0xa | 0x4 << 4 = 0x4a; byte3 = 0x23;
    // byte4 = 0x1 | bit 29 (0x20) | payload bit 1 at 31 (0x80) = 0xa1; byte5 = 0x4a >> 2 = 0x12.
    const params: PacketParams = { ...P, encap_srcid_width: 12, encap_timestamp_width: 16, encap_type_in: 'payload' };
    const bytes = encapsulate(F2, params, { srcId: 0xabcn, timestamp: 0x1234n });
    expect(Array.from(bytes)).toEqual([0x82, 0xbc, 0x4a, 0x23, 0xa1, 0x12]);
    const [sp] = [...splitStream(bytes, params)];
    expect(sp).toMatchObject({ offset: 0, msgType: 2, flow: 0, srcId: 0xabcn, timestamp: 0x1234n });
    expect(Array.from(sp?.payload ?? [])).toEqual([0x4a]);
  });

  it('a negative payload is padded with ones', () => {
    // payload 0xf2 with 5 significant bits (0b10010, top 1) behind a 4-bit srcID 0:
    // length = ceil((5 + 4) / 8) = 2 -> header 0x42. Payload bits [8:4] -> bits 5, 8; padding
    // [15:9] = 1. byte1 = 0x20, byte2 = 0xff.
    const neg = { bits: 5, fullBits: 68, payload: Uint8Array.of(0xf2) };
    expect(Array.from(encapsulate(neg, { ...P, encap_srcid_width: 4 }))).toEqual([0x42, 0x20, 0xff]);
  });

  it('timestamps are sent only when given', () => {
    const params = { ...P, encap_timestamp_width: 16 };
    expect(Array.from(encapsulate(F2, params))).toEqual([0x41, 0x4a]);
    expect(Array.from(encapsulate(F2, params, { timestamp: 0xbeefn }))).toEqual([0xc1, 0xef, 0xbe, 0x4a]);
  });

  it('rejects payloads over 31 bytes and srcIDs that do not fit', () => {
    expect(() => encapsulate(new Uint8Array(32), P)).toThrow('payload needs 32 bytes; an encapsulated packet carries at most 31');
    expect(Array.from(encapsulate(new Uint8Array(31), P)).slice(0, 1)).toEqual([0x5f]);
    // 31 payload bytes plus a 4-bit srcID no longer fit.
    expect(() => encapsulate(new Uint8Array(31), { ...P, encap_srcid_width: 4 })).toThrow(/32 bytes/);
    expect(() => encapsulate(F2, { ...P, encap_srcid_width: 4 }, { srcId: 16n })).toThrow('srcID 16 does not fit in 4 bits');
  });
});

describe('splitStream', () => {
  it('skips null packets and reports offsets', () => {
    const stream = Uint8Array.from([...nullPacket('idle'), ...nullPacket('alignment'), 0x41, 0x1f, 0x00, 0x42, 0x85, 0x00]);
    const got = [...splitStream(stream, P)];
    expect(got.map((sp) => [sp.offset, sp.payloadOffset, Array.from(sp.payload)])).toEqual([
      [2, 3, [0x1f]],
      [5, 6, [0x85, 0x00]],
    ]);
  });

  it('yields data trace packets with their message type', () => {
    expect([...splitStream(Uint8Array.of(0x61, 0x55), P)].map((sp) => sp.msgType)).toEqual([3]);
  });

  it('a truncated final packet', () => {
    const e = err(() => [...splitStream(Uint8Array.of(0x41, 0x1f, 0x43, 0x01), P)]);
    expect(e.code).toBe('truncated');
    expect(e.location.offset).toBe(2);
    expect(e.message).toBe('packet with header 0x43 needs 4 bytes, only 2 remain');
  });

  it('a timestamp flag without configured timestamps is a bad header', () => {
    const e = err(() => [...splitStream(Uint8Array.of(0x41, 0x1f, 0xc1, 0x1f), P)]);
    expect(e.code).toBe('bad-header');
    expect(e.location.offset).toBe(2);
    expect(e.message).toMatch(/announces a timestamp/);
  });

  it('a flow that is no message type is a bad header', () => {
    const e = err(() => [...splitStream(Uint8Array.of(0x21, 0x1f), P)]);
    expect(e.code).toBe('bad-header');
    expect(e.message).toBe('flow 1 is neither 2 (instruction) nor 3 (data)');
  });
});
