/**
 * The port contract of the generated E-Trace encoder's top level (`etrace_top`): what the RTL
 * issue implements, what the co-simulation harness drives, and what `rvtrace ipxact` exports.
 *
 * Each port has its width twice: as a number computed from the configuration, and as a
 * SystemVerilog constant expression over the component's parameter names (Table 9.1 names), which
 * the IP-XACT export writes as the vector bounds (`left` = expression - 1, `right` = 0). A test
 * evaluates every expression against the parameters and compares it with the number.
 *
 * Decisions (the spec's chapter 4 leaves them to the implementation):
 * - Naming: lowRISC style, `_i`/`_o` suffixes, `clk_i` and `rst_ni` (asynchronous, active low) first.
 * - The instruction group, priv, halted and reset are the shared retirement port group
 *   (golden-model/hart/ports.ts).
 * - The hart interface is the multiple-retirement one of tables 4.1 and 4.2 for every `retires_p`
 *   (a single-retirement hart drives iretire with 0 or the half-words of its instruction): `iretire`
 *   counts half-words, as the retirement records do, in iretire_width_p bits (validateConfig
 *   checks they count 2 * retires_p), and `ilastsize` has lastsize_width_p bits.
 * - Groups MR, OR and BR (itype, iretire, ilastsize, iaddr, sijump, trigger) are replicated
 *   `taken_branches_p` times and concatenated into one vector: group 0 (the oldest block) in the
 *   least significant bits, e.g. `itype_i[k*itype_width_p +: itype_width_p]` is group k. trigger is
 *   in group OR (table 4.5), so it is replicated too; with taken_branches_p = 1 it is trigger[2:0].
 * - cause, tval, priv, context, ctype, halted, reset, impdef and time are per cycle (groups M and O).
 * - context_i exists when the context can reach the trace: context in te_inst packets
 *   (nocontext_p = 0), or the 1.1.1 layout (whose F3 SF2 carries context_width_p bits whatever
 *   nocontext_p says), or comparators (whose pInput/sInput may select the context).
 * - sijump_i exists when sijump_p = 1; impdef_i when impdef_width_p > 0; time_i with the 2.0 layout
 *   when notime_p = 0 (the 1.1.1 layout has no time field).
 * - Register access is an AMBA APB4 completer (32-bit data, byte addresses of ETRACE_APB_ADDR_WIDTH
 *   bits; pprot is not used and therefore absent); the register map is in registers.ts.
 * - The trace leaves as the encapsulated byte stream (see ../../shared/design/etrace.md) on a
 *   ready/valid byte interface: a byte moves in a cycle where tx_valid_o and tx_ready_i are both 1.
 * - stall_o asks the hart to stall (table 4.6); it is driven only when stallEnable is set.
 * - Data trace (data_trace_p = 1, table 4.9, unified signalling): one access a cycle, signalled with
 *   the cycle's signal group: dretire_i, dtype_i, daddr_i (iaddress_width_p bits, the seed's
 *   daddress width), dsize_i (the size field's width, 2 bits for 32- and 64-bit data) and data_i.
 *   data_i is data_width_p bits, twice that when CSR or atomic accesses are traced: table 4.9
 *   reports both values of one through `data`, the store value in the 2^dsize bytes from bit 0 and
 *   the load value or operand in the 2^dsize bytes above them (so a 64-bit atomic needs 128 bits).
 *   iaddr_lsbs_i exists when iaddr_lsbs_width_p > 0 (only data filters read it); dblock_i when
 *   dblock_width_p > 0 (with several signal groups a cycle it says which group the access belongs to:
 *   its packet follows that group's te_inst packets, and its filters see that group's address).
 * - Split loads (data_split_p = 1): lrid_i with the access, and one load response a cycle on
 *   lresp_i, lid_i and ldata_i (table 4.9). data_i stays the access's data port: under split
 *   signalling it carries what table 4.9 calls sdata (a store's value, an atomic's operand) and a
 *   CSR access's two values as before; a split load's data_i is not read.
 */
import { haltedResetPorts, privPort, retirementPorts, type PortDirection, type PortSpec as HartPortSpec, type RetirementWidths } from '../hart/ports.ts';
import type { EtraceConfig } from './config.ts';

/** Byte address width of the APB port: the 4 KiB Trace Control Interface window plus the discovery block above it. */
export const ETRACE_APB_ADDR_WIDTH = 13;
export const ETRACE_APB_DATA_WIDTH = 32;

/** Name of the generated top-level module. */
export const ETRACE_TOP_MODULE = 'etrace_top';

export type PortGroup = 'clock' | 'hart' | 'sideband' | 'data' | 'apb' | 'trace';

/** Width of dsize and of the packets' size field: max(1, clog2(clog2(data_width_p/8 + 1))) (7.1.2). */
export function dataSizeWidth(dataWidth: number): number {
  return Math.max(1, Math.ceil(Math.log2(Math.ceil(Math.log2(dataWidth / 8 + 1)))));
}
const dataSizeWidthExpr = '$clog2($clog2(data_width_p / 8 + 1))';

export type { PortDirection };
export type PortSpec = HartPortSpec<PortGroup>;

/** True when context_i exists (see the decisions above). */
export function hasContextInput(c: EtraceConfig): boolean {
  const p = c.params;
  return p.nocontext_p === 0 || p.payload_layout === '1.1.1' || p.comparators_p > 0;
}

/** True when time_i exists. */
export function hasTimeInput(c: EtraceConfig): boolean {
  return c.params.payload_layout === '2.0' && c.params.notime_p === 0;
}

/** The top-level ports of the generated encoder, in declaration order. */
export function etracePorts(c: EtraceConfig): PortSpec[] {
  const p = c.params;
  const tb = p.taken_branches_p;
  const ports: PortSpec[] = [];
  const port = (name: string, direction: PortDirection, width: number, widthExpr: string, group: PortGroup, description: string): void => {
    ports.push({ name, direction, width, widthExpr, group, description });
  };
  const replicated = (perGroup: string): string => (perGroup === '1' ? 'taken_branches_p' : `taken_branches_p * ${perGroup}`);

  port('clk_i', 'in', 1, '1', 'clock', 'Clock of the encoder and of the hart interface.');
  port('rst_ni', 'in', 1, '1', 'clock', 'Asynchronous reset, active low.');

  const hart: RetirementWidths = {
    groups: { bits: tb, expr: 'taken_branches_p' },
    itype: { bits: p.itype_width_p, expr: 'itype_width_p' },
    iretire: { bits: p.iretire_width_p, expr: 'iretire_width_p' },
    ilastsize: { bits: p.lastsize_width_p, expr: 'lastsize_width_p' },
    iaddr: { bits: p.iaddress_width_p, expr: 'iaddress_width_p' },
    priv: { bits: p.privilege_width_p, expr: 'privilege_width_p' },
  };
  ports.push(...retirementPorts(hart, 'hart'));
  if (p.sijump_p === 1) {
    port('sijump_i', 'in', tb, replicated('1'), 'hart', 'sijump of each signal group (table 4.1): the block ends with a sequentially inferable jump.');
  }
  port('cause_i', 'in', p.ecause_width_p, 'ecause_width_p', 'hart', 'Exception or interrupt cause (table 4.1); used when itype is 1 or 2.');
  port('tval_i', 'in', p.iaddress_width_p, 'iaddress_width_p', 'hart', 'Trap value (table 4.1); used when itype is 1 or 2.');
  ports.push(privPort(hart, 'hart'));
  if (hasContextInput(c)) {
    port('context_i', 'in', p.context_width_p, 'context_width_p', 'hart', 'Context of the instructions retired in the cycle (table 4.1).');
  }
  port('ctype_i', 'in', p.ctype_width_p, 'ctype_width_p', 'hart', 'How to report a context change (tables 4.1 and 4.4).');
  port('trigger_i', 'in', 3 * tb, replicated('3'), 'sideband',
    'trigger[2:0] of each signal group (tables 4.5 and 4.7): bit 0 trace-on, bit 1 trace-off, bit 2 notify.');
  ports.push(...haltedResetPorts('sideband'));
  if (p.impdef_width_p > 0) {
    port('impdef_i', 'in', p.impdef_width_p, 'impdef_width_p', 'sideband', 'Implementation-defined side band, for filtering (table 4.5).');
  }
  if (hasTimeInput(c)) {
    port('time_i', 'in', p.time_width_p, 'time_width_p', 'sideband', 'Time of the cycle, reported in format 3 packets (2.0 layout).');
  }
  const d = p.dataTrace;
  if (d) {
    const twoValues = d.data_atomics_p === 1 || d.data_csr_p === 1;
    port('dretire_i', 'in', 1, '1', 'data', 'A data access retired in this cycle (table 4.9).');
    port('dtype_i', 'in', d.dtype_width_p, 'dtype_width_p', 'data', 'Data access type (table 4.9): 0 load, 1 store, 4-6 CSR, 8-14 atomic.');
    port('daddr_i', 'in', p.iaddress_width_p, 'iaddress_width_p', 'data', 'Data access address (a CSR access: the CSR number in bits 11:0).');
    port('dsize_i', 'in', dataSizeWidth(d.data_width_p), dataSizeWidthExpr, 'data', 'The access is 2^dsize bytes.');
    port('data_i', 'in', (twoValues ? 2 : 1) * d.data_width_p, twoValues ? '2 * data_width_p' : 'data_width_p', 'data',
      twoValues ? 'Access data; CSR and atomic accesses: store value from bit 0, load value or operand from bit 8*2^dsize.' : 'Access data (the low 2^dsize bytes).');
    if (d.data_split_p === 1) {
      port('lrid_i', 'in', d.lrid_width_p, 'lrid_width_p', 'data', 'Load request ID of a split load or atomic (table 4.9), with dretire.');
      port('lresp_i', 'in', 2, '2', 'data', 'Load response (table 4.9): 0 none, 2 okay (ldata valid), 3 error.');
      port('lid_i', 'in', d.lrid_width_p, 'lrid_width_p', 'data', 'The lrid of the load the response answers (table 4.9).');
      port('ldata_i', 'in', d.data_width_p, 'data_width_p', 'data', 'Load data of an okay response (the low 2^dsize bytes of its load).');
    }
    if (d.iaddr_lsbs_width_p > 0) {
      port('iaddr_lsbs_i', 'in', d.iaddr_lsbs_width_p, 'iaddr_lsbs_width_p', 'data', 'Half-word bits of the accessing instruction address (data filters).');
    }
    if (d.dblock_width_p > 0) {
      port('dblock_i', 'in', d.dblock_width_p, 'dblock_width_p', 'data', 'The signal group (block) of the cycle in which the access retired (table 4.9).');
    }
  }
  port('stall_o', 'out', 1, '1', 'sideband', 'Stall request to the hart (table 4.6), with stallEnable when the output FIFO cannot take a packet.');

  const aw = String(ETRACE_APB_ADDR_WIDTH);
  const dw = String(ETRACE_APB_DATA_WIDTH);
  port('paddr_i', 'in', ETRACE_APB_ADDR_WIDTH, aw, 'apb', 'APB4 byte address of the register access.');
  port('psel_i', 'in', 1, '1', 'apb', 'APB4 select.');
  port('penable_i', 'in', 1, '1', 'apb', 'APB4 enable (access phase).');
  port('pwrite_i', 'in', 1, '1', 'apb', 'APB4 write (1) or read (0).');
  port('pwdata_i', 'in', ETRACE_APB_DATA_WIDTH, dw, 'apb', 'APB4 write data.');
  port('pstrb_i', 'in', ETRACE_APB_DATA_WIDTH / 8, `${dw} / 8`, 'apb', 'APB4 write byte strobes.');
  port('prdata_o', 'out', ETRACE_APB_DATA_WIDTH, dw, 'apb', 'APB4 read data.');
  port('pready_o', 'out', 1, '1', 'apb', 'APB4 ready.');
  port('pslverr_o', 'out', 1, '1', 'apb', 'APB4 error: an access outside the register map.');

  port('tx_data_o', 'out', 8, '8', 'trace', 'Encapsulated trace byte stream: the byte offered.');
  port('tx_valid_o', 'out', 1, '1', 'trace', 'tx_data_o holds a byte.');
  port('tx_ready_i', 'in', 1, '1', 'trace', 'The transport takes the byte in this cycle.');
  return ports;
}

export interface RtlFile {
  /** Relative to the directory the RTL is generated into. */
  readonly name: string;
  readonly fileType: 'systemVerilogSource';
}

/**
 * The RTL files generated for a configuration, top level first (one module per file, file name =
 * module name); generator/etrace/rtl.ts renders each of them.
 */
export function rtlFileNames(c: EtraceConfig): RtlFile[] {
  const p = c.params;
  const names = ['etrace_top', 'etrace_apb_regs', 'etrace_ingress', 'etrace_encoder'];
  names.push('etrace_encoder_step', 'etrace_step_decision', 'etrace_step_contents', 'etrace_step_accept');
  // With pipeline stages the bytes of a step's packets are put together a stage later.
  if (p.pipeline_stages_p > 0) names.push('etrace_step_write');
  names.push('etrace_packer', 'etrace_fifo');
  if (p.filters_p > 0 || p.comparators_p > 0) names.push('etrace_filter');
  if (p.bpred_size_p > 0) names.push('etrace_bpred');
  if (p.cache_size_p > 0) names.push('etrace_jtc');
  if (p.call_counter_size_p > 0 || p.return_stack_size_p > 0) names.push('etrace_irstack');
  if (p.dataTrace) names.push('etrace_data_encoder', 'etrace_data_codes', 'etrace_data_compress', 'etrace_data_packer');
  if (p.dataTrace && p.filters_p > 0) names.push('etrace_data_filter');
  return names.map((n) => ({ name: `${n}.sv`, fileType: 'systemVerilogSource' }));
}
