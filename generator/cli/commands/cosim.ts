/**
 * `rvtrace cosim`: one co-simulation of the generated E-Trace RTL against the golden model, for a
 * component, a stimulus seed and length, and a back-pressure probability. Status 0 only when the
 * two byte streams are identical; on a mismatch it prints where and why (packet, byte, both
 * decodings, the records around it), writes an FST waveform of the cycles around it and prints
 * the one-line command that replays the case.
 */
import type { Command } from 'commander';
import { RvError } from '../../../golden-model/common/errors.ts';
import { resolveSettings, type Settings } from '../../../golden-model/common/settings.ts';
import { ETRACE_SETTINGS } from '../../../golden-model/etrace/settings.ts';
import type { StimulusKnobs } from '../../../golden-model/hart/stimulus/knobs.ts';
import { caseConfig, caseModel, caseRecords, replayCommand, runCase, type CaseSpec } from '../../../tb/etrace-case.ts';
import { cosimEtrace } from '../../../tb/etrace-cosim.ts';
import type { CommandDefinition } from '../main.ts';
import { componentBase, type ComponentOption, withComponentOption } from '../etrace-config.ts';
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
  summary: 'co-simulate the generated E-Trace RTL (Verilator) against the golden model, byte for byte',
  settings: ETRACE_SETTINGS,
  base: componentBase,
  details: [
    'Examples:',
    '  rvtrace cosim --component etrace --seed 1 --count 100000',
    '  rvtrace cosim --component etrace-rv64-full --seed 7 --count 50000 --backpressure 0.6',
    '  rvtrace cosim --component etrace --set stallEnable=1 --knob interrupt_rate=0.01 --seed 3 --count 20000',
    'The RTL is generated into .cache/rtl/ and built once per configuration (.cache/verilator/;',
    'RVTRACE_CACHE moves both). Exit status: 0 identical, 1 mismatch, 2 bad input.',
    'On a mismatch: the first differing packet and byte, both decodings, the records around it,',
    'an FST waveform of the cycles around it (--fst) and the command that replays the case.',
  ].join('\n'),
  options: (cmd: Command) =>
    withComponentOption(cmd)
      .option('--seed <S>', 'stimulus and back-pressure seed', '1')
      .option('--count <N>', 'instructions to retire', '100000')
      .option('--backpressure <P>', 'probability that the transport is not ready in a cycle', '0')
      .option('--knob <NAME=VALUE>', 'a stimulus knob (see rvtrace stimulus --help); repeatable', collect)
      .option('--fst <FILE>', 'waveform written on a mismatch', 'cosim-mismatch.fst')
      .option('--window <CYCLES>', 'cycles of waveform before the mismatch', '200'),
  async run(_args, o, _settings: Settings) {
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
    const r = await runCase(spec, log);
    const rate = r.records / r.seconds;
    process.stdout.write(
      `${spec.component} seed ${spec.seed}: ${r.records} records, ${r.packets} packets, ${r.bytes} bytes` +
        `${r.dropped ? `, ${r.dropped} packets lost` : ''}, ${r.cycles} cycles, ${r.seconds.toFixed(2)} s (${(rate / 1e6).toFixed(2)} M records/s): ` +
        `${r.identical ? 'identical' : 'MISMATCH'}\n`,
    );
    if (r.identical) return 0;
    process.stdout.write(`${r.mismatch}\n`);
    // The waveform: the same case again on the FST build, dumping a window around the mismatch.
    const c = caseConfig(spec.component, spec.sets);
    const { model } = caseModel(spec.component, spec.sets, c, log, true);
    const at = r.mismatchCycle ?? 0;
    await cosimEtrace(model, c, caseRecords(c, spec), { seed: spec.seed, backpressure: spec.backpressure, fst: { file: o.fst, from: Math.max(0, at - window), to: at + 20 } });
    process.stdout.write(`waveform of cycles ${Math.max(0, at - window)}..${at + 20}: ${o.fst}\n`);
    process.stdout.write(`replay: ${replayCommand({ ...spec })}\n`);
    return 1;
  },
};
