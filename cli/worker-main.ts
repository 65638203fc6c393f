/**
 * The CLI's bundle (scripts/dist.mjs bundles this file into dist/rvtrace.mjs). Started as a worker
 * by cli/launcher.ts, it runs the command line's main with the process's arguments and reports the
 * files it has not finished writing to the launcher, which removes them if the run is
 * interrupted. The launcher also imports `main` from it to run --help in its own thread.
 */
import { isMainThread, type MessagePort, workerData } from 'node:worker_threads';
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

async function runInWorker(data: WorkerMainData): Promise<void> {
  setUnfinishedSink((event, path) => data.unfinished.postMessage({ event, path }));
  if (data.stderrIsTTY) {
    // Progress lines (regress) redraw in place only on a terminal.
    Object.defineProperty(process.stderr, 'isTTY', { value: true });
    if (data.stderrColumns !== undefined) Object.defineProperty(process.stderr, 'columns', { value: data.stderrColumns });
  }
  process.exitCode = await main(data.argv);
  data.unfinished.close();
}

// Only the launcher's worker has this data; an import for `main` runs nothing.
if (!isMainThread && (workerData as Partial<WorkerMainData> | null)?.unfinished !== undefined) await runInWorker(workerData as WorkerMainData);
