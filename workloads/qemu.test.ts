/**
 * Running QEMU on the fixture programs of golden-model/hart/test-fixtures/qemu (built at test
 * time; skipped when riscv64-unknown-elf-gcc or qemu-system-riscv32/64 are missing).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RvError } from '../golden-model/common/errors.ts';
import { parseElf } from '../golden-model/hart/elf.ts';
import { convertQemuLog, convertQemuLogText } from '../golden-model/hart/formats/qemu-log.ts';
import { buildFixture, FIXTURE_DIR, normalizeLog, toolsAvailable } from '../golden-model/hart/test-fixtures/qemu/build.ts';
import { logPieces, qemuArgs, readLineBatches, runQemu } from './qemu.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-qemu-test-'));
const tools = toolsAvailable();

async function collect(lines: AsyncIterable<string[]>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of lines) out.push(...batch);
  return out;
}

describe('QEMU command line', () => {
  it('runs virt without firmware, one instruction per block, logging exec and int, deterministic time', () => {
    expect(qemuArgs('p.elf', 'q.log').join(' ')).toBe(
      '-machine virt -bios none -kernel p.elf -nographic -no-reboot -singlestep -d exec,int,nochain -D q.log -icount shift=0,sleep=off',
    );
    expect(qemuArgs('p.elf', 'q.log', false)).not.toContain('-icount');
  });

  it('reads a log in batches of lines: CRLF removed, a cut-off last line dropped on request', async () => {
    const f = join(dir, 'lines.txt');
    writeFileSync(f, 'a\r\nb\n\nc'.repeat(1) + 'x'.repeat(3 << 20) + '\nlast');
    const all = await collect(readLineBatches(f));
    expect(all.slice(0, 3)).toEqual(['a', 'b', '']);
    expect(all.length).toBe(5);
    expect(all[3]!.length).toBe(1 + (3 << 20));
    expect(all[4]).toBe('last');
    expect((await collect(readLineBatches(f, { dropPartialLastLine: true }))).length).toBe(4);
  });

  it('reads a log in pieces of its text that end at line ends, a cut-off last line dropped on request', () => {
    const f = join(dir, 'pieces.txt');
    const text = 'a\r\nb\n\n' + 'x'.repeat(3 << 16) + '\n' + 'y\n'.repeat(40000) + 'last';
    writeFileSync(f, text);
    const pieces = [...logPieces(f, false)];
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.slice(0, -1).every((p) => p.endsWith('\n'))).toBe(true);
    expect(pieces.join('')).toBe(text);
    expect([...logPieces(f, true)].join('')).toBe(text.slice(0, -'last'.length));
    // Bytes that are not UTF-8 (in a symbol name) are read as Latin-1, not refused.
    writeFileSync(f, Buffer.from([...Buffer.from('Trace 0: x [0/1/2/3] f'), 0xff, 0xfe, 0x0a]));
    expect([...logPieces(f, false)]).toEqual(['Trace 0: x [0/1/2/3] f\xff\xfe\n']);
  });

  it('reports a missing QEMU binary', async () => {
    let error: unknown;
    try {
      await runQemu({ elf: 'x.elf', xlen: 64, qemu: 'qemu-system-riscv-not-installed' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RvError);
    expect((error as RvError).code).toBe('tool-failure');
    expect((error as RvError).message).toBe('qemu-system-riscv-not-installed not found: install QEMU 7.2 (Debian: apt-get install qemu-system-misc)');
  });
});

describe.skipIf(!tools)('QEMU runs (needs riscv64-unknown-elf-gcc and qemu-system-riscv32/64)', () => {
  it.each(['rv64', 'rv32'] as const)('%s: passes, and the rebuilt ELF and the fresh log equal the checked-in fixtures', async (name) => {
    const elf = buildFixture(name, dir);
    // The same program (the files differ in the source path the symbol table records).
    const loaded = (f: string) => {
      const p = parseElf(readFileSync(f), f);
      return { entry: p.entry, segments: p.image.segments, symbols: p.symbols };
    };
    expect(loaded(elf)).toEqual(loaded(join(FIXTURE_DIR, `${name}.elf`)));
    const run = await runQemu({ elf, xlen: name === 'rv64' ? 64 : 32 });
    try {
      expect(run.exit).toEqual({ kind: 'pass' });
      expect(run.console).toBe('');
      const lines = await collect(run.lines());
      expect(normalizeLog(lines.join('\n') + '\n')).toBe(normalizeLog(readFileSync(join(FIXTURE_DIR, `${name}-qemu.txt`), 'utf8')));
    } finally {
      run.cleanup();
    }
  });

  it('reports the failure code a program writes to the test device', async () => {
    const elf = buildFixture('rv64', dir, 'exit-fail.S', 'exit-fail.elf');
    const run = await runQemu({ elf, xlen: 64 });
    run.cleanup();
    expect(run.exit).toEqual({ kind: 'fail', code: 3 });
  });

  it('stops a program that does not end at the timeout, keeping its log', async () => {
    const elf = buildFixture('rv64', dir, 'spin.S', 'spin.elf');
    const run = await runQemu({ elf, xlen: 64, timeoutSeconds: 1 });
    try {
      expect(run.exit).toEqual({ kind: 'timeout', seconds: 1 });
      expect(run.seconds).toBeGreaterThanOrEqual(1);
      const lines = await collect(run.lines());
      expect(lines.length).toBeGreaterThan(1000);
      expect(lines.every((l) => l.startsWith('Trace 0: ') || l.startsWith('cpu_io_recompile') || l.startsWith('Stopped'))).toBe(true);
    } finally {
      run.cleanup();
    }
  });

  it('stops QEMU once the log holds --max-instructions, and the conversion truncates there', async () => {
    const elf = buildFixture('rv64', dir, 'spin.S', 'spin.elf');
    const run = await runQemu({ elf, xlen: 64, maxInstructions: 20_000, timeoutSeconds: 30 });
    try {
      expect(run.exit).toEqual({ kind: 'stopped' });
      const program = parseElf(readFileSync(elf), elf);
      // As trace-elf reads it: pieces of the log's text, a cut-off last line dropped.
      const { stats } = convertQemuLogText(run.pieces(), { image: program.image, xlen: 64, entry: program.entry, fileName: run.logPath, maxInstructions: 20_000 });
      expect(stats).toMatchObject({ instructions: 20_000, truncated: true });
      const byLine = await convertQemuLog(run.lines(), { image: program.image, xlen: 64, entry: program.entry, fileName: run.logPath, maxInstructions: 20_000 });
      expect(byLine.stats).toEqual(stats);
    } finally {
      run.cleanup();
    }
  });
});
