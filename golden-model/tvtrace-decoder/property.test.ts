/**
 * Property tests (fast-check, fixed seeds printed in the test names so any failure replays):
 * - any byte string ends with groups or one error at an offset inside the stream, never a throw;
 * - random well-formed streams decode to the same changes whatever the field order inside each
 *   group, with or without end groups before begin groups;
 * - every prefix of a well-formed stream decodes or fails with `truncated` at its end.
 *
 * The stream builder here is a test helper typed from the spec's chapter 2 tables, not an encoder
 * model: it writes items in random order, which no encoder does.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../common/rng.ts';
import { decodeTv, parseTv, TvDecodeError, type TvGroupChanges, type TvParams } from './decoder.ts';
import { dumpTv } from './dump.ts';

const PARAMS: readonly TvParams[] = [
  { xlen: 64, flen: 64, mlen: 64 },
  { xlen: 32, flen: 0, mlen: 34 },
  { xlen: 64, flen: 32, mlen: 64 },
  { xlen: 32, flen: 64, mlen: 32 },
];

const le = (v: bigint, n: number): number[] => Array.from({ length: n }, (_, k) => Number((v >> BigInt(8 * k)) & 0xffn));
const randBig = (rng: Rng, bits: number): bigint => {
  let v = 0n;
  for (let k = 0; k < bits; k += 32) v = (v << 32n) | BigInt(rng.u32());
  return v & ((1n << BigInt(bits)) - 1n);
};

/** One group's items as byte units (a memory request and its response form one unit: they must stay adjacent). */
function randomUnits(rng: Rng, p: TvParams): number[][] {
  const units: number[][] = [];
  const mlenBytes = Math.ceil(p.mlen / 8);
  const init = rng.chance(0.1);
  const hasInstr = !init && rng.chance(0.8);
  if (hasInstr) units.push(rng.chance(0.3) ? [0x10, ...le(randBig(rng, 16), 2)] : [0x11, ...le(randBig(rng, 32), 4)]);
  if (hasInstr && rng.chance(0.5)) units.push([3]);
  else if (rng.chance(0.6)) units.push([7, 10, ...le(randBig(rng, p.xlen), p.xlen / 8)]);
  if (rng.chance(0.4)) units.push([7, 1, rng.int(0, 3)]);
  if (init) units.push([0x0b]);
  else if (!hasInstr && rng.chance(0.1)) units.push([0x0a]);
  // Distinct registers per group, so their order does not matter; not fflags/frm/fcsr (views of each other).
  const used = new Set<number>();
  for (let n = rng.int(0, 4); n > 0; n--) {
    const cls = rng.int(0, p.flen ? 2 : 1);
    const regno = cls === 0 ? 0x1000 + rng.int(0, 31) : cls === 1 ? rng.int(4, 0xfff) : 0x1020 + rng.int(0, 31);
    if (used.has(regno)) continue;
    used.add(regno);
    const width = cls === 2 ? p.flen : p.xlen;
    const kind = rng.int(0, 2);
    units.push(kind === 0 ? [4, ...le(BigInt(regno), 2), ...le(randBig(rng, width), width / 8)] : [kind === 1 ? 5 : 6, ...le(BigInt(regno), 2), rng.int(0, 255)]);
  }
  for (const id of [2, 3, 4, 5, 6, 7, 8, 9]) {
    if (!rng.chance(0.2)) continue;
    const n = id === 2 || id === 3 || id === 9 ? mlenBytes : id === 8 ? 8 : 1 << (id - 4);
    units.push([7, id, ...le(id === 2 || id === 3 || id === 9 ? randBig(rng, p.mlen) : randBig(rng, 8 * n), n)]);
  }
  for (let n = rng.int(0, 2); n > 0; n--) {
    const op = rng.int(0, 13);
    const size = rng.int(0, 3);
    const unit = [8, ...le(randBig(rng, p.mlen), mlenBytes), (size << 4) | op];
    if (op !== 0 && op !== 2 && op !== 13) unit.push(...le(randBig(rng, 8 << size), 1 << size));
    if (rng.chance(0.6)) {
      unit.push(9, (rng.int(0, 1) << 4) | size);
      if (op !== 1 && op !== 3) unit.push(...le(randBig(rng, 8 << size), 1 << size));
    }
    units.push(unit);
  }
  return units;
}

function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let k = out.length - 1; k > 0; k--) {
    const j = rng.int(0, k);
    [out[k], out[j]] = [out[j]!, out[k]!];
  }
  return out;
}

/**
 * A random stream of `count` groups in two field orders (the units of each group as generated, and
 * shuffled), with the same framing: begin/end, sometimes no end before the next begin, sometimes no
 * begin/end at all (an ungrouped run, never right after another one, which would merge them).
 */
function randomStreams(seed: number, p: TvParams, count: number): { a: Uint8Array; b: Uint8Array; groups: number } {
  const rng = new Rng(seed);
  const plan: { units: number[][]; other: number[][]; ungrouped: boolean }[] = [];
  for (let g = 0; g < count; g++) {
    const units = randomUnits(rng, p);
    const previousUngrouped = plan[g - 1]?.ungrouped ?? false;
    const ungrouped = !previousUngrouped && units.length > 0 && !units.some((u) => u[0] === 3) && rng.chance(0.15);
    plan.push({ units, other: shuffled(rng, units), ungrouped });
  }
  const a: number[] = [];
  const b: number[] = [];
  plan.forEach((g, k) => {
    // The end group may be left out only right before a begin group (not before an ungrouped run).
    const next = plan[k + 1];
    const omitEnd = !g.ungrouped && next !== undefined && !next.ungrouped && rng.chance(0.3);
    if (!g.ungrouped) {
      a.push(1);
      b.push(1);
    }
    a.push(...g.units.flat());
    b.push(...g.other.flat());
    if (!g.ungrouped && !omitEnd) {
      a.push(2);
      b.push(2);
    }
  });
  return { a: new Uint8Array(a), b: new Uint8Array(b), groups: count };
}

/** The changes without offsets, registers and other fields in a canonical order. */
function canonical(c: TvGroupChanges): unknown {
  const sortJson = (xs: unknown[]): string[] => xs.map((x) => JSON.stringify(x, (_, v) => (typeof v === 'bigint' ? v.toString(16) : v))).sort();
  return {
    kind: c.kind,
    grouped: c.grouped,
    endImplied: c.endImplied,
    instrPc: c.instrPc,
    pc: c.pc && { how: c.pc.how, by: c.pc.by, value: c.pc.value },
    instr: c.instr && { bits: c.instr.bits, value: c.instr.value },
    regs: sortJson(c.regs.map(({ offset: _o, ...r }) => r)),
    priv: c.priv,
    addl: sortJson(c.addl.map(({ offset: _o, ...x }) => x)),
    mem: sortJson(c.mem.map(({ offset: _o, response, ...m }) => ({ ...m, response: response && { ...response, offset: 0 } }))),
    hartReset: c.hartReset,
    stateInit: c.stateInit,
  };
}

describe('random bytes never throw and always end (seed 0x7d1ec)', () => {
  const opcodeHeavy = fc.array(fc.oneof(fc.constantFrom(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 0x10, 0x0a), fc.integer({ min: 0, max: 255 })), { maxLength: 300 });
  for (const [k, p] of PARAMS.entries()) {
    it(`params ${k} (XLEN ${p.xlen}, FLEN ${p.flen}, MLEN ${p.mlen})`, () => {
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), opcodeHeavy.map((xs) => new Uint8Array(xs))), (bytes) => {
          const parsed = parseTv(bytes, p);
          let last = -1;
          for (const g of parsed.groups) {
            for (const it of g.items) {
              expect(it.offset).toBeGreaterThan(last);
              expect(it.offset + it.length).toBeLessThanOrEqual(bytes.length);
              last = it.offset;
            }
          }
          const r = decodeTv(bytes, p);
          if (r.error) {
            expect(r.error).toBeInstanceOf(TvDecodeError);
            expect(r.error.offset).toBeGreaterThanOrEqual(0);
            expect(r.error.offset).toBeLessThanOrEqual(bytes.length);
            expect(r.error.oneLine()).not.toContain('\n');
            expect(r.error.oneLine()).toMatch(/^byte offset \d+: .+: expected .+$/);
          }
          const lines = dumpTv(bytes, p);
          expect(lines.length).toBe(r.groups.length + (r.error ? 1 : 0));
        }),
        { seed: 0x7d1ec, numRuns: 400 },
      );
    });
  }
});

describe('well-formed random streams (seed 0x0fd3)', () => {
  it('decode without error, to the same changes in any field order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.constantFrom(...PARAMS), fc.integer({ min: 1, max: 12 }), (seed, p, count) => {
        const { a, b, groups } = randomStreams(seed, p, count);
        const initial = { pc: 0x1000n };
        const ra = decodeTv(a, p, initial);
        const rb = decodeTv(b, p, initial);
        expect(ra.error?.oneLine()).toBeUndefined();
        expect(rb.error?.oneLine()).toBeUndefined();
        expect(ra.groups).toHaveLength(groups);
        expect(rb.groups.map(canonical)).toEqual(ra.groups.map(canonical));
        expect(rb.state).toEqual(ra.state);
      }),
      { seed: 0x0fd3, numRuns: 300 },
    );
  });

  it('every prefix decodes, or fails as truncated at its end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.constantFrom(...PARAMS), (seed, p) => {
        const { a } = randomStreams(seed, p, 4);
        for (let n = 0; n <= a.length; n++) {
          const r = decodeTv(a.subarray(0, n), p);
          if (r.error) {
            expect(r.error.code).toBe('truncated');
            expect(r.error.offset).toBe(n);
          }
        }
      }),
      { seed: 0x0fd3, numRuns: 60 },
    );
  });

  it('a changed byte never throws (seed 0x0fd3)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.constantFrom(...PARAMS), fc.nat(), fc.integer({ min: 0, max: 255 }), (seed, p, where, value) => {
        const { a } = randomStreams(seed, p, 6);
        if (a.length === 0) return;
        const m = a.slice();
        m[where % m.length] = value;
        const r = decodeTv(m, p);
        if (r.error) expect(r.error.offset).toBeLessThanOrEqual(m.length);
      }),
      { seed: 0x0fd3, numRuns: 300 },
    );
  });
});
