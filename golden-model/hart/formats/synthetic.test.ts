/**
 * The bench's synthetic inputs are files the readers accept and that carry the stream's execution:
 * the retired instruction addresses read back are those of the stream (expanded from its records
 * with the image, not through the writers).
 */
import { describe, expect, it } from 'vitest';
import { generateStimulus } from '../stimulus/generate.ts';
import { defaultKnobs } from '../stimulus/knobs.ts';
import type { RetirementStream } from '../stream.ts';
import { importEtraceCsv } from './etrace-csv.ts';
import { convertQemuLog } from './qemu-log.ts';
import { importSpikeCsv } from './spike-csv.ts';
import { etraceCsvChunks, qemuLogChunks, spikeCsvChunks } from './synthetic.ts';

/** Addresses of every retired instruction of a single-retirement stream. */
function retired(s: RetirementStream): bigint[] {
  const out: bigint[] = [];
  for (const r of s.records) {
    let a = r.iaddr;
    for (let left = r.iretire; left > 0; ) {
      out.push(a);
      const n = s.image.fetch(a)!.length;
      left -= n / 2;
      a += BigInt(n);
    }
  }
  return out;
}

describe('synthetic import inputs', () => {
  const stream = generateStimulus(defaultKnobs(), 4, 5000);

  it('spike-csv: every retired instruction comes back, at its address', () => {
    const back = importSpikeCsv(spikeCsvChunks(stream).join(''), 's.csv');
    expect(retired(back)).toEqual(retired(stream));
  });

  it('etrace-csv: one record per record, same addresses, itypes and half-words', () => {
    const back = importEtraceCsv(etraceCsvChunks(stream).join(''), 'e.csv');
    const fields = (s: RetirementStream) => s.records.map((r) => [r.iaddr, r.itype, r.iretire, r.priv]);
    expect(fields(back)).toEqual(fields(stream));
  });

  it('QEMU log of a program without traps: the import checks the control flow and returns every instruction', async () => {
    const knobs = { ...defaultKnobs(), privileges: 'M' as const, interrupt_rate: 0, fault_rate: 0, nested_interrupt_rate: 0, context_switch_rate: 0, async_context_rate: 0, halt_rate: 0, reset_rate: 0, idle_rate: 0, w_ecall: 0, w_ebreak: 0, w_illegal: 0 };
    const s = generateStimulus(knobs, 4, 5000);
    const lines = qemuLogChunks(s).join('').split('\n').slice(0, -1);
    const { stream: back, stats } = await convertQemuLog(lines, { image: s.image, xlen: 64, entry: s.records[0]!.iaddr, fileName: 'q.log' });
    expect(retired(back)).toEqual(retired(s));
    expect(stats.cancelled).toBe(Math.floor(retired(s).length / 64));
  });
});
