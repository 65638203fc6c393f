/**
 * The functional coverage model of the CTR unit (core/block.ts CoverageModel), with bins named
 * after the CTR specification (v0.1.4 and 1.0):
 *
 * - `xfer:<type>:<transition>:<rule>`: each transfer type (ctrdata.TYPE names) x privilege
 *   transition (same mode, up = to a more privileged mode, down; `any` for frozen) x the rule that
 *   decided it (recorded, trap-source-pc-0, external-trap, external-trap-disabled,
 *   trap-return-target-pc-0, inhibited, filtered, frozen, freeze-lcofi, freeze-breakpoint, rasemu-*);
 * - `debug:<entry|exit|within>`: transfers into, out of or within Debug Mode ("never recorded");
 * - `csr:<name>:<ok|illegal|virtual>`: each CSR (and SCTRCLR, and numbers that are not CTR CSRs)
 *   x the access result;
 * - `warl:<depth|control|wrptr>:<kept|legalised>`: WARL writes;
 * - `depth:to<N>`, `depth:grow`, `depth:shrink`: depth changes;
 * - `cycle-count:saturated`: an entry recorded with its CC saturated (every implemented CCM and CCE
 *   bit 1: the elapsed count at least 4095, 8191, 32764, 524224 or 134201344 for 0..4 CCE bits).
 *
 * A case's hits come from the golden model stepping the case's steps (the co-simulation's) with
 * its observer on.
 */
import type { CaseSpec, CoverageModel, ResolvedComponent } from '../../core/block.ts';
import { HitCounter, type CoverageSpace } from '../../core/coverage.ts';
import { CTR_DEPTHS, type CtrConfig } from '../../golden-model/ctr/config.ts';
import { ctrCsrDecode } from '../../golden-model/ctr/csr-map.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { type CtrMode, type CtrObserver, type CtrRule, CtrUnit } from '../../golden-model/ctr/unit.ts';
import { ctrCaseSteps } from './case.ts';

/** ctrdata.TYPE names (v0.1.4 table 2.x, 1.0 Transfer Type encodings). */
const TYPES: Readonly<Record<number, string>> = {
  1: 'exception',
  2: 'interrupt',
  3: 'trap-return',
  4: 'not-taken-branch',
  5: 'taken-branch',
  8: 'indirect-call',
  9: 'direct-call',
  10: 'indirect-jump',
  11: 'direct-jump',
  12: 'co-routine-swap',
  13: 'function-return',
  14: 'other-indirect-jump',
  15: 'other-direct-jump',
};

type Transition = 'same' | 'up' | 'down' | 'any';

/** Privilege order: VU < U < VS < HS(S) < M < Debug. */
function rank(m: CtrMode): number {
  return m.priv === 4 ? 9 : m.priv * 2 + (m.v ? 0 : 1);
}

function transition(src: CtrMode, tgt: CtrMode): Transition {
  const a = rank(src);
  const b = rank(tgt);
  return b > a ? 'up' : b < a ? 'down' : 'same';
}

/** The (transition, rule) pairs a transfer type can have. */
function pairsOf(type: number): [Transition, CtrRule][] {
  const out: [Transition, CtrRule][] = [];
  const add = (ts: Transition[], rules: CtrRule[]): void => {
    for (const t of ts) for (const r of rules) out.push([t, r]);
  };
  if (type === 1 || type === 2) {
    add(['up', 'same'], ['recorded', 'inhibited', 'filtered', 'rasemu-ignored', type === 2 ? 'freeze-lcofi' : 'freeze-breakpoint']);
    add(['up'], ['trap-source-pc-0', 'external-trap', 'external-trap-disabled']);
  } else if (type === 3) {
    add(['down', 'same'], ['recorded', 'inhibited', 'filtered', 'rasemu-ignored']);
    add(['down'], ['trap-return-target-pc-0']);
  } else {
    const rasemu: CtrRule = type === 8 || type === 9 ? 'rasemu-push' : type === 13 ? 'rasemu-pop' : type === 12 ? 'rasemu-swap' : 'rasemu-ignored';
    add(['same'], ['recorded', 'inhibited', 'filtered', rasemu]);
  }
  // FROZEN is checked before anything else but the freeze itself, whatever the modes: one bin per
  // type ('any'). Transfers into, out of or within Debug Mode have bins of their own (debug:*).
  out.push(['any', 'frozen']);
  return out;
}

export function ctrCoverageSpace(c: CtrConfig): CoverageSpace {
  const bins: string[] = [];
  const excluded: Record<string, string> = {};
  const exclude = (bin: string, reason: string): void => {
    if (excluded[bin] === undefined) excluded[bin] = reason;
  };
  const mOnly = !c.sMode && !c.uMode;
  for (const [code, name] of Object.entries(TYPES)) {
    for (const [t, rule] of pairsOf(Number(code))) {
      const bin = `xfer:${name}:${t}:${rule}`;
      bins.push(bin);
      if (rule.startsWith('rasemu') && !c.rasemu) exclude(bin, 'RAS emulation not implemented (rasemu 0)');
      if (rule === 'freeze-lcofi' && !c.lcofifrz) exclude(bin, 'LCOFIFRZ not implemented (lcofifrz 0)');
      if (rule === 'freeze-breakpoint' && !c.bpfrz) exclude(bin, 'BPFRZ not implemented (bpfrz 0)');
      if (mOnly && (t === 'up' || t === 'down')) exclude(bin, 'M-mode only: no privilege transition');
      if (mOnly && (rule === 'trap-source-pc-0' || rule === 'external-trap' || rule === 'external-trap-disabled' || rule === 'trap-return-target-pc-0')) {
        exclude(bin, 'M-mode only: source and target modes are enabled alike');
      }
    }
  }
  const names = ctrCsrDecode(c);
  for (const d of names) {
    const level = (d.address >> 8) & 3;
    for (const result of ['ok', 'illegal', 'virtual'] as const) {
      const bin = `csr:${d.name}:${result}`;
      bins.push(bin);
      if (result === 'virtual' && !c.hExt) exclude(bin, 'no H extension: no virtual-instruction exception');
      else if (result === 'virtual' && level === 3) exclude(bin, 'an M-level CSR raises illegal-instruction below M, never virtual');
      if (result === 'illegal' && mOnly && d.kind !== 'ireg') exclude(bin, 'M-mode only: every access is from M');
    }
  }
  for (const result of ['ok', 'illegal', 'virtual'] as const) {
    const bin = `csr:sctrclr:${result}`;
    bins.push(bin);
    if (c.specVersion !== '1.0' && result !== 'illegal') exclude(bin, 'v0.1.4 has no SCTRCLR instruction (it is illegal)');
    else if (result === 'virtual' && !c.hExt) exclude(bin, 'no H extension: no virtual-instruction exception');
    else if (result === 'illegal' && mOnly && c.specVersion === '1.0') exclude(bin, 'M-mode only: SCTRCLR is always allowed from M');
  }
  bins.push('debug:entry', 'debug:exit', 'debug:within');
  bins.push('csr:not-ctr:illegal');
  for (const f of ['depth', 'control', 'wrptr']) for (const k of ['kept', 'legalised']) bins.push(`warl:${f}:${k}`);
  const depths = CTR_DEPTHS.filter((d) => d >= c.depthMin && d <= c.depthMax);
  for (const d of depths) bins.push(`depth:to${d}`);
  bins.push('depth:grow', 'depth:shrink');
  if (depths.length === 1) {
    const why = `a single depth (${c.depthMin} entries)`;
    for (const b of [...depths.map((d) => `depth:to${d}`), 'depth:grow', 'depth:shrink']) exclude(b, why);
  }
  if (c.depthMin === 256) exclude('warl:wrptr:legalised', 'depth 256 only: WRPTR keeps all its 8 bits');
  bins.push('cycle-count:saturated');
  if (!c.cycleCounting) exclude('cycle-count:saturated', 'no cycle counting (cycleCounting 0)');
  return { bins, excluded };
}

export function ctrCoverageHits(c: CtrBlockConfig, spec: CaseSpec): Record<string, number> {
  const h = new HitCounter();
  const names = new Map(ctrCsrDecode(c.config).map((d) => [d.address, d.name]));
  const observer: CtrObserver = {
    transfer(type, src, tgt, rule) {
      const name = TYPES[type];
      if (name === undefined) return;
      if (rule === 'debug') h.hit(src.priv === 4 && tgt.priv === 4 ? 'debug:within' : tgt.priv === 4 ? 'debug:entry' : 'debug:exit');
      else h.hit(`xfer:${name}:${rule === 'frozen' ? 'any' : transition(src, tgt)}:${rule}`);
    },
    csr(address, _write, result) {
      if (address < 0) h.hit(`csr:sctrclr:${result}`);
      else {
        const name = names.get(address);
        h.hit(name === undefined ? 'csr:not-ctr:illegal' : `csr:${name}:${result}`);
      }
    },
    warl(field, legalised) {
      h.hit(`warl:${field}:${legalised ? 'legalised' : 'kept'}`);
    },
    depth(from, to) {
      h.hit(`depth:to${to}`);
      h.hit(to > from ? 'depth:grow' : 'depth:shrink');
    },
    saturated() {
      h.hit('cycle-count:saturated');
    },
  };
  const unit = new CtrUnit(c.config);
  unit.observer = observer;
  for (const s of ctrCaseSteps(c, spec).steps) unit.step(s);
  return h.hits;
}

export const ctrCoverage: CoverageModel<CtrBlockConfig> = {
  space: (r: ResolvedComponent<CtrBlockConfig>) => ctrCoverageSpace(r.config.config),
  collect: (r: ResolvedComponent<CtrBlockConfig>, spec: CaseSpec) => ctrCoverageHits(r.config, spec),
  baseline(r: ResolvedComponent<CtrBlockConfig>, spec: CaseSpec) {
    const unit = new CtrUnit(r.config.config);
    for (const s of ctrCaseSteps(r.config, spec).steps) unit.step(s);
  },
};
