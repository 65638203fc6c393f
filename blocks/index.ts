/**
 * The blocks of this rvtrace and the one way from a `--component` argument to a configuration:
 * `resolveComponent` reads, schema-validates and checks the component once (the block comes from its
 * <rvtrace:block> element), applies `--set`, and returns the block, identity, provenance and typed
 * configuration. Everything downstream works on that value and reads no XML or file again.
 */
import type { Block, ResolvedComponent } from '../core/block.ts';
import { RvError } from '../golden-model/common/errors.ts';
import { resolveSettings, type SettingSpec, type Settings } from '../golden-model/common/settings.ts';
import { allShippedComponents, loadComponent, shippedComponents, type LoadedComponent } from '../ipxact/load.ts';
import * as registry from './registry.ts';

/** Every registered block, by name. */
export const BLOCKS: readonly Block[] = Object.values(registry) as Block[];

/** The blocks whose components encode, decode and dump take: those with a trace codec. */
export const CODEC_BLOCKS: readonly string[] = BLOCKS.filter((b) => b.codec !== undefined).map((b) => b.name);

export function blockNamed(name: string): Block | undefined {
  return BLOCKS.find((b) => b.name === name);
}

export interface ResolveOptions {
  /** The command, for messages about --set ("'cosim' has no setting of that name"). */
  readonly command?: string;
  /** Folder with ieee-1685-2014/ and ieee-1685-2022/ schemas (default: ../shared/ipxact-schema). */
  readonly schemaDir?: string;
  /** The blocks the caller takes; a component of another block is a one-line error. */
  readonly blocks?: readonly string[];
}

/** The component as a banner names it: the shipped name, or the file's base name (no path). */
function label(component: string): string {
  return component.split(/[\\/]/).pop() ?? component;
}

const loaded = new Map<string, LoadedComponent>();
const resolved = new Map<string, ResolvedComponent>();

/** Reads and checks a component once per process (the same file and schema folder). */
function load(component: string, schemaDir: string | undefined): LoadedComponent {
  const key = JSON.stringify([component, schemaDir ?? null]);
  let l = loaded.get(key);
  if (l === undefined) {
    const lookup = (name: string) => {
      const b = blockNamed(name);
      return b && { specs: b.settings, validate: (s: Settings) => b.validate(s) };
    };
    l = loadComponent(component, [], { ...(schemaDir !== undefined ? { schemaDir } : {}), blocks: { lookup, names: BLOCKS.map((b) => b.name) } });
    loaded.set(key, l);
  }
  return l;
}

/** What a list of blocks is called in a message: "E-Trace encoder or CTR unit". */
function titles(names: readonly string[]): string {
  const t = names.map((n) => blockNamed(n)?.title ?? n);
  return t.length <= 1 ? (t[0] ?? '') : `${t.slice(0, -1).join(', ')} or ${t[t.length - 1]}`;
}

/**
 * The component with its `--set` overrides, validated: every problem of the component (with its
 * line) or of the overrides is reported at once, as one RvError.
 */
export function resolveComponent(component: string, sets: readonly string[] = [], options: ResolveOptions = {}): ResolvedComponent {
  const l = load(component, options.schemaDir);
  const block = blockNamed(l.block)!;
  if (options.blocks !== undefined && !options.blocks.includes(block.name)) {
    throw new RvError('bad-option', `--component ${component}: a component of the ${block.title}; ${options.command ?? 'this command'} takes a component of the ${titles(options.blocks)}`);
  }
  const key = JSON.stringify([component, sets, options.schemaDir ?? null]);
  const known = resolved.get(key);
  if (known !== undefined) return known;
  const settings = resolveSettings(options.command ?? 'rvtrace', block.settings, sets, l.settings);
  if (sets.length > 0) {
    const errors = block.validate(settings);
    if (errors.length > 0) {
      throw new RvError('invalid-component', `component ${component} with these settings is not valid:\n  ${errors.map((e) => e.oneLine()).join('\n  ')}`);
    }
  }
  const r: ResolvedComponent = {
    block,
    component,
    file: l.file,
    vlnv: l.vlnv,
    description: l.description,
    provenance: { component: label(component), inputHash: l.sha256, sets: [...sets] },
    settings,
    config: block.config(settings),
  };
  resolved.set(key, r);
  return r;
}

/**
 * `resolveComponent` for a whole run (regress, fuzz): a component and `--set` list are read and
 * checked once per process however many cases use them.
 */
export function resolver(command: string, schemaDir?: string): (component: string, sets: readonly string[]) => ResolvedComponent {
  return (component, sets) => resolveComponent(component, sets, { command, ...(schemaDir !== undefined ? { schemaDir } : {}) });
}

/** The shipped components of the given blocks (default: all), block by block. */
export function shippedOf(blocks?: readonly string[]): string[] {
  return blocks === undefined ? allShippedComponents() : blocks.flatMap((b) => shippedComponents(b));
}

/** The settings of the given blocks (default: all), each name once (for --help and a first check of --set). */
export function blockSettings(blocks?: readonly string[]): SettingSpec[] {
  const seen = new Set<string>();
  const out: SettingSpec[] = [];
  for (const b of BLOCKS) {
    if (blocks !== undefined && !blocks.includes(b.name)) continue;
    for (const s of b.settings) {
      if (seen.has(s.name)) continue;
      seen.add(s.name);
      out.push(s);
    }
  }
  return out;
}
