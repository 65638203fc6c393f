/**
 * The machine-mode firmware layer of the PMU block: the SBI PMU extension (and the base, timer,
 * IPI and RFENCE calls that count firmware events) implemented on top of the counter block with
 * M-mode CSR accesses only, as OpenSBI 1.9 does (`lib/sbi/sbi_pmu.c`, `sbi_ecall_pmu.c`,
 * `sbi_ecall_base.c`, `sbi_hart.c` mstatus_init, `lib/utils/fdt/fdt_pmu.c`). The code is written
 * from the behaviour, not translated. `sbiBehaviour: 'spec'` gives the spec-literal variant;
 * docs/pmu-sbi.md lists every difference with the OpenSBI function and the spec text.
 *
 * Every CSR access goes through the bus, one clock of the counter block each, in the order the
 * firmware issues them; csrs/csrc are writes with a mask (access.ts). Non-PMU CSRs (mip, mie,
 * mideleg) are not accesses of the block: mip.LCOFIP is taken as clear.
 */
import { type PmuConfig } from '../config.ts';
import type { PmuCsrAccess, PmuCsrResponse } from '../access.ts';
import {
  CACHE_ID_MAX,
  CACHE_OP_MAX,
  CACHE_RESULT_MAX,
  CfgFlag,
  Eid,
  EventType,
  FW_MAX,
  FW_PLATFORM,
  FW_RESERVED_MAX,
  fwEventCode,
  HW_CPU_CYCLES,
  HW_GENERAL_MAX,
  HW_INSTRUCTIONS,
  MHPMEVENT_MINH,
  MHPMEVENT_OF,
  MHPMEVENT_SINH,
  MHPMEVENT_SSCOF_MASK,
  MHPMEVENT_UINH,
  MHPMEVENT_VSINH,
  MHPMEVENT_VUINH,
  OPENSBI_1_9_IDENTITY,
  PmuFid,
  RAW_IDX,
  RAW_V2_IDX,
  SbiError,
  type SbiIdentity,
  START_INIT_SNAPSHOT,
  START_SET_INIT_VALUE,
  STOP_RESET,
  STOP_TAKE_SNAPSHOT,
} from './constants.ts';
import { SbiMemory } from './memory.ts';

/** The counter block as the firmware sees it: one CSR access per call, one clock each. */
export interface PmuBus {
  access(a: PmuCsrAccess): PmuCsrResponse;
}

export interface SbiRet {
  /** Signed error (SbiError). */
  error: bigint;
  /** XLEN bits, unsigned. */
  value: bigint;
}

export interface SbiFirmwareOptions {
  /** The supervisor memory shared-memory calls use (default: an empty one, every address invalid). */
  memory?: SbiMemory;
  identity?: SbiIdentity;
}

/** One entry of the firmware's event map (fdt_pmu.c's view of the device-tree properties). */
interface HwEventMapEntry {
  start: number;
  end: number;
  counters: number;
  select: bigint;
  selectMask: bigint;
}

const INVALID_EVENT = 0xffffffff;
const FIXED_CTR_MASK = 0x7;
const MAX_HW_EVENTS = 64;

const CSR_MCYCLE = 0xb00;
const CSR_MCYCLEH = 0xb80;
const CSR_MHPMEVENT3 = 0x323;
const CSR_MHPMEVENT3H = 0x723;
const CSR_MCOUNTINHIBIT = 0x320;
const CSR_MCOUNTEREN = 0x306;
const CSR_SCOUNTEREN = 0x106;
const CSR_MCYCLECFG = 0x321;
const CSR_MINSTRETCFG = 0x322;

const typeOf = (idx: number): number => (idx >>> 16) & 0xf;
const codeOf = (idx: number): number => idx & 0xffff;

/** sbi_fls: index of the highest set bit, 0 for 0. */
function fls(x: bigint): number {
  let n = 0;
  for (let i = 0; x >> BigInt(i + 1) !== 0n; i++) n = i + 1;
  return x === 0n ? 0 : n;
}

/** sbi_ffs: index of the lowest set bit; XLEN-1 for 0 (what the OpenSBI routine returns). */
function ffs(x: bigint, xlen: number): number {
  if (x === 0n) return xlen - 1;
  let i = 0;
  while (((x >> BigInt(i)) & 1n) === 0n) i++;
  return i;
}

function setBits(x: bigint, xlen: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < xlen; i++) if ((x >> BigInt(i)) & 1n) out.push(i);
  return out;
}

export class SbiPmuFirmware {
  readonly config: PmuConfig;
  readonly memory: SbiMemory;
  readonly identity: SbiIdentity;
  private readonly bus: PmuBus;
  private readonly xlen: number;
  private readonly xmask: bigint;
  private readonly spec: boolean;
  /** num_hw_ctrs: the highest implemented hpm counter + 1 (3 without any). */
  readonly numHwCounters: number;
  readonly totalCounters: number;
  private readonly eventMap: HwEventMapEntry[] = [];
  private activeEvents: number[] = [];
  private fwStarted = 0n;
  private fwData: bigint[] = [];
  private snapshot: bigint | undefined;

  constructor(config: PmuConfig, bus: PmuBus, options: SbiFirmwareOptions = {}) {
    this.config = config;
    this.bus = bus;
    this.memory = options.memory ?? new SbiMemory();
    this.identity = options.identity ?? OPENSBI_1_9_IDENTITY;
    this.xlen = config.xlen;
    this.xmask = (1n << BigInt(config.xlen)) - 1n;
    this.spec = config.sbiBehaviour === 'spec';
    const hpm = config.counterMask & ~7;
    this.numHwCounters = hpm === 0 ? 3 : 32 - Math.clz32(hpm);
    this.totalCounters = this.numHwCounters + config.firmwareCounters;
    this.buildEventMap();
    this.resetState();
  }

  // ---------------------------------------------------------------- platform (fdt_pmu.c)

  /** The device-tree maps as OpenSBI 1.9 registers them (pmu_add_hw_event_map): rejected entries are dropped. */
  private buildEventMap(): void {
    const avail = (this.config.counterMask | FIXED_CTR_MASK) >>> 0;
    const add = (start: number, end: number, cmap: number, select: bigint, selectMask: bigint): void => {
      // Counters 0..2 only for the cycles and instructions events.
      if (start > HW_INSTRUCTIONS && (cmap & FIXED_CTR_MASK) !== 0) return;
      if (this.eventMap.length >= MAX_HW_EVENTS - 1) return;
      const raw = start === RAW_IDX || start === RAW_V2_IDX;
      for (const e of this.eventMap) {
        const overlap = raw ? e.select === select && e.selectMask === selectMask : !((e.end < start && e.end < end) || (e.start > start && e.start > end));
        if (overlap) return;
      }
      this.eventMap.push({ start, end, counters: (cmap & avail) >>> 0, select, selectMask });
    };
    for (const r of this.config.eventToCounters) {
      if (r.first > r.last || r.first >= RAW_IDX || r.last >= RAW_IDX) continue;
      add(r.first, r.last, r.counters, 0n, 0n);
    }
    for (const r of this.config.rawEventToCounters) add(RAW_IDX, RAW_V2_IDX, r.counters, r.selector, r.mask);
  }

  private resetState(): void {
    this.activeEvents = new Array<number>(this.totalCounters).fill(INVALID_EVENT);
    this.activeEvents[0] = HW_CPU_CYCLES;
    this.activeEvents[2] = HW_INSTRUCTIONS;
    this.fwData = new Array<bigint>(this.config.firmwareCounters).fill(0n);
    this.fwStarted = 0n;
    this.snapshot = undefined;
  }

  /** The event a counter is bound to (undefined: none), for tests and dumps. */
  boundEvent(cidx: number): number | undefined {
    const e = this.activeEvents[cidx];
    return e === undefined || e === INVALID_EVENT ? undefined : e;
  }

  // ---------------------------------------------------------------- CSR accesses

  private csrRead(address: number): bigint {
    return this.bus.access({ address, write: false, wdata: 0n, priv: 3 }).rdata;
  }

  private csrWrite(address: number, value: bigint): void {
    this.bus.access({ address, write: true, wdata: value & this.xmask, priv: 3 });
  }

  /** Writes a 64-bit value to a CSR pair as the firmware does (RV32: low half, then high half). */
  private csrWrite64(lo: number, hi: number | undefined, value: bigint): void {
    if (this.xlen === 64) this.csrWrite(lo, value);
    else {
      this.csrWrite(lo, value & 0xffffffffn);
      if (hi !== undefined) this.csrWrite(hi, value >> 32n);
    }
  }

  // ---------------------------------------------------------------- boot

  /**
   * What OpenSBI 1.9 does to the counter block before entering S-mode (sbi_hart.c mstatus_init,
   * then sbi_pmu_init, which touches no CSR): scounteren = 7 (CY, TM, IR), mcounteren = all ones,
   * mcountinhibit = 0xFFFFFFF8 (every programmable counter stopped, mcycle and minstret counting),
   * then each implemented mhpmevent = OF | MINH (RV32: low word 0, and with Sscofpmf the high word).
   * The per-hart state: counter 0 bound to event 1 (cycles), counter 2 to event 2 (instructions).
   */
  boot(): void {
    if (this.config.sMode) this.csrWrite(CSR_SCOUNTEREN, 7n);
    if (this.config.uMode) this.csrWrite(CSR_MCOUNTEREN, this.xmask);
    this.csrWrite(CSR_MCOUNTINHIBIT, 0xfffffff8n);
    for (let n = 3; n < 32; n++) {
      if (!((this.config.counterMask >>> n) & 1)) continue;
      const init = MHPMEVENT_OF | MHPMEVENT_MINH;
      if (this.xlen === 64) this.csrWrite(CSR_MHPMEVENT3 + n - 3, init);
      else {
        this.csrWrite(CSR_MHPMEVENT3 + n - 3, init & 0xffffffffn);
        if (this.config.sscofpmf) this.csrWrite(CSR_MHPMEVENT3H + n - 3, init >> 32n);
      }
    }
    this.resetState();
  }

  // ---------------------------------------------------------------- ecall dispatch

  ecall(eid: bigint | number, fid: bigint | number, args: readonly bigint[]): SbiRet {
    const a = [0, 1, 2, 3, 4, 5].map((i) => (args[i] ?? 0n) & this.xmask);
    const e = BigInt(eid) & this.xmask;
    const f = Number(BigInt(fid) & 0xffffffffn);
    const ret = (error: bigint, value: bigint = 0n): SbiRet => ({ error, value: value & this.xmask });
    if (e === Eid.pmu) return this.pmuCall(f, a);
    if (e === Eid.base) {
      const id = this.identity;
      const v = [id.specVersion, id.implId, id.implVersion, undefined, id.mvendorid, id.marchid, id.mimpid][f];
      if (f === 3) return ret(SbiError.SUCCESS, this.probe(a[0]!));
      return v === undefined ? ret(SbiError.NOT_SUPPORTED) : ret(SbiError.SUCCESS, v);
    }
    if (e === Eid.time) {
      if (f !== 0) return ret(SbiError.NOT_SUPPORTED);
      this.fwEvent('SET_TIMER');
      return ret(SbiError.SUCCESS);
    }
    if (e === Eid.ipi) {
      if (f !== 0) return ret(SbiError.NOT_SUPPORTED);
      for (let i = 0; i < this.targets(a[0]!, a[1]!); i++) this.fwEvent('IPI_SENT');
      return ret(SbiError.SUCCESS);
    }
    if (e === Eid.rfence) {
      const sent = ['FENCE_I_SENT', 'SFENCE_VMA_SENT', 'SFENCE_VMA_ASID_SENT', 'HFENCE_GVMA_VMID_SENT', 'HFENCE_GVMA_SENT', 'HFENCE_VVMA_ASID_SENT', 'HFENCE_VVMA_SENT'][f];
      if (sent === undefined) return ret(SbiError.NOT_SUPPORTED);
      // sbi_ecall_rfence_handler: the hypervisor fences need the H extension.
      if (f >= 3 && !this.config.hExt) return ret(SbiError.NOT_SUPPORTED);
      for (let i = 0; i < this.targets(a[0]!, a[1]!); i++) this.fwEvent(sent);
      return ret(SbiError.SUCCESS);
    }
    return ret(SbiError.NOT_SUPPORTED);
  }

  /** The harts a hart_mask/hart_mask_base pair names (base all ones: every hart; the model has one other hart per mask bit). */
  private targets(mask: bigint, base: bigint): number {
    if (base === this.xmask) return 1;
    return setBits(mask, this.xlen).length;
  }

  /** probe_extension: 1 for the extensions this model implements, 0 otherwise. */
  private probe(eid: bigint): bigint {
    return (Object.values(Eid) as bigint[]).includes(eid) ? 1n : 0n;
  }

  private pmuCall(fid: number, a: bigint[]): SbiRet {
    const r = (error: bigint, value: bigint = 0n): SbiRet => ({ error, value: value & this.xmask });
    const join = (lo: bigint, hi: bigint): bigint => (this.xlen === 32 ? (hi << 32n) | lo : lo);
    switch (fid) {
      case PmuFid.num_counters:
        return r(SbiError.SUCCESS, BigInt(this.totalCounters));
      case PmuFid.counter_get_info:
        return this.getInfo(a[0]!);
      case PmuFid.counter_config_matching:
        return this.configMatching(a[0]!, a[1]!, a[2]!, a[3]!, join(a[4]!, a[5]!));
      case PmuFid.counter_start:
        return r(this.start(a[0]!, a[1]!, a[2]!, join(a[3]!, a[4]!)));
      case PmuFid.counter_stop:
        return r(this.stop(a[0]!, a[1]!, a[2]!));
      case PmuFid.counter_fw_read: {
        const v = this.fwRead(a[0]!);
        return typeof v === 'bigint' ? r(SbiError.SUCCESS, v) : r(v.error);
      }
      case PmuFid.counter_fw_read_hi: {
        // sbi_ecall_pmu.c: on RV64 the answer is 0 and SUCCESS without looking at the counter.
        if (this.xlen === 64 && !this.spec) return r(SbiError.SUCCESS, 0n);
        const v = this.fwRead(a[0]!);
        return typeof v === 'bigint' ? r(SbiError.SUCCESS, this.xlen === 64 ? 0n : v >> 32n) : r(v.error);
      }
      case PmuFid.snapshot_set_shmem:
        // sbi_ecall_pmu.c: "OpenSBI doesn't support snapshot yet".
        if (!this.spec) return r(SbiError.NOT_SUPPORTED);
        return r(this.setShmem(a[0]!, a[1]!, a[2]!));
      case PmuFid.event_get_info:
        return r(this.eventGetInfo(a[0]!, a[1]!, a[2]!, a[3]!));
      default:
        return r(SbiError.NOT_SUPPORTED);
    }
  }

  // ---------------------------------------------------------------- counter_get_info

  private getInfo(cidxArg: bigint): SbiRet {
    const bad = { error: SbiError.INVALID_PARAM, value: 0n };
    if (cidxArg >= BigInt(this.totalCounters)) return bad;
    const cidx = Number(cidxArg);
    if (cidx < this.numHwCounters) {
      const present = cidx === 0 || cidx === 2 || (cidx >= 3 && ((this.config.counterMask >>> cidx) & 1) === 1);
      if (!present) return bad;
      const width = cidx === 0 || cidx === 2 ? 63 : this.config.counterWidth - 1;
      return { error: SbiError.SUCCESS, value: BigInt(0xc00 + cidx) | (BigInt(width) << 12n) };
    }
    return { error: SbiError.SUCCESS, value: (1n << BigInt(this.xlen - 1)) | (63n << 12n) };
  }

  // ---------------------------------------------------------------- event validation

  /** pmu_event_validate: the event type, or undefined for an invalid event. */
  private validateEvent(eventIdx: number): number | undefined {
    const type = typeOf(eventIdx);
    const code = codeOf(eventIdx);
    switch (type) {
      case EventType.hw:
        return code < HW_GENERAL_MAX ? type : undefined;
      case EventType.fw:
        if ((code >= FW_MAX && code <= FW_RESERVED_MAX) || code > FW_PLATFORM) return undefined;
        // No platform PMU device: SBI_PMU_FW_PLATFORM and implementation events are invalid.
        return code < FW_MAX ? type : undefined;
      case EventType.cache: {
        const result = code & 1;
        const op = (code >> 1) & 3;
        const id = code >> 3;
        return result < CACHE_RESULT_MAX && op < CACHE_OP_MAX && id < CACHE_ID_MAX ? type : undefined;
      }
      case EventType.raw:
      case EventType.rawV2:
        return code === 0 ? type : undefined;
      default:
        return undefined;
    }
  }

  /** pmu_ctr_validate: the type of the event bound to counter cidx, or undefined. */
  private counterType(cidx: number): number | undefined {
    if (cidx < 0 || cidx >= this.totalCounters) return undefined;
    const e = this.activeEvents[cidx]!;
    if (e === INVALID_EVENT) return undefined;
    return typeOf(e);
  }

  // ---------------------------------------------------------------- counter_config_matching

  private configMatching(cbase: bigint, cmask: bigint, flags: bigint, eventIdxArg: bigint, data: bigint): SbiRet {
    const fail = (error: bigint): SbiRet => ({ error, value: 0n });
    if (((cbase + BigInt(fls(cmask))) & this.xmask) >= BigInt(this.totalCounters)) return fail(SbiError.INVALID_PARAM);
    if (this.spec && (cmask === 0n || flags >> 8n !== 0n)) return fail(SbiError.INVALID_PARAM);
    const eventIdx = Number(eventIdxArg & 0xffffffffn);
    const type = this.validateEvent(eventIdx);
    if (type === undefined) return fail(SbiError.INVALID_PARAM);
    const base = Number(cbase);
    let ctr: number;
    if (flags & CfgFlag.SKIP_MATCH) {
      const first = base + ffs(cmask, this.xlen);
      // Beyond the counter table OpenSBI 1.9 reads past its array; the model calls it unconfigured.
      if (first >= this.totalCounters || this.activeEvents[first] === INVALID_EVENT) return fail(SbiError.INVALID_PARAM);
      ctr = first;
    } else {
      const found = type === EventType.fw ? this.findFw(base, cmask) : this.findHw(base, cmask, flags, eventIdx, data);
      if (found < 0) return fail(SbiError.NOT_SUPPORTED);
      ctr = found;
      this.activeEvents[ctr] = eventIdx;
    }
    // After the match. OpenSBI 1.9 acts on CLEAR_VALUE and AUTO_START only for general hardware
    // events (type 0) and firmware events; the spec variant for every hardware type.
    const hw = this.spec ? type !== EventType.fw : type === EventType.hw;
    if (hw) {
      if (flags & CfgFlag.CLEAR_VALUE) this.writeCounter(ctr, 0n);
      if (flags & CfgFlag.AUTO_START) this.startHw(ctr, 0n, false);
    } else if (type === EventType.fw) {
      const slot = ctr - this.numHwCounters;
      if (slot >= 0 && slot < this.fwData.length) {
        if (flags & CfgFlag.CLEAR_VALUE) this.fwData[slot] = 0n;
        if (flags & CfgFlag.AUTO_START) this.fwStarted |= 1n << BigInt(slot);
      }
    }
    return { error: SbiError.SUCCESS, value: BigInt(ctr) };
  }

  /**
   * pmu_ctr_find_fw: the first counter of the set that is a firmware counter and is free.
   * OpenSBI 1.9 tests (and returns) the mask bit index i instead of cbase + i, so the answer is
   * right only for cbase = 0 (what Linux passes); the spec variant uses cbase + i.
   */
  private findFw(cbase: number, cmask: bigint): number {
    for (const i of setBits(cmask, this.xlen)) {
      const cidx = i + cbase;
      if (cidx < this.numHwCounters || cidx >= this.totalCounters) continue;
      const idx = this.spec ? cidx : i;
      if (this.activeEvents[idx] !== INVALID_EVENT) continue;
      return idx;
    }
    return -1;
  }

  private inhibitBits(flags: bigint, withMinh: boolean): bigint {
    let v = 0n;
    if (flags & CfgFlag.SET_VUINH) v |= MHPMEVENT_VUINH;
    if (flags & CfgFlag.SET_VSINH) v |= MHPMEVENT_VSINH;
    if (flags & CfgFlag.SET_UINH) v |= MHPMEVENT_UINH;
    if (flags & CfgFlag.SET_SINH) v |= MHPMEVENT_SINH;
    if (withMinh && flags & CfgFlag.SET_MINH) v |= MHPMEVENT_MINH;
    return v;
  }

  /**
   * pmu_fixed_ctr_update_inhibit_bits: with Smcntrpmf, mcyclecfg/minstretcfg = MINH | the
   * SET_*INH flags (the spec variant: exactly the flags); without it nothing is written.
   */
  private fixedCounter(ctr: number, flags: bigint): number {
    if (!this.config.smcntrpmf) return ctr;
    const cfg = (this.spec ? 0n : MHPMEVENT_MINH) | this.inhibitBits(flags, this.spec);
    const csr = ctr === 0 ? CSR_MCYCLECFG : CSR_MINSTRETCFG;
    this.csrWrite64(csr, csr + 0x400, cfg);
    return ctr;
  }

  /** The value the platform programs for an event (generic platform's pmu_xlate_to_mhpmevent). */
  private selectorFor(eventIdx: number, data: bigint): bigint {
    if (eventIdx === RAW_IDX || eventIdx === RAW_V2_IDX) return data;
    const s = this.config.eventToSelector.find((e) => e.event === eventIdx)?.selector ?? 0n;
    return s !== 0n ? s : BigInt(eventIdx);
  }

  private entryMatches(e: HwEventMapEntry, eventIdx: number, data: bigint): boolean {
    if (!(e.start <= eventIdx && eventIdx <= e.end)) return false;
    if (eventIdx === RAW_IDX || eventIdx === RAW_V2_IDX) return e.select === (data & e.selectMask);
    return true;
  }

  /**
   * pmu_ctr_find_hw. OpenSBI 1.9:
   * - cbase at or past the hardware counters: no counter (NOT_SUPPORTED).
   * - cycles (event 1) and instructions (event 2) WITHOUT Sscofpmf: counter 0 / 2, whatever the
   *   set and whether it is in use, without a CSR read (only mcyclecfg/minstretcfg with Smcntrpmf).
   * - Otherwise (every event, and cycles/instructions WITH Sscofpmf): mcountinhibit is read; only
   *   the FIRST event-map entry covering the event is searched (the loop variable cbase is left at
   *   32 after it); of its programmable counters within (cmask << cbase) that are unbound and
   *   inhibited the LAST (highest) wins. None: cycles/instructions fall back to counter 0 / 2,
   *   other events fail. The counter's mhpmevent is then programmed (pmu_update_hw_mhpmevent).
   * The spec variant: counters 0 / 2 only when in the set; every covering entry is searched and the
   * lowest free counter wins; a fixed counter needs to be in the set.
   */
  private findHw(cbase: number, cmask: bigint, flags: bigint, eventIdx: number, data: bigint): number {
    if (cbase >= this.numHwCounters) return -1;
    const fixed = eventIdx === HW_CPU_CYCLES ? 0 : eventIdx === HW_INSTRUCTIONS ? 2 : -1;
    const set = (cmask << BigInt(cbase)) & 0xffffffffn;
    const inSet = (n: number): boolean => ((set >> BigInt(n)) & 1n) === 1n;
    if (this.spec) {
      if (fixed >= 0 && inSet(fixed) && this.activeEvents[fixed] === eventIdx) return this.fixedCounter(fixed, flags);
    } else if (fixed >= 0 && !this.config.sscofpmf) return this.fixedCounter(fixed, flags);

    const inhibit = this.csrRead(CSR_MCOUNTINHIBIT);
    let ctr = -1;
    for (const e of this.eventMap) {
      if (!this.entryMatches(e, eventIdx, data)) continue;
      const candidates = BigInt(e.counters) & set & ~BigInt(FIXED_CTR_MASK);
      for (let n = 3; n < 32; n++) {
        if (!((candidates >> BigInt(n)) & 1n)) continue;
        if (this.activeEvents[n] !== INVALID_EVENT) continue;
        if (!((inhibit >> BigInt(n)) & 1n)) continue;
        ctr = n;
        if (this.spec) break;
      }
      if (!this.spec || ctr >= 0) break;
    }
    if (ctr < 0) return fixed >= 0 && (!this.spec || inSet(fixed)) ? this.fixedCounter(fixed, flags) : -1;

    let value = this.selectorFor(eventIdx, data);
    if (value === 0n) return -1;
    if (this.config.sscofpmf) {
      value = (value & ~MHPMEVENT_SSCOF_MASK) | MHPMEVENT_OF | (this.spec ? 0n : MHPMEVENT_MINH);
      value |= this.inhibitBits(flags, this.spec);
    }
    const lo = CSR_MHPMEVENT3 + ctr - 3;
    this.csrWrite64(lo, this.config.sscofpmf ? CSR_MHPMEVENT3H + ctr - 3 : undefined, value);
    return ctr;
  }

  // ---------------------------------------------------------------- start / stop

  private writeCounter(cidx: number, value: bigint): void {
    if (this.xlen === 64) this.csrWrite(CSR_MCYCLE + cidx, value);
    else {
      // pmu_ctr_write_hw: low half cleared first so no carry reaches the high half in between.
      this.csrWrite(CSR_MCYCLE + cidx, 0n);
      this.csrWrite(CSR_MCYCLE + cidx, value & 0xffffffffn);
      this.csrWrite(CSR_MCYCLEH + cidx, value >> 32n);
    }
  }

  private readCounter(cidx: number): bigint {
    if (this.xlen === 64) return this.csrRead(CSR_MCYCLE + cidx);
    const lo = this.csrRead(CSR_MCYCLE + cidx);
    return (this.csrRead(CSR_MCYCLEH + cidx) << 32n) | lo;
  }

  /** pmu_ctr_start_hw. */
  private startHw(cidx: number, ival: bigint, update: boolean): bigint {
    if (cidx >= this.numHwCounters || cidx === 1) return SbiError.INVALID_PARAM;
    const inhibit = this.csrRead(CSR_MCOUNTINHIBIT);
    if (!((inhibit >> BigInt(cidx)) & 1n)) return SbiError.ALREADY_STARTED;
    if (this.config.sscofpmf && cidx >= 3) {
      // pmu_ctr_enable_irq_hw: clear OF (mip.LCOFIP taken as clear).
      if (this.xlen === 64) {
        const ev = this.csrRead(CSR_MHPMEVENT3 + cidx - 3);
        this.csrWrite(CSR_MHPMEVENT3 + cidx - 3, ev & ~MHPMEVENT_OF);
      } else {
        const ev = this.csrRead(CSR_MHPMEVENT3H + cidx - 3);
        this.csrWrite(CSR_MHPMEVENT3H + cidx - 3, ev & ~(MHPMEVENT_OF >> 32n));
      }
    }
    if (update) this.writeCounter(cidx, ival);
    this.csrWrite(CSR_MCOUNTINHIBIT, inhibit & ~(1n << BigInt(cidx)));
    return SbiError.SUCCESS;
  }

  /** pmu_ctr_stop_hw. */
  private stopHw(cidx: number): bigint {
    const inhibit = this.csrRead(CSR_MCOUNTINHIBIT);
    if (cidx >= this.numHwCounters || cidx === 1) return SbiError.INVALID_PARAM;
    if ((inhibit >> BigInt(cidx)) & 1n) return SbiError.ALREADY_STOPPED;
    this.csrWrite(CSR_MCOUNTINHIBIT, inhibit | (1n << BigInt(cidx)));
    return SbiError.SUCCESS;
  }

  private fwCodeUsable(code: number): boolean {
    return !((code >= FW_MAX && code <= FW_RESERVED_MAX) || code > FW_PLATFORM || code === FW_PLATFORM);
  }

  /** The counters of a (cbase, cmask) set, after OpenSBI 1.9's range check; undefined: INVALID_PARAM. */
  private counterSet(cbase: bigint, cmask: bigint): number[] | undefined {
    if (((cbase + BigInt(fls(cmask))) & this.xmask) >= BigInt(this.totalCounters)) return undefined;
    return setBits(cmask, this.xlen).map((i) => i + Number(cbase));
  }

  private start(cbase: bigint, cmask: bigint, flags: bigint, ival: bigint): bigint {
    const set = this.counterSet(cbase, cmask);
    if (set === undefined) return SbiError.INVALID_PARAM;
    const update = (flags & START_SET_INIT_VALUE) !== 0n;
    const fromSnapshot = (flags & START_INIT_SNAPSHOT) !== 0n;
    if (!this.spec) {
      if (fromSnapshot) return SbiError.NO_SHMEM;
      // sbi_pmu_ctr_start: unusable counters are skipped; the answer is the last one acted on.
      let ret: bigint = SbiError.INVALID_PARAM;
      for (const cidx of set) {
        const type = this.counterType(cidx);
        if (type === undefined) continue;
        ret = type === EventType.fw ? this.startFw(cidx, ival, update) : this.startHw(cidx, ival, update);
      }
      return ret;
    }
    if (flags >> 2n !== 0n || set.length === 0 || (update && fromSnapshot)) return SbiError.INVALID_PARAM;
    if (fromSnapshot && this.snapshot === undefined) return SbiError.NO_SHMEM;
    if (set.some((c) => this.counterType(c) === undefined)) return SbiError.INVALID_PARAM;
    const inhibit = this.csrRead(CSR_MCOUNTINHIBIT);
    for (const c of set) {
      const running = c < this.numHwCounters ? !((inhibit >> BigInt(c)) & 1n) : ((this.fwStarted >> BigInt(c - this.numHwCounters)) & 1n) === 1n;
      if (running) return SbiError.ALREADY_STARTED;
    }
    for (const c of set) {
      const value = fromSnapshot ? this.memory.read(this.snapshot! + 8n + 8n * BigInt(c - Number(cbase)), 8) : ival;
      const r = this.counterType(c) === EventType.fw ? this.startFw(c, value, update || fromSnapshot) : this.startHw(c, value, update || fromSnapshot);
      if (r !== SbiError.SUCCESS) return r;
    }
    return SbiError.SUCCESS;
  }

  private startFw(cidx: number, ival: bigint, update: boolean): bigint {
    const code = codeOf(this.activeEvents[cidx]!);
    if (!this.fwCodeUsable(code)) return SbiError.INVALID_PARAM;
    const slot = cidx - this.numHwCounters;
    if (slot < 0) return SbiError.SUCCESS; // bound by findFw's index slip; OpenSBI writes outside its array
    if (update) this.fwData[slot] = ival & ((1n << 64n) - 1n);
    this.fwStarted |= 1n << BigInt(slot);
    return SbiError.SUCCESS;
  }

  private stop(cbase: bigint, cmask: bigint, flags: bigint): bigint {
    const set = this.counterSet(cbase, cmask);
    if (set === undefined) return SbiError.INVALID_PARAM;
    const reset = (flags & STOP_RESET) !== 0n;
    const takeSnapshot = (flags & STOP_TAKE_SNAPSHOT) !== 0n;
    if (!this.spec) {
      if (takeSnapshot) return SbiError.NO_SHMEM;
      let ret: bigint = SbiError.INVALID_PARAM;
      for (const cidx of set) {
        const type = this.counterType(cidx);
        if (type === undefined) continue;
        ret = type === EventType.fw ? this.stopFw(cidx) : this.stopHw(cidx);
        if (cidx > 2 && reset) {
          this.activeEvents[cidx] = INVALID_EVENT;
          this.resetSelector(cidx);
        }
      }
      return ret;
    }
    if (flags >> 2n !== 0n || set.length === 0) return SbiError.INVALID_PARAM;
    if (takeSnapshot && this.snapshot === undefined) return SbiError.NO_SHMEM;
    if (set.some((c) => this.counterType(c) === undefined)) return SbiError.INVALID_PARAM;
    const inhibit = this.csrRead(CSR_MCOUNTINHIBIT);
    for (const c of set) {
      const stopped = c < this.numHwCounters ? ((inhibit >> BigInt(c)) & 1n) === 1n : !((this.fwStarted >> BigInt(c - this.numHwCounters)) & 1n);
      if (stopped) return SbiError.ALREADY_STOPPED;
    }
    let overflow = 0n;
    for (const c of set) {
      const fw = this.counterType(c) === EventType.fw;
      const r = fw ? this.stopFw(c) : this.stopHw(c);
      if (r !== SbiError.SUCCESS) return r;
      if (takeSnapshot) {
        const rel = BigInt(c - Number(cbase));
        const value = fw ? this.fwData[c - this.numHwCounters]! : this.readCounter(c);
        this.memory.write(this.snapshot! + 8n + 8n * rel, 8, value);
        if (!fw && c >= 3 && this.config.sscofpmf) {
          const ev = this.xlen === 64 ? this.csrRead(CSR_MHPMEVENT3 + c - 3) : this.csrRead(CSR_MHPMEVENT3H + c - 3) << 32n;
          if (ev & MHPMEVENT_OF) overflow |= 1n << rel;
        }
      }
      if (c > 2 && reset) {
        this.activeEvents[c] = INVALID_EVENT;
        if (!fw) this.resetSelector(c);
      }
    }
    if (takeSnapshot) this.memory.write(this.snapshot!, 8, overflow);
    return SbiError.SUCCESS;
  }

  private stopFw(cidx: number): bigint {
    const code = codeOf(this.activeEvents[cidx]!);
    if (!this.fwCodeUsable(code)) return SbiError.INVALID_PARAM;
    const slot = cidx - this.numHwCounters;
    if (slot >= 0) this.fwStarted &= ~(1n << BigInt(slot));
    return SbiError.SUCCESS;
  }

  /** pmu_reset_hw_mhpmevent: mhpmevent = 0 for indices 3..31 (firmware counter indices below 32 included). */
  private resetSelector(cidx: number): void {
    if (cidx < 3 || cidx >= 32) return;
    if (this.xlen === 64) this.csrWrite(CSR_MHPMEVENT3 + cidx - 3, 0n);
    else {
      this.csrWrite(CSR_MHPMEVENT3 + cidx - 3, 0n);
      if (this.config.sscofpmf) this.csrWrite(CSR_MHPMEVENT3H + cidx - 3, 0n);
    }
  }

  // ---------------------------------------------------------------- firmware counters

  /** sbi_pmu_ctr_fw_read: the 64-bit value, or the error. */
  private fwRead(cidxArg: bigint): bigint | { error: bigint } {
    const invalid = { error: SbiError.INVALID_PARAM };
    if (cidxArg >= BigInt(this.totalCounters)) return invalid;
    const cidx = Number(cidxArg);
    if (this.counterType(cidx) !== EventType.fw) return invalid;
    const code = codeOf(this.activeEvents[cidx]!);
    if (!this.fwCodeUsable(code)) return invalid;
    const slot = cidx - this.numHwCounters;
    return slot >= 0 ? this.fwData[slot]! : 0n;
  }

  /**
   * A firmware event happened (sbi_pmu_ctr_incr_fw): the first started firmware counter bound to
   * its code counts it. `name`: a firmware event name of the spec's table (SET_TIMER, ...).
   */
  fwEvent(name: string): void {
    const code = fwEventCode(name);
    if (code === undefined) throw new RangeError(`unknown firmware event ${name}`);
    if (this.fwStarted === 0n) return;
    for (let cidx = this.numHwCounters; cidx < this.totalCounters; cidx++) {
      const e = this.activeEvents[cidx]!;
      const slot = cidx - this.numHwCounters;
      const codeMatches = this.spec ? e !== INVALID_EVENT && typeOf(e) === EventType.fw && codeOf(e) === code : codeOf(e) === code;
      if (codeMatches && (this.fwStarted >> BigInt(slot)) & 1n) {
        this.fwData[slot] = (this.fwData[slot]! + 1n) & ((1n << 64n) - 1n);
        return;
      }
    }
  }

  // ---------------------------------------------------------------- shared memory

  private setShmem(lo: bigint, hi: bigint, flags: bigint): bigint {
    if (flags !== 0n) return SbiError.INVALID_PARAM;
    if (lo === this.xmask && hi === this.xmask) {
      this.snapshot = undefined;
      return SbiError.SUCCESS;
    }
    if (lo & 0xfffn) return SbiError.INVALID_PARAM;
    if (hi !== 0n || !this.memory.contains(lo, 4096n)) return SbiError.INVALID_ADDRESS;
    this.snapshot = lo;
    return SbiError.SUCCESS;
  }

  /** sbi_pmu_event_get_info: entries of 16 bytes (event_idx u32, output u32, event_data u64). */
  private eventGetInfo(lo: bigint, hi: bigint, num: bigint, flags: bigint): bigint {
    if (flags !== 0n) return SbiError.INVALID_PARAM;
    if (num === 0n || lo & 0xfn) return SbiError.INVALID_PARAM;
    if (hi !== 0n) return SbiError.INVALID_ADDRESS;
    const size = num * 16n;
    if (lo + size > this.xmask + 1n || !this.memory.contains(lo, size)) return SbiError.INVALID_ADDRESS;
    for (let i = 0n; i < num; i++) {
      const at = lo + 16n * i;
      const eventIdx = Number(this.memory.read(at, 4));
      const data = this.memory.read(at + 8n, 8);
      const type = this.validateEvent(eventIdx);
      let supported = false;
      if (type === undefined) supported = false;
      else if (this.spec) supported = type === EventType.fw ? this.config.firmwareCounters > 0 : this.eventMap.some((e) => this.entryMatches(e, eventIdx, data));
      else {
        // OpenSBI 1.9: a raw event index is matched on the selector alone (an entry of a general
        // event has select = mask = 0 and so matches any raw event); other events by range, so
        // firmware events are supported only if the event map covers them.
        const raw = eventIdx === RAW_IDX || eventIdx === RAW_V2_IDX;
        supported = this.eventMap.some((e) => (raw ? e.select === (data & e.selectMask) : e.start <= eventIdx && eventIdx <= e.end));
      }
      this.memory.write(at + 4n, 4, supported ? 1n : 0n);
    }
    return SbiError.SUCCESS;
  }
}
