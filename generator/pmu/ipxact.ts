/**
 * The IP-XACT component (IEEE 1685-2014 or 1685-2022) of a generated PMU counter block: VLNV,
 * every PMU setting as a resolved parameter (plus `event_inputs_p`, the helper parameter the width
 * of event_i is written with), the CSR map, the top-level ports (widths as expressions over the
 * parameters), the RTL file set and <rvtrace:block>pmu</rvtrace:block>. Reading it back
 * (`--component FILE.xml`) gives the same settings.
 *
 * CSRs are not memory-mapped: they are reached by CSR number through the hart's CSR port. As for
 * the CTR unit (docs/ctr-usage.md), the map is one memory map `csr` whose address unit is one
 * XLEN-bit register (addressUnitBits = XLEN), so an address is a CSR number and registers never
 * overlap; one register per CSR number the block answers (golden-model/pmu/csr-map.ts), with its
 * fields. No bus interface references it (the CSR port is not a standard bus).
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import type { PmuConfig } from '../../golden-model/pmu/config.ts';
import { pmuCsrName, pmuCsrNumbers, type PmuCsr } from '../../golden-model/pmu/csr-map.ts';
import { PMU_RTL_FILES, PMU_TOP_MODULE, pmuPorts } from '../../golden-model/pmu/ports.ts';
import { PMU_SETTINGS, type PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { exportParameter, type ExportComponent, type ExportRegister } from '../../ipxact/export.ts';
import { RVTRACE_NS, RVTRACE_PREFIX } from '../../ipxact/load.ts';
import type { Vlnv } from '../../ipxact/reader/component.ts';
import { counterEnableMask, countInhibitMask, EVENT_BITS, hardwiredSelector, scountovfMask } from '../../golden-model/pmu/registers.ts';
import { counterBitFields, counterBits, fieldsOfHalf, MODE_FIELDS, modeBit, modeMask, MODE_COUNT, type PmuField } from './layout.ts';

/** The helper parameter of event_i's width (ports.ts writes it `event_inputs_p - 1`). */
export const EVENT_INPUTS_HELPER = 'event_inputs_p';

const COUNTER_WHAT: Record<number, string> = { 0: 'cycles', 2: 'instructions retired' };

/** The mode-inhibit fields of the hart's modes (mhpmevent with Sscofpmf, mcyclecfg/minstretcfg). */
function modeFields(c: PmuConfig, what: string): PmuField[] {
  const mask = modeMask(c);
  return MODE_FIELDS.filter((_, i) => (mask >> (MODE_COUNT - 1 - i)) & 1).map((name) => ({
    name,
    lsb: modeBit(name),
    width: 1,
    access: 'read-write' as const,
    reset: 0n,
    description: `${what} in ${name.slice(0, -3)}-mode`,
  }));
}

/** The fields of the 64-bit register a CSR number is (a half of, on RV32). */
function registerFields(c: PmuConfig, csr: PmuCsr): PmuField[] {
  const counterLetters = (n: number): string => COUNTER_WHAT[n] ?? `the event mhpmevent${n} selects`;
  switch (csr.kind) {
    case 'counter':
    case 'user-counter': {
      const bits = counterBits(c, csr.index);
      if (bits === 0) return [];
      const access = csr.kind === 'counter' ? 'read-write' : 'read-only';
      return [{ name: 'COUNT', lsb: 0, width: bits, access, reset: 0n, description: `counts ${counterLetters(csr.index)}${bits < 64 ? ` (${bits} bits, wrapping)` : ''}` }];
    }
    case 'event': {
      if (counterBits(c, csr.index) === 0) return [];
      const hardwired = c.eventLegalisation === 'hardwired';
      const fields: PmuField[] = [
        {
          name: 'EVENT',
          lsb: 0,
          width: c.eventBits,
          access: hardwired ? 'read-only' : 'read-write',
          reset: hardwired ? hardwiredSelector(c, csr.index) : 0n,
          description: `the event selector (eventLegalisation ${c.eventLegalisation})`,
        },
      ];
      if (c.sscofpmf) {
        fields.push(...modeFields(c, 'do not count'));
        fields.push({ name: 'OF', lsb: EVENT_BITS.of, width: 1, access: 'read-write', reset: 0n, description: 'overflow: set when the counter wraps (Sscofpmf)' });
      }
      return fields;
    }
    case 'mcountinhibit':
      return counterBitFields(countInhibitMask(c), 'read-write', (n) => `counter ${n} does not count`);
    case 'mcounteren':
    case 'scounteren':
    case 'hcounteren': {
      const below = { mcounteren: 'below M', scounteren: 'in U-mode and VU-mode', hcounteren: 'with V = 1' }[csr.kind];
      return counterBitFields(counterEnableMask(c), 'read-write', (n) => `counter ${n} can be read ${below}`);
    }
    case 'scountovf': {
      return counterBitFields(scountovfMask(c), 'read-only', (n) => `OF of mhpmevent${n} (0 unless mcounteren bit ${n}, and with V = 1 hcounteren bit ${n}, is set)`);
    }
    case 'cfg':
      return modeFields(c, csr.index === 0 ? 'mcycle does not count' : 'minstret does not count');
  }
}

const CSR_WHAT: Record<PmuCsr['kind'], string> = {
  counter: 'Machine counter',
  'user-counter': 'Read-only user view of the machine counter',
  event: 'Event selector',
  mcountinhibit: 'Counter inhibit',
  mcounteren: 'Counter enable for below M',
  scounteren: 'Counter enable for U-mode',
  hcounteren: 'Counter enable for V = 1',
  scountovf: 'Overflow bits (Sscofpmf), read-only',
  cfg: 'Mode filter (Smcntrpmf)',
};

/** One register of the CSR map. */
function csrRegister(c: PmuConfig, address: number, csr: PmuCsr): ExportRegister {
  const half = 'high' in csr && csr.high ? 1 : 0;
  let fields: PmuField[] = fieldsOfHalf(registerFields(c, csr), c.xlen, half).filter((f) => f.lsb < c.xlen);
  if (fields.length === 0) fields = [{ name: 'ZERO', lsb: 0, width: c.xlen, access: 'read-only', reset: 0n, description: 'not implemented: reads 0, writes are ignored' }];
  const h = c.xlen === 32 && 'high' in csr ? (half === 1 ? ' (bits 63..32)' : ' (bits 31..0)') : '';
  return {
    name: pmuCsrName(csr),
    offset: address,
    size: c.xlen,
    description: `${CSR_WHAT[csr.kind]}${h}.`,
    fields: fields.map((f) => ({ name: f.name, bitOffset: f.lsb, bitWidth: f.width, access: f.access, reset: f.reset, description: f.description })),
  };
}

/** Every CSR of the configuration as a register, in CSR-number order. */
export function pmuCsrRegisters(c: PmuConfig): ExportRegister[] {
  return pmuCsrNumbers(c).map((e) => csrRegister(c, e.address, e.csr));
}

/** The component description of the generated block. */
export function pmuExportComponent(b: PmuBlockConfig, settings: Settings, vlnv: Vlnv, description: string): ExportComponent {
  const c = b.config;
  return {
    vlnv,
    description,
    parameters: [
      ...PMU_SETTINGS.map((s) => exportParameter(s, settings[s.name]!)),
      { name: EVENT_INPUTS_HELPER, type: 'int', value: 'eventInputs', description: 'the width of event_i (eventInputs), as the port width expressions name it' },
    ],
    busInterfaces: [],
    memoryMaps: [
      {
        name: 'csr',
        description: 'The PMU CSRs by CSR number (csr_addr_i): one address unit is one XLEN-bit CSR.',
        addressUnitBits: c.xlen,
        addressBlocks: [
          { name: 'csrs', baseAddress: 0, range: 0x1000, width: c.xlen, description: 'CSR numbers 0x000..0xFFF; every other number raises illegal instruction.', registers: pmuCsrRegisters(c) },
        ],
      },
    ],
    instantiation: { name: 'rtl', language: 'systemverilog', moduleName: PMU_TOP_MODULE, moduleParameters: [], fileSetRef: 'rtl' },
    ports: pmuPorts(c, b.rtl).map((p) =>
      p.widthExpr === '1'
        ? { name: p.name, direction: p.direction, description: p.description }
        : { name: p.name, direction: p.direction, left: `${p.widthExpr} - 1`, right: '0', description: p.description },
    ),
    fileSets: [{ name: 'rtl', files: PMU_RTL_FILES.map((name) => ({ name, fileType: 'systemVerilogSource' })) }],
    vendorExtensions: [
      { name: `${RVTRACE_PREFIX}:block`, children: ['pmu'] },
      { name: `${RVTRACE_PREFIX}:helperParameter`, children: [EVENT_INPUTS_HELPER] },
    ],
    namespaces: { [RVTRACE_PREFIX]: RVTRACE_NS },
  };
}
