/** The E-Trace configuration of a command: component (shipped name or file), then `--set`. */
import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import type { Settings } from '../../golden-model/common/settings.ts';
import { type EtraceConfig, validateConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_SETTINGS, etraceConfig } from '../../golden-model/etrace/settings.ts';
import { loadComponent } from '../../ipxact/load.ts';

export interface ComponentOption {
  component: string;
}

export function withComponentOption(cmd: Command): Command {
  return cmd.option('--component <NAME|FILE>', 'E-Trace component: a shipped name (etrace, etrace-rv32-mcu, etrace-rv64-full, etrace-2.0) or a file', 'etrace');
}

export const componentBase = (o: ComponentOption): Settings => loadComponent(o.component, ETRACE_SETTINGS).settings;

/** The validated configuration; every problem is reported at once. */
export function checkedConfig(settings: Settings, component: string): EtraceConfig {
  const config = etraceConfig(settings);
  const errors = validateConfig(config);
  if (errors.length > 0) {
    const lines = errors.map((e) => e.oneLine());
    throw new RvError('invalid-component', `component ${component} with these settings is not valid:\n  ${lines.join('\n  ')}`);
  }
  return config;
}
