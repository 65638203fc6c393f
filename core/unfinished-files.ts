/**
 * Files and folders a command is still writing (temporary files before their rename, build
 * folders before they are installed). When a run is interrupted, the thread that runs the command
 * is stopped where it stands, so it cannot clean up after itself: the CLI's launcher
 * (cli/launcher.ts) hears of every such path through the sink set here and removes the ones still
 * unfinished. Without a sink (tests, library use) the calls do nothing.
 */
export type UnfinishedEvent = 'started' | 'finished';
export type UnfinishedSink = (event: UnfinishedEvent, path: string) => void;

let sink: UnfinishedSink | undefined;

export function setUnfinishedSink(s: UnfinishedSink | undefined): void {
  sink = s;
}

/** Call before creating `path`: until finishedWriting, an interrupted run removes it. */
export function startedWriting(path: string): void {
  sink?.('started', path);
}

/** Call once `path` is renamed into place or removed. */
export function finishedWriting(path: string): void {
  sink?.('finished', path);
}
