/**
 * The `bin` record format: the same information as `text`, compact, for large record files.
 * docs/tvtrace-model.md has the byte layout; in short: a 16-byte header (magic `RVTVRECS`, version 1,
 * three reserved zero bytes, the record count as a little-endian u32), then each record as a kind
 * byte, a presence-flags field where the kind has optional fields, and the values: numbers as
 * unsigned LEB128 (7 bits per byte, low group first), instruction bits, register numbers, CSR
 * addresses and sizes as fixed-width little-endian integers.
 */
import { RvError } from '../../common/errors.ts';
import {
  checkTvRecord,
  instructionRecord,
  MAX_MEM_TRANSACTIONS,
  tvMemRequestHasData,
  tvMemResponseHasData,
  type TvMemTransaction,
  MAX_U64,
  type TvCsrWrite, type TvInstr, type TvPriv, type TvRecord, type TvRegFile } from '../records.ts';

export const BINARY_MAGIC = 'RVTVRECS';
export const BINARY_VERSION = 1;

/** Kind bytes. */
const KIND = { instruction: 1, trap: 2, interrupt: 3, xret: 4, 'debug-reg': 5, 'debug-mem': 6, reset: 7, unobserved: 8 } as const;
const KIND_NAMES = ['', 'instruction', 'trap', 'interrupt', 'xret', 'debug-reg', 'debug-mem', 'reset', 'unobserved'] as const;

/**
 * Instruction presence flags (u16). Bits 9-11 hold the number of CSR writes, bits 13-14 the number
 * of memory transactions; 15 is zero. (Files without bits 12-14, the pc's paddr and memory
 * transactions, read as before.)
 */
const F = { instr: 1, instr16: 2, gpr: 4, fpr: 8, paddr: 16, eaddr: 32, store: 64, fcsr: 128, priv: 256, pcPaddr: 4096 } as const;
const CSR_COUNT_SHIFT = 9;
const MEM_COUNT_SHIFT = 13;
/** A memory transaction's response byte: none, ok, fail. */
const RESPONSE = { none: 0, ok: 1, fail: 2 } as const;
const FILES: readonly TvRegFile[] = ['gpr', 'fpr', 'csr'];

// ---- writing ------------------------------------------------------------------------------

class Writer {
  buf = new Uint8Array(4096);
  n = 0;
  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    bigger.set(this.buf.subarray(0, this.n));
    this.buf = bigger;
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.n++] = v;
  }
  u16(v: number): void {
    this.u8(v & 0xff);
    this.u8(v >>> 8);
  }
  u32(v: number): void {
    this.u16(v & 0xffff);
    this.u16(v >>> 16);
  }
  leb(v: bigint): void {
    let x = v;
    while (x >= 0x80n) {
      this.u8(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.u8(Number(x));
  }
  instr(i: TvInstr): void {
    if (i.size === 16) this.u16(i.bits);
    else this.u32(i.bits);
  }
}

const instrFlags = (i: TvInstr | undefined): number => (i === undefined ? 0 : i.size === 16 ? F.instr | F.instr16 : F.instr);

function writeRecord(w: Writer, r: TvRecord): void {
  w.u8(KIND[r.kind]);
  switch (r.kind) {
    case 'instruction': {
      const csrs = r.csrs ?? [];
      let flags = instrFlags(r.instr) | (csrs.length << CSR_COUNT_SHIFT);
      if (r.gpr) flags |= F.gpr;
      if (r.fpr) flags |= F.fpr;
      if (r.paddr !== undefined) flags |= F.paddr;
      if (r.eaddr !== undefined) flags |= F.eaddr;
      if (r.storeData) flags |= F.store;
      if (r.fcsr !== undefined) flags |= F.fcsr;
      if (r.priv !== undefined) flags |= F.priv;
      if (r.pcPaddr !== undefined) flags |= F.pcPaddr;
      const mem = r.mem ?? [];
      flags |= mem.length << MEM_COUNT_SHIFT;
      w.u16(flags);
      w.leb(r.nextPc);
      if (r.instr) w.instr(r.instr);
      if (r.gpr) {
        w.u8(r.gpr.reg);
        w.leb(r.gpr.value);
      }
      if (r.fpr) {
        w.u8(r.fpr.reg);
        w.leb(r.fpr.value);
      }
      for (const c of csrs) {
        w.u16(c.csr);
        w.leb(c.value);
      }
      if (r.paddr !== undefined) w.leb(r.paddr);
      if (r.eaddr !== undefined) w.leb(r.eaddr);
      if (r.storeData) {
        w.u8(r.storeData.bytes);
        w.leb(r.storeData.value);
      }
      if (r.fcsr !== undefined) w.leb(r.fcsr);
      if (r.priv !== undefined) w.u8(r.priv);
      if (r.pcPaddr !== undefined) w.leb(r.pcPaddr);
      // Each transaction: op | size code << 4, the address, [data], the response byte, [response data].
      for (const t of mem) {
        w.u8(t.op | (Math.log2(t.bytes) << 4));
        w.leb(t.addr);
        if (t.data !== undefined) w.leb(t.data);
        w.u8(t.response === undefined ? RESPONSE.none : t.response.ok ? RESPONSE.ok : RESPONSE.fail);
        if (t.response?.data !== undefined) w.leb(t.response.data);
      }
      return;
    }
    case 'trap':
    case 'interrupt':
      if (r.kind === 'trap') w.u8(instrFlags(r.instr));
      w.leb(r.nextPc);
      if (r.kind === 'trap' && r.instr) w.instr(r.instr);
      w.u8(r.priv);
      w.leb(r.status);
      w.leb(r.cause);
      w.leb(r.epc);
      w.leb(r.tval);
      return;
    case 'xret':
      w.u8(instrFlags(r.instr));
      w.leb(r.nextPc);
      if (r.instr) w.instr(r.instr);
      w.u8(r.priv);
      w.leb(r.mstatus);
      return;
    case 'debug-reg':
      w.u8(FILES.indexOf(r.file));
      w.u16(r.index);
      w.leb(r.value);
      return;
    case 'debug-mem':
      w.leb(r.paddr);
      w.u8(r.bytes);
      w.leb(r.value);
      return;
    case 'reset':
      return;
    case 'unobserved':
      w.u8((r.mtime !== undefined ? 1 : 0) | (r.mcycle !== undefined ? 2 : 0) | (r.minstret !== undefined ? 4 : 0));
      if (r.mtime !== undefined) w.leb(r.mtime);
      if (r.mcycle !== undefined) w.leb(r.mcycle);
      if (r.minstret !== undefined) w.leb(r.minstret);
      return;
  }
}

/** A record list as `bin` bytes. Throws an RvError naming the record when one cannot be stored. */
export function encodeBinaryRecords(records: readonly TvRecord[]): Uint8Array {
  if (records.length > 0xffff_ffff) throw new RvError('bad-value', `${records.length} records; the bin format holds at most 2^32 - 1`);
  const w = new Writer();
  for (const c of BINARY_MAGIC) w.u8(c.charCodeAt(0));
  w.u8(BINARY_VERSION);
  w.u8(0);
  w.u16(0);
  w.u32(records.length);
  records.forEach((r, i) => {
    const problem = checkTvRecord(r);
    if (problem !== undefined) throw new RvError('bad-value', `record ${i}: ${problem}`, { path: `records/${i}` });
    writeRecord(w, r);
  });
  return w.buf.slice(0, w.n);
}

// ---- reading ------------------------------------------------------------------------------

class Reader {
  at = 0;
  /** Record index and kind being read, for messages. */
  what = 'header';
  constructor(
    readonly b: Uint8Array,
    readonly file: string,
  ) {}
  fail(message: string, offset = this.at): never {
    throw new RvError('bad-file', message, { file: this.file, offset });
  }
  need(k: number, field: string): void {
    if (this.at + k > this.b.length) this.fail(`${this.what}: the file ends inside ${field}; expected ${k} byte(s), found ${this.b.length - this.at}`);
  }
  u8(field: string): number {
    this.need(1, field);
    return this.b[this.at++]!;
  }
  u16(field: string): number {
    this.need(2, field);
    const v = this.b[this.at]! | (this.b[this.at + 1]! << 8);
    this.at += 2;
    return v;
  }
  u32(field: string): number {
    this.need(4, field);
    const v = (this.b[this.at]! | (this.b[this.at + 1]! << 8) | (this.b[this.at + 2]! << 16) | (this.b[this.at + 3]! << 24)) >>> 0;
    this.at += 4;
    return v;
  }
  leb(field: string): bigint {
    const start = this.at;
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.u8(field);
      v |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) this.fail(`${this.what}: ${field} is longer than 10 LEB128 bytes; expected a value below 2^64`, start);
    }
    if (v > MAX_U64) this.fail(`${this.what}: ${field} is 0x${v.toString(16)}; expected a value below 2^64`, start);
    return v;
  }
  /** The flags byte of a kind whose defined bits are `defined`. */
  flags(defined: number): number {
    const at = this.at;
    const v = this.u8('the flags');
    if ((v & ~defined) !== 0) this.fail(`${this.what}: flags 0x${v.toString(16)}; expected only bits 0x${defined.toString(16)}`, at);
    return v;
  }
  instr(flags: number): TvInstr | undefined {
    if ((flags & (F.instr | F.instr16)) === F.instr16) this.fail(`${this.what}: the 16-bit instruction flag without an instruction; expected both or neither`, this.at);
    if ((flags & F.instr) === 0) return undefined;
    return flags & F.instr16 ? { size: 16, bits: this.u16('instr') } : { size: 32, bits: this.u32('instr') };
  }
}

function readRecord(rd: Reader): TvRecord {
  const kindAt = rd.at;
  const kindByte = rd.u8('the kind');
  const kind = KIND_NAMES[kindByte];
  if (kind === undefined || kind === '') return rd.fail(`${rd.what}: kind byte ${kindByte}; expected 1-8 (${KIND_NAMES.slice(1).join(', ')})`, kindAt);
  rd.what += ` (${kind})`;
  switch (kind) {
    case 'instruction': {
      const flagsAt = rd.at;
      const flags = rd.u16('the flags');
      const count = (flags >> CSR_COUNT_SHIFT) & 7;
      const memCount = (flags >> MEM_COUNT_SHIFT) & 3;
      if (flags >> 15 !== 0 || count > 4 || memCount > MAX_MEM_TRANSACTIONS) {
        rd.fail(`${rd.what}: flags 0x${flags.toString(16)}; expected bit 15 clear, at most 4 CSR writes and ${MAX_MEM_TRANSACTIONS} memory transactions`, flagsAt);
      }
      const nextPc = rd.leb('next_pc');
      const instr = rd.instr(flags);
      const gpr = flags & F.gpr ? { reg: rd.u8('the GPR number'), value: rd.leb('the GPR value') } : undefined;
      const fpr = flags & F.fpr ? { reg: rd.u8('the FPR number'), value: rd.leb('the FPR value') } : undefined;
      const csrs: TvCsrWrite[] = [];
      for (let i = 0; i < count; i++) csrs.push({ csr: rd.u16('a CSR address'), value: rd.leb('a CSR value') });
      const paddr = flags & F.paddr ? rd.leb('paddr') : undefined;
      const eaddr = flags & F.eaddr ? rd.leb('eaddr') : undefined;
      const storeData = flags & F.store ? { bytes: rd.u8('the store size') as 1 | 2 | 4 | 8, value: rd.leb('the store data') } : undefined;
      const fcsr = flags & F.fcsr ? rd.leb('fcsr') : undefined;
      const priv = flags & F.priv ? (rd.u8('priv') as TvPriv) : undefined;
      const pcPaddr = flags & F.pcPaddr ? rd.leb('pc_paddr') : undefined;
      const mem: TvMemTransaction[] = [];
      for (let k = 0; k < memCount; k++) {
        const opAt = rd.at;
        const opSize = rd.u8('a memory op and size');
        const op = opSize & 0xf;
        if (op > 13 || opSize >> 4 > 3) rd.fail(`${rd.what}: memory transaction byte 0x${opSize.toString(16)}; expected op 0-13 in bits 3:0 and size 0-3 in bits 7:4`, opAt);
        const bytes = (1 << (opSize >> 4)) as 1 | 2 | 4 | 8;
        const addr = rd.leb('a memory address');
        const data = tvMemRequestHasData(op) ? rd.leb('memory request data') : undefined;
        const rspAt = rd.at;
        const rsp = rd.u8('a memory response');
        if (rsp > RESPONSE.fail) rd.fail(`${rd.what}: memory response byte ${rsp}; expected 0 (none), 1 (ok) or 2 (fail)`, rspAt);
        const rspData = rsp !== RESPONSE.none && tvMemResponseHasData(op) ? rd.leb('memory response data') : undefined;
        mem.push({
          op,
          bytes,
          addr,
          ...(data !== undefined && { data }),
          ...(rsp !== RESPONSE.none && { response: { ok: rsp === RESPONSE.ok, ...(rspData !== undefined && { data: rspData }) } }),
        });
      }
      return instructionRecord({
        nextPc,
        instr,
        gpr,
        fpr,
        csrs: count > 0 ? csrs : undefined,
        paddr,
        eaddr,
        storeData,
        fcsr,
        priv,
        mem: mem.length > 0 ? mem : undefined,
        pcPaddr,
      });
    }
    case 'trap':
    case 'interrupt': {
      const flags = kind === 'trap' ? rd.flags(F.instr | F.instr16) : 0;
      const nextPc = rd.leb('next_pc');
      const instr = rd.instr(flags);
      const state = {
        nextPc,
        priv: rd.u8('priv') as TvPriv,
        status: rd.leb('status'),
        cause: rd.leb('cause'),
        epc: rd.leb('epc'),
        tval: rd.leb('tval'),
      };
      return kind === 'trap' ? { kind, ...(instr && { instr }), ...state } : { kind, ...state };
    }
    case 'xret': {
      const flags = rd.flags(F.instr | F.instr16);
      const nextPc = rd.leb('next_pc');
      const instr = rd.instr(flags);
      return { kind, nextPc, ...(instr && { instr }), priv: rd.u8('priv') as TvPriv, mstatus: rd.leb('mstatus') };
    }
    case 'debug-reg': {
      const fileAt = rd.at;
      const file = FILES[rd.u8('the register file')] ?? rd.fail(`${rd.what}: register file byte ${rd.b[fileAt]}; expected 0 (gpr), 1 (fpr), 2 (csr)`, fileAt);
      return { kind, file, index: rd.u16('the register index'), value: rd.leb('the value') };
    }
    case 'debug-mem':
      return { kind, paddr: rd.leb('paddr'), bytes: rd.u8('the size') as 1 | 2 | 4 | 8, value: rd.leb('the data') };
    case 'reset':
      return { kind };
    case 'unobserved': {
      const flags = rd.flags(7);
      const out: { kind: 'unobserved'; mtime?: bigint; mcycle?: bigint; minstret?: bigint } = { kind };
      if (flags & 1) out.mtime = rd.leb('mtime');
      if (flags & 2) out.mcycle = rd.leb('mcycle');
      if (flags & 4) out.minstret = rd.leb('minstret');
      return out;
    }
  }
}

/** Parses `bin` bytes. Every error names the file, the byte offset, the record and what was expected. */
export function decodeBinaryRecords(bytes: Uint8Array, fileName: string): TvRecord[] {
  const rd = new Reader(bytes, fileName);
  const magic = String.fromCharCode(...bytes.subarray(0, BINARY_MAGIC.length));
  if (magic !== BINARY_MAGIC) rd.fail(`expected the magic "${BINARY_MAGIC}" at the start`, 0);
  rd.at = BINARY_MAGIC.length;
  const version = rd.u8('the version');
  if (version !== BINARY_VERSION) rd.fail(`version ${version}; this reader knows version ${BINARY_VERSION}`, rd.at - 1);
  if (rd.u8('the header') !== 0 || rd.u16('the header') !== 0) rd.fail('reserved header bytes are not zero', BINARY_MAGIC.length + 1);
  const count = rd.u32('the record count');
  const records: TvRecord[] = [];
  for (let i = 0; i < count; i++) {
    const start = rd.at;
    rd.what = `record ${i}`;
    const r = readRecord(rd);
    const problem = checkTvRecord(r);
    if (problem !== undefined) rd.fail(`${rd.what}: ${problem}`, start);
    records.push(r);
  }
  if (rd.at !== bytes.length) rd.fail(`${bytes.length - rd.at} byte(s) after the ${count} records the header announces; expected the end of the file`);
  return records;
}
