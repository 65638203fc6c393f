/**
 * The CLI's bundle (scripts/dist.mjs bundles this file into dist/rvtrace.cjs, loaded by
 * cli/bundle.ts): the command line's main, and what the worker of cli/launcher.ts runs.
 */
import type { MessagePort } from 'node:worker_threads';
import { setUnfinishedSink } from '../core/unfinished-files.ts';
import { main } from './main.ts';

export { main };

export interface WorkerMainData {
  argv: string[];
  unfinished: MessagePort;
  /** The real stderr's terminal state: a thread's stderr is a pipe to the launcher. */
  stderrIsTTY: boolean;
  stderrColumns: number | undefined;
}

/** Runs the command in the launcher's worker, reporting the files it has not finished writing. */
export async function runInWorker(data: WorkerMainData): Promise<void> {
  setUnfinishedSink((event, path) => data.unfinished.postMessage({ event, path }));
  if (data.stderrIsTTY) {
    // Progress lines (regress) redraw in place only on a terminal.
    Object.defineProperty(process.stderr, 'isTTY', { value: true });
    if (data.stderrColumns !== undefined) Object.defineProperty(process.stderr, 'columns', { value: data.stderrColumns });
  }
  process.exitCode = await main(data.argv);
  data.unfinished.close();
}
