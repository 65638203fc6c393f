// Co-simulation of the fixture tbfix_fifo through the generic harness: one Verilator build shared by
// every test, results checked against the independent TypeScript reference in test-fixtures/fifo.ts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cycleChance, Rng } from '../golden-model/common/rng.ts';
import { buildKey, buildModel, cacheRoot, installBuildDir, HARNESS_BINARY, type BuiltModel } from './build.ts';
import type { HarnessSpec } from './harness-spec.ts';
import { FrameWriter, runModel, type Capture } from './run.ts';
import { FIFO_RTL, FIFO_SPEC, FifoReference, type FifoFrame, type RefCapture } from './test-fixtures/fifo.ts';

let model: BuiltModel;
const scratch = mkdtempSync(join(tmpdir(), 'rvtrace-tb-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(() => {
  model = buildModel({ spec: FIFO_SPEC, rtlFiles: [FIFO_RTL] }, (l) => console.log(l));
});

function randomFrames(seed: number, n: number, validChance: number, probe = 0): FifoFrame[] {
  const rng = new Rng(seed);
  const frames: FifoFrame[] = [];
  for (let i = 0; i < n; i++) {
    // Runs of equal values, so that the producer below leaves many ports unset between frames.
    const prev = frames[i - 1];
    const keepWide = prev !== undefined && rng.chance(0.5);
    frames.push({
      valid: rng.chance(validChance) ? 1 : 0,
      data: rng.int(0, 255),
      wide: keepWide ? prev.wide : (BigInt(rng.int(0, 63)) << 64n) | rng.u64(),
      tag: keepWide ? prev.tag : (BigInt(rng.int(0, 15)) << 32n) | BigInt(rng.u32()),
      probe,
    });
  }
  return frames;
}

/** Emits the frames, setting only the ports whose value changed since the previous frame. */
function producer(frames: readonly FifoFrame[], spec: HarnessSpec = FIFO_SPEC) {
  return (emit: (w: FrameWriter) => void): void => {
    const w = new FrameWriter(spec);
    let prev: FifoFrame = { valid: 0, data: 0, wide: 0n, tag: 0n, probe: 0 };
    for (const f of frames) {
      if (f.valid !== prev.valid) w.set('in_valid_i', f.valid);
      if (f.data !== prev.data) w.set('in_data_i', f.data);
      if (f.wide !== prev.wide) w.set('wide_i', f.wide);
      if (f.tag !== prev.tag) w.set('tag_i', f.tag);
      if (f.probe !== prev.probe) w.set('probe_i', f.probe);
      emit(w);
      prev = f;
    }
  };
}

function reference(frames: readonly FifoFrame[], o: { seed: number; readyChance: number; readyOffset: number; maxCycles?: number }): FifoReference {
  const ref = new FifoReference(o);
  for (const f of frames) if (!ref.frame(f)) break;
  return ref;
}

const plain = (caps: Capture[][]): RefCapture[][] => caps.map((l) => l.map((c) => ({ index: c.index, cycle: c.cycle, values: c.values })));

describe('co-simulation of the fixture FIFO', () => {
  it('frames in, captures out: pushes, pops, 70/40/36-bit values and holds match the reference', async () => {
    const seed = 20240601;
    const frames = randomFrames(seed, 3000, 0.8);
    const opts = { seed, readyChance: 0.35, readyOffset: 7 };
    const r = await runModel(model, FIFO_SPEC, producer(frames), opts);
    const ref = reference(frames, opts);
    expect(r.holds, `seed ${seed}`).toBeGreaterThan(100); // the FIFO did fill up
    expect({ cycles: r.cycles, frames: r.frames, holds: r.holds }).toEqual({ cycles: ref.cycles, frames: ref.frames, holds: ref.holds });
    expect(r.cycles).toBe(r.frames + r.holds);
    expect(plain(r.captures)).toEqual(ref.captures);
    expect(r.captures[0]!.some((c) => c.values[1]! >= 1n << 64n)).toBe(true); // the top VlWide word was exercised
  });

  it('a held frame is applied again until taken (hand-computed: 4 pushes, 17 holds, then push+pop each cycle)', async () => {
    const frames = Array.from({ length: 10 }, (_, i) => ({ valid: 1, data: i + 1, wide: 0n, tag: BigInt(i), probe: 1 }));
    const r = await runModel(model, FIFO_SPEC, producer(frames), { readyOffset: 20 });
    expect({ cycles: r.cycles, frames: r.frames, holds: r.holds }).toEqual({ cycles: 27, frames: 10, holds: 17 });
    expect(r.captures[1]!.map((c) => [c.cycle, Number(c.values[0])])).toEqual([
      [0, 1], [1, 2], [2, 3], [3, 4], [21, 5], [22, 6], [23, 7], [24, 8], [25, 9], [26, 10],
    ]);
    expect(r.captures[1]!.map((c) => c.values[2])).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    expect(r.captures[0]!.map((c) => [c.cycle, Number(c.values[0])])).toEqual([
      [20, 1], [21, 2], [22, 3], [23, 4], [24, 5], [25, 6], [26, 7],
    ]);
    const probe = r.captures[2]!;
    expect(probe.map((c) => c.cycle)).toEqual(Array.from({ length: 27 }, (_, i) => i));
    expect(probe.filter((c) => c.values[1] === 1n).map((c) => c.cycle)).toEqual(Array.from({ length: 17 }, (_, i) => i + 4));
    expect(probe.map((c) => Number(c.values[2]))).toEqual([0, 1, 2, 3, ...Array(17).fill(4), 3, 3, 3, 3, 3, 3]);
  });

  it('ready pattern: 0 before readyOffset, then 1 unless cycleChance(seed, cycle - readyOffset, p)', async () => {
    const seed = 99;
    const frames = Array.from({ length: 2000 }, () => ({ valid: 0, data: 0, wide: 0n, tag: 0n, probe: 1 }));
    const r = await runModel(model, FIFO_SPEC, producer(frames), { seed, readyChance: 0.4, readyOffset: 13 });
    const ready = r.captures[2]!.map((c) => Number(c.values[0]));
    const expected = Array.from({ length: 2000 }, (_, c) => (c >= 13 && !cycleChance(seed, c - 13, 0.4) ? 1 : 0));
    expect(ready.slice(0, 13)).toEqual(Array(13).fill(0));
    expect(ready).toEqual(expected);
    const ones = ready.filter((x) => x === 1).length / 1987;
    expect(ones).toBeGreaterThan(0.55);
    expect(ones).toBeLessThan(0.65);
    // other seeds give other patterns
    const r2 = await runModel(model, FIFO_SPEC, producer(frames.slice(0, 200)), { seed: seed + 1, readyChance: 0.4, readyOffset: 13 });
    expect(r2.captures[2]!.map((c) => Number(c.values[0]))).not.toEqual(ready.slice(0, 200));
  });

  it('streams 200,000 frames (checksums of all captures match the reference)', async () => {
    const seed = 4242;
    const n = 200_000;
    const frames = randomFrames(seed, n, 0.7);
    const opts = { seed, readyChance: 0.25, readyOffset: 3 };
    const digest = (caps: Iterable<RefCapture>): string => {
      const h = createHash('sha256');
      for (const c of caps) h.update(`${c.index} ${c.cycle} ${c.values.join(',')}\n`);
      return h.digest('hex');
    };
    const t0 = performance.now();
    const r = await runModel(model, FIFO_SPEC, producer(frames), opts);
    const seconds = (performance.now() - t0) / 1000;
    console.log(`[tb] 200,000 frames, ${r.captures[0]!.length + r.captures[1]!.length} captures: ${seconds.toFixed(2)} s, ${Math.round(n / seconds).toLocaleString('en')} frames/s`);
    const ref = reference(frames, opts);
    expect({ cycles: r.cycles, frames: r.frames, holds: r.holds }).toEqual({ cycles: ref.cycles, frames: n, holds: ref.holds });
    expect(r.captures.map((l) => l.length)).toEqual(ref.captures.map((l) => l.length));
    expect(digest(r.captures.flat())).toBe(digest(ref.captures.flat()));
  });

  it('stream captures: the valid bytes of every beat and the bytes per cycle, and a record only for a beat that breaks the rule', async () => {
    // The same pops four ways: an ordinary capture (the reference for the others); out_data_o's low
    // count_o bytes (one byte: a count above 1 breaks the rule); all 9 bytes of the 70-bit acc_o
    // (VlWide words, no count: never broken); acc_o's low count_o bytes (bits above them break it).
    const pop = FIFO_SPEC.captures[0]!.when;
    const spec: HarnessSpec = {
      ...FIFO_SPEC,
      captures: [
        { name: 'pop', when: pop, data: ['out_data_o', 'acc_o', 'count_o'] },
        { name: 'data', when: pop, data: ['out_data_o'], stream: { count: 'count_o' } },
        { name: 'acc', when: pop, data: ['acc_o'], stream: {} },
        { name: 'acc by count', when: pop, data: ['acc_o'], stream: { count: 'count_o' } },
      ],
    };
    const streamModel = buildModel({ spec, rtlFiles: [FIFO_RTL] }, (l) => console.log(l));
    const seed = 77;
    const frames = randomFrames(seed, 20_000, 0.7);
    const r = await runModel(streamModel, spec, producer(frames, spec), { seed, readyChance: 0.3, readyOffset: 2 });
    const pops = r.captures[0]!;
    expect(pops.length, `seed ${seed}`).toBeGreaterThan(5000);
    /** What a stream of `port` bytes with byte count k(c) must hold, from the ordinary captures. */
    const want = (bytesOf: (c: Capture) => bigint, portBytes: number, k: (c: Capture) => number) => {
      const bytes: number[] = [];
      const counts = new Array<number>(r.cycles).fill(0);
      const broken: string[] = [];
      for (const c of pops) {
        const v = bytesOf(c);
        const n = Math.min(k(c), portBytes);
        for (let i = 0; i < n; i++) bytes.push(Number((v >> BigInt(8 * i)) & 0xffn));
        counts[c.cycle] = n;
        if (k(c) < 1 || k(c) > portBytes || v >> BigInt(8 * k(c)) !== 0n) broken.push(`${c.cycle} ${v} ${k(c)}`);
      }
      return { bytes, counts, broken };
    };
    const count = (c: Capture): number => Number(c.values[2]!);
    const got = (i: number) => ({
      bytes: Array.from(r.streams[i]!.bytes),
      counts: Array.from(r.streams[i]!.counts),
      broken: r.captures[i]!.map((c) => `${c.cycle} ${c.values[0]} ${c.values[1] ?? (i === 2 ? 9 : '')}`),
    });
    const data = want((c) => c.values[0]!, 1, count);
    expect(data.broken.length).toBeGreaterThan(0); // both kinds of beat occurred
    expect(data.broken.length).toBeLessThan(pops.length);
    expect(got(1)).toEqual(data);
    const acc = want((c) => c.values[1]!, 9, () => 9);
    expect(acc.broken).toEqual([]);
    expect(got(2)).toEqual(acc);
    const accByCount = want((c) => c.values[1]!, 9, count);
    expect(accByCount.broken.length).toBeGreaterThan(0);
    expect(got(3)).toEqual(accByCount);
    expect(r.streams[0]).toBeUndefined();
  });

  it('an async producer that awaits between frames is streamed too', async () => {
    const seed = 5;
    const frames = randomFrames(seed, 300, 0.9);
    const opts = { seed, readyChance: 0.5, readyOffset: 0 };
    const r = await runModel(
      model,
      FIFO_SPEC,
      async (emit) => {
        const w = new FrameWriter(FIFO_SPEC);
        for (const [i, f] of frames.entries()) {
          if (i % 50 === 0) await new Promise((res) => setTimeout(res, 2));
          w.set('in_valid_i', f.valid);
          w.set('in_data_i', f.data);
          w.set('wide_i', f.wide);
          w.set('tag_i', f.tag);
          emit(w);
        }
      },
      opts,
    );
    expect(plain(r.captures)).toEqual(reference(frames, opts).captures);
  });

  it('maxCycles stops a run that holds forever; the remaining frames are dropped', async () => {
    const frames = Array.from({ length: 100_000 }, (_, i) => ({ valid: 1, data: i & 255, wide: 0n, tag: 0n, probe: 0 }));
    const r = await runModel(model, FIFO_SPEC, producer(frames), { readyChance: 1, maxCycles: 500 });
    expect({ cycles: r.cycles, frames: r.frames, holds: r.holds }).toEqual({ cycles: 500, frames: 4, holds: 496 });
  });

  it('resetCycles: the first frame is taken after reset, whatever the reset length', async () => {
    const frames = [{ valid: 1, data: 9, wide: 0n, tag: 0n, probe: 1 }];
    for (const resetCycles of [1, 5]) {
      const r = await runModel(model, FIFO_SPEC, producer(frames), { resetCycles });
      expect(r.captures[1]!.map((c) => [c.cycle, c.values[0]])).toEqual([[0, 9n]]);
      expect(r.captures[2]![0]!.values[2]).toBe(0n); // count 0: reset cleared the FIFO
    }
  });

  it('$fatal surfaces as an Error carrying the harness stderr, also while the producer is still emitting', async () => {
    const fatalAt = (n: number, port: 'fatal_i' | 'error_i') => (emit: (w: FrameWriter) => void) => {
      const w = new FrameWriter(FIFO_SPEC);
      for (let i = 0; i < n; i++) {
        w.set(port, i === 30 ? 1 : 0);
        emit(w);
      }
    };
    await expect(runModel(model, FIFO_SPEC, fatalAt(100, 'fatal_i'))).rejects.toThrow(/SIGABRT[\s\S]*tbfix_fifo: fatal_i was set/);
    const t0 = performance.now();
    await expect(runModel(model, FIFO_SPEC, fatalAt(20_000_000, 'fatal_i'))).rejects.toThrow(/fatal_i was set/);
    expect(performance.now() - t0).toBeLessThan(5000); // the producer was stopped, not run to the end
    await expect(runModel(model, FIFO_SPEC, fatalAt(100, 'error_i'))).rejects.toThrow(/tbfix_fifo: error_i was set/);
  });

  it('an error thrown by produce is rethrown (the harness is killed); an empty stream is a run of 0 cycles', async () => {
    const boom = (emit: (w: FrameWriter) => void): void => {
      const w = new FrameWriter(FIFO_SPEC);
      for (let i = 0; i < 1000; i++) emit(w);
      throw new Error('producer failed on purpose');
    };
    await expect(runModel(model, FIFO_SPEC, boom)).rejects.toThrow('producer failed on purpose');
    const r = await runModel(model, FIFO_SPEC, () => {});
    expect(r).toEqual({ captures: [[], [], []], streams: [undefined, undefined, undefined], cycles: 0, frames: 0, holds: 0 });
  });

  it('cycleChance in the C++ harness is bit-identical to the TypeScript one', () => {
    const triples: [number, number, number][] = [];
    const seed = 31337;
    const rng = new Rng(seed);
    const edgeSeeds = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    const edgeCycles = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    const edgeP = [0, -0.5, 1e-12, 2 ** -32, 0.5, 0.999999, 1 - 2 ** -53, 1, 1.5];
    for (const s of edgeSeeds) for (const c of edgeCycles) for (const p of edgeP) triples.push([s, c, p]);
    for (let i = 0; i < 100_000; i++) triples.push([rng.u32(), rng.u32(), rng.float()]);
    // p exactly at the drawn value z / 2^32 (must be false: strictly less), and just above it
    for (let i = 0; i < 200; i++) {
      const s = rng.u32();
      const c = rng.int(0, 1_000_000);
      let lo = 0;
      let hi = 2 ** 32; // smallest k with cycleChance(s, c, k / 2^32) is z + 1
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (cycleChance(s, c, mid / 2 ** 32)) hi = mid;
        else lo = mid + 1;
      }
      const z = lo - 1;
      triples.push([s, c, z / 2 ** 32], [s, c, (z + 0.5) / 2 ** 32], [s, c, (z + 1) / 2 ** 32]);
    }
    const input = Buffer.alloc(triples.length * 16);
    triples.forEach(([s, c, p], i) => {
      input.writeUInt32LE(s, i * 16);
      input.writeUInt32LE(c, i * 16 + 4);
      input.writeDoubleLE(p, i * 16 + 8);
    });
    const r = spawnSync(model.binary, ['--cycle-chance'], { input, maxBuffer: 1 << 24 });
    expect(r.status, r.stderr.toString()).toBe(0);
    const expected = Buffer.from(triples.map(([s, c, p]) => (cycleChance(s, c, p) ? 1 : 0)));
    expect(r.stdout.length).toBe(triples.length);
    const first = triples.findIndex((_, i) => r.stdout[i] !== expected[i]);
    expect(first, `seed ${seed}: first difference at ${JSON.stringify(triples[first])}`).toBe(-1);
    expect(expected.filter((x) => x === 1).length).toBeGreaterThan(40_000); // both outcomes are covered
  });

  it('refuses a stream made for another spec, and an FST window on a model built without FST', async () => {
    const other = JSON.parse(JSON.stringify(FIFO_SPEC)) as typeof FIFO_SPEC;
    other.captures[2]!.data = ['count_o'];
    const one = (spec: typeof FIFO_SPEC) => (emit: (w: FrameWriter) => void) => emit(new FrameWriter(spec));
    await expect(runModel(model, other, one(other))).rejects.toThrow(/made for another harness spec/);
    await expect(runModel(model, FIFO_SPEC, one(other))).rejects.toThrow(/FrameWriter was made for another spec/);
    await expect(runModel(model, FIFO_SPEC, one(FIFO_SPEC), { fst: { file: join(scratch, 'no.fst'), from: 0, to: 5 } })).rejects.toThrow(/built without FST tracing/);
  });
});

describe('build cache', () => {
  it('a second build of the same request is a cache hit in well under 2 s', () => {
    const again = buildModel({ spec: FIFO_SPEC, rtlFiles: [FIFO_RTL] });
    expect(again.cached).toBe(true);
    expect(again.seconds).toBeLessThan(0.5);
    expect(again.key).toBe(model.key);
    expect(again.binary).toBe(model.binary);
    expect(existsSync(join(model.dir, 'obj', HARNESS_BINARY))).toBe(true);
    expect(model.dir.startsWith(cacheRoot())).toBe(true);
  });

  it('the key follows the RTL contents, the flags, the FST flag and the harness, not the path', () => {
    const base = { spec: FIFO_SPEC, rtlFiles: [FIFO_RTL] };
    expect(buildKey(base)).toBe(model.key);
    const dir = join(scratch, 'rtl');
    mkdirSync(dir, { recursive: true });
    const same = join(dir, 'same.sv');
    const changed = join(dir, 'changed.sv');
    const text = readFileSync(FIFO_RTL, 'utf8');
    writeFileSync(same, text);
    writeFileSync(changed, text.replace("wr_q + 2'd1", "wr_q + 2'd2"));
    expect(buildKey({ ...base, rtlFiles: [same] })).toBe(model.key);
    const keys = [
      buildKey({ ...base, rtlFiles: [changed] }),
      buildKey({ ...base, flags: ['-Wno-fatal'] }),
      buildKey({ ...base, fst: true }),
      buildKey({ ...base, spec: { ...FIFO_SPEC, captures: FIFO_SPEC.captures.slice(0, 2) } }),
    ];
    expect(new Set([model.key, ...keys]).size).toBe(5);
  });

  it('a failed build throws with Verilator messages and leaves nothing behind', () => {
    const broken = join(scratch, 'broken.sv');
    writeFileSync(broken, readFileSync(FIFO_RTL, 'utf8').replace('assign push ', 'assign push = = '));
    const key = buildKey({ spec: FIFO_SPEC, rtlFiles: [broken] });
    expect(() => buildModel({ spec: FIFO_SPEC, rtlFiles: [broken] })).toThrow(/verilator could not build tbfix_fifo[\s\S]*%Error: .*broken\.sv:\d+/);
    expect(existsSync(join(cacheRoot(), key))).toBe(false);
    expect(readdirSync(cacheRoot()).filter((d) => d.startsWith(`.tmp-${key.slice(0, 16)}`))).toEqual([]);
    expect(() => buildModel({ spec: FIFO_SPEC, rtlFiles: ['relative.sv'] })).toThrow(/absolute/);
  });

  it('installing a build whose key another build installed first keeps the first and drops the second', () => {
    const root = mkdtempSync(join(scratch, 'cache-'));
    const make = (name: string, content: string): string => {
      const d = join(root, name);
      mkdirSync(join(d, 'obj'), { recursive: true });
      writeFileSync(join(d, 'obj', HARNESS_BINARY), content);
      return d;
    };
    const entry = join(root, 'k');
    expect(installBuildDir(make('.tmp-a', 'first'), entry)).toBe('installed');
    expect(installBuildDir(make('.tmp-b', 'second'), entry)).toBe('existing');
    expect(readFileSync(join(entry, 'obj', HARNESS_BINARY), 'utf8')).toBe('first');
    expect(readdirSync(root)).toEqual(['k']);
  });
});
