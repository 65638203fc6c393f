/**
 * The stimulus knobs a fuzzing case of an instruction-trace encoder draws (E-Trace, N-Trace): random
 * traps, halts, resets, idle cycles and trace-on/off triggers, and half the time loop-heavy code
 * (long loops, few data-dependent ifs), where branch prediction (E-Trace F0 SF0) and repeat
 * compression (N-Trace RepeatBranch, HREPEAT) show in the trace, and a quarter of the time each
 * atomics and byte/half-word accesses.
 */
import type { Rng } from '../golden-model/common/rng.ts';
import type { StimulusKnobs } from '../golden-model/hart/stimulus/knobs.ts';

/** A rate drawn from 0..max, rounded so that a replay command line carries it exactly. */
export const randomRate = (rng: Rng, max: number): number => Number((rng.float() * max).toFixed(5));

export function randomTraceKnobs(rng: Rng): Partial<StimulusKnobs> {
  return {
    interrupt_rate: randomRate(rng, 0.01),
    fault_rate: randomRate(rng, 0.01),
    halt_rate: randomRate(rng, 0.002),
    reset_rate: randomRate(rng, 0.001),
    idle_rate: randomRate(rng, 0.1),
    trace_on_rate: randomRate(rng, 0.005),
    trace_off_rate: randomRate(rng, 0.005),
    ...(rng.float() < 0.5 ? { loop_continue: Number((0.9 + rng.float() * 0.09).toFixed(5)), w_if: rng.int(0, 5) } : {}),
    // A quarter of the cases with atomics, a quarter with byte and half-word accesses (their data
    // packets, with data trace).
    ...(rng.float() < 0.25 ? { w_amo: rng.int(1, 4) } : {}),
    ...(rng.float() < 0.25 ? { w_narrow: rng.int(1, 4) } : {}),
  };
}
