/**
 * Running a bare-metal RISC-V ELF in QEMU 7.2 (Debian's qemu-system-riscv32/64, machine `virt`)
 * with the execution log that golden-model/hart/formats/qemu-log.ts converts: one instruction per
 * translation block, every block entry and every trap logged (docs/trace-elf.md).
 *
 * The program ends by writing the SiFive test device at 0x100000: 0x5555 passes (QEMU exits 0),
 * (code << 16) | 0x3333 fails (QEMU exits with `code`). A run that does neither within the
 * timeout is stopped; its log is kept until `cleanup`, like any other (the caller reports it). With
 * `maxInstructions` the log is watched while QEMU runs and QEMU is stopped once it holds enough
 * instructions. Errors (RvError 'tool-failure') only when QEMU cannot run or fails itself.
 */
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { textPieces } from '../core/stream-io.ts';
import { finishedWriting, startedWriting } from '../core/unfinished-files.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RvError } from '../golden-model/common/errors.ts';
import type { Xlen } from '../golden-model/hart/stream.ts';

export const DEFAULT_TIMEOUT_SECONDS = 60;
/** Exit-status values of the SiFive test device (hw/misc/sifive_test.c). */
export const TEST_DEVICE = { address: 0x100000, pass: 0x5555, fail: 0x3333 } as const;

/** The QEMU binary for an XLEN. */
export function qemuBinary(xlen: Xlen): string {
  return xlen === 32 ? 'qemu-system-riscv32' : 'qemu-system-riscv64';
}

/**
 * The QEMU arguments: the virt machine without firmware (its reset ROM jumps to the ELF entry),
 * no display (the UART on stdio), no reboot (a reset through the test device ends the run), one
 * instruction per block (-singlestep), the log items exec,int,nochain into `logPath`, and with
 * `icount` a virtual clock of one instruction per nanosecond that jumps to the next timer
 * deadline when the hart waits (sleep=off): the run, its timer interrupts and its log are then
 * the same every time (with sleep=on, the default, a timer interrupt may land a few hundred
 * instructions apart from run to run).
 */
export function qemuArgs(elf: string, logPath: string, icount = true): string[] {
  return [
    '-machine', 'virt',
    '-bios', 'none',
    '-kernel', elf,
    '-nographic',
    '-no-reboot',
    '-singlestep',
    '-d', 'exec,int,nochain',
    '-D', logPath,
    ...(icount ? ['-icount', 'shift=0,sleep=off'] : []),
  ];
}

export interface QemuRunOptions {
  elf: string;
  xlen: Xlen;
  /** Seconds before the run is stopped and reported (default 60). */
  timeoutSeconds?: number;
  /** Stop QEMU once the log holds this many instructions (plus a margin; the conversion truncates exactly). */
  maxInstructions?: number;
  /** Deterministic virtual time (-icount shift=0,sleep=off); default true. */
  icount?: boolean;
  /** The QEMU binary (default qemuBinary(xlen)). */
  qemu?: string;
}

export type QemuExit =
  | { kind: 'pass' }
  /** The program wrote (code << 16) | 0x3333 to the test device (QEMU exits with `code`). */
  | { kind: 'fail'; code: number }
  /** Stopped after maxInstructions. */
  | { kind: 'stopped' }
  /** Stopped after the timeout: the program never wrote the test device. */
  | { kind: 'timeout'; seconds: number };

export interface QemuRun {
  /** The execution log (in a temporary directory; `cleanup` removes it). */
  logPath: string;
  exit: QemuExit;
  /** Wall-clock seconds QEMU ran. */
  seconds: number;
  /** What the program wrote to the UART (QEMU's stdout). */
  console: string;
  /** The log's lines in batches (one per chunk read; the log may be hundreds of megabytes). */
  lines(): AsyncIterable<string[]>;
  /** The log's text in pieces of about PIECE_BYTES, each ending at a line end. */
  pieces(): Iterable<string>;
  /** Removes the temporary directory with the log. */
  cleanup(): void;
}

/** Instructions the log may hold beyond maxInstructions before QEMU is stopped (boot code, traps that retire nothing). */
const STOP_MARGIN = 1000;
const POLL_MS = 50;

export async function runQemu(opts: QemuRunOptions): Promise<QemuRun> {
  const timeout = opts.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const qemu = opts.qemu ?? qemuBinary(opts.xlen);
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-qemu-'));
  // An interrupted run cannot come back here: the CLI's launcher removes the folder (and ends QEMU).
  startedWriting(dir);
  const logPath = join(dir, 'qemu.log');
  const cleanup = (): void => {
    rmSync(dir, { recursive: true, force: true });
    finishedWriting(dir);
  };
  const started = performance.now();
  const child = spawn(qemu, qemuArgs(opts.elf, logPath, opts.icount ?? true), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    if (stdout.length < 1 << 20) stdout += s;
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    if (stderr.length < 1 << 16) stderr += s;
  });

  let why: 'timeout' | 'stopped' | undefined;
  const stop = (reason: 'timeout' | 'stopped'): void => {
    if (why !== undefined) return;
    why = reason;
    child.kill('SIGTERM');
    // QEMU ends on SIGTERM after flushing its log; make sure it ends.
    setTimeout(() => child.kill('SIGKILL'), 2000).unref();
  };
  const timer = setTimeout(() => stop('timeout'), timeout * 1000);
  const watcher = opts.maxInstructions !== undefined ? watchLog(logPath, opts.maxInstructions + STOP_MARGIN, () => stop('stopped')) : undefined;

  const result = await new Promise<{ status: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, signal: null, error }));
    child.on('close', (status, signal) => resolve({ status, signal }));
  });
  clearTimeout(timer);
  watcher?.close();
  const seconds = (performance.now() - started) / 1000;

  const failWith = (message: string): never => {
    cleanup();
    throw new RvError('tool-failure', message, { file: opts.elf });
  };
  if (result.error !== undefined) {
    failWith(
      result.error.code === 'ENOENT'
        ? `${qemu} not found: install QEMU 7.2 (Debian: apt-get install qemu-system-misc)`
        : `cannot run ${qemu}: ${result.error.message}`,
    );
  }
  const lastWords = stderr.trim().split('\n').filter((l) => !/terminating on signal/.test(l)).slice(-3).join(' / ');
  let exit: QemuExit;
  if (why === 'timeout') {
    exit = { kind: 'timeout', seconds: timeout };
  } else if (why === 'stopped') {
    exit = { kind: 'stopped' };
  } else if (result.status === 0) {
    exit = { kind: 'pass' };
  } else if (result.status !== null && lastWords === '') {
    exit = { kind: 'fail', code: result.status };
  } else {
    return failWith(`QEMU failed (${result.status !== null ? `exit status ${result.status}` : `signal ${result.signal}`})${lastWords ? `: ${lastWords}` : ''}`);
  }
  if (!existsNonEmpty(logPath)) failWith(exit.kind === 'timeout' ? timeoutMessage(timeout) : `QEMU wrote no execution log (${logPath})`);
  // A stopped QEMU may leave half a line at the end of the log.
  const partialLastLine = exit.kind === 'stopped' || exit.kind === 'timeout';
  return {
    logPath,
    exit,
    seconds,
    console: stdout,
    lines: () => readLineBatches(logPath, { dropPartialLastLine: partialLastLine }),
    pieces: () => logPieces(logPath, partialLastLine),
    cleanup,
  };
}

/** What a timeout means, for the caller's error. */
export function timeoutMessage(seconds: number): string {
  return (
    `QEMU did not finish within ${seconds} s: the program never wrote the SiFive test device at 0x100000 ` +
    '(0x5555 to pass, (code << 16) | 0x3333 to fail); raise --timeout or check that the program ends'
  );
}

function existsNonEmpty(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}

/**
 * Counts the instructions the log holds while QEMU writes it: Trace lines minus the cancelled
 * ones (Stopped execution / cpu_io_recompile). Calls `enough` once the count reaches `limit`.
 */
function watchLog(path: string, limit: number, enough: () => void): { close(): void } {
  let offset = 0;
  let carry = '';
  let count = 0;
  const buf = Buffer.alloc(1 << 20);
  const poll = (): void => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return; // not created yet
    }
    try {
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, offset);
        if (n <= 0) break;
        offset += n;
        const lines = (carry + buf.toString('latin1', 0, n)).split('\n');
        carry = lines.pop()!;
        for (const l of lines) {
          if (l.startsWith('Trace ')) count++;
          else if (l.startsWith('Stopped execution') || l.startsWith('cpu_io_recompile:')) count--;
        }
        if (count >= limit) {
          enough();
          return;
        }
      }
    } finally {
      closeSync(fd);
    }
  };
  const timer = setInterval(poll, POLL_MS);
  return { close: () => clearInterval(timer) };
}

/**
 * The log's text in pieces (core/stream-io.ts), without a last line that has no newline when
 * `dropPartialLastLine`. Its bytes are read as Latin-1: the only text that is not ASCII can be in
 * symbol names, which the import skips.
 */
export function* logPieces(path: string, dropPartialLastLine: boolean): Generator<string> {
  for (const piece of textPieces(path, { latin1: true })) {
    const end = dropPartialLastLine ? piece.lastIndexOf('\n') + 1 : piece.length;
    if (end > 0) yield end === piece.length ? piece : piece.slice(0, end);
  }
}

/**
 * The lines of a text file without their newlines (a trailing '\r' removed), read in 1 MiB chunks
 * and yielded a chunk's lines at a time. With dropPartialLastLine a last line without a newline is
 * left out (a log cut off mid-line).
 */
export async function* readLineBatches(path: string, opts: { dropPartialLastLine?: boolean } = {}): AsyncGenerator<string[]> {
  let carry = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const parts = (carry + (chunk as string)).split('\n');
    carry = parts.pop()!;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.endsWith('\r')) parts[i] = p.slice(0, -1);
    }
    yield parts;
  }
  if (carry !== '' && !opts.dropPartialLastLine) yield [carry.endsWith('\r') ? carry.slice(0, -1) : carry];
}
