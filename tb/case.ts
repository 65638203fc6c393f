/**
 * What every block's co-simulation case shares: the generated RTL of a configuration installed in the
 * cache (one folder per content) and its Verilator model built once per configuration and process,
 * and the command line that replays a case. The block supplies how its harness is built.
 */
import type { Block, CaseSpec, Log, ResolvedComponent } from '../core/block.ts';
import type { BuiltModel } from './build.ts';
import { codeCoverageOn, registerCoverageModel } from './code-coverage.ts';
import { installedRtl } from './rtl-key.ts';

export interface CaseModel {
  readonly model: BuiltModel;
  readonly rtlDir: string;
  /** The installed RTL files, in compilation order. */
  readonly paths: string[];
}

const models = new Map<string, CaseModel>();

/**
 * The generated RTL of `r` (installed under <cache>/rtl/<hash>) and its Verilator model, built by
 * `build` on the first call for the configuration; `fst` asks for the waveform build (its own entry).
 * While a code coverage session is open (tb/code-coverage.ts) the build is the coverage build,
 * registered with the configuration it is.
 */
export function caseModel(r: ResolvedComponent, build: (paths: string[], fst: boolean) => BuiltModel, fst = false): CaseModel {
  const p = r.provenance;
  const coverage = codeCoverageOn() && !fst;
  const memo = JSON.stringify([r.block.name, r.file, p.inputHash, p.sets, fst, coverage]);
  let entry = models.get(memo);
  if (entry === undefined) {
    // The RTL is generated only when its key (tb/rtl-key.ts) was not seen before.
    const { rtlDir, paths } = installedRtl(r, () => r.block.rtl(r));
    entry = { model: build(paths, fst), rtlDir, paths };
    models.set(memo, entry);
  }
  // Registered on every call: a session opened after the model was first asked for knows it too.
  if (entry.model.coverage) {
    registerCoverageModel(entry.model.key, { block: r.block.name, component: r.component, sets: p.sets, waivers: r.block.codeCoverageWaivers?.(r) ?? [] });
  }
  return entry;
}

/**
 * The `rvtrace cosim` command that replays a case exactly: component, settings, knobs, seed and
 * count, and the back-pressure where the block has an output stream.
 */
export function replayCommand(block: Block, spec: CaseSpec): string {
  const withBackpressure = block.backpressure;
  const sets = spec.sets.map((s) => ` --set ${s}`).join('');
  const knobs = Object.entries(spec.knobs ?? {})
    .map(([k, v]) => ` --knob ${k}=${String(v)}`)
    .join('');
  const bp = withBackpressure ? ` --backpressure ${spec.backpressure}` : '';
  return `npx rvtrace cosim --component ${spec.component}${sets}${knobs} --seed ${spec.seed} --count ${spec.count}${bp}`;
}

export type { Log };
