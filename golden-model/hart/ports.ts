/**
 * The retirement interface as RTL ports: the one port group that every block fed by a hart's
 * retirement (E-Trace, CTR, and the trace encoders to come) declares the same way. It is the
 * instruction group of the E-Trace specification's hart-to-encoder interface (chapter 4, tables 4.1
 * and 4.2), which the retirement records of records.ts carry: per signal group (block of retired
 * instructions) itype, iretire (16-bit half-words), ilastsize and iaddr, replicated `groups` times
 * (group 0, the oldest, in the least significant bits); per cycle the privilege; and the halted and
 * reset side band (table 4.5). A block adds its own ports (trap cause, context, CSR port, ...) around
 * these and chooses their order; the names, widths and meanings are this module's.
 */

export type PortDirection = 'in' | 'out';

/** One top-level port of a generated block. */
export interface PortSpec<G extends string = string> {
  readonly name: string;
  readonly direction: PortDirection;
  /** Width in bits, computed from the configuration. */
  readonly width: number;
  /** The same width as an SV constant expression over parameter names (`1` for a scalar). */
  readonly widthExpr: string;
  /** The block's grouping of its ports (for documentation and the harness). */
  readonly group: G;
  readonly description: string;
}

/** A width as a number and as an expression over the component's parameter names. */
export interface Width {
  readonly bits: number;
  readonly expr: string;
}

export interface RetirementWidths {
  /**
   * Signal groups (blocks) a cycle, as a count and the parameter that sets it (E-Trace's
   * taken_branches_p); absent for a block that takes one block a cycle.
   */
  readonly groups?: Width;
  readonly itype: Width;
  readonly iretire: Width;
  readonly ilastsize: Width;
  readonly iaddr: Width;
  readonly priv: Width;
}

/** The instruction group's ports (one per signal group, concatenated), in their declaration order. */
export function retirementPorts<G extends string>(w: RetirementWidths, group: G): PortSpec<G>[] {
  const g = w.groups;
  const replicated = (x: Width): Width => (g === undefined ? x : { bits: g.bits * x.bits, expr: x.expr === '1' ? g.expr : `${g.expr} * ${x.expr}` });
  const port = (field: string, x: Width, table: string, meaning: string): PortSpec<G> => {
    const r = replicated(x);
    const each = g === undefined ? '' : ` of each signal group, group k in bits [k*${x.expr} +: ${x.expr}]`;
    return { name: `${field}_i`, direction: 'in', width: r.bits, widthExpr: r.expr, group, description: `${field}${each} (E-Trace ${table}): ${meaning}` };
  };
  return [
    port('itype', w.itype, 'table 4.1', 'how the block ends (0 none, 1 exception, 2 interrupt, 3 trap return, 4-15 the transfer type).'),
    port('iretire', w.iretire, 'table 4.2', '16-bit half-words retired in the block (0: nothing retired).'),
    port('ilastsize', w.ilastsize, 'table 4.2', "the block's last instruction is 2^ilastsize half-words."),
    port('iaddr', w.iaddr, 'table 4.1', "address of the block's first instruction (for a trap that retired nothing: the EPC)."),
  ];
}

/** The privilege of the instructions retired in the cycle (table 4.1): 0 U, 1 S, 3 M, 4 debug mode. */
export function privPort<G extends string>(w: RetirementWidths, group: G): PortSpec<G> {
  return { name: 'priv_i', direction: 'in', width: w.priv.bits, widthExpr: w.priv.expr, group, description: 'Privilege of the instructions retired in the cycle (E-Trace table 4.1): 0 U, 1 S, 3 M, 4 debug mode.' };
}

/** The side band every retirement consumer takes (table 4.5). */
export function haltedResetPorts<G extends string>(group: G): PortSpec<G>[] {
  return [
    { name: 'halted_i', direction: 'in', width: 1, widthExpr: '1', group, description: 'The hart is halted (E-Trace table 4.5).' },
    { name: 'reset_i', direction: 'in', width: 1, widthExpr: '1', group, description: 'The hart is in reset (E-Trace table 4.5).' },
  ];
}
