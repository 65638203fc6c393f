/**
 * Template contexts of the E-Trace encoder core: etrace_ingress, etrace_filter (filters and
 * comparators, instantiated by the ingress), etrace_encoder, etrace_fifo, the prediction structures
 * (etrace_bpred, etrace_jtc, etrace_irstack) and etrace_top. Every width and
 * every repeated block is prepared here; the templates paste them (architecture.md).
 *
 * etrace_encoder_step (one per view encoded in a cycle) is three modules: etrace_step_decision,
 * etrace_step_contents and etrace_step_accept; their ports come from one table (stepPorts,
 * stepLinks). The packer (etrace_packer) is instantiated once per packet slot: in each
 * etrace_step_contents pre (support before the view's packets), main (the flowchart's packet, or
 * the resync report), alt (the jump target cache's F0 SF1 alternative, with a jump target cache
 * only) and sf2; in
 * etrace_encoder lsup (support with qual_status trace_lost) and post (support that starts or ends a
 * session). Each slot has one signal per descriptor field, named `<slot>_<field>`; a field the
 * configuration does not send is a 1-bit signal left unconnected.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { hasContextInput, hasTimeInput } from '../../golden-model/etrace/ports.ts';
import { qualifierBuses } from './apb-regs.ts';
import { padColumn, svLogic, svVec } from '../render.ts';
import { svChunkedIncrement, svConditionalSumAdd, svSmallOffsetAdd } from '../sv-arith.ts';
import { IRETS_WIDTH, iretExtension, packetWidths, returnDepthWidth } from '../../golden-model/etrace/packet/index.ts';
import { PACKER_KINDS } from './packer.ts';
import { checkDataRtlSupport, dataEncoderPorts, dataGroups, dataMaxBytes, dataResponseMaxBytes } from './data.ts';
import { DATA_SITE_VARS, dataSite, dataSiteBefore, offerBlock, pipelineStages, reservationParams, reserving, roomBits, roomChain, STEP_WRITES, stepPipe, stepStages } from './acceptance.ts';
import { bitlen, blockViews, coreSizes, groupsPerCycle, hartGroups, serialViews, stepsPerCycle, viewsPerGroup } from './shape.ts';

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
    { name: 'irets', width: w.irets },
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
const STEP_SLOTS = ['pre', 'main', 'alt', 'sf2'] as const;
const ENCODER_SLOTS = ['lsup', 'post'] as const;
type StepSlot = (typeof STEP_SLOTS)[number];
type Slot = StepSlot | (typeof ENCODER_SLOTS)[number];

/** Parameters the RTL does not implement yet: a clear error rather than wrong hardware. */
export function checkRtlSupport(c: EtraceConfig): void {
  const p = c.params;
  const unsupported: string[] = [];
  if (p.encap_type_in !== 'flow') unsupported.push('the message type in the encapsulation payload');
  if (unsupported.length > 0) {
    throw new RvError('invalid-component', `the RTL generator does not implement ${unsupported.join('; ')}`, { path: 'parameters' });
  }
  checkDataRtlSupport(c);
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
    iretExt: iretExtension(p) ? 1 : 0,
    /** The return stack's depth or the call count (1 bit without either). */
    irdw: Math.max(1, returnDepthWidth(p)),
    /** The value after irreport the encoder keeps: irets (Implicit Return extension) or irdepth. */
    irv: iretExtension(p) ? IRETS_WIDTH : Math.max(1, w.irdepth),
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
  // Serial views: the views come from the group in work (grp_*) when the hart has several groups,
  // and a block's first view commits nothing (its last does).
  const serial = serialViews(c);
  const manyHartGroups = serial && hartGroups(c) > 1;
  const serialBlocks = serial && blockViews(c);
  const src = Object.fromEntries(['itype', 'iretire', 'ilastsize', 'iaddr', 'sijump', 'trigger', 'ctype'].map((n) => [n, manyHartGroups ? `grp_${n}` : `${n}_q`]));
  const commit = serialBlocks ? ['advance_i & frame_q & ~handing_first', 'advance_i && frame_q && !handing_first'] : ['advance_i & frame_q', 'advance_i && frame_q'];
  const nextGroup = "(later_group ? next_group : '0)";
  const conns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['start_i', 'start_i'],
    ['commit_i', commit[0]!],
    ['present_i', 'present'],
    ['itype_i', src.itype!],
    ['retired_i', 'retired'],
    ['iaddr_i', src.iaddr!],
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
    multi: blockViews(c),
    firstPorts: viewsPerGroup(c) > 1,
    countRegistered: countRegistered(c),
    groups: groupsPerCycle(c),
    hartGroups: hartGroups(c),
    manyGroups: groupsPerCycle(c) > 1,
    serial,
    manyHartGroups,
    serialBlocks,
    groupBits: bitlen(hartGroups(c) - 1),
    hartCycle: hartGroups(c) === 1 ? 'one signal group' : `${hartGroups(c)} signal groups`,
    take: serial ? 'take_cycle' : 'advance_i',
    moreExpr: [...(serialBlocks ? ['handing_first'] : []), ...(manyHartGroups ? ['later_group'] : [])].join(' | '),
    groupNext: serialBlocks ? `(advance_i && !handing_first) ? ${nextGroup} : group_q` : `advance_i ? ${nextGroup} : group_q`,
    commit: commit[1],
    taken: serialBlocks ? "group's last view" : 'cycle',
    src,
    retires: c.params.retires_p,
    ...lastAddresses(c, src),
    qualifier,
    impdefPort: qualifier && impw > 0,
    impw,
    busPorts: buses.map((b, i) => `input  ${busTypes[i]} ${b.name}_i,`),
    filterConns: conns.map(([, sig], i) => `${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
  };
}

/**
 * The address of each block's last instruction (blocks of several instructions): its first's plus
 * the bytes before the last, a small non-negative offset ({iretire, 0} less the last instruction's
 * size), added without a carry through every address bit (a plain add of the address, the block's
 * bytes and minus the size was two 64-bit carry chains, 82 levels from the ingress's registers).
 * `last_addr` holds group g's in bits [g*Iaw +: Iaw].
 */
function lastAddresses(c: EtraceConfig, src: Record<string, string>): { lastAddrDecls: string[]; lastAddrRows: string[] } {
  if (!blockViews(c)) return { lastAddrDecls: [], lastAddrRows: [] };
  const wd = widths(c);
  const ow = wd.irw + 2;
  const decls = [`logic [${groupsPerCycle(c) * wd.iaw - 1}:0] last_addr;`];
  const rows: string[] = [];
  for (let g = 0; g < groupsPerCycle(c); g++) {
    const [first, bytes, off, out] = [`block_addr${g}`, `last_bytes${g}`, `last_offset${g}`, `last_addr${g}`];
    // The offset's sign bit is a constant 0 (the bytes before the last are never negative), so
    // the add's - 1 branch is optimised away.
    const add = svSmallOffsetAdd(out, first, wd.iaw, off, ow);
    decls.push(`logic [${wd.iaw - 1}:0] ${first}, ${out};`, `logic [${wd.irw}:0] ${bytes};`, `logic [${ow - 1}:0] ${off};`, ...add.declarations);
    rows.push(
      `assign ${first} = ${src.iaddr}[${g * wd.iaw} +: ${wd.iaw}];`,
      `assign ${bytes} = {${src.iretire}[${g * wd.irw} +: ${wd.irw}], 1'b0} - (${src.ilastsize}[${g * wd.lsw}] ? ${wd.irw + 1}'d4 : ${wd.irw + 1}'d2);`,
      `assign ${off} = {1'b0, ${bytes}};`,
      ...add.rows,
      `assign last_addr[${g * wd.iaw} +: ${wd.iaw}] = ${out};`,
    );
  }
  return { lastAddrDecls: decls, lastAddrRows: rows };
}

/**
 * With one step a cycle (one view a block, one block a cycle) the encoder keeps the resync count
 * plus curr's units in a register of its own (count_q), so that the decision compares it with the
 * threshold from flops instead of after a 32-bit add (issue 25: that add and compare started the
 * longest path of every such component). Not with blocks handed over a view a clock (serial
 * views), whose units belong to the record across its two views (rec_units).
 */
export function countRegistered(c: EtraceConfig): boolean {
  return stepsPerCycle(c) === 1 && !blockViews(c);
}

/**
 * With one step a cycle, what the prediction structures answer at curr is registered when the
 * cycle commits, from the address curr has next and the structures as the cycle leaves them: the
 * predictor's entry, the jump target cache's hit and the return stack's top entry come from flops,
 * off the decision's path (several steps a cycle look each other's updates up in the cycle).
 */
export function lookupsRegistered(c: EtraceConfig): boolean {
  return stepsPerCycle(c) === 1;
}

/**
 * The arriving view's units added to each count a cycle can leave before them (countRegistered):
 * resync_q (nothing encoded), count_q (curr encoded) and c_units_q (curr encoded after a sync).
 * The units come in their two parts, both from flops (the idle units pending and the record's
 * own, view_units_i being their sum saturated): three operands, summed by a carry-save row and a
 * short-path adder of 34 bits whose top bits saturate the count.
 */
function countSums(c: EtraceConfig): string[] {
  const rec = (w: number) => zeroExtend('view_record_units_i', c.params.iretire_width_p, w);
  return ([['rv', 'resync_q'], ['cv', 'count_q'], ['uv', 'c_units_q']] as const).flatMap(([name, base]) => {
    const [x, y] = [`{1'b0, ${base}}`, "{1'b0, view_pending_i}"];
    const add = svConditionalSumAdd(`cnt_${name}_sum`, `{1'b0, cnt_${name}_ps}`, `{cnt_${name}_pc, 1'b0}`, 34);
    return [
      `logic [32:0] cnt_${name}_ps, cnt_${name}_pc;  // the carry-save row: sums and carries`,
      `logic [33:0] cnt_${name}_sum;`,
      `logic [31:0] cnt_${name};`,
      ...add.declarations,
      `assign cnt_${name}_ps = ${x} ^ ${y} ^ ${rec(33)};`,
      `assign cnt_${name}_pc = (${x} & ${y}) | (${x} & ${rec(33)}) | (${y} & ${rec(33)});`,
      ...add.rows,
      `assign cnt_${name} = (cnt_${name}_sum[33:32] != 2'b00) ? 32'hffff_ffff : cnt_${name}_sum[31:0];`,
    ];
  });
}

/** A signal of the encoder state that the steps pass on (the model's encoder fields). */
interface ChainVar {
  readonly name: string;
  readonly width: number;
  /**
   * The parts of a step that read the value the step starts from besides the acceptance chain
   * (which reads every one of them and gives the value the step leaves).
   */
  readonly readBy?: readonly StepPart[];
}

/** The encoder state a step takes and gives, in declaration order. */
function chainState(c: EtraceConfig): ChainVar[] {
  const wd = widths(c);
  const v = (name: string, width: number, readBy: StepPart[] = []): ChainVar => ({ name, width, readBy });
  return [
    v('lost_pending', 1), v('awaiting', 1, ['decision']), v('sync_next', 1, ['decision']), v('tracing', 1, ['decision']),
    v('rep_enable', 1, ['decision']), v('thaddr0', 1, ['decision']),
    v('reason_upd', 1, ['decision', 'contents']),
    v('branches', 5, ['decision']),
    v('map', 31, ['decision']),
    v('pbc', 33, ['decision']),
    v('map_failed', 1, ['decision']), v('count_failed', 1, ['decision']),
    v('resync', 32, ['decision']),
    // With pipeline stages the decision computes the differential address (before the registers).
    v('last_addr', wd.iaw, [pipelineStages(c) > 0 ? 'decision' : 'contents']),
    // A return that was not implicit: the report of its target carries irreport and failed_irval.
    v('failed_ret', 1, ['decision']),
    v('failed_irval', wd.irv, ['decision']),
    // Implicit Return extension: the returns counted since the last branch or packet (saturating).
    ...(iretExtension(c.params) ? [v('irets', wd.irv, ['decision'])] : []),
    ...(blockViews(c) ? [v('rec_units', 32)] : []),
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
    blockViews: blockViews(c),
    viewStarts: blockViews(c) && serialViews(c),
    itype4: p.itype_width_p === 4,
    ctype2: p.ctype_width_p === 2,
    ratified: p.payload_layout === '2.0' ? 1 : 0,
    hasBpred: p.bpred_size_p > 0 ? 1 : 0,
    hasJtc: hasJumpTargetCache(c) ? 1 : 0,
    hasReturns: hasImplicitReturn(c) ? 1 : 0,
    hasSijump: p.sijump_p === 1 ? 1 : 0,
    flowchart: p.resync_policy === 'flowchart' ? 1 : 0,
    maxLen: s.maxLen,
    chainw: s.chainWidth,
  };
}

// ---------------------------------------------------------------------------------------------
// etrace_encoder_step and its parts

/**
 * The parts of a step, one module each (`etrace_step_<part>`), instantiated by etrace_encoder_step
 * in this order: the decisions of Figure 8.1 (decision), the packets' contents and their packers
 * (contents), and the acceptance chain that offers the packets to the FIFO (accept).
 */
export const STEP_PARTS = ['decision', 'contents', 'accept', 'write'] as const;
export type StepPart = (typeof STEP_PARTS)[number];

/**
 * The parts of a step in this configuration: with pipeline stages the packets' bytes are put
 * together by etrace_step_write from registered copies of what the contents and it read.
 */
function stepParts(c: EtraceConfig): StepPart[] {
  return STEP_PARTS.filter((part) => part !== 'write' || pipelineStages(c) > 0);
}

/** Whether the configuration has an implicit return stack or call counter (section 3.2.5). */
function hasImplicitReturn(c: EtraceConfig): boolean {
  return c.params.return_stack_size_p > 0 || c.params.call_counter_size_p > 0;
}

/** Whether the configuration has a jump target cache (section 3.2.7). */
function hasJumpTargetCache(c: EtraceConfig): boolean {
  return c.params.cache_size_p > 0;
}

/**
 * A signal of a step. A port of etrace_encoder_step is an input (`from` 'in', read by the parts
 * `to`) or an output (driven by the part `from`, `to` empty); a link runs inside
 * etrace_encoder_step from the part `from` to the parts `to` (none when no part reads it in the
 * configuration). Port names add `_i` or `_o`; a link is a wire of its own name in
 * etrace_encoder_step.
 */
interface StepSignal {
  readonly name: string;
  readonly width: number;
  /** Declared with a range also at one bit (`[0:0]`: a width the configuration sets). */
  readonly vector?: boolean;
  readonly from: 'in' | StepPart;
  readonly to: readonly StepPart[];
  /** Trailing comment of the declaration. */
  readonly comment?: string;
  /** Comment lines before the signal: it starts a group of the port lists. */
  readonly heading?: readonly string[];
  /** The heading in the port list of a part that only reads the group. */
  readonly readHeading?: readonly string[];
}

type SignalExtra = Pick<StepSignal, 'vector' | 'comment' | 'heading' | 'readHeading'>;
const DECISION: StepPart = 'decision';
const CONTENTS: StepPart = 'contents';
const ACCEPT: StepPart = 'accept';
const WRITE: StepPart = 'write';

/** The packet slots of a step in this configuration (see the file comment). */
function stepSlots(c: EtraceConfig): StepSlot[] {
  return STEP_SLOTS.filter((slot) => (slot === 'alt' ? hasJumpTargetCache(c) : true));
}

/** The ports of etrace_encoder_step, in declaration order, and the parts that read or drive each. */
function stepPorts(c: EtraceConfig): StepSignal[] {
  const wd = widths(c);
  const s = coreSizes(c);
  const sijump = c.params.sijump_p === 1;
  const jtc = hasJumpTargetCache(c);
  const returns = hasImplicitReturn(c);
  const input = (name: string, width: number, to: StepPart[], extra: SignalExtra = {}): StepSignal => ({ name, width, from: 'in', to, ...extra });
  const field = (name: string, width: number, to: StepPart[], extra: SignalExtra = {}): StepSignal => input(name, width, to, { vector: true, ...extra });
  const output = (name: string, width: number, from: StepPart, extra: SignalExtra = {}): StepSignal => ({ name, width, from, to: [], ...extra });
  // With pipeline stages the bytes are put together by the write part (the acceptance chain only
  // decides), and the jump target cache's choice of the shorter packet goes with them.
  const pipe = pipelineStages(c) > 0;
  const bytesBy: StepPart = pipe ? WRITE : ACCEPT;
  const state = chainState(c).flatMap((v, i): StepSignal[] => [
    input(
      v.name,
      v.width,
      [...(v.readBy ?? []), ACCEPT],
      i === 0
        ? { heading: ['Encoder state before and after this step (the variables of chapter 8)'], readHeading: ['Encoder state before this step (the variables of chapter 8)'] }
        : {},
    ),
    output(v.name, v.width, ACCEPT),
  ]);
  return [
    input('encode', 1, [DECISION, ACCEPT], { comment: 'curr is encoded in this step' }),
    input('opt_stall', 1, [ACCEPT], { heading: ['Run-time options in force'] }),
    input('opt_full', 1, [CONTENTS]),
    input('opt_iexc', 1, [CONTENTS, ACCEPT]),
    input('opt_sij', 1, sijump ? [DECISION, CONTENTS] : [DECISION]),
    input('opt_ir', 1, [CONTENTS, ACCEPT]),
    input('opt_bp', 1, [DECISION, CONTENTS]),
    input('opt_jtc', 1, jtc ? [CONTENTS, ACCEPT, ...(pipe ? [WRITE] : [])] : [CONTENTS]),
    input('opt_rmode', 2, [DECISION, ACCEPT]),
    input('opt_rthresh', 16, [DECISION, ACCEPT], { comment: 'bit j: ResyncMax <= j (the resync threshold as a thermometer)' }),
    ...(c.params.dataTrace
      ? [input('opt_denable', 1, [CONTENTS], { comment: 'data trace options for the support packet' }), input('opt_doptions', 4, [CONTENTS])]
      : []),
    field('p_addr', wd.iaw, [CONTENTS], { heading: ['prev: the view before curr (its updiscon as decided when it was curr)'] }),
    field('p_itype', wd.itw, [DECISION]),
    input('p_retired', 1, [DECISION]),
    field('p_priv', wd.pw, [DECISION]),
    field('p_cause', wd.ew, [CONTENTS]),
    field('p_tval', wd.iaw, [CONTENTS]),
    input('p_qualified', 1, [DECISION]),
    input('p_updiscon', 1, [DECISION]),
    field('c_addr', wd.iaw, [CONTENTS, ACCEPT, ...(pipe ? [DECISION] : [])], { heading: ['curr: the view encoded'] }),
    field('c_itype', wd.itw, [DECISION]),
    input('c_retired', 1, [DECISION, ACCEPT]),
    input('c_size', 3, returns ? [ACCEPT] : []),
    field('c_priv', wd.pw, [DECISION, CONTENTS]),
    field('c_context', wd.ctxw, [CONTENTS]),
    field('c_ctype', wd.ctw, [DECISION]),
    field('c_cause', wd.ew, [CONTENTS]),
    field('c_tval', wd.iaw, [CONTENTS]),
    field('c_time', wd.timew, [CONTENTS]),
    input('c_sijump', 1, [DECISION]),
    input('c_notify', 1, [DECISION]),
    input('c_qualified', 1, [DECISION]),
    input('c_enabled', 1, [CONTENTS, ACCEPT]),
    input('c_units', 32, countRegistered(c) ? [ACCEPT] : [DECISION, ACCEPT]),
    ...(countRegistered(c) ? [input('count', 32, [DECISION], { comment: "resync_i plus c_units_i, saturated (the encoder's count_q)" })] : []),
    ...(blockViews(c) ? [input('c_starts', 1, [ACCEPT], { comment: 'curr is the first view of its record' })] : []),
    field('n_itype', wd.itw, [DECISION], {
      heading: ['next: the view after curr (unqualified at the end of a session; its address matters only to', 'the implicit return stack, which the encoder looks up)'],
    }),
    input('n_retired', 1, [DECISION]),
    input('n_qualified', 1, [DECISION]),
    field('n_priv', wd.pw, [DECISION]),
    field('n_ctype', wd.ctw, [DECISION]),
    input('bp_taken', 1, [DECISION], { heading: ["Prediction structures as this step sees them, and this step's updates"], comment: "the predictor's prediction at curr's address" }),
    output('bp_update', 1, DECISION),
    input('jtc_hit', 1, jtc ? [ACCEPT, ...(pipe ? [WRITE] : [])] : [], { comment: "curr's address is in the jump target cache" }),
    field('jtc_index', wd.jcw, [CONTENTS]),
    output('jtc_update', 1, ACCEPT),
    field('ir_depth', wd.irdw, iretExtension(c.params) ? [ACCEPT] : [DECISION, ACCEPT], { comment: 'stack depth or call count before curr' }),
    input('ir_predicts', 1, [ACCEPT], { comment: "a return to next's address would be implicit" }),
    output('ir_push', 1, ACCEPT),
    output('ir_push_addr', wd.iaw, ACCEPT, { vector: true }),
    output('ir_pop', 1, ACCEPT),
    output('synced', 1, ACCEPT, { comment: 'an F3 SF0/SF1 was taken: the structures are cleared' }),
    ...(c.params.dataTrace ? [output('dsync', 1, ACCEPT, { comment: 'an F3 other than SF2 was taken: the data history is cleared' })] : []),
    output('updiscon', 1, ACCEPT, { comment: 'curr is an uninferable discontinuity (prev of the next step)' }),
    field('lsup_bytes', 8 * s.maxLen, [bytesBy], { heading: ['The trace_lost support packet (the same in every step)'] }),
    input('lsup_len', 6, [bytesBy]),
    ...state,
    ...(pipelineStages(c) > 0
      ? [
          field('room', roomBits(c), [ACCEPT], {
            heading: [
              'Output FIFO: the room left after the reservations so far (bit i: at least i + 1 bytes), and with',
              'stallEnable whether a packet waits, before and after; the packets written in earlier cycles of a',
              'stall, and in this one',
            ],
          }),
          input('blocked', 1, [ACCEPT]),
          output('room', roomBits(c), ACCEPT, { vector: true }),
          output('blocked', 1, ACCEPT),
          field('done', STEP_WRITES.length, [ACCEPT], { comment: 'pre, main, sf2, rsy from bit 0' }),
          output('now', STEP_WRITES.length, ACCEPT, { vector: true }),
        ]
      : [
          field('room', s.chainWidth, [ACCEPT], { heading: ['Output FIFO: the room left (or, with stallEnable, the bytes needed) before and after'] }),
          field('need', s.chainWidth, [ACCEPT]),
          output('room', s.chainWidth, ACCEPT, { vector: true }),
          output('need', s.chainWidth, ACCEPT, { vector: true }),
        ]),
    output('lost_call', 1, ACCEPT, { comment: 'a packet was lost in this step' }),
    ...(countRegistered(c) ? [output('resync_restart', 1, ACCEPT, { comment: "a sync restarted the resync count from curr's units" })] : []),
    output('wr_len', s.stepLenWidth, bytesBy, {
      vector: true,
      comment: pipe ? `the packets written, concatenated (byte 0 first), ${stepStages(c)} cycle${stepStages(c) > 1 ? 's' : ''} later` : 'the packets taken, concatenated (byte 0 first)',
    }),
    output('wr_data', 8 * s.stepBytes, bytesBy, { vector: true }),
  ];
}

/**
 * The signals between the parts of a step: the decision about curr (`a_*`, to the contents and
 * the acceptance chain) and the packets (to the acceptance chain).
 */
function stepLinks(c: EtraceConfig): StepSignal[] {
  const wd = widths(c);
  const s = coreSizes(c);
  const returns = hasImplicitReturn(c);
  const jtc = hasJumpTargetCache(c);
  const bpred = c.params.bpred_size_p > 0;
  const pipe = pipelineStages(c) > 0;
  const decided = (name: string, width: number, to: StepPart[], extra: SignalExtra = {}): StepSignal => ({ name, width, from: DECISION, to, ...extra });
  const packed = (name: string, width: number, extra: SignalExtra = {}): StepSignal => ({ name, width, from: CONTENTS, to: [pipe ? WRITE : ACCEPT], ...extra });
  // The jump target cache's choice of the shorter packet: in the acceptance chain, or with the bytes.
  const choice: StepPart[] = jtc ? [pipe ? WRITE : ACCEPT] : [];
  const slots = stepSlots(c);
  return [
    decided('a_qualified', 1, [ACCEPT], { heading: ['The decision about curr (Figure 8.1)'], comment: 'curr is qualified (steps 2-9 apply)' }),
    decided('a_end_support', 1, [CONTENTS], { comment: 'step 1: tracing ends at curr' }),
    decided('a_start_support', 1, [ACCEPT], { comment: 'tracing (re)starts at curr and enable 1 was not reported' }),
    decided('a_branches', 5, [CONTENTS, ACCEPT], { comment: "branch state after curr's branch (step 2)" }),
    decided('a_map', 31, [CONTENTS, ACCEPT]),
    decided('a_pbc', 33, pipe ? [ACCEPT] : [CONTENTS, ACCEPT]),
    ...(pipe ? [decided('a_branch_count', 32, [CONTENTS], { comment: 'the branch_count field: a_pbc less the first 31' })] : []),
    decided('a_map_failed', 1, [ACCEPT]),
    decided('a_count_failed', 1, [ACCEPT]),
    decided('a_current_failed', 1, bpred ? [CONTENTS] : []),
    ...(iretExtension(c.params) ? [decided('a_irets', wd.irv, [ACCEPT], { comment: "returns counted after curr's branch (step 2)" })] : []),
    decided('a_resync', 32, [ACCEPT], { comment: "resync count with curr's units" }),
    decided('a_resync_point', 1, [ACCEPT], { comment: 'curr ends a block and a resync mode is on: the count is compared' }),
    decided('a_main', 3, [CONTENTS, ACCEPT, ...(jtc && pipe ? [WRITE] : [])], { comment: 'the main packet' }),
    decided('a_main_is_trap_of_prev', 1, [CONTENTS], { comment: "MainTrap about prev's trap (else curr's own)" }),
    decided('a_trap_interrupt', 1, [CONTENTS], { comment: 'the trap MainTrap reports is an interrupt' }),
    decided('a_taken', 1, [CONTENTS], { comment: 'curr retired a taken branch' }),
    decided('a_main_thaddr', 1, [CONTENTS, ACCEPT]),
    decided('a_thaddr0_d', 1, [ACCEPT]),
    decided('a_thaddr0_set', 1, [ACCEPT], { comment: 'a_thaddr0_d replaces thaddr0_i' }),
    decided('a_sf2', 1, [ACCEPT], { comment: 'step 9: F3 SF2' }),
    decided('a_rep_notify', 1, [CONTENTS, ...choice]),
    decided('a_rep_updiscon', 1, [CONTENTS, ...choice]),
    decided('a_rep_irreport', 1, [CONTENTS]),
    decided('a_rep_irval', wd.irv, returns ? [CONTENTS] : [], { vector: true, comment: 'irdepth or irets of a report with irreport' }),
    decided('a_rep_kind', 3, [CONTENTS, ...choice], { comment: 'the format of a report of curr (section 8.1)' }),
    ...(pipe ? [decided('a_rep_difference', wd.iaw, [CONTENTS], { vector: true, comment: "curr's address less the last one reported" })] : []),
    decided('a_rep_updiscon_reason', 1, jtc ? [ACCEPT, ...(pipe ? [WRITE] : [])] : [], { comment: 'the report is the target of an uninferable discontinuity (JTC)' }),
    decided('a_uninferable', 1, [ACCEPT], { comment: 'curr retired an uninferable jump, not sequentially inferable (3.2.4)' }),
    decided('a_call', 1, [ACCEPT], { comment: 'curr is a call (section 3.2.5)' }),
    decided('a_return', 1, [ACCEPT], { comment: 'curr is a return (section 3.2.5)' }),
    decided('a_ret_sijump', 1, [ACCEPT], { comment: 'curr is a sequentially inferable jump (section 3.2.4)' }),
    decided('a_reason_upd', 1, [ACCEPT], { comment: 'lastReportReason after curr' }),
    ...slots.flatMap((slot, i) => [
      packed(`${slot}_bytes`, 8 * s.maxLen, { vector: true, ...(i === 0 ? { heading: ['The packets, encapsulated (chapter 6)'] } : {}) }),
      packed(`${slot}_len`, 6),
    ]),
    // The sizes in bits of the main packet and its jump target cache alternative, compared.
    ...(jtc ? [packed('main_bits', 8), packed('alt_bits', 8)] : []),
    ...(pipe
      ? [
          { name: 'w_take', width: STEP_WRITES.length, vector: true, from: ACCEPT, to: [WRITE], heading: ['The packets written in this cycle and those replaced by trace_lost (pre, main, sf2, rsy from bit 0)'] },
          { name: 'w_lsup', width: STEP_WRITES.length, vector: true, from: ACCEPT, to: [WRITE] },
        ]
      : []),
  ];
}

/** A declaration's data type: `logic`, with a range unless it is a one-bit scalar. */
function stepType(v: StepSignal): string {
  return v.width === 1 && !v.vector ? 'logic' : `logic ${svVec(v.width)}`;
}

/** Whether a part has a signal as a port, and its direction there. */
function portOf(part: StepPart | 'step', v: StepSignal, link: boolean): 'i' | 'o' | undefined {
  if (part === 'step') return link ? undefined : v.from === 'in' ? 'i' : 'o';
  if (link && v.to.length === 0) return undefined;
  if (v.from === part) return 'o';
  return v.to.includes(part) ? 'i' : undefined;
}

/**
 * The port list of etrace_encoder_step (`step`) or of one of its parts: the step's ports that the
 * part reads or drives, then its links, in table order; a heading comes with the first port of its
 * group that the list has. Declarations are aligned when the file is rendered.
 */
function stepPortList(part: StepPart | 'step', ports: readonly StepSignal[], links: readonly StepSignal[]): string[] {
  const entries: { text: string; comment?: string; heading?: readonly string[] }[] = [];
  let heading: readonly string[] | undefined;
  const add = (v: StepSignal, link: boolean, list: readonly StepSignal[], i: number) => {
    if (v.heading) {
      // A part that drives nothing of the group only reads it.
      const end = list.findIndex((w, j) => j > i && w.heading !== undefined);
      const drives = list.slice(i, end < 0 ? undefined : end).some((w) => portOf(part, w, link) === 'o');
      heading = drives || !v.readHeading ? v.heading : v.readHeading;
    }
    const dir = portOf(part, v, link);
    if (dir === undefined) return;
    entries.push({ text: `${dir === 'i' ? 'input ' : 'output'} ${stepType(v)} ${v.name}_${dir}`, comment: v.comment, heading });
    heading = undefined;
  };
  ports.forEach((v, i) => add(v, false, ports, i));
  heading = undefined;
  links.forEach((v, i) => add(v, true, links, i));
  return entries.flatMap((e, i) => [
    ...(e.heading ?? []).map((h) => `// ${h}`),
    `${e.text}${i === entries.length - 1 ? '' : ','}${e.comment ? `  // ${e.comment}` : ''}`,
  ]);
}

/**
 * One part's instance in etrace_encoder_step: every port connected to the step's port or link of
 * its name, or for an input to what `source` names instead (a registered copy).
 */
function partInstance(part: StepPart, ports: readonly StepSignal[], links: readonly StepSignal[], source?: (v: StepSignal) => string | undefined): string[] {
  const conns: [string, string][] = [];
  for (const [list, link] of [[ports, false], [links, true]] as const) {
    for (const v of list) {
      const dir = portOf(part, v, link);
      if (dir !== undefined) conns.push([`${v.name}_${dir}`, (dir === 'i' ? source?.(v) : undefined) ?? (link ? v.name : `${v.name}_${dir}`)]);
    }
  }
  const col = padColumn(conns.map(([port]) => `.${port}`));
  return [`etrace_step_${part} u_${part} (`, ...conns.map(([, sig], i) => `  ${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`), ');'];
}

/**
 * The step's constants: itype codes (Table 4.1), the packer's kind_i codes, qual_status values
 * (section 6.5.1) and the main packet of a view (the flowchart's decision), each declared as a
 * localparam in the parts that use it.
 */
function stepCodes(c: EtraceConfig): { name: string; width: number; value: number; comment?: string; parts: StepPart[] }[] {
  const itw = c.params.itype_width_p;
  // The part that chooses the jump target cache's shorter packet.
  const choicePart = pipelineStages(c) > 0 ? WRITE : ACCEPT;
  const itype = (name: string, value: number, parts: StepPart[] = [DECISION]) => ({ name, width: itw, value, parts });
  const main = (name: string, value: number, comment: string | undefined, parts: StepPart[]) => ({ name, width: 3, value, comment, parts });
  return [
    itype('ItExc', 1),
    itype('ItInt', 2),
    itype('ItXret', 3),
    itype('ItNotTaken', 4),
    itype('ItTaken', 5),
    itype('ItUninf3', 6),
    ...(itw === 4
      ? [itype('ItUninfCall', 8), itype('ItInfCall', 9), itype('ItUninfTail', 10), itype('ItSwap', 12), itype('ItReturn', 13), itype('ItOtherUninf', 14)]
      : []),
    ...PACKER_KINDS.filter((k) => k.kind !== 'F0.SF1' || hasJumpTargetCache(c)).map((k) => ({
      name: `K${k.kind.replace('.SF', 'Sf')}`,
      width: 3,
      value: k.code,
      // The decision selects among the formats that report an address (section 8.1); the
      // acceptance chain prefers F0 SF1 to the others but F0 SF0.
      parts: ['F0.SF0', 'F1', 'F2'].includes(k.kind) ? [DECISION, CONTENTS, ...(k.kind === 'F0.SF0' && hasJumpTargetCache(c) ? [choicePart] : [])] : [CONTENTS],
    })),
    { name: 'QsNoChange', width: 2, value: 0, parts: [CONTENTS] },
    { name: 'QsEndedRep', width: 2, value: 1, parts: [CONTENTS] },
    { name: 'QsEndedUpd', width: 2, value: 3, parts: [CONTENTS] },
    main('MainNone', 0, undefined, [DECISION, ACCEPT]),
    main('MainSync', 1, 'F3 SF0', [DECISION, CONTENTS, ACCEPT]),
    main('MainTrap', 2, 'F3 SF1', [DECISION, CONTENTS, ACCEPT]),
    main('MainReport', 3, 'F0 SF0 / F0 SF1 / F1 / F2 reporting curr', [DECISION, ACCEPT, ...(choicePart === WRITE && hasJumpTargetCache(c) ? [WRITE] : [])]),
    main('MainCount', 4, 'F0 SF0 without address (failed prediction in count mode)', [DECISION, CONTENTS, ACCEPT]),
    main('MainFullMap', 5, 'F1 without address (31 branches)', [DECISION, CONTENTS, ACCEPT]),
  ];
}

/** The localparam declarations of the step's constants a part uses, one group per kind of constant. */
function codeParams(c: EtraceConfig, part: StepPart): string[][] {
  const groups = new Map<string, string[]>();
  for (const k of stepCodes(c).filter((x) => x.parts.includes(part))) {
    const kind = /^(It|K|Qs|Main)/.exec(k.name)![1]!;
    if (!groups.has(kind)) groups.set(kind, kind === 'Main' ? ["// The main packet of a view (the flowchart's decision)."] : []);
    groups.get(kind)!.push(`localparam logic ${svVec(k.width)} ${k.name} = ${k.width}'d${k.value};${k.comment ? `  // ${k.comment}` : ''}`);
  }
  return [...groups.values()];
}

/**
 * With pipeline stages, the registers of a step's byte path: stage 1 holds what the contents and
 * the write part read from the step's inputs, the decision and the acceptance chain; stage 2 (two
 * stages or more) holds what the write part reads, the packets' bytes among them. `source` names
 * the registered copy a part's input is connected to.
 */
function byteStages(c: EtraceConfig, ports: readonly StepSignal[], links: readonly StepSignal[]) {
  const stages = stepStages(c);
  const signal = (v: StepSignal, link: boolean) => (link ? v.name : `${v.name}_i`);
  const early = (v: StepSignal) => v.from === 'in' || v.from === DECISION || v.from === ACCEPT;
  const regs: { name: string; width: number; from: string }[] = [];
  const lists = [
    [ports, false],
    [links, true],
  ] as const;
  for (const [list, link] of lists) {
    for (const v of list) {
      if (!early(v) || !(v.to.includes(CONTENTS) || v.to.includes(WRITE))) continue;
      regs.push({ name: `q1_${v.name}`, width: v.width, from: signal(v, link) });
      if (stages > 1 && v.to.includes(WRITE)) regs.push({ name: `q2_${v.name}`, width: v.width, from: `q1_${v.name}` });
    }
  }
  if (stages > 1) for (const v of links) if (v.from === CONTENTS && v.to.includes(WRITE)) regs.push({ name: `q2_${v.name}`, width: v.width, from: v.name });
  const source = (part: StepPart) => (v: StepSignal) => {
    if (part === CONTENTS && early(v)) return `q1_${v.name}`;
    if (part === WRITE && early(v)) return `q${stages}_${v.name}`;
    if (part === WRITE && v.from === CONTENTS && stages > 1) return `q2_${v.name}`;
    return undefined;
  };
  return {
    decls: regs.map((r) => `${vec(r.width)} ${r.name};`),
    resets: regs.map((r) => `${r.name} <= '0;`),
    updates: regs.map((r) => `${r.name} <= ${r.from};`),
    source,
  };
}

/**
 * The contexts of etrace_encoder_step and of its parts (etrace_step_decision, etrace_step_contents,
 * etrace_step_accept): one view through the decision, the packets' contents and the acceptance
 * chain.
 */
export function stepContexts(c: EtraceConfig, banner: string, packerInstance: (slot: Slot) => string) {
  const p = c.params;
  const { s, indent, descriptorDecls, supportAssigns } = slotHelpers(c);
  const state = chainState(c);
  const ports = stepPorts(c);
  const links = stepLinks(c);
  const slots = stepSlots(c);
  const flags = coreFlags(c);
  const ext = (x: string, from: number, to: number) => zeroExtend(x, from, to);
  const written = STEP_WRITES;
  const pipe = pipelineStages(c) > 0;
  const writeSlots = written.map((slot) => {
    const bytes = slot === 'main' ? 'main_bytes_sel' : slot === 'rsy' ? 'main_bytes_i' : `${slot}_bytes_i`;
    const len = slot === 'main' ? 'main_len_sel' : slot === 'rsy' ? 'main_len_i' : `${slot}_len_i`;
    return {
      // With stallEnable and reservations a packet's bytes go out in the cycle it is written.
      take: pipe ? `take_${slot} && (!opt_stall_i || now_${slot})` : `take_${slot}`,
      bytes: `(lsup_${slot} ? ${ext('lsup_bytes_i', 8 * s.maxLen, 8 * s.stepBytes)} : ${ext(bytes, 8 * s.maxLen, 8 * s.stepBytes)})`,
      len: `(lsup_${slot} ? ${ext('lsup_len_i', 6, s.stepLenWidth)} : ${ext(len, 6, s.stepLenWidth)})`,
    };
  });
  const writeSlotsRegistered = written
    .map((slot, i) => ({ ...writeSlots[i]!, take: `w_take_i[${i}]` }))
    .map((w, i) => ({
      ...w,
      bytes: w.bytes.replace(`lsup_${written[i]}`, `w_lsup_i[${i}]`),
      len: w.len.replace(`lsup_${written[i]}`, `w_lsup_i[${i}]`),
    }));
  const decisionLinks = links.filter((v) => v.from === DECISION);
  const packedLinks = links.filter((v) => v.from === CONTENTS);
  const linkDecl = (v: StepSignal) => `${stepType(v)} ${v.name};`;
  // A decision no part reads in this configuration is no port: the decision block still makes it.
  const unreadDecisions = decisionLinks.filter((v) => v.to.length === 0);
  const working = (v: StepSignal) => v.name.replace(/^a_/, 'w_');
  // What etrace_step_contents does not need (see the template).
  const unusedBits = [
    ...slots.filter((slot) => !packedLinks.some((v) => v.name === `${slot}_bits`)).map((slot) => `${slot}_bits`),
    ...(p.iaddress_lsb_p > 0 ? ['rep_diff[Lsb-1:0]'] : []),
    // The branch_count field is 32 bits (Table 6.8).
    ...(pipe ? [] : ['a_pbc_i[32]']),
  ];
  // The resync count plus curr's units, with the carry that saturates it (a short-path adder).
  const resyncAdd = svConditionalSumAdd('resync_sum', 'resync_i', 'c_units_i', 32, { carryOut: 'resync_carry' });
  // The differential address: curr's address minus the last one reported (a short-path subtract).
  const difference = svConditionalSumAdd('rep_difference', 'c_addr_i', '~last_addr_i', p.iaddress_width_p, { carryIn: "1'b1" });
  // branch_count: the correct predictions beyond the first 31 (a short-path subtract of 31), in the
  // decision when the byte path has registers (the packets' contents after them start from it).
  const branchCount = svConditionalSumAdd('pbc_minus31', pipe ? 'a_pbc_o[31:0]' : 'a_pbc_i[31:0]', "~32'd31", 32, { carryIn: "1'b1" });
  const stages = pipe ? byteStages(c, ports, links) : undefined;
  return {
    step: {
      banner,
      pipelined: pipe,
      twoStages: stepStages(c) > 1,
      portLines: stepPortList('step', ports, links),
      unusedInputs: ports.filter((v) => v.from === 'in' && v.to.length === 0).map((v) => `${v.name}_i`).join(', '),
      linkDecls: links.filter((v) => v.to.length > 0).flatMap((v) => [...(v.heading ?? []).map((h) => `// ${h}`), linkDecl(v)]),
      stageDecls: stages?.decls ?? [],
      stageResets: stages?.resets ?? [],
      stageUpdates: stages?.updates ?? [],
      chainw: s.chainWidth,
      resParams: pipe
        ? [
            ...reservationParams(c, ['ResSupport', 'ResSync', 'ResTrap', 'ResContext', 'ResReport']),
            ...stepCodes(c)
              .filter((k) => k.name === 'MainSync' || k.name === 'MainTrap')
              .map((k) => `localparam logic [2:0] ${k.name} = 3'd${k.value};${k.comment ? `  // ${k.comment}` : ''}`),
          ]
        : [],
      resSum: [
        `(w_take[0] ? ResSupport : '0)`,
        `(w_take[1] ? (w_lsup[1] ? ResSupport : (a_main == MainSync) ? ResSync : (a_main == MainTrap) ? ResTrap : ResReport) : '0)`,
        `(w_take[2] ? (w_lsup[2] ? ResSupport : ResContext) : '0)`,
        `(w_take[3] ? (w_lsup[3] ? ResSupport : ResReport) : '0)`,
      ].join(' +\n                 '),
      instances: stepParts(c).map((part) => partInstance(part, ports, links, stages?.source(part))),
    },
    decision: {
      banner,
      ...flags,
      portLines: stepPortList(DECISION, ports, links),
      codes: codeParams(c, DECISION),
      // irreport and its value in a report of curr for a reason other than an uninferable
      // discontinuity before it (steps 6, 7, the resync report): Implicit Return extension, the
      // returns counted unless curr is an xRET; ratified, the depth before curr's call or return.
      irFlag: flags.iretExt ? "(w_irets != 8'd0) && (c_itype_i != ItXret)" : "(ir_depth_i != '0)",
      irVal: flags.iretExt ? 'w_irets' : 'ir_depth_i',
      pbcIncRows: svChunkedIncrement('pbc_plus1', 'pbc_i', 33),
      countRegistered: countRegistered(c),
      resyncAddDecls: resyncAdd.declarations,
      resyncAddRows: resyncAdd.rows,
      resultDecls: unreadDecisions.length > 0 ? ['// Results no part reads in this configuration.', 'logic unused_results;'] : [],
      pipelined: pipe,
      differenceDecls: pipe ? [...difference.declarations, ...branchCount.declarations] : [],
      differenceRows: pipe ? [...difference.rows, ...branchCount.rows] : [],
      results: [
        ...decisionLinks.filter((v) => v.to.length > 0 && v.name !== 'a_rep_difference' && v.name !== 'a_branch_count').map((v) => `${v.name}_o = ${working(v)};`),
        ...(unreadDecisions.length > 0 ? [`unused_results = ^{${unreadDecisions.map(working).join(', ')}};`] : []),
      ],
    },
    contents: {
      banner,
      ...flags,
      portLines: stepPortList(CONTENTS, ports, links),
      codes: codeParams(c, CONTENTS),
      descriptorDecls: descriptorDecls(slots),
      differenceDecls: pipe ? [] : [...difference.declarations, ...branchCount.declarations],
      differenceRows: pipe ? ['assign rep_difference = a_rep_difference_i;', 'assign pbc_minus31 = a_branch_count_i;'] : [...difference.rows, ...branchCount.rows],
      supportAssigns: supportAssigns([['pre', 'pre_sup_enable', 'pre_sup_status']]),
      packerInstances: slots.map(packerInstance),
      outputs: packedLinks.map((v) => `assign ${v.name}_o = ${v.name};`),
      unusedBits: unusedBits.join(', '),
    },
    accept: {
      banner,
      ...flags,
      stepbytes: s.stepBytes,
      steplenw: s.stepLenWidth,
      dataTrace: c.params.dataTrace !== undefined,
      ...(() => {
        const ret = svSmallOffsetAdd('ret_addr', 'c_addr_i', p.iaddress_width_p, 'ret_step', 4);
        return { retAddrDecls: ret.declarations, retAddrRows: ret.rows };
      })(),
      portLines: stepPortList(ACCEPT, ports, links),
      codes: codeParams(c, ACCEPT),
      takes: written.map((slot) => `take_${slot}`).join(', '),
      lsups: written.map((slot) => `lsup_${slot}`).join(', '),
      takeInits: written.map((slot) => `take_${slot} = 1'b0;`.padEnd(18) + `lsup_${slot} = 1'b0;`),
      stateAssigns: [
        ...state.filter((v) => v.name !== 'rec_units').map((v) => `${v.name}_o = ${v.name};`),
        ...(countRegistered(c) ? ['resync_restart_o = encode_i && resync_units;'] : []),
      ],
      writeSlots,
      ...resyncPlus(),
      pipelined: pipe,
      roomBits: pipe ? roomBits(c) : 0,
      reservations: pipe ? reservationParams(c, ['ResSupport', 'ResSync', 'ResTrap', 'ResContext', 'ResReport']) : [],
      nows: written.map((slot) => `now_${slot}`).join(', '),
      nowInits: written.map((slot) => `now_${slot} = 1'b0;`),
      nowResult: `now_o = {${[...written].reverse().map((slot) => `now_${slot}`).join(', ')}};`,
      offerPre: indent(offerBlock('step', 'take_pre', 'lsup_pre', 'pre_len_i', false, undefined, pipe ? stepPipe(0, 'ResSupport') : undefined), 10),
      offerMain: indent(offerBlock('step', 'take_main', 'lsup_main', 'main_len_sel', true, 'main_taken', pipe ? stepPipe(1, 'res_main') : undefined), 12),
      offerSf2: indent(offerBlock('step', 'take_sf2', 'lsup_sf2', 'sf2_len_i', true, undefined, pipe ? stepPipe(2, 'ResContext') : undefined), 10),
      offerRsy: indent(offerBlock('step', 'take_rsy', 'lsup_rsy', 'main_len_i', true, undefined, pipe ? stepPipe(3, 'ResReport') : undefined), 14),
      // With pipeline stages: the packets written now, and those replaced by trace_lost, to the write part.
      writeFlags: [
        `w_take_o = {${[...written].reverse().map((slot) => `take_${slot} && (!opt_stall_i || now_${slot})`).join(',\n                ')}};`,
        `w_lsup_o = {${[...written].reverse().map((slot) => `lsup_${slot}`).join(', ')}};`,
      ],
    },
    write: {
      banner,
      ...flags,
      stepbytes: s.stepBytes,
      steplenw: s.stepLenWidth,
      stepStages: stepStages(c),
      twoStages: stepStages(c) > 1,
      portLines: pipe ? stepPortList(WRITE, ports, links) : [],
      codes: pipe ? codeParams(c, WRITE) : [],
      writeSlots: writeSlotsRegistered,
      // The write's length as one sum of the packets' lengths (Yosys adds them in a tree), with the
      // jump target cache's choice made last: a sum for either packet beside the comparison.
      lenSum: flags.hasJtc
        ? `use_alt ? (${lengthSum(writeSlotsRegistered, 'alt_len_i')}) : (${lengthSum(writeSlotsRegistered, 'main_len_i')})`
        : lengthSum(writeSlotsRegistered, 'main_len_sel'),
    },
  };
}

/**
 * The acceptance chain's state where the steps leave it (the room, whether a packet waits, a loss
 * pending, awaiting a sync) and the losses the encoder's own offers end with are kept through
 * synthesis. Yosys's ABC maps for area with no delay target and, without these boundaries, folds
 * the steps' chain into the offers after it and into the stall and loss signals: etrace-rv64-full
 * measured 50 to 53 levels without them and 46 with them (2026-11-28), the logic being the same.
 */
const BOUNDARY_STATE = ['room', 'blocked', 'lost_pending', 'awaiting'];
const BOUNDARY_FINAL = ['lost_pending', 'lost_call'];
const SYNTHESIS_BOUNDARY_DOC = [
  '// The chain as the steps leave it and the losses of the offers after them are kept through',
  "// synthesis ((* keep *)): Yosys's ABC maps for area and otherwise folds the steps' chain into",
  '// those offers and the stall (etrace-rv64-full 50-53 levels without, 46 with; docs/logic-depth.md).',
];

/** The sum of the lengths of the slots taken, the main packet's length being `mainLen`. */
function lengthSum(slots: { take: string; len: string }[], mainLen: string): string {
  return slots.map((w) => `(${w.take} ? ${w.len.replace('main_len_sel', mainLen)} : '0)`).join(' + ');
}

/**
 * The resync count plus 1, 2 and 3 from the count before the step (resync_i) and from curr's units
 * (rec_units), each a short-path add, and the choice among them once the packets are counted. Each
 * candidate is also compared with the threshold beside the chain (rs_due<k>, ru_due<k>), so that
 * the chain chooses a comparison, not a count to compare: which count applies depends on the
 * packets taken before the resync report.
 */
function resyncPlus() {
  const adds = [1, 2, 3].flatMap((k) => [svSmallOffsetAdd(`rs_p${k}`, 'resync_i', 32, `ResyncPlus${k}`, 3), svSmallOffsetAdd(`ru_p${k}`, 'rec_units', 32, `ResyncPlus${k}`, 3)]);
  const pick = (base: string, p: string) => `(resync_k == 2'd0) ? ${base} : (resync_k == 2'd1) ? ${p}1 : (resync_k == 2'd2) ? ${p}2 : ${p}3`;
  const candidates = [
    ['rs_due0', 'a_resync_i'],
    ['ru_due0', 'rec_units'],
    ...[1, 2, 3].flatMap((k) => [
      [`rs_due${k}`, `rs_p${k}`],
      [`ru_due${k}`, `ru_p${k}`],
    ]),
  ];
  return {
    resyncPlusDecls: [
      ...[1, 2, 3].map((k) => `localparam logic [2:0] ResyncPlus${k} = 3'd${k};`),
      `logic [31:0] ${[1, 2, 3].flatMap((k) => [`rs_p${k}`, `ru_p${k}`]).join(', ')};`,
      ...adds.flatMap((a) => a.declarations),
      `logic [31:0] resync_from_max;  // the bits of a count at or above the threshold 2^(ResyncMax+4)`,
      `logic        ${candidates.map(([n]) => n).join(', ')};  // each count at or above the threshold`,
    ],
    resyncPlusRows: [
      ...adds.flatMap((a) => a.rows),
      "assign resync_from_max = {12'hfff, opt_rthresh_i, 4'h0};",
      ...candidates.map(([n, v]) => `assign ${n} = |(${v} & resync_from_max);`),
    ],
    resyncSelect: `resync = resync_units ? (${pick('rec_units', 'ru_p')}) : (${pick('a_resync_i', 'rs_p')});`,
    resyncDue: `resync_units ? (${pick('ru_due0', 'ru_due')}) : (${pick('rs_due0', 'rs_due')})`,
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
    // Whether the view starts its record: a one-instruction block's (only) view, a first view; with
    // serial views the ingress says which it hands over.
    ...(blocks ? [['starts', 1, (g: number) => `~${slice('first_valid_i', g, 1)}`] as [string, number, (g: number) => string]] : []),
    ...(blockViews(c) && !blocks ? [['starts', 1, () => 'view_starts_i'] as [string, number, (g: number) => string]] : []),
  ];
  const prevFields: [string, number][] = [
    ['addr', wd.iaw], ['itype', wd.itw], ['retired', 1], ['priv', wd.pw], ['cause', wd.ew], ['tval', wd.iaw], ['qualified', 1], ['updiscon', 1],
  ];
  /** A block's first view: no itype, trap or jump of its own (encoder.ts pushViews). */
  const firstView = (g: number): Record<string, string> => ({
    addr: slice('first_addr_i', g, wd.iaw), itype: `${wd.itw}'d0`, retired: "1'b1", size: "3'd0", priv: 'view_priv_i', context: 'view_context_i',
    ctype: slice('first_ctype_i', g, wd.ctw), cause: `${wd.ew}'d0`, tval: `${wd.iaw}'d0`, time: 'view_time_i', sijump: "1'b0", notify: "1'b0",
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
    ...(pipelineStages(c) > 0 ? [['clk_i', 'clk_i'] as [string, string], ['rst_ni', 'rst_ni'] as [string, string], ['res_o', `st${k}_res`] as [string, string]] : []),
    ['encode_i', encode],
    ...['stall', 'full', 'iexc', 'sij', 'ir', 'bp', 'jtc', 'rmode', 'rthresh', ...(c.params.dataTrace ? ['denable', 'doptions'] : [])].map((o): [string, string] => [`opt_${o}_i`, `opt_${o}`]),
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
  // After a data site (the access's packet between two groups) the room and the loss come from it.
  const input = (name: string) => (dataSiteBefore(c, k) !== undefined && DATA_SITE_VARS.includes(name) ? `x${k}_${name}` : `s${k}_${name}`);
  for (const v of chainState(c)) conns.push([`${v.name}_i`, input(v.name)], [`${v.name}_o`, `s${k + 1}_${v.name}`]);
  const room = roomChain(c);
  conns.push(...room.map((v): [string, string] => [`${v.name}_i`, input(v.name)]), ...room.map((v): [string, string] => [`${v.name}_o`, `s${k + 1}_${v.name}`]));
  if (pipelineStages(c) > 0) conns.push(['done_i', `done_q[${k * STEP_WRITES.length} +: ${STEP_WRITES.length}]`], ['now_o', `st${k}_now`]);
  conns.push(
    ['lost_call_o', `st${k}_lost_call`],
    ...(countRegistered(c) ? [['count_i', 's0_count'] as [string, string], ['resync_restart_o', `st${k}_resync_restart`] as [string, string]] : []),
    ...(c.params.dataTrace ? [['dsync_o', `st${k}_dsync`] as [string, string]] : []),
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
  ['ir_depth', 'in', (w) => w.irdw],
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
  // With registered lookups: the address curr has after a committed cycle (one step, one group).
  const nextCurr = `shift_in ? ${chain.C(1, 'addr')} : ${chain.C(0, 'addr')}`;
  const instance = (module: string, name: string, perPort: (k: number) => [string, string][], next: [string, string][] = []): string[] => {
    const conns: [string, string][] = [['clk_i', 'clk_i'], ['rst_ni', 'rst_ni'], ['commit_i', 'commit'], ...next, ...steps.flatMap((_s, k) => perPort(k))];
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
        ], lookupsRegistered(c) ? [['next_addr0_i', nextCurr]] : [])
      : tieOff('bpred', [['bp_taken', "1'b0"]], ['bp_update'])),
    '',
    ...(p.cache_size_p > 0
      ? instance('etrace_jtc', 'u_jtc', (k) => [
          [`target${k}_i`, steps[k]!.curr],
          [`hit${k}_o`, `st${k}_jtc_hit`],
          [`index${k}_o`, `st${k}_jtc_index`],
          [`update${k}_i`, `st${k}_jtc_update`],
          [`clear${k}_i`, `st${k}_synced & opt_jtc`],
        ], lookupsRegistered(c) ? [['next_target0_i', nextCurr]] : [])
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
  const pipe = pipelineStages(c) > 0;
  const chainVars = [...chainState(c), ...roomChain(c)];
  const stepIndexes = Array.from({ length: steps }, (_v, k) => k);
  const views = viewChain(c);

  const stepDecls: string[] = [];
  for (let k = 0; k <= steps; k++) {
    stepDecls.push(`// The state ${k === 0 ? 'before step 0' : `after step ${k - 1}`}.`);
    if (k === steps && k > 0) stepDecls.push(...SYNTHESIS_BOUNDARY_DOC);
    stepDecls.push(...chainVars.map((v) => `${k === steps && k > 0 && BOUNDARY_STATE.includes(v.name) ? '(* keep *) ' : ''}${vec(v.width)} s${k}_${v.name};`));
  }
  for (const k of stepIndexes) {
    stepDecls.push(`// Step ${k}'s decision about its curr and its packets.`);
    for (const [name, , width] of STRUCTURE_SIGNALS) stepDecls.push(`${vec(width(wd))} st${k}_${name};`);
    if (c.params.dataTrace) stepDecls.push(`logic st${k}_dsync;`);
    if (pipe) stepDecls.push(`logic [${STEP_WRITES.length - 1}:0] st${k}_now;`, `logic [${s.chainWidth - 1}:0] st${k}_res;`);
    stepDecls.push(
      `logic st${k}_updiscon, st${k}_lost_call;`,
      ...(countRegistered(c) ? [`logic st${k}_resync_restart;`] : []),
      `logic [${s.stepLenWidth - 1}:0] st${k}_wr_len;`,
      `logic ${svVec(8 * s.stepBytes)} st${k}_wr_data;`,
    );
  }
  const stepStateInputs = chainVars
    .filter((v) => v.name !== 'lost_pending')
    .map((v) => `assign s0_${v.name} = ${v.name === 'room' ? (pipe ? 'room_free' : 'fifo_free_i') : v.name === 'need' || v.name === 'blocked' ? "'0" : `${v.name}_q`};`);

  // The post offer works on local variables named as in the steps and writes f_* once; with
  // reservations, whether a packet waits is p_stall's (the offers only take them in that mode).
  const offerVars = chainVars.filter((v) => !(pipe && v.name === 'blocked'));
  const finalVars = [...offerVars, { name: 'lost_call', width: 1 }];
  const kept = finalVars.filter((v) => !roomChain(c).some((r) => r.name === v.name));
  const finalDecls = kept.map((v) => `${BOUNDARY_FINAL.includes(v.name) ? '(* keep *) ' : ''}${vec(v.width)} f_${v.name};`);
  const finalLocals = finalVars.map((v) => `${vec(v.width)} ${v.name};`);
  const finalInits = [
    ...offerVars.map((v) => `${v.name} = s${steps}_${v.name};`),
    `lost_call = ${stepIndexes.map((k) => `st${k}_lost_call`).join(' | ')};`,
  ];
  const finalResults = kept.map((v) => `f_${v.name} = ${v.name};`);

  const ext = (x: string, from: number, to: number) => zeroExtend(x, from, to);
  // With stallEnable and reservations, each packet of the cycle has a bit in done_q: the steps'
  // packets (STEP_WRITES each), then the data packet and its response, then post.
  const data = c.params.dataTrace !== undefined;
  const split = dataResponseMaxBytes(c) > 0;
  const encoderWrites = ['dat', 'rsp', 'post'].filter((w) => (w === 'dat' ? data : w === 'rsp' ? data && split : true));
  const doneBit = (w: string) => steps * STEP_WRITES.length + encoderWrites.indexOf(w);
  // With pipeline stages the session's and the data packets reach the concatenation as late as the
  // steps' bytes: their flags and bytes go through stepStages registers (pq<n>_*).
  const held = stepStages(c);
  // etrace_data_encoder registers what its packets are made of as the first stage itself, so their
  // bytes (dat_*, rsp_*) come out at the first stage's time and their registers start at pq2.
  const dataFirstStage = (name: string) => /^(dat|rsp)_(bytes|len)$/.test(name);
  const pq = (name: string) => (!pipe || (held === 1 && dataFirstStage(name)) ? name : `pq${held}_${name}`);
  const written = (w: string) => (pipe ? `pq${held}_post_write[${encoderWrites.indexOf(w)}]` : `take_${w}`);
  const postHeld: { name: string; width: number }[] = [
    { name: 'post_write', width: encoderWrites.length },
    { name: 'post_lsup', width: 1 },
    { name: 'post_bytes', width: 8 * s.maxLen },
    { name: 'post_len', width: 6 },
    { name: 'lsup_bytes', width: 8 * s.maxLen },
    { name: 'lsup_len', width: 6 },
    ...(data ? [{ name: 'dat_bytes', width: 8 * dataMaxBytes(c) }, { name: 'dat_len', width: 6 }] : []),
    ...(data && split ? [{ name: 'rsp_bytes', width: 8 * dataResponseMaxBytes(c) }, { name: 'rsp_len', width: 6 }] : []),
    // Several groups a cycle: the access's group places its packet.
    ...(dataGroups(c) > 1 ? [{ name: 'dat_block', width: c.params.dataTrace!.dblock_width_p }] : []),
  ];
  const resRegs = Array.from({ length: Math.max(0, pipelineStages(c) - 1) }, (_v, i) => ({ name: `res${i + 1}_q`, from: i === 0 ? 'res_prev' : `res${i}_q` }));
  const writeRegs = Array.from({ length: Math.max(0, pipelineStages(c) - held) }, (_v, i) => ({
    len: `wr_len${i + 1}_q`,
    data: `wr_data${i + 1}_q`,
    fromLen: i === 0 ? 'wr_len' : `wr_len${i}_q`,
    fromData: i === 0 ? 'wr_data' : `wr_data${i}_q`,
  }));
  const postRegs = pipe
    ? Array.from({ length: held }, (_v, i) =>
        postHeld
          .filter((h) => i > 0 || !dataFirstStage(h.name))
          .map((h) => ({ ...h, reg: `pq${i + 1}_${h.name}`, from: i === 0 || (i === 1 && dataFirstStage(h.name)) ? h.name : `pq${i}_${h.name}` })),
      ).flat()
    : [];
  const writeParts = [
    ...stepIndexes.map((k) => ({
      step: true,  // the step's length is 0 when it writes nothing
      take: `st${k}_wr_len != '0`,
      bytes: ext(`st${k}_wr_data`, 8 * s.stepBytes, 8 * s.wrBytes),
      len: ext(`st${k}_wr_len`, s.stepLenWidth, s.wrLenWidth),
    })),
    {
      take: written('post'),
      bytes: `(${pipe ? pq('post_lsup') : 'lsup_post'} ? ${ext(pq('lsup_bytes'), 8 * s.maxLen, 8 * s.wrBytes)} : ${ext(pq('post_bytes'), 8 * s.maxLen, 8 * s.wrBytes)})`,
      len: `(${pipe ? pq('post_lsup') : 'lsup_post'} ? ${ext(pq('lsup_len'), 6, s.wrLenWidth)} : ${ext(pq('post_len'), 6, s.wrLenWidth)})`,
    },
  ];
  if (data) {
    const db = dataMaxBytes(c);
    writeParts.splice(stepIndexes.length, 0, { take: written('dat'), bytes: ext(pq('dat_bytes'), 8 * db, 8 * s.wrBytes), len: ext(pq('dat_len'), 6, s.wrLenWidth) });
    const rb = dataResponseMaxBytes(c);
    if (rb > 0) writeParts.splice(stepIndexes.length + 1, 0, { take: written('rsp'), bytes: ext(pq('rsp_bytes'), 8 * rb, 8 * s.wrBytes), len: ext(pq('rsp_len'), 6, s.wrLenWidth) });
  }
  const groups = Array.from({ length: groupsPerCycle(c) }, (_v, g) => g);

  // Data trace with several groups a cycle: the access's packet goes after its group's packets
  // (data sites between groups, the last group's in p_post), and the syncs of the groups up to it
  // come before it, those of the later groups after it (dataSite).
  const dataGroupCount = dataGroups(c);
  const manyDataGroups = dataGroupCount > 1;
  const dbw = c.params.dataTrace?.dblock_width_p ?? 0;
  // The data packet offered after the last group's packets.
  const datPresent = manyDataGroups ? `dat_valid && dat_block >= ${dbw}'d${dataGroupCount - 1}` : 'dat_valid';
  const sites = manyDataGroups ? groups.slice(0, -1).map((g) => ({ g, k: (g + 1) * viewsPerGroup(c) })) : [];
  const groupSync = (g: number) => `(${Array.from({ length: viewsPerGroup(c) }, (_v, i) => `st${g * viewsPerGroup(c) + i}_dsync`).join(' | ')})`;
  if (manyDataGroups) {
    // The access's packet after the packets of its group: the last group's (or out of range) before the response.
    const datPart = writeParts.splice(stepIndexes.length, 1)[0]!;
    for (const g of [...groups].reverse()) {
      const at = g === groups.length - 1 ? `${pq('dat_block')} >= ${dbw}'d${g}` : `${pq('dat_block')} == ${dbw}'d${g}`;
      writeParts.splice((g + 1) * viewsPerGroup(c), 0, { ...datPart, take: `${datPart.take} && ${at}` });
    }
    for (const { g, k } of sites) stepDecls.push(`// The data site between group ${g} and ${g + 1}.`, `logic [${roomBits(c) - 1}:0] x${k}_room;`, `logic x${k}_blocked, x${k}_lost_pending, take_dat${g}, now_dat${g};`);
  }

  return {
    banner,
    ...coreFlags(c),
    groups: groupsPerCycle(c),
    steps,
    manyGroups: groupsPerCycle(c) > 1,
    wrbytes: s.wrBytes,
    wrlenw: s.wrLenWidth,
    lenPad: zeroExtend('wr_len_o', s.wrLenWidth, s.chainWidth),
    viewsNeed: data ? 'views_need' : `s${steps}_need`,
    dataTrace: data,
    datBytes: data ? dataMaxBytes(c) : 0,
    dataSplit: dataResponseMaxBytes(c) > 0,
    rspBytes: dataResponseMaxBytes(c),
    rspLenPad: zeroExtend('rsp_len', 6, s.chainWidth),
    dataPortLines: data ? dataEncoderPorts(c).map((q) => `input  ${svLogic(q.width)} ${q.name}_i,`) : [],
    dataConns: data
      ? (() => {
          const names = dataEncoderPorts(c).map((q) => q.inner);
          const col = padColumn(names.map((n) => `.${n}_i`));
          return dataEncoderPorts(c).map((q, i) => `${col[i]} (${q.name}_i),`);
        })()
      : [],
    datLenPad: zeroExtend('dat_len', 6, s.chainWidth),
    dsyncSteps: manyDataGroups
      ? groups.map((g) => (g === 0 ? groupSync(g) : `(dat_block >= ${dbw}'d${g} && ${groupSync(g)})`)).join(' | ')
      : stepIndexes.map((k) => `st${k}_dsync`).join(' | '),
    dsyncMid: groups.slice(1).map((g) => `(dat_block < ${dbw}'d${g} && ${groupSync(g)})`).join(' | '),
    manyDataGroups,
    dbw: Math.max(1, dbw),
    dataSites: sites.flatMap(({ g, k }) => dataSite(c, g, k, doneBit('dat'))),
    datPresent,
    datMerge: sites.length > 0 ? [`take_dat = take_dat | ${sites.map(({ g }) => `take_dat${g}`).join(' | ')};`, `now_dat = now_dat | ${sites.map(({ g }) => `now_dat${g}`).join(' | ')};`] : [],
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
    countRegistered: countRegistered(c),
    countAdds: countRegistered(c) ? countSums(c) : [],
    currUpdates: views.currRegs.map(([f, v]) => `c_${f}_d = ${v};`),
    prevUpdates: views.prevRegs.map(([f, v]) => `p_${f}_d = ${v};`),
    finalDecls,
    finalLocals,
    finalInits,
    finalResults,
    lastRoom: `s${steps}_room`,
    lastBlocked: `s${steps}_blocked`,
    // The packets after the steps' with stallEnable: whether each is still to be written, its
    // reservation, and the flag that says it is written now.
    stallParts: [
      ...(data ? [{ need: `(${datPresent}) && !done_q[${doneBit('dat')}]`, res: 'ResData', wrote: 'wrote_dat' }] : []),
      ...(data && dataResponseMaxBytes(c) > 0 ? [{ need: `rsp_valid && !done_q[${doneBit('rsp')}]`, res: 'ResData', wrote: 'wrote_rsp' }] : []),
      { need: `post_valid && !done_q[${doneBit('post')}]`, res: 'ResSupport', wrote: 'wrote_post' },
    ],
    wroteDecl: encoderWrites.map((w) => `wrote_${w}`).join(', '),
    writeParts,
    // The write's length as one sum (Yosys adds the parts in a tree); a step's part is its length.
    wrLenSum: writeParts.map((w) => ('step' in w ? w.len : `(${w.take} ? ${w.len} : '0)`)).join(' + '),
    offerPost: indent(
      offerBlock('encoder', 'take_post', 'lsup_post', 'post_len', false, undefined, pipe ? { ...reserving('ResSupport'), done: `done_q[${doneBit('post')}]`, now: 'now_post', writtenApart: true } : undefined),
      6,
    ),
    pipelined: pipe,
    stages: pipelineStages(c),
    oneStage: pipelineStages(c) === 1,
    stepStages: held,
    twoStages: held > 1,
    writeStages: pipelineStages(c) - held,
    oneWriteStage: pipelineStages(c) - held === 1,
    postOrder: encoderWrites.join(', '),
    postMsb: encoderWrites.length - 1,
    postFlags: `post_write = {${[...encoderWrites].reverse().map((w) => `take_${w} && (!opt_stall || now_${w})`).join(', ')}};\n    post_lsup = lsup_post;`,
    inflightReg: pipelineStages(c) > 1,
    // Registers written out one by one (Icarus Verilog 11 leaves arrays written in loops unknown).
    resRegs: resRegs,
    lastRes: resRegs.length > 0 ? resRegs[resRegs.length - 1]!.name : '',
    writeRegs,
    lastWrite: writeRegs[writeRegs.length - 1] ?? { len: '', data: '' },
    // The reservations of the packets written in this cycle by the steps (registered as
    // res_steps_q), and those of the encoder's own packets of the cycle before, from their flags.
    resSteps: stepIndexes.map((k) => `st${k}_res`).join(' + '),
    postRes: encoderWrites.map((w, i) => ({
      flag: `pq1_post_write[${i}]`,
      res: w === 'post' ? 'ResSupport' : 'ResData',
      name: `avail_${w}`,
      from: i === 0 ? 'avail_now' : `avail_${encoderWrites[i - 1]}`,
    })),
    lastAvail: `avail_${encoderWrites[encoderWrites.length - 1]}`,
    postStageDecls: postRegs.map((r) => `${r.name === 'post_write' ? `logic ${svVec(r.width)}` : vec(r.width)} ${r.reg};`),
    postStageResets: postRegs.map((r) => `${r.reg} <= '0;`),
    postStageUpdates: postRegs.map((r) => `${r.reg} <= ${r.from};`),
    reservations: pipe ? reservationParams(c, ['ResSupport', ...(data ? ['ResData'] : [])]) : [],
    doneMsb: doneBit('post'),
    partHeld: pipe ? 'done_q' : 'part_q',
    partNext: pipe ? 'done_d' : 'part_d',
    postNows: encoderWrites.map((w) => `now_${w}`).join(', '),
    // The packets written in this cycle, in done_q's order (bit 0 first).
    nowAll: `{${[...encoderWrites.map((w) => `now_${w}`).reverse(), ...stepIndexes.map((k) => `st${k}_now`).reverse()].join(', ')}}`,
    datMisses: pipe ? '!room[ResData-1]' : `${zeroExtend('dat_len', 6, s.chainWidth)} > room`,
    datAfter: pipe ? '(room >> ResData)' : `room - ${zeroExtend('dat_len', 6, s.chainWidth)}`,
    rspMisses: pipe ? '!room[ResData-1]' : `${zeroExtend('rsp_len', 6, s.chainWidth)} > room`,
    rspAfter: pipe ? '(room >> ResData)' : `room - ${zeroExtend('rsp_len', 6, s.chainWidth)}`,
    roomBits: pipe ? roomBits(c) : 0,
    roomMsb: pipe ? roomBits(c) - 1 : 0,
    availBits: pipe ? Math.min(c.params.fifo_depth_p, 2 * roomBits(c)) : 0,
    wideAvail: pipe && Math.min(c.params.fifo_depth_p, 2 * roomBits(c)) > roomBits(c),
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
  const registered = lookupsRegistered(c);
  // The address bits outside the index.
  const outside = (a: string) => [`${a}[${iaw - 1}:${msb + 1}]`, ...(lsb > 0 ? [`${a}[${lsb - 1}:0]`] : [])];
  const unused = [...ports.flatMap(({ k }) => outside(`addr${k}_i`)), ...(registered ? outside('next_addr0_i') : [])];
  const entries = 1 << p.bpred_size_p;
  return { banner, ports, multi: ports.length > 1, registered, iaw, entries, tablew: 2 * entries, tableReset: `{${entries}{2'b01}}`, bits: p.bpred_size_p, msb, lsb, unusedAddr: unused.join(', ') };
}

export function jtcContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const lsb = p.iaddress_lsb_p;
  const ports = structurePortList(c);
  return { banner, ports, multi: ports.length > 1, registered: lookupsRegistered(c), iaw: p.iaddress_width_p, entries: 1 << p.cache_size_p, bits: p.cache_size_p, msb: lsb + p.cache_size_p - 1, lsb };
}

export function irstackContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const ports = structurePortList(c);
  return {
    banner,
    ports,
    multi: ports.length > 1,
    stack: p.return_stack_size_p > 0,
    registered: p.return_stack_size_p > 0 && lookupsRegistered(c),
    iaw: p.iaddress_width_p,
    entries: 1 << p.return_stack_size_p,
    pw: Math.max(1, p.return_stack_size_p),
    dw: Math.max(1, returnDepthWidth(p)),
    ccbits: p.call_counter_size_p,
    ccmax: (1 << p.call_counter_size_p) - 1,
    unusedCounter: ports.flatMap(({ k }) => [`target${k}_i`, `push_addr${k}_i`]).join(', '),
  };
}

export { qualifierBuses, registerOutputs, type QualifierBus } from './apb-regs.ts';

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
