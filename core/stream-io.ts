/** Reading and writing retirement streams from the CLI: format detection, forcing, atomic writes. */
import { RvError } from '../golden-model/common/errors.ts';
import type { StreamFormat } from '../golden-model/hart/formats/common.ts';
import { STREAM_FORMATS } from '../golden-model/hart/formats/common.ts';
import { DETECT_HEAD_BYTES, detectFormat, parseStream, serializeStream } from '../golden-model/hart/formats/detect.ts';
import { SpikeCsvReader } from '../golden-model/hart/formats/spike-csv.ts';
import { EtraceCsvReader } from '../golden-model/hart/formats/etrace-csv.ts';
import { TextStreamReader } from '../golden-model/hart/formats/text.ts';
import type { DataTrace } from '../golden-model/hart/data-records.ts';
import type { ProgramImage } from '../golden-model/hart/image.ts';
import type { RetirementRecord } from '../golden-model/hart/records.ts';
import type { RetirementStream, Xlen } from '../golden-model/hart/stream.ts';
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { readInput, writeOutputAtomic } from './io.ts';
import type { SettingSpec } from '../golden-model/common/settings.ts';

/** Settings every command that reads a trace understands. */
export const TRACE_INPUT_SETTINGS: readonly SettingSpec[] = [
  { name: 'xlen', kind: 'choice', choices: ['32', '64'], default: '64', help: 'XLEN of imported CSV traces (our formats record it)' },
];

export function checkInFormat(value: string | undefined): StreamFormat | undefined {
  if (value === undefined) return undefined;
  if (!(STREAM_FORMATS as readonly string[]).includes(value)) {
    throw new RvError('bad-option', `--in-format ${value}: expected one of ${STREAM_FORMATS.join(', ')}`);
  }
  return value as StreamFormat;
}

export function readStream(file: string, format: string | undefined, xlen: Xlen): RetirementStream {
  const bytes = readInput(file);
  try {
    return parseStream(bytes, file, { format: checkInFormat(format), xlen });
  } catch (e) {
    if (e instanceof RvError && e.location.file === undefined) throw e.inFile(file);
    throw e;
  }
}

/** Our own output formats: `text` for a .txt/.text file name unless forced, else `bin`. */
export function outputFormat(file: string, forced: string | undefined): 'bin' | 'text' {
  if (forced !== undefined) {
    if (forced !== 'bin' && forced !== 'text') throw new RvError('bad-option', `--format ${forced}: expected bin or text`);
    return forced;
  }
  return /\.(txt|text)$/i.test(file) ? 'text' : 'bin';
}

export function writeStream(file: string, stream: RetirementStream, format: 'bin' | 'text'): void {
  writeOutputAtomic(file, serializeStream(stream, format));
}

/**
 * A retirement stream handed over in pieces: `pieces()` gives the records once, in order, a piece at
 * a time, and a caller that drops each piece after use holds no more than one. A spike-csv,
 * etrace-csv or text file (a text stream without data accesses) is read a piece of the file at a
 * time (PIECE_BYTES), so neither the file nor its records are ever whole in memory; the other
 * formats are parsed whole first and given as one piece.
 */
export interface StreamSource {
  readonly xlen: Xlen;
  /** Instructions retired per cycle at most; of a streamed import, complete once `pieces()` has been read. */
  readonly retiresPerCycle: number;
  /** The data accesses (our own formats can carry them; never a CSV import). */
  readonly data?: DataTrace;
  pieces(): Iterable<RetirementRecord[]>;
  /** The program image, complete once `pieces()` has been read to its end. */
  image(): ProgramImage;
}

/** The stream of a source whole: its pieces joined (for what needs every record at once). */
export function wholeStream(source: StreamSource): RetirementStream {
  const pieces = [...source.pieces()];
  const records = pieces.length === 1 ? pieces[0]! : pieces.flat();
  return { xlen: source.xlen, retiresPerCycle: source.retiresPerCycle, image: source.image(), records, ...(source.data ? { data: source.data } : {}) };
}

/** What reads a format in pieces (spike-csv.ts, etrace-csv.ts). */
interface PieceReader {
  feed(text: string): void;
  take(): RetirementRecord[];
  finish(): RetirementStream;
}

/** How much of a file a streamed import reads at once (about 2,400 spike-csv rows: pieces small enough that most die young, which the garbage collector collects at almost no cost). */
export const PIECE_BYTES = 1 << 16;

export function openStreamSource(file: string, format: string | undefined, xlen: Xlen): StreamSource {
  const forced = checkInFormat(format);
  const detected = forced ?? detectFormat(readHead(file));
  if (detected === 'text') return textSource(file);
  if (detected !== 'spike-csv' && detected !== 'etrace-csv') {
    const stream = readStream(file, format, xlen);
    return { xlen: stream.xlen, retiresPerCycle: stream.retiresPerCycle, ...(stream.data ? { data: stream.data } : {}), pieces: () => [stream.records], image: () => stream.image };
  }
  const reader: PieceReader = detected === 'spike-csv' ? new SpikeCsvReader(file, { xlen }) : new EtraceCsvReader(file, { xlen });
  let image: ProgramImage | undefined;
  let retiresPerCycle = 1;
  return {
    xlen,
    // An etrace-csv's is known at its end (the most instructions a line retires).
    get retiresPerCycle() {
      return retiresPerCycle;
    },
    *pieces() {
      for (const text of textPieces(file)) {
        reader.feed(text);
        yield reader.take();
      }
      const last = reader.finish();
      image = last.image;
      retiresPerCycle = last.retiresPerCycle;
      yield last.records;
    },
    image: () => {
      if (image === undefined) throw new Error('StreamSource: image() before the last piece');
      return image;
    },
  };
}

/**
 * A text stream in pieces, once its header has been read (its xlen, retires and whether it carries
 * data accesses are known before the first record is handed over). A stream with a data trace is
 * read whole: its accesses go to the encoder before its first record.
 */
function textSource(file: string): StreamSource {
  const reader = new TextStreamReader(file);
  const texts = textPieces(file);
  let ended = false;
  while (!reader.headerRead && !ended) {
    const next = texts.next();
    if (next.done) ended = true;
    else reader.feed(next.value);
  }
  if (ended || reader.dataTrace) {
    for (const text of texts) reader.feed(text);
    const stream = reader.finish();
    return { xlen: stream.xlen, retiresPerCycle: stream.retiresPerCycle, ...(stream.data ? { data: stream.data } : {}), pieces: () => [stream.records], image: () => stream.image };
  }
  let image: ProgramImage | undefined;
  return {
    // A record line was read: the reader has refused a record before the xlen line.
    xlen: reader.xlen!,
    retiresPerCycle: reader.retiresPerCycle ?? 1,
    *pieces() {
      yield reader.take();
      for (const text of texts) {
        reader.feed(text);
        yield reader.take();
      }
      const last = reader.finish();
      image = last.image;
      yield last.records;
    },
    image: () => {
      if (image === undefined) throw new Error('StreamSource: image() before the last piece');
      return image;
    },
  };
}

/** The first bytes of a file, enough for `detectFormat`. */
function readHead(file: string): Uint8Array {
  const fd = openInput(file);
  try {
    const head = new Uint8Array(DETECT_HEAD_BYTES);
    return head.subarray(0, readPart(file, fd, head));
  } finally {
    closeSync(fd);
  }
}

/** Opens a file to read, with the errors of `readInput` (no such file, a directory, ...). */
function openInput(file: string): number {
  try {
    return openSync(file, 'r');
  } catch {
    readInput(file); // throws the error a whole read gives
    throw new RvError('io', 'cannot read', { file });
  }
}

/** The next bytes of the file into `buffer`; how many (0 at its end). */
function readPart(file: string, fd: number, buffer: Uint8Array): number {
  try {
    return readSync(fd, buffer, 0, buffer.length, null);
  } catch {
    readInput(file); // a directory opens but does not read: the error a whole read gives
    throw new RvError('io', 'cannot read', { file });
  }
}

/**
 * The text of a UTF-8 file in pieces of about PIECE_BYTES, each ending at a line end (the last one
 * at the file's end); a multi-byte character cut by a read is completed by the next. With
 * `latin1`, every byte is read as its Latin-1 character instead, and no file is refused (for a
 * reader that only looks at ASCII text in a file that may hold other bytes elsewhere).
 *
 * Reads of ASCII bytes only (traces are) are their own Latin-1 text and are copied into a one-byte
 * string: TextDecoder makes a two-byte string of them, at four times the cost (35 ms of CPU
 * against 8 for a 28 MB spike-csv on the development machine). Once a read is not ASCII (a byte
 * order mark, a name in a comment), every later read goes through the decoder, which may hold the
 * start of a character.
 */
export function* textPieces(file: string, { latin1 = false } = {}): Generator<string> {
  const fd = openInput(file);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const buffer = new Uint8Array(PIECE_BYTES);
  const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.length);
  let ascii = true;
  const utf8 = (bytes: Uint8Array | undefined): string => {
    try {
      return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true });
    } catch {
      throw new RvError('bad-file', 'the file is not UTF-8 text, expected a text or CSV stream', { file });
    }
  };
  const decode = (n: number): string => {
    ascii &&= latin1 || isAscii(buffer.subarray(0, n));
    return ascii ? view.toString('latin1', 0, n) : utf8(buffer.subarray(0, n));
  };
  try {
    let carry = '';
    for (let n = readPart(file, fd, buffer); n > 0; n = readPart(file, fd, buffer)) {
      const text = carry + decode(n);
      const end = text.lastIndexOf('\n') + 1;
      carry = text.slice(end);
      if (end > 0) yield text.slice(0, end);
    }
    const rest = carry + utf8(undefined); // the decoder holds nothing when every read was Latin-1
    if (rest.length > 0) yield rest;
  } finally {
    closeSync(fd);
  }
}
