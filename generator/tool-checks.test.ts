/** The latch check finds a latch and passes clean logic: it can fail. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { icarusProblems, LATCH_INFERRED, yosysLatchCheck } from './tool-checks.ts';

function module(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-latch-'));
  writeFileSync(join(dir, 'm.sv'), `module m (input logic en_i, input logic [3:0] d_i, output logic [3:0] q_o);\n${body}\nendmodule\n`);
  return dir;
}

describe('yosysLatchCheck', () => {
  it('fails on an always_comb that keeps its value when en_i is low (a latch)', () => {
    const dir = module('  always_comb begin\n    if (en_i) q_o = d_i;\n  end');
    const r = yosysLatchCheck(['m.sv'], 'm', dir);
    expect(r.out).toMatch(LATCH_INFERRED);
    expect(r.status).not.toBe(0);
  });

  it('fails on the same latch written as always @* (no always_comb error: the latch cell is found)', () => {
    const dir = module('  always @* begin\n    if (en_i) q_o = d_i;\n  end');
    const r = yosysLatchCheck(['m.sv'], 'm', dir);
    expect(r.out).toMatch(/select -assert-none|Assertion failed/);
    expect(r.status).not.toBe(0);
  });

  it('fails on a combinational loop (check -assert)', () => {
    const dir = module('  logic [3:0] a, b;\n  assign a = b ^ d_i;\n  assign b = en_i ? a : 4\'d0;\n  assign q_o = a;');
    const r = yosysLatchCheck(['m.sv'], 'm', dir);
    expect(r.out).toMatch(/logic loop/i);
    expect(r.status).not.toBe(0);
  });

  it('fails on a net with two drivers (check -assert)', () => {
    const dir = module('  assign q_o = d_i;\n  assign q_o = {4{en_i}};');
    const r = yosysLatchCheck(['m.sv'], 'm', dir);
    expect(r.out).toMatch(/multiple conflicting drivers/i);
    expect(r.status).not.toBe(0);
  });

  it('passes the same logic with a default assignment', () => {
    const dir = module('  always_comb begin\n    q_o = 4\'d0;\n    if (en_i) q_o = d_i;\n  end');
    const r = yosysLatchCheck(['m.sv'], 'm', dir);
    expect(r.out).not.toMatch(LATCH_INFERRED);
    expect(r.status, r.out).toBe(0);
  });
});

describe('icarusProblems', () => {
  it("drops Icarus's known notes and keeps everything else", () => {
    const notes = 'a.sv:3: sorry: Case unique/unique0 qualities are ignored.\na.sv:9: error: Unknown module type: x\n\n';
    expect(icarusProblems(notes)).toEqual(['a.sv:9: error: Unknown module type: x']);
  });
});
