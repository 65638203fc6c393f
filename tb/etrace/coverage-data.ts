/**
 * The data trace part of the E-Trace coverage model (tb/etrace/coverage.ts), for components with
 * data_trace_p = 1. Its bins, named after chapter 7 and the run-time options of table 2.3:
 *
 * - `data:pkt:<kind>`: every te_data packet kind (golden-model/etrace/data/packets.ts DataKind:
 *   unified load/store with address and data, address only, data only; split load request and
 *   response; the atomic forms; CSR with and without value);
 * - `data:value:<sync|full|xor|diff>`: how a value went (section 7.1.3): with its address after a
 *   sync, or full, XOR or differential against the history of its size;
 * - `data:address:<full|differential>`: how an address went;
 * - `data:size:<1|2|4|8>`: the access size of load/store packets, in bytes;
 * - `data:resp:<okay|error>`: split responses;
 * - `data:lost`: a te_data packet the full FIFO dropped;
 * - `option:DataCompress=<0..3>`, `option:noData=<off|on>`, `option:noAddress=<off|on>`,
 *   `option:dFilters=<off|on>`.
 *
 * The hits come from the data encoder's decisions (DataEmitted.value/address) through the
 * observer's `data` callback, so they are the model's choices, as for instruction trace.
 */
import type { CoverageSpace } from '../../core/coverage.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { DataEmitted } from '../../golden-model/etrace/data/encoder.ts';
import type { DataKind } from '../../golden-model/etrace/data/packets.ts';
import { supportsDataCompress } from '../../golden-model/etrace/data/params.ts';

const KINDS: readonly DataKind[] = ['ls', 'ls-addr', 'ls-data', 'load-req', 'load-resp', 'amo', 'amo-addr', 'amo-data', 'amo-req', 'amo-req-noaddr', 'amo-resp', 'csr', 'csr-addr'];
const ATOMIC: ReadonlySet<DataKind> = new Set(['amo', 'amo-addr', 'amo-data', 'amo-req', 'amo-req-noaddr', 'amo-resp']);
const CSR: ReadonlySet<DataKind> = new Set(['csr', 'csr-addr']);
/** The kinds of split signalling only, and the unified atomics that split signalling replaces. */
const SPLIT_ONLY: ReadonlySet<DataKind> = new Set(['load-req', 'load-resp', 'amo-req', 'amo-req-noaddr', 'amo-resp']);
const UNIFIED_ONLY: ReadonlySet<DataKind> = new Set(['amo', 'amo-data']);
/** What each address/value option leaves: address only (noData), without address (noAddress), both (neither). */
const ADDRESS_ONLY: ReadonlySet<DataKind> = new Set(['ls-addr', 'amo-addr', 'csr-addr']);
const WITHOUT_ADDRESS: ReadonlySet<DataKind> = new Set(['ls-data', 'amo-data', 'amo-req-noaddr', 'load-resp', 'amo-resp', 'csr']);
const WITH_BOTH: ReadonlySet<DataKind> = new Set(['ls', 'load-req', 'load-resp', 'amo', 'amo-req', 'amo-resp', 'csr']);
const LOAD_STORE: ReadonlySet<DataKind> = new Set(['ls', 'ls-addr', 'ls-data', 'load-req', 'load-resp']);

/** The data trace bins of a configuration with data trace, and the exclusions with their reason. */
export function dataCoverageSpace(c: EtraceConfig): CoverageSpace {
  const dp = c.params.dataTrace!;
  const o = c.options;
  const split = dp.data_split_p === 1;
  const bins: string[] = [];
  const excluded: Record<string, string> = {};
  const add = (bin: string, reason: string | undefined): void => {
    bins.push(bin);
    if (reason !== undefined) excluded[bin] = reason;
  };
  const untraced = !o.dEnable && !o.dTrigEnable ? 'dEnable is off and no trigger can set it (dTrigEnable off)' : undefined;
  const kindReason = (k: DataKind): string | undefined => {
    if (ATOMIC.has(k) && !dp.data_atomics_p) return 'no atomics (data_atomics_p 0)';
    if (CSR.has(k) && !dp.data_csr_p) return 'no CSR accesses (data_csr_p 0)';
    if (SPLIT_ONLY.has(k) && !split) return 'unified loads (data_split_p 0)';
    if (UNIFIED_ONLY.has(k) && split) return 'split signalling (data_split_p 1): atomics go as request and response';
    if (o.noData && !ADDRESS_ONLY.has(k)) return 'noData: address-only packets';
    if (o.noAddress && !WITHOUT_ADDRESS.has(k)) return 'noAddress: packets without address';
    if (!o.noData && !o.noAddress && !WITH_BOTH.has(k)) return 'noData and noAddress are off: address and value go together';
    return undefined;
  };
  for (const k of KINDS) add(`data:pkt:${k}`, untraced ?? kindReason(k));

  const noValues = o.noData ? 'noData: no values' : undefined;
  const onlyAfterSync = o.DataCompress === 0 && !o.noAddress && !dp.data_csr_p && !split;
  add('data:value:sync', untraced ?? noValues ?? (o.noAddress ? 'noAddress: no value goes with an address' : undefined));
  add('data:value:full', untraced ?? noValues ?? (onlyAfterSync ? 'DataCompress 0 and every value with its address: each goes as a sync' : undefined));
  add('data:value:xor', untraced ?? noValues ?? (o.DataCompress & 1 ? undefined : `DataCompress ${o.DataCompress}: no XOR compression`));
  add('data:value:diff', untraced ?? noValues ?? (o.DataCompress & 2 ? undefined : `DataCompress ${o.DataCompress}: no differential compression`));
  const noAddresses = o.noAddress ? 'noAddress: no addresses' : undefined;
  add('data:address:full', untraced ?? noAddresses);
  add('data:address:differential', untraced ?? noAddresses ?? (o.DataCompress === 0 ? 'DataCompress 0: addresses are full' : undefined));
  for (const bytes of [1, 2, 4, 8]) add(`data:size:${bytes}`, untraced ?? (8 * bytes > dp.data_width_p ? `wider than the data bus (data_width_p ${dp.data_width_p})` : undefined));
  const noResponses = !split ? 'unified loads (data_split_p 0): no responses' : o.noData ? 'noData: no responses' : undefined;
  add('data:resp:okay', untraced ?? noResponses);
  add('data:resp:error', untraced ?? noResponses);
  add('data:lost', untraced ?? (o.stallEnable ? 'stallEnable: the hart stalls instead, no trace is lost' : undefined));

  for (let m = 0; m <= 3; m++) add(`option:DataCompress=${m}`, supportsDataCompress(dp.data_compress_p, m) ? undefined : `not offered by the hardware (data_compress_p ${dp.data_compress_p})`);
  for (const name of ['noData', 'noAddress'] as const) {
    add(`option:${name}=off`, undefined);
    add(`option:${name}=on`, undefined);
  }
  add('option:dFilters=off', undefined);
  add('option:dFilters=on', c.params.filters_p === 0 ? 'no filters (filters_p 0)' : undefined);
  return { bins, excluded };
}

/** The bins of one te_data packet the encoder offered (`hit` once per bin). */
export function dataPacketHits(e: DataEmitted, accepted: boolean, hit: (bin: string) => void): void {
  if (!accepted) {
    hit('data:lost');
    return;
  }
  const { kind, f } = e.packet;
  hit(`data:pkt:${kind}`);
  if (e.value !== undefined) hit(`data:value:${e.value}`);
  if (e.address !== undefined) hit(`data:address:${e.address}`);
  if (LOAD_STORE.has(kind)) hit(`data:size:${1 << Number(f.size)}`);
  if (kind === 'load-resp' || kind === 'amo-resp') hit(`data:resp:${f.resp === 0n ? 'error' : 'okay'}`);
}

/** The option bins of a case's options (hit once per case). */
export function dataOptionHits(c: EtraceConfig, hit: (bin: string) => void): void {
  const o = c.options;
  hit(`option:DataCompress=${o.DataCompress}`);
  hit(`option:noData=${o.noData ? 'on' : 'off'}`);
  hit(`option:noAddress=${o.noAddress ? 'on' : 'off'}`);
  hit(`option:dFilters=${o.dFilters !== 0 ? 'on' : 'off'}`);
}
