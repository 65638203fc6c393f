/**
 * What bin/rvtrace.js runs (compiled, from dist/): the command runs in a worker thread
 * (cli/worker-boot.ts, running the bundle of cli/worker-main.ts) while this thread only waits, for
 * two reasons:
 *   - V8 flags without a second process: the worker gets a large young generation through
 *     resourceLimits (streams of millions of records make many short-lived objects);
 *   - signals are heard at once: the command's thread may sit in a synchronous call for minutes
 *     (a Verilator build is a spawnSync), and a handler on that thread would run only after it.
 * On SIGINT or SIGTERM this thread stops the worker, kills every process of the run
 * (cli/process-tree.ts), removes the files the command had not finished writing
 * (core/unfinished-files.ts) and ends by the same signal; a second signal kills at once.
 */
import { rmSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { UnfinishedEvent } from '../core/unfinished-files.ts';
import { chainToNpm, isAlive, killDescendants } from './process-tree.ts';
import type { WorkerMainData } from './worker-main.ts';
import { loadBundle } from './bundle.ts';

/**
 * The worker's young generation. V8 splits it into two semi-spaces and a large-object space of
 * the same size each, so 192 MiB is what `--max-semi-space-size=64` gave the former restarted
 * process (a new space of 128 MiB instead of 32); README, "Set-up and start-up", has what it does.
 */
export const YOUNG_GENERATION_MB = 192;

/**
 * Commands that hold no long stream and run with a small young generation instead: with a large
 * one, what survives a scavenge is promoted in large steps and the old generation, and with it the
 * peak memory, grows with the stream's length. `encode` reads a CSV trace a piece at a time
 * (core/stream-io.ts): 1 and 2 million records, 111 and 144 MiB with 192 MiB, 94 and 96 MiB with
 * 24 MiB, the same CPU time. `cosim` generates its stimulus and compares the two byte streams as
 * it goes (tb/stream-compare.ts): E-Trace 1, 2 and 4 million records, 279, 308 and 311 MiB with
 * 192 MiB, 202, 202 and 203 MiB with 24 MiB, its rate the same within the machine's noise
 * (README, "Speed").
 */
const SMALL_YOUNG_GENERATION: ReadonlyMap<string, number> = new Map([
  ['encode', 24],
  ['cosim', 24],
]);

/** The worker's young generation for a command line. */
export function youngGenerationMb(argv: readonly string[]): number {
  return SMALL_YOUNG_GENERATION.get(argv[2] ?? '') ?? YOUNG_GENERATION_MB;
}

/** How long the first signal waits for the worker to stop before removing files anyway. */
const STOP_WAIT_MS = 3000;

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Help only prints: it runs in this thread, sparing a worker's start and a second load of the bundle. */
function onlyHelp(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  return args.length === 0 || args[0] === 'help' || args.includes('--help') || args.includes('-h');
}

/**
 * npm (npx, npm start, npm test) passes a signal on to the shell it ran us through, not to us, and
 * ends: the shell either ends too (SIGTERM) and leaves this process to init, or waits for us
 * (SIGINT, which it expects us to have from the terminal as well). Under npm, losing npm or
 * any process between it and us is therefore taken as that signal (SIGTERM). Outside npm it is
 * not: `nohup rvtrace ... &` must go on after its shell has gone.
 */
function watchNpm(onLost: () => void): void {
  if (process.env['npm_command'] === undefined) return;
  const chain = chainToNpm();
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent && chain.every(isAlive)) return;
    clearInterval(timer);
    onLost();
  }, 200);
  timer.unref();
}

export async function launch(argv: string[]): Promise<void> {
  // `rvtrace dump ... | head` closes the pipe early: that is the reader's choice, not an error.
  let onPipeClosed = (): void => process.exit(process.exitCode ?? 0);
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    onPipeClosed();
  });
  if (onlyHelp(argv)) {
    process.exitCode = await loadBundle().main(argv);
    return;
  }
  const unfinished = new Set<string>();
  const channel = new MessageChannel();
  const note = (m: { event: UnfinishedEvent; path: string }): void => {
    if (m.event === 'started') unfinished.add(m.path);
    else unfinished.delete(m.path);
  };
  channel.port1.on('message', note);

  const data: WorkerMainData = {
    argv,
    unfinished: channel.port2,
    stderrIsTTY: process.stderr.isTTY === true,
    stderrColumns: process.stderr.columns,
  };
  const worker = new Worker(new URL('./worker-boot.js', import.meta.url), {
    workerData: data,
    transferList: [channel.port2],
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb(argv) },
    execArgv: [],
  });

  let stopping: Promise<void> | undefined;
  /** Ends the run from outside the worker; resolves once nothing of it is left. */
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      const terminated = worker.terminate();
      killDescendants(); // also wakes a worker blocked on a child (spawnSync returns)
      await Promise.race([terminated, new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref())]);
      killDescendants(); // whatever it started before it stopped
      removeUnfinished();
      channel.port1.close();
    })());
  const removeUnfinished = (): void => {
    for (let m = receiveMessageOnPort(channel.port1); m !== undefined; m = receiveMessageOnPort(channel.port1)) note(m.message);
    for (const p of unfinished) rmSync(p, { recursive: true, force: true });
  };

  const onSignal = (sig: NodeJS.Signals): void => {
    if (stopping !== undefined) {
      // The second signal: no more waiting for the worker to stop.
      killDescendants();
      removeUnfinished();
      process.kill(process.pid, 'SIGKILL');
      return;
    }
    process.stderr.write(`rvtrace: ${sig}: stopping the run (again to kill at once)\n`);
    void stop().then(() => {
      // End by the signal itself, so that a shell or npx sees what ended us (status 128 + n).
      for (const s of SIGNALS) process.removeAllListeners(s);
      process.kill(process.pid, sig);
    });
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  watchNpm(() => onSignal('SIGTERM'));

  onPipeClosed = () => void stop().then(() => process.exit(process.exitCode ?? 0));

  worker.on('error', (e) => {
    // main() turns every error into a message and a status; reaching here is a bug.
    process.stderr.write(`rvtrace: internal error: ${e.message}\n  (this is a bug; RVTRACE_DEBUG=1 prints the stack trace)\n`);
    if (process.env['RVTRACE_DEBUG']) process.stderr.write(`${e.stack}\n`);
    process.exitCode = 70;
  });
  worker.on('exit', (code) => {
    if (stopping !== undefined) return;
    channel.port1.close();
    if (process.exitCode === undefined) process.exitCode = code;
  });
}
