/**
 * `rvtrace ipxact --component C --out OUT.xml [--standard 2014|2022]`: writes the IP-XACT component
 * of the generated E-Trace encoder: VLNV, every setting as a resolved parameter (decimal literals;
 * run-time options are the registers' reset values), the APB4 bus interface, the register map of
 * golden-model/etrace/registers.ts, the top-level ports of golden-model/etrace/ports.ts with widths
 * as expressions over the parameters, and the RTL file set. Reading the output back gives the same
 * configuration. The file is validated against the schema before it replaces OUT.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import type { SettingSpec, Settings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_TOP_MODULE, etracePorts, rtlFileNames } from '../../golden-model/etrace/ports.ts';
import { etraceMemoryMap } from '../../golden-model/etrace/registers.ts';
import { ETRACE_OPTIONS, ETRACE_PARAMETERS, ETRACE_SETTINGS } from '../../golden-model/etrace/settings.ts';
import { componentDocument, exportParameter, type ExportComponent } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX, type LoadedComponent } from '../../ipxact/load.ts';
import type { IpxactStandard } from '../../ipxact/reader/component.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';
import type { CommandDefinition } from '../main.ts';
import { checkedConfig, componentBase, type ComponentOption, loadEtraceComponent, withComponentOption } from '../etrace-config.ts';

interface Options extends ComponentOption {
  out: string;
  standard: string;
  set?: string[];
}

import { TOOL_VERSION } from '../../generator/render.ts';

export const ipxactCommand: CommandDefinition<Options> = {
  name: 'ipxact',
  summary: 'write the IP-XACT component of the generated E-Trace encoder (parameters, ports, registers, files)',
  settings: ETRACE_SETTINGS,
  base: componentBase,
  details: [
    'Examples:',
    '  rvtrace ipxact --component etrace --out etrace.xml',
    '  rvtrace ipxact --component etrace-rv64-full --out full.xml --standard 2022 --set BranchPrediction=0',
    'The output validates against the IEEE 1685 schema of --standard and reads back (--component OUT.xml)',
    'as the same configuration. Register map: docs/etrace-registers.md; component format: docs/components.md.',
  ].join('\n'),
  options: (cmd: Command) =>
    withComponentOption(cmd)
      .requiredOption('--out <OUT.xml>', 'output file')
      .option('--standard <2014|2022>', 'IP-XACT standard of the output: IEEE 1685-2014 or 1685-2022', '2014'),
  run(_args, o, settings) {
    if (o.standard !== '2014' && o.standard !== '2022') throw new RvError('bad-option', `--standard ${o.standard}: expected 2014 or 2022`);
    const standard: IpxactStandard = o.standard;
    const config = checkedConfig(settings, o.component);
    const loaded = loadEtraceComponent(o);
    const text = etraceComponentXml(config, settings, loaded, standard, { component: o.component, sets: o.set ?? [] });
    writeValidated(o.out, text, standard, o.schemaDir ?? defaultSchemaDir());
    process.stderr.write(`wrote ${o.out}: IEEE 1685-${standard} component ${loaded.vlnv.vendor}:${loaded.vlnv.library}:${loaded.vlnv.name}:${loaded.vlnv.version}\n`);
    return 0;
  },
};


/** Every setting the configuration depends on: all parameters and options, the filters and comparators in use. */
function exportedSettings(config: EtraceConfig): SettingSpec[] {
  const inUse = (name: string): boolean => {
    const m = /^(filter|comparator)(\d+)\./.exec(name);
    if (!m) return true;
    return Number(m[2]) < (m[1] === 'filter' ? config.params.filters_p : config.params.comparators_p);
  };
  return [...ETRACE_PARAMETERS, ...ETRACE_OPTIONS.filter((s) => inUse(s.name))];
}

export interface Provenance {
  /** The --component argument. */
  component: string;
  sets: readonly string[];
}

/** The component description of the generated encoder. */
export function etraceExportComponent(config: EtraceConfig, settings: Settings, loaded: LoadedComponent): ExportComponent {
  const map = etraceMemoryMap(config);
  const ports = etracePorts(config);
  const apb: [string, string][] = [
    ['PCLK', 'clk_i'], ['PRESETn', 'rst_ni'], ['PADDR', 'paddr_i'], ['PSELx', 'psel_i'], ['PENABLE', 'penable_i'], ['PWRITE', 'pwrite_i'],
    ['PWDATA', 'pwdata_i'], ['PSTRB', 'pstrb_i'], ['PRDATA', 'prdata_o'], ['PREADY', 'pready_o'], ['PSLVERR', 'pslverr_o'],
  ];
  return {
    vlnv: loaded.vlnv,
    description: loaded.description,
    parameters: exportedSettings(config).map((s) => exportParameter(s, settings[s.name]!)),
    busInterfaces: [
      {
        name: 'apb',
        description: 'Register access: AMBA APB4 completer.',
        busType: { vendor: 'amba.com', library: 'AMBA4', name: 'APB4', version: 'r0p0_0' },
        abstractionRef: { vendor: 'amba.com', library: 'AMBA4', name: 'APB4_rtl', version: 'r0p0_0' },
        portMaps: apb.map(([logical, physical]) => ({ logical, physical })),
        memoryMapRef: map.name,
      },
    ],
    memoryMaps: [
      {
        name: map.name,
        description: map.description,
        addressBlocks: map.addressBlocks.map((b) => ({
          name: b.name,
          baseAddress: b.baseAddress,
          range: b.range,
          width: b.width,
          description: b.description,
          registers: b.registers.map((r) => ({
            name: r.name,
            offset: r.offset,
            size: r.size,
            description: r.description,
            fields: r.fields.map((f) => ({
              name: f.name,
              bitOffset: f.bitOffset,
              bitWidth: f.bitWidth,
              access: f.access,
              ...(f.oneToClear ? { oneToClear: true } : {}),
              reset: f.reset,
              description: f.description,
            })),
          })),
        })),
      },
    ],
    instantiation: { name: 'rtl', language: 'systemverilog', moduleName: ETRACE_TOP_MODULE, moduleParameters: [], fileSetRef: 'rtl' },
    ports: ports.map((p) =>
      p.widthExpr === '1'
        ? { name: p.name, direction: p.direction, description: p.description }
        : { name: p.name, direction: p.direction, left: `${p.widthExpr} - 1`, right: '0', description: p.description },
    ),
    fileSets: [{ name: 'rtl', files: rtlFileNames(config).map((f) => ({ name: f.name, fileType: f.fileType })) }],
    vendorExtensions: [{ name: `${RVTRACE_PREFIX}:block`, children: ['etrace'] }],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  };
}

/** The exported document, banner included; deterministic for the same inputs. */
export function etraceComponentXml(config: EtraceConfig, settings: Settings, loaded: LoadedComponent, standard: IpxactStandard, from: Provenance): string {
  const hash = createHash('sha256').update(readFileSync(loaded.file)).digest('hex').slice(0, 16);
  // A comment cannot contain "--", so the command is spelled as option=value.
  const component = /[\\/]/.test(from.component) ? basename(from.component) : from.component;
  const sets = from.sets.length > 0 ? ` set=${from.sets.join(',')}` : '';
  const banner = [
    ` Generated by rvtrace ${TOOL_VERSION} (rvtrace ipxact): the IP-XACT component of the generated E-Trace encoder. Do not edit. `,
    ` Regenerate: rvtrace ipxact component=${component} standard=${standard}${sets} `,
    ` Input: ${basename(loaded.file)} sha256 ${hash} `,
  ];
  return componentDocument(etraceExportComponent(config, settings, loaded), standard, banner);
}

/** Temporary file, schema validation, rename: OUT is replaced whole or not at all. */
function writeValidated(out: string, text: string, standard: IpxactStandard, schemaDir: string): void {
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(tmp, text);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new RvError('io', `cannot write: ${(e as Error).message}`, { file: out });
  }
  const errors = validateXsd(tmp, standard, schemaDir);
  if (errors.length > 0) {
    rmSync(tmp, { force: true });
    const tool = errors.find((e) => e.code === 'tool-failure');
    if (tool) throw tool;
    throw new Error(`the exported component does not validate against IEEE 1685-${standard}: ${errors[0]!.message} (line ${errors[0]!.location.line ?? '?'})`);
  }
  try {
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new RvError('io', `cannot write: ${(e as Error).message}`, { file: out });
  }
}
