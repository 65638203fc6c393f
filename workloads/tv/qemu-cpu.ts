/**
 * QEMU 7.2 with its CPU-state log: runs a bare-metal ELF on the `virt` machine with one instruction
 * per translation block and `-d exec,int,nochain,cpu[,fpu]`, and hands the log to a consumer while
 * QEMU writes it (a pipe, not a file: a full log is 1.3-2.5 KB per instruction, a gigabyte for a
 * workload). `CpuLogParser` turns the lines into events: a block entered with the CPU state before
 * it (pc, the CSRs QEMU prints, x0-x31, f0-f31), a block that did not run after all, a trap.
 * docs/trace-elf.md ("--tv") describes the log.
 *
 * QEMU is stopped (SIGKILL) when the consumer stops early or fails, when the timeout passes, and
 * when this process is interrupted (SIGINT, SIGTERM, SIGHUP) or exits: no QEMU outlives a run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, createReadStream, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { finishedWriting, startedWriting } from '../../core/unfinished-files.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RvError } from '../../golden-model/common/errors.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import { DEFAULT_TIMEOUT_SECONDS, qemuBinary, timeoutMessage } from '../qemu.ts';

export interface CpuLogRunOptions {
  elf: string;
  xlen: Xlen;
  /** QEMU -cpu (default: rv64 / rv32, QEMU's default harts, as trace-elf). */
  cpu?: string;
  /** Log the floating-point registers too (-d fpu). */
  fpu: boolean;
  timeoutSeconds?: number;
  /** Copy the log into this file as it is read. */
  keepLog?: string;
  /** The QEMU binary (default qemuBinary(xlen)). */
  qemu?: string;
}

export type CpuLogExit = { kind: 'pass' } | { kind: 'fail'; code: number } | { kind: 'stopped' } | { kind: 'timeout'; seconds: number };

export interface CpuLogResult {
  exit: CpuLogExit;
  seconds: number;
  console: string;
}

export function cpuLogArgs(opts: { elf: string; cpu?: string; fpu: boolean }, consoleFile: string, logFile: string): string[] {
  return [
    '-machine', 'virt',
    ...(opts.cpu !== undefined ? ['-cpu', opts.cpu] : []),
    '-bios', 'none',
    '-kernel', opts.elf,
    '-display', 'none',
    '-monitor', 'none',
    '-serial', `file:${consoleFile}`,
    '-no-reboot',
    '-singlestep',
    '-d', `exec,int,nochain,cpu${opts.fpu ? ',fpu' : ''}`,
    '-D', logFile,
    '-icount', 'shift=0,sleep=off',
  ];
}

/** QEMU processes this process started and has not seen end: their log pipe, the paths to remove. */
const live = new Map<ChildProcess, { fifo: string; paths: string[] }>();
const SIGNAL_STATUS: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Opens the pipe for writing and closes it: a reader still waiting in open() (QEMU ended, or was
 * killed, before opening its log) gets end-of-file instead of blocking a thread for ever, which
 * would also keep this process from exiting.
 */
function releaseReader(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader waiting
  }
}

function killAll(): void {
  for (const [c, { fifo, paths }] of live) {
    c.kill('SIGKILL');
    releaseReader(fifo);
    for (const p of paths) rmSync(p, { recursive: true, force: true });
  }
}
function onSignal(sig: NodeJS.Signals): void {
  killAll();
  process.exit(SIGNAL_STATUS[sig]!);
}

/** While a QEMU runs: interrupting or ending this process kills it (and removes its folder). */
function track(child: ChildProcess, fifo: string, paths: string[]): void {
  // In the CLI the command runs in a worker thread, which hears no signal and is stopped where it
  // stands: the launcher removes these paths (and ends QEMU) instead of the handlers below.
  for (const p of paths) startedWriting(p);
  if (live.size === 0) {
    process.on('exit', killAll);
    for (const sig of Object.keys(SIGNAL_STATUS)) process.on(sig, onSignal);
  }
  live.set(child, { fifo, paths });
}
function untrack(child: ChildProcess): void {
  for (const p of live.get(child)?.paths ?? []) finishedWriting(p);
  live.delete(child);
  if (live.size === 0) {
    process.off('exit', killAll);
    for (const sig of Object.keys(SIGNAL_STATUS)) process.off(sig, onSignal);
  }
}

/**
 * Runs QEMU and calls `consume` with the log's lines in batches while it runs; `consume` returns
 * false to stop (QEMU is killed: exit kind `stopped`). Resolves when QEMU has ended and the log is
 * consumed. Errors: RvError 'tool-failure' when QEMU cannot run or fails; whatever `consume` throws
 * (QEMU is killed first).
 */
export async function runCpuLog(opts: CpuLogRunOptions, consume: (lines: string[]) => boolean): Promise<CpuLogResult> {
  const timeout = opts.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const qemu = opts.qemu ?? qemuBinary(opts.xlen);
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-tv-'));
  const consoleFile = join(dir, 'console.txt');
  // The log goes through a named pipe (Node's own stdio pipes are sockets, which QEMU cannot open as a file).
  const fifo = join(dir, 'log.fifo');
  const made = spawnSync('mkfifo', [fifo], { encoding: 'utf8' });
  if (made.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new RvError('tool-failure', `cannot create a named pipe for QEMU's log (mkfifo): ${made.error?.message ?? made.stderr.trim()}`);
  }
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  let keep: number | undefined;
  const keepTmp = opts.keepLog !== undefined ? `${opts.keepLog}.tmp-${process.pid}` : undefined;
  if (keepTmp !== undefined) {
    try {
      keep = openSync(keepTmp, 'w');
    } catch (e) {
      cleanup();
      throw new RvError('io', `cannot write the QEMU log: ${(e as Error).message}`, { file: opts.keepLog! });
    }
  }
  const started = performance.now();
  const child = spawn(qemu, cpuLogArgs(opts, consoleFile, fifo), { stdio: ['ignore', 'ignore', 'pipe'] });
  track(child, fifo, keepTmp !== undefined ? [dir, keepTmp] : [dir]);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    if (stderr.length < 1 << 16) stderr += s;
  });
  let why: 'timeout' | 'stopped' | undefined;
  const stop = (reason: 'timeout' | 'stopped'): void => {
    if (why === undefined) why = reason;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => stop('timeout'), timeout * 1000);
  const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, signal: null, error }));
    child.on('close', (status, signal) => resolve({ status, signal }));
  });
  // A QEMU that ends before opening its log would leave the reader waiting for a writer: be one.
  void closed.then(() => releaseReader(fifo));
  const log = createReadStream(fifo, { encoding: 'latin1', highWaterMark: 1 << 20 });

  try {
    let carry = '';
    let reading = true;
    for await (const chunk of log as AsyncIterable<string>) {
      if (keep !== undefined) writeSync(keep, chunk, null, 'latin1');
      if (!reading) continue; // drain until QEMU is gone
      const parts = (carry + chunk).split('\n');
      carry = parts.pop()!;
      if (!consume(parts)) {
        reading = false;
        stop('stopped');
      }
    }
    // A killed QEMU may leave half a line: drop it.
    if (reading && carry !== '' && why === undefined) consume([carry]);
    const result = await closed;
    clearTimeout(timer);
    const seconds = (performance.now() - started) / 1000;
    if (result.error !== undefined) {
      throw new RvError(
        'tool-failure',
        result.error.code === 'ENOENT' ? `${qemu} not found: install QEMU 7.2 (Debian: apt-get install qemu-system-misc)` : `cannot run ${qemu}: ${result.error.message}`,
        { file: opts.elf },
      );
    }
    let consoleText = '';
    try {
      consoleText = readFileSync(consoleFile, 'latin1');
    } catch {
      // no console output
    }
    const lastWords = stderr.trim().split('\n').filter((l) => l !== '').slice(-3).join(' / ');
    let exit: CpuLogExit;
    if (why === 'timeout') exit = { kind: 'timeout', seconds: timeout };
    else if (why === 'stopped') exit = { kind: 'stopped' };
    else if (result.status === 0) exit = { kind: 'pass' };
    else if (result.status !== null && lastWords === '') exit = { kind: 'fail', code: result.status };
    else {
      throw new RvError('tool-failure', `QEMU failed (${result.status !== null ? `exit status ${result.status}` : `signal ${result.signal}`})${lastWords ? `: ${lastWords}` : ''}`, {
        file: opts.elf,
      });
    }
    if (keep !== undefined) {
      closeSync(keep);
      keep = undefined;
      renameSync(keepTmp!, opts.keepLog!);
    }
    return { exit, seconds, console: consoleText };
  } catch (e) {
    stop('stopped');
    await closed;
    throw e;
  } finally {
    clearTimeout(timer);
    log.destroy();
    untrack(child);
    if (keep !== undefined) {
      closeSync(keep);
      rmSync(keepTmp!, { force: true });
    }
    cleanup();
  }
}

/** What a timeout means, for the caller's error (the same words as trace-elf). */
export { timeoutMessage };

// --- the log -------------------------------------------------------------------------------------

/** Where the parts of a CPU state are among its lines (the same for every state of a log). */
export interface DumpLayout {
  /** Hex digits of an x register (and a CSR): XLEN / 4. */
  readonly digits: number;
  /** Lines of CSRs (after " V = 0" and " pc"), in `csrNames` order. */
  readonly csrNames: readonly string[];
  readonly xAt: number;
  /** Index of the f register lines, or -1 without them. */
  readonly fAt: number;
}

/**
 * The CPU state QEMU prints before a block runs (riscv_cpu_dump_state), kept as its lines: values
 * are cut out only when asked for, and states are compared a line at a time.
 */
export class CpuDump {
  constructor(
    readonly pc: string,
    private readonly lines: readonly string[],
    readonly layout: DumpLayout,
  ) {}

  get hasF(): boolean {
    return this.layout.fAt >= 0;
  }
  /** Hex text of x register r. */
  xText(r: number): string {
    const w = this.layout.digits;
    return this.lines[this.layout.xAt + (r >> 2)]!.substr((r & 3) * (w + 10) + 10, w);
  }
  /** Hex text of f register r (16 digits). */
  fText(r: number): string {
    return this.lines[this.layout.fAt + (r >> 2)]!.substr((r & 3) * 26 + 10, 16);
  }
  /** Hex text of the i-th CSR printed. */
  csrText(i: number): string {
    return this.lines[2 + i]!.slice(10);
  }
  /** Line k (0-7) of x registers x4k..x4k+3, for comparing states. */
  xLine(k: number): string {
    return this.lines[this.layout.xAt + k]!;
  }
  fLine(k: number): string {
    return this.lines[this.layout.fAt + k]!;
  }
  csrLine(i: number): string {
    return this.lines[2 + i]!;
  }
}

export interface CpuLogEvents {
  /** A block was entered (`Trace` line) with the state before it; `flags` are its TB flags. */
  enter(line: number, pc: bigint, flags: number, dump: CpuDump): void;
  /** The block just entered did not run (Stopped execution / cpu_io_recompile). */
  cancel(line: number, pc: bigint): void;
  /** riscv_cpu_do_interrupt. */
  trap(line: number, async: boolean, cause: bigint, epc: bigint, tval: bigint, desc: string): void;
}

const TRACE_RE = /^Trace (\d+): \S+ \[([0-9a-f]+)\/([0-9a-f]+)\/([0-9a-f]+)\/([0-9a-f]+)\]/;
const INT_RE = /^riscv_cpu_do_interrupt: hart:(\d+), async:(\d+), cause:([0-9a-f]+), epc:0x([0-9a-f]+), tval:0x([0-9a-f]+), desc=(\S*)/;
const STOPPED_RE = /^Stopped execution of TB chain before \S+ \[([0-9a-f]+)\]/;
const REWOUND_RE = /^cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)/;

/**
 * Push parser of the log: `lines()` with each batch, `end()` at the end. Throws RvError
 * 'bad-value' naming the log and line when the log does not have the expected shape.
 */
export class CpuLogParser {
  /** CSR names in the order QEMU prints them (learnt from the first dump). */
  csrNames: string[] | undefined;
  private csrPrefixes: string[] = [];
  private lineNo = 0;
  private readonly digits: number;
  /** The Trace line waiting for its dump. */
  private head: { line: number; pc: bigint; pcText: string; flags: number } | undefined;
  private dumpLines: string[] = [];
  readonly stats = { lines: 0, otherLines: 0 };
  private readonly pcs = new Map<string, bigint>();

  constructor(
    private readonly xlen: Xlen,
    private readonly fpu: boolean,
    private readonly events: CpuLogEvents,
    private readonly fileName: string,
  ) {
    this.digits = xlen / 4;
  }

  private fail(message: string, line = this.lineNo): never {
    throw new RvError('bad-value', message, { file: this.fileName, line });
  }

  private pcOf(text: string): bigint {
    let pc = this.pcs.get(text);
    if (pc === undefined) {
      if (this.pcs.size > 1 << 20) this.pcs.clear();
      this.pcs.set(text, (pc = BigInt('0x' + text)));
    }
    return pc;
  }

  lines(batch: readonly string[]): void {
    for (const l of batch) {
      this.lineNo++;
      if (l.charCodeAt(0) === 32) {
        if (this.head === undefined) this.fail('a CPU-state line with no Trace line before it');
        this.dumpLines.push(l);
        continue;
      }
      if (this.head !== undefined) this.flushDump();
      if (l.startsWith('Trace ')) {
        const m = TRACE_RE.exec(l);
        if (!m) this.fail('a Trace line QEMU 7.2 does not write; expected "Trace 0: 0x<host> [<cs_base>/<pc>/<flags>/<cflags>]"');
        if (m[1] !== '0') this.fail(`a block of CPU ${m[1]}; expected one hart (CPU 0)`);
        const cflags = parseInt(m[5]!, 16);
        if ((cflags & 0x1ff) !== 1) this.fail(`cflags ${m[5]}: blocks of ${cflags & 0x1ff || 'any number of'} instructions; expected 1 (-singlestep)`);
        this.head = { line: this.lineNo, pc: this.pcOf(m[3]!), pcText: m[3]!, flags: parseInt(m[4]!, 16) };
        this.dumpLines = [];
      } else if (l.startsWith('riscv_cpu_do_interrupt:')) {
        const m = INT_RE.exec(l);
        if (!m) this.fail('a riscv_cpu_do_interrupt line QEMU 7.2 does not write');
        if (m[1] !== '0') this.fail(`a trap of hart ${m[1]}; expected one hart (0)`);
        this.events.trap(this.lineNo, m[2] === '1', BigInt('0x' + m[3]!), BigInt('0x' + m[4]!), BigInt('0x' + m[5]!), m[6]!);
      } else if (l.startsWith('Stopped execution')) {
        const m = STOPPED_RE.exec(l);
        if (!m) this.fail('a "Stopped execution" line QEMU 7.2 does not write');
        this.events.cancel(this.lineNo, this.pcOf(m[1]!.padStart(this.digits, '0')));
      } else if (l.startsWith('cpu_io_recompile:')) {
        const m = REWOUND_RE.exec(l);
        if (!m) this.fail('a cpu_io_recompile line QEMU 7.2 does not write');
        this.events.cancel(this.lineNo, BigInt('0x' + m[1]!));
      } else {
        this.stats.otherLines++;
      }
    }
    this.stats.lines = this.lineNo;
  }

  end(): void {
    if (this.head !== undefined) this.flushDump();
  }

  private layout: DumpLayout | undefined;
  private xPrefixes: string[] = [];
  private fPrefixes: string[] = [];

  /** Parses the dump collected after the Trace line `head` and reports the entered block. */
  private flushDump(): void {
    const head = this.head!;
    this.head = undefined;
    const ls = this.dumpLines;
    const at = (i: number): number => head.line + 1 + i;
    if (ls.length === 0) this.fail('a Trace line without the CPU state after it; expected the log of -d cpu', head.line);
    const v = ls[0]!;
    if (!v.startsWith(' V      =   ')) this.fail('expected " V      =   0" (the first line of the CPU state)', at(0));
    if (v.charCodeAt(v.length - 1) !== 48) this.fail('a block run with virtualization on (V = 1); the H extension is not supported', at(0));
    if (!ls[1]?.startsWith(' pc       ')) this.fail('expected " pc       <hex>"', at(1));
    const pc = ls[1]!.slice(10);
    if (pc !== head.pcText) this.fail(`the CPU state's pc ${pc} is not the block's (${head.pcText})`, at(1));
    if (this.layout === undefined) {
      const names: string[] = [];
      let i = 2;
      while (i < ls.length && !ls[i]!.startsWith(' x0/')) {
        const name = ls[i]!.slice(1, 9).trim();
        if (!/^[a-z0-9]+$/.test(name)) this.fail(`expected a CSR line " <name> <hex>", found "${ls[i]}"`, at(i));
        names.push(name);
        i++;
      }
      this.csrNames = names;
      this.csrPrefixes = names.map((n) => ` ${n.padEnd(8)} `);
      this.layout = { digits: this.digits, csrNames: names, xAt: 2 + names.length, fAt: this.fpu ? 2 + names.length + 8 : -1 };
      for (let r = 0; r < 8; r++) {
        this.xPrefixes.push(` x${4 * r}/`);
        this.fPrefixes.push(` f${4 * r}/`);
      }
    }
    const L = this.layout;
    const n = this.csrPrefixes.length;
    for (let k = 0; k < n; k++) {
      const l = ls[2 + k];
      if (l === undefined || !l.startsWith(this.csrPrefixes[k]!)) this.fail(`expected the CSR line of ${this.csrNames![k]} (the CSRs QEMU printed first)`, at(2 + k));
    }
    const xw = 4 * (10 + this.digits);
    for (let r = 0; r < 8; r++) {
      const l = ls[L.xAt + r];
      if (l === undefined || l.length < xw || !l.startsWith(this.xPrefixes[r]!)) {
        this.fail(`expected the x registers x${4 * r}-x${4 * r + 3} (4 per line, ${this.digits} hex digits each)`, at(L.xAt + r));
      }
    }
    let end = L.xAt + 8;
    if (L.fAt >= 0) {
      for (let r = 0; r < 8; r++) {
        const l = ls[L.fAt + r];
        if (l === undefined || l.length < 104 || !l.startsWith(this.fPrefixes[r]!)) {
          this.fail(`expected the f registers f${4 * r}-f${4 * r + 3} (4 per line, 16 hex digits each)`, at(L.fAt + r));
        }
      }
      end += 8;
    }
    if (end !== ls.length) this.fail(`${ls.length - end} unexpected line(s) in the CPU state${this.fpu ? '' : ' (f registers? the program was expected to have no floating point)'}`, at(end));
    this.events.enter(head.line, head.pc, head.flags, new CpuDump(pc, ls, L));
  }
}
