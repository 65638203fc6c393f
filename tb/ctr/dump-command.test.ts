/**
 * `rvtrace ctr-dump`: the model and the RTL print the same table; the table is the model's array
 * (read through CSRs, youngest first); a stream file works; bad input exits 2 with one line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryFields } from '../../golden-model/ctr/entry.ts';
import { CtrUnit } from '../../golden-model/ctr/unit.ts';
import { ctrDumpPlan, decodeDump, runDumpModel } from './dump.ts';
import { ctrRecords } from './stimulus.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';

const ctrSetup = (_command: string, name: string, sets: readonly string[]) => resolvedOf<CtrBlockConfig>('ctr', name, sets).config;

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ctr-dump-'));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rvtrace ctr-dump', () => {
  it.each([['ctr-rv32', []], ['ctr-small', []], ['ctr-rv32', ['--random-csr', '--all']]])('%s %s: the model and --rtl print the same entries', (component, extra) => {
    const model = rvtrace('ctr-dump', '--component', component, '--seed', '2', '--count', '6000', ...extra);
    expect(model.status, model.stderr).toBe(0);
    const rtl = rvtrace('ctr-dump', '--component', component, '--seed', '2', '--count', '6000', '--rtl', ...extra);
    expect(rtl.status, rtl.stderr).toBe(0);
    const [mHead, ...mRows] = model.stdout.trimEnd().split('\n');
    const [rHead, ...rRows] = rtl.stdout.trimEnd().split('\n');
    expect(mHead).toMatch(new RegExp(`^${component} \\(model\\) after \\d+ records \\(seed 2, 6000 instructions\\): depth \\d+, WRPTR \\d+, FROZEN [01], \\d+ valid entries, youngest first$`));
    expect(rHead).toBe(mHead!.replace('(model)', '(RTL)'));
    expect(rRows).toEqual(mRows);
    expect(mRows[0]).toMatch(/^\s*#\s+source\s+target\s+type\s+cycles\s+flags$/);
    expect(mRows.length).toBeGreaterThan(10);
    expect(mRows[1]).toMatch(/^\s*0 {2}0x[0-9a-f]{8} {2}0x[0-9a-f]{8} {2}[a-z-]+ +(\d+|-) {2}\S/);
  }, 180_000);

  it('the table is the model\'s array, youngest first', () => {
    const s = ctrSetup('test', 'ctr', []);
    const records = ctrRecords(s.config, 4, 5000);
    const plan = ctrDumpPlan(s.config, records);
    const dump = decodeDump(s.config, plan, runDumpModel(s.config, plan.steps));
    const unit = new CtrUnit(s.config);
    for (const step of plan.steps.slice(0, plan.first)) unit.step(step);
    expect(dump.depth).toBe(256);
    expect(dump.entries.map((e) => [e.source, e.target, e.data])).toEqual(unit.entries().map((e) => [e.source, e.target, e.data]));
    expect(dump.entries.filter((e) => entryFields(e).valid).length).toBeGreaterThan(200);
    expect(dump.wrptr).toBe(unit.state().wrptr);
  });

  it('reads a stream file; bad input exits 2 with one line', () => {
    const stream = join(dir, 's.bin');
    expect(rvtrace('stimulus', '--seed', '3', '--count', '2000', '--out', stream).status).toBe(0);
    const r = rvtrace('ctr-dump', '--component', 'ctr-small', '--stream', stream);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ctr-small \(model\) after 2035 records of .*s\.bin: depth 32, /);
    const etrace = rvtrace('ctr-dump', '--component', 'etrace');
    expect(etrace.status).toBe(2);
    expect(etrace.stderr).toBe('rvtrace: --component etrace: a component of the E-Trace encoder; ctr-dump takes a component of the CTR unit\n');
    const knob = rvtrace('ctr-dump', '--stream', stream, '--knob', 'interrupt_rate=0.1');
    expect(knob.status).toBe(2);
    expect(knob.stderr).toBe('rvtrace: --knob applies to generated stimulus, not to --stream\n');
    const missing = rvtrace('ctr-dump', '--stream', join(dir, 'none.bin'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/none\.bin: cannot read: no such file\n$/);
  }, 60_000);
});
