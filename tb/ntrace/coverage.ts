/**
 * The functional coverage model of the N-Trace encoder (core/block.ts CoverageModel), smaller than
 * E-Trace's: the message types (TCODE names of the N-Trace specification) x the reason each
 * carries (SYNC of a synchronizing message, B-TYPE of an indirect branch, EVCODE of
 * ProgTraceCorrelation, RCODE of ResourceFull, ECODE of Error), and the output FIFO losing trace or
 * stalling the hart. Read from the messages the model sends.
 *
 * Approximation: the co-simulation adds register-programming cycles before the records (the APB
 * prologue), which shift the transport's ready pattern; the model here runs the case's records
 * with the case's ready pattern from cycle 0, so which messages a back-pressured case loses can
 * differ slightly from the co-simulation's.
 */
import type { CaseSpec, CoverageModel, ResolvedComponent } from '../../core/block.ts';
import { HitCounter, type CoverageSpace } from '../../core/coverage.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { BTYPE, ECODE, EVCODE, RCODE, SYNC, TCODE } from '../../golden-model/ntrace/messages.ts';
import { NtraceStreamEncoder } from '../../golden-model/ntrace/output.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { ntraceCaseRecords } from './case.ts';

const nameOf = (table: Readonly<Record<string, number>>, v: number): string => Object.entries(table).find(([, x]) => x === v)?.[0] ?? String(v);

const SYNC_MSGS = ['ProgTraceSync', 'DirectBranchSync', 'IndirectBranchSync', 'IndirectBranchHistSync'];
const BTYPE_MSGS = ['IndirectBranch', 'IndirectBranchSync', 'IndirectBranchHist', 'IndirectBranchHistSync'];

/** The bins of one message: its type, and its type with the reason it carries. */
function messageBins(name: string, fields: Readonly<Record<string, number | bigint>>): string[] {
  const out = [`msg:${name}`];
  const f = (k: string): number => Number(fields[k] ?? -1);
  if (SYNC_MSGS.includes(name)) out.push(`msg:${name}:sync-${nameOf(SYNC, f('SYNC'))}`);
  if (BTYPE_MSGS.includes(name)) out.push(`msg:${name}:btype-${nameOf(BTYPE, f('B-TYPE'))}`);
  if (name === 'ProgTraceCorrelation') out.push(`msg:${name}:evcode-${nameOf(EVCODE, f('EVCODE'))}`);
  if (name === 'ResourceFull') out.push(`msg:${name}:rcode-${nameOf(RCODE, f('RCODE'))}`);
  if (name === 'Error') {
    // ECODE is a set of bits (what was lost), or 0 = unknown.
    const e = f('ECODE');
    if (e === 0) out.push(`msg:${name}:ecode-unknown`);
    for (const [k, bit] of Object.entries(ECODE)) if (bit !== 0 && (e & bit) !== 0) out.push(`msg:${name}:ecode-${k}`);
  }
  return out;
}

export function ntraceCoverageSpace(c: NtraceConfig): CoverageSpace {
  const bins: string[] = [];
  const excluded: Record<string, string> = {};
  const exclude = (bin: string, reason: string): void => {
    if (excluded[bin] === undefined) excluded[bin] = reason;
  };
  const htmOnly = ['IndirectBranchHist', 'IndirectBranchHistSync'];
  const btmOnly = ['DirectBranch', 'DirectBranchSync'];
  for (const name of Object.keys(TCODE)) {
    const own: string[] = [`msg:${name}`];
    if (SYNC_MSGS.includes(name)) for (const s of Object.keys(SYNC)) own.push(`msg:${name}:sync-${s}`);
    if (BTYPE_MSGS.includes(name)) for (const b of Object.keys(BTYPE)) own.push(`msg:${name}:btype-${b}`);
    if (name === 'ProgTraceCorrelation') for (const e of Object.keys(EVCODE)) own.push(`msg:${name}:evcode-${e}`);
    if (name === 'ResourceFull') for (const r of Object.keys(RCODE)) own.push(`msg:${name}:rcode-${r}`);
    if (name === 'Error') for (const e of Object.keys(ECODE)) own.push(`msg:${name}:ecode-${e}`);
    bins.push(...own);
    for (const bin of own) {
      if (c.mode === 'btm' && htmOnly.includes(name)) exclude(bin, 'branch trace messaging (mode btm): no HIST messages');
      if (c.mode === 'htm' && btmOnly.includes(name)) exclude(bin, 'history trace messaging (mode htm): direct branches go into HIST');
      if (name === 'RepeatBranch' && !c.repeatBranch) exclude(bin, 'RepeatBranch is off');
      if (name === 'Ownership' && !c.ownership) exclude(bin, 'Ownership messages (trTeContext) are off');
      if (c.stallEnable && (name === 'Error' || bin.endsWith(':sync-overrun'))) exclude(bin, 'stallEnable: the hart stalls, nothing is lost');
      if (c.syncPeriod === 0 && bin.endsWith(':sync-periodic')) exclude(bin, 'syncPeriod 0: no periodic sync');
      if (c.mode === 'btm' && (bin.endsWith(':rcode-hist') || bin.endsWith(':rcode-histRepeat'))) exclude(bin, 'mode btm: no HIST register');
      if (!c.repeatHistory && bin.endsWith(':rcode-histRepeat')) exclude(bin, 'HIST repeat compression is off');
      if (!c.ownership && bin.endsWith(':ecode-ownershipLost')) exclude(bin, 'Ownership messages (trTeContext) are off');
    }
  }
  bins.push('fifo:loss', 'fifo:stall');
  if (c.stallEnable) exclude('fifo:loss', 'stallEnable: the hart stalls, nothing is lost');
  else exclude('fifo:stall', 'stallEnable is off: a full FIFO loses trace instead');
  return { bins, excluded };
}

export function ntraceCoverageHits(c: NtraceConfig, spec: CaseSpec): Record<string, number> {
  const h = new HitCounter();
  const model = new NtraceStreamEncoder(c, { ready: (cycle) => !cycleChance(spec.seed, cycle, spec.backpressure) });
  for (const r of ntraceCaseRecords(c, spec)) model.push(r);
  const e = model.finish();
  for (const m of e.messages) for (const bin of messageBins(m.name, m.fields)) h.hit(bin);
  if (e.lost > 0) h.hit('fifo:loss');
  if (e.stallCycles > 0) h.hit('fifo:stall');
  return h.hits;
}

export const ntraceCoverage: CoverageModel<NtraceConfig> = {
  space: (r: ResolvedComponent<NtraceConfig>) => ntraceCoverageSpace(r.config),
  collect: (r: ResolvedComponent<NtraceConfig>, spec: CaseSpec) => ntraceCoverageHits(r.config, spec),
};
