/**
 * The harness spec of the test fixture tbfix_fifo.sv and an independent TypeScript reference of its
 * behaviour under the harness (frames, holds, ready pattern, captures), used by the tests and the
 * throughput benchmark.
 */
import { join } from 'node:path';
import { cycleChance } from '../../golden-model/common/rng.ts';
import type { HarnessSpec } from '../harness-spec.ts';

export const FIFO_RTL = join(import.meta.dirname, 'tbfix_fifo.sv');

export const FIFO_SPEC: HarnessSpec = {
  top: 'tbfix_fifo',
  ports: [
    { name: 'clk_i', direction: 'in', width: 1 },
    { name: 'rst_ni', direction: 'in', width: 1 },
    { name: 'in_valid_i', direction: 'in', width: 1 },
    { name: 'in_data_i', direction: 'in', width: 8 },
    { name: 'wide_i', direction: 'in', width: 70 },
    { name: 'tag_i', direction: 'in', width: 36 },
    { name: 'probe_i', direction: 'in', width: 1 },
    { name: 'fatal_i', direction: 'in', width: 1 },
    { name: 'error_i', direction: 'in', width: 1 },
    { name: 'out_ready_i', direction: 'in', width: 1 },
    { name: 'hold_o', direction: 'out', width: 1 },
    { name: 'out_valid_o', direction: 'out', width: 1 },
    { name: 'out_data_o', direction: 'out', width: 8 },
    { name: 'acc_o', direction: 'out', width: 70 },
    { name: 'wsum_o', direction: 'out', width: 40 },
    { name: 'count_o', direction: 'out', width: 3 },
  ],
  clock: 'clk_i',
  reset: 'rst_ni',
  hold: 'hold_o',
  ready: ['out_ready_i'],
  captures: [
    {
      name: 'pop',
      when: [
        { port: 'out_valid_o', value: 1 },
        { port: 'out_ready_i', value: 1 },
      ],
      data: ['out_data_o', 'acc_o', 'wsum_o'],
    },
    {
      name: 'push',
      when: [
        { port: 'in_valid_i', value: 1 },
        { port: 'hold_o', value: 0 },
      ],
      data: ['in_data_i', 'wide_i', 'tag_i'],
    },
    { name: 'probe', when: [{ port: 'probe_i', value: 1 }], data: ['out_ready_i', 'hold_o', 'count_o'] },
  ],
};

export interface FifoFrame {
  valid: number;
  data: number;
  wide: bigint;
  tag: bigint;
  probe: number;
}

export interface RefCapture {
  index: number;
  cycle: number;
  values: bigint[];
}

export interface RefResult {
  captures: RefCapture[][];
  cycles: number;
  frames: number;
  holds: number;
}

const MASK70 = (1n << 70n) - 1n;
const MASK40 = (1n << 40n) - 1n;

export interface RefOptions {
  seed: number;
  readyChance: number;
  readyOffset: number;
  maxCycles?: number;
}

/**
 * What the harness must report for `frames` on tbfix_fifo, written from the module's comment, not
 * from the harness: cycle 0 is the first cycle after reset, a held frame is applied again.
 * `keep` limits which captures are stored (all by default) so long runs can use checksums.
 */
export class FifoReference {
  readonly captures: RefCapture[][] = [[], [], []];
  cycles = 0;
  frames = 0;
  holds = 0;
  private queue: number[] = [];
  private acc = 0n;
  private wsum = 0n;

  constructor(
    private readonly o: RefOptions,
    private readonly onCapture: (c: RefCapture) => void = (c) => this.captures[c.index]!.push(c),
  ) {}

  /** Feeds one frame; runs cycles until the FIFO takes it. Returns false once maxCycles is reached. */
  frame(f: FifoFrame): boolean {
    for (;;) {
      if (this.o.maxCycles !== undefined && this.cycles >= this.o.maxCycles) return false;
      const c = this.cycles;
      const ready = c >= this.o.readyOffset && !cycleChance(this.o.seed, c - this.o.readyOffset, this.o.readyChance) ? 1 : 0;
      const outValid = this.queue.length > 0;
      const hold = f.valid === 1 && this.queue.length === 4;
      if (outValid && ready === 1) this.onCapture({ index: 0, cycle: c, values: [BigInt(this.queue[0]!), this.acc, this.wsum] });
      if (f.valid === 1 && !hold) this.onCapture({ index: 1, cycle: c, values: [BigInt(f.data), f.wide, f.tag] });
      if (f.probe === 1) this.onCapture({ index: 2, cycle: c, values: [BigInt(ready), hold ? 1n : 0n, BigInt(this.queue.length)] });
      if (outValid && ready === 1) this.queue.shift();
      if (f.valid === 1 && !hold) {
        this.queue.push(f.data);
        this.acc = (((this.acc << 1n) | (this.acc >> 69n)) & MASK70) ^ f.wide;
        this.wsum = (this.wsum + (f.wide & MASK40)) & MASK40;
      }
      this.cycles++;
      if (hold) {
        this.holds++;
      } else {
        this.frames++;
        return true;
      }
    }
  }
}
