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

/** The packet slots of a step and of the encoder (see the file comment). */
const STEP_SLOTS = ['pre', 'main', 'alt', 'sf2'] as const;
const ENCODER_SLOTS = ['lsup', 'post'] as const;
type Slot = (typeof STEP_SLOTS)[number] | (typeof ENCODER_SLOTS)[number];

/**
 * Views the encoder may take in one cycle: a block of several instructions (retires_p > 1) is
 * seen through its first and its last instruction (section 8.3), each encoded by its own step.
 */
export function viewsPerCycle(c: EtraceConfig): number {
  return c.params.retires_p > 1 ? 2 : 1;
}

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
  const maxLen = 1 + payloadBytes(largestPacketBits(c.params));
  const supportLen = 1 + payloadBytes(kindBits(c, { format: 3n, subformat: 3n }));
  const sf2Len = 1 + payloadBytes(kindBits(c, { format: 3n, subformat: 2n }));
  // A step: pre + main (or the resync report: never both) + sf2; then post. Any of them may be the
  // trace_lost support.
  const stepBytes = supportLen + Math.max(maxLen, supportLen) + Math.max(sf2Len, supportLen);
  const wrBytes = viewsPerCycle(c) * stepBytes + supportLen;
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
    multi: viewsPerCycle(c) > 1,
    retires: c.params.retires_p,
    blockBytes: `{${wd.iaw - wd.irw - 1}'d0, iretire_q, 1'b0}`,
    irwpad: zeroExtend('iretire_q', wd.irw, 32),
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
    ...(viewsPerCycle(c) > 1 ? [{ name: 'rec_units', width: 32 }] : []),
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
    for (const slot of slots) {
      decls.push(`// ${slot}`);
      decls.push(`logic [2:0] ${slot}_kind;`);
      for (const f of fields) {
        const decl = `logic [${(f.width || f.absentWidth || 1) - 1}:0] ${slot}_${f.name};`;
        if (f.width > 0) decls.push(decl);
        else decls.push("// not sent by this configuration's packets: no packer port", '// verilator lint_off UNUSEDSIGNAL', decl, '// verilator lint_on UNUSEDSIGNAL');
      }
      decls.push(`logic [8*${s.maxLen}-1:0] ${slot}_bytes;`);
      decls.push(`logic [5:0] ${slot}_len;`);
      decls.push(`logic [7:0] ${slot}_bits;`);
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
    multi: viewsPerCycle(c) > 1,
    itype4: p.itype_width_p === 4,
    ctype2: p.ctype_width_p === 2,
    ratified: p.payload_layout === '2.0' ? 1 : 0,
    hasBpred: p.bpred_size_p > 0 ? 1 : 0,
    hasJtc: p.cache_size_p > 0 ? 1 : 0,
    hasReturns: p.return_stack_size_p > 0 || p.call_counter_size_p > 0 ? 1 : 0,
    hasSijump: p.sijump_p === 1 ? 1 : 0,
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
  const writeSlots = (['pre', 'main', 'sf2', 'rsy'] as const).map((slot) => {
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
    offerMain: indent(offerBlock('step', 'take_main', 'lsup_main', 'main_len_sel', true, 'main_taken'), 12),
    offerSf2: indent(offerBlock('step', 'take_sf2', 'lsup_sf2', 'sf2_len', true), 10),
    offerRsy: indent(offerBlock('step', 'take_rsy', 'lsup_rsy', 'main_len', true), 14),
  };
}

/** One etrace_encoder_step instance: step `k` of the cycle (0 encodes curr, 1 a block's first view). */
function stepInstance(c: EtraceConfig, k: number): string {
  const multi = viewsPerCycle(c) > 1;
  const first = k === 1;
  const view = (f: string) => `view_${f}_i`;
  const conns: [string, string][] = [
    ['encode_i', first ? 'encode_first' : 'encode_view'],
    ...['stall', 'full', 'iexc', 'sij', 'ir', 'bp', 'jtc', 'rmode', 'rmax'].map((o): [string, string] => [`opt_${o}_i`, `opt_${o}`]),
    ...['addr', 'itype', 'retired', 'priv', 'cause', 'tval', 'qualified', 'updiscon'].map((f): [string, string] => [`p_${f}_i`, first ? `p1_${f}` : `p_${f}_q`]),
  ];
  // The block's first view: no itype, trap or jump of its own (encoder.ts pushViews).
  const firstView: Record<string, string> = {
    addr: 'first_addr_i', itype: "'0", retired: "1'b1", size: "3'd0", priv: view('priv'), context: view('context'),
    ctype: 'first_ctype_i', cause: "'0", tval: "'0", time: view('time'), sijump: "1'b0", notify: "1'b0",
    qualified: view('qualified'), enabled: view('enabled'), units: 'first_units_i', starts: "1'b1",
  };
  const currFields = ['addr', 'itype', 'retired', 'size', 'priv', 'context', 'ctype', 'cause', 'tval', 'time', 'sijump', 'notify', 'qualified', 'enabled', 'units', ...(multi ? ['starts'] : [])];
  conns.push(...currFields.map((f): [string, string] => [`c_${f}_i`, first ? firstView[f]! : `c_${f}_q`]));
  const nextFields: [string, string, string][] = [
    ['itype', 'n_itype', view('itype')], ['retired', 'n_retired', view('retired')],
    ['qualified', 'n_qualified', view('qualified')], ['priv', view('priv'), view('priv')], ['ctype', 'n_ctype', view('ctype')],
  ];
  conns.push(...nextFields.map(([f, s0, s1]): [string, string] => [`n_${f}_i`, first ? s1 : s0]));
  const st = `st${k}_`;
  conns.push(
    ['bp_taken_i', first ? "1'b0" : 'bp_taken_pred'],
    ['bp_update_o', `${st}bp_update`],
    ['jtc_hit_i', first ? 'jtc_hit1' : 'jtc_hit'],
    ['jtc_index_i', first ? 'jtc_index1' : 'jtc_index'],
    ['jtc_update_o', `${st}jtc_update`],
    ['ir_depth_i', first ? 'ir_depth1' : 'ir_depth'],
    ['ir_predicts_i', first ? 'ir_predicts1' : 'ir_predicts'],
    ['ir_push_o', `${st}ir_push`],
    ['ir_push_addr_o', `${st}ir_push_addr`],
    ['ir_pop_o', `${st}ir_pop`],
    ['synced_o', `${st}synced`],
    ['updiscon_o', `${st}updiscon`],
    ['lsup_bytes_i', 'lsup_bytes'],
    ['lsup_len_i', 'lsup_len'],
  );
  for (const v of chainState(c)) conns.push([`${v.name}_i`, `s${k}_${v.name}`], [`${v.name}_o`, `s${k + 1}_${v.name}`]);
  conns.push(
    ['room_i', `s${k}_room`],
    ['need_i', `s${k}_need`],
    ['room_o', `s${k + 1}_room`],
    ['need_o', `s${k + 1}_need`],
    ['lost_call_o', `${st}lost_call`],
    ['wr_len_o', `${st}wr_len`],
    ['wr_data_o', `${st}wr_data`],
  );
  const col = padColumn(conns.map(([port]) => `.${port}`));
  return [
    `  etrace_encoder_step u_step${k} (`,
    ...conns.map(([, sig], i) => `    ${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
    '  );',
  ].join('\n');
}

export function encoderContext(c: EtraceConfig, banner: string, packerInstance: (slot: Slot) => string) {
  const wd = widths(c);
  const { s, indent, descriptorDecls, supportAssigns } = slotHelpers(c);
  const views = viewsPerCycle(c);
  const chain = [...chainState(c), { name: 'room', width: s.chainWidth }, { name: 'need', width: s.chainWidth }];
  const steps = Array.from({ length: views }, (_v, k) => k);

  const stepDecls: string[] = [];
  for (let k = 0; k <= views; k++) {
    stepDecls.push(`// The state ${k === 0 ? 'before step 0' : `after step ${k - 1}`}.`);
    stepDecls.push(...chain.map((v) => `${vec(v.width)} s${k}_${v.name};`));
  }
  for (const k of steps) {
    stepDecls.push(`// Step ${k}'s updates of the prediction structures and its packets.`);
    stepDecls.push(
      `logic st${k}_bp_update, st${k}_jtc_update, st${k}_ir_push, st${k}_ir_pop, st${k}_synced, st${k}_updiscon, st${k}_lost_call;`,
      `logic [${wd.iaw - 1}:0] st${k}_ir_push_addr;`,
      `logic [${s.stepLenWidth - 1}:0] st${k}_wr_len;`,
      `logic [8*${s.stepBytes}-1:0] st${k}_wr_data;`,
    );
  }
  const stepStateInputs = chain
    .filter((v) => v.name !== 'lost_pending')
    .map((v) => `assign s0_${v.name} = ${v.name === 'room' ? 'fifo_free_i' : v.name === 'need' ? "'0" : `${v.name}_q`};`);

  // The post offer works on local variables named as in the steps and writes f_* once.
  const finalVars = [...chain, { name: 'lost_call', width: 1 }];
  const kept = finalVars.filter((v) => v.name !== 'room' && v.name !== 'need');
  const finalDecls = kept.map((v) => `${vec(v.width)} f_${v.name};`);
  const finalLocals = finalVars.map((v) => `${vec(v.width)} ${v.name};`);
  const finalInits = [
    ...chain.map((v) => `${v.name} = s${views}_${v.name};`),
    `lost_call = ${steps.map((k) => `st${k}_lost_call`).join(' | ')};`,
  ];
  const finalResults = kept.map((v) => `f_${v.name} = ${v.name};`);

  const ext = (x: string, from: number, to: number) => zeroExtend(x, from, to);
  const writeParts = [
    ...steps.map((k) => ({
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

  return {
    banner,
    ...coreFlags(c),
    wrbytes: s.wrBytes,
    wrlenw: s.wrLenWidth,
    descriptorDecls: descriptorDecls(ENCODER_SLOTS),
    supportAssigns: supportAssigns([
      ['lsup', "1'b1", 'QsTraceLost'],
      ['post', 'post_sup_enable', 'post_sup_status'],
    ]),
    packerInstances: ENCODER_SLOTS.map(packerInstance),
    stepDecls,
    stepStateInputs,
    stepInstances: steps.map((k) => stepInstance(c, k)),
    finalDecls,
    finalLocals,
    finalInits,
    finalResults,
    writeParts,
    offerPost: indent(offerBlock('encoder', 'take_post', 'lsup_post', 'post_len', false), 6),
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
    // A write never exceeds the room left (at most the depth), so with a small FIFO and a wide
    // write port the length's high bits are always 0 for the pointer arithmetic.
    lenPtrPad: s.wrLenWidth <= ptrw + 1 ? zeroExtend('wr_len_i', s.wrLenWidth, ptrw + 1) : `wr_len_i[${ptrw}:0]`,
    chunks: Math.ceil(s.wrBytes / 32),
    kPad: `${s.wrLenWidth}'(j * 32 + i)`,
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
  return { banner, multi: viewsPerCycle(c) > 1, iaw: p.iaddress_width_p, entries: 1 << p.cache_size_p, bits: p.cache_size_p, msb: lsb + p.cache_size_p - 1, lsb };
}

export function irstackContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const stack = p.return_stack_size_p > 0;
  return {
    banner,
    multi: viewsPerCycle(c) > 1,
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
