/**
 * Builds the fixture programs of this folder at test time (test support only). They link with the
 * QEMU fixtures' layout (golden-model/hart/test-fixtures/qemu/link.ld: code at 0x80000000, data in
 * a second segment).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_DIR as QEMU_FIXTURES, GCC, toolsAvailable } from '../../../golden-model/hart/test-fixtures/qemu/build.ts';

export { toolsAvailable };
export const TV_FIXTURE_DIR = fileURLToPath(new URL('.', import.meta.url));

export const TV_FIXTURES = {
  tv64: ['-march=rv64gc_zicsr', '-mabi=lp64d'],
} as const;

/** Assembles and links `<name>.S` into `outDir/<name>.elf`; returns its path. */
export function buildTvFixture(name: keyof typeof TV_FIXTURES, outDir: string): string {
  const elf = join(outDir, `${name}.elf`);
  const r = spawnSync(GCC, ['-nostdlib', ...TV_FIXTURES[name], '-T', join(QEMU_FIXTURES, 'link.ld'), join(TV_FIXTURE_DIR, `${name}.S`), '-o', elf], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${GCC} failed for ${name}.S: ${r.stderr}`);
  return elf;
}
