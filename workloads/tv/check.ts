/**
 * The tandem check: a tandem-verification byte stream (from a core's simulation), decoded by the
 * independent decoder (golden-model/tvtrace-decoder), compared group by group with the records
 * derived from QEMU's run of the same program (derive.ts). `rvtrace tv-check` prints the result;
 * docs/tv-check.md describes the rules. In short, for each group:
 *
 * - the kind (instruction, trap, interrupt, xRET), the next pc and the instruction word must match;
 * - registers are compared as state, the way the specification recommends (chapter 3.1: compare
 *   the state at the end of each group, including erroneous changes): every GPR, FPR and CSR that
 *   either side writes must hold the same value on both sides afterwards, a register one side does
 *   not write keeping its previous value. So a core that reports an unchanged register (Flute reports
 *   fflags and mstatus on every floating-point instruction) or leaves it out agrees; one that writes
 *   a wrong value, or misses a change, does not. fcsr, fflags and frm are one register seen three ways;
 * - the privilege mode likewise (the group's, or the previous one when it reports none);
 * - effective address, physical address and store data must match when either side has them;
 *   an element the core does not trace at all is declared with `absent` (the specification's
 *   partial trace: "the tandem verifier must be aware of elements that are absent").
 *
 * Not compared: memory requests and responses (opcodes 8, 9: bus transactions, implementation
 * dependent), mtime and the pc's physical address, state changes outside any group (unobserved
 * counters), and hart resets or state initializations before the first instruction (a loader's).
 */
import type { Xlen } from '../../golden-model/hart/stream.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { formatTvRecord } from '../../golden-model/tvtrace/formats/text.ts';
import { decodeTv, type TvDecodeError, type TvGroupChanges, type TvParams, type TvRebuild } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { groupLine } from '../../golden-model/tvtrace-decoder/dump.ts';
import { privName, regName } from '../../golden-model/tvtrace-decoder/names.ts';
import { disassemble } from './insn.ts';

/** Elements a core may leave out of its trace altogether (partial trace). */
export type TvAbsent = 'eaddr' | 'paddr' | 'store-data';
export const TV_ABSENT: readonly TvAbsent[] = ['eaddr', 'paddr', 'store-data'];

export interface TvCheckOptions {
  readonly params: TvParams;
  /** The pc before the first group (the ELF entry). */
  readonly entry: bigint;
  readonly absent?: readonly TvAbsent[];
  /**
   * A stream that stops before the run's end passes when every group it holds matches (a last
   * group cut short is left out).
   */
  readonly prefix?: boolean;
  /** `expected` is the start of a longer run: groups of the stream after it are not compared. */
  readonly expectedIsPrefix?: boolean;
}

export interface TvFieldDiff {
  /** The field: kind, pc, instr, priv, a register name (a0, ft0, mstatus), eaddr, paddr, store-data, group. */
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
}

export interface TvCheckedGroup {
  /** Index of the group in QEMU's run. */
  readonly index: number;
  readonly pc: bigint;
  readonly expected?: TvRecord;
  readonly actual?: TvGroupChanges;
}

export interface TvDivergence extends TvCheckedGroup {
  readonly diffs: readonly TvFieldDiff[];
  /** Up to three groups before it (all matched). */
  readonly preceding: readonly TvCheckedGroup[];
}

export interface TvCheckResult {
  readonly ok: boolean;
  /** Groups compared (and matched, up to a divergence). */
  readonly matched: number;
  /** Groups of QEMU's run. */
  readonly expectedGroups: number;
  /** Groups of the stream that were not compared (loader groups before the first instruction, ungrouped state). */
  readonly skipped: number;
  readonly divergence?: TvDivergence;
  /** The stream could not be decoded past this point (every group before it matched). */
  readonly decodeError?: TvDecodeError;
  /** With prefix: the stream ends inside a group, which was not checked. */
  readonly cutShort?: boolean;
}

const FCSR = 0x003;
const FFLAGS = 0x001;
const FRM = 0x002;
const GPR0 = 0x1000;

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

/** The address of each record's instruction: the previous record's next pc (the entry for the first). */
export function recordPcs(records: readonly TvRecord[], entry: bigint): bigint[] {
  const pcs: bigint[] = [];
  let pc = entry;
  for (const r of records) {
    pcs.push(pc);
    if ('nextPc' in r) pc = r.nextPc;
  }
  return pcs;
}

/** The register writes of a record, by Debug-spec register number, in `out` (cleared first). */
function recordWrites(r: TvRecord, out: Map<number, bigint | undefined>): void {
  out.clear();
  switch (r.kind) {
    case 'instruction':
      if (r.gpr !== undefined && r.gpr.reg !== 0) out.set(0x1000 + r.gpr.reg, r.gpr.value);
      if (r.fpr !== undefined) out.set(0x1020 + r.fpr.reg, r.fpr.value);
      if (r.csrs !== undefined) for (const c of r.csrs) out.set(c.csr, c.value);
      if (r.fcsr !== undefined) out.set(FCSR, r.fcsr);
      break;
    case 'trap':
    case 'interrupt': {
      const base = r.priv === 3 ? 0x300 : r.priv === 1 ? 0x100 : 0x000;
      out.set(base, r.status);
      out.set(base + 0x42, r.cause);
      out.set(base + 0x41, r.epc);
      out.set(base + 0x43, r.tval);
      break;
    }
    case 'xret':
      out.set(0x300, r.mstatus);
      break;
    default:
      break;
  }
}

/** fcsr = frm << 5 | fflags: after writes to one view, the others follow (unknown parts stay unknown). */
function completeViews(w: Map<number, bigint | undefined>, prior: ReadonlyMap<number, bigint>): void {
  if (w.has(FCSR)) {
    const v = w.get(FCSR);
    w.set(FFLAGS, v === undefined ? undefined : v & 0x1fn);
    w.set(FRM, v === undefined ? undefined : (v >> 5n) & 7n);
  } else if (w.has(FFLAGS) || w.has(FRM)) {
    const flags = w.has(FFLAGS) ? w.get(FFLAGS) : prior.get(FFLAGS);
    const rm = w.has(FRM) ? w.get(FRM) : prior.get(FRM);
    w.set(FCSR, flags === undefined || rm === undefined ? undefined : ((rm & 7n) << 5n) | (flags & 0x1fn));
  }
}

function instrOf(r: TvRecord): { size: 16 | 32; bits: number } | undefined {
  return r.kind === 'instruction' || r.kind === 'trap' || r.kind === 'xret' ? r.instr : undefined;
}

function privOf(r: TvRecord): number | undefined {
  return r.kind === 'trap' || r.kind === 'interrupt' || r.kind === 'xret' ? r.priv : r.kind === 'instruction' ? r.priv : undefined;
}

function nextPcOf(r: TvRecord): bigint | undefined {
  return r.kind === 'instruction' || r.kind === 'trap' || r.kind === 'interrupt' || r.kind === 'xret' ? r.nextPc : undefined;
}

const showReg = (v: bigint | undefined, written: boolean): string =>
  v === undefined ? (written ? 'unknown' : 'not written (value unknown)') : written ? hex(v) : `not written (still ${hex(v)})`;
const memText = (field: TvAbsent, v: { value: bigint; bytes?: number }): string =>
  field === 'store-data' ? `${hex(v.value)} (${v.bytes} byte${v.bytes === 1 ? '' : 's'})` : hex(v.value);

/**
 * Compares `bytes` with `expected` (records of QEMU's run; `pcs[i]` is the address of record i's
 * instruction). Never throws on any byte stream.
 */
export function checkTv(bytes: Uint8Array, expected: readonly TvRecord[], pcs: readonly bigint[], opts: TvCheckOptions): TvCheckResult {
  return checkDecoded(decodeTv(bytes, opts.params, { pc: opts.entry, priv: 3 }), expected, pcs, opts);
}

/** checkTv on a stream already decoded with `decodeTv(bytes, params, { pc: entry, priv: 3 })`. */
export function checkDecoded(decoded: TvRebuild, expected: readonly TvRecord[], pcs: readonly bigint[], opts: TvCheckOptions): TvCheckResult {
  const xmask = (1n << BigInt(opts.params.xlen)) - 1n;
  const fmask = (1n << BigInt(opts.params.flen)) - 1n;
  const absent = new Set(opts.absent ?? []);
  const groups = decoded.groups;

  /** The state both sides agree on so far (registers by number, the privilege mode). */
  const prior = new Map<number, bigint>([[GPR0, 0n]]);
  let priorPriv = 3;
  const recent: TvCheckedGroup[] = [];
  let skipped = 0;
  let g = 0;
  let first = true;
  const ew = new Map<number, bigint | undefined>();
  const aw = new Map<number, bigint | undefined>();

  const nextActual = (): TvGroupChanges | undefined => {
    while (g < groups.length) {
      const a = groups[g++]!;
      // State outside any group (unobserved counters) and a loader's groups before the first instruction.
      if (!a.grouped || (first && (a.kind === 'reset' || a.kind === 'debug-write'))) {
        skipped++;
        continue;
      }
      first = false;
      return a;
    }
    return undefined;
  };

  const diverge = (index: number, pc: bigint, diffs: TvFieldDiff[], exp: TvRecord | undefined, act: TvGroupChanges | undefined): TvCheckResult => ({
    ok: false,
    matched: index,
    expectedGroups: expected.length,
    skipped,
    divergence: { index, pc, ...(exp ? { expected: exp } : {}), ...(act ? { actual: act } : {}), diffs, preceding: recent.slice() },
  });

  // The differences of the group being compared (made once, not per group: a closure per group
  // was a noticeable share of a long check).
  let diffs: TvFieldDiff[] | undefined;
  const diff = (field: string, e: string, a: string): void => {
    (diffs ??= []).push({ field, expected: e, actual: a });
  };
  const memField = (field: TvAbsent, e: { value: bigint; bytes?: number } | undefined, a: { value: bigint; bytes: number } | undefined): void => {
    if (e === undefined && a === undefined) return;
    if (a === undefined) {
      if (!absent.has(field)) diff(field, memText(field, e!), 'not reported');
    } else if (e === undefined) diff(field, 'none', memText(field, a));
    else if (e.value !== a.value || (field === 'store-data' && e.bytes !== a.bytes)) diff(field, memText(field, e), memText(field, a));
  };

  for (let i = 0; i < expected.length; i++) {
    const exp = expected[i]!;
    const pc = pcs[i] ?? 0n;
    const act = nextActual();
    if (act === undefined) {
      // With prefix, a stream cut inside its last group (a simulation stopped mid-write) ends before it.
      if (decoded.error && !(opts.prefix && decoded.error.code === 'truncated')) return { ok: false, matched: i, expectedGroups: expected.length, skipped, decodeError: decoded.error };
      if (opts.prefix) return { ok: true, matched: i, expectedGroups: expected.length, skipped, ...(decoded.error ? { cutShort: true } : {}) };
      return diverge(i, pc, [{ field: 'group', expected: `${exp.kind} (group ${i} of ${expected.length})`, actual: `none: the stream ends after ${i} groups` }], exp, undefined);
    }
    diffs = undefined as TvFieldDiff[] | undefined; // (the closure above fills it: no narrowing to undefined)

    if (act.kind !== exp.kind) diff('kind', exp.kind, act.kind);

    // pc after the group.
    const np = nextPcOf(exp);
    const apc = act.pc?.value;
    if (np !== undefined && apc !== np) diff('pc', hex(np), act.pc === undefined ? 'not reported' : apc === undefined ? `unknown (${act.pc.how})` : hex(apc));

    // Instruction.
    const ei = instrOf(exp);
    const ai = act.instr;
    if ((ei === undefined) !== (ai === undefined) || (ei !== undefined && (ei.bits !== ai!.value || ei.size !== ai!.bits))) {
      diff('instr', ei === undefined ? 'none' : `${hex(ei.bits)} (${ei.size}-bit)`, ai === undefined ? 'none' : `${hex(ai.value)} (${ai.bits}-bit)`);
    }

    // Registers, as state.
    recordWrites(exp, ew);
    aw.clear();
    for (const r of act.regs) {
      if (r.regno === GPR0) continue;
      let v = r.value;
      if (v === undefined) {
        // An incremental write whose base the decoder did not know: take the agreed state's.
        const base = aw.has(r.regno) ? aw.get(r.regno) : prior.get(r.regno);
        const mask = r.regno >= 0x1020 && r.regno < 0x1040 ? fmask : xmask;
        v = base === undefined ? undefined : (r.how === 'add' ? base + r.operand : base | r.operand) & mask;
      }
      aw.set(r.regno, v);
    }
    completeViews(ew, prior);
    completeViews(aw, prior);
    let regDiffs: number[] | undefined;
    for (const [k, v] of ew) {
      const av = aw.has(k) ? aw.get(k) : prior.get(k);
      if (v !== av) (regDiffs ??= []).push(k);
    }
    for (const [k, v] of aw) {
      if (!ew.has(k) && prior.get(k) !== v) (regDiffs ??= []).push(k);
    }
    if (regDiffs !== undefined) {
      for (const k of regDiffs.sort((a, b) => a - b)) {
        const ev = ew.has(k) ? ew.get(k) : prior.get(k);
        const av = aw.has(k) ? aw.get(k) : prior.get(k);
        diff(regName(k), showReg(ev, ew.has(k)), showReg(av, aw.has(k)));
      }
    }

    // Privilege mode.
    const ep = privOf(exp) ?? priorPriv;
    const ap = act.priv ?? priorPriv;
    if (ep !== ap) diff('priv', privName(ep), act.priv === undefined ? `not reported (still ${privName(ap)})` : privName(ap));

    // Memory: effective and physical address, store data.
    let aE: { value: bigint; bytes: number } | undefined;
    let aP: { value: bigint; bytes: number } | undefined;
    let aS: { value: bigint; bytes: number } | undefined;
    for (const a of act.addl) {
      if (a.name === 'eaddr') aE = a;
      else if (a.name === 'paddr') aP = a;
      else if (a.name === 'store.data') aS = a;
    }
    const isInstr = exp.kind === 'instruction';
    if (isInstr || aE !== undefined || aP !== undefined || aS !== undefined) {
      memField('eaddr', isInstr && exp.eaddr !== undefined ? { value: exp.eaddr } : undefined, aE);
      memField('paddr', isInstr && exp.paddr !== undefined ? { value: exp.paddr } : undefined, aP);
      memField('store-data', isInstr && exp.storeData !== undefined ? { value: exp.storeData.value, bytes: exp.storeData.bytes } : undefined, aS);
    }

    if (diffs !== undefined) return diverge(i, pc, diffs, exp, act);

    for (const [k, v] of ew) {
      if (v === undefined) prior.delete(k);
      else prior.set(k, v);
    }
    priorPriv = ep;
    recent.push({ index: i, pc, expected: exp, actual: act });
    if (recent.length > 3) recent.shift();
  }
  const extra = opts.expectedIsPrefix ? undefined : nextActual();
  if (extra !== undefined) {
    return diverge(expected.length, extra.pc?.value ?? 0n, [{ field: 'group', expected: `none: QEMU's run ends after ${expected.length} groups`, actual: extra.kind }], undefined, extra);
  }
  if (decoded.error && !opts.expectedIsPrefix) return { ok: false, matched: expected.length, expectedGroups: expected.length, skipped, decodeError: decoded.error };
  return { ok: true, matched: expected.length, expectedGroups: expected.length, skipped };
}

/**
 * The record a decoded group stands for (the inverse of the tvtrace encoder, from the independent
 * decoder's output), or a message saying why there is none: for round-trip tests. The first GPR
 * write is the record's gpr, the first FPR write its fpr, the other registers its CSR writes in
 * stream order.
 */
export function recordOfGroup(g: TvGroupChanges): TvRecord | string {
  const pc = g.pc?.value;
  if (pc === undefined) return 'no next pc';
  const instr = g.instr !== undefined ? { size: g.instr.bits, bits: g.instr.value } : undefined;
  const priv = g.priv === undefined ? undefined : (g.priv as 0 | 1 | 3);
  const value = (regno: number): bigint | undefined => g.regs.find((r) => r.regno === regno)?.value;
  if (g.kind === 'trap' || g.kind === 'interrupt') {
    if (priv === undefined) return 'a trap without a privilege';
    const base = priv === 3 ? 0x300 : priv === 1 ? 0x100 : 0;
    const [status, cause, epc, tval] = [base, base + 0x42, base + 0x41, base + 0x43].map(value);
    if (status === undefined || cause === undefined || epc === undefined || tval === undefined) return 'a trap without its four CSRs';
    const t = { nextPc: pc, priv, status, cause, epc, tval };
    return g.kind === 'interrupt' ? { kind: 'interrupt', ...t } : { kind: 'trap', ...t, ...(instr ? { instr } : {}) };
  }
  if (g.kind === 'xret') {
    const mstatus = value(0x300);
    if (priv === undefined || mstatus === undefined) return 'an xRET without privilege or mstatus';
    return { kind: 'xret', nextPc: pc, ...(instr ? { instr } : {}), priv, mstatus };
  }
  if (g.kind !== 'instruction') return `a group of kind ${g.kind}`;
  let gpr: { reg: number; value: bigint } | undefined;
  let fpr: { reg: number; value: bigint } | undefined;
  const csrs: { csr: number; value: bigint }[] = [];
  for (const r of g.regs) {
    if (r.value === undefined) return `an incremental write of ${r.name} with no known base`;
    if (r.regno >= 0x1000 && r.regno < 0x1020 && gpr === undefined) gpr = { reg: r.regno - 0x1000, value: r.value };
    else if (r.regno >= 0x1020 && r.regno < 0x1040 && fpr === undefined) fpr = { reg: r.regno - 0x1020, value: r.value };
    else if (r.regno < 0x1000) csrs.push({ csr: r.regno, value: r.value });
    else return `a second write of ${r.name}`;
  }
  const addl = (name: string) => g.addl.find((a) => a.name === name);
  const store = addl('store.data');
  return {
    kind: 'instruction',
    nextPc: pc,
    ...(instr ? { instr } : {}),
    ...(gpr ? { gpr } : {}),
    ...(fpr ? { fpr } : {}),
    ...(csrs.length ? { csrs } : {}),
    ...(addl('paddr') ? { paddr: addl('paddr')!.value } : {}),
    ...(addl('eaddr') ? { eaddr: addl('eaddr')!.value } : {}),
    ...(store ? { storeData: { bytes: store.bytes as 1 | 2 | 4 | 8, value: store.value } } : {}),
    ...(priv !== undefined ? { priv } : {}),
  };
}

/** The disassembly of a record's instruction, or what the group is when it has none. */
function what(exp: TvRecord | undefined, act: TvGroupChanges | undefined, pc: bigint, xlen: Xlen): string {
  const i = exp !== undefined ? instrOf(exp) : act?.instr !== undefined ? { bits: act.instr.value, size: act.instr.bits } : undefined;
  if (i !== undefined) return disassemble(i.bits, pc, xlen);
  if (exp?.kind === 'interrupt') return `interrupt (cause ${hex(exp.cause & ~(1n << BigInt(xlen - 1)))})`;
  if (exp?.kind === 'trap') return `trap without an instruction (cause ${hex(exp.cause)}: a fetch fault)`;
  return act?.kind ?? '';
}

/** The report of a divergence: what `rvtrace tv-check` prints. */
export function formatDivergence(d: TvDivergence, xlen: Xlen, streamName: string): string[] {
  const offset = d.actual !== undefined ? ` (${streamName} byte offset ${hex(d.actual.offset)})` : '';
  const lines = [`first divergence at group ${d.index}${offset}: pc ${hex(d.pc)}: ${what(d.expected, d.actual, d.pc, xlen)}`];
  for (const f of d.diffs) lines.push(`  ${f.field}: expected ${f.expected}, actual ${f.actual}`);
  lines.push(`  expected (QEMU): ${d.expected !== undefined ? formatTvRecord(d.expected) : 'nothing'}`);
  lines.push(`  actual (stream): ${d.actual !== undefined ? groupLine(d.actual) : 'nothing'}`);
  if (d.preceding.length > 0) {
    lines.push(`preceding groups (matched):`);
    for (const p of d.preceding) {
      lines.push(`  group ${p.index}: pc ${hex(p.pc)}: ${what(p.expected, p.actual, p.pc, xlen)}`);
      lines.push(`    expected: ${formatTvRecord(p.expected!)}`);
      lines.push(`    actual:   ${groupLine(p.actual!)}`);
    }
  }
  return lines;
}
