/**
 * End-to-end tests of the `rvtrace` command line: the checks for stimulus and info, help
 * for every command, `--set`, and one-line errors with exit status 2 for malformed inputs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ITYPE_NAMES, ITYPES_4BIT } from '../golden-model/hart/records.ts';
import { buildProgram } from './main.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-cli-'));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rvtrace stimulus and info', () => {
  it('gives identical files for the same seed, different files for another seed, and every 4-bit itype', () => {
    const a = join(dir, 'a.bin');
    const b = join(dir, 'b.bin');
    const c = join(dir, 'c.bin');
    expect(rvtrace('stimulus', '--seed', '7', '--count', '100000', '--out', a).status).toBe(0);
    expect(rvtrace('stimulus', '--seed', '7', '--count', '100000', '--out', b).status).toBe(0);
    expect(rvtrace('stimulus', '--seed', '8', '--count', '100000', '--out', c).status).toBe(0);
    expect(Buffer.compare(readFileSync(a), readFileSync(b))).toBe(0);
    expect(Buffer.compare(readFileSync(a), readFileSync(c))).not.toBe(0);

    const info = rvtrace('info', a, '--check');
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/^instructions\s+100000$/m);
    for (const t of ITYPES_4BIT) {
      const m = info.stdout.match(new RegExp(`^\\s+${t} ${ITYPE_NAMES[t]}\\s+(\\d+)$`, 'm'));
      expect(m, `itype ${t} line`).not.toBeNull();
      expect(Number(m![1]), `itype ${t} count`).toBeGreaterThan(0);
    }
    expect(info.stdout).toContain('check: every record follows');
  });

  it('writes the text format for .txt names and converts it back to the same binary', () => {
    const bin = join(dir, 't.bin');
    const txt = join(dir, 't.txt');
    const back = join(dir, 't2.bin');
    expect(rvtrace('stimulus', '--seed', '3', '--count', '3000', '--out', bin, '--set', 'xlen=32').status).toBe(0);
    expect(rvtrace('convert', bin, '--out', txt).status).toBe(0);
    expect(readFileSync(txt, 'utf8').split('\n')[0]).toMatch(/^# rvtrace/);
    expect(rvtrace('convert', txt, '--out', back).status).toBe(0);
    expect(Buffer.compare(readFileSync(bin), readFileSync(back))).toBe(0);
  });

  it('regroups into blocks with --set retires_p and keeps the instruction count', () => {
    const f = join(dir, 'blocks.bin');
    expect(rvtrace('stimulus', '--seed', '4', '--count', '5000', '--out', f, '--set', 'retires_p=4', '--set', 'taken_branches_p=2').status).toBe(0);
    const info = rvtrace('info', f, '--check');
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/^retires per cycle\s+4$/m);
    expect(info.stdout).toMatch(/^instructions\s+5000$/m);
    const records = Number(info.stdout.match(/^records\s+(\d+)$/m)![1]);
    expect(records).toBeLessThan(5000);
  });
});

describe('help and settings', () => {
  it('prints help for the tool and for every command', () => {
    const top = rvtrace('--help');
    expect(top.status).toBe(0);
    const names = buildProgram(() => {}).commands.map((c) => c.name());
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) {
      expect(top.stdout).toContain(name);
      const h = rvtrace(name, '--help');
      expect(h.status, name).toBe(0);
      expect(h.stdout, name).toContain(`Usage: rvtrace ${name}`);
      expect(h.stdout, name).toContain('--set');
    }
  });

  it('documents every command in the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const c of buildProgram(() => {}).commands) expect(readme).toContain(`### \`rvtrace ${c.name()}`);
  });

  it('rejects an unknown setting and a bad value with one line and status 2', () => {
    const out = join(dir, 'x.bin');
    const unknown = rvtrace('stimulus', '--seed', '1', '--count', '10', '--out', out, '--set', 'nonsense=1');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain("'stimulus' has no setting of that name (known: xlen, compressed");
    const bad = rvtrace('stimulus', '--seed', '1', '--count', '10', '--out', out, '--set', 'xlen=48');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe('rvtrace: --set xlen=48: expected one of 32, 64');
  });

  it('rejects a bad --count', () => {
    const r = rvtrace('stimulus', '--seed', '1', '--count', 'many', '--out', join(dir, 'y.bin'));
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('rvtrace: --count many: expected an integer from 1 to 2^31');
  });
});

describe('malformed inputs: one line naming file and place, status 2', () => {
  const cases: [string, string | Uint8Array, RegExp][] = [
    ['truncated.bin', 'TRUNCATED', /truncated\.bin.*(byte offset|offset) \d+/],
    ['header.csv', 'itype_0,cause,priv\n0,0,3\n', /header\.csv:1: /],
    ['badhex.csv', 'itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n0,0,0,3,80zz0000,0,0,1,1\n', /badhex\.csv:2: .*80zz0000/],
    ['itype.csv', 'itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n7,0,0,3,80000000,0,0,1,1\n', /itype\.csv:2: .*itype/],
    ['missing.bin', '', /missing\.bin: cannot read: no such file/],
  ];
  it.each(cases)('%s', (name, content, pattern) => {
    const file = join(dir, name);
    if (name === 'truncated.bin') {
      // A real stream cut in the middle of its records.
      const whole = join(dir, 'whole.bin');
      expect(rvtrace('stimulus', '--seed', '1', '--count', '1000', '--out', whole).status).toBe(0);
      const bytes = readFileSync(whole);
      writeFileSync(file, bytes.subarray(0, bytes.length - 7));
    } else if (name !== 'missing.bin') {
      writeFileSync(file, content);
    }
    const r = rvtrace('info', file);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(lines[0]).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  });
});

describe('rvtrace encode, decode, dump', () => {
  it('round-trips a stimulus stream through the CLI for every shipped component', async () => {
    const { decodeBinaryStream } = await import('../golden-model/hart/formats/binary.ts');
    const stream = join(dir, 'rt.bin');
    expect(rvtrace('stimulus', '--seed', '5', '--count', '20000', '--out', stream).status).toBe(0);
    const expected = decodeBinaryStream(readFileSync(stream), stream)
      .records.filter((r) => r.iretire > 0)
      .map((r) => r.iaddr.toString(16));
    for (const component of ['etrace', 'etrace-rv64-full', 'etrace-2.0']) {
      const te = join(dir, `rt-${component}.te`);
      const pcs = join(dir, `rt-${component}.pcs`);
      expect(rvtrace('encode', '--component', component, '--in', stream, '--out', te).status, component).toBe(0);
      const dec = rvtrace('decode', '--component', component, '--in', te, '--image', stream, '--out', pcs);
      expect(dec.status, dec.stderr).toBe(0);
      const lines = readFileSync(pcs, 'utf8').trim().split('\n');
      expect(lines.filter((l) => !l.startsWith('#')), component).toEqual(expected);
      expect(lines.filter((l) => l.startsWith('#')).every((l) => /^# gap: (trace-off|end|trace-lost) \(byte offset \d+\)$/.test(l))).toBe(true);
      const dump = rvtrace('dump', '--component', component, '--in', te);
      expect(dump.status).toBe(0);
      expect(dump.stdout.split('\n')[0]).toMatch(/^000000 {2}F3\.SF3 support {2}i?enable=1 /);
    }
  });

  it('reports a truncated packet stream with its byte offset and status 2', () => {
    const stream = join(dir, 'tr.bin');
    const te = join(dir, 'tr.te');
    expect(rvtrace('stimulus', '--seed', '6', '--count', '2000', '--out', stream).status).toBe(0);
    expect(rvtrace('encode', '--in', stream, '--out', te).status).toBe(0);
    const bytes = readFileSync(te);
    writeFileSync(te, bytes.subarray(0, bytes.length - 1));
    const r = rvtrace('decode', '--in', te, '--image', stream, '--out', join(dir, 'tr.pcs'));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/tr\.te.*byte offset \d+/);
  });

  it('encodes a reference-flow CSV with 4-bit itypes written in decimal, as the reference flow prints it', () => {
    const csv = join(ROOT, 'golden-model', 'hart', 'formats', 'test-fixtures', 'etrace-decimal.csv');
    const te = join(dir, 'decimal.te');
    const enc = rvtrace('encode', '--component', 'etrace', '--in', csv, '--out', te);
    expect(enc.status, enc.stderr).toBe(0);
    const dump = rvtrace('dump', '--component', 'etrace', '--in', te);
    expect(dump.status, dump.stderr).toBe(0);
    // The file's context 42 and cause 12 (instruction page fault), as the packets carry them.
    expect(dump.stdout).toMatch(/F3\.SF0 sync .*context=0x2a address=0x80000000/);
    expect(dump.stdout).toMatch(/F3\.SF1 trap .*ecause=0xc interrupt=0 address=0x80000400 tvalepc=0x80000200/);
  });

  it('encodes the same reference-flow CSV with an N-Trace component', () => {
    const csv = join(ROOT, 'golden-model', 'hart', 'formats', 'test-fixtures', 'etrace-decimal.csv');
    const nt = join(dir, 'decimal.nt');
    const enc = rvtrace('encode', '--component', 'ntrace', '--in', csv, '--out', nt);
    expect(enc.status, enc.stderr).toBe(0);
    const lines = rvtrace('dump', '--component', 'ntrace', '--in', nt).stdout.trim().split('\n');
    // The first record at 0x80000000: F-ADDR is the address without bit 0 (N-Trace); the page
    // fault (cause 12) is an exception, B-TYPE 2; the end of the file stops the trace (EVCODE 4).
    expect(lines[0]).toBe('0x0000 ProgTraceSync(9) SYNC=1 I-CNT=0x0 F-ADDR=0x40000000');
    expect(lines.some((l) => / B-TYPE=2 /.test(l))).toBe(true);
    expect(lines[lines.length - 1]).toMatch(/ProgTraceCorrelation\(33\) EVCODE=4 /);
  });
});

describe('rvtrace decode with a spike-style CSV as the image', () => {
  it.each(['etrace', 'ntrace'])('%s: decodes the trace of a spike PC trace using the executed instructions as the image', (component) => {
    const csv = join(ROOT, 'golden-model', 'hart', 'formats', 'test-fixtures', 'spike-rv64.csv');
    const te = join(dir, `spike-${component}.te`);
    const pcs = join(dir, `spike-${component}.pcs`);
    expect(rvtrace('encode', '--component', component, '--in', csv, '--out', te).status).toBe(0);
    expect(rvtrace('decode', '--component', component, '--in', te, '--image', csv, '--out', pcs).status).toBe(0);
    // The rows of the fixture that retire, in order: VALID=0 rows are skipped, the faulting load
    // (EXCEPTION=1 at 8000001c) and the interrupted instruction (INTERRUPT=1 at 80000026) do not
    // retire; the ecall (EXCEPTION=1 at 80000020) retires and traps.
    const expected = [
      '80000000', '80000004', '80000010', '80000012', '80000014', '80000018', '80000014', '80000018',
      '80000014', '80000018', '80000100', '80000104', '80000020', '80000100', '80000104', '80000024',
      '80000100', '80000104', '80000026',
    ];
    const lines = readFileSync(pcs, 'utf8').trim().split('\n');
    expect(lines.filter((l) => !l.startsWith('#'))).toEqual(expected);
  });
});
