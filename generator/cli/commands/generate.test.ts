/**
 * `rvtrace generate`: regenerating every shipped component (E-Trace and CTR) gives exactly the
 * checked-in rtl-out/<component>/ (file names and every byte); the output is complete and
 * deterministic; bad input writes nothing; the block comes from the component.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedComponents } from '../../../ipxact/load.ts';
import { validateXsd, defaultSchemaDir } from '../../../ipxact/reader/xsd.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-generate-'));

function rvtrace(...args: string[]): { status: number; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status ?? -1, stderr: r.stderr };
}

/** Every file of a directory: name -> bytes. */
function contents(d: string): Map<string, Buffer> {
  return new Map(readdirSync(d).sort().map((n) => [n, readFileSync(join(d, n))]));
}

describe('rvtrace generate', () => {
  it.each(shippedComponents())('%s: regenerating gives the checked-in rtl-out/<component>/ byte for byte', (component) => {
    const out = join(dir, 'regen', component);
    const r = rvtrace('generate', '--component', component, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const want = contents(join(ROOT, 'rtl-out', component));
    const got = contents(out);
    for (const name of ['etrace.f', `${component}.core`, `${component}.xml`, 'etrace_top.sv', 'etrace_apb_regs.sv', 'etrace_ingress.sv', 'etrace_encoder.sv', 'etrace_encoder_step.sv', 'etrace_packer.sv', 'etrace_fifo.sv']) {
      expect([...got.keys()]).toContain(name);
    }
    expect([...got.keys()]).toEqual([...want.keys()]);
    for (const [name, bytes] of want) {
      // Buffer.equals: fails on any byte of difference, whitespace and line endings included.
      expect(got.get(name)!.equals(bytes), `${component}/${name} differs from rtl-out; regenerate with npx rvtrace generate --component ${component} --out rtl-out/${component}`).toBe(true);
    }
    expect(readdirSync(join(dir, 'regen')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it.each(shippedComponents('ctr'))('CTR %s: regenerating gives the checked-in rtl-out/<component>/ byte for byte', (component) => {
    const out = join(dir, 'regen-ctr', component);
    const r = rvtrace('generate', '--component', component, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const want = contents(join(ROOT, 'rtl-out', component));
    const got = contents(out);
    expect([...got.keys()]).toEqual(['ctr.f', `${component}.core`, `${component}.xml`, 'ctr_csr.sv', 'ctr_entries.sv', 'ctr_record.sv', 'ctr_top.sv'].sort());
    expect([...got.keys()]).toEqual([...want.keys()]);
    for (const [name, bytes] of want) {
      expect(got.get(name)!.equals(bytes), `${component}/${name} differs from rtl-out; regenerate with npx rvtrace generate --component ${component} --out rtl-out/${component}`).toBe(true);
    }
    expect(validateXsd(join(out, `${component}.xml`), '2014', defaultSchemaDir())).toEqual([]);
  });

  it('CTR: the block comes from the component; --set takes CTR settings; bad values write nothing', () => {
    const out = join(dir, 'ctr-set');
    const r = rvtrace('generate', '--component', 'ctr', '--out', out, '--set', 'depthMax=32', '--set', 'cycleCounting=0', '--set', 'cceBits=0');
    expect(r.status, r.stderr).toBe(0);
    const top = readFileSync(join(out, 'ctr_top.sv'), 'utf8');
    expect(top.split('\n')[1]).toBe('// Do not edit: regenerate with `npx rvtrace generate --component ctr --set depthMax=32 --set cycleCounting=0 --set cceBits=0 --out <dir>`.');
    expect(top).toContain('  parameter int depthMax = 32,');
    expect(readFileSync(join(out, 'ctr_entries.sv'), 'utf8')).toContain('localparam int Entries = 32;');
    const f = readFileSync(join(out, 'ctr.f'), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('//'));
    expect(f).toEqual(['ctr_entries.sv', 'ctr_csr.sv', 'ctr_record.sv', 'ctr_top.sv']);
    const core = readFileSync(join(out, 'ctr.core'), 'utf8');
    expect(core).toContain('\nname: rvtrace.dev:trace:ctr:1.0\n');
    expect(core).toContain('    toplevel: ctr_top\n');

    const never = join(dir, 'ctr-never');
    const etraceSetting = rvtrace('generate', '--component', 'ctr', '--out', never, '--set', 'payload_layout=2.0');
    expect(etraceSetting.status).toBe(2);
    expect(etraceSetting.stderr).toMatch(/^rvtrace: --set payload_layout: 'generate' has no setting of that name \(known: specVersion, xlen,/);
    const bad = rvtrace('generate', '--component', 'ctr', '--out', never, '--set', 'depthMin=64', '--set', 'depthMax=32');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('parameters/depthMin: depthMin (64) is larger than depthMax (32)');
    const wrongBlock = rvtrace('generate', '--component', 'etrace', '--out', never, '--set', 'depthMax=32');
    expect(wrongBlock.status).toBe(2);
    expect(wrongBlock.stderr).toMatch(/--set depthMax: 'generate' has no setting of that name \(known: payload_layout,/);
    expect(existsSync(never)).toBe(false);
  });

  it('writes the banner, the filelist, the FuseSoC core and a valid IP-XACT component', () => {
    const out = join(ROOT, 'rtl-out', 'etrace-rv32-mcu');
    const sv = readFileSync(join(out, 'etrace_apb_regs.sv'), 'utf8');
    expect(sv.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^\/\/ Generated by rvtrace \d+\.\d+\.\d+ from etrace-rv32-mcu \(sha256 of the component description: [0-9a-f]{64}\)\.$/),
      '// Do not edit: regenerate with `npx rvtrace generate --component etrace-rv32-mcu --out <dir>`.',
    ]);
    expect(sv).toContain('module etrace_apb_regs (');
    const f = readFileSync(join(out, 'etrace.f'), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('//'));
    expect(f).toEqual(['etrace.vlt', 'etrace_apb_regs.sv', 'etrace_ingress.sv', 'etrace_encoder.sv', 'etrace_encoder_step.sv', 'etrace_packer.sv', 'etrace_fifo.sv', 'etrace_top.sv']);
    const core = readFileSync(join(out, 'etrace-rv32-mcu.core'), 'utf8');
    expect(core.startsWith('CAPI=2:\n# Generated by rvtrace')).toBe(true);
    expect(core).toContain('\nname: rvtrace.dev:trace:etrace-rv32-mcu:1.0\n');
    expect(core).toContain('      - etrace_fifo.sv\n      - etrace_top.sv\n    file_type: systemVerilogSource\n');
    expect(core).toContain('    toplevel: etrace_top\n');
    expect(core).toContain('      - etrace-rv32-mcu.xml\n');
    expect(validateXsd(join(out, 'etrace-rv32-mcu.xml'), '2014', defaultSchemaDir())).toEqual([]);
  });

  it('--set changes the RTL and is named in the banner; the same command gives the same bytes', () => {
    const a = join(dir, 'set-a');
    const b = join(dir, 'set-b');
    for (const out of [a, b]) {
      expect(rvtrace('generate', '--component', 'etrace', '--out', out, '--set', 'bpred_size_p=4', '--set', 'ResyncMax=7').status).toBe(0);
    }
    expect(contents(a)).toEqual(contents(b));
    const sv = readFileSync(join(a, 'etrace_apb_regs.sv'), 'utf8');
    expect(sv).toContain('--component etrace --set bpred_size_p=4 --set ResyncMax=7 --out <dir>');
    expect(sv).toMatch(/ResyncMaxRst\s+= 4'h7;/);
    expect(sv).toContain('output logic        branch_prediction_o');
    // The predictor exists only when the component has one: 16 two-bit counters.
    expect(readFileSync(join(a, 'etrace_bpred.sv'), 'utf8')).toContain('logic [1:0] table_q [16];');
    expect(contents(join(ROOT, 'rtl-out', 'etrace')).has('etrace_bpred.sv')).toBe(false);
  });

  it('bad input writes nothing (exit 2); a directory with foreign files is not replaced', () => {
    const out = join(dir, 'never');
    const bad = rvtrace('generate', '--component', join(ROOT, 'ipxact', 'test-fixtures', 'bad', 'lsb-3.xml'), '--out', out);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/lsb-3\.xml:18: parameters\/iaddress_lsb_p: /);
    expect(rvtrace('generate', '--out', out, '--set', 'filters_p=99').status).toBe(2);
    expect(existsSync(out)).toBe(false);
    const mine = join(dir, 'mine');
    mkdirSync(mine);
    writeFileSync(join(mine, 'top.sv'), 'module top; endmodule\n');
    const r = rvtrace('generate', '--out', mine);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('top.sv was not generated by rvtrace');
    expect(readdirSync(mine)).toEqual(['top.sv']);
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
