/**
 * `rvtrace check` of E-Trace waveforms whose firmware programs the encoder's options over the APB
 * (issue 24): the generated RTL of a component whose registers reset with every option off and no
 * session (the hardware configuration, tb/case.ts hardwareConfig; an integrator's `--set
 * iEnable=0 ...`), driven by the `rvtrace vectors` testbench through the SoC wrapper of
 * tb/check/testing.ts, with frames that first write other options (golden-model/etrace/
 * option-writes.ts optionWrites, the co-simulation's programming prologue) and then start the
 * session. The check is given the hardware component only: it must find the options in the writes.
 *
 * What says the RTL ran with those options is not the check: the testbench compares the RTL's
 * bytes with the model's for the programmed options (its PASS line), and its cycle, hold and byte
 * counts are the ones the check must report. A mutation of the decode (one field read wrong, here
 * through vi.mock) must make the check fail on the same waveform.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { VectorCase } from '../../core/vectors.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import type { EtraceConfig, EtraceOptions } from '../../golden-model/etrace/config.ts';
import { optionWrites } from '../../golden-model/etrace/option-writes.ts';
import { StreamEncoder } from '../../golden-model/etrace/output.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { hardwareConfig } from '../case.ts';
import { runCheck } from '../check/run.ts';
import { simulatedWaveform, type Simulated } from '../check/testing.ts';
import { FrameWriter } from '../run.ts';
import { caseSource } from './case.ts';
import { etraceCheck } from './check.ts';
import { etraceHarnessSpec } from './cosim.ts';
import { EtraceFrameStream, programmedReadyOffset, PROLOGUE_RECORD } from './frames.ts';

/** A mutation of decodeOptions while `mutated.edit` is set (e.g. trTeInstSyncMax read one off). */
const mutated = vi.hoisted(() => ({ edit: undefined as ((o: EtraceOptions) => EtraceOptions) | undefined }));
vi.mock('../../golden-model/etrace/option-writes.ts', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../golden-model/etrace/option-writes.ts')>();
  return {
    ...m,
    decodeOptions: (...args: Parameters<typeof m.decodeOptions>) => {
      const o = m.decodeOptions(...args);
      return mutated.edit ? mutated.edit(o) : o;
    },
  };
});

/** Runs `check` with decodeOptions mutated by `edit`, then restores it. */
async function withDecode<T>(edit: (o: EtraceOptions) => EtraceOptions, check: () => Promise<T>): Promise<T> {
  mutated.edit = edit;
  try {
    return await check();
  } finally {
    mutated.edit = undefined;
  }
}

const root = mkdtempSync(join(tmpdir(), 'rvtrace-check-program-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COUNT = 200;

/** An APB write the firmware makes in the middle of the session: its setup phase in frame `frame`, its access phase in the next. */
interface MidWrite {
  readonly frame: number;
  readonly address: number;
  readonly value: number;
}

/** One trace session of the frames: the options the firmware writes before it, and a write during it. */
interface Session {
  readonly target: EtraceConfig;
  readonly mid?: MidWrite;
  readonly recordSeed?: number;
  /**
   * The frame (counted from the session's first) of the setup phase of a write that clears
   * trTeEnable while the hart runs: the session's records go on from its access phase up to the
   * first idle frame (the RTL ends the session at the first cycle without a view).
   */
  readonly end?: number;
}

/** An idle cycle: no record, or one that retired nothing, is no trap, neither halted nor in reset. */
const idleCycle = (records: readonly RetirementRecord[]): boolean =>
  records.length === 0 || (records.length === 1 && records[0]!.iretire === 0 && records[0]!.itype === 0 && !records[0]!.halted && !records[0]!.reset);

/**
 * The vectors of a case on the hardware configuration's RTL whose frames program `target`'s
 * options first (the programming prologue of tb/etrace/frames.ts) and, with `mid`, make one more
 * write during the session. The expected bytes are the model's with `target`'s options, aligned as
 * the co-simulation aligns a programmed session (tb/etrace/cosim.ts): the prologue's last frame is
 * the session's first record, and the transport is not ready in the model's first cycle.
 */
function programmed(target: EtraceConfig, mid?: MidWrite, early = 0): (r: ResolvedComponent, spec: CaseSpec) => VectorCase {
  return sessions([{ target, ...(mid ? { mid } : {}) }], early);
}

/**
 * The same for several sessions, one after the other: each programs its options, runs its
 * records (session k the stimulus of seed + k), ends with the write that clears trTeEnable and
 * idles until the FIFO has drained; the next programs its options and starts. The expected bytes
 * are the sessions' models' streams one after the other. Only the last session may stall (the
 * cycles of a session are then those of its frames).
 */
function sessions(list: readonly Session[], early = 0, stats?: { after: number }): (r: ResolvedComponent, spec: CaseSpec) => VectorCase {
  return (r, spec) => {
    const harness = etraceHarnessSpec(r.config as EtraceConfig);
    const p = spec.backpressure;
    const offset = programmedReadyOffset(optionWrites(list[0]!.target)) - early;
    // The testbench's tx_ready_i in cycle c (tb/README.md: the ready pattern from readyOffset on).
    const txReady = (c: number): boolean => c >= offset && !cycleChance(spec.seed, c - offset, p);
    const w = new FrameWriter(harness);
    const apb = ['psel_i', 'penable_i', 'pwrite_i', 'paddr_i', 'pwdata_i', 'pstrb_i'].map((port) => w.setter(port));
    const frames: Uint8Array[] = [];
    const bytes: number[] = [];
    let records = 0;
    let holds = 0;
    // Records the sessions traced after the write that cleared trTeEnable (`end`).
    let after = 0;
    list.forEach(({ target, mid, recordSeed, end: endFrame }, k) => {
      if (k < list.length - 1) expect(target.options.stallEnable).toBe(false);
      const program = optionWrites(target);
      const { source, data } = caseSource(target, { ...spec, seed: recordSeed ?? spec.seed + k });
      // The session starts in the cycle after the prologue's last frame; the RTL's FIFO is empty
      // in that cycle, so the model's transport sends nothing in its cycle 0.
      const start = frames.length + 2 * program.length;
      const ready = (m: number): boolean => m >= 1 && txReady(start + m);
      // Data trace: the model's record indexes count the prologue's record too (as cosim.ts shifts them).
      const shifted = data && { ...data, accesses: data.accesses.map((a) => ({ ...a, at: a.at + 1 })), responses: data.responses.map((x) => ({ ...x, at: x.at + 1 })) };
      const model = new StreamEncoder(target, { ready, keepPackets: false, sessionInFirstCycle: true, ...(shifted ? { data: shifted } : {}) });
      model.push(PROLOGUE_RECORD);
      const at = frames.length;
      // The session's end when the firmware clears trTeEnable while the hart runs (`end`).
      let over = false;
      const endWrite = 0b001 | (target.options.iEnable ? 0b100 : 0);
      const stream = new EtraceFrameStream(
        target,
        p,
        w,
        (chunk, first, end) => {
          const f = frames.length - at;
          if (mid && (f === mid.frame || f === mid.frame + 1)) [1, f === mid.frame ? 0 : 1, 1, mid.address, mid.value, 0b1111].forEach((v, i) => apb[i]!(v));
          if (mid && f === mid.frame + 2) apb.forEach((set) => set(0));
          if (endFrame !== undefined && (f === endFrame || f === endFrame + 1)) [1, f === endFrame ? 0 : 1, 1, 0x000, endWrite, 0b0001].forEach((v, i) => apb[i]!(v));
          if (endFrame !== undefined && f === endFrame + 2) apb.forEach((set) => set(0));
          frames.push(w.bytes.slice());
          const cycle = chunk.slice(first, end);
          if (endFrame !== undefined && f >= endFrame + 1 && !over && idleCycle(cycle)) over = true;
          if (over) return;
          for (const record of cycle) model.push(record);
          records += end - first;
          if (endFrame !== undefined && f >= endFrame + 1) after += end - first;
        },
        data,
        program,
      );
      for (const chunk of source.chunks()) stream.push(chunk);
      stream.finish();
      const e = model.finish();
      bytes.push(...e.bytes);
      holds += e.stallCycles;
    });
    if (stats) stats.after = after;
    return {
      harness,
      frames,
      seed: spec.seed,
      readyChance: p,
      readyOffset: offset,
      expected: [
        { cycles: false, responses: bytes.map((b) => ({ values: [BigInt(b)] })) },
        { cycles: true, responses: [] },
      ],
      holds,
      summary: `${records} records, ${after} after an end write, ${bytes.length} bytes`,
    };
  };
}

/**
 * The vectors of a case whose firmware writes `target`'s options while the hart runs: the writes
 * (optionWrites, trTeControl last) ride on the first frames of the records, a setup and an access
 * frame each, so the hart retires during them. The RTL ignores the hart until the session starts,
 * in the cycle after the last write's access frame, and drops the view it holds then (the access
 * frame's record, not idle here): the session's first record is the next frame's, aligned as a
 * session out of reset (model cycle m is RTL cycle start + 1 + m, the transport's ready not forced).
 */
function programmedWhileRunning(target: EtraceConfig): (r: ResolvedComponent, spec: CaseSpec) => VectorCase {
  return (r, spec) => {
    const program = optionWrites(target);
    const harness = etraceHarnessSpec(r.config as EtraceConfig);
    const p = spec.backpressure;
    // The testbench's pattern starts at readyOffset = start + 1: model cycle m is its cycle m.
    const ready = (m: number): boolean => !cycleChance(spec.seed, m, p);
    const model = new StreamEncoder(target, { ready, keepPackets: false });
    const w = new FrameWriter(harness);
    const apb = ['psel_i', 'penable_i', 'pwrite_i', 'paddr_i', 'pwdata_i', 'pstrb_i'].map((port) => w.setter(port));
    const frames: Uint8Array[] = [];
    const first = 2 * program.length;
    let skipped = 0;
    let dropped: RetirementRecord | undefined;
    const stream = new EtraceFrameStream(target, p, w, (chunk, from, to) => {
      const f = frames.length;
      if (f < 2 * program.length) {
        const write = program[f >> 1]!;
        [1, f & 1, 1, write.address, write.value, 0b1111].forEach((v, i) => apb[i]!(v));
      } else if (f === 2 * program.length) apb.forEach((set) => set(0));
      frames.push(w.bytes.slice());
      for (let i = from; i < to; i++) {
        if (f >= first) model.push(chunk[i]!);
        else if (chunk[i]!.iretire > 0) skipped++;
        if (f === first - 1) dropped = chunk[i]!;
      }
    });
    const { source } = caseSource(target, spec);
    for (const chunk of source.chunks()) stream.push(chunk);
    stream.finish();
    // The hart retired instructions while the firmware wrote the registers, the last write's cycle too.
    expect(skipped).toBeGreaterThan(0);
    expect(dropped!.iretire).toBeGreaterThan(0);
    const e = model.finish();
    return {
      harness,
      frames,
      seed: spec.seed,
      readyChance: p,
      readyOffset: programmedReadyOffset(program),
      expected: [
        { cycles: false, responses: Array.from(e.bytes, (b) => ({ values: [BigInt(b)] })) },
        { cycles: true, responses: [] },
      ],
      holds: e.stallCycles,
      summary: `${e.bytes.length} bytes`,
    };
  };
}

/** `PASS tb_x: C cycles, F frames, H held, N responses compared` */
function passLine(verdict: string): { cycles: number; held: number; responses: number } {
  const m = verdict.match(/^PASS \w+: (\d+) cycles, (\d+) frames, (\d+) held, (\d+) responses compared$/);
  if (!m) throw new Error(`not a PASS line: ${verdict}`);
  return { cycles: Number(m[1]), held: Number(m[3]), responses: Number(m[4]) };
}

/** The hardware configuration of `component` with `sets` (registers reset with every option off, no session), and the configuration `sets` ask for. */
function configs(component: string, sets: string[]): { hw: ResolvedComponent<EtraceConfig>; target: EtraceConfig } {
  const r = resolveComponent(component, sets, { command: 'check' }) as ResolvedComponent<EtraceConfig>;
  return { hw: hardwareConfig(r), target: r.config };
}

describe('rvtrace check: firmware writes the options before the session (generated RTL, Icarus)', () => {
  let stall: { g: Simulated; hw: ResolvedComponent<EtraceConfig>; writes: number } | undefined;
  // ResyncMode 1 -> 2 (cycles), ResyncMax 4 -> 0, ImplicitExcept and stallEnable off -> on.
  const stallCase = () => {
    if (stall) return stall;
    const { hw, target } = configs('etrace', ['ResyncMode=2', 'ResyncMax=0', 'ImplicitExcept=1', 'stallEnable=1']);
    expect([hw.config.options.stallEnable, hw.config.options.ImplicitExcept, hw.config.options.iEnable]).toEqual([false, false, false]);
    const g = simulatedWaveform(join(root, 'stall'), hw, 0.6, 'icarus', COUNT, undefined, programmed(target));
    stall = { g, hw, writes: optionWrites(target).length };
    return stall;
  };

  it('resync by cycles, ImplicitExcept and stallEnable written before the session: PASS, the held cycles the testbench counted', async () => {
    const { g, hw, writes } = stallCase();
    const tb = passLine(g.verdict);
    expect(tb.held).toBeGreaterThan(0);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.pass).toBe(true);
    // The session starts in the cycle after the last write's access phase (2 frames a write).
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared, session started at cycle ${2 * writes}, session ended at cycle \\d+$`));
  }, 300_000);

  it('the same waveform with trTeInstSyncMax decoded one off: FAIL (the decode decides the result)', async () => {
    const { g, hw } = stallCase();
    const r = await withDecode((o) => ({ ...o, ResyncMax: o.ResyncMax ^ 1 }), () => runCheck(hw, { vcd: g.vcd, map: g.map }));
    expect(r.pass).toBe(false);
    expect(r.mismatch).toMatch(/^(first divergence at byte \d+, waveform cycle \d+|the waveform held the hart)/);
  }, 300_000);

  it('a write during the session (stallEnable on, ResyncMax 7) is not applied to it: PASS with the options the session started with', async () => {
    // ResyncMode 3 (half-words), ResyncMax 1, FullAddress; back-pressure 0.3 without stall: the
    // testbench sees no held cycle if the RTL keeps the sampled stallEnable 0.
    const { hw, target } = configs('etrace', ['ResyncMode=3', 'ResyncMax=1', 'FullAddress=1']);
    const writes = optionWrites(target).length;
    const control = 0b111 | (1 << 13) | (3 << 16) | (7 << 20);
    const g = simulatedWaveform(join(root, 'mid'), hw, 0.3, 'icarus', COUNT, undefined, programmed(target, { frame: 2 * writes + 40, address: 0x000, value: control }));
    const tb = passLine(g.verdict);
    expect(tb.held).toBe(0);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session started at cycle ${2 * writes}, session ended`));
  }, 300_000);

  it('tx_ready_i 1 in the session\'s first cycle (the FIFO still empty), back-pressure 0.7: PASS (a model that sends in its first cycle fails here)', async () => {
    const { hw, target } = configs('etrace', ['ResyncMode=2', 'ResyncMax=0', 'iTrigEnable=1']);
    const writes = optionWrites(target).length;
    // The ready pattern 2 cycles early: the session's first cycle has pattern cycle 1 (seed 5, 0.7: ready).
    const g = simulatedWaveform(join(root, 'early'), hw, 0.7, 'icarus', COUNT, undefined, programmed(target, undefined, 2));
    const tb = passLine(g.verdict);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session started at cycle ${2 * writes}, session ended`));
  }, 300_000);

  it('a session that ends inside a stall (the end write held with the last cycle\'s packets): the held cycles after it count, PASS', async () => {
    // Seed-6 records with the ready pattern from its cycle 528 on (what the second session of the
    // two-session test below sees): the last cycle's packets wait for room past the end write.
    const { hw, target } = configs('etrace', ['ResyncMode=2', 'ResyncMax=0', 'ImplicitExcept=1', 'stallEnable=1']);
    const g = simulatedWaveform(join(root, 'end-stall'), hw, 0.5, 'icarus', COUNT, undefined, sessions([{ target, recordSeed: 6 }], 528));
    const tb = passLine(g.verdict);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared, session started`));
  }, 300_000);

  it('the firmware clears trTeEnable while the hart runs: the records go on to the hart\'s first idle cycle, with stalls: PASS', async () => {
    const { hw, target } = configs('etrace', ['ResyncMode=2', 'ResyncMax=1', 'stallEnable=1']);
    const stats = { after: 0 };
    const g = simulatedWaveform(join(root, 'end-running'), hw, 0.5, 'icarus', COUNT, undefined, sessions([{ target, end: 2 * optionWrites(target).length + 100 }], 0, stats));
    // The hart went on retiring after the write (the session traced records after it).
    expect(stats.after).toBeGreaterThan(0);
    const tb = passLine(g.verdict);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared, session started at cycle \\d+, session ended at cycle \\d+$`));
  }, 300_000);

  it('the firmware writes the options while the hart retires instructions (the RTL ignores them until the session starts): PASS', async () => {
    const { hw, target } = configs('etrace', ['ResyncMode=2', 'ResyncMax=0', 'FullAddress=1', 'stallEnable=1']);
    const g = simulatedWaveform(join(root, 'running'), hw, 0.5, 'icarus', COUNT, undefined, programmedWhileRunning(target));
    const tb = passLine(g.verdict);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared, session started at cycle ${2 * optionWrites(target).length}, session ended`));
  }, 300_000);

  it('etrace-data (Verilator): data trace options written before the session (noAddress, XOR compression, dTrigEnable) with resync by half-words: PASS, the waveform read twice', async () => {
    const { hw, target } = configs('etrace-data', ['noAddress=1', 'DataCompress=1', 'dTrigEnable=1', 'ResyncMode=3', 'ResyncMax=0']);
    expect([hw.config.options.dEnable, hw.config.options.noAddress, hw.config.options.DataCompress]).toEqual([false, false, 0]);
    const writes = optionWrites(target).length;
    const g = simulatedWaveform(join(root, 'data'), hw, 0.3, 'verilator', COUNT, undefined, programmed(target));
    const tb = passLine(g.verdict);
    const r = await runCheck(hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, session started at cycle ${2 * writes}, session ended`));
    // rvDataCompress decoded as 0 (full values): the te_data packets differ.
    const f = await withDecode((o) => ({ ...o, DataCompress: 0 }), () => runCheck(hw, { vcd: g.vcd, map: g.map }));
    expect(f.pass).toBe(false);
    expect(f.mismatch).toMatch(/^first divergence at byte \d+, waveform cycle \d+/);
  }, 30 * 60_000);
});

describe('rvtrace check: a second trace session in the waveform (trTeEnable 0, new options, trTeEnable 1)', () => {
  it('etrace (Icarus): full address, then resync by cycles with ImplicitExcept and stallEnable: PASS, the two streams one after the other; session 2 decoded wrong: FAIL', async () => {
    const one = configs('etrace', ['FullAddress=1', 'ResyncMax=2']);
    const two = configs('etrace', ['ResyncMode=2', 'ResyncMax=0', 'ImplicitExcept=1', 'stallEnable=1']);
    const g = simulatedWaveform(join(root, 'two'), one.hw, 0.5, 'icarus', COUNT, undefined, sessions([{ target: one.target }, { target: two.target }]));
    const tb = passLine(g.verdict);
    expect(tb.held).toBeGreaterThan(0);
    const r = await runCheck(one.hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    const first = 2 * optionWrites(one.target).length;
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, ${tb.held} held, ${tb.responses} bytes compared, 2 sessions started at cycles ${first}, \\d+, the last session ended at cycle \\d+$`));
    // Only the second session's options decoded wrong (it is the one with stallEnable).
    const f = await withDecode((o) => (o.stallEnable ? { ...o, ResyncMax: o.ResyncMax ^ 1 } : o), () => runCheck(one.hw, { vcd: g.vcd, map: g.map }));
    expect(f.pass).toBe(false);
    expect(f.mismatch).toMatch(/^(first divergence at byte \d+, waveform cycle \d+|the waveform held the hart)/);
  }, 300_000);

  it('etrace-rv64-full (Verilator): predictors, return stack and data trace on, then off with resync by half-words and noData: PASS', async () => {
    const one = configs('etrace-rv64-full', []);
    const two = configs('etrace-rv64-full', ['BranchPrediction=0', 'JumpTargetCache=0', 'ImplicitReturn=0', 'ResyncMode=3', 'ResyncMax=1', 'noData=1']);
    expect([one.target.options.BranchPrediction, one.target.options.JumpTargetCache, one.target.options.ImplicitReturn]).toEqual([true, true, true]);
    const g = simulatedWaveform(join(root, 'two-full'), one.hw, 0.3, 'verilator', COUNT, undefined, sessions([{ target: one.target }, { target: two.target }]));
    const tb = passLine(g.verdict);
    const r = await runCheck(one.hw, { vcd: g.vcd, map: g.map });
    expect(r.mismatch ?? '', r.summary).toBe('');
    expect(r.summary).toMatch(new RegExp(`^${tb.cycles} cycles, \\d+ records, 0 held, ${tb.responses} bytes compared, 2 sessions started at cycles \\d+, \\d+, the last session ended`));
  }, 30 * 60_000);
});

describe('rvtrace check: E-Trace register writes it cannot model are one-line errors', () => {
  /** A session over every port of the component (a hardware configuration with `hwSets`), fed cycles of all-0 values but `set`. */
  function session(component: string, sets: string[] = [], hardware = true) {
    const r = resolveComponent(component, sets, { command: 'check' }) as ResolvedComponent<EtraceConfig>;
    const c = hardware ? hardwareConfig(r).config : r.config;
    const ports = etraceCheck.ports(c, {}).ports.map((p) => p.name);
    const s = etraceCheck.start(c, ports, { detail: false });
    return (t: number, set: Record<string, bigint> = {}) => s.cycle(t, ports.map((p) => set[p] ?? 0n));
  }
  const write = (paddr_i: bigint, pwdata_i: bigint, pstrb_i = 0b1111n) => ({ psel_i: 1n, penable_i: 1n, pwrite_i: 1n, pready_o: 1n, paddr_i, pwdata_i, pstrb_i });

  it('a second session while the first session\'s bytes have not all left (none here): names the cycle and the bytes', () => {
    const cycle = session('etrace');
    cycle(0, write(0x000n, 0b111n));
    cycle(1);
    cycle(2, write(0x000n, 0b101n));
    cycle(3);
    expect(() => cycle(4, write(0x000n, 0b111n))).toThrow(
      /^cycle 4: an APB write of 0x7 to register 0x000 \(trTeControl\) starts another trace session while the encoder still holds (\d+) of the earlier sessions' \1 bytes: the check follows a new session only once the last one's bytes have left \(the first ended at cycle 2\)$/,
    );
  });

  it('trTeEnable set again before the session has ended (the hart has not been idle since the end write): names both cycles', () => {
    const cycle = session('etrace');
    cycle(0, write(0x000n, 0b111n));
    const running = { itype_i: 0n, iretire_i: 2n, iaddr_i: 0x8000_0000n };
    cycle(1, running);
    cycle(2, { ...running, ...write(0x000n, 0b101n) });
    cycle(3, running);
    expect(() => cycle(4, { ...running, ...write(0x000n, 0b111n) })).toThrow(
      'cycle 4: an APB write of 0x7 to register 0x000 (trTeControl) sets trTeActive and trTeEnable again before the session that the write of cycle 2 ends has ended (the encoder ends it at the hart\'s first idle cycle): the check does not model that',
    );
  });

  it('a second session with --capture: one line (the capture has no cycles)', () => {
    const r = resolveComponent('etrace', [], { command: 'check' }) as ResolvedComponent<EtraceConfig>;
    const c = hardwareConfig(r).config;
    const ports = etraceCheck.ports(c, { capture: new Uint8Array(4) }).ports.map((p) => p.name);
    const s = etraceCheck.start(c, ports, { detail: false, capture: new Uint8Array(4) });
    const at = (set: Record<string, bigint>) => ports.map((p) => set[p] ?? 0n);
    s.cycle(0, at(write(0x000n, 0b111n)));
    s.cycle(1, at(write(0x000n, 0b101n)));
    expect(() => s.cycle(2, at(write(0x000n, 0b011n)))).toThrow(
      "cycle 2: an APB write of 0x3 to register 0x000 (trTeControl) starts another trace session: with --capture the check cannot tell whether the last session's bytes had left the encoder; check a waveform with the tx ports instead",
    );
  });

  it('options the model does not take at the session\'s start (a filter naming a comparator the hardware lacks): names the cycle and the option', () => {
    const cycle = session('etrace', ['filters_p=1']);
    // trTeFilter0Control: trTeFilterEnable, trTeFilterMatchComp1 with trTeFilterComp1 = 3 (no comparators).
    cycle(0, write(0x400n, 0b1n | (1n << 4n) | (3n << 5n)));
    expect(() => cycle(2, write(0x000n, 0b111n))).toThrow(/^cycle 2: the trace session this write starts would run with options the model does not take \(options\/filter0\.comp: comparator 3 is not configured/);
  });

  it('stallEnable written on when the map has no stall_o: names the cycle and the port', () => {
    const r = resolveComponent('etrace', [], { command: 'check' }) as ResolvedComponent<EtraceConfig>;
    const c = hardwareConfig(r).config;
    const ports = etraceCheck.ports(c, {}).ports.map((p) => p.name).filter((p) => p !== 'stall_o');
    const s = etraceCheck.start(c, ports, { detail: false });
    const at = (set: Record<string, bigint>) => ports.map((p) => set[p] ?? 0n);
    expect(() => s.cycle(3, at(write(0x000n, 0b111n | (1n << 13n))))).toThrow('cycle 3: the trace session this write starts has trTeInstStallEna (stallEnable) 1: the map must name stall_o');
  });

  it('writes before the session, with byte strobes, to read-only and missing registers: accepted (no error)', () => {
    const cycle = session('etrace');
    cycle(0, write(0x004n, 0xffff_ffffn));
    cycle(1, write(0x0f0n, 0x5n));
    cycle(2, write(0x000n, 0xffff_ffffn, 0b0100n));
    cycle(3, write(0x008n, 0x3n, 0b0001n));
    expect(() => cycle(4, write(0x000n, 0b111n, 0b0001n))).not.toThrow();
  });

  it('a waveform whose session never starts fails with one line (nothing compared)', () => {
    const r = resolveComponent('etrace', [], { command: 'check' }) as ResolvedComponent<EtraceConfig>;
    const c = hardwareConfig(r).config;
    const ports = etraceCheck.ports(c, {}).ports.map((p) => p.name);
    const s = etraceCheck.start(c, ports, { detail: false });
    for (let t = 0; t < 5; t++) s.cycle(t, ports.map(() => 0n));
    const o = s.finish();
    expect(o.pass).toBe(false);
    expect(o.mismatch).toBe('no trace session started in the waveform: nothing was compared');
  });
});
