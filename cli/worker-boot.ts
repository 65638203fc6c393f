/** The entry of cli/launcher.ts's worker: the bundle, loaded with its code cache, runs the command. */
import { workerData } from 'node:worker_threads';
import { loadBundle } from './bundle.ts';
import type { WorkerMainData } from './worker-main.ts';

await loadBundle().runInWorker(workerData as WorkerMainData);
