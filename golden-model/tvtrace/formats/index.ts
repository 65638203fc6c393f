/**
 * Record files of the tandem-verification trace: our `text` and `bin` formats (write and read) and
 * the `bluespec-tv` import. Pure functions: the caller reads and writes the files.
 */
import { RvError } from '../../common/errors.ts';
import type { TvRecord } from '../records.ts';
import { BINARY_MAGIC, decodeBinaryRecords, encodeBinaryRecords } from './binary.ts';
import { importBluespecTv, looksLikeBluespecTv } from './bluespec-tv.ts';
import { decodeTextRecords, encodeTextRecords, TEXT_FIRST_LINE, TEXT_SIGNATURE } from './text.ts';

export { BINARY_MAGIC, decodeBinaryRecords, encodeBinaryRecords } from './binary.ts';
export { BLUESPEC_TRACE_OPS, importBluespecTv } from './bluespec-tv.ts';
export { decodeTextRecords, encodeTextRecords, formatTvRecord, TEXT_FIRST_LINE } from './text.ts';

export type TvRecordFormat = 'text' | 'bin' | 'bluespec-tv';
export const TV_RECORD_FORMATS: readonly TvRecordFormat[] = ['text', 'bin', 'bluespec-tv'];

/** How many leading bytes `detectTvRecordFormat` looks at. */
const DETECT_HEAD_BYTES = 4096;

/** The format of a file from its first bytes, or undefined when none matches. */
export function detectTvRecordFormat(head: Uint8Array): TvRecordFormat | undefined {
  if (head.length >= BINARY_MAGIC.length && BINARY_MAGIC.split('').every((c, i) => head[i] === c.charCodeAt(0))) return 'bin';
  const text = new TextDecoder('utf-8').decode(head.subarray(0, DETECT_HEAD_BYTES));
  const first = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n', 1)[0]!.trim();
  if (first.startsWith(TEXT_SIGNATURE)) return 'text';
  // The head may end inside a line: judge by complete lines only.
  const complete = head.length > DETECT_HEAD_BYTES ? text.slice(0, text.lastIndexOf('\n') + 1) : text;
  if (looksLikeBluespecTv(complete)) return 'bluespec-tv';
  return undefined;
}

function utf8(bytes: Uint8Array, fileName: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RvError('bad-file', 'the file is not UTF-8 text, expected a text or bluespec-tv record file', { file: fileName });
  }
}

/** Reads a record file in the given format, or the detected one. */
export function parseTvRecords(bytes: Uint8Array, fileName: string, format: TvRecordFormat | undefined = detectTvRecordFormat(bytes)): TvRecord[] {
  switch (format) {
    case 'bin':
      return decodeBinaryRecords(bytes, fileName);
    case 'text':
      return decodeTextRecords(utf8(bytes, fileName), fileName);
    case 'bluespec-tv':
      return importBluespecTv(utf8(bytes, fileName), fileName);
    case undefined:
      throw new RvError(
        'bad-file',
        `unknown record file format, expected one of: bin (starts with "${BINARY_MAGIC}"), text (first line "${TEXT_FIRST_LINE}"), ` +
          'bluespec-tv (ten hex fields per line); or force a format',
        { file: fileName, line: 1 },
      );
  }
}

/** Our two formats as bytes, ready to write. */
export function serializeTvRecords(records: readonly TvRecord[], format: 'text' | 'bin'): Uint8Array {
  return format === 'bin' ? encodeBinaryRecords(records) : new TextEncoder().encode(encodeTextRecords(records));
}
