/**
 * Quality gates of the generated CTR RTL: Verilator lint with the build's flags (with and without
 * --assert, with the waivers of ctr.vlt) and Icarus Verilog elaboration on every shipped CTR component and a few variants that
 * switch the optional hardware off; Yosys synthesis without latches on every shipped component
 * (the cell counts are printed); the decoded CSR numbers are exactly the model's; the top level
 * has no parameters (the configuration is localparams) and the IP-XACT export lists none.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ctrCsrNumbers } from '../../golden-model/ctr/unit.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { renderCtrRtl, ctrLintWaivers } from './rtl.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { renderWaivers } from '../waivers.ts';
import { componentXml } from '../output.ts';

const ctrSetup = (_command: string, name: string, sets: readonly string[]) => {
  const r = resolvedOf<CtrBlockConfig>('ctr', name, sets);
  return { ...r.config, settings: r.settings };
};
import { CTR_TOP_MODULE } from '../../golden-model/ctr/ports.ts';
import { ctrCsrDecode } from '../../golden-model/ctr/csr-map.ts';

const CTR_WAIVERS = 'ctr.vlt';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ctr-rtl-'));

function generated(name: string, sets: string[] = []): { dir: string; files: string[] } {
  const out = join(dir, [name, ...sets].join('-').replace(/\W+/g, '-'));
  mkdirSync(out, { recursive: true });
  const s = ctrSetup('test', name, sets);
  const banner = { component: name, inputHash: 'test', sets };
  const files = renderCtrRtl(s.config, s.rtl, s.settings, banner);
  for (const f of [...files, renderWaivers(CTR_WAIVERS, ctrLintWaivers(), banner)]) writeFileSync(join(out, f.name), f.content);
  return { dir: out, files: files.map((f) => f.name) };
}

function run(cmd: string, args: string[], cwd: string, timeout?: number): { status: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20, ...(timeout !== undefined ? { timeout, killSignal: 'SIGKILL' as const } : {}) });
  const killed = r.signal !== null ? `\n${cmd} killed by ${r.signal}` : '';
  return { status: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}${killed}` };
}

/** Every shipped CTR component, and variants without the optional hardware. */
const VARIANTS: [string, string[]][] = [
  ['ctr', ['depthMax=64', 'entriesOnDepthChange=zero', 'wrptrOnDepthChange=zero', 'cycleCounting=0', 'cceBits=0', 'rasemu=0']],
  ['ctr-rv32', ['sMode=0', 'hExt=0', 'depthMax=16', 'resetDepth=16', 'misp=0', 'typeField=0', 'bpfrz=0', 'lcofifrz=0', 'externalTraps=0', 'filterMask=0']],
  ['ctr-1.0', ['xlen=32', 'smstateen=0', 'depthMin=32', 'depthMax=128', 'resetDepth=32', 'depthLegalisation=keep', 'cceBits=1', 'rasemuCcvPolicy=all-calls', 'iretire_width_p=8', 'lastsize_width_p=2']],
];
const COMPONENTS: [string, string[]][] = [...shippedComponents('ctr').map((n): [string, string[]] => [n, []]), ...VARIANTS];
const label = (name: string, sets: string[]) => [name, ...sets].join(' ');

/** Icarus's notes about constructs it simulates correctly but not optimally. */
const ICARUS_NOTES = [/sorry: constant selects in always_\* processes are not currently supported \(all bits will be included\)\.$/, /sorry: Case unique\/unique0 qualities are ignored\.$/];

// The shipped components pass the same gates in blocks/gates.test.ts (every block's); here the variants.
describe('generated CTR RTL with the tools', () => {
  it.each(VARIANTS.map(([n, s]) => [label(n, s), n, s] as const))('%s: verilator --lint-only -Wall (with and without --assert) reports nothing; iverilog elaborates it', (_l, name, sets) => {
    const g = generated(name, [...sets]);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', CTR_TOP_MODULE, CTR_WAIVERS, ...g.files], g.dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    // The waivers too: the filelist lists them, so Icarus must skip them.
    const ivl = run('iverilog', ['-g2012', '-o', 'top.vvp', '-s', CTR_TOP_MODULE, CTR_WAIVERS, ...g.files], g.dir);
    expect(ivl.status, ivl.out).toBe(0);
    expect(ivl.out.split('\n').filter((l) => l.trim() !== '' && !ICARUS_NOTES.some((re) => re.test(l)))).toEqual([]);
  }, 120_000);
});

describe('the RTL decodes exactly the model\'s CSRs', () => {
  it.each(COMPONENTS.map(([n, s]) => [label(n, s), n, s] as const))('%s', (_l, name, sets) => {
    const c = ctrSetup('test', name, [...sets]).config;
    expect(ctrCsrDecode(c).map((d) => d.address)).toEqual(ctrCsrNumbers(c));
    const sv = readFileSync(join(generated(name, [...sets]).dir, 'ctr_csr.sv'), 'utf8');
    const decoded = [...sv.matchAll(/^\s+12'h([0-9a-f]{1,3}): begin hit_l = 1'b1;/gm)].map((m) => parseInt(m[1]!, 16));
    expect(decoded).toEqual(ctrCsrNumbers(c));
  });
});

describe('the generated text', () => {
  it.each(COMPONENTS.map(([n, s]) => [label(n, s), n, s] as const))('%s: every range and select is plain numbers (no arithmetic left for the reader)', (_l, name, sets) => {
    const g = generated(name, [...sets]);
    for (const f of g.files) {
      const code = readFileSync(join(g.dir, f), 'utf8').split('\n').map((l) => l.replace(/\/\/.*$/, ''));
      expect(code.filter((l) => /\[[^\]]*[0-9A-Za-z_] *[-+*] *[0-9]/.test(l)), f).toEqual([]);
    }
  });

  it.each(COMPONENTS.map(([n, s]) => [label(n, s), n, s] as const))('%s: comments cite the specification, not files an integrator does not have', (_l, name, sets) => {
    const g = generated(name, [...sets]);
    for (const f of [...g.files, CTR_WAIVERS]) {
      const text = readFileSync(join(g.dir, f), 'utf8');
      expect(text.split('\n').filter((l) => /\.ts\b|golden-model|generator\/|docs\//.test(l)), f).toEqual([]);
    }
  });
});

describe('ctr_top parameters', () => {
  it('has no module parameters (the configuration is localparams, none overridable), and the IP-XACT instantiation lists none', () => {
    const g = generated('ctr');
    for (const f of g.files) expect(readFileSync(join(g.dir, f), 'utf8'), f).not.toMatch(/(?<!local)parameter\b/);
    const top = readFileSync(join(g.dir, 'ctr_top.sv'), 'utf8');
    expect(top).toMatch(/^ {2}localparam int +DepthMax += 256;$/m);
    expect(top).toMatch(/^ {2}localparam int +Xlen += 64;$/m);
    const r = resolvedOf<CtrBlockConfig>('ctr', 'ctr');
    expect(r.block.exportComponent(r).instantiation.moduleParameters).toEqual([]);
    expect(componentXml(r, '2014')).not.toContain('moduleParameter');
  });
});
