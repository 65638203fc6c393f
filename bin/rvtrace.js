#!/usr/bin/env node
// Entry point of `npx rvtrace`. The tool is written in TypeScript and runs through tsx's loader, so a
// fresh checkout needs no build step: the sources are the program.
import { register } from 'tsx/esm/api';

register();
// `rvtrace dump ... | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
const { main } = await import('../generator/cli/main.ts');
process.exitCode = await main(process.argv);
