/**
 * Loads the CLI's bundle, dist/rvtrace.cjs (scripts/dist.mjs), with V8's code cache: compiling the
 * 1.5 MB bundle is most of what `rvtrace --help` costs above Node's own start (about 50 ms of CPU),
 * and Node 20 caches no compiled code by itself. The first run writes the cache beside the bundle,
 * named after the bundle's size and time, so a rebuilt bundle never meets an old cache (V8 checks
 * only the source's length). Runs only from dist/ (it finds the bundle beside its own folder).
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import type * as WorkerMain from './worker-main.ts';

export type Bundle = typeof WorkerMain;

const BUNDLE = join(dirname(dirname(fileURLToPath(import.meta.url))), 'rvtrace.cjs');

export function loadBundle(): Bundle {
  const st = statSync(BUNDLE);
  const cacheFile = `${BUNDLE}.${st.size}-${Math.round(st.mtimeMs)}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // first run of this bundle
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(BUNDLE, 'utf8')}\n})`, { filename: BUNDLE, ...(cachedData !== undefined ? { cachedData } : {}) });
  const module = { exports: {} as Bundle };
  (script.runInThisContext() as (...a: unknown[]) => void).call(module.exports, module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
  if (cachedData === undefined || script.cachedDataRejected === true) {
    try {
      const tmp = `${cacheFile}.tmp-${process.pid}`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // a read-only dist/: every run compiles, which is slower but right
    }
  }
  return module.exports;
}
