/**
 * Random records -> the model's encoder (golden-model/tvtrace) -> the independent decoder
 * (golden-model/tvtrace-decoder) -> the same state changes. The changes each record must make are
 * written here from the records' meaning (records.ts, the seed's chapter 2), not from either side:
 * the new pc, the instruction, the register writes by Debug-spec number (as a multiset: the decoder
 * is order-free), the privilege, the additional state, the memory request of a debug write, hart
 * reset and state initialization; unobserved records, outside any group, as the ungrouped run they
 * form. Several configurations and both field orders; seeds fixed and printed.
 */
import { describe, expect, it } from 'vitest';
import { encodeTvRecords } from '../../golden-model/tvtrace/encoder.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { defaultTvtraceConfig, type TvtraceConfig } from '../../golden-model/tvtrace/settings.ts';
import { decodeTv, type TvGroupChanges } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { groupLine } from '../../golden-model/tvtrace-decoder/dump.ts';
import { generateTvRecords } from './stimulus.ts';

/** What a group must show, order-free. */
interface Want {
  grouped: boolean;
  pc?: bigint;
  instr?: { bits: 16 | 32; value: number };
  regs: string[];
  priv?: number;
  addl: string[];
  mem: string[];
  hartReset: boolean;
  stateInit: boolean;
  /** The decoder's kind where the record fixes it. */
  kind?: string;
}

const reg = (regno: number, value: bigint): string => `${regno.toString(16)}=${value.toString(16)}`;
const empty = (grouped: boolean): Want => ({ grouped, regs: [], addl: [], mem: [], hartReset: false, stateInit: false });

/** The seed's "Memory Request Opcode" table, as the decoder names the ops. */
const MEM_OPS = ['load', 'store', 'lr', 'sc', 'amoswap', 'amoadd', 'amoxor', 'amoand', 'amoor', 'amomin', 'amomax', 'amominu', 'amomaxu', 'fetch'];

/** The changes of one record (unobserved: added to the run `into`). */
function wantOf(r: TvRecord, c: TvtraceConfig, into?: Want): Want {
  switch (r.kind) {
    case 'instruction': {
      const w = empty(true);
      w.pc = r.nextPc;
      if (r.instr) w.instr = { bits: r.instr.size, value: r.instr.bits };
      if (r.gpr && r.gpr.reg !== 0) w.regs.push(reg(0x1000 + r.gpr.reg, r.gpr.value));
      if (r.fpr) w.regs.push(reg(0x1020 + r.fpr.reg, r.fpr.value));
      for (const x of r.csrs ?? []) w.regs.push(reg(x.csr, x.value));
      if (r.fcsr !== undefined) w.regs.push(reg(0x003, r.fcsr));
      if (r.priv !== undefined) w.priv = r.priv;
      if (r.paddr !== undefined) w.addl.push(`paddr=${r.paddr.toString(16)}`);
      if (r.eaddr !== undefined) w.addl.push(`eaddr=${r.eaddr.toString(16)}`);
      if (r.storeData) w.addl.push(`store.data=${r.storeData.value.toString(16)}/${r.storeData.bytes}`);
      if (r.pcPaddr !== undefined) w.addl.push(`pc.paddr=${r.pcPaddr.toString(16)}`);
      for (const t of r.mem ?? []) {
        const rsp = t.response ? ` +response ${t.response.ok ? 'ok' : 'fail'} ${t.response.data?.toString(16)}` : '';
        w.mem.push(`${MEM_OPS[t.op]} ${t.addr.toString(16)} ${t.bytes} ${t.data?.toString(16)}${rsp}`);
      }
      return w;
    }
    case 'trap':
    case 'interrupt': {
      const w = empty(true);
      w.pc = r.nextPc;
      if (r.kind === 'trap' && r.instr) w.instr = { bits: r.instr.size, value: r.instr.bits };
      w.priv = r.priv;
      // The CSR set of the privilege entered: xstatus, xcause, xepc, xtval at priv << 8 | 0x00, 0x42, 0x41, 0x43.
      const base = r.priv << 8;
      w.regs.push(reg(base, r.status), reg(base | 0x42, r.cause), reg(base | 0x41, r.epc), reg(base | 0x43, r.tval));
      w.kind = r.kind;
      return w;
    }
    case 'xret': {
      const w = empty(true);
      w.pc = r.nextPc;
      if (r.instr) w.instr = { bits: r.instr.size, value: r.instr.bits };
      w.priv = r.priv;
      w.regs.push(reg(0x300, r.mstatus));
      return w;
    }
    case 'debug-reg': {
      const w = empty(true);
      w.stateInit = true;
      const regno = r.file === 'gpr' ? 0x1000 + r.index : r.file === 'fpr' ? 0x1020 + r.index : r.index;
      if (regno !== 0x1000) w.regs.push(reg(regno, r.value));
      w.kind = 'debug-write';
      return w;
    }
    case 'debug-mem': {
      const w = empty(true);
      w.stateInit = true;
      w.mem.push(`store ${r.paddr.toString(16)} ${r.bytes} ${r.value.toString(16)}`);
      w.kind = 'debug-write';
      return w;
    }
    case 'reset': {
      const w = empty(true);
      w.hartReset = true;
      w.kind = 'reset';
      return w;
    }
    case 'unobserved': {
      const w = into ?? empty(false);
      if (r.mtime !== undefined) w.addl.push(`mtime=${r.mtime.toString(16)}`);
      for (const [v, low, high] of [
        [r.mcycle, 0xb00, 0xb80],
        [r.minstret, 0xb02, 0xb82],
      ] as const) {
        if (v === undefined) continue;
        if (c.xlen === 64) w.regs.push(reg(low, v));
        else w.regs.push(reg(low, v & 0xffff_ffffn), reg(high, v >> 32n));
      }
      return w;
    }
  }
}

/**
 * The expected groups of a record list: the unobserved records between two groups make one
 * ungrouped run (none when they write nothing).
 */
function wantsOf(records: readonly TvRecord[], c: TvtraceConfig): { want: Want; first: number }[] {
  const out: { want: Want; first: number }[] = [];
  let run: { want: Want; first: number } | undefined;
  records.forEach((r, i) => {
    if (r.kind === 'unobserved') {
      run ??= { want: empty(false), first: i };
      wantOf(r, c, run.want);
      if ((run.want.addl.length > 0 || run.want.regs.length > 0) && out[out.length - 1] !== run) out.push(run);
    } else {
      run = undefined;
      out.push({ want: wantOf(r, c), first: i });
    }
  });
  return out;
}

/** What the decoder shows of a group, in the same form. */
function seen(g: TvGroupChanges): Want {
  return {
    grouped: g.grouped,
    ...(g.pc?.value !== undefined ? { pc: g.pc.value } : {}),
    ...(g.instr ? { instr: { bits: g.instr.bits, value: g.instr.value } } : {}),
    regs: g.regs.map((r) => (r.value === undefined ? `${r.regno.toString(16)}=?` : reg(r.regno, r.value))),
    ...(g.priv !== undefined ? { priv: g.priv } : {}),
    addl: g.addl.map((a) => (a.name === 'store.data' ? `store.data=${a.value.toString(16)}/${a.bytes}` : `${a.name}=${a.value.toString(16)}`)),
    mem: g.mem.map((m) => `${m.opName} ${m.addr.toString(16)} ${m.size} ${m.data?.toString(16)}${m.response ? ` +response ${m.response.ok ? 'ok' : 'fail'} ${m.response.data?.toString(16)}` : ''}`),
    hartReset: g.hartReset,
    stateInit: g.stateInit,
  };
}

const sorted = (w: Want): Want => ({ ...w, regs: [...w.regs].sort(), addl: [...w.addl].sort(), mem: [...w.mem].sort() });

const CONFIGS: { label: string; config: TvtraceConfig; seed: number }[] = [
  { label: 'RV64 D (tvtrace)', config: defaultTvtraceConfig(), seed: 101 },
  { label: 'RV32 no F, Sv32 (tvtrace-rv32imc)', config: defaultTvtraceConfig({ xlen: 32, flen: 0, mlen: 34 }), seed: 102 },
  { label: 'RV32 F', config: defaultTvtraceConfig({ xlen: 32, flen: 32, mlen: 32 }), seed: 103 },
  { label: 'RV32 D, Sv32', config: defaultTvtraceConfig({ xlen: 32, flen: 64, mlen: 34 }), seed: 104 },
  { label: 'RV64 F', config: defaultTvtraceConfig({ flen: 32 }), seed: 105 },
];
const RUNS = CONFIGS.flatMap((k) => (['bluespec', 'seed'] as const).map((order) => ({ ...k, order, config: { ...k.config, fieldOrder: order } })));
const COUNT = 20_000;

describe('records -> encoder -> independent decoder -> the same state changes', () => {
  it.each(RUNS)('$label, $order order (seed $seed): every group', ({ config, seed }) => {
    const records = generateTvRecords(config, seed, COUNT);
    const bytes = encodeTvRecords(records, config);
    const d = decodeTv(bytes, { xlen: config.xlen, flen: config.flen, mlen: config.mlen, ilen: config.ilen });
    expect(d.error?.oneLine()).toBeUndefined();
    const wants = wantsOf(records, config);
    expect(d.groups.length).toBe(wants.length);
    wants.forEach(({ want, first }, i) => {
      const g = d.groups[i]!;
      const { kind, ...rest } = want;
      const context = `group ${i} (record ${first}: ${records[first]!.kind}): ${groupLine(g)}`;
      expect(sorted(seen(g)), context).toEqual(sorted(rest));
      if (kind !== undefined) expect(g.kind, context).toBe(kind);
    });
    // Every kind was there, and the decoder's pc after the last group is the last record's next pc.
    for (const k of ['instruction', 'trap', 'interrupt', 'xret', 'debug-reg', 'debug-mem', 'reset', 'unobserved']) expect(records.some((r) => r.kind === k), k).toBe(true);
    const last = [...records].reverse().find((r) => 'nextPc' in r || r.kind === 'reset');
    if (last && 'nextPc' in last) expect(d.state.pc).toBe(last.nextPc);
  });

  it('a check that can fail: a record changed after encoding is seen', () => {
    const config = defaultTvtraceConfig();
    const records = generateTvRecords(config, 7, 200);
    const bytes = encodeTvRecords(records, config);
    const k = records.findIndex((r) => r.kind === 'instruction' && r.gpr !== undefined && r.gpr.reg !== 0);
    const r = records[k]! as Extract<TvRecord, { kind: 'instruction' }>;
    const changed = [...records];
    changed[k] = { ...r, gpr: { reg: r.gpr!.reg, value: r.gpr!.value ^ 1n } };
    const d = decodeTv(bytes, { xlen: 64, flen: 64, mlen: 64 });
    const wants = wantsOf(changed, config);
    const i = wants.findIndex((w) => w.first === k);
    const { kind: _kind, ...want } = wants[i]!.want;
    expect(sorted(seen(d.groups[i]!))).not.toEqual(sorted(want));
    // The same comparison with the records as encoded holds.
    const { kind: _k, ...same } = wantsOf(records, config)[i]!.want;
    expect(sorted(seen(d.groups[i]!))).toEqual(sorted(same));
  });
});
