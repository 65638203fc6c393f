/**
 * The bench's data-trace efficiency on workloads (workloadDataEfficiency): bytes per access by
 * workload and their mean, for streams whose sizes are counted here by hand.
 */
import { describe, expect, it } from 'vitest';
import type { DataAccess } from '../../hart/data-records.ts';
import { emptyRecord, type RetirementRecord } from '../../hart/records.ts';
import { workloadDataEfficiency } from './efficiency.ts';

/** n records of one straight-line instruction each, a 64-bit store of `value` to `addr` on each. */
function stream(n: number, value: (i: number) => bigint) {
  const records: RetirementRecord[] = Array.from({ length: n }, (_, i) => ({ ...emptyRecord(), iretire: 2, iaddr: 0x80000000n + 4n * BigInt(i) }));
  const accesses: DataAccess[] = records.map((_r, i) => ({ at: i, dtype: 1, daddr: 0x80100000n, dsize: 3, data: value(i), lrid: 0, iaddrLsbs: 0, dblock: 0 }));
  return { records, data: { accesses, responses: [] } };
}

describe('data-trace efficiency on workloads', () => {
  const same = { name: 'same', ...stream(200, () => 0x1234_5678_9abc_def0n) };
  const walk = { name: 'walk', ...stream(200, (i) => BigInt(i) * 0x0101_0101_0101_0101n) };
  const r = workloadDataEfficiency([same, walk]);
  const row = (what: string) => r.ours.find((x) => x.what.startsWith(what))!;

  it('gives each workload its bytes per access and their mean', () => {
    for (const x of [...r.ours, ...r.reference]) {
      expect(Object.keys(x.byWorkload)).toEqual(['same', 'walk']);
      expect(x.bytesPerAccess).toBeCloseTo((x.byWorkload.same! + x.byWorkload.walk!) / 2, 10);
    }
  });

  it('a repeated store compresses to a few bytes; without compression every store carries its full 8-byte value', () => {
    // Repeated value at a repeated address: header, format, size, diff, data_len and a zero value
    // and address difference fit in 2-3 bytes; DataCompress 0 sends the 8 value bytes and a full address.
    expect(row('XOR or differential').byWorkload.same!).toBeLessThan(3.1);
    expect(row('none').byWorkload.same!).toBeGreaterThan(9);
    expect(row('XOR or differential').byWorkload.walk!).toBeLessThan(row('none').byWorkload.walk!);
  });
});
