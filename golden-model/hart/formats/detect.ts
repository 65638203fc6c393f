/**
 * Format detection and dispatch: what the CLI calls with a file's bytes and name.
 */
import { RvError } from '../../common/errors.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { BINARY_MAGIC, decodeBinaryStream, encodeBinaryStream } from './binary.ts';
import type { StreamFormat } from './common.ts';
import { ETRACE_CSV_REQUIRED, importEtraceCsv } from './etrace-csv.ts';
import { importSpikeCsv, SPIKE_CSV_HEADER } from './spike-csv.ts';
import { decodeTextStream, encodeTextChunks, TEXT_SIGNATURE } from './text.ts';

/** How many leading bytes `detectFormat` needs at most (the CLI may pass only these). */
export const DETECT_HEAD_BYTES = 4096;

/**
 * The format of a file from its first bytes: the binary magic, the first line of our text format,
 * or the header line of one of the CSV imports. Undefined when none matches.
 */
export function detectFormat(head: Uint8Array): StreamFormat | undefined {
  if (head.length >= BINARY_MAGIC.length && BINARY_MAGIC.split('').every((c, i) => head[i] === c.charCodeAt(0))) {
    return 'bin';
  }
  // The first line, decoded leniently: a binary file of another kind must not throw here.
  let firstLine = new TextDecoder('utf-8').decode(head.subarray(0, DETECT_HEAD_BYTES));
  if (firstLine.charCodeAt(0) === 0xfeff) firstLine = firstLine.slice(1);
  const nl = firstLine.indexOf('\n');
  if (nl >= 0) firstLine = firstLine.slice(0, nl);
  firstLine = firstLine.trim();
  if (firstLine.startsWith(TEXT_SIGNATURE)) return 'text';
  const columns = firstLine.split(',').map((c) => c.trim());
  if (columns.join(',').toUpperCase() === SPIKE_CSV_HEADER) return 'spike-csv';
  if (ETRACE_CSV_REQUIRED.every((c) => columns.includes(c))) return 'etrace-csv';
  return undefined;
}

export interface ParseOptions {
  /** Force a format instead of detecting it. */
  format?: StreamFormat;
  /**
   * XLEN of imported CSV traces (default 64). Our own formats record XLEN in their header, which
   * wins: this option is ignored for them.
   */
  xlen?: Xlen;
  /** retiresPerCycle of an etrace-csv import (default: derived from the file, see importEtraceCsv). */
  retiresPerCycle?: number;
}

function utf8(bytes: Uint8Array, fileName: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RvError('bad-file', 'the file is not UTF-8 text, expected a text or CSV stream', { file: fileName });
  }
}

export function parseStream(bytes: Uint8Array, fileName: string, opts: ParseOptions = {}): RetirementStream {
  const format = opts.format ?? detectFormat(bytes);
  switch (format) {
    case 'bin':
      return decodeBinaryStream(bytes, fileName);
    case 'text':
      return decodeTextStream(utf8(bytes, fileName), fileName);
    case 'etrace-csv':
      return importEtraceCsv(utf8(bytes, fileName), fileName, { xlen: opts.xlen, retiresPerCycle: opts.retiresPerCycle });
    case 'spike-csv':
      return importSpikeCsv(utf8(bytes, fileName), fileName, { xlen: opts.xlen });
    case undefined:
      throw new RvError(
        'bad-file',
        'unknown file format, expected one of: bin (starts with "RVTRSTRM"), ' +
          `text (first line "${TEXT_SIGNATURE} v1"), ` +
          `etrace-csv (header with ${ETRACE_CSV_REQUIRED.join(',')}), ` +
          `spike-csv (header ${SPIKE_CSV_HEADER}); or force a format`,
        { file: fileName, line: 1 },
      );
  }
}

/** Our two formats as bytes, ready to write. Text is encoded in chunks: it may not fit one string. */
export function serializeStream(stream: RetirementStream, format: 'bin' | 'text'): Uint8Array {
  if (format === 'bin') return encodeBinaryStream(stream);
  const encoder = new TextEncoder();
  const parts = encodeTextChunks(stream).map((chunk) => encoder.encode(chunk));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
