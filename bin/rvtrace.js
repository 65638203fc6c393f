#!/usr/bin/env node
// Entry point of `npx rvtrace`. The tool is written in TypeScript and runs through tsx's loader, so a
// fresh checkout needs no build step: the sources are the program.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Streams of millions of records make many short-lived objects: a larger young generation keeps the
// garbage collector from dominating (`rvtrace bench`: encoding 1.5-2x faster). V8 takes the size
// only at start-up, so the tool restarts itself once with the flag.
const YOUNG = '--max-semi-space-size=64';
if (!process.execArgv.includes(YOUNG)) {
  const r = spawnSync(process.execPath, [YOUNG, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  if (r.error) throw r.error;
  if (r.signal) process.kill(process.pid, r.signal);
  process.exit(r.status ?? 1);
}

const { register } = await import('tsx/esm/api');
register();
// `rvtrace dump ... | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv);
