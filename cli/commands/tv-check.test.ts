/**
 * The commands end to end: `trace-elf --tv` (records, bytes, --check) and `tv-check` (a match, a
 * divergence for each kind of corruption, bad input on one line, --expected, --absent, --prefix,
 * --max-instructions, a workload by name), and an interrupted run leaving no QEMU behind. On the QEMU
 * fixture programs (golden-model/hart/test-fixtures/qemu/, workloads/tv/test-fixtures/); skipped
 * without the cross compiler or QEMU.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture, FIXTURE_DIR } from '../../golden-model/hart/test-fixtures/qemu/build.ts';
import { parseTv } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { buildTvFixture, toolsAvailable } from '../../workloads/tv/test-fixtures/build.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-tv-check-'));
const RV64 = join(FIXTURE_DIR, 'rv64.elf');
const P64 = { xlen: 64, flen: 64, mlen: 64 } as const;

function rvtrace(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** A bad-input error: one line, `rvtrace: `, no stack trace. */
function oneLine(r: { status: number | null; stderr: string }): string {
  expect(r.status).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^rvtrace: /);
  return lines[0]!;
}
const path = (name: string): string => join(dir, name);

describe.skipIf(!toolsAvailable())('trace-elf --tv and tv-check', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let bytes: Uint8Array;
  let groups: ReturnType<typeof parseTv>['groups'];
  beforeAll(() => {
    const r = rvtrace('trace-elf', RV64, '--tv', '--format', 'bytes', '--out', path('rv64.tv'), '--check');
    expect(r.stderr).toMatch(/^wrote .*rv64\.tv: 510 groups \(493 instructions, 9 xRETs, 5 traps, 3 interrupts; 104 loads, 11 stores, 0 AMOs, 29 CSR, 0 floating point\), \d+ bytes \(xlen=64 flen=64 mlen=64 field_order=bluespec\); QEMU and derivation [\d.]+ s\n$/);
    expect(r.stdout).toMatch(/^check: the tvtrace encoding of the 510 groups \(\d+ bytes, xlen=64 flen=64 mlen=64 field_order=bluespec\) decodes back to QEMU's records\n$/);
    expect(r.status).toBe(0);
    expect(rvtrace('trace-elf', RV64, '--tv', '--out', path('rv64.tvr.txt')).status).toBe(0);
    expect(rvtrace('trace-elf', RV64, '--tv', '--out', path('rv64.tvr')).status).toBe(0);
    bytes = new Uint8Array(readFileSync(path('rv64.tv')));
    groups = parseTv(bytes, P64).groups;
  }, 120_000);

  it('writes the records as text or bin, and the same run checks against either', () => {
    expect(readFileSync(path('rv64.tvr.txt'), 'utf8').split('\n')[0]).toBe('# rvtrace tv records v1');
    expect(readFileSync(path('rv64.tvr')).subarray(0, 8).toString('latin1')).toBe('RVTVRECS');
    for (const expected of ['rv64.tvr.txt', 'rv64.tvr']) {
      const r = rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'), '--expected', path(expected));
      expect(r.stdout).toBe(`tv-check: ${path('rv64.tv')} matches ${path(expected)}: 510 groups\n`);
      expect(r.status).toBe(0);
    }
  });

  it('tv-check runs QEMU itself: the stream matches, in the seed order too', () => {
    const r = rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'));
    expect(r.stdout).toBe(`tv-check: ${path('rv64.tv')} matches QEMU's run of ${RV64}: 510 groups\n`);
    expect(r.status).toBe(0);
    expect(rvtrace('trace-elf', RV64, '--tv', '--format', 'bytes', '--set', 'field_order=seed', '--out', path('seed.tv')).status).toBe(0);
    expect(readFileSync(path('seed.tv')).length).toBeLessThan(bytes.length);
    expect(rvtrace('tv-check', '--elf', RV64, '--in', path('seed.tv'), '--expected', path('rv64.tvr')).status).toBe(0);
  });

  /** Writes a corrupted copy of the stream, checks it against the records: exit 1 and the report. */
  const corrupted = (name: string, change: (b: Uint8Array) => Uint8Array): string => {
    writeFileSync(path(name), change(bytes.slice()));
    const r = rvtrace('tv-check', '--elf', RV64, '--in', path(name), '--expected', path('rv64.tvr'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    return r.stdout;
  };
  const item = (k: number, kind: string, pred: (it: never) => boolean = () => true) => groups[k]!.items.find((it) => it.kind === kind && pred(it as never))!;

  it('a register value changed: the register, expected and actual, the groups before', () => {
    const out = corrupted('reg.tv', (b) => {
      b[item(40, 'fullReg').offset + 3]! ^= 1;
      return b;
    });
    expect(out).toContain(`first divergence at group 40 (${path('reg.tv')} byte offset 0x${groups[40]!.begin!.toString(16)}): pc 0x8000003c: auipc t2, 0x0\n`);
    expect(out).toContain('  t2: expected 0x8000003c, actual 0x8000003d\n');
    expect(out).toContain('  expected (QEMU): instruction next_pc=80000040 instr=00000397 x7=8000003c\n');
    expect(out).toMatch(/ {2}actual \(stream\): 0x[0-9a-f]+ instruction pc=0x80000040 instr=0x00000397 \(32-bit\) t2=0x8000003d\n/);
    expect(out).toContain('preceding groups (matched):\n  group 37: pc 0x80000038: jal ra, 0x800000fa\n');
    expect(out.match(/^ {2}group \d+:/gm)).toHaveLength(3);
  });

  it('a store address changed: eaddr', () => {
    const k = groups.findIndex((g) => g.items.some((it) => it.kind === 'addlState' && it.id === 6));
    const out = corrupted('eaddr.tv', (b) => {
      b[item(k, 'addlState', (it: { id: number }) => it.id === 3).offset + 2]! ^= 0x10;
      return b;
    });
    expect(out).toMatch(new RegExp(`first divergence at group ${k} .*: sw `));
    expect(out).toMatch(/\n {2}eaddr: expected 0x[0-9a-f]+, actual 0x[0-9a-f]+\n {2}expected/);
  });

  it('a trap group removed: a trap was due, an instruction came', () => {
    const out = corrupted('trap.tv', (b) => {
      // The first ecall from U-mode: a group with the instruction 0x73 and mcause.
      const k = groups.findIndex((g) => g.items.some((it) => it.kind === 'instr' && it.value === 0x73) && g.items.some((it) => it.kind === 'fullReg' && it.regno === 0x342));
      const g = groups[k]!;
      const c = new Uint8Array(b.length - (g.end! + 1 - g.begin!));
      c.set(b.subarray(0, g.begin!));
      c.set(b.subarray(g.end! + 1), g.begin!);
      return c;
    });
    expect(out).toContain(': ecall\n  kind: expected trap, actual instruction\n');
    expect(out).toMatch(/\n {2}mcause: expected 0x8, actual not written/);
  });

  it('an instruction word changed: instr', () => {
    const out = corrupted('instr.tv', (b) => {
      b[item(200, 'instr').offset + 1]! ^= 0x80;
      return b;
    });
    expect(out).toMatch(/first divergence at group 200 .*\n {2}instr: expected 0x[0-9a-f]+ \(\d+-bit\), actual 0x[0-9a-f]+ \(\d+-bit\)\n/);
  });

  it('--absent tolerates an element the core never traces; --prefix a run cut short; --max-instructions a part of the run', () => {
    const noPaddr = path('nopaddr.tv');
    expect(rvtrace('trace-elf', RV64, '--tv', '--out', path('nopaddr.txt')).status).toBe(0);
    const text = readFileSync(path('nopaddr.txt'), 'utf8').replace(/ paddr=[0-9a-f]+/g, '');
    writeFileSync(path('nopaddr-records.txt'), text);
    // Encode the records without paddr through trace-elf's encoder: via tv-check's own path, records -> bytes.
    const enc = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
      import('${join(ROOT, 'golden-model/tvtrace/index.ts')}').then((m) => {
        const fs = require('node:fs');
        const recs = m.parseTvRecords(fs.readFileSync('${path('nopaddr-records.txt')}'), 'x');
        fs.writeFileSync('${noPaddr}', m.encodeTvRecords(recs, m.defaultTvtraceConfig()));
      });`], { encoding: 'utf8', cwd: ROOT });
    expect(enc.status, enc.stderr).toBe(0);
    const strict = rvtrace('tv-check', '--elf', RV64, '--in', noPaddr, '--expected', path('rv64.tvr'));
    expect(strict.status).toBe(1);
    expect(strict.stdout).toMatch(/\n {2}paddr: expected 0x[0-9a-f]+, actual not reported\n/);
    expect(rvtrace('tv-check', '--elf', RV64, '--in', noPaddr, '--expected', path('rv64.tvr'), '--absent', 'paddr').status).toBe(0);

    writeFileSync(path('cut.tv'), bytes.subarray(0, 1000));
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('cut.tv'), '--expected', path('rv64.tvr')))).toBe(
      `rvtrace: ${path('cut.tv')} (byte offset 1000): stream ends inside a full register (opcode 4) at byte offset 996: expected 8 bytes of ra data at offset 999, 1 present (the 42 groups before it match)`,
    );
    const prefix = rvtrace('tv-check', '--elf', RV64, '--in', path('cut.tv'), '--expected', path('rv64.tvr'), '--prefix');
    expect(prefix.stdout).toBe(`tv-check: ${path('cut.tv')} matches ${path('rv64.tvr')}: 42 groups (the first 42 of 510: --prefix; the stream ends inside the next group)\n`);
    expect(prefix.status).toBe(0);
    const part = rvtrace('tv-check', '--elf', RV64, '--in', path('reg.tv'), '--max-instructions', '40');
    expect(part.stdout).toBe(`tv-check: ${path('reg.tv')} matches QEMU's run of ${RV64}: 40 groups (--max-instructions 40)\n`);
  });

  it('bad input and options: one line naming the file or option, exit status 2', () => {
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('none.tv')))).toBe(`rvtrace: ${path('none.tv')}: cannot read: no such file`);
    writeFileSync(path('empty.tv'), '');
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('empty.tv')))).toBe(`rvtrace: ${path('empty.tv')}: the stream is empty; expected the tandem-verification bytes of a run`);
    writeFileSync(path('junk.tv'), Uint8Array.of(0x77, 1, 2));
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('junk.tv'), '--expected', path('rv64.tvr')))).toBe(
      `rvtrace: ${path('junk.tv')} (byte offset 0): unknown opcode 0x77 (119): expected an opcode 1..11, 16 or 17 (the 0 groups before it match)`,
    );
    expect(oneLine(rvtrace('tv-check', '--elf', path('junk.tv'), '--in', path('rv64.tv')))).toMatch(/junk\.tv \(byte offset 0\): not an ELF file/);
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'), '--absent', 'eaddr,foo'))).toBe('rvtrace: --absent foo: expected a comma-separated list of eaddr, paddr, store-data');
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'), '--set', 'xlen=32'))).toBe('rvtrace: xlen 32, but the program is RV64 (its ELF class)');
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'), '--set', 'mlen=32'))).toMatch(/^rvtrace: the tvtrace settings are not valid: parameters\/mlen: mlen is 32 but xlen is 64/);
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'), '--component', 'no-such-component'))).toMatch(/--component no-such-component: no shipped component of that name/);
    expect(oneLine(rvtrace('tv-check', '--elf', RV64, '--in', path('rv64.tv'), '--expected', path('rv64.tv')))).toMatch(/rv64\.tv.*unknown record file format/);
    expect(oneLine(rvtrace('trace-elf', RV64, '--tv', '--format', 'hex', '--out', path('x')))).toBe('rvtrace: --format hex: expected one of text, bin, bytes');
    expect(oneLine(rvtrace('trace-elf', RV64, '--format', 'bytes', '--out', path('x')))).toBe('rvtrace: --format bytes: only with --tv');
    expect(oneLine(rvtrace('trace-elf', RV64, '--set', 'field_order=seed', '--out', path('x')))).toBe('rvtrace: --set field_order=seed: a tvtrace setting, only with --tv');
    expect(oneLine(rvtrace('trace-elf', RV64, '--tv', '--set', 'ImplicitReturn=1', '--out', path('x')))).toMatch(/^rvtrace: --set ImplicitReturn=1: an E-Trace setting; with --tv the settings are tvtrace's/);
    expect(existsSync(path('x'))).toBe(false);
  });

  it('a record the stream parameters cannot carry is refused before anything is written', () => {
    const fp = buildTvFixture('tv64', dir);
    const r = rvtrace('trace-elf', fp, '--tv', '--format', 'bytes', '--set', 'flen=0', '--out', path('fp.tv'));
    expect(oneLine(r)).toMatch(/^rvtrace: .*tv64\.elf: the tvtrace encoder refused record \d+: an FPR write \(f\d+\) but flen is 0 \(settings xlen=64 flen=0 mlen=64 field_order=bluespec\)$/);
    expect(existsSync(path('fp.tv'))).toBe(false);
    // With FLEN 64 the same program round-trips, floating point and AMOs included.
    const ok = rvtrace('trace-elf', fp, '--tv', '--format', 'bytes', '--out', path('fp.tv'), '--check');
    expect(ok.stdout).toMatch(/^check: the tvtrace encoding of the 199 groups/);
    expect(ok.status).toBe(0);
  });

  it('a workload by name, on its arch (RV32IMC), checked by tv-check for its first groups', () => {
    const r = rvtrace('trace-elf', 'crc', '--arch', 'rv32imc', '--tv', '--format', 'bytes', '--max-instructions', '20000', '--out', path('crc.tv'), '--check');
    expect(r.stderr).toMatch(/, \d+ bytes \(xlen=32 flen=0 mlen=32 field_order=bluespec\) \(stopped at --max-instructions 20000\);/);
    expect(r.status).toBe(0);
    const c = rvtrace('tv-check', '--elf', 'crc', '--arch', 'rv32imc', '--in', path('crc.tv'), '--max-instructions', '20000');
    expect(c.stdout).toBe(`tv-check: ${path('crc.tv')} matches QEMU's run of crc: 20000 groups (--max-instructions 20000)\n`);
    expect(c.status).toBe(0);
  }, 120_000);

  it('interrupting a run (Ctrl-C to the group; SIGTERM to the tool alone) stops QEMU and removes its temporary folder', async () => {
    const spin = buildFixture('rv64', dir, 'spin.S', 'spin.elf');
    const procs = (): { pid: number; pgrp: number; cmd: string[] }[] =>
      readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .flatMap((p) => {
          try {
            const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
            const pgrp = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
            return cmd.includes(spin) ? [{ pid: Number(p), pgrp, cmd }] : [];
          } catch {
            return [];
          }
        });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (const how of ['group', 'tool'] as const) {
      const child = spawn(process.execPath, [BIN, 'trace-elf', spin, '--tv', '--out', path('spin.tvr'), '--timeout', '60'], { detached: true, stdio: 'ignore' });
      const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let qemu: { pid: number; cmd: string[] } | undefined;
      for (let i = 0; i < 200 && qemu === undefined; i++) {
        await sleep(50);
        qemu = procs().find((p) => p.cmd[0]!.includes('qemu-system'));
      }
      expect(qemu, 'QEMU started').toBeDefined();
      const fifo = qemu!.cmd[qemu!.cmd.indexOf('-D') + 1]!;
      if (how === 'group') {
        process.kill(-child.pid!, 'SIGINT'); // the terminal's Ctrl-C reaches the whole process group
      } else {
        // Only the tool (the node process that runs QEMU): QEMU gets no signal, the tool has to stop it.
        process.kill(child.pid!, 'SIGTERM');
      }
      for (let i = 0; i < 200 && procs().length > 0; i++) await sleep(50);
      expect(procs(), how).toEqual([]);
      expect(existsSync(fifo), how).toBe(false);
      expect(existsSync(path('spin.tvr')), how).toBe(false);
      // The launcher passes the tool's end on (a signal, or status 130 after Ctrl-C).
      expect(await ended).not.toBe(0);
    }
  }, 60_000);
});
