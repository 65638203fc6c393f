/**
 * Helpers shared by the stream formats: value ranges, number parsing with precise error messages,
 * record validation before writing, and the canonical form of a program image.
 */
import { RvError } from '../../common/errors.ts';
import type { ProgramImage, Segment } from '../image.ts';
import type { RetirementRecord } from '../records.ts';

export const MAX_U64 = (1n << 64n) - 1n;
export const MAX_U32 = 0xffff_ffff;

/** The formats `parseStream` knows; the first two are ours and can also be written. */
export type StreamFormat = 'bin' | 'text' | 'etrace-csv' | 'spike-csv';
export const STREAM_FORMATS: readonly StreamFormat[] = ['bin', 'text', 'etrace-csv', 'spike-csv'];

const HEX_RE = /^[0-9a-fA-F]+$/;
const DEC_RE = /^[0-9]+$/;

/** Hexadecimal digits (no prefix) as an unsigned 64-bit value, or undefined when not hex or too wide. */
export function hexU64(s: string): bigint | undefined {
  if (!HEX_RE.test(s)) return undefined;
  // parseInt is exact below 2^52 and much cheaper than BigInt parsing; most values are addresses.
  if (s.length <= 13) return BigInt(Number.parseInt(s, 16));
  const v = BigInt('0x' + s);
  return v <= MAX_U64 ? v : undefined;
}

/** Hex with an optional 0x, as people type it. */
export function hexToken(s: string): bigint | undefined {
  return hexU64(s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s);
}

/** Hexadecimal digits as a number up to `max` (a safe integer), or undefined. */
export function hexSmall(s: string, max: number): number | undefined {
  if (!HEX_RE.test(s)) return undefined;
  // Long strings (leading zeros) go through BigInt so that parseInt never rounds.
  const v = s.length <= 13 ? Number.parseInt(s, 16) : capped(BigInt('0x' + s), max);
  return v <= max ? v : undefined;
}

/** Decimal digits as a number up to `max` (a safe integer), or undefined. */
export function decSmall(s: string, max: number): number | undefined {
  if (!DEC_RE.test(s)) return undefined;
  const v = s.length <= 15 ? Number.parseInt(s, 10) : capped(BigInt(s), max);
  return v <= max ? v : undefined;
}

/** v as a number, or max + 1 when it is larger than max. */
function capped(v: bigint, max: number): number {
  return v > BigInt(max) ? max + 1 : Number(v);
}

/** Decimal digits as an unsigned 64-bit value, or undefined. */
export function decU64(s: string): bigint | undefined {
  if (!DEC_RE.test(s)) return undefined;
  const v = BigInt(s);
  return v <= MAX_U64 ? v : undefined;
}

export function isHex(s: string): boolean {
  return HEX_RE.test(s);
}

function isU(v: number, max: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= max;
}
function isU64(v: bigint): boolean {
  return typeof v === 'bigint' && v >= 0n && v <= MAX_U64;
}

/** The record fields with their storable range, for `checkRecord`'s error message. */
const RANGES: readonly { field: keyof RetirementRecord; ok: (r: RetirementRecord) => boolean; expected: string }[] = [
  { field: 'itype', ok: (r) => isU(r.itype, 15), expected: '0-15' },
  { field: 'iretire', ok: (r) => isU(r.iretire, MAX_U32), expected: 'a half-word count 0-4294967295' },
  { field: 'ilastsize', ok: (r) => r.ilastsize === 0 || r.ilastsize === 1, expected: '0 or 1' },
  { field: 'priv', ok: (r) => isU(r.priv, 7), expected: '0-7' },
  { field: 'cause', ok: (r) => isU(r.cause, MAX_U32), expected: '0-4294967295' },
  { field: 'ctype', ok: (r) => isU(r.ctype, 3), expected: '0-3' },
  { field: 'trigger', ok: (r) => isU(r.trigger, 7), expected: '0-7' },
  { field: 'impdef', ok: (r) => isU(r.impdef, MAX_U32), expected: '0-4294967295' },
  { field: 'iaddr', ok: (r) => isU64(r.iaddr), expected: 'an unsigned 64-bit value' },
  { field: 'tval', ok: (r) => isU64(r.tval), expected: 'an unsigned 64-bit value' },
  { field: 'context', ok: (r) => isU64(r.context), expected: 'an unsigned 64-bit value' },
  { field: 'time', ok: (r) => isU64(r.time), expected: 'an unsigned 64-bit value' },
];

/**
 * Checks that a record can be stored: every field in the range our formats (and the signals of
 * chapter 4) can carry. Both writers call it so a bad in-memory record fails before anything is
 * written, naming the record and the field. The first test is one expression without closures: it
 * runs for every record of multi-million record streams.
 */
export function checkRecord(r: RetirementRecord, index: number): void {
  if (
    (r.itype & 15) === r.itype &&
    (r.ilastsize === 0 || r.ilastsize === 1) &&
    (r.priv & 7) === r.priv &&
    (r.ctype & 3) === r.ctype &&
    (r.trigger & 7) === r.trigger &&
    r.iretire >>> 0 === r.iretire &&
    r.cause >>> 0 === r.cause &&
    r.impdef >>> 0 === r.impdef &&
    r.iaddr >= 0n &&
    r.iaddr <= MAX_U64 &&
    r.tval >= 0n &&
    r.tval <= MAX_U64 &&
    r.context >= 0n &&
    r.context <= MAX_U64 &&
    r.time >= 0n &&
    r.time <= MAX_U64
  ) {
    return;
  }
  for (const { field, ok, expected } of RANGES) {
    if (!ok(r)) {
      throw new RvError('bad-value', `record ${index}: ${field} ${String(r[field])} cannot be stored, expected ${expected}`, {
        path: `records[${index}].${field}`,
      });
    }
  }
}

/**
 * The image as our formats store it: sorted segments, empty ones dropped, touching ones merged.
 * ProgramImage.parcel() does not read across a segment boundary, so merging touching segments only
 * makes more of the image readable; both writers store this form, which keeps bin -> text -> bin
 * byte-identical.
 */
export function canonicalSegments(image: ProgramImage): Segment[] {
  const out: Segment[] = [];
  let pending: Uint8Array[] = [];
  let base = 0n;
  let end = 0n;
  const flush = (): void => {
    if (pending.length === 0) return;
    const len = pending.reduce((n, b) => n + b.length, 0);
    const bytes = new Uint8Array(len);
    let at = 0;
    for (const b of pending) {
      bytes.set(b, at);
      at += b.length;
    }
    out.push({ base, bytes });
    pending = [];
  };
  for (const s of image.segments) {
    if (s.bytes.length === 0) continue;
    if (pending.length === 0 || s.base !== end) {
      flush();
      base = s.base;
    }
    pending.push(s.bytes);
    end = s.base + BigInt(s.bytes.length);
  }
  flush();
  return out;
}

/**
 * A cause value without the mcause interrupt flag: bit XLEN-1, and bit 63 because spike keeps
 * mcause in a 64-bit register whatever the XLEN. The record's itype already says "interrupt".
 */
export function stripInterruptBit(cause: bigint, xlen: 32 | 64): bigint {
  return cause & ~(1n << 63n) & ~(1n << BigInt(xlen - 1));
}

/**
 * Splits text into lines without keeping the whole array of strings twice: returns the lines with
 * a trailing '\r' removed (files written on Windows).
 */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
  }
  // A final newline leaves one empty string that is not a line.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Strips a UTF-8 byte order mark, which spreadsheet programs add to CSV files. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Walks the lines of a text without splitting it: `next()` moves to the next line and sets `start`
 * and `end` (the line is text.slice(start, end), without its '\n' and a trailing '\r') and `lineNo`
 * (1-based). The readers scan each line in place, so a file of millions of lines costs no array of
 * millions of strings.
 */
export class LineCursor {
  start = 0;
  end = 0;
  lineNo: number;
  private at = 0;

  /** `linesBefore`: lines of the file before `text` (a reader fed the file in pieces counts on). */
  constructor(
    readonly text: string,
    linesBefore = 0,
  ) {
    this.lineNo = linesBefore;
  }

  next(): boolean {
    const text = this.text;
    if (this.at >= text.length) return false;
    this.start = this.at;
    let nl = text.indexOf('\n', this.at);
    if (nl < 0) nl = text.length;
    this.at = nl + 1;
    this.end = nl > this.start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    this.lineNo++;
    return true;
  }

  /** The current line as a string (for header lines and error messages). */
  line(): string {
    return this.text.slice(this.start, this.end);
  }

  /** True when the current line holds nothing but white space. */
  blank(): boolean {
    for (let i = this.start; i < this.end; i++) if (this.text.charCodeAt(i) > 32) return false;
    return true;
  }
}

/** Value of a hexadecimal digit's character code, or -1. */
export function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/**
 * text[start, end) as hexadecimal digits, when there are 1 to 13 after leading zeros (below 2^52:
 * exact as a number; simulators often print 16 digits with leading zeros); -1 otherwise (empty,
 * another character, or longer: the callers' string paths handle those).
 */
export function scanHex(text: string, start: number, end: number): number {
  if (end <= start) return -1;
  while (end - start > 1 && text.charCodeAt(start) === 48) start++;
  if (end - start > 13) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = hexDigit(text.charCodeAt(i));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** text[start, end) as 1 to 15 decimal digits after leading zeros (exact as a number), or -1 as in scanHex. */
export function scanDec(text: string, start: number, end: number): number {
  if (end <= start) return -1;
  while (end - start > 1 && text.charCodeAt(start) === 48) start++;
  if (end - start > 15) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

const BIG_SLOTS = 4096;
/** The last numbers `big` converted, by a slot of their value (a direct-mapped cache), and their bigints. */
const bigNumbers = new Float64Array(BIG_SLOTS).fill(-1);
const bigValues: bigint[] = new Array<bigint>(BIG_SLOTS).fill(0n);

/**
 * A bigint of a number found by scanHex/scanDec (a safe integer, at least 0). Traces repeat
 * addresses (loops), so the bigint of a number seen recently is reused from a small cache instead
 * of a new one per line; 0 never makes one.
 */
export function big(v: number): bigint {
  if (v === 0) return 0n;
  const slot = (v >>> 1) & (BIG_SLOTS - 1);
  if (bigNumbers[slot] === v) return bigValues[slot]!;
  const b = BigInt(v);
  bigNumbers[slot] = v;
  bigValues[slot] = b;
  return b;
}
