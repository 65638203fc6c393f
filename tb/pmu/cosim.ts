/**
 * Co-simulation of the generated PMU counter block against the golden model: the same steps
 * (stimulus.ts, or the cycles an SBI script ran, sbi/) drive the model (golden-model/pmu/unit.ts,
 * one `step` per clock) and the RTL (through the generic Verilator harness of tb/), and every CSR
 * response (read data, illegal, virtual) and every lcofi_o pulse must be identical, in the same cycle.
 *
 * Cycle alignment: frame k is RTL cycle k and model step k; the RTL answers combinationally from the
 * state at the start of the cycle (the harness samples before the rising edge), as the model does.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { PmuCsrResponse, PmuCycleInput } from '../../golden-model/pmu/access.ts';
import type { PmuConfig } from '../../golden-model/pmu/config.ts';
import { pmuCsrDecode, pmuCsrName } from '../../golden-model/pmu/csr-map.ts';
import { PMU_TOP_MODULE, pmuPorts } from '../../golden-model/pmu/ports.ts';
import type { PmuRtlParams } from '../../golden-model/pmu/settings.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { type BuiltModel, buildModel } from '../build.ts';
import type { HarnessSpec } from '../harness-spec.ts';
import { FrameWriter, runModel } from '../run.ts';

export function pmuHarnessSpec(c: PmuConfig, rtl: PmuRtlParams): HarnessSpec {
  return {
    top: PMU_TOP_MODULE,
    ports: pmuPorts(c, rtl).map((p) => ({ name: p.name, direction: p.direction, width: p.width })),
    clock: 'clk_i',
    reset: 'rst_ni',
    captures: [
      { name: 'csr', when: [{ port: 'csr_valid_i', value: 1 }], data: ['csr_rdata_o', 'csr_illegal_o', 'csr_virtual_o'] },
      ...(c.sscofpmf ? [{ name: 'lcofi', when: [{ port: 'lcofi_o', value: 1 as const }], data: ['lcofi_o'] }] : []),
    ],
  };
}

export function buildPmuModel(c: PmuConfig, rtl: PmuRtlParams, rtlFiles: string[], log?: (line: string) => void, fst = false): BuiltModel {
  return buildModel({ spec: pmuHarnessSpec(c, rtl), rtlFiles, fst }, log);
}

/** Writes the inputs of one step into a frame (every input port). */
export function pmuFrameWriter(c: PmuConfig, rtl: PmuRtlParams, w: FrameWriter): (step: PmuCycleInput, index: number) => void {
  const has = new Set(pmuPorts(c, rtl).map((p) => p.name));
  // Setters bound once per port: a frame a cycle, a million cycles a second.
  const set = (name: string): ((v: number | bigint) => void) | undefined => (has.has(name) ? w.setter(name) : undefined);
  const itype = set('itype_i')!;
  const iretire = set('iretire_i')!;
  const priv = set('priv_i')!;
  const v = set('v_i');
  const halted = set('halted_i')!;
  const reset = set('reset_i')!;
  const events = set('event_i');
  const valid = set('csr_valid_i')!;
  const addr = set('csr_addr_i')!;
  const we = set('csr_we_i')!;
  const wdata = set('csr_wdata_i')!;
  const wmask = set('csr_wmask_i')!;
  const cpriv = set('csr_priv_i')!;
  const cv = set('csr_v_i');
  const xmask = (1n << BigInt(c.xlen)) - 1n;
  const iretireMax = (1 << rtl.iretire_width_p) - 1;
  const eventMask = c.eventInputs >= 32 ? 0xffffffff : (1 << c.eventInputs) - 1;
  let accessing = true;
  return (s, index) => {
    const r = s.record;
    if (r.iretire > iretireMax) throw new RvError('bad-value', `record ${index}: iretire ${r.iretire} does not fit the RTL's iretire_width_p = ${rtl.iretire_width_p}`);
    itype(r.itype & 0xf);
    iretire(r.iretire);
    priv(r.priv & 7);
    v?.(s.v ? 1 : 0);
    halted(r.halted ? 1 : 0);
    reset(r.reset ? 1 : 0);
    events?.(((s.events ?? 0) & eventMask) >>> 0);
    const a = s.csr;
    if (a === undefined) {
      // The other CSR inputs are don't-care without csr_valid_i; written once, not every cycle.
      if (accessing) {
        valid(0);
        addr(0);
        we(0);
        wdata(0n);
        wmask(0n);
        cpriv(3);
        cv?.(0);
        accessing = false;
      }
      return;
    }
    accessing = true;
    valid(1);
    addr(a.address & 0xfff);
    we(a.write ? 1 : 0);
    wdata(a.wdata & xmask);
    wmask((a.wmask ?? xmask) & xmask);
    // Debug mode is presented to the CSR port as M.
    cpriv((a.priv === 4 ? 3 : a.priv) & 3);
    cv?.(a.v ? 1 : 0);
  };
}

export interface PmuCosimResult {
  /** CSR responses compared. */
  readonly compared: number;
  /** lcofi_o pulses compared. */
  readonly lcofi: number;
  readonly cycles: number;
  readonly mismatch?: { readonly cycle: number; readonly text: string };
}

const hex = (v: bigint, xlen: number): string => `0x${v.toString(16).padStart(xlen / 4, '0')}`;

/** Runs the steps through the model and the RTL and compares every CSR response and LCOFI pulse. */
export async function cosimPmu(verilated: BuiltModel, c: PmuConfig, rtl: PmuRtlParams, steps: readonly PmuCycleInput[], opts: { fst?: { file: string; from: number; to: number } } = {}): Promise<PmuCosimResult> {
  const spec = pmuHarnessSpec(c, rtl);
  const unit = new PmuUnit(c);
  const responses: { step: number; response: PmuCsrResponse }[] = [];
  const lcofi: number[] = [];
  const run = await runModel(
    verilated,
    spec,
    (emit) => {
      const w = new FrameWriter(spec);
      const fill = pmuFrameWriter(c, rtl, w);
      steps.forEach((s, i) => {
        fill(s, i);
        emit(w);
        const out = unit.step(s);
        if (s.csr) responses.push({ step: i, response: out.csr! });
        if (out.lcofi) lcofi.push(i);
      });
    },
    opts.fst ? { fst: opts.fst } : {},
  );
  const got = run.captures[0] ?? [];
  const gotLcofi = (run.captures[1] ?? []).map((x) => x.cycle);
  const result = { compared: responses.length, lcofi: lcofi.length, cycles: run.cycles };
  let first: { cycle: number; text: string } | undefined;
  const note = (cycle: number, text: string): void => {
    if (first === undefined || cycle < first.cycle) first = { cycle, text };
  };
  for (let k = 0; k < Math.max(responses.length, got.length); k++) {
    const e = responses[k];
    const cap = got[k];
    const r = cap && { rdata: cap.values[0]!, illegalInstruction: cap.values[1] === 1n, virtualInstruction: cap.values[2] === 1n };
    if (e && r && cap.cycle === e.step && r.rdata === e.response.rdata && r.illegalInstruction === e.response.illegalInstruction && r.virtualInstruction === e.response.virtualInstruction) continue;
    const cycle = Math.min(e?.step ?? Infinity, cap?.cycle ?? Infinity);
    note(cycle, `first difference at cycle ${cycle}: ${describeAccess(c, steps[cycle])}\n  model: ${describeResponse(c, e?.response)}\n  RTL:   ${describeResponse(c, r)}`);
    break;
  }
  for (let k = 0; k < Math.max(lcofi.length, gotLcofi.length); k++) {
    if (lcofi[k] === gotLcofi[k]) continue;
    const cycle = Math.min(lcofi[k] ?? Infinity, gotLcofi[k] ?? Infinity);
    note(cycle, `first difference at cycle ${cycle}: lcofi_o pulse ${k + 1}: model at cycle ${lcofi[k] ?? '(none)'}, RTL at cycle ${gotLcofi[k] ?? '(none)'}`);
    break;
  }
  return first === undefined ? result : { ...result, mismatch: first };
}

export function describeAccess(c: PmuConfig, s: PmuCycleInput | undefined): string {
  const a = s?.csr;
  if (a === undefined) return 'no access in this cycle';
  const mode = `${['U', 'S', '?', 'M', 'D'][a.priv] ?? a.priv}${a.v ? ' (V=1)' : ''}`;
  const d = pmuCsrDecode(c, a.address & 0xfff);
  const name = d ? pmuCsrName(d) : 'not a PMU CSR';
  const xmask = (1n << BigInt(c.xlen)) - 1n;
  const what = a.write ? `write wdata ${hex(a.wdata, c.xlen)} wmask ${hex(a.wmask ?? xmask, c.xlen)}` : 'read';
  return `CSR 0x${(a.address & 0xfff).toString(16).padStart(3, '0')} (${name}) ${what} from ${mode}`;
}

export function describeResponse(c: PmuConfig, r: PmuCsrResponse | undefined): string {
  if (r === undefined) return '(no response)';
  return `rdata ${hex(r.rdata, c.xlen)}, illegal ${r.illegalInstruction ? 1 : 0}, virtual ${r.virtualInstruction ? 1 : 0}`;
}
