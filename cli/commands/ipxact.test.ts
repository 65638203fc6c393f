/**
 * `rvtrace ipxact`: the exported component validates against the schema of its standard, is the
 * same bytes every time, and reads back (through the same loader as --component) as the same
 * configuration, ports and registers, for every shipped component and both standards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings, type Settings } from '../../golden-model/common/settings.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import { etraceMemoryMap } from '../../golden-model/etrace/registers.ts';
import { ETRACE_SETTINGS, etraceConfig } from '../../golden-model/etrace/settings.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { evalExpr, readComponentFile, resolveParameters, type IpxactStandard } from '../../ipxact/reader/component.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import { componentXml } from '../../generator/output.ts';
import { loadComponent } from '../../ipxact/load.ts';
import { ipxactCommandLine } from './ipxact.ts';

const loadEtraceComponent = ({ component }: { component: string }) => loadComponent(component, ETRACE_SETTINGS, { block: 'etrace' });

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ipxact-'));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The settings a command would use: defaults, the component, then --set. */
function settingsOf(component: string, sets: string[] = []): Settings {
  return resolveSettings('ipxact', ETRACE_SETTINGS, sets, loadEtraceComponent({ component }).settings);
}

/** Exports in-process (as the command does) and returns the file written. */
function exportTo(component: string, standard: IpxactStandard, sets: string[] = []): string {
  const r = resolvedOf('etrace', component, sets);
  const text = componentXml(r, standard, ipxactCommandLine(r.provenance, standard));
  const out = join(dir, `${component.replace(/\W/g, '_')}-${standard}-${sets.length}.xml`);
  writeFileSync(out, text);
  return out;
}

const CASES = shippedComponents('etrace').flatMap((c) => (['2014', '2022'] as const).map((s) => [c, s] as const));

describe('rvtrace ipxact export', () => {
  it.each(CASES)('%s (IEEE 1685-%s): valid, and reads back as the same configuration', (component, standard) => {
    const out = exportTo(component, standard);
    expect(validateXsd(out, standard, defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const back = loadEtraceComponent({ component: out });
    expect(back.standard).toBe(standard);
    expect(back.vlnv).toEqual(loadEtraceComponent({ component }).vlnv);
    const original = etraceConfig(settingsOf(component));
    expect(etraceConfig(resolveSettings('ipxact', ETRACE_SETTINGS, [], back.settings))).toEqual(original);
  });

  it.each(CASES)('%s (IEEE 1685-%s): ports and registers read back as ports.ts and registers.ts say', (component, standard) => {
    const config = etraceConfig(settingsOf(component));
    const read = readComponentFile(exportTo(component, standard));
    expect(read.errors).toEqual([]);
    const c = read.component!;
    const values = resolveParameters(c).values;
    const num = (text: string, line: number): number => {
      const r = evalExpr(c, text, values, { line, path: 'test' });
      if (!r.ok) throw r.error;
      return Number(r.value);
    };
    const expected = etracePorts(config);
    expect(c.ports.map((p) => p.name)).toEqual(expected.map((p) => p.name));
    c.ports.forEach((p, i) => {
      const width = p.left === undefined ? 1 : num(p.left, p.line) - num(p.right!, p.line) + 1;
      expect(width, p.name).toBe(expected[i]!.width);
      expect(p.direction).toBe(expected[i]!.direction);
    });
    const map = etraceMemoryMap(config);
    expect(c.memoryMaps.map((m) => m.name)).toEqual([map.name]);
    const blocks = c.memoryMaps[0]!.addressBlocks;
    expect(blocks.map((b) => [b.name, num(b.baseAddress, b.line), num(b.range, b.line)])).toEqual(map.addressBlocks.map((b) => [b.name, b.baseAddress, b.range]));
    blocks.forEach((b, i) => {
      const want = map.addressBlocks[i]!.registers;
      expect(b.registers.map((r) => [r.name, num(r.addressOffset, r.line), num(r.size, r.line)])).toEqual(want.map((r) => [r.name, r.offset, r.size]));
      b.registers.forEach((r, j) => {
        expect(r.fields.map((f) => [f.name, num(f.bitOffset, f.line), num(f.bitWidth, f.line), f.access, BigInt(num(f.resetValue!, f.line))])).toEqual(
          want[j]!.fields.map((f) => [f.name, f.bitOffset, f.bitWidth, f.access, f.reset]),
        );
      });
    });
    expect(c.fileSets.map((s) => s.files.map((f) => f.name))).toEqual([['etrace_top.sv', 'etrace_apb_regs.sv', 'etrace_ingress.sv', 'etrace_encoder.sv', 'etrace_encoder_step.sv',
      'etrace_step_decision.sv', 'etrace_step_contents.sv', 'etrace_step_accept.sv',
      // With pipeline stages the bytes of a step's packets are put together a stage later.
      ...(config.params.pipeline_stages_p > 0 ? ['etrace_step_write.sv'] : []), 'etrace_packer.sv', 'etrace_fifo.sv',
      ...(config.params.bpred_size_p > 0 ? ['etrace_bpred.sv'] : []), ...(config.params.cache_size_p > 0 ? ['etrace_jtc.sv'] : []),
      ...(config.params.return_stack_size_p > 0 ? ['etrace_irstack.sv'] : []),
      ...(config.params.dataTrace ? ['etrace_data_encoder.sv', 'etrace_data_codes.sv', 'etrace_data_compress.sv', 'etrace_data_packer.sv'] : [])]]);
  });

  it('round-trips filters, comparators and 64-bit match values set on the command line', () => {
    const sets = [
      'filters_p=2', 'comparators_p=2', 'iFilters=2', 'filter1.filterEnable=1', 'filter1.matchComp1=1', 'filter1.comp1=1',
      'filter0.matchPrivilege=1', 'filter0.matchChoicePrivilege=9', 'comparator1.pMatch=0xfedcba9876543210', 'comparator1.sMatch=0xffffffffffffffff',
      'comparator1.pFunction=4', 'comparator1.matchMode=1', 'comparator1.pNotify=1', 'BranchPrediction=0', 'FullAddress=1',
    ];
    for (const standard of ['2014', '2022'] as const) {
      const out = exportTo('etrace-rv64-full', standard, sets);
      expect(validateXsd(out, standard, defaultSchemaDir())).toEqual([]);
      const back = etraceConfig(resolveSettings('ipxact', ETRACE_SETTINGS, [], loadEtraceComponent({ component: out }).settings));
      expect(back).toEqual(etraceConfig(settingsOf('etrace-rv64-full', sets)));
      expect(back.options.comparators[1]!.pMatch).toBe(0xfedcba9876543210n);
    }
  });

  it('the command writes the same bytes every time, with a banner and no temporary file left', () => {
    const a = join(dir, 'cli', 'a.xml');
    const b = join(dir, 'cli', 'b.xml');
    expect(rvtrace('ipxact', '--component', 'etrace-2.0', '--out', a, '--standard', '2022').status).toBe(0);
    expect(rvtrace('ipxact', '--component', 'etrace-2.0', '--out', b, '--standard', '2022').status).toBe(0);
    const text = readFileSync(a, 'utf8');
    expect(readFileSync(b, 'utf8')).toBe(text);
    expect(text).toBe(readFileSync(exportTo('etrace-2.0', '2022'), 'utf8'));
    expect(text.split('\n').slice(1, 4)).toEqual([
      '<!-- SPDX-License-Identifier: Apache-2.0 -->',
      expect.stringMatching(/^<!-- Generated by rvtrace 0\.1\.0 from etrace-2\.0 \(sha256 of the component description: [0-9a-f]{64}\)\. -->$/),
      '<!-- Do not edit: regenerate with `npx rvtrace ipxact -c etrace-2.0 -S 2022 -o <file>`. -->',
    ]);
    expect(readdirSync(join(dir, 'cli')).sort()).toEqual(['a.xml', 'b.xml']);
  });

  it('writes nothing and exits 2 for a bad component or a bad option', () => {
    const out = join(dir, 'never.xml');
    const bad = rvtrace('ipxact', '--component', join(ROOT, 'ipxact', 'test-fixtures', 'multi-error.xml'), '--out', out);
    expect(bad.status).toBe(2);
    const lines = bad.stderr.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(/multi-error\.xml:18: parameters\/itype_width_p: itype_width_p must be 3 or 4, not 5$/);
    expect(existsSync(out)).toBe(false);
    const one = rvtrace('ipxact', '--component', join(ROOT, 'ipxact', 'test-fixtures', 'bad', 'lsb-3.xml'), '--out', out);
    expect(one.status).toBe(2);
    expect(one.stderr.trim()).toMatch(/^rvtrace: .*lsb-3\.xml:18: parameters\/iaddress_lsb_p: iaddress_lsb_p must be 1 or 2, not 3$/);
    const standard = rvtrace('ipxact', '--out', out, '--standard', '2009');
    expect(standard.status).toBe(2);
    expect(standard.stderr.trim()).toBe('rvtrace: --standard 2009: expected 2014 or 2022');
    const schema = rvtrace('ipxact', '--out', out, '--schema-dir', join(dir, 'nothing-here'));
    expect(schema.status).toBe(3);
    expect(schema.stderr).toContain('IP-XACT 2014 schema not found');
    expect(existsSync(out)).toBe(false);
  });
});
