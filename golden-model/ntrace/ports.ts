/**
 * The port contract of the generated N-Trace encoder's top level (`ntrace_top`): what the RTL
 * implements, what the co-simulation harness drives and what an IP-XACT export would write.
 *
 * Decisions (the N-Trace specification leaves the hart interface to the implementation; it reuses
 * the E-Trace one, chapter 4 of the E-Trace specification):
 * - lowRISC naming, `clk_i` and `rst_ni` (asynchronous, active low) first.
 * - The hart side is the shared retirement port group (golden-model/hart/ports.ts), replicated for
 *   taken_branches_p signal groups (group k in bits [k*W +: W], group 0 the oldest): itype_i
 *   (4-bit classification), iretire_i (iretire_width_p bits of half-words: up to 2 * retires_p),
 *   ilastsize_i, iaddr_i (XLEN bits); then priv_i (3 bits, 4 = debug mode) for the cycle; with
 *   `ownership` (Ownership messages, trTeContext) context_i (context_width bits, none when 0) and
 *   ctype_i (2 bits), E-Trace's names and meanings (tables 4.1 and 4.4) as the E-Trace encoder
 *   declares them, for the cycle; trigger_i (3 bits per group: bit 0 trace-on, bit 1 trace-off,
 *   bit 2 notify), halted_i and reset_i for the cycle, and tstamp_i (64 bits) when the
 *   configuration has timestamps.
 * - Single retirement (the defaults: retires_p 1, taken_branches_p 1, iretire_width_p 2): one
 *   record (one retired instruction, or a trap that retired nothing, or an idle cycle) per taken
 *   frame. Multiple retirement (E-Trace chapter 4.2): each group is a block of up to retires_p
 *   instructions whose itype describes its last one, one block a clock; with taken_branches_p > 1
 *   a frame's groups are handled one a clock, oldest first: stall_o holds the frame for one clock
 *   per group after the first (a group other than the first that retired nothing and is no trap
 *   is absent; absent groups follow the present ones and take no clock), whatever stall_enable.
 *   halted_i, reset_i, priv_i, context_i and tstamp_i are the frame's, the same for each group;
 *   ctype_i is the frame's first group's (a context change starts a new cycle, E-Trace 4.2).
 * - stall_o: the encoder did not take this cycle's record; the hart holds the same inputs in the
 *   next cycle (N-Trace trTeInstStallEna). A record's messages are all decided in the cycle after
 *   its frame and enter the output FIFO whole, in order, in that cycle. With stall_enable = 0
 *   stall_o is always 0: a message that does not fit is lost (Error message, then SYNC 7). With
 *   stall_enable = 1 stall_o is 1 while a message of the record does not fit; it depends on
 *   mseo_ready_i of the same cycle (the byte leaving makes room) and on registers, not on the hart
 *   inputs. (A frame of several groups also holds while its later groups are handled, above.)
 * - Register access is an AMBA APB4 completer (32-bit data, byte addresses of NTRACE_APB_ADDR_WIDTH
 *   bits: the 4 KiB window the Trace Control Interface gives a trace component; pprot is not used
 *   and therefore absent); the register map is in registers.ts.
 * - The trace leaves as Nexus MSEO bytes, MDO[5:0] << 2 | MSEO[1:0], on a ready/valid byte
 *   interface: a byte moves in a cycle where mseo_valid_o and mseo_ready_i are both 1.
 */
import { haltedResetPorts, privPort, retirementPorts, type PortDirection, type PortSpec as HartPortSpec, type RetirementWidths } from '../hart/ports.ts';
import type { NtraceConfig } from './settings.ts';

/** Name of the generated top-level module. */
export const NTRACE_TOP_MODULE = 'ntrace_top';

/** Width of tstamp_i (the records' time is a 64-bit quantity). */
export const NTRACE_TSTAMP_WIDTH = 64;

/** Byte address width of the APB port: the Trace Control Interface's 4 KiB window. */
export const NTRACE_APB_ADDR_WIDTH = 12;
export const NTRACE_APB_DATA_WIDTH = 32;

export type NtracePortGroup = 'clock' | 'hart' | 'sideband' | 'apb' | 'trace';
export type { PortDirection };
export type NtracePortSpec = HartPortSpec<NtracePortGroup>;

/** The widths of the retirement group of the N-Trace encoder (groups only when several a cycle). */
export function ntraceRetirementWidths(c: NtraceConfig): RetirementWidths {
  return {
    ...(c.takenBranches > 1 ? { groups: { bits: c.takenBranches, expr: 'taken_branches_p' } } : {}),
    itype: { bits: 4, expr: '4' },
    iretire: { bits: c.iretireWidth, expr: 'iretire_width_p' },
    ilastsize: { bits: 1, expr: '1' },
    iaddr: { bits: c.xlen, expr: 'xlen' },
    priv: { bits: 3, expr: '3' },
  };
}

/** The top-level ports, in declaration order. */
export function ntracePorts(c: NtraceConfig): NtracePortSpec[] {
  const ports: NtracePortSpec[] = [];
  const port = (name: string, direction: PortDirection, width: number, widthExpr: string, group: NtracePortGroup, description: string): void => {
    ports.push({ name, direction, width, widthExpr, group, description });
  };
  port('clk_i', 'in', 1, '1', 'clock', 'Clock of the encoder and of the hart interface.');
  port('rst_ni', 'in', 1, '1', 'clock', 'Asynchronous reset, active low.');
  const w = ntraceRetirementWidths(c);
  ports.push(...retirementPorts(w, 'hart'));
  ports.push(privPort(w, 'hart'));
  if (c.ownership) {
    if (c.contextWidth > 0) {
      port('context_i', 'in', c.contextWidth, 'context_width', 'hart', 'Context of the instructions retired in the cycle (E-Trace table 4.1): the scontext value an Ownership message reports in CONTEXT.');
    }
    port('ctype_i', 'in', 2, '2', 'hart', 'How to report a context change (E-Trace tables 4.1 and 4.4): non-zero on the first retirement after a context change, which then sends an Ownership message with the new context; 0: nothing to report.');
  }
  const g = c.takenBranches;
  const each = g > 1 ? ' of each signal group, group k in bits [k*3 +: 3]' : '';
  port('trigger_i', 'in', 3 * g, g > 1 ? 'taken_branches_p * 3' : '3', 'sideband', `trigger[2:0]${each} (E-Trace tables 4.5 and 4.7): bit 0 trace-on (from this instruction), bit 1 trace-off (after this instruction), bit 2 notify (no message).`);
  ports.push(...haltedResetPorts('sideband'));
  if (c.timestamp) port('tstamp_i', 'in', NTRACE_TSTAMP_WIDTH, String(NTRACE_TSTAMP_WIDTH), 'sideband', 'Time of the record (the TSTAMP source).');
  port('stall_o', 'out', 1, '1', 'sideband', 'The record on the inputs was not taken in this cycle: hold it (N-Trace trTeInstStallEna).');
  ports.push(...ntraceApbPorts());
  port('mseo_data_o', 'out', 8, '8', 'trace', 'Trace byte offered: MDO[5:0] in bits 7..2, MSEO[1:0] in bits 1..0.');
  port('mseo_valid_o', 'out', 1, '1', 'trace', 'mseo_data_o holds a byte.');
  port('mseo_ready_i', 'in', 1, '1', 'trace', 'The transport takes the byte in this cycle.');
  return ports;
}

/** The APB4 completer ports (the 'apb' group), in declaration order. */
export function ntraceApbPorts(): NtracePortSpec[] {
  const aw = NTRACE_APB_ADDR_WIDTH;
  const dw = NTRACE_APB_DATA_WIDTH;
  const apb = (name: string, direction: PortDirection, width: number, widthExpr: string, description: string): NtracePortSpec => ({ name, direction, width, widthExpr, group: 'apb', description });
  return [
    apb('paddr_i', 'in', aw, String(aw), 'APB4 byte address of the register access.'),
    apb('psel_i', 'in', 1, '1', 'APB4 select.'),
    apb('penable_i', 'in', 1, '1', 'APB4 enable (access phase).'),
    apb('pwrite_i', 'in', 1, '1', 'APB4 write (1) or read (0).'),
    apb('pwdata_i', 'in', dw, String(dw), 'APB4 write data.'),
    apb('pstrb_i', 'in', dw / 8, `${dw} / 8`, 'APB4 write byte strobes.'),
    apb('prdata_o', 'out', dw, String(dw), 'APB4 read data.'),
    apb('pready_o', 'out', 1, '1', 'APB4 ready (always 1).'),
    apb('pslverr_o', 'out', 1, '1', 'APB4 error: an access to an address without a register, or not word-aligned.'),
  ];
}

/** The generated RTL files, in compilation order (leaves first); one module per file. */
export const NTRACE_RTL_MODULES = ['ntrace_fields', 'ntrace_bytes', 'ntrace_output', 'ntrace_decision', 'ntrace_apb_regs', 'ntrace_top'] as const;
