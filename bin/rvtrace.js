#!/usr/bin/env node
// Entry point of `npx rvtrace`. The tool is written in TypeScript and runs through tsx's loader, so a
// fresh checkout needs no build step: the sources are the program.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../generator/cli/main.ts');
process.exitCode = await main(process.argv);
