/**
 * The CSR numbers of the PMU counter block and what each one is (docs/pmu-model.md, "CSRs"): the one
 * map the model, the RTL generator, the stimulus and the dumps decode CSR numbers with.
 */
import { hpmCounters, type PmuConfig } from './config.ts';

/** What a PMU CSR number names. `index` is the counter (0 cycle, 2 instret, 3..31 hpm). */
export type PmuCsr =
  /** mcycle, minstret, mhpmcounterN (machine counters, read/write). */
  | { readonly kind: 'counter'; readonly index: number; readonly high: boolean }
  /** cycle, instret, hpmcounterN (user read-only views). */
  | { readonly kind: 'user-counter'; readonly index: number; readonly high: boolean }
  | { readonly kind: 'event'; readonly index: number; readonly high: boolean }
  | { readonly kind: 'mcountinhibit' }
  | { readonly kind: 'mcounteren' }
  | { readonly kind: 'scounteren' }
  | { readonly kind: 'hcounteren' }
  | { readonly kind: 'scountovf' }
  /** mcyclecfg (index 0) and minstretcfg (index 2). */
  | { readonly kind: 'cfg'; readonly index: 0 | 2; readonly high: boolean };

export const CSR = {
  mcycle: 0xb00,
  mcycleh: 0xb80,
  cycle: 0xc00,
  cycleh: 0xc80,
  mhpmevent: 0x320,
  mhpmeventh: 0x720,
  mcountinhibit: 0x320,
  mcyclecfg: 0x321,
  minstretcfg: 0x322,
  mcounteren: 0x306,
  scounteren: 0x106,
  hcounteren: 0x606,
  scountovf: 0xda0,
} as const;

/** What `address` is in configuration `c`, or undefined when the block does not implement it. */
export function pmuCsrDecode(c: PmuConfig, address: number): PmuCsr | undefined {
  const rv32 = c.xlen === 32;
  const counterAt = (base: number): { index: number; high: boolean } | undefined => {
    const lo = address - base;
    if (lo >= 0 && lo < 32) return { index: lo, high: false };
    const hi = address - base - 0x80;
    if (rv32 && hi >= 0 && hi < 32) return { index: hi, high: true };
    return undefined;
  };
  const m = counterAt(CSR.mcycle);
  if (m !== undefined && m.index !== 1) return { kind: 'counter', ...m };
  const u = counterAt(CSR.cycle);
  if (u !== undefined && u.index !== 1) return { kind: 'user-counter', ...u };
  if (address === CSR.mcountinhibit) return { kind: 'mcountinhibit' };
  if (address > CSR.mhpmevent + 2 && address < CSR.mhpmevent + 32) return { kind: 'event', index: address - CSR.mhpmevent, high: false };
  if (rv32 && c.sscofpmf && address > CSR.mhpmeventh + 2 && address < CSR.mhpmeventh + 32) return { kind: 'event', index: address - CSR.mhpmeventh, high: true };
  if (c.smcntrpmf && (address === CSR.mcyclecfg || address === CSR.minstretcfg)) return { kind: 'cfg', index: address === CSR.mcyclecfg ? 0 : 2, high: false };
  if (c.smcntrpmf && rv32 && (address === CSR.mcyclecfg + 0x400 || address === CSR.minstretcfg + 0x400)) return { kind: 'cfg', index: address === CSR.mcyclecfg + 0x400 ? 0 : 2, high: true };
  if (address === CSR.mcounteren && c.uMode) return { kind: 'mcounteren' };
  if (address === CSR.scounteren && c.sMode) return { kind: 'scounteren' };
  if (address === CSR.hcounteren && c.hExt) return { kind: 'hcounteren' };
  if (address === CSR.scountovf && c.sscofpmf && c.sMode) return { kind: 'scountovf' };
  return undefined;
}

const COUNTER_NAMES = ['cycle', 'time', 'instret'];

function counterName(index: number): string {
  return COUNTER_NAMES[index] ?? `hpmcounter${index}`;
}

/** The CSR's name as the privileged spec writes it (mhpmcounter3h, hpmcounter4, mcyclecfg, ...). */
export function pmuCsrName(csr: PmuCsr): string {
  const h = 'high' in csr && csr.high ? 'h' : '';
  switch (csr.kind) {
    case 'counter':
      return `m${counterName(csr.index)}${h}`;
    case 'user-counter':
      return `${counterName(csr.index)}${h}`;
    case 'event':
      return `mhpmevent${csr.index}${h}`;
    case 'cfg':
      return `${csr.index === 0 ? 'mcyclecfg' : 'minstretcfg'}${h}`;
    default:
      return csr.kind;
  }
}

/** Every CSR number the configuration implements, ascending, with its decode. */
export function pmuCsrNumbers(c: PmuConfig): { address: number; csr: PmuCsr }[] {
  const out: { address: number; csr: PmuCsr }[] = [];
  for (let a = 0; a < 0x1000; a++) {
    const csr = pmuCsrDecode(c, a);
    if (csr !== undefined) out.push({ address: a, csr });
  }
  return out;
}

/** The number of a CSR by its name (for scripts and dumps), or undefined. */
export function pmuCsrByName(c: PmuConfig, name: string): number | undefined {
  return pmuCsrNumbers(c).find((e) => pmuCsrName(e.csr) === name)?.address;
}

/** Whether counter `index` (0, 2, 3..31) is implemented. */
export function counterImplemented(c: PmuConfig, index: number): boolean {
  return index === 0 || index === 2 || hpmCounters(c).includes(index);
}
