/**
 * The streaming frame writer (EtraceFrameStream) gives the frames of writeEtraceFrames whatever the
 * chunks the records arrive in, also when a cycle of several signal groups spans two chunks.
 */
import { describe, expect, it } from 'vitest';
import { etraceConfigOf } from '../../blocks/testing.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import type { DataAccess, DataTrace, LoadResponse } from '../../golden-model/hart/data-records.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { caseStream } from './case.ts';
import { EtraceFrameStream, etraceFrames, type FrameSink, writeEtraceFrames } from './frames.ts';

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

describe('EtraceFrameStream: data accesses of a cycle of several signal groups', () => {
  const MULTI = ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1'];

  /** The frames of `records` as port values, with the stream indexes of each frame's records. */
  function framesOf(c: EtraceConfig, records: readonly RetirementRecord[], data: DataTrace): { values: Map<string, bigint>; first: number; end: number }[] {
    const values = new Map<string, bigint>();
    const out: { values: Map<string, bigint>; first: number; end: number }[] = [];
    writeEtraceFrames(c, records, 0, { setter: (port) => (v) => void values.set(port, BigInt(v)) }, (first, end) => out.push({ values: new Map(values), first, end }), data);
    return out;
  }

  it('drives the access of whichever group has it, with dblock_i its group, and iaddr_lsbs_i masked', () => {
    const sets = [...MULTI, 'iaddr_lsbs_width_p=3'];
    const c = etraceConfigOf('etrace-data', sets);
    expect(etracePorts(c).some((q) => q.name === 'dblock_i')).toBe(true);
    const { records, data } = caseStream(c, { component: 'etrace-data', sets, seed: 5, count: 4000, backpressure: 0, knobs: {} });
    const byRecord = new Map(data!.accesses.map((a) => [a.at, a]));
    let driven = 0;
    let later = 0;
    for (const f of framesOf(c, records, data!)) {
      if (f.end === f.first) {
        expect(f.values.get('dretire_i')).toBe(0n);
        continue;
      }
      const groups = Array.from({ length: f.end - f.first }, (_, g) => f.first + g);
      const at = groups.find((i) => byRecord.has(i));
      if (at === undefined) {
        expect(f.values.get('dretire_i'), `cycle of record ${f.first}`).toBe(0n);
        continue;
      }
      const a = byRecord.get(at)!;
      driven++;
      if (at > f.first) later++;
      expect(f.values.get('dretire_i')).toBe(1n);
      expect(f.values.get('dblock_i'), `access at record ${at}`).toBe(BigInt(at - f.first));
      expect(f.values.get('daddr_i')).toBe(a.daddr);
      expect(f.values.get('iaddr_lsbs_i')).toBe(BigInt(a.iaddrLsbs & 7));
    }
    expect(driven).toBe(data!.accesses.length);
    // Accesses of a cycle's second group are driven too (looking up the first record only dropped them).
    expect(later).toBeGreaterThan(20);
  });

  it('etraceFrames drives the same access in the cycle of its group', () => {
    const c = etraceConfigOf('etrace-data', MULTI);
    const records = [insn(0x100n, false), insn(0x200n, true), insn(0x300n, false)];
    const data: DataTrace = { accesses: [access(1, 1)], responses: [] };
    const frames: Record<string, number | bigint>[] = [];
    etraceFrames(c, records, 0, (fill) => {
      const v: Record<string, number | bigint> = {};
      fill((port, value) => void (v[port] = value));
      frames.push(v);
    }, data);
    expect(frames.slice(0, 2).map((f) => [Number(f.dretire_i), Number(f.dblock_i), BigInt(f.daddr_i!)])).toEqual([
      [1, 1, 0x4000n],
      [0, 0, 0n],
    ]);
  });

  const insn = (iaddr: bigint, sameCycle: boolean): RetirementRecord => ({ ...emptyRecord(), iaddr, iretire: 2, ilastsize: 1, sameCycle });
  const access = (at: number, dblock: number): DataAccess => ({ at, dtype: 1, daddr: 0x4000n, dsize: 2, data: 7n, lrid: 0, iaddrLsbs: 0, dblock });
  // Cycles: records 0-1, 2, 3-4.
  const records = [insn(0x100n, false), insn(0x200n, true), insn(0x300n, false), insn(0x400n, false), insn(0x500n, true)];
  const frames = (sets: string[], data: DataTrace) => () => framesOf(etraceConfigOf('etrace-data', sets), records, data);

  it('two accesses in one cycle, or in one record, are one-line errors naming the record', () => {
    expect(frames(MULTI, { accesses: [access(0, 0), access(1, 1)], responses: [] })).toThrow(
      'record 1: a second data access in the cycle of record 0; the data interface (table 4.9) takes one a cycle',
    );
    expect(frames(MULTI, { accesses: [access(3, 0), access(3, 0)], responses: [] })).toThrow('record 3: two data accesses in one cycle; the data interface (table 4.9) takes one a cycle');
  });

  it('a dblock that does not name the group is an error', () => {
    expect(frames(MULTI, { accesses: [access(4, 0)], responses: [] })).toThrow('record 4: a data access with dblock 0 in signal group 1 of its cycle; expected dblock to name its group');
    expect(frames(MULTI, { accesses: [access(4, 1)], responses: [] })).not.toThrow();
  });

  it('split loads: a response must be on the last record of its cycle, one a cycle', () => {
    const split = [...MULTI, 'data_split_p=1'];
    const load = { ...access(0, 0), dtype: 0, data: 0n };
    const resp = (at: number): LoadResponse => ({ at, lid: 0, lresp: 2, ldata: 5n });
    expect(frames(split, { accesses: [load], responses: [resp(1)] })).not.toThrow();
    expect(frames(split, { accesses: [load], responses: [resp(0)] })).toThrow(
      "record 0: a load response in signal group 0 of a cycle of 2; the RTL sends it after the cycle's last group, expected it on record 1",
    );
    expect(frames(split, { accesses: [load], responses: [resp(1), resp(1)] })).toThrow('record 1: two load responses in one cycle');
  });
});

