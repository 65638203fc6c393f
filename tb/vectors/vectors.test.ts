/**
 * rvtrace vectors: the testbench it writes passes on Icarus Verilog 11 and on Verilator 5.006 for
 * every shipped component of every block, and fails on a mutated copy of the RTL. Small cases (a
 * few hundred records, back-pressure where the block has an output stream); each configuration is
 * compiled once (sim.ts).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import type { CaseSpec } from '../../core/block.ts';
import { shippedComponentList } from '../../ipxact/load.ts';
import { writeDirectoryAtomic } from '../../generator/render.ts';
import { firstTransferHidden } from '../check/testing.ts';
import { runIcarus, runVerilator } from './sim.ts';
import { vectorFileNames, vectorFiles, vectorName } from './write.ts';

const root = mkdtempSync(join(tmpdir(), 'rvtrace-vectors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COUNT = 200;
const SEED = 5;

/** Writes the vectors of a shipped component into <root>/<name>; returns the directory and names. */
function vectorsOf(component: string, sets: string[] = [], backpressure = 0.25): { dir: string; module: string; filelist: string; top: string } {
  const r = resolveComponent(component, sets, { command: 'vectors' });
  const spec: CaseSpec = { component, sets, seed: SEED, count: COUNT, backpressure: r.block.backpressure ? backpressure : 0 };
  const vc = r.block.vectors!(r, spec);
  const name = vectorName(component);
  const dir = join(root, `${name}${sets.length ? '-set' : ''}`);
  writeDirectoryAtomic(dir, vectorFiles(r, spec, vc));
  const n = vectorFileNames(name);
  return { dir, module: n.module, filelist: n.filelist, top: vc.harness.top };
}

const written = new Map<string, ReturnType<typeof vectorsOf>>();
const vectors = (component: string): ReturnType<typeof vectorsOf> => {
  let v = written.get(component);
  if (v === undefined) {
    v = vectorsOf(component);
    written.set(component, v);
  }
  return v;
};

const COMPONENTS = shippedComponentList().map((c) => c.name);

describe('rvtrace vectors: the testbench passes on the RTL', () => {
  it('every block has vectors', () => {
    for (const c of COMPONENTS) expect(resolveComponent(c, [], { command: 'vectors' }).block.vectors, c).toBeDefined();
  });

  it.each(COMPONENTS)('%s: Icarus Verilog 11 (iverilog -g2012)', (component) => {
    const v = vectors(component);
    // The runs take 3 s of CPU at most, but 21 s of wall time at a load of 12 on the 2-core
    // machine (etrace-rv64-full, 2026-11-26); one that has not ended in 90 s is in a zero-delay
    // loop: Icarus 11 runs every always_comb compiled before one that wakes again, so an output set
    // to a default and then overridden wakes its readers for ever (README, vectors).
    const r = runIcarus(v.dir, v.module, v.filelist, 90_000);
    expect(r.timedOut ? 'vvp did not end within 90 s (a zero-delay loop)' : r.verdict, r.output.slice(-3000)).toMatch(new RegExp(`^PASS ${v.module}: \\d+ cycles, \\d+ frames, \\d+ held, [1-9]\\d* responses compared$`));
  }, 240_000);

  it.each(COMPONENTS)('%s: Verilator 5.006 (--binary)', (component) => {
    const v = vectors(component);
    const r = runVerilator(v.dir, v.module, v.filelist);
    expect(r.verdict ?? '(no PASS or FAIL line)', r.output.slice(-3000)).toMatch(new RegExp(`^PASS ${v.module}: \\d+ cycles, \\d+ frames, \\d+ held, [1-9]\\d* responses compared$`));
  }, 30 * 60_000);

  it('etrace with stallEnable and back-pressure 0.6: the held frames are applied again and counted as the model stalls (Icarus)', () => {
    const v = vectorsOf('etrace', ['stallEnable=1'], 0.6);
    const r = runIcarus(v.dir, v.module, v.filelist, 30_000);
    const m = r.verdict?.match(/^PASS tb_etrace: (\d+) cycles, (\d+) frames, (\d+) held, [1-9]\d* responses compared$/);
    expect(m, r.output.slice(-3000)).not.toBeNull();
    expect(Number(m![3])).toBeGreaterThan(0);
    expect(Number(m![1])).toBe(Number(m![2]) + Number(m![3]));
  }, 120_000);
});

interface Port {
  readonly dir: string;
  readonly range: string;
  readonly name: string;
}

/**
 * A copy of the directory whose top module is renamed `<top>_orig` and wrapped by a module of the
 * top's name and ports: `connect` names the signal each of the original's ports is wired to, and
 * `body` gives the wrapper's own lines (declarations and assignments between the two).
 */
function wrappedCopy(v: { dir: string; top: string }, suffix: string, connect: (p: Port) => string, body: (ports: readonly Port[]) => string[]): string {
  const dir = `${v.dir}-${suffix}`;
  rmSync(dir, { recursive: true, force: true });
  cpSync(v.dir, dir, { recursive: true });
  const file = join(dir, `${v.top}.sv`);
  const text = readFileSync(file, 'utf8');
  const header = text.match(new RegExp(`module ${v.top} \\(([\\s\\S]*?)\\n\\);`));
  if (!header) throw new Error(`no module header in ${file}`);
  const ports = [...header[1]!.matchAll(/(input|output)\s+logic\s*(\[[^\]]+\])?\s*(\w+)/g)].map((m) => ({ dir: m[1]!, range: m[2] ?? '', name: m[3]! }));
  const wrapper = [
    `module ${v.top} (`,
    ports.map((p) => `  ${p.dir} logic ${p.range} ${p.name}`).join(',\n'),
    ');',
    ...body(ports),
    `  ${v.top}_orig u_orig (`,
    ports.map((p) => `    .${p.name}(${connect(p)})`).join(',\n'),
    '  );',
    'endmodule',
    '',
  ].join('\n');
  writeFileSync(file, `${text.replace(`module ${v.top} (`, `module ${v.top}_orig (`)}\n${wrapper}`);
  return dir;
}

/**
 * A copy whose top inverts bit 0 of the first data port of the first capture the model expects
 * responses on (what an RTL bug in the output path does); the testbench must say FAIL with that
 * capture's first response.
 */
function mutated(v: { dir: string; top: string }, port: string, suffix: string): string {
  return wrappedCopy(
    v,
    suffix,
    (p) => (p.name === port ? `${port}_orig` : p.name),
    (ports) => {
      const range = ports.find((p) => p.name === port)!.range.replace(/\s+/g, '');
      return [
        `  logic ${range} ${port}_orig;`,
        // Bit 0 inverted, the rest as it is (sized, so that Verilator's WIDTH check has nothing to say).
        `  assign ${port} = ${/^\[\d+:0\]$/.test(range) && range !== '[0:0]' ? `{${port}_orig${range.replace(/:0\]$/, ':1]')}, ~${port}_orig[0]}` : `~${port}_orig`};`,
      ];
    },
  );
}

describe('rvtrace vectors: the testbench fails on a mutated RTL', () => {
  const cases: [string, string, RegExp][] = [
    ['etrace', 'tx_data_o', /^FAIL tb_etrace: first mismatch at cycle (\d+): tx tx_data_o response 0: expected 0x[0-9a-f]{2} at cycle \1, actual 0x[0-9a-f]{2} at cycle \1$/],
    ['pmu', 'csr_rdata_o', /^FAIL tb_pmu: first mismatch at cycle \d+: csr \{csr_rdata_o, csr_illegal_o, csr_virtual_o\} response 0: expected 0x[0-9a-f]+ at cycle \d+, actual 0x[0-9a-f]+ at cycle \d+$/],
  ];
  it.each(cases)('%s with %s inverted in bit 0: Icarus says FAIL at the first response', (component, port, verdict) => {
    const v = vectors(component);
    const dir = mutated(v, port, 'mutated');
    const r = runIcarus(dir, v.module, v.filelist, 30_000);
    expect(r.verdict ?? '(no PASS or FAIL line)', r.output.slice(-3000)).toMatch(verdict);
  }, 120_000);

  it('etrace with tx_data_o inverted in bit 0: Verilator says FAIL at the first byte', () => {
    const v = vectors('etrace');
    const dir = mutated(v, 'tx_data_o', 'mutated-vl');
    const r = runVerilator(dir, v.module, v.filelist);
    expect(r.verdict ?? '(no PASS or FAIL line)', r.output.slice(-3000)).toMatch(cases[0]![2]);
  }, 30 * 60_000);
});

/**
 * A copy whose top masks the first handshake of the byte output `<out>_valid_o` / `<out>_ready_i`
 * (valid and ready both, in that cycle): every byte is still right and in order, one cycle late, as
 * an RTL whose FIFO adds a cycle would send it. Only the cycles the model predicts can catch that.
 */
function oneCycleLate(v: { dir: string; top: string }, out: string): string {
  const h = firstTransferHidden(out, 'clk_i', 'rst_ni');
  return wrappedCopy(v, 'late', (p) => h.inner(p.name), () => h.body);
}

describe('rvtrace vectors: trace bytes in their cycle', () => {
  it.each([
    ['etrace', 'tx'],
    ['ntrace-btm-mcu', 'mseo'],
  ])('%s whose bytes all come one cycle late: Icarus says FAIL in the cycle the model expects the first byte', (component, out) => {
    const v = vectors(component);
    const r = runIcarus(oneCycleLate(v, out), v.module, v.filelist, 30_000);
    // The testbench misses the byte in its cycle (the bytes compared in order would all be right).
    expect(r.verdict ?? '(no PASS or FAIL line)', r.output.slice(-3000)).toMatch(
      new RegExp(`^FAIL ${v.module}: first mismatch at cycle (\\d+): ${out} ${out}_data_o response 0: expected 0x[0-9a-f]{2} at cycle \\1, actual none$`),
    );
  }, 120_000);
});

describe('rvtrace vectors: files', () => {
  it('the same case gives the same bytes; every file has the banner and no absolute path', () => {
    const r = resolveComponent('ntrace-btm-mcu', [], { command: 'vectors' });
    const spec: CaseSpec = { component: 'ntrace-btm-mcu', sets: [], seed: 2, count: 50, backpressure: 0.5 };
    const a = vectorFiles(r, spec, r.block.vectors!(r, spec));
    const b = vectorFiles(r, spec, r.block.vectors!(r, spec));
    expect(b).toEqual(a);
    for (const f of a) {
      expect(f.content.slice(0, 512), f.name).toContain('Generated by rvtrace');
      expect(f.content, f.name).not.toContain(root);
      expect(f.content, f.name).not.toContain(process.cwd());
    }
    expect(a.map((f) => f.name)).toEqual(expect.arrayContaining(['tb_ntrace_btm_mcu.sv', 'tb_ntrace_btm_mcu.f', 'ntrace_btm_mcu_frames.hex', 'ntrace_btm_mcu_ready.hex', 'ntrace_btm_mcu_mseo_values.hex', 'ntrace_btm_mcu_apb_masks.hex', 'ntrace.vlt', 'ntrace_top.sv']));
  });

  it('the ready file follows the case: back-pressure 0 is all ready from readyOffset, 0.5 is not', () => {
    const r = resolveComponent('etrace', [], { command: 'vectors' });
    const ready = (p: number): string[] => {
      const spec: CaseSpec = { component: 'etrace', sets: [], seed: 2, count: 50, backpressure: p };
      const f = vectorFiles(r, spec, r.block.vectors!(r, spec)).find((x) => x.name === 'etrace_ready.hex')!;
      return f.content.split('\n').filter((l) => /^[01]$/.test(l));
    };
    const all = ready(0);
    expect(all[0]).toBe('0'); // cycle 0 is before readyOffset 1
    expect(all.slice(1).every((x) => x === '1')).toBe(true);
    const half = ready(0.5).slice(1);
    const zeros = half.filter((x) => x === '0').length;
    expect(zeros / half.length).toBeGreaterThan(0.4);
    expect(zeros / half.length).toBeLessThan(0.6);
  });
});
