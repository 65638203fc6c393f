/**
 * For tests: a component of a known block, resolved as a command resolves it (the block checked), with
 * its typed configuration.
 */
import type { ResolvedComponent } from '../core/block.ts';
import { RvError } from '../golden-model/common/errors.ts';
import type { EtraceConfig } from '../golden-model/etrace/config.ts';
import { resolveComponent } from './index.ts';

export function resolvedOf<C>(block: string, component: string, sets: readonly string[] = []): ResolvedComponent<C> {
  const r = resolveComponent(component, sets, { command: 'test', blocks: [block] });
  if (r.block.name !== block) throw new RvError('bad-option', `${component} is not a ${block} component`);
  return r as ResolvedComponent<C>;
}

/** The typed E-Trace configuration of a component with `--set` overrides (validated). */
export function etraceConfigOf(component: string, sets: readonly string[] = []): EtraceConfig {
  return resolvedOf<EtraceConfig>('etrace', component, sets).config;
}
