/**
 * The port contract of the generated PMU counter block's top level (`pmu_top`): what the templates
 * declare, what the co-simulation harness drives and what the IP-XACT export writes.
 *
 * Decisions (the privileged spec defines no hardware interface for the counter block):
 * - The hart side is the shared retirement port group (golden-model/hart/ports.ts) for one signal
 *   group, single retirement: itype (4-bit classification: what the record counts as), iretire
 *   (non-zero: an instruction retired in the cycle), priv (the mode of the cycle; 4 = debug mode,
 *   nothing counts, as with dcsr.stopcount = 1), halted and reset (nothing counts); plus the V bit
 *   with H. ilastsize and iaddr are not needed and absent.
 * - event_i: one bit per event input, each counted once per cycle it is high.
 * - The CSR port is the CTR unit's: one access a cycle, the response combinational from the state at
 *   the start of the cycle, the write at the clock edge; new = (old & ~wmask) | (wdata & wmask).
 * - lcofi_o: a one-cycle request to set mip.LCOFIP (Sscofpmf), the cycle after an overflow set an
 *   OF bit that was clear. Absent without Sscofpmf.
 */
import { haltedResetPorts, privPort, retirementPorts, type PortSpec, type RetirementWidths } from '../hart/ports.ts';
import type { PmuConfig } from './config.ts';
import type { PmuRtlParams } from './settings.ts';

export const PMU_TOP_MODULE = 'pmu_top';

export type PmuPortGroup = 'clock' | 'hart' | 'events' | 'csr';

export type PmuPort = PortSpec<PmuPortGroup>;

/** The top-level ports in declaration order. */
export function pmuPorts(c: PmuConfig, rtl: PmuRtlParams): PmuPort[] {
  const out: PmuPort[] = [];
  const port = (name: string, direction: 'in' | 'out', width: number, widthExpr: string, group: PmuPortGroup, description: string): void => {
    out.push({ name, direction, width, widthExpr, group, description });
  };
  port('clk_i', 'in', 1, '1', 'clock', 'Clock.');
  port('rst_ni', 'in', 1, '1', 'clock', 'Asynchronous reset, active low.');

  const hart: RetirementWidths = {
    itype: { bits: 4, expr: '4' },
    iretire: { bits: rtl.iretire_width_p, expr: 'iretire_width_p' },
    ilastsize: { bits: 1, expr: '1' },
    iaddr: { bits: c.xlen, expr: 'xlen' },
    priv: { bits: 3, expr: '3' },
  };
  out.push(...retirementPorts(hart, 'hart').filter((p) => p.name === 'itype_i' || p.name === 'iretire_i'), privPort(hart, 'hart'));
  if (c.hExt) port('v_i', 'in', 1, '1', 'hart', "V of the cycle's mode (VS = priv 1 with V, VU = priv 0 with V).");
  out.push(...haltedResetPorts('hart'));
  if (c.eventInputs > 0) port('event_i', 'in', c.eventInputs, 'event_inputs_p', 'events', 'Event inputs: bit k high = one event of input k in this cycle.');

  port('csr_valid_i', 'in', 1, '1', 'csr', 'A CSR access in this cycle.');
  port('csr_addr_i', 'in', 12, '12', 'csr', 'CSR number of the access.');
  port('csr_we_i', 'in', 1, '1', 'csr', 'The access writes (csrrw, or csrrs/csrrc with a non-zero source).');
  port('csr_wdata_i', 'in', c.xlen, 'xlen', 'csr', 'Write data.');
  port('csr_wmask_i', 'in', c.xlen, 'xlen', 'csr', 'Bits written: new = (old & ~wmask) | (wdata & wmask).');
  port('csr_priv_i', 'in', 2, '2', 'csr', 'Privilege of the access: 0 U, 1 S, 3 M.');
  if (c.hExt) port('csr_v_i', 'in', 1, '1', 'csr', 'V of the access.');
  port('csr_rdata_o', 'out', c.xlen, 'xlen', 'csr', 'Read data: the CSR at the start of the cycle; 0 when an exception is raised.');
  port('csr_illegal_o', 'out', 1, '1', 'csr', 'The access raises an illegal-instruction exception (or is not a PMU CSR); nothing is written.');
  port('csr_virtual_o', 'out', 1, '1', 'csr', 'The access raises a virtual-instruction exception; nothing is written.');
  if (c.sscofpmf) port('lcofi_o', 'out', 1, '1', 'csr', 'Request to set mip.LCOFIP: one cycle, after an overflow set a clear OF bit (Sscofpmf).');
  return out;
}

/** The RTL files of the PMU block in compilation order (leaves first, the top level last). */
export const PMU_RTL_FILES: readonly string[] = ['pmu_counter.sv', 'pmu_csr.sv', 'pmu_top.sv'];
