/**
 * The bench's VCD (tb/etrace/check-vcd.ts) passes `rvtrace check`: the bench measures the check's
 * memory on it and fails when the check does. The check's verdict is the independent path: it
 * rebuilds the records from the waveform's hart interface and runs its own model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import type { ResolvedComponent } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { runCheck } from '../check/run.ts';
import { writeCheckVcd } from './check-vcd.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-check-vcd-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the VCD of the check memory bench', () => {
  it('a 1 MB VCD of etrace passes rvtrace check with every byte compared in its cycle', async () => {
    const r = resolveComponent('etrace', [], { command: 'check' }) as ResolvedComponent<EtraceConfig>;
    const w = await writeCheckVcd(r, root, 1);
    expect(w.bytes).toBeGreaterThan(0.5e6);
    const report = await runCheck(r, { vcd: w.vcd, map: w.map });
    expect(report.mismatch ?? '', report.summary).toBe('');
    expect(report.pass).toBe(true);
    // The writer ends with one more rising edge than the cycles it wrote (their last is sampled).
    expect(report.summary).toMatch(new RegExp(`^${w.cycles + 1} cycles, \\d+ records, 0 held, ${w.traceBytes} bytes compared, `));
  }, 120_000);
});
