/**
 * Random streams through both of our formats. Records are drawn so that the interesting cases of
 * the binary coding come up often: sequential successors (no iaddr delta), one-instruction blocks
 * (implicit iretire), constant and changing time steps, values at the ends of their ranges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
