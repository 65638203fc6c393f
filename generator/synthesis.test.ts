import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLongestPath, synthesizeWithDepth } from './synthesis.ts';

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
