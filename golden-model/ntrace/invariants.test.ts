/**
 * Properties of the encoder's output on generated programs that need no decoder (the decoder is
 * written apart): every retired half-word is counted once in I-CNT fields (messages, ResourceFull
 * RCODE 0, repeats), every conditional branch is one HIST bit (HTM) or taken branches are one
 * DirectBranch each (BTM), and multiple retirement gives the same bytes as single retirement.
 * Seeds are fixed and printed in the test names.
 */
import { describe, expect, it } from 'vitest';
import { encodeNtrace } from './encoder.ts';
import type { NtraceMessage } from './messages.ts';
import { defaultNtraceConfig, type NtraceConfig } from './settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { Itype, type RetirementRecord } from '../hart/records.ts';
import { generateStimulus } from '../hart/stimulus/generate.ts';
import { defaultKnobs } from '../hart/stimulus/knobs.ts';

const bits = (h: number): number => Math.floor(Math.log2(h)); // HIST bits without the stop bit

/** I-CNT and HIST bits carried by the messages, with RepeatBranch replaying the previous branch message. */
function totals(messages: readonly NtraceMessage[]): { icnt: number; hist: number; direct: number } {
  let icnt = 0;
  let hist = 0;
  let direct = 0;
  let prev: NtraceMessage | undefined;
  for (const m of messages) {
    const f = m.fields;
    if (m.name === 'RepeatBranch') {
      const n = Number(f['B-CNT']);
      icnt += n * Number(prev!.fields['I-CNT']);
      if (prev!.fields.HIST !== undefined) hist += n * bits(Number(prev!.fields.HIST));
      continue;
    }
    if (m.name === 'ResourceFull') {
      const rdata = Number(f.RDATA);
      if (f.RCODE === 0) icnt += rdata;
      else hist += bits(rdata) * (f.RCODE === 2 ? Number(f.HREPEAT) : 1);
      continue;
    }
    if (f['I-CNT'] !== undefined) icnt += Number(f['I-CNT']);
    if (f.HIST !== undefined) hist += bits(Number(f.HIST));
    if (m.name === 'DirectBranch' || m.name === 'DirectBranchSync') direct++;
    if (m.name === 'IndirectBranch' || m.name === 'IndirectBranchHist') prev = m;
  }
  return { icnt, hist, direct };
}

/** The generated stream without halts, resets and triggers: everything is traced. */
function plainStream(seed: number, count: number): RetirementRecord[] {
  return generateStimulus(defaultKnobs(), seed, count)
    .records.filter((r) => !r.halted && !r.reset)
    .map((r) => ({ ...r, trigger: 0 }));
}

const configs: [string, Partial<NtraceConfig>][] = [
  ['btm', { mode: 'btm' }],
  ['htm', { mode: 'htm' }],
  ['htm deferred plain', { mode: 'htm', histFull: 'deferred', emptyHistIndirect: 'plain' }],
  ['htm repeats stack', { mode: 'htm', repeatBranch: true, repeatHistory: true, implicitReturn: 'stack', callStackSize: 4 }],
  ['btm counter repeat sync', { mode: 'btm', repeatBranch: true, implicitReturn: 'counter', syncPeriod: 16, icntWidth: 6 }],
  ['htm small icnt sync ts', { mode: 'htm', icntWidth: 5, syncPeriod: 7, timestamp: true, srcWidth: 3, src: 5, addressMsbDrop: true }],
];

describe('N-Trace encoder invariants (seed 7, 20000 instructions)', () => {
  const records = plainStream(7, 20000);
  const halfWords = records.reduce((s, r) => s + r.iretire, 0);
  const branches = records.filter((r) => r.itype === Itype.takenBranch || r.itype === Itype.nontakenBranch).length;
  const taken = records.filter((r) => r.itype === Itype.takenBranch).length;
  for (const [name, over] of configs) {
    it(`${name}: every half-word in I-CNT, every branch accounted for`, () => {
      const c = defaultNtraceConfig({ xlen: 64, ...over });
      const t = totals(encodeNtrace(records, c).messages);
      expect(t.icnt).toBe(halfWords);
      if (c.mode === 'htm') expect(t.hist).toBe(branches);
      else if (c.syncPeriod === 0) expect(t.direct).toBe(taken);
    });
  }
});

describe('multiple retirement gives the bytes of single retirement (seed 11, 20000 instructions)', () => {
  const single = generateStimulus(defaultKnobs(), 11, 20000).records;
  const blocks = regroupIntoBlocks(single, { retires_p: 4, taken_branches_p: 2 });
  for (const [name, over] of configs) {
    // A periodic sync goes out at the next retirement, which is a different address in blocks.
    if (over.syncPeriod) continue;
    it(name, () => {
      const c = defaultNtraceConfig({ xlen: 64, ...over });
      expect(Buffer.from(encodeNtrace(blocks, c).bytes).equals(Buffer.from(encodeNtrace(single, c).bytes))).toBe(true);
    });
  }
});
