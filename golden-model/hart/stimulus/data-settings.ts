/**
 * The data knobs as `--set data_<knob>=VALUE` settings of `rvtrace stimulus` (prefixed so they
 * cannot collide with the program knobs), and back.
 */
import type { SettingSpec, Settings } from '../../common/settings.ts';
import { DATA_KNOB_HELP, type DataKnobs, defaultDataKnobs } from './data.ts';

const PREFIX = 'data_';

export function dataKnobSettings(): SettingSpec[] {
  const d = defaultDataKnobs();
  return (Object.keys(d) as (keyof DataKnobs)[]).map((name): SettingSpec => {
    const value = d[name];
    const base = { name: PREFIX + name, help: `(--data) ${DATA_KNOB_HELP[name]}` };
    if (name === 'signalling') return { ...base, kind: 'choice', choices: ['unified', 'split'], default: value as string };
    if (typeof value === 'bigint') return { ...base, kind: 'bigint', default: value };
    if (name === 'lrids') return { ...base, kind: 'int', default: value as number, min: 1, max: 1024 };
    if (name === 'response_window') return { ...base, kind: 'int', default: value as number, min: 0, max: 1000 };
    return { ...base, kind: 'number', default: value as number, min: 0, max: 1 };
  });
}

export function dataKnobsFrom(settings: Settings): DataKnobs {
  const k = defaultDataKnobs() as unknown as Record<string, unknown>;
  for (const name of Object.keys(k)) k[name] = settings[PREFIX + name];
  return k as unknown as DataKnobs;
}
