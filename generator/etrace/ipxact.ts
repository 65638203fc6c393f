/**
 * The IP-XACT description of the generated E-Trace encoder: every setting as a resolved parameter
 * (decimal literals; run-time options are the registers' reset values), the APB4 bus interface, the
 * register map (golden-model/etrace/registers.ts), the top-level ports with widths as expressions over
 * the parameters, and the RTL file set. Written by the one IP-XACT writer (generator/output.ts);
 * reading it back gives the same configuration.
 */
import type { SettingSpec, Settings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_TOP_MODULE, etracePorts, rtlFileNames } from '../../golden-model/etrace/ports.ts';
import { etraceMemoryMap } from '../../golden-model/etrace/registers.ts';
import { ETRACE_DATA_SETTINGS, ETRACE_OPTIONS, ETRACE_PARAMETERS } from '../../golden-model/etrace/settings.ts';
import { apbCompleterInterface, exportMemoryMap, exportParameter, type ExportComponent } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { Vlnv } from '../../ipxact/reader/component.ts';

/**
 * Every setting the configuration depends on: all parameters and options, the filters and
 * comparators in use, and the data trace settings when the component has data trace (without,
 * they are absent, so such a component's description is unchanged).
 */
function exportedSettings(config: EtraceConfig): SettingSpec[] {
  const inUse = (name: string): boolean => {
    const m = /^(filter|comparator)(\d+)\./.exec(name);
    if (!m) return true;
    return Number(m[2]) < (m[1] === 'filter' ? config.params.filters_p : config.params.comparators_p);
  };
  return [...ETRACE_PARAMETERS, ...ETRACE_OPTIONS.filter((s) => inUse(s.name)), ...(config.params.dataTrace ? ETRACE_DATA_SETTINGS : [])];
}

/** The component description of the generated encoder. */
export function etraceExportComponent(config: EtraceConfig, settings: Settings, vlnv: Vlnv, description: string): ExportComponent {
  const map = etraceMemoryMap(config);
  const ports = etracePorts(config);
  return {
    vlnv,
    description,
    parameters: exportedSettings(config).map((s) => exportParameter(s, settings[s.name]!)),
    busInterfaces: [apbCompleterInterface('Register access: AMBA APB4 completer.', map.name)],
    memoryMaps: [exportMemoryMap(map)],
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

