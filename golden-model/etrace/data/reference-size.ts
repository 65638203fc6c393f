/**
 * A size model of what the spec repository's reference data encoder (riscv-trace-spec
 * referenceFlow/scripts/data_encoder_model.py) emits for a data access: its packet is built field
 * by field as that script builds it (format always 3 bits, diff 2 bits or 1 with no-data, data_len
 * of `size` bits but always the full access width of data, the address last), sign-compressed as
 * its RawWrite does, plus its 1-byte header. Only the sizes are modelled, to compare bytes per
 * access with our encoder (`rvtrace bench`); the packets themselves are not reproduced, and the
 * script's departures from the spec (docs/etrace-data.md) are kept on purpose.
 *
 * Its three modes of interest: address and data (full-daddress = full-data = false: differential
 * address, arithmetic difference of data), no-data (address only), no-address (data only, full
 * data_width_p data field).
 */
import type { DataAccess } from '../../hart/data-records.ts';

export interface ReferenceSizeOptions {
  readonly dataWidth: number;
  readonly daddressWidth: number;
  readonly noData: boolean;
  readonly noAddress: boolean;
  /** full-daddress / full-data of the script's user configuration. */
  readonly fullAddress: boolean;
  readonly fullData: boolean;
}

const clog2 = (n: number): number => Math.ceil(Math.log2(n));

/** The script's CompressionHandler: the first value of a size is sent as is, then differences (or as is when full). */
class Handler {
  private readonly last = new Map<number, bigint>();
  constructor(private readonly full: boolean) {}
  get(value: bigint, size: number): bigint {
    const prev = this.last.get(size);
    this.last.set(size, value);
    if (prev === undefined || this.full) return value;
    return value - prev;
  }
}

/** Bytes of a sign-compressed packet of `fields` (value, width), first field least significant, plus the header. */
function packetBytes(fields: [bigint, number][]): number {
  let v = 0n;
  let pos = 0;
  for (const [value, width] of fields) {
    if (width === 0) continue;
    v |= BigInt.asUintN(width, value) << BigInt(pos);
    pos += width;
  }
  const top = (v >> BigInt(pos - 1)) & 1n;
  let run = 1;
  while (run < pos && ((v >> BigInt(pos - 1 - run)) & 1n) === top) run++;
  return 1 + Math.ceil((pos - run + 1) / 8);
}

/** The bytes the reference encoder spends on each access of a data trace (unified signalling). */
export function referenceFlowBytes(accesses: readonly DataAccess[], o: ReferenceSizeOptions): number[] {
  const sizeBits = Math.max(1, clog2(clog2(o.dataWidth / 8 + 1)));
  const addr = new Handler(o.fullAddress);
  const data = new Handler(o.fullData);
  const diffBits = o.noData ? 1 : 2;
  return accesses.map((a) => {
    const s = a.dsize;
    const bits = 8 << s;
    const lowHalf = a.data & ((1n << BigInt(bits)) - 1n);
    const highHalf = a.data >> BigInt(bits);
    if (a.dtype <= 1) {
      const aligned = (a.daddr & ((1n << BigInt(s)) - 1n)) === 0n;
      const f: [bigint, number][] = [[BigInt(a.dtype * 2 + (aligned ? 0 : 1)), 3], [BigInt(s), sizeBits], [1n, diffBits]];
      if (!o.noData) {
        if (!o.noAddress) f.push([BigInt((1 << s) - 1), s]);
        f.push([data.get(lowHalf, s), o.noAddress ? o.dataWidth : bits]);
      }
      if (!o.noAddress) f.push([addr.get(aligned ? a.daddr >> BigInt(s) : a.daddr, s), o.daddressWidth]);
      return packetBytes(f);
    }
    if (a.dtype >= 4 && a.dtype <= 6) {
      const lenBits = o.dataWidth === 64 ? 3 : 2;
      const f: [bigint, number][] = [[5n, 3], [BigInt(a.dtype - 4), 2], [1n, diffBits]];
      if (!o.noData) f.push([BigInt((1 << s) - 1), lenBits], [data.get(lowHalf, s), bits]);
      f.push([(a.daddr >> 6n) & 0x3fn, 6]);
      if (!o.noData && (a.daddr >> 10n) !== 3n) f.push([BigInt((1 << s) - 1), lenBits], [data.get(highHalf, s), bits]);
      f.push([a.daddr & 0x3fn, 6]);
      return packetBytes(f);
    }
    const f: [bigint, number][] = [[6n, 3], [0n, 3], [BigInt(s), sizeBits], [1n, diffBits]];
    if (!o.noData) {
      f.push([BigInt((1 << s) - 1), s], [data.get(highHalf, s), bits]);
      if (o.noAddress) f.push([data.get(lowHalf, s), o.dataWidth]);
      else f.push([BigInt((1 << s) - 1), s], [data.get(lowHalf, s), bits]);
    }
    if (!o.noAddress) f.push([addr.get(a.daddr >> BigInt(s), s), o.daddressWidth]);
    return packetBytes(f);
  });
}
