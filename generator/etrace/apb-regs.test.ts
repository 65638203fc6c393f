/**
 * etrace_apb_regs for the shipped components and one with every optional register (filters,
 * comparators, source id, impdef): structure, Verilator lint, Yosys synthesis without latches, and
 * APB behaviour in Icarus compared with a model of the register map written here from
 * golden-model/etrace/registers.ts (reset values and field access rules), independent of the
 * generator's own field-to-flop mapping.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { etraceMemoryMap, type RegisterField, type RegisterSpec } from '../../golden-model/etrace/registers.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { etraceConfigOf, resolvedOf } from '../../blocks/testing.ts';
import { etraceApbRegsOutputs } from './apb-regs.ts';
import { renderEtraceApbRegs } from './rtl.ts';
import { icarusProblems, LATCH_INFERRED, runTool as run, yosysLatchCheck } from '../tool-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-regs-'));

const ALL_OPTIONAL = [
  'filters_p=2', 'comparators_p=2', 'encap_srcid_width=4', 'impdef_width_p=8', 'iFilters=2',
  'filter1.filterEnable=1', 'filter1.comp2=5', 'filter0.matchChoiceEcause=0x8000000000000005', 'filter1.matchMaskImpdef=0xff',
  'comparator1.pMatch=0xfedcba9876543210', 'comparator0.sFunction=6', 'comparator1.matchMode=3',
];

interface Case { label: string; component: string; sets: string[] }
const CASES: Case[] = [
  ...shippedComponents('etrace').map((c) => ({ label: c, component: c, sets: [] })),
  { label: 'etrace-rv64-full+filters+comparators+srcid', component: 'etrace-rv64-full', sets: ALL_OPTIONAL },
];

function configOf(k: Case): EtraceConfig {
  return etraceConfigOf(k.component, k.sets);
}

/** Renders the register file of a case into its own folder; returns the file. */
function generated(k: Case): string {
  const out = join(dir, k.label);
  mkdirSync(out, { recursive: true });
  const file = join(out, 'etrace_apb_regs.sv');
  writeFileSync(file, renderEtraceApbRegs(configOf(k), resolvedOf('etrace', k.component, k.sets).provenance));
  return file;
}

describe('etrace_apb_regs structure', () => {
  it('has an output exactly for the options whose hardware exists', () => {
    const small = etraceApbRegsOutputs(configOf(CASES[0]!));
    expect(small).toEqual(['active_o', 'enable_o', 'i_enable_o', 'i_trig_enable_o', 'stall_enable_o', 'resync_mode_o', 'resync_max_o', 'full_address_o', 'implicit_except_o']);
    const full = etraceApbRegsOutputs(configOf(CASES.find((k) => k.label === 'etrace-rv64-full')!));
    // Data trace (trTeDataControl): dEnable, dTrigEnable, noData, noAddress, DataCompress.
    expect(full).toEqual([...small, 'si_jump_o', 'implicit_return_o', 'branch_prediction_o', 'jump_target_cache_o', 'd_enable_o', 'd_trig_enable_o', 'no_data_o', 'no_address_o', 'data_compress_o']);
    const all = etraceApbRegsOutputs(configOf(CASES[CASES.length - 1]!));
    expect(all).toContain('filter_match_choice_ecause_o');
    expect(all).toContain('comparator_s_match_o');
    expect(all).toContain('src_id_o');
    expect(all).toContain('i_filters_o');
  });

  it.each(CASES)('$label: every register address is decoded and every read-write field has a flop', (k) => {
    const text = readFileSync(generated(k), 'utf8');
    const map = etraceMemoryMap(configOf(k));
    for (const block of map.addressBlocks) {
      for (const reg of block.registers) {
        for (let w = 0; w < reg.size / 32; w++) {
          const a = (block.baseAddress + reg.offset + 4 * w).toString(16).padStart(4, '0');
          expect(text, `${reg.name} word ${w}`).toContain(`= 13'h${a};`);
        }
        for (const f of reg.fields) {
          if (f.access === 'read-write') expect(text, `${reg.name}.${f.name}`).toMatch(new RegExp(`(if \\(pstrb_i\\[\\d\\]( && pwdata_i\\[\\d+\\])?\\) \\w+_d(\\[[\\d:]+\\])? = .*// ${f.name}\\b)`));
        }
      }
    }
    expect(text).not.toMatch(/\/work|\/tmp|\d{4}-\d\d-\d\d/);
  });
});

describe('etrace_apb_regs with the tools', () => {
  it.each(CASES)('$label: verilator --lint-only -Wall (with and without --assert) reports nothing', (k) => {
    const file = generated(k);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, file], dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
  });

  it.each(CASES)('$label: yosys synthesises it without latches', (k) => {
    const file = generated(k);
    const r = yosysLatchCheck([file], 'etrace_apb_regs', dir);
    expect(r.out).not.toMatch(LATCH_INFERRED);
    expect(r.status, r.out.slice(-2000)).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// The behavioural check: a model of the register map from registers.ts, and an Icarus testbench.

interface Word { address: number; reg: RegisterSpec; index: number }

/** Register state and APB semantics written from registers.ts and docs/etrace-registers.md. */
class RegisterModel {
  private readonly words: Word[] = [];
  private readonly value = new Map<RegisterField, bigint>();
  private stallField: RegisterField | undefined;

  constructor(private readonly config: EtraceConfig) {
    for (const block of etraceMemoryMap(config).addressBlocks) {
      for (const reg of block.registers) {
        for (let i = 0; i < reg.size / 32; i++) this.words.push({ address: block.baseAddress + reg.offset + 4 * i, reg, index: i });
        for (const f of reg.fields) {
          this.value.set(f, f.reset);
          if (f.oneToClear) this.stallField = f;
        }
      }
    }
  }

  addresses(): number[] {
    return this.words.map((w) => w.address);
  }

  /** Bits of a field that hold state: trTeInstFilters has one per filter (the rest read 0). */
  private writable(f: RegisterField): number {
    if (f.access === 'read-only') return 0;
    return f.name === 'trTeInstFilters' ? this.config.params.filters_p : f.bitWidth;
  }

  read(address: number): string {
    const w = this.words.find((x) => x.address === address);
    if (w === undefined) return `R ${hex(address, 4)} ${hex(0, 8)} 1`;
    let v = 0n;
    for (const f of w.reg.fields) v |= this.value.get(f)! << BigInt(f.bitOffset);
    return `R ${hex(address, 4)} ${hex(Number((v >> BigInt(32 * w.index)) & 0xffff_ffffn), 8)} 0`;
  }

  write(address: number, data: number, strb: number, pulse: boolean): string {
    const w = this.words.find((x) => x.address === address);
    if (w !== undefined) {
      for (const f of w.reg.fields) {
        let v = this.value.get(f)!;
        for (let j = 0; j < this.writable(f); j++) {
          const bit = f.bitOffset + j - 32 * w.index;
          if (bit < 0 || bit > 31 || ((strb >> (bit >> 3)) & 1) === 0) continue;
          const d = BigInt((data >>> bit) & 1);
          const m = 1n << BigInt(j);
          if (f.oneToClear) v = d ? v & ~m : v;
          else v = d ? v | m : v & ~m;
        }
        this.value.set(f, v);
      }
    }
    if (pulse) this.pulse();
    return `W ${hex(address, 4)} ${w === undefined ? 1 : 0}`;
  }

  /** The core reports lost trace or a stall: the write-1-to-clear bit is set. */
  pulse(): void {
    this.value.set(this.stallField!, 1n);
  }
}

const hex = (v: number, digits: number): string => v.toString(16).padStart(digits, '0');

type Op = { kind: 'read'; address: number } | { kind: 'write'; address: number; data: number; strb: number; pulse: boolean } | { kind: 'pulse' };

/** Reads after reset, then writes of several patterns and byte strobes to every register, W1C and unmapped accesses. */
function script(c: EtraceConfig, addresses: number[]): Op[] {
  const ops: Op[] = [];
  const read = (address: number): void => void ops.push({ kind: 'read', address });
  const write = (address: number, data: number, strb: number, pulse = false): void => void ops.push({ kind: 'write', address, data, strb, pulse });
  addresses.forEach(read);
  for (const a of addresses) {
    for (const [data, strb] of [[0xffff_ffff, 0xf], [0, 0xf], [0xa5c3_3c5a, 0x5], [0x5a3c_c3a5, 0xa], [0x1234_5678, 0xf]] as const) {
      write(a, data, strb);
      read(a);
    }
  }
  // Write-1-to-clear: set by the core, kept by writes of 0 or without its byte lane, cleared by a 1,
  // and a set in the same cycle as a clear wins.
  ops.push({ kind: 'pulse' });
  read(0x000);
  write(0x000, 0x0000_0000, 0xf);
  read(0x000);
  write(0x000, 0x0000_1000, 0x1);
  read(0x000);
  write(0x000, 0x0000_1000, 0x2);
  read(0x000);
  write(0x000, 0x0000_1000, 0x2, true);
  read(0x000);
  const unmapped = [0x010, 0x014, 0x0ffc, 0x002, 0x1001, 0x1010, 0x1ffc, 0x400 + 0x20 * c.params.filters_p, 0x600 + 0x20 * c.params.comparators_p, 0x418, 0x604];
  for (const a of unmapped) {
    read(a);
    write(a, 0xffff_ffff, 0xf);
    read(a);
  }
  addresses.forEach(read);
  return ops;
}

function testbench(ops: Op[]): string {
  const body = ops.map((op) => {
    switch (op.kind) {
      case 'read':
        return `    rd(13'h${hex(op.address, 4)});`;
      case 'write':
        return `    wr(13'h${hex(op.address, 4)}, 32'h${hex(op.data, 8)}, 4'h${op.strb.toString(16)}, 1'b${op.pulse ? 1 : 0});`;
      case 'pulse':
        return '    pulse();';
    }
  });
  return `module tb;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic [12:0] paddr = 13'h0;
  logic psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
  logic [31:0] pwdata = 32'h0;
  logic [3:0] pstrb = 4'h0;
  logic [31:0] prdata;
  logic pready, pslverr;
  logic lost = 1'b0;
  always #5 clk = ~clk;
  etrace_apb_regs dut (.clk_i(clk), .rst_ni(rst_n), .paddr_i(paddr), .psel_i(psel), .penable_i(penable), .pwrite_i(pwrite),
    .pwdata_i(pwdata), .pstrb_i(pstrb), .prdata_o(prdata), .pready_o(pready), .pslverr_o(pslverr), .te_empty_i(1'b1), .lost_or_stalled_i(lost));
  task automatic rd(input logic [12:0] a);
    @(negedge clk); psel = 1'b1; penable = 1'b0; pwrite = 1'b0; paddr = a;
    @(negedge clk); penable = 1'b1;
    #1 if (pready !== 1'b1) $display("pready low");
    $display("R %h %h %0d", a, prdata, pslverr);
    @(negedge clk); psel = 1'b0; penable = 1'b0;
  endtask
  task automatic wr(input logic [12:0] a, input logic [31:0] d, input logic [3:0] s, input logic p);
    @(negedge clk); psel = 1'b1; penable = 1'b0; pwrite = 1'b1; paddr = a; pwdata = d; pstrb = s;
    @(negedge clk); penable = 1'b1; lost = p;
    #1 $display("W %h %0d", a, pslverr);
    @(negedge clk); psel = 1'b0; penable = 1'b0; pwrite = 1'b0; lost = 1'b0;
  endtask
  task automatic pulse;
    @(negedge clk); lost = 1'b1;
    @(negedge clk); lost = 1'b0;
  endtask
  initial begin
    #12 rst_n = 1'b1;
${body.join('\n')}
    $finish;
  end
endmodule
`;
}


describe('etrace_apb_regs behaviour (Icarus) against the register map of registers.ts', () => {
  it.each(CASES)('$label: reads after reset, writes (RW, RO, byte strobes, W1C) and unmapped accesses', (k) => {
    const file = generated(k);
    const config = configOf(k);
    const model = new RegisterModel(config);
    const ops = script(config, model.addresses());
    const expected: string[] = [];
    for (const op of ops) {
      if (op.kind === 'read') expected.push(model.read(op.address));
      else if (op.kind === 'write') expected.push(model.write(op.address, op.data, op.strb, op.pulse));
      else model.pulse();
    }
    const tb = join(dir, k.label, 'tb.sv');
    writeFileSync(tb, testbench(ops));
    const vvp = join(dir, k.label, 'tb.vvp');
    const compile = run('iverilog', ['-g2012', '-o', vvp, '-s', 'tb', tb, file], dir);
    expect(compile.status, compile.out).toBe(0);
    const notes = icarusProblems(compile.out);
    expect(notes).toEqual([]);
    const sim = run('vvp', ['-n', vvp], dir);
    expect(sim.status).toBe(0);
    const lines = sim.out.split('\n').filter((l) => /^[RW] /.test(l) || /error|pready/i.test(l));
    expect(lines).toEqual(expected);
    // The run shows something: a changed register and an error answer.
    expect(expected.some((l) => l.endsWith(' 1'))).toBe(true);
  });
});
