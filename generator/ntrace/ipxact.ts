/**
 * The IP-XACT description of the generated N-Trace encoder: every setting as a resolved parameter,
 * the top-level ports with widths as expressions over the parameters (golden-model/ntrace/ports.ts),
 * the RTL file set and <rvtrace:block>ntrace</rvtrace:block>. Written by the one IP-XACT writer
 * (generator/output.ts); reading it back gives the same settings.
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { NTRACE_TOP_MODULE, ntracePorts } from '../../golden-model/ntrace/ports.ts';
import { NTRACE_SETTINGS, type NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { exportParameter, type ExportComponent } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { Vlnv } from '../../ipxact/reader/component.ts';
import { ntraceRtlFiles } from './rtl.ts';

/** The component description of the generated encoder. */
export function ntraceExportComponent(c: NtraceConfig, settings: Settings, vlnv: Vlnv, description: string): ExportComponent {
  return {
    vlnv,
    description,
    parameters: NTRACE_SETTINGS.map((s) => exportParameter(s, settings[s.name]!)),
    busInterfaces: [],
    memoryMaps: [],
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
