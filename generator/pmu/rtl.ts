/**
 * The generated RTL of the PMU counter block for one configuration (templates/pmu/*.sv.hbs), with
 * the same banner as every generated file and deterministic to the byte.
 *
 * Module split: pmu_counter is one programmable counter with its mhpmevent (instantiated once per
 * implemented counter, so that only implemented counters have flops, each of counterWidth bits);
 * pmu_csr holds everything there is once: the events of the cycle, mcycle/minstret, the control
 * registers, the CSR decode (generated from the CSR map, golden-model/pmu/csr-map.ts), the access
 * checks, the read mux and the write data with the one selector legalisation; pmu_top wires them.
 *
 * This file prepares every value the templates paste (literals, masks, decode rows, port
 * connections); the templates only loop and paste. Bit positions and masks are the model's
 * (golden-model/pmu/registers.ts); layout.ts adds the RTL's mode vector.
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { eventName, hpmCounters, type PmuConfig, type PmuEvent, type StreamEvent } from '../../golden-model/pmu/config.ts';
import { pmuCsrName, pmuCsrNumbers, type PmuCsr } from '../../golden-model/pmu/csr-map.ts';
import { PMU_RTL_FILES, pmuPorts } from '../../golden-model/pmu/ports.ts';
import { PMU_CONFIG_SETTINGS, PMU_RTL_SETTINGS, type PmuRtlParams } from '../../golden-model/pmu/settings.ts';
import type { Provenance, Waiver } from '../../core/block.ts';
import { camelCase, commentBanner, connections, padColumn, renderTemplate, svBits, svLogic, svRange, svSized, svVec, wrapComment, type OutputFile } from '../render.ts';
import { svChunkedIncrement } from '../sv-arith.ts';
import { alignDeclarations } from '../sv-align.ts';
import { configurationLocalparamsWaiver } from '../waivers.ts';
import { counterEnableMask, countInhibitMask, EVENT_BITS, hardwiredSelector, SSCOFPMF_SELECTOR_LIMIT } from '../../golden-model/pmu/registers.ts';
import { MODE_COUNT, MODE_LSB, modeMask } from './layout.ts';

/** Settings that only the SBI firmware model reads: not hardware, so not localparams of pmu_top. */
const FIRMWARE_SETTINGS = new Set(['sbi_behaviour', 'firmwareCounters', 'eventToCounters', 'eventToSelector', 'rawEventToCounters']);

const lp = (type: string, name: string, value: string): string => `localparam ${type} ${name} = ${value};`;

/**
 * The hardware settings that are numbers or flags, as localparams of pmu_top under lowRISC names
 * (`counterWidth` -> `CounterWidth`, `iretire_width_p` -> `IretireWidth`). The string-valued ones
 * (the event map, eventLegalisation) are written as comments.
 */
function configLocalparams(s: Settings): string[] {
  const out: string[] = [];
  for (const spec of [...PMU_CONFIG_SETTINGS, ...PMU_RTL_SETTINGS]) {
    if (FIRMWARE_SETTINGS.has(spec.name)) continue;
    const v = s[spec.name];
    const name = camelCase(spec.name.replace(/_p$/, ''));
    if (typeof v === 'boolean') out.push(lp('bit', name, v ? "1'b1" : "1'b0"));
    else if (spec.name === 'counterMask' && typeof v === 'number') out.push(lp('logic [31:0]', name, svSized(32, BigInt(v))));
    else if (typeof v === 'bigint' && v < 1n << 64n) out.push(lp('logic [63:0]', name, svSized(64, v)));
    else if (typeof v === 'number') out.push(lp('int', name, String(v)));
    else if (spec.kind === 'choice' && /^\d+$/.test(String(v))) out.push(lp('int', name, String(v)));
  }
  return out;
}

/** The one-cycle definition of each stream event (docs/pmu-model.md, "Counting"), from itype/iretire. */
const STREAM_EXPR: Record<Exclude<StreamEvent, 'cycles'>, string> = {
  instructions: "(iretire_i != '0) && (itype_i != 4'd1)",
  branches: "(itype_i == 4'd4) || (itype_i == 4'd5)",
  taken_branches: "itype_i == 4'd5",
  calls: "(itype_i == 4'd8) || (itype_i == 4'd9)",
  returns: "itype_i == 4'd13",
  jumps: "(itype_i == 4'd10) || (itype_i == 4'd11) || (itype_i == 4'd12) || (itype_i == 4'd14) || (itype_i == 4'd15)",
  exceptions: "itype_i == 4'd1",
  interrupts: "itype_i == 4'd2",
  trap_returns: "itype_i == 4'd3",
};

/** The signal that is high in a cycle in which `e` happened (before the `active` gate). */
function eventSignal(e: PmuEvent): string {
  if (e.kind === 'input') return `event_i[${e.input}]`;
  return e.name === 'cycles' ? "1'b1" : `ev_${e.name}`;
}

/** A concatenation of `parts` (most significant first), without zero-width parts; one part stands alone. */
function concat(parts: readonly (string | undefined)[]): string {
  const p = parts.filter((x): x is string => x !== undefined);
  return p.length === 1 ? p[0]! : `{ ${p.join(', ')} }`;
}

/** `expr` (of `width` bits) zero-extended to `total` bits. */
function zext(expr: string, width: number, total: number): string {
  return concat([width < total ? `${total - width}'d0` : undefined, expr]);
}

/** Slice k of a vector of slices of `w` bits. */
const slice = (signal: string, k: number, w: number): string => `${signal}${svBits(k * w + w - 1, k * w)}`;

/** A 32-bit vector with bit n = `signal[k]` for the k-th implemented counter n, 0 elsewhere. */
function spread(hpm: readonly number[], signal: string): string {
  const parts: string[] = [];
  let n = 31;
  while (n >= 0) {
    const k = hpm.indexOf(n);
    if (k < 0) {
      let m = n;
      while (m - 1 >= 0 && !hpm.includes(m - 1)) m--;
      parts.push(`${n - m + 1}'d0`);
      n = m - 1;
    } else {
      let m = n;
      let j = k;
      while (m - 1 >= 0 && j - 1 >= 0 && hpm[j - 1] === m - 1) {
        m--;
        j--;
      }
      parts.push(`${signal}${svBits(k, j)}`);
      n = m - 1;
    }
  }
  return concat(parts);
}

/** The kinds of CSR the decode tells apart: the code of d_kind, its localparam and its flag. */
const KINDS: readonly { kind: PmuCsr['kind'] | 'none'; name: string; flag: string }[] = [
  { kind: 'none', name: 'KindNone', flag: '' },
  { kind: 'counter', name: 'KindCnt', flag: 'd_cnt' },
  { kind: 'user-counter', name: 'KindUcnt', flag: 'd_ucnt' },
  { kind: 'event', name: 'KindEv', flag: 'd_ev' },
  { kind: 'mcountinhibit', name: 'KindInhibit', flag: 'd_inhibit' },
  { kind: 'mcounteren', name: 'KindMcen', flag: 'd_mcen' },
  { kind: 'scounteren', name: 'KindScen', flag: 'd_scen' },
  { kind: 'hcounteren', name: 'KindHcen', flag: 'd_hcen' },
  { kind: 'scountovf', name: 'KindOvf', flag: 'd_ovf' },
  { kind: 'cfg', name: 'KindCfg', flag: 'd_cfg' },
];

function kindOf(kind: PmuCsr['kind']): (typeof KINDS)[number] {
  return KINDS.find((k) => k.kind === kind)!;
}

function decodeRow(address: number, csr: PmuCsr): string {
  const index = 'index' in csr ? csr.index : 0;
  const high = 'high' in csr && csr.high ? 1 : 0;
  return `12'h${address.toString(16).padStart(3, '0')}: begin d_kind = ${kindOf(csr.kind).name}; d_idx = 5'd${index}; d_high = 1'b${high}; end  // ${pmuCsrName(csr)}`;
}

interface Common {
  banner: string;
  rv32: boolean;
  sscofpmf: boolean;
  hardwired: boolean;
  /** mhpmevent can be written (a selector, or the Sscofpmf bits). */
  evWrite: boolean;
  legalisation: string;
  /** There are programmable counters (counterMask has bits 3..31), and an event map (events is not empty). */
  hasHpm: boolean;
  hasMap: boolean;
  cw: number;
  /** Ranges: XLEN, counterWidth, eventBits, event map items; N implemented counters of 1, CW, EB and 5 bits. */
  xr: string;
  cr: string;
  sr: string;
  mr: string;
  nr: string;
  ncr: string;
  nsr: string;
  nir: string;
}

function common(c: PmuConfig, banner: string): Common {
  const n = hpmCounters(c).length;
  const m = c.events.length;
  // Without programmable counters or without an event map the vectors over them do not exist.
  const vec = (w: number): string => (w > 0 ? svVec(w) : '');
  return {
    banner,
    rv32: c.xlen === 32,
    sscofpmf: c.sscofpmf,
    hardwired: c.eventLegalisation === 'hardwired',
    evWrite: c.eventLegalisation !== 'hardwired' || c.sscofpmf,
    legalisation: c.eventLegalisation,
    hasHpm: n > 0,
    hasMap: m > 0,
    cw: c.counterWidth,
    xr: svRange(c.xlen),
    cr: svRange(c.counterWidth),
    sr: svRange(c.eventBits),
    mr: vec(m),
    nr: vec(n),
    ncr: vec(n * c.counterWidth),
    nsr: vec(n * c.eventBits),
    nir: vec(n * MODE_COUNT),
  };
}

function modeMaskParam(c: PmuConfig): string {
  return lp('logic [4:0]', 'ModeMask', `5'b${modeMask(c).toString(2).padStart(5, '0')}`);
}

function counterContext(c: PmuConfig, banner: string) {
  return {
    ...common(c, banner),
    localparams: c.sscofpmf ? [modeMaskParam(c)] : [],
    incrementRows: svChunkedIncrement('cnt_inc', 'cnt_q', c.counterWidth),
  };
}

function csrContext(c: PmuConfig, rtl: PmuRtlParams, banner: string) {
  const hpm = hpmCounters(c);
  const cw = c.counterWidth;
  const eb = c.eventBits;
  // The counters count from the event map: without counters no map event is needed.
  const mapOut = hpm.length > 0 && c.events.length > 0;
  const modeOut = mapOut && c.sscofpmf;
  const used = new Set((mapOut ? c.events : []).map((m) => m.event).filter((e) => e.kind === 'stream').map((e) => (e.kind === 'stream' ? e.name : '')));
  used.add('instructions');
  const stream = (Object.keys(STREAM_EXPR) as (keyof typeof STREAM_EXPR)[]).filter((e) => used.has(e));
  const needMode = modeOut || c.smcntrpmf;
  const csrs = pmuCsrNumbers(c);
  const kinds = KINDS.filter((k) => k.kind !== 'none' && csrs.some((e) => e.csr.kind === k.kind));
  const localparams = [
    ...KINDS.filter((k) => k.kind === 'none' || kinds.includes(k)).map((k) => lp('logic [3:0]', k.name, `4'd${KINDS.indexOf(k)}`)),
    lp('logic [31:0]', 'InhibitMask', svSized(32, BigInt(countInhibitMask(c)))),
    ...(c.uMode ? [lp('logic [31:0]', 'EnableMask', svSized(32, BigInt(counterEnableMask(c))))] : []),
    ...((c.sscofpmf && hpm.length > 0) || c.smcntrpmf ? [modeMaskParam(c)] : []),
    ...(c.eventLegalisation === 'clamp' ? [lp(svLogic(eb), 'EventMax', svSized(eb, c.eventMax))] : []),
  ];
  const cntRows = [`5'd0: cnt64 = mcycle_q;`, `5'd2: cnt64 = minstret_q;`, ...hpm.map((n, k) => `5'd${n}: cnt64 = ${zext(slice('hpm_cnt_i', k, cw), cw, 64)};`)];
  // mhpmevent with Sscofpmf: OF, the mode bits, the reserved bits below them (57..56), the selector.
  const reservedBits = MODE_LSB - SSCOFPMF_SELECTOR_LIMIT;
  const reserved = `${reservedBits}'b${'0'.repeat(reservedBits)}`;
  const evRows = hpm.map((n, k) => {
    const sel = slice('hpm_sel_i', k, eb);
    const value = c.sscofpmf
      ? concat([`hpm_of_i[${k}]`, slice('hpm_inh_i', k, MODE_COUNT), reserved, eb < SSCOFPMF_SELECTOR_LIMIT ? `${SSCOFPMF_SELECTOR_LIMIT - eb}'d0` : undefined, sel])
      : zext(sel, eb, 64);
    return `5'd${n}: ev64 = ${value};`;
  });
  const weLines = [
    ...hpm.map((n, k) => `assign cnt_we_o[${k}] = wr_cnt && (d_idx == 5'd${n});`),
    ...(c.eventLegalisation !== 'hardwired' || c.sscofpmf ? hpm.map((n, k) => `assign ev_we_o[${k}] = wr_ev && (d_idx == 5'd${n});`) : []),
  ];
  const unused: string[] = [];
  for (let k = 0; k < c.eventInputs; k++) if (!mapOut || !c.events.some((m) => m.event.kind === 'input' && m.event.input === k)) unused.push(`event_i[${k}]`);
  if (!needMode) unused.push('v_i');
  if (!c.sMode) unused.push('acc_u');
  if (hpm.length === 0 || (c.eventLegalisation === 'hardwired' && !c.sscofpmf)) unused.push('wr_ev');
  if (c.xlen === 64) unused.push('d_high');
  const inhibitBits = [...hpm].reverse().map((n) => `mcountinhibit_q[${n}]`);
  return {
    ...common(c, banner),
    incrementRows: [...svChunkedIncrement('mcycle_inc', 'mcycle_q', 64), ...svChunkedIncrement('minstret_inc', 'minstret_q', 64)],
    uMode: c.uMode,
    sMode: c.sMode,
    hExt: c.hExt,
    smcntrpmf: c.smcntrpmf,
    scountovf: c.sscofpmf && c.sMode,
    needMode,
    mapOut,
    modeOut,
    csrTail: c.sscofpmf || hpm.length > 0,
    lcofiExpr: hpm.length > 0 ? '|hpm_ovf_i' : "1'b0",
    clamp: c.eventLegalisation === 'clamp',
    mask: c.eventLegalisation === 'mask',
    eventInputs: c.eventInputs > 0,
    irr: svRange(rtl.iretire_width_p),
    eir: svRange(c.eventInputs > 0 ? c.eventInputs : 1),
    localparams,
    streamDecls: stream.map((e) => `ev_${e}`),
    streamLines: stream.map((e) => `ev_${e} = ${STREAM_EXPR[e]};`),
    mapEvExpr: `{ ${[...c.events].reverse().map((m) => eventSignal(m.event)).join(', ')} }`,
    inhibitExpr: inhibitBits.length === 1 ? inhibitBits[0]! : `{ ${inhibitBits.join(', ')} }`,
    decodeRows: csrs.map((e) => decodeRow(e.address, e.csr)),
    kindDecls: kinds.map((k) => k.flag),
    kindLines: kinds.map((k) => `assign ${k.flag} = d_kind == ${k.name};`),
    cntRows,
    evRows,
    ovfExpr: spread(hpm, 'hpm_of_i'),
    weLines,
    onehotLines: (hpm.length === 0 || c.eventLegalisation === 'hardwired' ? [] : c.events).map((m, k) => `assign ev_onehot_o[${k}] = ev_sel_o == ${svSized(eb, m.selector)};  // ${eventName(m.event)}`),
    cwBits: svBits(cw - 1, 0),
    ofBit: svBits(EVENT_BITS.of, EVENT_BITS.of),
    modeBits: svBits(EVENT_BITS.minh, EVENT_BITS.vuinh),
    modeLow: `${MODE_LSB}'d0`,
    sBits: svBits(eb - 1, 0),
    unused: unused.join(', '),
  };
}

function topContext(c: PmuConfig, rtl: PmuRtlParams, settings: Settings, banner: string) {
  const cm = common(c, banner);
  const ports = pmuPorts(c, rtl);
  const has = (name: string): boolean => ports.some((p) => p.name === name);
  const types = padColumn(ports.map((q) => `${q.direction === 'in' ? 'input ' : 'output'} ${svLogic(q.width)}`));
  const hpm = hpmCounters(c);
  const cw = c.counterWidth;
  const eb = c.eventBits;
  const rv32 = c.xlen === 32;
  // pmu_csr's side of the programmable counters (none without them).
  const counterConns: [string, string][] = [
    ...(cm.hasMap ? ([['map_ev_o', 'map_ev'], ...(c.sscofpmf ? [['mode_o', 'mode']] : []), ['inhibit_o', 'inhibit']] as [string, string][]) : []),
    ['cnt_we_o', 'cnt_we'],
    ['cnt_wdata_o', 'cnt_wdata'],
    ...(cm.evWrite ? ([['ev_we_o', 'ev_we']] as [string, string][]) : []),
    ...(cm.hardwired ? [] : ([['ev_sel_o', 'ev_sel'], ...(cm.hasMap ? [['ev_onehot_o', 'ev_onehot']] : [])] as [string, string][])),
    ...(c.sscofpmf
      ? ([...(rv32 ? [['ev_of_we_o', 'ev_of_we']] : []), ['ev_of_o', 'ev_of'], ['ev_inh_o', 'ev_inh']] as [string, string][])
      : []),
    ['hpm_cnt_i', 'hpm_cnt'],
    ['hpm_sel_i', 'hpm_sel'],
    ...(c.sscofpmf ? ([['hpm_of_i', 'hpm_of'], ['hpm_inh_i', 'hpm_inh'], ['hpm_ovf_i', 'hpm_ovf']] as [string, string][]) : []),
  ];
  const csrConns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['itype_i', 'itype_i'],
    ['iretire_i', 'iretire_i'],
    ['priv_i', 'priv_i'],
    ['v_i', has('v_i') ? 'v_i' : "1'b0"],
    ['halted_i', 'halted_i'],
    ['reset_i', 'reset_i'],
    ...(has('event_i') ? ([['event_i', 'event_i']] as [string, string][]) : []),
    ['csr_valid_i', 'csr_valid_i'],
    ['csr_addr_i', 'csr_addr_i'],
    ['csr_we_i', 'csr_we_i'],
    ['csr_wdata_i', 'csr_wdata_i'],
    ['csr_wmask_i', 'csr_wmask_i'],
    ['csr_priv_i', 'csr_priv_i'],
    ['csr_v_i', has('csr_v_i') ? 'csr_v_i' : "1'b0"],
    ['csr_rdata_o', 'csr_rdata_o'],
    ['csr_illegal_o', 'csr_illegal_o'],
    ['csr_virtual_o', 'csr_virtual_o'],
    ...(c.sscofpmf ? ([['lcofi_o', 'lcofi_o']] as [string, string][]) : []),
    ...(cm.hasHpm ? counterConns : []),
  ];
  const counters = hpm.map((n, k) => {
    const conns: [string, string][] = [
      ['clk_i', 'clk_i'],
      ['rst_ni', 'rst_ni'],
      ...(cm.hasMap ? ([['map_ev_i', 'map_ev'], ...(c.sscofpmf ? [['mode_i', 'mode']] : []), ['inhibit_i', `inhibit[${k}]`]] as [string, string][]) : []),
      ...(cm.hardwired ? ([['hw_sel_i', svSized(eb, hardwiredSelector(c, n))], ...(cm.hasMap ? [['hw_onehot_i', onehot(c, hardwiredSelector(c, n))]] : [])] as [string, string][]) : []),
      ['cnt_we_i', `cnt_we[${k}]`],
      ['cnt_wdata_i', 'cnt_wdata'],
      ...(cm.evWrite ? ([['ev_we_i', `ev_we[${k}]`]] as [string, string][]) : []),
      ...(cm.hardwired ? [] : ([['ev_sel_i', 'ev_sel'], ...(cm.hasMap ? [['ev_onehot_i', 'ev_onehot']] : [])] as [string, string][])),
      ...(c.sscofpmf
        ? ([...(rv32 ? [['ev_of_we_i', 'ev_of_we']] : []), ['ev_of_i', 'ev_of'], ['ev_inh_i', 'ev_inh']] as [string, string][])
        : []),
      ['cnt_o', slice('hpm_cnt', k, cw)],
      ['sel_o', slice('hpm_sel', k, eb)],
      ...(c.sscofpmf ? ([['of_o', `hpm_of[${k}]`], ['inh_o', slice('hpm_inh', k, MODE_COUNT)], ['ovf_o', `hpm_ovf[${k}]`]] as [string, string][]) : []),
    ];
    return { n, conns: connections(conns) };
  });
  const vNot = has('v_i') ? ' && !v_i' : '';
  const modes = [`(priv_i == 3'd3${vNot})`, `(priv_i == 3'd4${vNot})`];
  if (c.sMode) modes.push("(priv_i == 3'd1)");
  if (c.uMode) modes.push("(priv_i == 3'd0)");
  const csrVNot = has('csr_v_i') ? ' && !csr_v_i' : '';
  const csrModes = [`(csr_priv_i == 2'd3${csrVNot})`];
  if (c.sMode) csrModes.push("(csr_priv_i == 2'd1)");
  if (c.uMode) csrModes.push("(csr_priv_i == 2'd0)");
  const ext = [c.sscofpmf ? 'Sscofpmf' : undefined, c.smcntrpmf ? 'Smcntrpmf' : undefined].filter((x) => x !== undefined);
  return {
    ...cm,
    headLines: wrapComment(
      `pmu_top: the hardware performance counters of this component (privileged specification, Zicntr and Zihpm${ext.length > 0 ? `, ${ext.join(', ')}` : ''}): mcycle, minstret and ${hpm.length > 0 ? `${hpm.length} programmable counters of ${cw} bits` : 'no programmable counters'}. Modules:`,
      100,
    ),
    hpmList: hpm.length > 0 ? `${hpm.length} instances: ${hpmRanges(hpm)}` : 'not instantiated: counterMask implements none',
    configLines: configLocalparams(settings),
    eventMap: c.events.length > 0 ? c.events.map((m) => `0x${m.selector.toString(16)}=${eventName(m.event)}`).join(', ') : '(empty: no selector names an event)',
    portLines: ports.flatMap((q, i) => [...wrapComment(q.description, 96), `${types[i]} ${q.name}${i === ports.length - 1 ? '' : ','}`]),
    csrConns: connections(csrConns),
    counters,
    privOk: modes.join(' || '),
    csrOk: `!csr_valid_i || ${csrModes.join(' || ')}`,
  };
}

/** The event map item a selector names, as a one-hot literal over the map (0: not in the map). */
function onehot(c: PmuConfig, selector: bigint): string {
  const k = c.events.findIndex((m) => m.selector === selector);
  return svSized(c.events.length, k < 0 ? 0n : 1n << BigInt(k));
}

/** `3..18, 20` for the counters 3 to 18 and 20. */
function hpmRanges(hpm: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < hpm.length; ) {
    let j = i;
    while (j + 1 < hpm.length && hpm[j + 1] === hpm[j]! + 1) j++;
    out.push(j === i ? String(hpm[i]) : `${hpm[i]}..${hpm[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** Every RTL file of a configuration, in compilation order (PMU_RTL_FILES). */
export function renderPmuRtl(c: PmuConfig, rtl: PmuRtlParams, settings: Settings, provenance: Provenance): OutputFile[] {
  const banner = commentBanner(provenance, '//');
  const render: Record<string, () => string> = {
    'pmu_counter.sv': () => renderTemplate('pmu/pmu_counter.sv.hbs', counterContext(c, banner)),
    'pmu_csr.sv': () => renderTemplate('pmu/pmu_csr.sv.hbs', csrContext(c, rtl, banner)),
    'pmu_top.sv': () => renderTemplate('pmu/pmu_top.sv.hbs', topContext(c, rtl, settings, banner)),
  };
  return PMU_RTL_FILES.map((name) => ({ name, content: alignDeclarations(render[name]!()) }));
}

/** The lint waivers of the generated PMU RTL (rendered into pmu.vlt), each with the reason it is not a defect. */
export function pmuLintWaivers(): Waiver[] {
  return [configurationLocalparamsWaiver('pmu_top')];
}
