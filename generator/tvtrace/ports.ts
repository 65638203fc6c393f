/**
 * The port contract of the generated tandem-verification trace encoder's top level (`tvtrace_top`):
 * what the RTL implements, what the co-simulation drives and what the IP-XACT export writes.
 *
 * Decisions (the seed's Appendix B suggests `Put#(TraceData) in` and `Get#(Bit#(8)) out`, plus
 * `mtime_in`, `mcycle_in`, `minstret_in`; everything else is ours):
 * - lowRISC naming, `clk_i` and `rst_ni` (asynchronous, active low) first.
 * - One record per handshake on `rec_valid_i`/`rec_ready_o`: every field of a record
 *   (golden-model/tvtrace/records.ts TvRecord) is a port, with a valid bit where the field is
 *   optional. `kind_i` says which record it is; the kinds share the field ports:
 *   - instruction: next_pc, instr, priv, gpr, fpr, csr (up to four, in slot order), fcsr, eaddr, paddr, store,
 *     pc_paddr, mem (up to two transactions, in slot order, each with an optional response);
 *   - trap / interrupt: next_pc, instr (trap only), priv (selects the CSR set), xstatus, xcause, xepc, xtval;
 *   - xret: next_pc, instr, priv, and xstatus as the new mstatus;
 *   - debug-reg: gpr_* (a GPR), or fpr_* (an FPR), or csr slot 0 (a CSR), the first valid of these;
 *   - debug-mem: paddr_i (the address), store_size_i and store_data_i;
 *   - reset: nothing;
 *   - unobserved: mtime, mcycle and minstret, each with its valid bit.
 *   Ports a kind does not use are ignored, whatever their values (valid bits included).
 * - `rec_ready_o` is 1 when the record register is empty or its record enters the FIFO in this
 *   cycle; it depends neither on the record ports nor on `tv_ready_i` (no combinational path from
 *   the record or the transport to the hart).
 * - The stream leaves on a ready/valid port: byte-wide (`out_bytes` = 1: `tv_data_o[7:0]`) or
 *   word-wide (`out_bytes` = 2, 4, 8: `tv_data_o` holds `tv_bytes_o` bytes, the first of the stream
 *   in bits 7:0, the bytes above `tv_bytes_o` zero). A beat moves when `tv_valid_o` and `tv_ready_i`
 *   are both 1; a beat carries min(out_bytes, bytes in the FIFO).
 */
import type { PortDirection, PortSpec } from '../../golden-model/hart/ports.ts';
import { mlenBytes, type TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';

export const TVTRACE_TOP_MODULE = 'tvtrace_top';

/** The generated RTL modules, in compilation order (leaves first); one module per file. */
export const TVTRACE_RTL_MODULES = ['tvtrace_seed_state', 'tvtrace_assemble', 'tvtrace_place', 'tvtrace_fifo', 'tvtrace_top'] as const;
export type TvtraceRtlModule = (typeof TVTRACE_RTL_MODULES)[number];

/** The modules of a configuration: the decoder's state (pc, fcsr) only for field_order = seed. */
export function tvtraceRtlModules(c: Pick<TvtraceRtlConfig, 'fieldOrder'>): TvtraceRtlModule[] {
  return TVTRACE_RTL_MODULES.filter((m) => m !== 'tvtrace_seed_state' || c.fieldOrder === 'seed');
}

export type TvtracePortGroup = 'clock' | 'record' | 'unobserved' | 'trace';
export type TvtracePortSpec = PortSpec<TvtracePortGroup>;

/** `kind_i` values: the record kinds in the order of TV_RECORD_KINDS. */
export const TV_KIND_CODES = {
  instruction: 0,
  trap: 1,
  interrupt: 2,
  xret: 3,
  'debug-reg': 4,
  'debug-mem': 5,
  reset: 6,
  unobserved: 7,
} as const;

/** The CSR slots of an instruction record (TraceData's `Vector#(4, Maybe#(...)) csr`). */
export const TV_CSR_SLOTS = 4;
/** The memory transaction slots of an instruction record (MAX_MEM_TRANSACTIONS). */
export const TV_MEM_SLOTS = 2;

/** Bits of tv_bytes_o: enough for 1..out_bytes. */
export function tvBytesWidth(outBytes: number): number {
  return 32 - Math.clz32(outBytes);
}

/** The top-level ports, in declaration order. */
export function tvtracePorts(c: TvtraceRtlConfig): TvtracePortSpec[] {
  const ports: TvtracePortSpec[] = [];
  const port = (name: string, direction: PortDirection, width: number, widthExpr: string, group: TvtracePortGroup, description: string): void => {
    ports.push({ name, direction, width, widthExpr, group, description });
  };
  const sw = Math.max(c.xlen, c.flen);
  port('clk_i', 'in', 1, '1', 'clock', 'Clock of the encoder, the record port and the output port.');
  port('rst_ni', 'in', 1, '1', 'clock', 'Asynchronous reset, active low.');
  port('rec_valid_i', 'in', 1, '1', 'record', 'A record is on the record ports.');
  port('rec_ready_o', 'out', 1, '1', 'record', 'The record register is free: the record is taken in this cycle if rec_valid_i is 1 (depends neither on the record ports nor on tv_ready_i).');
  port('kind_i', 'in', 3, '3', 'record', 'Record kind: 0 instruction, 1 trap, 2 interrupt, 3 xret, 4 debug-reg, 5 debug-mem, 6 reset, 7 unobserved.');
  port('next_pc_i', 'in', c.xlen, 'xlen', 'record', 'The pc after the record (additional state 10): instruction, trap, interrupt, xret.');
  port('instr_valid_i', 'in', 1, '1', 'record', 'instr_i holds the instruction (instruction, trap, xret).');
  port('instr_size_i', 'in', 1, '1', 'record', 'Instruction size: 0 = 16 bits (instr_i[15:0], opcode 16), 1 = 32 bits (opcode 17).');
  port('instr_i', 'in', 32, '32', 'record', 'The instruction bits (ILEN = 32).');
  port('priv_valid_i', 'in', 1, '1', 'record', 'priv_i is a new privilege mode of an instruction record (trap, interrupt and xret always have one).');
  port('priv_i', 'in', 2, '2', 'record', 'Privilege mode after the record (U = 0, S = 1, M = 3); for a trap or interrupt it selects the CSR set (address priv_i << 8 | 0x00, 0x42, 0x41, 0x43).');
  port('gpr_valid_i', 'in', 1, '1', 'record', 'gpr_addr_i is written with gpr_data_i (instruction, debug-reg); x0 is not reported.');
  port('gpr_addr_i', 'in', 5, '5', 'record', 'GPR number (register address 0x1000 + n).');
  port('gpr_data_i', 'in', c.xlen, 'xlen', 'record', 'New GPR value, XLEN bits.');
  if (c.flen > 0) {
    port('fpr_valid_i', 'in', 1, '1', 'record', 'fpr_addr_i is written with fpr_data_i (instruction, debug-reg).');
    port('fpr_addr_i', 'in', 5, '5', 'record', 'FPR number (register address 0x1020 + n).');
    port('fpr_data_i', 'in', c.flen, 'flen', 'record', 'New FPR value, FLEN bits (a single NaN-boxed).');
  }
  port('csr_valid_i', 'in', TV_CSR_SLOTS, String(TV_CSR_SLOTS), 'record', 'CSR write slot k is valid (instruction: reported in slot order; debug-reg: slot 0).');
  port('csr_addr_i', 'in', 12 * TV_CSR_SLOTS, `12 * ${TV_CSR_SLOTS}`, 'record', 'CSR address of slot k in bits [12*k +: 12].');
  port('csr_data_i', 'in', c.xlen * TV_CSR_SLOTS, `xlen * ${TV_CSR_SLOTS}`, 'record', 'New CSR value of slot k in bits [xlen*k +: xlen].');
  port('fcsr_valid_i', 'in', 1, '1', 'record', 'fcsr_i is the new fcsr (CSR 0x003), reported after the CSR slots (instruction).');
  port('fcsr_i', 'in', c.xlen, 'xlen', 'record', 'New fcsr, XLEN bits.');
  port('eaddr_valid_i', 'in', 1, '1', 'record', 'eaddr_i is the effective address of the memory access (instruction).');
  port('eaddr_i', 'in', c.mlen, 'mlen', 'record', 'Effective address, MLEN bits (additional state 3).');
  port('paddr_valid_i', 'in', 1, '1', 'record', 'paddr_i is the physical address of the memory access (instruction).');
  port('paddr_i', 'in', c.mlen, 'mlen', 'record', 'Physical address, MLEN bits (additional state 2; the address of a debug-mem write).');
  port('store_valid_i', 'in', 1, '1', 'record', 'store_data_i is data the instruction stores (store, AMO, SC).');
  port('store_size_i', 'in', 2, '2', 'record', 'Bytes stored: 2^store_size_i (instruction with store_valid_i, debug-mem).');
  port('store_data_i', 'in', sw, 'xlen > flen ? xlen : flen', 'record', 'Store data: the low 2^store_size_i bytes are reported, the rest ignored.');
  port('pc_paddr_valid_i', 'in', 1, '1', 'record', 'pc_paddr_i is the physical address of the next pc (instruction): additional state 9.');
  port('pc_paddr_i', 'in', c.mlen, 'mlen', 'record', 'Physical address of the next pc, MLEN bits.');
  port('mem_valid_i', 'in', TV_MEM_SLOTS, String(TV_MEM_SLOTS), 'record', 'Memory transaction slot k is valid (instruction; bus order): a memory request (opcode 8).');
  port('mem_op_i', 'in', 4 * TV_MEM_SLOTS, `4 * ${TV_MEM_SLOTS}`, 'record', 'Request opcode of slot k in bits [4*k +: 4]: 0 load ... 13 instruction fetch (data for 1 store, 3 sc, 4-12 AMOs).');
  port('mem_size_i', 'in', 2 * TV_MEM_SLOTS, `2 * ${TV_MEM_SLOTS}`, 'record', 'Size of slot k in bits [2*k +: 2]: 2^size bytes.');
  port('mem_addr_i', 'in', c.mlen * TV_MEM_SLOTS, `mlen * ${TV_MEM_SLOTS}`, 'record', 'Address of slot k in bits [mlen*k +: mlen].');
  port('mem_data_i', 'in', sw * TV_MEM_SLOTS, `(xlen > flen ? xlen : flen) * ${TV_MEM_SLOTS}`, 'record', 'Request data of slot k (store, sc, AMO): the low 2^size bytes of bits [w*k +: w], w = max(XLEN, FLEN).');
  port('mem_rsp_valid_i', 'in', TV_MEM_SLOTS, String(TV_MEM_SLOTS), 'record', 'Slot k has a response (opcode 9), written right after its request.');
  port('mem_rsp_fail_i', 'in', TV_MEM_SLOTS, String(TV_MEM_SLOTS), 'record', 'The response of slot k is a failure (result 1).');
  port('mem_rsp_data_i', 'in', sw * TV_MEM_SLOTS, `(xlen > flen ? xlen : flen) * ${TV_MEM_SLOTS}`, 'record', 'Response data of slot k (not for store, sc): the low 2^size bytes of bits [w*k +: w].');
  port('xstatus_i', 'in', c.xlen, 'xlen', 'record', 'New xstatus of the trap or interrupt; new mstatus of an xret.');
  port('xcause_i', 'in', c.xlen, 'xlen', 'record', 'New xcause of the trap or interrupt.');
  port('xepc_i', 'in', c.xlen, 'xlen', 'record', 'New xepc of the trap or interrupt.');
  port('xtval_i', 'in', c.xlen, 'xlen', 'record', 'New xtval of the trap or interrupt.');
  port('mtime_valid_i', 'in', 1, '1', 'unobserved', 'mtime_i is reported (unobserved): additional state 8.');
  port('mtime_i', 'in', 64, '64', 'unobserved', 'mtime, 64 bits.');
  port('mcycle_valid_i', 'in', 1, '1', 'unobserved', 'mcycle_i is reported (unobserved): mcycle (and mcycleh on RV32).');
  port('mcycle_i', 'in', 64, '64', 'unobserved', 'mcycle, 64 bits.');
  port('minstret_valid_i', 'in', 1, '1', 'unobserved', 'minstret_i is reported (unobserved): minstret (and minstreth on RV32).');
  port('minstret_i', 'in', 64, '64', 'unobserved', 'minstret, 64 bits.');
  port('tv_data_o', 'out', 8 * c.outBytes, '8 * out_bytes', 'trace', c.outBytes === 1 ? 'Trace byte offered.' : 'Trace bytes offered: the first in bits 7:0; bytes at and above tv_bytes_o are zero.');
  if (c.outBytes > 1) port('tv_bytes_o', 'out', tvBytesWidth(c.outBytes), '$clog2(out_bytes + 1)', 'trace', 'Bytes in this beat: min(out_bytes, bytes in the FIFO).');
  port('tv_valid_o', 'out', 1, '1', 'trace', 'tv_data_o holds bytes of the stream.');
  port('tv_ready_i', 'in', 1, '1', 'trace', 'The transport takes the beat in this cycle.');
  return ports;
}

/** Bytes of an MLEN field (chapter 3): MLEN rounded up. */
export const mlenFieldBytes = (c: TvtraceRtlConfig): number => mlenBytes(c.mlen);
