import type { DataTrace } from './data-records.ts';
import type { ProgramImage } from './image.ts';
import type { RetirementRecord } from './records.ts';

export type Xlen = 32 | 64;

/**
 * A retirement stream with what a decoder needs beside it: the hart's XLEN and the program image.
 * Files of our own formats carry all three; imported traces carry what they can (an etrace-csv
 * import has no image, a spike-csv import has the image of the executed instructions).
 */
export interface RetirementStream {
  xlen: Xlen;
  /** Instructions retired per cycle at most (1 = single retirement). */
  retiresPerCycle: number;
  image: ProgramImage;
  records: RetirementRecord[];
  /** The data trace interface's accesses and split-load responses (absent: no data trace). */
  data?: DataTrace;
}
