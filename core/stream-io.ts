/** Reading and writing retirement streams from the CLI: format detection, forcing, atomic writes. */
import { RvError } from '../golden-model/common/errors.ts';
import type { StreamFormat } from '../golden-model/hart/formats/common.ts';
import { STREAM_FORMATS } from '../golden-model/hart/formats/common.ts';
import { parseStream, serializeStream } from '../golden-model/hart/formats/detect.ts';
import type { RetirementStream, Xlen } from '../golden-model/hart/stream.ts';
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
