/**
 * The co-simulation commands from the command line: `cosim` (status 0 when identical, 2 for bad
 * input; E-Trace and CTR components), `regress` (summary, JSON and JUnit files; blocks mixed),
 * `merge` (clear errors for bad files) and `fuzz` (a short session of each block).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-cosim-cli-'));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rvtrace cosim, regress, merge, fuzz', () => {
  it('cosim: identical RTL and model exit 0 with a one-line summary', () => {
    const r = rvtrace('cosim', '--component', 'etrace-rv32-mcu', '--seed', '3', '--count', '3000', '--backpressure', '0.5', '--knob', 'interrupt_rate=0.01');
    expect(r.status, r.stderr).toBe(0);
    // The one-line summary, then the case's functional coverage.
    expect(r.stdout).toMatch(/^etrace-rv32-mcu seed 3: \d+ records, \d+ packets, \d+ bytes.*: identical\ncoverage etrace \(functional\): \d+\/\d+ bins .* in 1 case/);
    const quiet = rvtrace('cosim', '--component', 'etrace-rv32-mcu', '--seed', '3', '--count', '3000', '--no-coverage');
    expect(quiet.stdout).toMatch(/^etrace-rv32-mcu seed 3: .*: identical\n$/);
  }, 120_000);

  it('cosim: bad options exit 2 with a one-line error', () => {
    const bad = rvtrace('cosim', '--component', 'etrace', '--backpressure', '2');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('rvtrace: --backpressure 2: expected a probability from 0 to below 1\n');
    const knob = rvtrace('cosim', '--component', 'etrace', '--knob', 'no_such_knob=1');
    expect(knob.status).toBe(2);
    expect(knob.stderr).toMatch(/no_such_knob/);
    const ctrSetting = rvtrace('cosim', '--component', 'etrace', '--set', 'depthMax=32');
    expect(ctrSetting.status).toBe(2);
    expect(ctrSetting.stderr).toMatch(/^rvtrace: --set depthMax: 'cosim' has no setting of that name \(known: payload_layout,/);
  }, 60_000);

  it('--schema-dir is used by every command that takes a component: a schema folder that rejects the component fails at once', () => {
    // A 1685-2014 "schema" that allows a component to hold nothing but a vendor element.
    const strict = join(dir, 'strict-schema');
    mkdirSync(join(strict, 'ieee-1685-2014'), { recursive: true });
    writeFileSync(
      join(strict, 'ieee-1685-2014', 'index.xsd'),
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.accellera.org/XMLSchema/IPXACT/1685-2014" elementFormDefault="qualified">\n' +
        '  <xs:element name="component"><xs:complexType><xs:sequence><xs:element name="vendor" type="xs:string"/></xs:sequence></xs:complexType></xs:element>\n' +
        '</xs:schema>\n',
    );
    const runs: [string, string[]][] = [
      ['cosim', ['cosim', '--component', 'etrace', '--count', '100']],
      ['cosim (CTR)', ['cosim', '--component', 'ctr-small', '--count', '100']],
      ['generate', ['generate', '--component', 'etrace', '--out', join(dir, 'never')]],
      ['ipxact', ['ipxact', '--component', 'etrace', '--out', join(dir, 'never.xml')]],
      ['encode', ['encode', '--component', 'etrace', '--in', 'x.bin', '--out', join(dir, 'never.te')]],
      ['dump', ['dump', '--component', 'etrace', '--in', 'x.te']],
      ['ctr-dump', ['ctr-dump', '--component', 'ctr']],
      ['regress', ['regress', '--components', 'etrace', '--seeds', '1', '--count', '100']],
      ['fuzz', ['fuzz', '--components', 'ctr-small', '--time', '1s']],
    ];
    for (const [what, args] of runs) {
      const r = rvtrace(...args, '--schema-dir', strict);
      expect(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr, what).toMatch(/^rvtrace: .*ipxact\/components\/(etrace|ctr|ctr-small)\.xml:\d+: .*library/);
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
    }
    expect(existsSync(join(dir, 'never'))).toBe(false);
    // The default schemas (../shared/ipxact-schema) accept the same component.
    expect(rvtrace('generate', '--component', 'etrace', '--out', join(dir, 'gen-default')).status).toBe(0);
    expect(rvtrace('cosim', '--component', 'ctr-small', '--count', '200', '--schema-dir', join(ROOT, '..', 'shared', 'ipxact-schema')).status).toBe(0);
  }, 120_000);

  it('reads and schema-validates the component once per command (xmllint runs once per component, not at all for one it remembers as valid)', () => {
    const bin = join(dir, 'counting-bin');
    const calls = join(dir, 'xmllint-calls');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'xmllint'), `#!/bin/sh\necho x >> '${calls}'\nexec /usr/bin/xmllint "$@"\n`, { mode: 0o755 });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    // A valid component is remembered (ipxact/reader/xsd.ts): forget it to count the first command's runs.
    const remembered = join(process.env['RVTRACE_CACHE'] || join(ROOT, '.cache'), 'xsd-valid');
    const count = (...args: string[]): number => {
      writeFileSync(calls, '');
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', env });
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(calls, 'utf8').split('\n').filter((l) => l === 'x').length;
    };
    rmSync(remembered, { recursive: true, force: true });
    expect(count('cosim', '--component', 'etrace', '--count', '500', '--set', 'ResyncMax=2')).toBe(1);
    rmSync(remembered, { recursive: true, force: true });
    expect(count('regress', '--components', 'etrace,ctr-small', '--seeds', '1-2', '--count', '300')).toBe(2);
    // Then both are remembered: the next command does not ask xmllint again.
    expect(count('regress', '--components', 'etrace,ctr-small', '--seeds', '1', '--count', '300')).toBe(0);
  }, 120_000);

  it('cosim of a CTR component: the block comes from the component; identical CSR responses exit 0', () => {
    const r = rvtrace('cosim', '--component', 'ctr-small', '--seed', '4', '--count', '4000', '--knob', 'interrupt_rate=0.01');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ctr-small seed 4: \d+ records, \d+ CSR responses compared, \d+ pushes, \d+ pops, \d+ overwrites, \d+ freezes, \d+ cycles, .*: identical\ncoverage ctr \(functional\): /);
    const bad = rvtrace('cosim', '--component', 'ctr-small', '--set', 'depthMin=32', '--set', 'depthMax=16');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('rvtrace: component ctr-small with these settings is not valid:\n  parameters/depthMin: depthMin (32) is larger than depthMax (16)');
    const etraceSetting = rvtrace('cosim', '--component', 'ctr-small', '--set', 'ResyncMax=3');
    expect(etraceSetting.status).toBe(2);
    expect(etraceSetting.stderr).toMatch(/--set ResyncMax: 'cosim' has no setting of that name \(known: specVersion,/);
  }, 120_000);

  it('regress writes a summary, JSON results and JUnit XML; merge combines them and rejects bad files', () => {
    const json = join(dir, 'r.json');
    const junit = join(dir, 'r.xml');
    const r = rvtrace('regress', '--components', 'etrace', '--seeds', '1-2', '--count', '1000', '--backpressure', '0,0.6', '--json', json, '--junit', junit);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^component\s+cases\s+passed\s+failed\s+records\s+cycles\s+bytes\s+packets\s+lost\s+seconds\n/);
    expect(r.stdout).toMatch(/\n4 passed, 0 failed\n$/);
    const results = JSON.parse(readFileSync(json, 'utf8')) as { cases: { id: string; status: string }[] };
    expect(results.cases.map((c) => c.id)).toEqual(['etrace/bp0/seed1', 'etrace/bp0/seed2', 'etrace/bp0.6/seed1', 'etrace/bp0.6/seed2']);
    expect(readFileSync(junit, 'utf8')).toContain('<testsuite name="etrace" tests="4" failures="0"');

    const merged = rvtrace('merge', json, '--json', join(dir, 'm.json'));
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/\n4 passed, 0 failed\n$/);
    const twice = rvtrace('merge', json, json);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/appears twice/);
    writeFileSync(join(dir, 'junk.json'), '{"x": 1}');
    const junk = rvtrace('merge', join(dir, 'junk.json'));
    expect(junk.status).toBe(2);
    expect(junk.stderr).toMatch(/junk\.json: not a result file of rvtrace regress/);
    // Results whose coverage is not rvtrace's: one line naming the file.
    const withCoverage = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
    expect(withCoverage['coverage']).toMatchObject({ format: 'rvtrace-coverage-1' });
    writeFileSync(join(dir, 'badcov.json'), JSON.stringify({ ...withCoverage, coverage: { format: 'rvtrace-coverage-1', groups: [7] } }));
    const badCov = rvtrace('merge', join(dir, 'badcov.json'));
    expect(badCov.status).toBe(2);
    expect(badCov.stderr.trim().split('\n')).toHaveLength(1);
    expect(badCov.stderr).toMatch(/badcov\.json: "coverage" is not the coverage of rvtrace regress/);
    const otherFormat = { ...withCoverage, coverage: { ...(withCoverage['coverage'] as object), format: 'other-1' } };
    writeFileSync(join(dir, 'othercov.json'), JSON.stringify(otherFormat));
    const other = rvtrace('merge', join(dir, 'othercov.json'));
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/othercov\.json: merge: coverage format "other-1", expected rvtrace-coverage-1/);
  }, 120_000);

  it('regress mixes blocks: an E-Trace and a CTR component in one matrix', () => {
    const json = join(dir, 'mixed.json');
    const r = rvtrace('regress', '--components', 'etrace-rv32-mcu,ctr-small', '--seeds', '1', '--count', '1500', '--backpressure', '0,0.5', '--json', json);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nctr-small\s+1\s+1\s+0\s+\d+\s+\d+\s+-\s+-\s+-\s+\d+\s+/);
    expect(r.stdout).toMatch(/\n3 passed, 0 failed\n$/);
    const results = JSON.parse(readFileSync(json, 'utf8')) as { cases: { id: string; replay: string }[] };
    // The CTR unit has no output stream: one back-pressure value.
    expect(results.cases.map((c) => c.id)).toEqual(['etrace-rv32-mcu/bp0/seed1', 'etrace-rv32-mcu/bp0.5/seed1', 'ctr-small/bp0/seed1']);
    expect(results.cases[2]!.replay).toBe('npx rvtrace cosim --component ctr-small --seed 1 --count 1500');
    const bad = rvtrace('regress', '--components', 'ctr-small', '--set', 'ResyncMax=3');
    expect(bad.status).toBe(2);
  }, 180_000);

  it('fuzz: a short session reports its cases and finds nothing in the real RTL', () => {
    const out = join(dir, 'fixtures');
    const r = rvtrace('fuzz', '--time', '5s', '--seed', '3', '--out', out);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\d+ cases, \d+ instructions, 0 failures; stopped at the time limit; corpus \d+ cases.*\n(coverage \w+ \(functional\): \d+\/\d+ bins.*\n(  uncovered: .*\n)?)+$/);
    // No failure, so no fixture: only the corpus of the cases that reached new bins.
    expect(readdirSync(out)).toEqual(['fuzz-corpus.json']);
    const bad = rvtrace('fuzz', '--time', 'soon');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--time soon: expected a duration/);
    const ctr = rvtrace('fuzz', '--time', '3s', '--seed', '5', '--components', 'ctr-small', '--out', out);
    expect(ctr.status, ctr.stdout + ctr.stderr).toBe(0);
    expect(ctr.stdout).toMatch(/^\d+ cases, \d+ instructions, 0 failures; .*\ncoverage ctr \(functional\): /);
    expect(ctr.stderr).toMatch(/ ok {3}npx rvtrace cosim --component ctr-small --knob interrupt_rate=/);
  }, 180_000);
});
