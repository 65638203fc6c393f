/**
 * The functional coverage model of the PMU counter block (core/block.ts CoverageModel), smaller
 * than CTR's: each CSR family (the privileged spec's names with the counter number as N:
 * mhpmcounterN, hpmcounterNh, mhpmeventN, ...) x the access (read, write) x the result (ok,
 * illegal, virtual), CSR numbers that are not PMU CSRs, and the counter-overflow interrupt (LCOFI).
 * Read from the unit's outputs of the case's steps (the co-simulation's). The SBI firmware layer:
 * `sbi:<function>:<error>`, each PMU function x each answer of its table in the SBI specification
 * (PMU extension chapter), from the answers to the case's SBI call script (tb/pmu/case.ts).
 */
import type { CaseSpec, CoverageModel, ResolvedComponent } from '../../core/block.ts';
import { HitCounter, type CoverageSpace } from '../../core/coverage.ts';
import type { PmuConfig } from '../../golden-model/pmu/config.ts';
import { pmuCsrDecode, pmuCsrName, pmuCsrNumbers } from '../../golden-model/pmu/csr-map.ts';
import type { PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { type SbiErrorName, sbiErrorName } from '../../golden-model/pmu/sbi/constants.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { pmuCaseSteps } from './case.ts';

const family = (name: string): string => name.replace(/\d+/g, 'N');
const RESULTS = ['read:ok', 'write:ok', 'read:illegal', 'write:illegal', 'read:virtual', 'write:virtual'] as const;

export function pmuCoverageSpace(c: PmuConfig): CoverageSpace {
  const bins: string[] = [];
  const excluded: Record<string, string> = {};
  const levels = new Map<string, number>();
  const readOnly = new Set<string>();
  for (const { address, csr } of pmuCsrNumbers(c)) {
    levels.set(family(pmuCsrName(csr)), (address >> 8) & 3);
    if (address >> 10 === 3) readOnly.add(family(pmuCsrName(csr)));
  }
  for (const [f, level] of [...levels.entries()].sort()) {
    for (const r of RESULTS) {
      const bin = `csr:${f}:${r}`;
      bins.push(bin);
      if (r.endsWith('virtual') && !c.hExt) excluded[bin] = 'no H extension: no virtual-instruction exception';
      else if (r.endsWith('virtual') && level === 3) excluded[bin] = 'an M-level CSR raises illegal-instruction below M, never virtual';
      if (r.endsWith('illegal') && level === 3 && !c.sMode && !c.uMode) excluded[bin] = 'M-mode only: every access is from M';
      if (r === 'write:ok' && readOnly.has(f)) excluded[bin] = 'a read-only CSR (number 0xC00-0xFFF): a write is illegal';
    }
  }
  bins.push('csr:not-pmu:illegal', 'lcofi');
  if (!c.sscofpmf) excluded['lcofi'] = 'no Sscofpmf: no overflow interrupt';
  const opensbi = c.sbiBehaviour !== 'spec';
  for (const [fn, errors] of Object.entries(SBI_ANSWERS)) {
    for (const e of errors) {
      const bin = `sbi:${fn}:${e}`;
      bins.push(bin);
      if (!c.sMode) excluded[bin] = 'no S-mode: no supervisor calls the SBI';
      else if (e === 'FAILED') excluded[bin] = 'the firmware model\'s shared memory accesses cannot fail';
      else if (fn === 'event_get_info' && e === 'NOT_SUPPORTED') excluded[bin] = 'the firmware implements event_get_info (SBI 3.0)';
      else if (fn === 'snapshot_set_shmem' && opensbi && e !== 'NOT_SUPPORTED') excluded[bin] = 'sbi_behaviour opensbi-1.9: OpenSBI does not support snapshots';
      else if (fn === 'snapshot_set_shmem' && !opensbi && e === 'NOT_SUPPORTED') excluded[bin] = 'sbi_behaviour spec: snapshots are supported';
      else if (fn === 'counter_fw_read_hi' && opensbi && c.xlen === 64 && e === 'INVALID_PARAM') excluded[bin] = 'OpenSBI on RV64 answers fw_read_hi with 0 without looking at the counter';
    }
  }
  return { bins, excluded };
}

/** The answers each PMU function may give, typed from the error tables of the SBI specification's PMU chapter. */
const SBI_ANSWERS: Readonly<Record<string, readonly SbiErrorName[]>> = {
  num_counters: ['SUCCESS'],
  counter_get_info: ['SUCCESS', 'INVALID_PARAM'],
  counter_config_matching: ['SUCCESS', 'INVALID_PARAM', 'NOT_SUPPORTED'],
  counter_start: ['SUCCESS', 'INVALID_PARAM', 'ALREADY_STARTED', 'NO_SHMEM'],
  counter_stop: ['SUCCESS', 'INVALID_PARAM', 'ALREADY_STOPPED', 'NO_SHMEM'],
  counter_fw_read: ['SUCCESS', 'INVALID_PARAM'],
  counter_fw_read_hi: ['SUCCESS', 'INVALID_PARAM'],
  snapshot_set_shmem: ['SUCCESS', 'NOT_SUPPORTED', 'INVALID_PARAM', 'INVALID_ADDRESS', 'FAILED'],
  event_get_info: ['SUCCESS', 'NOT_SUPPORTED', 'INVALID_PARAM', 'INVALID_ADDRESS', 'FAILED'],
};

export function pmuCoverageHits(c: PmuBlockConfig, spec: CaseSpec): Record<string, number> {
  const h = new HitCounter();
  const unit = new PmuUnit(c.config);
  const families = new Map<number, string>();
  const { steps, sbi } = pmuCaseSteps(c, spec);
  for (const s of sbi) {
    // An answer outside the function's table hits a bin outside the space, which the tests catch.
    if (s.kind === 'ecall' && s.result !== undefined) h.hit(`sbi:${s.name.replace(/^pmu\./, '')}:${sbiErrorName(s.result.error) ?? String(s.result.error)}`);
  }
  for (const s of steps) {
    const out = unit.step(s);
    if (out.lcofi) h.hit('lcofi');
    const a = s.csr;
    if (a === undefined || out.csr === undefined) continue;
    const address = a.address & 0xfff;
    let f = families.get(address);
    if (f === undefined) {
      const d = pmuCsrDecode(c.config, address);
      f = d === undefined ? 'not-pmu' : family(pmuCsrName(d));
      families.set(address, f);
    }
    const result = out.csr.illegalInstruction ? 'illegal' : out.csr.virtualInstruction ? 'virtual' : 'ok';
    h.hit(f === 'not-pmu' ? 'csr:not-pmu:illegal' : `csr:${f}:${a.write ? 'write' : 'read'}:${result}`);
  }
  return h.hits;
}

export const pmuCoverage: CoverageModel<PmuBlockConfig> = {
  space: (r: ResolvedComponent<PmuBlockConfig>) => pmuCoverageSpace(r.config.config),
  collect: (r: ResolvedComponent<PmuBlockConfig>, spec: CaseSpec) => pmuCoverageHits(r.config, spec),
};
