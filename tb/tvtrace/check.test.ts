/**
 * `rvtrace check` of tandem-verification trace waveforms written by our own Verilator runs of the
 * generated RTL (Icarus 11 does not finish on it: README, rvtrace vectors) through the renaming
 * SoC wrapper (tb/check/testing.ts; the co-simulation wrapper's stall_o is not a port of the
 * block's top and stays out of the map). The golden figures come from the vectors testbench's own
 * PASS/FAIL line: its cycles and beats, and the cycle of the first wrong beat of a mutated RTL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import { runCheck } from '../check/run.ts';
import { mutateTop, type Simulated, simulatedWaveform, type WaveDir, wrapperMap } from '../check/testing.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-tvtrace-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function waveform(name: string, component: string, mutate?: (w: WaveDir) => void): Simulated {
  const g = simulatedWaveform(join(root, name), component, [], 0.3, 'verilator', 300, mutate);
  writeFileSync(g.map, wrapperMap(g.w, (p) => p !== 'stall_o'));
  return g;
}
const check = (component: string, g: Simulated) => runCheck(resolveComponent(component, [], { command: 'check' }), { vcd: g.vcd, map: g.map });
const outBytes = (component: string): number => (resolveComponent(component, [], { command: 'check' }).config as { outBytes: number }).outBytes;

describe('rvtrace check: TV trace waveforms of the generated RTL through a renaming wrapper (Verilator)', () => {
  it.each(['tvtrace-rv32imc', 'tvtrace'])('%s (back-pressure 0.3): PASS, the bytes of every beat compared', async (component) => {
    const g = waveform(component, component);
    const m = g.verdict.match(/^PASS \w+: (\d+) cycles, \d+ frames, \d+ held, (\d+) responses compared$/);
    expect(m, g.verdict).not.toBeNull();
    const r = await check(component, g);
    expect(r.mismatch ?? '', r.summary).toBe('');
    const s = r.summary.match(/^(\d+) cycles, 300 records, (\d+) bytes compared$/);
    expect(s, r.summary).not.toBeNull();
    expect(Number(s![1])).toBe(Number(m![1]));
    // Every beat but the stream's last is full.
    const beats = Number(m![2]);
    expect(Number(s![2])).toBeGreaterThan((beats - 1) * outBytes(component));
    expect(Number(s![2])).toBeLessThanOrEqual(beats * outBytes(component));
  }, 30 * 60_000);

  it('a mutated RTL (bit 0 of tv_data_o inverted in the 100th beat) fails at the cycle the testbench saw it', async () => {
    const g = waveform('mutated', 'tvtrace-rv32imc', (w) => mutateTop(w, 'tv_data_o', 'tv_valid_o && tv_ready_i', "tv_valid_o && moved_q == 16'd99"));
    const at = g.verdict.match(/^FAIL tb_tvtrace_rv32imc: first mismatch at cycle (\d+): tv /);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('tvtrace-rv32imc', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(new RegExp(`^first difference at byte ${99 * outBytes('tvtrace-rv32imc')}, cycle ${at![1]}: model 0x[0-9a-f]{2}, waveform 0x[0-9a-f]{2}\\n`));
    expect(r.mismatch).toMatch(/the model's byte belongs to record \d+ \(its bytes start at \d+\): /);
  }, 30 * 60_000);
});
