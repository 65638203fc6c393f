/**
 * `rvtrace check` of a PMU counter block in the user's waveform: the inverse of pmuFrameWriter
 * (tb/pmu/cosim.ts). Each cycle out of reset is one model step (PmuUnit.step): the cycle's
 * retirement (itype, iretire, priv, V, halted, reset), the event inputs and the CSR access. The
 * model's response to an access is compared in its cycle with csr_rdata_o, csr_illegal_o and
 * csr_virtual_o, and with Sscofpmf lcofi_o with the model's LCOFI request in every cycle. Nothing
 * grows with the waveform.
 */
import type { BlockCheck, CheckOptions, CheckOutcome, CheckPorts, CheckSession } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { PmuCycleInput } from '../../golden-model/pmu/access.ts';
import type { PmuConfig } from '../../golden-model/pmu/config.ts';
import { pmuPorts } from '../../golden-model/pmu/ports.ts';
import type { PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { emptyRecord } from '../../golden-model/hart/records.ts';
import { csrPorts, type CsrPorts, sameResponse } from '../check/csr.ts';
import { describeAccess, describeResponse } from './cosim.ts';

function checkPorts(b: PmuBlockConfig, o: CheckOptions): CheckPorts {
  if (o.capture) throw new RvError('bad-option', '--capture: the PMU counter block has no trace output (its CSR responses are compared in the waveform)');
  const ports = pmuPorts(b.config, b.rtl).filter((p) => p.group !== 'clock');
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required: ports.map((p) => p.name) };
}

class PmuCheckSession implements CheckSession {
  private readonly unit: PmuUnit;
  private readonly csr: CsrPorts;
  private readonly at: (port: string) => number;
  private readonly lcofi: number;
  private compared = 0;
  private pulses = 0;
  private cycles = 0;
  private divergence: { cycle: number; text: string } | undefined;

  constructor(
    private readonly c: PmuConfig,
    mapped: readonly string[],
  ) {
    this.unit = new PmuUnit(c);
    this.at = (port) => mapped.indexOf(port);
    this.csr = csrPorts(this.at);
    this.lcofi = this.at('lcofi_o');
  }

  cycle(t: number, v: readonly bigint[]): void {
    this.cycles = t + 1;
    if (this.divergence) return;
    const s = this.stepOf(v);
    let out: ReturnType<PmuUnit['step']>;
    try {
      out = this.unit.step(s);
    } catch (e) {
      throw new RvError('bad-value', `cycle ${t}: ${(e as Error).message}`);
    }
    if (s.csr) {
      const rtl = this.csr.response(v);
      this.compared++;
      if (!sameResponse(rtl, out.csr!)) {
        this.divergence = { cycle: t, text: `first difference at cycle ${t}: ${describeAccess(this.c, s)}\n  model: ${describeResponse(this.c, out.csr)}\n  RTL:   ${describeResponse(this.c, rtl)}` };
        return;
      }
    }
    if (this.lcofi >= 0) {
      const rtl = v[this.lcofi] === 1n;
      if (out.lcofi) this.pulses++;
      if (rtl !== out.lcofi) this.divergence = { cycle: t, text: `first difference at cycle ${t}: lcofi_o: model ${out.lcofi ? 1 : 0}, RTL ${rtl ? 1 : 0} (after ${this.pulses - (out.lcofi ? 1 : 0)} pulses that agreed)` };
    }
  }

  private stepOf(v: readonly bigint[]): PmuCycleInput {
    const num = (port: string): number => (this.at(port) >= 0 ? Number(v[this.at(port)]!) : 0);
    const record = { ...emptyRecord(), itype: num('itype_i'), iretire: num('iretire_i'), priv: num('priv_i'), halted: num('halted_i') === 1, reset: num('reset_i') === 1 };
    const access = this.csr.access(v);
    return {
      record,
      ...(this.at('v_i') >= 0 ? { v: num('v_i') === 1 } : {}),
      ...(this.at('event_i') >= 0 ? { events: num('event_i') } : {}),
      ...(access ? { csr: access } : {}),
    };
  }

  finish(): CheckOutcome {
    const summary = `${this.cycles} cycles, ${this.compared} CSR responses compared${this.lcofi >= 0 ? `, ${this.pulses} LCOFI pulses` : ''}${this.divergence ? ' (up to the first divergence)' : ''}`;
    if (this.divergence) return { pass: false, summary, mismatch: this.divergence.text, mismatchCycle: this.divergence.cycle };
    return { pass: true, summary };
  }
}

export const pmuCheck: BlockCheck<PmuBlockConfig> = {
  ports: checkPorts,
  start: (b, mapped) => new PmuCheckSession(b.config, mapped),
};
