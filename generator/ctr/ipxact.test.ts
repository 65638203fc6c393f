/**
 * The CTR components and their IP-XACT export: every shipped CTR component validates against the
 * IEEE 1685-2014 schema and loads with its settings; the settings map onto CtrConfig and back;
 * bad values are reported at their lines; the export (2014 and 2022) validates, carries the CSR
 * map (CSR numbers as addresses, one XLEN-bit register per address unit) and the entry window,
 * and reads back as the same configuration.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { defaultCtrConfig } from '../../golden-model/ctr/config.ts';
import { CTR_SETTINGS, ctrConfig, ctrSettings, validateCtrSettings } from '../../golden-model/ctr/settings.ts';
import { ctrCsrNumbers } from '../../golden-model/ctr/unit.ts';
import { checkComponent, componentBlock, componentFile, loadComponent, shippedComponents } from '../../ipxact/load.ts';
import { readXmlFile, type XmlElement } from '../../ipxact/reader/xml.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import { componentXml } from '../output.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';

const resolved = (name: string) => resolvedOf<CtrBlockConfig>('ctr', name);

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ctr-ipxact-'));
const ctr = { block: 'ctr', validate: validateCtrSettings };

const SHIPPED: Record<string, Record<string, unknown>> = {
  ctr: {
    specVersion: '0.1.4', xlen: '64', sMode: true, uMode: true, hExt: false, smstateen: true, depthMin: '16', depthMax: '256', resetDepth: '16',
    depthLegalisation: 'clamp', wrptrOnDepthChange: 'mask', entriesOnDepthChange: 'keep', rasemu: true, bpfrz: true, lcofifrz: true,
    externalTraps: true, filterMask: 0xff3e, typeField: true, misp: true, cycleCounting: true, cceBits: 4, rasemuCcvPolicy: 'popped-parent',
  },
  'ctr-rv32': {
    specVersion: '0.1.4', xlen: '32', hExt: true, depthMin: '16', depthMax: '64', resetDepth: '32', depthLegalisation: 'keep',
    wrptrOnDepthChange: 'zero', entriesOnDepthChange: 'zero', filterMask: 0x0f3e, cceBits: 2, rasemuCcvPolicy: 'all-calls', iretire_width_p: 2,
  },
  'ctr-1.0': { specVersion: '1.0', xlen: '64', hExt: true, depthMin: '16', depthMax: '256', resetDepth: '64', cceBits: 3 },
  'ctr-small': {
    specVersion: '1.0', xlen: '32', smstateen: false, depthMin: '16', depthMax: '32', resetDepth: '16', rasemu: false, lcofifrz: false,
    externalTraps: false, filterMask: 0x30, misp: false, cycleCounting: false, cceBits: 0, iretire_width_p: 2,
  },
};

describe('shipped CTR components', () => {
  it('are listed for block ctr', () => {
    expect(shippedComponents('ctr')).toEqual(['ctr', 'ctr-1.0', 'ctr-rv32', 'ctr-small']);
    for (const name of shippedComponents('ctr')) expect(componentBlock(name)).toBe('ctr');
    expect(componentBlock('etrace')).toBe('etrace');
  });

  it.each(Object.keys(SHIPPED))('%s passes xmllint against the 1685-2014 schema and loads with its settings', (name) => {
    expect(validateXsd(componentFile(name), '2014', defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const c = loadComponent(name, CTR_SETTINGS, ctr);
    expect(c.settings).toEqual(SHIPPED[name]);
    expect(c.block).toBe('ctr');
    expect(c.vlnv).toEqual({ vendor: 'rvtrace.dev', library: 'trace', name, version: '1.0' });
    expect(c.description.length).toBeGreaterThan(50);
  });

  it('the settings are CtrConfig: defaults give the default configuration, and back', () => {
    const s = resolveSettings('test', CTR_SETTINGS, []);
    expect(ctrConfig(s)).toEqual(defaultCtrConfig());
    expect(ctrSettings(ctrConfig(s))).toEqual(s);
    expect(validateCtrSettings(s)).toEqual([]);
  });

  it('an E-Trace command refuses a CTR component, naming the block', () => {
    const r = checkComponent('ctr', CTR_SETTINGS, { block: 'etrace' });
    expect(r.errors.map((e) => e.oneLine()).join('\n')).toMatch(/ctr\.xml:\d+: the component describes block "ctr" \(<rvtrace:block>\), but this command needs block "etrace"/);
  });
});

/** A component with the given parameter lines. */
function component(name: string, params: [string, string, string][]): string {
  const file = join(dir, `${name}.xml`);
  const body = params
    .map(([n, t, v]) => `    <ipxact:parameter parameterId="${n}" type="${t}">\n      <ipxact:name>${n}</ipxact:name>\n      <ipxact:value>${v}</ipxact:value>\n    </ipxact:parameter>`)
    .join('\n');
  writeFileSync(
    file,
    `<?xml version="1.0" encoding="UTF-8"?>
<ipxact:component xmlns:ipxact="http://www.accellera.org/XMLSchema/IPXACT/1685-2014" xmlns:rvtrace="https://rvtrace.dev/ipxact/1.0">
  <ipxact:vendor>x</ipxact:vendor>
  <ipxact:library>x</ipxact:library>
  <ipxact:name>${name}</ipxact:name>
  <ipxact:version>1</ipxact:version>
  <ipxact:parameters>
${body}
  </ipxact:parameters>
  <ipxact:vendorExtensions>
    <rvtrace:block>ctr</rvtrace:block>
  </ipxact:vendorExtensions>
</ipxact:component>
`,
  );
  return file;
}

describe('bad CTR components: every problem at its line', () => {
  it('values outside the choices, an unknown name, and the configuration rules', () => {
    const file = component('bad', [
      ['depthMax', 'int', '48'],
      ['specVerison', 'string', '"1.0"'],
      ['cceBits', 'int', '3'],
      ['cycleCounting', 'bit', '0'],
      ['resetDepth', 'int', '512 / 2'],
      ['depthMin', 'int', '128'],
      ['uMode', 'bit', '0'],
    ]);
    const lines = checkComponent(file, CTR_SETTINGS, ctr).errors.map((e) => e.oneLine());
    expect(lines).toEqual([
      `${file}:8: parameters/depthMax: depthMax must be one of 16, 32, 64, 128, 256, not 48`,
      `${file}:12: parameters/specVerison: unknown parameter "specVerison" (not a setting of block ctr; did you mean specVersion?); a parameter that only helps compute others must be listed in <rvtrace:helperParameter>`,
      `${file}:16: parameters/cceBits: cceBits is 3 but cycleCounting is false; allowed: 0 without cycle counting`,
      `${file}:32: parameters/uMode: uMode is false but sMode is true; allowed: S-mode only together with U-mode`,
    ]);
  });
});

/** The registers of a memory map in an exported document: name -> [addressOffset, size]. */
function registers(root: XmlElement, map: string): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  const find = (el: XmlElement, name: string): XmlElement[] => el.children.filter((c) => c.name === name);
  const text = (el: XmlElement, name: string): string | undefined => find(el, name)[0]?.text.trim();
  for (const maps of find(root, 'memoryMaps')) {
    for (const m of find(maps, 'memoryMap')) {
      if (text(m, 'name') !== map) continue;
      for (const b of find(m, 'addressBlock')) {
        for (const r of find(b, 'register')) {
          out.set(text(r, 'name')!, [text(r, 'addressOffset')!, text(r, 'size')!]);
        }
      }
    }
  }
  return out;
}

describe('IP-XACT export of a CTR unit', () => {
  it.each(shippedComponents('ctr').flatMap((c) => (['2014', '2022'] as const).map((s) => [c, s] as const)))('%s, IEEE 1685-%s: validates, has the CSR map, reads back the same', (name, standard) => {
    const r = resolved(name);
    const s = { ...r.config, settings: r.settings };
    const file = join(dir, `${name}-${standard}.xml`);
    writeFileSync(file, componentXml(r, standard));
    expect(validateXsd(file, standard, defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const back = loadComponent(file, CTR_SETTINGS, ctr);
    expect(back.settings).toEqual(s.settings);
    const root = readXmlFile(file);
    const csrs = registers(root, 'csr');
    const numbers = [...csrs.values()].map(([offset]) => parseInt(offset.replace(/^'h/, ''), 16));
    expect(numbers).toEqual(ctrCsrNumbers(s.config));
    expect([...csrs.values()].every(([, size]) => size === String(s.config.xlen))).toBe(true);
    const entries = registers(root, 'ctr_entry');
    expect([...entries.entries()]).toEqual([
      ['ctrsource', ["'h1", String(s.config.xlen)]],
      ['ctrtarget', ["'h2", String(s.config.xlen)]],
      ['ctrdata', ["'h3", String(s.config.xlen)]],
    ]);
    const text = componentXml(r, standard);
    expect(text).toContain(`<ipxact:addressUnitBits>${s.config.xlen}</ipxact:addressUnitBits>`);
    expect(text).toContain('<ipxact:moduleName>ctr_top</ipxact:moduleName>');
  });

  it('names the fields of the control register in each version', () => {
    const v014 = componentXml(resolved('ctr'), '2014');
    for (const f of ['M', 'S', 'U', 'CLR', 'MTE', 'STE', 'RASEMU', 'BPFRZ', 'LCOFIFRZ', 'DEPTH', 'ETEN', 'NTBREN', 'DIROJMPINH']) expect(v014).toContain(`<ipxact:name>${f}</ipxact:name>`);
    expect(v014).toContain('<ipxact:name>mctrcontrol</ipxact:name>');
    const v10 = componentXml(resolved('ctr-1.0'), '2014');
    expect(v10).toContain('<ipxact:name>sctrdepth</ipxact:name>');
    expect(v10).not.toContain('<ipxact:name>ETEN</ipxact:name>');
    expect(v10).not.toContain('<ipxact:name>CLR</ipxact:name>');
  });
});
