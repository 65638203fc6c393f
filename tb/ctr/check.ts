/**
 * `rvtrace check` of a CTR unit in the user's waveform: the inverse of ctrFrameWriter
 * (tb/ctr/cosim.ts). Each cycle out of reset is one model step (CtrUnit.step): the cycle's
 * retirement record (an idle cycle is a record with iretire 0, as the RTL sees it), V,
 * misprediction and freeze inputs, the Smstateen bits, and the CSR access (csr_valid_i) or SCTRCLR
 * (sctrclr_i) of the cycle. The model's response to an access is compared in its cycle with the
 * waveform's csr_rdata_o, csr_illegal_o and csr_virtual_o (an SCTRCLR: the two flags), sampled
 * before the rising edge as the co-simulation harness samples them. Memory does not grow with the
 * waveform; the detailed pass keeps the steps up to the first divergence, for the report
 * (cosim's, with the model's state and the records before it).
 */
import type { BlockCheck, CheckOptions, CheckOutcome, CheckPorts, CheckSession } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { CtrConfig } from '../../golden-model/ctr/config.ts';
import { ctrPorts } from '../../golden-model/ctr/ports.ts';
import { stateenCtrBit, STATEEN_CSRIND_BIT } from '../../golden-model/ctr/registers.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { CtrUnit } from '../../golden-model/ctr/unit.ts';
import { emptyRecord } from '../../golden-model/hart/records.ts';
import { csrPorts, type CsrPorts, sameResponse } from '../check/csr.ts';
import { explain } from './cosim.ts';
import type { CtrStep } from './stimulus.ts';

const ALL_ONES = (1n << 64n) - 1n;

function checkPorts(b: CtrBlockConfig, o: CheckOptions): CheckPorts {
  if (o.capture) throw new RvError('bad-option', '--capture: the CTR unit has no trace output (its CSR responses are compared in the waveform)');
  const ports = ctrPorts(b.config, b.rtl).filter((p) => p.group !== 'clock');
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required: ports.map((p) => p.name) };
}

class CtrCheckSession implements CheckSession {
  private readonly unit: CtrUnit;
  private readonly step: (v: readonly bigint[]) => CtrStep;
  private readonly csr: CsrPorts;
  private readonly steps: CtrStep[] = [];
  private compared = 0;
  private cycles = 0;
  private divergence: { cycle: number; text: string } | undefined;

  constructor(
    private readonly c: CtrConfig,
    b: CtrBlockConfig,
    mapped: readonly string[],
    private readonly detail: boolean,
  ) {
    this.unit = new CtrUnit(c);
    const at = (port: string): number => mapped.indexOf(port);
    this.csr = csrPorts(at);
    this.step = stepBuilder(c, b, at, this.csr);
  }

  cycle(t: number, v: readonly bigint[]): void {
    this.cycles = t + 1;
    if (this.divergence) return;
    const s = this.step(v);
    if (this.detail) this.steps.push(s);
    let out: ReturnType<CtrUnit['step']>;
    try {
      out = this.unit.step(s);
    } catch (e) {
      throw new RvError('bad-value', `cycle ${t}: ${(e as Error).message}`);
    }
    if (s.csr === undefined) return;
    const e = out.csr!;
    const sctrclr = s.csr.sctrclr === true;
    // SCTRCLR has no read data: its outcome is the two flags.
    const rtl = { ...this.csr.response(v), ...(sctrclr ? { rdata: 0n } : {}) };
    this.compared++;
    if (sameResponse(rtl, e, !sctrclr)) return;
    const text = this.detail ? explain(this.c, this.steps, { step: t, response: e }, rtl) : `first difference at cycle ${t}`;
    this.divergence = { cycle: t, text };
  }

  finish(): CheckOutcome {
    const summary = `${this.cycles} cycles, ${this.compared} CSR responses compared${this.divergence ? ' (up to the first divergence)' : ''}`;
    if (this.divergence) return { pass: false, summary, mismatch: this.divergence.text, mismatchCycle: this.divergence.cycle };
    return { pass: true, summary };
  }
}

/** The model's step of one cycle from the sampled ports. */
function stepBuilder(c: CtrConfig, b: CtrBlockConfig, at: (port: string) => number, csr: CsrPorts): (v: readonly bigint[]) => CtrStep {
  const k = Object.fromEntries(ctrPorts(c, b.rtl).map((p) => [p.name, at(p.name)]));
  const num = (v: readonly bigint[], port: string): number => (k[port]! >= 0 ? Number(v[k[port]!]!) : 0);
  const flag = (v: readonly bigint[], port: string): boolean | undefined => (k[port]! >= 0 ? v[k[port]!] === 1n : undefined);
  const ctrBit = BigInt(stateenCtrBit(c));
  const indBit = BigInt(STATEEN_CSRIND_BIT);
  /** mstateen0/hstateen0: the two bits the unit has inputs for, the rest all ones (the model's default). */
  const stateen = (v: readonly bigint[], ctr: string, ind: string): bigint | undefined => {
    if (k[ctr] === undefined || k[ctr]! < 0) return undefined;
    let x = ALL_ONES & ~((1n << ctrBit) | (1n << indBit));
    if (flag(v, ctr)) x |= 1n << ctrBit;
    if (flag(v, ind)) x |= 1n << indBit;
    return x;
  };
  return (v) => {
    const record = { ...emptyRecord(), itype: num(v, 'itype_i'), iretire: num(v, 'iretire_i'), ilastsize: num(v, 'ilastsize_i'), iaddr: v[k['iaddr_i']!]!, priv: num(v, 'priv_i'), halted: flag(v, 'halted_i') === true, reset: flag(v, 'reset_i') === true };
    const some = <T>(key: string, value: T | undefined): Record<string, T> => (value === undefined ? {} : { [key]: value });
    const s: CtrStep = {
      record,
      ...some('v', flag(v, 'v_i')),
      ...some('misp', flag(v, 'misp_i')),
      ...some('lcofiTrap', flag(v, 'lcofi_trap_i')),
      ...some('breakpointTrap', flag(v, 'bp_trap_i')),
      ...some('mstateen0', stateen(v, 'mstateen0_ctr_i', 'mstateen0_csrind_i')),
      ...some('hstateen0', stateen(v, 'hstateen0_ctr_i', 'hstateen0_csrind_i')),
    };
    const access = csr.access(v);
    if (access) return { ...s, csr: access };
    if (flag(v, 'sctrclr_i')) return { ...s, csr: { address: 0, write: false, wdata: 0n, ...csr.mode(v), sctrclr: true } };
    return s;
  };
}

export const ctrCheck: BlockCheck<CtrBlockConfig> = {
  ports: checkPorts,
  start: (b, mapped, o) => new CtrCheckSession(b.config, b, mapped, o.detail),
};
