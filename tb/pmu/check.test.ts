/**
 * `rvtrace check` of PMU waveforms written by our own Icarus and Verilator runs of the generated
 * RTL through the renaming SoC wrapper (tb/check/testing.ts). The golden figures come from the
 * vectors testbench's own PASS/FAIL line: its cycles and responses (CSR responses and LCOFI
 * pulses), and the cycle at which it saw the first wrong CSR response of a mutated RTL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import { runCheck } from '../check/run.ts';
import { mutateTop, type Simulated, simulatedWaveform, type WaveDir } from '../check/testing.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-pmu-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const waveform = (name: string, component: string, sim: 'icarus' | 'verilator', mutate?: (w: WaveDir) => void): Simulated => simulatedWaveform(join(root, name), resolveComponent(component, [], { command: 'check' }), 0, sim, 300, mutate);
const check = (component: string, g: Simulated) => runCheck(resolveComponent(component, [], { command: 'check' }), { vcd: g.vcd, map: g.map });

describe('rvtrace check: PMU waveforms of the generated RTL through a renaming wrapper', () => {
  it.each([
    ['pmu', 'icarus'],
    ['pmu-rv32-mcu', 'verilator'],
  ] as const)('%s (%s): PASS, every CSR response and LCOFI pulse of the run compared', async (component, sim) => {
    const g = waveform(`${component}-${sim}`, component, sim);
    const m = g.verdict.match(/^PASS \w+: (\d+) cycles, \d+ frames, 0 held, (\d+) responses compared$/);
    expect(m, g.verdict).not.toBeNull();
    const r = await check(component, g);
    expect(r.mismatch ?? '', r.summary).toBe('');
    // The testbench counts the CSR responses and the LCOFI pulses together.
    const s = r.summary.match(/^(\d+) cycles, (\d+) CSR responses compared(?:, (\d+) LCOFI pulses)?$/);
    expect(s, r.summary).not.toBeNull();
    expect(Number(s![1])).toBe(Number(m![1]));
    expect(Number(s![2]) + Number(s![3] ?? 0)).toBe(Number(m![2]));
  }, 30 * 60_000);

  it('a mutated RTL (bit 0 of csr_rdata_o inverted in the 30th access) fails at the cycle the testbench saw it', async () => {
    const g = waveform('mutated', 'pmu', 'icarus', (w) => mutateTop(w, 'csr_rdata_o', 'csr_valid_i', "csr_valid_i && moved_q == 16'd29"));
    const at = g.verdict.match(/^FAIL tb_pmu: first mismatch at cycle (\d+): csr /);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('pmu', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(new RegExp(`^first difference at cycle ${at![1]}: CSR 0x[0-9a-f]{3} \\(`));
    const rdata = (who: string) => BigInt(r.mismatch!.match(new RegExp(`${who}:\\s+rdata (0x[0-9a-f]+)`))![1]!);
    expect(rdata('model') ^ rdata('RTL')).toBe(1n);
  }, 120_000);
});
