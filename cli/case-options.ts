/**
 * The options that name one co-simulation case (seed, count, back-pressure, knobs), shared by the
 * commands that run or write a case (`cosim`, `vectors`), so that the same arguments name the same case.
 */
import type { Command } from 'commander';
import type { CaseSpec, ResolvedComponent } from '../core/block.ts';
import { collect, parseCount, parseKnobs, parseProbability } from '../core/options.ts';
import { RvError } from '../golden-model/common/errors.ts';

export interface CaseOptions {
  seed: string;
  count: string;
  backpressure: string;
  knob?: string[];
}

/** Adds --seed, --count (default `count`), --backpressure and --knob to `cmd`. */
export function caseOptions(cmd: Command, count: string): Command {
  return cmd
    .option('--seed <S>', 'stimulus and back-pressure seed', '1')
    .option('--count <N>', 'instructions to retire', count)
    .option('--backpressure <P>', 'probability that the transport is not ready in a cycle', '0')
    .option('--knob <NAME=VALUE>', 'a stimulus knob (see rvtrace stimulus --help); repeatable', collect);
}

/** The case the options name for component `r`; back-pressure is refused for a block without an output stream. */
export function caseSpecOf(r: ResolvedComponent, o: CaseOptions): CaseSpec {
  const spec: CaseSpec = {
    component: r.component,
    sets: r.provenance.sets,
    seed: parseCount(o.seed, '--seed', 0),
    count: parseCount(o.count, '--count', 1),
    backpressure: parseProbability(o.backpressure, '--backpressure'),
    knobs: parseKnobs(o.knob ?? []),
  };
  if (spec.backpressure > 0 && !r.block.backpressure) {
    throw new RvError('bad-option', `--backpressure ${o.backpressure}: the ${r.block.title} has no output stream to hold back`);
  }
  return spec;
}
