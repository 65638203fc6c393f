/**
 * Co-simulation of the generated tandem-verification trace encoder against the model, byte for
 * byte, with the beats and held cycles of the FIFO's cycle model: both shipped components, byte- and
 * word-wide output, back-pressure 0, 0.3 and 0.6, records of every kind (and a mix heavy in the
 * rare ones); and short record lists whose bytes are typed by hand from the seed's chapter 2, which
 * the RTL must write whatever the model says. One Verilator build per configuration, reused by its cases. Mutants of the generated
 * RTL (two fields swapped; one byte less room in the FIFO) must be caught, with a first-difference
 * message that names the byte, the record and both decodings.
 */
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../../blocks/testing.ts';
import type { CaseSpec } from '../../core/block.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { installRtl } from '../build.ts';
import { decodeTextRecords } from '../../golden-model/tvtrace/formats/text.ts';
import { tvtraceCaseModel, tvtraceCaseRecords } from './case.ts';
import { buildTvtraceModel, cosimTvtrace, tvExpected } from './cosim.ts';
import { generateTvRecords } from './stimulus.ts';

const CONFIGS: { component: string; sets: string[]; count: number }[] = [
  { component: 'tvtrace', sets: [], count: 6000 }, // 8 bytes a beat
  { component: 'tvtrace', sets: ['out_bytes=1'], count: 1500 },
  { component: 'tvtrace-rv32imc', sets: [], count: 6000 }, // 4 bytes a beat
  { component: 'tvtrace-rv32imc', sets: ['out_bytes=1', 'fifo_bytes=78'], count: 1500 }, // the smallest FIFO
];
const BACKPRESSURE = [0, 0.3, 0.6];
/** A mix heavy in the rare kinds (traps, interrupts, debug writes, resets) and in idle cycles (a FIFO that fills and empties). */
const RARE = { fault_rate: 0.15, interrupt_rate: 0.1, halt_rate: 0.2, reset_rate: 0.05, idle_rate: 0.8 };

describe('tvtrace RTL against the model', () => {
  describe.each(CONFIGS)('$component $sets', ({ component, sets, count }) => {
    const r = resolvedOf<TvtraceRtlConfig>('tvtrace', component, sets);
    it.each(BACKPRESSURE)('back-pressure %s: identical bytes, beats and stalls', async (backpressure) => {
      const spec: CaseSpec = { component, sets, seed: 40 + Math.round(backpressure * 10), count, backpressure };
      const result = await r.block.runCase(r, spec);
      console.log(`${component} ${sets.join(' ')} bp ${backpressure}: ${result.summary}`);
      expect(result.mismatch).toBeUndefined();
      expect(result.identical).toBe(true);
      expect(result.metrics.bytes).toBeGreaterThan(count * 10);
      if (backpressure > 0) expect(result.metrics.stalls).toBeGreaterThan(0);
      // Every kind of record was in the stimulus.
      const kinds = new Set(tvtraceCaseRecords(r.config, spec).map((x) => x.kind));
      expect([...kinds].sort()).toEqual(['debug-mem', 'debug-reg', 'instruction', 'interrupt', 'reset', 'trap', 'unobserved', 'xret']);
    }, 300_000);

    it('the rare kinds, back-pressure 0.3', async () => {
      const result = await r.block.runCase(r, { component, sets, seed: 77, count: Math.round(count / 2), backpressure: 0.3, knobs: RARE });
      expect(result.mismatch).toBeUndefined();
    }, 300_000);
  });
});

// Records and their bytes typed by hand from the seed's chapter 2 (not from the model): the RTL's
// bytes must be these, whatever the model says.
const HAND: { component: string; sets: string[]; text: string; bytes: string }[] = [
  {
    component: 'tvtrace',
    sets: ['out_bytes=1'],
    text: [
      'instruction next_pc=80000004 instr=006281b3 x3=1234', // add gp, t0, t1
      'instruction next_pc=8000000c instr=00053583 x11=1122334455667788 eaddr=80001000', // ld a1, 0(a0)
      'debug-reg x0=5', // x0 is not reported: 01 0b 02
      'reset',
    ].join('\n'),
    bytes: [
      '01 07 0a 04 00 00 80 00 00 00 00 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02',
      '01 07 0a 0c 00 00 80 00 00 00 00 11 83 35 05 00 04 0b 10 88 77 66 55 44 33 22 11 07 03 00 10 00 80 00 00 00 00 02',
      '01 0b 02',
      '01 0a 02',
    ].join(' '),
  },
  {
    component: 'tvtrace-rv32imc',
    sets: [],
    text: [
      'instruction next_pc=80000004 instr=00b52023 store=4:12345678 eaddr=300000010', // sw a1, 0(a0), a 34-bit address
      'interrupt next_pc=80000100 priv=S status=22 cause=80000009 epc=80000004 tval=0', // S-mode external interrupt
      'unobserved mcycle=123456789abcdef0', // RV32: mcycle, then mcycleh
      'instruction next_pc=80000106 instr=4501 x10=0', // c.li a0, 0
    ].join('\n'),
    bytes: [
      '01 07 0a 04 00 00 80 11 23 20 b5 00 07 06 78 56 34 12 07 03 10 00 00 00 03 02',
      '01 07 0a 00 01 00 80 07 01 01 04 00 01 22 00 00 00 04 42 01 09 00 00 80 04 41 01 04 00 00 80 04 43 01 00 00 00 00 02',
      '04 00 0b f0 de bc 9a 04 80 0b 78 56 34 12',
      '01 07 0a 06 01 00 80 10 01 45 04 0a 10 00 00 00 00 02',
    ].join(' '),
  },
];

describe('the RTL writes the bytes typed from the seed', () => {
  it.each(HAND)('$component $sets', async ({ component, sets, text, bytes }) => {
    const r = resolvedOf<TvtraceRtlConfig>('tvtrace', component, sets);
    const records = decodeTextRecords(`# rvtrace tv records v1\n${text}\n`, 'hand.tvr');
    const { model } = tvtraceCaseModel(r);
    const result = await cosimTvtrace(model, r.config, records, { seed: 5, backpressure: 0.5 });
    const want = bytes.split(' ').map((h) => parseInt(h, 16));
    expect([...result.actual]).toEqual(want);
    expect(result.mismatch).toBeUndefined();
  }, 300_000);
});

/** The RTL of tvtrace with one edit; throws when the text to replace is not there exactly once. */
function mutant(edits: [string, string][]): { config: TvtraceRtlConfig; paths: string[] } {
  const r = resolvedOf<TvtraceRtlConfig>('tvtrace', 'tvtrace', []);
  const files = r.block.rtl(r).map((f) => {
    let content = f.content;
    for (const [from, to] of edits) {
      if (!content.includes(from)) continue;
      expect(content.split(from).length - 1, from).toBe(1);
      content = content.replace(from, to);
    }
    return { name: f.name, content };
  });
  expect(files.map((f) => f.content).join('')).not.toBe(r.block.rtl(r).map((f) => f.content).join(''));
  return { config: r.config, paths: installRtl(files).paths };
}

describe('mutants of the generated RTL are caught', () => {
  it('eaddr and paddr in the wrong order: the first difference names the byte, the record and both decodings', async () => {
    const m = mutant([
      ["if (is_instruction && eaddr_valid_i) begin\n      eaddr = { eaddr_i, 8'h03, 8'h07};", "if (is_instruction && paddr_valid_i) begin\n      eaddr = { paddr_i, 8'h02, 8'h07};"],
      ["if (is_instruction && paddr_valid_i) begin\n      paddr = { paddr_i, 8'h02, 8'h07};", "if (is_instruction && eaddr_valid_i) begin\n      paddr = { eaddr_i, 8'h03, 8'h07};"],
    ]);
    const model = buildTvtraceModel(m.config, m.paths);
    const records = generateTvRecords(m.config, 3, 400);
    const result = await cosimTvtrace(model, m.config, records, { seed: 3 });
    // The first record with both addresses, found from the records.
    const k = records.findIndex((x) => x.kind === 'instruction' && x.eaddr !== undefined && x.paddr !== undefined);
    expect(k).toBeGreaterThanOrEqual(0);
    const { offsets } = tvExpected(m.config, records);
    const lines = result.mismatch!.split('\n');
    const first = /^first difference at byte (\d+) \(record (\d+), instruction, bytes (\d+)\.\.(\d+) of the model's stream\); model \d+ bytes, RTL \d+ bytes$/.exec(lines[0]!);
    expect(first, result.mismatch).not.toBeNull();
    expect(Number(first![2])).toBe(k);
    expect(Number(first![3])).toBe(offsets[k]);
    expect(Number(first![1])).toBeGreaterThan(offsets[k]!);
    expect(Number(first![1])).toBeLessThan(offsets[k + 1]!);
    expect(lines[1]).toMatch(new RegExp(`^  record ${k}: instruction next_pc=[0-9a-f]+ .*eaddr=[0-9a-f]+ paddr=[0-9a-f]+`));
    expect(lines[2]).toMatch(/^  model bytes from \d+: [0-9a-f]{2}( [0-9a-f]{2})+$/);
    expect(lines[3]).toMatch(/^  RTL   bytes from \d+: [0-9a-f]{2}( [0-9a-f]{2})+$/);
    // Both decode: the model with eaddr before paddr, the RTL the other way round.
    expect(lines[4]).toMatch(/^  model decodes: 0x0000 \w+ .*eaddr=0x[0-9a-f]+ paddr=0x[0-9a-f]+/);
    expect(lines[5]).toMatch(/^  RTL   decodes: 0x0000 \w+ .*paddr=0x[0-9a-f]+ eaddr=0x[0-9a-f]+/);
    expect(result.mismatchCycle).toBeGreaterThan(0);
  }, 300_000);

  it('one byte less room in the FIFO: identical bytes, but the beats differ from the cycle model', async () => {
    const m = mutant([["assign free = 9'h100 - count_q;", "assign free = 9'h0ff - count_q;"]]);
    const model = buildTvtraceModel(m.config, m.paths);
    const records = generateTvRecords(m.config, 4, 2000);
    // Only a FIFO that fills and empties shows its size in the beats: a saturated one sends a beat
    // in every ready cycle whatever its size. Idle cycles between records make it so.
    const result = await cosimTvtrace(model, m.config, records, { seed: 4, backpressure: 0.3, idle: 0.8 });
    expect(result.actual).toEqual(result.expected.bytes);
    expect(result.mismatch).toMatch(/^identical bytes, but beat \d+ differs from the FIFO's cycle model: RTL \d+ byte\(s\) in cycle \d+, model \d+ byte\(s\) in cycle \d+/);
  }, 300_000);
});
