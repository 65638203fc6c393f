/**
 * The IP-XACT description of the generated tandem-verification trace encoder: every setting as a
 * resolved parameter, the top-level ports with widths as expressions over the parameters
 * (ports.ts), the RTL file set and <rvtrace:block>tvtrace</rvtrace:block>. It has no registers and
 * no bus interface of a standard bus (the record and byte ports are plain ready/valid). Written by
 * the one IP-XACT writer (generator/output.ts); reading it back gives the same settings.
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { TVTRACE_BLOCK_SETTINGS, type TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { exportParameter, type ExportComponent } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { Vlnv } from '../../ipxact/reader/component.ts';
import { TVTRACE_TOP_MODULE, tvtracePorts } from './ports.ts';
import { tvtraceRtlFiles } from './rtl.ts';

/** The component description of the generated encoder. */
export function tvtraceExportComponent(c: TvtraceRtlConfig, settings: Settings, vlnv: Vlnv, description: string): ExportComponent {
  return {
    vlnv,
    description,
    parameters: TVTRACE_BLOCK_SETTINGS.map((s) => exportParameter(s, settings[s.name]!)),
    busInterfaces: [],
    memoryMaps: [],
    instantiation: { name: 'rtl', language: 'systemverilog', moduleName: TVTRACE_TOP_MODULE, moduleParameters: [], fileSetRef: 'rtl' },
    ports: tvtracePorts(c).map((p) =>
      p.widthExpr === '1'
        ? { name: p.name, direction: p.direction, description: p.description }
        : { name: p.name, direction: p.direction, left: `${p.widthExpr.includes('?') ? `(${p.widthExpr})` : p.widthExpr} - 1`, right: '0', description: p.description },
    ),
    fileSets: [{ name: 'rtl', files: tvtraceRtlFiles(c).map((name) => ({ name, fileType: 'systemVerilogSource' })) }],
    vendorExtensions: [{ name: `${RVTRACE_PREFIX}:block`, children: ['tvtrace'] }],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  };
}
