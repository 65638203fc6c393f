/**
 * Serial views (serial_views_p = 1, docs/etrace-model.md "Serial views"): the encoder takes one
 * view a clock, so each later group of a cycle, and a block's last view after its first, is
 * encoded a clock later and holds the hart for that clock.
 *
 * The hand-made stream is pipeline.test.ts's chain of `jalr x0, 0(x6)` at 0x100, 0x110, ..., under
 * defaultParams (1.1.1, 32-bit addresses), with two jumps (two blocks of one instruction) a cycle:
 * the packets are the ones worked out there (start support `41 1f`, the sync of instruction 0 in 4
 * bytes, an F2 of 2 bytes for every later instruction, each offered when the next one arrives),
 * and a byte leaves the FIFO in the cycle after it was written, one a cycle.
 */
import { describe, expect, it } from 'vitest';
import { cycleChance } from '../common/rng.ts';
import { resolveSettings } from '../common/settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';
import { decodedRuns, retiredAddresses, traceRecovery } from '../hart/recovery.ts';
import { generateProgramAndStream } from '../hart/stimulus/generate.ts';
import { defaultKnobs } from '../hart/stimulus/knobs.ts';
import { trapHandler } from '../hart/stimulus/execute.ts';
import { defaultOptions, defaultParams, type EtraceConfig, validateConfig } from './config.ts';
import { defaultDataParams } from './data/params.ts';
import { decodeStream } from './decoder.ts';
import { encodeStream } from './output.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

const addr = (k: number): bigint => 0x100n + 0x10n * BigInt(k);

/** Jump k of the chain; `later` when it is the second group of its cycle. */
function jump(k: number, later: boolean): RetirementRecord {
  return { ...emptyRecord(), iaddr: addr(k), iretire: 2, ilastsize: 1, itype: Itype.otherUninferableJump, sameCycle: later };
}

/** Jumps 2j and 2j + 1 in cycle 10j, idle cycles between. */
function pairs(n: number): RetirementRecord[] {
  const out: RetirementRecord[] = [];
  for (let j = 0; j < n; j++) {
    if (j > 0) for (let i = 0; i < 9; i++) out.push(emptyRecord());
    out.push(jump(2 * j, false), jump(2 * j + 1, true));
  }
  return out;
}

function config(serial: number): EtraceConfig {
  return { params: { ...defaultParams(), taken_branches_p: 2, serial_views_p: serial }, options: defaultOptions() };
}

describe('serial views: one view a clock', () => {
  it('each later group of a cycle is encoded a clock later and holds the hart for that clock', () => {
    const records = pairs(3);
    const together = encodeStream(records, config(0), { ready: () => true, departures: true });
    const serial = encodeStream(records, config(1), { ready: () => true, departures: true });
    // The packets of pipeline.test.ts's table, the same both ways: the encoding does not depend on
    // how the instructions share cycles.
    const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
    expect(hex(serial.bytes.subarray(0, 12))).toBe('41 1f 43 73 00 01 41 22 41 22 41 22');
    expect(Array.from(serial.bytes)).toEqual(Array.from(together.bytes));
    expect(together.stallCycles).toBe(0);
    expect(serial.viewHolds).toBe(3);
    expect(serial.stallCycles).toBe(3);
    // Together: support (cycle -1) leaves in 0-1, the sync of jump 0 (written in cycle 0) in 2-5,
    // the F2s of jumps 1 and 2 (both written in cycle 10, when jumps 2 and 3 arrive) in 11-14.
    expect(Array.from(together.departures!.slice(0, 10))).toEqual([0, 1, 2, 3, 4, 5, 11, 12, 13, 14]);
    // Serial: jump 1 arrives in clock 1 (the sync is written then, the FIFO busy until 1 anyway);
    // cycle 10 is clock 11 after the hold, jump 2 arrives there and jump 3 in clock 12, so the F2
    // of jump 1 leaves in 12-13 and that of jump 2 in 14-15.
    expect(Array.from(serial.departures!.slice(0, 10))).toEqual([0, 1, 2, 3, 4, 5, 12, 13, 14, 15]);
  });

  it('a block of several instructions is two views: the last is encoded a clock after the first', () => {
    // The same stream in blocks of up to three instructions, one block a cycle.
    const { stream } = generateProgramAndStream(defaultKnobs(), 3, 3000);
    const records = regroupIntoBlocks(stream.records, { retires_p: 3, taken_branches_p: 1 });
    const blocks = records.filter((r) => r.iretire > 0 && r.iretire !== 1 << r.ilastsize).length;
    expect(blocks).toBeGreaterThan(300);
    const c = (serial: number) => etraceConfig(resolveSettings('test', ETRACE_SETTINGS, ['retires_p=3', 'iretire_width_p=3', `serial_views_p=${serial}`]));
    const together = encodeStream(records, c(0), { ready: () => true, departures: true });
    const serial = encodeStream(records, c(1), { ready: () => true, departures: true });
    expect(Array.from(serial.bytes)).toEqual(Array.from(together.bytes));
    expect(serial.viewHolds).toBe(blocks);
    expect(serial.stallCycles).toBe(blocks);
    // Every byte leaves no earlier than it did with the views together, and the last one later.
    expect(serial.departures!.every((t, i) => t >= together.departures![i]!)).toBe(true);
    expect(serial.departures!.at(-1)!).toBeGreaterThan(together.departures!.at(-1)!);
  });

  it('is refused where it means nothing or is not implemented', () => {
    const one = { ...config(1), params: { ...config(1).params, taken_branches_p: 1 } };
    expect(validateConfig(one).map((e) => e.oneLine())).toEqual([
      expect.stringMatching(/serial_views_p = 1 needs retires_p > 1 or taken_branches_p > 1/),
    ]);
    const two = { ...config(1), params: { ...config(1).params, serial_views_p: 2 } };
    expect(validateConfig(two).map((e) => e.oneLine())).toEqual([expect.stringMatching(/serial_views_p must be 0 or 1, not 2/)]);
    const data = { ...config(1), params: { ...config(1).params, dataTrace: defaultDataParams() } };
    expect(validateConfig(data).map((e) => e.oneLine())).toContainEqual(expect.stringMatching(/serial_views_p = 1 is not implemented with data trace/));
  });

  it('resync by cycles counts the clocks: a later group is a cycle of its own', () => {
    // ResyncMode 2, ResyncMax 0: a synchronisation every 16 cycles. The same stream in blocks of
    // two, two a cycle: the serial encoder sees as many cycles as there are groups.
    const sets = ['ResyncMode=2', 'ResyncMax=0', 'retires_p=2', 'iretire_width_p=3', 'taken_branches_p=2'];
    const { stream } = generateProgramAndStream(defaultKnobs(), 7, 20_000);
    const records = regroupIntoBlocks(stream.records, { retires_p: 2, taken_branches_p: 2 });
    const syncs = (serial: number): number => {
      const c = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, [...sets, `serial_views_p=${serial}`]));
      return encodeStream(records, c).packets.filter((p) => p.packet.format === 3n && p.packet.subformat === 0n).length;
    };
    const cycles = records.filter((r) => !r.sameCycle).length;
    expect(records.length / cycles).toBeGreaterThan(1.2);
    const ratio = syncs(1) / syncs(0);
    expect(ratio).toBeGreaterThan(0.9 * (records.length / cycles));
    expect(ratio).toBeLessThan(1.1 * (records.length / cycles));
  });

  it('round trip: with and without back-pressure the decoder recovers the retired instructions (seeds 1..30)', () => {
    const sets = ['iaddress_width_p=64', 'retires_p=3', 'iretire_width_p=3', 'taken_branches_p=2', 'serial_views_p=1', 'fifo_depth_p=32'];
    const c = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, sets));
    expect(validateConfig(c)).toEqual([]);
    let lost = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const { stream, program } = generateProgramAndStream(defaultKnobs(), seed, 1500);
      const records = regroupIntoBlocks(stream.records, { retires_p: 3, taken_branches_p: 2 });
      const decode = (bytes: Uint8Array) =>
        decodeStream(bytes, stream.image, { params: c.params, xlen: 64, trapHandler: (t) => trapHandler(program, Number(t.privilege)) });
      const expected = retiredAddresses(stream.records, stream.image);
      expect(decodedRuns(decode(encodeStream(records, c).bytes)).flat(), `seed ${seed}`).toEqual(expected);
      const lossy = encodeStream(records, c, { ready: (cycle) => !cycleChance(seed, cycle, 0.6) });
      lost += lossy.dropped;
      expect(traceRecovery(decode(lossy.bytes), expected).wrongRun, `seed ${seed}, back-pressure`).toBeUndefined();
    }
    expect(lost).toBeGreaterThan(0);
  });
});
