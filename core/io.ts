/** File input and output for the CLI: clear errors, and outputs that appear whole or not at all. */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RvError } from '../golden-model/common/errors.ts';
import { finishedWriting, startedWriting } from './unfinished-files.ts';

export function readInput(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String((e as Error).message);
    throw new RvError('io', `cannot read: ${why}`, { file });
  }
}

/** Writes through a temporary file in the same directory and renames it, so readers never see half a file. */
export function writeOutputAtomic(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  startedWriting(tmp);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new RvError('io', `cannot write: ${(e as Error).message}`, { file });
  } finally {
    finishedWriting(tmp);
  }
}
