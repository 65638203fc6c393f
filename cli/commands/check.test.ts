/**
 * `rvtrace check` on the command line: bad input is one line on stderr with status 2 and nothing on
 * stdout (the runs on real waveforms are in tb/etrace/check.test.ts and tb/ctr/check.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-check-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(join(dir, 'w.vcd'), '$scope module tb $end\n$var wire 1 ! clk $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\n#5\n1!\n');
writeFileSync(join(dir, 'bad.json'), '{ "clock": "tb.clk", ');
writeFileSync(join(dir, 'empty.json'), JSON.stringify({ clock: 'tb.clk', ports: {} }));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rvtrace check (command line)', () => {
  const CASES: [string, string[], RegExp][] = [
    ['both --vcd and --fst', ['check', '--vcd', 'w.vcd', '--fst', 'w.fst', '--map', 'empty.json'], /^rvtrace: give the waveform as exactly one of --vcd FILE and --fst FILE$/],
    ['no waveform', ['check', '--map', 'empty.json'], /^rvtrace: give the waveform as exactly one of --vcd FILE and --fst FILE$/],
    ['a waveform that does not exist', ['check', '--vcd', 'none.vcd', '--map', 'empty.json'], /^rvtrace: none\.vcd: no such waveform file$/],
    ['a map that is not JSON', ['check', '--vcd', 'w.vcd', '--map', 'bad.json'], /^rvtrace: bad\.json: not JSON \(.*\); expected \{ "clock": NAME/],
    ['a map without the required ports', ['check', '--vcd', 'w.vcd', '--map', 'empty.json'], /^rvtrace: empty\.json: ports: the map names no signal for the ports itype_i, iretire_i, .* of etrace_top, which the check needs$/],
  ];
  it.each(CASES)('%s: one line, status 2', (_what, argv, line) => {
    const r = rvtrace(...argv);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('[dist]'))).toHaveLength(1);
    expect(r.stderr.split('\n').find((l) => l.startsWith('rvtrace:'))).toMatch(line);
  }, 120_000);

  it('--help documents the options and the map', () => {
    const r = rvtrace('check', '--help');
    expect(r.status).toBe(0);
    for (const s of ['--vcd <FILE>', '--fst <FILE>', '--map <MAP>', '--capture <BYTES>', '"clock"', 'fst2vcd']) expect(r.stdout).toContain(s);
  });
});
