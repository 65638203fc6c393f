/**
 * Random streams through both of our formats. Records are drawn so that the interesting cases of
 * the binary coding come up often: sequential successors (no iaddr delta), one-instruction blocks
 * (implicit iretire), constant and changing time steps, values at the ends of their ranges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DataAccess, type DataTrace, DTYPE_NAMES, dataBits, hasLoadPart, type LoadResponse, Lresp } from '../data-records.ts';
import { ProgramImage } from '../image.ts';
import { type RetirementRecord, sequentialNext } from '../records.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { decodeBinaryStream, encodeBinaryStream } from './binary.ts';
import { decodeTextStream, encodeTextStream } from './text.ts';
import { streamValue } from './test-streams.ts';

const SEED = 20_250_611;
const MAX64 = (1n << 64n) - 1n;

const u64 = fc.oneof(fc.constantFrom(0n, 1n, MAX64, MAX64 - 1n, 1n << 63n), fc.bigInt({ min: 0n, max: MAX64 }));
const u32 = fc.oneof(fc.constantFrom(0, 1, 0xffff_ffff), fc.integer({ min: 0, max: 0xffff_ffff }));

/** A record, with hints for how iaddr and time relate to the previous one (applied in `chain`). */
const recordArb = fc.record({
  itype: fc.integer({ min: 0, max: 15 }),
  ilastsize: fc.integer({ min: 0, max: 1 }),
  iretireKind: fc.constantFrom('single', 'zero', 'any'),
  iretireAny: u32,
  iaddrKind: fc.constantFrom('sequential', 'near', 'any'),
  iaddrNear: fc.integer({ min: -4096, max: 4096 }),
  iaddrAny: u64,
  priv: fc.integer({ min: 0, max: 7 }),
  cause: u32,
  tval: u64,
  context: fc.oneof(fc.constant(0n), u64),
  ctype: fc.integer({ min: 0, max: 3 }),
  sijump: fc.boolean(),
  trigger: fc.integer({ min: 0, max: 7 }),
  halted: fc.boolean(),
  reset: fc.boolean(),
  impdef: fc.oneof(fc.constant(0), u32),
  timeKind: fc.constantFrom('step', 'same', 'any'),
  timeAny: u64,
  sameCycle: fc.boolean(),
});

type Draw = typeof recordArb extends fc.Arbitrary<infer T> ? T : never;

function chain(draws: Draw[]): RetirementRecord[] {
  const out: RetirementRecord[] = [];
  for (const d of draws) {
    const prev = out[out.length - 1];
    const next = prev ? sequentialNext(prev) : 0n;
    let iaddr = d.iaddrKind === 'sequential' ? next : d.iaddrKind === 'near' ? next + BigInt(d.iaddrNear) : d.iaddrAny;
    if (iaddr < 0n || iaddr > MAX64) iaddr = d.iaddrAny;
    const prevTime = prev?.time ?? 0n;
    let time = d.timeKind === 'step' ? prevTime + 1n : d.timeKind === 'same' ? prevTime : d.timeAny;
    if (time > MAX64) time = 0n;
    out.push({
      itype: d.itype,
      iretire: d.iretireKind === 'single' ? 1 << d.ilastsize : d.iretireKind === 'zero' ? 0 : d.iretireAny,
      ilastsize: d.ilastsize,
      iaddr,
      priv: d.priv,
      cause: d.cause,
      tval: d.tval,
      context: d.context,
      ctype: d.ctype,
      sijump: d.sijump,
      trigger: d.trigger,
      halted: d.halted,
      reset: d.reset,
      impdef: d.impdef,
      time,
      sameCycle: d.sameCycle,
    });
  }
  return out;
}

const segmentArb = fc.record({ base: fc.bigInt({ min: 0n, max: MAX64 - 64n }), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) });

const streamArb = fc
  .record({
    xlen: fc.constantFrom<Xlen>(32, 64),
    retiresPerCycle: fc.integer({ min: 1, max: 8 }),
    segments: fc.array(segmentArb, { maxLength: 3 }),
    draws: fc.array(recordArb, { maxLength: 40 }),
  })
  .map(({ xlen, retiresPerCycle, segments, draws }): RetirementStream => {
    // Keep segments disjoint: drop any that overlaps an earlier one.
    const kept: typeof segments = [];
    for (const s of segments) {
      const end = s.base + BigInt(s.bytes.length);
      if (kept.every((k) => end <= k.base || s.base >= k.base + BigInt(k.bytes.length))) kept.push(s);
    }
    return { xlen, retiresPerCycle, image: new ProgramImage(kept), records: chain(draws) };
  });

describe(`random streams (fast-check seed ${SEED})`, () => {
  it('round-trip through bin, through text, and bin -> text -> bin is the identity', () => {
    fc.assert(
      fc.property(streamArb, (stream) => {
        const bin = encodeBinaryStream(stream);
        const fromBin = decodeBinaryStream(bin, 'p.bin');
        expect(streamValue(fromBin)).toEqual(streamValue({ ...stream, image: fromBin.image }));
        // Touching segments are merged by the writers; the bytes they hold are the same.
        expect(fromBin.image.size).toBe(stream.image.size);
        const fromText = decodeTextStream(encodeTextStream(stream), 'p.txt');
        expect(streamValue(fromText)).toEqual(streamValue(fromBin));
        expect(Array.from(encodeBinaryStream(decodeTextStream(encodeTextStream(fromBin), 'p.txt')))).toEqual(Array.from(bin));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

const DTYPES = Object.keys(DTYPE_NAMES).map(Number);

/** An access drawn without its record; `place` puts it on a record. */
const accessArb = fc.record({
  where: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
  dtype: fc.constantFrom(...DTYPES),
  dsize: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 7 })),
  daddrKind: fc.constantFrom('near', 'any'),
  daddrNear: fc.integer({ min: -64, max: 64 }),
  daddrAny: u64,
  data: fc.bigInt({ min: 0n, max: (1n << 2048n) - 1n }),
  lrid: fc.oneof(fc.constant(0), u32),
  iaddrLsbs: fc.oneof(fc.constant(0), u32),
  dblock: fc.oneof(fc.constant(0), u32),
  // Split: how many records later the response comes, whether it is an error, its data.
  delay: fc.integer({ min: 0, max: 5 }),
  error: fc.boolean(),
  ldata: u64,
});
type AccessDraw = typeof accessArb extends fc.Arbitrary<infer T> ? T : never;

/** Accesses on the records of a stream: unified, or split with unique IDs and out-of-order responses. */
function place(records: number, draws: AccessDraw[], split: boolean): DataTrace {
  if (records === 0) return { accesses: [], responses: [] };
  const sorted = draws.map((d) => ({ d, at: Math.floor(d.where * records) })).sort((a, b) => a.at - b.at);
  const accesses: DataAccess[] = [];
  const responses: LoadResponse[] = [];
  let daddr = 0n;
  sorted.forEach(({ d, at }, k) => {
    daddr = d.daddrKind === 'near' ? BigInt.asUintN(64, daddr + BigInt(d.daddrNear)) : d.daddrAny;
    const lrid = split && hasLoadPart(d.dtype) ? k : d.lrid;
    const data = split && d.dtype === 0 ? 0n : d.data & ((1n << BigInt(dataBits(d.dtype, d.dsize))) - 1n);
    accesses.push({ at, dtype: d.dtype, daddr, dsize: d.dsize, data, lrid, iaddrLsbs: d.iaddrLsbs, dblock: d.dblock });
    if (split && hasLoadPart(d.dtype)) {
      const ldata = d.ldata & ((1n << BigInt(8 * 2 ** d.dsize)) - 1n);
      responses.push({ at: Math.min(records - 1, at + d.delay), lid: lrid, lresp: d.error ? Lresp.error : Lresp.okay, ldata: d.error && d.delay % 2 ? 0n : ldata });
    }
  });
  responses.sort((a, b) => a.at - b.at);
  return { accesses, responses };
}

const dataStreamArb = fc
  .record({ stream: streamArb, accesses: fc.array(accessArb, { maxLength: 30 }), split: fc.boolean() })
  .map(({ stream, accesses, split }): RetirementStream => ({ ...stream, data: place(stream.records.length, accesses, split) }));

describe(`random streams with a data trace (fast-check seed ${SEED})`, () => {
  it('round-trip through bin, through text, and bin -> text -> bin is the identity', () => {
    fc.assert(
      fc.property(dataStreamArb, (stream) => {
        const bin = encodeBinaryStream(stream);
        const fromBin = decodeBinaryStream(bin, 'p.bin');
        expect(fromBin.data).toEqual(stream.data);
        const fromText = decodeTextStream(encodeTextStream(stream), 'p.txt');
        expect(streamValue(fromText)).toEqual(streamValue(fromBin));
        expect(Array.from(encodeBinaryStream(fromText))).toEqual(Array.from(bin));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
