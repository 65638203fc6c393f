/**
 * The co-simulation stimulus of the CTR unit: one `CtrCycleInput` per clock, the same for the
 * model and the RTL. A retirement stream of the stimulus generator (golden-model/hart/stimulus),
 * with the V bit, misprediction and freeze signals added, interleaved with random legal and
 * illegal CSR operations: WARL probes of every CSR, control writes (enables, filters, RASEMU,
 * freeze and external-trap bits), depth changes, CLR / SCTRCLR, status writes (unfreeze, random
 * WRPTR), select writes with reads and writes of entries through the indirect window, sweeps
 * reading every entry, accesses from every mode with Smstateen bits toggled, numbers that are not
 * CTR CSRs; then a final dump of every entry and every CSR through M-mode reads.
 *
 * Deterministic: the same configuration, seed, count and knobs give the same steps.
 */
import { Rng } from '../../golden-model/common/rng.ts';
import type { CtrConfig } from '../../golden-model/ctr/config.ts';
import { controlLayout, CTR_SELECT_FIRST, stateenCtrBit, STATEEN_CSRIND_BIT } from '../../golden-model/ctr/registers.ts';
import { type CtrCsrAccess, type CtrCycleInput, freezeSignals } from '../../golden-model/ctr/unit.ts';
import { emptyRecord, isTrap, Itype, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { ctrCsrDecode, type CtrCsrDecode } from '../../golden-model/ctr/csr-map.ts';

/** One clock of the stimulus: the model's input (a record is always given). */
export interface CtrStep extends CtrCycleInput {
  readonly record: RetirementRecord;
}

/** How often each kind of CSR operation is started (relative weights) and how often at all. */
export interface CtrOpKnobs {
  /** Probability that a CSR operation starts at a step when none is running. */
  readonly opRate: number;
  /** Probability of an entry sweep (every entry read) per step. */
  readonly sweepRate: number;
  /** Probability per step that the Smstateen bits change. */
  readonly stateenRate: number;
  readonly misprediction: number;
  /** Probability that an interrupt is a local counter overflow (LCOFI). */
  readonly lcofi: number;
  /** Probability per record that a short run of debug-mode records (priv 4) is inserted before it. */
  readonly debug: number;
}

export const DEFAULT_OP_KNOBS: CtrOpKnobs = { opRate: 0.03, sweepRate: 0.0002, stateenRate: 0.001, misprediction: 0.15, lcofi: 0.25, debug: 0.0005 };

/** A few records executing in debug mode (a debug ROM with a jump and a branch): never recorded, never counted. */
function debugRun(rng: Rng): RetirementRecord[] {
  const at = (iaddr: bigint, itype: number): RetirementRecord => ({ ...emptyRecord(), priv: 4, iaddr, iretire: 2, ilastsize: 1, itype });
  const run = [at(0x800n, Itype.otherInferableJump), at(0x820n, Itype.takenBranch), at(0x810n, Itype.none)];
  return run.slice(0, rng.int(1, 3));
}

/** The stimulus knobs of a CTR case (the hart's XLEN and privileges follow the configuration). */
export function ctrStimulusKnobs(c: CtrConfig, over: Partial<StimulusKnobs> = {}): StimulusKnobs {
  return {
    ...defaultKnobs(),
    xlen: c.xlen,
    privileges: c.sMode ? 'MSU' : c.uMode ? 'MU' : 'M',
    interrupt_rate: 0.003,
    halt_rate: 0.0005,
    reset_rate: 0.0002,
    ...over,
  };
}

const ALL = (1n << 64n) - 1n;
const bit = (n: number): bigint => 1n << BigInt(n);

/** The retirement records of a case: the random program executed for `count` instructions. */
export function ctrRecords(c: CtrConfig, seed: number, count: number, knobs: Partial<StimulusKnobs> = {}): RetirementRecord[] {
  return generateStimulus(ctrStimulusKnobs(c, knobs), seed, count).records;
}

/** A mode an access or record can be in. */
interface Mode {
  priv: number;
  v: boolean;
}

/**
 * The steps of a case: `records` (each once, in order, with now and then a short run of debug-mode
 * records before one, and the CSR operations riding on them), then idle steps carrying the final
 * dump. `opKnobs` tune the CSR program.
 */
export function ctrSteps(c: CtrConfig, records: readonly RetirementRecord[], seed: number, opKnobs: CtrOpKnobs = DEFAULT_OP_KNOBS): CtrStep[] {
  return ctrProgram(c, records, seed, opKnobs).steps;
}

/** `ctrSteps`, and the index of the first step of the final dump. */
export function ctrProgram(c: CtrConfig, records: readonly RetirementRecord[], seed: number, opKnobs: CtrOpKnobs = DEFAULT_OP_KNOBS): { steps: CtrStep[]; dumpFrom: number } {
  const rng = new Rng((seed ^ 0x2c7a_91e3) >>> 0);
  const xmask = (1n << BigInt(c.xlen)) - 1n;
  const decode = ctrCsrDecode(c);
  const v014 = c.specVersion === '0.1.4';
  const l = controlLayout(c);
  const ctrBit = stateenCtrBit(c);
  const byKind = (kind: CtrCsrDecode['kind'], which?: string): CtrCsrDecode[] => decode.filter((d) => d.kind === kind && (which === undefined || d.which === which || d.reg === which));
  const controls = byKind('ctl');
  const mControl = controls.find((d) => d.reg === 'RegM' && d.half !== 'HalfHi')!;
  const sControl = controls.find((d) => d.reg === 'RegS' && d.half !== 'HalfHi');
  const vsControl = controls.find((d) => d.reg === 'RegVs' && d.half !== 'HalfHi');
  const status = byKind('status');
  const depthCsr = byKind('depth')[0];
  const selects = byKind('sel');
  // M-mode reaches the entries through miselect (v0.1.4) or siselect (1.0).
  const mSelect = selects.find((d) => d.which === 'WhichM') ?? selects.find((d) => d.which === 'WhichS')!;
  const modes: Mode[] = [{ priv: 3, v: false }];
  if (c.sMode) modes.push({ priv: 1, v: false });
  if (c.uMode) modes.push({ priv: 0, v: false });
  if (c.hExt) modes.push({ priv: 1, v: true }, { priv: 0, v: true });
  const randomMode = (): Mode => (rng.chance(0.45) ? modes[0]! : rng.pick(modes));
  const M: Mode = { priv: 3, v: false };

  const access = (d: CtrCsrDecode | number, mode: Mode, write: boolean, wdata = 0n, wmask = ALL): CtrCsrAccess => ({
    address: typeof d === 'number' ? d : d.address,
    write,
    wdata: wdata & xmask,
    wmask: wmask & xmask,
    priv: mode.priv,
    v: mode.v,
  });
  /** A random value written the way csrrw, csrrs or csrrc would. */
  const writeForms = (d: CtrCsrDecode, mode: Mode, value: bigint): CtrCsrAccess => {
    const form = rng.int(0, 3);
    if (form === 0) return access(d, mode, true, value, ALL); // csrrw
    if (form === 1) return access(d, mode, true, ALL, value); // csrrs value
    if (form === 2) return access(d, mode, true, 0n, value); // csrrc value
    return access(d, mode, true, value, rng.u32() === 0 ? 0n : BigInt(rng.u32()) | (BigInt(rng.u32()) << 32n)); // masked
  };
  const random64 = (): bigint => BigInt(rng.u32()) | (BigInt(rng.u32()) << 32n);

  /** A control value that mostly records: enables on, a few filters, sometimes RASEMU and the freeze and external bits. */
  const controlValue = (vs: boolean): bigint => {
    let v = 0n;
    if (rng.chance(0.9)) v |= vs ? bit(l.s) | bit(l.u) : bit(l.m) | bit(l.s) | bit(l.u);
    else v |= BigInt(rng.int(0, 7)) & (bit(0) | bit(1) | bit(2));
    for (let t = 1; t < 16; t++) if (rng.chance(0.08)) v |= bit(32 + t);
    if (rng.chance(0.3)) v |= bit(36); // NTBREN
    if (rng.chance(0.2)) v |= bit(l.rasemu);
    if (rng.chance(0.5)) v |= bit(l.bpfrz);
    if (rng.chance(0.5)) v |= bit(l.lcofifrz);
    if (rng.chance(0.5)) v |= bit(l.mte) | bit(l.ste);
    if (l.eten !== undefined && rng.chance(0.5)) v |= bit(l.eten);
    if (v014 && !vs) v |= BigInt(rng.pick([0, 1, 3, 7, 15, rng.int(0, 15)])) << 16n;
    if (rng.chance(0.05)) v |= random64();
    if (v014 && rng.chance(0.9)) v &= ~bit(l.clr!); // CLR has its own operation
    return v;
  };

  // CSR operations waiting to ride on the next steps.
  const queue: CtrCsrAccess[] = [];
  const push = (...a: CtrCsrAccess[]): void => void queue.push(...a);
  const entryReads = (mode: Mode, sel: CtrCsrDecode, logical: number, regs = [1, 2, 3]): void => {
    push(access(sel, mode, true, BigInt(CTR_SELECT_FIRST + logical)));
    for (const n of regs) push(access(sel.address + (n <= 3 ? n : n + 1), mode, false));
  };
  const sweep = (): void => {
    for (let x = 0; x < c.depthMax; x++) entryReads(M, mSelect, x);
  };

  const startOp = (): void => {
    const kind = rng.weighted([15, 3, 8, 3, 2, 5, 8, 3]);
    const mode = randomMode();
    switch (kind) {
      case 0: {
        // WARL probe: read any CSR, sometimes a write of all ones / zeros and a read back.
        const d = rng.pick(decode);
        if (rng.chance(0.3) && d.kind !== 'ireg') push(access(d, mode, true, rng.chance(0.5) ? ALL : 0n), access(d, mode, false));
        else push(access(d, mode, false));
        return;
      }
      case 1: {
        // Not a CTR CSR, or a CTR CSR from a lower privilege (mode drawn at random anyway).
        const address = rng.chance(0.5) ? rng.int(0, 0xfff) : rng.pick([0x300, 0x180, 0x354, 0x154, 0x254, 0x384, 0x14d, 0x15e, 0x35f]);
        push(access(address, mode, rng.chance(0.5), random64()));
        return;
      }
      case 2: {
        // A control write from a privileged mode (most of the time), as csrrw/csrrs/csrrc.
        const targets = [mControl, sControl, vsControl].filter((d): d is CtrCsrDecode => d !== undefined);
        const d = rng.pick(targets);
        const m = rng.chance(0.8) ? (d.reg === 'RegM' || !c.sMode ? M : rng.pick(modes.filter((x) => x.priv >= 1))) : mode;
        const value = controlValue(d.reg === 'RegVs' || (d.reg === 'RegS' && m.v));
        push(rng.chance(0.7) ? access(d, m, true, value) : writeForms(d, m, value));
        const hi = controls.find((h) => h.reg === d.reg && h.half === 'HalfHi');
        if (hi && rng.chance(0.6)) push(access(hi, m, true, value >> 32n));
        return;
      }
      case 3: {
        // A depth change.
        if (v014) {
          const d = rng.pick([mControl, sControl].filter((x): x is CtrCsrDecode => x !== undefined));
          push(access(d, d.reg === 'RegM' ? M : rng.pick(modes), true, BigInt(rng.int(0, 15)) << 16n, 0xfn << 16n));
        } else {
          push(access(depthCsr!, rng.chance(0.7) ? M : mode, true, BigInt(rng.int(0, 7)), rng.chance(0.8) ? ALL : random64()));
        }
        return;
      }
      case 4: {
        // CLR (v0.1.4) or SCTRCLR (1.0).
        if (v014) {
          const d = rng.pick([mControl, sControl, vsControl].filter((x): x is CtrCsrDecode => x !== undefined));
          push(access(d, d.reg === 'RegM' ? M : mode, true, bit(l.clr!), bit(l.clr!)));
        } else {
          push({ address: 0, write: false, wdata: 0n, wmask: 0n, priv: mode.priv, v: mode.v, sctrclr: true });
        }
        return;
      }
      case 5: {
        // Status: unfreeze keeping WRPTR (csrrc of FROZEN), or a random value.
        const d = rng.pick(status);
        const m = rng.chance(0.7) ? M : mode;
        const frozen = v014 ? bit(15) : bit(31);
        push(rng.chance(0.7) ? access(d, m, true, 0n, frozen) : access(d, m, true, random64() & 0xffff_c0ffn, rng.chance(0.5) ? ALL : random64()));
        return;
      }
      case 6: {
        // A select and reads of the entry registers through the window (in range, above the depth, outside).
        const sel = rng.pick(selects);
        const r = rng.int(0, 9);
        const logical = r < 7 ? rng.int(0, 15) : r < 9 ? rng.int(0, 255) : -1;
        if (logical < 0) {
          push(access(sel, mode, true, random64()), access(sel.address + rng.pick([1, 2, 3, 5]), mode, false));
        } else {
          entryReads(rng.chance(0.6) ? M : mode, sel, logical, rng.chance(0.2) ? [1, 2, 3, 4, 5, 6] : [1, 2, 3]);
        }
        return;
      }
      case 7: {
        // A write of an entry register through the window, then a read back.
        const sel = rng.pick(selects);
        const m = rng.chance(0.7) ? M : mode;
        const n = rng.int(1, 3);
        push(access(sel, m, true, BigInt(CTR_SELECT_FIRST + rng.int(0, 31))));
        push(rng.chance(0.5) ? access(sel.address + n, m, true, random64()) : writeForms({ ...sel, address: sel.address + n }, m, random64()));
        push(access(sel.address + n, m, false));
        return;
      }
    }
  };

  // Start: M enables recording everywhere (and sets the depth); with H, vsctrcontrol too.
  const start = (): void => {
    push(access(mControl, M, true, controlValue(false) | bit(l.m) | bit(l.s) | bit(l.u)));
    if (vsControl) push(access(vsControl, M, true, controlValue(true) | bit(l.s) | bit(l.u)));
    if (depthCsr) push(access(depthCsr, M, true, BigInt(rng.int(0, 4))));
  };

  const steps: CtrStep[] = [];
  let mstateen0 = ALL;
  let hstateen0 = ALL;
  let stateenLeft = 0;
  let guest = false;
  start();
  // A long stall (knob long_stall_rate): a hart that retires nothing makes no CSR access and
  // enters no debug mode, so neither starts in a stall's second and later cycles. Ordinary streams
  // never have two idle records in a row, so their steps stay what they were.
  const all: RetirementRecord[] = [];
  const inStall: boolean[] = [];
  let prevIdle = false;
  for (const record of records) {
    const idle = record.iretire === 0 && !isTrap(record) && !record.halted && !record.reset;
    const stalled = idle && prevIdle;
    prevIdle = idle;
    if (!stalled && rng.chance(opKnobs.debug)) {
      for (const d of debugRun(rng)) {
        all.push(d);
        inStall.push(false);
      }
    }
    all.push(record);
    inStall.push(stalled);
  }
  for (let i = 0; i < all.length; i++) {
    const record = all[i]!;
    const stalled = inStall[i]!;
    if (rng.chance(opKnobs.sweepRate)) sweep();
    if (queue.length === 0 && !stalled && rng.chance(opKnobs.opRate)) startOp();
    if (stateenLeft > 0 && --stateenLeft === 0) {
      mstateen0 = ALL;
      hstateen0 = ALL;
    } else if (stateenLeft === 0 && c.smstateen && rng.chance(opKnobs.stateenRate)) {
      // Clear one of the bits for a while.
      const which = rng.int(0, 3);
      if (which === 0) mstateen0 = ALL & ~bit(ctrBit);
      else if (which === 1) mstateen0 = ALL & ~bit(STATEEN_CSRIND_BIT);
      else if (which === 2) hstateen0 = ALL & ~bit(ctrBit);
      else hstateen0 = ALL & ~bit(STATEEN_CSRIND_BIT);
      stateenLeft = rng.int(50, 400);
    }
    // The V bit: a guest runs S/U code between traps to M.
    if (c.hExt && record.priv === 3 && rng.chance(0.3)) guest = !guest;
    const v = c.hExt && guest && (record.priv === 0 || record.priv === 1);
    const transfer = record.itype !== Itype.none;
    const { breakpointTrap } = freezeSignals(record);
    steps.push({
      record,
      v,
      misp: transfer && rng.chance(opKnobs.misprediction),
      lcofiTrap: record.itype === Itype.interrupt && rng.chance(opKnobs.lcofi),
      breakpointTrap,
      mstateen0,
      hstateen0,
      ...(queue.length > 0 ? { csr: queue.shift()! } : {}),
    });
  }
  // The final dump: every entry and every CSR, read from M with the state-enable bits set.
  const dumpFrom = steps.length;
  const last = records[records.length - 1];
  const lastV = steps[steps.length - 1]?.v ?? false;
  const idle: RetirementRecord = { ...emptyRecord(), priv: last?.priv ?? 3, iaddr: 0n, iretire: 0 };
  queue.length = 0;
  sweep();
  for (const d of decode) if (d.kind !== 'ireg') push(access(d, M, false));
  // Then at the largest depth (entries beyond the old depth kept or zeroed, as configured).
  if (c.depthMax > c.depthMin) {
    push(depthCsr ? access(depthCsr, M, true, 4n) : access(mControl, M, true, 0xfn << 16n, 0xfn << 16n));
    sweep();
  }
  for (const csr of queue) steps.push({ record: idle, v: lastV, mstateen0: ALL, hstateen0: ALL, csr });
  return { steps, dumpFrom };
}
