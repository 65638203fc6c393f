import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../blocks/testing.ts';
import type { CaseSpec } from '../core/block.ts';
import { blockCoverage, coverageSummary, emptyCoverage, addCase } from '../core/coverage.ts';
import type { RvError } from '../golden-model/common/errors.ts';
import { buildKey } from './build.ts';
import { codeCoverageByModule, codeCoverageSummary, coverageFileFor, finishCodeCoverage, registerCoverageModel, parseCoverageData, pointsToBins, startCodeCoverage } from './code-coverage.ts';
import { renderHarness } from './harness.ts';
import { FIFO_RTL, FIFO_SPEC } from './test-fixtures/fifo.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'rvtrace.js');

// Two points as Verilator writes them (fields \x01key\x02value), typed from its file format.
const DATA = [
  '# SystemC::Coverage-3',
  "C '\x01f\x02/x/a_top.sv\x01l\x0212\x01n\x023\x01page\x02v_line/a_top\x01o\x02block\x01h\x02TOP.a_top' 5",
  "C '\x01f\x02/x/a_top.sv\x01l\x0214\x01n\x023\x01page\x02v_toggle/a_top\x01o\x02tie_q[0]\x01h\x02TOP.a_top' 0",
  "C '\x01f\x02/x/a_sub.sv\x01l\x027\x01n\x023\x01page\x02v_toggle/a_sub\x01o\x02d_i\x01h\x02TOP.a_top.u0' 1",
  "C '\x01f\x02/x/a_sub.sv\x01l\x027\x01n\x023\x01page\x02v_toggle/a_sub\x01o\x02d_i\x01h\x02TOP.a_top.u1' 2",
].join('\n');

describe('coverage data', () => {
  it('reads the points, sums instances of a module, and reports a waived point as excluded with its reason', () => {
    const points = parseCoverageData(DATA, 'cov.dat');
    expect(points).toHaveLength(4);
    expect(points[0]).toMatchObject({ module: 'a_top', line: 12, kind: 'line', detail: 'block', count: 5 });
    const { space, hits } = pointsToBins(points, [{ bin: 'a_top:*:toggle:tie_q*', reason: ['tied to 0 by construction'] }]);
    expect(hits).toEqual({ 'a_top:12:line:block': 5, 'a_top:14:toggle:tie_q[0]': 0, 'a_sub:7:toggle:d_i': 3 });
    expect(space.excluded).toEqual({ 'a_top:14:toggle:tie_q[0]': 'tied to 0 by construction' });
    const cov = emptyCoverage();
    addCase(cov, { block: 'x', component: 'x-1', sets: [], kind: 'code' }, space, hits);
    const [b] = blockCoverage(cov);
    expect(b).toMatchObject({ kind: 'code', total: 2, covered: 2, uncovered: [] });
    expect(b!.excluded).toEqual({ 'a_top:14:toggle:tie_q[0]': 'tied to 0 by construction' });
    expect(coverageSummary(cov)).toContain('1 excluded');
    // Without the waiver the point counts, and is uncovered.
    const plain = pointsToBins(points, []);
    expect(plain.space.excluded).toEqual({});
    // Per module: the waived toggle point is counted apart, not as a point to cover.
    expect(codeCoverageByModule(cov)).toEqual([
      { block: 'x', module: 'a_sub', kinds: { toggle: { covered: 1, total: 1, waived: 0 } } },
      { block: 'x', module: 'a_top', kinds: { line: { covered: 1, total: 1, waived: 0 }, toggle: { covered: 0, total: 0, waived: 1 } } },
    ]);
    expect(codeCoverageSummary(cov)).toBe('code coverage x a_sub: toggle 1/1\ncode coverage x a_top: line 1/1, toggle 0/0, 1 waived');
  });

  it('leaves out and counts a run that wrote no data (its harness stopped before the end)', () => {
    startCodeCoverage(mkdtempSync(join(tmpdir(), 'rvtrace-cc-')));
    const key = 'ab'.repeat(32);
    registerCoverageModel(key, { block: 'x', component: 'x-1', sets: [], waivers: [] });
    coverageFileFor(key); // the run's file, never written
    const done = finishCodeCoverage();
    expect(done.coverage.groups).toEqual([]);
    expect(done.outputs).toEqual([{ component: 'x-1', sets: [], cases: 0, missing: 1 }]);
  });

  it('names the file and line of a line that is not a point', () => {
    let err: unknown;
    try {
      parseCoverageData("# header\nC broken 1", 'cases/x.dat');
    } catch (e) {
      err = e;
    }
    expect((err as RvError).oneLine()).toMatch(/^cases\/x\.dat:2: not a coverage point/);
  });

  it('leaves the plain build as it was: same harness source and key; a coverage build has its own key', () => {
    const req = { spec: FIFO_SPEC, rtlFiles: [FIFO_RTL] };
    expect(renderHarness(FIFO_SPEC)).not.toContain('coverage');
    expect(renderHarness(FIFO_SPEC, { coverage: true })).toContain('coveragep()->write');
    const plain = buildKey(req);
    expect(buildKey({ ...req, coverage: false })).toBe(plain);
    expect(buildKey({ ...req, coverage: true })).not.toBe(plain);
    startCodeCoverage(mkdtempSync(join(tmpdir(), 'rvtrace-cc-')));
    try {
      // In a session the default is a coverage build, but a waveform build stays plain.
      expect(buildKey(req)).toBe(buildKey({ ...req, coverage: true }));
      expect(buildKey({ ...req, fst: true })).toBe(buildKey({ ...req, fst: true, coverage: false }));
    } finally {
      finishCodeCoverage();
    }
    expect(buildKey(req)).toBe(plain);
  });
});

describe('code coverage of a co-simulation (one coverage build: pmu-rv32-mcu)', () => {
  it('has line and toggle points of every module, some covered; a second case adds to them; verilator_coverage merges to the same sums', { timeout: 300_000 }, async () => {
    const r = resolvedOf('pmu', 'pmu-rv32-mcu');
    const modules = r.block.rtl(r).map((f) => f.name.replace(/\.sv$/, ''));
    const spec = (seed: number): CaseSpec => ({ component: 'pmu-rv32-mcu', sets: [], seed, count: 300, backpressure: 0 });

    const dirA = mkdtempSync(join(tmpdir(), 'rvtrace-cc-'));
    startCodeCoverage(dirA);
    const one = await r.block.runCase(r, spec(1));
    const a = finishCodeCoverage();
    expect(one.identical).toBe(true);
    expect(a.coverage.groups).toHaveLength(1);
    const ga = a.coverage.groups[0]!;
    expect(ga).toMatchObject({ block: 'pmu', component: 'pmu-rv32-mcu', kind: 'code', cases: 1 });
    for (const m of modules) {
      for (const kind of ['line', 'toggle']) {
        const bins = Object.keys(ga.bins).filter((b) => b.startsWith(`${m}:`) && b.split(':')[2] === kind);
        expect(bins.length, `${m} ${kind} points`).toBeGreaterThan(0);
      }
    }
    const [ba] = blockCoverage(a.coverage);
    expect(ba!.covered).toBeGreaterThan(0);
    expect(ba!.covered).toBeLessThan(ba!.total);
    expect(a.outputs[0]).toMatchObject({ cases: 1, missing: 0 });
    expect(existsSync(a.outputs[0]!.merged!)).toBe(true);
    expect(readdirSync(a.outputs[0]!.annotated!).sort()).toEqual(modules.map((m) => `${m}.sv`).sort());

    const dirB = mkdtempSync(join(tmpdir(), 'rvtrace-cc-'));
    startCodeCoverage(dirB);
    await r.block.runCase(r, spec(1));
    await r.block.runCase(r, spec(2));
    const b = finishCodeCoverage();
    const gb = b.coverage.groups[0]!;
    expect(gb.cases).toBe(2);
    expect(Object.keys(gb.bins).sort()).toEqual(Object.keys(ga.bins).sort());
    for (const [bin, n] of Object.entries(ga.bins)) expect(gb.bins[bin]!, bin).toBeGreaterThanOrEqual(n);
    expect(blockCoverage(b.coverage)[0]!.covered).toBeGreaterThanOrEqual(ba!.covered);
    // Verilator's own merge of the two runs' files gives the sums the groups hold.
    const merged = pointsToBins(parseCoverageData(readFileSync(b.outputs[0]!.merged!, 'latin1'), 'merged.dat'), []);
    expect(merged.hits).toEqual(gb.bins);

    // The same from the command line: regress --coverage-rtl puts a code group of both cases into the JSON.
    const cli = mkdtempSync(join(tmpdir(), 'rvtrace-cc-cli-'));
    const run = spawnSync(process.execPath, [BIN, 'regress', '--components', 'pmu-rv32-mcu', '--seeds', '1-2', '--count', '300', '--backpressure', '0', '--jobs', '1', '--json', join(cli, 'r.json'), '--coverage-rtl', join(cli, 'cov')], { cwd: cli, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    for (const m of modules) expect(run.stdout).toMatch(new RegExp(`^code coverage pmu ${m}: .*toggle \\d+/\\d+`, 'm'));
    const json = JSON.parse(readFileSync(join(cli, 'r.json'), 'utf8')) as { coverage: { groups: { kind: string; cases: number; bins: Record<string, number> }[] } };
    const code = json.coverage.groups.filter((g) => g.kind === 'code');
    expect(code).toHaveLength(1);
    expect(code[0]!.cases).toBe(2);
    expect(code[0]!.bins).toEqual(gb.bins);
    expect(readdirSync(join(cli, 'cov', 'annotated'))).toHaveLength(1);
    // Two shards of the same matrix, each with its own --coverage-rtl directory, merged: Verilator's
    // data of the merge is that of the unsharded run (the JSON's groups add up as well).
    const regressArgs = ['regress', '--components', 'pmu-rv32-mcu', '--seeds', '1-2', '--count', '300', '--backpressure', '0', '--jobs', '1'];
    for (const k of [1, 2]) {
      const shard = spawnSync(process.execPath, [BIN, ...regressArgs, '--shard', `${k}/2`, '--json', join(cli, `s${k}.json`), '--coverage-rtl', join(cli, `cov${k}`)], { cwd: cli, encoding: 'utf8' });
      expect(shard.status, shard.stderr).toBe(0);
    }
    const merge = spawnSync(process.execPath, [BIN, 'merge', join(cli, 's1.json'), join(cli, 's2.json'), '--json', join(cli, 'all.json'), '--coverage-rtl', join(cli, 'all'), '--coverage-rtl-from', join(cli, 'cov1'), join(cli, 'cov2')], { cwd: cli, encoding: 'utf8' });
    expect(merge.status, merge.stderr).toBe(0);
    expect(merge.stdout).toMatch(/^code coverage of pmu-rv32-mcu-\w+ \(2 shards\): /m);
    const [mergedDat] = readdirSync(join(cli, 'all', 'merged'));
    const shardsMerged = pointsToBins(parseCoverageData(readFileSync(join(cli, 'all', 'merged', mergedDat!), 'latin1'), 'all.dat'), []);
    expect(shardsMerged.hits).toEqual(gb.bins);
    expect(readdirSync(join(cli, 'all', 'annotated', mergedDat!.replace(/\.dat$/, ''))).sort()).toEqual(modules.map((m) => `${m}.sv`).sort());
    const all = JSON.parse(readFileSync(join(cli, 'all.json'), 'utf8')) as typeof json;
    expect(all.coverage.groups.find((g) => g.kind === 'code')!.bins).toEqual(gb.bins);
    const lone = spawnSync(process.execPath, [BIN, 'merge', join(cli, 's1.json'), '--coverage-rtl', join(cli, 'x')], { cwd: cli, encoding: 'utf8' });
    expect(lone.status).toBe(2);
    expect(lone.stderr).toMatch(/^rvtrace: --coverage-rtl and --coverage-rtl-from go together.*\n$/);
    console.log(`pmu-rv32-mcu code coverage: 1 case ${ba!.covered}/${ba!.total}, 2 cases ${blockCoverage(b.coverage)[0]!.covered}/${ba!.total} points`);
  });
});
