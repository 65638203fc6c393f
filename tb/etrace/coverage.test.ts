/**
 * The E-Trace coverage model: every packet of the stream is seen with a reason (the packet counts
 * per format come from parsing the byte stream, an independent path), the bins a configuration
 * cannot reach are excluded with a reason, and coverage can fail: a stimulus without traps leaves
 * the trap bins uncovered and the summary names them.
 */
import { describe, expect, it } from 'vitest';
import { resolver } from '../../blocks/index.ts';
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import { addCase, blockCoverage, coverageSummary, emptyCoverage } from '../../core/coverage.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { caseStream } from './case.ts';
import { etraceCoverageHits, etraceCoverageSpace, significantBits } from './coverage.ts';

const resolve = resolver('test');
const etrace = (component: string, sets: string[] = []) => resolve(component, sets) as ResolvedComponent<EtraceConfig>;

/** Hits summed by packet kind: `pkt:F3.1:trap` -> F3.1; F0.0 and F0.0-noaddr are both F0 SF0, F1-full is F1. */
function packetsByKind(hits: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [bin, n] of Object.entries(hits)) {
    const m = /^pkt:([^:]+):/.exec(bin);
    if (!m) continue;
    const kind = m[1]!.replace('-noaddr', '').replace('-full', '');
    out[kind] = (out[kind] ?? 0) + n;
  }
  return out;
}

/** The codec's parse of the case's byte stream (an independent path): packets per kind. */
function streamRows(r: ResolvedComponent<EtraceConfig>, spec: CaseSpec): readonly { readonly kind: string; readonly count: number }[] {
  const ready = (cycle: number): boolean => !cycleChance(spec.seed, cycle, spec.backpressure);
  const { records, data } = caseStream(r.config, spec);
  const e = encodeStream(records, r.config, { ready, ...(data ? { data } : {}) });
  return r.block.codec!.stats(e.bytes, r.config).rows;
}

/** Packets per kind in the byte stream (`F3.SF1 trap` -> F3.1, `F0.SF0 ...` -> F0.0). */
function streamPackets(r: ResolvedComponent<EtraceConfig>, spec: CaseSpec): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of streamRows(r, spec)) {
    const head = row.kind.split(' ')[0]!;
    if (/^D\d/.test(head)) continue; // te_data packets: dataPacketsByFormat
    const m = /^F(\d)(?:\.SF(\d))?$/.exec(head);
    expect(m, `a packet kind of the stream: ${row.kind}`).not.toBeNull();
    const kind = m![2] === undefined ? `F${m![1]}` : `F${m![1]}.${m![2]}`;
    out[kind] = (out[kind] ?? 0) + row.count;
  }
  return out;
}

/** The te_data format (chapter 7) of each data packet kind: loads and stores 0-3, split load data 4, CSR 5, atomics 6, split atomic data 7. */
const DATA_KIND_FORMAT: Record<string, string> = {
  ls: '0-3',
  'ls-addr': '0-3',
  'ls-data': '0-3',
  'load-req': '0-3',
  'load-resp': '4',
  csr: '5',
  'csr-addr': '5',
  amo: '6',
  'amo-addr': '6',
  'amo-data': '6',
  'amo-req': '6',
  'amo-req-noaddr': '6',
  'amo-resp': '7',
};

/** `data:pkt:<kind>` hits summed by te_data format. */
function dataHitsByFormat(hits: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [bin, n] of Object.entries(hits)) {
    const m = /^data:pkt:(.+)$/.exec(bin);
    if (!m) continue;
    const f = DATA_KIND_FORMAT[m[1]!];
    expect(f, `a data packet kind: ${m[1]}`).toBeDefined();
    out[f!] = (out[f!] ?? 0) + n;
  }
  return out;
}

/** te_data packets in the byte stream by format (`D5 ...` -> 5, D0..D3 together). */
function dataStreamByFormat(r: ResolvedComponent<EtraceConfig>, spec: CaseSpec): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of streamRows(r, spec)) {
    const m = /^D(\d)\b/.exec(row.kind);
    if (!m) continue;
    const f = Number(m[1]) <= 3 ? '0-3' : m[1]!;
    out[f] = (out[f] ?? 0) + row.count;
  }
  return out;
}

describe('E-Trace functional coverage', () => {
  for (const [sets, backpressure, knobs, count] of [
    [[], 0.3, { w_amo: 4 }, undefined],
    [['data_split_p=1', 'lrid_width_p=3'], 0, { w_amo: 4 }, undefined],
    [['noData=1'], 0, {}, undefined],
    // Heavy back-pressure loses most data packets (a pipelined FIFO takes one only when its
    // largest size is free): a longer run keeps enough of them to compare.
    [['noAddress=1', 'DataCompress=1'], 0.6, {}, 18000],
  ] as const) {
    it(`sees every te_data packet with its decisions (etrace-data ${sets.join(' ') || 'as shipped'}, back-pressure ${backpressure})`, () => {
      const r = etrace('etrace-data', [...sets]);
      const spec: CaseSpec = { component: 'etrace-data', sets: [...sets], seed: 5, count: count ?? 6000, backpressure, knobs };
      const hits = etraceCoverageHits(r.config, spec);
      const stream = dataStreamByFormat(r, spec);
      expect(Object.values(stream).reduce((a, b) => a + b, 0)).toBeGreaterThan(30);
      expect(dataHitsByFormat(hits)).toEqual(stream);
      const space = etraceCoverageSpace(r.config);
      expect(Object.keys(hits).filter((b) => !space.bins.includes(b))).toEqual([]);
      // No excluded bin is hit: the exclusions' reasons hold for the model.
      expect(Object.keys(hits).filter((b) => space.excluded[b] !== undefined)).toEqual([]);
    });
  }

  it('data trace bins: what the options exclude, and that the values are compressed', () => {
    const noData = etraceCoverageSpace(etrace('etrace-data', ['noData=1']).config);
    expect(noData.excluded['data:pkt:ls']).toMatch(/noData/);
    expect(noData.excluded['data:pkt:ls-addr']).toBeUndefined();
    expect(noData.excluded['data:value:xor']).toMatch(/noData/);
    const unified = etraceCoverageSpace(etrace('etrace-data').config);
    expect(unified.excluded['data:pkt:load-req']).toMatch(/data_split_p 0/);
    expect(unified.excluded['data:resp:okay']).toMatch(/data_split_p 0/);
    expect(unified.bins).toContain('data:value:diff');
    // The shipped component compresses (DataCompress 3): a long case sends values of each code
    // (with stallEnable, so that no packet is lost: without it data trace overflows the FIFO).
    const stall = ['stallEnable=1'];
    const hits = etraceCoverageHits(etrace('etrace-data', stall).config, { component: 'etrace-data', sets: stall, seed: 2, count: 6000, backpressure: 0, knobs: { w_amo: 4 } });
    expect(hits['data:lost']).toBeUndefined();
    for (const bin of ['data:value:sync', 'data:value:xor', 'data:value:diff', 'data:address:differential', 'data:pkt:csr', 'data:pkt:amo']) expect(hits[bin], bin).toBeGreaterThan(0);
    // The instruction-trace space has no data bins.
    expect(etraceCoverageSpace(etrace('etrace').config).bins.filter((b) => b.startsWith('data:'))).toEqual([]);
  });

  for (const [component, backpressure] of [
    ['etrace', 0],
    ['etrace-2.0', 0.6],
    ['etrace-rv64-full', 0.3],
  ] as const) {
    it(`sees every packet of the stream with a reason (${component}, back-pressure ${backpressure})`, () => {
      const r = etrace(component);
      const spec: CaseSpec = { component, sets: [], seed: 11, count: 8000, backpressure };
      const hits = etraceCoverageHits(r.config, spec);
      const stream = streamPackets(r, spec);
      expect(Object.values(stream).reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
      expect(packetsByKind(hits)).toEqual(stream);
      // Every hit is a bin of the configuration's space.
      const space = etraceCoverageSpace(r.config);
      expect(Object.keys(hits).filter((b) => !space.bins.includes(b))).toEqual([]);
    });
  }

  it('counts an address field\'s significant bits as sign compression leaves them', () => {
    // Two's complement in 31 bits: the bits that repeat the MSB are dropped, one sign bit stays.
    expect(significantBits(0n, 31)).toBe(1);
    expect(significantBits(1n, 31)).toBe(2);
    expect(significantBits(0x7fn, 31)).toBe(8);
    expect(significantBits((1n << 31n) - 1n, 31)).toBe(1); // -1
    expect(significantBits((1n << 31n) - 2n, 31)).toBe(2); // -2
    expect(significantBits(1n << 30n, 31)).toBe(31); // the most negative value
    expect(significantBits((1n << 30n) - 1n, 31)).toBe(31); // the most positive value
  });

  it('excludes what a configuration cannot reach, with the reason', () => {
    const off = etraceCoverageSpace(etrace('etrace', ['BranchPrediction=0', 'JumpTargetCache=0']).config);
    expect(off.excluded['pkt:F0.1:updiscon']).toMatch(/JumpTargetCache is off/);
    expect(off.excluded['predictor:fmt:no-addr']).toMatch(/BranchPrediction is off/);
    expect(off.excluded['fifo:stall']).toMatch(/stallEnable is off/);
    // The RTL holds a session's options: a write mid-session is never the model's option change.
    expect(off.excluded['pkt:F3.3:option-change']).toMatch(/samples the run-time options when a trace session starts/);
    const stall = etraceCoverageSpace(etrace('etrace', ['stallEnable=1']).config);
    expect(stall.excluded['fifo:loss']).toMatch(/stallEnable/);
    expect(stall.excluded['fifo:stall']).toBeUndefined();
    const v111 = etraceCoverageSpace(etrace('etrace').config);
    // The shipped etrace component is the 1.1.1 payload: no thaddr.
    expect(v111.excluded['thaddr:0']).toMatch(/1\.1\.1/);
    expect(etraceCoverageSpace(etrace('etrace-2.0').config).excluded['thaddr:0']).toBeUndefined();
  });

  it('serial views: the hart held for later views is a bin of its own, not a FIFO stall', () => {
    const sets = ['retires_p=2', 'taken_branches_p=2', 'serial_views_p=1'];
    const serial = etrace('etrace', sets);
    expect(etraceCoverageSpace(serial.config).excluded['hart:view-hold']).toBeUndefined();
    const hits = etraceCoverageHits(serial.config, { component: 'etrace', sets, seed: 3, count: 4000, backpressure: 0, knobs: {} });
    expect(hits['hart:view-hold']).toBeGreaterThan(0);
    expect(hits['fifo:stall']).toBeUndefined();
    expect(etraceCoverageSpace(etrace('etrace').config).excluded['hart:view-hold']).toMatch(/serial_views_p is 0/);
  });

  it('qualification: trace-off triggers disable tracing only with iTrigEnable (table 2.1)', () => {
    const knobs = { trace_off_rate: 0.01, trace_on_rate: 0.01 };
    const on = etrace('etrace', ['iTrigEnable=1']);
    const hits = etraceCoverageHits(on.config, { component: 'etrace', sets: ['iTrigEnable=1'], seed: 4, count: 8000, backpressure: 0, knobs });
    expect(hits['trigger:trace-off']).toBeGreaterThan(0);
    expect(hits['qualify:disabled']).toBeGreaterThan(0);
    expect(etraceCoverageSpace(on.config).excluded['qualify:disabled']).toBeUndefined();
    const off = etrace('etrace');
    const ignored = etraceCoverageHits(off.config, { component: 'etrace', sets: [], seed: 4, count: 8000, backpressure: 0, knobs });
    expect(ignored['qualify:disabled']).toBeUndefined();
    expect(ignored['trigger:trace-off']).toBeUndefined();
    expect(ignored['qualify:qualified']).toBeGreaterThan(1000);
    expect(etraceCoverageSpace(off.config).excluded['qualify:disabled']).toMatch(/iTrigEnable off/);
  });

  it('a stimulus without traps leaves the trap bins uncovered, and the summary names them', () => {
    const r = etrace('etrace-2.0');
    const space = etraceCoverageSpace(r.config);
    const noTraps = { interrupt_rate: 0, nested_interrupt_rate: 0, fault_rate: 0, w_ecall: 0, w_ebreak: 0, w_illegal: 0 };
    const trapBins = ['pkt:F3.1:trap', 'thaddr:1'];
    const run = (knobs: CaseSpec['knobs']) => {
      const cov = emptyCoverage();
      for (const seed of [1, 2]) {
        const spec: CaseSpec = { component: 'etrace-2.0', sets: [], seed, count: 10000, backpressure: 0, ...(knobs ? { knobs } : {}) };
        addCase(cov, { block: 'etrace', component: spec.component, sets: [] }, space, etraceCoverageHits(r.config, spec));
      }
      return cov;
    };
    const withTraps = blockCoverage(run(undefined))[0]!;
    for (const b of trapBins) expect(withTraps.uncovered).not.toContain(b);
    const without = run(noTraps);
    const b = blockCoverage(without)[0]!;
    for (const bin of trapBins) expect(b.uncovered).toContain(bin);
    expect(b.covered).toBeLessThan(withTraps.covered);
    const summary = coverageSummary(without);
    expect(summary).toMatch(/^coverage etrace \(functional\): \d+\/\d+ bins/);
    for (const bin of trapBins) expect(summary).toContain(bin);
  });
});

/**
 * The stimulus knobs the fuzzer draws to reach the rare bins (issue 23): with each knob the bins it
 * is for are hit, without it (same seeds) they are not. The expected bins follow from where the
 * knob puts the code and from the spec, not from the coverage code: an F0/F1/F2 address field is
 * iaddress_width_p - iaddress_lsb_p = 63 bits (RV64) or 31 bits (RV32) wide and sent as the
 * address, or its difference from the last one, shifted right by 1.
 */
describe('E-Trace coverage: the rare bins with the knobs that reach them', () => {
  /** The bins matching `re` that any of seeds 1..n hit (count 10,000). */
  const reached = (component: string, sets: string[], knobs: CaseSpec['knobs'], re: RegExp, seeds = 4): string[] => {
    const r = etrace(component, sets);
    const out = new Set<string>();
    for (let seed = 1; seed <= seeds; seed++) {
      const hits = etraceCoverageHits(r.config, { component, sets, seed, count: 10_000, backpressure: 0, ...(knobs ? { knobs } : {}) });
      for (const [b, n] of Object.entries(hits)) if (n > 0 && re.test(b)) out.add(b);
    }
    return [...out].sort();
  };
  const addressBins = /^address:/;

  it('placement sv48/sv57: jumps between the ROM at 0x1000 and code at -2^47 / -2^56 need 48 / 57 significant bits', () => {
    // (-2^47 - 0x1000) >> 1 is about -2^46: 47 bits and a sign bit; -2^56 >> 1 = -2^55: 56 and a sign bit.
    expect(reached('etrace', [], { placement: 'sv48' }, addressBins)).toContain('address:differential:bits33-48');
    expect(reached('etrace', [], { placement: 'sv57' }, addressBins)).toContain('address:differential:bits49-64');
    expect(reached('etrace', ['FullAddress=1'], { placement: 'sv48' }, addressBins)).toContain('address:full:bits33-48');
    expect(reached('etrace', ['FullAddress=1'], { placement: 'sv57' }, addressBins)).toContain('address:full:bits49-64');
    // At the default addresses (0x1000, 0x80000000) none of them.
    const plain = [...reached('etrace', [], undefined, addressBins), ...reached('etrace', ['FullAddress=1'], undefined, addressBins)];
    for (const b of ['address:differential:bits33-48', 'address:differential:bits49-64', 'address:full:bits33-48', 'address:full:bits49-64']) expect(plain).not.toContain(b);
  });

  it('placement low: code at 0 (full addresses below 2^8), the ROM at 1 MiB (2^19 after the shift: bits 17-24), on RV64 and RV32', () => {
    for (const component of ['etrace', 'etrace-rv32-mcu']) {
      const full = reached(component, ['FullAddress=1'], { placement: 'low' }, addressBins);
      expect(full, component).toEqual(expect.arrayContaining(['address:full:bits1-8', 'address:full:bits17-24']));
      expect(reached(component, [], { placement: 'low' }, addressBins), component).toContain('address:differential:bits17-24');
      const plain = [...reached(component, ['FullAddress=1'], undefined, addressBins), ...reached(component, [], undefined, addressBins)];
      for (const b of ['address:full:bits1-8', 'address:full:bits17-24', 'address:differential:bits17-24']) expect(plain, component).not.toContain(b);
    }
  });

  it('w_call_run: 256 implicit returns between two branches report irets 255, the largest (Implicit Return extension)', () => {
    const sets = ['ResyncMode=0'];
    expect(reached('etrace-rv64-full', sets, { w_call_run: 3, interrupt_rate: 0.0005 }, /^ir-value:/)).toContain('ir-value:max');
    expect(reached('etrace-rv64-full', sets, { interrupt_rate: 0.0005 }, /^ir-value:/)).not.toContain('ir-value:max');
  });

  it('w_checks: 31 correct predictions before a jump, a retired trap and an xRET: F0 SF0 with an address for each', () => {
    const want = ['pkt:F0.0:next-privilege-change', 'pkt:F0.0:trap', 'pkt:F0.0:updiscon'];
    const f00 = /^pkt:F0\.0:/;
    expect(reached('etrace-rv64-full', [], { w_checks: 3, w_ecall: 10 }, f00)).toEqual(expect.arrayContaining(want));
    const plain = reached('etrace-rv64-full', [], { w_ecall: 10 }, f00);
    for (const b of want) expect(plain).not.toContain(b);
  });

  it('w_checks in a quiet case: loops of checks give more than 1,024 correct predictions in a row (F0 SF0 branch_count 1024+)', () => {
    const quiet = { interrupt_rate: 0.00005, fault_rate: 0.00005 };
    expect(reached('etrace-rv64-full', [], { ...quiet, w_checks: 3 }, /^predictor:count:/)).toContain('predictor:count:1024+');
    expect(reached('etrace-rv64-full', [], quiet, /^predictor:count:/)).not.toContain('predictor:count:1024+');
  });

  it('pkt:F2:resync-branches is excluded: resync_br sends the waiting branches (format 1 or 0), section 8.2', () => {
    for (const component of ['etrace', 'etrace-rv64-full']) {
      expect(etraceCoverageSpace(etrace(component).config).excluded['pkt:F2:resync-branches']).toMatch(/section 8\.2/);
      expect(etraceCoverageSpace(etrace(component).config).excluded['pkt:F1:resync-branches']).toBeUndefined();
    }
  });
});
