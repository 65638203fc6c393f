/** The counter block's model: counts the cycles with en_i set, by step_p, modulo 2^width_p; clear_i clears it. */
import type { SettingSpec, Settings } from '../common/settings.ts';

export interface CounterConfig {
  readonly width: number;
  readonly step: number;
}

export const COUNTER_SETTINGS: readonly SettingSpec[] = [
  { name: 'width_p', kind: 'int', default: 8, min: 1, max: 32, help: 'bits of the count' },
  { name: 'step_p', kind: 'int', default: 1, min: 1, max: 255, help: 'added in every enabled cycle' },
];

export const counterConfig = (s: Settings): CounterConfig => ({ width: s.width_p as number, step: s.step_p as number });

export class CounterModel {
  value = 0;
  constructor(private readonly c: CounterConfig) {}

  /** One clock: returns the count the cycle shows (before the edge), then applies the inputs. */
  step(en: boolean, clear: boolean): number {
    const shown = this.value;
    if (clear) this.value = 0;
    else if (en) this.value = (this.value + this.c.step) % 2 ** this.c.width;
    return shown;
  }
}
