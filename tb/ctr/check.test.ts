/**
 * `rvtrace check` of CTR waveforms written by our own Icarus and Verilator runs of the generated
 * RTL through the renaming SoC wrapper (tb/check/testing.ts). The golden figures come from the
 * vectors testbench's own PASS/FAIL line: its cycles and responses, and the cycle at which it saw
 * the first wrong CSR response of a mutated RTL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import { runCheck } from '../check/run.ts';
import { mutateTop, type Simulated, simulatedWaveform, type WaveDir } from '../check/testing.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-ctr-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const waveform = (name: string, component: string, sim: 'icarus' | 'verilator', mutate?: (w: WaveDir) => void): Simulated => simulatedWaveform(join(root, name), resolveComponent(component, [], { command: 'check' }), 0, sim, 300, mutate);

const check = (component: string, vcd: string, map: string) => runCheck(resolveComponent(component, [], { command: 'check' }), { vcd, map });

describe('rvtrace check: CTR waveforms of the generated RTL through a renaming wrapper', () => {
  it.each([
    ['ctr-1.0', 'icarus'],
    ['ctr-rv32', 'verilator'],
  ] as const)('%s (%s): PASS, every CSR response and SCTRCLR outcome of the run compared', async (component, sim) => {
    const g = waveform(`${component}-${sim}`, component, sim);
    const m = g.verdict.match(/^PASS \w+: (\d+) cycles, \d+ frames, 0 held, (\d+) responses compared$/);
    expect(m, g.verdict).not.toBeNull();
    const r = await check(component, g.vcd, g.map);
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toBe(`${m![1]} cycles, ${m![2]} CSR responses compared`);
  }, 30 * 60_000);

  it('a mutated RTL (bit 0 of csr_rdata_o inverted in the 60th access) fails at the cycle the testbench saw it', async () => {
    const g = waveform('mutated', 'ctr-1.0', 'icarus', (w) => mutateTop(w, 'csr_rdata_o', 'csr_valid_i', "csr_valid_i && moved_q == 16'd59"));
    const at = g.verdict.match(/^FAIL tb_ctr_1_0: first mismatch at cycle (\d+): csr /);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('ctr-1.0', g.vcd, g.map);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    // cosim's report: the access, both responses (differing in bit 0 of rdata), the model's state, the records.
    const lines = r.mismatch!.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^first difference at cycle ${at![1]}: CSR 0x[0-9a-f]{3} \\(`));
    const rdata = (who: string) => BigInt(r.mismatch!.match(new RegExp(`${who}:\\s+rdata (0x[0-9a-f]+)`))![1]!);
    expect(rdata('model') ^ rdata('RTL')).toBe(1n);
    expect(r.mismatch).toMatch(/model state at the start of the cycle: depth \d+/);
    expect(r.mismatch).toMatch(/records of cycles \d+\.\.\d+:/);
  }, 120_000);
});
