/**
 * ntrace_apb_regs on its own: Verilator lint, Yosys without latches, and its behaviour in Icarus
 * cycle by cycle against the register model of golden-model/ntrace/registers.ts
 * (NtraceControlRegisters) for a random sequence of frames with fixed seeds: APB reads and writes
 * of every register and of addresses without one (byte strobes, data patterns), the hart's
 * trace-on/off triggers, halted and reset records, frames held for cycles (taken_i = 0), the FIFO
 * status, stalls and (without stall) the recover signal of the output FIFO.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../golden-model/common/rng.ts';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { emptyRecord, Trigger } from '../../golden-model/hart/records.ts';
import { NtraceControlRegisters, registerAddresses } from '../../golden-model/ntrace/registers.ts';
import { NTRACE_SETTINGS, ntraceConfig, type NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { commentBanner, renderTemplate } from '../render.ts';
import { alignDeclarations } from '../sv-align.ts';
import { NTRACE_APB_REGS_TEMPLATE, ntraceApbRegsContext } from './apb-regs.ts';
import { icarusProblems, LATCH_INFERRED, runTool as run } from '../tool-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-regs-'));

const CASES = [
  { label: 'htm', sets: [] as string[] },
  { label: 'btm-stall-timestamp-src', sets: ['ntrace_mode=btm', 'stall_enable=1', 'timestamp=1', 'src_width=4', 'src=9', 'sync_period=64'] },
];

const configOf = (sets: string[]): NtraceConfig => ntraceConfig(resolveSettings('test', NTRACE_SETTINGS, sets));

function generated(label: string, c: NtraceConfig): string {
  const out = join(dir, label);
  mkdirSync(out, { recursive: true });
  const file = join(out, 'ntrace_apb_regs.sv');
  const banner = commentBanner({ component: 'ntrace', inputHash: 'test', sets: [] }, '//');
  writeFileSync(file, alignDeclarations(renderTemplate(NTRACE_APB_REGS_TEMPLATE, ntraceApbRegsContext(c, banner))));
  return file;
}


describe('ntrace_apb_regs with the tools', () => {
  it.each(CASES)('$label: verilator --lint-only -Wall (with and without --assert) reports nothing; yosys finds no latch', ({ label, sets }) => {
    const file = generated(label, configOf(sets));
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, file], dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    // Full synthesis (not yosysLatchCheck): the flops are counted after mapping.
    const script = `read_verilog -sv ${file}; synth -top ntrace_apb_regs; select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_*; check -assert; stat`;
    const y = run('yosys', ['-p', script], dir);
    expect(y.out).not.toMatch(LATCH_INFERRED);
    expect(y.status, y.out.slice(-2000)).toBe(0);
    // Only the six (seven with recover) state bits are flops: the constants cost none.
    const stat = y.out.slice(y.out.lastIndexOf('Printing statistics'));
    const flops = [...stat.matchAll(/\$_\w*DFF\w*\s+(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(flops).toBe(configOf(sets).stallEnable ? 6 : 7);
  });
});

// ---------------------------------------------------------------------------------------------

interface Cycle {
  psel: number; penable: number; pwrite: number; paddr: number; pwdata: number; pstrb: number;
  taken: number; halted: number; reset: number; on: number; off: number; empty: number; stalled: number; recover: number;
  /** Frame number printed on the cycle the frame is taken. */
  frame: number;
}

/** Frames with random accesses, triggers, holds and status; returns the cycles and the expected lines. */
function stimulus(c: NtraceConfig, seed: number, frames: number): { cycles: Cycle[]; expected: string[] } {
  const rng = new Rng(seed);
  const regs = new NtraceControlRegisters(c);
  const addresses = [...registerAddresses(c), 0x002, 0x014, 0x044, 0xffc];
  const cycles: Cycle[] = [];
  const expected: string[] = [];
  let recover = 0;
  // One access every two frames: setup in frame f, access in f + 1.
  let access: { write: boolean; address: number; data: number; strb: number } | undefined;
  for (let f = 0; f < frames; f++) {
    const setup = access === undefined && rng.chance(0.6)
      ? (() => {
          const control = rng.chance(0.5);
          const address = control ? 0 : rng.pick(addresses);
          const data = control ? rng.pick([0b000, 0b001, 0b011, 0b111, 0b110, 0b101, 0x1000, 0x1007, 0xffff_ffff, rng.u32()]) : rng.u32();
          const strb = rng.pick([0b0001, 0b0010, 0b0011, 0b1111, 0b0000, 0b1100, rng.int(0, 15)]);
          return { write: rng.chance(0.5), address, data, strb };
        })()
      : undefined;
    const phase = access !== undefined ? access : setup;
    const halted = rng.chance(0.1) ? 1 : 0;
    const reset = !halted && rng.chance(0.08) ? 1 : 0;
    const trig = rng.chance(0.3) ? rng.int(0, 7) : 0;
    const empty = rng.chance(0.5) ? 1 : 0;
    const stalled = rng.chance(0.05) ? 1 : 0;
    const nextRecover = c.stallEnable ? 0 : rng.chance(0.2) ? 1 - recover : recover;
    const base = {
      psel: phase ? 1 : 0, penable: access ? 1 : 0, pwrite: phase?.write ? 1 : 0, paddr: phase?.address ?? 0,
      pwdata: phase?.write ? phase.data >>> 0 : 0, pstrb: phase?.write ? phase.strb : 0,
      halted, reset, on: trig & 1, off: (trig >> 1) & 1, empty, frame: f,
    };
    // Held cycles first (no status events, recover unchanged), then the cycle the frame is taken.
    const holds = rng.chance(0.2) ? rng.int(1, 3) : 0;
    for (let h = 0; h < holds; h++) cycles.push({ ...base, taken: 0, stalled: 0, recover });
    cycles.push({ ...base, taken: 1, stalled, recover: nextRecover });

    // The model, in the order the RTL computes the cycle: access, record, status set.
    regs.empty = empty === 1;
    let resp = { data: 0, error: false };
    if (access !== undefined) resp = access.write ? regs.write(access.address, access.data, access.strb) : regs.read(access.address);
    const out = regs.take({ ...emptyRecord(), iretire: 2, halted: halted === 1, reset: reset === 1, trigger: trig });
    if (stalled || (nextRecover && !recover)) regs.stallOrOverflow = true;
    recover = nextRecover;
    const on = (out.trigger & Trigger.traceOn) !== 0 ? 1 : 0;
    const off = (out.trigger & Trigger.traceOff) !== 0 ? 1 : 0;
    expected.push(access !== undefined
      ? `F ${f} ${on} ${off} ${(resp.data >>> 0).toString(16).padStart(8, '0')} ${resp.error ? 1 : 0}`
      : `F ${f} ${on} ${off}`);
    access = access !== undefined ? undefined : setup;
  }
  return { cycles, expected };
}

function testbench(c: NtraceConfig, cycles: Cycle[]): string {
  const hex = (v: number, d: number): string => v.toString(16).padStart(d, '0');
  const body = cycles.map((k) =>
    `    cyc(${k.psel}, ${k.penable}, ${k.pwrite}, 12'h${hex(k.paddr, 3)}, 32'h${hex(k.pwdata, 8)}, 4'h${hex(k.pstrb, 1)}, ${k.taken}, ${k.halted}, ${k.reset}, ${k.on}, ${k.off}, ${k.empty}, ${k.stalled}, ${k.recover}, ${k.frame});`);
  return `module tb;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
  logic [11:0] paddr = 12'h0;
  logic [31:0] pwdata = 32'h0;
  logic [3:0] pstrb = 4'h0;
  logic taken = 1'b0, halted = 1'b0, reset = 1'b0, on = 1'b0, off = 1'b0, empty = 1'b1, stalled = 1'b0, recover = 1'b0;
  logic [31:0] prdata;
  logic pready, pslverr, on_o, off_o;
  always #5 clk = ~clk;
  ntrace_apb_regs dut (.clk_i(clk), .rst_ni(rst_n), .paddr_i(paddr), .psel_i(psel), .penable_i(penable), .pwrite_i(pwrite),
    .pwdata_i(pwdata), .pstrb_i(pstrb), .prdata_o(prdata), .pready_o(pready), .pslverr_o(pslverr),
    .taken_i(taken), .halted_i(halted), .reset_i(reset), .trace_on_i(on), .trace_off_i(off),
    .fifo_empty_i(empty), .stalled_i(stalled),${c.stallEnable ? '' : ' .recover_i(recover),'} .trace_on_o(on_o), .trace_off_o(off_o));
  task automatic cyc(input logic ps, pe, pw, input logic [11:0] a, input logic [31:0] d, input logic [3:0] s,
                     input logic tk, h, r, tn, tf, em, st, rc, input int f);
    @(negedge clk);
    psel = ps; penable = pe; pwrite = pw; paddr = a; pwdata = d; pstrb = s;
    taken = tk; halted = h; reset = r; on = tn; off = tf; empty = em; stalled = st; recover = rc;
    #1 if (pready !== 1'b1) $display("pready low");
    if (tk && ps && pe) $display("F %0d %0d %0d %h %0d", f, on_o, off_o, prdata, pslverr);
    else if (tk) $display("F %0d %0d %0d", f, on_o, off_o);
  endtask
  initial begin
    #12 rst_n = 1'b1;
${body.join('\n')}
    $finish;
  end
endmodule
`;
}

describe('ntrace_apb_regs behaviour (Icarus) against NtraceControlRegisters', () => {
  it.each(CASES.flatMap((k) => [1, 2].map((seed) => ({ ...k, seed }))))('$label, seed $seed: 1500 frames cycle by cycle', ({ label, sets, seed }) => {
    const c = configOf(sets);
    const file = generated(label, c);
    const { cycles, expected } = stimulus(c, seed, 1500);
    const tb = join(dir, label, `tb${seed}.sv`);
    writeFileSync(tb, testbench(c, cycles));
    const vvp = join(dir, label, `tb${seed}.vvp`);
    const compile = run('iverilog', ['-g2012', '-o', vvp, '-s', 'tb', tb, file], dir);
    expect(compile.status, compile.out).toBe(0);
    expect(icarusProblems(compile.out)).toEqual([]);
    const sim = run('vvp', ['-n', vvp], dir);
    expect(sim.status).toBe(0);
    const lines = sim.out.split('\n').filter((l) => /^F /.test(l) || /error|pready|assert/i.test(l));
    for (let i = 0; i < expected.length; i++) expect(lines[i], `frame ${i}`).toBe(expected[i]);
    expect(lines.length).toBe(expected.length);
    // The sequence shows something: errors, trace requests passed on, trTeInstTracing both ways.
    expect(expected.some((l) => l.endsWith(' 1') && l.split(' ').length === 6)).toBe(true);
    expect(expected.filter((l) => l.split(' ')[2] === '1').length).toBeGreaterThan(20);
    expect(expected.filter((l) => l.split(' ')[3] === '1').length).toBeGreaterThan(20);
  }, 120_000);
});
