/** File input and output for the CLI: clear errors, and outputs that appear whole or not at all. */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** A trace or stream input that must hold something: an empty file is an error naming it. */
export function readNonEmptyInput(file: string, what: string): Uint8Array {
  const bytes = readInput(file);
  if (bytes.length === 0) throw new RvError('bad-file', `empty file: expected ${what}`, { file });
  return bytes;
}

/** Why a write failed, in the user's terms (the error codes of the file system, not its message, which names our temporary file). */
function whyNotWritten(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'EISDIR':
      return 'is a directory (give a file name)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a folder on its path is a file';
    case 'ENOENT':
      return 'its folder cannot be created';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'read-only file system';
    default:
      return (e as Error).message.replace(/,? (open|rename|mkdir) .*$/, '');
  }
}

/**
 * Checks before any work that `file` can be an output file: not empty, not an existing
 * directory. `option` names where the user gave it (`--out`).
 */
export function checkOutputFile(file: string, option = '--out'): void {
  if (file === '') throw new RvError('bad-option', `${option}: an empty file name (give the file to write)`);
  let isDir = false;
  try {
    isDir = existsSync(file) && statSync(file).isDirectory();
  } catch {
    // Unreadable: the write reports it.
  }
  if (isDir) throw new RvError('bad-option', `${option} ${file}: is a directory (give a file name)`);
}

/** Checks before any work that `dir` can be an output directory: not empty, not an existing file. */
export function checkOutputDir(dir: string, option = '--out'): void {
  if (dir === '') throw new RvError('bad-option', `${option}: an empty directory name (give the directory to write)`);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new RvError('bad-option', `${option} ${dir}: is a file, not a directory`);
}

/** Writes through a temporary file in the same directory and renames it, so readers never see half a file. */
export function writeOutputAtomic(file: string, data: Uint8Array | string): void {
  if (file === '') throw new RvError('bad-option', 'cannot write: an empty file name (give the file to write)');
  const tmp = `${file}.tmp-${process.pid}`;
  startedWriting(tmp);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Nothing was written there (a folder on the path is a file).
    }
    throw new RvError('io', `cannot write: ${whyNotWritten(e)}`, { file });
  } finally {
    finishedWriting(tmp);
  }
}
