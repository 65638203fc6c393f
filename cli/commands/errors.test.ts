/**
 * One-line errors of the command line, as a new user meets them: a component of the wrong block,
 * a bad `--knob`, an option the block does not take, an empty trace, and output paths that
 * cannot be written, described in the user's terms (no temporary file names). Each case is an
 * argv and the exact line rvtrace prints on stderr, with exit status 2 and nothing written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-errors-'));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  writeFileSync(join(dir, 'empty.bin'), '');
  writeFileSync(join(dir, 'a-file'), 'not a directory');
  mkdirSync(join(dir, 'adir'));
  // A small retirement stream (our binary format) to encode.
  expect(rvtrace('stimulus', '--seed', '1', '--count', '200', '--out', 's.bin').status).toBe(0);
  writeFileSync(join(dir, 'not-results.json'), '{"tool": "x"}');
});

const CODECS = 'E-Trace encoder, N-Trace encoder or tandem-verification trace encoder';

/** argv -> the one line on stderr (exit status 2). */
const CASES: [string, string[], string][] = [
  // A component of a block the command does not take: one line, whatever --set says.
  ['encode with a CTR component', ['encode', '-c', 'ctr', '--in', 's.bin', '--out', 'x.te'], `--component ctr: a component of the CTR unit; encode takes a component of the ${CODECS}`],
  ['encode with a CTR component and CTR settings', ['encode', '-c', 'ctr', '--set', 'depthMax=64', '--in', 's.bin', '--out', 'x.te'], `--component ctr: a component of the CTR unit; encode takes a component of the ${CODECS}`],
  ['decode with a PMU component', ['decode', '-c', 'pmu', '--in', 's.bin', '--image', 's.bin', '--out', 'x.pcs'], `--component pmu: a component of the PMU counter block; decode takes a component of the ${CODECS}`],
  ['dump with a CTR component', ['dump', '-c', 'ctr-small', '--in', 's.bin'], `--component ctr-small: a component of the CTR unit; dump takes a component of the ${CODECS}`],
  ['pmu-stat with an E-Trace component', ['pmu-stat', '-c', 'etrace'], '--component etrace: a component of the E-Trace encoder; pmu-stat takes a component of the PMU counter block'],
  // --knob errors name --knob.
  ['an unknown knob', ['cosim', '-c', 'ctr-small', '--knob', 'no_such_knob=1'], "--knob no_such_knob: no stimulus knob of that name (known: compressed, privileges, rom_base, code_base, placement, functions, w_straight, w_if, w_loop, w_call, w_indirect_call, w_sijump_call, w_tail_call, w_jump_table, w_other_jump, w_swap, w_ecall, w_ebreak, w_illegal, w_amo, w_narrow, w_call_run, w_checks, w_skip_return, interrupt_rate, fault_rate, nested_interrupt_rate, context_switch_rate, async_context_rate, halt_rate, reset_rate, idle_rate, long_stall_rate, long_stall_cycles, notify_rate, trace_off_rate, trace_on_rate, loop_continue, max_recursion)"],
  ['a placement knob the hart cannot have', ['stimulus', '--seed', '1', '--count', '10', '--set', 'xlen=32', '--set', 'placement=sv39', '--out', 'p.bin'], 'knob placement=sv39: expected default or low on an RV32 hart (sv39 is an RV64 address space)'],
  ['a knob without a value', ['cosim', '-c', 'ctr-small', '--knob', 'interrupt_rate'], '--knob interrupt_rate: expected NAME=VALUE'],
  ['a knob that is not a number', ['cosim', '-c', 'ctr-small', '--knob', 'interrupt_rate=often'], '--knob interrupt_rate=often: expected a number'],
  // An option the block does not take is refused.
  ['--backpressure for a CTR co-simulation', ['cosim', '-c', 'ctr', '--backpressure', '0.5'], '--backpressure 0.5: the CTR unit has no output stream to hold back'],
  ['--backpressure for a PMU co-simulation', ['cosim', '-c', 'pmu', '--backpressure', '0.3'], '--backpressure 0.3: the PMU counter block has no output stream to hold back'],
  ['--trap-handler for an N-Trace decode', ['decode', '-c', 'ntrace', '--in', 's.bin', '--image', 's.bin', '--out', 'x.pcs', '--trap-handler', '0x100'], '--trap-handler: the decoder of the N-Trace encoder takes no such option'],
  ['--image for a TV decode', ['decode', '-c', 'tvtrace', '--in', 's.bin', '--image', 's.bin', '--out', 'x.txt'], '--image: the tandem-verification trace encoder decodes its stream without a program image'],
  // An empty trace is not an empty result.
  ['dump of an empty file', ['dump', '-c', 'etrace', '--in', 'empty.bin'], 'empty.bin: empty file: expected a trace byte stream of the E-Trace encoder'],
  ['dump --stats of an empty file', ['dump', '-c', 'ntrace', '--in', 'empty.bin', '--stats'], 'empty.bin: empty file: expected a trace byte stream of the N-Trace encoder'],
  ['decode of an empty file', ['decode', '-c', 'etrace', '--in', 'empty.bin', '--image', 's.bin', '--out', 'x.pcs'], 'empty.bin: empty file: expected a trace byte stream of the E-Trace encoder'],
  // Output paths, in the user's terms.
  ['stimulus --out ""', ['stimulus', '--seed', '1', '--count', '10', '--out', ''], '--out: an empty file name (give the file to write)'],
  ['stimulus --out a directory', ['stimulus', '--seed', '1', '--count', '10', '--out', 'adir'], '--out adir: is a directory (give a file name)'],
  ['stimulus --out below a file', ['stimulus', '--seed', '1', '--count', '10', '--out', 'a-file/x.bin'], 'a-file/x.bin: cannot write: a folder on its path is a file'],
  ['convert --out a directory', ['convert', 's.bin', '--out', 'adir'], '--out adir: is a directory (give a file name)'],
  ['encode --out ""', ['encode', '--in', 's.bin', '--out', ''], '--out: an empty file name (give the file to write)'],
  ['encode --out a directory', ['encode', '--in', 's.bin', '--out', 'adir'], '--out adir: is a directory (give a file name)'],
  ['encode --seed that is not a number', ['encode', '--in', 's.bin', '--out', 'x.te', '--backpressure', '0.5', '--seed', 'abc'], '--seed abc: expected an integer from 0 to 2^31'],
  ['decode --out a directory', ['decode', '--in', 's.bin', '--image', 's.bin', '--out', 'adir'], '--out adir: is a directory (give a file name)'],
  ['ipxact --out a directory', ['ipxact', '-c', 'ctr', '--out', 'adir'], '--out adir: is a directory (give a file name)'],
  ['generate --out ""', ['generate', '-c', 'ctr-small', '--out', ''], '--out: an empty directory name (give the directory to write)'],
  ['generate --out a file', ['generate', '-c', 'ctr-small', '--out', 'a-file'], '--out a-file: is a file, not a directory'],
  ['cosim --fst a directory', ['cosim', '-c', 'ctr-small', '--fst', 'adir'], '--fst adir: is a directory (give a file name)'],
  ['regress --json a directory', ['regress', '--components', 'ctr-small', '--json', 'adir'], '--json adir: is a directory (give a file name)'],
  ['merge --junit ""', ['merge', 's.bin', '--junit', ''], '--junit: an empty file name (give the file to write)'],
  ['fuzz --out a file', ['fuzz', '--time', '1s', '--out', 'a-file'], '--out a-file: is a file, not a directory'],
  ['bench --report a file', ['bench', '--report', 'a-file'], '--report a-file: is a file, not a directory'],
  // Result files a merge cannot use.
  ['merge of a file that is not JSON', ['merge', 's.bin'], 's.bin: not a result file of rvtrace regress (not JSON; give the --json output of a regress run)'],
  ['merge of JSON that is not a result', ['merge', 'not-results.json'], 'not-results.json: not a result file of rvtrace regress (JSON without "matrix" and "cases"; give the --json output of a regress run)'],
];

describe('one-line errors, exit status 2, nothing written', () => {
  it.each(CASES)('%s', (_name, argv, message) => {
    const before = readdirSync(dir).sort();
    const r = rvtrace(...argv);
    expect(r.stderr).toBe(`rvtrace: ${message}\n`);
    expect(r.status).toBe(2);
    // No output and no temporary file left behind.
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(existsSync(join(dir, 'adir')) && readdirSync(join(dir, 'adir'))).toEqual([]);
  });
});

describe('merge of shard results (CLI)', () => {
  const result = (k: number, cases: number[]) => ({
    tool: 'rvtrace test',
    matrix: { components: ['ctr-small'], sets: [], seeds: [1, 2], backpressures: [0], count: 10 },
    plan: ['ctr-small/bp0/seed1', 'ctr-small/bp0/seed2'],
    shard: { index: k, count: 2 },
    cases: cases.map((i) => ({ id: `ctr-small/bp0/seed${i + 1}`, index: i, component: 'ctr-small', sets: [], seed: i + 1, count: 10, backpressure: 0, status: 'passed', records: 10, cycles: 12, metrics: { responses: 2 }, seconds: 0.25, replay: 'x' })),
  });

  it('fails on a missing shard, naming it and its cases; --allow-partial merges and marks the result partial', () => {
    writeFileSync(join(dir, 'shard1.json'), JSON.stringify(result(1, [0])));
    const r = rvtrace('merge', 'shard1.json', '--json', 'all.json');
    expect(r.stderr).toBe("rvtrace: merge: incomplete: shard 2/2 missing; 1 of 2 cases missing (ctr-small/bp0/seed2); give every shard's results, or --allow-partial to merge what there is\n");
    expect(r.status).toBe(2);
    expect(existsSync(join(dir, 'all.json'))).toBe(false);

    const p = rvtrace('merge', 'shard1.json', '--allow-partial', '--json', 'all.json', '--junit', 'all.xml');
    expect(p.status).toBe(0);
    expect(p.stdout).toContain('PARTIAL: 1 case of the matrix not run, shard 2/2 missing: ctr-small/bp0/seed2\n1 passed, 0 failed (partial: 1 not run)\n');
    const merged = JSON.parse(readFileSync(join(dir, 'all.json'), 'utf8'));
    expect(merged.partial).toEqual({ missingShards: ['2/2'], missingCases: ['ctr-small/bp0/seed2'] });
    expect(readFileSync(join(dir, 'all.xml'), 'utf8')).toContain('<testsuites name="rvtrace regress (partial)" tests="2" failures="0" skipped="1" time="0.250">');
  });
});
