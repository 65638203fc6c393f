/**
 * The streaming frame writer (EtraceFrameStream) gives the frames of writeEtraceFrames whatever the
 * chunks the records arrive in, also when a cycle of several signal groups spans two chunks.
 */
import { describe, expect, it } from 'vitest';
import { etraceConfigOf } from '../../blocks/testing.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { EtraceFrameStream, type FrameSink, writeEtraceFrames } from './frames.ts';

/** Every frame as the text of its port values, followed by the records it carried. */
function recorder(): { sink: FrameSink; frames: string[]; frame: (records: readonly RetirementRecord[]) => void } {
  const values = new Map<string, string>();
  const frames: string[] = [];
  return {
    sink: { setter: (port) => (v) => void values.set(port, String(v)) },
    frames,
    frame: (records) => frames.push([...values].map(([k, v]) => `${k}=${v}`).join(' ') + ` | ${records.map((r) => r.iaddr.toString(16)).join(',')}`),
  };
}

function whole(c: EtraceConfig, records: readonly RetirementRecord[]): string[] {
  const r = recorder();
  writeEtraceFrames(c, records, 0.3, r.sink, (first, end) => r.frame(records.slice(first, end)));
  return r.frames;
}

function chunked(c: EtraceConfig, records: readonly RetirementRecord[], cuts: number[]): string[] {
  const r = recorder();
  const s = new EtraceFrameStream(c, 0.3, r.sink, (rs, first, end) => r.frame(rs.slice(first, end)));
  let at = 0;
  for (const cut of [...cuts, records.length]) {
    s.push(records.slice(at, cut));
    at = cut;
  }
  s.finish();
  return r.frames;
}

describe('EtraceFrameStream', () => {
  it('single retirement: the frames of the whole stream, for any cut', () => {
    const c = etraceConfigOf('etrace');
    const records = generateStimulus(defaultKnobs(), 2, 3000).records;
    const expected = whole(c, records);
    expect(expected.length).toBeGreaterThan(records.length);
    expect(chunked(c, records, [1, 700, 701, 2000])).toEqual(expected);
    expect(chunked(c, records, [])).toEqual(expected);
  });

  it('several groups per cycle: a cycle cut by a chunk boundary is one frame', () => {
    const c = etraceConfigOf('etrace', ['retires_p=3', 'taken_branches_p=2']);
    const records = regroupIntoBlocks(generateStimulus(defaultKnobs(), 3, 3000).records, c.params);
    // Cut inside cycles: before every fifth record that continues a cycle.
    const cuts = records.flatMap((r, i) => (r.sameCycle && i % 5 === 0 ? [i] : []));
    expect(cuts.length).toBeGreaterThan(10);
    const expected = whole(c, records);
    expect(chunked(c, records, cuts)).toEqual(expected);
    // Every frame with records holds a whole cycle: the first record starts it.
    expect(expected.filter((f) => f.endsWith('| ')).length).toBeLessThan(expected.length);
  });

  it('no records: the end-of-trace write and the drain frames only', () => {
    const c = etraceConfigOf('etrace');
    expect(chunked(c, [], [])).toEqual(whole(c, []));
  });

  it('too many groups in a cycle is reported with the index of its first record in the stream', () => {
    const c = etraceConfigOf('etrace');
    const records = generateStimulus(defaultKnobs(), 2, 100).records.map((r, i) => ({ ...r, sameCycle: i === 51 }));
    expect(() => chunked(c, records, [40, 51])).toThrow('record 50: 2 signal groups in one cycle, more than taken_branches_p = 1');
  });
});
