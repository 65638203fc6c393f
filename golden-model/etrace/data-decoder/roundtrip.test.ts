/**
 * Round trip of data trace: random data traces (seeded, printed) are encoded with the model and
 * decoded by the independent data decoder under every DataCompress / noData / noAddress
 * combination, unified and split signalling, both payload layouts. What noData / noAddress drop is
 * dropped from the expectation by the rules of docs/etrace-data.md, written here on their own.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions, defaultParams, type EtraceConfig } from '../config.ts';
import { encodeStream } from '../output.ts';
import { defaultDataParams, type DataParams } from '../data/params.ts';
import { type DataAccess, type DataTrace, type LoadResponse, Lresp } from '../../hart/data-records.ts';
import { emptyRecord, type RetirementRecord } from '../../hart/records.ts';
import { rng } from '../data/access-patterns.ts';
import { decodeDataStream } from './decoder.ts';

function records(n: number): RetirementRecord[] {
  return Array.from({ length: n }, (_, i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x80000000n + 4n * BigInt(i) }));
}

interface Shape {
  split: boolean;
  xlen: 32 | 64;
}

/** Accesses with the locality of real programs: a few base addresses, strides, small and large values. */
function randomTrace(seed: number, n: number, shape: Shape): DataTrace {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const bases = [0x80001000n, 0x80f00000n, 0x1000n, shape.xlen === 64 ? 0x3ffffff000n : 0x7ffff000n];
  const ptr = bases.map((b) => b);
  const big = (bits: number): bigint => {
    let v = 0n;
    for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(Math.floor(r() * 0x10000));
    return v & ((1n << BigInt(bits)) - 1n);
  };
  const value = (bits: number): bigint => BigInt.asUintN(bits, r() < 0.5 ? BigInt(Math.floor(r() * 300)) : r() < 0.5 ? -BigInt(Math.floor(r() * 300)) : big(bits));
  const maxS = shape.xlen === 64 ? 3 : 2;
  const accesses: DataAccess[] = [];
  const responses: LoadResponse[] = [];
  const free = [0, 1, 2, 3];
  const inFlight: { lid: number; bits: number }[] = [];
  for (let at = 0; at < n; at++) {
    const kind = r();
    const base = { at, lrid: 0, iaddrLsbs: 0, dblock: 0 };
    if (kind < 0.1) {
      const number = BigInt(pick([0x300, 0x305, 0x341, 0xc00, 0xc01, 0x7c0]));
      const bits = 8 << maxS;
      accesses.push({ ...base, dtype: pick([4, 5, 6]), daddr: number, dsize: maxS, data: (number >> 10n === 3n ? 0n : value(bits)) | (value(bits) << BigInt(bits)) });
    } else if (kind < 0.2) {
      const s = r() < 0.5 || maxS === 2 ? 2 : 3;
      const bits = 8 << s;
      const k = Math.floor(r() * bases.length);
      const daddr = (ptr[k]! >> BigInt(s)) << BigInt(s);
      const dtype = 8 + Math.floor(r() * 7);
      if (shape.split && free.length > 0) {
        const lid = free.splice(Math.floor(r() * free.length), 1)[0]!;
        accesses.push({ ...base, dtype, daddr, dsize: s, data: value(bits), lrid: lid });
        inFlight.push({ lid, bits });
      } else if (!shape.split) {
        accesses.push({ ...base, dtype, daddr, dsize: s, data: value(bits) | (value(bits) << BigInt(bits)) });
      }
    } else {
      const s = Math.floor(r() * (maxS + 1));
      const bits = 8 << s;
      const k = Math.floor(r() * bases.length);
      ptr[k] = BigInt.asUintN(shape.xlen, ptr[k]! + BigInt(Math.floor(r() * 64) - 16));
      const daddr = r() < 0.8 ? (ptr[k]! >> BigInt(s)) << BigInt(s) : ptr[k]!;
      const load = r() < 0.6;
      if (load && shape.split) {
        if (free.length === 0) continue;
        const lid = free.splice(Math.floor(r() * free.length), 1)[0]!;
        accesses.push({ ...base, dtype: 0, daddr, dsize: s, data: 0n, lrid: lid });
        inFlight.push({ lid, bits });
      } else {
        accesses.push({ ...base, dtype: load ? 0 : 1, daddr, dsize: s, data: value(bits) });
      }
    }
    // Responses come back out of order, some in the same cycle, a few with errors.
    while (inFlight.length > 0 && r() < 0.5) {
      const i = Math.floor(r() * inFlight.length);
      const { lid, bits } = inFlight.splice(i, 1)[0]!;
      const error = r() < 0.1;
      responses.push({ at, lid, lresp: error ? Lresp.error : Lresp.okay, ldata: error ? 0n : value(bits) });
      free.push(lid);
    }
  }
  for (const { lid, bits } of inFlight) responses.push({ at: n - 1, lid, lresp: Lresp.okay, ldata: value(bits) });
  return { accesses, responses };
}

/** What the decoder must give back: the spec's packets minus what the options omit. */
function expected(trace: DataTrace, o: { noData: boolean; noAddress: boolean }, split: boolean) {
  const accesses: Record<string, unknown>[] = [];
  const answered = new Set<number>();
  for (const a of trace.accesses) {
    const csr = a.dtype >= 4 && a.dtype <= 6;
    const atomic = a.dtype >= 8;
    const splitPart = split && (a.dtype === 0 || atomic);
    if (splitPart && !o.noData) answered.add(a.lrid);
    if (split && a.dtype === 0 && o.noAddress) continue; // only its response is sent
    const e: Record<string, unknown> = { dtype: a.dtype, dsize: a.dsize };
    if (!o.noAddress || csr) e.daddr = a.daddr;
    if (!o.noData && !(split && a.dtype === 0)) {
      const bits = 8 << a.dsize;
      // A read-only CSR's operand is not sent (rs1 is x0 for every legal access).
      e.data = csr && a.daddr >> 10n === 3n ? a.data >> BigInt(bits) << BigInt(bits) : a.data;
    }
    if (splitPart && !o.noData) e.lrid = a.lrid;
    accesses.push(e);
  }
  const responses = trace.responses.filter((r) => answered.has(r.lid)).map((r) => (r.lresp === Lresp.okay ? { lid: r.lid, lresp: 2, ldata: r.ldata } : { lid: r.lid, lresp: 3 }));
  return { accesses, responses };
}

function config(layout: '1.1.1' | '2.0', xlen: 32 | 64, data: Partial<DataParams>, options: Partial<EtraceConfig['options']>): EtraceConfig {
  const params = { ...defaultParams(layout), iaddress_width_p: xlen, dataTrace: { ...defaultDataParams(), data_width_p: xlen, ...data }, dataTraceSupport: true };
  // A sync every 16 cycles, so the per-size history restarts many times in a stream.
  return { params, options: { ...defaultOptions(), ResyncMode: 2, ResyncMax: 0, ...options } };
}

describe('data trace round trip (seeded; a failure prints its seed)', () => {
  const combos: { noData: boolean; noAddress: boolean }[] = [
    { noData: false, noAddress: false },
    { noData: true, noAddress: false },
    { noData: false, noAddress: true },
  ];
  for (const layout of ['1.1.1', '2.0'] as const) {
    for (const xlen of [32, 64] as const) {
      for (const split of [false, true]) {
        for (const DataCompress of [0, 1, 2, 3]) {
          for (const o of combos) {
            const name = `${layout} RV${xlen} ${split ? 'split' : 'unified'} DataCompress=${DataCompress} noData=${o.noData} noAddress=${o.noAddress}`;
            it(name, () => {
              for (const seed of [1, 2, 3]) {
                const shape = { split, xlen };
                const trace = randomTrace(seed * 7919 + DataCompress, 300, shape);
                const c = config(layout, xlen, { data_split_p: split ? 1 : 0, lrid_width_p: 2 }, { DataCompress, ...o });
                const enc = encodeStream(records(300), c, { data: trace, keepPackets: false });
                const got = decodeDataStream(enc.bytes, c.params);
                const strip = got.accesses.map(({ offset: _o, ...rest }) => rest);
                const want = expected(trace, o, split);
                expect({ seed, accesses: strip }).toEqual({ seed, accesses: want.accesses });
                expect({ seed, responses: got.responses.map(({ offset: _o, ...rest }) => rest) }).toEqual({ seed, responses: want.responses });
              }
            });
          }
        }
      }
    }
  }

  it('compression shortens a stream of neighbouring accesses (a check that the test can fail: DataCompress matters)', () => {
    const trace = randomTrace(5, 300, { split: false, xlen: 64 });
    const full = encodeStream(records(300), config('2.0', 64, {}, { DataCompress: 0 }), { data: trace, keepPackets: false }).bytes.length;
    const both = encodeStream(records(300), config('2.0', 64, {}, { DataCompress: 3 }), { data: trace, keepPackets: false }).bytes.length;
    expect(both).toBeLessThan(full);
  });
});

describe('data trace under back-pressure (trace loss)', () => {
  it('what comes back is the traced accesses in order, each exact: lost ones are missing, none is wrong', () => {
    for (const seed of [11, 12, 13]) {
      const trace = randomTrace(seed, 400, { split: false, xlen: 64 });
      const c = config('2.0', 64, {}, { DataCompress: 3 });
      const r = rng(seed);
      const ready = new Map<number, boolean>();
      const enc = encodeStream(records(400), c, { data: trace, keepPackets: false, ready: (cycle) => ready.get(cycle) ?? (ready.set(cycle, r() < 0.4), ready.get(cycle)!) });
      expect({ seed, lost: enc.dropped > 0 }).toEqual({ seed, lost: true });
      const got = decodeDataStream(enc.bytes, c.params).accesses.map(({ offset: _o, ...rest }) => rest);
      const want = expected(trace, { noData: false, noAddress: false }, false).accesses;
      let k = 0;
      for (const g of got) {
        while (k < want.length && JSON.stringify(want[k], (_, v) => (typeof v === 'bigint' ? v.toString() : v)) !== JSON.stringify(g, (_, v) => (typeof v === 'bigint' ? v.toString() : v))) k++;
        expect({ seed, found: k < want.length, g }).toEqual({ seed, found: true, g });
        k++;
      }
      expect(got.length).toBeGreaterThan(0);
    }
  });
});
