/**
 * Context of `templates/etrace/etrace_apb_regs.sv.hbs`: the APB4 register file of the E-Trace
 * encoder, built from the register map of golden-model/etrace/registers.ts for one configuration.
 *
 * Every field of every register is implemented, and only those: a read-write field is a flop reset
 * to the field's reset value (a localparam) whose current value leaves on an output port for the
 * encoder core; a read-only field is a constant; trTeEmpty reads an input from the core; the
 * write-1-to-clear trTeInstStallOrOverflow is set by an input pulse from the core. A field whose
 * hardware is absent is read-only in registers.ts and therefore a constant here: it costs no logic.
 *
 * Outputs of the filters and comparators are concatenated over the units, unit i in bits
 * [i*W +: W] (the convention of golden-model/etrace/ports.ts for replicated groups).
 */
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { ETRACE_APB_ADDR_WIDTH, ETRACE_APB_DATA_WIDTH } from '../../golden-model/etrace/ports.ts';
import { etraceMemoryMap, type RegisterField, type RegisterSpec } from '../../golden-model/etrace/registers.ts';
import { camelCase, padColumn, svBits, svLogic, svRange, svSized } from '../render.ts';

export const ETRACE_APB_REGS_MODULE = 'etrace_apb_regs';
export const ETRACE_APB_REGS_TEMPLATE = 'etrace/etrace_apb_regs.sv.hbs';

/** The status inputs from the encoder core. */
export const STATUS_INPUTS = {
  empty: { port: 'te_empty_i', field: 'trTeEmpty', doc: 'te_empty_i          all trace has been emitted; read as trTeControl.trTeEmpty' },
  lost: {
    port: 'lost_or_stalled_i',
    field: 'trTeInstStallOrOverflow',
    doc: 'lost_or_stalled_i   pulse: trace was lost or the hart was stalled; sets trTeControl.trTeInstStallOrOverflow (write 1 to clear; a set wins over a clear in the same cycle)',
  },
} as const;

/** Output port (without `_o`) and, for the two halves of a 64-bit value, which half, of each read-write field. */
interface OutputOf {
  readonly out: string;
  readonly half?: 'low' | 'high';
  readonly option: string;
}

const CONTROL_OUTPUTS: Readonly<Record<string, OutputOf>> = {
  trTeActive: { out: 'active', option: 'trTeActive' },
  trTeEnable: { out: 'enable', option: 'trTeEnable' },
  trTeInstTracing: { out: 'i_enable', option: 'iEnable' },
  trTeInstTrigEnable: { out: 'i_trig_enable', option: 'iTrigEnable' },
  trTeInstStallEna: { out: 'stall_enable', option: 'stallEnable' },
  trTeInhibitSrc: { out: 'inhibit_src', option: 'trTeInhibitSrc' },
  trTeInstSyncMode: { out: 'resync_mode', option: 'ResyncMode' },
  trTeInstSyncMax: { out: 'resync_max', option: 'ResyncMax' },
  trTeInstNoAddrDiff: { out: 'full_address', option: 'FullAddress' },
  trTeInstNoTrapAddr: { out: 'implicit_except', option: 'ImplicitExcept' },
  trTeInstEnSequentialJump: { out: 'si_jump', option: 'siJump' },
  trTeInstEnImplicitReturn: { out: 'implicit_return', option: 'ImplicitReturn' },
  trTeInstEnBranchPrediction: { out: 'branch_prediction', option: 'BranchPrediction' },
  trTeInstEnJumpTargetCache: { out: 'jump_target_cache', option: 'JumpTargetCache' },
  trTeSrcID: { out: 'src_id', option: 'trTeSrcID' },
  trTeInstFilters: { out: 'i_filters', option: 'iFilters' },
  // Data trace (data_trace_p = 1)
  trTeDataTracing: { out: 'd_enable', option: 'dEnable' },
  trTeDataTrigEnable: { out: 'd_trig_enable', option: 'dTrigEnable' },
  trTeDataNoValue: { out: 'no_data', option: 'noData' },
  trTeDataNoAddr: { out: 'no_address', option: 'noAddress' },
  rvDataCompress: { out: 'data_compress', option: 'DataCompress' },
  trTeDataFilters: { out: 'd_filters', option: 'dFilters' },
};

const FILTER_OUTPUTS: Readonly<Record<string, OutputOf>> = {
  trTeFilterEnable: { out: 'filter_enable', option: 'filterEnable' },
  trTeFilterMatchPrivilege: { out: 'filter_match_privilege', option: 'matchPrivilege' },
  trTeFilterMatchEcause: { out: 'filter_match_ecause', option: 'matchEcause' },
  trTeFilterMatchInterrupt: { out: 'filter_match_interrupt', option: 'matchInterrupt' },
  trTeFilterMatchComp1: { out: 'filter_match_comp1', option: 'matchComp1' },
  trTeFilterComp1: { out: 'filter_comp1', option: 'comp1' },
  trTeFilterMatchComp2: { out: 'filter_match_comp2', option: 'matchComp2' },
  trTeFilterComp2: { out: 'filter_comp2', option: 'comp2' },
  trTeFilterMatchComp3: { out: 'filter_match_comp3', option: 'matchComp3' },
  trTeFilterComp3: { out: 'filter_comp3', option: 'comp3' },
  trTeFilterMatchImpdef: { out: 'filter_match_impdef', option: 'matchImpdef' },
  trTeFilterMatchChoicePrivilege: { out: 'filter_match_choice_privilege', option: 'matchChoicePrivilege' },
  trTeFilterMatchValueInterrupt: { out: 'filter_match_value_interrupt', option: 'matchValueInterrupt' },
  trTeFilterMatchChoiceEcauseLow: { out: 'filter_match_choice_ecause', half: 'low', option: 'matchChoiceEcause' },
  trTeFilterMatchChoiceEcauseHigh: { out: 'filter_match_choice_ecause', half: 'high', option: 'matchChoiceEcause' },
  trTeFilterMatchValueImpdef: { out: 'filter_match_value_impdef', option: 'matchValueImpdef' },
  trTeFilterMatchMaskImpdef: { out: 'filter_match_mask_impdef', option: 'matchMaskImpdef' },
};

const COMPARATOR_OUTPUTS: Readonly<Record<string, OutputOf>> = {
  trTeCompPInput: { out: 'comparator_p_input', option: 'pInput' },
  trTeCompSInput: { out: 'comparator_s_input', option: 'sInput' },
  trTeCompPFunction: { out: 'comparator_p_function', option: 'pFunction' },
  trTeCompSFunction: { out: 'comparator_s_function', option: 'sFunction' },
  trTeCompMatchMode: { out: 'comparator_match_mode', option: 'matchMode' },
  trTeCompPNotify: { out: 'comparator_p_notify', option: 'pNotify' },
  trTeCompSNotify: { out: 'comparator_s_notify', option: 'sNotify' },
  trTeCompPMatchLow: { out: 'comparator_p_match', half: 'low', option: 'pMatch' },
  trTeCompPMatchHigh: { out: 'comparator_p_match', half: 'high', option: 'pMatch' },
  trTeCompSMatchLow: { out: 'comparator_s_match', half: 'low', option: 'sMatch' },
  trTeCompSMatchHigh: { out: 'comparator_s_match', half: 'high', option: 'sMatch' },
};

/** How one field is implemented. */
export type FieldImpl =
  | { readonly kind: 'const' }
  | { readonly kind: 'input'; readonly port: string }
  /** A flop `<flop>_q` holding the low `stored` bits of the field (bits above read 0). */
  | { readonly kind: 'flop'; readonly flop: string; readonly stored: number; readonly w1c: boolean; readonly output?: OutputOf & { readonly unit?: number } };

/** Bits of trTeInstFilters that exist: one per filter (docs/etrace-registers.md: bits at and above filters_p read 0). */
function storedBits(c: EtraceConfig, f: RegisterField): number {
  return f.name === 'trTeInstFilters' ? c.params.filters_p : f.bitWidth;
}

/** The implementation of a field of register `reg`; throws for a read-write field this generator does not know. */
export function fieldImpl(c: EtraceConfig, reg: RegisterSpec, f: RegisterField): FieldImpl {
  if (f.name === STATUS_INPUTS.empty.field) return { kind: 'input', port: STATUS_INPUTS.empty.port };
  if (f.access === 'read-only') return { kind: 'const' };
  if (f.name === STATUS_INPUTS.lost.field && f.oneToClear === true) return { kind: 'flop', flop: 'stall_or_overflow', stored: 1, w1c: true };
  const unit = /^trTe(Filter|Comp)(\d+)/.exec(reg.name);
  const table = unit === null ? CONTROL_OUTPUTS : unit[1] === 'Filter' ? FILTER_OUTPUTS : COMPARATOR_OUTPUTS;
  const output = table[f.name];
  if (output === undefined || f.oneToClear === true) throw new Error(`etrace_apb_regs: no implementation for the read-write field ${reg.name}.${f.name}`);
  if (unit === null) return { kind: 'flop', flop: output.out, stored: storedBits(c, f), w1c: false, output };
  const i = Number(unit[2]);
  const prefix = unit[1] === 'Filter' ? 'filter' : 'comparator';
  const flop = `${prefix}${i}${output.out.slice(prefix.length)}${output.half ? `_${output.half}` : ''}`;
  return { kind: 'flop', flop, stored: f.bitWidth, w1c: false, output: { ...output, unit: i } };
}

// ---------------------------------------------------------------------------------------------

export interface RegsContext {
  banner: string;
  module: string;
  statusDoc: string[];
  outputDoc: string[];
  portLines: string[];
  addrParams: string[];
  resetParams: string[];
  flopDecls: string[];
  flops: { q: string; d: string; reset: string }[];
  words: { addr: string; reg: string; readLines: string[]; writeLines: string[] }[];
  writeWords: { addr: string; reg: string; writeLines: string[] }[];
  setLines: string[];
  assigns: string[];
  internalDecls: string[];
  dataZero: string;
  lostPort: string;
}

interface Flop {
  name: string;
  width: number;
  reset: bigint;
  reg: string;
  field: string;
  output?: OutputOf & { readonly unit?: number };
}

/** Builds the whole template context. `banner` is the comment banner (with its `//` and newlines). */
export function etraceApbRegsContext(c: EtraceConfig, banner: string): RegsContext {
  const map = etraceMemoryMap(c);
  const dw = ETRACE_APB_DATA_WIDTH;
  const aw = ETRACE_APB_ADDR_WIDTH;
  const flops: Flop[] = [];
  const words: RegsContext['words'] = [];
  const addrNames: [string, string][] = [];

  for (const block of map.addressBlocks) {
    for (const reg of block.registers) {
      const impls = reg.fields.map((f) => ({ f, impl: fieldImpl(c, reg, f) }));
      for (const { f, impl } of impls) {
        if (impl.kind !== 'flop') continue;
        const reset = f.reset & ((1n << BigInt(impl.stored)) - 1n);
        if (reset !== f.reset) throw new Error(`${reg.name}.${f.name}: reset value ${f.reset} has bits beyond the ${impl.stored} implemented`);
        flops.push({ name: impl.flop, width: impl.stored, reset, reg: reg.name, field: f.name, ...(impl.output ? { output: impl.output } : {}) });
      }
      const nWords = reg.size / dw;
      for (let k = 0; k < nWords; k++) {
        const address = block.baseAddress + reg.offset + k * (dw / 8);
        const suffix = nWords === 1 ? '' : k === 0 ? 'Low' : 'High';
        const addrName = `${camelCase(reg.name)}${suffix}Addr`;
        addrNames.push([addrName, svSized(aw, BigInt(address))]);
        const lo = k * dw;
        const hi = lo + dw - 1;
        const readLines: string[] = [];
        const writeLines: string[] = [];
        for (const { f, impl } of impls) {
          const f0 = Math.max(f.bitOffset, lo);
          const f1 = Math.min(f.bitOffset + f.bitWidth - 1, hi);
          if (f0 > f1) continue;
          // Bits [f0, f1] of the register, i.e. [f0 - bitOffset, f1 - bitOffset] of the field.
          const b0 = f0 - f.bitOffset;
          const b1 = f1 - f.bitOffset;
          const whole = b0 === 0 && b1 === f.bitWidth - 1;
          const label = whole ? f.name : `${f.name}${svBits(b1, b0)}`;
          const dst = `rdata${svBits(f1 - lo, f0 - lo)}`;
          if (impl.kind === 'const') {
            const v = (f.reset >> BigInt(b0)) & ((1n << BigInt(b1 - b0 + 1)) - 1n);
            readLines.push(`${dst} = ${svSized(b1 - b0 + 1, v)};  // ${label}`);
          } else if (impl.kind === 'input') {
            if (!whole) throw new Error(`${f.name}: an input field cannot straddle words`);
            readLines.push(`${dst} = ${impl.port};  // ${label}`);
          } else {
            // Only the stored bits of the field: the rest read 0 (rdata's default).
            const s1 = Math.min(b1, impl.stored - 1);
            if (s1 < b0) continue;
            const q = `${impl.flop}_q`;
            const src = b0 === 0 && s1 === impl.stored - 1 ? q : `${q}${svBits(s1, b0)}`;
            readLines.push(`rdata${svBits(s1 + f.bitOffset - lo, f0 - lo)} = ${src};  // ${s1 === b1 ? label : `${f.name}${svBits(s1, b0)}`}`);
            // Writes, byte lane by byte lane.
            for (let lane = 0; lane < dw / 8; lane++) {
              const l0 = Math.max(lo + lane * 8, f0);
              const l1 = Math.min(lo + lane * 8 + 7, s1 + f.bitOffset);
              if (l0 > l1) continue;
              const wholeFlop = l0 - f.bitOffset === 0 && l1 - f.bitOffset === impl.stored - 1;
              const d = `${impl.flop}_d${wholeFlop ? '' : svBits(l1 - f.bitOffset, l0 - f.bitOffset)}`;
              const data = `pwdata_i${svBits(l1 - lo, l0 - lo)}`;
              if (impl.w1c) {
                writeLines.push(`if (pstrb_i[${lane}] && ${data}) ${d} = 1'b0;  // ${f.name}: write 1 to clear`);
              } else {
                writeLines.push(`if (pstrb_i[${lane}]) ${d} = ${data};  // ${label}`);
              }
            }
          }
        }
        words.push({ addr: addrName, reg: `${reg.name}${nWords === 1 ? '' : svBits(hi, lo)}`, readLines, writeLines });
      }
    }
  }

  // Outputs: one port per option; units concatenated, unit 0 in the low bits; 64-bit values from two halves.
  interface OutPort { name: string; width: number; parts: string[]; doc: string }
  const outs = new Map<string, OutPort>();
  for (const fl of flops) {
    if (fl.output === undefined) continue;
    const o = fl.output;
    const name = `${o.out}_o`;
    let p = outs.get(name);
    if (p === undefined) {
      p = { name, width: 0, parts: [], doc: '' };
      outs.set(name, p);
    }
    p.width += fl.width;
    p.parts.unshift(`${fl.name}_q`); // flops come low unit / low half first: prepend builds MSB-first.
    if (o.unit === undefined) p.doc = `${fl.reg}.${fl.field}${o.option === fl.field ? '' : ` (${o.option})`}`;
    else if (o.half === undefined) {
      const where = fl.width === 1 ? 'unit i in bit i' : `unit i in bits [i*${fl.width} +: ${fl.width}]`;
      p.doc = `${fl.reg.replace(/\d+/, '<i>')}.${fl.field} (${o.out.startsWith('filter') ? 'filter' : 'comparator'}<i>.${o.option}), ${where}`;
    }
    else p.doc = `${fl.reg.replace(/\d+/, '<i>').replace(/(Low|High)$/, 'Low/High')} (${o.out.startsWith('filter') ? 'filter' : 'comparator'}<i>.${o.option}), unit i in bits [i*64 +: 64]`;
  }
  const outPorts = [...outs.values()];

  const statusPorts = [STATUS_INPUTS.empty.port, STATUS_INPUTS.lost.port];
  const portDecls: [string, string, string][] = [
    ['input ', svLogic(1), 'clk_i'],
    ['input ', svLogic(1), 'rst_ni'],
    ['input ', svLogic(aw), 'paddr_i'],
    ['input ', svLogic(1), 'psel_i'],
    ['input ', svLogic(1), 'penable_i'],
    ['input ', svLogic(1), 'pwrite_i'],
    ['input ', svLogic(dw), 'pwdata_i'],
    ['input ', svLogic(dw / 8), 'pstrb_i'],
    ['output', svLogic(dw), 'prdata_o'],
    ['output', svLogic(1), 'pready_o'],
    ['output', svLogic(1), 'pslverr_o'],
    ...statusPorts.map((p): [string, string, string] => ['input ', svLogic(1), p]),
    ...outPorts.map((p): [string, string, string] => ['output', svLogic(p.width), p.name]),
  ];
  const types = padColumn(portDecls.map(([dir, type]) => `${dir} ${type}`));
  const groupBefore = new Map<number, string>([
    [0, '// Clock and reset'],
    [2, '// APB4 completer'],
    [11, '// Status from the encoder core'],
    [13, '// Run-time options: current register values'],
  ]);
  const portLines: string[] = [];
  portDecls.forEach(([, , name], i) => {
    const group = groupBefore.get(i);
    if (group !== undefined) portLines.push(group);
    portLines.push(`${types[i]} ${name}${i === portDecls.length - 1 ? '' : ','}`);
  });

  const addrCol = padColumn(addrNames.map(([n]) => n));
  const resetNames = flops.map((f) => `${camelCase(f.name)}Rst`);
  const resetTypes = padColumn(flops.map((f) => svLogic(f.width)));
  const resetNameCol = padColumn(resetNames);
  const flopTypes = padColumn(flops.map((f) => svLogic(f.width)));
  const outDocNames = padColumn(outPorts.map((p) => `${p.name}${svRange(p.width)}`));

  return {
    banner,
    module: ETRACE_APB_REGS_MODULE,
    statusDoc: [STATUS_INPUTS.empty.doc, STATUS_INPUTS.lost.doc],
    outputDoc: outPorts.map((p, i) => `${outDocNames[i]}  ${p.doc}`),
    portLines,
    addrParams: addrNames.map(([, v], i) => `localparam logic ${svRange(aw)} ${addrCol[i]} = ${v};`),
    resetParams: flops.map((f, i) => `localparam ${resetTypes[i]} ${resetNameCol[i]} = ${svSized(f.width, f.reset)};  // ${f.reg}.${f.field}`),
    flopDecls: flops.map((f, i) => `${flopTypes[i]} ${f.name}_q, ${f.name}_d;`),
    flops: flops.map((f, i) => ({ q: `${f.name}_q`, d: `${f.name}_d`, reset: resetNames[i]! })),
    words,
    writeWords: words.filter((w) => w.writeLines.length > 0),
    setLines: flops.filter((f) => f.field === STATUS_INPUTS.lost.field).map((f) => `if (${STATUS_INPUTS.lost.port}) ${f.name}_d = 1'b1;`),
    assigns: outPorts.map((p) => `assign ${p.name} = ${p.parts.length === 1 ? p.parts[0] : `{${p.parts.join(', ')}}`};`),
    internalDecls: (() => {
      const decls: [string, string][] = [[svLogic(1), 'apb_write'], [svLogic(1), 'hit'], [svLogic(dw), 'rdata'], [svLogic(1), 'unused_apb']];
      const col = padColumn(decls.map(([t]) => t));
      return decls.map(([, n], i) => `${col[i]} ${n};`);
    })(),
    dataZero: svSized(dw, 0n),
    lostPort: STATUS_INPUTS.lost.port,
  };
}

/** Names of the output ports for a configuration (documentation and tests). */
export function etraceApbRegsOutputs(c: EtraceConfig): string[] {
  const apb = new Set(['prdata_o', 'pready_o', 'pslverr_o']);
  return etraceApbRegsContext(c, '')
    .portLines.filter((l) => l.startsWith('output'))
    .map((l) => l.replace(/,$/, '').trim().split(/\s+/).pop()!)
    .filter((n) => !apb.has(n));
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
