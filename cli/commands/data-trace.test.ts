/**
 * E-Trace data trace through the real command line: `stimulus --data`, `encode --data-in` with the
 * reference flow's data CSV, and `decode --data-out` writing the same format back, so that the round
 * trip is a file comparison (issue 21). The expected CSV is written from the stimulus's own accesses,
 * not from anything the encoder or decoder produced.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeEtraceDataCsv } from '../../golden-model/hart/formats/etrace-data-csv.ts';
import { decodeBinaryStream, encodeBinaryStream } from '../../golden-model/hart/formats/binary.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-data-cli-'));
const at = (name: string): string => join(dir, name);

function rvtrace(...args: string[]): { status: number; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stderr: r.stderr };
}

function oneLineError(r: { status: number; stderr: string }): string {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const DATA = ['--set', 'data_trace_p=1'];

beforeAll(() => {
  const s = rvtrace('stimulus', '--seed', '5', '--count', '4000', '--data', '--out', at('s.bin'));
  expect(s.status, s.stderr).toBe(0);
  const stream = decodeBinaryStream(readFileSync(at('s.bin')), 's.bin');
  expect(stream.data!.accesses.length).toBeGreaterThan(500);
  // The same run as two files, the way the reference flow has them: instructions, and data CSV.
  writeFileSync(at('d-in.csv'), writeEtraceDataCsv(stream.data!));
  writeFileSync(at('plain.bin'), encodeBinaryStream({ ...stream, data: undefined }));
}, 120_000);

describe('E-Trace data trace on the command line', () => {
  it('encode --data-in joins the data CSV with the instructions: the same bytes as the stream that carries them', () => {
    expect(rvtrace('encode', ...DATA, '--in', at('s.bin'), '--out', at('a.te')).status).toBe(0);
    const r = rvtrace('encode', ...DATA, '--in', at('plain.bin'), '--data-in', at('d-in.csv'), '--out', at('b.te'));
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(at('b.te')).equals(readFileSync(at('a.te')))).toBe(true);
    // Data packets are there: the stream is longer than the instruction trace alone.
    expect(rvtrace('encode', ...DATA, '--in', at('plain.bin'), '--out', at('c.te')).status).toBe(0);
    expect(readFileSync(at('a.te')).length).toBeGreaterThan(readFileSync(at('c.te')).length);
  });

  it('decode --data-out writes the accesses back: the file the stimulus gave, byte for byte', () => {
    const r = rvtrace('decode', ...DATA, '--in', at('a.te'), '--image', at('s.bin'), '--data-out', at('d-out.csv'), '--out', at('dec.txt'));
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(at('d-out.csv'), 'utf8')).toBe(readFileSync(at('d-in.csv'), 'utf8'));
  });

  it('a stream with data and a component without data trace: the instructions are encoded, with a note', () => {
    const r = rvtrace('encode', '--in', at('s.bin'), '--out', at('n.te'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: the \d+ data accesses of .*s\.bin are not encoded: etrace does not trace data/m);
  });

  it('bad uses of --data-in and --data-out are one-line errors', () => {
    expect(oneLineError(rvtrace('encode', '--in', at('plain.bin'), '--data-in', at('d-in.csv'), '--out', at('x.te')))).toBe(
      `rvtrace: --data-in ${at('d-in.csv')}: etrace does not trace data (an E-Trace component with data_trace_p = 1 does)`,
    );
    expect(oneLineError(rvtrace('encode', ...DATA, '--in', at('s.bin'), '--data-in', at('d-in.csv'), '--out', at('x.te')))).toBe(
      `rvtrace: --data-in ${at('d-in.csv')}: ${at('s.bin')} carries its data accesses already`,
    );
    expect(oneLineError(rvtrace('decode', '--in', at('n.te'), '--image', at('s.bin'), '--data-out', at('x.csv'), '--out', at('x.txt')))).toBe(
      `rvtrace: --data-out ${at('x.csv')}: the component has no data trace (data_trace_p = 0)`,
    );
  });
});
