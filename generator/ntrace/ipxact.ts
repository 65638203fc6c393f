/**
 * The IP-XACT description of the generated N-Trace encoder: every setting as a resolved parameter,
 * the APB4 bus interface and the register map (golden-model/ntrace/registers.ts: the Trace Control
 * Interface registers), the top-level ports with widths as expressions over the parameters
 * (golden-model/ntrace/ports.ts), the RTL file set and <rvtrace:block>ntrace</rvtrace:block>.
 * Written by the one IP-XACT writer (generator/output.ts); reading it back gives the same settings.
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { NTRACE_TOP_MODULE, ntracePorts } from '../../golden-model/ntrace/ports.ts';
import { ntraceMemoryMap } from '../../golden-model/ntrace/registers.ts';
import { NTRACE_SETTINGS, type NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { apbCompleterInterface, exportMemoryMap, exportParameter, type ExportBusInterface, type ExportComponent, type ExportMemoryMap } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { Vlnv } from '../../ipxact/reader/component.ts';
import { ntraceRtlFiles } from './rtl.ts';

/** The component description of the generated encoder. */
export function ntraceExportComponent(c: NtraceConfig, settings: Settings, vlnv: Vlnv, description: string): ExportComponent {
  return {
    vlnv,
    description,
    parameters: NTRACE_SETTINGS.map((s) => exportParameter(s, settings[s.name]!)),
    busInterfaces: [ntraceApbInterface(c)],
    memoryMaps: [ntraceExportMemoryMap(c)],
    instantiation: { name: 'rtl', language: 'systemverilog', moduleName: NTRACE_TOP_MODULE, moduleParameters: [], fileSetRef: 'rtl' },
    ports: ntracePorts(c).map((p) =>
      p.widthExpr === '1'
        ? { name: p.name, direction: p.direction, description: p.description }
        : { name: p.name, direction: p.direction, left: `${p.widthExpr} - 1`, right: '0', description: p.description },
    ),
    fileSets: [{ name: 'rtl', files: ntraceRtlFiles().map((name) => ({ name, fileType: 'systemVerilogSource' })) }],
    vendorExtensions: [{ name: `${RVTRACE_PREFIX}:block`, children: ['ntrace'] }],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  };
}

/** The APB4 completer interface of the register file (its ports are the 'apb' group of ports.ts). */
export function ntraceApbInterface(c: NtraceConfig): ExportBusInterface {
  return apbCompleterInterface('Register access (RISC-V Trace Control Interface): AMBA APB4 completer.', ntraceMemoryMap(c).name);
}

/** The register map as an IP-XACT memory map. */
export function ntraceExportMemoryMap(c: NtraceConfig): ExportMemoryMap {
  return exportMemoryMap(ntraceMemoryMap(c));
}
