/**
 * The N-Trace round trip: retired instructions -> encoder -> MSEO bytes -> decoder with the program
 * image -> the same instruction addresses. The decoder was written from the spec and ntrace.md by
 * someone who had not read the encoder, so agreement checks both. Seeds are fixed; a failure names
 * the configuration, the seed and the first wrong run.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { recoveryLine, retiredAddresses, traceRecovery } from '../hart/recovery.ts';
import { generateProgramAndStream } from '../hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../hart/stimulus/knobs.ts';
import { decodeNtrace } from './decoder.ts';
import { encodeNtrace } from './encoder.ts';
import { NTRACE_SETTINGS, ntraceConfig, validateNtraceSettings } from './settings.ts';
import { ROUND_TRIP_CASES, type RoundTripCase, traced } from './test-fixtures/roundtrip-cases.ts';

const CLEAN: Partial<StimulusKnobs> = { halt_rate: 0, reset_rate: 0, trace_off_rate: 0 };

function run(c: RoundTripCase, seed: number, knobs: Partial<StimulusKnobs>) {
  const settings = resolveSettings('test', NTRACE_SETTINGS, c.sets);
  expect(validateNtraceSettings(settings)).toEqual([]);
  const config = ntraceConfig(settings);
  const { stream } = generateProgramAndStream({ ...defaultKnobs(), ...knobs, ...c.knobs }, seed, 20_000);
  const records = c.blocks ? regroupIntoBlocks(stream.records, { retires_p: c.blocks, taken_branches_p: 2 }) : stream.records;
  const { bytes } = encodeNtrace(records, config);
  return { items: decodeNtrace(bytes, stream.image, config), stream, bytes };
}

describe('N-Trace round trip: encoder -> bytes -> independent decoder', () => {
  it.each(ROUND_TRIP_CASES)('$name: every retired address comes back, in order (seeds 1-3, no halts, resets or trace-off)', (c) => {
    for (const seed of [1, 2, 3]) {
      const { items, stream } = run(c, seed, CLEAN);
      const want = retiredAddresses(stream.records, stream.image);
      const got = items.filter((i) => i.kind === 'pc').map((i) => (i as { address: bigint }).address);
      const first = got.findIndex((a, i) => a !== want[i]);
      expect(first === -1 && got.length === want.length, `${c.name} seed ${seed}: first difference at instruction ${first} of ${want.length} (got ${got.length})`).toBe(true);
    }
  });

  it.each(ROUND_TRIP_CASES)('$name: with halts, resets and trace on/off, every decoded run is in the retired sequence', (c) => {
    for (const seed of [4, 5]) {
      const { items, stream } = run(c, seed, {});
      const r = traceRecovery(items, retiredAddresses(stream.records, stream.image, traced));
      expect(r.wrongRun, `${c.name} seed ${seed}: ${recoveryLine(r)}`).toBeUndefined();
      expect(r.recovered / r.retired, `${c.name} seed ${seed}: ${recoveryLine(r)}`).toBeGreaterThan(0.98);
    }
  });
});
