/**
 * The quality gates every shipped component of every block passes, whatever its block: regenerating
 * gives the checked-in `rtl-out/<component>/` byte for byte (its IP-XACT validating), Verilator lint
 * with the build's flags reports nothing, Icarus elaborates it, Yosys elaborates it without latches
 * or net problems, and a short co-simulation agrees with the model. Block-specific variants are tested in the block's
 * own folders.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles, outputNames } from '../generator/output.ts';
import { writeDirectoryAtomic } from '../generator/render.ts';
import { icarusProblems, LATCH_INFERRED, runTool as run, yosysLatchCheck } from '../generator/tool-checks.ts';
import { allShippedComponents } from '../ipxact/load.ts';
import { defaultSchemaDir, validateXsd } from '../ipxact/reader/xsd.ts';
import { resolveComponent } from './index.ts';

const ROOT = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-gates-'));
const COMPONENTS = allShippedComponents();

/** Generates a component (with `sets`) into its own folder; returns the folder and the filelist's entries. */
function generated(component: string, sets: readonly string[] = []): { out: string; files: string[]; sv: string[]; top: string } {
  const r = resolveComponent(component, sets, { command: 'test' });
  // A folder of its own for each call: the tools leave their outputs beside the RTL.
  const out = join(mkdtempSync(join(dir, `${[component, ...sets].join('-').replace(/\W+/g, '-')}-`)), 'rtl');
  writeDirectoryAtomic(out, generatedFiles(r));
  const files = readFileSync(join(out, outputNames(r).filelist), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('//'));
  return { out, files, sv: files.filter((f) => f.endsWith('.sv')), top: r.block.topModule };
}

describe('every shipped component of every block', () => {
  it('are found from their <rvtrace:block>, for each registered block', () => {
    expect(COMPONENTS).toEqual(['ctr', 'ctr-1.0', 'ctr-rv32', 'ctr-small', 'etrace', 'etrace-2.0', 'etrace-data', 'etrace-rv32-mcu', 'etrace-rv64-full', 'ntrace', 'ntrace-btm-mcu', 'ntrace-full', 'pmu', 'pmu-qemu-virt', 'pmu-rv32-mcu', 'tvtrace', 'tvtrace-rv32imc']);
  });

  it.each(COMPONENTS)('%s: regenerating gives the checked-in rtl-out/<component>/ byte for byte', (component) => {
    const g = generated(component);
    const want = readdirSync(join(ROOT, 'rtl-out', component)).sort();
    expect(readdirSync(g.out).sort()).toEqual(want);
    for (const name of want) {
      // Buffer.equals: fails on any byte of difference, whitespace and line endings included.
      const same = readFileSync(join(g.out, name)).equals(readFileSync(join(ROOT, 'rtl-out', component, name)));
      expect(same, `${component}/${name} differs from rtl-out; regenerate with npx rvtrace generate --component ${component} --out rtl-out/${component}`).toBe(true);
    }
    const xml = want.find((n) => n.endsWith('.xml'))!;
    expect(validateXsd(join(g.out, xml), '2014', defaultSchemaDir())).toEqual([]);
  });

  it.each(COMPONENTS)('%s: verilator --lint-only -Wall (with and without --assert) reports nothing; iverilog elaborates it', (component) => {
    const g = generated(component);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', g.top, ...g.files], g.out);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    const ivl = run('iverilog', ['-g2012', '-o', 'top.vvp', '-s', g.top, ...g.sv], g.out);
    expect(ivl.status, ivl.out).toBe(0);
    expect(icarusProblems(ivl.out)).toEqual([]);
  }, 120_000);

  // Elaboration and proc only: see yosysLatchCheck for why that is the latch check.
  it.each(COMPONENTS)('%s: yosys elaborates the top module without latches or net problems', (component) => {
    const r = resolveComponent(component, [], { command: 'test' });
    const g = generated(component, r.block.synthesisCheckSets?.(r) ?? []);
    const y = yosysLatchCheck(g.sv, g.top, g.out);
    expect(y.out).not.toMatch(LATCH_INFERRED);
    expect(y.out).not.toMatch(/ERROR/);
    expect(y.status, y.out.slice(-2000)).toBe(0);
  }, 400_000);

  it.each(COMPONENTS)('%s: a short co-simulation agrees with the model', async (component) => {
    const r = resolveComponent(component, [], { command: 'test' });
    const result = await r.block.runCase(r, { component, sets: [], seed: 11, count: 3000, backpressure: r.block.backpressure ? 0.3 : 0, knobs: { interrupt_rate: 0.01 } });
    expect(result.mismatch).toBeUndefined();
    expect(result.identical).toBe(true);
    expect(result.records).toBeGreaterThan(0);
  }, 300_000);
});
