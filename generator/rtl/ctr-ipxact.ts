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
import { basename } from 'node:path';
import type { SettingSpec, Settings } from '../../golden-model/common/settings.ts';
import { CTR_SETTINGS } from '../../golden-model/ctr/settings.ts';
import { componentDocument, svLiteral, type ExportComponent, type ExportParameter, type ExportRegister } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { IpxactStandard } from '../../ipxact/reader/component.ts';
import { sha256Hex, TOOL_VERSION } from '../render.ts';
import type { CtrGeneration } from './ctr.ts';
import { CTR_RTL_FILES, CTR_TOP_MODULE, ctrPorts } from './ctr-ports.ts';
import { ctrCsrRegisters, ctrEntryRegisters, type CtrRegister } from './ctr-registers.ts';
import { readFileSync } from 'node:fs';

/** How a setting's value is written as a parameter (the inverse of ipxact/load.ts). */
function exportParameter(spec: SettingSpec, value: Settings[string]): ExportParameter {
  const description = spec.help;
  switch (spec.kind) {
    case 'bool':
      return { name: spec.name, type: 'bit', value: value ? '1' : '0', description };
    case 'bigint':
      return { name: spec.name, type: 'longint', value: svLiteral(value as bigint), description };
    case 'choice':
      return (spec.choices ?? []).every((c) => /^-?\d+$/.test(c))
        ? { name: spec.name, type: 'int', value: String(value), description }
        : { name: spec.name, type: 'string', value: `"${String(value)}"`, description };
    case 'int':
    case 'number':
      return { name: spec.name, type: 'int', value: String(value), description };
  }
}

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
export function ctrExportComponent(g: CtrGeneration): ExportComponent {
  const c = g.config;
  return {
    vlnv: g.loaded.vlnv,
    description: g.loaded.description,
    parameters: CTR_SETTINGS.map((s) => exportParameter(s, g.settings[s.name]!)),
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
    ports: ctrPorts(c, g.rtl).map((p) =>
      p.widthExpr === '1'
        ? { name: p.name, direction: p.direction, description: p.description }
        : { name: p.name, direction: p.direction, left: `${p.widthExpr} - 1`, right: '0', description: p.description },
    ),
    fileSets: [{ name: 'rtl', files: CTR_RTL_FILES.map((name) => ({ name, fileType: 'systemVerilogSource' })) }],
    vendorExtensions: [{ name: `${RVTRACE_PREFIX}:block`, children: ['ctr'] }],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  };
}

/** The exported document with its banner; deterministic for the same inputs. */
export function ctrComponentXml(g: CtrGeneration, standard: IpxactStandard): string {
  const hash = sha256Hex(readFileSync(g.loaded.file)).slice(0, 16);
  // A comment cannot contain "--", so the command is spelled as option=value.
  const component = /[\\/]/.test(g.component) ? basename(g.component) : g.component;
  const sets = g.sets.length > 0 ? ` set=${g.sets.join(',')}` : '';
  const banner = [
    ` Generated by rvtrace ${TOOL_VERSION} (rvtrace generate): the IP-XACT component of the generated CTR unit. Do not edit. `,
    ` Regenerate: rvtrace generate component=${component}${sets} `,
    ` Input: ${basename(g.loaded.file)} sha256 ${hash} `,
  ];
  return componentDocument(ctrExportComponent(g), standard, banner);
}
