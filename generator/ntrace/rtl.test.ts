/**
 * Quality gates of the generated N-Trace RTL: deterministic to the byte; ntrace_top has exactly the
 * ports of the port contract; Verilator lint with and without --assert (with ntrace.vlt) reports
 * nothing; Icarus Verilog elaborates it; Yosys's elaboration (yosysLatchCheck) leaves no latch
 * (cells are counted in workloads/gates.ts and `rvtrace bench`). Options a configuration disables
 * generate nothing; an option the RTL does not implement is refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { NTRACE_TOP_MODULE, ntracePorts } from '../../golden-model/ntrace/ports.ts';
import { NTRACE_SETTINGS, ntraceConfig, validateNtraceSettings } from '../../golden-model/ntrace/settings.ts';
import { icarusProblems, LATCH_INFERRED, runTool as run, yosysLatchCheck } from '../tool-checks.ts';
import { renderWaivers } from '../waivers.ts';
import { ntraceLintWaivers, ntraceRtlFiles, renderNtraceRtl } from './rtl.ts';

const WAIVERS = 'ntrace.vlt';

const CONFIGS: Record<string, string[]> = {
  htm: [],
  btm: ['ntrace_mode=btm'],
  'htm-deferred-plain': ['hist_full=deferred', 'empty_hist_indirect=plain'],
  'rv32-btm': ['xlen=32', 'ntrace_mode=btm'],
  'htm-every-option': ['hist_full=deferred', 'icnt_width=22', 'sync_period=1000', 'src_width=12', 'src=4095', 'timestamp=1', 'address_msb_drop=1'],
  'htm-counter': ['implicit_return=counter', 'call_stack_size=64', 'hist_full=deferred'],
  'htm-stack64': ['implicit_return=stack', 'call_stack_size=64', 'hist_full=deferred', 'empty_hist_indirect=plain'],
  'rv32-btm-stack1': ['xlen=32', 'ntrace_mode=btm', 'implicit_return=stack', 'call_stack_size=1', 'sync_period=3'],
  'htm-stack3-stall': ['implicit_return=stack', 'call_stack_size=3', 'stall_enable=1', 'fifo_bytes=33', 'timestamp=1'],
  // The configuration of the ntrace component: HTM, a return-address stack of 8, both repeats.
  'htm-stack8-repeats': ['implicit_return=stack', 'call_stack_size=8', 'repeat_branch=1', 'repeat_history=1'],
  'btm-repeat-branch': ['ntrace_mode=btm', 'repeat_branch=1', 'timestamp=1', 'sync_period=4'],
  'htm-deferred-repeat-history-stall': ['hist_full=deferred', 'repeat_history=1', 'timestamp=1', 'stall_enable=1', 'fifo_bytes=33'],
  // Multiple retirement: blocks one a clock; several a cycle; ResourceFull(I-CNT) pieces.
  'htm-blocks4': ['retires_p=4', 'iretire_width_p=4', 'hist_full=deferred', 'sync_period=9'],
  'htm-stack8-repeats-blocks8x3': ['retires_p=8', 'iretire_width_p=5', 'taken_branches_p=3', 'implicit_return=stack', 'call_stack_size=8', 'repeat_branch=1', 'repeat_history=1', 'timestamp=1', 'address_msb_drop=1'],
  'rv32-btm-blocks2x2-pieces-stack-repeat-stall': ['xlen=32', 'ntrace_mode=btm', 'retires_p=2', 'iretire_width_p=3', 'taken_branches_p=2', 'icnt_width=1', 'implicit_return=stack', 'call_stack_size=2', 'repeat_branch=1', 'stall_enable=1', 'fifo_bytes=17'],
  'rv32-btm-options': ['xlen=32', 'ntrace_mode=btm', 'icnt_width=1', 'sync_period=1', 'src_width=1', 'src=1', 'timestamp=1', 'address_msb_drop=1'],
  'btm-fifo17': ['ntrace_mode=btm', 'fifo_bytes=17'],
  'htm-stall': ['stall_enable=1', 'fifo_bytes=22'],
  'htm-every-option-stall': ['hist_full=deferred', 'icnt_width=22', 'sync_period=1000', 'src_width=12', 'src=4095', 'timestamp=1', 'address_msb_drop=1', 'stall_enable=1'],
  // Ownership messages: the OWN slot, the SYNC 7 + Ownership pair and ECODE bit 3 (or stall); a
  // context of 0 bits (no context_i), of XLEN bits (PROCESS wider than every other field).
  'htm-ownership': ['ownership=1'],
  'rv32-btm-ownership16-fifo17': ['xlen=32', 'ntrace_mode=btm', 'ownership=1', 'context_width=16', 'fifo_bytes=17'],
  'btm-ownership0-stall': ['ntrace_mode=btm', 'ownership=1', 'context_width=0', 'stall_enable=1', 'fifo_bytes=18'],
  'htm-ownership64-blocks3x2-timestamps': ['ownership=1', 'context_width=64', 'retires_p=3', 'iretire_width_p=3', 'taken_branches_p=2', 'timestamp=1'],
  'rv32-htm-ownership-every-option': ['xlen=32', 'ownership=1', 'hist_full=deferred', 'implicit_return=stack', 'call_stack_size=4', 'repeat_branch=1', 'repeat_history=1', 'sync_period=5', 'src_width=4', 'src=1', 'timestamp=1', 'address_msb_drop=1'],
};
const NAMES = Object.keys(CONFIGS);
/**
 * Yosys takes seconds to minutes per configuration (the every-option ones about two minutes): the
 * latch check runs on the small configurations that still cover the loss path (a FIFO of 17), the
 * stall path and RV32, on a small one with the return-address stack, RepeatBranch, blocks of
 * two a cycle and ResourceFull(I-CNT) pieces, and on a small one with Ownership messages. Cells and the longest path are figures for the
 * bench, not for a test.
 */
// The shipped components are synthesised by blocks/gates.test.ts (ntrace-full has every option but the
// stall); here the stall with blocks, return stack and repeats (each synthesis takes a minute or more).
const SYNTHESISED = ['rv32-btm-blocks2x2-pieces-stack-repeat-stall'];

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-rtl-'));

function render(name: string) {
  const sets = CONFIGS[name]!;
  const s = resolveSettings('test', NTRACE_SETTINGS, sets);
  expect(validateNtraceSettings(s)).toEqual([]);
  const c = ntraceConfig(s);
  const provenance = { component: 'ntrace', inputHash: 'test', sets };
  return { c, files: [...renderNtraceRtl(c, s, provenance), renderWaivers(WAIVERS, ntraceLintWaivers(), provenance)] };
}

function generated(name: string): { dir: string; sv: string[] } {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  for (const f of render(name).files) writeFileSync(join(out, f.name), f.content);
  return { dir: out, sv: ntraceRtlFiles() };
}


describe('generated N-Trace RTL', () => {
  it.each(NAMES)('%s: deterministic to the byte; no absolute paths or dates', (name) => {
    const a = render(name).files;
    expect(render(name).files).toEqual(a);
    expect(a.map((f) => f.name)).toEqual([...ntraceRtlFiles(), WAIVERS]);
    for (const f of a) expect(f.content, f.name).not.toMatch(/\/tmp|\/work|\d{4}-\d\d-\d\d/);
  });

  it.each(NAMES)('%s: ntrace_top has exactly the ports of ntracePorts; comments cite no TypeScript; no module parameters', (name) => {
    const { c, files } = render(name);
    const top = files.find((f) => f.name === 'ntrace_top.sv')!.content;
    const header = top.slice(top.indexOf('module ntrace_top ('), top.indexOf('\n);'));
    const decls = [...header.matchAll(/^\s+(input|output)\s+logic\s*(?:\[(\d+):0\])?\s+(\w+),?$/gm)].map((m) => ({
      name: m[3],
      direction: m[1] === 'input' ? 'in' : 'out',
      width: m[2] === undefined ? 1 : Number(m[2]) + 1,
    }));
    expect(decls).toEqual(ntracePorts(c).map((p) => ({ name: p.name, direction: p.direction, width: p.width })));
    for (const f of files) {
      expect(f.content.split('\n').filter((l) => /\.ts\b|golden-model|generator\/|docs\//.test(l)), f.name).toEqual([]);
      expect(f.content, f.name).not.toMatch(/(?<!local)parameter\b/);
    }
  });

  it('disabled options generate nothing', () => {
    const sv = (name: string) => render(name).files.map((f) => f.content).join('\n');
    const btm = sv('btm');
    for (const s of ['hist_q', 'hfp_q', 'since_q', 'calls_q', 'ras_', 'PendReturn', 'rep_q', 'SlotRep*', 'tstamp_i', 'addr_length', "6'd28", "6'd29", "6'd30"]) expect(btm, s).not.toContain(s);
    const htm = sv('htm');
    for (const s of ['hfp_q', 'since_q', 'tstamp_i', 'addr_length', 'PendDirect;\n', 'rep_q', 'last_q', 'SlotRep*', "6'd30"]) expect(htm, s).not.toContain(s);
    // Repeats: the counter and the Rep slot; the state of each kind only with its option.
    const both = sv('htm-stack8-repeats');
    for (const s of ['rep_q', 'SlotRep*', 'lb_hist_q', 'lhf_q', "6'd30", "s_fix_o[SlotRep*6 +: 6] = 6'd2;"]) expect(both, s).toContain(s);
    const rb = sv('btm-repeat-branch');
    for (const s of ['rep_q', 'lb_icnt_q', 'rep_time_q', "6'd30"]) expect(rb, s).toContain(s);
    for (const s of ['lhf_q', 'lb_hist_q', 'LastHistFull', "= 6'd2;"]) expect(rb, s).not.toContain(s);
    const rh = sv('htm-deferred-repeat-history-stall');
    for (const s of ['rep_q', 'lhf_q', "s_fix_o[SlotRep*6 +: 6] = 6'd2;"]) expect(rh, s).toContain(s);
    for (const s of ['lb_icnt_q', 'LastIndirect', "6'd30"]) expect(rh, s).not.toContain(s);
    const all = sv('htm-every-option');
    for (const s of ['hfp_q', 'since_q', 'tstamp_i', 'addr_length']) expect(all, s).toContain(s);
    expect(sv('htm-counter')).toContain('calls_q');
    expect(sv('htm-counter')).not.toContain('ras_');
    for (const s of ['ras_q', 'ras_top_q', 'ras_pred_q', 'PendReturn']) expect(sv('htm-stack64'), s).toContain(s);
    expect(sv('htm-stack64')).not.toContain('calls_q');
    // A one-entry stack has no top pointer.
    expect(sv('rv32-btm-stack1')).toContain('ras_q');
    expect(sv('rv32-btm-stack1')).not.toContain('ras_top');
    // Loss (Error, SYNC 7) or stall: only the one the configuration has.
    for (const s of ['state_q', 'recover', 'SyncOverrun', 'u_err']) {
      expect(sv('htm-every-option-stall'), s).not.toContain(s);
      expect(htm, s).toContain(s);
    }
    // The Error message's TSTAMP with timestamps only; the stage that holds the TSTAMPs with them.
    for (const s of ['err_ts_q', 't_nvar_q']) {
      expect(all, s).toContain(s);
      expect(htm, s).not.toContain(s);
    }
    expect(htm).not.toContain('sent_q');
    expect(sv('htm-stall')).toContain('sent_q');
    // Multiple retirement: the block's last instruction size, the waiting groups and the I-CNT
    // pieces only where the configuration has them.
    for (const s of ['ilastsize_q', 'r_last', 'more =', 'SlotIcnt + j']) expect(htm, s).not.toContain(s);
    const blocks = sv('htm-blocks4');
    for (const s of ['rec_ilastsize_q', 'r_last']) expect(blocks, s).toContain(s);
    for (const s of ['more =', 'SlotIcnt + j']) expect(blocks, s).not.toContain(s);
    const groups = sv('rv32-btm-blocks2x2-pieces-stack-repeat-stall');
    for (const s of ['rec_ilastsize_q', 'more =', 'SlotIcnt + j', 'trigger_i[3], trigger_i[0]']) expect(groups, s).toContain(s);
    // Ownership messages: the OWN slot and its state; with loss also the pair rule and ECODE bit 3;
    // context_i only with context bits.
    for (const s of ['ctype_i', 'context_i', 'own_priv_q', 'SlotOwn', 'PhOwn', 'own_sync', 'own_lost_q', "Vw'(12)"]) expect(htm, s).not.toContain(s);
    expect(htm).toContain('unused_inputs = ^{priv_i, ilastsize_i, trigger_i[2]};');
    const own = sv('htm-ownership');
    for (const s of ['ctype_i', 'context_i', 'own_priv_q', 'SlotOwn', 'PhOwn', 'own_sync', 'own_lost_q', "Vw'(12)", "6'd2;"]) expect(own, s).toContain(s);
    expect(own).toContain('unused_inputs = ^{ilastsize_i, trigger_i[2]};');
    const ownStall = sv('btm-ownership0-stall');
    for (const s of ['ctype_i', 'own_priv_q', 'SlotOwn']) expect(ownStall, s).toContain(s);
    for (const s of ['context_i', 'rec_ctx_q', 'own_sync', 'own_lost_q']) expect(ownStall, s).not.toContain(s);
  });

  it('every value of every choice and switch of the model generates RTL (nothing is refused)', () => {
    for (const spec of NTRACE_SETTINGS) {
      for (const v of spec.kind === 'choice' ? spec.choices! : spec.kind === 'bool' ? ['0', '1'] : []) {
        const sets = [`${spec.name}=${v}`];
        const s = resolveSettings('test', NTRACE_SETTINGS, sets);
        if (validateNtraceSettings(s).length > 0) continue;
        expect(renderNtraceRtl(ntraceConfig(s), s, { component: 'ntrace', inputHash: 'test', sets }).length, sets[0]).toBe(ntraceRtlFiles().length);
      }
    }
  });

  it.each(NAMES)('%s: verilator --lint-only -Wall (with and without --assert) reports nothing; iverilog elaborates it', (name) => {
    const g = generated(name);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', NTRACE_TOP_MODULE, WAIVERS, ...g.sv], g.dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    const ivl = run('iverilog', ['-g2012', '-o', 'top.vvp', '-s', NTRACE_TOP_MODULE, WAIVERS, ...g.sv], g.dir);
    expect(ivl.status, ivl.out).toBe(0);
    expect(icarusProblems(ivl.out)).toEqual([]);
  }, 120_000);

  it.each(SYNTHESISED)('%s: yosys elaborates ntrace_top without latches or net problems', (name) => {
    const g = generated(name);
    const y = yosysLatchCheck(g.sv, NTRACE_TOP_MODULE, g.dir);
    expect(y.out).not.toMatch(LATCH_INFERRED);
    expect(y.out).not.toMatch(/ERROR/);
    expect(y.status, y.out.slice(-2000)).toBe(0);
  }, 600_000);
});
