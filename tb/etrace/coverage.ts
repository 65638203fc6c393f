/**
 * The functional coverage model of the E-Trace encoder (core/block.ts CoverageModel). Its bins are
 * named after the specification and the encoder's flowchart (docs/etrace-model.md):
 *
 * - `pkt:<format>:<reason>`: every packet format/subformat x the flowchart decision that sent it
 *   (F0.0 branch count with address, F0.0-noaddr, F0.1 jump target cache, F1, F1-full (a full
 *   branch map without address), F2, F3.0 sync, F3.1 trap, F3.2 context, F3.3 support);
 * - `branches:1`..`branches:31`: branch-map lengths of F1 packets with an address;
 * - `address:<differential|full>:bits<a>-<b>`: address compression, the significant bits of an
 *   F0/F1/F2 address field (the encapsulation drops the bits that repeat the MSB);
 * - `irreport:<0|1>`, `ir-value:<1|2+|max>`: irreport and irdepth (irets with the Implicit Return
 *   extension) of F0/F1/F2 reports;
 * - `jtc:hit`, `jtc:miss`: the jump target cache at the target of an uninferable discontinuity;
 * - `predictor:count:<0|1-31|32-1023|1024+>`, `predictor:fmt:<addr|addr-fail|no-addr>`: F0.0 counts;
 * - `thaddr:<0|1>` (2.0 payload), `qual_status:<...>` of support packets;
 * - `fifo:loss`, `fifo:stall`: the output FIFO full with loss, or with the hart stalled;
 * - `hart:view-hold`: the hart held while the encoder takes a later view of its cycle (serial views);
 * - `qualify:<qualified|halted-or-reset|disabled|filtered-out|watchpoint>`: each record's
 *   qualification by the filters, comparators and triggers (chapter 5);
 * - `trigger:<trace-on|trace-off|notify>`: triggers of the retirement records;
 * - `option:<name>=<value>`: each run-time option (tables 2.1-2.2) on and off, ResyncMode 0..3;
 * - with data trace, the `data:` bins and data options of tb/etrace/coverage-data.ts.
 *
 * A case's hits come from the golden model running the case's stimulus with the encoder's observer
 * on and the same transport as the co-simulation (back-pressure seed and probability), so loss and
 * stall are those of the co-simulation.
 */
import type { CaseSpec, CoverageModel, ResolvedComponent } from '../../core/block.ts';
import { HitCounter, type CoverageSpace } from '../../core/coverage.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { EtraceObserver, EtraceReason } from '../../golden-model/etrace/encoder.ts';
import { StreamEncoder } from '../../golden-model/etrace/output.ts';
import { IRETS_MAX, iretExtension, type Packet, packetWidths } from '../../golden-model/etrace/packet/index.ts';
import { Trigger } from '../../golden-model/hart/records.ts';
import { caseSource } from './case.ts';
import { dataCoverageSpace, dataOptionHits, dataPacketHits } from './coverage-data.ts';

/** The flowchart reasons that can send each packet kind. */
const REPORT_REASONS: readonly EtraceReason[] = [
  'updiscon',
  'implicit-return-mispredict',
  'trap',
  'notify',
  'resync-branches',
  'next-trap',
  'next-privilege-change',
  'next-context-change',
  'next-unqualified',
];
const SYNC_REASONS: readonly EtraceReason[] = ['first-qualified', 'trace-loss', 'resync', 'privilege-change', 'context-change', 'trap'];
const KINDS: readonly (readonly [string, readonly EtraceReason[]])[] = [
  ['F0.0', REPORT_REASONS],
  ['F0.0-noaddr', ['branch-misprediction']],
  ['F0.1', ['updiscon', 'implicit-return-mispredict']],
  ['F1', REPORT_REASONS],
  ['F1-full', ['branch-map-full']],
  ['F2', REPORT_REASONS],
  ['F3.0', SYNC_REASONS],
  ['F3.1', ['trap']],
  ['F3.2', ['context-change']],
  ['F3.3', ['support-start', 'support-end', 'trace-loss', 'option-change']],
];

const BUCKETS: readonly (readonly [number, number])[] = [
  [1, 8],
  [9, 16],
  [17, 24],
  [25, 32],
  [33, 48],
  [49, 64],
];

const BOOL_OPTIONS = ['iTrigEnable', 'stallEnable', 'FullAddress', 'ImplicitExcept', 'siJump', 'ImplicitReturn', 'BranchPrediction', 'JumpTargetCache'] as const;

function kindOf(p: Packet): string {
  const f = p.format;
  if (f === 0n) return p.subformat === 1n ? 'F0.1' : p.address === undefined ? 'F0.0-noaddr' : 'F0.0';
  if (f === 1n) return p.address === undefined ? 'F1-full' : 'F1';
  if (f === 2n) return 'F2';
  return `F3.${p.subformat}`;
}

/** Significant bits of a `width`-bit two's complement value: the bits left when those repeating the MSB are dropped. */
export function significantBits(v: bigint, width: number): number {
  const negative = ((v >> BigInt(width - 1)) & 1n) === 1n;
  // The magnitude bits of the value (of its complement when negative), plus the sign bit.
  const x = negative ? ~v & ((1n << BigInt(width)) - 1n) : v;
  return x === 0n ? 1 : Math.min(width, x.toString(2).length + 1);
}

function bucketOf(bits: number): string {
  const b = BUCKETS.find(([lo, hi]) => bits >= lo && bits <= hi)!;
  return `bits${b[0]}-${b[1]}`;
}

function predictorCount(n: bigint): string {
  return n === 0n ? '0' : n < 32n ? '1-31' : n < 1024n ? '32-1023' : '1024+';
}

const QUAL = ['no_change', 'ended_rep', 'trace_lost', 'ended_upd'];

/** The largest irdepth (return stack or call counter) or irets value of a configuration. */
function irMax(c: EtraceConfig): number {
  const p = c.params;
  if (iretExtension(p)) return IRETS_MAX;
  return p.return_stack_size_p > 0 ? 1 << p.return_stack_size_p : (1 << p.call_counter_size_p) - 1;
}

export function etraceCoverageSpace(c: EtraceConfig): CoverageSpace {
  const p = c.params;
  const o = c.options;
  const bins: string[] = [];
  const excluded: Record<string, string> = {};
  const exclude = (bin: string, reason: string): void => {
    if (excluded[bin] === undefined) excluded[bin] = reason;
  };
  const noPredictor = !o.BranchPrediction ? `BranchPrediction is off${p.bpred_size_p === 0 ? ' (no predictor: bpred_size_p 0)' : ''}` : undefined;
  const noJtc = !o.JumpTargetCache ? `JumpTargetCache is off${p.cache_size_p === 0 ? ' (no cache: cache_size_p 0)' : ''}` : undefined;
  const noIr = !o.ImplicitReturn ? 'ImplicitReturn is off' : undefined;
  const noResync = o.ResyncMode === 0 ? 'ResyncMode 0: no resynchronisation by count' : undefined;
  const noLoss = o.stallEnable ? 'stallEnable: the hart stalls instead, no trace is lost' : undefined;
  const noPrecise = p.ctype_width_p < 2 ? 'ctype_width_p 1: no precise context change (ctype 2, 3)' : undefined;
  // Section 8.2: at resync_br "a format 1 will be generated if the branch map is not empty"; with
  // 31 or more correctly predicted branches that is format 0 subformat 0 (section 8.1). F2 is the
  // format with no branches to report.
  const sessionOptions =
    'the generated RTL samples the run-time options when a trace session starts and holds them for the session (docs/etrace-registers.md): a write takes effect with the next session, whose support packet is support-start';
  const resyncBranchesF2 = 'resync_br reports unreported branches (section 8.2): format 1, or format 0 in count mode, never format 2';

  for (const [kind, reasons] of KINDS) {
    for (const reason of reasons) {
      const bin = `pkt:${kind}:${reason}`;
      bins.push(bin);
      if (noPredictor && (kind === 'F0.0' || kind === 'F0.0-noaddr')) exclude(bin, noPredictor);
      if (noJtc && kind === 'F0.1') exclude(bin, noJtc);
      if (noIr && reason === 'implicit-return-mispredict') exclude(bin, noIr);
      if (noResync && (reason === 'resync' || reason === 'resync-branches')) exclude(bin, noResync);
      if (noLoss && reason === 'trace-loss') exclude(bin, noLoss);
      if (noPrecise && (reason === 'next-context-change' || (kind === 'F3.0' && reason === 'context-change'))) exclude(bin, noPrecise);
      // The model applies an option written while it runs at once (changeOptions); the generated
      // RTL, as trace units commonly do, samples the options when a session starts.
      if (reason === 'option-change') exclude(bin, sessionOptions);
      if (kind === 'F2' && reason === 'resync-branches') exclude(bin, resyncBranchesF2);
    }
  }
  for (let n = 1; n <= 31; n++) bins.push(`branches:${n}`);
  const addrBits = packetWidths(p).address;
  for (const mode of ['differential', 'full'] as const) {
    for (const [lo, hi] of BUCKETS) {
      if (lo > addrBits) continue;
      const bin = `address:${mode}:bits${lo}-${hi}`;
      bins.push(bin);
      if (mode === 'full' && !o.FullAddress) exclude(bin, 'FullAddress is off: F0/F1/F2 addresses are differential');
      if (mode === 'differential' && o.FullAddress) exclude(bin, 'FullAddress is on: F0/F1/F2 addresses are full');
    }
  }
  const ir = ['irreport:0', 'irreport:1', 'ir-value:1', 'ir-value:2+', 'ir-value:max'];
  bins.push(...ir);
  if (noIr) for (const b of ir) if (b !== 'irreport:0') exclude(b, noIr);
  if (!noIr && irMax(c) < 2) exclude('ir-value:2+', `the largest irdepth of this configuration is ${irMax(c)}`);
  bins.push('jtc:hit', 'jtc:miss');
  if (noJtc) {
    exclude('jtc:hit', noJtc);
    exclude('jtc:miss', noJtc);
  }
  const pred = ['predictor:count:0', 'predictor:count:1-31', 'predictor:count:32-1023', 'predictor:count:1024+', 'predictor:fmt:addr', 'predictor:fmt:addr-fail', 'predictor:fmt:no-addr'];
  bins.push(...pred);
  if (noPredictor) for (const b of pred) exclude(b, noPredictor);
  bins.push('thaddr:0', 'thaddr:1');
  if (p.payload_layout !== '2.0') {
    exclude('thaddr:0', 'payload 1.1.1 has no thaddr field');
    exclude('thaddr:1', 'payload 1.1.1 has no thaddr field');
  }
  for (const q of QUAL) bins.push(`qual_status:${q}`);
  if (noLoss) exclude('qual_status:trace_lost', noLoss);
  bins.push('fifo:loss', 'fifo:stall');
  if (noLoss) exclude('fifo:loss', noLoss);
  if (!o.stallEnable) exclude('fifo:stall', 'stallEnable is off: a full FIFO loses trace instead');
  bins.push('hart:view-hold');
  if (p.serial_views_p === 0) exclude('hart:view-hold', 'serial_views_p is 0: the encoder takes every view of a cycle in its clock');
  const qual = ['qualify:qualified', 'qualify:halted-or-reset', 'qualify:disabled', 'qualify:filtered-out', 'qualify:watchpoint'];
  bins.push(...qual);
  if (o.iFilters === 0) exclude('qualify:filtered-out', 'no filter selected (iFilters 0): every enabled instruction qualifies');
  if (!o.comparators.some((x) => x.pNotify || x.sNotify)) exclude('qualify:watchpoint', 'no comparator notifies (pNotify/sNotify)');
  if (o.iEnable && !o.iTrigEnable) exclude('qualify:disabled', 'iEnable is on and no trace-off trigger can clear it (iTrigEnable off)');
  for (const t of ['trace-on', 'trace-off', 'notify']) bins.push(`trigger:${t}`);
  if (!o.iTrigEnable) {
    exclude('trigger:trace-on', 'iTrigEnable is off: trace-on/off triggers are ignored');
    exclude('trigger:trace-off', 'iTrigEnable is off: trace-on/off triggers are ignored');
  }
  const hw: Record<string, string | undefined> = {
    siJump: p.sijump_p === 0 ? 'no sequentially inferable jumps in the hardware (sijump_p 0)' : undefined,
    ImplicitReturn: p.return_stack_size_p + p.call_counter_size_p === 0 ? 'no return stack or call counter (return_stack_size_p, call_counter_size_p 0)' : undefined,
    BranchPrediction: p.bpred_size_p === 0 ? 'no branch predictor (bpred_size_p 0)' : undefined,
    JumpTargetCache: p.cache_size_p === 0 ? 'no jump target cache (cache_size_p 0)' : undefined,
  };
  for (const name of BOOL_OPTIONS) {
    bins.push(`option:${name}=off`, `option:${name}=on`);
    const why = hw[name];
    if (why !== undefined) exclude(`option:${name}=on`, why);
  }
  for (let m = 0; m <= 3; m++) bins.push(`option:ResyncMode=${m}`);
  bins.push('option:iFilters=off', 'option:iFilters=on');
  if (p.filters_p === 0) exclude('option:iFilters=on', 'no filters (filters_p 0)');
  if (p.dataTrace) {
    const data = dataCoverageSpace(c);
    bins.push(...data.bins);
    Object.assign(excluded, data.excluded);
  }
  return { bins, excluded };
}

/** The hits of one case: the model runs the case's stimulus with the observer on. */
export function etraceCoverageHits(c: EtraceConfig, spec: CaseSpec): Record<string, number> {
  const h = new HitCounter();
  const o = c.options;
  const addrBits = packetWidths(c.params).address;
  const irm = irMax(c);
  const observer: EtraceObserver = {
    packet(packet, reason, accepted) {
      if (!accepted) return;
      const kind = kindOf(packet);
      h.hit(`pkt:${kind}:${reason}`);
      if (kind === 'F1') h.hit(`branches:${packet.branches}`);
      if ((kind === 'F0.0' || kind === 'F1' || kind === 'F2') && packet.address !== undefined) {
        h.hit(`address:${o.FullAddress ? 'full' : 'differential'}:${bucketOf(significantBits(packet.address, addrBits))}`);
      }
      if (o.JumpTargetCache && (reason === 'updiscon' || reason === 'implicit-return-mispredict')) h.hit(kind === 'F0.1' ? 'jtc:hit' : 'jtc:miss');
      if (kind === 'F0.0' || kind === 'F0.0-noaddr') {
        h.hit(`predictor:count:${predictorCount(packet.branch_count!)}`);
        h.hit(`predictor:fmt:${packet.branch_fmt === 0n ? 'no-addr' : packet.branch_fmt === 3n ? 'addr-fail' : 'addr'}`);
      }
      if (kind === 'F3.1' && packet.thaddr !== undefined) h.hit(`thaddr:${packet.thaddr}`);
      if (kind === 'F3.3') h.hit(`qual_status:${QUAL[Number(packet.qual_status)]}`);
    },
    qualify(qualified, notify, haltedOrReset, enabled) {
      if (qualified) {
        h.hit('qualify:qualified');
        if (notify) h.hit('qualify:watchpoint');
      } else h.hit(haltedOrReset ? 'qualify:halted-or-reset' : !enabled ? 'qualify:disabled' : 'qualify:filtered-out');
    },
    data(emitted, accepted) {
      dataPacketHits(emitted, accepted, (bin) => h.hit(bin));
    },
    implicitReturn(irreport, value) {
      h.hit(`irreport:${irreport ? 1 : 0}`);
      if (irreport && value !== undefined && value > 0n) h.hit(`ir-value:${Number(value) >= irm ? 'max' : value === 1n ? '1' : '2+'}`);
    },
  };
  const { source, data } = caseSource(c, spec);
  const p = spec.backpressure;
  const ready = (cycle: number): boolean => !cycleChance(spec.seed, cycle, p);
  const model = new StreamEncoder(c, { ready, keepPackets: false, observer, ...(data ? { data } : {}) });
  for (const chunk of source.chunks()) {
    for (const r of chunk) {
      if (r.trigger !== 0) {
        if (r.trigger & Trigger.traceOn && o.iTrigEnable) h.hit('trigger:trace-on');
        if (r.trigger & Trigger.traceOff && o.iTrigEnable) h.hit('trigger:trace-off');
        if (r.trigger & Trigger.notify) h.hit('trigger:notify');
      }
      model.push(r);
    }
  }
  const e = model.finish();
  if (e.dropped > 0) h.hit('fifo:loss');
  if (e.stallCycles > e.viewHolds) h.hit('fifo:stall');
  if (e.viewHolds > 0) h.hit('hart:view-hold');
  for (const name of BOOL_OPTIONS) h.hit(`option:${name}=${o[name] ? 'on' : 'off'}`);
  h.hit(`option:ResyncMode=${o.ResyncMode}`);
  h.hit(`option:iFilters=${o.iFilters !== 0 ? 'on' : 'off'}`);
  if (c.params.dataTrace) dataOptionHits(c, (bin) => h.hit(bin));
  return h.hits;
}

/** The model pass of `etraceCoverageHits` without the observer (the bench's baseline). */
function etraceModelPass(c: EtraceConfig, spec: CaseSpec): void {
  const { source, data } = caseSource(c, spec);
  const model = new StreamEncoder(c, { ready: (cycle) => !cycleChance(spec.seed, cycle, spec.backpressure), keepPackets: false, ...(data ? { data } : {}) });
  for (const chunk of source.chunks()) for (const r of chunk) model.push(r);
  model.finish();
}

export const etraceCoverage: CoverageModel<EtraceConfig> = {
  space: (r: ResolvedComponent<EtraceConfig>) => etraceCoverageSpace(r.config),
  collect: (r: ResolvedComponent<EtraceConfig>, spec: CaseSpec) => etraceCoverageHits(r.config, spec),
  baseline: (r: ResolvedComponent<EtraceConfig>, spec: CaseSpec) => etraceModelPass(r.config, spec),
};
