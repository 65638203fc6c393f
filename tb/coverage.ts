/**
 * Collecting functional coverage in a run (regress, fuzz, cosim): each case's hits from its block's
 * coverage model (core/block.ts), added to the group of its configuration. Generic: names no block;
 * a block without a coverage model contributes nothing.
 */
import type { CaseSpec, ResolvedComponent } from '../core/block.ts';
import { addCase, type Coverage, type CoverageSpace, emptyCoverage, mergeCoverage } from '../core/coverage.ts';

export class CoverageCollector {
  private readonly cov: Coverage = emptyCoverage();
  private readonly spaces = new Map<string, CoverageSpace>();
  /** Seconds spent collecting (the model run again with its observer, and the bookkeeping). */
  seconds = 0;

  /** Adds the case's hits; false when its block has no coverage model. */
  add(r: ResolvedComponent, spec: CaseSpec): boolean {
    const model = r.block.coverage;
    if (model === undefined) return false;
    const started = performance.now();
    const key = JSON.stringify([r.block.name, spec.component, spec.sets]);
    let space = this.spaces.get(key);
    if (space === undefined) {
      space = model.space(r);
      this.spaces.set(key, space);
    }
    addCase(this.cov, { block: r.block.name, component: spec.component, sets: spec.sets }, space, model.collect(r, spec));
    this.seconds += (performance.now() - started) / 1000;
    return true;
  }

  /** The coverage so far, its groups in the canonical order (whatever order the cases ended in). */
  result(): Coverage {
    return mergeCoverage([this.cov]);
  }
}
