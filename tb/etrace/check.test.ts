/**
 * `rvtrace check` of E-Trace waveforms written by our own Icarus and Verilator runs of the
 * generated RTL, nested in an SoC wrapper with renamed ports (tb/check/testing.ts), so the map is
 * not the identity. The golden values come from elsewhere than the check: the vectors testbench's
 * own PASS/FAIL line (its cycle count, held count and the cycle of the first wrong byte, computed
 * by the simulator from the model's expected bytes) and the expected-bytes file of the vectors.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import { runCheck } from '../check/run.ts';
import { etraceCheck } from './check.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { delayFirstTransfer, mutateTop, runOn, type Simulated, simulatedWaveform, type WaveDir, wrapperMap } from '../check/testing.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COUNT = 200;

type Written = Simulated;

const waveform = (name: string, component: string, sets: string[], backpressure: number, sim: 'icarus' | 'verilator', mutate?: (w: WaveDir) => void): Written =>
  simulatedWaveform(join(root, name), resolveComponent(component, sets, { command: 'check' }), backpressure, sim, COUNT, mutate);

/** The expected bytes of the vectors (`<name>_tx_values.hex`): what the sink of a passing run received. */
function expectedBytes(w: WaveDir, name: string): Uint8Array {
  const lines = readFileSync(join(w.dir, `${name}_tx_values.hex`), 'utf8').split('\n').filter((l) => /^[0-9a-f]{2}$/.test(l));
  return Uint8Array.from(lines, (l) => parseInt(l, 16));
}

const check = (component: string, sets: string[], input: Parameters<typeof runCheck>[1]) => runCheck(resolveComponent(component, sets, { command: 'check' }), input);

/** `PASS tb_x: C cycles, F frames, H held, N responses compared` */
function passLine(verdict: string): { cycles: number; held: number; responses: number } {
  const m = verdict.match(/^PASS \w+: (\d+) cycles, (\d+) frames, (\d+) held, (\d+) responses compared$/);
  if (!m) throw new Error(`not a PASS line: ${verdict}`);
  return { cycles: Number(m[1]), held: Number(m[3]), responses: Number(m[4]) };
}

describe('rvtrace check: E-Trace waveforms of the generated RTL through a renaming wrapper', () => {
  // The Icarus waveform of etrace, written once for the tests that read it (each may run alone).
  let icarus: Written | undefined;
  const goodWaveform = (): Written => (icarus ??= waveform('icarus', 'etrace', [], 0.25, 'icarus'));

  it('Icarus waveform (back-pressure 0.25): PASS, every byte of the run compared', async () => {
    const good = goodWaveform();
    const tb = passLine(good.verdict);
    const r = await check('etrace', [], { vcd: good.vcd, map: good.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.pass).toBe(true);
    // The testbench's cycles and responses (all of them tx bytes: the frames make no APB read).
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session ended at cycle \\d+$`));
    expect(r.waveform.resetCycles).toBe(2);
  }, 120_000);

  it('Verilator waveform (--binary --trace, back-pressure 0.25): PASS', async () => {
    const v = waveform('verilator', 'etrace', [], 0.25, 'verilator');
    const tb = passLine(v.verdict);
    const r = await check('etrace', [], { vcd: v.vcd, map: v.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session ended`));
  }, 30 * 60_000);

  it.each([
    ['etrace-2.0', [], 'icarus'],
    ['etrace-rv32-mcu', [], 'icarus'],
    // Multiple retirement: up to 3 instructions in each of 2 signal groups a cycle.
    ['etrace', ['retires_p=3', 'iretire_width_p=3', 'taken_branches_p=2'], 'verilator'],
  ] as const)('%s %j (%s, back-pressure 0.3): PASS', async (component, sets, sim) => {
    const g = waveform(`${component}-${sets.length}-${sim}`, component, [...sets], 0.3, sim);
    const tb = passLine(g.verdict);
    const r = await check(component, [...sets], { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session ended`));
  }, 30 * 60_000);

  it.each([
    ['etrace-data', []],
    // Split loads: the responses arrive in later cycles, on lresp_i, lid_i and ldata_i.
    ['etrace-data', ['data_split_p=1']],
    ['etrace-rv64-full', []],
  ] as const)('%s %j (Verilator, back-pressure 0.3): data trace, PASS, the waveform read a second time with its data accesses', async (component, sets) => {
    const g = waveform(`${component}-${sets.length}`, component, [...sets], 0.3, 'verilator');
    const tb = passLine(g.verdict);
    const r = await check(component, [...sets], { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session ended`));
  }, 30 * 60_000);

  it('etrace-data with bit 0 of the 61st byte inverted (a te_data packet or not): FAIL at the cycle the testbench saw it', async () => {
    const m = waveform('data-mutated', 'etrace-data', [], 0.3, 'verilator', (w) => mutateTop(w, 'tx_data_o', 'tx_valid_o && tx_ready_i', "moved_q == 16'd60"));
    const at = m.verdict.match(/^FAIL tb_etrace_data: first mismatch at cycle (\d+): tx tx_data_o response 60: /);
    expect(at, m.verdict).not.toBeNull();
    const r = await check('etrace-data', [], { vcd: m.vcd, map: m.map });
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(/^first divergence at byte 60, waveform cycle \d+\nfirst difference at byte 60 /);
  }, 30 * 60_000);

  it('stallEnable with back-pressure 0.6 (Icarus): PASS, the held cycles those the testbench counted', async () => {
    const s = waveform('stall', 'etrace', ['stallEnable=1'], 0.6, 'icarus');
    const tb = passLine(s.verdict);
    expect(tb.held).toBeGreaterThan(0);
    const r = await check('etrace', ['stallEnable=1'], { vcd: s.vcd, map: s.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared`));
  }, 120_000);

  it('serial views with back-pressure 0.3 (Icarus): PASS, the hart held for every later view as the testbench counted', async () => {
    const sets = ['retires_p=2', 'taken_branches_p=2', 'serial_views_p=1'];
    const s = waveform('serial', 'etrace', sets, 0.3, 'icarus');
    const tb = passLine(s.verdict);
    expect(tb.held).toBeGreaterThan(20);
    const r = await check('etrace', sets, { vcd: s.vcd, map: s.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared`));
  }, 120_000);

  it('a mutated RTL (bit 0 of the 41st byte inverted) fails at the cycle the testbench saw the wrong byte', async () => {
    const m = waveform('mutated', 'etrace', [], 0.25, 'icarus', (w) => mutateTop(w, 'tx_data_o', 'tx_valid_o && tx_ready_i', "moved_q == 16'd40"));
    const at = m.verdict.match(/^FAIL tb_etrace: first mismatch at cycle (\d+): tx tx_data_o response 40: /);
    expect(at, m.verdict).not.toBeNull();
    const r = await check('etrace', [], { vcd: m.vcd, map: m.map });
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(/^first divergence at byte 40, waveform cycle \d+\nfirst difference at byte 40 \(model packet \d+/);
    // The report decodes both streams and shows the records around the packet.
    expect(r.mismatch).toMatch(/model packet \d+: /);
    expect(r.mismatch).toMatch(/RTL {3}(packet \d+: |bytes do not decode)/);
    expect(r.mismatch).toMatch(/records \d+\.\.\d+ \(the packet was produced when record \d+ arrived\)/);
  }, 120_000);

  it('every byte right and in order, but the first transfer hidden (the bytes leave later): FAIL in the cycle the model sends byte 0', async () => {
    const late = waveform('late', 'etrace', [], 0.25, 'icarus', (w) => {
      delayFirstTransfer(w, 'tx');
      runOn(w);
    });
    // The testbench (cycles from the model's departures, written apart from the check) misses byte 0 in its cycle.
    const at = late.verdict.match(/^FAIL tb_etrace: first mismatch at cycle (\d+): tx tx_data_o response 0: expected 0x[0-9a-f]{2} at cycle \1, actual none$/);
    expect(at, late.verdict).not.toBeNull();
    const r = await check('etrace', [], { vcd: late.vcd, map: late.map });
    expect(r.pass).toBe(false);
    expect(r.mismatchCycle).toBe(Number(at![1]));
    expect(r.mismatch).toMatch(new RegExp(`^first divergence at byte 0, waveform cycle ${at![1]}: the byte \\(0x[0-9a-f]{2}, the model's\\) left the encoder in cycle \\d+, the model sends it in cycle ${at![1]}\\n`));
    expect(r.mismatch).toMatch(/\n  the byte is in model packet 0, produced when record \d+ arrived: /);
  }, 120_000);

  it('--capture: the bytes the sink received and the hart side of the waveform (with tx_ready_i): PASS; a byte changed: FAIL at it', async () => {
    const good = goodWaveform();
    const name = 'etrace';
    const bytes = expectedBytes(good.w, name);
    const hartMap = join(good.w.dir, 'hart-map.json');
    writeFileSync(hartMap, wrapperMap(good.w, (p) => !/^tx_(data|valid)_o$/.test(p)));
    const r = await check('etrace', [], { vcd: good.vcd, map: hartMap, capture: bytes });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`, ${bytes.length} bytes compared, session ended`));
    const bad = bytes.slice();
    bad[57]! ^= 0x80;
    const f = await check('etrace', [], { vcd: good.vcd, map: hartMap, capture: bad });
    expect(f.pass).toBe(false);
    expect(f.mismatch).toMatch(/^first divergence at byte 57 of the capture\nfirst difference at byte 57 /);
    expect(f.mismatchCycle).toBeUndefined();
  }, 120_000);

  it('--capture without tx_ready_i: the sink is always ready (a run without back-pressure passes)', async () => {
    const z = waveform('ready', 'etrace', [], 0, 'icarus');
    const hartMap = join(z.w.dir, 'hart-map.json');
    writeFileSync(hartMap, wrapperMap(z.w, (p) => !p.startsWith('tx_')));
    const r = await check('etrace', [], { vcd: z.vcd, map: hartMap, capture: expectedBytes(z.w, 'etrace') });
    expect(r.mismatch ?? '', r.summary).toBe('');
  }, 120_000);

  it('FST: the same waveform converted by vcd2fst and read through fst2vcd passes', async () => {
    const good = goodWaveform();
    const fst = join(good.w.dir, 'wave.fst');
    const c = spawnSync('vcd2fst', [good.vcd, fst], { encoding: 'utf8' });
    expect(c.status, c.stderr).toBe(0);
    const r = await check('etrace', [], { fst, map: good.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.pass).toBe(true);
  }, 120_000);

  it('a map naming a signal that is not in the VCD: one line naming it and the file, status 2', () => {
    const good = goodWaveform();
    const bad = join(good.w.dir, 'bad-map.json');
    writeFileSync(bad, readFileSync(good.map, 'utf8').replace('u_trace_wrap.hart_iaddr"', 'u_trace_wrap.hart_iaddress"'));
    const cli = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'rvtrace.js'), 'check', '-c', 'etrace', '--vcd', good.vcd, '--map', bad], { encoding: 'utf8' });
    expect(cli.status).toBe(2);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toBe(`rvtrace: ${good.vcd}: port iaddr_i (${bad}): no signal tb_etrace.u_soc.u_trace_wrap.hart_iaddress in the VCD\n`);
  }, 120_000);
});

describe('rvtrace check: E-Trace APB writes during a session that starts out of reset', () => {
  /** A session over every port of the component and the values of one cycle (all 0 but `set`). */
  function cycleOf(component: string, set: Record<string, bigint>): () => void {
    const c = resolveComponent(component, [], { command: 'check' }).config as EtraceConfig;
    const ports = etraceCheck.ports(c, {}).ports.map((p) => p.name);
    const session = etraceCheck.start(c, ports, { detail: false });
    const values = ports.map((p) => set[p] ?? 0n);
    return () => session.cycle(7, values);
  }
  // An access phase completes with pready_o 1 (APB4).
  const apb = { psel_i: 1n, penable_i: 1n, pwrite_i: 1n, pready_o: 1n, pstrb_i: 0b1111n };

  it('writes that change options are accepted: the RTL samples the options when the session starts (tb/etrace/check-program.test.ts runs one on the RTL)', () => {
    // trTeControl with trTeActive, trTeEnable, trTeInstTracing kept and trTeInstStallEna (bit 13) set.
    expect(cycleOf('etrace', { ...apb, paddr_i: 0n, pwdata_i: 0b111n | (1n << 13n) })).not.toThrow();
    // trTeInstFeatures (0x008) with trTeInstNoAddrDiff set; an address without a register (0x010 without data trace).
    expect(cycleOf('etrace', { ...apb, paddr_i: 8n, pwdata_i: 1n })).not.toThrow();
    expect(cycleOf('etrace', { ...apb, paddr_i: 0x10n, pwdata_i: 0x5n })).not.toThrow();
  });

  it('the write that clears trTeEnable ends the session (no error)', () => {
    expect(cycleOf('etrace', { ...apb, paddr_i: 0n, pwdata_i: 0x5n })).not.toThrow();
  });
});
