/**
 * Small drivers for the PMU tests: records built by hand and a harness that steps a PmuUnit with
 * one record and at most one CSR access per call. A CSR access on its own runs in a halted cycle
 * (nothing counts), so register tests see no counting. Only test files import this.
 */
import { emptyRecord, type RetirementRecord } from '../hart/records.ts';
import type { PmuCsrResponse, PmuCycleOutput } from './access.ts';
import type { PmuConfig } from './config.ts';
import { defaultPmuConfig } from './settings.ts';
import { PmuUnit } from './unit.ts';

export const U = 0;
export const S = 1;
export const M = 3;
export const D = 4;

export const b = (n: number): bigint => 1n << BigInt(n);
export const ONES = (1n << 64n) - 1n;
export const ONES32 = 0xffff_ffffn;

/** One retired 32-bit instruction ending with `itype`, in `priv`. */
export function insn(itype = 0, priv = M, extra: Partial<RetirementRecord> = {}): RetirementRecord {
  return { ...emptyRecord(), iaddr: 0x8000_0000n, iretire: 2, ilastsize: 1, itype, priv, ...extra };
}

/** A cycle in which nothing retires, in `priv`. */
export function idle(priv = M): RetirementRecord {
  return { ...emptyRecord(), priv };
}

/** A halted cycle: nothing counts. */
export function halted(): RetirementRecord {
  return { ...emptyRecord(), halted: true };
}

export type Fault = 'none' | 'illegal' | 'virtual';

export interface AccessOptions {
  priv?: number;
  v?: boolean;
  wmask?: bigint;
  /** The cycle's record (default: halted, nothing counts). */
  record?: RetirementRecord;
  /** V of the record. */
  recordV?: boolean;
  events?: number;
}

export class Harness {
  readonly unit: PmuUnit;
  readonly config: PmuConfig;
  outputs: PmuCycleOutput[] = [];

  constructor(over: Partial<PmuConfig> = {}) {
    this.config = defaultPmuConfig(over);
    this.unit = new PmuUnit(this.config);
  }

  /** One cycle with a record (V and event inputs optional), no CSR access. */
  cycle(record: RetirementRecord, v = false, events = 0): PmuCycleOutput {
    const out = this.unit.step({ record, v, events });
    this.outputs.push(out);
    return out;
  }

  /** `n` cycles of the same record; returns the lcofi outputs. */
  cycles(n: number, record: RetirementRecord, v = false, events = 0): boolean[] {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push(this.cycle(record, v, events).lcofi);
    return out;
  }

  /** One cycle with a CSR access. */
  access(address: number, write: boolean, wdata: bigint, o: AccessOptions = {}): PmuCsrResponse {
    const out = this.unit.step({
      record: o.record ?? halted(),
      v: o.recordV ?? false,
      events: o.events ?? 0,
      csr: { address, write, wdata, wmask: o.wmask, priv: o.priv ?? M, v: o.v ?? false },
    });
    this.outputs.push(out);
    return out.csr!;
  }

  /** A read that must not fault. */
  read(address: number, priv = M, v = false): bigint {
    const r = this.access(address, false, 0n, { priv, v });
    if (r.illegalInstruction || r.virtualInstruction) throw new Error(`read of 0x${address.toString(16)} faulted`);
    return r.rdata;
  }

  /** A write (csrrw unless wmask is given) that must not fault. */
  write(address: number, value: bigint, o: AccessOptions = {}): void {
    const r = this.access(address, true, value, o);
    if (r.illegalInstruction || r.virtualInstruction) throw new Error(`write of 0x${address.toString(16)} faulted`);
  }

  /** The exception of a read (or a write of 0) in priv/V. */
  fault(address: number, priv = M, v = false, write = false): Fault {
    const r = this.access(address, write, 0n, { priv, v });
    return r.illegalInstruction ? 'illegal' : r.virtualInstruction ? 'virtual' : 'none';
  }

  lastLcofi(): boolean {
    return this.outputs[this.outputs.length - 1]!.lcofi;
  }
}

// CSR numbers (priv spec, Sscofpmf, Smcntrpmf), typed here rather than imported from the code under test.
export const MCYCLE = 0xb00;
export const MINSTRET = 0xb02;
export const MHPMCOUNTER = (n: number): number => 0xb00 + n;
export const MHPMCOUNTERH = (n: number): number => 0xb80 + n;
export const MCYCLEH = 0xb80;
export const MINSTRETH = 0xb82;
export const CYCLE = 0xc00;
export const TIME = 0xc01;
export const INSTRET = 0xc02;
export const HPMCOUNTER = (n: number): number => 0xc00 + n;
export const HPMCOUNTERH = (n: number): number => 0xc80 + n;
export const MHPMEVENT = (n: number): number => 0x320 + n;
export const MHPMEVENTH = (n: number): number => 0x720 + n;
export const MCOUNTINHIBIT = 0x320;
export const MCYCLECFG = 0x321;
export const MINSTRETCFG = 0x322;
export const MCYCLECFGH = 0x721;
export const MINSTRETCFGH = 0x722;
export const MCOUNTEREN = 0x306;
export const SCOUNTEREN = 0x106;
export const HCOUNTEREN = 0x606;
export const SCOUNTOVF = 0xda0;

// mhpmevent bits (Sscofpmf) and cfg bits (Smcntrpmf).
export const OF = b(63);
export const MINH = b(62);
export const SINH = b(61);
export const UINH = b(60);
export const VSINH = b(59);
export const VUINH = b(58);

/** The `pmu-rv32-mcu` component's counter block: RV32, counters 3..6 of 40 bits, no Sscofpmf/Smcntrpmf/H. */
export const RV32_MCU: Partial<PmuConfig> = { xlen: 32, counterMask: 0x78, counterWidth: 40, sscofpmf: false, smcntrpmf: false, hExt: false };
