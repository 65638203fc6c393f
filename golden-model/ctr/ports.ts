/**
 * The port contract of the generated CTR unit's top level (`ctr_top`): what the templates declare,
 * what the co-simulation harness drives (tb/ctr/cosim.ts) and what the IP-XACT export writes.
 * Each port has its width as a number and as an SV constant expression over the component's
 * parameter names (`xlen`, `iretire_width_p`, `lastsize_width_p`).
 *
 * Decisions (the CTR specs define no hardware interface):
 * - The hart side is the shared retirement port group (golden-model/hart/ports.ts) for one signal
 *   group: itype (4-bit classification = the CTR TYPE), iretire (half-words), ilastsize, iaddr, priv,
 *   halted, reset; plus what a CTR needs that E-Trace does not: the V bit of the
 *   record's mode, the branch misprediction bit, and whether a trap is a local-counter-overflow
 *   interrupt or a breakpoint exception (the hart knows; `freezeSignals` derives them from the
 *   cause). cause, tval, context, ctype, trigger and impdef are not needed and are absent.
 * - priv_i has 3 bits with the encoding of golden-model/hart/records.ts: 0 U, 1 S, 3 M, 4 debug
 *   mode (never recorded). csr_priv_i has 2 bits (0 U, 1 S, 3 M): the hart presents an access
 *   from debug mode as M.
 * - The CSR port carries one access a cycle (csr_valid_i) or the SCTRCLR instruction (sctrclr_i,
 *   1.0 only), never both; the response (csr_rdata_o, csr_illegal_o, csr_virtual_o) is
 *   combinational in the same cycle and reads the state at the start of the cycle; a write takes
 *   effect at the clock edge. csrrw/csrrs/csrrc map onto csr_wdata_i/csr_wmask_i as
 *   docs/ctr-model.md describes (new = old & ~wmask | wdata & wmask).
 * - mstateen0/hstateen0 are the hart's registers: only their CTR bit (55 in v0.1.4, 54 in 1.0) and
 *   bit 60 (Smcsrind) are inputs, present with Smstateen (hstateen0 also needs H).
 * - Optional ports exist only when the configuration uses them (v_i/csr_v_i with H, misp_i with
 *   MISP, lcofi_trap_i with LCOFIFRZ, bp_trap_i with BPFRZ, sctrclr_i with 1.0).
 */
import { haltedResetPorts, privPort, retirementPorts, type PortSpec, type RetirementWidths } from '../hart/ports.ts';
import type { CtrConfig } from './config.ts';
import type { CtrRtlParams } from './settings.ts';

export const CTR_TOP_MODULE = 'ctr_top';

export type CtrPortGroup = 'clock' | 'hart' | 'stateen' | 'csr';

export type CtrPort = PortSpec<CtrPortGroup>;

/** The top-level ports in declaration order. */
export function ctrPorts(c: CtrConfig, rtl: CtrRtlParams): CtrPort[] {
  const out: CtrPort[] = [];
  const port = (name: string, direction: 'in' | 'out', width: number, widthExpr: string, group: CtrPortGroup, description: string): void => {
    out.push({ name, direction, width, widthExpr, group, description });
  };
  port('clk_i', 'in', 1, '1', 'clock', 'Clock.');
  port('rst_ni', 'in', 1, '1', 'clock', 'Asynchronous reset, active low.');

  const hart: RetirementWidths = {
    itype: { bits: 4, expr: '4' },
    iretire: { bits: rtl.iretire_width_p, expr: 'iretire_width_p' },
    ilastsize: { bits: rtl.lastsize_width_p, expr: 'lastsize_width_p' },
    iaddr: { bits: c.xlen, expr: 'xlen' },
    priv: { bits: 3, expr: '3' },
  };
  out.push(...retirementPorts(hart, 'hart'), privPort(hart, 'hart'));
  if (c.hExt) port('v_i', 'in', 1, '1', 'hart', 'V of the record\'s mode (VS = priv 1 with V, VU = priv 0 with V).');
  out.push(...haltedResetPorts('hart'));
  if (c.misp) port('misp_i', 'in', 1, '1', 'hart', 'The record\'s transfer was mispredicted (ctrtarget.MISP).');
  if (c.lcofifrz) port('lcofi_trap_i', 'in', 1, '1', 'hart', 'The record\'s trap is a local counter overflow interrupt (freezes with LCOFIFRZ).');
  if (c.bpfrz) port('bp_trap_i', 'in', 1, '1', 'hart', 'The record\'s trap is a breakpoint exception (freezes with BPFRZ).');

  if (c.smstateen) {
    port('mstateen0_ctr_i', 'in', 1, '1', 'stateen', `mstateen0 bit ${c.specVersion === '0.1.4' ? 55 : 54} (CTR).`);
    port('mstateen0_csrind_i', 'in', 1, '1', 'stateen', 'mstateen0 bit 60 (Smcsrind: siselect, sireg*, vsiselect, vsireg*).');
    if (c.hExt) {
      port('hstateen0_ctr_i', 'in', 1, '1', 'stateen', `hstateen0 bit ${c.specVersion === '0.1.4' ? 55 : 54} (CTR).`);
      port('hstateen0_csrind_i', 'in', 1, '1', 'stateen', 'hstateen0 bit 60 (Smcsrind).');
    }
  }

  port('csr_valid_i', 'in', 1, '1', 'csr', 'A CSR access in this cycle.');
  port('csr_addr_i', 'in', 12, '12', 'csr', 'CSR number of the access.');
  port('csr_we_i', 'in', 1, '1', 'csr', 'The access writes (csrrw, or csrrs/csrrc with a non-zero source).');
  port('csr_wdata_i', 'in', c.xlen, 'xlen', 'csr', 'Write data.');
  port('csr_wmask_i', 'in', c.xlen, 'xlen', 'csr', 'Bits written: new = (old & ~wmask) | (wdata & wmask).');
  port('csr_priv_i', 'in', 2, '2', 'csr', 'Privilege of the access (and of SCTRCLR): 0 U, 1 S, 3 M.');
  if (c.hExt) port('csr_v_i', 'in', 1, '1', 'csr', 'V of the access (and of SCTRCLR).');
  if (c.specVersion === '1.0') port('sctrclr_i', 'in', 1, '1', 'csr', 'The SCTRCLR instruction executes in this cycle (not together with csr_valid_i).');
  port('csr_rdata_o', 'out', c.xlen, 'xlen', 'csr', 'Read data: the CSR at the start of the cycle; 0 when an exception is raised.');
  port('csr_illegal_o', 'out', 1, '1', 'csr', 'The access (or SCTRCLR) raises an illegal-instruction exception; nothing is written.');
  port('csr_virtual_o', 'out', 1, '1', 'csr', 'The access (or SCTRCLR) raises a virtual-instruction exception; nothing is written.');
  return out;
}

/** The RTL files of the CTR unit in compilation order (leaves first, the top level last). */
export const CTR_RTL_FILES: readonly string[] = ['ctr_entries.sv', 'ctr_csr.sv', 'ctr_record.sv', 'ctr_top.sv'];

