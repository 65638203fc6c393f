/**
 * `verilator --version` is asked once and remembered in the cache across processes, and asked
 * again when the executable changes. Each call is a fresh process (the per-process memo would
 * hide the file), with a fake verilator on PATH that counts its runs.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-vversion-'));
const counter = join(dir, 'runs');
const fake = join(dir, 'verilator');
const script = (version: string): string => `#!/bin/sh\necho x >> ${counter}\necho "${version}"\n`;

function versionInChild(): string {
  const code = `import { verilatorVersion } from ${JSON.stringify(new URL('./build.ts', import.meta.url).pathname)}; process.stdout.write(verilatorVersion());`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dir}:/usr/bin:/bin`, RVTRACE_CACHE: join(dir, 'cache') },
  });
  expect(r.stderr).toBe('');
  return r.stdout;
}
const runs = (): number => readFileSync(counter, 'utf8').split('\n').filter((l) => l !== '').length;

describe('verilatorVersion across processes', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs verilator once, and again when the executable changed', () => {
    writeFileSync(fake, script('Verilator 9.999 fake'));
    chmodSync(fake, 0o755);
    expect(versionInChild()).toBe('Verilator 9.999 fake');
    expect(versionInChild()).toBe('Verilator 9.999 fake');
    expect(runs()).toBe(1);
    writeFileSync(fake, script('Verilator 10.0001 fake')); // another size: another stamp
    expect(versionInChild()).toBe('Verilator 10.0001 fake');
    expect(runs()).toBe(2);
  });
});
