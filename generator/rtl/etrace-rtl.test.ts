/**
 * Quality gates of the generated E-Trace RTL on every shipped component: Verilator lint with the
 * build's flags and Yosys synthesis without latches. (The byte-for-byte check against the model is
 * the co-simulation in tb/etrace-cosim.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_SETTINGS, etraceConfig } from '../../golden-model/etrace/settings.ts';
import { loadComponent, shippedComponents } from '../../ipxact/load.ts';
import { renderEtraceRtl } from './etrace.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-rtl-'));

function configOf(name: string): EtraceConfig {
  return etraceConfig(resolveSettings('test', ETRACE_SETTINGS, [], loadComponent(name, ETRACE_SETTINGS).settings));
}

/** Writes the RTL of a component and returns the file names in compilation order. */
function generated(name: string): { dir: string; files: string[] } {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  const files = renderEtraceRtl(configOf(name), { component: name, description: new Uint8Array(), sets: [] });
  for (const f of files) writeFileSync(join(out, f.name), f.content);
  return { dir: out, files: files.map((f) => f.name) };
}

function run(cmd: string, args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

const COMPONENTS = shippedComponents();

describe('generated E-Trace RTL with the tools', () => {
  it.each(COMPONENTS)('%s: verilator --lint-only -Wall (with and without --assert) reports nothing', (name) => {
    const g = generated(name);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', 'etrace_top', ...g.files], g.dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
  });

  it.each(COMPONENTS)('%s: yosys synthesises etrace_top without latches', (name) => {
    const g = generated(name);
    const script = `read_verilog -sv ${g.files.join(' ')}; synth -top etrace_top; select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_*; check -assert; stat`;
    const r = run('yosys', ['-q', '-p', script], g.dir);
    expect(r.out).not.toMatch(/(?<!No )latch inferred/i);
    expect(r.out).not.toMatch(/ERROR/);
    expect(r.status, r.out.slice(-2000)).toBe(0);
  }, 240_000);
});
