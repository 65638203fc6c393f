/**
 * The `bin` format: our compact binary retirement stream. Layout (all multi-byte fixed fields
 * little-endian; docs/formats.md has the full table):
 *
 *   header   "RVTRSTRM", version u8 = 1, xlen u8, flags u8 = 0, reserved u8 = 0,
 *            retiresPerCycle u32, record count u32, segment count u32          (24 bytes)
 *   segments base u64, length u32, bytes[length]                               (per segment)
 *   records  head u8 [ext u8 [ext2 u8]] then the fields the flags announce
 *   data     only when header flag bit 0 is set: the data trace (see "Data section" below)
 *
 * A record is coded against the state left by the previous one, so the common case (one
 * sequential instruction, nothing else changing) is the single head byte:
 *   head: bits 0-3 itype, bit 4 ilastsize, bit 5 "iretire = 2^ilastsize" (one instruction),
 *         bit 6 "iaddr = sequential successor of the previous record", bit 7 ext follows
 *   ext:  bit 0 sameCycle, 1 sijump, 2 halted, 3 reset, 4 priv/ctype/trigger byte follows,
 *         5 time delta follows, 6 cause follows, 7 ext2 follows
 *   ext2: bit 0 tval follows, 1 context follows, 2 impdef follows, 3-7 reserved (0)
 * then, in this order and only when announced: iretire (LEB128), iaddr delta (zigzag LEB128 from
 * the previous record's sequential successor), priv | ctype << 3 | trigger << 5 (u8), cause
 * (LEB128), tval (LEB128), context (LEB128), impdef (LEB128), time delta (zigzag LEB128).
 * cause and tval are written when non-zero (they matter on trap records only), priv, context and
 * impdef when they differ from the previous record's, ctype and trigger when non-zero.
 *
 * State carried from record to record: the sequential successor (iaddr + 2 * iretire), priv,
 * context, impdef, time and the time step. A record's time is predicted as the previous time
 * (sameCycle records) or the previous time plus the step (others); an explicit delta on a record
 * that is not sameCycle becomes the new step, so a stream whose time counts cycles pays for time
 * only in its second record. The initial state is that of `emptyRecord()` (priv 3, everything else
 * 0) with a step of 0. Addresses and times wrap modulo 2^64, so every delta is a signed 64-bit
 * value: a zigzag code of at most 64 bits, 10 LEB128 bytes.
 */
import { RvError } from '../../common/errors.ts';
import { checkDataTrace, type DataAccess, type DataTrace, type LoadResponse } from '../data-records.ts';
import { ProgramImage, type Segment } from '../image.ts';
import type { RetirementRecord } from '../records.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { canonicalSegments, checkRecord, MAX_U32, MAX_U64 } from './common.ts';

export const BINARY_MAGIC = 'RVTRSTRM';
export const BINARY_VERSION = 1;
const HEADER_BYTES = 24;

const H_ITYPE = 0x0f;
const H_ILASTSIZE = 0x10;
const H_SINGLE = 0x20;
const H_SEQ = 0x40;
const H_EXT = 0x80;

const E_SAME = 0x01;
const E_SIJUMP = 0x02;
const E_HALTED = 0x04;
const E_RESET = 0x08;
const E_PCT = 0x10;
const E_TIME = 0x20;
const E_CAUSE = 0x40;
const E_EXT2 = 0x80;

const X_TVAL = 0x01;
const X_CONTEXT = 0x02;
const X_IMPDEF = 0x04;
const X_RESERVED = 0xf8;

/** Header flags: the only one defined says a data section follows the records. */
const F_DATA = 0x01;

/** Largest encoding of one record: 3 flag bytes, 3 LEB128 u32 (5 each), 4 LEB128 64-bit codes (10 each), the priv byte. */
const MAX_RECORD_BYTES = 3 + 15 + 40 + 1;

/** BigInt(2 * iretire) for the usual small block sizes, so the hot loops do not convert. */
const HALFWORD_BYTES: bigint[] = Array.from({ length: 256 }, (_, i) => BigInt(2 * i));
function byteLength(iretire: number): bigint {
  return iretire < 256 ? HALFWORD_BYTES[iretire]! : BigInt(2 * iretire);
}

/** A zigzag-coded delta in this range is written through number arithmetic (fast path). */
const SMALL_DELTA = 1n << 30n;
const TWO_64 = 1n << 64n;
const MAX_I64 = (1n << 63n) - 1n;
const MIN_I64 = -(1n << 63n);

/** v mod 2^64 for v in (-2^64, 2^65): addresses and times live on a 64-bit circle. */
function wrap64(v: bigint): bigint {
  return v > MAX_U64 ? v - TWO_64 : v < 0n ? v + TWO_64 : v;
}

/** The difference of two 64-bit values as the signed 64-bit delta that leads from one to the other. */
function delta64(to: bigint, from: bigint): bigint {
  const d = to - from;
  return d > MAX_I64 ? d - TWO_64 : d < MIN_I64 ? d + TWO_64 : d;
}

// ------------------------------------------------------------------------------------------------
// Encoder

class ByteWriter {
  buf: Uint8Array;
  pos = 0;
  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  u8(v: number): void {
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    const b = this.buf;
    b[this.pos++] = v & 0xff;
    b[this.pos++] = (v >>> 8) & 0xff;
    b[this.pos++] = (v >>> 16) & 0xff;
    b[this.pos++] = (v >>> 24) & 0xff;
  }
  u64(v: bigint): void {
    this.u32(Number(v & 0xffff_ffffn));
    this.u32(Number(v >> 32n));
  }
  /** Unsigned LEB128 of a number in 0..2^32-1. */
  leb(v: number): void {
    const b = this.buf;
    let p = this.pos;
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    b[p++] = v;
    this.pos = p;
  }
  /** Unsigned LEB128 of a non-negative bigint (up to 2^65 for zigzag deltas). */
  lebBig(v: bigint): void {
    if (v <= 0xffff_ffffn) {
      this.leb(Number(v));
      return;
    }
    const b = this.buf;
    let p = this.pos;
    while (v >= 0x80n) {
      b[p++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    b[p++] = Number(v);
    this.pos = p;
  }
  zigzagBig(d: bigint): void {
    if (d >= -SMALL_DELTA && d <= SMALL_DELTA) {
      const n = Number(d);
      this.leb(n >= 0 ? n * 2 : -n * 2 - 1);
    } else {
      this.lebBig(d >= 0n ? d << 1n : (-d << 1n) - 1n);
    }
  }
  bytes(src: Uint8Array): void {
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }
}

export function encodeBinaryStream(stream: RetirementStream): Uint8Array {
  const { records } = stream;
  if (stream.xlen !== 32 && stream.xlen !== 64) {
    throw new RvError('bad-value', `xlen ${String(stream.xlen)} cannot be stored, expected 32 or 64`, { path: 'xlen' });
  }
  if (!Number.isInteger(stream.retiresPerCycle) || stream.retiresPerCycle < 1 || stream.retiresPerCycle > MAX_U32) {
    throw new RvError('bad-value', `retiresPerCycle ${stream.retiresPerCycle} cannot be stored, expected 1-4294967295`, {
      path: 'retiresPerCycle',
    });
  }
  if (records.length > MAX_U32) {
    throw new RvError('bad-value', `${records.length} records cannot be stored, at most 4294967295`, { path: 'records' });
  }
  const segments = canonicalSegments(stream.image);
  const imageBytes = segments.reduce((n, s) => n + 12 + s.bytes.length, 0);
  const w = new ByteWriter(HEADER_BYTES + imageBytes + records.length * 2 + 256);

  for (let i = 0; i < BINARY_MAGIC.length; i++) w.u8(BINARY_MAGIC.charCodeAt(i));
  w.u8(BINARY_VERSION);
  w.u8(stream.xlen);
  // A stream without data trace keeps flags 0, so its file is the same as before data trace existed.
  if (stream.data !== undefined) checkDataTrace(stream);
  w.u8(stream.data !== undefined ? F_DATA : 0);
  w.u8(0); // reserved
  w.u32(stream.retiresPerCycle);
  w.u32(records.length);
  w.u32(segments.length);
  for (const s of segments) {
    w.u64(s.base);
    w.u32(s.bytes.length);
    w.bytes(s.bytes);
  }

  let next = 0n; // sequential successor of the previous record
  let priv = 3;
  let context = 0n;
  let impdef = 0;
  let time = 0n;
  let step = 0n;

  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    checkRecord(r, i);
    w.ensure(MAX_RECORD_BYTES);
    const single = r.iretire === 1 << r.ilastsize;
    const seq = r.iaddr === next;
    const pct = r.priv !== priv || r.ctype !== 0 || r.trigger !== 0;
    const predicted = r.sameCycle ? time : wrap64(time + step);
    const timeChanged = r.time !== predicted;
    let ext2 = 0;
    if (r.tval !== 0n) ext2 |= X_TVAL;
    if (r.context !== context) ext2 |= X_CONTEXT;
    if (r.impdef !== impdef) ext2 |= X_IMPDEF;
    let ext = ext2 !== 0 ? E_EXT2 : 0;
    if (r.sameCycle) ext |= E_SAME;
    if (r.sijump) ext |= E_SIJUMP;
    if (r.halted) ext |= E_HALTED;
    if (r.reset) ext |= E_RESET;
    if (pct) ext |= E_PCT;
    if (timeChanged) ext |= E_TIME;
    if (r.cause !== 0) ext |= E_CAUSE;

    let head = r.itype | (r.ilastsize === 1 ? H_ILASTSIZE : 0);
    if (single) head |= H_SINGLE;
    if (seq) head |= H_SEQ;
    if (ext !== 0) head |= H_EXT;
    w.u8(head);
    if (ext !== 0) {
      w.u8(ext);
      if (ext2 !== 0) w.u8(ext2);
    }
    if (!single) w.leb(r.iretire);
    if (!seq) w.zigzagBig(delta64(r.iaddr, next));
    if (pct) w.u8(r.priv | (r.ctype << 3) | (r.trigger << 5));
    if (ext & E_CAUSE) w.leb(r.cause);
    if (ext2 & X_TVAL) w.lebBig(r.tval);
    if (ext2 & X_CONTEXT) w.lebBig(r.context);
    if (ext2 & X_IMPDEF) w.leb(r.impdef);
    if (timeChanged) {
      const d = delta64(r.time, time);
      w.zigzagBig(d);
      if (!r.sameCycle) step = d;
    }

    next = wrap64(r.iaddr + byteLength(r.iretire));
    priv = r.priv;
    context = r.context;
    impdef = r.impdef;
    time = r.time;
  }
  if (stream.data !== undefined) encodeDataSection(w, stream.data);
  return w.buf.slice(0, w.pos);
}

// ------------------------------------------------------------------------------------------------
// Data section (header flag bit 0): the accesses and split-load responses of `stream.data`.
//
//   access count u32, response count u32
//   access   head u8: dtype (bits 0-3) | dsize << 4 (bits 4-6) | bit 7 "ext byte follows"
//            [ext u8: bit 0 lrid, 1 iaddrLsbs, 2 dblock follow; 3-7 reserved]
//            at delta (LEB128, from the previous access's at), daddr delta (zigzag LEB128 from the
//            previous access's daddr, 64-bit wrap), data (LEB128), then lrid, iaddrLsbs, dblock
//            (LEB128 each) when announced
//   response at delta (LEB128, from the previous response's at), lid (LEB128),
//            u8: lresp (bits 0-1) | bit 7 "ldata follows" (bits 2-6 reserved), [ldata (LEB128)]
// Addresses of successive accesses are close (stack, arrays), so a delta is usually one or two bytes.

const A_EXT = 0x80;
const AX_LRID = 0x01;
const AX_LSBS = 0x02;
const AX_DBLOCK = 0x04;
const AX_RESERVED = 0xf8;
const R_LDATA = 0x80;
const R_RESERVED = 0x7c;

/** Largest encoding of an access: head, ext, at (5), daddr delta (10), data (293 for 2048 bits), three u32 (15). */
const MAX_ACCESS_BYTES = 2 + 5 + 10 + 293 + 15;

function encodeDataSection(w: ByteWriter, data: DataTrace): void {
  w.ensure(8);
  w.u32(data.accesses.length);
  w.u32(data.responses.length);
  let at = 0;
  let daddr = 0n;
  for (const a of data.accesses) {
    w.ensure(MAX_ACCESS_BYTES);
    const ext = (a.lrid !== 0 ? AX_LRID : 0) | (a.iaddrLsbs !== 0 ? AX_LSBS : 0) | (a.dblock !== 0 ? AX_DBLOCK : 0);
    w.u8(a.dtype | (a.dsize << 4) | (ext !== 0 ? A_EXT : 0));
    if (ext !== 0) w.u8(ext);
    w.leb(a.at - at);
    w.zigzagBig(delta64(a.daddr, daddr));
    w.lebBig(a.data);
    if (ext & AX_LRID) w.leb(a.lrid);
    if (ext & AX_LSBS) w.leb(a.iaddrLsbs);
    if (ext & AX_DBLOCK) w.leb(a.dblock);
    at = a.at;
    daddr = a.daddr;
  }
  at = 0;
  for (const r of data.responses) {
    w.ensure(MAX_ACCESS_BYTES);
    w.leb(r.at - at);
    w.leb(r.lid);
    w.u8(r.lresp | (r.ldata !== 0n ? R_LDATA : 0));
    if (r.ldata !== 0n) w.lebBig(r.ldata);
    at = r.at;
  }
}

/** The data section at `p`; returns it and the position after it. Checked as the writer checks. */
function decodeDataSection(bytes: Uint8Array, start: number, fileName: string, recordCount: number): { data: DataTrace; end: number } {
  const end = bytes.length;
  let p = start;
  if (p + 8 > end) truncated(fileName, 'data section', p, 'the access count and response count (u32 each)');
  const accessCount = u32At(bytes, p);
  const responseCount = u32At(bytes, p + 4);
  p += 8;
  const accesses: DataAccess[] = [];
  let at = 0;
  let daddr = 0n;
  for (let n = 0; n < accessCount; n++) {
    const unit = `data access ${n}`;
    const startOf = p;
    if (p >= end) truncated(fileName, unit, p, 'the access head byte');
    const head = bytes[p++]!;
    let ext = 0;
    if (head & A_EXT) {
      if (p >= end) truncated(fileName, unit, p, 'the access ext byte');
      ext = bytes[p++]!;
      if (ext & AX_RESERVED) fail(fileName, 'bad-value', `${unit} at byte offset ${startOf}: reserved ext bits 0x${(ext & AX_RESERVED).toString(16)} are set`, startOf);
    }
    const dAt = readLeb32(bytes, p, end);
    if (dAt < 0) lebFailed(fileName, unit, p, 'at delta', 32);
    p = lebEnd;
    at += dAt;
    const d = readZigzag(bytes, p, end);
    if (d === undefined) lebFailed(fileName, unit, p, 'daddr delta', 64);
    p = lebEnd;
    daddr = wrap64(daddr + d);
    const dtype = head & 0x0f;
    const dsize = (head >> 4) & 7;
    const v = readLebBig(bytes, p, end, 2048);
    if (v === undefined) lebFailed(fileName, unit, p, 'data', 2048);
    p = lebEnd;
    const extra = [0, 0, 0];
    [AX_LRID, AX_LSBS, AX_DBLOCK].forEach((bit, k) => {
      if (!(ext & bit)) return;
      const x = readLeb32(bytes, p, end);
      if (x < 0) lebFailed(fileName, unit, p, ['lrid', 'iaddrLsbs', 'dblock'][k]!, 32);
      p = lebEnd;
      extra[k] = x;
    });
    accesses.push({ at, dtype, daddr, dsize, data: v, lrid: extra[0]!, iaddrLsbs: extra[1]!, dblock: extra[2]! });
  }
  const responses: LoadResponse[] = [];
  at = 0;
  for (let n = 0; n < responseCount; n++) {
    const unit = `load response ${n}`;
    const dAt = readLeb32(bytes, p, end);
    if (dAt < 0) lebFailed(fileName, unit, p, 'at delta', 32);
    p = lebEnd;
    at += dAt;
    const lid = readLeb32(bytes, p, end);
    if (lid < 0) lebFailed(fileName, unit, p, 'lid', 32);
    p = lebEnd;
    if (p >= end) truncated(fileName, unit, p, 'the lresp byte');
    const b = bytes[p]!;
    if (b & R_RESERVED) fail(fileName, 'bad-value', `${unit} at byte offset ${p}: reserved lresp byte bits 0x${(b & R_RESERVED).toString(16)} are set`, p);
    p++;
    let ldata = 0n;
    if (b & R_LDATA) {
      const v = readLebBig(bytes, p, end, 1024);
      if (v === undefined) lebFailed(fileName, unit, p, 'ldata', 1024);
      p = lebEnd;
      ldata = v;
    }
    responses.push({ at, lid, lresp: b & 3, ldata });
  }
  const data = { accesses, responses };
  try {
    checkDataTrace({ records: { length: recordCount } as unknown[], data });
  } catch (e) {
    if (e instanceof RvError) fail(fileName, 'bad-value', `data section at byte offset ${start}: ${e.message}`, start);
    throw e;
  }
  return { data, end: p };
}

// ------------------------------------------------------------------------------------------------
// Decoder
//
// The record loop keeps the read position in a local variable that no closure captures (a
// captured variable lives in a heap context and every access pays for it); the LEB128 readers are
// plain functions that return the value and leave the position in `lebEnd`. Errors are built only
// on the failing path.

let lebEnd = 0;
/** Why the last LEB128 read failed. */
let lebFault: 'truncated' | 'too-wide' = 'truncated';

/** Unsigned LEB128 of at most 32 bits at `p`, or -1 (see lebFault). */
function readLeb32(bytes: Uint8Array, p: number, end: number): number {
  let v = 0;
  let scale = 1;
  for (let n = 0; n < 5; n++) {
    if (p >= end) {
      lebFault = 'truncated';
      lebEnd = p;
      return -1;
    }
    const b = bytes[p++]!;
    v += (b & 0x7f) * scale;
    if (b < 0x80) {
      lebEnd = p;
      if (v > MAX_U32) break;
      return v;
    }
    scale *= 128;
  }
  lebFault = 'too-wide';
  return -1;
}

/** Unsigned LEB128 of at most `bits` bits at `p`, or undefined (see lebFault). */
function readLebBig(bytes: Uint8Array, p: number, end: number, bits: number): bigint | undefined {
  // The first 28 bits are gathered in number arithmetic; most values end there.
  let lo = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (p >= end) {
      lebFault = 'truncated';
      lebEnd = p;
      return undefined;
    }
    const b = bytes[p++]!;
    lo |= (b & 0x7f) << shift;
    if (b < 0x80) {
      lebEnd = p;
      return BigInt(lo);
    }
  }
  let v = BigInt(lo);
  const maxBytes = Math.ceil(bits / 7);
  for (let shift = 28n, n = 4; n < maxBytes; shift += 7n, n++) {
    if (p >= end) {
      lebFault = 'truncated';
      lebEnd = p;
      return undefined;
    }
    const b = bytes[p++]!;
    v |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      lebEnd = p;
      if (v >> BigInt(bits) !== 0n) break;
      return v;
    }
  }
  lebFault = 'too-wide';
  return undefined;
}

/** The deltas of one-byte zigzag codes, as bigints, so the common short delta converts nothing. */
const ZIGZAG_1: bigint[] = Array.from({ length: 128 }, (_, z) => BigInt(z & 1 ? -((z + 1) >> 1) : z >> 1));

/** A zigzag LEB128 delta at `p` (at most 64 bits of code), or undefined (see lebFault). */
function readZigzag(bytes: Uint8Array, p: number, end: number): bigint | undefined {
  if (p + 1 < end) {
    const b0 = bytes[p]!;
    if (b0 < 0x80) {
      lebEnd = p + 1;
      return ZIGZAG_1[b0]!;
    }
    const b1 = bytes[p + 1]!;
    if (b1 < 0x80) {
      lebEnd = p + 2;
      const z = (b0 & 0x7f) | (b1 << 7);
      return BigInt(z & 1 ? -((z + 1) >> 1) : z >> 1);
    }
  }
  const z = readLebBig(bytes, p, end, 64);
  if (z === undefined) return undefined;
  return z & 1n ? -((z + 1n) >> 1n) : z >> 1n;
}

function u32At(bytes: Uint8Array, p: number): number {
  return (bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24)) >>> 0;
}

type BinaryErrorCode = 'truncated' | 'bad-header' | 'bad-value' | 'bad-file';

function fail(file: string, code: BinaryErrorCode, message: string, offset: number): never {
  throw new RvError(code, message, { file, offset });
}

function truncated(file: string, unit: string, offset: number, what: string): never {
  fail(file, 'truncated', `truncated ${unit} at byte offset ${offset}: expected ${what}`, offset);
}

/** The error for the LEB128 read that started at `start` and just failed. */
function lebFailed(file: string, unit: string, start: number, what: string, bits: number): never {
  if (lebFault === 'truncated') truncated(file, unit, start, what);
  fail(file, 'bad-value', `${what} at byte offset ${start} of ${unit} does not fit in ${bits} bits`, start);
}

export function decodeBinaryStream(bytes: Uint8Array, fileName: string): RetirementStream {
  const end = bytes.length;
  let p = 0;

  // Header
  for (let i = 0; i < BINARY_MAGIC.length; i++) {
    if (p >= end && p > 0) truncated(fileName, 'header', p, 'the magic "RVTRSTRM"');
    if (bytes[p] !== BINARY_MAGIC.charCodeAt(i)) {
      fail(fileName, 'bad-header', 'not an rvtrace binary stream: expected the magic "RVTRSTRM" at byte offset 0', 0);
    }
    p++;
  }
  // Fixed header fields: version, xlen, flags, reserved (bytes 8-11), three u32 (bytes 12-23).
  if (end < HEADER_BYTES) {
    truncated(fileName, 'header', end, `the ${HEADER_BYTES}-byte header (version, xlen, flags, reserved, retiresPerCycle, record count, segment count)`);
  }
  const version = bytes[8]!;
  if (version !== BINARY_VERSION) {
    fail(fileName, 'bad-header', `unsupported binary stream version ${version}, expected ${BINARY_VERSION}`, 8);
  }
  const xlenByte = bytes[9]!;
  if (xlenByte !== 32 && xlenByte !== 64) fail(fileName, 'bad-header', `bad xlen ${xlenByte} in header, expected 32 or 64`, 9);
  const xlen: Xlen = xlenByte;
  const flags = bytes[10]!;
  if ((flags & ~F_DATA) !== 0) {
    fail(fileName, 'bad-header', `unknown header flags 0x${flags.toString(16)}, expected 0 or 1 (bit 0: data section)`, 10);
  }
  if (bytes[11] !== 0) fail(fileName, 'bad-header', `reserved header byte is ${bytes[11]}, expected 0`, 11);
  const retiresPerCycle = u32At(bytes, 12);
  if (retiresPerCycle < 1) fail(fileName, 'bad-header', 'retiresPerCycle is 0 in header, expected at least 1', 12);
  const count = u32At(bytes, 16);
  const segmentCount = u32At(bytes, 20);
  p = HEADER_BYTES;

  // Image segments, sorted and disjoint.
  const segments: Segment[] = [];
  let imageEnd = -1n; // last byte address of the previous segment
  for (let i = 0; i < segmentCount; i++) {
    const at = p;
    const unit = `image segment ${i}`;
    if (p + 12 > end) truncated(fileName, unit, p, 'segment base (u64) and length (u32)');
    const lo = u32At(bytes, p);
    const hi = u32At(bytes, p + 4);
    const length = u32At(bytes, p + 8);
    p += 12;
    const base = (BigInt(hi) << 32n) | BigInt(lo);
    if (p + length > end) truncated(fileName, unit, p, `${length} segment bytes, found ${end - p}`);
    if (base <= imageEnd) {
      fail(fileName, 'bad-value', `image segment ${i} at 0x${base.toString(16)} overlaps or precedes the previous segment (segments must be sorted and disjoint)`, at);
    }
    if (length === 0 || base + BigInt(length) > MAX_U64 + 1n) {
      fail(fileName, 'bad-value', `image segment ${i} at 0x${base.toString(16)} has ${length} bytes, expected 1 to the end of the 64-bit address space`, at);
    }
    // A copy: a Buffer from readFileSync would share memory (Buffer.slice is a view).
    segments.push({ base, bytes: new Uint8Array(bytes.subarray(p, p + length)) });
    p += length;
    imageEnd = base + BigInt(length) - 1n;
  }

  // Records
  const records: RetirementRecord[] = [];
  let next = 0n;
  let priv = 3;
  let context = 0n;
  let impdef = 0;
  let time = 0n;
  let step = 0n;

  for (let n = 0; n < count; n++) {
    const at = p;
    if (p >= end) truncated(fileName, `record ${n}`, p, 'the record head byte');
    const head = bytes[p++]!;
    let ext = 0;
    let ext2 = 0;
    if (head & H_EXT) {
      if (p >= end) truncated(fileName, `record ${n}`, p, 'the ext flags byte');
      ext = bytes[p++]!;
      if (ext & E_EXT2) {
        if (p >= end) truncated(fileName, `record ${n}`, p, 'the ext2 flags byte');
        ext2 = bytes[p++]!;
        if (ext2 & X_RESERVED) {
          fail(fileName, 'bad-value', `record ${n} at byte offset ${at}: reserved ext2 flag bits 0x${(ext2 & X_RESERVED).toString(16)} are set`, at);
        }
      }
    }
    const ilastsize = head & H_ILASTSIZE ? 1 : 0;
    let iretire = 1 << ilastsize;
    if (!(head & H_SINGLE)) {
      iretire = readLeb32(bytes, p, end);
      if (iretire < 0) lebFailed(fileName, `record ${n}`, p, 'iretire', 32);
      p = lebEnd;
    }
    let iaddr = next;
    if (!(head & H_SEQ)) {
      const d = readZigzag(bytes, p, end);
      if (d === undefined) lebFailed(fileName, `record ${n}`, p, 'iaddr delta', 64);
      p = lebEnd;
      iaddr = wrap64(next + d);
    }
    let ctype = 0;
    let trigger = 0;
    let cause = 0;
    let tval = 0n;
    if (ext !== 0) {
      if (ext & E_PCT) {
        if (p >= end) truncated(fileName, `record ${n}`, p, 'the priv/ctype/trigger byte');
        const b = bytes[p++]!;
        priv = b & 7;
        ctype = (b >> 3) & 3;
        trigger = b >> 5;
      }
      if (ext & E_CAUSE) {
        cause = readLeb32(bytes, p, end);
        if (cause < 0) lebFailed(fileName, `record ${n}`, p, 'cause', 32);
        p = lebEnd;
      }
      if (ext2 !== 0) {
        if (ext2 & X_TVAL) {
          const v = readLebBig(bytes, p, end, 64);
          if (v === undefined) lebFailed(fileName, `record ${n}`, p, 'tval', 64);
          tval = v;
          p = lebEnd;
        }
        if (ext2 & X_CONTEXT) {
          const v = readLebBig(bytes, p, end, 64);
          if (v === undefined) lebFailed(fileName, `record ${n}`, p, 'context', 64);
          context = v;
          p = lebEnd;
        }
        if (ext2 & X_IMPDEF) {
          impdef = readLeb32(bytes, p, end);
          if (impdef < 0) lebFailed(fileName, `record ${n}`, p, 'impdef', 32);
          p = lebEnd;
        }
      }
    }
    const sameCycle = (ext & E_SAME) !== 0;
    if (ext & E_TIME) {
      const d = readZigzag(bytes, p, end);
      if (d === undefined) lebFailed(fileName, `record ${n}`, p, 'time delta', 64);
      p = lebEnd;
      time = wrap64(time + d);
      if (!sameCycle) step = d;
    } else if (!sameCycle && step !== 0n) {
      time = wrap64(time + step);
    }
    records.push({
      itype: head & H_ITYPE,
      iretire,
      ilastsize,
      iaddr,
      priv,
      cause,
      tval,
      context,
      ctype,
      sijump: (ext & E_SIJUMP) !== 0,
      trigger,
      halted: (ext & E_HALTED) !== 0,
      reset: (ext & E_RESET) !== 0,
      impdef,
      time,
      sameCycle,
    });
    next = iaddr + byteLength(iretire);
    if (next > MAX_U64) next -= TWO_64;
  }
  let data: DataTrace | undefined;
  if (flags & F_DATA) ({ data, end: p } = decodeDataSection(bytes, p, fileName, count));
  if (p !== end) {
    const after = data !== undefined ? 'the data section' : `the last record (the header announces ${count} records)`;
    fail(fileName, 'bad-file', `${end - p} unexpected bytes after ${after}`, p);
  }
  const stream: RetirementStream = { xlen, retiresPerCycle, image: new ProgramImage(segments), records };
  if (data !== undefined) stream.data = data;
  return stream;
}
