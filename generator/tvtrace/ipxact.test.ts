/**
 * The IP-XACT export of the tandem-verification trace encoder: valid against the 1685-2014 and
 * 1685-2022 schemas; it reads back (through the loader `--component` uses) as the same settings; its
 * ports read back, widths evaluated from the expressions over the parameters, as ports.ts says; its
 * file set is the RTL's.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../../blocks/testing.ts';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { TVTRACE_BLOCK_SETTINGS, tvtraceRtlConfig, type TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { loadComponent } from '../../ipxact/load.ts';
import { evalExpr, readComponentFile, resolveParameters, type IpxactStandard } from '../../ipxact/reader/component.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';
import { componentXml } from '../output.ts';
import { tvtracePorts } from './ports.ts';
import { tvtraceRtlFiles } from './rtl.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-tvtrace-ipxact-'));

const CASES: { label: string; component: string; sets: string[] }[] = [
  { label: 'tvtrace', component: 'tvtrace', sets: [] },
  { label: 'tvtrace-rv32imc', component: 'tvtrace-rv32imc', sets: [] },
  { label: 'tvtrace, byte-wide, FLEN 32', component: 'tvtrace', sets: ['flen=32', 'out_bytes=1', 'fifo_bytes=200'] },
  { label: 'tvtrace-rv32imc with D, 2 bytes a beat, 160-byte FIFO', component: 'tvtrace-rv32imc', sets: ['flen=64', 'out_bytes=2', 'fifo_bytes=160'] },
];
const RUNS = CASES.flatMap((k) => (['2014', '2022'] as const).map((standard) => ({ ...k, standard })));

function exportTo(component: string, sets: string[], standard: IpxactStandard): { file: string; config: TvtraceRtlConfig; xml: string } {
  const r = resolvedOf<TvtraceRtlConfig>('tvtrace', component, sets);
  const xml = componentXml(r, standard);
  const file = join(dir, `${component}-${sets.length}-${standard}.xml`);
  writeFileSync(file, xml);
  return { file, config: r.config, xml };
}

describe('tvtrace IP-XACT export', () => {
  it.each(RUNS)('$label (IEEE 1685-$standard): valid, reads back as the same settings, ports and files as the RTL has them', ({ component, sets, standard }) => {
    const { file, config, xml } = exportTo(component, sets, standard);
    expect(validateXsd(file, standard, defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const back = loadComponent(file, TVTRACE_BLOCK_SETTINGS, { block: 'tvtrace' });
    expect(back.standard).toBe(standard);
    expect(tvtraceRtlConfig(resolveSettings('ipxact', TVTRACE_BLOCK_SETTINGS, [], back.settings))).toEqual(config);

    const read = readComponentFile(file);
    expect(read.errors).toEqual([]);
    const c = read.component!;
    const values = resolveParameters(c).values;
    const num = (text: string, line: number): number => {
      const r = evalExpr(c, text, values, { line, path: 'test' });
      if (!r.ok) throw r.error;
      return Number(r.value);
    };
    const ports = tvtracePorts(config);
    expect(c.ports.map((p) => [p.name, p.direction])).toEqual(ports.map((p) => [p.name, p.direction]));
    c.ports.forEach((p, i) => expect(p.left === undefined ? 1 : num(p.left, p.line) - num(p.right!, p.line) + 1, p.name).toBe(ports[i]!.width));
    // Spot checks typed from the configuration: the CSR data of four slots, the store data of max(XLEN, FLEN) bits.
    expect(ports.find((p) => p.name === 'csr_data_i')!.width).toBe(4 * config.xlen);
    expect(ports.find((p) => p.name === 'store_data_i')!.width).toBe(Math.max(config.xlen, config.flen));
    expect(ports.some((p) => p.name === 'tv_bytes_o')).toBe(config.outBytes > 1);
    for (const f of tvtraceRtlFiles(config)) expect(xml).toContain(`<ipxact:name>${f}</ipxact:name>`);
    expect(xml).toContain('<rvtrace:block>tvtrace</rvtrace:block>');
  });
});
