import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { svAtOrAboveAt, svChunkedIncrement, svConditionalSumAdd, svConditionalSumFunction, svHighestSetBitTree, svSmallOffsetAdd, svThermometerValue } from './sv-arith.ts';
import { DEPTH_GOAL, parseLongestPath, synthesizeWithDepth } from './synthesis.ts';
import { runTool } from './tool-checks.ts';

/**
 * A chain of `n` XOR gates between two flops, inside an instance of its own module. Every link is a
 * kept wire, so ABC maps each XOR to one gate and cannot rebalance the chain into a tree: the
 * measured depth must be exactly `n`.
 */
function chainDesign(n: number): Record<string, string> {
  return {
    'chain_xors.sv': `module chain_xors (
  input  logic         clk_i,
  input  logic [${n}:0] a_i,
  output logic         y_o
);
  logic [${n}:0] a_q;
  (* keep *) logic [${n}:0] link;
  always_ff @(posedge clk_i) a_q <= a_i;
  assign link[0] = a_q[0];
  for (genvar i = 0; i < ${n}; i++) begin : gen_link
    assign link[i + 1] = link[i] ^ a_q[i + 1];
  end
  assign y_o = link[${n}];
endmodule
`,
    'chain_top.sv': `module chain_top (
  input  logic         clk_i,
  input  logic [${n}:0] a_i,
  output logic         y_o
);
  logic chain_out, out_q;
  chain_xors u_chain (
    .clk_i(clk_i),
    .a_i  (a_i),
    .y_o  (chain_out)
  );
  always_ff @(posedge clk_i) out_q <= chain_out;
  assign y_o = out_q;
endmodule
`,
  };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('synthesize: logic depth as two-input gate levels', () => {
  for (const n of [5, 23]) {
    it(`a chain of ${n} XOR gates between flops measures ${n}, from the chain's flops to the top's`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'rvtrace-depth-'));
      dirs.push(dir);
      const files = chainDesign(n);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      const r = synthesizeWithDepth(dir, ['chain_xors.sv', 'chain_top.sv'], 'chain_top');
      expect(r.depth).toBe(n);
      expect(r.from).toMatch(/^chain_xors \(u_chain\.a_q\)$/);
      expect(r.to).toBe('chain_top (out_q)');
      // At least the n + 1 input flops, the output flop and the n XORs.
      expect(r.cells).toBeGreaterThanOrEqual(n + 1 + 1 + n);
    }, 120_000);
  }
});

/** A `width`-bit counter between flops whose next value is `inc` (rows of continuous assignments). */
function counterDesign(width: number, inc: readonly string[]): string {
  return `module counter_top (
  input  logic              clk_i,
  input  logic [${width - 1}:0] load_i,
  input  logic              load_en_i,
  output logic [${width - 1}:0] count_o
);
  logic [${width - 1}:0] count_q, count_inc;
  ${inc.join('\n  ')}
  always_ff @(posedge clk_i) count_q <= load_en_i ? load_i : count_inc;
  assign count_o = count_q;
endmodule
`;
}

/**
 * Icarus runs a testbench with `declarations` and the `rows` under test: inside the nested `loops`
 * (for headers) it applies `stimulus`, waits, and counts the iterations in which `check` (true when
 * the rows are right) fails. Returns the simulator's output, with the line "errors N".
 */
function icarusErrors(declarations: string, rows: readonly string[], loops: readonly string[], stimulus: string, check: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-arith-'));
  dirs.push(dir);
  const body = `${stimulus}\n      #1;\n      if (!(${check})) errors++;`;
  const nested = loops.reduceRight((inner, header) => `${header} begin\n      ${inner}\n    end`, body);
  writeFileSync(
    join(dir, 'tb.sv'),
    `module tb;
  ${declarations}
  int errors = 0;
  ${rows.join('\n  ')}
  initial begin
    ${nested}
    $display("errors %0d", errors);
    $finish;
  end
endmodule
`,
  );
  expect(runTool('iverilog', ['-g2012', '-o', 'tb.vvp', 'tb.sv'], dir).status).toBe(0);
  return runTool('vvp', ['tb.vvp'], dir).out;
}

describe('svChunkedIncrement: a counter + 1 with a short path', () => {
  it('counts like + 1 at every value of a 12-bit counter in chunks of 4, wrapping (Icarus: the rows against its own +)', () => {
    const out = icarusErrors('logic [11:0] value, inc;', svChunkedIncrement('inc', 'value', 12, 4), ['for (int v = 0; v < 4096; v++)'], 'value = v[11:0];', "inc === 12'(v + 1)");
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);

  it('svSmallOffsetAdd: a 12-bit value plus every 5-bit two\'s complement offset, in chunks of 4 (Icarus: the rows against its own +)', () => {
    const add = svSmallOffsetAdd('sum', 'value', 12, 'offset', 5, 4);
    const loops = ['for (int v = 0; v < 4096; v++)', 'for (int o = -16; o < 16; o++)'];
    const out = icarusErrors('logic [11:0] value, sum;\n  logic [4:0] offset;', [...add.declarations, ...add.rows], loops, 'value = v[11:0];\n      offset = o[4:0];', "sum === 12'(v + o)");
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);

  it('a 64-bit counter: at most 16 gate levels, where value + 1 misses the 48-level goal', () => {
    const depth = (inc: readonly string[]) => {
      const dir = mkdtempSync(join(tmpdir(), 'rvtrace-inc-depth-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'counter_top.sv'), counterDesign(64, inc));
      return synthesizeWithDepth(dir, ['counter_top.sv'], 'counter_top').depth;
    };
    expect(depth(['assign count_inc = count_q + 1\'b1;'])).toBeGreaterThan(DEPTH_GOAL);
    expect(depth(svChunkedIncrement('count_inc', 'count_q', 64))).toBeLessThanOrEqual(16);
  }, 300_000);
});

describe('parseLongestPath', () => {
  it('reads the length and both ends of an ltp report, bit indexes and ABC names dropped', () => {
    const text = [
      'Longest topological path in etrace_top (length=3):',
      '    0: \\u_encoder.c_addr_q [0]',
      '    1: $abc$1$new_n2_ (via $abc$1$auto$blifparse.cc:386:parse_blif$2)',
      '    2: $abc$1$new_n3_ (via $abc$1$auto$blifparse.cc:386:parse_blif$3)',
      '    3: $abc$1$y[1] (via $abc$1$auto$blifparse.cc:386:parse_blif$4)',
      '   ff: \\u_fifo.mem_q[20] [3] (via $auto$ff.cc:266:slice$5)',
    ].join('\n');
    expect(parseLongestPath(text)).toEqual({ length: 3, from: 'u_encoder.c_addr_q', to: 'u_fifo.mem_q' });
    expect(parseLongestPath('no path here')).toBeUndefined();
  });
});

describe('svConditionalSumAdd: a wide add or subtract with a short path', () => {
  it('adds every pair of 7-bit values with carry-in 0 and 1, and its carry-out is the sum\'s bit 7 (Icarus: the rows against its own +)', () => {
    const add = svConditionalSumAdd('sum', 'a', 'b', 7, { carryIn: 'cin', carryOut: 'cout' });
    const loops = ['for (int x = 0; x < 128; x++)', 'for (int y = 0; y < 128; y++)', 'for (int c = 0; c < 2; c++)'];
    const out = icarusErrors('logic [6:0] a, b, sum;\n  logic cin, cout;', [...add.declarations, ...add.rows], loops, 'a = x[6:0];\n      b = y[6:0];\n      cin = c[0];', "{cout, sum} === 8'(x + y + c)");
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);

  it('subtracts every pair of 8-bit values as a + ~b + 1, its carry-out saying a >= b (Icarus: the rows against its own - and >=)', () => {
    const sub = svConditionalSumAdd('diff', 'a', '~b', 8, { carryIn: "1'b1", carryOut: 'ge' });
    const loops = ['for (int x = 0; x < 256; x++)', 'for (int y = 0; y < 256; y++)'];
    const out = icarusErrors('logic [7:0] a, b, diff;\n  logic ge;', [...sub.declarations, ...sub.rows], loops, 'a = x[7:0];\n      b = y[7:0];', "diff === 8'(x - y) && ge === (x >= y)");
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);

  it('a 64-bit subtract: at most 20 gate levels, where a - b misses the 48-level goal', () => {
    const depth = (rows: readonly string[], declarations: readonly string[] = []) => {
      const dir = mkdtempSync(join(tmpdir(), 'rvtrace-sub-depth-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'sub_top.sv'), subtractDesign(64, declarations, rows));
      return synthesizeWithDepth(dir, ['sub_top.sv'], 'sub_top').depth;
    };
    expect(depth(['assign diff = a_q - b_q;'])).toBeGreaterThan(DEPTH_GOAL);
    const sub = svConditionalSumAdd('diff', 'a_q', '~b_q', 64, { carryIn: "1'b1" });
    expect(depth(sub.rows, sub.declarations)).toBeLessThanOrEqual(20);
  }, 300_000);
});

describe('svConditionalSumFunction, svAtOrAboveAt and svHighestSetBitTree', () => {
  it('the function form returns {carry, a + b + carry_in} for every pair of 6-bit values and both carry-ins (Icarus)', () => {
    const loops = ['for (int x = 0; x < 64; x++)', 'for (int y = 0; y < 64; y++)', 'for (int c = 0; c < 2; c++)'];
    const fn = svConditionalSumFunction('add6', 6);
    const out = icarusErrors('logic [6:0] result;', fn, loops, 'result = add6(x[5:0], y[5:0], c[0]);', "result === 7'(x + y + c)");
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);

  it.each([
    { positions: [0, 3, 4, 7], label: 'four positions from bit 0' },
    { positions: [2, 9], label: 'two positions, the top bit one of them' },
    { positions: [5], label: 'one position' },
  ])('svAtOrAboveAt gives, for every 10-bit value, the OR of the bits at and above each position asked for ($label; Icarus: against a shift)', ({ positions }) => {
    const h = svAtOrAboveAt('top', 'value', 10, positions);
    const decls = 'logic [9:0] value;';
    const check = positions.map((p) => `${h.at(p)} === |(value >> ${p})`).join(' && ');
    const out = icarusErrors(decls, [...h.declarations, ...h.rows], ['for (int v = 0; v < 1024; v++)'], 'value = v[9:0];', check);
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);

  it('svAtOrAboveAt refuses a position outside the value and names one it was not asked for', () => {
    expect(() => svAtOrAboveAt('top', 'value', 10, [10])).toThrow(/positions must lie in \[0, 9\]/);
    expect(() => svAtOrAboveAt('top', 'value', 10, [2]).at(3)).toThrow(/position 3 was not asked for/);
  });

  it('svHighestSetBitTree finds the index of the highest set bit of every 10-bit value, and whether any is set (Icarus: against a loop over the bits)', () => {
    const h = svHighestSetBitTree('top', 'value', 10);
    const check = 'top_any === (value != 0) && (value == 0 || top_index === 4\'(highest(value)))';
    const decls = 'logic [9:0] value;\n  function automatic int highest(input logic [9:0] v); highest = 0; for (int i = 0; i < 10; i++) if (v[i]) highest = i; endfunction';
    const out = icarusErrors(decls, [...h.declarations, ...h.rows], ['for (int v = 0; v < 1024; v++)'], 'value = v[9:0];', check);
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);
});

describe('svThermometerValue: a value from its thermometer', () => {
  it('gives every value 0..22 from the bits "value >= m" (Icarus: against the value itself)', () => {
    const rows = svThermometerValue('value', (m) => `ge[${m}]`, 22, 5);
    const loops = ['for (int v = 0; v <= 22; v++)'];
    const stimulus = 'for (int m = 1; m <= 22; m++) ge[m] = v >= m;\n      ge[0] = 1\'b1;';
    const out = icarusErrors('logic [22:0] ge;\n  logic [4:0] value;', rows, loops, stimulus, "value === 5'(v)");
    expect(out).toMatch(/^errors 0$/m);
  }, 60_000);
});

/** Two registered `width`-bit operands, their difference by `rows` into a register. */
function subtractDesign(width: number, declarations: readonly string[], rows: readonly string[]): string {
  return `module sub_top (
  input  logic             clk_i,
  input  logic [${width - 1}:0] a_i,
  input  logic [${width - 1}:0] b_i,
  output logic [${width - 1}:0] diff_o
);
  logic [${width - 1}:0] a_q, b_q, diff, diff_q;
  ${declarations.join('\n  ')}
  always_ff @(posedge clk_i) begin
    a_q <= a_i;
    b_q <= b_i;
    diff_q <= diff;
  end
  ${rows.join('\n  ')}
  assign diff_o = diff_q;
endmodule
`;
}
