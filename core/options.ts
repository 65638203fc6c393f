/**
 * Option values shared by the commands of the CLI and of the blocks: counts, probabilities, and the
 * stimulus knobs (every knob of the random program generator is a setting; `--knob NAME=VALUE`).
 * Each bad value is a one-line error naming the option and what was expected.
 */
import { RvError } from '../golden-model/common/errors.ts';
import { resolveSettings, type SettingSpec, type Settings } from '../golden-model/common/settings.ts';
import { defaultKnobs, KNOB_HELP, PLACEMENTS, type StimulusKnobs } from '../golden-model/hart/stimulus/knobs.ts';

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
    else if (name === 'placement') specs.push({ name, kind: 'choice', choices: [...PLACEMENTS], default: value as string, help });
    else if (name === 'long_stall_cycles') specs.push({ name, kind: 'int', default: value as number, help, min: 1, max: 2_000_000 });
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

/** The stimulus knobs a case can change (the block shape comes from the component). */
export const COSIM_KNOBS = knobSettings().filter((s) => s.name !== 'retires_p' && s.name !== 'taken_branches_p' && s.name !== 'xlen');

/** Parses `--knob NAME=VALUE` items into the knobs that differ from the defaults. */
export function parseKnobs(items: readonly string[]): Partial<StimulusKnobs> {
  if (items.length === 0) return {};
  let all: Settings;
  try {
    all = resolveSettings('cosim', COSIM_KNOBS, items);
  } catch (e) {
    // The settings parser speaks of --set and of a command; a knob is given with --knob.
    if (!(e instanceof RvError)) throw e;
    throw new RvError(e.code, e.message.replace(/^--set /, '--knob ').replace(/'cosim' has no setting of that name/, 'no stimulus knob of that name'), e.location, e.status);
  }
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


/** Collects a repeatable option's values (commander's reducer). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
