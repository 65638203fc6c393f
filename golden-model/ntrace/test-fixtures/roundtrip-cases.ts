/**
 * The configurations the N-Trace round trips run (roundtrip.test.ts lossless, output.test.ts through
 * the output FIFO), and which records a trace covers. Only test files import this.
 */
import type { RetirementRecord } from '../../hart/records.ts';
import type { StimulusKnobs } from '../../hart/stimulus/knobs.ts';

export interface RoundTripCase {
  name: string;
  sets: string[];
  knobs?: Partial<StimulusKnobs>;
  /** Regroup into blocks of this many instructions (2 groups per cycle). */
  blocks?: number;
}

export const ROUND_TRIP_CASES: readonly RoundTripCase[] = [
  { name: 'HTM', sets: [] },
  { name: 'BTM', sets: ['ntrace_mode=btm'] },
  { name: 'HTM, return stack', sets: ['implicit_return=stack', 'call_stack_size=8'] },
  // A call counter checks no return address: it is exact only for programs whose returns go back
  // to their calls. The generator's co-routine swaps do not (their returns go elsewhere), so none here.
  { name: 'HTM, call counter (no co-routine swaps)', sets: ['implicit_return=counter', 'call_stack_size=4'], knobs: { w_swap: 0 } },
  { name: 'BTM, return stack, repeat branch', sets: ['ntrace_mode=btm', 'implicit_return=stack', 'repeat_branch=1'] },
  { name: 'HTM, repeat branch and history, deferred HIST full', sets: ['repeat_branch=1', 'repeat_history=1', 'hist_full=deferred'] },
  { name: 'HTM, plain indirect for empty HIST, 8-bit I-CNT', sets: ['empty_hist_indirect=plain', 'icnt_width=8'] },
  { name: 'HTM, periodic sync, SRC, timestamps, MSB dropping', sets: ['sync_period=40', 'src_width=4', 'src=5', 'timestamp=1', 'address_msb_drop=1'] },
  { name: 'RV32 BTM', sets: ['xlen=32', 'ntrace_mode=btm'], knobs: { xlen: 32 } },
  { name: 'HTM, blocks of 3 instructions', sets: ['implicit_return=stack'], blocks: 3 },
  // Ownership messages (trTeContext): the stimulus changes privilege at traps and trap returns and
  // reports context changes with ctype 1, 2 and 3. They add 13-16 % to the trace; BTM with
  // timestamps, or blocks of 3 instructions, then come so close to one byte a cycle that the output
  // FIFO test's recovery floors fail (bandwidth, not a fault: docs/ntrace-model.md "Ownership"), so
  // timestamps are tested with HTM and multiple retirement with blocks of 2.
  { name: 'HTM, ownership', sets: ['ownership=1'] },
  { name: 'BTM, ownership, 16-bit context, periodic sync, SRC', sets: ['ntrace_mode=btm', 'ownership=1', 'context_width=16', 'sync_period=40', 'src_width=4', 'src=5'] },
  { name: 'HTM, ownership, timestamps, return stack', sets: ['ownership=1', 'timestamp=1', 'implicit_return=stack'] },
  { name: 'HTM, ownership, return stack, blocks of 2 instructions', sets: ['ownership=1', 'implicit_return=stack'], blocks: 2 },
];

/** trigger[0] starts tracing (from that instruction), trigger[1] stops it (after it); halts and debug mode are not traced. */
export function traced(records: readonly RetirementRecord[]): boolean[] {
  let on = true;
  return records.map((r) => {
    if (r.trigger & 1) on = true;
    const t = on && !r.halted && !r.reset && r.priv !== 4;
    if (r.trigger & 2) on = false;
    return t;
  });
}
