/**
 * The chunked stimulus (generateStimulusChunks) is the whole stream cut into pieces: the same
 * records as generateStimulus, chunks of the asked size, and the same again on every pass.
 */
import { describe, expect, it } from 'vitest';
import { generateStimulus, generateStimulusChunks } from './generate.ts';
import { defaultKnobs } from './knobs.ts';

describe('generateStimulusChunks', () => {
  const knobs = { ...defaultKnobs(), interrupt_rate: 0.01, reset_rate: 0.001, halt_rate: 0.001 };
  const whole = generateStimulus(knobs, 5, 20_000);

  it('yields the records of generateStimulus in chunks of about the asked size', () => {
    const s = generateStimulusChunks(knobs, 5, 20_000, 1000);
    const chunks = [...s.chunks()];
    expect(chunks.length).toBeGreaterThan(15);
    // A chunk closes after the step that reaches the size; a step makes a few records at most
    // (a reset makes a run of them), so no chunk is much longer.
    for (const c of chunks.slice(0, -1)) expect(c.length).toBeGreaterThanOrEqual(1000);
    expect(chunks.flat()).toEqual(whole.records);
    expect(s.image).toEqual(whole.image);
    expect(s.xlen).toBe(64);
  });

  it('starts again from the first record on each pass', () => {
    const s = generateStimulusChunks(knobs, 5, 20_000, 4096);
    const first = [...s.chunks()].flat();
    const second = [...s.chunks()].flat();
    expect(second).toEqual(first);
    expect(first.length).toBe(whole.records.length);
  });
});
