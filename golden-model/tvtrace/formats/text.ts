/**
 * The `text` record format: one TvRecord per line, for people to read, diff and write by hand.
 * docs/tvtrace-model.md has the full description; in short:
 *
 *   # rvtrace tv records v1
 *   instruction next_pc=80000004 instr=006281b3 x3=1234        # add gp, t0, t1
 *   instruction next_pc=8000000e instr=8d0d x10=ffffffff12345678
 *   instruction next_pc=80000016 instr=3045b4f3 x9=888 csr304=880
 *   trap next_pc=10000 instr=00000000 priv=M status=a000018b0 cause=2 epc=81234 tval=0
 *   instruction next_pc=80000108 instr=0c55352f x10=5 mem0=amoadd:8:80001000:1/ok:4   # amoadd.d
 *   debug-mem paddr=80000000 data=4:00000297
 *   reset
 *
 * A line is the record kind and `name=value` fields in any order; `#` starts a comment. Numbers are
 * hexadecimal (an optional 0x is accepted); an instruction is exactly 4 (16-bit) or 8 (32-bit) hex
 * digits; privilege modes are U, S, M. The writer prints the fields in a fixed order, values in
 * lowercase without leading zeros, so a file written by it survives text -> records -> text unchanged.
 */
import { RvError } from '../../common/errors.ts';
import { hexU64, splitLines, stripBom } from '../../hart/formats/common.ts';
import { TV_MEM_OP_NAMES } from '../protocol.ts';
import {
  checkTvRecord,
  instructionRecord,
  MAX_MEM_TRANSACTIONS,
  tvMemRequestHasData,
  tvMemResponseHasData,
  type TvMemTransaction,
  type TvCsrWrite,
  type TvInstr,
  type TvPriv,
  type TvRecord,
  type TvRecordKind,
  type TvRegWrite,
  type TvStoreData,
  TV_RECORD_KINDS,
} from '../records.ts';

export const TEXT_SIGNATURE = '# rvtrace tv records';
export const TEXT_VERSION = 1;
export const TEXT_FIRST_LINE = `${TEXT_SIGNATURE} v${TEXT_VERSION}`;

const PRIV_NAME: Record<TvPriv, string> = { 0: 'U', 1: 'S', 3: 'M' };
const PRIV_BY_NAME: Record<string, TvPriv> = { U: 0, S: 1, M: 3 };

/** The fields each kind accepts, for "expected ..." in error messages. */
const FIELDS_OF: Record<TvRecordKind, string> = {
  instruction: 'next_pc, pc_paddr, instr, priv, xN, fN, store, eaddr, paddr, mem0, mem1, csrNNN, fcsr',
  trap: 'next_pc, instr, priv, status, cause, epc, tval',
  interrupt: 'next_pc, priv, status, cause, epc, tval',
  xret: 'next_pc, instr, priv, mstatus',
  'debug-reg': 'exactly one of xN, fN, csrNNN',
  'debug-mem': 'paddr, data',
  reset: 'none',
  unobserved: 'mtime, mcycle, minstret',
};

// ---- writing ------------------------------------------------------------------------------

const h = (v: bigint): string => v.toString(16);
const instrText = (i: TvInstr): string => i.bits.toString(16).padStart(i.size / 4, '0');
const csrKey = (csr: number): string => `csr${csr.toString(16).padStart(3, '0')}`;
const sized = (bytes: number, v: bigint): string => `${bytes}:${h(v)}`;

/** A memory transaction: OP:BYTES:ADDR[:DATA][/ok|/fail[:DATA]] (data where the op has it). */
function memText(t: TvMemTransaction): string {
  let s = `${TV_MEM_OP_NAMES[t.op]}:${t.bytes}:${h(t.addr)}${t.data !== undefined ? `:${h(t.data)}` : ''}`;
  if (t.response) s += `/${t.response.ok ? 'ok' : 'fail'}${t.response.data !== undefined ? `:${h(t.response.data)}` : ''}`;
  return s;
}

/** One record as a line (no newline). Throws an RvError naming the record when it cannot be stored. */
export function formatTvRecord(r: TvRecord, index = 0): string {
  const problem = checkTvRecord(r);
  if (problem !== undefined) throw new RvError('bad-value', `record ${index}: ${problem}`, { path: `records/${index}` });
  const f: string[] = [r.kind];
  switch (r.kind) {
    case 'instruction':
      f.push(`next_pc=${h(r.nextPc)}`);
      if (r.instr) f.push(`instr=${instrText(r.instr)}`);
      if (r.priv !== undefined) f.push(`priv=${PRIV_NAME[r.priv]}`);
      if (r.gpr) f.push(`x${r.gpr.reg}=${h(r.gpr.value)}`);
      if (r.fpr) f.push(`f${r.fpr.reg}=${h(r.fpr.value)}`);
      if (r.storeData) f.push(`store=${sized(r.storeData.bytes, r.storeData.value)}`);
      if (r.eaddr !== undefined) f.push(`eaddr=${h(r.eaddr)}`);
      if (r.paddr !== undefined) f.push(`paddr=${h(r.paddr)}`);
      (r.mem ?? []).forEach((t, k) => f.push(`mem${k}=${memText(t)}`));
      for (const c of r.csrs ?? []) f.push(`${csrKey(c.csr)}=${h(c.value)}`);
      if (r.fcsr !== undefined) f.push(`fcsr=${h(r.fcsr)}`);
      if (r.pcPaddr !== undefined) f.push(`pc_paddr=${h(r.pcPaddr)}`);
      break;
    case 'trap':
    case 'interrupt':
      f.push(`next_pc=${h(r.nextPc)}`);
      if (r.kind === 'trap' && r.instr) f.push(`instr=${instrText(r.instr)}`);
      f.push(`priv=${PRIV_NAME[r.priv]}`, `status=${h(r.status)}`, `cause=${h(r.cause)}`, `epc=${h(r.epc)}`, `tval=${h(r.tval)}`);
      break;
    case 'xret':
      f.push(`next_pc=${h(r.nextPc)}`);
      if (r.instr) f.push(`instr=${instrText(r.instr)}`);
      f.push(`priv=${PRIV_NAME[r.priv]}`, `mstatus=${h(r.mstatus)}`);
      break;
    case 'debug-reg':
      f.push(`${r.file === 'gpr' ? `x${r.index}` : r.file === 'fpr' ? `f${r.index}` : csrKey(r.index)}=${h(r.value)}`);
      break;
    case 'debug-mem':
      f.push(`paddr=${h(r.paddr)}`, `data=${sized(r.bytes, r.value)}`);
      break;
    case 'reset':
      break;
    case 'unobserved':
      if (r.mtime !== undefined) f.push(`mtime=${h(r.mtime)}`);
      if (r.mcycle !== undefined) f.push(`mcycle=${h(r.mcycle)}`);
      if (r.minstret !== undefined) f.push(`minstret=${h(r.minstret)}`);
      break;
  }
  return f.join(' ');
}

/** A whole record list as text, first line the signature. */
export function encodeTextRecords(records: readonly TvRecord[]): string {
  const lines = [TEXT_FIRST_LINE];
  records.forEach((r, i) => lines.push(formatTvRecord(r, i)));
  return lines.join('\n') + '\n';
}

// ---- reading ------------------------------------------------------------------------------

class LineError extends Error {}
const bad = (message: string): never => {
  throw new LineError(message);
};

function hexValue(name: string, t: string): bigint {
  const digits = t.startsWith('0x') || t.startsWith('0X') ? t.slice(2) : t;
  const v = digits.length > 0 && digits.length <= 16 ? hexU64(digits) : undefined;
  return v ?? bad(`${name}=${t}: expected a hexadecimal value below 2^64`);
}

function instrValue(t: string): TvInstr {
  if (!/^[0-9a-fA-F]+$/.test(t) || (t.length !== 4 && t.length !== 8)) {
    return bad(`instr=${t}: expected exactly 4 hex digits (16-bit instruction) or 8 (32-bit)`);
  }
  return { size: t.length === 4 ? 16 : 32, bits: Number.parseInt(t, 16) };
}

function privValue(t: string): TvPriv {
  return PRIV_BY_NAME[t] ?? bad(`priv=${t}: expected U, S or M`);
}

/** `BYTES:HEX` with BYTES 1, 2, 4 or 8. */
function sizedValue(name: string, t: string): TvStoreData {
  const colon = t.indexOf(':');
  const bytes = Number(t.slice(0, colon));
  if (colon < 0 || (bytes !== 1 && bytes !== 2 && bytes !== 4 && bytes !== 8)) return bad(`${name}=${t}: expected BYTES:HEX with BYTES 1, 2, 4 or 8`);
  return { bytes, value: hexValue(name, t.slice(colon + 1)) };
}

const MEM_SYNTAX = 'OP:BYTES:ADDR[:DATA][/ok|/fail[:DATA]] (OP load, store, lr, sc, amoswap ... amomaxu, fetch; DATA where the op has it)';

function memValue(name: string, t: string): TvMemTransaction {
  const [req, rsp, ...rest] = t.split('/');
  const parts = req!.split(':');
  const op = TV_MEM_OP_NAMES.indexOf(parts[0]!);
  const bytes = Number(parts[1]);
  if (rest.length > 0 || op < 0 || (bytes !== 1 && bytes !== 2 && bytes !== 4 && bytes !== 8) || parts.length < 3 || parts.length > 4) return bad(`${name}=${t}: expected ${MEM_SYNTAX}`);
  const withData = tvMemRequestHasData(op);
  if (withData !== (parts.length === 4)) return bad(`${name}=${t}: ${parts[0]} ${withData ? 'needs' : 'has no'} request data; expected ${MEM_SYNTAX}`);
  const tr: { op: number; bytes: 1 | 2 | 4 | 8; addr: bigint; data?: bigint; response?: { ok: boolean; data?: bigint } } = { op, bytes, addr: hexValue(name, parts[2]!) };
  if (withData) tr.data = hexValue(name, parts[3]!);
  if (rsp !== undefined) {
    const [result, data, ...more] = rsp.split(':');
    const rspData = tvMemResponseHasData(op);
    if ((result !== 'ok' && result !== 'fail') || more.length > 0 || rspData !== (data !== undefined)) {
      return bad(`${name}=${t}: a ${parts[0]} response is /ok or /fail${rspData ? ' with :DATA' : ' without data'}; expected ${MEM_SYNTAX}`);
    }
    tr.response = { ok: result === 'ok', ...(data !== undefined && { data: hexValue(name, data) }) };
  }
  return tr;
}

const GPR_KEY = /^x([0-9]|[12][0-9]|3[01])$/;
const FPR_KEY = /^f([0-9]|[12][0-9]|3[01])$/;
const CSR_KEY = /^csr([0-9a-fA-F]{1,3})$/;

/** The fields of a line: name -> value in line order, duplicates refused. */
function fields(tokens: readonly string[]): [string, string][] {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const t of tokens) {
    const eq = t.indexOf('=');
    if (eq <= 0) bad(`"${t}": expected name=value`);
    const name = t.slice(0, eq);
    const key = CSR_KEY.test(name) ? `csr${Number.parseInt(name.slice(3), 16)}` : name;
    if (seen.has(key)) bad(`field ${name} given twice`);
    seen.add(key);
    out.push([name, t.slice(eq + 1)]);
  }
  return out;
}

function unknown(kind: TvRecordKind, name: string): never {
  return bad(`unknown field "${name}" for ${kind}; expected ${FIELDS_OF[kind]}`);
}

function required<T>(kind: TvRecordKind, name: string, v: T | undefined): T {
  return v ?? bad(`${kind} without ${name}; expected ${FIELDS_OF[kind]}`);
}

function parseInstruction(fs: [string, string][]): TvRecord {
  let nextPc: bigint | undefined;
  let instr: TvInstr | undefined;
  let priv: TvPriv | undefined;
  let gpr: TvRegWrite | undefined;
  let fpr: TvRegWrite | undefined;
  let storeData: TvStoreData | undefined;
  let eaddr: bigint | undefined;
  let paddr: bigint | undefined;
  let fcsr: bigint | undefined;
  let pcPaddr: bigint | undefined;
  const csrs: TvCsrWrite[] = [];
  const mem: TvMemTransaction[] = [];
  for (const [name, v] of fs) {
    if (name === 'next_pc') nextPc = hexValue(name, v);
    else if (name === 'pc_paddr') pcPaddr = hexValue(name, v);
    else if (/^mem\d$/.test(name) && Number(name.slice(3)) < MAX_MEM_TRANSACTIONS) {
      if (Number(name.slice(3)) !== mem.length) bad(`${name} after ${mem.length} memory transaction(s); expected mem0, then mem1, in order`);
      mem.push(memValue(name, v));
    }
    else if (name === 'instr') instr = instrValue(v);
    else if (name === 'priv') priv = privValue(v);
    else if (name === 'store') storeData = sizedValue(name, v);
    else if (name === 'eaddr') eaddr = hexValue(name, v);
    else if (name === 'paddr') paddr = hexValue(name, v);
    else if (name === 'fcsr') fcsr = hexValue(name, v);
    else if (GPR_KEY.test(name)) {
      if (gpr) bad(`two GPR writes (x${gpr.reg} and ${name}); an instruction record has at most one`);
      gpr = { reg: Number(name.slice(1)), value: hexValue(name, v) };
    } else if (FPR_KEY.test(name)) {
      if (fpr) bad(`two FPR writes (f${fpr.reg} and ${name}); an instruction record has at most one`);
      fpr = { reg: Number(name.slice(1)), value: hexValue(name, v) };
    } else if (CSR_KEY.test(name)) csrs.push({ csr: Number.parseInt(name.slice(3), 16), value: hexValue(name, v) });
    else unknown('instruction', name);
  }
  return instructionRecord({
    nextPc: required('instruction', 'next_pc', nextPc),
    instr,
    gpr,
    fpr,
    csrs: csrs.length > 0 ? csrs : undefined,
    paddr,
    eaddr,
    storeData,
    fcsr,
    priv,
    mem: mem.length > 0 ? mem : undefined,
    pcPaddr,
  });
}

/** Trap, interrupt and xret: a fixed set of fields, each given at most once. */
function parseFixed(kind: 'trap' | 'interrupt' | 'xret', fs: [string, string][]): TvRecord {
  const allowed = FIELDS_OF[kind].split(', ');
  const v: Record<string, string> = {};
  for (const [name, value] of fs) {
    if (!allowed.includes(name)) unknown(kind, name);
    v[name] = value;
  }
  const num = (name: string): bigint => hexValue(name, required(kind, name, v[name]));
  const nextPc = num('next_pc');
  const instr = v.instr !== undefined ? instrValue(v.instr) : undefined;
  const priv = privValue(required(kind, 'priv', v.priv));
  if (kind === 'xret') return { kind, nextPc, ...(instr && { instr }), priv, mstatus: num('mstatus') };
  const state = { nextPc, priv, status: num('status'), cause: num('cause'), epc: num('epc'), tval: num('tval') };
  return kind === 'trap' ? { kind, ...(instr && { instr }), ...state } : { kind, ...state };
}

function parseLine(tokens: readonly string[]): TvRecord {
  const kind = tokens[0]! as TvRecordKind;
  if (!TV_RECORD_KINDS.includes(kind)) return bad(`unknown record kind "${tokens[0]}"; expected one of ${TV_RECORD_KINDS.join(', ')}`);
  const fs = fields(tokens.slice(1));
  switch (kind) {
    case 'instruction':
      return parseInstruction(fs);
    case 'trap':
    case 'interrupt':
    case 'xret':
      return parseFixed(kind, fs);
    case 'debug-reg': {
      if (fs.length !== 1) return bad(`debug-reg with ${fs.length} fields; expected ${FIELDS_OF['debug-reg']}`);
      const [name, v] = fs[0]!;
      const value = hexValue(name, v);
      if (GPR_KEY.test(name)) return { kind, file: 'gpr', index: Number(name.slice(1)), value };
      if (FPR_KEY.test(name)) return { kind, file: 'fpr', index: Number(name.slice(1)), value };
      if (CSR_KEY.test(name)) return { kind, file: 'csr', index: Number.parseInt(name.slice(3), 16), value };
      return unknown(kind, name);
    }
    case 'debug-mem': {
      const v = Object.fromEntries(fs);
      for (const [name] of fs) if (name !== 'paddr' && name !== 'data') unknown(kind, name);
      const paddr = hexValue('paddr', required(kind, 'paddr', v.paddr));
      const data = sizedValue('data', required(kind, 'data', v.data));
      return { kind, paddr, bytes: data.bytes, value: data.value };
    }
    case 'reset':
      if (fs.length > 0) unknown(kind, fs[0]![0]);
      return { kind };
    case 'unobserved': {
      const out: { kind: 'unobserved'; mtime?: bigint; mcycle?: bigint; minstret?: bigint } = { kind };
      for (const [name, v] of fs) {
        if (name === 'mtime' || name === 'mcycle' || name === 'minstret') out[name] = hexValue(name, v);
        else unknown(kind, name);
      }
      return out;
    }
  }
}

/**
 * Parses the text format. Every error names the file and line, what was wrong and what was
 * expected, e.g. `t.txt:3: instr=13: expected exactly 4 hex digits (16-bit instruction) or 8 (32-bit)`.
 */
export function decodeTextRecords(text: string, fileName: string): TvRecord[] {
  const lines = splitLines(stripBom(text));
  const first = (lines[0] ?? '').trim();
  if (!first.startsWith(TEXT_SIGNATURE)) {
    throw new RvError('bad-header', `expected the first line "${TEXT_FIRST_LINE}"`, { file: fileName, line: 1 });
  }
  if (first !== TEXT_FIRST_LINE) {
    throw new RvError('bad-header', `"${first}" is not a version this reader knows; expected "${TEXT_FIRST_LINE}"`, { file: fileName, line: 1 });
  }
  const records: TvRecord[] = [];
  for (let i = 1; i < lines.length; i++) {
    const hash = lines[i]!.indexOf('#');
    const body = (hash >= 0 ? lines[i]!.slice(0, hash) : lines[i]!).trim();
    if (body === '') continue;
    try {
      const r = parseLine(body.split(/\s+/));
      const problem = checkTvRecord(r);
      if (problem !== undefined) bad(problem);
      records.push(r);
    } catch (e) {
      if (e instanceof LineError) throw new RvError('bad-value', e.message, { file: fileName, line: i + 1 });
      throw e;
    }
  }
  return records;
}
