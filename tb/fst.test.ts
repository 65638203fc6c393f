// FST dumps through the harness: a separate model built with --trace-fst (its own cache entry),
// dumping only the cycles of the window. Its own file so that its build runs beside cosim.test.ts's.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKey, buildModel, type BuiltModel } from './build.ts';
import { FrameWriter, runModel } from './run.ts';
import { FIFO_RTL, FIFO_SPEC, FifoReference } from './test-fixtures/fifo.ts';

let model: BuiltModel;
const scratch = mkdtempSync(join(tmpdir(), 'rvtrace-tb-fst-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(() => {
  model = buildModel({ spec: FIFO_SPEC, rtlFiles: [FIFO_RTL], fst: true }, (l) => console.log(l));
});

/** Start and end time from the FST header block (tag 0, u64 length, u64 start, u64 end; big-endian). */
function fstTimes(file: string): { start: bigint; end: bigint } {
  const b = readFileSync(file);
  expect(b[0]).toBe(0); // FST_BL_HDR
  expect(b.readBigUInt64BE(1)).toBe(329n);
  return { start: b.readBigUInt64BE(9), end: b.readBigUInt64BE(17) };
}

const frames = Array.from({ length: 100 }, (_, i) => ({ valid: 1, data: i, wide: BigInt(i) << 60n, tag: 0n, probe: 0 }));
function produce(emit: (w: FrameWriter) => void): void {
  const w = new FrameWriter(FIFO_SPEC);
  for (const f of frames) {
    w.set('in_valid_i', f.valid);
    w.set('in_data_i', f.data);
    w.set('wide_i', f.wide);
    emit(w);
  }
}

describe('FST window', () => {
  it('the FST model is a separate cache entry', () => {
    expect(model.key).toBe(buildKey({ spec: FIFO_SPEC, rtlFiles: [FIFO_RTL], fst: true }));
    expect(model.key).not.toBe(buildKey({ spec: FIFO_SPEC, rtlFiles: [FIFO_RTL] }));
  });

  it('dumps exactly the cycles from..to (time 10*(cycle+resetCycles), rising edge at +5) and still captures correctly', async () => {
    const file = join(scratch, 'window.fst');
    const opts = { seed: 3, readyChance: 0.5, readyOffset: 0 };
    const r = await runModel(model, FIFO_SPEC, produce, { ...opts, fst: { file, from: 10, to: 20 } });
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).size).toBeGreaterThan(200);
    expect(fstTimes(file)).toEqual({ start: 120n, end: 225n }); // reset 2 cycles: cycle 10 at 120, cycle 20's edge at 225
    const ref = new FifoReference(opts);
    for (const f of frames) ref.frame(f);
    expect(r.captures.map((l) => l.map((c) => ({ index: c.index, cycle: c.cycle, values: c.values })))).toEqual(ref.captures);
  });

  it('a window that starts in reset (negative cycles) begins at time 0', async () => {
    const file = join(scratch, 'reset.fst');
    await runModel(model, FIFO_SPEC, produce, { resetCycles: 3, fst: { file, from: -3, to: 1 } });
    expect(fstTimes(file)).toEqual({ start: 0n, end: 45n });
  });
});
