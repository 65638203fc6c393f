/**
 * `rvtrace stimulus`: a random program (real encodings), executed for `count` instructions, as a
 * retirement stream with the program image the decoder needs. Same knobs and seed, same stream.
 */
import { Rng } from '../../common/rng.ts';
import { ProgramImage } from '../image.ts';
import type { RetirementRecord } from '../records.ts';
import type { RetirementStream } from '../stream.ts';
import { Executor } from './execute.ts';
import type { StimulusKnobs } from './knobs.ts';
import { buildProgram, type ProgramLayout } from './program.ts';

export function generateStimulus(knobs: StimulusKnobs, seed: number, count: number): RetirementStream {
  return generateProgramAndStream(knobs, seed, count).stream;
}

/** The stream and the program it executes (labels, trap handlers), for tests that need both. */
export function generateProgramAndStream(knobs: StimulusKnobs, seed: number, count: number): { stream: RetirementStream; program: ProgramLayout } {
  // Separate generators for the program's shape and for its execution, so changing a run-time
  // rate does not change the program.
  const program = buildProgram(knobs, new Rng(seed));
  const records = new Executor(program, knobs, new Rng(seed ^ 0x5bd1e995)).run(count);
  const image = new ProgramImage(program.sections.map((s) => ({ base: s.base, bytes: s.bytes })));
  return { stream: { xlen: knobs.xlen, retiresPerCycle: 1, image, records }, program };
}

/** A generated stream whose records are made on demand, in chunks (see `generateStimulusChunks`). */
export interface ChunkedStimulus {
  xlen: RetirementStream['xlen'];
  image: ProgramImage;
  program: ProgramLayout;
  /**
   * The records of `generateStimulus` for the same knobs, seed and count, in chunks of about
   * `chunkRecords`; each call executes the program again from the start (same records).
   */
  chunks(): Generator<RetirementRecord[]>;
}

/**
 * The stimulus without holding it: a consumer that uses each chunk and drops it (a co-simulation
 * writes it as frames and pushes it into the model) keeps memory independent of `count`.
 */
export function generateStimulusChunks(knobs: StimulusKnobs, seed: number, count: number, chunkRecords = 1 << 14): ChunkedStimulus {
  const program = buildProgram(knobs, new Rng(seed));
  const image = new ProgramImage(program.sections.map((s) => ({ base: s.base, bytes: s.bytes })));
  return {
    xlen: knobs.xlen,
    image,
    program,
    chunks: () => new Executor(program, knobs, new Rng(seed ^ 0x5bd1e995)).chunks(count, chunkRecords),
  };
}
