/**
 * Counts the executed instructions of every workload from QEMU's instruction log and checks that
 * two runs give the same log:
 *
 *   npx tsx workloads/measure.ts [--runs N] [name ...]
 *
 * Each run is qemuCommand(...) plus `-singlestep -d exec,int,nochain -D <log>`. With -singlestep
 * every translation block is one instruction, so each `Trace` line is one instruction started,
 * except that QEMU also logs blocks it then does not execute (see ExecLogCounter). Prints a
 * Markdown table: executed instructions (from the log), the minstret value the runtime printed at
 * exit (which stops a few hundred instructions before the end: it is read before the status line
 * is printed), synchronous traps and interrupts taken, and whether the runs' guest-side logs were
 * identical.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildWorkload, runWorkload, WORKLOAD_ARCHES, WORKLOADS, type WorkloadArch } from './build.ts';

/** The QEMU arguments that log one line per executed instruction (QEMU 7.2). */
export const EXEC_LOG_ARGS = ['-singlestep', '-d', 'exec,int,nochain'];

export interface ExecLogCounts {
  /** Instructions executed (Trace lines minus the ones QEMU did not execute after logging them). */
  executed: number;
  /** Trace lines of blocks that were logged but not executed (rewound for I/O, or stopped for an interrupt). */
  notExecuted: number;
  /** Synchronous exceptions taken (ecall, illegal instruction, breakpoint, ...). */
  exceptions: number;
  /** Asynchronous interrupts taken. */
  interrupts: number;
  /** sha256 over the executed guest PCs and the trap lines: equal for identical runs (host addresses excluded). */
  guestHash: string;
}

const TRACE = /^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+\/([0-9a-f]+)\//;
const REWOUND = /^cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)/;
const STOPPED = /^Stopped execution of TB chain before 0x[0-9a-f]+ \[([0-9a-f]+)\]/;

/**
 * Counts instructions in a QEMU 7.2 `-singlestep -d exec,int,nochain` log, line by line.
 *
 * Two QEMU quirks: with -icount, an instruction that touches a device is first logged, then its
 * block is "rewound" (`cpu_io_recompile: rewound execution of TB to <pc>`) and executed again
 * (logged a second time); and a logged block that is left before it runs because an interrupt or
 * the icount budget is pending is followed by `Stopped execution of TB chain before ... [<pc>]`.
 * In both cases the preceding Trace line (same pc) is not an executed instruction.
 */
export class ExecLogCounter {
  private pending: string | null = null;
  private executed = 0;
  private notExecuted = 0;
  private exceptions = 0;
  private interrupts = 0;
  private readonly hash = createHash('sha256');

  push(line: string): void {
    const t = TRACE.exec(line);
    if (t !== null) {
      this.flush();
      this.pending = t[1]!;
      return;
    }
    const undone = REWOUND.exec(line) ?? STOPPED.exec(line);
    if (undone !== null) {
      if (this.pending === null || BigInt(`0x${this.pending}`) !== BigInt(`0x${undone[1]!}`)) {
        throw new Error(`exec log: '${line}' does not follow a Trace line of the same pc`);
      }
      this.pending = null;
      this.notExecuted++;
      return;
    }
    if (line.startsWith('riscv_cpu_do_interrupt:')) {
      this.flush();
      if (line.includes('async:1')) this.interrupts++;
      else this.exceptions++;
      this.hash.update(`${line}\n`);
    }
  }

  private flush(): void {
    if (this.pending !== null) {
      this.executed++;
      this.hash.update(`${this.pending}\n`);
      this.pending = null;
    }
  }

  result(): ExecLogCounts {
    this.flush();
    return {
      executed: this.executed,
      notExecuted: this.notExecuted,
      exceptions: this.exceptions,
      interrupts: this.interrupts,
      guestHash: this.hash.copy().digest('hex'),
    };
  }
}

export async function countExecLog(path: string): Promise<ExecLogCounts> {
  const counter = new ExecLogCounter();
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) counter.push(line);
  return counter.result();
}

export interface Measurement extends ExecLogCounts {
  name: string;
  arch: WorkloadArch;
  status: number | null;
  /** The minstret value printed by the runtime at exit. */
  minstret: number | null;
  /** All runs gave the same guest-side log. */
  deterministic: boolean;
}

/** Runs one workload `runs` times with the instruction log on and counts the log of each run. */
export async function measureWorkload(name: string, arch: WorkloadArch, runs = 2): Promise<Measurement> {
  const elf = buildWorkload(name, arch);
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-workload-log-'));
  try {
    const results: { counts: ExecLogCounts; status: number | null; minstret: number | null }[] = [];
    for (let i = 0; i < runs; i++) {
      const log = join(dir, `run${i}.log`);
      const r = await runWorkload(arch, elf, { extraArgs: [...EXEC_LOG_ARGS, '-D', log], timeoutMs: 120_000 });
      const m = /minstret=(\d+)/.exec(r.stdout);
      results.push({ counts: await countExecLog(log), status: r.status, minstret: m === null ? null : Number(m[1]) });
      rmSync(log, { force: true });
    }
    const first = results[0]!;
    return {
      name,
      arch,
      status: first.status,
      minstret: first.minstret,
      ...first.counts,
      deterministic: results.every((r) => r.counts.guestHash === first.counts.guestHash && r.status === first.status),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  let runs = 2;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') runs = Number(argv[++i]);
    else names.push(argv[i]!);
  }
  const selected = names.length > 0 ? names : WORKLOADS.map((w) => w.name);
  console.log('| workload | arch | executed (log) | minstret at exit | exceptions | interrupts | status | identical runs |');
  console.log('|---|---|---:|---:|---:|---:|---:|---|');
  let ok = true;
  for (const name of selected) {
    for (const arch of WORKLOAD_ARCHES) {
      const m = await measureWorkload(name, arch, runs);
      ok &&= m.status === 0 && m.deterministic;
      console.log(
        `| ${name} | ${arch} | ${m.executed} | ${m.minstret ?? '-'} | ${m.exceptions} | ${m.interrupts} | ${m.status ?? 'timeout'} | ${m.deterministic ? `yes (${runs})` : 'NO'} |`,
      );
    }
  }
  return ok ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
