/**
 * Field view of a CTR entry (chapter 3): ctrsource = PC[XLEN-1:1] | V, ctrtarget = PC[XLEN-1:1] |
 * MISP, ctrdata = TYPE[3:0] | CCV << 15 | CC << 16 with CC = CCE[15:12] | CCM[11:0].
 */
import { decodeCycleCount } from './cycle-count.ts';
import type { CtrEntry } from './unit.ts';

export interface CtrEntryFields {
  valid: boolean;
  sourcePc: bigint;
  targetPc: bigint;
  misp: boolean;
  type: number;
  ccv: boolean;
  /** The 16-bit CC field. */
  cc: number;
  /** CC decoded to elapsed cycles. */
  cycles: number;
}

export function entryFields(e: CtrEntry): CtrEntryFields {
  const cc = (e.data >>> 16) & 0xffff;
  return {
    valid: (e.source & 1n) === 1n,
    sourcePc: e.source & ~1n,
    targetPc: e.target & ~1n,
    misp: (e.target & 1n) === 1n,
    type: e.data & 0xf,
    ccv: ((e.data >>> 15) & 1) === 1,
    cc,
    cycles: decodeCycleCount(cc),
  };
}
