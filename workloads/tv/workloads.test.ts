/**
 * Issue 20, items 4 and 5, on the workload suite: each program's tandem-verification form (derived
 * from QEMU's CPU-state log) encoded with the tvtrace model in both field orders decodes, through
 * the independent decoder, back to the same records, and the tandem check passes on it; the check
 * fails, naming the field, on corrupted streams (a register value, a store address, a trap group
 * removed, an instruction word). Three workloads by default (traps on both arches: exceptions,
 * interrupts, privilege changes; matrix on RV64GC: floating point); RVTRACE_TV_ALL=1 runs all
 * eighteen. The seed field order is checked on the first 20 000 records, the corruptions on a
 * stream cut a few groups after them (the check of a prefix: --prefix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTvRecords } from '../../golden-model/tvtrace/encoder.ts';
import { encodeTextRecords } from '../../golden-model/tvtrace/formats/text.ts';
import { defaultTvtraceConfig, type TvtraceConfig } from '../../golden-model/tvtrace/settings.ts';
import { decodeTv, parseTv, type TvParams, type TvRebuild } from '../../golden-model/tvtrace-decoder/decoder.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { regName } from '../../golden-model/tvtrace-decoder/names.ts';
import { buildWorkload, WORKLOAD_ARCHES, WORKLOADS, type WorkloadArch } from '../build.ts';
import { checkDecoded, checkTv, recordOfGroup, recordPcs } from './check.ts';
import { toolsAvailable } from './test-fixtures/build.ts';
import { traceProgramTv, workloadQemuCpu, type TvTrace } from './trace.ts';

const ALL = process.env.RVTRACE_TV_ALL === '1';
const CASES: [string, WorkloadArch][] = ALL
  ? WORKLOAD_ARCHES.flatMap((a) => WORKLOADS.map((w) => [w.name, a] as [string, WorkloadArch]))
  : [
      ['traps', 'rv64gc'],
      ['traps', 'rv32imc'],
      ['matrix', 'rv64gc'],
    ];

/** The tvtrace configuration of each arch (the components tvtrace and tvtrace-rv32imc). */
const CONFIG: Record<WorkloadArch, TvtraceConfig> = {
  rv64gc: defaultTvtraceConfig(),
  rv32imc: defaultTvtraceConfig({ xlen: 32, flen: 0, mlen: 32 }),
};
const params = (c: TvtraceConfig): TvParams => ({ xlen: c.xlen, flen: c.flen, mlen: c.mlen });

describe.skipIf(!toolsAvailable()).each(CASES)('%s %s', (name, arch) => {
  const config = CONFIG[arch];
  let t: TvTrace;
  let pcs: bigint[];
  let bytes: Uint8Array;
  beforeAll(async () => {
    // The timeout covers QEMU and the derivation (side by side): generous for a loaded machine.
    t = await traceProgramTv(buildWorkload(name, arch), { cpu: workloadQemuCpu(arch), flen: config.flen === 0 ? 0 : 64, fpu: config.flen !== 0, timeoutSeconds: 600 });
    pcs = recordPcs(t.records, t.elf.entry);
    bytes = encodeTvRecords(t.records, config);
  }, 900_000);
  // Eighteen runs in one worker: let each one's records go before the next.
  afterAll(() => {
    t = undefined as unknown as TvTrace;
    pcs = [];
    bytes = new Uint8Array(0);
  });

  it('is derived in full: every instruction QEMU ran, with its pc', () => {
    expect(t.records.length).toBeGreaterThan(150_000);
    expect(t.pcs).toEqual(pcs);
    expect(t.stats.truncated).toBe(false);
    if (name === 'traps') expect(t.stats.traps + t.stats.interrupts).toBeGreaterThan(900);
    if (name === 'matrix' && arch === 'rv64gc') expect(t.stats.fpInstructions).toBeGreaterThan(1000);
  });

  /** The decoded groups as records equal `records` (compared as text: fast on 400 000 records). */
  const sameRecords = (d: TvRebuild, records: readonly TvRecord[]): void => {
    expect(d.error).toBeUndefined();
    expect(d.groups.length).toBe(records.length);
    const back = d.groups.map((g) => recordOfGroup(g));
    const bad = back.findIndex((r) => typeof r === 'string');
    expect(bad, `group ${bad}: ${String(back[bad])}`).toBe(-1);
    const want = encodeTextRecords(records).split('\n');
    const got = encodeTextRecords(back as TvRecord[]).split('\n');
    const first = want.findIndex((l, i) => l !== got[i]);
    expect(first === -1 ? '' : `record ${first - 1}: ${got[first]} instead of ${want[first]}`).toBe('');
  };

  it('bluespec order (the whole run): decodes back to the same records and passes the tandem check', () => {
    const decoded = decodeTv(bytes, params(config), { pc: t.elf.entry, priv: 3 });
    sameRecords(decoded, t.records);
    const r = checkDecoded(decoded, t.records, pcs, { params: params(config), entry: t.elf.entry });
    expect(r.divergence).toBeUndefined();
    expect(r).toMatchObject({ ok: true, matched: t.records.length });
  });

  it('seed order (opcode 3, the first 20 000 records): decodes back and passes the tandem check', () => {
    const some = t.records.slice(0, 20_000);
    const enc = encodeTvRecords(some, { ...config, fieldOrder: 'seed' });
    expect(enc.length).toBeLessThan(encodeTvRecords(some, config).length);
    sameRecords(decodeTv(enc, params(config), { pc: t.elf.entry }), some);
    expect(checkTv(enc, some, pcs, { params: params(config), entry: t.elf.entry })).toMatchObject({ ok: true, matched: some.length });
  });

  describe('corrupted streams fail, naming the field', () => {
    /** The groups of the stream's first 400 KB (byte ranges and items). */
    let groups: ReturnType<typeof parseTv>['groups'];
    beforeAll(() => {
      groups = parseTv(bytes.subarray(0, 400_000), params(config)).groups;
    });
    afterAll(() => {
      groups = [];
    });
    /** Checks `corrupt` cut a few groups after `index` (--prefix): the divergence must be at `index`. */
    const checkCut = (corrupt: Uint8Array, index: number, shift = 0) => {
      const end = groups[index + 4]!.end! + 1 - shift;
      const r = checkTv(corrupt.subarray(0, end), t.records, pcs, { params: params(config), entry: t.elf.entry, prefix: true });
      expect(r.ok).toBe(false);
      expect(r.divergence?.index).toBe(index);
      return r.divergence!;
    };
    /** Corruptions go after the start-up code (.bss clearing), where the program runs. */
    const middle = (): number => 2000;

    it('a register value changed', () => {
      const k = groups.findIndex((g, i) => i > middle() && g.items.some((it) => it.kind === 'fullReg' && it.regno > 0x1000 && it.regno < 0x1020));
      const item = groups[k]!.items.find((it) => it.kind === 'fullReg' && it.regno > 0x1000 && it.regno < 0x1020)!;
      const corrupt = bytes.slice();
      corrupt[item.offset + 3]! ^= 0x01;
      const d = checkCut(corrupt, k);
      expect(d.diffs).toHaveLength(1);
      expect(d.diffs[0]!.field).toBe(regName((item as { regno: number }).regno));
    });

    it('a store address changed', () => {
      const isStore = (g: (typeof groups)[number]) => g.items.some((it) => it.kind === 'addlState' && it.id >= 4 && it.id <= 7);
      const k = groups.findIndex((g, i) => i > middle() && isStore(g));
      const item = groups[k]!.items.find((it) => it.kind === 'addlState' && it.id === 3)!;
      const corrupt = bytes.slice();
      corrupt[item.offset + 2]! ^= 0x10;
      expect(checkCut(corrupt, k).diffs.map((f) => f.field)).toEqual(['eaddr']);
    });

    it('a trap group removed (an instruction group where there is none)', () => {
      const kinds = decodeTv(bytes.subarray(0, 400_000), params(config)).groups.map((g) => g.kind);
      let k = kinds.findIndex((kind, i) => i > middle() && kind === 'trap');
      if (k < 0 || k + 4 >= groups.length) k = middle();
      const g = groups[k]!;
      const corrupt = new Uint8Array(bytes.length - (g.end! + 1 - g.begin!));
      corrupt.set(bytes.subarray(0, g.begin!));
      corrupt.set(bytes.subarray(g.end! + 1), g.begin!);
      const d = checkCut(corrupt, k, g.end! + 1 - g.begin!);
      if (kinds[k] === 'trap') expect(d.diffs[0]).toEqual({ field: 'kind', expected: 'trap', actual: 'instruction' });
      else expect(d.diffs.length).toBeGreaterThan(0);
    });

    it('an instruction word changed', () => {
      const k = middle() + 3;
      const item = groups[k]!.items.find((it) => it.kind === 'instr')!;
      const corrupt = bytes.slice();
      corrupt[item.offset + 2]! ^= 0x40;
      expect(checkCut(corrupt, k).diffs.map((f) => f.field)).toContain('instr');
    });
  });
});
