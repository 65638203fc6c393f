/**
 * `rvtrace check` of tandem-verification trace waveforms written by our own Verilator runs of the
 * generated RTL (Icarus 11 does not finish on it: README, rvtrace vectors) through the renaming
 * SoC wrapper (tb/check/testing.ts; the co-simulation wrapper's stall_o is not a port of the
 * block's top and stays out of the map). The golden figures come from the vectors testbench's own
 * PASS/FAIL line: its cycles and beats, and the cycle of the first wrong beat of a mutated RTL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import { runCheck } from '../check/run.ts';
import { tvBytesWidth } from '../../generator/tvtrace/ports.ts';
import { delayFirstTransfer, mutateTop, runOn, type Simulated, simulatedWaveform, type WaveDir, wrapperMap } from '../check/testing.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-tvtrace-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function waveform(name: string, component: string, mutate?: (w: WaveDir) => void): Simulated {
  const g = simulatedWaveform(join(root, name), resolveComponent(component, [], { command: 'check' }), 0.3, 'verilator', 300, mutate);
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

  it('--capture: the bytes the sink received with the record side of the waveform: PASS; a byte changed: FAIL at it', async () => {
    const component = 'tvtrace-rv32imc';
    const g = waveform('capture', component);
    // What the sink of the passing run received: the beats the testbench compared ({tv_data_o,
    // tv_bytes_o}), each the low tv_bytes_o bytes of tv_data_o.
    const n = outBytes(component);
    const bw = BigInt(tvBytesWidth(n));
    const bytes: number[] = [];
    for (const l of readFileSync(join(g.w.dir, 'tvtrace_rv32imc_tv_values.hex'), 'utf8').split('\n').filter((x) => /^[0-9a-f]+$/.test(x))) {
      const v = BigInt(`0x${l}`);
      const count = Number(v & ((1n << bw) - 1n));
      for (let i = 0; i < count; i++) bytes.push(Number((v >> (bw + BigInt(8 * i))) & 0xffn));
    }
    const map = join(g.w.dir, 'record-map.json');
    writeFileSync(map, wrapperMap(g.w, (p) => p !== 'stall_o' && !p.startsWith('tv_')));
    const run = (capture: Uint8Array) => runCheck(resolveComponent(component, [], { command: 'check' }), { vcd: g.vcd, map, capture });
    const r = await run(Uint8Array.from(bytes));
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`, ${bytes.length} bytes compared$`));
    const bad = Uint8Array.from(bytes);
    bad[500]! ^= 0x10;
    const f = await run(bad);
    expect(f.pass).toBe(false);
    expect(f.mismatch).toMatch(/^first difference at byte 500 of the capture: model 0x[0-9a-f]{2}, capture 0x[0-9a-f]{2}\n/);
    expect(f.mismatchCycle).toBeUndefined();
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

  it('rec_ready_o inverted in cycle 50 only (a record register that is not the FIFO cycle model): FAIL at cycle 50', async () => {
    // moved_q counts every clock out of reset: it is 50 in waveform cycle 50 (cycle 0: the first edge out of reset).
    const g = waveform('ready', 'tvtrace-rv32imc', (w) => {
      mutateTop(w, 'rec_ready_o', "1'b1", "moved_q == 16'd50");
      runOn(w);
    });
    const r = await check('tvtrace-rv32imc', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(50);
    expect(r.mismatch).toMatch(/^first difference at cycle 50: rec_ready_o is [01], the FIFO's cycle model (has its record register free \(1\)|still holds a record \(0: the hart is held\))$/);
  }, 30 * 60_000);

  it('every beat right and in order, but the first transfer hidden (the beats leave later): FAIL in the cycle of the model\'s first beat', async () => {
    const g = waveform('late', 'tvtrace-rv32imc', (w) => {
      delayFirstTransfer(w, 'tv');
      runOn(w);
    });
    // The testbench's beats and their cycles come from the FIFO's cycle model, written apart from the check.
    const at = g.verdict.match(/^FAIL tb_tvtrace_rv32imc: first mismatch at cycle (\d+): tv .* response 0: expected .* at cycle \1, actual none$/);
    expect(at, g.verdict).not.toBeNull();
    const r = await check('tvtrace-rv32imc', g);
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(new RegExp(`^first difference at cycle ${at![1]}: the waveform shows no beat, the FIFO's cycle model a beat of \\d byte\\(s\\)`));
  }, 30 * 60_000);
});
