// The CLI runs a compiled bundle from dist/, where a module's own folder is not its source folder:
// code that reads files beside the sources must find them from REPO_ROOT. This fails on any new
// import.meta.url / import.meta.dirname outside tests and their fixtures.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './paths.ts';

const SOURCES = ['core', 'golden-model', 'ipxact', 'generator', 'tb', 'blocks', 'cli', 'workloads'];
/** Uses that find no file beside the sources. */
const ALLOWED = new Map([
  [join('golden-model', 'common', 'paths.ts'), 'computes REPO_ROOT'],
  [join('cli', 'launcher.ts'), 'runs only from dist/ and finds the worker entry there'],
  [join('cli', 'bundle.ts'), 'runs only from dist/ and finds the bundle there'],
  [join('workloads', 'measure.ts'), 'asks whether it runs as a script'],
]);

describe('REPO_ROOT', () => {
  it('is the folder of package.json', () => {
    expect(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).name).toBe('rvtrace');
    expect(REPO_ROOT).toBe(join(import.meta.dirname, '..', '..'));
  });

  it('is the only way code outside tests finds its files', () => {
    const offenders = SOURCES.flatMap((d) => readdirSync(join(REPO_ROOT, d), { recursive: true, encoding: 'utf8' }).map((f) => join(d, f)))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('test-fixtures') && !ALLOWED.has(f))
      .filter((f) => /import\.meta\.(url|dirname|filename)/.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
