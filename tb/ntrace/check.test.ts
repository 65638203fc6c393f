/**
 * `rvtrace check` of N-Trace waveforms written by our own Icarus and Verilator runs of the
 * generated RTL through the renaming SoC wrapper (tb/check/testing.ts): the run's APB prologue,
 * run-time trTeControl writes and epilogue, its MSEO bytes under back-pressure, the holds of the
 * further signal groups. The golden figures come from the vectors testbench's own PASS/FAIL line:
 * cycles, held cycles, responses (MSEO bytes and APB accesses), and the cycle of the first wrong
 * response of a mutated RTL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import { runCheck } from '../check/run.ts';
import { delayFirstTransfer, mutateTop, runOn, type Simulated, simulatedWaveform, type WaveDir, wrapperMap } from '../check/testing.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const waveform = (name: string, component: string, sim: 'icarus' | 'verilator', mutate?: (w: WaveDir) => void): Simulated => simulatedWaveform(join(root, name), resolveComponent(component, [], { command: 'check' }), 0.3, sim, 300, mutate);
const check = (component: string, g: Simulated) => runCheck(resolveComponent(component, [], { command: 'check' }), { vcd: g.vcd, map: g.map });

describe('rvtrace check: N-Trace waveforms of the generated RTL through a renaming wrapper', () => {
  it.each([
    ['ntrace', 'icarus'],
    ['ntrace-btm-mcu', 'icarus'],
    // 2 signal groups a cycle: the hart is held a clock for each further group.
    ['ntrace-full', 'verilator'],
  ] as const)('%s (%s, back-pressure 0.3): PASS, every MSEO byte and APB access compared, the same held cycles', async (component, sim) => {
    const g = waveform(`${component}-${sim}`, component, sim);
    const m = g.verdict.match(/^PASS \w+: (\d+) cycles, \d+ frames, (\d+) held, (\d+) responses compared$/);
    expect(m, g.verdict).not.toBeNull();
    const r = await check(component, g);
    expect(r.mismatch ?? '', r.summary).toBe('');
    const s = r.summary.match(/^(\d+) cycles, \d+ records, (\d+) held, (\d+) bytes compared, (\d+) APB accesses compared$/);
    expect(s, r.summary).not.toBeNull();
    expect([Number(s![1]), Number(s![2]), Number(s![3]) + Number(s![4])]).toEqual([Number(m![1]), Number(m![2]), Number(m![3])]);
  }, 30 * 60_000);

  it('--capture: the MSEO bytes the sink received with the hart and APB side of the waveform: PASS; a byte changed: FAIL at it', async () => {
    const g = waveform('capture', 'ntrace-btm-mcu', 'icarus');
    // What the sink of the passing run received: the bytes the testbench compared, in order.
    const hex = readFileSync(join(g.w.dir, 'ntrace_btm_mcu_mseo_values.hex'), 'utf8').split('\n').filter((l) => /^[0-9a-f]{2}$/.test(l));
    const bytes = Uint8Array.from(hex, (l) => parseInt(l, 16));
    expect(bytes.length).toBeGreaterThan(50);
    const map = join(g.w.dir, 'hart-map.json');
    writeFileSync(map, wrapperMap(g.w, (p) => p !== 'mseo_data_o' && p !== 'mseo_valid_o'));
    const r = await runCheck(resolveComponent('ntrace-btm-mcu', [], { command: 'check' }), { vcd: g.vcd, map, capture: bytes });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toContain(`, ${bytes.length} bytes compared`);
    const bad = bytes.slice();
    bad[40]! ^= 0x04;
    const f = await runCheck(resolveComponent('ntrace-btm-mcu', [], { command: 'check' }), { vcd: g.vcd, map, capture: bad });
    expect(f.pass).toBe(false);
    expect(f.mismatch).toMatch(/^first divergence at byte 40 of the capture\nfirst difference at byte 40 /);
    expect(f.mismatchCycle).toBeUndefined();
  }, 120_000);

  it('a mutated RTL (bit 0 of the 31st MSEO byte inverted) fails at the cycle the testbench saw it', async () => {
    const g = waveform('mutated-mseo', 'ntrace', 'icarus', (w) => mutateTop(w, 'mseo_data_o', 'mseo_valid_o && mseo_ready_i', "moved_q == 16'd30"));
    const at = g.verdict.match(/^FAIL tb_ntrace: first mismatch at cycle (\d+): mseo mseo_data_o response 30: /);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('ntrace', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(/^first divergence at byte 30, waveform cycle \d+\nfirst difference at byte 30 \(model message \d+/);
    expect(r.mismatch).toMatch(/model message \d+ @\d+: /);
  }, 120_000);

  it('every MSEO byte right and in order, but the first transfer hidden (the bytes leave later): FAIL in the cycle the model sends byte 0', async () => {
    const g = waveform('late', 'ntrace-btm-mcu', 'icarus', (w) => {
      delayFirstTransfer(w, 'mseo');
      runOn(w);
    });
    const at = g.verdict.match(/^FAIL tb_ntrace_btm_mcu: first mismatch at cycle (\d+): mseo mseo_data_o response 0: expected 0x[0-9a-f]{2} at cycle \1, actual none$/);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('ntrace-btm-mcu', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(new RegExp(`^first divergence at byte 0, waveform cycle ${at![1]}: the byte \\(0x[0-9a-f]{2}, the model's\\) left the encoder in cycle \\d+, the model sends it in cycle ${at![1]}\\n`));
    expect(r.mismatch).toMatch(/\n  the byte is in model message 0 @0: /);
  }, 120_000);

  it('a mutated RTL (bit 0 of prdata_o inverted in the 5th APB access) fails at the cycle the testbench saw it', async () => {
    const g = waveform('mutated-apb', 'ntrace', 'icarus', (w) => mutateTop(w, 'prdata_o', 'psel_i && penable_i && !stall_o', "psel_i && penable_i && moved_q == 16'd4"));
    const at = g.verdict.match(/^FAIL tb_ntrace: first mismatch at cycle (\d+): apb /);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('ntrace', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(new RegExp(`^first difference at cycle ${at![1]}: APB read at 0x[0-9a-f]{3}: model data 0x[0-9a-f]+ pslverr 0, RTL data 0x[0-9a-f]+ pslverr 0`));
  }, 120_000);
});
