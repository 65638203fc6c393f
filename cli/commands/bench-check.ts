/**
 * The memory bench of `rvtrace check` (issue 24: a multi-GB VCD is read in bounded memory): VCDs of
 * an E-Trace run of growing size (tb/etrace/check-vcd.ts), each checked by `rvtrace check` in a
 * process of its own whose peak resident memory scripts/peak-rss.cjs prints.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveComponent } from '../../blocks/index.ts';
import type { ResolvedComponent } from '../../core/block.ts';
import { ROOT } from '../../generator/render.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { writeCheckVcd } from '../../tb/etrace/check-vcd.ts';

export interface CheckMemory {
  /** The VCD's size in MB. */
  readonly megabytes: number;
  readonly cycles: number;
  /** Peak resident memory of the check, MiB. */
  readonly peak: number;
  readonly seconds: number;
}

/** `rvtrace check --component etrace` of a VCD of about each size (MB); the VCD is removed after. */
export async function checkPeakMemory(sizes: readonly number[], progress: (what: string) => void): Promise<CheckMemory[]> {
  const r = resolveComponent('etrace', [], { command: 'bench' }) as ResolvedComponent<EtraceConfig>;
  const out: CheckMemory[] = [];
  for (const mb of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-bench-check-'));
    try {
      progress(`rvtrace check peak memory: writing a VCD of about ${mb} MB`);
      const w = await writeCheckVcd(r, dir, mb);
      progress(`rvtrace check peak memory: checking ${(w.bytes / 1e6).toFixed(0)} MB`);
      const started = performance.now();
      const args = ['--require', join(ROOT, 'scripts', 'peak-rss.cjs'), join(ROOT, 'bin', 'rvtrace.js'), 'check', '--component', 'etrace', '--vcd', w.vcd, '--map', w.map];
      const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
      const m = /peak resident memory (\d+) MiB/.exec(run.stderr);
      if (run.status !== 0 || m === null) throw new RvError('tool-failure', `bench: rvtrace check of a ${mb} MB VCD failed (status ${run.status}): ${`${run.stdout}${run.stderr}`.trim().slice(-500)}`);
      out.push({ megabytes: w.bytes / 1e6, cycles: w.cycles, peak: Number(m[1]), seconds: (performance.now() - started) / 1000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
