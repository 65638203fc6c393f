/**
 * The `text` format: the same information as `bin`, one record per line, for people to read, diff
 * and write by hand. docs/formats.md has the full description; in short:
 *
 *   # rvtrace retirement stream v1
 *   xlen 64
 *   retires 1
 *   records 3
 *   image 80000000 97 02 00 00 93 82 02 01
 *   columns    iaddr iretire ilastsize itype
 *           80000000       2         1 none
 *           80000004       2         1 taken-branch
 *           80000100       0         1 exception    cause=2 tval=80000104
 *
 * The `columns` line names the positional values of every record line; anything after them is
 * `name=value` or a bare flag name (`sijump`, `halted`, `reset`, `same-cycle`). Fields not given on
 * a line take a default: priv, context, impdef and time keep the previous record's value (so the
 * writer prints them only when they change), iaddr is the previous record's sequential successor,
 * the other fields are those of `emptyRecord()` (cause and tval 0: they matter on traps only).
 */
import { RvError } from '../../common/errors.ts';
import { ProgramImage, type Segment } from '../image.ts';
import { emptyRecord, ITYPE_NAMES, type RetirementRecord, sequentialNext } from '../records.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { big, canonicalSegments, checkRecord, decSmall, decU64, hexSmall, hexToken, LineCursor, MAX_U32, scanDec, scanHex, stripBom } from './common.ts';
import { DATA_KEYWORD, DATA_TRACE_HEADER, DataLineReader, formatAccess, formatResponse, RESP_KEYWORD } from './text-data.ts';
import { checkDataTrace } from '../data-records.ts';

export const TEXT_VERSION = 1;
export const TEXT_SIGNATURE = '# rvtrace retirement stream';
export const TEXT_FIRST_LINE = `${TEXT_SIGNATURE} v${TEXT_VERSION}`;
const IMAGE_BYTES_PER_LINE = 16;

const PRIV_NAMES: Record<number, string> = { 0: 'U', 1: 'S', 3: 'M', 4: 'D' };
const PRIV_BY_NAME: Record<string, number> = { U: 0, S: 1, M: 3, D: 4 };
const CTYPE_NAMES = ['unreported', 'imprecise', 'precise', 'asynchronous'];
const TRIGGER_BITS = ['on', 'off', 'notify'];


interface Field {
  /** Name in the text (record field name, except `same-cycle`). */
  name: string;
  /** What a value looks like, for error messages. */
  expected: string;
  boolean: boolean;
  /** Stores the parsed token into the record; false when the token is not a valid value. */
  set(r: RetirementRecord, token: string): boolean;
  format(r: RetirementRecord): string;
  /** True when the record's value is the one a line without this field would get. */
  isDefault(r: RetirementRecord, prev: RetirementRecord): boolean;
}

type FlagKey = 'sijump' | 'halted' | 'reset' | 'sameCycle';

/** True when text[start, end) is all hexadecimal digits (a record line's address, not a keyword). */
function isHexToken(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) | 32;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** The index of the name text[start, end) in `names`, or -1; without making a string of the token. */
function nameAt(names: readonly string[], text: string, start: number, end: number): number {
  const n = end - start;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.length === n && text.startsWith(name, start)) return i;
  }
  return -1;
}

function flag(name: string, key: FlagKey): Field {
  return {
    name,
    expected: `0 or 1 (or the bare word ${name})`,
    boolean: true,
    set: (r, t) => {
      if (t !== '0' && t !== '1') return false;
      r[key] = t === '1';
      return true;
    },
    format: (r) => (r[key] ? '1' : '0'),
    isDefault: (r) => !r[key],
  };
}

const FIELDS: readonly Field[] = [
  {
    name: 'iaddr',
    expected: 'a hexadecimal address',
    boolean: false,
    set: (r, t) => {
      const v = hexToken(t);
      if (v === undefined) return false;
      r.iaddr = v;
      return true;
    },
    format: (r) => r.iaddr.toString(16),
    isDefault: (r, prev) => r.iaddr === sequentialNext(prev),
  },
  {
    name: 'iretire',
    expected: 'a decimal half-word count',
    boolean: false,
    set: (r, t) => {
      const v = decSmall(t, MAX_U32);
      if (v === undefined) return false;
      r.iretire = v;
      return true;
    },
    format: (r) => String(r.iretire),
    isDefault: (r) => r.iretire === 0,
  },
  {
    name: 'ilastsize',
    expected: '0 or 1',
    boolean: false,
    set: (r, t) => {
      if (t !== '0' && t !== '1') return false;
      r.ilastsize = t === '1' ? 1 : 0;
      return true;
    },
    format: (r) => String(r.ilastsize),
    isDefault: (r) => r.ilastsize === 1,
  },
  {
    name: 'itype',
    expected: `an itype name (${ITYPE_NAMES.join(', ')}) or a number 0-15`,
    boolean: false,
    set: (r, t) => {
      const named = ITYPE_NAMES.indexOf(t);
      const v = named >= 0 ? named : decSmall(t, 15);
      if (v === undefined) return false;
      r.itype = v;
      return true;
    },
    format: (r) => ITYPE_NAMES[r.itype]!,
    isDefault: (r) => r.itype === 0,
  },
  {
    name: 'time',
    expected: 'a decimal number below 2^64',
    boolean: false,
    set: (r, t) => {
      const v = decU64(t);
      if (v === undefined) return false;
      r.time = v;
      return true;
    },
    format: (r) => r.time.toString(),
    isDefault: (r, prev) => r.time === prev.time,
  },
  {
    name: 'priv',
    expected: 'U, S, M, D or a number 0-7',
    boolean: false,
    set: (r, t) => {
      const v = PRIV_BY_NAME[t] ?? decSmall(t, 7);
      if (v === undefined) return false;
      r.priv = v;
      return true;
    },
    format: (r) => PRIV_NAMES[r.priv] ?? String(r.priv),
    isDefault: (r, prev) => r.priv === prev.priv,
  },
  {
    name: 'cause',
    expected: 'a decimal number 0-4294967295',
    boolean: false,
    set: (r, t) => {
      const v = decSmall(t, MAX_U32);
      if (v === undefined) return false;
      r.cause = v;
      return true;
    },
    format: (r) => String(r.cause),
    isDefault: (r) => r.cause === 0,
  },
  {
    name: 'tval',
    expected: 'a hexadecimal value below 2^64',
    boolean: false,
    set: (r, t) => {
      const v = hexToken(t);
      if (v === undefined) return false;
      r.tval = v;
      return true;
    },
    format: (r) => r.tval.toString(16),
    isDefault: (r) => r.tval === 0n,
  },
  {
    name: 'context',
    expected: 'a hexadecimal value below 2^64',
    boolean: false,
    set: (r, t) => {
      const v = hexToken(t);
      if (v === undefined) return false;
      r.context = v;
      return true;
    },
    format: (r) => r.context.toString(16),
    isDefault: (r, prev) => r.context === prev.context,
  },
  {
    name: 'impdef',
    expected: 'a hexadecimal value 0-ffffffff',
    boolean: false,
    set: (r, t) => {
      const v = hexSmall(t.startsWith('0x') || t.startsWith('0X') ? t.slice(2) : t, MAX_U32);
      if (v === undefined) return false;
      r.impdef = v;
      return true;
    },
    format: (r) => r.impdef.toString(16),
    isDefault: (r, prev) => r.impdef === prev.impdef,
  },
  {
    name: 'ctype',
    expected: `${CTYPE_NAMES.join(', ')} or a number 0-3`,
    boolean: false,
    set: (r, t) => {
      const named = CTYPE_NAMES.indexOf(t);
      const v = named >= 0 ? named : decSmall(t, 3);
      if (v === undefined) return false;
      r.ctype = v;
      return true;
    },
    format: (r) => CTYPE_NAMES[r.ctype] ?? String(r.ctype),
    isDefault: (r) => r.ctype === 0,
  },
  {
    name: 'trigger',
    expected: 'on, off, notify joined by + (e.g. on+notify) or a number 0-7',
    boolean: false,
    set: (r, t) => {
      let v = decSmall(t, 7);
      if (v === undefined) {
        v = 0;
        for (const part of t.split('+')) {
          const bit = TRIGGER_BITS.indexOf(part);
          if (bit < 0) return false;
          v |= 1 << bit;
        }
      }
      r.trigger = v;
      return true;
    },
    format: (r) => TRIGGER_BITS.filter((_, bit) => r.trigger & (1 << bit)).join('+') || '0',
    isDefault: (r) => r.trigger === 0,
  },
  flag('sijump', 'sijump'),
  flag('halted', 'halted'),
  flag('reset', 'reset'),
  flag('same-cycle', 'sameCycle'),
];
const FIELD_BY_NAME = new Map(FIELDS.map((f, i) => [f.name, i]));
const FIELD_NAMES = FIELDS.map((f) => f.name).join(', ');
const IADDR = FIELD_BY_NAME.get('iaddr')!;
const IRETIRE = FIELD_BY_NAME.get('iretire')!;
const ILASTSIZE = FIELD_BY_NAME.get('ilastsize')!;
const ITYPE = FIELD_BY_NAME.get('itype')!;
const TIME = FIELD_BY_NAME.get('time')!;

/**
 * The fast path of `Field.set` for the frequent fields (FIELDS index `idx`): reads the token
 * text[s, e) in place and stores it; false when it cannot (not a valid value, a form only `set`
 * reads, or another field), and the reader then calls `set` with the token as a string. One
 * function rather than a method per field, so that the call is not to one of several closures.
 */
function scanField(idx: number, r: RetirementRecord, text: string, s: number, e: number): boolean {
  if (idx === IADDR) {
    const v = scanHex(text, s, e);
    if (v < 0) return false;
    r.iaddr = big(v);
    return true;
  }
  if (idx === IRETIRE) {
    const v = scanDec(text, s, e);
    if (v < 0 || v > MAX_U32) return false;
    r.iretire = v;
    return true;
  }
  if (idx === ILASTSIZE) {
    const c = text.charCodeAt(s) - 48;
    if (e - s !== 1 || (c !== 0 && c !== 1)) return false;
    r.ilastsize = c;
    return true;
  }
  if (idx === ITYPE) {
    const v = nameAt(ITYPE_NAMES, text, s, e);
    if (v < 0) return false;
    r.itype = v;
    return true;
  }
  if (idx === TIME) {
    const v = scanDec(text, s, e);
    if (v < 0) return false;
    // r.time holds the previous record's time: a repeated time (several records per cycle,
    // idle cycles) keeps its bigint. (Not through `big`: counting times would evict the addresses
    // from its cache.)
    if (Number(r.time) !== v) r.time = v === 0 ? 0n : BigInt(v);
    return true;
  }
  return false;
}
function field(name: string): Field {
  return FIELDS[FIELD_BY_NAME.get(name)!]!;
}
const DEFAULT_COLUMNS = ['iaddr', 'iretire', 'ilastsize', 'itype'];
const HEADER_KEYWORDS = new Set(['xlen', 'retires', 'records', 'image', 'columns', DATA_TRACE_HEADER]);

// ------------------------------------------------------------------------------------------------
// Writer

export function encodeTextStream(stream: RetirementStream): string {
  return encodeTextChunks(stream).join('');
}

/** Lines per chunk of `encodeTextChunks`. */
const CHUNK_LINES = 65_536;

/**
 * The text of a stream in chunks of whole lines. A JavaScript string holds at most about 500 MB,
 * which a stream of ten million records exceeds; `serializeStream` encodes chunk by chunk.
 */
export function encodeTextChunks(stream: RetirementStream): string[] {
  const { records } = stream;
  const chunks: string[] = [];
  if (stream.xlen !== 32 && stream.xlen !== 64) {
    throw new RvError('bad-value', `xlen ${String(stream.xlen)} cannot be stored, expected 32 or 64`, { path: 'xlen' });
  }
  if (!Number.isInteger(stream.retiresPerCycle) || stream.retiresPerCycle < 1) {
    throw new RvError('bad-value', `retiresPerCycle ${stream.retiresPerCycle} cannot be stored, expected at least 1`, {
      path: 'retiresPerCycle',
    });
  }
  const out: string[] = [TEXT_FIRST_LINE, `xlen ${stream.xlen}`, `retires ${stream.retiresPerCycle}`, `records ${records.length}`];
  // Only a stream with a data trace gets the header line and data lines: others keep their old text.
  const data = stream.data;
  if (data !== undefined) {
    checkDataTrace(stream);
    out.push(DATA_TRACE_HEADER);
  }
  let nextAccess = 0;
  let nextResponse = 0;
  for (const s of canonicalSegments(stream.image)) {
    for (let at = 0; at < s.bytes.length; at += IMAGE_BYTES_PER_LINE) {
      const chunk = s.bytes.subarray(at, at + IMAGE_BYTES_PER_LINE);
      const hexBytes = Array.from(chunk, (b) => (b < 16 ? '0' : '') + b.toString(16));
      out.push(`image ${(s.base + BigInt(at)).toString(16)} ${hexBytes.join(' ')}`);
    }
  }

  // Time gets a column when the stream has time stamps; otherwise every line would say 0.
  const columns = records.some((r) => r.time !== 0n) ? ['time', ...DEFAULT_COLUMNS] : DEFAULT_COLUMNS;
  const colFields = columns.map(field);
  const extraFields = FIELDS.filter((f) => !columns.includes(f.name));
  // Widths: the widest value of each column, found from the largest value rather than by
  // formatting every record twice.
  let maxTime = 0n;
  let maxAddr = 0n;
  let maxRetire = 0;
  let maxItypeName = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    checkRecord(r, i);
    if (r.time > maxTime) maxTime = r.time;
    if (r.iaddr > maxAddr) maxAddr = r.iaddr;
    if (r.iretire > maxRetire) maxRetire = r.iretire;
    maxItypeName = Math.max(maxItypeName, ITYPE_NAMES[r.itype]!.length);
  }
  const valueWidth: Record<string, number> = {
    time: maxTime.toString().length,
    iaddr: maxAddr.toString(16).length,
    iretire: String(maxRetire).length,
    ilastsize: 1,
    itype: maxItypeName,
  };
  const widths = columns.map((c) => Math.max(c.length, valueWidth[c] ?? 0));
  const indent = ' '.repeat('columns '.length);
  const last = columns.length - 1;
  /** Where the name=value fields start: after the columns and one space. */
  const lineWidth = indent.length + widths.reduce((n, w) => n + w + 1, 0);
  out.push('columns ' + columns.map((c, i) => (i === last ? c : c.padStart(widths[i]!))).join(' '));

  let prev = emptyRecord();
  let recordIndex = 0;
  for (const r of records) {
    let line = indent;
    for (let i = 0; i < colFields.length; i++) {
      const v = colFields[i]!.format(r);
      line += i === last ? v : v.padStart(widths[i]!) + ' ';
    }
    let extras = '';
    for (const f of extraFields) {
      if (f.isDefault(r, prev)) continue;
      extras += ' ' + (f.boolean ? f.name : `${f.name}=${f.format(r)}`);
    }
    if (extras) line = line.padEnd(lineWidth) + extras.slice(1);
    out.push(line);
    if (data !== undefined) {
      while (nextAccess < data.accesses.length && data.accesses[nextAccess]!.at === recordIndex) {
        out.push(indent + formatAccess(data.accesses[nextAccess++]!));
      }
      while (nextResponse < data.responses.length && data.responses[nextResponse]!.at === recordIndex) {
        out.push(indent + formatResponse(data.responses[nextResponse++]!));
      }
    }
    recordIndex++;
    prev = r;
    if (out.length >= CHUNK_LINES) {
      chunks.push(out.join('\n') + '\n');
      out.length = 0;
    }
  }
  if (out.length > 0) chunks.push(out.join('\n') + '\n');
  return chunks;
}

// ------------------------------------------------------------------------------------------------
// Reader

export function decodeTextStream(text: string, fileName: string): RetirementStream {
  const reader = new TextStreamReader(fileName);
  reader.feed(text);
  return reader.finish();
}

type TextErrorCode = 'bad-header' | 'bad-value' | 'truncated';

/**
 * The text import a piece of the file at a time, as `SpikeCsvReader` (spike-csv.ts): `feed` takes
 * the file's text in order, each piece ending at the end of a line (or of the file); `take` hands
 * over the records made so far; `finish` checks the end (the header's record count) and returns
 * the stream with the records not taken. `headerRead` says when the header is complete (a record
 * line was read), so that a caller knows `xlen`, `retiresPerCycle` and whether the stream has a data
 * trace before it takes records. `decodeTextStream` is one `feed` of the whole text.
 */
export class TextStreamReader {
  xlen: Xlen | undefined;
  retiresPerCycle: number | undefined;
  /** The header has the data-trace line (data and resp lines may follow the records). */
  dataTrace = false;
  /** A record line was read: the header lines are all known. */
  headerRead = false;
  private declared: { count: number; line: number } | undefined;
  private columns: Field[] = DEFAULT_COLUMNS.map(field);
  /** The index in FIELDS of each column (for the given-twice check). */
  private columnIndex = this.columns.map((f) => FIELD_BY_NAME.get(f.name)!);
  /** Header keyword -> line, to reject repeats. */
  private readonly seen = new Map<string, number>();
  private readonly segments: Segment[] = [];
  private segBytes: number[] = [];
  private segBase = 0n;
  /** End of the open image segment (exclusive); -1 when none is open. */
  private segEnd = -1n;
  private records: RetirementRecord[] = [];
  /** Records read so far (taken or not). */
  private count = 0;
  private prev = emptyRecord();
  /** The number of the last line that gave each field. */
  private readonly given = new Float64Array(FIELDS.length);
  private readonly dataLines: DataLineReader;
  /** Lines read so far. */
  private lineNo = 0;
  // Where the tokens of the current line start and end: record lines are read in place.
  private tokStart = new Int32Array(32);
  private tokEnd = new Int32Array(32);

  constructor(private readonly fileName: string) {
    this.dataLines = new DataLineReader((message, line) => this.err('bad-value', message, line));
  }

  private err(code: TextErrorCode, message: string, line: number): never {
    throw new RvError(code, message, { file: this.fileName, line });
  }

  /** Reads the lines of `text`, the next piece of the file (it ends at a line end or the file's end). */
  feed(text: string): void {
    const lines = new LineCursor(this.lineNo === 0 ? stripBom(text) : text, this.lineNo);
    if (this.lineNo === 0) {
      if (text.length === 0) return;
      this.signature(lines.next() ? lines.line() : '');
    }
    const body = lines.text;
    const token = (k: number): string => body.slice(this.tokStart[k]!, this.tokEnd[k]!);
    while (lines.next()) {
      const lineNo = lines.lineNo;
      // Tokens: runs of characters other than white space, up to a '#' (a comment).
      let n = 0;
      for (let i = lines.start, end = lines.end; i < end; ) {
        let c = body.charCodeAt(i);
        if (c <= 32) {
          i++;
          continue;
        }
        if (c === 35 /* # */) break;
        const from = i;
        while (i < end && (c = body.charCodeAt(i)) > 32 && c !== 35) i++;
        if (n === this.tokStart.length) {
          const starts = this.tokStart;
          const ends = this.tokEnd;
          this.tokStart = Int32Array.from({ length: n * 2 }, (_, k) => starts[k] ?? 0);
          this.tokEnd = Int32Array.from({ length: n * 2 }, (_, k) => ends[k] ?? 0);
        }
        this.tokStart[n] = from;
        this.tokEnd[n] = i;
        n++;
      }
      if (n === 0) continue;
      // Header and data lines are few or short: they are read as strings.
      const c0 = body.charCodeAt(this.tokStart[0]!);
      const keywordLike = c0 >= 97 && c0 <= 122 && this.tokEnd[0]! - this.tokStart[0]! > 3 && !isHexToken(body, this.tokStart[0]!, this.tokEnd[0]!);
      // A record line (the most of them) takes none of the keyword tests and makes no strings.
      const kw = keywordLike ? token(0) : '';
      if (keywordLike && (kw === DATA_KEYWORD || kw === RESP_KEYWORD)) {
        // A reader in pieces must know that the stream has data before it hands out records.
        if (!this.dataTrace) this.err('bad-header', `a "${kw}" line, but the header has no "${DATA_TRACE_HEADER}" line (a stream with data accesses declares it before the records)`, lineNo);
        this.dataLines.read(
          Array.from({ length: n }, (_, k) => token(k)),
          this.count - 1,
          lineNo,
        );
        continue;
      }
      if (keywordLike && HEADER_KEYWORDS.has(kw)) {
        this.header(
          kw,
          Array.from({ length: n - 1 }, (_, k) => token(k + 1)),
          lineNo,
        );
        continue;
      }
      this.record(body, n, lineNo);
    }
    this.lineNo = lines.lineNo;
  }

  /** The first line: the signature and the version. */
  private signature(line: string): void {
    const first = line.trim();
    if (!first.startsWith(TEXT_SIGNATURE)) {
      this.err('bad-header', `not an rvtrace text stream: the first line must be "${TEXT_FIRST_LINE}"`, 1);
    }
    const version = first.slice(TEXT_SIGNATURE.length).trim();
    if (version !== `v${TEXT_VERSION}`) {
      this.err('bad-header', `unsupported text stream version "${version}", expected "v${TEXT_VERSION}"`, 1);
    }
  }

  /** A header line: keyword `kw` with its values `args`. */
  private header(kw: string, args: readonly string[], lineNo: number): void {
    if (this.count > 0) this.err('bad-header', `header line "${kw}" after the first record, expected all header lines before the records`, lineNo);
    if (kw !== 'image') {
      const before = this.seen.get(kw);
      if (before !== undefined) this.err('bad-header', `header line "${kw}" repeats line ${before}`, lineNo);
      this.seen.set(kw, lineNo);
    }
    const one = (): string => {
      if (args.length !== 1) this.err('bad-header', `"${kw}" takes one value, found ${args.length}`, lineNo);
      return args[0]!;
    };
    if (kw === DATA_TRACE_HEADER) {
      if (args.length !== 0) this.err('bad-header', `"${DATA_TRACE_HEADER}" takes no value, found ${args.length}`, lineNo);
      this.dataTrace = true;
    } else if (kw === 'xlen') {
      const v = one();
      if (v !== '32' && v !== '64') this.err('bad-header', `bad xlen "${v}", expected 32 or 64`, lineNo);
      this.xlen = v === '32' ? 32 : 64;
    } else if (kw === 'retires') {
      const v = one();
      const n = decSmall(v, MAX_U32);
      if (n === undefined || n < 1) this.err('bad-header', `bad retires value "${v}", expected a decimal number of at least 1`, lineNo);
      this.retiresPerCycle = n;
    } else if (kw === 'records') {
      const v = one();
      const n = decSmall(v, Number.MAX_SAFE_INTEGER);
      if (n === undefined) this.err('bad-header', `bad records value "${v}", expected a decimal record count`, lineNo);
      this.declared = { count: n, line: lineNo };
    } else if (kw === 'columns') {
      if (args.length === 0) this.err('bad-header', `"columns" needs at least one field name`, lineNo);
      const names = new Set<string>();
      this.columns = args.map((name) => {
        if (!FIELD_BY_NAME.has(name)) this.err('bad-header', `unknown column "${name}", expected field names from: ${FIELD_NAMES}`, lineNo);
        if (names.has(name)) this.err('bad-header', `column "${name}" is named twice`, lineNo);
        names.add(name);
        return field(name);
      });
      this.columnIndex = this.columns.map((f) => FIELD_BY_NAME.get(f.name)!);
    } else {
      this.image(args, lineNo);
    }
  }

  /** image <base> <byte> <byte> ...: a line starting where the previous one ended continues its segment. */
  private image(args: readonly string[], lineNo: number): void {
    if (args.length < 2) this.err('bad-header', `"image" needs an address and at least one byte`, lineNo);
    const base = hexToken(args[0]!);
    if (base === undefined) this.err('bad-value', `bad image address "${args[0]}", expected a hexadecimal address`, lineNo);
    if (base !== this.segEnd) {
      if (this.segEnd >= 0n && base < this.segEnd) {
        this.err('bad-value', `image line at ${base.toString(16)} overlaps or precedes the previous image line (image lines must be in address order)`, lineNo);
      }
      this.closeSegment();
      this.segBase = base;
      this.segEnd = base;
    }
    for (let k = 1; k < args.length; k++) {
      const t = args[k]!;
      const b = t.length === 2 ? hexSmall(t, 0xff) : undefined;
      if (b === undefined) this.err('bad-value', `bad image byte "${t}", expected two hexadecimal digits`, lineNo);
      this.segBytes.push(b);
    }
    this.segEnd += BigInt(args.length - 1);
    if (this.segEnd > 1n << 64n) this.err('bad-value', `image line at ${base.toString(16)} extends beyond 2^64`, lineNo);
  }

  private closeSegment(): void {
    if (this.segEnd >= 0n) this.segments.push({ base: this.segBase, bytes: Uint8Array.from(this.segBytes) });
    this.segBytes = [];
    this.segEnd = -1n;
  }

  /** A record line of `n` tokens in `body`, read in place. */
  private record(body: string, n: number, lineNo: number): void {
    this.headerRead = true;
    if (this.xlen === undefined) this.err('bad-header', `record before the "xlen" header line, expected "xlen 32" or "xlen 64" first`, lineNo);
    const columns = this.columns;
    if (n < columns.length) {
      this.err('bad-value', `record has ${n} values, expected ${columns.length} (${columns.map((c) => c.name).join(' ')}) before the optional name=value fields`, lineNo);
    }
    const prev = this.prev;
    const given = this.given;
    const r: RetirementRecord = {
      itype: 0,
      iretire: 0,
      ilastsize: 1,
      iaddr: 0n, // the sequential successor of prev unless given (below: most lines give it)
      priv: prev.priv,
      cause: 0,
      tval: 0n,
      context: prev.context,
      ctype: 0,
      sijump: false,
      trigger: 0,
      halted: false,
      reset: false,
      impdef: prev.impdef,
      time: prev.time,
      sameCycle: false,
    };
    for (let k = 0; k < n; k++) {
      let f: Field;
      let idx: number;
      let from = this.tokStart[k]!;
      const to = this.tokEnd[k]!;
      let bare = false;
      if (k < columns.length) {
        f = columns[k]!;
        idx = this.columnIndex[k]!;
      } else {
        const eq = body.indexOf('=', from);
        bare = eq < 0 || eq >= to;
        const name = body.slice(from, bare ? to : eq);
        const known = FIELD_BY_NAME.get(name);
        if (known === undefined) this.err('bad-value', `unknown field "${name}", expected one of: ${FIELD_NAMES}`, lineNo);
        idx = known;
        f = FIELDS[idx]!;
        if (bare && !f.boolean) this.err('bad-value', `field "${name}" needs a value, expected ${name}=<${f.expected}>`, lineNo);
        if (!bare) from = eq + 1;
      }
      if (given[idx] === lineNo) this.err('bad-value', `field "${f.name}" given twice`, lineNo);
      given[idx] = lineNo;
      if (!bare && scanField(idx, r, body, from, to)) continue;
      const value = bare ? '1' : body.slice(from, to);
      if (!f.set(r, value)) this.err('bad-value', `bad ${f.name} value "${value}", expected ${f.expected}`, lineNo);
    }
    if (given[IADDR] !== lineNo) r.iaddr = BigInt.asUintN(64, sequentialNext(prev));
    this.records.push(r);
    this.count++;
    this.prev = r;
  }

  /** The records read since the last `take` (the caller owns them). */
  take(): RetirementRecord[] {
    const out = this.records;
    this.records = [];
    return out;
  }

  /** The end of the file: the stream, with the records not taken. */
  finish(): RetirementStream {
    this.closeSegment();
    const xlen = this.xlen;
    if (xlen === undefined) this.err('bad-header', `missing header line "xlen 32" or "xlen 64"`, this.lineNo);
    if (this.declared !== undefined && this.declared.count !== this.count) {
      this.err(
        this.count < this.declared.count ? 'truncated' : 'bad-value',
        `the "records" line (line ${this.declared.line}) announces ${this.declared.count} records, the file has ${this.count}`,
        this.lineNo,
      );
    }
    const stream: RetirementStream = { xlen, retiresPerCycle: this.retiresPerCycle ?? 1, image: new ProgramImage(this.segments), records: this.records };
    if (this.dataTrace) stream.data = this.dataLines.finish(this.count);
    return stream;
  }
}
