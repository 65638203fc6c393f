/**
 * Issue 7's check: every workload, traced through QEMU, round-trips through the E-Trace model for
 * every mode of the efficiency benchmark: encoding the stream and decoding the packets with the
 * ELF's image gives exactly the addresses QEMU executed and retired (scanned from its log
 * independently of the stream's importer).
 */
import { describe, expect, it } from 'vitest';
import { EFFICIENCY_LAYOUTS, EFFICIENCY_MODES, efficiencyConfig } from '../golden-model/etrace/efficiency.ts';
import { buildWorkload, WORKLOAD_ARCHES, WORKLOADS } from './build.ts';
import { roundTrip, traceProgram } from './trace.ts';

const CASES = WORKLOAD_ARCHES.flatMap((arch) => WORKLOADS.map((w) => ({ arch, name: w.name })));

describe('workloads round-trip through encode and decode in every mode', () => {
  it.each(CASES)('$arch $name', async ({ arch, name }) => {
    const traced = await traceProgram(buildWorkload(name, arch), { retired: true });
    expect(traced.retired!.length).toBeGreaterThan(100_000);
    for (const layout of EFFICIENCY_LAYOUTS) {
      for (const mode of EFFICIENCY_MODES) {
        const r = roundTrip(traced.stream, efficiencyConfig(traced.stream.xlen, layout, mode), traced.retired);
        expect(r.error, `${layout} ${mode.name}`).toBeUndefined();
        expect(r.firstMismatch, `${layout} ${mode.name}`).toBeUndefined();
        expect(r.ok).toBe(true);
        expect(r.decoded).toBe(traced.retired!.length);
      }
    }
  }, 120_000);
});
