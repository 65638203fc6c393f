/**
 * What a block gives `rvtrace vectors` (tb/vectors/) for one case: the frames its co-simulation
 * harness applies, cycle by cycle, and the responses its golden model expects on each capture of
 * the harness spec (tb/harness-spec.ts; the types here are the parts of it the vectors need, so
 * that a HarnessSpec is a VectorHarness). The vectors writer turns them into `$readmemh` files and
 * a plain SystemVerilog testbench that applies the frames as the Verilator harness does.
 */

export interface VectorHarness {
  readonly top: string;
  readonly ports: readonly { readonly name: string; readonly direction: 'in' | 'out'; readonly width: number }[];
  readonly clock: string;
  readonly reset: string;
  readonly hold?: string;
  readonly ready?: readonly string[];
  readonly captures: readonly { readonly name: string; readonly when: readonly { readonly port: string; readonly value: 0 | 1 }[]; readonly data: readonly string[] }[];
}

/** One expected response of a capture: its data ports' values, in the order of `data`. */
export interface ExpectedResponse {
  readonly values: readonly bigint[];
  /** Bits compared, per data port (absent: all). */
  readonly mask?: readonly bigint[];
  /** The cycle the model predicts (cycle 0 is the first frame's); absent when `cycles` is false. */
  readonly cycle?: number;
}

/** The model's responses on one capture, in order. */
export interface ExpectedCapture {
  /** The model predicts the cycle of every response (CSR responses, trace bytes); false: only their order. */
  readonly cycles: boolean;
  readonly responses: readonly ExpectedResponse[];
}

export interface VectorCase {
  readonly harness: VectorHarness;
  /** The frames in order, each in the harness's frame layout (tb/harness-spec.ts frameLayout). */
  readonly frames: readonly Uint8Array[];
  /** The ready pattern (tb/README.md): ready ports are 1 from `readyOffset` on, unless cycleChance(seed, cycle - readyOffset, readyChance). */
  readonly seed: number;
  readonly readyChance: number;
  readonly readyOffset: number;
  /** Per capture of the harness, in its order. */
  readonly expected: readonly ExpectedCapture[];
  /** Cycles the model expects the hold output to hold a frame (so the run has frames + holds cycles). */
  readonly holds: number;
  /**
   * RTL beside the block's own that the harness's top needs (a co-simulation wrapper), after it in
   * compilation order; the writer puts the banner above each.
   */
  readonly extraRtl?: readonly { readonly name: string; readonly content: string }[];
  /** One line on what the vectors hold (records, packets, responses), for the command's report. */
  readonly summary: string;
}
