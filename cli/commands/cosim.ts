/**
 * `rvtrace cosim`: one co-simulation of the generated RTL of a component's block against the golden
 * model (tb/blocks.ts): for a component, a stimulus seed and length, and a back-pressure
 * probability. E-Trace: status 0 only when the two byte streams are identical; on a mismatch it
 * prints where and why (packet, byte, both decodings, the records around it). CTR: status 0 only
 * when every CSR response is identical; on a mismatch the cycle, the CSR access, both responses and
 * the model's state. Then an FST waveform of the cycles around it and the one-line command that
 * replays the case.
 */
import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import type { StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { allBlockSettings, blockOf, type CaseSpec } from '../../tb/blocks.ts';
import type { CommandDefinition } from '../main.ts';
import { type ComponentOption, withComponentOption } from '../etrace-config.ts';
import { knobSettings, parseCount } from './stimulus.ts';

interface Options extends ComponentOption {
  seed: string;
  count: string;
  backpressure: string;
  set?: string[];
  knob?: string[];
  fst: string;
  window: string;
}

/** The stimulus knobs a case can change (the block shape comes from the component). */
export const COSIM_KNOBS = knobSettings().filter((s) => s.name !== 'retires_p' && s.name !== 'taken_branches_p' && s.name !== 'xlen');

/** Parses `--knob NAME=VALUE` items into the knobs that differ from the defaults. */
export function parseKnobs(items: readonly string[]): Partial<StimulusKnobs> {
  if (items.length === 0) return {};
  const all = resolveSettings('cosim', COSIM_KNOBS, items);
  const out: Record<string, unknown> = {};
  for (const item of items) {
    const name = item.slice(0, item.indexOf('='));
    out[name] = all[name];
  }
  return out as Partial<StimulusKnobs>;
}

export function parseProbability(text: string, what: string): number {
  const p = Number(text);
  if (!(p >= 0 && p < 1)) throw new RvError('bad-option', `${what} ${text}: expected a probability from 0 to below 1`);
  return p;
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export const cosimCommand: CommandDefinition<Options> = {
  name: 'cosim',
  summary: 'co-simulate the generated RTL (Verilator) of an E-Trace or CTR component against the golden model',
  settings: allBlockSettings(),
  details: [
    'Examples:',
    '  rvtrace cosim --component etrace --seed 1 --count 100000',
    '  rvtrace cosim --component etrace-rv64-full --seed 7 --count 50000 --backpressure 0.6',
    '  rvtrace cosim --component etrace --set stallEnable=1 --knob interrupt_rate=0.01 --seed 3 --count 20000',
    '  rvtrace cosim --component ctr-1.0 --seed 2 --count 50000',
    'The block comes from the component; --set takes that block\'s settings. E-Trace compares the trace',
    'bytes; CTR compares every CSR response (read data, illegal, virtual) of a retirement stream with',
    'interleaved CSR operations and a final dump of every entry (--backpressure does not apply).',
    'The RTL is generated into .cache/rtl/ and built once per configuration (.cache/verilator/;',
    'RVTRACE_CACHE moves both). Exit status: 0 identical, 1 mismatch, 2 bad input.',
    'On a mismatch: the first differing packet and byte, both decodings, the records around it,',
    'an FST waveform of the cycles around it (--fst) and the command that replays the case.',
  ].join('\n'),
  options: (cmd: Command) =>
    withComponentOption(cmd, 'E-Trace or CTR component: a shipped name (etrace, etrace-rv32-mcu, etrace-rv64-full, etrace-2.0, ctr, ctr-rv32, ctr-1.0, ctr-small)')
      .option('--seed <S>', 'stimulus and back-pressure seed', '1')
      .option('--count <N>', 'instructions to retire', '100000')
      .option('--backpressure <P>', 'probability that the transport is not ready in a cycle', '0')
      .option('--knob <NAME=VALUE>', 'a stimulus knob (see rvtrace stimulus --help); repeatable', collect)
      .option('--fst <FILE>', 'waveform written on a mismatch', 'cosim-mismatch.fst')
      .option('--window <CYCLES>', 'cycles of waveform before the mismatch', '200'),
  async run(_args, o) {
    const block = blockOf(o.component);
    // Every problem of the component and the --set values, before anything is built.
    block.resolve('cosim', o.component, o.set ?? []);
    const spec: CaseSpec = {
      component: o.component,
      sets: o.set ?? [],
      seed: parseCount(o.seed, '--seed', 0),
      count: parseCount(o.count, '--count', 1),
      backpressure: parseProbability(o.backpressure, '--backpressure'),
      knobs: parseKnobs(o.knob ?? []),
    };
    const window = parseCount(o.window, '--window', 1);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const r = await block.runCase(spec, log);
    process.stdout.write(`${spec.component} seed ${spec.seed}: ${r.summary}: ${r.identical ? 'identical' : 'MISMATCH'}\n`);
    if (r.identical) return 0;
    process.stdout.write(`${r.mismatch}\n`);
    // The waveform: the same case again on the FST build, dumping a window around the mismatch.
    const at = r.mismatchCycle ?? 0;
    await block.waveform(spec, o.fst, Math.max(0, at - window), at + 20, log);
    process.stdout.write(`waveform of cycles ${Math.max(0, at - window)}..${at + 20}: ${o.fst}\n`);
    process.stdout.write(`replay: ${block.replayCommand({ ...spec })}\n`);
    return 1;
  },
};
