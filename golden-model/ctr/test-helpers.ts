/**
 * Small drivers for the CTR tests: records built by hand and a harness that steps a CtrUnit with
 * one record or one CSR access per call. Only test files import this.
 */
import { emptyRecord, type RetirementRecord } from '../hart/records.ts';
import { type CtrConfig, defaultCtrConfig } from './config.ts';
import { type CtrCsrResponse, type CtrCycleInput, type CtrCycleOutput, CtrUnit } from './unit.ts';

export const U = 0;
export const S = 1;
export const M = 3;
export const D = 4;

export const b = (n: number): bigint => 1n << BigInt(n);

/** A block of one 32-bit instruction at `iaddr` ending with `itype` (0 = no transfer). */
export function insn(iaddr: bigint, itype = 0, priv = M, extra: Partial<RetirementRecord> = {}): RetirementRecord {
  return { ...emptyRecord(), iaddr, iretire: 2, ilastsize: 1, itype, priv, ...extra };
}

/** A trap that retired nothing: iaddr is the EPC. */
export function trap(epc: bigint, cause: number, priv: number, interrupt = false): RetirementRecord {
  return { ...emptyRecord(), iaddr: epc, iretire: 0, itype: interrupt ? 2 : 1, cause, priv };
}

export function config(over: Partial<CtrConfig> = {}): CtrConfig {
  return { ...defaultCtrConfig(), ...over };
}

export interface StepExtra extends Omit<CtrCycleInput, 'record'> {}

export class Harness {
  readonly unit: CtrUnit;
  /** The mode the next records are in. */
  priv = M;
  v = false;
  mstateen0: bigint | undefined;
  hstateen0: bigint | undefined;
  outputs: CtrCycleOutput[] = [];

  constructor(over: Partial<CtrConfig> = {}) {
    this.unit = new CtrUnit(config(over));
  }

  step(input: CtrCycleInput): CtrCycleOutput {
    const out = this.unit.step({ mstateen0: this.mstateen0, hstateen0: this.hstateen0, ...input });
    this.outputs.push(out);
    return out;
  }

  /** One record in the current mode (priv/v of the harness unless the record says otherwise). */
  rec(r: RetirementRecord, extra: StepExtra = {}): CtrCycleOutput {
    return this.step({ record: r, v: this.v, ...extra });
  }

  /** One instruction at `iaddr` ending with `itype`, in the harness's mode. */
  at(iaddr: bigint, itype = 0, extra: StepExtra = {}): CtrCycleOutput {
    return this.rec(insn(iaddr, itype, this.priv), extra);
  }

  /** `n` idle cycles in the harness's mode. */
  idle(n = 1): void {
    for (let i = 0; i < n; i++) this.rec({ ...emptyRecord(), priv: this.priv, iaddr: 0n, iretire: 0 });
  }

  access(address: number, write: boolean, wdata = 0n, priv = M, v = false, wmask?: bigint): CtrCsrResponse {
    return this.step({ csr: { address, write, wdata, wmask, priv, v } }).csr!;
  }

  /** A CSR read that must succeed. */
  read(address: number, priv = M, v = false): bigint {
    const r = this.access(address, false, 0n, priv, v);
    if (r.illegalInstruction || r.virtualInstruction) throw new Error(`read of 0x${address.toString(16)} raised an exception`);
    return r.rdata;
  }

  /** A CSR write (csrrw) that must succeed. */
  write(address: number, value: bigint, priv = M, v = false): void {
    const r = this.access(address, true, value, priv, v);
    if (r.illegalInstruction || r.virtualInstruction) throw new Error(`write of 0x${address.toString(16)} raised an exception`);
  }

  /** The exception an access raises: 'illegal', 'virtual' or 'none'. */
  fault(address: number, priv: number, v = false, write = false): 'illegal' | 'virtual' | 'none' {
    const r = this.access(address, write, 0n, priv, v);
    return r.illegalInstruction ? 'illegal' : r.virtualInstruction ? 'virtual' : 'none';
  }

  /** ctrsource/ctrtarget/ctrdata of logical entry `x` read through the given select/alias CSRs. */
  entry(x: number, selectCsr: number, priv = M, v = false): { source: bigint; target: bigint; data: bigint } {
    this.write(selectCsr, BigInt(0x200 + x), priv, v);
    return { source: this.read(selectCsr + 1, priv, v), target: this.read(selectCsr + 2, priv, v), data: this.read(selectCsr + 3, priv, v) };
  }
}
