/** The E-Trace configuration of a command: component (shipped name or file), then `--set`. */
import type { Command } from 'commander';
import { RvError } from '../golden-model/common/errors.ts';
import type { Settings } from '../golden-model/common/settings.ts';
import type { EtraceConfig } from '../golden-model/etrace/config.ts';
import { ETRACE_SETTINGS, etraceConfig, validateEtraceSettings } from '../golden-model/etrace/settings.ts';
import { loadComponent, type LoadedComponent } from '../ipxact/load.ts';

export interface ComponentOption {
  component: string;
  /** Folder with the IP-XACT schemas (ieee-1685-2014/, ieee-1685-2022/); default ../shared/ipxact-schema. */
  schemaDir?: string;
}

/** `--component` (and `--schema-dir`); `what` names the components the command takes. */
export function withComponentOption(cmd: Command, what = 'E-Trace component: a shipped name (etrace, etrace-rv32-mcu, etrace-rv64-full, etrace-2.0)'): Command {
  return cmd
    .option('--component <NAME|FILE>', `${what} or an IP-XACT file`, 'etrace')
    .option('--schema-dir <DIR>', 'folder with the IEEE 1685-2014/2022 schemas the component is validated against (default: ../shared/ipxact-schema)');
}

/** The E-Trace component of the options, loaded and checked (every problem at once, with lines). */
export function loadEtraceComponent(o: ComponentOption): LoadedComponent {
  return loadComponent(o.component, ETRACE_SETTINGS, {
    block: 'etrace',
    validate: validateEtraceSettings,
    ...(o.schemaDir !== undefined ? { schemaDir: o.schemaDir } : {}),
  });
}

export const componentBase = (o: ComponentOption): Settings => loadEtraceComponent(o).settings;

/** The validated configuration; every problem is reported at once. */
export function checkedConfig(settings: Settings, component: string): EtraceConfig {
  const config = etraceConfig(settings);
  const errors = validateEtraceSettings(settings);
  if (errors.length > 0) {
    const lines = errors.map((e) => e.oneLine());
    throw new RvError('invalid-component', `component ${component} with these settings is not valid:\n  ${lines.join('\n  ')}`);
  }
  return config;
}
