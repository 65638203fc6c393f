/**
 * The shape of the generated E-Trace encoder's cycle: signal groups and views a cycle (one
 * etrace_encoder_step per view) and the sizes of the byte vectors that follow from them.
 */
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { packetFields, type Packet } from '../../golden-model/etrace/packet/index.ts';
import { encapsulatedBytes, packerMaxBytes } from './packer.ts';
import { dataMaxBytes, dataResponseMaxBytes } from './data.ts';

/** Signal groups (blocks) the hart presents in a cycle: taken_branches_p. */
export function hartGroups(c: EtraceConfig): number {
  return c.params.taken_branches_p;
}

/** The encoder takes one view a clock (serial_views_p): the ingress hands the cycle's views over in turn. */
export function serialViews(c: EtraceConfig): boolean {
  return c.params.serial_views_p === 1;
}

/** Signal groups the encoder takes in a clock: the hart's, or one with serial views. */
export function groupsPerCycle(c: EtraceConfig): number {
  return serialViews(c) ? 1 : hartGroups(c);
}

/**
 * Blocks of several instructions (retires_p > 1) are seen through their first and their last
 * instruction (section 8.3): two views, and state for the record that spans them.
 */
export function blockViews(c: EtraceConfig): boolean {
  return c.params.retires_p > 1;
}

/** Views of a group the encoder takes in a clock, each encoded by its own step: one with serial views. */
export function viewsPerGroup(c: EtraceConfig): number {
  return blockViews(c) && !serialViews(c) ? 2 : 1;
}

/** Views the encoder may encode in one cycle: one etrace_encoder_step each, chained. */
export function stepsPerCycle(c: EtraceConfig): number {
  return groupsPerCycle(c) * viewsPerGroup(c);
}

export const bitlen = (n: number): number => (n <= 0 ? 1 : Math.floor(Math.log2(n)) + 1);

function kindBits(c: EtraceConfig, pkt: Packet): number {
  return packetFields(pkt, c.params).reduce((s, f) => s + f.width, 0);
}

/** Sizes of the byte vectors the core moves around. */
export interface CoreSizes {
  /** Bytes of the largest encapsulated packet (the packer's bytes_o). */
  readonly maxLen: number;
  readonly supportLen: number;
  readonly sf2Len: number;
  /** Bytes one step can write (its packets of one view). */
  readonly stepBytes: number;
  readonly stepLenWidth: number;
  /** Bytes the encoder can write into the FIFO in one cycle. */
  readonly wrBytes: number;
  readonly wrLenWidth: number;
  /** Width of the FIFO room/need arithmetic. */
  readonly chainWidth: number;
}

export function coreSizes(c: EtraceConfig): CoreSizes {
  const maxLen = packerMaxBytes(c);
  const supportLen = encapsulatedBytes(c.params, kindBits(c, { format: 3n, subformat: 3n }));
  const sf2Len = encapsulatedBytes(c.params, kindBits(c, { format: 3n, subformat: 2n }));
  // A step: pre + main (or the resync report: never both) + sf2; then post. Any of them may be the
  // trace_lost support.
  const stepBytes = supportLen + Math.max(maxLen, supportLen) + Math.max(sf2Len, supportLen);
  // With data trace the cycle's data packet comes between the steps' packets and post.
  // With split loads a response packet follows it.
  const wrBytes = stepsPerCycle(c) * stepBytes + (c.params.dataTrace ? dataMaxBytes(c) + dataResponseMaxBytes(c) : 0) + supportLen;
  return {
    maxLen,
    supportLen,
    sf2Len,
    stepBytes,
    stepLenWidth: Math.max(6, bitlen(stepBytes)),
    wrBytes,
    wrLenWidth: Math.max(6, bitlen(wrBytes)),
    chainWidth: Math.max(7, bitlen(Math.max(c.params.fifo_depth_p, wrBytes)) + 1),
  };
}
