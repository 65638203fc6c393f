/**
 * `rvtrace encode`, `decode` and `dump` on N-Trace components, through the real command line: the
 * block comes from the component. A stimulus round trip checked against the retired instructions
 * (not against the encoder), trace loss and stall under back-pressure, one-line errors for damaged
 * streams and for components of blocks without a trace codec, and `dump --stats` against counts
 * derived by hand from the worked bytes of ../shared/design/ntrace.md. E-Trace's own round trips
 * are in cli/cli.test.ts; here only its --stats.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BLOCKS } from '../../blocks/index.ts';
import { decodeBinaryStream, serializeStream } from '../../golden-model/hart/formats/index.ts';
import { ProgramImage } from '../../golden-model/hart/image.ts';
import { emptyRecord, Itype, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { traced } from '../../golden-model/ntrace/test-fixtures/roundtrip-cases.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-codec-'));
const at = (name: string): string => join(dir, name);

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A one-line error with status 2 and no stack trace; returns the line. */
function oneLineError(r: { status: number; stdout: string; stderr: string }): string {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toMatch(/\bat .*\.ts:\d+/);
  return lines[0]!;
}

/** `wrote F: N messages, B bytes, b bits/instruction[, L messages lost][, S stall cycles] (t s)`. */
function encodeSummary(stderr: string): { count: number; bytes: number; bpi: string; lost: number; stalls: number } {
  const m = /^wrote .*: (\d+) (?:messages|packets), (\d+) bytes, ([\d.]+) bits\/instruction(?:, (\d+) (?:messages|packets) lost)?(?:, (\d+) stall cycles)? \([\d.]+ s\)$/m.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return { count: Number(m![1]), bytes: Number(m![2]), bpi: m![3]!, lost: Number(m![4] ?? 0), stalls: Number(m![5] ?? 0) };
}

const RECOVERY = /^recovered (\d+) of (\d+) retired instructions \([\d.]+ %\) in (\d+) runs, (\d+) trace losses; every decoded address at its place$/m;

const COMPONENT = 'ntrace-btm-mcu';
const COUNT = 5000;
const stream = at('s.bin');
const lossless = at('s.nt');

describe(`encode -> dump -> decode --check with ${COMPONENT}`, () => {
  beforeAll(() => {
    // ntrace-btm-mcu traces an RV32 hart.
    expect(rvtrace('stimulus', '--seed', '11', '--count', String(COUNT), '--out', stream, '--set', 'xlen=32').status).toBe(0);
  });

  it('round-trips every traced instruction, and the dump and --stats count the same messages', () => {
    const enc = rvtrace('encode', '--component', COMPONENT, '--in', stream, '--out', lossless);
    expect(enc.status, enc.stderr).toBe(0);
    const e = encodeSummary(enc.stderr);
    expect(e.lost).toBe(0);
    expect(e.bytes).toBe(statSync(lossless).size);
    expect(e.bpi).toBe(((e.bytes * 8) / COUNT).toFixed(3));

    const dump = rvtrace('dump', '--component', COMPONENT, '--in', lossless);
    expect(dump.status, dump.stderr).toBe(0);
    const lines = dump.stdout.trim().split('\n');
    expect(lines).toHaveLength(e.count);
    expect(lines[0]).toMatch(/^0x0000 ProgTraceSync\(9\) SYNC=\d+ I-CNT=0x[0-9a-f]+ F-ADDR=0x[0-9a-f]+$/);
    expect(lines.at(-1)).toMatch(/ProgTraceCorrelation\(33\) EVCODE=\d+ CDF=0 I-CNT=/);

    // --stats: per TCODE, the messages the dump shows and, in total, every byte of the file.
    const stats = rvtrace('dump', '--component', COMPONENT, '--in', lossless, '--stats', '--image', stream);
    expect(stats.status, stats.stderr).toBe(0);
    const dumped = new Map<string, number>();
    for (const l of lines) {
      const kind = l.split(' ')[1]!;
      dumped.set(kind, (dumped.get(kind) ?? 0) + 1);
    }
    for (const [kind, n] of dumped) {
      const re = new RegExp(`^${kind.replace(/[()]/g, '\\$&')}\\s+${n}\\s+\\d+\\s+[\\d.]+ %$`, 'm');
      expect(stats.stdout, kind).toMatch(re);
    }
    expect(stats.stdout).toMatch(new RegExp(`^total\\s+${e.count}\\s+${e.bytes}\\s+100\\.0 %$`, 'm'));
    expect(stats.stdout).toContain(`bits/instruction ${e.bpi} (${e.bytes} bytes for ${COUNT} retired instructions of ${stream})`);

    // Decoded against the retired instructions, and against the traced ones (the N-Trace tests' rule).
    const pcs = at('s.pcs');
    const dec = rvtrace('decode', '--component', COMPONENT, '--in', lossless, '--image', stream, '--out', pcs, '--check');
    expect(dec.status, dec.stderr).toBe(0);
    const rec = RECOVERY.exec(dec.stdout);
    expect(rec, dec.stdout).not.toBeNull();
    expect(Number(rec![2])).toBe(COUNT);
    expect(Number(rec![4])).toBe(0);
    const records = decodeBinaryStream(readFileSync(stream), stream).records;
    const mask = traced(records);
    const expected = records.filter((r, i) => r.iretire > 0 && mask[i]).map((r) => r.iaddr.toString(16));
    const out = readFileSync(pcs, 'utf8').trim().split('\n');
    expect(out.filter((l) => !l.startsWith('#'))).toEqual(expected);
    expect(Number(rec![1])).toBe(expected.length);
    for (const g of out.filter((l) => l.startsWith('#'))) expect(g).toMatch(/^# gap: trace-off \(byte offset \d+\): ProgTraceCorrelation EVCODE \d+ /);
  });

  it('under back-pressure loses messages and recovers part of the trace, no address wrong; with stall_enable loses nothing', () => {
    const lossy = at('bp.nt');
    const enc = rvtrace('encode', '--component', COMPONENT, '--in', stream, '--out', lossy, '--backpressure', '0.6', '--seed', '2');
    expect(enc.status, enc.stderr).toBe(0);
    expect(encodeSummary(enc.stderr).lost).toBeGreaterThan(0);
    const pcs = at('bp.pcs');
    const dec = rvtrace('decode', '--component', COMPONENT, '--in', lossy, '--image', stream, '--out', pcs, '--check');
    expect(dec.status, dec.stderr).toBe(0);
    const rec = RECOVERY.exec(dec.stdout);
    expect(rec, dec.stdout).not.toBeNull();
    const [recovered, retired, , losses] = rec!.slice(1).map(Number);
    expect(recovered).toBeGreaterThan(0);
    expect(recovered).toBeLessThan(retired!);
    expect(losses).toBeGreaterThan(0);
    expect(readFileSync(pcs, 'utf8')).toMatch(/^# gap: trace-lost \(byte offset \d+\): Error message ETYPE 0 /m);
    // The Error messages the encoder sent are in the stream.
    const stats = rvtrace('dump', '--component', COMPONENT, '--in', lossy, '--stats');
    expect(stats.stdout).toMatch(/^Error\(8\)\s+\d+\s+\d+\s+[\d.]+ %$/m);

    // Stall: the same back-pressure holds the hart instead; the stream is the lossless one.
    const stalled = at('stall.nt');
    const st = rvtrace('encode', '--component', COMPONENT, '--in', stream, '--out', stalled, '--backpressure', '0.6', '--seed', '2', '--set', 'stall_enable=1');
    expect(st.status, st.stderr).toBe(0);
    const s = encodeSummary(st.stderr);
    expect(s.lost).toBe(0);
    expect(s.stalls).toBeGreaterThan(0);
    expect(Buffer.compare(readFileSync(stalled), readFileSync(lossless))).toBe(0);
  });

  it('a damaged stream: dump and --stats fail on one line naming the file and the byte offset; decode reports a bad-trace gap', () => {
    const bytes = new Uint8Array(readFileSync(lossless));
    // The third message's first byte gets the reserved MSEO 10.
    const third = Number(rvtrace('dump', '--component', COMPONENT, '--in', lossless).stdout.split('\n')[2]!.split(' ')[0]);
    const bad = at('bad.nt');
    bytes[third] = (bytes[third]! & ~3) | 2;
    writeFileSync(bad, bytes);
    for (const extra of [[], ['--stats']]) {
      const line = oneLineError(rvtrace('dump', '--component', COMPONENT, '--in', bad, ...extra));
      expect(line).toBe(`rvtrace: ${bad} (byte offset ${third}): reserved MSEO 10 at byte offset 0x${third.toString(16).padStart(4, '0')}`);
    }
    const pcs = at('bad.pcs');
    const dec = rvtrace('decode', '--component', COMPONENT, '--in', bad, '--image', stream, '--out', pcs, '--check');
    expect(dec.status, dec.stderr).toBe(0);
    expect(dec.stdout).toMatch(RECOVERY);
    expect(readFileSync(pcs, 'utf8')).toContain(`# gap: bad-trace (byte offset ${third}): reserved MSEO 10`);

    // Cut in the middle of its last message.
    const cut = at('cut.nt');
    writeFileSync(cut, readFileSync(lossless).subarray(0, statSync(lossless).size - 1));
    expect(oneLineError(rvtrace('dump', '--component', COMPONENT, '--in', cut))).toMatch(/cut\.nt \(byte offset \d+\): message at byte offset 0x[0-9a-f]+ cut short/);
  });

  it('refuses an option of another codec on one line', () => {
    const r = rvtrace('decode', '--component', COMPONENT, '--in', lossless, '--image', stream, '--out', at('x.pcs'), '--trap-handler', '0x100');
    expect(oneLineError(r)).toBe('rvtrace: --trap-handler: the decoder of the N-Trace encoder takes no such option');
    expect(existsSync(at('x.pcs'))).toBe(false);
  });

  it('refuses RV64 records for an RV32 component on one line (the addresses would be cut), writing nothing', () => {
    const wide = at('rv64.bin');
    expect(rvtrace('stimulus', '--seed', '1', '--count', '100', '--out', wide).status).toBe(0);
    const r = rvtrace('encode', '--component', COMPONENT, '--in', wide, '--out', at('rv64.nt'));
    expect(oneLineError(r)).toBe(`rvtrace: ${wide}: the records are XLEN 64, and ${COMPONENT} encodes XLEN 32 addresses: choose a component for XLEN 64`);
    expect(existsSync(at('rv64.nt'))).toBe(false);
  });
});

describe('components of blocks without a trace codec', () => {
  const codecTitles = BLOCKS.filter((b) => b.codec !== undefined).map((b) => b.title);
  it.each([
    ['encode', 'ctr', 'CTR unit'],
    ['encode', 'pmu', 'PMU'],
    ['dump', 'ctr-1.0', 'CTR unit'],
  ])('%s --component %s: one line naming the blocks that have one', (command, component, title) => {
    const out = at(`nocodec-${component}.out`);
    const args = command === 'encode' ? ['--in', stream, '--out', out] : ['--in', lossless];
    const line = oneLineError(rvtrace(command, '--component', component, ...args));
    expect(line).toContain(`--component ${component}: a component of the ${title}`);
    expect(line).toContain(`${command} takes a component of the`);
    for (const t of codecTitles) expect(line).toContain(t);
    expect(existsSync(out)).toBe(false);
  });
});

// --- the worked bytes of ../shared/design/ntrace.md ----------------------------------------------

// The worked program, encoded by hand from the RISC-V unprivileged ISA (as golden-model/ntrace/decoder.test.ts).
const C_ADD = 0x952e; // c.add a0, a1
const BEQ_200 = 0x0eb50f63; // beq a0, a1, +0xfe (0x102 -> 0x200)
const ADD = 0x00b50533; // add a0, a0, a1
const BNE_300 = 0x1eb51b63; // bne a0, a1, +0x1f6 (0x10a -> 0x300)
const C_NOP = 0x0001; // the "c.x" at 0x114: a 16-bit sequential instruction
const C_JR_A2 = 0x8602; // c.jr a2
const JR_A3 = 0x00068067; // jalr x0, 0(a3)

function segment(base: number, words: number[]): { base: bigint; bytes: Uint8Array } {
  const bytes: number[] = [];
  for (const w of words) for (let k = 0; k < ((w & 3) === 3 ? 4 : 2); k++) bytes.push((w >>> (8 * k)) & 0xff);
  return { base: BigInt(base), bytes: Uint8Array.from(bytes) };
}

/** The three passes (T / NT,T / NT,NT): address, 32-bit or not, itype. */
const PASSES: [number, boolean, number][] = [
  [0x100, false, Itype.none], [0x102, true, Itype.takenBranch], [0x200, false, Itype.none], [0x202, false, Itype.otherUninferableJump],
  [0x100, false, Itype.none], [0x102, true, Itype.nontakenBranch], [0x106, true, Itype.none], [0x10a, true, Itype.takenBranch],
  [0x300, true, Itype.none], [0x304, true, Itype.otherUninferableJump],
  [0x100, false, Itype.none], [0x102, true, Itype.nontakenBranch], [0x106, true, Itype.none], [0x10a, true, Itype.nontakenBranch],
  [0x10e, false, Itype.none], [0x110, true, Itype.none], [0x114, false, Itype.none],
];

const hexBytes = (s: string): Uint8Array => Uint8Array.from(s.trim().split(/\s+/).map((x) => parseInt(x, 16)));

describe('dump --stats and decode on the worked bytes of ntrace.md', () => {
  const program = at('worked.bin');
  beforeAll(() => {
    const image = new ProgramImage([
      segment(0x100, [C_ADD, BEQ_200, ADD, BNE_300, C_ADD, ADD, C_NOP]),
      segment(0x200, [C_ADD, C_JR_A2]),
      segment(0x300, [ADD, JR_A3]),
    ]);
    const records: RetirementRecord[] = PASSES.map(([a, wide, itype], i) => ({ ...emptyRecord(), iaddr: BigInt(a), iretire: wide ? 2 : 1, ilastsize: wide ? 1 : 0, itype, time: BigInt(i) }));
    writeFileSync(program, serializeStream({ xlen: 32, retiresPerCycle: 1, image, records }, 'bin'));
  });

  it('BTM: counts by TCODE as read by hand, 8 bits per instruction, and the three passes decoded', () => {
    // 24 05 00 0b | 0c 0f | 10 21 03 | 0c 1f | 10 41 03 | 84 00 2f: a message ends at each byte with
    // MSEO 11 (0b, 0f, 03, 1f, 03, 2f); its TCODE is its first byte >> 2: 0x24 -> 9, 0x0c -> 3,
    // 0x10 -> 4, 0x84 -> 33. 17 bytes; 17 instructions retired.
    const file = at('worked-btm.nt');
    writeFileSync(file, hexBytes('24 05 00 0b 0c 0f 10 21 03 0c 1f 10 41 03 84 00 2f'));
    const r = rvtrace('dump', '--component', COMPONENT, '--in', file, '--stats', '--image', program);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, -1).map((l) => l.split(/\s+/).join(' '))).toEqual([
      'TCODE messages bytes share',
      'DirectBranch(3) 2 4 23.5 %',
      'IndirectBranch(4) 2 6 35.3 %',
      'ProgTraceSync(9) 1 4 23.5 %',
      'ProgTraceCorrelation(33) 1 3 17.6 %',
      'total 6 17 100.0 %',
    ]);
    expect(lines.at(-1)).toBe(`bits/instruction 8.000 (17 bytes for 17 retired instructions of ${program})`);
    const pcs = at('worked-btm.pcs');
    const dec = rvtrace('decode', '--component', COMPONENT, '--in', file, '--image', program, '--out', pcs, '--check');
    expect(dec.status, dec.stderr).toBe(0);
    expect(dec.stdout.trim()).toBe('recovered 17 of 17 retired instructions (100.0 %) in 1 runs, 0 trace losses; every decoded address at its place');
    const decoded = readFileSync(pcs, 'utf8').trim().split('\n');
    expect(decoded.slice(0, -1)).toEqual(PASSES.map(([a]) => a.toString(16)));
    expect(decoded.at(-1)).toMatch(/^# gap: trace-off \(byte offset 14\): ProgTraceCorrelation EVCODE 0 /);
  });

  it('HTM with two idle bytes: counts by TCODE and the idle bytes in the shares', () => {
    // 24 05 00 0b | ff | 70 51 01 0f | 70 b1 01 17 | ff | 84 40 2d 13: TCODEs 9, 28 (0x70 >> 2),
    // 28, 33; 4 bytes each; 2 idle bytes; 18 bytes in all: shares 4/18, 8/18, 4/18, 2/18.
    const file = at('worked-htm.nt');
    writeFileSync(file, hexBytes('24 05 00 0b ff 70 51 01 0f 70 b1 01 17 ff 84 40 2d 13'));
    // HTM messages carry HIST: the largest takes 17 bytes, more than this component's 16-byte FIFO.
    const htm = ['--set', 'ntrace_mode=htm', '--set', 'fifo_bytes=32'];
    const r = rvtrace('dump', '--component', COMPONENT, ...htm, '--in', file, '--stats');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ProgTraceSync\(9\)\s+1\s+4\s+22\.2 %$/m);
    expect(r.stdout).toMatch(/^IndirectBranchHist\(28\)\s+2\s+8\s+44\.4 %$/m);
    expect(r.stdout).toMatch(/^ProgTraceCorrelation\(33\)\s+1\s+4\s+22\.2 %$/m);
    expect(r.stdout).toMatch(/^idle\s+2\s+11\.1 %$/m);
    expect(r.stdout).toMatch(/^total\s+4\s+18\s+100\.0 %$/m);
    const dec = rvtrace('decode', '--component', COMPONENT, ...htm, '--in', file, '--image', program, '--out', at('worked-htm.pcs'), '--check');
    expect(dec.status, dec.stderr).toBe(0);
    expect(dec.stdout).toContain('recovered 17 of 17 retired instructions (100.0 %)');
  });
});

describe('dump --stats of an E-Trace stream', () => {
  it('counts per format and subformat the packets the dump shows, and every byte of the stream', () => {
    const s = at('e.bin');
    const te = at('e.te');
    expect(rvtrace('stimulus', '--seed', '12', '--count', '5000', '--out', s).status).toBe(0);
    const enc = rvtrace('encode', '--component', 'etrace', '--in', s, '--out', te);
    expect(enc.status, enc.stderr).toBe(0);
    const e = encodeSummary(enc.stderr);
    const dumped = new Map<string, number>();
    for (const l of rvtrace('dump', '--component', 'etrace', '--in', te).stdout.trim().split('\n')) {
      const kind = /^[0-9a-f]{6} {2}(\S+ \S+) {2}/.exec(l)![1]!;
      dumped.set(kind, (dumped.get(kind) ?? 0) + 1);
    }
    const stats = rvtrace('dump', '--component', 'etrace', '--in', te, '--stats');
    expect(stats.status, stats.stderr).toBe(0);
    const rows = stats.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^format\s+packets\s+bytes\s+share$/);
    for (const [kind, n] of dumped) expect(stats.stdout, kind).toMatch(new RegExp(`^${kind}\\s+${n}\\s+\\d+\\s+[\\d.]+ %$`, 'm'));
    expect(rows).toHaveLength(dumped.size + 2);
    expect(rows.at(-1)).toMatch(new RegExp(`^total\\s+${e.count}\\s+${e.bytes}\\s+100\\.0 %$`));
    expect(e.bytes).toBe(statSync(te).size);
  });
});
