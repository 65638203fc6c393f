/**
 * The repository root, whichever copy of the code is running: the sources (vitest, tsx), tsc's
 * per-file output in dist/ or the CLI's bundle dist/rvtrace.mjs (scripts/dist.mjs). The files that
 * are not TypeScript (templates, shipped components, C workloads, the harness's I/O thread, the
 * caches) stay in the source tree, so code finds them from here rather than from its own file,
 * whose folder differs between those copies.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function nearestPackageRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) return join(import.meta.dirname, '..', '..'); // no package.json at all: golden-model/'s parent
  }
}

export const REPO_ROOT = nearestPackageRoot(import.meta.dirname);
