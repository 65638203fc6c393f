/**
 * Issue 19's round trip on every shipped N-Trace component x many seeds: the component's encoder
 * (as `rvtrace encode` resolves it) turns a random program's retirement into MSEO bytes, and the
 * independent decoder (golden-model/ntrace/decoder.ts) with the program image gives back every
 * retired address, in order. Then the same through the output FIFO under back-pressure: every
 * decoded run is a piece of the retired sequence (loss leaves gaps, never wrong addresses).
 */
import { describe, expect, it } from 'vitest';
import { resolveComponent } from '../../blocks/index.ts';
import type { ResolvedComponent } from '../../core/block.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { recoveryLine, retiredAddresses, traceRecovery } from '../../golden-model/hart/recovery.ts';
import { generateProgramAndStream } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { decodeNtrace } from '../../golden-model/ntrace/decoder.ts';
import { encodeNtrace } from '../../golden-model/ntrace/encoder.ts';
import { encodeNtraceStream } from '../../golden-model/ntrace/output.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { traced } from '../../golden-model/ntrace/test-fixtures/roundtrip-cases.ts';
import { shippedComponents } from '../../ipxact/load.ts';

const COMPONENTS = shippedComponents('ntrace');
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

function stimulus(c: NtraceConfig, seed: number, knobs: Partial<StimulusKnobs>) {
  // A call counter checks no return address: exact only for programs whose returns go back to
  // their calls, so no co-routine swaps for a component with one.
  const swaps = c.implicitReturn === 'counter' ? { w_swap: 0 } : {};
  return generateProgramAndStream({ ...defaultKnobs(), xlen: c.xlen, ...swaps, ...knobs }, seed, 20_000).stream;
}

describe('every shipped N-Trace component round-trips through the independent decoder', () => {
  it('there are shipped N-Trace components', () => {
    expect(COMPONENTS.length).toBeGreaterThan(0);
  });

  it.each(COMPONENTS)('%s: seeds 1-8, every retired address back in order (no halts, resets or trace-off)', (component) => {
    const c = (resolveComponent(component, [], { command: 'test' }) as ResolvedComponent<NtraceConfig>).config;
    for (const seed of SEEDS) {
      const stream = stimulus(c, seed, { halt_rate: 0, reset_rate: 0, trace_off_rate: 0 });
      const { bytes } = encodeNtrace(stream.records, c, { messages: false });
      const got = decodeNtrace(bytes, stream.image, c).flatMap((it) => (it.kind === 'pc' ? [it.address] : []));
      const want = retiredAddresses(stream.records, stream.image);
      const first = got.findIndex((a, i) => a !== want[i]);
      expect(first === -1 && got.length === want.length, `${component} seed ${seed}: first difference at instruction ${first} of ${want.length} (decoded ${got.length})`).toBe(true);
    }
  });

  it.each(COMPONENTS)('%s: seeds 1-8 with events, through the output FIFO at back-pressure 0.5: no wrong address', (component) => {
    const c = (resolveComponent(component, [], { command: 'test' }) as ResolvedComponent<NtraceConfig>).config;
    for (const seed of SEEDS) {
      const stream = stimulus(c, seed, { halt_rate: 0.002, reset_rate: 0.001, trace_off_rate: 0.002, trace_on_rate: 0.02 });
      const out = encodeNtraceStream(stream.records, c, { messages: false, ready: (cycle) => !cycleChance(seed, cycle, 0.5) });
      const r = traceRecovery(decodeNtrace(out.bytes, stream.image, c), retiredAddresses(stream.records, stream.image, traced));
      expect(r.wrongRun, `${component} seed ${seed}: ${recoveryLine(r)}`).toBeUndefined();
      expect(r.recovered, `${component} seed ${seed}: ${recoveryLine(r)}`).toBeGreaterThan(0);
    }
  });
});
