/**
 * `rvtrace encode`, `dump` and `decode` with tvtrace components, through the real command line:
 * TV records in (text, bin, bluespec-tv), the stream out; bytes checked against hand-typed bytes
 * from the seed's chapter 2 (not against the encoder); decode -> encode gives the stream back byte
 * for byte; back-pressure stalls and loses nothing; one-line errors with file and byte offset.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { serializeTvRecords } from '../../golden-model/tvtrace/formats/index.ts';
import { decodeTextRecords } from '../../golden-model/tvtrace/formats/text.ts';
import { defaultTvtraceConfig } from '../../golden-model/tvtrace/settings.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { generateTvRecords } from './stimulus.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-tvcodec-'));
const at = (name: string): string => join(dir, name);

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function oneLineError(r: { status: number; stderr: string }): string {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toMatch(/\bat .*\.ts:\d+/);
  return lines[0]!;
}

/** `wrote F: N groups, B bytes, b bits/instruction[, S stall cycles] (t s)`. */
function summary(stderr: string): { groups: number; bytes: number; bpi: string; stalls: number } {
  const m = /^wrote .*: (\d+) groups, (\d+) bytes, ([\d.]+|n\/a) bits\/instruction(?:, (\d+) stall cycles)? \([\d.]+ s\)$/m.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return { groups: Number(m![1]), bytes: Number(m![2]), bpi: m![3]!, stalls: Number(m![4] ?? 0) };
}

const hexBytes = (s: string): number[] => s.trim().split(/\s+/).map((h) => parseInt(h, 16));

// Flute Trace_Data lines (op pc instr_sz instr rd word1..word5) and their bytes typed from the
// seed's chapter 2 (begin 01, additional state 07 with id 0a and 8 pc bytes little endian, opcode
// 11 and 4 instruction bytes, full register 04 with the Debug-spec address and 8 bytes, end 02).
const FLUTE = [
  '# op pc       sz instr    rd word1            word2 word3    word4 word5',
  '6    80000004 1  006281b3 3  1234             0     0        0     0     # add gp, t0, t1',
  '9    8000000c 1  00053583 b  1122334455667788 0     80001000 0     0     # ld a1, 0(a0)',
  '0    0        0  0        0  0                0     0        0     0     # reset',
].join('\n');
const FLUTE_BYTES = [
  '01 07 0a 04 00 00 80 00 00 00 00 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02',
  // ld: rd a1 (0x100b), then eaddr (07 03, 8 bytes)
  '01 07 0a 0c 00 00 80 00 00 00 00 11 83 35 05 00 04 0b 10 88 77 66 55 44 33 22 11 07 03 00 10 00 80 00 00 00 00 02',
  '01 0a 02',
].join(' ');

const COUNT = 3000;

describe('encode -> dump -> decode -> encode with tvtrace components', () => {
  const records: Record<string, TvRecord[]> = {};
  beforeAll(() => {
    records.tvtrace = generateTvRecords(defaultTvtraceConfig(), 5, COUNT);
    records['tvtrace-rv32imc'] = generateTvRecords(defaultTvtraceConfig({ xlen: 32, flen: 0, mlen: 34 }), 6, COUNT);
    writeFileSync(at('tvtrace.tvr'), serializeTvRecords(records.tvtrace, 'text'));
    writeFileSync(at('tvtrace.bin'), serializeTvRecords(records.tvtrace, 'bin'));
    writeFileSync(at('tvtrace-rv32imc.tvr'), serializeTvRecords(records['tvtrace-rv32imc'], 'text'));
    writeFileSync(at('flute.trace'), FLUTE);
  });

  it('encodes Flute Trace_Data lines (--in-format bluespec-tv) into the bytes chapter 2 gives; dump names every field', () => {
    const out = at('flute.tv');
    const enc = rvtrace('encode', '--component', 'tvtrace', '--in', at('flute.trace'), '--in-format', 'bluespec-tv', '--out', out);
    expect(enc.status, enc.stderr).toBe(0);
    expect([...readFileSync(out)]).toEqual(hexBytes(FLUTE_BYTES));
    const s = summary(enc.stderr);
    expect(s.groups).toBe(3);
    // Two retired instructions: 8 * 69 bytes / 2.
    expect(s.bpi).toBe('276.000');
    const dump = rvtrace('dump', '--component', 'tvtrace', '--in', out);
    expect(dump.status, dump.stderr).toBe(0);
    expect(dump.stdout).toBe(
      [
        '0x0000 instruction pc=0x80000004 instr=0x006281b3 (32-bit) gp=0x1234',
        '0x001c instruction pc=0x8000000c instr=0x00053583 (32-bit) a1=0x1122334455667788 eaddr=0x80001000',
        '0x0042 reset hart-reset',
        '',
      ].join('\n'),
    );
  });

  it.each(['tvtrace', 'tvtrace-rv32imc'])('%s: random records of every kind: the dump has a line per group, decode gives records that encode to the same stream', (component) => {
    const stream = at(`${component}.tv`);
    const enc = rvtrace('encode', '--component', component, '--in', at(`${component}.tvr`), '--out', stream);
    expect(enc.status, enc.stderr).toBe(0);
    const s = summary(enc.stderr);
    expect(s.bytes).toBe(statSync(stream).size);
    expect(s.stalls).toBe(0);

    const dump = rvtrace('dump', '--component', component, '--in', stream);
    expect(dump.status, dump.stderr).toBe(0);
    const lines = dump.stdout.trim().split('\n');
    expect(lines).toHaveLength(s.groups);
    const dumped = new Set(lines.map((l) => l.split(' ')[1]));
    for (const k of ['instruction', 'trap', 'interrupt', 'xret', 'debug-write', 'reset', 'state']) expect(dumped, k).toContain(k);

    // --stats: the groups and every byte of the file.
    const stats = rvtrace('dump', '--component', component, '--in', stream, '--stats');
    expect(stats.status, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/^group kind\s+groups\s+bytes\s+share$/m);
    expect(stats.stdout).toMatch(new RegExp(`^total\\s+${s.groups}\\s+${s.bytes}\\s+100\\.0 %$`, 'm'));
    expect(stats.stdout).toMatch(/^state \(ungrouped\)\s+\d+\s+\d+/m);

    // decode: TV records in the text format, one per record (unobserved runs split back), then encode again.
    const decoded = at(`${component}.decoded.tvr`);
    const dec = rvtrace('decode', '--component', component, '--in', stream, '--out', decoded);
    expect(dec.status, dec.stderr).toBe(0);
    const text = readFileSync(decoded, 'utf8');
    expect(text).not.toMatch(/not a TV record/);
    const back = decodeTextRecords(text, decoded);
    expect(dec.stderr).toContain(`wrote ${decoded}: ${back.length} records`);
    const again = at(`${component}.again.tv`);
    const enc2 = rvtrace('encode', '--component', component, '--in', decoded, '--out', again);
    expect(enc2.status, enc2.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(again), readFileSync(stream))).toBe(0);
    // Kinds come back as they went in (an unobserved record without a field writes nothing, and
    // unobserved records one after the other may come back as fewer).
    const kinds = (rs: readonly TvRecord[]): string[] =>
      rs
        .filter((r) => !(r.kind === 'unobserved' && r.mtime === undefined && r.mcycle === undefined && r.minstret === undefined))
        .map((r) => r.kind)
        .filter((k, i, all) => k !== 'unobserved' || all[i - 1] !== 'unobserved');
    expect(kinds(back)).toEqual(kinds(records[component]!));
  });

  it('the bin record format encodes to the same stream as the text one', () => {
    const out = at('bin.tv');
    const enc = rvtrace('encode', '--component', 'tvtrace', '--in', at('tvtrace.bin'), '--out', out);
    expect(enc.status, enc.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(at('tvtrace.tv')))).toBe(0);
  });

  it('back-pressure holds the hart (stall cycles) and loses nothing: the same bytes', () => {
    const out = at('bp.tv');
    const enc = rvtrace('encode', '--component', 'tvtrace', '--in', at('tvtrace.tvr'), '--out', out, '--backpressure', '0.6', '--seed', '4', '--set', 'out_bytes=1');
    expect(enc.status, enc.stderr).toBe(0);
    expect(summary(enc.stderr).stalls).toBeGreaterThan(COUNT);
    expect(Buffer.compare(readFileSync(out), readFileSync(at('tvtrace.tv')))).toBe(0);
  });

  it('decode writes a comment line for a group no record expresses, and the records of the others', () => {
    // A load with a memory request and response (opcodes 8, 9: the record's mem0), a nop that
    // reports a write of x0 (no record: the encoder reports none), then a reset.
    const bytes = hexBytes(
      '01 07 0a 04 00 00 80 00 00 00 00 11 03 a2 82 00 08 08 00 00 01 00 00 00 00 20 09 02 44 33 22 11 02' +
        ' 01 07 0a 08 00 00 80 00 00 00 00 11 13 00 00 00 04 00 10 00 00 00 00 00 00 00 00 02 01 0a 02',
    );
    const file = at('mem.tv');
    writeFileSync(file, Uint8Array.from(bytes));
    const out = at('mem.tvr');
    const dec = rvtrace('decode', '--component', 'tvtrace', '--in', file, '--out', out);
    expect(dec.status, dec.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(
      [
        '# rvtrace tv records v1',
        'instruction next_pc=80000004 instr=0082a203 mem0=load:4:1000008/ok:11223344',
        '# 0x0021 instruction pc=0x80000008 instr=0x00000013 (32-bit) zero=0x0: not a TV record: a write of x0 (the encoder reports none)',
        'reset',
        '',
      ].join('\n'),
    );
  });
});

describe('errors, on one line', () => {
  it('a damaged stream: dump and decode name the file and the byte offset, and write nothing', () => {
    const file = at('bad.tv');
    // A begin group, then opcode 0x0c (unknown) at byte 1.
    writeFileSync(file, Uint8Array.from([0x01, 0x0c, 0x02]));
    expect(oneLineError(rvtrace('dump', '--component', 'tvtrace', '--in', file))).toBe(`rvtrace: ${file} (byte offset 1): unknown opcode 0x0c (12): expected an opcode 1..11, 16 or 17`);
    const out = at('bad.tvr');
    expect(oneLineError(rvtrace('decode', '--component', 'tvtrace', '--in', file, '--out', out))).toContain(`${file} (byte offset 1): unknown opcode 0x0c`);
    expect(existsSync(out)).toBe(false);
  });

  it('a record that does not fit the component: the file, the record and the field', () => {
    const file = at('wide.tvr');
    writeFileSync(file, '# rvtrace tv records v1\nreset\ninstruction next_pc=100000000 instr=00000013\n');
    const line = oneLineError(rvtrace('encode', '--component', 'tvtrace-rv32imc', '--in', file, '--out', at('wide.tv')));
    expect(line).toBe(`rvtrace: ${file}: records/1: record 1: nextPc 0x100000000 does not fit XLEN = 32`);
    expect(existsSync(at('wide.tv'))).toBe(false);
  });

  it('options that do not apply: --image, --check, another --in-format', () => {
    const s = at('tvtrace.tv');
    expect(oneLineError(rvtrace('decode', '--component', 'tvtrace', '--in', s, '--out', at('x.tvr'), '--image', s))).toBe(
      'rvtrace: --image: the tandem-verification trace encoder decodes its stream without a program image',
    );
    expect(oneLineError(rvtrace('encode', '--component', 'tvtrace', '--in', at('tvtrace.tvr'), '--out', at('x.tv'), '--in-format', 'spike-csv'))).toBe(
      'rvtrace: --in-format spike-csv: the tvtrace encoder reads TV records: expected one of text, bin, bluespec-tv',
    );
    // The other blocks still need --image.
    expect(oneLineError(rvtrace('decode', '--component', 'ntrace', '--in', s, '--out', at('x.pcs')))).toBe(
      "rvtrace: required option '--image <FILE>' not specified: the N-Trace encoder decodes with the program image",
    );
  });
});
