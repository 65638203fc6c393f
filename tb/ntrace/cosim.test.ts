/**
 * Co-simulation of the generated N-Trace RTL against the golden model (encodeNtraceStream's
 * NtraceStreamEncoder: the encoder behind its output FIFO): the same generated retirement streams
 * (single retirement, or regrouped into blocks for multiple retirement) and the same per-cycle
 * transport readiness give the same MSEO bytes and the same stall cycles, for HTM and BTM and each
 * option, with back-pressure 0, 0.3 and 0.6 (with the smallest FIFO a configuration allows,
 * messages are lost and the trace recovers with Error and SYNC 7; with stall_enable the hart waits
 * instead). One Verilator build per configuration, reused for every seed. Seeds are fixed and
 * printed in the test names.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import { emptyRecord, Itype } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { encodeNtrace } from '../../golden-model/ntrace/encoder.ts';
import { NTRACE_MAX_BCNT } from '../../golden-model/ntrace/messages.ts';
import { NTRACE_SETTINGS, ntraceConfig, validateNtraceSettings } from '../../golden-model/ntrace/settings.ts';
import { renderNtraceRtl } from '../../generator/ntrace/rtl.ts';
import type { BuiltModel } from '../build.ts';
import { buildNtraceModel, cosimNtrace, ntraceLoopStimulus } from './cosim.ts';

const RECORDS = Number(process.env.COSIM_RECORDS ?? 20_000);

/** Many more halts, resets and trace-on/off triggers than the defaults: every stop and restart path. */
const EVENTS: Partial<StimulusKnobs> = { halt_rate: 0.002, reset_rate: 0.001, trace_off_rate: 0.002, trace_on_rate: 0.02 };

interface Case {
  name: string;
  sets: string[];
  knobs?: Partial<StimulusKnobs>;
  /** Messages are lost at back-pressure 0.6 (a small FIFO). */
  loses?: boolean;
  /**
   * Seeds 1 and 3 run the exactly repeating loops of ntraceLoopStimulus instead of a random
   * program (RepeatBranch and HREPEAT need them), seed 2 a random program with long loops.
   */
  loops?: boolean;
  /** Ownership messages: fewer records (OWN_RECORDS), and their checks. */
  own?: boolean;
}

/** Records of the Ownership cases (the file's run time stays near five minutes on two cores). */
const OWN_RECORDS = Number(process.env.COSIM_OWN_RECORDS ?? 10_000);

/**
 * The Ownership cases' stimulus: more process switches (ctype 2, per sret to U) and asynchronous
 * context changes (ctype 3) than the defaults, so that every run reports context changes.
 */
const OWN_KNOBS: Partial<StimulusKnobs> = { context_switch_rate: 0.6, async_context_rate: 0.002 };

const SYNC_MESSAGES = new Set(['ProgTraceSync', 'DirectBranchSync', 'IndirectBranchSync', 'IndirectBranchHistSync']);

/** Long loops of the random program: HIST fills with the same bits again (HREPEAT). */
const LONG_LOOPS: Partial<StimulusKnobs> = { loop_continue: 0.97 };

const CASES: Case[] = [
  { name: 'HTM', sets: [] },
  { name: 'BTM', sets: ['ntrace_mode=btm'] },
  { name: 'BTM, 6-bit I-CNT, periodic sync, timestamps', sets: ['ntrace_mode=btm', 'icnt_width=6', 'sync_period=16', 'timestamp=1'] },
  { name: 'HTM, deferred, 1-bit I-CNT, MSB dropping', sets: ['hist_full=deferred', 'icnt_width=1', 'address_msb_drop=1'] },
  { name: 'HTM, implicit return with a call counter of 4', sets: ['implicit_return=counter', 'call_stack_size=4'] },
  { name: 'RV32 HTM, periodic sync, timestamps, MSB dropping', sets: ['xlen=32', 'sync_period=3', 'timestamp=1', 'address_msb_drop=1'], knobs: { xlen: 32 } },
  { name: 'HTM, smallest FIFO (22 bytes): loss and recovery', sets: ['fifo_bytes=22'], loses: true },
  { name: 'BTM, 17-byte FIFO, periodic sync: loss and recovery', sets: ['ntrace_mode=btm', 'fifo_bytes=17', 'sync_period=5'], loses: true },
  { name: 'HTM, deferred, 5-bit I-CNT, periodic sync, SRC, timestamps, MSB dropping, smallest FIFO (34 bytes): loss and recovery', sets: ['hist_full=deferred', 'icnt_width=5', 'sync_period=7', 'src_width=3', 'src=5', 'timestamp=1', 'address_msb_drop=1', 'fifo_bytes=34'], loses: true },
  { name: 'RV32 BTM, call counter, timestamps, 23-byte FIFO: loss and recovery', sets: ['xlen=32', 'ntrace_mode=btm', 'implicit_return=counter', 'call_stack_size=2', 'timestamp=1', 'fifo_bytes=23'], knobs: { xlen: 32 }, loses: true },
  { name: 'RV32 BTM, return-address stack of 1 (every nested call overflows it)', sets: ['xlen=32', 'ntrace_mode=btm', 'implicit_return=stack', 'call_stack_size=1'], knobs: { xlen: 32 } },
  { name: 'HTM, deferred HIST full, repeated HIST (ResourceFull RCODE 2), periodic sync, timestamps', sets: ['hist_full=deferred', 'repeat_history=1', 'sync_period=11', 'timestamp=1'], loops: true },
  { name: 'HTM, return-address stack of 8, RepeatBranch, repeated HIST (the ntrace component)', sets: ['implicit_return=stack', 'call_stack_size=8', 'repeat_branch=1', 'repeat_history=1'], loops: true },
  { name: 'BTM, return-address stack of 2, RepeatBranch', sets: ['ntrace_mode=btm', 'implicit_return=stack', 'call_stack_size=2', 'repeat_branch=1'], loops: true },
  { name: 'HTM, return-address stack of 2, RepeatBranch, repeated HIST, periodic sync, smallest FIFO (22 bytes): loss and recovery', sets: ['implicit_return=stack', 'call_stack_size=2', 'repeat_branch=1', 'repeat_history=1', 'sync_period=5', 'fifo_bytes=22'], loops: true, loses: true },
  { name: 'HTM, stall, smallest FIFO (22 bytes)', sets: ['fifo_bytes=22', 'stall_enable=1'] },
  // Multiple retirement: the records regrouped into the blocks of a hart retiring retires_p
  // instructions in taken_branches_p groups a cycle (golden-model/hart/blocks.ts).
  { name: 'HTM, deferred HIST full, periodic sync, blocks of up to 4 instructions (one a clock)', sets: ['retires_p=4', 'iretire_width_p=4', 'hist_full=deferred', 'sync_period=9'] },
  {
    name: 'BTM, 1-bit I-CNT (ResourceFull pieces), return-address stack of 2, timestamps, blocks of up to 3, two blocks a cycle, stall, smallest FIFO (25 bytes)',
    sets: ['retires_p=3', 'iretire_width_p=3', 'taken_branches_p=2', 'ntrace_mode=btm', 'icnt_width=1', 'implicit_return=stack', 'call_stack_size=2', 'timestamp=1', 'stall_enable=1', 'fifo_bytes=25'],
  },
  {
    name: 'HTM, return-address stack of 8, RepeatBranch, repeated HIST, blocks of up to 8, three blocks a cycle, smallest FIFO (22 bytes): loss and recovery',
    sets: ['retires_p=8', 'iretire_width_p=5', 'taken_branches_p=3', 'implicit_return=stack', 'call_stack_size=8', 'repeat_branch=1', 'repeat_history=1', 'fifo_bytes=22'],
    loops: true,
    loses: true,
  },
  { name: 'HTM, deferred, plain indirect, return-address stack of 3, RepeatBranch, repeated HIST, SRC, MSB dropping, stall, timestamps, 40-byte FIFO', sets: ['hist_full=deferred', 'empty_hist_indirect=plain', 'implicit_return=stack', 'call_stack_size=3', 'repeat_branch=1', 'repeat_history=1', 'src_width=2', 'src=1', 'address_msb_drop=1', 'timestamp=1', 'fifo_bytes=40', 'stall_enable=1'], loops: true },
  // Ownership messages (trTeContext): the random program changes privilege at every trap and xRET
  // and context at process switches (ctype 2), satp writes (ctype 1) and asynchronously (ctype 3).
  { name: 'HTM, Ownership messages (32-bit context), smallest FIFO (30 bytes): loss (ECODE bit 3) and recovery (SYNC 7 with its Ownership message)', sets: ['ownership=1', 'fifo_bytes=30'], own: true, loses: true },
  { name: 'RV32 BTM, Ownership messages (16-bit context), periodic sync', sets: ['xlen=32', 'ntrace_mode=btm', 'ownership=1', 'context_width=16', 'sync_period=16'], knobs: { xlen: 32 }, own: true },
  { name: 'HTM, Ownership messages (no context bits), 5-bit I-CNT, periodic sync, SRC, timestamps, MSB dropping', sets: ['ownership=1', 'context_width=0', 'icnt_width=5', 'sync_period=7', 'src_width=3', 'src=5', 'timestamp=1', 'address_msb_drop=1'], own: true },
  { name: 'HTM, Ownership messages, stall, timestamps, smallest FIFO (52 bytes)', sets: ['ownership=1', 'stall_enable=1', 'timestamp=1', 'fifo_bytes=52'], own: true },
  {
    name: 'HTM, Ownership messages (64-bit context: PROCESS wider than TSTAMP), timestamps, return-address stack of 4, RepeatBranch, blocks of up to 3, two blocks a cycle, smallest FIFO (57 bytes): loss and recovery',
    sets: ['ownership=1', 'context_width=64', 'timestamp=1', 'retires_p=3', 'iretire_width_p=3', 'taken_branches_p=2', 'implicit_return=stack', 'call_stack_size=4', 'repeat_branch=1', 'fifo_bytes=57'],
    own: true,
    loses: true,
  },
];

const RUNS = [
  { seed: 1, backpressure: 0, events: false },
  { seed: 2, backpressure: 0.3, events: true },
  { seed: 3, backpressure: 0.6, events: true },
];

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-cosim-'));
const models = new Map<string, BuiltModel>();

describe('N-Trace co-simulation: generated RTL against the model', () => {
  for (const k of CASES) {
    const settings = resolveSettings('test', NTRACE_SETTINGS, k.sets);
    const c = ntraceConfig(settings);
    it.each(RUNS)(`${k.name}: seed $seed, back-pressure $backpressure, many events $events: identical bytes`, async ({ seed, backpressure, events }) => {
      expect(validateNtraceSettings(settings)).toEqual([]);
      let m = models.get(k.name);
      if (!m) {
        const out = join(dir, k.name.replace(/\W+/g, '-'));
        mkdirSync(out, { recursive: true });
        const files = renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'test', sets: k.sets });
        for (const f of files) writeFileSync(join(out, f.name), f.content);
        m = buildNtraceModel(c, files.map((f) => join(out, f.name)));
        models.set(k.name, m);
      }
      const n = k.own ? OWN_RECORDS : RECORDS;
      const single =
        k.loops && seed !== 2
          ? ntraceLoopStimulus(seed, n, events)
          : generateStimulus({ ...defaultKnobs(), ...(k.loops ? LONG_LOOPS : {}), ...(k.own ? OWN_KNOBS : {}), ...k.knobs, ...(events ? EVENTS : {}) }, seed, n).records;
      const records = c.retires > 1 || c.takenBranches > 1 ? regroupIntoBlocks(single, { retires_p: c.retires, taken_branches_p: c.takenBranches }) : single;
      const r = await cosimNtrace(m, c, records, { seed, backpressure });
      expect(r.mismatch).toBeUndefined();
      expect(r.actual.length).toBe(r.expected.bytes.length);
      expect(r.holds).toBe(r.expected.stallCycles + r.groupHolds);
      if (c.takenBranches > 1) expect(r.groupHolds).toBeGreaterThan(0);
      // (Repeating loops compress well.)
      expect(r.expected.bytes.length).toBeGreaterThan(n / (k.loops ? 20 : 10));
      expect(r.expected.errorUnsent).toBe(false);
      if (c.stallEnable) {
        // Nothing lost: the bytes of the lossless encoder given the same records (the hart's, with
        // the triggers of the register writes; it has no cycles: the groups are records in order).
        expect(r.expected.lost).toBe(0);
        expect(r.actual).toEqual(encodeNtrace(r.modelRecords, c).bytes);
      }
      if (k.loses && backpressure === 0.6) expect(r.expected.overruns).toBeGreaterThan(0);
      const e = r.expected;
      const sent = (name: string, rcode?: number) => e.messages.filter((m) => m.name === name && (rcode === undefined || m.fields.RCODE === rcode)).length;
      if (k.loops && c.repeatBranch && seed === 1) expect(sent('RepeatBranch')).toBeGreaterThan(0);
      if (k.loops && c.repeatHistory && seed === 1) expect(sent('ResourceFull', 2)).toBeGreaterThan(0);
      const repeats = c.repeatBranch || c.repeatHistory ? `, RepeatBranch ${sent('RepeatBranch')}, ResourceFull RCODE 2 ${sent('ResourceFull', 2)}` : '';
      let owned = '';
      if (c.ownership) {
        const ms = e.messages;
        const own = (m: (typeof ms)[number] | undefined, format?: number): boolean => m?.name === 'Ownership' && (format === undefined || m.fields.FORMAT === format);
        // Privilege changes (FORMAT 0) and context changes (FORMAT 2 not right after a sync).
        const privilege = ms.filter((m) => own(m, 0)).length;
        const context = ms.filter((m, i) => own(m, 2) && !SYNC_MESSAGES.has(ms[i - 1]?.name ?? '')).length;
        // The stimulus changes privilege and reports context changes; so do the messages (unless
        // most of them are lost: a loss case at back-pressure 0.6).
        expect(records.filter((x, i) => i > 0 && x.priv !== records[i - 1]!.priv).length).toBeGreaterThan(0);
        expect(records.filter((x) => x.ctype !== 0).length).toBeGreaterThan(0);
        expect(privilege).toBeGreaterThan(0);
        if (!(k.loses && backpressure === 0.6)) expect(context).toBeGreaterThan(0);
        // A sync is followed at once by its Ownership message (or, lost, by the Error message); a
        // SYNC 7 always: the two entered together.
        ms.forEach((m, i) => {
          if (!SYNC_MESSAGES.has(m.name)) return;
          if (m.fields.SYNC === 7) expect(ms[i + 1]?.name, `message ${i}`).toBe('Ownership');
          else expect(['Ownership', 'Error'], `message ${i}`).toContain(ms[i + 1]?.name);
        });
        const ecode = (v: number): number => ms.filter((m) => m.name === 'Error' && m.fields.ECODE === v).length;
        if (k.loses && backpressure === 0.6) expect(ecode(12)).toBeGreaterThan(0);
        owned = `, Ownership ${sent('Ownership')} (FORMAT 0 ${privilege}, context changes ${context}), Error ECODE 4 ${ecode(4)}, ECODE 0xC ${ecode(12)}`;
      }
      console.log(`${k.name}, seed ${seed}: ${r.actual.length} bytes, ${r.cycles} cycles for ${records.length + 1} records (${r.holds} held, ${r.groupHolds} of them for further groups); lost ${e.lost}, overruns ${e.overruns}, SYNC 7 retries ${e.syncRetries}${repeats}${owned}`);
    }, 300_000);
  }
});

describe('N-Trace co-simulation: the repeat counter at its limit', () => {
  it('2^18 + 99 identical IndirectBranchHist messages in a row: RepeatBranch(B-CNT 2^18 - 1) when B-CNT is full, the rest at the stop', async () => {
    const k = CASES.find((x) => x.name.includes('the ntrace component'))!;
    const settings = resolveSettings('test', NTRACE_SETTINGS, k.sets);
    const c = ntraceConfig(settings);
    let m = models.get(k.name);
    if (!m) {
      const out = join(dir, 'bcnt-limit');
      mkdirSync(out, { recursive: true });
      const files = renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'test', sets: k.sets });
      for (const f of files) writeFileSync(join(out, f.name), f.content);
      m = buildNtraceModel(c, files.map((f) => join(out, f.name)));
      models.set(k.name, m);
    }
    // c.jr to itself: after the first, every IndirectBranchHist is the same (I-CNT 1, U-ADDR 0, HIST empty).
    const n = NTRACE_MAX_BCNT + 101;
    const records = Array.from({ length: n }, (_, i) => ({ ...emptyRecord(), itype: Itype.otherUninferableJump, iretire: 1, ilastsize: 0, iaddr: 0x1000n, time: BigInt(i) }));
    // No run-time register writes: they would turn the trace off in the middle of the repeats.
    const r = await cosimNtrace(m, c, records, { runtimeWrites: false });
    expect(r.mismatch).toBeUndefined();
    const bcnt = r.expected.messages.filter((x) => x.name === 'RepeatBranch').map((x) => Number(x.fields['B-CNT']));
    expect(bcnt).toEqual([NTRACE_MAX_BCNT, 99]);
  }, 300_000);
});

describe('N-Trace co-simulation can fail', () => {
  it('a copy of the RTL with the ProgTraceSync TCODE changed is caught, with the messages around it', async () => {
    const settings = resolveSettings('test', NTRACE_SETTINGS, []);
    const c = ntraceConfig(settings);
    const out = join(dir, 'broken');
    mkdirSync(out, { recursive: true });
    const files = renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'test', sets: [] });
    for (const f of files) writeFileSync(join(out, f.name), f.name === 'ntrace_decision.sv' ? f.content.replace("m_tcode = 6'd9;", "m_tcode = 6'd10;") : f.content);
    const m = buildNtraceModel(c, files.map((f) => join(out, f.name)));
    const records = generateStimulus(defaultKnobs(), 1, 500).records;
    const r = await cosimNtrace(m, c, records);
    expect(r.mismatch).toMatch(/^first difference at byte 0 .*\n[\s\S]*ProgTraceSync SYNC=1/);
  }, 300_000);

  it('a copy of the RTL whose repeats go out only when the counter is full is caught at a RepeatBranch', async () => {
    const sets = ['repeat_branch=1'];
    const settings = resolveSettings('test', NTRACE_SETTINGS, sets);
    const c = ntraceConfig(settings);
    const out = join(dir, 'broken-repeat');
    mkdirSync(out, { recursive: true });
    const files = renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'test', sets });
    const flush = /if \(rep_d != \S+ && s_valid_o != '0\) begin/;
    const decision = files.find((f) => f.name === 'ntrace_decision.sv')!.content;
    expect(decision).toMatch(flush);
    for (const f of files) writeFileSync(join(out, f.name), f.name === 'ntrace_decision.sv' ? decision.replace(flush, "if (1'b0) begin") : f.content);
    const m = buildNtraceModel(c, files.map((f) => join(out, f.name)));
    const r = await cosimNtrace(m, c, ntraceLoopStimulus(1, 2000));
    expect(r.mismatch).toMatch(/model message \d+ @\d+: RepeatBranch B-CNT=/);
  }, 300_000);

  /** Builds a copy of the RTL of `sets` with `file` edited (the edited text must be there). */
  function mutant(name: string, sets: string[], file: string, from: string | RegExp, to: string) {
    const settings = resolveSettings('test', NTRACE_SETTINGS, sets);
    const c = ntraceConfig(settings);
    const out = join(dir, name);
    mkdirSync(out, { recursive: true });
    const files = renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'test', sets });
    const text = files.find((f) => f.name === file)!.content;
    expect(text).toMatch(from);
    for (const f of files) writeFileSync(join(out, f.name), f.name === file ? text.replace(from, to) : f.content);
    return { c, m: buildNtraceModel(c, files.map((f) => join(out, f.name))) };
  }

  it('a copy of the RTL whose Ownership messages say FORMAT 3 (hcontext) instead of 2 is caught at the first Ownership message', async () => {
    const { c, m } = mutant('broken-own-format', ['ownership=1'], 'ntrace_decision.sv', "1'b0, rec_priv_q[1:0], 2'd2}", "1'b0, rec_priv_q[1:0], 2'd3}");
    const r = await cosimNtrace(m, c, generateStimulus({ ...defaultKnobs(), ...OWN_KNOBS }, 1, 2000).records);
    expect(r.mismatch).toMatch(/^first difference at byte 5 \(model message 1 at byte 4\)[\s\S]*model message 1 @4: Ownership PROCESS=\d+ FORMAT=2/);
  }, 300_000);

  it('a copy of the RTL whose Error message never sets ECODE bit 3 is caught at an Error message with ECODE 0xC', async () => {
    const sets = ['ownership=1', 'fifo_bytes=30'];
    const { c, m } = mutant('broken-own-ecode', sets, 'ntrace_output.sv', "own_lost_q ? Vw'(12)", "own_lost_q ? Vw'(4)");
    const r = await cosimNtrace(m, c, generateStimulus({ ...defaultKnobs(), ...OWN_KNOBS }, 3, 3000).records, { seed: 3, backpressure: 0.6 });
    expect(r.mismatch).toMatch(/model message \d+ @\d+: Error ETYPE=0 ECODE=12/);
  }, 300_000);

  it('a copy of the RTL that lets SYNC 7 enter without room for its Ownership message is caught', async () => {
    const sets = ['ownership=1', 'fifo_bytes=30'];
    const { c, m } = mutant('broken-own-pair', sets, 'ntrace_output.sv', /\(k == SlotOwn - 1 && b_sync7_q\[k\]\) \?/, "1'b0 ?");
    const r = await cosimNtrace(m, c, generateStimulus({ ...defaultKnobs(), ...OWN_KNOBS }, 3, 3000).records, { seed: 3, backpressure: 0.6 });
    expect(r.mismatch).toMatch(/^first difference/);
  }, 300_000);
});
