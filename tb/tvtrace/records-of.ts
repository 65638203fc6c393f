/**
 * The groups of a decoded tandem-verification trace (golden-model/tvtrace-decoder rebuildTv) as TV
 * records (golden-model/tvtrace/records.ts): what `rvtrace decode --component tvtrace` writes, in the
 * text record format that `rvtrace encode` reads back.
 *
 * A group becomes the record the model encodes into that group (docs/tvtrace-usage.md, "decode"):
 * - a group with a hart reset and nothing else: `reset`;
 * - a state initialization with one register write: `debug-reg`; with nothing: `debug-reg x0` (the
 *   encoder's `01 0b 02`); with one store request and no response: `debug-mem`;
 * - the changes of a trap CSR set (xstatus, xcause, xepc, xtval of the level the new privilege
 *   selects), the pc and the privilege, an instruction or none: `trap` (`interrupt` when xcause has
 *   its top bit set and there is no instruction);
 * - mret/sret/uret (or no instruction) with the pc, the privilege and mstatus only: `xret`;
 * - any other group with a known new pc: `instruction` (one GPR, one FPR, up to four CSRs and then
 *   fcsr, paddr, eaddr, store data, privilege);
 * - state outside any group: `unobserved` records (mtime, mcycle, minstret; on RV32 each counter as
 *   its pair), a new record whenever the next change could not follow in one.
 * A group no record can express (more than two memory transactions on an instruction, two GPR writes, a write to x0, an
 * increment of a register whose value is unknown, an unknown pc, ...) becomes a comment line with
 * its dump and the reason. Re-encoded, the records give the stream back byte for byte when it was
 * written in the component's field order by an encoder that writes what records hold (the model,
 * the generated RTL); other orders come back reordered.
 */
import { Csr } from '../../golden-model/tvtrace/protocol.ts';
import { MAX_MEM_TRANSACTIONS, type TvCsrWrite, type TvInstr, type TvMemTransaction, type TvPriv, type TvRecord, type TvUnobservedRecord } from '../../golden-model/tvtrace/records.ts';
import { FPR_BASE, GPR_BASE } from '../../golden-model/tvtrace-decoder/names.ts';
import type { TvGroupChanges, TvRegChange } from '../../golden-model/tvtrace-decoder/decoder.ts';

/** A record, or why the group is none. */
export type RecordOf = { readonly record: TvRecord } | { readonly why: string };

const XRETS: ReadonlySet<number> = new Set([0x30200073, 0x10200073, 0x00200073]);
const isPriv = (p: number | undefined): p is TvPriv => p === 0 || p === 1 || p === 3;

/** The full value a register change leaves, or why there is none. */
function valueOf(r: TvRegChange): bigint | string {
  return r.value ?? `${r.name} is incremented and its previous value is unknown`;
}

function instrOf(g: TvGroupChanges): TvInstr | undefined {
  return g.instr ? { size: g.instr.bits, bits: g.instr.value } : undefined;
}

/** A trap or interrupt group, or undefined when the group is not exactly one. */
function trapOf(g: TvGroupChanges, nextPc: bigint, xlen: number): TvRecord | undefined {
  if (!isPriv(g.priv) || g.regs.length !== 4 || g.mem.length > 0 || g.addl.length > 0) return undefined;
  const base = g.priv << 8;
  const want = [base, base | 0x42, base | 0x41, base | 0x43]; // xstatus, xcause, xepc, xtval
  const values = want.map((a) => g.regs.find((r) => r.regno === a && r.value !== undefined)?.value);
  if (values.some((v) => v === undefined)) return undefined;
  const [status, cause, epc, tval] = values as bigint[];
  const interrupt = ((cause! >> BigInt(xlen - 1)) & 1n) === 1n && g.instr === undefined;
  const instr = instrOf(g);
  return interrupt
    ? { kind: 'interrupt', nextPc, priv: g.priv, status: status!, cause: cause!, epc: epc!, tval: tval! }
    : { kind: 'trap', nextPc, ...(instr ? { instr } : {}), priv: g.priv, status: status!, cause: cause!, epc: epc!, tval: tval! };
}

/** One group (not ungrouped state) as a record. */
export function recordOfGroup(g: TvGroupChanges, xlen: number): RecordOf {
  if (g.hartReset) {
    const other = g.regs.length + g.mem.length + g.addl.length + (g.pc ? 1 : 0) + (g.instr ? 1 : 0) + (g.priv !== undefined ? 1 : 0) + (g.stateInit ? 1 : 0);
    return other === 0 ? { record: { kind: 'reset' } } : { why: 'a hart reset with other changes' };
  }
  if (g.stateInit) {
    if (g.pc || g.priv !== undefined || g.addl.length > 0) return { why: 'a state initialization with pc, privilege or additional state' };
    if (g.regs.length === 0 && g.mem.length === 0) return { record: { kind: 'debug-reg', file: 'gpr', index: 0, value: 0n } };
    if (g.regs.length === 1 && g.mem.length === 0) {
      const r = g.regs[0]!;
      const v = valueOf(r);
      if (typeof v === 'string') return { why: v };
      if (r.regno === GPR_BASE) return { why: 'a debug write of x0 (the encoder reports none)' };
      if (r.regno < 0x1000) return { record: { kind: 'debug-reg', file: 'csr', index: r.regno, value: v } };
      if (r.regno < GPR_BASE + 32) return { record: { kind: 'debug-reg', file: 'gpr', index: r.regno - GPR_BASE, value: v } };
      if (r.regno >= FPR_BASE && r.regno < FPR_BASE + 32) return { record: { kind: 'debug-reg', file: 'fpr', index: r.regno - FPR_BASE, value: v } };
      return { why: `a debug write of ${r.name}, neither a GPR, an FPR nor a CSR` };
    }
    if (g.regs.length === 0 && g.mem.length === 1) {
      const m = g.mem[0]!;
      if (m.op === 1 && m.data !== undefined && m.response === undefined) {
        return { record: { kind: 'debug-mem', paddr: m.addr, bytes: m.size as 1 | 2 | 4 | 8, value: m.data } };
      }
      return { why: `a state initialization with ${m.opName} and${m.response ? '' : ' no'} response (a debug-mem record is a store request alone)` };
    }
    return { why: 'a state initialization with more than one write' };
  }
  const nextPc = g.pc?.value;
  if (nextPc === undefined) return { why: g.pc ? 'the pc is incremented from an unknown pc' : 'the group has no pc' };
  if (g.kind === 'trap' || g.kind === 'interrupt') {
    const t = trapOf(g, nextPc, xlen);
    if (t) return { record: t };
  }
  const instr = instrOf(g);
  // An xRET: mret, sret or uret (or no instruction: a partial trace) with the privilege and mstatus only.
  const xretInstr = instr === undefined || (instr.size === 32 && XRETS.has(instr.bits));
  if (xretInstr && isPriv(g.priv) && g.regs.length === 1 && g.regs[0]!.regno === Csr.mstatus && g.regs[0]!.value !== undefined && g.mem.length === 0 && g.addl.length === 0) {
    return { record: { kind: 'xret', nextPc, ...(instr ? { instr } : {}), priv: g.priv, mstatus: g.regs[0]!.value } };
  }
  // An instruction record.
  if (g.mem.length > MAX_MEM_TRANSACTIONS) return { why: `${g.mem.length} memory transactions (a record has at most ${MAX_MEM_TRANSACTIONS})` };
  const mem: TvMemTransaction[] = g.mem.map((m) => ({
    op: m.op,
    bytes: m.size as 1 | 2 | 4 | 8,
    addr: m.addr,
    ...(m.data !== undefined ? { data: m.data } : {}),
    ...(m.response ? { response: { ok: m.response.ok, ...(m.response.data !== undefined ? { data: m.response.data } : {}) } } : {}),
  }));
  if (g.priv !== undefined && !isPriv(g.priv)) return { why: `privilege ${g.priv} (reserved)` };
  let gpr: { reg: number; value: bigint } | undefined;
  let fpr: { reg: number; value: bigint } | undefined;
  const csrs: TvCsrWrite[] = [];
  for (const r of g.regs) {
    const v = valueOf(r);
    if (typeof v === 'string') return { why: v };
    if (r.regno < 0x1000) csrs.push({ csr: r.regno, value: v });
    else if (r.regno === GPR_BASE) return { why: 'a write of x0 (the encoder reports none)' };
    else if (r.regno < GPR_BASE + 32) {
      if (gpr || csrs.length > 0 || fpr) return { why: gpr ? 'two GPR writes' : `${r.name} after an FPR or CSR write (a record reports rd before them)` };
      gpr = { reg: r.regno - GPR_BASE, value: v };
    } else if (r.regno >= FPR_BASE && r.regno < FPR_BASE + 32) {
      if (fpr || csrs.length > 0) return { why: fpr ? 'two FPR writes' : `${r.name} after a CSR write (a record reports frd before them)` };
      fpr = { reg: r.regno - FPR_BASE, value: v };
    } else return { why: `a write of ${r.name}, neither a GPR, an FPR nor a CSR` };
  }
  // The record's fcsr is a fifth CSR write of fcsr, last.
  let fcsr: bigint | undefined;
  if (csrs.length > 4 && csrs[csrs.length - 1]!.csr === Csr.fcsr) fcsr = csrs.pop()!.value;
  if (csrs.length > 4) return { why: `${csrs.length} CSR writes (a record has four, and fcsr)` };
  const addl: Record<string, bigint> = {};
  let storeData: { bytes: 1 | 2 | 4 | 8; value: bigint } | undefined;
  for (const a of g.addl) {
    if (a.name === 'store.data') {
      if (storeData) return { why: 'store data twice' };
      storeData = { bytes: a.bytes as 1 | 2 | 4 | 8, value: a.value };
    } else if (a.name === 'paddr' || a.name === 'eaddr' || a.name === 'pc.paddr') {
      if (addl[a.name] !== undefined) return { why: `${a.name} twice` };
      addl[a.name] = a.value;
    } else return { why: `${a.name} on an instruction (a record has none)` };
  }
  const record: TvRecord = {
    kind: 'instruction',
    nextPc,
    ...(instr ? { instr } : {}),
    ...(g.priv !== undefined ? { priv: g.priv as TvPriv } : {}),
    ...(gpr ? { gpr } : {}),
    ...(fpr ? { fpr } : {}),
    ...(csrs.length > 0 ? { csrs } : {}),
    ...(addl.paddr !== undefined ? { paddr: addl.paddr } : {}),
    ...(addl.eaddr !== undefined ? { eaddr: addl.eaddr } : {}),
    ...(storeData ? { storeData } : {}),
    ...(fcsr !== undefined ? { fcsr } : {}),
    ...(mem.length > 0 ? { mem } : {}),
    ...(addl['pc.paddr'] !== undefined ? { pcPaddr: addl['pc.paddr'] } : {}),
  };
  return { record };
}

/** State outside any group as unobserved records, in stream order. */
export function recordsOfUngrouped(g: TvGroupChanges, xlen: number): RecordOf[] {
  if (g.pc || g.instr || g.priv !== undefined || g.mem.length > 0 || g.hartReset || g.stateInit) return [{ why: 'changes outside a group other than mtime, mcycle and minstret' }];
  // The changes in order: [rank, field, value]; a record holds each field once, in rank order.
  const items: [number, 'mtime' | 'mcycle' | 'minstret', bigint][] = [];
  for (const a of g.addl) {
    if (a.name !== 'mtime') return [{ why: `${a.name} outside a group` }];
    items.push([0, 'mtime', a.value]);
  }
  // Registers by offset, interleaved with mtime by offset.
  const regs = [...g.regs];
  const counters: { low: number; high: number; field: 'mcycle' | 'minstret'; rank: number }[] = [
    { low: Csr.mcycle, high: Csr.mcycleh, field: 'mcycle', rank: 1 },
    { low: Csr.minstret, high: Csr.minstreth, field: 'minstret', rank: 2 },
  ];
  const ordered: { offset: number; item: [number, 'mtime' | 'mcycle' | 'minstret', bigint] }[] = g.addl.map((a, i) => ({ offset: a.offset, item: items[i]! }));
  for (let i = 0; i < regs.length; i++) {
    const r = regs[i]!;
    const v = valueOf(r);
    if (typeof v === 'string') return [{ why: v }];
    const c = counters.find((k) => k.low === r.regno);
    if (!c) return [{ why: `${r.name} outside a group (unobserved state is mtime, mcycle, minstret)` }];
    if (xlen === 64) {
      ordered.push({ offset: r.offset, item: [c.rank, c.field, v] });
    } else {
      const hi = regs[i + 1];
      const hv = hi ? valueOf(hi) : undefined;
      if (!hi || hi.regno !== c.high || typeof hv !== 'bigint') return [{ why: `${r.name} without ${c.field}h right after it (RV32 sends the pair)` }];
      ordered.push({ offset: r.offset, item: [c.rank, c.field, (hv << 32n) | v] });
      i++;
    }
  }
  ordered.sort((a, b) => a.offset - b.offset);
  const out: RecordOf[] = [];
  let cur: { -readonly [K in keyof TvUnobservedRecord]: TvUnobservedRecord[K] } | undefined;
  let rank = -1;
  for (const { item } of ordered) {
    const [r, field, value] = item;
    if (!cur || r <= rank) {
      if (cur) out.push({ record: cur });
      cur = { kind: 'unobserved' };
    }
    cur[field] = value;
    rank = r;
  }
  if (cur) out.push({ record: cur });
  return out;
}
