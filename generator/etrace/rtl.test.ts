/**
 * Quality gates of the generated E-Trace RTL on every shipped component: Verilator lint with the
 * build's flags and Yosys synthesis without latches. And short Icarus Verilog simulations of the
 * default component and of serial views: the byte stream must equal the golden model's and the
 * Verilator harness's (tb/etrace/cosim.ts, the co-simulation of tb/etrace/cosim.test.ts) for the
 * same frames.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import { ETRACE_SETTINGS, etraceConfig } from '../../golden-model/etrace/settings.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import { loadComponent } from '../../ipxact/load.ts';
import { buildEtraceModel, cosimEtrace } from '../../tb/etrace/cosim.ts';
import { etraceFrames } from '../../tb/etrace/frames.ts';
import { etraceLintWaivers, renderEtraceRtl } from './rtl.ts';
import { icarusProblems, LATCH_INFERRED, runTool as run, yosysLatchCheck } from '../tool-checks.ts';
import { renderWaivers } from '../waivers.ts';

const ETRACE_WAIVERS = 'etrace.vlt';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-rtl-'));

function configOf(name: string, sets: string[] = []): EtraceConfig {
  return etraceConfig(resolveSettings('test', ETRACE_SETTINGS, sets, loadComponent(name, ETRACE_SETTINGS).settings));
}

/** Writes the RTL of a component (with settings overridden) and returns the file names in compilation order. */
function generated(name: string, sets: string[] = []): { dir: string; files: string[] } {
  const out = join(dir, [name, ...sets].join('-').replace(/\W+/g, '-'));
  mkdirSync(out, { recursive: true });
  const banner = { component: name, inputHash: 'test', sets };
  const files = renderEtraceRtl(configOf(name, sets), banner);
  for (const f of files) writeFileSync(join(out, f.name), f.content);
  writeFileSync(join(out, ETRACE_WAIVERS), renderWaivers(ETRACE_WAIVERS, etraceLintWaivers(), banner).content);
  return { dir: out, files: files.map((f) => f.name) };
}

/**
 * Multiple retirement and several blocks a cycle (chained steps, forwarding predictors, filters and
 * comparators chained through the groups); the shipped components pass the same gates in
 * blocks/gates.test.ts. Synthesis takes minutes per step on the largest configurations, so Yosys
 * gets two-step ones of each kind and lint the four- and six-step ones too.
 */
const SYNTHESISED: [string, string[]][] = [
  ['etrace', ['retires_p=2']],
  // Multiple retirement without the data path here (it is synthesised with blocks below).
  ['etrace-rv64-full', ['taken_branches_p=2', 'data_trace_p=0']],
  ['etrace', ['taken_branches_p=2', 'filters_p=2', 'comparators_p=2', 'encap_srcid_width=12']],
  // Data filters (etrace_data_filter) with iaddr_lsbs and impdef.
  ['etrace-data', ['filters_p=2', 'comparators_p=2', 'iaddr_lsbs_width_p=2', 'impdef_width_p=4']],
  // Split loads and atomics (the outstanding-request table, the response packet).
  ['etrace-data', ['data_split_p=1']],
  // Register stages of the byte path (acceptance by reservation), two steps a cycle.
  ['etrace', ['pipeline_stages_p=1', 'taken_branches_p=2']],
  // Data trace with two signal groups a cycle (the access's packet between the groups'), RV32.
  ['etrace-data', ['taken_branches_p=2', 'dblock_width_p=1', 'payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5']],
  // Serial views: blocks of two, two a cycle, handed to a one-view encoder one view a clock, with
  // the filters and comparators working on the group in work.
  ['etrace', ['retires_p=2', 'taken_branches_p=2', 'serial_views_p=1', 'filters_p=2', 'comparators_p=2']],
];
const COMPONENTS: [string, string[]][] = [
  ...SYNTHESISED,
  ['etrace-rv64-full', ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'data_trace_p=0']],
  ['etrace-2.0', ['retires_p=2', 'iretire_width_p=3', 'taken_branches_p=3', 'filters_p=2', 'comparators_p=3']],
  // Data filters without comparators, RV32 1.1.1, the privilege wider than the choice's index.
  ['etrace-data', ['filters_p=1', 'payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5', 'privilege_width_p=4']],
  // Split loads without atomics or CSRs, one load ID; and with CSRs, no atomics, 8 load IDs, RV32.
  ['etrace-data', ['data_split_p=1', 'dtype_width_p=1', 'data_atomics_p=0', 'data_csr_p=0', 'lrid_width_p=1']],
  ['etrace-data', ['data_split_p=1', 'dtype_width_p=3', 'data_atomics_p=0', 'lrid_width_p=8', 'payload_layout=1.1.1', 'iaddress_width_p=32', 'data_width_p=32', 'ecause_width_p=5']],
  // Every pipeline depth: write stages after the concatenation, the jump target cache's choice and
  // split data responses in the byte path.
  ['etrace-rv64-full', ['pipeline_stages_p=3']],
  ['etrace-data', ['pipeline_stages_p=4', 'data_split_p=1']],
  // Data trace with two signal groups a cycle (dblock: the access's packet between the groups'),
  // split loads, filters on the access's group address; and blocks of two without stages.
  ['etrace-data', ['retires_p=4', 'iretire_width_p=4', 'taken_branches_p=2', 'dblock_width_p=1', 'data_split_p=1', 'filters_p=1', 'comparators_p=1', 'iaddr_lsbs_width_p=3']],
  ['etrace-data', ['retires_p=2', 'iretire_width_p=3', 'pipeline_stages_p=0', 'filters_p=1', 'comparators_p=1', 'iaddr_lsbs_width_p=2']],
  // Serial views: single instructions three a cycle with register stages; blocks of up to three,
  // one a cycle, every mode.
  ['etrace-2.0', ['taken_branches_p=3', 'serial_views_p=1', 'pipeline_stages_p=1']],
  ['etrace-rv64-full', ['retires_p=3', 'iretire_width_p=3', 'serial_views_p=1', 'data_trace_p=0']],
];
const label = (name: string, sets: string[]) => [name, ...sets].join(' ');

describe('generated E-Trace RTL with the tools', () => {
  it.each(COMPONENTS.map(([n, s]) => [label(n, s), n, s] as const))('%s: verilator --lint-only -Wall (with and without --assert) with the waivers of etrace.vlt reports nothing', (_l, name, sets) => {
    const g = generated(name, [...sets]);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', 'etrace_top', ETRACE_WAIVERS, ...g.files], g.dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
  });

  it.each(SYNTHESISED.map(([n, s]) => [label(n, s), n, s] as const))('%s: yosys elaborates etrace_top without latches or net problems', (_l, name, sets) => {
    const g = generated(name, [...sets]);
    const r = yosysLatchCheck(g.files, 'etrace_top', g.dir);
    expect(r.out).not.toMatch(LATCH_INFERRED);
    expect(r.out).not.toMatch(/ERROR/);
    expect(r.status, r.out.slice(-2000)).toBe(0);
  }, 240_000);
});


/**
 * An Icarus testbench: reads one frame per line (hex values of the inputs, in `inputs` order),
 * holds a frame while stall_o is 1, drives tx_ready_i from the second cycle on (the co-simulation's
 * ready offset with no back-pressure) and prints every byte that leaves.
 */
function icarusTestbench(c: EtraceConfig, inputs: string[]): string {
  const ports = etracePorts(c);
  const decl = ports
    .filter((p) => p.name !== 'clk_i' && p.name !== 'rst_ni')
    .map((p) => `  ${p.direction === 'in' ? 'logic' : 'wire '} [${p.width - 1}:0] ${p.name};`);
  const next = inputs.map((n) => `n_${n}`);
  return [
    '`timescale 1ns/1ps',
    'module tb;',
    '  logic clk_i = 1\'b0;',
    '  logic rst_ni = 1\'b0;',
    ...decl,
    ...inputs.map((n) => `  logic [${ports.find((p) => p.name === n)!.width - 1}:0] n_${n};`),
    '  integer fd, code, cycle;',
    '  logic hold;',
    `  etrace_top dut (${ports.map((p) => `.${p.name}(${p.name})`).join(', ')});`,
    '  initial begin',
    '    fd = $fopen("frames.txt", "r");',
    ...inputs.map((n) => `    ${n} = '0;`),
    '    tx_ready_i = 1\'b0;',
    '    #5 clk_i = 1\'b1; #5 clk_i = 1\'b0; rst_ni = 1\'b1;',
    '    cycle = 0;',
    '    hold = 1\'b0;',
    '    while (!$feof(fd)) begin',
    '      if (!hold) begin',
    `        code = $fscanf(fd, "${inputs.map(() => '%h').join(' ')}\\n", ${next.join(', ')});`,
    ...inputs.map((n) => `        ${n} = n_${n};`),
    '      end',
    '      tx_ready_i = cycle >= 1;',
    '      #4;',
    '      if (tx_valid_o && tx_ready_i) $display("%02x", tx_data_o);',
    '      hold = stall_o;',
    '      #1 clk_i = 1\'b1;',
    '      #5 clk_i = 1\'b0;',
    '      cycle = cycle + 1;',
    '    end',
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
}

/** The Icarus runs: the default component, and blocks of two, two a cycle, one view a clock (serial views). */
const ICARUS: [string, string[]][] = [
  ['etrace', []],
  ['etrace', ['retires_p=2', 'taken_branches_p=2', 'serial_views_p=1']],
];

describe('generated E-Trace RTL in Icarus Verilog', () => {
  it.each(ICARUS.map(([n, s]) => [label(n, s), n, s] as const))('%s: a short run gives the model\'s bytes, as the Verilator harness does', async (_l, name, sets) => {
    const c = configOf(name, [...sets]);
    const g = generated(name, [...sets]);
    const single = generateStimulus({ ...defaultKnobs(), interrupt_rate: 0.01, halt_rate: 0.002 }, 7, 600).records;
    const records = c.params.taken_branches_p > 1 ? regroupIntoBlocks(single, c.params) : single;
    // The serial case must hand over cycles of several groups (the hart held while they wait).
    if (c.params.serial_views_p === 1) expect(records.filter((r) => r.sameCycle).length).toBeGreaterThan(20);
    const expected = encodeStream(records, c, { ready: () => true });
    const inputs = etracePorts(c)
      .filter((p) => p.direction === 'in' && !['clk_i', 'rst_ni', 'tx_ready_i'].includes(p.name))
      .map((p) => p.name);
    const lines: string[] = [];
    etraceFrames(c, records, 0, (fill) => {
      const values = new Map<string, bigint>();
      fill((port, value) => values.set(port, BigInt(value)));
      lines.push(inputs.map((n) => (values.get(n) ?? 0n).toString(16)).join(' '));
    });
    writeFileSync(join(g.dir, 'frames.txt'), `${lines.join('\n')}\n`);
    writeFileSync(join(g.dir, 'tb.sv'), icarusTestbench(c, inputs));
    const compile = run('iverilog', ['-g2012', '-o', 'tb.vvp', '-s', 'tb', 'tb.sv', ...g.files], g.dir);
    expect(compile.status, compile.out).toBe(0);
    const notes = icarusProblems(compile.out);
    expect(notes).toEqual([]);
    // A zero-delay loop between always_comb blocks would hang vvp (see etrace_encoder's header).
    const sim = run('vvp', ['-n', 'tb.vvp'], g.dir, 30_000);
    expect(sim.status, sim.out.slice(-2000)).toBe(0);
    const bytes = sim.out.split('\n').filter((l) => /^[0-9a-f]{2}$/.test(l)).map((l) => parseInt(l, 16));
    expect(expected.bytes.length).toBeGreaterThan(100);
    expect(bytes).toEqual(Array.from(expected.bytes));
    // The same records through the Verilator harness (a cached build of the same files).
    const verilator = await cosimEtrace(buildEtraceModel(c, g.files.map((f) => join(g.dir, f))), c, records);
    expect(Array.from(verilator.actual)).toEqual(bytes);
  }, 120_000);
});

describe('etrace_top parameters', () => {
  it('records the component parameters as localparams with their generated values: no parameter to override', () => {
    const g = generated('etrace');
    const top = readFileSync(join(g.dir, 'etrace_top.sv'), 'utf8');
    expect(top).toContain('module etrace_top (\n');
    expect(top).toMatch(/\n {2}localparam int fifo_depth_p +=  ?64;\n/);
    expect(top).toMatch(/\n {2}localparam int iaddress_width_p +=  ?64;\n/);
    expect(top).not.toMatch(/\bparameter\b/);
    expect(top).not.toMatch(/\$fatal/);
  });

  it('etrace.vlt: every waiver has a reason, and the tools that read the filelist besides Verilator see nothing', () => {
    const g = generated('etrace');
    const vlt = readFileSync(join(g.dir, ETRACE_WAIVERS), 'utf8').split('\n');
    vlt.forEach((l, i) => {
      if (l.startsWith('lint_off')) expect(vlt[i - 1], l).toMatch(/^\/\/ /);
    });
    expect(run('iverilog', ['-g2012', '-o', 'w.vvp', '-s', 'etrace_top', ETRACE_WAIVERS, ...g.files], g.dir).status).toBe(0);
  });
});
