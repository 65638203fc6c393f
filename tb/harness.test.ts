// Unit tests of the parts of tb/ that need no Verilator: spec checks, frame encoding, the stimulus
// header, the response parser (fed in pieces) and the rendered harness source.
import { describe, expect, it } from 'vitest';
import { Rng } from '../golden-model/common/rng.ts';
import { checkSpec, frameLayout, specHash, type HarnessSpec } from './harness-spec.ts';
import { harnessContext, renderHarness } from './harness.ts';
import { encodeHeader, FrameWriter, ResponseParser } from './run.ts';
import { FIFO_SPEC } from './test-fixtures/fifo.ts';

const clone = (s: HarnessSpec): HarnessSpec => JSON.parse(JSON.stringify(s)) as HarnessSpec;

describe('harness spec', () => {
  it('accepts the fixture and lays out the frame: inputs except clock, reset and ready, ceil(width/8) bytes each', () => {
    expect(() => checkSpec(FIFO_SPEC)).not.toThrow();
    const l = frameLayout(FIFO_SPEC);
    expect(l.slots.map((s) => [s.name, s.offset, s.bytes])).toEqual([
      ['in_valid_i', 0, 1],
      ['in_data_i', 1, 1],
      ['wide_i', 2, 9],
      ['tag_i', 11, 5],
      ['probe_i', 16, 1],
      ['fatal_i', 17, 1],
      ['error_i', 18, 1],
    ]);
    expect(l.frameBytes).toBe(19);
  });

  it('rejects bad specs with the reason', () => {
    const cases: [(s: HarnessSpec) => void, RegExp][] = [
      [(s) => (s.clock = 'nope'), /'nope' is not a port/],
      [(s) => (s.hold = 'in_valid_i'), /hold port 'in_valid_i' must be a 1-bit output/],
      [(s) => (s.ready = ['in_data_i']), /ready port 'in_data_i' must be a 1-bit input/],
      [(s) => (s.ports[4]!.width = 513), /widths are 1\.\.512/],
      [(s) => s.ports.push({ name: 'clk_i', direction: 'in', width: 1 }), /declared twice/],
      [(s) => (s.captures[0]!.when[0]!.port = 'out_data_o'), /must be 1 bit wide/],
      [(s) => s.captures[0]!.data.push('missing_o'), /'missing_o' is not a port/],
      [(s) => (s.ports[2]!.name = 'in__valid_i'), /plain identifier/],
      [(s) => (s.captures[0]!.stream = {}), /stream capture 'pop' must have exactly one data port, not 3/],
      [(s) => (s.captures[2] = { name: 'st', when: [], data: ['acc_o'], stream: { count: 'wsum_o' } }), /byte count port 'wsum_o' of the stream capture 'st' is 40 bits wide; at most 8/],
      [(s) => (s.captures[2] = { name: 'st', when: [], data: ['acc_o'], stream: { count: 'nope_o' } }), /'nope_o' is not a port/],
    ];
    for (const [mutate, message] of cases) {
      const s = clone(FIFO_SPEC);
      mutate(s);
      expect(() => checkSpec(s)).toThrow(message);
    }
  });

  it('the spec hash changes with anything the harness depends on', () => {
    const s = clone(FIFO_SPEC);
    s.captures[2]!.data.reverse();
    expect(specHash(s)).not.toBe(specHash(FIFO_SPEC));
    expect(specHash(clone(FIFO_SPEC))).toBe(specHash(FIFO_SPEC));
  });
});

describe('FrameWriter', () => {
  it('encodes little-endian, ceil(width/8) bytes per port; unset ports keep their value', () => {
    const w = new FrameWriter(FIFO_SPEC);
    w.set('in_data_i', 0xa5);
    w.set('wide_i', (0x2an << 64n) | 0x0123_4567_89ab_cdefn);
    w.set('tag_i', 0xf_1234_5678);
    expect(Buffer.from(w.bytes).toString('hex')).toBe(`00a5${'efcdab8967452301'}2a${'785634120f'}000000`);
    w.set('tag_i', 5n);
    w.set('wide_i', 2 ** 40 + 7);
    expect(Buffer.from(w.bytes).toString('hex')).toBe(`00a5${'0700000000010000'}00${'0500000000'}000000`);
  });

  it('round-trips random values of every width 1..512 through the wire layout', () => {
    const widths = Array.from({ length: 512 }, (_, i) => i + 1);
    const spec: HarnessSpec = {
      top: 'wide',
      ports: [{ name: 'clk_i', direction: 'in', width: 1 }, { name: 'rst_ni', direction: 'in', width: 1 }, ...widths.map((n) => ({ name: `p${n}_i`, direction: 'in' as const, width: n }))],
      clock: 'clk_i',
      reset: 'rst_ni',
      captures: [],
    };
    const seed = 7;
    const rng = new Rng(seed);
    const w = new FrameWriter(spec);
    const layout = frameLayout(spec);
    for (const s of layout.slots) {
      let v = 0n;
      for (let i = 0; i < s.width; i += 32) v = (v << 32n) | BigInt(rng.u32());
      v &= (1n << BigInt(s.width)) - 1n;
      w.set(s.name, v);
      let back = 0n;
      for (let i = s.bytes - 1; i >= 0; i--) back = (back << 8n) | BigInt(w.bytes[s.offset + i]!);
      expect(back, `seed ${seed}, width ${s.width}`).toBe(v);
    }
  });

  it('refuses unknown ports, harness-driven ports and values that do not fit', () => {
    const w = new FrameWriter(FIFO_SPEC);
    expect(() => w.set('nope', 1)).toThrow(/'nope' is not a frame input/);
    expect(() => w.set('out_ready_i', 1)).toThrow(/not a frame input/);
    expect(() => w.set('clk_i', 1)).toThrow(/not a frame input/);
    expect(() => w.set('hold_o', 1)).toThrow(/not a frame input/);
    expect(() => w.set('in_data_i', 256)).toThrow(/not a 8-bit unsigned value/);
    expect(() => w.set('in_data_i', -1)).toThrow(/not a 8-bit/);
    expect(() => w.set('in_data_i', 1.5)).toThrow(/not a 8-bit/);
    expect(() => w.set('wide_i', 1n << 70n)).toThrow(/not a 70-bit/);
  });
});

describe('stimulus header', () => {
  it('carries the spec hash, frame size and options at fixed offsets', () => {
    const h = encodeHeader(FIFO_SPEC, { seed: -1, readyChance: 0.25, readyOffset: 9, resetCycles: 3, maxCycles: 1000, fst: { file: '/x/y.fst', from: -3, to: 40 } });
    expect(h.toString('latin1', 0, 4)).toBe('RVTI');
    expect(h.readUInt32LE(4)).toBe(2);
    expect(h.readBigUInt64LE(8).toString(16).padStart(16, '0')).toBe(specHash(FIFO_SPEC));
    expect(h.readUInt32LE(16)).toBe(19);
    expect(h.readUInt32LE(20)).toBe(0xffff_ffff);
    expect(h.readDoubleLE(24)).toBe(0.25);
    expect(h.readBigInt64LE(32)).toBe(9n);
    expect(h.readUInt32LE(40)).toBe(3);
    expect(h.readUInt32LE(44)).toBe(1);
    expect(h.readBigInt64LE(48)).toBe(1000n);
    expect(h.readBigInt64LE(56)).toBe(-3n);
    expect(h.readBigInt64LE(64)).toBe(40n);
    expect(h.toString('utf8', 76, 76 + h.readUInt32LE(72))).toBe('/x/y.fst');
    expect(() => encodeHeader(FIFO_SPEC, { resetCycles: -1 })).toThrow(/resetCycles/);
    expect(() => encodeHeader(FIFO_SPEC, { fst: { file: 'a', from: 5, to: 4 } })).toThrow(/fst.to/);
  });
});

describe('response parser', () => {
  function stream(): Buffer {
    const parts: Buffer[] = [];
    const h = Buffer.alloc(16);
    h.write('RVTO', 0, 'latin1');
    h.writeUInt32LE(2, 4);
    h.writeBigUInt64LE(BigInt(`0x${specHash(FIFO_SPEC)}`), 8);
    parts.push(h);
    // capture 1 (push): in_data 1 byte, wide 9 bytes, tag 5 bytes
    const c1 = Buffer.alloc(11 + 15);
    c1[0] = 0x43;
    c1.writeUInt16LE(1, 1);
    c1.writeBigInt64LE(5_000_000_000n, 3);
    c1[11] = 0x7f;
    c1.writeBigUInt64LE(0xfedc_ba98_7654_3210n, 12);
    c1[20] = 0x3f;
    c1.writeUIntLE(0xf_0000_0001, 21, 5);
    parts.push(c1);
    // capture 2 (probe): three 1-byte values
    const c2 = Buffer.from([0x43, 2, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 4]);
    parts.push(c2);
    const t = Buffer.alloc(29);
    t[0] = 0x54;
    t.writeBigUInt64LE(12n, 1);
    t.writeBigUInt64LE(10n, 9);
    t.writeBigUInt64LE(2n, 17);
    parts.push(t);
    return Buffer.concat(parts);
  }

  it('parses records cut at every possible point', () => {
    const s = stream();
    for (let cut = 0; cut <= s.length; cut++) {
      for (const step of [1, 3, 1000]) {
        const p = new ResponseParser(FIFO_SPEC);
        p.feed(s.subarray(0, cut));
        for (let o = cut; o < s.length; o += step) p.feed(s.subarray(o, Math.min(s.length, o + step)));
        expect(p.finish()).toEqual({ cycles: 12, frames: 10, holds: 2, flags: 0 });
        expect(p.captures).toEqual([
          [],
          [{ index: 1, cycle: 5_000_000_000, values: [0x7fn, (0x3fn << 64n) | 0xfedc_ba98_7654_3210n, 0xf_0000_0001n] }],
          [{ index: 2, cycle: 7, values: [1n, 0n, 4n] }],
        ]);
      }
    }
  });

  it('hands captures to a sink instead of keeping them, cut at every possible point', () => {
    const s = stream();
    for (let cut = 0; cut <= s.length; cut++) {
      const seen: string[] = [];
      const p = new ResponseParser(FIFO_SPEC, (index, cycle, data, offset) => {
        seen.push(`${index}@${cycle}: ${Buffer.from(data.subarray(offset, offset + (index === 1 ? 15 : 3))).toString('hex')}`);
      });
      p.feed(s.subarray(0, cut));
      p.feed(s.subarray(cut));
      expect(p.finish()).toEqual({ cycles: 12, frames: 10, holds: 2, flags: 0 });
      expect(p.captures).toEqual([[], [], []]);
      // The bytes written into the stream above: push data 7f, wide 1032547698badcfe 3f, tag 01000000 0f; probe 01 00 04.
      expect(seen).toEqual(['1@5000000000: 7f1032547698badcfe3f010000000f', '2@7: 010004']);
    }
  });

  it('decodes data ports of every width 1..512', () => {
    const widths = Array.from({ length: 512 }, (_, i) => i + 1);
    const spec: HarnessSpec = {
      top: 'wide',
      ports: [
        { name: 'clk_i', direction: 'in', width: 1 },
        { name: 'rst_ni', direction: 'in', width: 1 },
        ...widths.map((n) => ({ name: `q${n}_o`, direction: 'out' as const, width: n })),
      ],
      clock: 'clk_i',
      reset: 'rst_ni',
      captures: [{ name: 'all', when: [], data: widths.map((n) => `q${n}_o`) }],
    };
    const seed = 11;
    const rng = new Rng(seed);
    const values = widths.map((n) => {
      let v = 0n;
      for (let i = 0; i < n; i += 32) v = (v << 32n) | BigInt(rng.u32());
      v &= (1n << BigInt(n)) - 1n;
      return rng.chance(0.2) ? v & 0xffff_ffffn : v; // some wide ports with small values
    });
    const parts: Buffer[] = [];
    const h = Buffer.alloc(16);
    h.write('RVTO', 0, 'latin1');
    h.writeUInt32LE(2, 4);
    h.writeBigUInt64LE(BigInt(`0x${specHash(spec)}`), 8);
    const rec = Buffer.alloc(11);
    rec[0] = 0x43;
    parts.push(h, rec);
    values.forEach((v, i) => {
      const b = Buffer.alloc(Math.ceil(widths[i]! / 8));
      for (let k = 0; k < b.length; k++) b[k] = Number((v >> BigInt(8 * k)) & 0xffn);
      parts.push(b);
    });
    const p = new ResponseParser(spec);
    p.feed(Buffer.concat(parts));
    expect(p.captures[0]![0]!.values, `seed ${seed}`).toEqual(values);
  });

  it('stream records: appended per capture and part, cut at every possible point; refused for another capture', () => {
    const spec = clone(FIFO_SPEC);
    spec.captures[1] = { name: 'st', when: [], data: ['acc_o'], stream: { count: 'count_o' } };
    const h = Buffer.alloc(16);
    h.write('RVTO', 0, 'latin1');
    h.writeUInt32LE(2, 4);
    h.writeBigUInt64LE(BigInt(`0x${specHash(spec)}`), 8);
    const rec = (part: number, bytes: number[]): Buffer => {
      const r = Buffer.alloc(8 + bytes.length);
      r[0] = 0x53;
      r.writeUInt16LE(1, 1);
      r[3] = part;
      r.writeUInt32LE(bytes.length, 4);
      Buffer.from(bytes).copy(r, 8);
      return r;
    };
    // A broken beat of the stream capture: acc_o (9 bytes) and count_o (1 byte).
    const broken = Buffer.alloc(11 + 10);
    broken[0] = 0x43;
    broken.writeUInt16LE(1, 1);
    broken.writeBigInt64LE(3n, 3);
    broken[11] = 0xaa;
    broken[20] = 7;
    const t = Buffer.alloc(29);
    t[0] = 0x54;
    const s = Buffer.concat([h, rec(0, [0, 2, 0]), rec(1, [5, 6]), broken, rec(0, [1]), rec(1, [9]), t]);
    for (let cut = 0; cut <= s.length; cut++) {
      const p = new ResponseParser(spec);
      p.feed(s.subarray(0, cut));
      p.feed(s.subarray(cut));
      p.finish();
      const streams = p.streams();
      expect(streams[0]).toBeUndefined();
      expect(streams[2]).toBeUndefined();
      expect(Array.from(streams[1]!.counts)).toEqual([0, 2, 0, 1]);
      expect(Array.from(streams[1]!.bytes)).toEqual([5, 6, 9]);
      expect(p.captures[1]).toEqual([{ index: 1, cycle: 3, values: [0xaan, 7n] }]);
    }
    const other = Buffer.from(s);
    other.writeUInt16LE(2, 17); // the first stream record names capture 2, an ordinary one
    expect(() => new ResponseParser(spec).feed(other)).toThrow(/stream record for capture 2, which is not a stream capture/);
    const part = Buffer.from(s);
    part[19] = 2;
    expect(() => new ResponseParser(spec).feed(part)).toThrow(/stream record part 2, expected 0 or 1/);
  });

  it('rejects a stream for another spec, unknown tags, and a missing trailer', () => {
    const s = stream();
    const other = clone(FIFO_SPEC);
    other.captures.pop();
    expect(() => new ResponseParser(other).feed(s)).toThrow(/another spec/);
    const bad = Buffer.from(s);
    bad[16] = 0x99;
    expect(() => new ResponseParser(FIFO_SPEC).feed(bad)).toThrow(/unknown record tag 0x99/);
    const p = new ResponseParser(FIFO_SPEC);
    p.feed(s.subarray(0, s.length - 29));
    expect(() => p.finish()).toThrow(/no trailer/);
  });
});

describe('rendered harness', () => {
  it('assigns a 70-bit input as three VlWide words and a 36-bit one as QData, masked', () => {
    const src = renderHarness(FIFO_SPEC);
    expect(src).toContain('top->wide_i[0] = static_cast<EData>(load(p + 2, 4) & 0xffffffffULL);');
    expect(src).toContain('top->wide_i[2] = static_cast<EData>(load(p + 10, 1) & 0x3fULL);');
    expect(src).toContain('top->tag_i = static_cast<QData>(load(p + 11, 5) & 0xfffffffffULL);');
    expect(src).toContain('top->out_ready_i = ready ? 1 : 0;');
    expect(src).toContain('const bool held = top->hold_o != 0;');
    expect(src).toContain(`constexpr uint64_t kSpecHash = 0x${specHash(FIFO_SPEC)}ULL;`);
    expect(src).not.toMatch(/\/work\/|\d{4}-\d\d-\d\d/); // no absolute paths, no dates
    expect(renderHarness(clone(FIFO_SPEC))).toBe(src);
    expect(harnessContext(FIFO_SPEC)).toMatchObject({ frameBytes: 19 });
  });
});
