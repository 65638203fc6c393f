// vitest's global set-up: the tests that spawn bin/rvtrace.js run the compiled CLI, so dist/ is
// brought up to date once here, before the test files start in parallel (bin/rvtrace.js would
// otherwise compile it in the first of them and make the others wait on the lock).
import { ensureDist } from './dist.mjs';

export default async function setup() {
  const why = await ensureDist();
  if (why !== undefined) throw new Error(`dist/: ${why}`);
}
