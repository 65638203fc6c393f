/**
 * Data-trace efficiency: bytes per access (te_data packets with their encapsulation header) for each
 * compression option, on the access patterns of access-patterns.ts, beside the reference flow's
 * data encoder on the same accesses (reference-size.ts). `rvtrace bench` prints the rows; the goal
 * (issue 21) is fewer bytes per access than the reference flow's address-and-data mode.
 */
import { defaultOptions, defaultParams, type EtraceConfig, type EtraceOptions } from '../config.ts';
import { encodeStream } from '../output.ts';
import { MSG_TYPE, splitStream } from '../packet/encapsulate.ts';
import { emptyRecord, type RetirementRecord } from '../../hart/records.ts';
import type { DataTrace } from '../../hart/data-records.ts';
import { ACCESS_PATTERNS, accessPattern, type AccessPattern } from './access-patterns.ts';
import { defaultDataParams } from './params.ts';
import { referenceFlowBytes, type ReferenceSizeOptions } from './reference-size.ts';

export interface DataEfficiencyRow {
  what: string;
  /** Mean bytes per access over the patterns. */
  bytesPerAccess: number;
  /** Per pattern, for the detail column. */
  byPattern: Record<AccessPattern, number>;
}

const MODES: { name: string; options: Partial<EtraceOptions> }[] = [
  { name: 'none (DataCompress 0)', options: { DataCompress: 0 } },
  { name: 'XOR (DataCompress 1)', options: { DataCompress: 1 } },
  { name: 'differential (DataCompress 2)', options: { DataCompress: 2 } },
  { name: 'XOR or differential (DataCompress 3)', options: { DataCompress: 3 } },
  { name: 'noData, DataCompress 3', options: { DataCompress: 3, noData: true } },
  { name: 'noAddress, DataCompress 3', options: { DataCompress: 3, noAddress: true } },
];

const REFERENCE: { name: string; o: Partial<ReferenceSizeOptions> }[] = [
  { name: 'reference flow, address and data', o: {} },
  { name: 'reference flow, full address and data', o: { fullAddress: true, fullData: true } },
  { name: 'reference flow, no-data', o: { noData: true } },
  { name: 'reference flow, no-address', o: { noAddress: true } },
];

/**
 * RV64, 64-bit data, unified signalling, atomics and CSRs, 2.0 layout. The instruction trace
 * synchronises every 2^13 cycles (one record per access), the order of a real program's resync
 * interval, so the per-size history restarts now and then.
 */
function config(options: Partial<EtraceOptions>): EtraceConfig {
  return {
    params: { ...defaultParams('2.0'), iaddress_width_p: 64, dataTrace: defaultDataParams(), dataTraceSupport: true },
    options: { ...defaultOptions(), ResyncMode: 2, ResyncMax: 9, ...options },
  };
}

function dataBytes(bytes: Uint8Array, c: EtraceConfig): number {
  let total = 0;
  for (const sp of splitStream(bytes, c.params)) if (sp.msgType === MSG_TYPE.data) total += sp.payload.length + (sp.payloadOffset - sp.offset);
  return total;
}

export function dataEfficiency(accessesPerPattern: number, seed: number): { ours: DataEfficiencyRow[]; reference: DataEfficiencyRow[] } {
  const traces = ACCESS_PATTERNS.map((p) => [p, accessPattern(p, accessesPerPattern, seed)] as const);
  const records: RetirementRecord[] = Array.from({ length: accessesPerPattern }, (_, i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x80000000n + 4n * BigInt(i) }));
  const row = (what: string, measure: (t: (typeof traces)[number][1]) => number): DataEfficiencyRow => {
    const byPattern = Object.fromEntries(traces.map(([p, t]) => [p, measure(t) / t.accesses.length])) as Record<AccessPattern, number>;
    const values = Object.values(byPattern);
    return { what, bytesPerAccess: values.reduce((a, b) => a + b, 0) / values.length, byPattern };
  };
  const ours = MODES.map((m) => {
    const c = config(m.options);
    return row(m.name, (t) => dataBytes(encodeStream(records, c, { data: t, keepPackets: false }).bytes, c));
  });
  const reference = REFERENCE.map((m) =>
    row(m.name, (t) => referenceFlowBytes(t.accesses, { dataWidth: 64, daddressWidth: 64, noData: false, noAddress: false, fullAddress: false, fullData: false, ...m.o }).reduce((a, b) => a + b, 0)),
  );
  return { ours, reference };
}

/**
 * The same modes on real programs: each workload's retirement stream with its data accesses (QEMU,
 * `trace-elf --data`), encoded whole, bytes per access by workload; and the reference flow's on
 * the same accesses.
 */
export function workloadDataEfficiency(streams: readonly { name: string; records: readonly RetirementRecord[]; data: DataTrace }[]): { ours: WorkloadDataRow[]; reference: WorkloadDataRow[] } {
  const row = (what: string, measure: (s: (typeof streams)[number]) => number): WorkloadDataRow => {
    const byWorkload = Object.fromEntries(streams.map((s) => [s.name, measure(s) / Math.max(1, s.data.accesses.length)]));
    const values = Object.values(byWorkload);
    return { what, bytesPerAccess: values.reduce((a, b) => a + b, 0) / Math.max(1, values.length), byWorkload };
  };
  const ours = MODES.map((m) => {
    const c = config(m.options);
    return row(m.name, (s) => dataBytes(encodeStream(s.records, c, { data: s.data, keepPackets: false }).bytes, c));
  });
  const reference = REFERENCE.map((m) =>
    row(m.name, (s) => referenceFlowBytes(s.data.accesses, { dataWidth: 64, daddressWidth: 64, noData: false, noAddress: false, fullAddress: false, fullData: false, ...m.o }).reduce((a, b) => a + b, 0)),
  );
  return { ours, reference };
}

export interface WorkloadDataRow {
  what: string;
  /** Mean over the workloads of their bytes per access. */
  bytesPerAccess: number;
  byWorkload: Record<string, number>;
}
