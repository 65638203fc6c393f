/**
 * Co-simulation of the generated CTR unit against the golden model: the same steps (stimulus.ts:
 * one record and at most one CSR access or SCTRCLR per clock) drive the model
 * (golden-model/ctr/unit.ts, one `step` per clock) and the RTL (through the generic Verilator
 * harness of tb/), and every CSR response must be identical: read data, illegal-instruction and
 * virtual-instruction flags, in the same cycle.
 *
 * Cycle alignment: frame k is RTL cycle k and model step k. The RTL answers combinationally from
 * the state at the start of the cycle (the harness samples before the rising edge), as the model
 * does; both reset to the same state. Nothing is held (no hold output) and no port is driven by
 * the harness (no ready input), so the back-pressure of a case does not apply.
 */
import type { CtrConfig } from '../../golden-model/ctr/config.ts';
import { entryFields } from '../../golden-model/ctr/entry.ts';
import { stateenCtrBit, STATEEN_CSRIND_BIT } from '../../golden-model/ctr/registers.ts';
import type { CtrRtlParams } from '../../golden-model/ctr/settings.ts';
import { type CtrCsrResponse, CtrUnit } from '../../golden-model/ctr/unit.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { encodeTextStream } from '../../golden-model/hart/formats/text.ts';
import { ProgramImage } from '../../golden-model/hart/image.ts';
import { ctrCsrDecode, ctrCsrName } from '../../golden-model/ctr/csr-map.ts';
import { CTR_TOP_MODULE, ctrPorts } from '../../golden-model/ctr/ports.ts';
import { type BuiltModel, buildModel } from '../build.ts';
import type { CtrStep } from './stimulus.ts';
import type { HarnessSpec } from '../harness-spec.ts';
import { FrameWriter, runModel } from '../run.ts';

export function ctrHarnessSpec(c: CtrConfig, rtl: CtrRtlParams): HarnessSpec {
  const ports = ctrPorts(c, rtl);
  const has = (n: string): boolean => ports.some((p) => p.name === n);
  return {
    top: CTR_TOP_MODULE,
    ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })),
    clock: 'clk_i',
    reset: 'rst_ni',
    captures: [
      { name: 'csr', when: [{ port: 'csr_valid_i', value: 1 }], data: ['csr_rdata_o', 'csr_illegal_o', 'csr_virtual_o'] },
      ...(has('sctrclr_i') ? [{ name: 'sctrclr', when: [{ port: 'sctrclr_i', value: 1 as const }], data: ['csr_illegal_o', 'csr_virtual_o'] }] : []),
    ],
  };
}

export function buildCtrModel(c: CtrConfig, rtl: CtrRtlParams, rtlFiles: string[], log?: (line: string) => void, fst = false): BuiltModel {
  return buildModel({ spec: ctrHarnessSpec(c, rtl), rtlFiles, fst }, log);
}

/**
 * Writes the inputs of one step into a frame. Every input port is written, except that the CSR
 * ports are left as the previous frame had them when neither that step nor this one accesses a
 * CSR (they are all zero then): most steps retire without an access, and the frame writer is a
 * large part of the co-simulation's time.
 */
export function ctrFrameWriter(c: CtrConfig, rtl: CtrRtlParams, w: FrameWriter): (step: CtrStep, index: number) => void {
  const ports = new Set(ctrPorts(c, rtl).map((p) => p.name));
  const set = (name: string): ((v: number | bigint) => void) | undefined => (ports.has(name) ? w.setter(name) : undefined);
  const itype = set('itype_i')!;
  const iretire = set('iretire_i')!;
  const ilastsize = set('ilastsize_i')!;
  const iaddr = set('iaddr_i')!;
  const priv = set('priv_i')!;
  const v = set('v_i');
  const halted = set('halted_i')!;
  const reset = set('reset_i')!;
  const misp = set('misp_i');
  const lcofi = set('lcofi_trap_i');
  const bp = set('bp_trap_i');
  const mCtr = set('mstateen0_ctr_i');
  const mInd = set('mstateen0_csrind_i');
  const hCtr = set('hstateen0_ctr_i');
  const hInd = set('hstateen0_csrind_i');
  const valid = set('csr_valid_i')!;
  const addr = set('csr_addr_i')!;
  const we = set('csr_we_i')!;
  const wdata = set('csr_wdata_i')!;
  const wmask = set('csr_wmask_i')!;
  const cpriv = set('csr_priv_i')!;
  const cv = set('csr_v_i');
  const sctrclr = set('sctrclr_i');
  const xmask = (1n << BigInt(c.xlen)) - 1n;
  const inXlen = (x: bigint): bigint => (x >= 0n && x <= xmask ? x : x & xmask);
  const iretireMax = (1 << rtl.iretire_width_p) - 1;
  const lastsizeMax = (1 << rtl.lastsize_width_p) - 1;
  const ctrBit = BigInt(stateenCtrBit(c));
  const indBit = BigInt(STATEEN_CSRIND_BIT);
  const b = (x: bigint | undefined, n: bigint): number => Number(((x ?? (1n << 64n) - 1n) >> n) & 1n);
  // The stateen inputs change rarely: their bits are recomputed only when the value does.
  let lastM: bigint | undefined | null = null;
  let lastH: bigint | undefined | null = null;
  let csrIdle = false;
  return (s, index) => {
    const r = s.record;
    if (r.iretire > iretireMax || r.ilastsize > lastsizeMax) {
      throw new RvError('bad-value', `record ${index}: iretire ${r.iretire} / ilastsize ${r.ilastsize} do not fit the RTL's iretire_width_p = ${rtl.iretire_width_p} / lastsize_width_p = ${rtl.lastsize_width_p}`);
    }
    itype(r.itype & 0xf);
    iretire(r.iretire);
    ilastsize(r.ilastsize);
    iaddr(inXlen(r.iaddr));
    priv(r.priv & 7);
    v?.(s.v ? 1 : 0);
    halted(r.halted ? 1 : 0);
    reset(r.reset ? 1 : 0);
    misp?.(s.misp ? 1 : 0);
    lcofi?.(s.lcofiTrap ? 1 : 0);
    bp?.(s.breakpointTrap ? 1 : 0);
    if (s.mstateen0 !== lastM) {
      lastM = s.mstateen0;
      mCtr?.(b(s.mstateen0, ctrBit));
      mInd?.(b(s.mstateen0, indBit));
    }
    if (s.hstateen0 !== lastH) {
      lastH = s.hstateen0;
      hCtr?.(b(s.hstateen0, ctrBit));
      hInd?.(b(s.hstateen0, indBit));
    }
    const a = s.csr;
    if (a === undefined && csrIdle) return;
    csrIdle = a === undefined;
    const isAccess = a !== undefined && !a.sctrclr;
    valid(isAccess ? 1 : 0);
    sctrclr?.(a?.sctrclr ? 1 : 0);
    addr(a ? a.address & 0xfff : 0);
    we(isAccess && a.write ? 1 : 0);
    wdata(a ? inXlen(a.wdata) : 0n);
    wmask(a ? inXlen(a.wmask ?? xmask) : 0n);
    cpriv(a ? (a.priv === 4 ? 3 : a.priv) & 3 : 3);
    cv?.(a?.v ? 1 : 0);
  };
}

export interface CtrCosimOptions {
  fst?: { file: string; from: number; to: number };
}

export interface CtrMismatch {
  /** RTL cycle (= step) of the first differing response. */
  readonly cycle: number;
  readonly text: string;
}

export interface CtrCosimResult {
  /** CSR responses (and SCTRCLR outcomes) compared. */
  readonly compared: number;
  readonly cycles: number;
  /** Records the model pushed, popped, overwrote, and freezes, over the run. */
  readonly updates: { push: number; pop: number; overwrite: number; freeze: number };
  readonly mismatch?: CtrMismatch;
}

export interface Expected {
  step: number;
  response: CtrCsrResponse;
}

const hex = (v: bigint, xlen: number): string => `0x${v.toString(16).padStart(xlen / 4, '0')}`;

/** Runs the steps through the model and the RTL and compares every CSR response. */
export async function cosimCtr(verilated: BuiltModel, c: CtrConfig, rtl: CtrRtlParams, steps: readonly CtrStep[], opts: CtrCosimOptions = {}): Promise<CtrCosimResult> {
  const spec = ctrHarnessSpec(c, rtl);
  const unit = new CtrUnit(c);
  const accesses: Expected[] = [];
  const clears: Expected[] = [];
  const updates = { push: 0, pop: 0, overwrite: 0, freeze: 0 };
  const run = await runModel(
    verilated,
    spec,
    (emit) => {
      const w = new FrameWriter(spec);
      const fill = ctrFrameWriter(c, rtl, w);
      steps.forEach((s, i) => {
        fill(s, i);
        emit(w);
        const out = stepModel(unit, s, i);
        if (out.update) updates[out.update.kind]++;
        if (s.csr) (s.csr.sctrclr ? clears : accesses).push({ step: i, response: out.csr! });
      });
    },
    opts.fst ? { fst: opts.fst } : {},
  );
  const got = run.captures[0] ?? [];
  const gotClr = run.captures[1] ?? [];
  let first: { e: Expected; rtl: CtrCsrResponse | undefined; cycle: number } | undefined;
  const check = (exp: Expected[], caps: typeof got, withData: boolean): void => {
    // The RTL's response of a capture: read data (SCTRCLR has none), then the two fault flags.
    const responseOf = (values: readonly bigint[]): CtrCsrResponse =>
      withData
        ? { rdata: values[0]!, illegalInstruction: values[1] === 1n, virtualInstruction: values[2] === 1n }
        : { rdata: 0n, illegalInstruction: values[0] === 1n, virtualInstruction: values[1] === 1n };
    const flags = withData ? 1 : 0;
    for (let k = 0; k < Math.max(exp.length, caps.length); k++) {
      const e = exp[k];
      const cap = caps[k];
      // Compared in place: a response object per capture is made only for a difference's report.
      const same =
        e !== undefined &&
        cap !== undefined &&
        cap.cycle === e.step &&
        (withData ? cap.values[0] : 0n) === e.response.rdata &&
        (cap.values[flags] === 1n) === e.response.illegalInstruction &&
        (cap.values[flags + 1] === 1n) === e.response.virtualInstruction;
      if (!same) {
        const r = cap ? responseOf(cap.values) : undefined;
        const cycle = Math.min(e?.step ?? Infinity, cap?.cycle ?? Infinity);
        if (first === undefined || cycle < first.cycle) first = { e: e ?? { step: cap!.cycle, response: { rdata: 0n, illegalInstruction: false, virtualInstruction: false } }, rtl: r, cycle };
        return;
      }
    }
  };
  check(accesses, got, true);
  check(clears, gotClr, false);
  const result: CtrCosimResult = { compared: accesses.length + clears.length, cycles: run.cycles, updates };
  if (first === undefined) return result;
  return { ...result, mismatch: { cycle: first.cycle, text: explain(c, steps, first.e, first.rtl) } };
}

/** One model step, with the model's own exceptions (a mode the hart lacks, ...) as RvErrors. */
function stepModel(unit: CtrUnit, s: CtrStep, index: number): ReturnType<CtrUnit['step']> {
  try {
    return unit.step(s);
  } catch (e) {
    throw new RvError('bad-value', `step ${index}: ${(e as Error).message}`);
  }
}

function describeAccess(c: CtrConfig, s: CtrStep): string {
  const a = s.csr!;
  const mode = `${['U', 'S', '?', 'M', 'D'][a.priv] ?? a.priv}${a.v ? ' (V=1)' : ''}`;
  if (a.sctrclr) return `SCTRCLR from ${mode}`;
  const name = ctrCsrName(c, a.address & 0xfff) ?? 'not a CTR CSR';
  const what = a.write ? `write wdata ${hex(a.wdata, c.xlen)} wmask ${hex(a.wmask ?? (1n << BigInt(c.xlen)) - 1n, c.xlen)}` : 'read';
  return `CSR 0x${(a.address & 0xfff).toString(16).padStart(3, '0')} (${name}) ${what} from ${mode}`;
}

function describeResponse(c: CtrConfig, r: CtrCsrResponse | undefined): string {
  if (r === undefined) return '(no response)';
  return `rdata ${hex(r.rdata, c.xlen)}, illegal ${r.illegalInstruction ? 1 : 0}, virtual ${r.virtualInstruction ? 1 : 0}`;
}

/** The mismatch report: the access, both responses, the model's state then, the accesses and records before it. */
export function explain(c: CtrConfig, steps: readonly CtrStep[], e: Expected, rtl: CtrCsrResponse | undefined): string {
  const at = e.step;
  const s = steps[at];
  const lines = [`first difference at cycle ${at}: ${s?.csr ? describeAccess(c, s) : 'no access in this cycle'}`];
  lines.push(`  model: ${describeResponse(c, e.response)}`);
  lines.push(`  RTL:   ${describeResponse(c, rtl)}`);
  // The model again up to the start of that cycle, for its state.
  const unit = new CtrUnit(c);
  for (let i = 0; i < at && i < steps.length; i++) unit.step(steps[i]!);
  const st = unit.state();
  lines.push(
    `  model state at the start of the cycle: depth ${st.depth}, WRPTR ${st.wrptr}, WRAP ${st.wrap ? 1 : 0}, FROZEN ${st.frozen ? 1 : 0}, ` +
      `control 0x${st.mctl.toString(16)}${c.hExt ? `, vs control 0x${st.vsctl.toString(16)}` : ''}, ` +
      `selects m 0x${st.miselect.toString(16)} s 0x${st.siselect.toString(16)} vs 0x${st.vsiselect.toString(16)}, counter ${st.counter}, pending ${st.pending ? `type ${st.pending.type} from 0x${st.pending.source.toString(16)}` : 'none'}`,
  );
  const a = s?.csr;
  const d = a && !a.sctrclr ? ctrCsrDecode(c).find((x) => x.address === (a.address & 0xfff)) : undefined;
  if (d?.kind === 'ireg') {
    const which = d.which === 'WhichM' ? 'miselect' : d.which === 'WhichS' && !a!.v ? 'siselect' : 'vsiselect';
    const select = st[which];
    const logical = Number(select - 0x200n);
    if (select >= 0x200n && select <= 0x2ffn && logical < st.depth) {
      const f = entryFields(unit.entries()[logical]!);
      const physical = (((st.wrptr - 1 - logical) % st.depth) + st.depth) % st.depth;
      lines.push(`  the access selects logical entry ${logical} (physical ${physical}): model V ${f.valid ? 1 : 0} source 0x${f.sourcePc.toString(16)} target 0x${f.targetPc.toString(16)} type ${f.type} MISP ${f.misp ? 1 : 0} CCV ${f.ccv ? 1 : 0} CC 0x${f.cc.toString(16)}`);
    }
  }
  const young = unit.entries().slice(0, 3).map(entryFields);
  young.forEach((f, x) => lines.push(`  model entry ${x}: V ${f.valid ? 1 : 0} source 0x${f.sourcePc.toString(16)} target 0x${f.targetPc.toString(16)} type ${f.type} MISP ${f.misp ? 1 : 0} CCV ${f.ccv ? 1 : 0} CC 0x${f.cc.toString(16)}`));
  const before: string[] = [];
  for (let i = at - 1; i >= 0 && before.length < 4; i--) if (steps[i]?.csr) before.unshift(`    cycle ${i}: ${describeAccess(c, steps[i]!)}`);
  if (before.length > 0) lines.push('  CSR accesses before it:', ...before);
  const from = Math.max(0, at - 4);
  const records = steps.slice(from, at + 1).map((x) => x.record);
  const text = encodeTextStream({ xlen: c.xlen, retiresPerCycle: 1, image: new ProgramImage(), records })
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#') && !/^(xlen|retires|records|columns) /.test(l));
  lines.push(`  records of cycles ${from}..${at}:`);
  text.forEach((l, k) => lines.push(`    ${from + k}: ${l}${steps[from + k]?.v ? ' (V=1)' : ''}`));
  return lines.join('\n');
}
