import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import { regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, KNOB_HELP, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import type { CommandDefinition } from '../main.ts';
import type { SettingSpec, Settings } from '../../golden-model/common/settings.ts';
import { outputFormat, writeStream } from '../stream-io.ts';

interface Options {
  seed: string;
  count: string;
  out: string;
  format?: string;
}

/** Every knob is a setting; ranges keep the generator in the space it was tested on. */
export function knobSettings(): SettingSpec[] {
  const d = defaultKnobs();
  const specs: SettingSpec[] = [];
  for (const [name, value] of Object.entries(d) as [keyof StimulusKnobs, StimulusKnobs[keyof StimulusKnobs]][]) {
    const help = KNOB_HELP[name];
    if (name === 'xlen') specs.push({ name, kind: 'choice', choices: ['32', '64'], default: String(value), help });
    else if (name === 'privileges') specs.push({ name, kind: 'choice', choices: ['MSU', 'MU', 'M'], default: value as string, help });
    else if (typeof value === 'boolean') specs.push({ name, kind: 'bool', default: value, help });
    else if (typeof value === 'bigint') specs.push({ name, kind: 'bigint', default: value, help });
    else if (name.endsWith('_rate') || name === 'loop_continue') specs.push({ name, kind: 'number', default: value as number, help, min: 0, max: name === 'loop_continue' ? 0.99 : 1 });
    else if (name === 'functions') specs.push({ name, kind: 'int', default: value as number, help, min: 1, max: 1000 });
    else if (name === 'max_recursion') specs.push({ name, kind: 'int', default: value as number, help, min: 0, max: 64 });
    else specs.push({ name, kind: 'number', default: value as number, help, min: 0, max: 1000 });
  }
  specs.push(
    { name: 'retires_p', kind: 'int', default: 1, min: 1, max: 64, help: 'instructions retired per cycle (>1 regroups into blocks)' },
    { name: 'taken_branches_p', kind: 'int', default: 1, min: 1, max: 16, help: 'signal groups (blocks) per cycle' },
  );
  return specs;
}

export function knobsFrom(settings: Settings): StimulusKnobs {
  const k = defaultKnobs() as unknown as Record<string, unknown>;
  for (const name of Object.keys(k)) k[name] = settings[name];
  const knobs = k as unknown as StimulusKnobs;
  knobs.xlen = Number(settings.xlen) as 32 | 64;
  return knobs;
}

export function parseCount(text: string, what: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > 2 ** 31) {
    throw new RvError('bad-option', `${what} ${text}: expected an integer from ${min} to 2^31`);
  }
  return Number(text);
}

export const stimulusCommand: CommandDefinition<Options> = {
  name: 'stimulus',
  summary: 'generate a random program and its retirement stream (with the program image)',
  settings: knobSettings(),
  details: [
    'Example:',
    '  rvtrace stimulus --seed 7 --count 100000 --out a.bin',
    '  rvtrace stimulus --seed 7 --count 1000 --out a.txt --set xlen=32 --set interrupt_rate=0.01',
    'The same seed and settings give the same bytes. See docs/formats.md for the file formats.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--seed <S>', 'random seed (integer)')
      .requiredOption('--count <N>', 'instructions to retire')
      .requiredOption('--out <FILE>', 'output file (.txt: text format, else binary)')
      .option('--format <bin|text>', 'force the output format'),
  run(_args, o, settings) {
    const seed = parseCount(o.seed, '--seed', 0);
    const count = parseCount(o.count, '--count', 1);
    const format = outputFormat(o.out, o.format);
    const started = performance.now();
    const stream = generateStimulus(knobsFrom(settings), seed, count);
    const retires = settings.retires_p as number;
    const groups = settings.taken_branches_p as number;
    if (retires > 1 || groups > 1) {
      stream.records = regroupIntoBlocks(stream.records, { retires_p: retires, taken_branches_p: groups });
      stream.retiresPerCycle = retires;
    }
    writeStream(o.out, stream, format);
    const ms = performance.now() - started;
    process.stderr.write(
      `wrote ${o.out} (${format}): ${count} instructions, ${stream.records.length} records, ` +
        `${stream.image.size}-byte image, ${(ms / 1000).toFixed(2)} s\n`,
    );
    return 0;
  },
};
