/**
 * The RTL on real programs: the encoder hardware of the efficiency benchmark (etrace-rv64-full
 * with the bench's structure sizes, every optional mode on) co-simulated against the model on
 * QEMU traces of the workload suite. Random stimulus rarely builds what real code does all the
 * time: `strings` and `linked` make hundreds of calls right after an implicit return (step 6b,
 * whose report is held back until the next packet or branch), `traps` a trap every few hundred
 * instructions with implicit exceptions. Once with a ready transport and once with a 32-byte FIFO
 * drained 1 cycle in 50 (trace loss while a report is held back).
 */
import { describe, expect, it } from 'vitest';
import { efficiencyParameters } from '../../golden-model/etrace/efficiency.ts';
import { workloadStream } from '../../workloads/efficiency.ts';
import { resolvedOf } from '../../blocks/testing.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { etraceCaseModel } from './case.ts';
import { cosimEtrace } from './cosim.ts';

const ALL_MODES = ['ImplicitReturn=1', 'BranchPrediction=1', 'JumpTargetCache=1', 'siJump=1', 'ImplicitExcept=1'];
const WORKLOADS = ['strings', 'linked', 'traps'];

describe('E-Trace co-simulation on QEMU traces of the workloads (all modes)', () => {
  for (const [label, extra, backpressure] of [
    ['ready transport', [], 0],
    ['32-byte FIFO, back-pressure 0.98', ['fifo_depth_p=32'], 0.98],
  ] as const) {
    it(`${label}: identical bytes on ${WORKLOADS.join(', ')}`, { timeout: 600_000 }, async () => {
      const sets = [...efficiencyParameters(64, '1.1.1'), ...ALL_MODES, ...extra];
      const r = resolvedOf<EtraceConfig>('etrace', 'etrace-rv64-full', sets);
      const c = r.config;
      const { model } = etraceCaseModel(r);
      for (const name of WORKLOADS) {
        const { records } = await workloadStream(name, 'rv64gc');
        const r = await cosimEtrace(model, c, records, { backpressure, seed: 5 });
        expect(r.mismatch?.text, name).toBeUndefined();
        expect(r.actual.length, name).toBeGreaterThan(1000);
        // The lossy run must lose trace, or it tests nothing more than the first.
        if (backpressure > 0) expect(r.expected.dropped, name).toBeGreaterThan(0);
      }
    });
  }
});
