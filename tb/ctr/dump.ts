/**
 * `rvtrace ctr-dump`: a retirement stream through the CTR unit (the golden model or the generated
 * RTL), then the array read back through CSR accesses and printed like perf's branch stack,
 * youngest first: source, target, type (by name), cycles (CC decoded) and flags (MISP, CCV).
 *
 * The steps are the same for the model and the RTL, and the dump is made of the CSR read data of
 * both the same way, so the two tables must be identical:
 * 1. idle cycles in which M-mode enables recording in every mode (and VS/VU with H), with the
 *    largest depth and no filter;
 * 2. the records (with the freeze signals their causes imply), or with `randomCsr` the
 *    co-simulation's program of random CSR operations riding on them;
 * 3. idle cycles reading the status, the depth and every entry (ctrsource, ctrtarget, ctrdata of
 *    logical entries 0 .. depthMax - 1) from M-mode.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { CtrConfig } from '../../golden-model/ctr/config.ts';
import { entryFields } from '../../golden-model/ctr/entry.ts';
import { controlLayout, CTR_SELECT_FIRST, depthOf } from '../../golden-model/ctr/registers.ts';
import type { CtrRtlParams } from '../../golden-model/ctr/settings.ts';
import { type CtrCsrAccess, type CtrCsrResponse, CtrUnit, freezeSignals } from '../../golden-model/ctr/unit.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { ctrCsrDecode, CTR_TYPE_NAMES } from '../../golden-model/ctr/csr-map.ts';
import type { BuiltModel } from '../build.ts';
import { ctrFrameWriter, ctrHarnessSpec } from './cosim.ts';
import { ctrProgram, type CtrStep } from './stimulus.ts';
import { FrameWriter, runModel } from '../run.ts';

const ALL = (1n << 64n) - 1n;

/** What the dump reads, in order, from the step `first` on. */
interface DumpPlan {
  readonly steps: CtrStep[];
  /** Step of the first dump read. */
  readonly first: number;
  readonly records: number;
}

/** The steps of a dump run (see the file comment). */
export function ctrDumpPlan(c: CtrConfig, records: readonly RetirementRecord[], opts: { randomCsr?: boolean; seed?: number } = {}): DumpPlan {
  for (const [i, r] of records.entries()) {
    if (r.sameCycle) throw new RvError('bad-value', `record ${i}: multiple retirement (several records a cycle) is not supported by the CTR unit`);
  }
  const decode = ctrCsrDecode(c);
  const l = controlLayout(c);
  const v014 = c.specVersion === '0.1.4';
  const find = (kind: string, reg?: string): number | undefined => decode.find((d) => d.kind === kind && (reg === undefined || d.reg === reg || d.which === reg) && d.half !== 'HalfHi')?.address;
  const bit = (n: number): bigint => 1n << BigInt(n);
  const M = 3;
  const read = (address: number): CtrCsrAccess => ({ address, write: false, wdata: 0n, wmask: 0n, priv: M });
  const write = (address: number, wdata: bigint): CtrCsrAccess => ({ address, write: true, wdata, wmask: ALL, priv: M });
  const xmask = (1n << BigInt(c.xlen)) - 1n;
  const first = records[0];
  const idle = (r: RetirementRecord | undefined): RetirementRecord => ({ ...emptyRecord(), priv: r?.priv ?? M, iaddr: 0n, iretire: 0 });

  const setup: CtrCsrAccess[] = [write(find('ctl', 'RegM')!, (bit(l.m) | bit(l.s) | bit(l.u) | (v014 ? 0xfn << 16n : 0n)) & xmask)];
  const vs = find('ctl', 'RegVs');
  if (vs !== undefined) setup.push(write(vs, bit(l.s) | bit(l.u)));
  const depth = find('depth');
  if (depth !== undefined) setup.push(write(depth, 4n));
  const steps: CtrStep[] = setup.map((csr) => ({ record: idle(first), csr }));

  if (opts.randomCsr) {
    // The co-simulation program ends with its own dump: keep the records' steps only.
    const p = ctrProgram(c, records, opts.seed ?? 1);
    steps.push(...p.steps.slice(0, p.dumpFrom));
  } else {
    steps.push(...records.map((record): CtrStep => ({ record, ...freezeSignals(record) })));
  }

  const dumpFrom = steps.length;
  const last = idle(records[records.length - 1]);
  const lastV = steps[steps.length - 1]?.v ?? false;
  const status = find('status')!;
  const dump: CtrCsrAccess[] = [read(status), read(depth ?? find('ctl', 'RegM')!)];
  const select = find('sel', 'WhichM') ?? find('sel', 'WhichS')!;
  for (let x = 0; x < c.depthMax; x++) dump.push(write(select, BigInt(CTR_SELECT_FIRST + x)), read(select + 1), read(select + 2), read(select + 3));
  for (const csr of dump) steps.push({ record: last, v: lastV, mstateen0: ALL, hstateen0: ALL, csr });
  return { steps, first: dumpFrom, records: records.length };
}

/** The CSR responses of every step with an access, by step index: the model. */
export function runDumpModel(c: CtrConfig, steps: readonly CtrStep[]): Map<number, CtrCsrResponse> {
  const unit = new CtrUnit(c);
  const out = new Map<number, CtrCsrResponse>();
  steps.forEach((s, i) => {
    let r;
    try {
      r = unit.step(s);
    } catch (e) {
      throw new RvError('bad-value', `step ${i}: ${(e as Error).message}`);
    }
    if (s.csr && r.csr) out.set(i, r.csr);
  });
  return out;
}

/** The CSR responses of every step with an access, by step index: the RTL. */
export async function runDumpRtl(model: BuiltModel, c: CtrConfig, rtl: CtrRtlParams, steps: readonly CtrStep[]): Promise<Map<number, CtrCsrResponse>> {
  const spec = ctrHarnessSpec(c, rtl);
  const run = await runModel(model, spec, (emit) => {
    const w = new FrameWriter(spec);
    const fill = ctrFrameWriter(c, rtl, w);
    steps.forEach((s, i) => {
      fill(s, i);
      emit(w);
    });
  });
  const out = new Map<number, CtrCsrResponse>();
  for (const cap of run.captures[0] ?? []) out.set(cap.cycle, { rdata: cap.values[0]!, illegalInstruction: cap.values[1] === 1n, virtualInstruction: cap.values[2] === 1n });
  return out;
}

export interface DumpedEntry {
  readonly logical: number;
  readonly source: bigint;
  readonly target: bigint;
  readonly data: number;
}

export interface Dump {
  readonly depth: number;
  readonly wrptr: number;
  readonly frozen: boolean;
  /** Logical entries 0 .. depth-1, youngest first. */
  readonly entries: DumpedEntry[];
}

/** The array as the dump reads saw it. */
export function decodeDump(c: CtrConfig, plan: DumpPlan, responses: ReadonlyMap<number, CtrCsrResponse>): Dump {
  const at = (k: number): bigint => {
    const r = responses.get(plan.first + k);
    if (r === undefined || r.illegalInstruction || r.virtualInstruction) throw new RvError('tool-failure', `the dump read at step ${plan.first + k} got no data`);
    return r.rdata;
  };
  const status = at(0);
  const depthReg = at(1);
  const v014 = c.specVersion === '0.1.4';
  const depthIdx = v014 ? 32 - Math.clz32(Number((depthReg >> 16n) & 0xfn)) : Number(depthReg & 7n);
  const depth = depthOf(depthIdx);
  const entries: DumpedEntry[] = [];
  for (let x = 0; x < depth; x++) {
    const k = 2 + 4 * x;
    entries.push({ logical: x, source: at(k + 1), target: at(k + 2), data: Number(at(k + 3) & 0xffff_ffffn) });
  }
  return { depth, wrptr: Number(status & 0xffn), frozen: ((status >> (v014 ? 15n : 31n)) & 1n) === 1n, entries };
}

/** The perf-like table: valid entries (all with `all`), youngest first. */
export function formatDump(c: CtrConfig, d: Dump, heading: string, all = false): string {
  const w = c.xlen / 4;
  const rows: string[][] = [['#', 'source', 'target', 'type', 'cycles', 'flags']];
  for (const e of d.entries) {
    const f = entryFields({ source: e.source, target: e.target, data: e.data });
    if (!f.valid && !all) continue;
    const flags = [f.misp ? 'MISP' : '', f.ccv ? 'CCV' : '', f.valid ? '' : 'INVALID'].filter((x) => x !== '').join(' ');
    rows.push([
      String(e.logical),
      `0x${f.sourcePc.toString(16).padStart(w, '0')}`,
      `0x${f.targetPc.toString(16).padStart(w, '0')}`,
      c.typeField ? (CTR_TYPE_NAMES[f.type] ?? String(f.type)) : '-',
      c.cycleCounting ? String(f.cycles) : '-',
      flags === '' ? '-' : flags,
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const right = new Set([0, 4]);
  const lines = rows.map((r) => r.map((v, i) => (right.has(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd());
  const valid = d.entries.filter((e) => (e.source & 1n) === 1n).length;
  return [`${heading}: depth ${d.depth}, WRPTR ${d.wrptr}, FROZEN ${d.frozen ? 1 : 0}, ${valid} valid entries, youngest first`, ...lines].join('\n');
}
