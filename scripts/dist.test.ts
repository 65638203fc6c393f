// When bin/rvtrace.js recompiles dist/: decided on a tree of its own in a temporary folder, with
// modification times set by hand (no compiler runs here).
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distStaleness } from './dist.mjs';

let root: string;
const T0 = 1_700_000_000; // seconds; every file starts here, the stamp 100 s later

function file(rel: string, seconds = T0): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  closeSync(openSync(p, 'w'));
  utimesSync(p, seconds, seconds);
}

function folderTime(rel: string, seconds = T0): void {
  utimesSync(join(root, rel), seconds, seconds);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rvtrace-dist-'));
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'cli/main.ts', 'core/io.ts', 'tb/etrace/block.ts']) file(f);
  for (const d of ['cli', 'core', 'tb', 'tb/etrace']) folderTime(d);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('distStaleness', () => {
  it('is "missing" before the first build', () => {
    expect(distStaleness(root)).toBe('missing');
  });

  it('is undefined when every source is older than the stamp', () => {
    file('dist/.stamp', T0 + 100);
    expect(distStaleness(root)).toBeUndefined();
  });

  it('names a source edited after the build, however deep', () => {
    file('dist/.stamp', T0 + 100);
    file('tb/etrace/block.ts', T0 + 200);
    expect(distStaleness(root)).toBe('tb/etrace/block.ts');
  });

  it('names a folder where a source was added or removed', () => {
    file('dist/.stamp', T0 + 100);
    folderTime('core', T0 + 200);
    expect(distStaleness(root)).toBe('core/');
  });

  it('names a changed compiler configuration', () => {
    file('dist/.stamp', T0 + 100);
    file('tsconfig.build.json', T0 + 200);
    expect(distStaleness(root)).toBe('tsconfig.build.json');
  });

  it('ignores tests, which are not compiled into dist/', () => {
    file('cli/main.test.ts');
    folderTime('cli');
    file('dist/.stamp', T0 + 100);
    file('cli/main.test.ts', T0 + 200);
    expect(distStaleness(root)).toBeUndefined();
  });
});
