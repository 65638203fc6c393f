/**
 * The functional coverage model of the tandem-verification trace encoder (core/block.ts
 * CoverageModel), the smallest: the record kinds the encoder takes (instruction, trap, interrupt,
 * xret, debug-reg, debug-mem, reset, unobserved) and, for instructions, what they carry (integer
 * and FP register writes, CSR writes 1..4, memory addresses, store data, fcsr, a privilege change,
 * bus transactions), counted from the case's records as the model takes them. The encoder's own
 * choices (which opcodes, what it omits) have no bins yet.
 */
import type { CaseSpec, CoverageModel, ResolvedComponent } from '../../core/block.ts';
import { HitCounter, type CoverageSpace } from '../../core/coverage.ts';
import { TV_RECORD_KINDS } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { tvtraceCaseRecords } from './case.ts';

const CARRIES = ['gpr', 'fpr', 'csrs:1', 'csrs:2', 'csrs:3', 'csrs:4', 'paddr', 'eaddr', 'storeData', 'fcsr', 'priv', 'mem'] as const;

export function tvtraceCoverageSpace(c: TvtraceRtlConfig): CoverageSpace {
  const excluded: Record<string, string> = {};
  if (c.flen === 0) {
    excluded['instruction:fpr'] = 'flen 0: no floating point';
    excluded['instruction:fcsr'] = 'flen 0: no floating point';
  }
  return { bins: [...TV_RECORD_KINDS.map((k) => `record:${k}`), ...CARRIES.map((k) => `instruction:${k}`)], excluded };
}

export function tvtraceCoverageHits(c: TvtraceRtlConfig, spec: CaseSpec): Record<string, number> {
  const h = new HitCounter();
  for (const r of tvtraceCaseRecords(c, spec)) {
    h.hit(`record:${r.kind}`);
    if (r.kind !== 'instruction') continue;
    if (r.gpr) h.hit('instruction:gpr');
    if (r.fpr) h.hit('instruction:fpr');
    if (r.csrs && r.csrs.length > 0) h.hit(`instruction:csrs:${r.csrs.length}`);
    if (r.paddr !== undefined) h.hit('instruction:paddr');
    if (r.eaddr !== undefined) h.hit('instruction:eaddr');
    if (r.storeData) h.hit('instruction:storeData');
    if (r.fcsr !== undefined) h.hit('instruction:fcsr');
    if (r.priv !== undefined) h.hit('instruction:priv');
    if (r.mem && r.mem.length > 0) h.hit('instruction:mem');
  }
  return h.hits;
}

export const tvtraceCoverage: CoverageModel<TvtraceRtlConfig> = {
  space: (r: ResolvedComponent<TvtraceRtlConfig>) => tvtraceCoverageSpace(r.config),
  collect: (r: ResolvedComponent<TvtraceRtlConfig>, spec: CaseSpec) => tvtraceCoverageHits(r.config, spec),
};
