/**
 * The block contract holds: a new block (a trivial counter: one component, one template, a model and a
 * harness adapter, in tb/test-fixtures/counter-block/ laid out as in the tree) is added to a copy of the
 * tree by creating its folders and one registry line, and `generate`, `cosim`, `regress` and `fuzz`
 * work on it with no other file changed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'tb', 'test-fixtures', 'counter-block');

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? filesBelow(join(dir, n)) : [join(dir, n)]));
}

describe('a new block', () => {
  it('is its own folders plus one registry line: generate, cosim, regress and fuzz work on it', () => {
    const work = mkdtempSync(join(tmpdir(), 'rvtrace-new-block-'));
    const copy = join(work, 'main');
    // The tree as git has it (tracked and new files), without the checked-in RTL.
    const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && !f.startsWith('rtl-out/') && existsSync(join(ROOT, f)));
    for (const f of tracked) {
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      cpSync(join(ROOT, f), join(copy, f));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    symlinkSync(realpathSync(join(ROOT, '..', 'shared')), join(work, 'shared'));

    // The block's folders, and its line in the registry.
    const added = filesBelow(FIXTURE).map((f) => relative(FIXTURE, f)).sort();
    for (const f of added) {
      expect(existsSync(join(copy, f)), `${f} must be new`).toBe(false);
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      cpSync(join(FIXTURE, f), join(copy, f));
    }
    const registry = join(copy, 'blocks', 'registry.ts');
    const before = readFileSync(registry, 'utf8');
    writeFileSync(registry, `${before}export { block as counter } from '../tb/counter/block.ts';\n`);
    console.log(`added: ${added.join(', ')}; one line in blocks/registry.ts`);
    expect(added).toEqual([
      'generator/counter/rtl.ts',
      'golden-model/counter/model.ts',
      'ipxact/components/counter.xml',
      'tb/counter/block.ts',
      'templates/counter/counter_top.sv.hbs',
    ]);
    expect(readFileSync(registry, 'utf8').split('\n').length - before.split('\n').length).toBe(1);

    const rvtrace = (...args: string[]) => {
      const r = spawnSync(process.execPath, [join(copy, 'bin', 'rvtrace.js'), ...args], { cwd: copy, encoding: 'utf8', env: { ...process.env, RVTRACE_CACHE: join(work, 'cache') } });
      return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
    };
    // The contract type-checks with the new block in it.
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '.'], { cwd: copy, encoding: 'utf8' });
    expect(tsc.status, tsc.stdout).toBe(0);

    const gen = rvtrace('generate', '--component', 'counter', '--out', join(work, 'gen'));
    expect(gen.status, gen.out).toBe(0);
    expect(readdirSync(join(work, 'gen')).sort()).toEqual(['counter.core', 'counter.f', 'counter.vlt', 'counter.xml', 'counter_top.sv']);
    expect(readFileSync(join(work, 'gen', 'counter_top.sv'), 'utf8')).toContain('output logic [11:0] count_o');

    const cosim = rvtrace('cosim', '--component', 'counter', '--seed', '2', '--count', '3000');
    expect(cosim.status, cosim.out).toBe(0);
    expect(cosim.out).toMatch(/counter seed 2: \d+ counts compared, \d+ cycles: identical/);

    const regress = rvtrace('regress', '--components', 'counter', '--seeds', '1-3', '--count', '500');
    expect(regress.status, regress.out).toBe(0);
    expect(regress.out).toMatch(/\ncounter\s+3\s+3\s+0\s+1500\s+\d+\s+\d+\s+[\d.]+\n/);
    expect(regress.out).toContain('3 passed, 0 failed');

    const fuzz = rvtrace('fuzz', '--time', '3s', '--seed', '1', '--components', 'counter', '--out', join(work, 'fixtures'));
    expect(fuzz.status, fuzz.out).toBe(0);
    expect(fuzz.out).toMatch(/\d+ cases, \d+ instructions, 0 failures/);

    // And the model is what decides: a counter RTL that counts by one step too many is caught.
    const template = join(copy, 'templates', 'counter', 'counter_top.sv.hbs');
    writeFileSync(template, readFileSync(template, 'utf8').replace('count_q + {{step}}', 'count_q + {{step}} + 1'));
    const broken = rvtrace('cosim', '--component', 'counter', '--seed', '2', '--count', '3000', '--fst', join(work, 'w.fst'));
    expect(broken.status, broken.out).toBe(1);
    expect(broken.out).toMatch(/MISMATCH\ncount 1: RTL \d+, model \d+/);
  }, 300_000);
});
