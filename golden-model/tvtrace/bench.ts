/**
 * Encoder speed on a plain instruction mix (the model alone, no I/O): 55% ALU instructions writing
 * rd, 15% loads (rd and eaddr), 10% stores (store data and eaddr), 15% branches and jumps without a
 * register (a quarter of them to x0), 5% compressed ALU. The goal: at least 5 M records/s.
 *
 *   npx tsx golden-model/tvtrace/bench.ts [records] [bluespec|seed]
 */
import { TvEncoder } from './encoder.ts';
import type { TvRecord } from './records.ts';
import { defaultTvtraceConfig, type TvFieldOrder } from './settings.ts';

function mix(n: number): TvRecord[] {
  const out: TvRecord[] = [];
  let pc = 0x8000_0000n;
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < n; i++) {
    const p = rnd();
    const value = BigInt(Math.floor(rnd() * 2 ** 32)) * 0x1_0001n;
    if (p < 0.55) {
      pc += 4n;
      out.push({ kind: 'instruction', nextPc: pc, instr: { size: 32, bits: 0x0062_81b3 }, gpr: { reg: 1 + (i % 31), value } });
    } else if (p < 0.7) {
      pc += 4n;
      out.push({ kind: 'instruction', nextPc: pc, instr: { size: 32, bits: 0x0005_3583 }, gpr: { reg: 11, value }, eaddr: 0x8000_1000n + BigInt(i & 0xff8) });
    } else if (p < 0.8) {
      pc += 4n;
      out.push({ kind: 'instruction', nextPc: pc, instr: { size: 32, bits: 0x00b5_3023 }, storeData: { bytes: 8, value }, eaddr: 0x8000_1000n + BigInt(i & 0xff8) });
    } else if (p < 0.95) {
      pc = p < 0.8375 ? pc + 4n : 0x8000_0000n + BigInt(i & 0xfffc);
      out.push({ kind: 'instruction', nextPc: pc, instr: { size: 32, bits: 0x0000_006f }, gpr: p < 0.8375 ? undefined : { reg: 0, value: 0n } });
    } else {
      pc += 2n;
      out.push({ kind: 'instruction', nextPc: pc, instr: { size: 16, bits: 0x8d0d }, gpr: { reg: 10, value } });
    }
  }
  return out;
}

const n = Number(process.argv[2] ?? 2_000_000);
const order = (process.argv[3] ?? 'bluespec') as TvFieldOrder;
const records = mix(n);
const config = defaultTvtraceConfig({ fieldOrder: order });
let best = Infinity;
let bytes = 0;
for (let round = 0; round < 5; round++) {
  const enc = new TvEncoder(config);
  const t0 = performance.now();
  for (let i = 0; i < records.length; i++) {
    enc.encode(records[i]!);
    // Drain every 64 K records, as a streaming caller would, so the buffer stays small.
    if ((i & 0xffff) === 0xffff) bytes += enc.take().length;
  }
  bytes += enc.take().length;
  best = Math.min(best, performance.now() - t0);
}
const rate = n / (best / 1000);
console.log(`${order}: ${n} records, ${(bytes / 5 / n).toFixed(1)} bytes/record, best of 5: ${best.toFixed(0)} ms = ${(rate / 1e6).toFixed(2)} M records/s`);
