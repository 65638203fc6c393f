/**
 * The pipelined output (pipeline_stages_p = L, docs/etrace-model.md "Pipeline (pipeline_stages_p)"):
 * acceptance by reservation, landing at the end of cycle t + L, stalls per packet.
 *
 * The streams are hand-made: a chain of `jalr x0, 0(x6)` (other uninferable jump, 4 bytes) at
 * 0x100, 0x110, 0x120, ..., each jumping to the next, under defaultParams (1.1.1, 32-bit addresses,
 * iaddress_lsb_p 1). The packets, worked out from the field tables (reservation.test.ts has the
 * widths), are:
 * - the start support packet, taken before the first record (cycle -1): enable 1, qual_status 0,
 *   options 0: 0b1_1111 -> 6 bits -> `41 1f`, 2 bytes (reservation 3);
 * - the sync of instruction 0, offered when instruction 1 arrives (the encoder needs the next
 *   instruction): branch 1, privilege 3, context 0, address 0x100 >> 1 = 0x80 at bit 9: 0x10073,
 *   18 bits -> `43 73 00 01`, 4 bytes (reservation 6);
 * - an F2 for every later instruction (its predecessor is an uninferable jump), offered when the
 *   next one arrives: address difference 0x10 >> 1 = 8 at bit 2, format 2, flags equal to the
 *   address's top bit: 0x22, 7 bits -> `41 22`, 2 bytes (reservation 10);
 * - at the end (the cycle after the last record), the last instruction's F2 and the ending
 *   support packet: qual_status 3 (ended_upd) at bit 6: 0xcf, 9 bits -> `42 cf 00`, 3 bytes.
 * A trace_lost support packet: qual_status 2: 0x9f, 9 bits -> `42 9f 00`, 3 bytes.
 */
import { describe, expect, it } from 'vitest';
import type { DataAccess } from '../hart/data-records.ts';
import { ImageBuilder, type ProgramImage } from '../hart/image.ts';
import * as enc from '../hart/isa/encode.ts';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';
import { decodedRuns, retiredAddresses, traceRecovery } from '../hart/recovery.ts';
import { defaultOptions, defaultParams, type EtraceConfig } from './config.ts';
import { defaultDataParams } from './data/params.ts';
import { decodeStream } from './decoder.ts';
import { encodeStream, StreamEncoder } from './output.ts';
import { QUAL_STATUS } from './packet/fields.ts';
import { reservationBytes } from './reservation.ts';

const addr = (k: number): bigint => 0x100n + 0x10n * BigInt(k);

/** Instruction k of the chain. */
function jump(k: number): RetirementRecord {
  return { ...emptyRecord(), iaddr: addr(k), iretire: 2, ilastsize: 1, itype: Itype.otherUninferableJump };
}

/** A cycle in which nothing retires. */
const idle = (): RetirementRecord => emptyRecord();

/** The program: instruction k is `jalr x0, 0(x6)` at addr(k). */
function image(n: number): ProgramImage {
  const b = new ImageBuilder();
  for (let k = 0; k < n; k++) b.put(addr(k), enc.jalr(0, 6, 0), 4);
  return b.build();
}

function config(stages: number, options: Partial<EtraceConfig['options']> = {}): EtraceConfig {
  return { params: { ...defaultParams(), fifo_depth_p: 32, pipeline_stages_p: stages }, options: { ...defaultOptions(), ...options } };
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

/** Instructions 0..n-1, instruction k in cycle at(k), idle cycles between. */
function spaced(n: number, at: (k: number) => number): RetirementRecord[] {
  const out: RetirementRecord[] = [];
  for (let k = 0; k < n; k++) {
    while (out.length < at(k)) out.push(idle());
    out.push(jump(k));
  }
  return out;
}

describe('pipeline_stages_p: no back-pressure', () => {
  it('every byte leaves exactly L cycles later, the same bytes', () => {
    // Instructions 0..5 in cycles 0, 5, 10, 15, 20, 25; the transport always ready. L = 0:
    // support (taken in cycle -1) leaves in 0, 1; sync (taken in 5, when instruction 1 arrives)
    // 6-9; the F2 of instruction k (taken in 5(k + 1)) 5k + 6, 5k + 7 for k = 1..4; in cycle 26,
    // the end, the F2 of instruction 5 and the ending support are taken: they queue behind the
    // byte leaving in 27 and leave in 28, 29 and 30-32.
    const records = spaced(6, (k) => 5 * k);
    const l0 = [0, 1, 6, 7, 8, 9, 11, 12, 16, 17, 21, 22, 26, 27, 28, 29, 30, 31, 32];
    const bytes = '41 1f 43 73 00 01 41 22 41 22 41 22 41 22 41 22 42 cf 00';
    for (const l of [0, 1, 2]) {
      const r = encodeStream(records, config(l), { ready: () => true, departures: true });
      expect(hex(r.bytes), `L = ${l}`).toBe(bytes);
      expect([...r.departures!], `L = ${l}`).toEqual(l0.map((c) => c + l));
      expect(r.dropped).toBe(0);
    }
  });

  it('without a transport model (ready undefined) nothing is counted: the same bytes at every L', () => {
    const records = spaced(20, (k) => k);
    const free = hex(encodeStream(records, config(0)).bytes);
    for (const l of [1, 2, 3, 4]) expect(hex(encodeStream(records, config(l)).bytes)).toBe(free);
  });
});

describe('pipeline_stages_p: a packet that fits by its size but not by its reservation', () => {
  // Instructions 0..7 in cycles 0..7, then instructions 8..11 in cycles 17, 27, 37, 47 (the FIFO
  // drains between them); the transport is not ready before cycle 8. FIFO 32 bytes.
  const n = 12;
  const records = spaced(n, (k) => (k <= 7 ? k : 7 + 10 * (k - 7)));
  const ready = (c: number): boolean => c >= 8;

  it('L = 0: taken (nothing is lost)', () => {
    // Fill after cycle 7: support 2 + sync 4 + the F2s of instructions 1..6 (cycles 2..7) 12 = 18.
    const r = encodeStream(records, config(0), { ready });
    expect(r.dropped).toBe(0);
    expect(r.packets.some((p) => p.packet.qual_status === QUAL_STATUS.trace_lost)).toBe(false);
    const decoded = decodeStream(r.bytes, image(n), { params: config(0).params, xlen: 32 });
    expect(decodedRuns(decoded)).toEqual([retiredAddresses(records, image(n))]);
  });

  it('L = 1: lost in cycle 7, reported by trace_lost, the trace recovers at a sync', () => {
    // `reserved` as each cycle is entered (after landings), then the offer (claim by reservation):
    // cycle 1: support landed (2); sync 2 + 6 = 8: taken.
    // cycle 2: sync in flight (8); F2 of instruction 1: 8 + 10 = 18: taken.
    // cycle 3: sync landed (6) + F2 in flight 10 = 16; F2 of 2: 26: taken.
    // cycle 4: 8 + 10 = 18; 28: taken. cycle 5: 10 + 10 = 20; 30: taken. cycle 6: 12 + 10 = 22;
    //   32 <= 32: taken (F2 of 5).
    // cycle 7: 14 + 10 = 24; the F2 of 6: 34 > 32: lost (at L = 0: 14 + 2 + 2 = 18 bytes, it fits).
    // cycle 8: F2 of 5 landed (16), ready from now on: one byte leaves (15). Nothing is offered
    //   before instruction 8 arrives in cycle 17: the FIFO drains to 7, then 6 in cycle 17.
    // cycle 17: the encoder, waiting for a sync since the loss, offers the sync of instruction 7:
    //   replaced by trace_lost (6 + 3 fits). A sync that does not get through is tried again, not
    //   counted lost: one packet dropped in all.
    // cycle 27: the sync of instruction 8 (0x180) goes through; then F2s for 9..11.
    const r = encodeStream(records, config(1), { ready });
    expect(r.dropped).toBe(1);
    const kinds = r.packets.map(({ packet: p, record }) => {
      if (p.format === 3n && p.subformat === 3n) return `support q${p.qual_status} @${record}`;
      if (p.format === 3n && p.subformat === 0n) return `sync 0x${(p.address! << 1n).toString(16)} @${record}`;
      return `F${p.format} @${record}`;
    });
    expect(kinds).toEqual([
      'support q0 @0',
      'sync 0x100 @1',
      ...[2, 3, 4, 5, 6].map((c) => `F2 @${c}`),
      'support q2 @17',
      'sync 0x180 @27',
      ...[37, 47].map((c) => `F2 @${c}`),
      // The end (cycle 48): the F2 of instruction 11, the ending support.
      'F2 @48',
      'support q3 @48',
    ]);
    expect(hex(r.bytes)).toBe(['41 1f', '43 73 00 01', ...Array(5).fill('41 22'), '42 9f 00', '43 73 80 01', '41 22', '41 22', '41 22', '42 cf 00'].join(' '));
    // Decoded: instructions 0..5, the loss, 8..11: each run a piece of the retired sequence.
    const decoded = decodeStream(r.bytes, image(n), { params: config(1).params, xlen: 32 });
    expect(decodedRuns(decoded)).toEqual([[0, 1, 2, 3, 4, 5].map(addr), [8, 9, 10, 11].map(addr)]);
    const recovery = traceRecovery(decoded, retiredAddresses(records, image(n)));
    expect(recovery.wrongRun).toBeUndefined();
    expect([recovery.losses, recovery.recovered]).toEqual([1, 10]);
  });

  it('L = 2..4: lost as well, and recovered', () => {
    for (const l of [2, 3, 4]) {
      const r = encodeStream(records, config(l), { ready });
      expect(r.dropped, `L = ${l}`).toBeGreaterThan(0);
      const decoded = decodeStream(r.bytes, image(n), { params: config(l).params, xlen: 32 });
      const recovery = traceRecovery(decoded, retiredAddresses(records, image(n)));
      expect(recovery.wrongRun, `L = ${l}`).toBeUndefined();
      expect(recovery.losses, `L = ${l}`).toBeGreaterThanOrEqual(1);
      // The last run reaches the end of the program: the trace recovered.
      expect(decodedRuns(decoded).at(-1)!.at(-1), `L = ${l}`).toBe(addr(n - 1));
    }
  });
});

describe('pipeline_stages_p with stallEnable', () => {
  it('heavy back-pressure at L = 1..4: nothing lost, the unstalled bytes, the run ends', () => {
    // 40 instructions back to back; the transport takes a byte every fourth cycle only.
    const records = spaced(40, (k) => k);
    const free = encodeStream(records, config(0));
    const ready = (c: number): boolean => c % 4 === 0;
    for (const l of [0, 1, 2, 3, 4]) {
      const r = encodeStream(records, config(l, { stallEnable: true }), { ready, departures: true });
      expect(r.dropped, `L = ${l}`).toBe(0);
      expect(r.stallCycles, `L = ${l}`).toBeGreaterThan(0);
      expect(hex(r.bytes), `L = ${l}`).toBe(hex(free.bytes));
      // Every byte left, one per ready cycle.
      expect(r.departures!.length).toBe(r.bytes.length);
      expect([...r.departures!].every((c) => ready(c))).toBe(true);
    }
  });

  it('with data trace: te_data packets stall by their reservation too, nothing lost, the unstalled bytes', () => {
    // A 4-byte store with every instruction (te_data packets of 4-9 bytes; reservation 15).
    const records = spaced(30, (k) => k);
    const accesses: DataAccess[] = records.map((_, k) => ({ at: k, dtype: 1, daddr: 0x8000n + 0x40n * BigInt(k * k), dsize: 2, data: BigInt((k * 0x9e3779b9) >>> 0), lrid: 0, iaddrLsbs: 0, dblock: 0 }));
    const data = { accesses, responses: [] };
    const withData = (l: number, options: Partial<EtraceConfig['options']> = {}): EtraceConfig => {
      const c = config(l, options);
      return { ...c, params: { ...c.params, dataTrace: { ...defaultDataParams(), data_width_p: 32 }, dataTraceSupport: true } };
    };
    const free = encodeStream(records, withData(0), { data });
    expect(free.dataPackets.length).toBe(30);
    const ready = (c: number): boolean => c % 3 === 0;
    for (const l of [0, 1, 2, 3, 4]) {
      const r = encodeStream(records, withData(l, { stallEnable: true }), { ready, data });
      expect([l, r.dropped, hex(r.bytes)]).toEqual([l, 0, hex(free.bytes)]);
      expect(r.stallCycles).toBeGreaterThan(0);
      // Without the stall the same pressure loses packets.
      expect(encodeStream(records, withData(l), { ready, data }).dropped, `L = ${l}`).toBeGreaterThan(0);
    }
  });

  it('a te_data packet is taken by its reservation: lost at L = 1 where its size fits', () => {
    // Instructions 0 and 1 with a store each (value 0, a few bytes); 1.1.1, 32-bit data trace: the
    // data reservation is the unified atomic's, format 3 + subtype 3 + size 1 + diff 2 + op_len 2
    // + operand 32 + data_len 2 + data 32 + address 32 = 109 bits -> 14 bytes, + header = 15. The
    // transport is never ready.
    // L = 1: cycle -1: support (reservation 4: 18 bits). cycle 0: the store of record 0: 4 + 15 = 19:
    // taken. cycle 1: the support has landed (at most 4), the store in flight (15), the sync of
    // instruction 0 taken (6, enough room): at least 1 + 15 + 6 = 22, and the store of record 1
    // needs 15 more: lost. L = 0: support, sync and two small stores fill far less than 32 bytes.
    const records = spaced(2, (k) => k);
    const accesses: DataAccess[] = records.map((_, k) => ({ at: k, dtype: 1, daddr: 0x40n, dsize: 2, data: 0n, lrid: 0, iaddrLsbs: 0, dblock: 0 }));
    const withData = (l: number): EtraceConfig => {
      const c = config(l);
      return { ...c, params: { ...c.params, dataTrace: { ...defaultDataParams(), data_width_p: 32 }, dataTraceSupport: true } };
    };
    expect(reservationBytes(withData(1).params, 'data')).toBe(15);
    const never = (): boolean => false;
    const l0 = encodeStream(records, withData(0), { ready: never, data: { accesses, responses: [] } });
    expect([l0.dataPackets.length, l0.dropped]).toEqual([2, 0]);
    const l1 = encodeStream(records, withData(1), { ready: never, data: { accesses, responses: [] } });
    expect(l1.dataPackets.map((d) => d.record)).toEqual([0]);
    expect(l1.dropped).toBeGreaterThanOrEqual(1);
    expect(l1.packets.some((p) => p.packet.qual_status === QUAL_STATUS.trace_lost)).toBe(true);
  });

  it('stalls per packet until its reservation fits (L = 1, hand-counted)', () => {
    // Instructions 0..3 back to back; the transport is never ready before cycle 100, FIFO 32.
    // cycle 1: support landed (2); sync: 8. cycle 2: sync in flight: F2 of 1: 18. cycle 3: sync
    // landed: 6 + 10 = 16, F2 of 2: 26. End, cycle 4: 8 + 10 = 18; F2 of 3: 28: taken; ending
    // support: 28 + 3 = 31: taken. Nothing stalls; then the same with the FIFO fuller.
    const records = spaced(4, (k) => k);
    const never = (c: number): boolean => c >= 100;
    const calm = encodeStream(records, config(1, { stallEnable: true }), { ready: never });
    expect(calm.stallCycles).toBe(0);
    // 6 instructions: in cycle k = 3..5, landed 2 + 4 + 2(k - 3) (support, sync, F2s of 1..k-3)
    // and the F2 of k - 2 in flight (10): the F2 of k - 1 needs 26 + 2(k - 3) <= 32: taken (26, 28, 30).
    // End, cycle 6: landed 12, in flight 10 (F2 of 4): 22; the F2 of 5: 32: taken. The ending
    // support: 32 + 3 > 32: stall. Cycle 7: F2 of 4 landed (14) + F2 of 5 in flight 10 = 24 + 3 = 27:
    // taken after 1 stall cycle.
    const six = encodeStream(spaced(6, (k) => k), config(1, { stallEnable: true }), { ready: never, departures: true });
    expect(six.stallCycles).toBe(1);
    expect(six.dropped).toBe(0);
    // The first byte leaves in cycle 100.
    expect(six.departures![0]).toBe(100);
  });
});

describe('StreamEncoder.takeBytes: the stream handed over as it is accepted', () => {
  // The loss case above (L = 1): its bytes, typed from the packets worked out at the top.
  const n = 12;
  const records = spaced(n, (k) => (k <= 7 ? k : 7 + 10 * (k - 7)));
  const ready = (c: number): boolean => c >= 8;
  const stream = ['41 1f', '43 73 00 01', ...Array(5).fill('41 22'), '42 9f 00', '43 73 80 01', '41 22', '41 22', '41 22', '42 cf 00'].join(' ');

  it('the pieces taken after each record, then what finish() leaves, are the whole stream; packets keep their offsets in it', () => {
    const s = new StreamEncoder(config(1), { ready });
    const pieces: string[] = [];
    for (const r of records) {
      s.push(r);
      const piece = s.takeBytes();
      if (piece.length > 0) pieces.push(hex(piece));
    }
    const r = s.finish();
    pieces.push(hex(r.bytes));
    expect(pieces.join(' ')).toBe(stream);
    expect(pieces.length).toBeGreaterThan(3);
    expect(r.byteCount).toBe(stream.split(' ').length);
    // The trace_lost support packet starts at byte 2 + 4 + 5 * 2 = 16 of the stream.
    expect(r.packets.find((p) => p.packet.qual_status === QUAL_STATUS.trace_lost)?.offset).toBe(16);
  });

  it('a second take with nothing accepted in between is empty', () => {
    const s = new StreamEncoder(config(0), { ready: () => true });
    s.push(jump(0));
    expect(hex(s.takeBytes())).toBe('41 1f');
    expect(s.takeBytes().length).toBe(0);
  });
});
