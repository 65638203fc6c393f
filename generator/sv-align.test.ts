import { describe, expect, it } from 'vitest';
import { alignDeclarations } from './sv-align.ts';

describe('alignDeclarations', () => {
  it('aligns direction, type, range, names and trailing comments of a port list; comment lines stay inside the run', () => {
    const text = ['module m (', '  input logic clk_i,', '  // The data.', '  input logic [63:0] a_i,  // first', '  output logic [7:0] b_o // second', ');'].join('\n');
    expect(alignDeclarations(text)).toBe(
      ['module m (', '  input  logic        clk_i,', '  // The data.', '  input  logic [63:0] a_i,  // first', '  output logic [7:0]  b_o   // second', ');'].join('\n'),
    );
  });

  it('aligns localparams and declarations as separate runs, split by other lines', () => {
    const text = [
      "  localparam int A = 1;",
      "  localparam logic [15:0] LongName = 16'h00ff;",
      '  logic x;',
      '  logic [3:0] y, z;',
      '',
      '  assign x = 1\'b0;',
      '  (* mem2reg *) logic [3:0] q [4];',
    ].join('\n');
    expect(alignDeclarations(text)).toBe(
      [
        '  localparam int          A        = 1;',
        "  localparam logic [15:0] LongName = 16'h00ff;",
        '  logic       x;',
        '  logic [3:0] y, z;',
        '',
        "  assign x = 1'b0;",
        '  (* mem2reg *) logic [3:0] q [4];',
      ].join('\n'),
    );
  });
});
