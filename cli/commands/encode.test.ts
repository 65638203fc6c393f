/**
 * `rvtrace encode` of a spike-csv, which it reads a piece at a time (core/stream-io.ts): through the
 * real command line, the bytes are those of the model on the whole import, the instruction count is
 * that of the file's retired rows, and an error in a late piece is one line naming the file's line,
 * with nothing written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { importSpikeCsv } from '../../golden-model/hart/formats/spike-csv.ts';
import { spikeCsvChunks } from '../../golden-model/hart/formats/synthetic.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { PIECE_BYTES } from '../../core/stream-io.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-encode-'));

function rvtrace(...args: string[]): { status: number; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stderr: r.stderr };
}

describe('rvtrace encode of a spike-csv, read in pieces', () => {
  const csv = spikeCsvChunks(generateStimulus(defaultKnobs(), 9, 30_000)).join('');

  it('writes the bytes the model gives for the whole import', () => {
    expect(csv.length).toBeGreaterThan(8 * PIECE_BYTES);
    const file = join(dir, 'a.csv');
    writeFileSync(file, csv);
    const out = join(dir, 'a.te');
    const r = rvtrace('encode', '--component', 'etrace', '--in', file, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const config = resolveComponent('etrace').config as EtraceConfig;
    const whole = importSpikeCsv(csv, file);
    const expected = encodeStream(whole.records, config, { keepPackets: false }).bytes;
    expect(Buffer.from(readFileSync(out)).equals(Buffer.from(expected))).toBe(true);
    // Bits per instruction divide by the retired rows: every row of the file with VALID 1 that is
    // not a trap without retirement (EXCEPTION 1 on anything but ecall/ebreak, or INTERRUPT 1).
    const retired = whole.records.filter((x) => x.iretire > 0).length;
    expect(r.stderr).toContain(`wrote ${out}: `);
    expect(r.stderr).toContain(`, ${expected.length} bytes, ${((expected.length * 8) / retired).toFixed(3)} bits/instruction`);
  });

  it('stops at a bad row of a late piece with one line naming it, and writes nothing', () => {
    const lines = csv.split('\n');
    const bad = lines.length - 100; // 0-based index: line bad + 1
    lines[bad] = lines[bad]!.replace(/,[0-9a-f]+,/, ',12g4,');
    const file = join(dir, 'b.csv');
    writeFileSync(file, lines.join('\n'));
    const out = join(dir, 'b.te');
    const r = rvtrace('encode', '--component', 'etrace', '--in', file, '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`rvtrace: ${file}:${bad + 1}: bad hex value "12g4" in column ADDRESS, expected hexadecimal digits without 0x\n`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('b.te'))).toEqual([]);
  });
});
