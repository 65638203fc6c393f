/**
 * The PMU block's own commands as a user runs them: `sbi-pmu` (answers, --compare, bad input) and
 * `pmu-stat` (a script's bound counters, a stream file's counts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../generator/render.ts';
import { decodeBinaryStream } from '../../golden-model/hart/formats/binary.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-pmu-commands-'));
const SCRIPT = join(ROOT, 'golden-model/pmu/sbi/test-fixtures/qemu-virt-all.sbi');

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rvtrace.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rvtrace sbi-pmu', () => {
  const out = join(dir, 'run.sbi');
  it('prints the script with the answers, and a recorded run compares equal to itself', () => {
    const r = rvtrace('sbi-pmu', '--component', 'pmu-qemu-virt', '--script', SCRIPT, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    // num_counters on QEMU virt: 19 hardware slots (mhpmcounter3..18 and 0..2) + 16 firmware counters.
    expect(text).toContain('C1 pmu.num_counters a0=0x0 a1=0x0 a2=0x0 a3=0x0 a4=0x0 a5=0x0 -> err=0(SUCCESS) val=0x23\n');
    // Time (counter 1) is not a counter of the SBI PMU: INVALID_PARAM.
    expect(text).toMatch(/C3 pmu\.counter_get_info a0=0x1 .* -> err=-3\(INVALID_PARAM\) val=0x0 ; time\n/);
    const again = rvtrace('sbi-pmu', '--component', 'pmu-qemu-virt', '--script', SCRIPT, '--compare', out);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain('every answer agrees');
  });

  it('--compare reports the first differing answer with the counters involved, status 1', () => {
    const edited = join(dir, 'edited.sbi');
    writeFileSync(edited, readFileSync(out, 'utf8').replace(/(C28 pmu\.counter_stop a0=0x10 a1=0x1 [^>]*-> )err=\S+/, '$1err=-1(FAILED)'));
    const r = rvtrace('sbi-pmu', '--component', 'pmu-qemu-virt', '--script', SCRIPT, '--compare', edited);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/first difference at .*edited\.sbi:\d+: C28 pmu\.counter_stop/);
    expect(r.stderr).toContain('expected err=-1(FAILED)');
    expect(r.stderr).toMatch(/counter 16: value 0x[0-9a-f]+ mhpmevent=0x[0-9a-f]+ (inhibited|counting), event /);
  });

  it('a bad script line is one line naming file:line and what was expected, status 2', () => {
    const bad = join(dir, 'bad.sbi');
    writeFileSync(bad, 'C1 pmu.num_counters\nC2 pmu.counter_strat a0=0x0\n');
    const r = rvtrace('sbi-pmu', '--component', 'pmu-qemu-virt', '--script', bad);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${bad}:2`);
  });
});

describe('rvtrace pmu-stat', () => {
  it('after a script: the counters the firmware bound, firmware counters included', () => {
    const r = rvtrace('pmu-stat', '--component', 'pmu-qemu-virt', '--script', SCRIPT);
    expect(r.status, r.stderr).toBe(0);
    // The script starts firmware counter 19 on SET_TIMER, then one fw-event line and one set_timer call.
    expect(r.stdout).toMatch(/\n +2 {2}firmware set-timer +SBI_PMU_FW_SET_TIMER \(0xf0005\) +firmware 19\n/);
  });

  it('on a stream file: minstret counts the records that retire without trapping', () => {
    const stream = join(dir, 's.bin');
    expect(rvtrace('stimulus', '--seed', '3', '--count', '3000', '--out', stream).status).toBe(0);
    const records = decodeBinaryStream(readFileSync(stream), stream).records;
    const active = records.filter((x) => !x.halted && !x.reset && x.priv !== 4);
    const retired = active.filter((x) => x.iretire > 0 && x.itype !== 1).length;
    const r = rvtrace('pmu-stat', '--component', 'pmu', '--stream', stream);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  ${retired.toLocaleString('en-US')}  instructions`);
    expect(r.stdout).toMatch(new RegExp(`\\n +${active.length.toLocaleString('en-US')} {2}cycles +SBI_PMU_HW_CPU_CYCLES \\(0x1\\) +mcycle`));
  });
});
