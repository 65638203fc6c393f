/**
 * `--set NAME=VALUE`: every command declares the settings it understands (component parameters
 * and run-time options), each with a kind, a default and a help line; `--set` overrides one for
 * one run. Unknown names and bad values are errors that list what is accepted.
 */
import { type Location, RvError } from './errors.ts';

export type SettingValue = number | boolean | bigint | string;

export interface SettingSpec {
  name: string;
  kind: 'int' | 'number' | 'bool' | 'bigint' | 'choice' | 'string';
  default: SettingValue;
  help: string;
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** Accepted but not listed in --help (families such as filter<N>.<field>). */
  hidden?: boolean;
}

export type Settings = Record<string, SettingValue>;

/** Collects repeated `--set` values (commander's reducer). */
export function collectSet(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses one value for `spec`; `where` prefixes the message (default `--set NAME=VALUE`). */
export function parseValue(spec: SettingSpec, text: string, where?: { prefix: string; location?: Location }): SettingValue {
  const bad = (expected: string): never => {
    const prefix = where?.prefix ?? `--set ${spec.name}=${text}`;
    throw new RvError('bad-option', `${prefix}: expected ${expected}`, where?.location ?? {});
  };
  switch (spec.kind) {
    case 'bool':
      if (/^(1|true|yes|on)$/i.test(text)) return true;
      if (/^(0|false|no|off)$/i.test(text)) return false;
      return bad('a boolean (0/1, true/false)');
    case 'int': {
      if (!/^-?(\d+|0x[0-9a-f]+)$/i.test(text)) return bad('an integer');
      const v = Number(BigInt(text.startsWith('-') ? `-${text.slice(1)}` : text));
      if ((spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
        return bad(`an integer from ${spec.min ?? '-inf'} to ${spec.max ?? 'inf'}`);
      }
      return v;
    }
    case 'number': {
      const v = Number(text);
      if (text.trim() === '' || !Number.isFinite(v)) return bad('a number');
      if ((spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
        return bad(`a number from ${spec.min ?? '-inf'} to ${spec.max ?? 'inf'}`);
      }
      return v;
    }
    case 'bigint':
      if (!/^(\d+|0x[0-9a-f_]+)$/i.test(text)) return bad('a non-negative integer (decimal or 0x hex)');
      return BigInt(text.replaceAll('_', ''));
    case 'choice':
      if (!spec.choices?.includes(text)) return bad(`one of ${spec.choices?.join(', ')}`);
      return text;
    case 'string':
      // Free text (a list such as a PMU event map): the block's validation checks its syntax.
      return text;
  }
}

/**
 * Defaults, overridden by `base` (e.g. a component's values), overridden by the `--set` list;
 * `command` names the command in error messages.
 */
export function resolveSettings(command: string, specs: readonly SettingSpec[], sets: readonly string[], base: Settings = {}): Settings {
  const out: Settings = {};
  for (const s of specs) out[s.name] = s.default;
  Object.assign(out, base);
  for (const item of sets) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new RvError('bad-option', `--set ${item}: expected NAME=VALUE`);
    const name = item.slice(0, eq);
    const spec = specs.find((s) => s.name === name);
    if (!spec) {
      const known = specs.filter((s) => !s.hidden).map((s) => s.name).join(', ') || 'none';
      throw new RvError('bad-option', `--set ${name}: '${command}' has no setting of that name (known: ${known})`);
    }
    out[name] = parseValue(spec, item.slice(eq + 1));
  }
  return out;
}

/** The settings block of a command's --help. */
export function describeSettings(specs: readonly SettingSpec[]): string {
  const shown = specs.filter((s) => !s.hidden);
  if (shown.length === 0) return '';
  const width = Math.max(...shown.map((s) => s.name.length));
  const lines = shown.map((s) => {
    const def = typeof s.default === 'bigint' ? `0x${s.default.toString(16)}` : s.kind === 'string' ? `"${String(s.default)}"` : String(s.default);
    const range = s.choices ? ` (${s.choices.join('|')})` : s.min !== undefined ? ` (${s.min}..${s.max})` : '';
    return `  ${s.name.padEnd(width)}  ${s.help}${range} [default ${def}]`;
  });
  return `\nSettings (override with --set NAME=VALUE, repeatable):\n${lines.join('\n')}\n`;
}
