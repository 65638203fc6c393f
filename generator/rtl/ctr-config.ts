/**
 * The CTR configuration of a command: a component (shipped name or IP-XACT file) of block `ctr`,
 * then `--set` overrides, validated with every problem reported at once.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import { resolveSettings, type Settings } from '../../golden-model/common/settings.ts';
import type { CtrConfig } from '../../golden-model/ctr/config.ts';
import { CTR_SETTINGS, ctrConfig, ctrRtlParams, type CtrRtlParams, validateCtrSettings } from '../../golden-model/ctr/settings.ts';
import { loadComponent, type LoadedComponent } from '../../ipxact/load.ts';

export interface CtrSetup {
  readonly config: CtrConfig;
  readonly rtl: CtrRtlParams;
  /** Every CTR setting, resolved (defaults, the component's values, then --set). */
  readonly settings: Settings;
  readonly loaded: LoadedComponent;
}

/** The CTR component, loaded and checked (throws ComponentErrors with every problem and its line). */
export function loadCtrComponent(component: string, schemaDir?: string): LoadedComponent {
  return loadComponent(component, CTR_SETTINGS, { block: 'ctr', validate: validateCtrSettings, ...(schemaDir !== undefined ? { schemaDir } : {}) });
}

const setups = new Map<string, CtrSetup>();

/**
 * The component with the `--set` overrides of `command`, validated (memoised per process: the
 * component is read and schema-checked once).
 */
export function ctrSetup(command: string, component: string, sets: readonly string[], schemaDir?: string): CtrSetup {
  const key = JSON.stringify([component, sets, schemaDir ?? null]);
  const known = setups.get(key);
  if (known) return known;
  const loaded = loadCtrComponent(component, schemaDir);
  const settings = resolveSettings(command, CTR_SETTINGS, sets, loaded.settings);
  const errors = validateCtrSettings(settings);
  if (errors.length > 0) {
    throw new RvError('invalid-component', `component ${component} with these settings is not valid:\n  ${errors.map((e) => e.oneLine()).join('\n  ')}`);
  }
  const setup: CtrSetup = { config: ctrConfig(settings), rtl: ctrRtlParams(settings), settings, loaded };
  setups.set(key, setup);
  return setup;
}
