/**
 * Co-simulation of the generated tandem-verification trace encoder against the model, byte for
 * byte, with the beats and held cycles of the FIFO's cycle model: both shipped components, byte- and
 * word-wide output, back-pressure 0, 0.3 and 0.6, records of every kind (and a mix heavy in the
 * rare ones), in both field orders; and short record lists whose bytes are typed by hand from the seed's chapter 2 and Appendix C, which
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
import { parseTv } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { Rng } from '../../golden-model/common/rng.ts';
import type { TvCsrWrite, TvRecord } from '../../golden-model/tvtrace/records.ts';

const CONFIGS: { component: string; sets: string[]; count: number }[] = [
  { component: 'tvtrace', sets: [], count: 6000 }, // 8 bytes a beat
  { component: 'tvtrace', sets: ['out_bytes=1'], count: 1500 },
  { component: 'tvtrace-rv32imc', sets: [], count: 6000 }, // 4 bytes a beat
  { component: 'tvtrace-rv32imc', sets: ['out_bytes=1', 'fifo_bytes=119'], count: 1500 }, // the smallest FIFO
  // The seed's field order: increment pc and OR into fcsr against the decoder's state (tvtrace_seed_state).
  { component: 'tvtrace', sets: ['field_order=seed'], count: 6000 },
  { component: 'tvtrace-rv32imc', sets: ['field_order=seed', 'out_bytes=1'], count: 1500 },
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
      const records = tvtraceCaseRecords(r.config, spec);
      const kinds = new Set(records.map((x) => x.kind));
      expect([...kinds].sort()).toEqual(['debug-mem', 'debug-reg', 'instruction', 'interrupt', 'reset', 'trap', 'unobserved', 'xret']);
      if (r.config.fieldOrder === 'seed') {
        // Increment pc was in the stream, as the independent decoder reads it (OR into fcsr is rare
        // in this mix: the test below draws it).
        const items = parseTv(tvExpected(r.config, records).bytes, r.config).groups.flatMap((g) => g.items);
        expect(items.filter((it) => it.kind === 'incrementPc').length).toBeGreaterThan(count / 4);
      }
    }, 300_000);

    it('the rare kinds, back-pressure 0.3', async () => {
      const result = await r.block.runCase(r, { component, sets, seed: 77, count: Math.round(count / 2), backpressure: 0.3, knobs: RARE });
      expect(result.mismatch).toBeUndefined();
    }, 300_000);
  });
});

describe('seed field order: fcsr as the decoder knows it', () => {
  /**
   * Floating-point instructions whose fcsr gathers exception flags (OR into fcsr), with what makes
   * the decoder's fcsr unknown or new between them: a write of fflags or frm, a CSR write of fcsr in
   * a CSR slot (before the fcsr field of the same group), flags cleared (a full write), a
   * debug-module CSR write, a hart reset.
   */
  function fcsrRecords(n: number): TvRecord[] {
    const rng = new Rng(2026);
    const out: TvRecord[] = [];
    let pc = 0x8000_0000n;
    let fcsr = 0n;
    for (let i = 0; i < n; i++) {
      const p = rng.float();
      if (p < 0.03) {
        out.push({ kind: 'reset' });
        continue;
      }
      if (p < 0.06) {
        out.push({ kind: 'debug-reg', file: 'csr', index: rng.pick([0x001, 0x002, 0x003]), value: BigInt(rng.int(0, 0xff)) });
        continue;
      }
      const csrs: TvCsrWrite[] = [];
      if (p < 0.12) csrs.push({ csr: rng.pick([0x001, 0x002, 0x003, 0x300]), value: BigInt(rng.int(0, 0xff)) });
      fcsr = p < 0.18 ? BigInt(rng.int(0, 0xff)) : fcsr | (1n << BigInt(rng.int(0, 4)));
      pc += 4n;
      out.push({ kind: 'instruction', nextPc: pc, instr: { size: 32, bits: 0x0116_f3d3 }, fpr: { reg: rng.int(0, 31), value: BigInt(rng.u32()) }, ...(csrs.length > 0 ? { csrs } : {}), fcsr });
    }
    return out;
  }

  it.each([
    ['tvtrace', ['field_order=seed']],
    ['tvtrace-rv32imc', ['field_order=seed', 'flen=32', 'out_bytes=2']],
  ])('%s %s: identical bytes, with OR into fcsr and full writes', async (component, sets) => {
    const r = resolvedOf<TvtraceRtlConfig>('tvtrace', component, sets);
    const records = fcsrRecords(3000);
    const { model } = tvtraceCaseModel(r);
    const result = await cosimTvtrace(model, r.config, records, { seed: 9, backpressure: 0.2 });
    expect(result.mismatch).toBeUndefined();
    const items = parseTv(result.actual, r.config).groups.flatMap((g) => g.items);
    const onFcsr = items.filter((it) => 'regno' in it && it.regno === 0x003);
    expect(onFcsr.filter((it) => it.kind === 'incrRegOr').length).toBeGreaterThan(1000);
    expect(onFcsr.filter((it) => it.kind === 'fullReg').length).toBeGreaterThan(100);
  }, 300_000);
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
  {
    // Memory transactions and the pc's paddr (chapter 2: opcode 8 = address, op | size << 4, data of
    // a store/sc/AMO; opcode 9 = size | result << 4, data unless a store/sc; additional state 9):
    // amoadd.w a0, a1, (a2) on RV64, then a failed sc.w with a load-reserved before it on RV32 Sv32.
    component: 'tvtrace',
    sets: ['out_bytes=1'],
    text: 'instruction next_pc=80000104 pc_paddr=80000104 instr=00b6252f x10=7 store=4:c eaddr=80001000 mem0=amoadd:4:80001000:5/ok:7',
    bytes: [
      '01 07 0a 04 01 00 80 00 00 00 00 07 09 04 01 00 80 00 00 00 00 11 2f 25 b6 00 04 0a 10 07 00 00 00 00 00 00 00',
      '07 06 0c 00 00 00 07 03 00 10 00 80 00 00 00 00 08 00 10 00 80 00 00 00 00 25 05 00 00 00 09 02 07 00 00 00 02',
    ].join(' '),
  },
  {
    component: 'tvtrace-rv32imc',
    sets: [],
    text: 'instruction next_pc=80000108 instr=18b6252f x10=1 mem0=lr:4:280001000/ok:5 mem1=sc:4:280001000:5/fail',
    bytes: '01 07 0a 08 01 00 80 11 2f 25 b6 18 04 0a 10 01 00 00 00 08 00 10 00 80 02 22 09 02 05 00 00 00 08 00 10 00 80 02 23 05 00 00 00 09 12 02',
  },
  {
    // The seed's field order, Appendix C's examples in a row (errata 2 and 6 of tvtrace.md applied):
    // C.2 with the pc in full (nothing known yet), C.1 with increment pc, a csrw fcsr that tells the
    // decoder fcsr, C.3 with the OR into fcsr, C.4 (16-bit), C.7, a reset, and an instruction whose
    // pc goes in full again.
    component: 'tvtrace',
    sets: ['field_order=seed', 'out_bytes=1'],
    text: [
      'instruction next_pc=c000100 instr=10010067', // C.2 jr 256(sp)
      'instruction next_pc=c000104 instr=006281b3 x3=1234', // C.1 add gp, t0, t1
      'instruction next_pc=c000108 instr=00301073 fcsr=0', // csrw fcsr, zero
      'instruction next_pc=c00010c instr=0116f3d3 f7=ffffffff66fef4f9 fcsr=1', // C.3 fadd.s ft7, fa3, fa7
      'instruction next_pc=c00010e instr=8d0d x10=ffffffff12345678', // C.4 c.sub a0, a1
      'trap next_pc=10000 instr=00000000 priv=M status=a000018b0 cause=2 epc=81234 tval=0', // C.7
      'reset',
      'instruction next_pc=10004 instr=006281b3 x3=1234',
    ].join('\n'),
    bytes: [
      '01 07 0a 00 01 00 0c 00 00 00 00 11 67 00 01 10 02',
      '01 03 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02',
      '01 03 11 73 10 30 00 04 03 00 00 00 00 00 00 00 00 00 02',
      '01 03 11 d3 f3 16 01 04 27 10 f9 f4 fe 66 ff ff ff ff 06 03 00 01 02',
      '01 03 10 0d 8d 04 0a 10 78 56 34 12 ff ff ff ff 02',
      '01 07 0a 00 00 01 00 00 00 00 00 11 00 00 00 00 04 41 03 34 12 08 00 00 00 00 00 04 42 03 02 00 00 00 00 00 00 00',
      '04 00 03 b0 18 00 00 0a 00 00 00 04 43 03 00 00 00 00 00 00 00 00 07 01 03 02',
      '01 0a 02',
      '01 07 0a 04 00 01 00 00 00 00 00 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02',
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
    const records = generateTvRecords(m.config, 4, 8000);
    // Only a FIFO that fills and empties shows its size in the beats: a saturated one sends a beat
    // in every ready cycle whatever its size. Idle cycles between records make it so.
    const result = await cosimTvtrace(model, m.config, records, { seed: 4, backpressure: 0.3, idle: 0.8 });
    expect(result.actual).toEqual(result.expected.bytes);
    expect(result.mismatch).toMatch(/^identical bytes, but beat \d+ differs from the FIFO's cycle model: RTL \d+ byte\(s\) in cycle \d+, model \d+ byte\(s\) in cycle \d+/);
  }, 300_000);
});
