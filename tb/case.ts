/**
 * What every block's co-simulation case shares: the generated RTL of a hardware configuration
 * installed in the cache (one folder per content) and its Verilator model built once per hardware
 * configuration and process (a block's run-time options are programmed at each case's start, not
 * built in), and the command line that replays a case. The block supplies how its harness is built.
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

/** The setting a `--set NAME=VALUE` argument names. */
const setName = (set: string): string => set.slice(0, Math.max(0, set.indexOf('=')));

/** The `--set` arguments that are hardware settings: those that are not the block's run-time options. */
export function hardwareSets(block: Block, sets: readonly string[]): string[] {
  const names = block.runTime?.names;
  return names === undefined ? [...sets] : sets.filter((s) => !names.has(setName(s)));
}

/**
 * The hardware configuration of `r`: the same component and hardware settings, every run-time option
 * at the block's build value (Block.runTime.reset) and the run-time `--set`s left out of the
 * provenance, so its RTL (and RTL key, and Verilator build) depends on the hardware only. The
 * co-simulation programs the case's options through the register interface. A block without
 * run-time options: `r` itself. `rvtrace generate` does not use this: integrators get RTL whose
 * registers reset to the component's options.
 */
export function hardwareConfig<C>(r: ResolvedComponent<C>): ResolvedComponent<C> {
  const runTime = r.block.runTime;
  if (runTime === undefined) return r;
  const settings = { ...r.settings, ...runTime.reset };
  const sets = hardwareSets(r.block, r.provenance.sets);
  return { ...r, settings, config: r.block.config(settings), provenance: { ...r.provenance, sets } };
}

/**
 * The generated RTL of the hardware configuration of `r` (hardwareConfig, installed under
 * <cache>/rtl/<hash>) and its Verilator model, built by `build` on the first call for the hardware
 * configuration; `fst` asks for the waveform build (its own entry). While a code coverage session
 * is open (tb/code-coverage.ts) the build is the coverage build, registered with the configuration
 * it is.
 */
export function caseModel(r: ResolvedComponent, build: (paths: string[], fst: boolean) => BuiltModel, fst = false): CaseModel {
  const hw = hardwareConfig(r);
  const p = hw.provenance;
  const coverage = codeCoverageOn() && !fst;
  const memo = JSON.stringify([hw.block.name, hw.file, p.inputHash, p.sets, fst, coverage]);
  let entry = models.get(memo);
  if (entry === undefined) {
    // The RTL is generated only when its key (tb/rtl-key.ts) was not seen before.
    const { rtlDir, paths } = installedRtl(hw, () => hw.block.rtl(hw));
    entry = { model: build(paths, fst), rtlDir, paths };
    models.set(memo, entry);
  }
  // Registered on every call: a session opened after the model was first asked for knows it too.
  if (entry.model.coverage) {
    registerCoverageModel(entry.model.key, { block: hw.block.name, component: hw.component, sets: p.sets, waivers: hw.block.codeCoverageWaivers?.(hw) ?? [] });
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
