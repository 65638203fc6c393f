/**
 * What a block gives `rvtrace check` (tb/check/): the check of a waveform of the user's own
 * simulation against the golden model. The generic side reads the map and the waveform and hands
 * the block, cycle by cycle, the values of the top's ports the map names, sampled before each
 * rising edge out of reset; the block rebuilds its model's input from them (retirement records,
 * CSR accesses), runs the model and compares its responses with the outputs the waveform shows.
 */

/** A port of the block's top as the check sees it. */
export interface CheckPort {
  readonly name: string;
  readonly direction: 'in' | 'out';
  readonly width: number;
}

export interface CheckOptions {
  /**
   * The trace output comes from a byte capture (what the trace sink received) instead of the
   * waveform's output ports; absent: from the waveform.
   */
  readonly capture?: Uint8Array;
}

/** Which ports of the top a map must name, and which it may. */
export interface CheckPorts {
  /** Every port a map may name (the clock and reset are given apart). */
  readonly ports: readonly CheckPort[];
  /** The ports the check cannot do without. */
  readonly required: readonly string[];
  /** Ports that come as a group: when one is named, all must be (e.g. the APB completer's inputs). */
  readonly groups?: readonly (readonly string[])[];
}

export interface CheckOutcome {
  readonly pass: boolean;
  /** One line: what was compared (cycles, records, bytes or responses). */
  readonly summary: string;
  /** The first divergence, several lines (cycle, expected and actual, decoded, the input around it). */
  readonly mismatch?: string;
  /** The waveform cycle of the first divergence (absent for a byte of a capture, which has no cycles). */
  readonly mismatchCycle?: number;
  /**
   * The block needs the waveform read again with what this pass found (E-Trace: the data accesses,
   * which its model takes before the first record); `start` gets it as `prior`. The outcome of a
   * pass that asks is not a verdict.
   */
  readonly again?: unknown;
}

/** One run of the check over one waveform. */
export interface CheckSession {
  /**
   * One cycle out of reset: `values` holds the mapped ports' values in the order of `ports` given
   * to `start` (reused between calls: copy what you keep).
   */
  cycle(cycle: number, values: readonly bigint[]): void;
  /** The waveform has ended: the model's remaining output is compared. */
  finish(): CheckOutcome;
}

export interface BlockCheck<C = unknown> {
  /** The ports a map names for this configuration. */
  ports(config: C, options: CheckOptions): CheckPorts;
  /**
   * A new session; `mapped` are the ports the map names, in the order `cycle` gets their values.
   * `detail`: keep what a divergence report needs (the generic side runs the waveform again with
   * it after a first pass without it found a divergence, so that a passing check holds nothing
   * that grows with the waveform).
   */
  start(config: C, mapped: readonly string[], options: CheckOptions & { readonly detail: boolean; readonly prior?: unknown }): CheckSession;
}
