/**
 * The repository root, whichever copy of the code is running: the sources (vitest, tsx), tsc's
 * per-file output in dist/ or the CLI's bundle dist/rvtrace.mjs (scripts/dist.mjs). The files that
 * are not TypeScript (templates, shipped components, C workloads, the harness's I/O thread, the
 * caches) stay in the source tree, so code finds them from here rather than from its own file,
 * whose folder differs between those copies.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

function nearestPackageRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) return join(import.meta.dirname, '..', '..'); // no package.json at all: golden-model/'s parent
  }
}

export const REPO_ROOT = nearestPackageRoot(import.meta.dirname);

/** The executable `cmd` on PATH, as spawnSync finds it. */
export function findOnPath(cmd: string): string | undefined {
  for (const d of (process.env['PATH'] ?? '').split(delimiter)) {
    if (d === '') continue;
    const p = join(d, cmd);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}
