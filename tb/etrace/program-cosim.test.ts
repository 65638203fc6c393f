/**
 * Run-time options programmed through the register interface (issue 23, deliverable 6): the
 * co-simulation builds the hardware configuration once (tb/case.ts hardwareConfig: every option
 * off, no session out of reset) and writes each case's options over the APB before the session
 * (tb/etrace/frames.ts, the programming prologue).
 *
 * - The prologue's words: checked against the field positions of the RISC-V Trace Control Interface
 *   as docs/etrace-registers.md lists them, typed here (not read from the register map).
 * - The prologue's frames: a setup and an access frame per write, hart inputs idle, trTeControl last.
 * - One build serves cases with different options, and each matches the model byte for byte
 *   (back-pressure, loss, stall, filters, comparators, predictors off and on).
 * - A register file that writes one field from the wrong bit fails the co-simulation: the check
 *   covers the register interface, which the component's own RTL (options as reset values) never
 *   exercised.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { etraceConfigOf, resolvedOf } from '../../blocks/testing.ts';
import type { CaseSpec } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { optionWrites } from '../../golden-model/etrace/option-writes.ts';
import { hardwareConfig } from '../case.ts';
import { caseRecords, etraceCaseModel, runEtraceCase } from './case.ts';
import { buildEtraceModel, cosimEtrace, etraceHardwareBuild } from './cosim.ts';
import { type FrameSink, programmedReadyOffset, PROLOGUE_RECORD, READY_OFFSET, writeEtraceFrames } from './frames.ts';

const RECORDS = Number(process.env.COSIM_RECORDS ?? 8_000);
/** The hardware: etrace-rv64-full (predictor, jump target cache, return stack, data trace) with two filters and comparators. */
const COMPONENT = 'etrace-rv64-full';
const UNITS = ['filters_p=2', 'comparators_p=2'];

describe('optionWrites: the words of the Trace Control Interface fields', () => {
  it('gives every option register the configuration\'s value, trTeControl last', () => {
    const c = etraceConfigOf(COMPONENT, [
      ...UNITS,
      'iTrigEnable=1', 'stallEnable=1', 'ResyncMode=2', 'ResyncMax=5',
      'FullAddress=1', 'ImplicitExcept=0', 'siJump=1', 'ImplicitReturn=1', 'BranchPrediction=1', 'JumpTargetCache=0',
      'iFilters=2', 'filter1.filterEnable=1', 'filter1.matchPrivilege=1', 'filter1.matchChoicePrivilege=9', 'filter1.comp2=1', 'filter1.matchComp2=1',
      'filter0.matchChoiceEcause=0x1200000034', 'filter0.matchValueImpdef=7', 'filter0.matchMaskImpdef=3',
      'comparator1.pInput=2', 'comparator1.pFunction=5', 'comparator1.sFunction=6', 'comparator1.matchMode=3', 'comparator1.sNotify=1',
      'comparator1.pMatch=0x123456789a', 'comparator1.sMatch=0xfffff000',
      'noAddress=1', 'DataCompress=1', 'dTrigEnable=1', 'dFilters=1',
    ]);
    // Bit positions of docs/etrace-registers.md (TCI layout); read-only fields are written 0.
    const control = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 11) | (1 << 13) | (2 << 16) | (5 << 20);
    const features = (1 << 0) | (1 << 2) | (1 << 3) | (1 << 4);
    // trTeDataControl: dEnable bit 2, dTrigEnable bit 3, noAddress bit 25, DataCompress bits 29:28.
    const dataControl = (1 << 2) | (1 << 3) | (1 << 25) | (1 << 28);
    const filter1 = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 9);
    const comparator1 = (2 << 0) | (0 << 2) | (5 << 4) | (6 << 8) | (3 << 12) | (1 << 15);
    expect(optionWrites(c).map((w) => [w.address, w.value >>> 0])).toEqual([
      [0x008, features],
      [0x00c, 2],
      [0x010, dataControl >>> 0],
      [0x01c, 1],
      [0x400, 0], [0x404, 0], [0x408, 0x34], [0x40c, 0x12], [0x410, 7], [0x414, 3],
      [0x420, filter1], [0x424, 9], [0x428, 0], [0x42c, 0], [0x430, 0], [0x434, 0],
      // Comparator 0 as the settings leave it: pFunction and sFunction 7 (always).
      [0x600, (7 << 4) | (7 << 8)], [0x610, 0], [0x614, 0], [0x618, 0], [0x61c, 0],
      [0x620, comparator1], [0x630, 0x3456789a], [0x634, 0x12], [0x638, 0xfffff000], [0x63c, 0],
      [0x000, control],
    ]);
  });

  it('iEnable 0 is trTeInstTracing 0 in an enabled encoder: trTeActive and trTeEnable are written 1', () => {
    const writes = optionWrites(etraceConfigOf(COMPONENT, ['iEnable=0', 'iTrigEnable=1']));
    expect(writes.at(-1)!.address).toBe(0x000);
    expect(writes.at(-1)!.value & 0b111).toBe(0b011);
  });

  it('leaves out registers that are read-only in the configuration (no filters, no data trace: four registers)', () => {
    const addresses = optionWrites(etraceConfigOf('etrace')).map((w) => w.address);
    // trTeInstFeatures has writable NoAddrDiff/NoTrapAddr; trTeInstFilters is read-only 0 without filters.
    expect(addresses).toEqual([0x008, 0x000]);
  });
});

describe('the programming prologue in the frames', () => {
  it('a setup and an access frame per write, hart idle, then the records; the alignment moves by the prologue', () => {
    const c = etraceConfigOf(COMPONENT, [...UNITS, 'ResyncMax=3', 'iFilters=1', 'filter0.filterEnable=1']);
    const writes = optionWrites(c);
    const records = caseRecords(c, { component: COMPONENT, sets: [], seed: 1, count: 20, backpressure: 0 });
    const frames: Record<string, number | bigint>[] = [];
    const current: Record<string, number | bigint> = {};
    const sink: FrameSink = { setter: (port) => (v) => void (current[port] = v) };
    writeEtraceFrames(c, records, 0, sink, () => void frames.push({ ...current }), undefined, writes);
    writes.forEach((w, k) => {
      const setup = frames[2 * k]!;
      const access = frames[2 * k + 1]!;
      expect([setup.psel_i, setup.penable_i, setup.pwrite_i, setup.paddr_i, setup.pwdata_i, setup.pstrb_i]).toEqual([1, 0, 1, w.address, w.value, 0b1111]);
      expect([access.psel_i, access.penable_i, access.pwrite_i, access.paddr_i, access.pwdata_i, access.pstrb_i]).toEqual([1, 1, 1, w.address, w.value, 0b1111]);
      for (const f of [setup, access]) expect([f.iretire_i, f.itype_i, f.iaddr_i, f.priv_i, f.dretire_i].map(Number)).toEqual([0, 0, 0, PROLOGUE_RECORD.priv, 0]);
    });
    expect(writes.at(-1)!.address).toBe(0x000);
    // The first record's frame follows, with the bus idle.
    const first = frames[2 * writes.length]!;
    expect([first.psel_i, first.iaddr_i]).toEqual([0, records[0]!.iaddr]);
    // Without the prologue the same frames start at once.
    const plain: Record<string, number | bigint>[] = [];
    writeEtraceFrames(c, records, 0, sink, () => void plain.push({ ...current }));
    expect(frames.slice(2 * writes.length)).toEqual(plain);
    expect(programmedReadyOffset(writes)).toBe(READY_OFFSET + 2 * writes.length);
  });
});

/** Run-time option sets on the one hardware: each different from the build's (every option off, iEnable 0). */
const OPTION_SETS: { name: string; sets: string[]; backpressure: number }[] = [
  {
    name: 'predictors on, resync by cycles (ResyncMax 0), full address, a privilege filter and a notifying comparator',
    sets: [
      'ResyncMode=2', 'ResyncMax=0', 'FullAddress=1',
      'iFilters=1', 'filter0.filterEnable=1', 'filter0.matchPrivilege=1', 'filter0.matchChoicePrivilege=9',
      'comparator1.pInput=0', 'comparator1.pFunction=5', 'comparator1.pMatch=0x80000700', 'comparator1.pNotify=1',
    ],
    backpressure: 0.3,
  },
  {
    name: 'stall mode, predictors and implicit return off, implicit exception, noData, XOR',
    sets: ['stallEnable=1', 'BranchPrediction=0', 'JumpTargetCache=0', 'ImplicitReturn=0', 'siJump=0', 'ImplicitExcept=1', 'noData=1', 'DataCompress=1'],
    backpressure: 0.6,
  },
  {
    name: 'triggers, resync by half-words, a latching comparator filter, loss',
    sets: [
      'iTrigEnable=1', 'dTrigEnable=1', 'ResyncMode=3', 'ResyncMax=1',
      'iFilters=2', 'filter1.filterEnable=1', 'filter1.matchComp1=1', 'filter1.comp1=0',
      'comparator0.pInput=0', 'comparator0.pFunction=2', 'comparator0.pMatch=0x80000300', 'comparator0.sInput=0', 'comparator0.sFunction=4', 'comparator0.sMatch=0x80000900', 'comparator0.matchMode=3',
    ],
    backpressure: 0.85,
  },
  {
    name: 'iEnable 0 with trace-on/off triggers: support packets, then tracing from the first trace-on',
    sets: ['iEnable=0', 'iTrigEnable=1'],
    backpressure: 0.3,
  },
];

describe('one build of the hardware configuration, options through the APB', () => {
  const spec = (sets: string[], backpressure: number): CaseSpec => ({
    component: COMPONENT,
    sets: [...UNITS, ...sets],
    seed: 31,
    count: RECORDS,
    backpressure,
    knobs: { trace_on_rate: 0.002, trace_off_rate: 0.002 },
  });
  const resolved = (s: CaseSpec) => resolvedOf<EtraceConfig>('etrace', s.component, s.sets);
  const keys = new Set<string>();
  const bytes = new Map<string, number>();

  it.each(OPTION_SETS)('$name: identical bytes on the shared build', async ({ sets, backpressure }) => {
    const s = spec(sets, backpressure);
    const r = resolved(s);
    keys.add(etraceCaseModel(r).model.key);
    const result = await runEtraceCase(r, s);
    expect(result.mismatch).toBeUndefined();
    expect(result.identical).toBe(true);
    if (r.config.options.stallEnable) expect(result.result.holds).toBe(result.result.expected.stallCycles);
    if (backpressure >= 0.85) expect(result.metrics.lost).toBeGreaterThan(0);
    bytes.set(sets.join(' '), result.metrics.bytes!);
  }, 600_000);

  it('the option sets shared one build, and they changed the trace', () => {
    expect(keys.size).toBe(1);
    // Each option set is a different trace of the same stimulus (the options took effect).
    expect(new Set(bytes.values()).size).toBe(OPTION_SETS.length);
    // The build is of the hardware configuration: the same as that of the component without options.
    expect(etraceCaseModel(resolvedOf<EtraceConfig>('etrace', COMPONENT, UNITS)).model.key).toBe([...keys][0]);
  });
});

describe('the co-simulation checks the register interface', () => {
  it('a register file that writes trTeInstEnBranchPrediction from the wrong bit fails', async () => {
    const s: CaseSpec = { component: COMPONENT, sets: ['BranchPrediction=1', 'JumpTargetCache=0'], seed: 5, count: 3000, backpressure: 0 };
    const r = resolvedOf<EtraceConfig>('etrace', COMPONENT, s.sets);
    // The hardware configuration's RTL with the mutation: bit 5 (JumpTargetCache's) read for BranchPrediction.
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-apb-mutant-'));
    let edited = false;
    const files = etraceCaseModel(r).paths.map((f) => {
      const target = join(dir, f.split('/').pop()!);
      let text = readFileSync(f, 'utf8');
      if (target.endsWith('etrace_apb_regs.sv')) {
        const before = text;
        text = text.replace('branch_prediction_d = pwdata_i[4];', 'branch_prediction_d = pwdata_i[5];');
        edited = text !== before;
      }
      writeFileSync(target, text);
      return target;
    });
    expect(edited).toBe(true);
    const hw = hardwareConfig(r);
    expect(hw.config.options.BranchPrediction).toBe(false);
    const m = etraceHardwareBuild(buildEtraceModel(hw.config, files));
    const result = await cosimEtrace(m, r.config, caseRecords(r.config, s), { seed: 5 });
    expect(result.mismatch).toBeDefined();
    expect(result.mismatch!.text).toMatch(/first difference at byte \d+/);
  }, 600_000);
});
