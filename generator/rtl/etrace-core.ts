/**
 * Template contexts of the E-Trace encoder core: etrace_ingress, etrace_filter (filters and
 * comparators, instantiated by the ingress), etrace_encoder, etrace_fifo, the prediction structures
 * (etrace_bpred, etrace_jtc, etrace_irstack) and etrace_top. Every width and
 * every repeated block is prepared here; the templates paste them (architecture.md).
 *
 * The packer (etrace_packer) is instantiated once per packet slot of a cycle: pre (support before
 * the view's packets), main (the flowchart's packet, or the resync report), alt (the jump target
 * cache's F0 SF1 alternative), sf2, lsup (support with qual_status trace_lost) and post (support
 * that starts or ends a session). Each slot has one signal per descriptor field, named
 * `<slot>_<field>`; a field the configuration does not send is a 1-bit signal left unconnected.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { hasContextInput, hasTimeInput } from '../../golden-model/etrace/ports.ts';
import { etraceApbRegsContext } from './etrace-apb-regs.ts';
import { padColumn } from '../render.ts';
import { largestPacketBits, packetFields, packetWidths, type Packet } from '../../golden-model/etrace/packet/index.ts';

/** A descriptor field of the packer: its name (port `<name>_i`) and width for a configuration (0 = absent). */
export interface DescriptorField {
  readonly name: string;
  readonly width: number;
  /** Width of the encoder's signal when the field is absent (it keeps the width its values have). */
  readonly absentWidth?: number;
}

/** The packet descriptor fields, in the packer's port order (see templates/etrace/etrace_packer.sv.hbs). */
export function descriptorFields(c: EtraceConfig): DescriptorField[] {
  const p = c.params;
  const w = packetWidths(p);
  const ratified = p.payload_layout === '2.0';
  return [
    { name: 'branches', width: 5 },
    { name: 'branch_map', width: 31 },
    { name: 'branch_count', width: p.bpred_size_p > 0 ? 32 : 0, absentWidth: 32 },
    { name: 'branch_fmt', width: p.bpred_size_p > 0 ? 2 : 0, absentWidth: 2 },
    { name: 'index', width: w.index },
    { name: 'address', width: w.address },
    { name: 'notify', width: 1 },
    { name: 'updiscon', width: 1 },
    { name: 'irreport', width: 1 },
    { name: 'irdepth', width: w.irdepth },
    { name: 'branch', width: 1 },
    { name: 'privilege', width: w.privilege },
    { name: 'time', width: w.time },
    { name: 'context', width: Math.max(w.context, w.contextSf2) },
    { name: 'ecause', width: w.ecause },
    { name: 'interrupt', width: 1 },
    { name: 'thaddr', width: ratified ? 1 : 0 },
    { name: 'tval', width: w.tval },
    { name: 'enable', width: 1 },
    { name: 'qual_status', width: 2 },
  ];
}

/** The packet slots of a cycle (see the file comment). */
const SLOTS = ['pre', 'main', 'alt', 'sf2', 'lsup', 'post'] as const;
type Slot = (typeof SLOTS)[number];

const bitlen = (n: number): number => (n <= 0 ? 1 : Math.floor(Math.log2(n)) + 1);
const payloadBytes = (bits: number): number => Math.ceil(bits / 8);

function kindBits(c: EtraceConfig, pkt: Packet): number {
  return packetFields(pkt, c.params).reduce((s, f) => s + f.width, 0);
}

/** Sizes of the byte vectors the core moves around. */
export interface CoreSizes {
  /** Bytes of the largest encapsulated packet (the packer's bytes_o). */
  readonly maxLen: number;
  readonly supportLen: number;
  readonly sf2Len: number;
  /** Bytes the encoder can write into the FIFO in one cycle. */
  readonly wrBytes: number;
  readonly wrLenWidth: number;
  /** Width of the FIFO room/need arithmetic. */
  readonly chainWidth: number;
}

export function coreSizes(c: EtraceConfig): CoreSizes {
  const maxLen = 1 + payloadBytes(largestPacketBits(c.params));
  const supportLen = 1 + payloadBytes(kindBits(c, { format: 3n, subformat: 3n }));
  const sf2Len = 1 + payloadBytes(kindBits(c, { format: 3n, subformat: 2n }));
  // pre + main (or the resync report: never both) + sf2 + post; any of them may be the trace_lost support.
  const wrBytes = supportLen + Math.max(maxLen, supportLen) + Math.max(sf2Len, supportLen) + supportLen;
  return {
    maxLen,
    supportLen,
    sf2Len,
    wrBytes,
    wrLenWidth: Math.max(6, bitlen(wrBytes)),
    chainWidth: Math.max(7, bitlen(Math.max(c.params.fifo_depth_p, wrBytes)) + 1),
  };
}

/** Parameters the RTL does not implement yet: a clear error rather than wrong hardware. */
export function checkRtlSupport(c: EtraceConfig): void {
  const p = c.params;
  const unsupported: string[] = [];
  if (p.retires_p !== 1) unsupported.push(`retires_p = ${p.retires_p} (the RTL retires one instruction per block)`);
  if (p.taken_branches_p !== 1) unsupported.push(`taken_branches_p = ${p.taken_branches_p} (the RTL takes one signal group per cycle)`);
  if (p.encap_srcid_width !== 0 || p.encap_type_in !== 'flow') unsupported.push('an encapsulation with srcID or the message type in the payload');
  if (unsupported.length > 0) {
    throw new RvError('invalid-component', `the RTL generator does not implement ${unsupported.join('; ')}`, { path: 'parameters' });
  }
}

/** Widths shared by the core templates. */
export function widths(c: EtraceConfig) {
  const p = c.params;
  const w = packetWidths(p);
  return {
    iaw: p.iaddress_width_p,
    aw: w.address,
    lsb: p.iaddress_lsb_p,
    itw: p.itype_width_p,
    irw: p.iretire_width_p,
    lsw: p.lastsize_width_p,
    pw: p.privilege_width_p,
    ew: p.ecause_width_p,
    ctw: p.ctype_width_p,
    ctxw: hasContextInput(c) ? p.context_width_p : 1,
    timew: hasTimeInput(c) ? p.time_width_p : 1,
    ird: Math.max(1, w.irdepth),
    jcw: Math.max(1, p.cache_size_p),
  };
}

/** `{N'd0, x}`: `x` of `from` bits zero-extended to `to` bits. */
function zeroExtend(x: string, from: number, to: number): string {
  if (to < from) throw new Error(`zeroExtend: ${to} < ${from}`);
  return to === from ? x : `{${to - from}'d0, ${x}}`;
}

export function ingressContext(c: EtraceConfig, banner: string) {
  const wd = widths(c);
  const qualifier = hasQualifier(c);
  const buses = qualifier ? qualifierBuses(c) : [];
  const impw = c.params.impdef_width_p;
  const busTypes = padColumn(buses.map((b) => `logic [${b.width - 1}:0]`));
  const conns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['start_i', 'start_i'],
    ['commit_i', 'advance_i & frame_q'],
    ['itype_i', 'itype_q'],
    ['retired_i', "iretire_q != '0"],
    ['iaddr_i', 'iaddr_q'],
    ['context_i', 'context_q'],
    ['tval_i', 'tval_q'],
    ['priv_i', 'priv_q'],
    ['cause_i', 'cause_q'],
    ...(impw > 0 ? [['impdef_i', 'impdef_q'] as [string, string]] : []),
    ...buses.map((b): [string, string] => [`${b.name}_i`, `${b.name}_i`]),
    ['filtered_o', 'filtered'],
    ['notify_o', 'cmp_notify'],
  ];
  const col = padColumn(conns.map(([port]) => `.${port}`));
  return {
    banner,
    ...wd,
    irwpad: zeroExtend('iretire_q', wd.irw, 32),
    qualifier,
    impdefPort: qualifier && impw > 0,
    impw,
    busPorts: buses.map((b, i) => `input  ${busTypes[i]} ${b.name}_i,`),
    filterConns: conns.map(([, sig], i) => `${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
  };
}

/**
 * One offer of a packet to the FIFO (the model's OutputFifo.offer), as SV statements at the
 * acceptance chain's indentation. `emit`: the packet goes through the model's emit(), whose
 * failure calls lost(); `accepted`: a variable set when the packet itself is taken.
 */
function offerBlock(take: string, lsup: string, len: string, emit: boolean, accepted?: string): string {
  const pad = (n: number) => ' '.repeat(n);
  const lost = (n: number) =>
    [
      `${pad(n)}lost_call = 1'b1;`,
      `${pad(n)}sync_next = 1'b1;`,
      `${pad(n)}awaiting = 1'b1;`,
      `${pad(n)}branches = '0; map = '0; pbc = '0; map_failed = 1'b0; count_failed = 1'b0;`,
    ].join('\n');
  const lines = [
    `if (opt_stall) begin`,
    `  ${take} = 1'b1;`,
    `  need = need + {{chainpad:${len}}};`,
    ...(accepted ? [`  ${accepted} = 1'b1;`] : []),
    `end else if (lost_pending) begin`,
    `  // Trace was lost: the trace_lost support packet goes first, once it fits.`,
    `  if ({{chainpad:lsup_len}} <= room) begin`,
    `    ${take} = 1'b1;`,
    `    ${lsup} = 1'b1;`,
    `    room = room - {{chainpad:lsup_len}};`,
    `    lost_pending = 1'b0;`,
    lost(4),
    `  end`,
    ...(emit ? [lost(2)] : []),
    `end else if ({{chainpad:${len}}} > room) begin`,
    `  lost_pending = 1'b1;`,
    ...(emit ? [lost(2)] : []),
    `end else begin`,
    `  ${take} = 1'b1;`,
    `  room = room - {{chainpad:${len}}};`,
    ...(accepted ? [`  ${accepted} = 1'b1;`] : []),
    `end`,
  ];
  return lines.join('\n');
}

export function encoderContext(c: EtraceConfig, banner: string, packerInstance: (slot: Slot) => string) {
  const p = c.params;
  const wd = widths(c);
  const s = coreSizes(c);
  const fields = descriptorFields(c);
  const chainpad = (x: string) => zeroExtend(x, 6, s.chainWidth);
  const indent = (text: string, n: number) =>
    text
      .replace(/\{\{chainpad:([a-z0-9_]+)\}\}/g, (_m, v: string) => chainpad(v))
      .split('\n')
      .map((l) => ' '.repeat(n) + l)
      .join('\n')
      .trimStart();

  const descriptorDecls: string[] = [];
  for (const slot of SLOTS) {
    descriptorDecls.push(`// ${slot}`);
    descriptorDecls.push(`logic [2:0] ${slot}_kind;`);
    for (const f of fields) {
      const decl = `logic [${(f.width || f.absentWidth || 1) - 1}:0] ${slot}_${f.name};`;
      if (f.width > 0) descriptorDecls.push(decl);
      else descriptorDecls.push('// not sent by this configuration\'s packets: no packer port', '// verilator lint_off UNUSEDSIGNAL', decl, '// verilator lint_on UNUSEDSIGNAL');
    }
    descriptorDecls.push(`logic [8*${s.maxLen}-1:0] ${slot}_bytes;`);
    descriptorDecls.push(`logic [5:0] ${slot}_len;`);
    descriptorDecls.push(`logic [7:0] ${slot}_bits;`);
  }

  const supportAssigns: string[] = [];
  const support: [Slot, string, string][] = [
    ['pre', 'pre_sup_enable', 'pre_sup_status'],
    ['lsup', "1'b1", 'QsTraceLost'],
    ['post', 'post_sup_enable', 'post_sup_status'],
  ];
  for (const [slot, enable, status] of support) {
    supportAssigns.push(`assign ${slot}_kind = KF3Sf3;`);
    for (const f of fields) {
      const value = f.name === 'enable' ? enable : f.name === 'qual_status' ? status : "'0";
      supportAssigns.push(`assign ${slot}_${f.name} = ${value};`);
    }
  }

  const slotBytes = (slot: Slot) => zeroExtend(`${slot}_bytes`, 8 * s.maxLen, 8 * s.wrBytes);
  const slotLen = (slot: Slot) => zeroExtend(`${slot}_len`, 6, s.wrLenWidth);
  const writeSlots = (['pre', 'main', 'sf2', 'rsy', 'post'] as const).map((slot) => {
    const own: Slot = slot === 'rsy' ? 'main' : slot;
    const bytes = slot === 'main' ? 'main_bytes_sel' : `${own}_bytes`;
    const len = slot === 'main' ? 'main_len_sel' : `${own}_len`;
    return {
      take: `take_${slot}`,
      bytes: `(lsup_${slot} ? ${slotBytes('lsup')} : ${zeroExtend(bytes, 8 * s.maxLen, 8 * s.wrBytes)})`,
      len: `(lsup_${slot} ? ${slotLen('lsup')} : ${zeroExtend(len, 6, s.wrLenWidth)})`,
    };
  });

  return {
    banner,
    ...wd,
    itype4: p.itype_width_p === 4,
    ctype2: p.ctype_width_p === 2,
    ratified: p.payload_layout === '2.0' ? 1 : 0,
    hasBpred: p.bpred_size_p > 0 ? 1 : 0,
    hasJtc: p.cache_size_p > 0 ? 1 : 0,
    hasReturns: p.return_stack_size_p > 0 || p.call_counter_size_p > 0 ? 1 : 0,
    hasSijump: p.sijump_p === 1 ? 1 : 0,
    maxLen: s.maxLen,
    wrbytes: s.wrBytes,
    wrlenw: s.wrLenWidth,
    chainw: s.chainWidth,
    sizePad: zeroExtend('c_size_q', 3, p.iaddress_width_p),
    descriptorDecls,
    supportAssigns,
    packerInstances: SLOTS.map(packerInstance),
    writeSlots,
    offerPre: indent(offerBlock('take_pre', 'lsup_pre', 'pre_len', false), 10),
    offerPost: indent(offerBlock('take_post', 'lsup_post', 'post_len', false), 6),
    offerMain: indent(offerBlock('take_main', 'lsup_main', 'main_len_sel', true, 'main_taken'), 12),
    offerSf2: indent(offerBlock('take_sf2', 'lsup_sf2', 'sf2_len', true), 10),
    offerRsy: indent(offerBlock('take_rsy', 'lsup_rsy', 'main_len', true), 14),
  };
}

export function fifoContext(c: EtraceConfig, banner: string) {
  const s = coreSizes(c);
  const depth = c.params.fifo_depth_p;
  const ptrw = bitlen(depth - 1);
  return {
    banner,
    depth,
    ptrw,
    wrbytes: s.wrBytes,
    wrlenw: s.wrLenWidth,
    chainw: s.chainWidth,
    drainPad: zeroExtend('drain', 1, s.chainWidth),
    lenPad: zeroExtend('wr_len_i', s.wrLenWidth, s.chainWidth),
    lenPtrPad: zeroExtend('wr_len_i', s.wrLenWidth, ptrw + 1),
    kPad: `${s.wrLenWidth}'(k)`,
  };
}

export function bpredContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const lsb = p.iaddress_lsb_p;
  const msb = lsb + p.bpred_size_p - 1;
  const unused = [`addr_i[${p.iaddress_width_p - 1}:${msb + 1}]`, ...(lsb > 0 ? [`addr_i[${lsb - 1}:0]`] : [])].join(', ');
  return { banner, iaw: p.iaddress_width_p, entries: 1 << p.bpred_size_p, bits: p.bpred_size_p, msb, lsb, unusedAddr: unused };
}

export function jtcContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const lsb = p.iaddress_lsb_p;
  return { banner, iaw: p.iaddress_width_p, entries: 1 << p.cache_size_p, bits: p.cache_size_p, msb: lsb + p.cache_size_p - 1, lsb };
}

export function irstackContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const stack = p.return_stack_size_p > 0;
  return {
    banner,
    stack,
    iaw: p.iaddress_width_p,
    entries: 1 << p.return_stack_size_p,
    pw: Math.max(1, p.return_stack_size_p),
    dw: Math.max(1, packetWidths(p).irdepth),
    ccbits: p.call_counter_size_p,
    ccmax: (1 << p.call_counter_size_p) - 1,
  };
}

/** A run-time option bus of the qualifier: the register file's output `<name>_o`, `width` bits. */
export interface QualifierBus {
  readonly name: string;
  readonly width: number;
}

/**
 * The register-file outputs etrace_filter takes: trTeInstFilters and the filter and comparator
 * fields, concatenated over the units (unit i in bits [i*W +: W]), in the register file's order.
 */
export function qualifierBuses(c: EtraceConfig): QualifierBus[] {
  return etraceApbRegsContext(c, '')
    .portLines.filter((l) => l.startsWith('output'))
    .map((l) => {
      const m = /^output\s+logic\s+(?:\[(\d+):0\]\s+)?(\w+)_o,?$/.exec(l.trim());
      if (m === null) throw new Error(`qualifierBuses: cannot read ${l}`);
      return { name: m[2]!, width: m[1] === undefined ? 1 : Number(m[1]) + 1 };
    })
    .filter((b) => b.name === 'i_filters' || b.name.startsWith('filter_') || b.name.startsWith('comparator_'));
}

/** Whether the configuration has the qualifier module etrace_filter (rtlFileNames' condition). */
export function hasQualifier(c: EtraceConfig): boolean {
  return c.params.filters_p > 0 || c.params.comparators_p > 0;
}

/** Bits of the trap nesting depth of a filter's ecause / interrupt window (saturating). */
export const TRAP_DEPTH_WIDTH = 16;

/** `x` of `from` bits zero-extended to 64 (from <= 64). */
function zext64(x: string, from: number): string {
  return zeroExtend(x, from, 64);
}

/**
 * Bit `idx` (of `idxw` bits) of unit i's choice vector of `n` bits in the concatenation `vec`
 * (the loop variable `i` picks the unit): 0 when the index is beyond the vector (the model shifts
 * the choice right by the index).
 */
function choiceBit(vec: string, n: number, idx: string, idxw: number): string {
  const sel = Math.log2(n);
  if (idxw <= sel) return `${vec}[i*${n} + ${zeroExtend(idx, idxw, 32)}]`;
  return `((${idx}[${idxw - 1}:${sel}] == '0) && ${vec}[i*${n} + ${zeroExtend(`${idx}[${sel - 1}:0]`, sel, 32)}])`;
}

export function filterContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const wd = widths(c);
  const buses = qualifierBuses(c);
  const types = padColumn(buses.map((b) => `logic [${b.width - 1}:0]`));
  const names = padColumn(buses.map((b) => b.name));
  const qnames = padColumn(buses.map((b) => `${b.name}_q`));
  const impw = p.impdef_width_p;
  return {
    banner,
    ...wd,
    nf: p.filters_p,
    nc: p.comparators_p,
    impw,
    dw: TRAP_DEPTH_WIDTH,
    busPorts: buses.map((b, i) => `input  ${types[i]} ${b.name}_i,`),
    busDecls: buses.map((b, i) => `${types[i]} ${b.name}, ${b.name}_q;`),
    busSelects: buses.map((b, i) => `assign ${names[i]} = start_i ? ${b.name}_i : ${b.name}_q;`),
    busResets: buses.map((_b, i) => `${qnames[i]} <= '0;`),
    busSamples: buses.map((b, i) => `${qnames[i]} <= ${b.name}_i;`),
    iaddr64: zext64('iaddr_i', wd.iaw),
    context64: zext64('context_i', wd.ctxw),
    tval64: zext64('tval_i', wd.iaw),
    impdef32: impw === 0 ? "32'd0" : zeroExtend('impdef_i', impw, 32),
    ecauseBit: choiceBit('filter_match_choice_ecause', 64, 'cause_i', wd.ew),
    privBit: choiceBit('filter_match_choice_privilege', 8, 'priv_i', wd.pw),
    compMatch: p.comparators_p === 8 ? 'w_out' : `{${8 - p.comparators_p}'d0, w_out}`,
    unusedOptions: buses.map((b) => b.name).join(', '),
  };
}
