/**
 * check.ts: the tandem check on small hand-made runs, encoded with the tvtrace model (or typed as
 * bytes where a core would differ from it): what matches, what diverges and how it is named.
 */
import { describe, expect, it } from 'vitest';
import { encodeTvRecords } from '../../golden-model/tvtrace/encoder.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { defaultTvtraceConfig } from '../../golden-model/tvtrace/settings.ts';
import { decodeTv, parseTv } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { checkTv, formatDivergence, recordOfGroup, type TvCheckOptions } from './check.ts';

const ENTRY = 0x8000_0000n;
const RUN: TvRecord[] = [
  { kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0050_0513 }, gpr: { reg: 10, value: 5n } }, // addi a0, zero, 5
  { kind: 'instruction', nextPc: 0x8000_0008n, instr: { size: 32, bits: 0x00a5_b023 }, eaddr: 0x8000_1000n, paddr: 0x8000_1000n, storeData: { bytes: 8, value: 5n } }, // sd a0, 0(a1)
  { kind: 'instruction', nextPc: 0x8000_000cn, instr: { size: 32, bits: 0x02b5_70d3 }, fpr: { reg: 1, value: 0x4010_0000_0000_0000n }, csrs: [{ csr: 1, value: 0n }, { csr: 0x300, value: 0x8000_000a_0000_6000n }] }, // fadd.d
  { kind: 'trap', nextPc: 0x8000_0100n, instr: { size: 32, bits: 0x0000_0073 }, priv: 3, status: 0x8000_000a_0000_6000n, cause: 11n, epc: 0x8000_000cn, tval: 0n },
  { kind: 'instruction', nextPc: 0x8000_0104n, instr: { size: 32, bits: 0x3420_2f73 }, gpr: { reg: 30, value: 11n } }, // csrr t5, mcause
  { kind: 'xret', nextPc: 0x8000_0010n, instr: { size: 32, bits: 0x3020_0073 }, priv: 3, mstatus: 0x8000_000a_0000_6080n },
  { kind: 'interrupt', nextPc: 0x8000_0100n, priv: 3, status: 0x8000_000a_0000_7800n, cause: 0x8000_0000_0000_0007n, epc: 0x8000_0010n, tval: 0n },
];
const PCS = [ENTRY, 0x8000_0004n, 0x8000_0008n, 0x8000_000cn, 0x8000_0100n, 0x8000_0104n, 0x8000_0010n];
const CONFIG = defaultTvtraceConfig();
const OPTS: TvCheckOptions = { params: { xlen: 64, flen: 64, mlen: 64 }, entry: ENTRY };
const bytesOf = (records: readonly TvRecord[], order: 'bluespec' | 'seed' = 'bluespec'): Uint8Array => encodeTvRecords(records, { ...CONFIG, fieldOrder: order }, order === 'seed' ? { pc: ENTRY } : {});
const check = (records: readonly TvRecord[], opts: Partial<TvCheckOptions> = {}) => checkTv(bytesOf(records), RUN, PCS, { ...OPTS, ...opts });
const fields = (r: ReturnType<typeof checkTv>): string[] => r.divergence?.diffs.map((d) => d.field) ?? [];

describe('checkTv', () => {
  it.each(['bluespec', 'seed'] as const)('the run encoded in the %s field order matches itself and decodes back to the records', (order) => {
    const bytes = bytesOf(RUN, order);
    expect(checkTv(bytes, RUN, PCS, OPTS)).toMatchObject({ ok: true, matched: RUN.length });
    const back = decodeTv(bytes, OPTS.params, { pc: ENTRY }).groups.map((g) => recordOfGroup(g));
    expect(back).toEqual(RUN);
  });

  it('names a wrong register value, with expected and actual', () => {
    const r = check([{ ...RUN[0]!, gpr: { reg: 10, value: 6n } } as TvRecord, ...RUN.slice(1)]);
    expect(r.ok).toBe(false);
    expect(r.divergence).toMatchObject({ index: 0, pc: ENTRY, diffs: [{ field: 'a0', expected: '0x5', actual: '0x6' }] });
    const text = formatDivergence(r.divergence!, 64, 'core.tv').join('\n');
    expect(text).toContain('first divergence at group 0 (core.tv byte offset 0x0): pc 0x80000000: addi a0, zero, 5');
    expect(text).toContain('a0: expected 0x5, actual 0x6');
  });

  it('compares registers as state: an unchanged register reported or left out agrees, a missed change does not', () => {
    // Leaving out the mstatus the fadd.d reports: fine only if mstatus had that value before.
    const noMstatus = RUN.map((x, i) => (i === 2 ? { ...x, csrs: [{ csr: 1, value: 0n }] } : x)) as TvRecord[];
    expect(fields(check(noMstatus))).toEqual(['mstatus']);
    // Reporting an extra register with its unchanged value: fine.
    const extra = RUN.map((x, i) => (i === 4 ? { ...x, csrs: [{ csr: 0x300, value: 0x8000_000a_0000_6000n }] } : x)) as TvRecord[];
    expect(check(extra).ok).toBe(true);
    // ...but a changed one is a divergence.
    const wrong = RUN.map((x, i) => (i === 4 ? { ...x, csrs: [{ csr: 0x300, value: 0x1234n }] } : x)) as TvRecord[];
    expect(fields(check(wrong))).toEqual(['mstatus']);
  });

  it('fflags, frm and fcsr are one register: an fcsr write covers an expected fflags write', () => {
    const viaFcsr = RUN.map((x, i) => (i === 2 ? { ...x, csrs: [{ csr: 3, value: 0n }, { csr: 0x300, value: 0x8000_000a_0000_6000n }] } : x)) as TvRecord[];
    // fcsr = 0 says frm = 0 too, which nothing before established: only fflags is agreed.
    expect(fields(check(viaFcsr))).toEqual(['frm', 'fcsr']);
    // With fcsr known before (crt0 clears it), the fcsr write agrees with the expected fflags write.
    const known: TvRecord = { kind: 'instruction', nextPc: ENTRY, instr: { size: 32, bits: 0x0030_1073 }, csrs: [{ csr: 3, value: 0n }] };
    const run2 = [known, ...RUN];
    const pcs2 = [ENTRY, ...PCS];
    const viaFcsr2 = [known, ...viaFcsr];
    expect(checkTv(encodeTvRecords(viaFcsr2, CONFIG), run2, pcs2, OPTS).ok).toBe(true);
    const r = checkTv(bytesOf(viaFcsr), RUN, PCS, OPTS);
    expect(r.divergence!.diffs[0]).toMatchObject({ expected: 'not written (value unknown)', actual: '0x0' });
  });

  it('names a changed store address, missing and unexpected memory fields; --absent tolerates a field never traced', () => {
    expect(fields(check(RUN.map((x, i) => (i === 1 ? { ...x, eaddr: 0x8000_1008n } : x)) as TvRecord[]))).toEqual(['eaddr']);
    const noPaddr = RUN.map((x) => (x.kind === 'instruction' ? { ...x, paddr: undefined } : x)) as TvRecord[];
    expect(fields(check(noPaddr))).toEqual(['paddr']);
    expect(check(noPaddr, { absent: ['paddr'] }).ok).toBe(true);
    expect(fields(check(RUN.map((x, i) => (i === 0 ? { ...x, eaddr: 0x10n } : x)) as TvRecord[]))).toEqual(['eaddr']);
    expect(fields(check(RUN.map((x, i) => (i === 1 ? { ...x, storeData: { bytes: 4, value: 5n } } : x)) as TvRecord[]))).toEqual(['store-data']);
  });

  it('a removed trap group: the next group is an instruction where a trap was due', () => {
    const r = check(RUN.filter((_, i) => i !== 3));
    expect(r.divergence?.index).toBe(3);
    expect(fields(r)).toContain('kind');
    expect(r.divergence!.diffs[0]).toEqual({ field: 'kind', expected: 'trap', actual: 'instruction' });
    expect(r.divergence!.preceding.map((p) => p.index)).toEqual([0, 1, 2]);
  });

  it('an instruction word changed, a wrong next pc, a wrong privilege', () => {
    expect(fields(check(RUN.map((x, i) => (i === 4 ? { ...x, instr: { size: 32, bits: 0x3410_2f73 } } : x)) as TvRecord[]))).toEqual(['instr']);
    expect(fields(check(RUN.map((x, i) => (i === 0 ? { ...x, nextPc: 0x8000_0008n } : x)) as TvRecord[]))[0]).toBe('pc');
    expect(fields(check(RUN.map((x, i) => (i === 5 ? { ...x, priv: 0 } : x)) as TvRecord[]))).toEqual(['priv']);
  });

  it('a stream that ends early, or goes on, diverges; --prefix accepts the first case', () => {
    const short = check(RUN.slice(0, 4));
    expect(short.divergence).toMatchObject({ index: 4, diffs: [{ field: 'group', actual: 'none: the stream ends after 4 groups' }] });
    expect(check(RUN.slice(0, 4), { prefix: true })).toMatchObject({ ok: true, matched: 4 });
    expect(check([...RUN, RUN[0]!]).divergence).toMatchObject({ index: RUN.length, diffs: [{ field: 'group' }] });
  });

  it('skips a loader before the first instruction and state outside groups; a bad byte ends in a decode error', () => {
    const reset = Uint8Array.of(0x01, 0x0a, 0x02);
    const mtime = Uint8Array.of(0x07, 0x08, 1, 0, 0, 0, 0, 0, 0, 0);
    const body = bytesOf(RUN);
    const firstEnd = parseTv(body, OPTS.params).groups[0]!.end! + 1;
    const withExtras = new Uint8Array([...reset, ...body.subarray(0, firstEnd), ...mtime, ...body.subarray(firstEnd)]);
    expect(checkTv(withExtras, RUN, PCS, OPTS)).toMatchObject({ ok: true, skipped: 2 });
    // A reset after the first instruction is a divergence.
    const lateReset = new Uint8Array([...body.subarray(0, firstEnd), ...reset, ...body.subarray(firstEnd)]);
    expect(checkTv(lateReset, RUN, PCS, OPTS).divergence?.diffs[0]).toMatchObject({ field: 'kind', expected: 'instruction', actual: 'reset' });
    const broken = new Uint8Array([...body.subarray(0, firstEnd), 0x01, 0x77]);
    const r = checkTv(broken, RUN, PCS, OPTS);
    expect(r.ok).toBe(false);
    expect(r.decodeError?.message).toMatch(/unknown opcode 0x77/);
    expect(r.matched).toBe(1);
  });

  it('an incremental OR on fcsr (the seed order) is resolved from the agreed state', () => {
    const recs: TvRecord[] = [
      { kind: 'instruction', nextPc: ENTRY + 4n, instr: { size: 32, bits: 0x0030_1073 }, csrs: [{ csr: 3, value: 0n }] }, // fscsr zero
      { kind: 'instruction', nextPc: ENTRY + 8n, instr: { size: 32, bits: 0x1ab5_7653 }, fpr: { reg: 12, value: 0x3fd5_5555_5555_5555n }, fcsr: 1n },
    ];
    const seed = encodeTvRecords(recs, { ...CONFIG, fieldOrder: 'seed' });
    expect([...seed]).toContain(0x06); // opcode 6 (OR)
    expect(checkTv(seed, recs, [ENTRY, ENTRY + 4n], OPTS).ok).toBe(true);
    const wrong = recs.map((x, i) => (i === 1 ? { ...x, fcsr: 3n } : x)) as TvRecord[];
    expect(fields(checkTv(encodeTvRecords(wrong, { ...CONFIG, fieldOrder: 'seed' }), recs, [ENTRY, ENTRY + 4n], OPTS))).toEqual(['fflags', 'fcsr']);
  });
});
