/**
 * The ingress's short-path add of a record's resync units (etrace_ingress `add_units`: the low bits
 * added, the bits above flipped by an AND of those below, saturating at 2^32 - 1) is proven equal
 * to a plain saturating `+` by Yosys (`sat -prove` over every input), for the iretire widths of the
 * shipped components and the extremes of the parameter's range. Independent of the model: the
 * reference is SystemVerilog's own addition.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { etraceConfigOf } from '../../blocks/testing.ts';
import { renderEtraceRtl } from './rtl.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-ingress-units-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The function and its parameters, as the ingress of `component` with `sets` declares them. */
function addUnits(component: string, sets: string[]): string {
  const ingress = renderEtraceRtl(etraceConfigOf(component, sets), { component, inputHash: 'test', sets }).find((f) => f.name === 'etrace_ingress.sv')!;
  const m = /\n(\s*localparam int\s+RecordBits[\s\S]*?endfunction)/.exec(ingress.content);
  if (!m) throw new Error('etrace_ingress.sv declares no add_units');
  return m[1]!;
}

describe('etrace_ingress add_units', () => {
  it.each([
    ['etrace-rv32-mcu', []],
    ['etrace', []],
    ['etrace', ['iretire_width_p=2']],
    ['etrace', ['iretire_width_p=8']],
  ] as const)('%s %j: equal to a saturating + for every pending count and record', (component, sets) => {
    const dir = mkdtempSync(join(root, 'case-'));
    writeFileSync(
      join(dir, 'check.sv'),
      [
        'module check (input logic [31:0] pending, input logic [7:0] units8, output logic ok);',
        addUnits(component, [...sets]),
        '  logic [RecordBits-1:0] units;',
        '  logic [32:0] sum;',
        '  assign units = units8[RecordBits-1:0];',
        "  assign sum = {1'b0, pending} + 33'(units);",
        "  assign ok = add_units(pending, units) == (sum[32] ? 32'hffff_ffff : sum[31:0]);",
        'endmodule',
      ].join('\n'),
    );
    const y = spawnSync('yosys', ['-q', '-p', 'read_verilog -sv check.sv; prep -top check; flatten; sat -prove ok 1 -verify -show-inputs'], { cwd: dir, encoding: 'utf8' });
    expect(y.status, `${y.stdout}${y.stderr}`).toBe(0);
  }, 60_000);

  it('the proof fails on a wrong function (the low carry not propagated)', () => {
    const dir = mkdtempSync(join(root, 'mutant-'));
    const right = addUnits('etrace', []);
    const wrong = right.replace('low[RecordBits] ? up :', "1'b0 ? up :");
    expect(wrong).not.toBe(right);
    writeFileSync(
      join(dir, 'check.sv'),
      [
        'module check (input logic [31:0] pending, input logic [2:0] units, output logic ok);',
        wrong,
        '  logic [32:0] sum;',
        "  assign sum = {1'b0, pending} + 33'(units);",
        "  assign ok = add_units(pending, units) == (sum[32] ? 32'hffff_ffff : sum[31:0]);",
        'endmodule',
      ].join('\n'),
    );
    const y = spawnSync('yosys', ['-q', '-p', 'read_verilog -sv check.sv; prep -top check; flatten; sat -prove ok 1 -verify'], { cwd: dir, encoding: 'utf8' });
    expect(y.status).not.toBe(0);
  }, 60_000);
});
