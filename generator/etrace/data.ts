/**
 * The data trace path of the generated E-Trace encoder (data_trace_p = 1): the contexts of
 * etrace_data_encoder (interface register, qualification, history, packet fields),
 * etrace_data_compress (the value codes of section 7.1.3) and etrace_data_packer (sign compression
 * and encapsulation with flow 3), and the sizes etrace_encoder and etrace_fifo need for the data
 * packet. The packet formats, the compression state and the order in the byte stream are those of
 * docs/etrace-data.md; the RTL section there describes these modules.
 *
 * What the RTL does not implement yet is refused with a one-line error (checkDataRtlSupport).
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { dataPacketParams, dataWidths, type DataParams } from '../../golden-model/etrace/data/params.ts';
import { dataSizeWidth } from '../../golden-model/etrace/ports.ts';
import { encapPrefixBits } from '../../golden-model/etrace/packet/params.ts';
import { svSized } from '../render.ts';

/** The data parameters, or undefined without data trace. */
export function dataTraceOf(c: EtraceConfig): DataParams | undefined {
  return c.params.dataTrace;
}

/** Data trace settings the RTL does not implement: a clear error rather than wrong hardware. */
export function checkDataRtlSupport(c: EtraceConfig): void {
  const p = c.params;
  const d = p.dataTrace;
  if (!d) return;
  const missing: string[] = [];
  if (d.data_split_p === 1) missing.push('split load signalling (data_split_p = 1)');
  if (p.retires_p > 1 || p.taken_branches_p > 1) missing.push('data trace with multiple retirement (retires_p or taken_branches_p > 1)');
  if (p.filters_p > 0) missing.push('data filters (data trace with filters_p > 0)');
  if (d.dblock_width_p > 0) missing.push('dblock (dblock_width_p > 0)');
  if (missing.length > 0) {
    throw new RvError('invalid-component', `the RTL generator does not implement ${missing.join('; ')}`, { path: 'parameters/data_trace_p' });
  }
}

/** Width of data_i: one value, or the two of a CSR or atomic access. */
export function dataPortWidth(d: DataParams): number {
  return (d.data_atomics_p === 1 || d.data_csr_p === 1 ? 2 : 1) * d.data_width_p;
}

/** Bits of the longest te_data payload this configuration can send (docs/etrace-data.md, packet formats). */
export function dataMaxPayloadBits(c: EtraceConfig): number {
  const dp = dataPacketParams(c.params);
  const w = dataWidths(dp);
  const smax = Math.log2(dp.data_width_p / 8);
  const value = 8 << smax; // a value of the largest size
  const csrValue = c.params.iaddress_width_p > 32 ? 64 : 32;
  const candidates = [
    w.format + w.size + 2 + smax + value + w.address, // load/store
    w.format + w.size + 1 + w.address, // address only
    w.format + w.size + w.dataDiff + w.data, // data only
  ];
  if (dp.data_atomics_p) {
    candidates.push(
      w.format + 3 + w.atomicSize + 2 + 2 * (smax + value) + w.address,
      w.format + 3 + w.atomicSize + 1 + w.address,
      w.format + 3 + w.atomicSize + w.dataDiff + smax + value + w.data,
    );
  }
  if (dp.data_csr_p) candidates.push(w.format + 2 + w.dataDiff + 2 * (w.csrLen + csrValue) + 12, w.format + 2 + 1 + 12);
  return Math.max(...candidates);
}

/** Bytes of the longest encapsulated te_data packet, header included. */
export function dataMaxBytes(c: EtraceConfig): number {
  const p = c.params;
  return 1 + Math.floor(p.encap_srcid_width / 8) + Math.ceil((dataMaxPayloadBits(c) + encapPrefixBits(p)) / 8);
}

export function dataEncoderContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const dp = dataPacketParams(p);
  const w = dataWidths(dp);
  const dtw = dp.dtype_width_p;
  return {
    banner,
    dw: dp.data_width_p,
    dw2: dp.data_width_p + 1,
    aw: w.address,
    fw: w.format,
    sw: w.size,
    asw: w.atomicSize,
    ddw: w.dataDiff,
    clw: w.csrLen,
    pw: 8 * Math.ceil(dataMaxPayloadBits(c) / 8),
    dataw: dataPortWidth(dp),
    dtw,
    dtwm1: dtw - 1,
    maxbytes: dataMaxBytes(c),
    ratified: p.payload_layout === '2.0',
    atomics: dp.data_atomics_p === 1,
    csr: dp.data_csr_p === 1,
    twoValues: dp.data_atomics_p === 1 || dp.data_csr_p === 1,
    noFilters: p.filters_p === 0,
    isLs: dtw === 1 ? "1'b1" : `dtype_q[${dtw - 1}:1] == '0`,
    csrTop: dtw >= 3 ? svSized(dtw - 2, 1n) : '',
    amoSizeField: p.payload_layout === '2.0' ? 's' : "1'(s - 2'd2)",
  };
}

export function dataCompressContext(c: EtraceConfig, banner: string) {
  return { banner, dw: dataPacketParams(c.params).data_width_p };
}

export function dataPackerContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const pw = 8 * Math.ceil(dataMaxPayloadBits(c) / 8);
  const maxbytes = dataMaxBytes(c);
  const srcBits = p.encap_srcid_width;
  const streamWidth = Math.max(8 * (maxbytes - 1), pw + srcBits);
  const ext = streamWidth - pw - srcBits;
  const parts = [...(ext > 0 ? [`{${ext}{wide[Pw-1]}}`] : []), 'wide', ...(srcBits > 0 ? [svSized(srcBits, 0n)] : [])];
  return {
    banner,
    pw,
    maxbytes,
    srcBits,
    srcRest: srcBits % 8,
    srcBytes: Math.floor(srcBits / 8),
    hdrBytes: 1 + Math.floor(srcBits / 8),
    streamMsb: streamWidth - 1,
    streamExpr: parts.length === 1 ? parts[0] : `{${parts.join(', ')}}`,
    encapDoc: srcBits === 0 ? 'no source id' : `then a ${srcBits}-bit source id, 0 as in the model's stream`,
    unusedStream: streamWidth > 8 * (maxbytes - 1),
    unusedFrom: 8 * (maxbytes - 1),
  };
}

/**
 * The inputs of the data path on etrace_encoder (`name`_i) and the etrace_data_encoder port each
 * drives (`inner`_i): the data options from the register file, the data access, and the sideband
 * signals of the cycle that decide whether it is traced.
 */
export function dataEncoderPorts(c: EtraceConfig): { name: string; inner: string; width: number }[] {
  const d = dataPacketParams(c.params);
  const q = (name: string, width: number, inner = name) => ({ name, inner, width });
  return [
    q('d_enable', 1), q('d_trig_enable', 1), q('no_data', 1), q('no_address', 1), q('data_compress', 2),
    q('dretire', 1), q('dtype', d.dtype_width_p), q('daddr', c.params.iaddress_width_p), q('dsize', 2), q('data', dataPortWidth(d)),
    q('d_trigger', 2, 'trigger'), q('d_halted', 1, 'halted'), q('d_reset', 1, 'reset'),
  ];
}

/** The etrace_top port of each data interface signal and what etrace_data_encoder takes from it. */
export function dataTopConnections(c: EtraceConfig): { unused: string[] } {
  const d = c.params.dataTrace;
  return { unused: d && d.iaddr_lsbs_width_p > 0 ? ['iaddr_lsbs_i'] : [] };
}

/** For the width checks of the tests: the dsize port's width. */
export const dsizeWidth = (c: EtraceConfig): number => dataSizeWidth(dataPacketParams(c.params).data_width_p);
