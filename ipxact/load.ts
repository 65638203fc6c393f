/**
 * `--component NAME|FILE`: finds a component description and returns its settings, checked against
 * the block's setting specs. A bare name is a shipped component in ipxact/components/.
 *
 * Until the IP-XACT reader lands, components are JSON files (the stopgap issue 3 allows):
 *   { "component": "etrace", "description": "...", "settings": { "iaddress_width_p": 64, ... } }
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RvError } from '../golden-model/common/errors.ts';
import { parseValue, type SettingSpec, type Settings } from '../golden-model/common/settings.ts';

export const COMPONENTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'components');

export interface LoadedComponent {
  name: string;
  file: string;
  description: string;
  settings: Settings;
}

/** The file of a shipped component name, or the path itself. */
export function componentFile(nameOrPath: string): string {
  const isName = /^[A-Za-z0-9_.-]+$/.test(nameOrPath);
  const shipped = join(COMPONENTS_DIR, `${nameOrPath}.json`);
  if (isName && existsSync(shipped)) return shipped;
  if (existsSync(nameOrPath)) return nameOrPath;
  if (isName && !/\.(json|xml)$/i.test(nameOrPath)) {
    throw new RvError('bad-option', `--component ${nameOrPath}: no shipped component of that name (shipped: ${shippedComponents().join(', ')})`);
  }
  return nameOrPath;
}

export function shippedComponents(): string[] {
  return ['etrace', 'etrace-rv32-mcu', 'etrace-rv64-full', 'etrace-2.0'].filter((n) => existsSync(join(COMPONENTS_DIR, `${n}.json`)));
}

/** Line of the first occurrence of `"key"` in a JSON text (for error locations). */
function lineOf(text: string, key: string): number | undefined {
  const i = text.indexOf(`"${key}"`);
  return i < 0 ? undefined : text.slice(0, i).split('\n').length;
}

export function loadComponent(nameOrPath: string, specs: readonly SettingSpec[]): LoadedComponent {
  const file = componentFile(nameOrPath);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new RvError('io', 'cannot read the component: no such file', { file });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new RvError('bad-file', `not valid JSON: ${(e as Error).message}`, { file });
  }
  const obj = doc as { component?: unknown; description?: unknown; settings?: unknown };
  if (typeof obj !== 'object' || obj === null || typeof obj.settings !== 'object' || obj.settings === null) {
    throw new RvError('bad-file', 'expected an object with "component" and "settings"', { file, line: 1 });
  }
  const settings: Settings = {};
  for (const [name, value] of Object.entries(obj.settings as Record<string, unknown>)) {
    const location = { file, line: lineOf(text, name) };
    const spec = specs.find((s) => s.name === name);
    if (!spec) {
      throw new RvError('invalid-component', `unknown setting "${name}" (known: ${specs.filter((s) => !s.hidden).map((s) => s.name).join(', ')})`, location);
    }
    if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') {
      throw new RvError('invalid-component', `setting "${name}": expected a number, string or boolean`, location);
    }
    settings[name] = parseValue(spec, String(value), { prefix: `setting "${name}" = ${JSON.stringify(value)}`, location });
  }
  return {
    name: typeof obj.component === 'string' ? obj.component : nameOrPath,
    file,
    description: typeof obj.description === 'string' ? obj.description : '',
    settings,
  };
}
