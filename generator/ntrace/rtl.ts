/**
 * The generated RTL of the N-Trace encoder for one configuration (templates/ntrace/*.sv.hbs), with
 * the banner of every generated file and deterministic to the byte.
 *
 * Module split (NTRACE_RTL_MODULES): ntrace_decision holds the encoder state and decides all the
 * messages of a record in one cycle, each in its step's slot; ntrace_fields lays a message out
 * (head, field lengths); ntrace_bytes turns it into MSEO bytes; ntrace_output is the output FIFO of
 * exactly fifo_bytes bytes behind two register stages (the slots, then their bytes): the slots
 * enter whole, in order, two cycles after they are decided, with the overrun rules (Error, SYNC 7)
 * or the stall of trTeInstStallEna; ntrace_top wires them.
 *
 * This file prepares every value the templates paste (ranges, literals, tables, port lines); the
 * templates only choose, loop and paste. Options a configuration disables generate nothing.
 */
import type { Settings } from '../../golden-model/common/settings.ts';
import { NTRACE_RTL_MODULES, ntracePorts } from '../../golden-model/ntrace/ports.ts';
import { NTRACE_MAX_BCNT, NTRACE_MAX_HREPEAT } from '../../golden-model/ntrace/messages.ts';
import { maxNtraceMessageBytes, NTRACE_CONFIG_SETTINGS, type NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { ntraceOutputLatency } from '../../golden-model/ntrace/output.ts';
import type { Provenance, Waiver } from '../../core/block.ts';
import { camelCase, commentBanner, connections, padColumn, renderTemplate, svBits, svLogic, svRange, svSized, wrapComment, type OutputFile } from '../render.ts';
import { svChunkedIncrement, svConditionalSumFunction, svHighestSetBitTree, svSmallOffsetAdd } from '../sv-arith.ts';
import { alignDeclarations } from '../sv-align.ts';
import { configurationLocalparamsWaiver } from '../waivers.ts';
import { NTRACE_APB_REGS_TEMPLATE, ntraceApbRegsConnections, ntraceApbRegsContext, triggerBit } from './apb-regs.ts';

const log2 = (n: number): number => Math.ceil(Math.log2(n));
const bitsFor = (n: number): number => Math.max(1, 32 - Math.clz32(n));

/** Widths shared by the templates. */
export function ntraceWidths(c: NtraceConfig) {
  const icw = c.icntWidth + 1; // I-CNT reaches 2^icntWidth
  // Ownership's PROCESS = {CONTEXT, V, PRV[1:0], FORMAT[1:0]} is one variable field.
  const vw = Math.max(icw, c.mode === 'htm' ? 32 : 0, c.xlen - 1, c.timestamp ? 64 : 0, c.ownership ? c.contextWidth + 5 : 0);
  const hw = 12 + c.srcWidth; // {fixed[6], SRC, TCODE[6]}
  const maxLen = Math.max(vw, hw, c.addressMsbDrop ? 6 * Math.ceil(c.xlen / 6) : 0);
  const lw = bitsFor(maxLen);
  const pw = 1 << log2(vw);
  return { icw, vw, hw, lw, pw };
}

/**
 * ResourceFull(I-CNT) messages a block may send besides the one of the I-CNT before it: one per
 * whole limit (2^icnt_width half-words) its 2 * retires_p half-words exceed.
 */
export function ntraceIcntPieces(c: NtraceConfig): number {
  return Math.max(0, Math.ceil((2 * c.retires) / 2 ** c.icntWidth) - 1);
}

/** The message slots of the decision, in the order their messages are offered. */
export function ntraceSlots(c: NtraceConfig): string[] {
  const htm = c.mode === 'htm';
  const deferred = htm && c.histFull === 'deferred';
  const slots: string[] = [];
  // The repeats counted before a record's first message go out before it.
  if (c.repeatBranch || c.repeatHistory) slots.push('Rep');
  if (deferred) slots.push('Rhf');
  slots.push('Report');
  // The Ownership message follows the sync or the message that reports the record's address.
  if (c.ownership) slots.push('Own');
  slots.push('Icnt');
  // A block larger than the I-CNT limit sends its rest in ResourceFull(I-CNT) pieces.
  for (let j = 1; j <= ntraceIcntPieces(c); j++) slots.push(`Icnt${j}`);
  if (htm && !deferred) slots.push('Hist');
  if (deferred) slots.push('Hf');
  if (!htm) slots.push('Dir');
  slots.push('Corr');
  return slots;
}

function slotContext(c: NtraceConfig) {
  const k = ntraceSlots(c).length;
  const vw = ntraceWidths(c).vw;
  return { k, kTop: k - 1, kr: svRange(k), k6r: svRange(6 * k), k3r: svRange(3 * k), kvr: svRange(vw * k), k64r: svRange(64 * k), stall: c.stallEnable };
}

function common(c: NtraceConfig, banner: string) {
  const w = ntraceWidths(c);
  return {
    banner,
    htm: c.mode === 'htm',
    ts: c.timestamp,
    msbDrop: c.addressMsbDrop,
    vw: w.vw,
    lw: w.lw,
    vr: svRange(w.vw),
    hr: svRange(w.hw),
    lr: svRange(w.lw),
    l1r: svRange(w.lw + 1),
    vZero: svSized(w.vw, 0n),
    lZero: svSized(w.lw, 0n),
    srcText: c.srcWidth > 0 ? `SRC[${c.srcWidth}] = ${c.src}` : 'no SRC',
  };
}

function decisionContext(c: NtraceConfig, banner: string) {
  const w = ntraceWidths(c);
  const p = c.syncPeriod;
  const sw = bitsFor(p);
  const cw = bitsFor(c.callStackSize);
  const stack = c.implicitReturn === 'stack';
  // B-CNT and HREPEAT have the same limit (N-Trace "Maximum Field Sizes"): one counter for both.
  if (NTRACE_MAX_BCNT !== NTRACE_MAX_HREPEAT) throw new Error('B-CNT and HREPEAT limits differ: the repeat counter needs two limits');
  const rw = bitsFor(NTRACE_MAX_BCNT);
  // Multiple retirement: the groups of a frame, a record's half-words, I-CNT plus a record.
  const g = c.takenBranches;
  const irw = c.iretireWidth;
  const totW = Math.max(w.icw, irw) + 1;
  const n = Math.max(c.callStackSize, 1);
  const tw = bitsFor(n - 1); // the top of the stack: 0..n-1
  return {
    ...common(c, banner),
    ...slotContext(c),
    slotParams: ntraceSlots(c).flatMap((n, i) =>
      /^Icnt\d+$/.test(n) ? (n === 'Icnt1' ? [`// SlotIcnt + 1 .. SlotIcnt + ${ntraceIcntPieces(c)}: the ResourceFull(I-CNT) pieces of a block`] : []) : [`localparam int Slot${n} = ${i};`],
    ),
    modeText: c.mode === 'htm' ? 'history trace messaging' : 'branch trace messaging',
    deferred: c.mode === 'htm' && c.histFull === 'deferred',
    syncPeriod: p > 0,
    icw: w.icw,
    icntWidth: c.icntWidth,
    icr: svRange(w.icw),
    icZero: svSized(w.icw, 0n),
    totW,
    totR: svRange(totW),
    totZero: svSized(totW, 0n),
    limit: svSized(totW, 1n << BigInt(c.icntWidth)),
    icntPieces: ntraceIcntPieces(c),
    multi: c.retires > 1,
    groups: g > 1,
    nGroups: g,
    retires: c.retires,
    maxHw: 2 * c.retires,
    irW: irw,
    irR: svRange(irw),
    irGR: svRange(g * irw),
    irLow: g > 1 ? svBits(irw - 1, 0) : '',
    irG1: g > 1 ? svBits(2 * irw - 1, irw) : '',
    irZero: svSized(irw, 0n),
    irOne: svSized(irw, 1n),
    irTwo: svSized(irw, 2n),
    itGR: svRange(g * 4),
    aGR: svRange(g * c.xlen),
    aLow: g > 1 ? svBits(c.xlen - 1, 0) : '',
    gR: svRange(g),
    gLow: g > 1 ? '[0]' : '',
    ar: svRange(c.xlen),
    aZero: svSized(c.xlen, 0n),
    ahi: svBits(c.xlen - 1, 1),
    uar: svRange(c.xlen - 1),
    uaZero: svSized(c.xlen - 1, 0n),
    cdf: c.mode === 'htm' ? "2'd1" : "2'd0",
    withHist: c.emptyHistIndirect === 'plain' ? "hist_d != 32'h1" : "1'b1",
    counter: c.implicitReturn === 'counter',
    callR: svRange(cw),
    callZero: svSized(cw, 0n),
    callOne: svSized(cw, 1n),
    callMax: svSized(cw, BigInt(Math.max(c.callStackSize, 0))),
    jumpItems: (c.implicitReturn === 'none' ? [3, 6, 8, 10, 12, 13, 14] : [3, 6, 10, 14]).map((n) => `4'd${n}`).join(', '),
    stack,
    xlen: c.xlen,
    rasN: n,
    rasR: svRange(n * c.xlen),
    rasTop: n > 1,
    rasTopR: svRange(tw),
    rasTopZero: svSized(tw, 0n),
    rasTopOne: svSized(tw, 1n),
    rasLast: svSized(tw, BigInt(n - 1)),
    rasIdx: n > 1 ? `{ras_top_d, ${log2(c.xlen)}'b${'0'.repeat(log2(c.xlen))}}` : '0', // the top entry's first bit: top * XLEN
    rasNR: svRange(bitsFor(n)),
    rasNZero: svSized(bitsFor(n), 0n),
    rasNOne: svSized(bitsFor(n), 1n),
    rasFull: svSized(bitsFor(n), BigInt(n)),
    repeats: c.repeatBranch || c.repeatHistory,
    repeatBranch: c.repeatBranch,
    repeatHistory: c.repeatHistory,
    repeatBoth: c.repeatBranch && c.repeatHistory,
    repR: svRange(rw),
    repZero: svSized(rw, 0n),
    repOne: svSized(rw, 1n),
    repMax: svSized(rw, BigInt(NTRACE_MAX_BCNT)),
    repMaxM1: svSized(rw, BigInt(NTRACE_MAX_BCNT - 1)),
    repIncRows: svChunkedIncrement('rep_inc', 'rep_q', rw),
    repText: [c.repeatBranch ? 'RepeatBranch(B-CNT)' : '', c.repeatHistory ? 'ResourceFull(RCODE 2, RDATA, HREPEAT)' : ''].filter((x) => x !== '').join(' or '),
    sinceR: svRange(sw),
    sinceZero: svSized(sw, 0n),
    ...syncCountContext(c),
    ...icntSumContext(c),
    ...lastAddressContext(c),
    ...returnAddressContext(c),
    ...ownershipContext(c),
  };
}

/**
 * The periodic-sync count of a record (N-Trace "Periodic Synchronization"): its messages are
 * counted in a thermometer of one bit per message it may count (every slot but the repeats', whose
 * message is not counted), then added once: `sinceRows` prepare, from the registered count,
 * the count after j more messages (saturated at the period) and whether the period is then
 * reached; `sinceSelect` picks the one of the record's count (or, after a sync in the record, the
 * count itself); `dueNow` is the period reached mid-record, before any sync.
 */
function syncCountContext(c: NtraceConfig) {
  const p = c.syncPeriod;
  if (p <= 0) return {};
  const sw = bitsFor(p);
  const k = ntraceSlots(c).filter((n) => n !== 'Rep').length;
  const exactly = (j: number) => (j === 0 ? '!m_count[0]' : j === k ? `m_count[${k - 1}]` : `m_count[${j - 1}] && !m_count[${j}]`);
  const atLeast = (j: number) => (j === 0 ? '' : `m_count[${j - 1}] && `);
  const sinceRows: string[] = [];
  for (let j = 0; j <= k; j++) {
    const reach = j === 0 ? 'sync_due_q' : p - j <= 0 ? "1'b1" : `since_q >= ${svSized(sw, BigInt(p - j))}`;
    sinceRows.push(`assign since_reach[${j}] = ${reach};`);
    const plus = j === 0 ? 'since_q' : p - j <= 0 ? svSized(sw, BigInt(p)) : `since_reach[${j}] ? ${svSized(sw, BigInt(p))} : since_q + ${svSized(sw, BigInt(j))}`;
    sinceRows.push(`assign since_plus[${j * sw} +: ${sw}] = ${plus};`);
  }
  const terms = Array.from({ length: k + 1 }, (_, j) => j);
  const sinceSelect = [
    'since_d =',
    ...terms.map((j) => `    ({${sw}{${exactly(j)}}} & (m_sync ? ${svSized(sw, BigInt(Math.min(j, p)))} : since_plus[${j * sw} +: ${sw}]))${j === k ? ';' : ' |'}`),
    'sync_due_d =',
    ...terms.map((j) => `    (${exactly(j)} && (m_sync ? 1'b${j >= p ? 1 : 0} : since_reach[${j}]))${j === k ? ';' : ' ||'}`),
  ];
  // The period is reached after j messages if it is after fewer (since_reach is monotonic in j).
  const dueNow = terms.map((j) => (j === 0 ? 'since_reach[0]' : `(${atLeast(j)}since_reach[${j}])`)).join(' || ');
  return {
    mK: k,
    mKm1: k - 1,
    mKm2: k - 2,
    mR: svRange(k),
    mcR: svRange(k + 1),
    mZero: svSized(k, 0n),
    plusR: svRange((k + 1) * sw),
    reachR: svRange(k + 1),
    sinceRows,
    sinceSelect,
    dueNow,
  };
}

/**
 * I-CNT plus the record's own half-words (icnt_q + iretire) from the flops, as a small-offset sum in
 * chunks (svSmallOffsetAdd): `icnt_sum`, over the width of the decision's `total`.
 */
function icntSumContext(c: NtraceConfig) {
  const w = ntraceWidths(c);
  const irw = c.iretireWidth;
  const totW = Math.max(w.icw, irw) + 1;
  const g = c.takenBranches;
  const sum = svSmallOffsetAdd('icnt_sum', 'icnt_from', totW, 'icnt_step', irw + 1);
  return {
    icntSumDecls: [`${svLogic(totW)} icnt_from;`, `${svLogic(irw + 1)} icnt_step;  // the record's half-words, and a zero sign bit`, ...sum.declarations],
    icntSumRows: [
      `assign icnt_from = ${totW}'(icnt_q);`,
      `assign icnt_step = {1'b0, rec_iretire_q${g > 1 ? svBits(irw - 1, 0) : ''}};`,
      ...sum.rows,
    ],
  };
}

/**
 * Multiple retirement: the address of a block's last instruction, its address plus 2 * (iretire -
 * the last instruction's half-words), from the flops as a small-offset sum in chunks: `from_sum`.
 */
function lastAddressContext(c: NtraceConfig) {
  if (c.retires <= 1) return {};
  const g = c.takenBranches;
  const irw = c.iretireWidth;
  const sw = irw + 2;
  const sum = svSmallOffsetAdd('from_sum', 'from_base', c.xlen, 'from_step', sw);
  return {
    fromDecls: [`${svLogic(c.xlen)} from_base, from_sum;`, `${svLogic(sw)} from_step;  // bytes before the last instruction (two's complement)`, ...sum.declarations],
    fromRows: [
      `assign from_base = rec_iaddr_q${g > 1 ? svBits(c.xlen - 1, 0) : ''};`,
      `assign from_step = {1'b0, rec_iretire_q${g > 1 ? svBits(irw - 1, 0) : ''}, 1'b0} - (rec_ilastsize_q${g > 1 ? '[0]' : ''} ? ${svSized(sw, 4n)} : ${svSized(sw, 2n)});`,
      ...sum.rows,
    ],
  };
}

/**
 * The return address a call pushes onto the return-address stack, the record's address plus its
 * half-words, from the flops as a small-offset sum in chunks (svSmallOffsetAdd): `ret`.
 */
function returnAddressContext(c: NtraceConfig) {
  if (c.implicitReturn !== 'stack') return {};
  const g = c.takenBranches;
  const irw = c.iretireWidth;
  const sum = svSmallOffsetAdd('ret', 'ret_from', c.xlen, 'ret_step', irw + 2);
  return {
    retDecls: [`${svLogic(c.xlen)} ret_from;`, `${svLogic(irw + 2)} ret_step;  // the half-words in bytes, and a zero sign bit`, ...sum.declarations],
    retRows: [
      `assign ret_from = rec_iaddr_q${g > 1 ? svBits(c.xlen - 1, 0) : ''};`,
      `assign ret_step = {1'b0, rec_iretire_q${g > 1 ? svBits(irw - 1, 0) : ''}, 1'b0};`,
      ...sum.rows,
    ],
  };
}

/** Ownership messages (trTeContext): the context's width and whether a loss is reported (ECODE bit 3). */
function ownershipContext(c: NtraceConfig) {
  return {
    own: c.ownership,
    ownLoss: c.ownership && !c.stallEnable,
    ctxW: c.ownership ? c.contextWidth : 0,
    ctxR: svRange(Math.max(1, c.contextWidth)),
    slotOwn: ntraceSlots(c).indexOf('Own'),
  };
}

function fieldsContext(c: NtraceConfig, banner: string) {
  const w = ntraceWidths(c);
  const width = c.xlen - 1; // address fields carry XLEN - 1 bits
  const max = 6 * Math.ceil((width + 1) / 6);
  const rows: string[] = [];
  for (let n = max - 6; n >= 6; n -= 6) rows.push(`if (len < ${svSized(w.lw, BigInt(n))}) addr_length = ${svSized(w.lw, BigInt(n))};`);
  return {
    ...common(c, banner),
    pw: w.pw,
    pr: svRange(w.pw),
    log2pw: log2(w.pw),
    atop: width - 1,
    alow: svBits(width - 1, 0),
    mdoMax: max,
    mdoRows: rows,
    srcLit: c.srcWidth > 0 ? `${svSized(c.srcWidth, BigInt(c.src))}, ` : '',
    headBase: 6 + c.srcWidth,
    own: c.ownership,
  };
}

/** The rows of ntrace_bytes's table of ceil(len / 6) for every len of lw + 1 bits, one row per result. */
function mdosRows(lw: number, nw: number): string[] {
  const top = 2 ** (lw + 1) - 1;
  const rows: string[] = [];
  for (let q = 0; 6 * q - 5 <= top; q++) {
    const lens: string[] = [];
    // Hexadecimal: the decimal literals of TCODEs (6'd30 ...) mark their messages in the RTL.
    for (let len = Math.max(0, 6 * q - 5); len <= Math.min(6 * q, top); len++) lens.push(svSized(lw + 1, BigInt(len)));
    rows.push(`${lens.join(', ')}: mdos = ${svSized(nw, BigInt(q % 2 ** nw))};`);
  }
  return rows;
}

function bytesContext(c: NtraceConfig, banner: string) {
  const w = ntraceWidths(c);
  const mb = maxNtraceMessageBytes(c);
  const s1w = w.hw + w.vw;
  return {
    ...common(c, banner),
    mb,
    nw: bitsFor(mb),
    nr: svRange(bitsFor(mb)),
    br: svRange(mb * 8),
    mdosRows: mdosRows(w.lw, bitsFor(mb)),
    s1w,
    headBase: 6 + c.srcWidth,
    c1: Math.min(mb, Math.ceil(s1w / 6)),
    cv: Math.min(mb, Math.ceil(w.vw / 6)),
    ct: Math.min(mb, TSTAMP_PIECES),
    vOnes: `{${w.vw}{1'b1}}`,
  };
}

function outputContext(c: NtraceConfig, banner: string) {
  const mb = maxNtraceMessageBytes(c);
  const s = slotContext(c);
  const cap = c.fifoBytes;
  const entries = s.k + (c.stallEnable ? 0 : 1);
  const sentW = bitsFor(Math.max(1, s.k - 1));
  return {
    ...common(c, banner),
    ...s,
    cap,
    w: Math.min(cap, entries * mb),
    mb,
    cw: bitsFor(cap),
    pw: Math.max(1, log2(cap)),
    nw: bitsFor(mb),
    sw: bitsFor(Math.max(entries * mb, cap + 1)),
    sentTop: sentW - 1,
    sentW,
    hw: ntraceWidths(c).hw,
    // The timestamps' differences and comparisons (the carries) by short-path adders (a ripple
    // carry through 64 bits, slot after slot, was the component's longest path).
    tsAddFunction: svConditionalSumFunction('ts_add', 64),
    log2k: Math.max(1, Math.ceil(Math.log2(s.k))),
    latencyWords: ['one', 'two', 'three', 'four'][ntraceOutputLatency(c) - 1],
    tailCount: c.timestamp ? svMdoCount('tail', 'tail', 'tail_n') : undefined,
    errLength: errLengthRows(c),
    ...ownershipContext(c),
  };
}

/** MDOs of a TSTAMP: 64 bits in 6-bit pieces. */
const TSTAMP_PIECES = Math.ceil(64 / 6);

/**
 * The MDOs of a 64-bit TSTAMP, value (a vector), into out (Nw bits): one per 6-bit piece up to its
 * highest non-zero one, at least one; a tree over the pieces instead of a bit length and a table.
 */
function svMdoCount(name: string, value: string, out: string): { declarations: string[]; rows: string[] } {
  const piece = (j: number) => `|${value}[${Math.min(63, 6 * j + 5)}:${6 * j}]`;
  const top = svHighestSetBitTree(`${name}_top`, `${name}_pieces`, TSTAMP_PIECES);
  return {
    declarations: [`${svLogic(TSTAMP_PIECES)} ${name}_pieces;  // the 6-bit pieces that are not zero`, ...top.declarations],
    rows: [
      `assign ${name}_pieces = {${[...Array(TSTAMP_PIECES).keys()].reverse().map(piece).join(', ')}};`,
      ...top.rows,
      `assign ${out} = ${name}_top_any ? Nw'(${name}_top_index) + Nw'(1) : Nw'(1);`,
    ],
  };
}

/**
 * The Error message's TSTAMP's MDOs and its length from its TSTAMP register (with timestamps and
 * no stall): the head's MDOs (TCODE, SRC, ETYPE and ECODE, 4 or 12 with the Ownership loss bit)
 * plus the TSTAMP's. The FIFO's acceptance reads the length instead of the layout's count.
 */
function errLengthRows(c: NtraceConfig): { declarations: string[]; rows: string[] } | undefined {
  if (!c.timestamp || c.stallEnable) return undefined;
  const count = svMdoCount('err_ts', 'err_ts_q', 'err_ts_n');
  const headBits = 6 + c.srcWidth + 4;
  const headMdos = (ecodeBits: number) => Math.ceil((headBits + ecodeBits) / 6);
  // ECODE 4 has 3 bits, 12 (with the Ownership loss bit) 4: the head may take one MDO more.
  const head = c.ownership && headMdos(4) !== headMdos(3) ? `(own_lost_q ? Nw'(${headMdos(4)}) : Nw'(${headMdos(3)}))` : `Nw'(${headMdos(3)})`;
  return {
    declarations: ['logic [Nw-1:0]    err_ts_n;  // the MDOs of its TSTAMP', ...count.declarations],
    rows: [...count.rows, `assign err_len = ${head} + err_ts_n;`],
  };
}

/** The settings as localparams of ntrace_top (lowRISC names): the configuration, for people and testbenches. */
function configLocalparams(settings: Settings): string[] {
  const out: string[] = [];
  for (const spec of NTRACE_CONFIG_SETTINGS) {
    const v = settings[spec.name];
    const name = camelCase(spec.name);
    if (typeof v === 'boolean') out.push(`localparam bit ${name} = ${v ? "1'b1" : "1'b0"};`);
    else if (typeof v === 'number') out.push(`localparam int ${name} = ${v};`);
    else if (spec.kind === 'choice' && /^\d+$/.test(String(v))) out.push(`localparam int ${name} = ${String(v)};`);
    else out.push(`// ${spec.name} = ${String(v)}`);
  }
  return out;
}

function topContext(c: NtraceConfig, settings: Settings, banner: string) {
  const w = ntraceWidths(c);
  const depth = c.fifoBytes;
  const slotPorts = (dir: 'o' | 'i'): [string, string][] => [
    ['s_valid', 's_valid'],
    ['s_tcode', 's_tcode'],
    ['s_fix', 's_fix'],
    ['s_fixw', 's_fixw'],
    ['s_nvar', 's_nvar'],
    ['s_addr', 's_addr'],
    ['s_v0', 's_v0'],
    ['s_v1', 's_v1'],
    ...(c.timestamp ? ([['s_time', 's_time'], ['s_abs', 's_abs']] as [string, string][]) : []),
    ...(c.stallEnable ? [] : ([['s_sync7', 's_sync7']] as [string, string][])),
    ['s_v2', 's_v2'],
  ].map(([p, sig]) => [`${p}_${dir}`, sig] as [string, string]);
  const ports = ntracePorts(c);
  const types = padColumn(ports.map((q) => `${q.direction === 'in' ? 'input ' : 'output'} ${svLogic(q.width)}`));
  const g = c.takenBranches;
  const conns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['itype_i', 'itype_i'],
    ['iretire_i', 'iretire_i'],
    ...(c.retires > 1 ? ([['ilastsize_i', 'ilastsize_i']] as [string, string][]) : []),
    ['iaddr_i', 'iaddr_i'],
    ['trace_on_i', 'trace_on'],
    ['trace_off_i', 'trace_off'],
    ['halted_i', 'halted_i'],
    ['reset_i', 'reset_i'],
    ...(c.ownership
      ? ([['priv_i', 'priv_i'], ...(c.contextWidth > 0 ? [['context_i', 'context_i']] : []), ['ctype_i', 'ctype_i']] as [string, string][])
      : []),
    ...(c.timestamp ? ([['tstamp_i', 'tstamp_i']] as [string, string][]) : []),
    ['stall_o', 'stall_o'],
    ...(g > 1 ? ([['fifo_stall_o', 'fifo_stall']] as [string, string][]) : []),
    ...(c.stallEnable ? [] : ([['recover_i', 'recover']] as [string, string][])),
    ...(c.ownership && !c.stallEnable ? ([['own_sync_o', 'own_sync']] as [string, string][]) : []),
    ['done_i', 'done'],
    ...slotPorts('o'),
  ];
  const retirement =
    c.retires === 1 && g === 1
      ? 'single retirement'
      : `blocks of up to ${c.retires} instructions${g > 1 ? `, ${g} blocks a cycle (one a clock)` : ''}`;
  const options = [
    c.mode === 'htm' ? `HTM, HIST full ${c.histFull}, empty HIST ${c.emptyHistIndirect}` : 'BTM',
    `I-CNT ${c.icntWidth} bits`,
    c.implicitReturn === 'counter'
      ? `implicit return (call counter up to ${c.callStackSize})`
      : c.implicitReturn === 'stack'
        ? `implicit return (return-address stack of ${c.callStackSize})`
        : 'no implicit return',
    ...(c.repeatBranch ? ['RepeatBranch messages'] : []),
    ...(c.repeatHistory ? ['repeated HIST compression (ResourceFull RCODE 2)'] : []),
    c.syncPeriod > 0 ? `periodic sync every ${c.syncPeriod} messages` : 'no periodic sync',
    c.srcWidth > 0 ? `SRC ${c.srcWidth} bits = ${c.src}` : 'no SRC',
    c.timestamp ? 'timestamps' : 'no timestamps',
    c.addressMsbDrop ? 'address MSB dropping' : 'full addresses',
    ...(c.ownership ? [`Ownership messages (context of ${c.contextWidth} bits)`] : []),
    c.stallEnable ? 'the hart stalled while a message does not fit' : 'messages that do not fit lost (Error, then SYNC 7)',
  ];
  const unused = [
    ...(c.ownership ? [] : ['the privilege (no Ownership messages)']),
    ...(c.retires > 1 ? [] : ['the size of the last instruction (a record is one instruction)']),
    `the notify trigger${g > 1 ? 's' : ''} (no message)`,
  ];
  const unusedText = unused.length > 1 ? `${unused.slice(0, -1).join(', ')} and ${unused[unused.length - 1]!}` : unused[0]!;
  const unusedSignals = [...(c.ownership ? [] : ['priv_i']), ...(c.retires > 1 ? [] : ['ilastsize_i']), triggerBit(c, 2).replace(/^\{(.*)\}$/, '$1')];
  const outConns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ...slotPorts('i'),
    ...(c.stallEnable ? [] : ([['recover_o', 'recover']] as [string, string][])),
    ...(c.ownership && !c.stallEnable ? ([['own_sync_i', 'own_sync']] as [string, string][]) : []),
    ['done_o', 'done'],
    ['mseo_data_o', 'mseo_data_o'],
    ['mseo_valid_o', 'mseo_valid_o'],
    ['mseo_ready_i', 'mseo_ready_i'],
  ];
  return {
    ...common(c, banner),
    ...slotContext(c),
    depth,
    hr: svRange(w.hw),
    headLines: wrapComment(`ntrace_top: an N-Trace encoder (RISC-V N-Trace 1.0) of an RV${c.xlen} hart with ${retirement}: ${options.join(', ')}; Nexus MSEO bytes out of a ${depth}-byte FIFO.`, 100),
    unusedLines: wrapComment(`Not needed by this encoder: ${unusedText}.`, 98).map((l) => `  ${l}`),
    unusedInputs: `{${unusedSignals.join(', ')}}`,
    portLines: ports.flatMap((q, i) => [...wrapComment(q.description, 96), `${types[i]} ${q.name}${i === ports.length - 1 ? '' : ','}`]),
    configLines: configLocalparams(settings),
    decisionConns: connections(conns),
    outputConns: connections(outConns),
    regsConns: connections(ntraceApbRegsConnections(c)),
    groups: g > 1,
    gR: padColumn([svRange(g), '[63:0]'])[0],
    ownLoss: c.ownership && !c.stallEnable,
  };
}

/** The RTL files of a configuration, in compilation order (leaves first). */
export function ntraceRtlFiles(): string[] {
  return NTRACE_RTL_MODULES.map((m) => `${m}.sv`);
}

/** Every RTL file of a configuration, in compilation order. */
export function renderNtraceRtl(c: NtraceConfig, settings: Settings, provenance: Provenance): OutputFile[] {
  const banner = commentBanner(provenance, '//');
  const render: Record<string, () => string> = {
    ntrace_bytes: () => renderTemplate('ntrace/ntrace_bytes.sv.hbs', bytesContext(c, banner)),
    ntrace_output: () => renderTemplate('ntrace/ntrace_output.sv.hbs', outputContext(c, banner)),
    ntrace_fields: () => renderTemplate('ntrace/ntrace_fields.sv.hbs', fieldsContext(c, banner)),
    ntrace_decision: () => renderTemplate('ntrace/ntrace_decision.sv.hbs', decisionContext(c, banner)),
    ntrace_apb_regs: () => renderTemplate(NTRACE_APB_REGS_TEMPLATE, ntraceApbRegsContext(c, banner)),
    ntrace_top: () => renderTemplate('ntrace/ntrace_top.sv.hbs', topContext(c, settings, banner)),
  };
  return NTRACE_RTL_MODULES.map((m) => ({ name: `${m}.sv`, content: alignDeclarations(render[m]!()) }));
}

/** The lint waivers of the generated N-Trace RTL (rendered into ntrace.vlt), each with its reason. */
export function ntraceLintWaivers(): Waiver[] {
  return [configurationLocalparamsWaiver('ntrace_top')];
}
