/**
 * Builds the fixture programs of this folder at test time (tests that run QEMU); see README.md.
 * Test support only: the golden model never imports it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURE_DIR = fileURLToPath(new URL('.', import.meta.url));
export const GCC = 'riscv64-unknown-elf-gcc';

export const FIXTURES = {
  rv64: { xlen: 64, flags: ['-march=rv64gc_zicsr', '-mabi=lp64d'] },
  rv32: { xlen: 32, flags: ['-march=rv32imc_zicsr', '-mabi=ilp32'] },
} as const;
export type FixtureName = keyof typeof FIXTURES;

function has(command: string): boolean {
  return spawnSync(command, ['--version'], { encoding: 'utf8' }).status === 0;
}

/** The cross compiler and both QEMU binaries are installed. */
export function toolsAvailable(): boolean {
  return has(GCC) && has('qemu-system-riscv64') && has('qemu-system-riscv32');
}

/** Assembles and links `<name>.S` (or another source of this folder) into `outDir/<out>`; returns its path. */
export function buildFixture(name: FixtureName, outDir: string, source = `${name}.S`, out = `${name}.elf`): string {
  const elf = join(outDir, out);
  const r = spawnSync(GCC, ['-nostdlib', ...FIXTURES[name].flags, '-T', join(FIXTURE_DIR, 'link.ld'), join(FIXTURE_DIR, source), '-o', elf], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${GCC} failed for ${source}: ${r.stderr}`);
  return elf;
}

/** A log with the host addresses of translated blocks blanked (they change from run to run). */
export function normalizeLog(text: string): string {
  return text.replace(/^(Trace \d+: )0x[0-9a-f]+ /gm, '$1HOST ').replace(/^(Stopped execution of TB chain before )0x[0-9a-f]+ /gm, '$1HOST ');
}
