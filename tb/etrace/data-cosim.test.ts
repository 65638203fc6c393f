/**
 * Co-simulation of the E-Trace data trace path (docs/etrace-data.md, RTL section): the generated
 * RTL and the golden model get the same random programs with their data accesses
 * (golden-model/hart/stimulus/data.ts) and must produce the same combined byte stream, te_inst and
 * te_data packets in the model's order, with and without back-pressure, trace loss and the stall
 * mode. Independently of the model, the RTL's bytes decode (golden-model/etrace/data-decoder) back
 * to the accesses the program made. A mutant RTL (a wrong diff code, a swapped order) is caught.
 *
 * The shipped components run on their shipped RTL; the other configurations on the build of their
 * hardware configuration (tb/case.ts), which those differing only in run-time options share, with
 * the options programmed through the APB (tb/etrace/frames.ts). Each mutant is a build of its own.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { DataAccess } from '../../golden-model/hart/data-records.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { decodeDataStream } from '../../golden-model/etrace/data-decoder/decoder.ts';
import { renderEtraceRtl } from '../../generator/etrace/rtl.ts';
import { ROOT } from '../../generator/render.ts';
import type { BuiltModel } from '../build.ts';
import { etraceConfigOf as configOf, resolvedOf } from '../../blocks/testing.ts';
import { splitStream } from '../../golden-model/etrace/packet/encapsulate.ts';
import { MSG_TYPE } from '../../golden-model/etrace/packet/index.ts';
import { caseStream, etraceCaseModel } from './case.ts';
import { buildEtraceModel, cosimEtrace } from './cosim.ts';

const RECORDS = Number(process.env.COSIM_RECORDS ?? 8_000);
/** Each case may build its configuration's model first: minutes on a loaded 2-core machine. */
const BUILD_TIMEOUT = 600_000;

const models = new Map<string, BuiltModel>();
function model(key: string, c: EtraceConfig, files: () => string[]): BuiltModel {
  let m = models.get(key);
  if (!m) {
    m = buildEtraceModel(c, files());
    models.set(key, m);
  }
  return m;
}

/** The shipped RTL of a component, in compilation order (its filelist). */
function shippedRtl(name: string): string[] {
  const dir = join(ROOT, 'rtl-out', name);
  return readFileSync(join(dir, 'etrace.f'), 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('.sv'))
    .map((f) => join(dir, f));
}

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-data-cosim-'));
/** The RTL of a configuration generated into a directory of its own; `edit` may change a file. */
function generated(label: string, component: string, sets: string[], edit?: (name: string, text: string) => string): string[] {
  const out = join(dir, label.replace(/\W+/g, '-'));
  mkdirSync(out, { recursive: true });
  const files = renderEtraceRtl(configOf(component, sets), { component, inputHash: 'test', sets });
  for (const f of files) writeFileSync(join(out, f.name), edit ? edit(f.name, f.content) : f.content);
  return files.map((f) => join(out, f.name));
}

/**
 * The build of the hardware configuration of a component with `sets` (tb/case.ts): configurations
 * that differ only in run-time options share it, and cosimEtrace programs each case's options
 * through the APB.
 */
function hardwareModel(component: string, sets: string[]): BuiltModel {
  return etraceCaseModel(resolvedOf<EtraceConfig>('etrace', component, sets)).model;
}

/** `edit` may change the stream's accesses (e.g. random iaddr_lsbs in place of the instruction's own). */
async function run(m: BuiltModel, c: EtraceConfig, component: string, sets: string[], seed: number, backpressure: number, edit?: (a: DataAccess, n: number) => DataAccess) {
  const generatedStream = caseStream(c, { component, sets, seed, count: RECORDS, backpressure, knobs: { trace_on_rate: 0.001, trace_off_rate: 0.001 } });
  const stream = edit ? { ...generatedStream, data: { ...generatedStream.data!, accesses: generatedStream.data!.accesses.map(edit) } } : generatedStream;
  expect(stream.data?.accesses.length ?? 0).toBeGreaterThan(RECORDS / 10);
  const r = await cosimEtrace(m, c, stream.records, { seed, backpressure, data: stream.data! });
  return { r, stream };
}

/**
 * The RTL's bytes decoded by the independent data decoder give the accesses the program made, in
 * order, with what the options keep (noData: no values, noAddress: no memory addresses). Only
 * valid when nothing was lost (stall mode) and every access was traced (no dTrigEnable).
 */
function checkDecodes(c: EtraceConfig, bytes: Uint8Array, stream: ReturnType<typeof caseStream>, passes: (a: DataAccess, r: RetirementRecord) => boolean = () => true): void {
  const decoded = decodeDataStream(bytes, c.params).accesses;
  const records = stream.records;
  const traced = stream.data!.accesses.filter((a) => !records[a.at]!.halted && !records[a.at]!.reset && passes(a, records[a.at]!));
  expect(decoded.length).toBe(traced.length);
  const o = c.options;
  const csr = (dtype: number) => dtype >= 4 && dtype <= 6;
  decoded.forEach((a, i) => {
    const t = traced[i]!;
    const keepAddr = !o.noAddress || csr(t.dtype);
    const want = { dtype: t.dtype, dsize: t.dsize, daddr: keepAddr ? (csr(t.dtype) ? t.daddr & 0xfffn : t.daddr) : undefined, data: o.noData ? undefined : t.data };
    expect({ dtype: a.dtype, dsize: a.dsize, daddr: a.daddr, data: a.data }, `access ${i} of ${decoded.length}`).toEqual(want);
  });
}

/** te_data packets (message type 3) in the RTL's bytes, read from their encapsulation headers. */
function dataPacketsIn(c: EtraceConfig, bytes: Uint8Array): number {
  let n = 0;
  for (const q of splitStream(bytes, c.params)) if (q.msgType === MSG_TYPE.data) n++;
  return n;
}

describe('E-Trace data trace co-simulation: shipped components', () => {
  const RUNS = [
    { seed: 1, backpressure: 0 },
    { seed: 2, backpressure: 0.3 },
    { seed: 3, backpressure: 0.85 },
  ];
  for (const name of ['etrace-data', 'etrace-rv64-full']) {
    it.each(RUNS)(`${name}: seed $seed, back-pressure $backpressure: identical bytes`, async ({ seed, backpressure }) => {
      const c = configOf(name);
      const { r } = await run(model(name, c, () => shippedRtl(name)), c, name, [], seed, backpressure);
      expect(r.mismatch?.text).toBeUndefined();
      expect(r.actual.length).toBe(r.expected.bytes.length);
      // One byte a cycle leaves the FIFO: data trace loses packets even without back-pressure.
      expect(dataPacketsIn(c, r.actual)).toBeGreaterThan(0);
      if (backpressure >= 0.85) expect(r.expected.dropped).toBeGreaterThan(0);
    }, BUILD_TIMEOUT);
  }
});

/** Configurations of the data path beyond the shipped ones (every one in the stall mode: nothing is lost, so the RTL's bytes must decode to every access). */
const VARIANTS: { name: string; component: string; sets: string[]; decode: boolean }[] = [
  { name: 'DataCompress 3', component: 'etrace-data', sets: [], decode: true },
  { name: 'noData', component: 'etrace-data', sets: ['noData=1'], decode: true },
  { name: 'noAddress, XOR only', component: 'etrace-data', sets: ['noAddress=1', 'DataCompress=1'], decode: true },
  { name: 'differential only, 1.1.1 layout, RV32, 32-bit data', component: 'etrace-data', sets: ['payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5', 'DataCompress=2'], decode: true },
  { name: 'full values, loads and stores only, differential hardware only', component: 'etrace-data', sets: ['dtype_width_p=1', 'data_atomics_p=0', 'data_csr_p=0', 'data_compress_p=2', 'DataCompress=0'], decode: true },
  { name: 'dTrigEnable with triggers, dEnable 0 at start, source id', component: 'etrace-data', sets: ['dTrigEnable=1', 'dEnable=0', 'encap_srcid_width=12'], decode: false },
  { name: 'CSRs without atomics, XOR hardware only, rv64-full', component: 'etrace-rv64-full', sets: ['dtype_width_p=3', 'data_atomics_p=0', 'data_compress_p=1', 'DataCompress=1'], decode: true },
];

describe('E-Trace data trace co-simulation: configurations', () => {
  it.each(VARIANTS)('$name: identical bytes (stall mode, back-pressure 0.3)', async ({ name, component, sets, decode }) => {
    const all = [...sets, 'stallEnable=1'];
    const c = configOf(component, all);
    const { r, stream } = await run(hardwareModel(component, all), c, component, all, 21, 0.3);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(r.holds).toBe(r.expected.stallCycles);
    expect(dataPacketsIn(c, r.actual)).toBeGreaterThan(0);
    if (decode) checkDecodes(c, r.actual, stream);
  }, BUILD_TIMEOUT);
});

/**
 * Data filters (dFilters, etrace_data_filter): each configuration must give the model's bytes, and
 * the filters must remove some accesses and keep others. Where the filter is a plain condition on
 * an access, the RTL's bytes decode to exactly the accesses that meet it, a condition written here
 * from tables 2.4-2.6 (not through the model's filter code).
 */
const FILTER_UNITS = ['filters_p=2', 'comparators_p=2'];
/** xorshift32 for the iaddr_lsbs of the accesses (in place of the stimulus's, the instruction's own bits): every value occurs. */
function lsbsOf(seed: number, width: number): (a: DataAccess) => DataAccess {
  let x = seed >>> 0 || 1;
  return (a) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return { ...a, iaddrLsbs: x & ((1 << width) - 1) };
  };
}
const FILTERED: { name: string; sets: string[]; passes?: (a: DataAccess, r: RetirementRecord) => boolean; edit?: (a: DataAccess, n: number) => DataAccess }[] = [
  {
    name: 'privilege filter: M mode only',
    sets: [...FILTER_UNITS, 'dFilters=1', 'filter0.filterEnable=1', 'filter0.matchPrivilege=1', 'filter0.matchChoicePrivilege=8'],
    passes: (_a, r) => r.priv === 3,
  },
  {
    // Comparator 0 in P && S mode on the access address (input 3): 0x80100000 <= daddr < 0x80400000.
    // Instruction trace is filtered too (U mode, filter 0), independently.
    name: 'daddr window (comparator input 3, P && S), filter 1; iFilters on filter 0',
    sets: [
      ...FILTER_UNITS,
      'dFilters=2',
      'filter1.filterEnable=1',
      'filter1.matchComp1=1',
      'filter1.comp1=0',
      'comparator0.pInput=3',
      'comparator0.pFunction=5',
      'comparator0.pMatch=0x80100000',
      'comparator0.sInput=3',
      'comparator0.sFunction=2',
      'comparator0.sMatch=0x80400000',
      'comparator0.matchMode=1',
      'iFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchPrivilege=1',
      'filter0.matchChoicePrivilege=1',
    ],
    passes: (a) => a.dtype !== 4 && a.dtype !== 5 && a.dtype !== 6 && a.daddr >= 0x80100000n && a.daddr < 0x80400000n,
  },
  {
    // Comparator 0 latches from an access at or above 0x80400000 through one below 0x80100000;
    // comparator 1 matches instructions in the first 4 KiB whose address bits [2:1] are 0 (sMatch
    // a mask of the primary compare): those bits come from iaddr_lsbs (random here, 3 bits: the
    // instruction address is the first at or after the block start with bits [3:1] equal to them,
    // section 4.4), so they decide comparator 1. 1.1.1 layout, RV32.
    name: 'latch on daddr or masked instruction address with iaddr_lsbs and privilege, two filters, RV32 1.1.1',
    sets: [
      'payload_layout=1.1.1',
      'iaddress_width_p=32',
      'data_width_p=32',
      'ecause_width_p=5',
      'filters_p=2',
      'comparators_p=3',
      'iaddr_lsbs_width_p=3',
      'dFilters=3',
      'filter0.filterEnable=1',
      'filter0.matchComp1=1',
      'filter0.comp1=0',
      'filter1.filterEnable=1',
      'filter1.matchComp2=1',
      'filter1.comp2=1',
      'filter1.matchPrivilege=1',
      'filter1.matchChoicePrivilege=9',
      'comparator0.pInput=3',
      'comparator0.pFunction=5',
      'comparator0.pMatch=0x80400000',
      'comparator0.sInput=3',
      'comparator0.sFunction=2',
      'comparator0.sMatch=0x80100000',
      'comparator0.matchMode=3',
      'comparator1.pInput=0',
      'comparator1.pFunction=0',
      'comparator1.pMatch=0x80000000',
      'comparator1.sFunction=6',
      'comparator1.sMatch=0xfffff006',
    ],
    edit: lsbsOf(77, 3),
  },
];

describe('E-Trace data trace co-simulation: data filters', () => {
  it.each(FILTERED)('$name: identical bytes (stall mode, back-pressure 0.3), some accesses filtered out', async ({ name, sets, passes, edit }) => {
    const all = [...sets, 'stallEnable=1'];
    const c = configOf('etrace-data', all);
    const { r, stream } = await run(hardwareModel('etrace-data', all), c, 'etrace-data', all, 23, 0.3, edit);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(r.holds).toBe(r.expected.stallCycles);
    const records = stream.records;
    const reachable = stream.data!.accesses.filter((a) => !records[a.at]!.halted && !records[a.at]!.reset).length;
    const sent = dataPacketsIn(c, r.actual);
    expect(sent).toBeGreaterThan(reachable / 20);
    expect(sent).toBeLessThan(reachable - reachable / 20);
    if (passes) checkDecodes(c, r.actual, stream, passes);
  }, BUILD_TIMEOUT);
});

/**
 * Split loads: the RTL's bytes decode to the accesses and responses the program made. Each
 * response answers the load of its lrid before it; it is sent when that load was traced (and not
 * under noData); a split load's request carries no value (its response does), an atomic's its
 * operand only; under noAddress a load sends nothing but its response.
 */
function checkSplitDecodes(c: EtraceConfig, bytes: Uint8Array, stream: ReturnType<typeof caseStream>, passes: (a: DataAccess, r: RetirementRecord) => boolean = () => true): void {
  const decoded = decodeDataStream(bytes, c.params);
  const records = stream.records;
  const o = c.options;
  const csr = (dtype: number) => dtype >= 4 && dtype <= 6;
  const splitPart = (dtype: number) => dtype === 0 || dtype >= 8;
  const traced = stream.data!.accesses.filter((a) => !records[a.at]!.halted && !records[a.at]!.reset && passes(a, records[a.at]!));
  const wantAccesses = traced
    .filter((a) => !(a.dtype === 0 && o.noAddress && !o.noData))
    .map((a) => ({
      dtype: a.dtype,
      dsize: a.dsize,
      daddr: !o.noAddress || csr(a.dtype) ? (csr(a.dtype) ? a.daddr & 0xfffn : a.daddr) : undefined,
      data: o.noData || a.dtype === 0 ? undefined : a.data,
    }));
  expect(decoded.accesses.map((a) => ({ dtype: a.dtype, dsize: a.dsize, daddr: a.daddr, data: a.data }))).toEqual(wantAccesses);
  // The k-th response of an lrid answers the k-th load of that lrid.
  const loadsOf = new Map<number, DataAccess[]>();
  for (const a of stream.data!.accesses) if (splitPart(a.dtype)) loadsOf.set(a.lrid, [...(loadsOf.get(a.lrid) ?? []), a]);
  const tracedSet = new Set(traced);
  const wantResponses = o.noData
    ? []
    : stream.data!.responses
        .filter((r) => {
          const load = loadsOf.get(r.lid)!.shift()!;
          return tracedSet.has(load);
        })
        .map((r) => (r.lresp === 2 ? { lid: r.lid, lresp: 2, ldata: r.ldata } : { lid: r.lid, lresp: 3, ldata: undefined }));
  expect(decoded.responses.map((r) => ({ lid: r.lid, lresp: r.lresp, ldata: r.ldata }))).toEqual(wantResponses);
  if (!o.noData) expect(wantResponses.length).toBeGreaterThan(0);
}

const SPLIT: { name: string; sets: string[]; passes?: (a: DataAccess, r: RetirementRecord) => boolean }[] = [
  { name: 'split loads and atomics, DataCompress 3', sets: ['data_split_p=1'] },
  { name: 'split, noAddress (responses only for loads, atomic requests without address)', sets: ['data_split_p=1', 'noAddress=1'] },
  { name: 'split, noData (address-only requests, no responses)', sets: ['data_split_p=1', 'noData=1'] },
  {
    // Accesses outside M mode are filtered out: their responses must not be sent either.
    name: 'split with a privilege data filter, RV32 1.1.1, 8 load IDs, differential only',
    sets: [
      'data_split_p=1',
      'lrid_width_p=3',
      'payload_layout=1.1.1',
      'iaddress_width_p=32',
      'data_width_p=32',
      'ecause_width_p=5',
      'DataCompress=2',
      'filters_p=1',
      'dFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchPrivilege=1',
      'filter0.matchChoicePrivilege=8',
    ],
    passes: (_a, r) => r.priv === 3,
  },
];

describe('E-Trace data trace co-simulation: split loads', () => {
  it.each(SPLIT)('$name: identical bytes (stall mode, back-pressure 0.3), decoded to the program\'s accesses and responses', async ({ name, sets, passes }) => {
    const all = [...sets, 'stallEnable=1'];
    const c = configOf('etrace-data', all);
    const { r, stream } = await run(hardwareModel('etrace-data', all), c, 'etrace-data', all, 25, 0.3);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(r.holds).toBe(r.expected.stallCycles);
    expect(stream.data!.responses.length).toBeGreaterThan(RECORDS / 20);
    checkSplitDecodes(c, r.actual, stream, passes);
  }, BUILD_TIMEOUT);

  it.each([0.3, 0.85])('split without stallEnable, back-pressure %s: identical bytes, packets lost and recovered', async (backpressure) => {
    const sets = ['data_split_p=1'];
    const c = configOf('etrace-data', sets);
    const { r } = await run(hardwareModel('etrace-data', sets), c, 'etrace-data', sets, 26, backpressure);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(r.expected.dropped).toBeGreaterThan(0);
    expect(dataPacketsIn(c, r.actual)).toBeGreaterThan(0);
  }, BUILD_TIMEOUT);
});

/**
 * Multiple retirement (docs/etrace-data.md, "Multiple retirement"): blocks of two, one group a
 * cycle; and blocks of up to four in two groups a cycle, the access's group on dblock_i, with split
 * loads and a data filter on the accessing instruction's address. The stimulus gives at most one
 * access a cycle (table 4.9's interface), its record the block that holds its instruction.
 */
const BLOCKS = ['retires_p=2', 'iretire_width_p=3'];
const GROUPS = ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1', 'data_split_p=1', 'lrid_width_p=3', 'filters_p=1', 'comparators_p=1', 'iaddr_lsbs_width_p=3'];

/** The accessing instruction's address, found here from the block's address and iaddr_lsbs: the first half-word at or after it whose bits [3:1] are iaddr_lsbs. */
function accessingInstruction(a: DataAccess, r: RetirementRecord): bigint {
  let x = r.iaddr;
  while (Number((x >> 1n) & 7n) !== (a.iaddrLsbs & 7)) x += 2n;
  return x;
}

describe('E-Trace data trace co-simulation: multiple retirement', () => {
  it('blocks of two: identical bytes (stall mode, back-pressure 0.3), decoded to the program\'s accesses', async () => {
    const all = [...BLOCKS, 'stallEnable=1'];
    const c = configOf('etrace-data', all);
    const { r, stream } = await run(hardwareModel('etrace-data', all), c, 'etrace-data', all, 31, 0.3);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(stream.records.some((q) => q.iretire > 2 << q.ilastsize)).toBe(true);
    checkDecodes(c, r.actual, stream);
  }, BUILD_TIMEOUT);

  it('blocks of two without stallEnable, back-pressure 0.85: identical bytes, packets lost', async () => {
    const c = configOf('etrace-data', BLOCKS);
    const { r } = await run(hardwareModel('etrace-data', BLOCKS), c, 'etrace-data', BLOCKS, 32, 0.85);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(r.expected.dropped).toBeGreaterThan(0);
  }, BUILD_TIMEOUT);

  it('two groups a cycle, split loads: identical bytes (stall mode, back-pressure 0.3), decoded to the accesses and responses; accesses of the second group', async () => {
    const all = [...GROUPS, 'stallEnable=1'];
    const c = configOf('etrace-data', all);
    const { r, stream } = await run(hardwareModel('etrace-data', all), c, 'etrace-data', all, 36, 0.3);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(stream.data!.accesses.filter((a) => a.dblock === 1).length).toBeGreaterThan(RECORDS / 50);
    checkSplitDecodes(c, r.actual, stream);
  }, BUILD_TIMEOUT);

  it('two groups a cycle without stallEnable, back-pressure 0.85, dTrigEnable with triggers: identical bytes, packets lost', async () => {
    const sets = [...GROUPS, 'dTrigEnable=1'];
    const c = configOf('etrace-data', sets);
    const { r } = await run(hardwareModel('etrace-data', GROUPS), c, 'etrace-data', sets, 34, 0.85);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    expect(r.expected.dropped).toBeGreaterThan(0);
  }, BUILD_TIMEOUT);

  it('two groups a cycle, a data filter on the accessing instruction (address bits [2:1] zero, iaddr_lsbs of the access\'s group): identical bytes, decoded to the accesses that pass', async () => {
    const sets = [
      ...GROUPS,
      'stallEnable=1',
      'dFilters=1',
      'filter0.filterEnable=1',
      'filter0.matchComp1=1',
      'filter0.comp1=0',
      'comparator0.pInput=0',
      'comparator0.pFunction=0',
      'comparator0.pMatch=0x80000000',
      'comparator0.sFunction=6',
      'comparator0.sMatch=0xfff00006',
    ];
    const c = configOf('etrace-data', sets);
    const { r, stream } = await run(hardwareModel('etrace-data', GROUPS), c, 'etrace-data', sets, 35, 0.3);
    expect(r.mismatch?.text).toBeUndefined();
    expect(r.actual.length).toBe(r.expected.bytes.length);
    const passes = (a: DataAccess, q: RetirementRecord) => (accessingInstruction(a, q) & 0xfff00006n) === 0x80000000n;
    const records = stream.records;
    const kept = stream.data!.accesses.filter((a) => !records[a.at]!.halted && !records[a.at]!.reset && passes(a, records[a.at]!)).length;
    expect(kept).toBeGreaterThan(RECORDS / 50);
    expect(kept).toBeLessThan(stream.data!.accesses.length - RECORDS / 50);
    checkSplitDecodes(c, r.actual, stream, passes);
  }, BUILD_TIMEOUT);
});

describe('E-Trace data trace co-simulation: the comparison catches a wrong data path', () => {
  const MUTANTS: { name: string; file: string; from: string; to: string; sets?: string[]; edit?: (a: DataAccess, n: number) => DataAccess; count?: number }[] = [
    // diff of a packet with address and data: XOR data coded as differential.
    { name: 'a wrong diff code', file: 'etrace_data_encoder.sv', from: "(c_code == CodeXor) ? 2'b01 : 2'b11", to: "(c_code == CodeXor) ? 2'b11 : 2'b11" },
    // The data packet written before the cycle's te_inst packets.
    {
      name: 'data before instruction packets',
      file: 'etrace_encoder.sv',
      from: "if (st0_wr_len != '0) begin\n      w_data = w_data | ({248'd0, st0_wr_data} << {8'd0, w_len, 3'd0});\n      w_len = w_len + st0_wr_len;\n    end\n    if (pq2_post_write[0]) begin\n      w_data = w_data | ({248'd0, pq2_dat_bytes} << {8'd0, w_len, 3'd0});\n      w_len = w_len + pq2_dat_len;\n    end",
      to: "if (pq2_post_write[0]) begin\n      w_data = w_data | ({248'd0, pq2_dat_bytes} << {8'd0, w_len, 3'd0});\n      w_len = w_len + pq2_dat_len;\n    end\n    if (st0_wr_len != '0) begin\n      w_data = w_data | ({248'd0, st0_wr_data} << {8'd0, w_len, 3'd0});\n      w_len = w_len + st0_wr_len;\n    end",
    },
    // The history kept across an instruction sync.
    { name: 'no history reset at syncs', file: 'etrace_encoder.sv', from: '.sync_i          (st0_dsync),', to: ".sync_i          (1'b0)," },
    // Data filters: comparator input 3 read as the instruction qualifier reads it (zero), not daddr.
    { name: 'a data comparator blind to daddr', file: 'etrace_data_filter.sv', from: 'default: r = d;', to: "default: r = 64'd0;", sets: FILTERED[1]!.sets },
    // The accessing instruction's address without iaddr_lsbs: the block's address.
    { name: 'iaddr_lsbs ignored', file: 'etrace_data_filter.sv', from: 'assign offset   = lsbs_q - iaddr_q[3:1];', to: "assign offset   = '0;", sets: FILTERED[2]!.sets, edit: FILTERED[2]!.edit },
    // Split loads: a response's XOR code sent as differential.
    { name: 'a wrong split response code', file: 'etrace_data_encoder.sv', from: "(r_code == CodeXor) ? 2'b01 : 2'b11", to: "(r_code == CodeXor) ? 2'b11 : 2'b11", sets: ['data_split_p=1'] },
    // Split loads: the response coded against the history value before its cycle's access changed it.
    { name: 'a split response blind to its cycle\'s access', file: 'etrace_data_encoder.sv', from: '.prev_i (value_mid[r_s*Dw +: Dw]),', to: '.prev_i (value_q[r_s*Dw +: Dw]),', sets: ['data_split_p=1'] },
    // A latching data comparator that never lets go.
    { name: 'a data latch never cleared', file: 'etrace_data_filter.sv', from: 'latch_next[j] = w_latched & ~w_s;', to: 'latch_next[j] = w_latched;', sets: FILTERED[2]!.sets, edit: FILTERED[2]!.edit },
    // Two groups a cycle: the second group's syncs taken as before the first group's access.
    {
      name: 'a later group\'s sync clearing the history before the access',
      file: 'etrace_encoder.sv',
      from: "(dat_block >= 1'd1 && (st2_dsync | st3_dsync))),",
      to: "(1'b1 && (st2_dsync | st3_dsync))),",
      // A resync every 16 cycles makes such syncs common, and still about 1 in 1,500 instructions
      // has one in the second group of a cycle whose first group made an access; stallEnable
      // keeps those packets (one byte a cycle leaves, so most would be lost).
      sets: ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1', 'ResyncMode=2', 'ResyncMax=0', 'stallEnable=1'],
      count: 30_000,
    },
  ];
  it.each(MUTANTS)('$name is caught', async ({ name, file, from, to, sets = [], edit, count = 3000 }) => {
    const component = 'etrace-data';
    const c = configOf(component, sets);
    let edited = false;
    const files = generated(`mutant ${name}`, component, sets, (f, text) => {
      if (f !== file) return text;
      const out = text.replace(from, to);
      edited = out !== text;
      return out;
    });
    expect(edited).toBe(true);
    const m = buildEtraceModel(c, files);
    const generatedStream = caseStream(c, { component, sets, seed: 5, count, backpressure: 0, knobs: {} });
    const data = edit ? { ...generatedStream.data!, accesses: generatedStream.data!.accesses.map(edit) } : generatedStream.data!;
    const r = await cosimEtrace(m, c, generatedStream.records, { seed: 5, data });
    expect(r.mismatch).toBeDefined();
    expect(r.mismatch!.text).toMatch(/first difference at byte \d+/);
  }, BUILD_TIMEOUT);

  // The codings registered with the access are made from the history as the cycle leaves it; made
  // from the history before the cycle's own access, the encoder's assertion stops the run.
  it('codings registered against the history before the cycle\'s access stop the run at the assertion', async () => {
    const component = 'etrace-data';
    const c = configOf(component, []);
    const from = 'csr_data_d : value_d[dsize_i*Dw +: Dw]';
    const files = generated('mutant stale codings', component, [], (f, text) => (f === 'etrace_data_encoder.sv' ? text.replace(from, 'csr_data_d : value_q[dsize_i*Dw +: Dw]') : text));
    expect(readFileSync(files.find((f) => f.endsWith('etrace_data_encoder.sv'))!, 'utf8')).not.toContain(from);
    const m = buildEtraceModel(c, files);
    const generatedStream = caseStream(c, { component, sets: [], seed: 5, count: 3000, backpressure: 0, knobs: {} });
    await expect(cosimEtrace(m, c, generatedStream.records, { seed: 5, data: generatedStream.data! })).rejects.toThrow(/registered codings are not those of the registered access/);
  }, BUILD_TIMEOUT);
});
