/**
 * How much of a trace a decoder recovers, judged against the retired instructions themselves (not
 * against the encoder): the decoded addresses fall into runs between gaps (trace off, trace lost);
 * every run must be a contiguous piece of the retired sequence, the runs in order. The fraction of
 * retired instructions the runs cover is what a user of a lossy transport gets back.
 */
import { expandBlocks } from './blocks.ts';
import type { ProgramImage } from './image.ts';
import type { RetirementRecord } from './records.ts';

/** What a trace decoder (E-Trace, N-Trace) reports: a retired address, or a gap with its reason. */
export type DecodedItem = { readonly kind: 'pc'; readonly address: bigint } | { readonly kind: 'gap'; readonly reason: string };

export interface Recovery {
  /** Retired instructions in the reference sequence. */
  retired: number;
  /** Instructions the decoder reported, every one at its place in the sequence. */
  recovered: number;
  /** Runs of decoded instructions between gaps. */
  runs: number;
  /** Gaps the decoder reported as trace lost (E-Trace trace_lost, N-Trace an overrun). */
  losses: number;
  /** The first run that is not a piece of the retired sequence (0-based), with its first address. */
  wrongRun?: { index: number; first: bigint; length: number };
}

/**
 * Every retired instruction address, in order (blocks expanded with the image); with `traced`,
 * only those of the single-instruction records it marks.
 */
export function retiredAddresses(
  records: readonly RetirementRecord[],
  image: ProgramImage,
  traced?: (single: readonly RetirementRecord[]) => boolean[],
): bigint[] {
  const single = expandBlocks(records, image);
  const mask = traced?.(single);
  return single.filter((r, i) => r.iretire > 0 && (mask === undefined || mask[i])).map((r) => r.iaddr);
}

/** The decoded addresses as runs between gaps. */
export function decodedRuns(items: readonly DecodedItem[]): bigint[][] {
  const out: bigint[][] = [[]];
  for (const it of items) {
    if (it.kind === 'pc') out[out.length - 1]!.push(it.address);
    else if (out[out.length - 1]!.length > 0) out.push([]);
  }
  return out.filter((r) => r.length > 0);
}

/** Checks the decoded runs against the retired sequence (see the file comment). */
export function traceRecovery(items: readonly DecodedItem[], retired: readonly bigint[]): Recovery {
  const runs = decodedRuns(items);
  const losses = items.filter((it) => it.kind === 'gap' && it.reason === 'trace-lost').length;
  let from = 0;
  let recovered = 0;
  for (const [index, run] of runs.entries()) {
    const start = placeOf(run, retired, from);
    if (start < 0) return { retired: retired.length, recovered, runs: runs.length, losses, wrongRun: { index, first: run[0]!, length: run.length } };
    from = start + run.length;
    recovered += run.length;
  }
  return { retired: retired.length, recovered, runs: runs.length, losses };
}

/** The first index at or after `from` where `run` occurs in `seq`, or -1. */
function placeOf(run: readonly bigint[], seq: readonly bigint[], from: number): number {
  for (let start = seq.indexOf(run[0]!, from); start >= 0; start = seq.indexOf(run[0]!, start + 1)) {
    if (start + run.length > seq.length) return -1;
    let i = 1;
    while (i < run.length && seq[start + i] === run[i]) i++;
    if (i === run.length) return start;
  }
  return -1;
}

/** One line for a user: the fraction recovered, or the run that is wrong. */
export function recoveryLine(r: Recovery): string {
  const pct = r.retired ? ((100 * r.recovered) / r.retired).toFixed(1) : '100.0';
  if (r.wrongRun) {
    return `decoded run ${r.wrongRun.index + 1} (${r.wrongRun.length} instructions from 0x${r.wrongRun.first.toString(16)}) is not in the retired sequence`;
  }
  return `recovered ${r.recovered} of ${r.retired} retired instructions (${pct} %) in ${r.runs} runs, ${r.losses} trace losses; every decoded address at its place`;
}
