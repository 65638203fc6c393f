/**
 * InstructionCounter (what `rvtrace encode` counts while it streams) against the count of the
 * stimulus itself: a stream regrouped into blocks of several instructions has as many instructions
 * as the single-retirement stream it came from, counted in the image at the end; without the image
 * (an etrace-csv import) a block of several instructions cannot be split.
 */
import { describe, expect, it } from 'vitest';
import { regroupIntoBlocks } from './blocks.ts';
import { InstructionCounter } from './stats.ts';
import { generateStimulus } from './stimulus/generate.ts';
import { defaultKnobs } from './stimulus/knobs.ts';

describe('InstructionCounter', () => {
  const singles = generateStimulus(defaultKnobs(), 4, 3000);
  const retired = singles.records.filter((r) => r.iretire > 0).length;

  it('counts the instructions of blocks given in pieces, the blocks of several in the image', () => {
    const blocks = regroupIntoBlocks(singles.records, { retires_p: 4, taken_branches_p: 2 });
    expect(blocks.length).toBeLessThan(singles.records.length * 0.6); // most records hold several
    const counter = new InstructionCounter();
    for (let i = 0; i < blocks.length; i += 97) counter.add(blocks.slice(i, i + 97));
    expect(counter.total(singles.image)).toBe(retired);
    expect(counter.total(undefined)).toBeUndefined();
  });

  it('counts single-instruction records without an image', () => {
    const counter = new InstructionCounter();
    counter.add(singles.records);
    expect(counter.total(undefined)).toBe(retired);
  });
});
