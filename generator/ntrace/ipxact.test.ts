/**
 * The IP-XACT export of the N-Trace encoder: valid against the 1685-2014 and 1685-2022 schemas; it
 * reads back (through the loader `--component` uses) as the same settings; the ports, the APB bus
 * interface and the register map read back as ports.ts and registers.ts say.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvedOf } from '../../blocks/testing.ts';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { ntracePorts } from '../../golden-model/ntrace/ports.ts';
import { ntraceMemoryMap } from '../../golden-model/ntrace/registers.ts';
import { NTRACE_SETTINGS, ntraceConfig, type NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { loadComponent } from '../../ipxact/load.ts';
import { evalExpr, readComponentFile, resolveParameters, type IpxactStandard } from '../../ipxact/reader/component.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';
import { componentXml } from '../output.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-ipxact-'));

const CASES: { label: string; component: string; sets: string[] }[] = [
  { label: 'ntrace-btm-mcu', component: 'ntrace-btm-mcu', sets: [] },
  {
    label: 'ntrace-btm-mcu, every option',
    component: 'ntrace-btm-mcu',
    sets: ['xlen=64', 'ntrace_mode=htm', 'implicit_return=counter', 'call_stack_size=5', 'repeat_history=1', 'address_msb_drop=1', 'src_width=3', 'src=5', 'timestamp=1', 'stall_enable=1', 'sync_period=1000', 'fifo_bytes=64'],
  },
];
const RUNS = CASES.flatMap((k) => (['2014', '2022'] as const).map((standard) => ({ ...k, standard })));

function exportTo(component: string, sets: string[], standard: IpxactStandard): { file: string; config: NtraceConfig; xml: string } {
  const r = resolvedOf<NtraceConfig>('ntrace', component, sets);
  const xml = componentXml(r, standard);
  const file = join(dir, `${component}-${sets.length}-${standard}.xml`);
  writeFileSync(file, xml);
  return { file, config: r.config, xml };
}

describe('N-Trace IP-XACT export', () => {
  it.each(RUNS)('$label (IEEE 1685-$standard): valid, and reads back as the same settings', ({ component, sets, standard }) => {
    const { file, config } = exportTo(component, sets, standard);
    expect(validateXsd(file, standard, defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const back = loadComponent(file, NTRACE_SETTINGS, { block: 'ntrace' });
    expect(back.standard).toBe(standard);
    expect(ntraceConfig(resolveSettings('ipxact', NTRACE_SETTINGS, [], back.settings))).toEqual(config);
  });

  it.each(RUNS)('$label (IEEE 1685-$standard): ports, the apb interface and the register map read back as ports.ts and registers.ts say', ({ component, sets, standard }) => {
    const { file, config, xml } = exportTo(component, sets, standard);
    const read = readComponentFile(file);
    expect(read.errors).toEqual([]);
    const c = read.component!;
    const values = resolveParameters(c).values;
    const num = (text: string, line: number): number => {
      const r = evalExpr(c, text, values, { line, path: 'test' });
      if (!r.ok) throw r.error;
      return Number(r.value);
    };
    const ports = ntracePorts(config);
    expect(c.ports.map((p) => p.name)).toEqual(ports.map((p) => p.name));
    c.ports.forEach((p, i) => expect(p.left === undefined ? 1 : num(p.left, p.line) - num(p.right!, p.line) + 1, p.name).toBe(ports[i]!.width));
    expect(ports.filter((p) => p.group === 'apb').map((p) => p.name)).toEqual(['paddr_i', 'psel_i', 'penable_i', 'pwrite_i', 'pwdata_i', 'pstrb_i', 'prdata_o', 'pready_o', 'pslverr_o']);
    // The bus interface: APB4, a completer of the register map, every APB port mapped.
    expect(xml).toMatch(/<ipxact:busInterface>\s*<ipxact:name>apb<\/ipxact:name>/);
    expect(xml).toContain(`memoryMapRef="ntrace_regs"`);
    for (const [logical, physical] of [['PADDR', 'paddr_i'], ['PSELx', 'psel_i'], ['PSTRB', 'pstrb_i'], ['PSLVERR', 'pslverr_o'], ['PRESETn', 'rst_ni']]) {
      expect(xml).toMatch(new RegExp(`<ipxact:name>${logical}</ipxact:name>\\s*</ipxact:logicalPort>\\s*<ipxact:physicalPort>\\s*<ipxact:name>${physical}</ipxact:name>`));
    }
    const map = ntraceMemoryMap(config);
    expect(c.memoryMaps.map((m) => m.name)).toEqual(['ntrace_regs']);
    const blocks = c.memoryMaps[0]!.addressBlocks;
    expect(blocks.map((b) => [b.name, num(b.baseAddress, b.line), num(b.range, b.line)])).toEqual([['control', 0, 0x1000]]);
    const want = map.addressBlocks[0]!.registers;
    expect(blocks[0]!.registers.map((r) => [r.name, num(r.addressOffset, r.line), num(r.size, r.line)])).toEqual(want.map((r) => [r.name, r.offset, 32]));
    blocks[0]!.registers.forEach((r, j) => {
      expect(r.fields.map((f) => [f.name, num(f.bitOffset, f.line), num(f.bitWidth, f.line), f.access, BigInt(num(f.resetValue!, f.line))])).toEqual(
        want[j]!.fields.map((f) => [f.name, f.bitOffset, f.bitWidth, f.access, f.reset]),
      );
    });
    // Spot checks typed from the TCI: trTeInstMode at bits 6:4, trTeInstStallOrOverflow write-1-to-clear.
    const control = blocks[0]!.registers[0]!;
    const mode = control.fields.find((f) => f.name === 'trTeInstMode')!;
    expect([num(mode.bitOffset, mode.line), num(mode.bitWidth, mode.line), mode.access]).toEqual([4, 3, 'read-only']);
    expect(BigInt(num(mode.resetValue!, mode.line))).toBe(config.mode === 'btm' ? 3n : 6n);
    expect(xml).toMatch(/<ipxact:name>trTeInstStallOrOverflow<\/ipxact:name>[\s\S]*?<ipxact:modifiedWriteValue>oneToClear<\/ipxact:modifiedWriteValue>/);
  });
});
