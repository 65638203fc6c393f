// Workload suite: every program builds for both arches and passes its self-check under QEMU; the
// failure exit path, build errors, caching and determinism of the builds, the self-check constants
// against the independent TypeScript reference, and the exec-log counter.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RvError } from '../golden-model/common/errors.ts';
import {
  buildProgram,
  buildWorkload,
  qemuCommand,
  runWorkload,
  WORKLOAD_ARCHES,
  WORKLOADS,
  WORKLOADS_DIR,
  type WorkloadArch,
} from './build.ts';
import { ExecLogCounter } from './measure.ts';
import { definedConstants, EXPECTED } from './reference.ts';

const QEMU_TIMEOUT_MS = 60_000;
const scratch = mkdtempSync(join(tmpdir(), 'rvtrace-workloads-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** ELF class (32/64) and e_flags of an ELF file. */
function elfHeader(path: string): { bits: number; flags: number; machine: number } {
  const b = readFileSync(path);
  const bits = b[4] === 2 ? 64 : 32;
  return { bits, machine: b.readUInt16LE(18), flags: b.readUInt32LE(bits === 64 ? 48 : 36) };
}

describe('workload programs', () => {
  it('WORKLOADS lists exactly the programs in programs/', () => {
    const files = readdirSync(join(WORKLOADS_DIR, 'programs'))
      .filter((f) => f.endsWith('.c'))
      .map((f) => f.slice(0, -2))
      .sort();
    expect(WORKLOADS.map((w) => w.name).sort()).toEqual(files);
    expect(WORKLOADS.length).toBeGreaterThanOrEqual(8);
    for (const w of WORKLOADS) {
      expect(w.description.length).toBeGreaterThan(0);
      expect(w.character.length).toBeGreaterThan(0);
    }
  });

  it.each(WORKLOADS.map((w) => w.name))('%s: the EXPECT_* constants equal the TypeScript reference', (name) => {
    const defined = definedConstants(readFileSync(join(WORKLOADS_DIR, 'programs', `${name}.c`), 'utf8'));
    expect(defined).toEqual(EXPECTED[name]!());
  });

  const cases = WORKLOAD_ARCHES.flatMap((arch) => WORKLOADS.map((w) => [w.name, arch] as [string, WorkloadArch]));
  it.each(cases)('%s (%s) builds and passes its self-check in QEMU', async (name, arch) => {
    const elf = buildWorkload(name, arch);
    const h = elfHeader(elf);
    expect(h.machine).toBe(243); // EM_RISCV
    expect(h.bits).toBe(arch === 'rv64gc' ? 64 : 32);
    expect(h.flags & 0x1).toBe(1); // EF_RISCV_RVC
    expect(h.flags & 0x6).toBe(arch === 'rv64gc' ? 0x4 : 0x0); // float ABI: double / soft
    const r = await runWorkload(arch, elf, { timeoutMs: QEMU_TIMEOUT_MS });
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toMatch(/\[rt\] pass status=0 minstret=\d+/);
    expect(r.status).toBe(0);
  });
});

describe('runtime and build', () => {
  it.each(WORKLOAD_ARCHES)('a failing self-check exits QEMU with its status (%s)', async (arch) => {
    const elf = buildProgram({ name: 'exit3', sources: ['test-fixtures/exit3.c'] }, arch, scratch);
    const r = await runWorkload(arch, elf, { timeoutMs: QEMU_TIMEOUT_MS });
    expect(r.stdout).toContain('[rt] FAIL status=3');
    expect(r.status).toBe(3);
  });

  it.each(WORKLOAD_ARCHES)('the hart has exactly its extensions; unexpected traps fail the run (%s)', async (arch) => {
    const elf = buildProgram({ name: 'amo', sources: ['test-fixtures/amo.c'] }, arch, scratch);
    const r = await runWorkload(arch, elf, { timeoutMs: QEMU_TIMEOUT_MS });
    if (arch === 'rv64gc') {
      expect(r.status).toBe(0);
    } else {
      expect(r.stdout).toContain('[rt] unexpected trap mcause=0x0000000000000002'); // illegal instruction
      expect(r.status).toBe(0x7e);
    }
  });

  it('a compile error throws with the compiler stderr', () => {
    let err: unknown;
    try {
      buildProgram({ name: 'bad-syntax', sources: ['test-fixtures/bad-syntax.c'] }, 'rv32imc', scratch);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RvError);
    expect((err as RvError).code).toBe('tool-failure');
    expect((err as RvError).message).toMatch(/missing_identifier.*undeclared/);
  });

  it('unknown names are rejected', () => {
    expect(() => buildWorkload('no-such-workload', 'rv64gc', scratch)).toThrow(/unknown workload 'no-such-workload'/);
  });

  it('builds are cached by content and byte-identical from build to build', () => {
    const first = buildWorkload('crc', 'rv64gc');
    const mtime = statSync(first).mtimeMs;
    expect(buildWorkload('crc', 'rv64gc')).toBe(first);
    expect(statSync(first).mtimeMs).toBe(mtime); // reused, not rebuilt
    const fresh = buildWorkload('crc', 'rv64gc', join(scratch, 'fresh'));
    expect(fresh).not.toBe(first);
    expect(readFileSync(fresh).equals(readFileSync(first))).toBe(true);
  });

  it('qemuCommand runs the virt machine without firmware, with a deterministic clock', () => {
    const c64 = qemuCommand('rv64gc', '/x.elf');
    expect(c64.binary).toBe('qemu-system-riscv64');
    expect(c64.args).toEqual(expect.arrayContaining(['-bios', 'none', '-kernel', '/x.elf', '-icount', 'shift=0,sleep=off', '-nographic']));
    const c32 = qemuCommand('rv32imc', '/x.elf');
    expect(c32.binary).toBe('qemu-system-riscv32');
    expect(c32.args[c32.args.indexOf('-cpu') + 1]).toBe('rv32,a=false,f=false,d=false');
  });
});

describe('exec-log counting', () => {
  it('drops the logged-but-not-executed lines (I/O rewind, stopped chain) and counts traps', () => {
    const counter = new ExecLogCounter();
    for (const line of readFileSync(join(WORKLOADS_DIR, 'test-fixtures', 'exec-log-sample.txt'), 'utf8').split('\n')) counter.push(line);
    const r = counter.result();
    expect({ executed: r.executed, notExecuted: r.notExecuted, exceptions: r.exceptions, interrupts: r.interrupts }).toEqual({
      executed: 12,
      notExecuted: 2,
      exceptions: 1,
      interrupts: 1,
    });
  });

  it('rejects a rewind that does not follow its Trace line', () => {
    const counter = new ExecLogCounter();
    counter.push('Trace 0: 0x7f00 [0000000000000000/0000000080000000/00000000/ff020201] _start');
    expect(() => counter.push('cpu_io_recompile: rewound execution of TB to 0000000080000004')).toThrow(/does not follow/);
  });
});
