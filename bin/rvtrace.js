#!/usr/bin/env node
// Entry point of `npx rvtrace`. It runs the compiled TypeScript in dist/ (tsc, no transpiler at run
// time): dist/ is compiled by scripts/setup.sh, and again here, once, whenever a source is newer
// than it (scripts/dist.mjs), so an edited source is never run stale. cli/launcher.ts then runs
// the command in a worker thread and ends the whole run on SIGINT/SIGTERM.
import { ensureDist, ROOT } from '../scripts/dist.mjs';

const why = await ensureDist(ROOT);
if (why !== undefined) {
  process.stderr.write(`rvtrace: ${why}\n`);
  process.exit(3);
}
const { launch } = await import('../dist/cli/launcher.js');
await launch(process.argv);
