/**
 * Issue 7's check: every workload, traced through QEMU, round-trips through the E-Trace model for
 * every mode of the efficiency benchmark: encoding the stream and decoding the packets with the
 * ELF's image gives exactly the addresses QEMU executed and retired (scanned from its log
 * independently of the stream's importer). Issue 19's: the same for the N-Trace encoder in each of
 * its efficiency modes, decoded by the independent N-Trace decoder.
 */
import { describe, expect, it } from 'vitest';
import { EFFICIENCY_LAYOUTS, EFFICIENCY_MODES, efficiencyConfig } from '../golden-model/etrace/efficiency.ts';
import { decodeNtrace } from '../golden-model/ntrace/decoder.ts';
import { NTRACE_EFFICIENCY_MODES, ntraceEfficiencyConfig } from '../golden-model/ntrace/efficiency.ts';
import { encodeNtrace } from '../golden-model/ntrace/encoder.ts';
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
    for (const mode of NTRACE_EFFICIENCY_MODES) {
      const config = ntraceEfficiencyConfig(traced.stream.xlen, mode);
      const { bytes } = encodeNtrace(traced.stream.records, config, { messages: false });
      const items = decodeNtrace(bytes, traced.stream.image, config);
      // The trace ends with the end of the program (ProgTraceCorrelation, trace disabled): a gap last.
      const gaps = items.slice(0, -1).filter((it) => it.kind === 'gap');
      expect(gaps, `N-Trace ${mode.name}`).toEqual([]);
      const got = items.flatMap((it) => (it.kind === 'pc' ? [it.address] : []));
      const first = got.findIndex((a, i) => a !== traced.retired![i]);
      expect(first, `N-Trace ${mode.name}: first wrong address at instruction ${first}`).toBe(-1);
      expect(got.length, `N-Trace ${mode.name}`).toBe(traced.retired!.length);
    }
  }, 120_000);
});
