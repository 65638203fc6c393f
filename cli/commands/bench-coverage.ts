/**
 * What functional coverage costs, for `rvtrace bench`: for each block with a coverage model, one
 * case of its first shipped component collected (the model run with its observer, and the bins
 * counted), best of three, beside the same model run without the observer when the block gives
 * one (`baseline`). Generic: asks the registry.
 */
import { BLOCKS, resolveComponent } from '../../blocks/index.ts';
import type { CaseSpec } from '../../core/block.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { bestSeconds } from '../../core/best-time.ts';

export interface CoverageBenchRow {
  readonly what: string;
  readonly instructions: number;
  readonly seconds: number;
  readonly detail: string;
}


export function coverageBenchRows(count: number, seed: number, progress: (what: string) => void = () => {}): CoverageBenchRow[] {
  const rows: CoverageBenchRow[] = [];
  for (const block of BLOCKS) {
    const model = block.coverage;
    const component = shippedComponents(block.name)[0];
    if (model === undefined || component === undefined) continue;
    progress(`functional coverage: ${component}`);
    const r = resolveComponent(component, [], { command: 'bench' });
    const spec: CaseSpec = { component, sets: [], seed, count, backpressure: block.backpressure ? 0.5 : 0 };
    let hits: Record<string, number> = {};
    const t = bestSeconds(() => {
      hits = model.collect(r, spec);
    }, 3);
    const bins = model.space(r).bins.length;
    const hit = Object.values(hits).filter((n) => n > 0).length;
    let detail = `${hit} of ${bins} bins hit, back-pressure ${spec.backpressure}`;
    if (model.baseline) {
      const tb = bestSeconds(() => model.baseline!(r, spec), 3);
      detail += `; the model alone ${tb.toFixed(3)} s, with observer and bins ${t.toFixed(3)} s (+${Math.round((100 * (t - tb)) / tb)}%)`;
    }
    rows.push({ what: `functional coverage (${component})`, instructions: count, seconds: t, detail });
  }
  return rows;
}
