/**
 * Template contexts of the E-Trace encoder core: etrace_ingress, etrace_filter (filters and
 * comparators, instantiated by the ingress), etrace_encoder, etrace_fifo, the prediction structures
 * (etrace_bpred, etrace_jtc, etrace_irstack) and etrace_top. Every width and
 * every repeated block is prepared here; the templates paste them (architecture.md).
 *
 * The packer (etrace_packer) is instantiated once per packet slot: in each etrace_encoder_step (one
 * per view encoded in a cycle) pre (support before the view's packets), main (the flowchart's
 * packet, or the resync report), alt (the jump target cache's F0 SF1 alternative) and sf2; in
 * etrace_encoder lsup (support with qual_status trace_lost) and post (support that starts or ends a
 * session). Each slot has one signal per descriptor field, named `<slot>_<field>`; a field the
 * configuration does not send is a 1-bit signal left unconnected.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { hasContextInput, hasTimeInput } from '../../golden-model/etrace/ports.ts';
import { etraceApbRegsContext } from './apb-regs.ts';
import { padColumn, svVec } from '../render.ts';
import { packetFields, packetWidths, returnDepthWidth, type Packet } from '../../golden-model/etrace/packet/index.ts';
import { encapsulatedBytes, packerMaxBytes } from './packer.ts';

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

/** The packet slots of a step and of the encoder (see the file comment). */
const STEP_SLOTS = ['pre', 'pnd', 'main', 'alt', 'sf2'] as const;
const ENCODER_SLOTS = ['lsup', 'post'] as const;
type Slot = (typeof STEP_SLOTS)[number] | (typeof ENCODER_SLOTS)[number];

/** Signal groups (blocks) the hart presents in a cycle: taken_branches_p. */
export function groupsPerCycle(c: EtraceConfig): number {
  return c.params.taken_branches_p;
}

/**
 * Views a block makes: a block of several instructions (retires_p > 1) is seen through its first
 * and its last instruction (section 8.3), each encoded by its own step.
 */
export function viewsPerGroup(c: EtraceConfig): number {
  return c.params.retires_p > 1 ? 2 : 1;
}

/** Views the encoder may encode in one cycle: one etrace_encoder_step each, chained. */
export function stepsPerCycle(c: EtraceConfig): number {
  return groupsPerCycle(c) * viewsPerGroup(c);
}

const bitlen = (n: number): number => (n <= 0 ? 1 : Math.floor(Math.log2(n)) + 1);

function kindBits(c: EtraceConfig, pkt: Packet): number {
  return packetFields(pkt, c.params).reduce((s, f) => s + f.width, 0);
}

/** Sizes of the byte vectors the core moves around. */
export interface CoreSizes {
  /** Bytes of the largest encapsulated packet (the packer's bytes_o). */
  readonly maxLen: number;
  readonly supportLen: number;
  readonly sf2Len: number;
  /** Bytes one step can write (its packets of one view). */
  readonly stepBytes: number;
  readonly stepLenWidth: number;
  /** Bytes the encoder can write into the FIFO in one cycle. */
  readonly wrBytes: number;
  readonly wrLenWidth: number;
  /** Width of the FIFO room/need arithmetic. */
  readonly chainWidth: number;
}

export function coreSizes(c: EtraceConfig): CoreSizes {
  const maxLen = packerMaxBytes(c);
  const supportLen = encapsulatedBytes(c.params, kindBits(c, { format: 3n, subformat: 3n }));
  const sf2Len = encapsulatedBytes(c.params, kindBits(c, { format: 3n, subformat: 2n }));
  // A step: pre or the held-back call report (never both: a call is held back only while tracing;
  // only with implicit return) + main (or the resync report: never both) + sf2; then post. Any of
  // them may be the trace_lost support.
  const p = c.params;
  const reports: Packet[] = [{ format: 2n }, { format: 1n, branches: 31n }, ...(p.bpred_size_p > 0 ? [{ format: 0n, subformat: 0n, branch_fmt: 2n }] : [])];
  const heldLen = p.return_stack_size_p > 0 || p.call_counter_size_p > 0 ? Math.max(...reports.map((r) => encapsulatedBytes(p, kindBits(c, r)))) : 0;
  const stepBytes = Math.max(supportLen, heldLen) + Math.max(maxLen, supportLen) + Math.max(sf2Len, supportLen);
  const wrBytes = stepsPerCycle(c) * stepBytes + supportLen;
  return {
    maxLen,
    supportLen,
    sf2Len,
    stepBytes,
    stepLenWidth: Math.max(6, bitlen(stepBytes)),
    wrBytes,
    wrLenWidth: Math.max(6, bitlen(wrBytes)),
    chainWidth: Math.max(7, bitlen(Math.max(c.params.fifo_depth_p, wrBytes)) + 1),
  };
}

/** Parameters the RTL does not implement yet: a clear error rather than wrong hardware. */
export function checkRtlSupport(c: EtraceConfig): void {
  const p = c.params;
  const unsupported: string[] = [];
  if (p.encap_type_in !== 'flow') unsupported.push('the message type in the encapsulation payload');
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

/** `x` of `from` bits as `to` bits: zero-extended, or its low bits (the value fits). */
function resize(x: string, from: number, to: number): string {
  return to >= from ? zeroExtend(x, from, to) : `${x}[${to - 1}:0]`;
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
    ['present_i', 'present'],
    ['itype_i', 'itype_q'],
    ['retired_i', 'retired'],
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
    multi: viewsPerGroup(c) > 1,
    groups: groupsPerCycle(c),
    manyGroups: groupsPerCycle(c) > 1,
    retires: c.params.retires_p,
    blockBytes: `{${wd.iaw - wd.irw - 1}'d0, iretire_q[g*${wd.irw} +: ${wd.irw}], 1'b0}`,
    irwpad: zeroExtend(`iretire_q[g*${wd.irw} +: ${wd.irw}]`, wd.irw, 32),
    qualifier,
    impdefPort: qualifier && impw > 0,
    impw,
    busPorts: buses.map((b, i) => `input  ${busTypes[i]} ${b.name}_i,`),
    filterConns: conns.map(([, sig], i) => `${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
  };
}

/** Where an offer is written: in a step the option and the trace_lost packet are ports, in the encoder signals. */
type OfferSite = 'step' | 'encoder';
const OFFER_SIGNALS: Readonly<Record<OfferSite, { stall: string; lsupLen: string }>> = {
  step: { stall: 'opt_stall_i', lsupLen: 'lsup_len_i' },
  encoder: { stall: 'opt_stall', lsupLen: 'lsup_len' },
};

/**
 * One offer of a packet to the FIFO (the model's OutputFifo.offer), as SV statements at the
 * acceptance chain's indentation. `emit`: the packet goes through the model's emit(), whose
 * failure calls lost(); `accepted`: a variable set when the packet itself is taken.
 */
function offerBlock(where: OfferSite, take: string, lsup: string, len: string, emit: boolean, accepted?: string): string {
  const { stall, lsupLen } = OFFER_SIGNALS[where];
  const pad = (n: number) => ' '.repeat(n);
  const lost = (n: number) =>
    [
      `${pad(n)}lost_call = 1'b1;`,
      `${pad(n)}sync_next = 1'b1;`,
      `${pad(n)}awaiting = 1'b1;`,
      `${pad(n)}branches = '0; map = '0; pbc = '0; map_failed = 1'b0; count_failed = 1'b0;`,
    ].join('\n');
  const lines = [
    `if (${stall}) begin`,
    `  ${take} = 1'b1;`,
    `  need = need + {{chainpad:${len}}};`,
    ...(accepted ? [`  ${accepted} = 1'b1;`] : []),
    `end else if (lost_pending) begin`,
    `  // Trace was lost: the trace_lost support packet goes first, once it fits.`,
    `  if ({{chainpad:${lsupLen}}} <= room) begin`,
    `    ${take} = 1'b1;`,
    `    ${lsup} = 1'b1;`,
    `    room = room - {{chainpad:${lsupLen}}};`,
    `    lost_pending = 1'b0;`,
    lost(4),
    `  end`,
    ...(emit ? [lost(2)] : []),
    `end else if ({{chainpad:${len}}} > room) begin`,
    `  // After a loss (awaiting a sync) the trace is already reported lost: no second report.`,
    `  if (!awaiting) lost_pending = 1'b1;`,
    ...(emit ? [lost(2)] : []),
    `end else begin`,
    `  ${take} = 1'b1;`,
    `  room = room - {{chainpad:${len}}};`,
    ...(accepted ? [`  ${accepted} = 1'b1;`] : []),
    `end`,
  ];
  return lines.join('\n');
}

/** A signal of the encoder state that the steps pass on (the model's encoder fields). */
interface ChainVar {
  readonly name: string;
  readonly width: number;
}

/** The encoder state a step takes and gives, in declaration order. */
function chainState(c: EtraceConfig): ChainVar[] {
  const wd = widths(c);
  const one = (name: string): ChainVar => ({ name, width: 1 });
  return [
    one('lost_pending'), one('awaiting'), one('sync_next'), one('tracing'), one('rep_enable'), one('ir_anchor'),
    one('thaddr0'), one('reason_upd'),
    { name: 'branches', width: 5 },
    { name: 'map', width: 31 },
    { name: 'pbc', width: 33 },
    one('map_failed'), one('count_failed'),
    { name: 'resync', width: 32 },
    { name: 'last_addr', width: wd.iaw },
    one('failed_ret'),
    { name: 'failed_depth', width: wd.ird },
    one('pend'),
    { name: 'pend_addr', width: wd.iaw },
    { name: 'pend_irdepth', width: wd.ird },
    ...(viewsPerGroup(c) > 1 ? [{ name: 'rec_units', width: 32 }] : []),
  ];
}

const vec = (w: number): string => (w === 1 ? 'logic' : `logic [${w - 1}:0]`);

/** Shared by the step and the encoder: the packets' descriptors, support assignments, offer text. */
function slotHelpers(c: EtraceConfig) {
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
  const descriptorDecls = (slots: readonly Slot[]): string[] => {
    const decls: string[] = [];
    const unused: string[] = [];
    for (const slot of slots) {
      decls.push(`// ${slot}`);
      decls.push(`logic [2:0] ${slot}_kind;`);
      for (const f of fields) {
        decls.push(`logic ${svVec(f.width || f.absentWidth || 1)} ${slot}_${f.name};`);
        if (f.width === 0) unused.push(`${slot}_${f.name}`);
      }
      decls.push(`logic ${svVec(8 * s.maxLen)} ${slot}_bytes;`);
      decls.push(`logic [5:0] ${slot}_len;`);
      decls.push(`logic [7:0] ${slot}_bits;`);
    }
    if (unused.length > 0) {
      decls.push("// Fields this configuration's packets do not send (the packer has no port for them).");
      decls.push('logic unused_fields;');
      decls.push(`assign unused_fields = ^{${unused.join(', ')}};`);
    }
    return decls;
  };
  const supportAssigns = (support: readonly [Slot, string, string][]): string[] => {
    const lines: string[] = [];
    for (const [slot, enable, status] of support) {
      lines.push(`assign ${slot}_kind = KF3Sf3;`);
      for (const f of fields) {
        const value = f.name === 'enable' ? enable : f.name === 'qual_status' ? status : "'0";
        lines.push(`assign ${slot}_${f.name} = ${value};`);
      }
    }
    return lines;
  };
  return { s, indent, descriptorDecls, supportAssigns };
}

/** Shared by the step and the encoder templates. */
function coreFlags(c: EtraceConfig) {
  const p = c.params;
  const s = coreSizes(c);
  return {
    ...widths(c),
    multi: viewsPerGroup(c) > 1,
    itype4: p.itype_width_p === 4,
    ctype2: p.ctype_width_p === 2,
    ratified: p.payload_layout === '2.0' ? 1 : 0,
    hasBpred: p.bpred_size_p > 0 ? 1 : 0,
    hasJtc: p.cache_size_p > 0 ? 1 : 0,
    hasReturns: p.return_stack_size_p > 0 || p.call_counter_size_p > 0 ? 1 : 0,
    hasSijump: p.sijump_p === 1 ? 1 : 0,
    flowchart: p.resync_policy === 'flowchart' ? 1 : 0,
    maxLen: s.maxLen,
    chainw: s.chainWidth,
  };
}

/** The context of etrace_encoder_step: one view through the decision, contents and acceptance chain. */
export function stepContext(c: EtraceConfig, banner: string, packerInstance: (slot: Slot) => string) {
  const p = c.params;
  const { s, indent, descriptorDecls, supportAssigns } = slotHelpers(c);
  const state = chainState(c);
  const types = padColumn(state.map((v) => vec(v.width)));
  const statePorts = state.flatMap((v, i) => [`input  ${types[i]} ${v.name}_i,`, `output ${types[i]} ${v.name}_o,`]);
  const ext = (x: string, from: number, to: number) => zeroExtend(x, from, to);
  const writeSlots = (['pre', 'pnd', 'main', 'sf2', 'rsy'] as const).map((slot) => {
    const bytes = slot === 'main' ? 'main_bytes_sel' : slot === 'rsy' ? 'main_bytes' : `${slot}_bytes`;
    const len = slot === 'main' ? 'main_len_sel' : slot === 'rsy' ? 'main_len' : `${slot}_len`;
    return {
      take: `take_${slot}`,
      bytes: `(lsup_${slot} ? ${ext('lsup_bytes_i', 8 * s.maxLen, 8 * s.stepBytes)} : ${ext(bytes, 8 * s.maxLen, 8 * s.stepBytes)})`,
      len: `(lsup_${slot} ? ${ext('lsup_len_i', 6, s.stepLenWidth)} : ${ext(len, 6, s.stepLenWidth)})`,
    };
  });
  return {
    banner,
    ...coreFlags(c),
    stepbytes: s.stepBytes,
    steplenw: s.stepLenWidth,
    sizePad: zeroExtend('c_size_i', 3, p.iaddress_width_p),
    statePorts,
    stateAssigns: state.filter((v) => v.name !== 'rec_units').map((v) => `${v.name}_o = ${v.name};`),
    descriptorDecls: descriptorDecls(STEP_SLOTS),
    supportAssigns: supportAssigns([['pre', 'pre_sup_enable', 'pre_sup_status']]),
    packerInstances: STEP_SLOTS.map(packerInstance),
    writeSlots,
    offerPre: indent(offerBlock('step', 'take_pre', 'lsup_pre', 'pre_len', false), 10),
    offerPnd: indent(offerBlock('step', 'take_pnd', 'lsup_pnd', 'pnd_len', true), 14),
    offerMain: indent(offerBlock('step', 'take_main', 'lsup_main', 'main_len_sel', true, 'main_taken'), 12),
    offerSf2: indent(offerBlock('step', 'take_sf2', 'lsup_sf2', 'sf2_len', true), 10),
    offerRsy: indent(offerBlock('step', 'take_rsy', 'lsup_rsy', 'main_len', true), 14),
  };
}

/** `vec`'s slice for group or port `k` of `w` bits. */
function slice(vec: string, k: number, w: number): string {
  return w === 1 ? `${vec}[${k}]` : `${vec}[${k * w} +: ${w}]`;
}

/**
 * The views of a cycle as the encoder chains them (golden-model/etrace/encoder.ts pushViews and
 * advance): before group g, curr is `C(g)` (the registers for g = 0, else the last view of the
 * newest group before g that had one) and prev `P(g)`. Group g's step A encodes C(g) with the
 * group's first view (or its only view) as next; with blocks of several instructions, step B
 * encodes the first view with the group's last view as next. `Q(g)` is the prev step B sees: C(g)
 * with step A's updiscon (or P(g) when there was no curr).
 */
function viewChain(c: EtraceConfig) {
  const wd = widths(c);
  const groups = groupsPerCycle(c);
  const blocks = viewsPerGroup(c) > 1;
  const stepA = (g: number) => g * viewsPerGroup(c);
  const stepB = (g: number) => stepA(g) + 1;
  /** curr's fields: width and value when group g's last view is curr. */
  const currFields: [string, number, (g: number) => string][] = [
    ['addr', wd.iaw, (g) => slice('view_addr_i', g, wd.iaw)],
    ['itype', wd.itw, (g) => slice('view_itype_i', g, wd.itw)],
    ['retired', 1, (g) => slice('view_retired_i', g, 1)],
    ['size', 3, (g) => slice('view_size_i', g, 3)],
    ['priv', wd.pw, () => 'view_priv_i'],
    ['context', wd.ctxw, () => 'view_context_i'],
    ['ctype', wd.ctw, (g) => slice('view_ctype_i', g, wd.ctw)],
    ['cause', wd.ew, () => 'view_cause_i'],
    ['tval', wd.iaw, () => 'view_tval_i'],
    ['time', wd.timew, () => 'view_time_i'],
    ['sijump', 1, (g) => slice('view_sijump_i', g, 1)],
    ['notify', 1, (g) => slice('view_notify_i', g, 1)],
    ['qualified', 1, (g) => slice('view_qualified_i', g, 1)],
    ['enabled', 1, (g) => slice('view_enabled_i', g, 1)],
    ['units', 32, (g) => slice('view_units_i', g, 32)],
    ...(blocks ? [['starts', 1, (g: number) => `~${slice('first_valid_i', g, 1)}`] as [string, number, (g: number) => string]] : []),
  ];
  const prevFields: [string, number][] = [
    ['addr', wd.iaw], ['itype', wd.itw], ['retired', 1], ['priv', wd.pw], ['cause', wd.ew], ['tval', wd.iaw], ['qualified', 1], ['updiscon', 1],
  ];
  /** A block's first view: no itype, trap or jump of its own (encoder.ts pushViews). */
  const firstView = (g: number): Record<string, string> => ({
    addr: slice('first_addr_i', g, wd.iaw), itype: "'0", retired: "1'b1", size: "3'd0", priv: 'view_priv_i', context: 'view_context_i',
    ctype: slice('first_ctype_i', g, wd.ctw), cause: "'0", tval: "'0", time: 'view_time_i', sijump: "1'b0", notify: "1'b0",
    qualified: slice('view_qualified_i', g, 1), enabled: slice('view_enabled_i', g, 1), units: slice('first_units_i', g, 32), starts: "1'b1",
    updiscon: `st${stepB(g)}_updiscon`,
  });
  const C = (g: number, f: string) => (g === 0 ? (f === 'valid' ? 'curr_valid_q' : `c_${f}_q`) : `c${g}_${f}`);
  const P = (g: number, f: string) => (g === 0 ? `p_${f}_q` : `p${g}_${f}`);
  const Q = (g: number, f: string) => `q${g}_${f}`;
  const valid = (g: number) => slice('view_valid_i', g, 1);
  const first = (g: number) => slice('first_valid_i', g, 1);

  const decls: string[] = [];
  const assigns: string[] = [];
  for (let g = 0; g < groups; g++) {
    decls.push(`// Group ${g}: prev after step A (q${g}: curr with its updiscon, or prev without a curr), then curr (c${g + 1}) and prev (p${g + 1}) after the group.`);
    for (const [f, w] of prevFields) {
      decls.push(`${vec(w)} ${Q(g, f)};`);
      const fromC = f === 'updiscon' ? `st${stepA(g)}_updiscon` : C(g, f);
      assigns.push(`assign ${Q(g, f)} = ${C(g, 'valid')} ? ${fromC} : ${P(g, f)};`);
    }
    if (g + 1 < groups) {
      // (After the last group a view is curr exactly when shift_in.)
      decls.push(`logic ${C(g + 1, 'valid')};`);
      assigns.push(`assign ${C(g + 1, 'valid')} = ${valid(g)} | ${C(g, 'valid')};`);
    }
    for (const [f, w, value] of currFields) {
      decls.push(`${vec(w)} ${C(g + 1, f)};`);
      assigns.push(`assign ${C(g + 1, f)} = ${valid(g)} ? ${value(g)} : ${C(g, f)};`);
    }
    for (const [f, w] of prevFields) {
      decls.push(`${vec(w)} ${P(g + 1, f)};`);
      const after = blocks ? `(${first(g)} ? ${firstView(g)[f]} : ${Q(g, f)})` : Q(g, f);
      assigns.push(`assign ${P(g + 1, f)} = ${valid(g)} ? ${after} : ${P(g, f)};`);
    }
    // The view after C(g) as step A sees it: the group's first view, or its view, or at the end of
    // a session (group 0 only) nothing (unqualified).
    const fin = (x: string, end: string) => (g === 0 ? `finish ? ${end} : ${x}` : x);
    const orFirst = (x: string, f: string) => (blocks ? `${first(g)} ? ${f} : ${x}` : x);
    decls.push(`logic [${wd.iaw - 1}:0] n${g}_addr;`, `logic [${wd.itw - 1}:0] n${g}_itype;`, `logic n${g}_retired, n${g}_qualified;`, `logic [${wd.ctw - 1}:0] n${g}_ctype;`);
    assigns.push(
      `assign n${g}_addr = ${fin(orFirst(slice('view_addr_i', g, wd.iaw), slice('first_addr_i', g, wd.iaw)), "'0")};`,
      `assign n${g}_itype = ${fin(orFirst(slice('view_itype_i', g, wd.itw), "'0"), "'0")};`,
      `assign n${g}_retired = ${g === 0 ? '~finish & ' : ''}(${blocks ? `${first(g)} | ` : ''}${slice('view_retired_i', g, 1)});`,
      `assign n${g}_qualified = ${g === 0 ? '~finish & ' : ''}${slice('view_qualified_i', g, 1)};`,
      `assign n${g}_ctype = ${fin(orFirst(slice('view_ctype_i', g, wd.ctw), slice('first_ctype_i', g, wd.ctw)), "'0")};`,
    );
  }
  const currRegs = currFields.map(([f]) => [f, C(groups, f)] as const);
  const prevRegs = prevFields.map(([f]) => [f, P(groups, f)] as const);
  return { decls, assigns, currFields, firstView, C, P, Q, stepA, stepB, currRegs, prevRegs };
}

type ViewChain = ReturnType<typeof viewChain>;

/** One etrace_encoder_step instance: step `k` of the cycle, step A or B of group `g`. */
function stepInstance(c: EtraceConfig, chain: ViewChain, g: number, isB: boolean): string {
  const wd = widths(c);
  const k = isB ? chain.stepB(g) : chain.stepA(g);
  const valid = slice('view_valid_i', g, 1);
  const encode = isB
    ? `session_q & ${valid} & ${slice('first_valid_i', g, 1)}`
    : `session_q & ${chain.C(g, 'valid')} & ${g === 0 ? `(${valid} | finish)` : valid}`;
  const conns: [string, string][] = [
    ['encode_i', encode],
    ...['stall', 'full', 'iexc', 'sij', 'ir', 'bp', 'jtc', 'rmode', 'rmax'].map((o): [string, string] => [`opt_${o}_i`, `opt_${o}`]),
    ...['addr', 'itype', 'retired', 'priv', 'cause', 'tval', 'qualified', 'updiscon'].map((f): [string, string] => [`p_${f}_i`, isB ? chain.Q(g, f) : chain.P(g, f)]),
  ];
  const first = chain.firstView(g);
  conns.push(...chain.currFields.map(([f]): [string, string] => [`c_${f}_i`, isB ? first[f]! : chain.C(g, f)]));
  const nextFields: [string, string, string][] = [
    ['itype', `n${g}_itype`, slice('view_itype_i', g, wd.itw)],
    ['retired', `n${g}_retired`, slice('view_retired_i', g, 1)],
    ['qualified', `n${g}_qualified`, slice('view_qualified_i', g, 1)],
    ['priv', 'view_priv_i', 'view_priv_i'],
    ['ctype', `n${g}_ctype`, slice('view_ctype_i', g, wd.ctw)],
  ];
  conns.push(...nextFields.map(([f, a, b]): [string, string] => [`n_${f}_i`, isB ? b : a]));
  conns.push(
    ...STRUCTURE_SIGNALS.map(([name, dir]): [string, string] => [`${name}_${dir === 'in' ? 'i' : 'o'}`, `st${k}_${name}`]),
    ['updiscon_o', `st${k}_updiscon`],
    ['lsup_bytes_i', 'lsup_bytes'],
    ['lsup_len_i', 'lsup_len'],
  );
  for (const v of chainState(c)) conns.push([`${v.name}_i`, `s${k}_${v.name}`], [`${v.name}_o`, `s${k + 1}_${v.name}`]);
  conns.push(
    ['room_i', `s${k}_room`],
    ['need_i', `s${k}_need`],
    ['room_o', `s${k + 1}_room`],
    ['need_o', `s${k + 1}_need`],
    ['lost_call_o', `st${k}_lost_call`],
    ['wr_len_o', `st${k}_wr_len`],
    ['wr_data_o', `st${k}_wr_data`],
  );
  const col = padColumn(conns.map(([port]) => `.${port}`));
  return [
    `  // Step ${k}: ${isB ? `group ${g}'s first view, with the group's last view as next` : `curr before group ${g}, with the group's ${viewsPerGroup(c) > 1 ? 'first (or only) ' : ''}view as next`}.`,
    `  etrace_encoder_step u_step${k} (`,
    ...conns.map(([, sig], i) => `    ${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
    '  );',
  ].join('\n');
}

/** A step's signals to and from the prediction structures (port k of each is step k). */
const STRUCTURE_SIGNALS: readonly (readonly [string, 'in' | 'out', (w: ReturnType<typeof widths>) => number])[] = [
  ['bp_taken', 'in', () => 1],
  ['bp_update', 'out', () => 1],
  ['jtc_hit', 'in', () => 1],
  ['jtc_index', 'in', (w) => w.jcw],
  ['jtc_update', 'out', () => 1],
  ['ir_depth', 'in', (w) => w.ird],
  ['ir_predicts', 'in', () => 1],
  ['ir_push', 'out', () => 1],
  ['ir_push_addr', 'out', (w) => w.iaw],
  ['ir_pop', 'out', () => 1],
  ['synced', 'out', () => 1],
];

/**
 * The prediction structures' instances (or, without one, its inputs to the steps tied off), port
 * k = step k: the predictor and the jump target cache look up the step's curr, the return stack
 * its next; a synchronisation clears a structure when its mode is on.
 */
function structureInstances(c: EtraceConfig, chain: ViewChain): string[] {
  const p = c.params;
  const wd = widths(c);
  const groupIndexes = Array.from({ length: groupsPerCycle(c) }, (_v, g) => g);
  const steps: { curr: string; next: string; taken: string }[] = [];
  for (const g of groupIndexes) {
    steps.push({ curr: chain.C(g, 'addr'), next: `n${g}_addr`, taken: `${chain.C(g, 'retired')} & (${chain.C(g, 'itype')} == ${wd.itw}'d5)` });
    if (viewsPerGroup(c) > 1) steps.push({ curr: slice('first_addr_i', g, wd.iaw), next: slice('view_addr_i', g, wd.iaw), taken: "1'b0" });
  }
  const instance = (module: string, name: string, perPort: (k: number) => [string, string][]): string[] => {
    const conns: [string, string][] = [['clk_i', 'clk_i'], ['rst_ni', 'rst_ni'], ['commit_i', 'commit'], ...steps.flatMap((_s, k) => perPort(k))];
    const col = padColumn(conns.map(([port]) => `.${port}`));
    return [`${module} ${name} (`, ...conns.map(([, sig], i) => `  ${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`), ');'];
  };
  /** No such structure: the steps' lookups are constants, their updates (and `unread`) unused. */
  const tieOff = (what: string, lookups: [string, string][], updates: string[], unread: string[] = []): string[] => [
    `// No ${what}: its lookups are constant, its updates unused.`,
    ...steps.flatMap((_s, k) => lookups.map(([sig, value]) => `assign st${k}_${sig} = ${value};`)),
    `logic unused_${what};`,
    `assign unused_${what} = ^{ ${[...steps.flatMap((_s, k) => updates.map((u) => `st${k}_${u}`)), ...unread].join(', ')} };`,
  ];
  const lines: string[] = [];
  lines.push(
    ...(p.bpred_size_p > 0
      ? instance('etrace_bpred', 'u_bpred', (k) => [
          [`addr${k}_i`, steps[k]!.curr],
          [`taken${k}_o`, `st${k}_bp_taken`],
          [`update${k}_i`, `st${k}_bp_update`],
          [`outcome${k}_i`, steps[k]!.taken],
          [`clear${k}_i`, `st${k}_synced & opt_bp`],
        ])
      : tieOff('bpred', [['bp_taken', "1'b0"]], ['bp_update'])),
    '',
    ...(p.cache_size_p > 0
      ? instance('etrace_jtc', 'u_jtc', (k) => [
          [`target${k}_i`, steps[k]!.curr],
          [`hit${k}_o`, `st${k}_jtc_hit`],
          [`index${k}_o`, `st${k}_jtc_index`],
          [`update${k}_i`, `st${k}_jtc_update`],
          [`clear${k}_i`, `st${k}_synced & opt_jtc`],
        ])
      : tieOff('jtc', [['jtc_hit', "1'b0"], ['jtc_index', "'0"]], ['jtc_update'])),
    '',
    ...(p.return_stack_size_p > 0 || p.call_counter_size_p > 0
      ? instance('etrace_irstack', 'u_irstack', (k) => [
          [`target${k}_i`, steps[k]!.next],
          [`depth${k}_o`, `st${k}_ir_depth`],
          [`predicts${k}_o`, `st${k}_ir_predicts`],
          [`clear${k}_i`, `st${k}_synced & opt_ir`],
          [`push${k}_i`, `st${k}_ir_push`],
          [`push_addr${k}_i`, `st${k}_ir_push_addr`],
          [`pop${k}_i`, `st${k}_ir_pop`],
        ])
      : tieOff('irstack', [['ir_depth', "'0"], ['ir_predicts', "1'b0"]], ['ir_push', 'ir_pop', 'ir_push_addr'], groupIndexes.map((g) => `n${g}_addr`))),
  );
  if (p.bpred_size_p === 0 && p.cache_size_p === 0 && p.return_stack_size_p === 0 && p.call_counter_size_p === 0) {
    lines.push('', 'logic unused_synced;', `assign unused_synced = ^{ ${steps.map((_s, k) => `st${k}_synced`).join(', ')} };`);
  }
  return lines;
}

export function encoderContext(c: EtraceConfig, banner: string, packerInstance: (slot: Slot) => string) {
  const wd = widths(c);
  const { s, indent, descriptorDecls, supportAssigns } = slotHelpers(c);
  const steps = stepsPerCycle(c);
  const chainVars = [...chainState(c), { name: 'room', width: s.chainWidth }, { name: 'need', width: s.chainWidth }];
  const stepIndexes = Array.from({ length: steps }, (_v, k) => k);
  const views = viewChain(c);

  const stepDecls: string[] = [];
  for (let k = 0; k <= steps; k++) {
    stepDecls.push(`// The state ${k === 0 ? 'before step 0' : `after step ${k - 1}`}.`);
    stepDecls.push(...chainVars.map((v) => `${vec(v.width)} s${k}_${v.name};`));
  }
  for (const k of stepIndexes) {
    stepDecls.push(`// Step ${k}'s decision about its curr and its packets.`);
    for (const [name, , width] of STRUCTURE_SIGNALS) stepDecls.push(`${vec(width(wd))} st${k}_${name};`);
    stepDecls.push(
      `logic st${k}_updiscon, st${k}_lost_call;`,
      `logic [${s.stepLenWidth - 1}:0] st${k}_wr_len;`,
      `logic ${svVec(8 * s.stepBytes)} st${k}_wr_data;`,
    );
  }
  const stepStateInputs = chainVars
    .filter((v) => v.name !== 'lost_pending')
    .map((v) => `assign s0_${v.name} = ${v.name === 'room' ? 'fifo_free_i' : v.name === 'need' ? "'0" : `${v.name}_q`};`);

  // The post offer works on local variables named as in the steps and writes f_* once.
  const finalVars = [...chainVars, { name: 'lost_call', width: 1 }];
  const kept = finalVars.filter((v) => v.name !== 'room' && v.name !== 'need');
  const finalDecls = kept.map((v) => `${vec(v.width)} f_${v.name};`);
  const finalLocals = finalVars.map((v) => `${vec(v.width)} ${v.name};`);
  const finalInits = [
    ...chainVars.map((v) => `${v.name} = s${steps}_${v.name};`),
    `lost_call = ${stepIndexes.map((k) => `st${k}_lost_call`).join(' | ')};`,
  ];
  const finalResults = kept.map((v) => `f_${v.name} = ${v.name};`);

  const ext = (x: string, from: number, to: number) => zeroExtend(x, from, to);
  const writeParts = [
    ...stepIndexes.map((k) => ({
      take: `st${k}_wr_len != '0`,
      bytes: ext(`st${k}_wr_data`, 8 * s.stepBytes, 8 * s.wrBytes),
      len: ext(`st${k}_wr_len`, s.stepLenWidth, s.wrLenWidth),
    })),
    {
      take: 'take_post',
      bytes: `(lsup_post ? ${ext('lsup_bytes', 8 * s.maxLen, 8 * s.wrBytes)} : ${ext('post_bytes', 8 * s.maxLen, 8 * s.wrBytes)})`,
      len: `(lsup_post ? ${ext('lsup_len', 6, s.wrLenWidth)} : ${ext('post_len', 6, s.wrLenWidth)})`,
    },
  ];
  const groups = Array.from({ length: groupsPerCycle(c) }, (_v, g) => g);

  return {
    banner,
    ...coreFlags(c),
    groups: groupsPerCycle(c),
    steps,
    manyGroups: groupsPerCycle(c) > 1,
    wrbytes: s.wrBytes,
    wrlenw: s.wrLenWidth,
    lenPad: zeroExtend('wr_len_o', s.wrLenWidth, s.chainWidth),
    viewsNeed: `s${steps}_need`,
    chunkLen: resize('chunk', s.chainWidth, s.wrLenWidth),
    descriptorDecls: descriptorDecls(ENCODER_SLOTS),
    supportAssigns: supportAssigns([
      ['lsup', "1'b1", 'QsTraceLost'],
      ['post', 'post_sup_enable', 'post_sup_status'],
    ]),
    packerInstances: ENCODER_SLOTS.map(packerInstance),
    viewDecls: views.decls,
    viewAssigns: views.assigns,
    structureInstances: structureInstances(c, views),
    stepDecls,
    stepStateInputs,
    stepInstances: groups.flatMap((g) => [stepInstance(c, views, g, false), ...(viewsPerGroup(c) > 1 ? [stepInstance(c, views, g, true)] : [])]),
    currUpdates: views.currRegs.map(([f, v]) => `c_${f}_d = ${v};`),
    prevUpdates: views.prevRegs.map(([f, v]) => `p_${f}_d = ${v};`),
    finalDecls,
    finalLocals,
    finalInits,
    finalResults,
    writeParts,
    offerPost: indent(offerBlock('encoder', 'take_post', 'lsup_post', 'post_len', false), 6),
  };
}

/**
 * The output FIFO's geometry: byte lanes, a power of two at least as wide as the longest write
 * (the encoder's write port, or the depth if that is less), and rows enough for the depth.
 */
function fifoGeometry(wrBytes: number, depth: number) {
  const lanes = 2 ** bitlen(Math.min(wrBytes, depth) - 1);
  const rows = Math.ceil(depth / lanes);
  return { lanes, rows, laneWidth: bitlen(lanes - 1), rowWidth: Math.max(1, bitlen(rows - 1)) };
}

export function fifoContext(c: EtraceConfig, banner: string) {
  const s = coreSizes(c);
  const depth = c.params.fifo_depth_p;
  const g = fifoGeometry(s.wrBytes, depth);
  const ptrw = g.laneWidth + g.rowWidth;
  // Whether lane i takes a byte: (i - wlane) mod Lanes, in the lane width, is below the write's
  // length.
  const k = `Lw'(i) - wlane`;
  const takes = s.wrLenWidth >= g.laneWidth ? `${zeroExtend(`(${k})`, g.laneWidth, s.wrLenWidth)} < wr_len_i` : `(${k}) < ${zeroExtend('wr_len_i', s.wrLenWidth, g.laneWidth)}`;
  return {
    banner,
    depth,
    lanes: g.lanes,
    rows: g.rows,
    size: g.lanes * g.rows,
    lanew: g.laneWidth,
    roww: g.rowWidth,
    wrbytes: s.wrBytes,
    wrlenw: s.wrLenWidth,
    chainw: s.chainWidth,
    drainPad: zeroExtend('drain', 1, s.chainWidth),
    lenPad: zeroExtend('wr_len_i', s.wrLenWidth, s.chainWidth),
    // A write never exceeds the room left (at most the depth), so with a small FIFO and a wide
    // write port the length's high bits are always 0 for the pointer arithmetic.
    lenPtrPad: s.wrLenWidth <= ptrw + 1 ? zeroExtend('wr_len_i', s.wrLenWidth, ptrw + 1) : `wr_len_i[${ptrw}:0]`,
    // The write data on the lanes: a write is never longer than the lanes (nor than the depth).
    dataPad: s.wrBytes <= g.lanes ? zeroExtend('wr_data_i', 8 * s.wrBytes, 8 * g.lanes) : `wr_data_i[${8 * g.lanes - 1}:0]`,
    unusedData: s.wrBytes > g.lanes ? `wr_data_i[${8 * s.wrBytes - 1}:${8 * g.lanes}]` : '',
    takes,
    chunks: Array.from({ length: Math.ceil(g.lanes / 32) }, (_v, j) => ({ base: j * 32, end: Math.min(g.lanes, (j + 1) * 32) })),
  };
}

/** The ports of a prediction structure, one per step: port k forwards the operations of ports 0..k-1. */
function structurePortList(c: EtraceConfig) {
  return Array.from({ length: stepsPerCycle(c) }, (_v, k) => ({
    k,
    next: k + 1,
    earlier: Array.from({ length: k }, (_w, m) => ({ m, after: m + 1 })),
  }));
}

export function bpredContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const ports = structurePortList(c);
  const lsb = p.iaddress_lsb_p;
  const msb = lsb + p.bpred_size_p - 1;
  const iaw = p.iaddress_width_p;
  // The address bits outside the index.
  const unused = ports.flatMap(({ k }) => [`addr${k}_i[${iaw - 1}:${msb + 1}]`, ...(lsb > 0 ? [`addr${k}_i[${lsb - 1}:0]`] : [])]);
  const entries = 1 << p.bpred_size_p;
  return { banner, ports, multi: ports.length > 1, iaw, entries, tablew: 2 * entries, tableReset: `{${entries}{2'b01}}`, bits: p.bpred_size_p, msb, lsb, unusedAddr: unused.join(', ') };
}

export function jtcContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const lsb = p.iaddress_lsb_p;
  const ports = structurePortList(c);
  return { banner, ports, multi: ports.length > 1, iaw: p.iaddress_width_p, entries: 1 << p.cache_size_p, bits: p.cache_size_p, msb: lsb + p.cache_size_p - 1, lsb };
}

export function irstackContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const ports = structurePortList(c);
  return {
    banner,
    ports,
    multi: ports.length > 1,
    stack: p.return_stack_size_p > 0,
    iaw: p.iaddress_width_p,
    entries: 1 << p.return_stack_size_p,
    pw: Math.max(1, p.return_stack_size_p),
    dw: Math.max(1, returnDepthWidth(p)),
    ccbits: p.call_counter_size_p,
    ccmax: (1 << p.call_counter_size_p) - 1,
    unusedCounter: ports.flatMap(({ k }) => [`target${k}_i`, `push_addr${k}_i`]).join(', '),
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
  return registerOutputs(c).filter((b) => b.name === 'i_filters' || b.name.startsWith('filter_') || b.name.startsWith('comparator_'));
}

/** Every output of the register file other than the APB read data and handshake: `<name>_o`, `width` bits. */
export function registerOutputs(c: EtraceConfig): QualifierBus[] {
  return etraceApbRegsContext(c, '')
    .portLines.filter((l) => l.startsWith('output'))
    .map((l) => {
      const m = /^output\s+logic\s+(?:\[(\d+):0\]\s+)?(\w+)_o,?$/.exec(l.trim());
      if (m === null) throw new Error(`registerOutputs: cannot read ${l}`);
      return { name: m[2]!, width: m[1] === undefined ? 1 : Number(m[1]) + 1 };
    })
    .filter((b) => !['prdata', 'pready', 'pslverr'].includes(b.name));
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
    depthsw: p.filters_p * TRAP_DEPTH_WIDTH,
    impw,
    dw: TRAP_DEPTH_WIDTH,
    busPorts: buses.map((b, i) => `input  ${types[i]} ${b.name}_i,`),
    busDecls: buses.map((b, i) => `${types[i]} ${b.name}, ${b.name}_q;`),
    busSelects: buses.map((b, i) => `assign ${names[i]} = start_i ? ${b.name}_i : ${b.name}_q;`),
    busResets: buses.map((_b, i) => `${qnames[i]} <= '0;`),
    busSamples: buses.map((b, i) => `${qnames[i]} <= ${b.name}_i;`),
    iaddr64: zext64(`iaddr_i[g*${wd.iaw} +: ${wd.iaw}]`, wd.iaw),
    groups: groupsPerCycle(c),
    multi: groupsPerCycle(c) > 1,
    context64: zext64('context_i', wd.ctxw),
    tval64: zext64('tval_i', wd.iaw),
    impdef32: impw === 0 ? "32'd0" : zeroExtend('impdef_i', impw, 32),
    ecauseBit: choiceBit('filter_match_choice_ecause', 64, 'cause_i', wd.ew),
    privBit: choiceBit('filter_match_choice_privilege', 8, 'priv_i', wd.pw),
    compMatch: p.comparators_p === 8 ? 'w_out' : `{${8 - p.comparators_p}'d0, w_out}`,
    unusedOptions: buses.map((b) => b.name).join(', '),
  };
}
