/**
 * trace-elf: the round trip (encode, decode with the ELF image, compare with what QEMU retired) on
 * the captured logs of the fixture programs for every optional mode, and the command end to end
 * (QEMU runs; skipped when riscv64-unknown-elf-gcc or qemu-system-riscv32/64 are missing).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RvError } from '../../golden-model/common/errors.ts';
import { parseElf } from '../../golden-model/hart/elf.ts';
import { parseStream } from '../../golden-model/hart/formats/detect.ts';
import { convertQemuLog } from '../../golden-model/hart/formats/qemu-log.ts';
import { ProgramImage } from '../../golden-model/hart/image.ts';
import { jal, nop } from '../../golden-model/hart/isa/encode.ts';
import { buildFixture, FIXTURE_DIR, normalizeLog, toolsAvailable } from '../../golden-model/hart/test-fixtures/qemu/build.ts';
import { qemuRetiredAddresses, roundTrip, roundTripConfig } from '../../workloads/trace.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-trace-elf-'));

const logLines = (name: string): string[] => {
  const lines = readFileSync(join(FIXTURE_DIR, name), 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

async function fixture(name: 'rv64' | 'rv32') {
  const elf = parseElf(readFileSync(join(FIXTURE_DIR, `${name}.elf`)), `${name}.elf`);
  const { stream, stats } = await convertQemuLog(logLines(`${name}-qemu.txt`), { image: elf.image, xlen: elf.xlen, entry: elf.entry, fileName: `${name}-qemu.txt` });
  const expected = await qemuRetiredAddresses(logLines(`${name}-qemu.txt`), elf.image, elf.entry);
  return { elf, stream, stats, expected };
}

const ALL_MODES = [
  'return_stack_size_p=3',
  'bpred_size_p=5',
  'cache_size_p=3',
  'f0s_width_p=1',
  'sijump_p=1',
  'ImplicitReturn=1',
  'BranchPrediction=1',
  'JumpTargetCache=1',
  'siJump=1',
];
const CONFIGS: [string, string[]][] = [
  ['baseline 1.1.1', []],
  ['baseline 2.0', ['payload_layout=2.0']],
  ['implicit return with a return stack', ['return_stack_size_p=3', 'ImplicitReturn=1']],
  ['implicit return with a call counter', ['call_counter_size_p=3', 'ImplicitReturn=1']],
  ['branch prediction', ['bpred_size_p=4', 'BranchPrediction=1']],
  ['jump target cache', ['cache_size_p=3', 'JumpTargetCache=1']],
  ['sijump', ['sijump_p=1', 'siJump=1']],
  ['implicit exception', ['ImplicitExcept=1']],
  ['full address', ['FullAddress=1']],
  ['3-bit itype', ['itype_width_p=3']],
  ['all modes 1.1.1', ALL_MODES],
  ['all modes 2.0', [...ALL_MODES, 'payload_layout=2.0']],
  ['all modes 2.0, half-word resync', [...ALL_MODES, 'payload_layout=2.0', 'ResyncMode=3', 'ResyncMax=0']],
];

describe('round trip on the captured QEMU logs', () => {
  it.each(['rv64', 'rv32'] as const)('%s: the log scan and the imported stream agree on what retired', async (name) => {
    const { stream, stats, expected } = await fixture(name);
    expect(expected.length).toBe(stats.instructions);
    expect(expected).toEqual(stream.records.filter((r) => r.iretire > 0).map((r) => r.iaddr));
  });

  describe.each(['rv64', 'rv32'] as const)('%s', (name) => {
    it.each(CONFIGS)('%s: decoding the packets with the ELF image gives the addresses QEMU retired', async (_, sets) => {
      const { stream, expected } = await fixture(name);
      const r = roundTrip(stream, sets, expected);
      expect(r.error).toBeUndefined();
      expect(r.firstMismatch).toBeUndefined();
      expect(r).toMatchObject({ ok: true, instructions: expected.length, decoded: expected.length });
      expect(r.bytes).toBeGreaterThan(0);
    });
  });

  it('reports the first difference, and what an inferable jump to itself loses (j . waiting for an interrupt)', async () => {
    const { stream, expected } = await fixture('rv64');
    const wrong = [...expected];
    wrong[100] = 0x1234n;
    expect(roundTrip(stream, [], wrong)).toMatchObject({ ok: false, firstMismatch: { index: 100, expected: 0x1234n, decoded: expected[100] } });
    expect(roundTrip(stream, [], expected.slice(0, -1))).toMatchObject({ ok: false, firstMismatch: { index: expected.length - 1, expected: undefined } });

    // 0 nop; 4 j . (three times, the fourth entry stopped by the interrupt); 8 the handler's nop.
    const base = 0x8000_0000n;
    const words = [nop(), jal(0, 0), nop()];
    const image = new ProgramImage([{ base, bytes: Uint8Array.from(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24])) }]);
    const T = (pc: bigint) => `Trace 0: 0x7f0000000100 [0000000000000000/${pc.toString(16).padStart(16, '0')}/00209003/ff020201] `;
    const log = [T(base), T(base + 4n), T(base + 4n), T(base + 4n), T(base + 4n), `Stopped execution of TB chain before 0x7f0000000100 [${(base + 4n).toString(16).padStart(16, '0')}] `,
      `riscv_cpu_do_interrupt: hart:0, async:1, cause:0000000000000007, epc:0x${(base + 4n).toString(16).padStart(16, '0')}, tval:0x0000000000000000, desc=m_timer`, T(base + 8n)];
    const { stream: idle } = await convertQemuLog(log, { image, xlen: 64, entry: base, fileName: 'idle.log' });
    const want = await qemuRetiredAddresses(log, image, base);
    expect(want).toEqual([base, base + 4n, base + 4n, base + 4n, base + 8n]);
    expect(roundTrip(idle, [], want)).toMatchObject({ ok: false, decoded: 3, firstMismatch: { index: 2, expected: base + 4n, decoded: base + 8n } });
  });

  it('rejects E-Trace settings that cannot work for the program', () => {
    const image = new ProgramImage([{ base: 0x8000_0000n, bytes: new Uint8Array(16) }]);
    const bad = (sets: string[]): RvError => {
      try {
        roundTripConfig(64, sets, image);
      } catch (e) {
        return e as RvError;
      }
      throw new Error('no error');
    };
    expect(bad(['ImplicitReturn=1']).message).toBe('the E-Trace settings for --check are not valid:\n  options/ImplicitReturn: ImplicitReturn needs call_counter_size_p or return_stack_size_p');
    expect(bad(['iaddress_width_p=16']).message).toBe("iaddress_width_p 16 cannot carry the program's addresses (up to 0x8000000f)");
    expect(bad(['bogus=1']).code).toBe('bad-option');
    expect(roundTripConfig(32, [], image).params.iaddress_width_p).toBe(32);
  });
});

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('rvtrace trace-elf: option errors (before QEMU runs)', () => {
  const elf = join(FIXTURE_DIR, 'rv64.elf');
  it.each([
    ['a non-ELF file', [join(FIXTURE_DIR, 'README.md'), '--out', join(dir, 'x.bin')], `rvtrace: ${join(FIXTURE_DIR, 'README.md')} (byte offset 0): not an ELF file: it starts with 0x23 0x20 0x51 0x45, expected 0x7f 'E' 'L' 'F'`],
    ['a missing file', [join(dir, 'nope.elf'), '--out', join(dir, 'x.bin')], `rvtrace: ${join(dir, 'nope.elf')}: cannot read: no such file`],
    ['a zero timeout', [elf, '--out', join(dir, 'x.bin'), '--timeout', '0'], 'rvtrace: --timeout 0: expected a positive number'],
    ['a fractional instruction limit', [elf, '--out', join(dir, 'x.bin'), '--max-instructions', '1.5'], 'rvtrace: --max-instructions 1.5: expected a positive integer'],
    ['an unknown setting', [elf, '--out', join(dir, 'x.bin'), '--check', '--set', 'bogus=1'], "rvtrace: --set bogus: 'trace-elf' has no setting of that name"],
    ['a workload for an unknown arch', ['sort', '--arch', 'rv16', '--out', join(dir, 'x.bin')], 'rvtrace: --arch rv16: expected one of rv64gc, rv32imc'],
  ])('%s: status 2, one line, nothing written', (_, args, message) => {
    const r = rvtrace('trace-elf', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(message);
    expect(existsSync(join(dir, 'x.bin'))).toBe(false);
  });
});

describe.skipIf(!toolsAvailable())('rvtrace trace-elf runs QEMU (needs riscv64-unknown-elf-gcc and qemu-system-riscv32/64)', () => {
  it('writes the stream, keeps the log, and passes --check (rv64, all modes)', async () => {
    const elf = buildFixture('rv64', dir);
    const out = join(dir, 'rv64.bin');
    const kept = join(dir, 'logs', 'rv64.log');
    const r = rvtrace('trace-elf', elf, '--out', out, '--keep-log', kept, '--check', ...ALL_MODES.flatMap((s) => ['--set', s]));
    expect(r.stderr).toMatch(/^wrote .*rv64\.bin: 505 instructions, 5 exceptions, 3 interrupts; QEMU \d+\.\d\d s, conversion \d+\.\d\d s\n$/);
    expect(r.stdout).toMatch(/^check: encoding and decoding with the ELF image reproduces QEMU's 505 retired instructions \(\d+ packets, \d+ bytes, [\d.]+ bits\/instruction\)\n$/);
    expect(r.status).toBe(0);
    expect(normalizeLog(readFileSync(kept, 'utf8'))).toBe(normalizeLog(readFileSync(join(FIXTURE_DIR, 'rv64-qemu.txt'), 'utf8')));
    // The file holds what the import of the captured log gives, with the ELF image.
    const written = parseStream(readFileSync(out), out, {});
    const { stream } = await fixture('rv64');
    expect(written.records).toEqual(stream.records);
    expect(written.image.fetch(0x8000_0000n)).toEqual(stream.image.fetch(0x8000_0000n));
    expect(rvtrace('info', out, '--check').stdout).toContain('check: every record follows from the previous one and the image');
  });

  it('takes a workload by name: builds it for --arch, then traces it', () => {
    const out = join(dir, 'parser-rv32.bin');
    const r = rvtrace('trace-elf', 'parser', '--arch', 'rv32imc', '--out', out, '--check');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^wrote .*parser-rv32\.bin: \d{6} instructions, 0 exceptions, 0 interrupts;/);
    expect(parseStream(readFileSync(out), out, {}).xlen).toBe(32);
  });

  it('writes the text format for .txt, and truncates at --max-instructions (rv32)', () => {
    const elf = buildFixture('rv32', dir);
    const out = join(dir, 'rv32.txt');
    const r = rvtrace('trace-elf', elf, '--out', out, '--max-instructions', '100', '--check');
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/: 100 instructions, \d+ exceptions, \d+ interrupts \(stopped at --max-instructions 100\); QEMU/);
    expect(r.stdout).toContain("reproduces QEMU's 100 retired instructions");
    expect(readFileSync(out, 'utf8').split('\n')[0]).toMatch(/^# rvtrace/);
  });

  it('exits 1 when --check finds a difference (a j . idle loop), naming the instruction', () => {
    const elf = buildFixture('rv64', dir, 'idle-jump.S', 'idle-jump.elf');
    const r = rvtrace('trace-elf', elf, '--out', join(dir, 'idle.bin'), '--check');
    expect(r.stdout).toMatch(/^check: FAILED at instruction 13 of \d+: QEMU retired 0x8000002c <idle>, the decoder gave 0x80000030 <handler> \(17 decoded in all\)\n$/);
    expect(r.status).toBe(1);
  });

  it('exits 3 with nothing written when the program fails or does not end (keeping the log on request)', () => {
    const failing = buildFixture('rv64', dir, 'exit-fail.S', 'exit-fail.elf');
    const out = join(dir, 'never.bin');
    let r = rvtrace('trace-elf', failing, '--out', out);
    expect(r.status).toBe(3);
    expect(r.stderr).toBe(`rvtrace: ${failing}: the program reported failure code 3 through the test device (QEMU exit status 3); nothing written\n`);
    const spin = buildFixture('rv64', dir, 'spin.S', 'spin.elf');
    const kept = join(dir, 'spin.log');
    r = rvtrace('trace-elf', spin, '--out', out, '--timeout', '1', '--keep-log', kept);
    expect(r.status).toBe(3);
    expect(r.stderr).toBe(
      `rvtrace: ${spin}: QEMU did not finish within 1 s: the program never wrote the SiFive test device at 0x100000 (0x5555 to pass, (code << 16) | 0x3333 to fail); raise --timeout or check that the program ends\n`,
    );
    expect(existsSync(out)).toBe(false);
    expect(readFileSync(kept, 'utf8').startsWith('Trace 0: ')).toBe(true);
  });
});
