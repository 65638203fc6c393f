/**
 * The co-simulation stimulus of the PMU counter block: one `PmuStep` per clock, the same for the
 * model and the RTL. A retirement stream of the stimulus generator (golden-model/hart/stimulus) with
 * the V bit added (a guest runs S/U code between traps to M), random event-input pulses, and random
 * legal and illegal CSR operations riding on the records: WARL probes of every CSR from every mode,
 * selector writes, counters written just below overflow (so that OF, LCOFI and the wrap happen
 * often), OF clears, inhibit and mode-filter toggles, counter-enable changes, reads of the user
 * counters and scountovf from U, S, VS and VU, RV32 high halves, numbers that are not PMU CSRs;
 * then a final dump of every CSR through M-mode reads.
 *
 * Deterministic: the same configuration, seed, count and knobs give the same steps.
 */
import { Rng } from '../../golden-model/common/rng.ts';
import { type EventMapping, hpmCounters, type PmuConfig } from '../../golden-model/pmu/config.ts';
import type { PmuCsrAccess, PmuCycleInput } from '../../golden-model/pmu/access.ts';
import { CSR, type PmuCsr, pmuCsrNumbers } from '../../golden-model/pmu/csr-map.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';

/** One clock of the stimulus (a record is always given). */
export interface PmuStep extends PmuCycleInput {
  readonly record: RetirementRecord;
}

/** How often the CSR program acts, and how busy the event inputs are. */
export interface PmuOpKnobs {
  /** Probability that a CSR operation starts at a step when none is running. */
  readonly opRate: number;
  /** Probability per cycle that an event input is high (each input gets a rate up to this). */
  readonly eventRate: number;
}

export const DEFAULT_PMU_OP_KNOBS: PmuOpKnobs = { opRate: 0.05, eventRate: 0.3 };

/** The stimulus knobs of a PMU case (the hart's XLEN and privileges follow the configuration). */
export function pmuStimulusKnobs(c: PmuConfig, over: Partial<StimulusKnobs> = {}): StimulusKnobs {
  return { ...defaultKnobs(), xlen: c.xlen, privileges: c.sMode ? 'MSU' : c.uMode ? 'MU' : 'M', interrupt_rate: 0.003, halt_rate: 0.0005, reset_rate: 0.0002, ...over };
}

/** The retirement records of a case: the random program executed for `count` instructions. */
export function pmuRecords(c: PmuConfig, seed: number, count: number, knobs: Partial<StimulusKnobs> = {}): RetirementRecord[] {
  return generateStimulus(pmuStimulusKnobs(c, knobs), seed, count).records;
}

interface Mode {
  priv: number;
  v: boolean;
}

const ALL = (1n << 64n) - 1n;
const M: Mode = { priv: 3, v: false };

/** The modes a configuration has. */
export function pmuModes(c: PmuConfig): Mode[] {
  const modes: Mode[] = [M];
  if (c.sMode) modes.push({ priv: 1, v: false });
  if (c.uMode) modes.push({ priv: 0, v: false });
  if (c.hExt) modes.push({ priv: 1, v: true }, { priv: 0, v: true });
  return modes;
}

/** `pmuSteps`, and the index of the first step of the final dump. */
export function pmuProgram(c: PmuConfig, records: readonly RetirementRecord[], seed: number, opKnobs: PmuOpKnobs = DEFAULT_PMU_OP_KNOBS): { steps: PmuStep[]; dumpFrom: number } {
  const rng = new Rng((seed ^ 0x5d3e_17a9) >>> 0);
  const xlen = BigInt(c.xlen);
  const xmask = (1n << xlen) - 1n;
  const rv32 = c.xlen === 32;
  const csrs = pmuCsrNumbers(c);
  const hpm = hpmCounters(c);
  const modes = pmuModes(c);
  const randomMode = (): Mode => (rng.chance(0.4) ? M : rng.pick(modes));
  const find = (pred: (x: PmuCsr) => boolean): number[] => csrs.filter((e) => pred(e.csr)).map((e) => e.address);
  const userCounters = find((x) => x.kind === 'user-counter');
  const random64 = (): bigint => BigInt(rng.u32()) | (BigInt(rng.u32()) << 32n);
  const eventInputRates = Array.from({ length: c.eventInputs }, () => rng.float() * opKnobs.eventRate);

  const access = (address: number, mode: Mode, write: boolean, wdata = 0n, wmask = ALL): PmuCsrAccess => ({ address, write, wdata: wdata & xmask, wmask: wmask & xmask, priv: mode.priv, v: mode.v });
  /** A 64-bit register written from M: one access on RV64, the low then the high half on RV32 (`highBase`: the half's number offset). */
  const write64 = (address: number, value: bigint, highOffset: number): PmuCsrAccess[] =>
    rv32 ? [access(address, M, true, value & xmask), access(address + highOffset, M, true, value >> 32n)] : [access(address, M, true, value)];
  /** A random value written the way csrrw, csrrs, csrrc or a masked write would. */
  const writeForms = (address: number, mode: Mode, value: bigint): PmuCsrAccess => {
    const form = rng.int(0, 3);
    if (form === 0) return access(address, mode, true, value, ALL);
    if (form === 1) return access(address, mode, true, ALL, value);
    if (form === 2) return access(address, mode, true, 0n, value);
    return access(address, mode, true, value, random64());
  };
  /** A selector of the event map (mostly), or any value. */
  const selector = (): bigint => {
    const busy = c.events.filter((e: EventMapping) => e.event.kind === 'input' || e.event.name === 'cycles' || e.event.name === 'instructions');
    if (rng.chance(0.8) && busy.length > 0) return rng.pick(busy).selector;
    if (rng.chance(0.7) && c.events.length > 0) return rng.pick(c.events).selector;
    return rng.chance(0.5) ? BigInt(rng.int(0, 0x200)) : random64() & ((1n << 56n) - 1n);
  };
  /** Inhibit bits 62..58 of mhpmevent / the cfg registers: mostly none, sometimes one or more modes. */
  const inhibitBits = (): bigint => (rng.chance(0.7) ? 0n : BigInt(rng.int(0, 31)) << 58n);
  const eventValue = (): bigint => selector() | inhibitBits() | (rng.chance(0.1) ? 1n << 63n : 0n);

  const queue: PmuCsrAccess[] = [];
  const push = (...a: PmuCsrAccess[]): void => void queue.push(...a);

  const startOp = (): void => {
    const mode = randomMode();
    switch (rng.weighted([12, 3, 8, 4, 5, 4, 10, 5])) {
      case 0: {
        // WARL probe: any CSR from any mode, sometimes written (all ones, zero or random) and read back.
        const a = rng.pick(csrs).address;
        if (rng.chance(0.4)) push(writeForms(a, mode, rng.pick([ALL, 0n, random64()])), access(a, mode, false));
        else push(access(a, mode, false));
        return;
      }
      case 1: {
        // Not a PMU CSR (time, mtime's gap, neighbours), read or written.
        const a = rng.chance(0.5) ? rng.int(0, 0xfff) : rng.pick([0xc01, 0xc81, 0xb01, 0x321, 0x323 - 0x20, 0x340, 0x7a0, 0xda1, 0x606, 0x106]);
        push(access(a, mode, rng.chance(0.4), random64()));
        return;
      }
      case 2: {
        // A counter just below its overflow, counting a busy event: the wrap, OF and LCOFI follow soon.
        if (hpm.length === 0) return;
        const n = rng.pick(hpm);
        push(...write64(CSR.mhpmevent + n, eventValue() & ~(1n << 63n), 0x400));
        const top = (1n << BigInt(c.counterWidth)) - 1n;
        push(...write64(CSR.mcycle + n, top - BigInt(rng.int(0, 60)), 0x80));
        return;
      }
      case 3: {
        // mcycle / minstret near their 64-bit wrap (no OF for them), or a random counter value.
        const n = rng.pick([0, 2, ...hpm]);
        push(...write64(CSR.mcycle + n, rng.chance(0.5) ? ALL - BigInt(rng.int(0, 40)) : random64(), 0x80));
        return;
      }
      case 4: {
        // OF cleared (csrrc), or the selector and inhibit bits changed.
        if (hpm.length === 0) return;
        const n = rng.pick(hpm);
        if (rng.chance(0.5) && c.sscofpmf) push(rv32 ? access(CSR.mhpmeventh + n, M, true, 0n, 1n << 31n) : access(CSR.mhpmevent + n, M, true, 0n, 1n << 63n));
        else push(...write64(CSR.mhpmevent + n, eventValue(), 0x400));
        return;
      }
      case 5: {
        // Inhibit: mcountinhibit, or the Smcntrpmf mode filters.
        if (c.smcntrpmf && rng.chance(0.5)) push(...write64(rng.pick([CSR.mcyclecfg, CSR.minstretcfg]), inhibitBits() | (rng.chance(0.1) ? random64() : 0n), 0x400));
        else push(writeForms(CSR.mcountinhibit, M, rng.chance(0.6) ? 0n : random64()));
        return;
      }
      case 6: {
        // A user counter or scountovf read from a lower mode (the counter-enable checks).
        const targets = [...userCounters, ...(find((x) => x.kind === 'scountovf'))];
        push(access(rng.pick(targets), mode, rng.chance(0.05)));
        return;
      }
      case 7: {
        // Counter-enable changes: mostly set (so lower modes read), sometimes bits cleared.
        const regs = find((x) => x.kind === 'mcounteren' || x.kind === 'scounteren' || x.kind === 'hcounteren');
        if (regs.length === 0) return;
        const a = rng.pick(regs);
        const value = rng.chance(0.6) ? ALL : random64();
        const who = a === CSR.mcounteren ? M : rng.chance(0.7) ? (a === CSR.hcounteren ? { priv: 1, v: false } : rng.pick(modes.filter((m) => m.priv >= 1))) : mode;
        push(writeForms(a, who, value));
        return;
      }
    }
  };

  // Start: counters enabled below M, every programmable counter counting a busy event.
  for (const reg of find((x) => x.kind === 'mcounteren' || x.kind === 'scounteren' || x.kind === 'hcounteren')) push(access(reg, M, true, ALL));
  for (const n of hpm) push(...write64(CSR.mhpmevent + n, selector(), 0x400));

  const steps: PmuStep[] = [];
  let guest = false;
  for (const record of records) {
    if (queue.length === 0 && rng.chance(opKnobs.opRate)) startOp();
    // The V bit: a guest runs S/U code between traps to M.
    if (c.hExt && record.priv === 3 && rng.chance(0.3)) guest = !guest;
    const v = c.hExt && guest && (record.priv === 0 || record.priv === 1);
    let events = 0;
    for (let k = 0; k < c.eventInputs; k++) if (rng.float() < eventInputRates[k]!) events |= 1 << k;
    steps.push({ record, v, events: events >>> 0, ...(queue.length > 0 ? { csr: queue.shift()! } : {}) });
  }
  // The final dump: every CSR read from M.
  const dumpFrom = steps.length;
  const last = records[records.length - 1];
  const idle: RetirementRecord = { ...emptyRecord(), priv: last?.priv ?? 3, iretire: 0 };
  const lastV = steps[steps.length - 1]?.v ?? false;
  queue.length = 0;
  for (const e of csrs) push(access(e.address, M, false));
  for (const csr of queue) steps.push({ record: idle, v: lastV, events: 0, csr });
  return { steps, dumpFrom };
}

/** The steps of a case (see `pmuProgram`). */
export function pmuSteps(c: PmuConfig, records: readonly RetirementRecord[], seed: number, opKnobs: PmuOpKnobs = DEFAULT_PMU_OP_KNOBS): PmuStep[] {
  return pmuProgram(c, records, seed, opKnobs).steps;
}
