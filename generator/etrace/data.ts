/**
 * The data trace path of the generated E-Trace encoder (data_trace_p = 1): the contexts of
 * etrace_data_encoder (interface register, qualification, history, packet fields),
 * etrace_data_compress (the value codes of section 7.1.3) and etrace_data_packer (sign compression
 * and encapsulation with flow 3), and the sizes etrace_encoder and etrace_fifo need for the data
 * packet. The packet formats, the compression state and the order in the byte stream are those of
 * docs/etrace-data.md; the RTL section there describes these modules.
 *
 * With filters (filters_p > 0) etrace_data_filter applies dFilters to each access, with comparators
 * of its own.
 *
 * What the RTL does not implement yet is refused with a one-line error (checkDataRtlSupport).
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { dataPacketParams, dataWidths, type DataParams } from '../../golden-model/etrace/data/params.ts';
import { dataSizeWidth } from '../../golden-model/etrace/ports.ts';
import { encapPrefixBits } from '../../golden-model/etrace/packet/params.ts';
import { hasContextInput } from '../../golden-model/etrace/ports.ts';
import { padColumn, svLogic, svSized, svVec } from '../render.ts';
import { svConditionalSumAdd, svAtOrAboveAt, svHighestSetBitTree } from '../sv-arith.ts';
import { qualifierBuses } from './apb-regs.ts';

/** The data parameters, or undefined without data trace. */
export function dataTraceOf(c: EtraceConfig): DataParams | undefined {
  return c.params.dataTrace;
}

/** Data trace settings the RTL does not implement: a clear error rather than wrong hardware. */
export function checkDataRtlSupport(c: EtraceConfig): void {
  const p = c.params;
  const d = p.dataTrace;
  if (!d) return;
  // With several signal groups a cycle the access's packet goes between two groups' packets. Offered
  // by its exact size (no stages) its acceptance would need its length before the syncs of the
  // groups after it are known, while that length depends on whether the groups up to it synced:
  // one data path cannot give both, so the RTL offers it by its reservation (pipeline stages).
  if (p.taken_branches_p > 1 && p.pipeline_stages_p === 0) {
    throw new RvError(
      'invalid-component',
      'the RTL generator does not implement data trace with several signal groups a cycle (taken_branches_p > 1) without pipeline stages: set pipeline_stages_p >= 1',
      { path: 'parameters/pipeline_stages_p' },
    );
  }
}

/**
 * With several signal groups a cycle: the triggers that move dEnable before the access (those of
 * the groups up to its own, dblock_i) and after the cycle (every group's), each as the 2-bit
 * trigger of the last group that has one (a group's trace-off wins over its trace-on, and a later
 * group's over an earlier's, as the model takes the records one by one).
 */
function dataGroupContext(c: EtraceConfig) {
  const groups = dataGroups(c);
  const dbw = c.params.dataTrace?.dblock_width_p ?? 0;
  const lines: string[] = [];
  for (let g = 0; g < groups; g++) {
    const t = `trigger_i[${3 * g + 1}:${3 * g}]`;
    lines.push(`if (${t} != 2'd0) begin`, `  trig_cycle = ${t};`, g === 0 ? `  trig_access = ${t};` : `  if (dblock_i >= ${dbw}'d${g}) trig_access = ${t};`, 'end');
  }
  return {
    manyGroups: groups > 1,
    trigw: groups > 1 ? 3 * groups : 2,
    dbw: Math.max(1, dbw),
    groupTriggerLines: groups > 1 ? lines : [],
    // The third bit of each group's trigger (notify) is the instruction trace's.
    unusedNotify: Array.from({ length: groups }, (_v, g) => `trigger_i[${3 * g + 2}]`).join(', '),
  };
}

/** Several signal groups a cycle with data trace: the access names its group (dblock_i). */
export function dataGroups(c: EtraceConfig): number {
  return c.params.dataTrace ? c.params.taken_branches_p : 1;
}

/** `vec`, the concatenation of `groups` fields of `w` bits, at the group `sel` names (group 0 when out of range). */
function groupSelect(vec: string, w: number, groups: number, sel: string, selw: number): string {
  let out = `${vec}[${w - 1}:0]`;
  for (let g = 1; g < groups; g++) out = `(${sel} == ${selw}'d${g}) ? ${vec}[${(g + 1) * w - 1}:${g * w}] : ${out}`;
  return groups > 1 ? `(${out})` : out;
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
  if (dp.data_split_p) {
    candidates.push(w.format + w.size + w.lrid + 1 + w.address); // load request
    if (dp.data_atomics_p) {
      candidates.push(
        w.format + 3 + w.atomicSize + w.lrid + 2 + smax + value + w.address, // atomic request
        w.format + 3 + w.atomicSize + w.lrid + w.dataDiff + w.data, // atomic request without address
      );
    }
  }
  return Math.max(...candidates);
}

/** Bits of the longest split response payload (load: format, size, lrid, resp, data; atomic: format, lrid, resp, data_len, data). */
export function dataResponseMaxPayloadBits(c: EtraceConfig): number {
  const dp = dataPacketParams(c.params);
  const w = dataWidths(dp);
  const smax = Math.log2(dp.data_width_p / 8);
  const load = w.format + w.size + w.lrid + 2 + w.data;
  return dp.data_atomics_p ? Math.max(load, w.format + w.lrid + 2 + smax + (8 << smax)) : load;
}

/** Bytes of the longest encapsulated split response packet (0 without split loads). */
export function dataResponseMaxBytes(c: EtraceConfig): number {
  const p = c.params;
  if (!p.dataTrace?.data_split_p) return 0;
  return 1 + Math.floor(p.encap_srcid_width / 8) + Math.ceil((dataResponseMaxPayloadBits(c) + encapPrefixBits(p)) / 8);
}

/** Bytes of the longest encapsulated te_data packet, header included. */
export function dataMaxBytes(c: EtraceConfig): number {
  const p = c.params;
  return 1 + Math.floor(p.encap_srcid_width / 8) + Math.ceil((dataMaxPayloadBits(c) + encapPrefixBits(p)) / 8);
}

/** A packet with two values: a unified atomic (a split one's request carries its operand only) or a CSR access. */
function packetHasTwoValues(dp: DataParams): boolean {
  return (dp.data_atomics_p === 1 && dp.data_split_p === 0) || dp.data_csr_p === 1;
}

/**
 * What the data packets' field assembly and packers read (pk_<name>), from the signal <from> of the
 * access, the history and the compression: registered as the encoder's first pipeline stage when it
 * has one (the compression then ends at a register), else wires.
 */
function packetHeld(c: EtraceConfig) {
  const dp = dataPacketParams(c.params);
  const w = dataWidths(dp);
  const dw = dp.data_width_p;
  type Held = readonly [name: string, width: number, from: string];
  const fields: Held[] = [
    ['pkt', 1, 'pkt'],
    ['is_ls', 1, 'is_ls'],
    ['is_store', 1, 'is_store'],
    ['aligned', 1, 'aligned'],
    ['s', 2, 's'],
    ['no_data', 1, 'opt_no_data'],
    ['no_addr', 1, 'opt_no_addr'],
    ['addr_diff', 1, 'addr_diff'],
    ['address', w.address, 'address'],
    ['diff2', 2, 'diff2'],
    ['diff_data', 2, 'diff_data'],
    ['c0', dw, 'c0'],
    ['dlen0', 4, "n0 - 4'd1"],  // data_len: bytes - 1
    ...(packetHasTwoValues(dp) ? ([['c1', dw, 'c1'], ['dlen1', 4, "n1 - 4'd1"]] as Held[]) : []),
    ...(dp.data_split_p === 1 ? ([['split_load', 1, 'split_load'], ['lrid', dp.lrid_width_p, 'lrid_q']] as Held[]) : []),
    ...(dp.data_atomics_p === 1 ? ([['is_amo', 1, 'is_amo'], ['amo_size', w.atomicSize, 'amo_size']] as Held[]) : []),
    ...(dp.data_atomics_p === 1 ? ([['dtype', 3, 'dtype_q[2:0]']] as Held[]) : dp.data_csr_p === 1 ? ([['dtype', 2, 'dtype_q[1:0]']] as Held[]) : []),
    ...(dp.data_csr_p === 1
      ? ([['is_csr', 1, 'is_csr'], ['csr_read_only', 1, 'csr_read_only'], ['csr_diff', 1, 'csr_diff'], ['csr_field', 12, 'csr_field'], ['csr_number', 12, 'csr_number']] as Held[])
      : []),
    // The split response's packet.
    ...(dp.data_split_p === 1
      ? ([['r_valid', 1, 'r_valid'], ['lid', dp.lrid_width_p, 'lid_q'], ['r_ok', 1, 'r_ok'], ['r_resp', 2, 'r_resp'], ['r_s', 2, 'r_s'], ['r_c0', dw, 'r_c0']] as Held[])
      : []),
    ...(dp.data_split_p === 1 && dp.data_atomics_p === 1 ? ([['r_amo', 1, 'r_amo'], ['r_n0', 4, 'r_n0']] as Held[]) : []),
  ];
  const types = padColumn(fields.map(([, width]) => svLogic(width)));
  const regs = padColumn(fields.map(([name]) => `pk_${name}`));
  return fields.map(([name, , from], i) => ({
    decl: `${types[i]} pk_${name};`,
    reset: `${regs[i]} <= '0;`,
    update: `${regs[i]} <= ${from};`,
    assign: `assign ${regs[i]} = ${from};`,
  }));
}

export function dataEncoderContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const dp = dataPacketParams(p);
  const w = dataWidths(dp);
  const dtw = dp.dtype_width_p;
  // The differential address: the field minus the history's (a short-path subtract).
  const addrDiff = svConditionalSumAdd('addr_field_diff', 'addr_field_full', '~addr_field_prev', w.address, { carryIn: "1'b1" });
  const registered = c.params.pipeline_stages_p > 0;
  return {
    banner,
    registered,
    packetHeld: packetHeld(c),
    historyNext: dp.data_split_p === 1 ? 'value_n' : 'value_d',
    addrDiffDecls: addrDiff.declarations,
    addrDiffRows: addrDiff.rows,
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
    twoValues: packetHasTwoValues(dp),
    amoValueHi: dp.data_atomics_p === 1 && dp.data_split_p === 0,
    noFilters: !hasDataFilter(c),
    ...dataGroupContext(c),
    split: dp.data_split_p === 1,
    lw: dp.lrid_width_p,
    lwm1: dp.lrid_width_p - 1,
    entries: 1 << dp.lrid_width_p,
    entries2: 2 << dp.lrid_width_p,
    rspbytes: dataResponseMaxBytes(c),
    rspMsb: 8 * dataResponseMaxBytes(c) - 1,
    rspBits: 8 * dataResponseMaxBytes(c),
    maxMsb: 8 * dataMaxBytes(c) - 1,
    rspUnused: dp.data_atomics_p ? 'r_c1, r_n1' : 'r_c1, r_n1, r_n0',
    splitAtomics: dp.data_split_p === 1 && dp.data_atomics_p === 1,
    ...dataFilterConnections(c),
    isLs: dtw === 1 ? "1'b1" : `dtype_q[${dtw - 1}:1] == '0`,
    csrTop: dtw >= 3 ? svSized(dtw - 2, 1n) : '',
    amoSizeField: p.payload_layout === '2.0' ? 's' : "1'(s - 2'd2)",
  };
}

export function dataCodesContext(c: EtraceConfig, banner: string) {
  const dw = dataPacketParams(c.params).data_width_p;
  // The differential codes' subtractions (short-path adders: a - b = a + ~b + 1).
  const first = svConditionalSumAdd('v0_minus_prev', 'v0_i', '~prev_i', dw, { carryIn: "1'b1" });
  const second = svConditionalSumAdd('v1_minus_v0', 'v1_i', '~v0_i', dw, { carryIn: "1'b1" });
  return {
    banner,
    dw,
    codes: 3 * dw,
    differenceDecls: [...first.declarations, ...second.declarations],
    differenceRows: [...first.rows, ...second.rows],
  };
}

export function dataCompressContext(c: EtraceConfig, banner: string) {
  const dw = dataPacketParams(c.params).data_width_p;
  return { banner, dw, codes: 3 * dw, ...keptBits(dw) };
}

/**
 * The bits each coded value of etrace_data_compress keeps below its sign (k0 and k1 of each code):
 * the index of the highest set bit of d0 / d1 (its bits that differ from its top bit, with a 1
 * put below them) by a tree of multiplexers (svHighestSetBitTree).
 */
function keptBits(dw: number) {
  const trees = [0, 1, 2].flatMap((k) => [0, 1].map((v) => ({ k, v, name: `kept${v}_${k}`, ...svHighestSetBitTree(`kept${v}_${k}`, `d${v}[${k}]`, dw) })));
  return {
    keptDecls: trees.flatMap((t) => t.declarations),
    keptRows: [
      ...trees.flatMap((t) => t.rows),
      ...trees.map((t) => (t.v === 0 ? `assign k0[${t.k}] = ${t.name}_index;` : `assign k1[${t.k}] = two_i ? ${t.name}_index : '0;`)),
      `assign unused_kept_any = ^{${trees.map((t) => `${t.name}_any`).join(', ')}};`,
    ],
    tw: trees[0]!.indexWidth,
  };
}

export function dataPackerContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const pw = 8 * Math.ceil(dataMaxPayloadBits(c) / 8);
  const maxbytes = dataMaxBytes(c);
  const srcBits = p.encap_srcid_width;
  const streamWidth = Math.max(8 * (maxbytes - 1), pw + srcBits);
  const ext = streamWidth - pw - srcBits;
  const parts = [...(ext > 0 ? [`{${ext}{payload_i[Pw-1]}}`] : []), 'payload_i', ...(srcBits > 0 ? [svSized(srcBits, 0n)] : [])];
  // Stream byte k holds payload bits from 8k - srcBits on; it is sent when a payload bit at or above
  // the one below that differs from the top bit (always when that is below bit 0; never from the
  // top bit, which differs from nothing).
  const below = (k: number) => 8 * k - srcBits - 1;
  const cuts = [...Array(maxbytes - 1).keys()].map(below).filter((j) => j >= 0 && j < pw - 1);
  const or = svAtOrAboveAt('differing', 'differs', pw, cuts.length > 0 ? cuts : [0]);
  const sentRows = [...Array(maxbytes - 1).keys()].map((k) => {
    const j = below(k);
    return `assign sent[${k}] = ${j < 0 ? "1'b1" : j < pw - 1 ? or.at(j) : "1'b0"};`;
  });
  const unused = [
    ...(streamWidth > 8 * (maxbytes - 1) ? [`stream[${streamWidth - 1}:${8 * (maxbytes - 1)}]`] : []),
    // (The bits below the first position tested: only those at or above it decide a byte.)
    ...(cuts.length === 0 ? ['differs'] : cuts[0]! > 0 ? [`differs[${cuts[0]! - 1}:0]`] : []),
    ...(srcBits >= 8 ? [`ends[${Math.floor(srcBits / 8) - 1}:0]`] : []),
  ];
  return {
    banner,
    pw,
    orDecls: or.declarations,
    orRows: or.rows,
    sentRows,
    maxbytes,
    srcBits,
    srcBytes: Math.floor(srcBits / 8),
    streamMsb: streamWidth - 1,
    streamExpr: parts.length === 1 ? parts[0] : `{${parts.join(', ')}}`,
    encapDoc: srcBits === 0 ? 'no source id' : `then a ${srcBits}-bit source id, 0 as in the model's stream`,
    unused: unused.join(', '),
  };
}

/**
 * The inputs of the data path on etrace_encoder (`name`_i) and the etrace_data_encoder port each
 * drives (`inner`_i): the data options from the register file, the data access, and the sideband
 * signals of the cycle that decide whether it is traced.
 */
export function dataEncoderPorts(c: EtraceConfig): { name: string; inner: string; width: number; top: string }[] {
  const p = c.params;
  const d = dataPacketParams(p);
  const q = (name: string, width: number, inner = name, top = `${name}_i`) => ({ name, inner, width, top });
  const opt = (name: string, width: number) => q(name, width, name, name);
  return [
    opt('d_enable', 1), opt('d_trig_enable', 1), opt('no_data', 1), opt('no_address', 1), opt('data_compress', 2),
    q('dretire', 1), q('dtype', d.dtype_width_p), q('daddr', p.iaddress_width_p), q('dsize', 2), q('data', dataPortWidth(d)),
    // Several groups: every group's triggers (dEnable moves with those up to the access's group) and the group.
    ...(dataGroups(c) > 1
      ? [q('d_trigger', 3 * dataGroups(c), 'trigger', 'trigger_i'), q('dblock', d.dblock_width_p)]
      : [q('d_trigger', 2, 'trigger', 'trigger_i[1:0]')]),
    q('d_halted', 1, 'halted', 'halted_i'), q('d_reset', 1, 'reset', 'reset_i'),
    ...(d.data_split_p ? [q('lrid', d.lrid_width_p), q('lresp', 2), q('lid', d.lrid_width_p), q('ldata', d.data_width_p)] : []),
    ...dataFilterPorts(c),
  ];
}

/**
 * The inputs of etrace_data_filter that etrace_data_encoder passes on (none without it): the
 * cycle's fields a data filter compares (single retirement: the one signal group's) and the
 * options of the filters.
 */
function dataFilterPorts(c: EtraceConfig): { name: string; inner: string; width: number; top: string }[] {
  if (!hasDataFilter(c)) return [];
  const p = c.params;
  const lsbs = dataPacketParams(p).iaddr_lsbs_width_p;
  const q = (name: string, width: number, inner: string, top: string) => ({ name, inner, width, top });
  // Only comparators read the addresses, the context and tval.
  const compared =
    p.comparators_p > 0
      ? [
          // The address of the access's group: the block address iaddr_lsbs completes.
          q('d_iaddr', p.iaddress_width_p, 'iaddr', groupSelect('iaddr_i', p.iaddress_width_p, dataGroups(c), 'dblock_i', p.dataTrace!.dblock_width_p)),
          ...(lsbs > 0 ? [q('iaddr_lsbs', lsbs, 'iaddr_lsbs', 'iaddr_lsbs_i')] : []),
          q('d_context', hasContextInput(c) ? p.context_width_p : 1, 'context', 'context_w'),
          q('d_tval', p.iaddress_width_p, 'tval', 'tval_i'),
        ]
      : [];
  return [
    ...compared,
    q('d_priv', p.privilege_width_p, 'priv', 'priv_i'),
    ...(p.impdef_width_p > 0 ? [q('d_impdef', p.impdef_width_p, 'impdef', 'impdef_i')] : []),
    ...dataFilterBuses(c).map((b) => q(b.name, b.width, b.name, b.name === 'd_filters' ? `d_filters[${b.width - 1}:0]` : b.name)),
  ];
}

/** Whether the data path has etrace_data_filter: data trace with filters for dFilters to select. */
export function hasDataFilter(c: EtraceConfig): boolean {
  return c.params.dataTrace !== undefined && c.params.filters_p > 0;
}

/**
 * The run-time options etrace_data_filter takes: dFilters (the bits filters_p allows) and the
 * filter and comparator fields a data filter reads. Not the trap window's cause choice and
 * interrupt value (a data filter asking for a window matches nothing) or the notifies.
 */
export function dataFilterBuses(c: EtraceConfig): { name: string; width: number }[] {
  const unread = ['i_filters', 'filter_match_choice_ecause', 'filter_match_value_interrupt', 'comparator_p_notify', 'comparator_s_notify'];
  return [{ name: 'd_filters', width: c.params.filters_p }, ...qualifierBuses(c).filter((b) => !unread.includes(b.name))];
}

/** Signals of etrace_top the data path leaves unread. */
export function dataTopConnections(c: EtraceConfig): { unused: string[] } {
  const d = c.params.dataTrace;
  if (!d) return { unused: [] };
  const lsbsRead = hasDataFilter(c) && c.params.comparators_p > 0;
  return {
    unused: [
      ...(d.iaddr_lsbs_width_p > 0 && !lsbsRead ? ['iaddr_lsbs_i'] : []),
      // One signal group a cycle: every access belongs to it.
      ...(d.dblock_width_p > 0 && dataGroups(c) === 1 ? ['dblock_i'] : []),
      ...(hasDataFilter(c) && c.params.filters_p < 16 ? [`d_filters[15:${c.params.filters_p}]`] : []),
    ],
  };
}

/** The filter's ports on etrace_data_encoder and the instance's connections. */
function dataFilterConnections(c: EtraceConfig): { filterPortLines: string[]; filterConns: string[] } {
  if (!hasDataFilter(c)) return { filterPortLines: [], filterConns: [] };
  const fields = dataFilterPorts(c);
  const types = padColumn(fields.map((q) => svLogic(q.width)));
  const comparators = c.params.comparators_p > 0;
  const conns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['advance_i', 'advance_i'],
    ...(comparators ? [['commit_i', 'commit_i'] as [string, string]] : []),
    ['start_i', 'start_i'],
    ...(comparators ? [['evaluate_i', 'reaches_filters'] as [string, string]] : []),
    ...fields.map((q): [string, string] => [`${q.inner}_i`, `${q.inner}_i`]),
    ...(comparators ? [['daddr_i', 'daddr_q'] as [string, string]] : []),
    ['pass_o', 'filter_pass'],
  ];
  const col = padColumn(conns.map(([port]) => `.${port}`));
  return {
    filterPortLines: fields.map((q, i) => `input  ${types[i]} ${q.inner}_i,`),
    filterConns: conns.map(([, sig], i) => `${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
  };
}

/** `x` of `from` bits zero-extended to 64. */
const zext64 = (x: string, from: number): string => (from === 64 ? x : `{${64 - from}'d0, ${x}}`);

export function dataFilterContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const d = dataPacketParams(p);
  const buses = dataFilterBuses(c);
  // Vectors even at one bit: the module indexes each unit's field.
  const types = padColumn(buses.map((b) => `logic ${svVec(b.width)}`));
  const names = padColumn(buses.map((b) => b.name));
  const qnames = padColumn(buses.map((b) => `${b.name}_q`));
  const iaw = p.iaddress_width_p;
  const lsbs = d.iaddr_lsbs_width_p;
  const pw = p.privilege_width_p;
  // Bit `priv` of filter i's 8-bit privilege choice (0 beyond it, as the model's shift gives).
  const privBit =
    pw <= 3
      ? `filter_match_choice_privilege[i*8 + {${32 - pw}'d0, priv_q}]`
      : `((priv_q[${pw - 1}:3] == '0) && filter_match_choice_privilege[i*8 + {29'd0, priv_q[2:0]}])`;
  return {
    banner,
    iaw,
    lsbs,
    ctxw: hasContextInput(c) ? p.context_width_p : 1,
    pw,
    impw: p.impdef_width_p,
    nf: p.filters_p,
    nc: p.comparators_p,
    busPorts: buses.map((b, i) => `input  ${types[i]} ${b.name}_i,`),
    busDecls: buses.map((b, i) => `${types[i]} ${b.name}, ${b.name}_q;`),
    busSelects: buses.map((b, i) => `assign ${names[i]} = start_i ? ${b.name}_i : ${b.name}_q;`),
    busResets: buses.map((_b, i) => `${qnames[i]} <= '0;`),
    busSamples: buses.map((b, i) => `if (start_i) ${qnames[i]} <= ${b.name}_i;`),
    iaddr64: zext64('iaddr_q', iaw),
    iaddrFromOffset: `${zext64('iaddr_q', iaw)} + ${zext64('{offset, 1\'b0}', lsbs + 1)}`,
    context64: zext64('context_q', hasContextInput(c) ? p.context_width_p : 1),
    tval64: zext64('tval_q', iaw),
    daddr64: zext64('daddr_i', iaw),
    impdef32: p.impdef_width_p === 0 ? "32'd0" : p.impdef_width_p === 32 ? 'impdef_q' : `{${32 - p.impdef_width_p}'d0, impdef_q}`,
    privBit,
    compMatch: p.comparators_p === 8 ? 'comp_out' : `{${8 - p.comparators_p}'d0, comp_out}`,
  };
}

/** For the width checks of the tests: the dsize port's width. */
export const dsizeWidth = (c: EtraceConfig): number => dataSizeWidth(dataPacketParams(c.params).data_width_p);
