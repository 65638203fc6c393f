/**
 * Collecting functional coverage in a run (regress, fuzz, cosim): each case's hits from its block's
 * coverage model (core/block.ts), added to the group of its configuration. Generic: names no block;
 * a block without a coverage model contributes nothing.
 */
import type { CaseSpec, ResolvedComponent } from '../core/block.ts';
import { addCase, type BinHits, type Coverage, type CoverageSpace, emptyCoverage, mergeCoverage } from '../core/coverage.ts';

export class CoverageCollector {
  private readonly cov: Coverage = emptyCoverage();
  private readonly spaces = new Map<string, CoverageSpace>();
  /** Seconds spent collecting (the model run again with its observer, and the bookkeeping). */
  seconds = 0;

  /** Adds the case's hits; false when its block has no coverage model. */
  add(r: ResolvedComponent, spec: CaseSpec): boolean {
    return this.addHits(r, spec) !== undefined;
  }

  /** Adds the case's hits and returns them (for a fuzzer that steers by them); undefined when its block has no coverage model. */
  addHits(r: ResolvedComponent, spec: CaseSpec): BinHits | undefined {
    const model = r.block.coverage;
    if (model === undefined) return undefined;
    const started = performance.now();
    const key = JSON.stringify([r.block.name, spec.component, spec.sets]);
    let space = this.spaces.get(key);
    if (space === undefined) {
      space = model.space(r);
      this.spaces.set(key, space);
    }
    const hits = model.collect(r, spec);
    addCase(this.cov, { block: r.block.name, component: spec.component, sets: spec.sets }, space, hits);
    this.seconds += (performance.now() - started) / 1000;
    return hits;
  }

  /** The coverage so far, its groups in the canonical order (whatever order the cases ended in). */
  result(): Coverage {
    return mergeCoverage([this.cov]);
  }
}
