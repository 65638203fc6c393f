/**
 * etrace_packer against the golden model: for the shipped components and configurations that reach
 * the other layouts (format 0 with and without the subformat field, call counter and return stack,
 * iaddress_lsb_p 2, nocontext, notime, sijump, RV32), a Verilator testbench packs a few thousand
 * descriptors and every output (bytes_o, len_o, bits_o) is compared with packetBytes
 * (golden-model/etrace/packet/fast.ts) and packPacket(...).bits of the same packet. The descriptors
 * are random with a fixed seed (printed; PACKER_SEED overrides it) and cover every kind, every
 * branch count, every branch_fmt, every interrupt / thaddr / implicit_exception combination, every
 * support-packet option, all-zero and all-one fields and values that compress to every length.
 * Plus: Verilator lint, Yosys synthesis without latches, Icarus compilation, and the generator's
 * contract (ports, encapsulation errors, deterministic output).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { packetBytes } from '../../golden-model/etrace/packet/fast.ts';
import {
  type FieldName,
  largestPacketBits,
  optionFields,
  type Packet,
  packetFields,
  packetKind,
  type PacketKind,
  packPacket,
} from '../../golden-model/etrace/packet/index.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { etraceConfigOf, resolvedOf } from '../../blocks/testing.ts';
import { type BannerInput } from '../render.ts';
import { etracePackerContext, packerMaxBytes, packerPorts, renderEtracePacker } from './packer.ts';
import { LATCH_INFERRED, runTool as run, yosysLatchCheck } from '../tool-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-packer-'));
// The builds are a few MB per configuration: removed unless PACKER_KEEP is set (to debug a failure).
afterAll(() => {
  if (process.env.PACKER_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  else console.log(`etrace_packer test files kept in ${dir}`);
});
const SEED = Number(process.env.PACKER_SEED ?? 0x7e_7ace);
const RANDOM_VECTORS = 2500;
/**
 * Icarus simulates the coverage vectors and this many random ones: it checks that a second
 * simulator reads the packer as Verilator does, which every vector of Verilator's run compares
 * with the model (all of them took Icarus about 30 s a configuration, a quarter of the suite's
 * longest file).
 */
const ICARUS_RANDOM_VECTORS = 300;

interface Case {
  label: string;
  component: string;
  sets: string[];
}
const SHIPPED: Case[] = shippedComponents('etrace').map((c) => ({ label: c, component: c, sets: [] }));
const CASES: Case[] = [
  ...SHIPPED,
  {
    label: '2.0+bpred+cache+call-counter+sijump',
    component: 'etrace-2.0',
    sets: ['bpred_size_p=4', 'cache_size_p=3', 'f0s_width_p=2', 'call_counter_size_p=7', 'sijump_p=1'],
  },
  { label: 'f0s0+bpred-only+return-stack', component: 'etrace', sets: ['bpred_size_p=5', 'return_stack_size_p=2'] },
  { label: 'f0s0+cache-only+call-counter', component: 'etrace', sets: ['cache_size_p=3', 'call_counter_size_p=4'] },
  // The ratified irdepth (iret_ext_p = 0) instead of the Implicit Return extension's irets.
  { label: '2.0+call-counter+ratified-irdepth', component: 'etrace-2.0', sets: ['call_counter_size_p=7', 'iret_ext_p=0'] },
  { label: 'rv32+lsb2', component: 'etrace-rv32-mcu', sets: ['iaddress_lsb_p=2'] },
  { label: 'nocontext', component: 'etrace', sets: ['nocontext_p=1'] },
  // A source id in the encapsulation: bits only (4), and a whole byte plus bits (12).
  { label: 'srcid4', component: 'etrace', sets: ['encap_srcid_width=4'] },
  { label: '2.0+srcid12', component: 'etrace-2.0', sets: ['encap_srcid_width=12'] },
  { label: '2.0+nocontext+notime+sijump', component: 'etrace-2.0', sets: ['nocontext_p=1', 'notime_p=1', 'sijump_p=1'] },
  {
    label: 'rv32-2.0+f0s1+bpred-only',
    component: 'etrace-2.0',
    sets: ['iaddress_width_p=32', 'ecause_width_p=5', 'context_width_p=16', 'time_width_p=20', 'bpred_size_p=3', 'f0s_width_p=1', 'return_stack_size_p=1'],
  },
];

function configOf(k: Case): EtraceConfig {
  return etraceConfigOf(k.component, k.sets);
}

function bannerOf(k: Case): BannerInput {
  return resolvedOf('etrace', k.component, k.sets).provenance;
}

/** Renders the packer of a case into its own folder (once); returns the folder. */
const rendered = new Map<string, string>();
function generated(k: Case): string {
  let out = rendered.get(k.label);
  if (out === undefined) {
    out = join(dir, k.label.replace(/[^A-Za-z0-9.+-]/g, '_'));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'etrace_packer.sv'), renderEtracePacker(configOf(k), bannerOf(k)));
    rendered.set(k.label, out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Descriptors and the model's answer

/** mulberry32: a small deterministic generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const mask = (w: number): bigint => (1n << BigInt(w)) - 1n;
type Descriptor = Map<string, bigint>;
type ValueMode = 'zero' | 'ones' | 'mixed';

class Vectors {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = rng(seed);
  }
  int(n: number): number {
    return this.next() % n;
  }
  bits(w: number): bigint {
    let v = 0n;
    for (let i = 0; i < w; i += 32) v = (v << 32n) | BigInt(this.next());
    return v & mask(w);
  }
  /** A field value: zero, all ones, random, or small positive / negative (so that compression varies). */
  value(w: number, mode: ValueMode): bigint {
    if (mode === 'zero') return 0n;
    if (mode === 'ones') return mask(w);
    switch (this.int(6)) {
      case 0:
        return 0n;
      case 1:
        return mask(w);
      case 2:
      case 3:
        return this.bits(w);
      case 4:
        return this.bits(this.int(w + 1));
      default:
        return mask(w) ^ this.bits(this.int(w + 1));
    }
  }
  descriptor(ports: readonly { name: string; width: number }[], mode: ValueMode): Descriptor {
    const d: Descriptor = new Map();
    for (const p of ports) d.set(p.name, this.value(p.width, mode));
    d.set('kind_i', BigInt(this.int(8)));
    return d;
  }
}

/** kind_i codes of the interface, written from the module's specification. */
const KIND_CODES: readonly { kind: PacketKind; format: bigint; subformat?: bigint }[] = [
  { kind: 'F0.SF0', format: 0n, subformat: 0n },
  { kind: 'F0.SF1', format: 0n, subformat: 1n },
  { kind: 'F1', format: 1n },
  { kind: 'F2', format: 2n },
  { kind: 'F3.SF0', format: 3n, subformat: 0n },
  { kind: 'F3.SF1', format: 3n, subformat: 1n },
  { kind: 'F3.SF2', format: 3n, subformat: 2n },
  { kind: 'F3.SF3', format: 3n, subformat: 3n },
];

/** Coverage vectors (every selector value of every kind, every support option) then random ones. */
function vectorsFor(config: EtraceConfig, seed: number): Descriptor[] {
  const ports = packerPorts(config);
  const g = new Vectors(seed);
  const out: Descriptor[] = [];
  const modes: ValueMode[] = ['zero', 'ones', 'mixed', 'mixed', 'mixed'];
  const has = (name: string): boolean => ports.some((p) => p.name === name);
  for (let code = 0; code < 8; code++) {
    const branchValues = code === 1 || code === 2 ? Array.from({ length: 32 }, (_, i) => i) : [-1];
    const fmtValues = code === 0 && has('branch_fmt_i') ? [0, 1, 2, 3] : [-1];
    const trapValues = code === 5 ? [0, 1, 2, 3, 4, 5, 6, 7] : [-1];
    for (const b of branchValues) {
      for (const f of fmtValues) {
        for (const t of trapValues) {
          for (const m of modes) {
            const d = g.descriptor(ports, m);
            d.set('kind_i', BigInt(code));
            if (b >= 0) d.set('branches_i', BigInt(b));
            if (f >= 0) d.set('branch_fmt_i', BigInt(f));
            if (t >= 0) {
              d.set('implicit_exception_i', BigInt(t & 1));
              d.set('interrupt_i', BigInt((t >> 1) & 1));
              if (has('thaddr_i')) d.set('thaddr_i', BigInt((t >> 2) & 1));
            }
            out.push(d);
          }
        }
      }
    }
  }
  // Every combination of the support packet's option bits.
  const optionPorts = ['implicit_exception_i', 'implicit_return_i', 'full_address_i', 'jump_target_cache_i', 'branch_prediction_i', 'sijump_opt_i'].filter(has);
  for (let bits = 0; bits < 1 << optionPorts.length; bits++) {
    const d = g.descriptor(ports, 'mixed');
    d.set('kind_i', 7n);
    optionPorts.forEach((p, i) => d.set(p, BigInt((bits >> i) & 1)));
    out.push(d);
  }
  for (let i = 0; i < RANDOM_VECTORS; i++) out.push(g.descriptor(ports, 'mixed'));
  return out;
}

/**
 * The model's packet for a descriptor: the fields of its layout (packetFields), each taken from the
 * descriptor input of the same name (its low bits), options from optionFields. Undefined when the
 * model rejects it (a kind the parameters cannot send, a reserved selector).
 */
function modelPacket(d: Descriptor, config: EtraceConfig): { pkt: Packet; implicit: boolean } | undefined {
  const params = config.params;
  const k = KIND_CODES[Number(d.get('kind_i'))]!;
  const v = (name: string): bigint => d.get(name) ?? 0n;
  const implicit = v('implicit_exception_i') === 1n;
  const full: Packet = {
    format: k.format,
    ...(k.subformat === undefined ? {} : { subformat: k.subformat }),
    branch_fmt: v('branch_fmt_i'),
    branches: v('branches_i'),
    interrupt: v('interrupt_i'),
    thaddr: v('thaddr_i'),
  };
  let layout;
  try {
    if (packetKind(full, params) !== k.kind) return undefined;
    layout = packetFields(full, params, { implicit_exception: implicit });
  } catch (e) {
    if (e instanceof RvError) return undefined;
    throw e;
  }
  const options = optionFields(
    {
      implicit_return: v('implicit_return_i') === 1n,
      implicit_exception: implicit,
      full_address: v('full_address_i') === 1n,
      jump_target_cache: v('jump_target_cache_i') === 1n,
      branch_prediction: v('branch_prediction_i') === 1n,
      sijump: v('sijump_opt_i') === 1n,
    },
    params,
  );
  const source = (name: FieldName): bigint => {
    switch (name) {
      case 'format':
      case 'subformat':
        return full[name]!;
      case 'options':
      case 'ioptions':
      case 'sijump':
        return options[name]!;
      case 'iret_ext':
        return 1n; // the encoder implements the Implicit Return extension (the field is there only then)
      case 'denable':
      case 'doptions':
        // Data trace: the support packet's data options come from the packer's inputs.
        return d.has(`${name}_i`) ? v(`${name}_i`) : 0n;
      case 'encoder_mode':
      case 'dloss':
        return 0n;
      case 'tval':
      case 'tvalepc':
        return v('tval_i');
      case 'enable':
      case 'ienable':
        return v('enable_i');
      default:
        if (!d.has(`${name}_i`)) throw new Error(`no descriptor input for field ${name}`);
        return v(`${name}_i`);
    }
  };
  const pkt: Packet = {};
  for (const f of layout) pkt[f.name] = source(f.name) & mask(f.width);
  return { pkt, implicit };
}

const hex = (v: bigint, digits: number): string => v.toString(16).padStart(digits, '0');

/** The expected output line `len bits bytes` (hex, as the testbench prints them). */
function expectedLine(d: Descriptor, config: EtraceConfig, maxBytes: number): string {
  const m = modelPacket(d, config);
  if (m === undefined) return `${hex(0n, 2)} ${hex(0n, 2)} ${hex(0n, 2 * maxBytes)}`;
  const mode = { implicit_exception: m.implicit };
  const bytes = packetBytes(m.pkt, config.params, mode);
  const bits = packPacket(m.pkt, config.params, mode).bits;
  let value = 0n;
  bytes.forEach((b, i) => {
    value |= BigInt(b) << BigInt(8 * i);
  });
  return `${hex(BigInt(bytes.length), 2)} ${hex(BigInt(bits), 2)} ${hex(value, 2 * maxBytes)}`;
}

/** An SV testbench: reads one descriptor per line (hex, ports in packerPorts order), prints the outputs. */
function testbench(config: EtraceConfig): string {
  const ports = packerPorts(config);
  const maxBytes = packerMaxBytes(config);
  const decl = (w: number, n: string): string => `  logic ${w === 1 ? '' : `[${w - 1}:0] `}${n};`;
  const fmt = ports.map(() => '%h').join(' ');
  // $fscanf into variables that are copied to the inputs: Verilator 5.006 does not wake the
  // combinational logic for signals written by $fscanf.
  const args = ports.map((p) => `v_${p.name}`).join(', ');
  return [
    'module tb;',
    ...ports.map((p) => decl(p.width, p.name)),
    ...ports.map((p) => decl(p.width, `v_${p.name}`)),
    decl(8 * maxBytes, 'bytes_o'),
    decl(6, 'len_o'),
    decl(8, 'bits_o'),
    '  etrace_packer dut (',
    ...[...ports.map((p) => p.name), 'bytes_o', 'len_o', 'bits_o'].map((n, i, a) => `    .${n}(${n})${i === a.length - 1 ? '' : ','}`),
    '  );',
    '  integer fin, fout, n;',
    '  initial begin',
    '    fin = $fopen("vectors.txt", "r");',
    '    fout = $fopen("out.txt", "w");',
    `    n = $fscanf(fin, "${fmt}\\n", ${args});`,
    `    while (n == ${ports.length}) begin`,
    ...ports.map((p) => `      ${p.name} = v_${p.name};`),
    '      #1;',
    '      $fwrite(fout, "%h %h %h\\n", len_o, bits_o, bytes_o);',
    `      n = $fscanf(fin, "${fmt}\\n", ${args});`,
    '    end',
    '    $fclose(fout);',
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

console.log(`etrace_packer test vectors: seed ${SEED} (set PACKER_SEED to change)`);

describe('etrace_packer generator', () => {
  it('lists the descriptor ports each configuration has', () => {
    const names = (label: string): string[] => packerPorts(configOf(CASES.find((k) => k.label === label)!)).map((p) => p.name);
    const base = ['kind_i', 'implicit_exception_i', 'implicit_return_i', 'full_address_i', 'jump_target_cache_i', 'branch_prediction_i'];
    const tail = ['branch_i', 'privilege_i'];
    expect(names('etrace')).toEqual([...base, 'branches_i', 'branch_map_i', 'address_i', 'notify_i', 'updiscon_i', 'irreport_i', ...tail, 'context_i', 'ecause_i', 'interrupt_i', 'tval_i', 'enable_i', 'qual_status_i']);
    expect(names('etrace-rv64-full')).toEqual([
      ...base, 'sijump_opt_i', 'branches_i', 'branch_map_i', 'branch_count_i', 'branch_fmt_i', 'index_i', 'address_i', 'notify_i', 'updiscon_i', 'irreport_i',
      'irets_i', ...tail, 'context_i', 'ecause_i', 'interrupt_i', 'tval_i', 'enable_i', 'qual_status_i', 'denable_i', 'doptions_i',
    ]);
    expect(names('etrace-2.0')).toEqual([...base, 'branches_i', 'branch_map_i', 'address_i', 'notify_i', 'updiscon_i', 'irreport_i', ...tail, 'time_i', 'context_i', 'ecause_i', 'interrupt_i', 'thaddr_i', 'tval_i', 'enable_i', 'qual_status_i']);
    expect(names('2.0+nocontext+notime+sijump')).not.toContain('context_i');
    expect(names('2.0+nocontext+notime+sijump')).not.toContain('time_i');
    // 1.1.1 with nocontext: F3.SF2 still sends context_width_p bits.
    expect(packerPorts(configOf(CASES.find((k) => k.label === 'nocontext')!)).find((p) => p.name === 'context_i')?.width).toBe(32);

    const widths = Object.fromEntries(packerPorts(configOf(CASES.find((k) => k.label === '2.0+bpred+cache+call-counter+sijump')!)).map((p) => [p.name, p.width]));
    expect(widths).toMatchObject({ kind_i: 3, branches_i: 5, branch_map_i: 31, branch_count_i: 32, branch_fmt_i: 2, index_i: 3, address_i: 63, irets_i: 8, privilege_i: 2, time_i: 48, context_i: 32, ecause_i: 6, tval_i: 64, qual_status_i: 2 });
    const ratifiedWidths = Object.fromEntries(packerPorts(configOf(CASES.find((k) => k.label === '2.0+call-counter+ratified-irdepth')!)).map((p) => [p.name, p.width]));
    expect(ratifiedWidths).toMatchObject({ irreport_i: 1, irdepth_i: 7 });
    expect(ratifiedWidths).not.toHaveProperty('irets_i');
    const lsb2 = Object.fromEntries(packerPorts(configOf(CASES.find((k) => k.label === 'rv32+lsb2')!)).map((p) => [p.name, p.width]));
    expect(lsb2).toMatchObject({ address_i: 30, tval_i: 32 });
  });

  it.each(CASES)('$label: the module declares exactly packerPorts and the outputs, and renders deterministically', (k) => {
    const config = configOf(k);
    const text = renderEtracePacker(config, bannerOf(k));
    expect(renderEtracePacker(config, bannerOf(k))).toBe(text);
    const declared = [...text.matchAll(/^\s*(input|output)\s+logic\s*(?:\[(\d+):0\])?\s+(\w+)/gm)].map((m) => ({ name: m[3]!, width: m[2] === undefined ? 1 : Number(m[2]) + 1 }));
    const maxBytes = packerMaxBytes(config);
    // Header, the source id's whole bytes, then its other bits and the payload (encapsulation spec).
    const src = config.params.encap_srcid_width;
    expect(maxBytes).toBe(1 + Math.floor(src / 8) + Math.ceil((largestPacketBits(config.params) + (src % 8)) / 8));
    expect(maxBytes - Math.floor(src / 8)).toBeLessThanOrEqual(32);
    expect(declared).toEqual([...packerPorts(config), { name: 'bytes_o', width: 8 * maxBytes }, { name: 'len_o', width: 6 }, { name: 'bits_o', width: 8 }]);
    expect(text).toMatch(/^\/\/ SPDX-License-Identifier: Apache-2\.0\n\/\/ Generated by rvtrace /);
    expect(text).not.toMatch(/\/work|\/tmp|\d{4}-\d\d-\d\d/);
    expect(text).not.toMatch(/\breturn\b|\bimport\b|\bpackage\b/);
  });

  it('rejects the encapsulation option it does not implement, naming the parameter', () => {
    const base = configOf(CASES[0]!);
    const inPayload: EtraceConfig = { ...base, params: { ...base.params, encap_type_in: 'payload' } };
    expect(() => etracePackerContext(inPayload, '')).toThrow(RvError);
    expect(() => etracePackerContext(inPayload, '')).toThrow(/encap_type_in/);
    // Timestamps are never sent by packetBytes: the packer is the same with them configured.
    const withTs = configOf({ label: 'ts', component: 'etrace', sets: ['encap_timestamp_width=32'] });
    expect(etracePackerContext(withTs, '').kindArms).toEqual(etracePackerContext(base, '').kindArms);
  });

  it('has one case arm per layout of the model', () => {
    const ctx = etracePackerContext(configOf(CASES.find((k) => k.label === 'etrace-rv64-full')!), '');
    const arm = (code: number): string[] => ctx.kindArms.find((a) => a.head.startsWith(`3'd${code}:`))?.lines ?? [];
    // F1 and F0.SF1: one arm per branch map width (branches 0, 1, 2-3, 4-7, 8-15, 16-31).
    for (const code of [1, 2]) expect(arm(code).filter((l) => /^ {2}5'b[01?]{5}: begin/.test(l)).map((l) => l.trim().split(':')[0])).toEqual(["5'b00000", "5'b00001", "5'b0001?", "5'b001??", "5'b01???", "5'b1????"]);
    // F0.SF0: branch_fmt 0, 2-3 (01 reserved: default).
    expect(arm(0).filter((l) => /^ {2}2'b/.test(l)).map((l) => l.trim().split(':')[0])).toEqual(["2'b00", "2'b1?"]);
    // 1.1.1 F3.SF1: only implicit_exception changes the layout.
    expect(arm(5)[0]).toBe('unique casez (implicit_exception_i)');
    const ratified = etracePackerContext(configOf(CASES.find((k) => k.label === 'etrace-2.0')!), '');
    expect(ratified.kindArms.find((a) => a.head.startsWith("3'd5:"))?.lines[0]).toBe('unique casez ({interrupt_i, implicit_exception_i, thaddr_i})');
    // No format 0 without a branch predictor or jump target cache.
    expect(ratified.kindArms.map((a) => a.head.slice(0, 4))).toEqual(["3'd2", "3'd3", "3'd4", "3'd5", "3'd6", "3'd7"]);
  });
});

interface Prepared {
  readonly out: string;
  readonly config: EtraceConfig;
  readonly vectors: Descriptor[];
  /** The model's answer per vector, as the testbench prints it. */
  readonly expected: string[];
}

/** The rendered packer, its testbench and the vectors of a case, in its folder (once). */
const prepared = new Map<string, Prepared>();
function prepare(k: Case): Prepared {
  let p = prepared.get(k.label);
  if (p === undefined) {
    const config = configOf(k);
    const out = generated(k);
    const ports = packerPorts(config);
    const maxBytes = packerMaxBytes(config);
    const vectors = vectorsFor(config, SEED);
    writeFileSync(join(out, 'tb.sv'), testbench(config));
    writeFileSync(join(out, 'vectors.txt'), vectors.map((d) => ports.map((q) => d.get(q.name)!.toString(16)).join(' ')).join('\n') + '\n');
    p = { out, config, vectors, expected: vectors.map((d) => expectedLine(d, config, maxBytes)) };
    prepared.set(k.label, p);
  }
  return p;
}

/** The first few of the first `count` vectors whose simulated outputs differ from the model's. */
function mismatches(p: Prepared, got: readonly string[], tool: string, count = p.vectors.length): string[] {
  const ports = packerPorts(p.config);
  const bad: string[] = [];
  p.vectors.slice(0, count).forEach((d, i) => {
    if (got[i] !== p.expected[i] && bad.length < 5) {
      const desc = ports.map((q) => `${q.name}=${d.get(q.name)!.toString(16)}`).join(' ');
      bad.push(`vector ${i} (${desc}):\n  ${tool.padEnd(8)} ${got[i]}\n  model    ${p.expected[i]}`);
    }
  });
  return bad;
}

function simOutput(file: string): string[] {
  return readFileSync(file, 'utf8').trimEnd().split('\n');
}

describe('etrace_packer against the model (Verilator)', () => {
  it.each(CASES)('$label: bytes_o, len_o and bits_o equal packetBytes and packPacket', (k) => {
    const p = prepare(k);
    const build = run(
      'verilator',
      ['--binary', '-O2', '-j', '2', '--Mdir', 'obj', '--top-module', 'tb', '-Wno-fatal', '-Wno-lint', '-Wno-style', 'tb.sv', 'etrace_packer.sv'],
      p.out,
      undefined,
      { ...process.env, OBJCACHE: process.env.OBJCACHE ?? 'ccache' },
    );
    expect(build.status, build.out.slice(-3000)).toBe(0);
    const sim = run(join(p.out, 'obj', 'Vtb'), [], p.out);
    expect(sim.status, sim.out.slice(-2000)).toBe(0);
    const got = simOutput(join(p.out, 'out.txt'));
    expect(got.length).toBe(p.vectors.length);
    expect(mismatches(p, got, 'rtl'), `seed ${SEED}`).toEqual([]);

    // Every kind the configuration supports was packed, and the others were sent (and packed nothing).
    const packed = new Set(p.vectors.filter((_, i) => !p.expected[i]!.startsWith('00 ')).map((d) => Number(d.get('kind_i'))));
    const supported = KIND_CODES.map((c, code) => ({ c, code })).filter(({ c }) => {
      try {
        const pkt: Packet = { format: c.format, ...(c.subformat === undefined ? {} : { subformat: c.subformat }), branches: 1n, branch_fmt: 0n, interrupt: 0n, thaddr: 0n };
        return packetKind(pkt, p.config.params) === c.kind && packetFields(pkt, p.config.params).length > 0;
      } catch {
        return false;
      }
    });
    expect([...packed].sort()).toEqual(supported.map(({ code }) => code));
  });
});

describe('etrace_packer with the tools', () => {
  it.each(CASES)('$label: verilator --lint-only -Wall reports nothing', (k) => {
    const r = run('verilator', ['--lint-only', '-Wall', 'etrace_packer.sv'], generated(k));
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(CASES)('$label: Icarus compiles it, and simulates the vectors as the model packs them', (k) => {
    const p = prepare(k);
    // Icarus 11 only notes that it ignores `unique`.
    const notes = (out: string): string[] => out.split('\n').filter((l) => l !== '' && !/Case unique\/unique0 qualities are ignored/.test(l));
    const alone = run('iverilog', ['-g2012', '-o', 'packer.vvp', 'etrace_packer.sv'], p.out);
    expect(alone.status, alone.out).toBe(0);
    expect(notes(alone.out)).toEqual([]);
    const icarus = join(p.out, 'icarus');
    mkdirSync(icarus, { recursive: true });
    const count = p.vectors.length - RANDOM_VECTORS + ICARUS_RANDOM_VECTORS;
    const lines = readFileSync(join(p.out, 'vectors.txt'), 'utf8').split('\n').slice(0, count);
    writeFileSync(join(icarus, 'vectors.txt'), `${lines.join('\n')}\n`);
    const build = run('iverilog', ['-g2012', '-o', 'tb.vvp', '../tb.sv', '../etrace_packer.sv'], icarus);
    expect(build.status, build.out).toBe(0);
    const sim = run('vvp', ['-n', 'tb.vvp'], icarus);
    expect(sim.status, sim.out.slice(-2000)).toBe(0);
    const got = simOutput(join(icarus, 'out.txt'));
    expect(got.length).toBe(count);
    expect(mismatches(p, got, 'icarus', count), `seed ${SEED}`).toEqual([]);
  });

  it.each(SHIPPED)('$label: yosys synthesises it without latches', (k) => {
    const r = yosysLatchCheck(['etrace_packer.sv'], 'etrace_packer', generated(k));
    expect(r.out).not.toMatch(LATCH_INFERRED);
    expect(r.status, r.out.slice(-2000)).toBe(0);
  });
});
