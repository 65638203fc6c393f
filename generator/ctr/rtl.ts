/**
 * The generated files of the CTR block for one configuration: the RTL (templates/ctr/*.sv.hbs),
 * a filelist, a FuseSoC core and the IP-XACT component, with the same banner as every generated
 * file and deterministic to the byte.
 *
 * This file prepares every value the templates paste (literals, masks, decode rows, port
 * connections); the templates only loop and paste. The values come from the model's register map
 * (golden-model/ctr/registers.ts) so that the RTL and the model cannot disagree on a bit position.
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { type CtrConfig, CTR_DEPTHS, depthIndex } from '../../golden-model/ctr/config.ts';
import {
  bit,
  controlLayout,
  dataMask,
  depthEncoding014,
  legaliseDepth,
  mControlMask,
  sControlMask,
  sourceMask,
  targetMask,
  vsControlMask,
} from '../../golden-model/ctr/registers.ts';
import { maxCycleCount } from '../../golden-model/ctr/cycle-count.ts';
import { CTR_CONFIG_SETTINGS, CTR_RTL_SETTINGS, type CtrRtlParams } from '../../golden-model/ctr/settings.ts';
import type { Waiver } from '../../core/block.ts';
import { camelCase, commentBanner, connections, padColumn, renderTemplate, svBits, svLogic, svRange, svSized, wrapComment, type BannerInput, type OutputFile } from '../render.ts';
import { svSmallOffsetAdd } from '../sv-arith.ts';
import { alignDeclarations } from '../sv-align.ts';
import { configurationLocalparamsWaiver } from '../waivers.ts';
import { counterWidth, ctrCsrDecode, type CtrCsrDecode, physicalIndexWidth } from '../../golden-model/ctr/csr-map.ts';
import { CTR_RTL_FILES, ctrPorts } from '../../golden-model/ctr/ports.ts';

const hex = (n: number, width: number): string => `${width}'h${n.toString(16)}`;

/** A setting that is a number or a flag, as a localparam of ctr_top (its name, type and value). */
interface ConfigLocalparam {
  readonly setting: string;
  readonly name: string;
  readonly type: string;
  readonly value: string;
}

/**
 * The settings that are numbers or flags, as the localparams of ctr_top: the values the RTL was
 * generated for, under lowRISC names (`depthMax` -> `DepthMax`, `iretire_width_p` ->
 * `IretireWidth`). They are not parameters: every width and table of the RTL is generated from
 * them, so another value would be ignored. The string-valued settings are named in a comment.
 */
function configLocalparams(s: Settings): ConfigLocalparam[] {
  const out: ConfigLocalparam[] = [];
  for (const spec of [...CTR_CONFIG_SETTINGS, ...CTR_RTL_SETTINGS]) {
    const v = s[spec.name];
    const name = camelCase(spec.name.replace(/_p$/, ''));
    if (typeof v === 'boolean') out.push({ setting: spec.name, name, type: 'bit', value: v ? "1'b1" : "1'b0" });
    else if (spec.name === 'filterMask' && typeof v === 'number') out.push({ setting: spec.name, name, type: 'logic [15:0]', value: svSized(16, BigInt(v)) });
    else if (typeof v === 'number') out.push({ setting: spec.name, name, type: 'int', value: String(v) });
    else if (spec.kind === 'choice' && /^\d+$/.test(String(v))) out.push({ setting: spec.name, name, type: 'int', value: String(v) });
  }
  return out;
}

interface Common {
  banner: string;
  xlen: number;
  pw: number;
  depthMax: number;
  v014: boolean;
  v10: boolean;
  rv32: boolean;
  rv64: boolean;
  growZero: boolean;
  cycleCounting: boolean;
  /** `[XLEN-1:0]`, `[W-1:0]` of a physical entry index, `[W-1:0]` as a part select. */
  xr: string;
  pr: string;
  pBits: string;
}

function common(c: CtrConfig, banner: string): Common {
  return {
    banner,
    xlen: c.xlen,
    pw: physicalIndexWidth(c),
    depthMax: c.depthMax,
    v014: c.specVersion === '0.1.4',
    v10: c.specVersion === '1.0',
    rv32: c.xlen === 32,
    rv64: c.xlen === 64,
    growZero: c.entriesOnDepthChange === 'zero',
    cycleCounting: c.cycleCounting,
    xr: svRange(c.xlen),
    pr: svRange(physicalIndexWidth(c)),
    pBits: svBits(physicalIndexWidth(c) - 1, 0),
  };
}

const lp = (type: string, name: string, value: string): string => `localparam ${type} ${name} = ${value};`;

function recordContext(c: CtrConfig, rtl: CtrRtlParams, banner: string) {
  const l = controlLayout(c);
  const x = c.xlen;
  const localparams = [
    lp('logic [2:0]', 'PrivU', "3'd0"),
    lp('logic [2:0]', 'PrivS', "3'd1"),
    lp('logic [2:0]', 'PrivM', "3'd3"),
    lp('logic [2:0]', 'PrivD', "3'd4"),
    lp('int', 'BitM', String(l.m)),
    lp('int', 'BitS', String(l.s)),
    lp('int', 'BitU', String(l.u)),
    lp('int', 'BitMte', String(l.mte)),
    lp('int', 'BitSte', String(l.ste)),
    lp('int', 'BitRasemu', String(l.rasemu)),
    lp('int', 'BitBpfrz', String(l.bpfrz)),
    lp('int', 'BitLcofifrz', String(l.lcofifrz)),
    ...(l.eten !== undefined ? [lp('int', 'BitEten', String(l.eten))] : []),
    lp('logic [31:0]', 'DataMask', svSized(32, BigInt(dataMask(c)))),
  ];
  const offsetWidth = Math.max(rtl.iretire_width_p + 1, 2 ** rtl.lastsize_width_p + 1) + 1;
  const lastInsn = svSmallOffsetAdd('last_insn', 'iaddr_i', x, 'last_offset', offsetWidth);
  const cntw = counterWidth(c);
  const ccSaturates = c.cycleCounting && maxCycleCount(c.cceBits) < 2 ** cntw - 1;
  const ccRows: string[] = [];
  if (c.cycleCounting) {
    localparams.push(lp(svLogic(cntw), 'CntMax', svSized(cntw, (1n << BigInt(cntw)) - 1n)));
    if (ccSaturates) {
      localparams.push(lp(svLogic(cntw), 'CcMaxCount', svSized(cntw, BigInt(maxCycleCount(c.cceBits)))));
      localparams.push(lp('logic [15:0]', 'CcSaturated', svSized(16, BigInt((((1 << c.cceBits) - 1) << 12) | 0xfff))));
    }
    for (let m = 12; m < cntw; m++) ccRows.push(`if (cnt_hw[${m}]) cc = { 4'd${m - 11}, cnt_hw${svBits(m - 1, m - 12)} };`);
  }
  return {
    ...common(c, banner),
    irr: svRange(rtl.iretire_width_p),
    lsr: svRange(rtl.lastsize_width_p),
    // last_offset spans iretire * 2 (iretire_width + 1 bits) minus 2 << ilastsize, plus a sign bit.
    offr: svRange(offsetWidth),
    offPad: offsetWidth - rtl.iretire_width_p - 1,
    offOne: svSized(offsetWidth, 2n),
    lastInsnDecls: lastInsn.declarations,
    lastInsnRows: lastInsn.rows,
    localparams,
    cntr: c.cycleCounting ? svRange(cntw) : '',
    pcBits: svBits(x - 1, 1),
    ccRows,
    ccSaturates,
    allCalls: c.rasemuCcvPolicy === 'all-calls',
  };
}

function decodeRow(d: CtrCsrDecode): string {
  const set: string[] = ['hit_l = 1\'b1;'];
  switch (d.kind) {
    case 'ctl':
      set.push("d_ctl_l = 1'b1;", `d_ctl_reg_l = ${d.reg};`, `d_half_l = ${d.half};`);
      break;
    case 'status':
      set.push("d_status_l = 1'b1;");
      break;
    case 'depth':
      set.push("d_depth_l = 1'b1;");
      break;
    case 'sel':
      set.push("d_sel_l = 1'b1;", `d_which_l = ${d.which};`);
      break;
    case 'ireg':
      set.push("d_ireg_l = 1'b1;", `d_which_l = ${d.which};`, `d_n_l = 3'd${d.n};`);
      break;
  }
  return `${hex(d.address, 12)}: begin ${set.join(' ')} end  // ${d.name}`;
}

const SELECTS: { which: CtrCsrDecode['which']; name: string }[] = [
  { which: 'WhichM', name: 'miselect' },
  { which: 'WhichS', name: 'siselect' },
  { which: 'WhichVs', name: 'vsiselect' },
];

function csrContext(c: CtrConfig, banner: string) {
  const l = controlLayout(c);
  const x = c.xlen;
  const pw = physicalIndexWidth(c);
  const decode = ctrCsrDecode(c);
  const selects = SELECTS.filter((s) => decode.some((d) => d.kind === 'sel' && d.which === s.which));
  const lo = depthIndex(c.depthMin);
  const hi = depthIndex(c.depthMax);
  const indices = CTR_DEPTHS.map((_, i) => i).filter((i) => i >= lo && i <= hi);
  const v014 = c.specVersion === '0.1.4';
  const localparams = [
    lp('logic [1:0]', 'RegM', "2'd0"),
    lp('logic [1:0]', 'RegS', "2'd1"),
    lp('logic [1:0]', 'RegVs', "2'd2"),
    lp('logic [1:0]', 'HalfFull', "2'd0"),
    ...(x === 32 ? [lp('logic [1:0]', 'HalfLo', "2'd1"), lp('logic [1:0]', 'HalfHi', "2'd2")] : []),
    lp('logic [1:0]', 'WhichM', "2'd0"),
    lp('logic [1:0]', 'WhichS', "2'd1"),
    lp('logic [1:0]', 'WhichVs', "2'd2"),
    ...(v014 ? [lp('int', 'BitClr', String(l.clr))] : []),
    lp('logic [63:0]', 'MMask', svSized(64, mControlMask(c))),
    lp('logic [63:0]', 'SMask', svSized(64, sControlMask(c))),
    lp('logic [63:0]', 'VsMask', svSized(64, vsControlMask(c))),
    lp('logic [63:0]', 'MsOnly', svSized(64, bit(l.m) | bit(l.mte))),
    lp(svLogic(x), 'SrcMask', svSized(x, sourceMask(c))),
    lp(svLogic(x), 'TgtMask', svSized(x, targetMask(c))),
    lp('logic [2:0]', 'ResetIdx', `3'd${depthIndex(c.resetDepth)}`),
  ];
  const pad8 = pw < 8 ? `${8 - pw}'d0, ` : '';
  const statusExpr = v014
    ? `{ ${x - 16}'d0, frozen_q, wrap_q, 6'd0, ${pad8}wrptr_q }`
    : `{ ${x === 64 ? "32'd0, " : ''}frozen_q, 23'd0, ${pad8}wrptr_q }`;
  const depthValueW = v014 ? 4 : 3;
  const legaliseRows = Array.from({ length: 1 << depthValueW }, (_, v) => {
    const r = legaliseDepth(c, v, -1);
    return { value: `${depthValueW}'h${v.toString(16)}`, result: r < 0 ? "4'b1000" : svSized(4, BigInt(r)) };
  });
  const depthRows = indices.map((i) => ({
    idx: `3'd${i}`,
    mask: svSized(pw, BigInt((16 << i) - 1)),
    enc: svSized(4, BigInt(depthEncoding014(i))),
  }));
  const unused: string[] = [];
  if (x === 64) unused.push('d_half');
  return {
    ...common(c, banner),
    localparams,
    selects: selects.map((s) => s.name),
    selectRows: selects.map((s) => `${s.which}: sel_val = ${s.name}_q;`),
    selectWrites: selects.map((s) => `${s.which}: ${s.name}_d = sel_new;`),
    decodeRows: decode.map(decodeRow),
    depthRows,
    defaultMask: depthRows[0]!.mask,
    // The 8-bit logical entry number against depth - 1.
    depthMask8: pw < 8 ? `{ ${8 - pw}'d0, depth_mask }` : 'depth_mask',
    defaultEnc: depthRows[0]!.enc,
    legalisation: c.depthLegalisation,
    depthValueR: svRange(depthValueW),
    // The depth index is one of the implemented depths (the lower bound only when above 0).
    idxOk: lo > 0 ? `(idx_q >= 3'd${lo}) && (idx_q <= 3'd${hi})` : `idx_q <= 3'd${hi}`,
    legaliseRows,
    selHiBits: svBits(x - 1, 8),
    selHiValue: svSized(x - 8, 2n),
    depthPad: x - 3,
    statusExpr,
    datRead: x === 64 ? "{ 32'd0, ent_dat_i }" : 'ent_dat_i',
    datMaskX: svSized(x, BigInt(dataMask(c))),
    wrptrOnChange: c.wrptrOnDepthChange === 'mask' ? 'hw_wrptr_i & mask_of(new_idx)' : "'0",
    unusedCsr: unused.join(', '),
  };
}

function entriesContext(c: CtrConfig, banner: string) {
  const lo = depthIndex(c.depthMin);
  const hi = depthIndex(c.depthMax);
  const n = c.depthMax;
  const liveRows = CTR_DEPTHS.map((_, i) => i)
    .filter((i) => i >= lo && i <= hi)
    .map((i) => ({ idx: `3'd${i}`, live: svSized(n, (1n << BigInt(16 << i)) - 1n) }));
  return { ...common(c, banner), srcHiR: svRange(c.xlen - 1), srcHiBits: svBits(c.xlen - 1, 1), entriesR: svRange(n), wdataHiBits: c.xlen === 64 ? svBits(63, 32) : '', liveRows, defaultLive: liveRows[0]!.live };
}

function topContext(c: CtrConfig, rtl: CtrRtlParams, settings: Settings, banner: string) {
  const ports = ctrPorts(c, rtl);
  const has = (name: string): boolean => ports.some((p) => p.name === name);
  const types = padColumn(ports.map((q) => `${q.direction === 'in' ? 'input ' : 'output'} ${svLogic(q.width)}`));
  const config = configLocalparams(settings);
  const v014 = c.specVersion === '0.1.4';
  const vSrc = has('v_i') ? 'v_i' : "1'b0";
  const csrV = has('csr_v_i') ? 'csr_v_i' : "1'b0";
  const recordConns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['itype_i', 'itype_i'],
    ['iretire_i', 'iretire_i'],
    ['ilastsize_i', 'ilastsize_i'],
    ['iaddr_i', 'iaddr_i'],
    ['priv_i', 'priv_i'],
    ['v_i', vSrc],
    ['halted_i', 'halted_i || reset_i'],
    ['misp_i', has('misp_i') ? 'misp_i' : "1'b0"],
    ['lcofi_i', has('lcofi_trap_i') ? 'lcofi_trap_i' : "1'b0"],
    ['bp_i', has('bp_trap_i') ? 'bp_trap_i' : "1'b0"],
    ['mctl_i', 'mctl'],
    ['vsctl_i', 'vsctl'],
    ['depth_mask_i', 'depth_mask'],
    ['wrptr_i', 'wrptr'],
    ...(v014 ? ([['wrap_i', 'wrap']] as [string, string][]) : []),
    ['frozen_i', 'frozen'],
    ['cc_reset_i', 'cc_reset'],
    ['hw_wrptr_o', 'hw_wrptr'],
    ...(v014 ? ([['hw_wrap_o', 'hw_wrap']] as [string, string][]) : []),
    ['hw_frozen_o', 'hw_frozen'],
    ['ent_we_o', 'hw_we'],
    ['ent_inval_o', 'hw_inval'],
    ['ent_phys_o', 'hw_phys'],
    ['ent_src_o', 'hw_src'],
    ['ent_tgt_o', 'hw_tgt'],
    ['ent_dat_o', 'hw_dat'],
  ];
  const growZero = c.entriesOnDepthChange === 'zero';
  const csrConns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['csr_valid_i', 'csr_valid_i'],
    ['csr_addr_i', 'csr_addr_i'],
    ['csr_we_i', 'csr_we_i'],
    ['csr_wdata_i', 'csr_wdata_i'],
    ['csr_wmask_i', 'csr_wmask_i'],
    ['csr_priv_i', 'csr_priv_i'],
    ['csr_v_i', csrV],
    ...(v014 ? [] : ([['sctrclr_i', 'sctrclr_i']] as [string, string][])),
    ['mstateen0_ctr_i', has('mstateen0_ctr_i') ? 'mstateen0_ctr_i' : "1'b1"],
    ['mstateen0_csrind_i', has('mstateen0_csrind_i') ? 'mstateen0_csrind_i' : "1'b1"],
    ['hstateen0_ctr_i', has('hstateen0_ctr_i') ? 'hstateen0_ctr_i' : "1'b1"],
    ['hstateen0_csrind_i', has('hstateen0_csrind_i') ? 'hstateen0_csrind_i' : "1'b1"],
    ['csr_rdata_o', 'csr_rdata_o'],
    ['csr_illegal_o', 'csr_illegal_o'],
    ['csr_virtual_o', 'csr_virtual_o'],
    ['mctl_o', 'mctl'],
    ['vsctl_o', 'vsctl'],
    ['depth_mask_o', 'depth_mask'],
    ['wrptr_o', 'wrptr'],
    ...(v014 ? ([['wrap_o', 'wrap']] as [string, string][]) : []),
    ['frozen_o', 'frozen'],
    ['hw_wrptr_i', 'hw_wrptr'],
    ...(v014 ? ([['hw_wrap_i', 'hw_wrap']] as [string, string][]) : []),
    ['hw_frozen_i', 'hw_frozen'],
    ['cc_reset_o', 'cc_reset'],
    ['ent_phys_o', 'ent_phys'],
    ['ent_src_i', 'ent_src'],
    ['ent_tgt_i', 'ent_tgt'],
    ['ent_dat_i', 'ent_dat'],
    ['ent_we_o', 'ent_we'],
    ['ent_reg_o', 'ent_reg'],
    ['ent_wdata_o', 'ent_wdata'],
    ...(growZero ? ([['grow_o', 'grow'], ['grow_from_o', 'grow_from'], ['grow_to_o', 'grow_to']] as [string, string][]) : []),
    ['clear_o', 'clear'],
  ];
  const entriesConns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['hw_we_i', 'hw_we'],
    ['hw_inval_i', 'hw_inval'],
    ['hw_phys_i', 'hw_phys'],
    ['hw_src_i', 'hw_src'],
    ['hw_tgt_i', 'hw_tgt'],
    ['hw_dat_i', 'hw_dat'],
    ['csr_we_i', 'ent_we'],
    ['csr_reg_i', 'ent_reg'],
    ['csr_phys_i', 'ent_phys'],
    ['csr_wdata_i', 'ent_wdata'],
    ...(growZero ? ([['grow_i', 'grow'], ['grow_from_i', 'grow_from'], ['grow_to_i', 'grow_to']] as [string, string][]) : []),
    ['clear_i', 'clear'],
    ['rd_src_o', 'ent_src'],
    ['rd_tgt_o', 'ent_tgt'],
    ['rd_dat_o', 'ent_dat'],
  ];
  const vNot = has('v_i') ? ' && !v_i' : '';
  const modes = [`(priv_i == 3'd3${vNot})`, `(priv_i == 3'd4${vNot})`];
  if (c.sMode) modes.push("(priv_i == 3'd1)");
  if (c.uMode) modes.push("(priv_i == 3'd0)");
  const csrVNot = has('csr_v_i') ? ' && !csr_v_i' : '';
  const csrModes = [`(csr_priv_i == 2'd3${csrVNot})`];
  if (c.sMode) csrModes.push("(csr_priv_i == 2'd1)");
  if (c.uMode) csrModes.push("(csr_priv_i == 2'd0)");
  const accessing = has('sctrclr_i') ? '(csr_valid_i || sctrclr_i)' : 'csr_valid_i';
  const strings = [...CTR_CONFIG_SETTINGS, ...CTR_RTL_SETTINGS].filter((s) => s.name !== 'specVersion' && s.kind === 'choice' && !/^\d+$/.test(String(settings[s.name])));
  return {
    ...common(c, banner),
    headLines: wrapComment(
      `ctr_top: the Control Transfer Records unit of this component (${c.specVersion === '0.1.4' ? 'CTR seed draft v0.1.4' : 'ratified Smctr/Ssctr 1.0'}; ${strings.map((s) => `${s.name} ${String(settings[s.name])}`).join(', ')}). Modules:`,
      100,
    ),
    configLines: config.map((p) => lp(p.type, p.name, p.value)),
    portLines: ports.flatMap((q, i) => [...wrapComment(q.description, 96), `${types[i]} ${q.name}${i === ports.length - 1 ? '' : ','}`]),
    recordConns: connections(recordConns),
    csrConns: connections(csrConns),
    entriesConns: connections(entriesConns),
    privOk: modes.join(' || '),
    csrOk: `!${accessing} || ${csrModes.join(' || ')}`,
  };
}

/** Every RTL file of a configuration, in compilation order (ctr-ports.ts CTR_RTL_FILES). */
export function renderCtrRtl(c: CtrConfig, rtl: CtrRtlParams, settings: Settings, b: BannerInput): OutputFile[] {
  const banner = commentBanner(b, '//');
  const render: Record<string, () => string> = {
    'ctr_entries.sv': () => renderTemplate('ctr/ctr_entries.sv.hbs', entriesContext(c, banner)),
    'ctr_csr.sv': () => renderTemplate('ctr/ctr_csr.sv.hbs', csrContext(c, banner)),
    'ctr_record.sv': () => renderTemplate('ctr/ctr_record.sv.hbs', recordContext(c, rtl, banner)),
    'ctr_top.sv': () => renderTemplate('ctr/ctr_top.sv.hbs', topContext(c, rtl, settings, banner)),
  };
  return CTR_RTL_FILES.map((name) => ({ name, content: alignDeclarations(render[name]!()) }));
}

/** The lint waivers of the generated CTR RTL (rendered into ctr.vlt), each with the reason it is not a defect. */
export function ctrLintWaivers(): Waiver[] {
  return [configurationLocalparamsWaiver('ctr_top')];
}
