/**
 * Throughput of the co-simulation bridge on the fixture FIFO (tb/test-fixtures/tbfix_fifo.sv):
 *
 *   npx tsx tb/bench.ts [frames, default 10000000]
 *
 * Three runs with a synchronous producer: no captures (frames only), one push+pop capture pair per
 * 16 frames (a trace encoder's packet rate), and a push and a pop capture on every frame (the
 * TypeScript side then spends its time making Capture objects). Prints frames per second of the
 * whole runModel call (build excluded: the model is built or found in the cache first).
 */
import { buildModel } from './build.ts';
import { FrameWriter, runModel } from './run.ts';
import { FIFO_RTL, FIFO_SPEC } from './test-fixtures/fifo.ts';

const n = Number(process.argv[2] ?? 10_000_000);
const model = buildModel({ spec: FIFO_SPEC, rtlFiles: [FIFO_RTL] }, (l) => console.log(l));

async function bench(label: string, validEvery: number): Promise<void> {
  const t0 = performance.now();
  const r = await runModel(model, FIFO_SPEC, (emit) => {
    const w = new FrameWriter(FIFO_SPEC);
    for (let i = 0; i < n; i++) {
      w.set('in_valid_i', validEvery > 0 && i % validEvery === 0 ? 1 : 0);
      w.set('in_data_i', i & 0xff);
      emit(w);
    }
  });
  const s = (performance.now() - t0) / 1000;
  const captures = r.captures.reduce((a, l) => a + l.length, 0);
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  console.log(`${label.padEnd(28)} ${n.toLocaleString('en')} frames, ${captures.toLocaleString('en')} captures: ${s.toFixed(2)} s, ${Math.round(n / s).toLocaleString('en')} frames/s (rss ${rss} MiB)`);
}

await bench('frames only', 0);
await bench('1 push+pop per 16 frames', 16);
if (n <= 2_000_000) await bench('push+pop every frame', 1);
else console.log('push+pop every frame         skipped above 2,000,000 frames (memory of the Capture objects)');
