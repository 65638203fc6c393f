/**
 * The co-simulation stimulus of data trace with multiple retirement (caseStream): the records are
 * regrouped into blocks with one data access a cycle, then the accesses are added to the blocks, so
 * each access points at the block that holds its instruction, names its group (dblock) and its
 * instruction (iaddrLsbs); split-load responses sit one a cycle on the cycle's last record. The
 * model encodes such streams, and its bytes decode to the accesses.
 */
import { describe, expect, it } from 'vitest';
import { etraceConfigOf } from '../../blocks/testing.ts';
import type { CaseSpec } from '../../core/block.ts';
import { accessInstructionAddress } from '../../golden-model/etrace/data/filter.ts';
import { decodeDataStream } from '../../golden-model/etrace/data-decoder/decoder.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import { checkDataTrace, type DataTrace, isAtomic, isCsrAccess, type LoadResponse } from '../../golden-model/hart/data-records.ts';
import { dataAccessOf } from '../../golden-model/hart/isa/data-access.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateProgramAndStream } from '../../golden-model/hart/stimulus/generate.ts';
import { caseKnobs, caseStream, oneResponsePerCycle } from './case.ts';

const COUNT = 6000;
const spec = (component: string, sets: string[], seed: number): CaseSpec => ({ component, sets, seed, count: COUNT, backpressure: 0, knobs: {} });

/** The group of each record in its cycle (0 for a cycle's first record). */
function groupsOf(records: readonly RetirementRecord[]): number[] {
  const g: number[] = [];
  records.forEach((r, i) => g.push(r.sameCycle && i > 0 ? g[i - 1]! + 1 : 0));
  return g;
}

/** The cycle of each record. */
function cyclesOf(records: readonly RetirementRecord[]): number[] {
  let c = -1;
  return records.map((r, i) => (r.sameCycle && i > 0 ? c : ++c));
}

const MULTIPLE = [
  { name: 'retires_p 2', sets: ['retires_p=2', 'iretire_width_p=3'] },
  { name: 'retires_p 4, taken_branches_p 2, dblock', sets: ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1'] },
  { name: 'retires_p 4, taken_branches_p 2, dblock, iaddr_lsbs, split loads', sets: ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1', 'iaddr_lsbs_width_p=3', 'data_split_p=1'] },
];

describe('caseStream: data trace with multiple retirement', () => {
  it.each(MULTIPLE)('$name: one access a cycle, each at the block of its instruction, dblock its group', ({ sets }) => {
    const c = etraceConfigOf('etrace-data', [...sets, 'stallEnable=1']);
    const s = caseStream(c, spec('etrace-data', sets, 3));
    const { records, image } = s;
    const data = s.data!;
    expect(() => checkDataTrace(s)).not.toThrow();
    expect(records.some((r) => r.sameCycle || r.iretire > 2)).toBe(true);
    const groups = groupsOf(records);
    const cycles = cyclesOf(records);
    // One access a cycle.
    const seen = new Set<number>();
    for (const a of data.accesses) {
      expect(seen.has(cycles[a.at]!), `second access in the cycle of record ${a.at}`).toBe(false);
      seen.add(cycles[a.at]!);
    }
    // The instructions of the blocks that make an access, in order: the accesses are theirs, one each.
    const d = c.params.dataTrace!;
    const instructions: { at: number; pc: bigint }[] = [];
    records.forEach((r, at) => {
      for (let pc = r.iaddr; pc < r.iaddr + 2n * BigInt(r.iretire); ) {
        const i = image.fetch(pc)!;
        const info = dataAccessOf(i.encoding, i.length, c.params.iaddress_width_p > 32 ? 64 : 32);
        if (info && (d.data_csr_p || !isCsrAccess(info.dtype)) && (d.data_atomics_p || !isAtomic(info.dtype))) instructions.push({ at, pc });
        pc += BigInt(i.length);
      }
    });
    expect(data.accesses.length).toBe(instructions.length);
    expect(data.accesses.length).toBeGreaterThan(COUNT / 10);
    data.accesses.forEach((a, k) => {
      const r = records[a.at]!;
      const pc = accessInstructionAddress(r.iaddr, a.iaddrLsbs, 8);
      expect({ at: a.at, pc }, `access ${k}`).toEqual(instructions[k]);
      expect(pc >= r.iaddr && pc < r.iaddr + 2n * BigInt(r.iretire)).toBe(true);
      expect(a.dblock, `access ${k} at record ${a.at}`).toBe(groups[a.at]);
    });
    if (c.params.taken_branches_p > 1) expect(data.accesses.some((a) => a.dblock > 0)).toBe(true);
    // Split loads: one response a cycle, on the cycle's last record.
    if (d.data_split_p) {
      expect(data.responses.length).toBeGreaterThan(100);
      const taken = new Set<number>();
      for (const r of data.responses) {
        expect(r.at === records.length - 1 || !records[r.at + 1]!.sameCycle, `response at record ${r.at}`).toBe(true);
        expect(taken.has(r.at)).toBe(false);
        taken.add(r.at);
      }
    }
    // The model encodes the stream (stall mode: nothing lost), and its bytes decode to the accesses
    // of the records that are not halted or reset, in order.
    const e = encodeStream(records, c, { data });
    expect(e.dropped).toBe(0);
    const decoded = decodeDataStream(e.bytes, c.params);
    const traced = data.accesses.filter((a) => !records[a.at]!.halted && !records[a.at]!.reset);
    expect(decoded.accesses.map((a) => [a.dtype, a.dsize, a.daddr])).toEqual(traced.map((a) => [a.dtype, a.dsize, isCsrAccess(a.dtype) ? a.daddr & 0xfffn : a.daddr]));
    if (d.data_split_p) expect(decoded.responses.length).toBeGreaterThan(100);
  });

  it('without data trace the records are the regrouped stream, as before', () => {
    const sets = ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2'];
    const c = etraceConfigOf('etrace', sets);
    const s = caseStream(c, spec('etrace', sets, 4));
    expect(s.data).toBeUndefined();
    const { stream } = generateProgramAndStream(caseKnobs(c, spec('etrace', sets, 4)), 4, COUNT);
    expect(s.records).toEqual(regroupIntoBlocks(stream.records, c.params));
  });

  it('single retirement with data trace: the records are the generated ones, every access dblock 0', () => {
    const c = etraceConfigOf('etrace-data');
    const s = caseStream(c, spec('etrace-data', [], 4));
    const { stream } = generateProgramAndStream(caseKnobs(c, spec('etrace-data', [], 4)), 4, COUNT);
    expect(s.records).toEqual(stream.records);
    expect(s.data!.accesses.every((a) => a.dblock === 0 && a.iaddrLsbs === Number((s.records[a.at]!.iaddr >> 1n) & 0xffffn))).toBe(true);
  });
});

describe('oneResponsePerCycle', () => {
  const rec = (sameCycle: boolean): RetirementRecord => ({ ...emptyRecord(), iaddr: 0x100n, iretire: 2, ilastsize: 1, sameCycle });
  const load = (at: number, lrid: number) => ({ at, dtype: 0, daddr: 0x1000n, dsize: 2, data: 0n, lrid, iaddrLsbs: 0, dblock: 0 });
  const resp = (at: number, lid: number): LoadResponse => ({ at, lid, lresp: 2, ldata: 0n });

  it('single retirement: a shared record\'s second response moves to the nearest free record', () => {
    const records = Array.from({ length: 6 }, () => rec(false));
    const data: DataTrace = { accesses: [load(0, 0), load(1, 1)], responses: [resp(2, 0), resp(2, 1)] };
    // lrid 1's window (records 1-5) is the narrower: it keeps record 2; lrid 0's moves to record 1.
    expect(oneResponsePerCycle(data, records).responses.map((r) => [r.at, r.lid])).toEqual([
      [1, 0],
      [2, 1],
    ]);
  });

  it('cycles: responses go to the last record of a cycle, one a cycle, within their window', () => {
    // Cycles: records 0-1, 2, 3-5, 6-7.
    const records = [false, true, false, false, true, true, false, true].map(rec);
    // Load lrid 0 at record 0 answered at record 0 (first group): moves to record 1, its cycle's last.
    // Load lrid 1 at record 2, answered at 3, and load lrid 2 at 3 answered at 4: one takes record
    // 5 (the cycle of 3-5), the other the nearest free last record in its window.
    const data: DataTrace = {
      accesses: [load(0, 0), load(2, 1), load(3, 2), load(6, 1)],
      responses: [resp(0, 0), resp(3, 1), resp(4, 2)],
    };
    const out = oneResponsePerCycle(data, records).responses;
    const lasts = new Set([1, 2, 5, 7]);
    for (const r of out) expect(lasts.has(r.at), `record ${r.at}`).toBe(true);
    expect(new Set(out.map((r) => r.at)).size).toBe(out.length);
    const at = new Map(out.map((r) => [r.lid, r.at]));
    expect(at.get(0)).toBe(1);
    // lrid 1 is reused at record 6: its response must be before, so at 2 or 5; lrid 2 at 5 or 7.
    expect([2, 5]).toContain(at.get(1));
    expect([5, 7]).toContain(at.get(2));
  });

  it('a response with no last record in its window is an error naming it', () => {
    // Cycle 0-1 holds two loads reusing lrid 0: the first's response must be at record 0, not a last record.
    const records = [false, true].map(rec);
    const data: DataTrace = { accesses: [load(0, 0), load(1, 0)], responses: [resp(0, 0), resp(1, 0)] };
    expect(() => oneResponsePerCycle(data, records)).toThrow('load response 0 of lrid 0 (record 0): no cycle between its load and the next use of its lrid without another response');
  });
});
