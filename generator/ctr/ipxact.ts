/**
 * The IP-XACT component (IEEE 1685-2014 or 1685-2022) of a generated CTR unit: VLNV, every CTR
 * setting as a resolved parameter, the register map, the top-level ports (widths as expressions
 * over the parameters), the RTL file set and <rvtrace:block>ctr</rvtrace:block>. Reading it back
 * (`--component FILE.xml`) gives the same configuration.
 *
 * CSRs are not memory-mapped: they are reached by CSR number through the hart's CSR port, and the
 * entries through the Smcsrind window. IP-XACT has no notion of CSR numbers, so the choice here
 * (docs/ctr-usage.md) is two memory maps whose address unit is one XLEN-bit register
 * (addressUnitBits = XLEN, so registers never overlap and an address is a register index):
 * - `csr`: address = the CSR number (0x000..0xFFF), one register per CSR the unit answers;
 * - `ctr_entry`: the Smcsrind window of one entry, address = the *ireg number (ctrsource at 1,
 *   ctrtarget at 2, ctrdata at 3), for the entry *iselect = 0x200 + logical entry selects (0 is
 *   the youngest; depthMax entries). IP-XACT 2014 indirect interfaces would need field IDs and
 *   register arrays, which the rvtrace reader does not take; the window is what software sees.
 * No bus interface references them (the CSR port is not a standard bus).
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { CTR_SETTINGS, type CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { exportParameter, type ExportComponent, type ExportRegister } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { Vlnv } from '../../ipxact/reader/component.ts';
import { CTR_RTL_FILES, CTR_TOP_MODULE, ctrPorts } from '../../golden-model/ctr/ports.ts';
import { ctrCsrRegisters, ctrEntryRegisters, type CtrRegister } from '../../golden-model/ctr/csr-map.ts';


function exportRegister(r: CtrRegister): ExportRegister {
  const fields = r.fields.length > 0 ? r.fields : [{ name: 'ZERO', lsb: 0, width: r.width, access: 'read-only' as const, reset: 0n, description: 'reads 0' }];
  return {
    name: r.name,
    offset: r.address,
    size: r.width,
    description: r.description,
    fields: fields.map((f) => ({ name: f.name, bitOffset: f.lsb, bitWidth: f.width, access: f.access, reset: f.reset, description: f.description })),
  };
}

/** The component description of the generated unit. */
export function ctrExportComponent(b: CtrBlockConfig, settings: Settings, vlnv: Vlnv, description: string): ExportComponent {
  const c = b.config;
  return {
    vlnv: vlnv,
    description: description,
    parameters: CTR_SETTINGS.map((s) => exportParameter(s, settings[s.name]!)),
    busInterfaces: [],
    memoryMaps: [
      {
        name: 'csr',
        description: 'The CTR CSRs by CSR number (csr_addr_i): one address unit is one XLEN-bit CSR.',
        addressUnitBits: c.xlen,
        addressBlocks: [{ name: 'csrs', baseAddress: 0, range: 0x1000, width: c.xlen, description: 'CSR numbers 0x000..0xFFF; every other number raises illegal instruction.', registers: ctrCsrRegisters(c).map(exportRegister) }],
      },
      {
        name: 'ctr_entry',
        description: 'One CTR entry through the Smcsrind window: the address is the *ireg number; *iselect = 0x200 + logical entry (0 = youngest) selects the entry.',
        addressUnitBits: c.xlen,
        addressBlocks: [{ name: 'ireg', baseAddress: 0, range: 8, width: c.xlen, description: `${c.depthMax} entries; logical entries at or above the depth read 0.`, registers: ctrEntryRegisters(c).map(exportRegister) }],
      },
    ],
    instantiation: { name: 'rtl', language: 'systemverilog', moduleName: CTR_TOP_MODULE, moduleParameters: [], fileSetRef: 'rtl' },
    ports: ctrPorts(c, b.rtl).map((p) =>
      p.widthExpr === '1'
        ? { name: p.name, direction: p.direction, description: p.description }
        : { name: p.name, direction: p.direction, left: `${p.widthExpr} - 1`, right: '0', description: p.description },
    ),
    fileSets: [{ name: 'rtl', files: CTR_RTL_FILES.map((name) => ({ name, fileType: 'systemVerilogSource' })) }],
    vendorExtensions: [{ name: `${RVTRACE_PREFIX}:block`, children: ['ctr'] }],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  };
}
