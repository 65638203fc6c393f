/**
 * Random retirement streams (golden-model/hart/stimulus) through the unit, with fixed seeds that
 * appear in every test name and failure message so any failure replays.
 *
 * 1. Everything enabled, no filter, depth 256: the entries must be exactly the transfers a
 *    second, deliberately naive reading of the stream finds (each non-idle record that ends with a
 *    transfer, paired with the iaddr of the next non-idle record), youngest first, with the cycle
 *    counts the completion cycles imply.
 * 2. Random control settings, freezes and status writes: invariants that hold whatever the
 *    settings (WRPTR moves by pushes minus pops modulo the depth, entries hold addresses the stream
 *    contains, pushed types are permitted by the filters, pops only with RASEMU).
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../common/rng.ts';
import { lastInstructionAddress, type RetirementRecord } from '../hart/records.ts';
import { generateStimulus } from '../hart/stimulus/generate.ts';
import { defaultKnobs, type StimulusKnobs } from '../hart/stimulus/knobs.ts';
import { type CtrConfig, defaultCtrConfig } from './config.ts';
import { decodeCycleCount } from './cycle-count.ts';
import { entryFields } from './entry.ts';
import { type CtrUpdate, CtrUnit, freezeSignals } from './unit.ts';

const SEED = 20_250_611;
/** Traps every ~50 instructions, some halts and resets. */
const RANDOM_KNOBS: StimulusKnobs = { ...defaultKnobs(), interrupt_rate: 0.01, fault_rate: 0.01, halt_rate: 0.0005, reset_rate: 0.0001 };
const INSTRUCTIONS = 4000;

const isIdle = (r: RetirementRecord): boolean => r.iretire === 0 && r.itype !== 1 && r.itype !== 2;

interface Expected {
  source: bigint;
  target: bigint;
  type: number;
  /** Step (cycle) in which the target's record arrives. */
  step: number;
}

/** The naive reading: transfers (not-taken branches excluded: NTBREN=0) and their completion steps. */
function naiveTransfers(records: RetirementRecord[], firstStep: number): Expected[] {
  const out: Expected[] = [];
  let prev: RetirementRecord | undefined;
  records.forEach((r, i) => {
    if (isIdle(r)) return;
    if (prev && prev.itype !== 0 && prev.itype !== 4) {
      const source = prev.iretire > 0 ? lastInstructionAddress(prev) : prev.iaddr;
      out.push({ source, target: r.iaddr, type: prev.itype, step: firstStep + i });
    }
    prev = r;
  });
  return out;
}

const VARIANTS: [string, Partial<CtrConfig>, Partial<StimulusKnobs>][] = [
  ['v0.1.4 RV64', {}, {}],
  ['v0.1.4 RV32', { xlen: 32 }, { xlen: 32 }],
  ['1.0 RV64', { specVersion: '1.0' }, {}],
  ['1.0 RV32 without C', { specVersion: '1.0', xlen: 32 }, { xlen: 32, compressed: false }],
];

describe('CTR on random streams: everything enabled equals a naive reading of the stream', () => {
  it.each(VARIANTS)(`%s (seeds ${SEED}..${SEED + 4}, ${INSTRUCTIONS} instructions each)`, (_name, over, knobOver) => {
    for (let seed = SEED; seed < SEED + 5; seed++) {
      const where = `seed ${seed}`;
      const c: CtrConfig = { ...defaultCtrConfig(), depthMax: 256, resetDepth: 256, ...over };
      const knobs: StimulusKnobs = { ...defaultKnobs(), halt_rate: 0, reset_rate: 0, interrupt_rate: 0.01, fault_rate: 0.01, ...knobOver };
      const stream = generateStimulus(knobs, seed, INSTRUCTIONS);
      const unit = new CtrUnit(c);
      const is014 = c.specVersion === '0.1.4';
      // Step 0: enable M, S and U (v0.1.4 bits 0-2 with DEPTH 1111 = 256; 1.0 bits 0-2 as U, S, M).
      unit.step({ csr: { address: is014 ? 0x381 : 0x34e, write: true, wdata: is014 ? 0xf_0007n : 0x7n, priv: 3 } });
      let pushes = 0;
      for (const record of stream.records) {
        const out = unit.step({ record, ...freezeSignals(record) });
        if (out.update?.kind === 'push') pushes++;
        expect(out.update?.kind === 'pop' || out.update?.kind === 'overwrite' || out.update?.kind === 'freeze', where).toBe(false);
      }
      const expected = naiveTransfers(stream.records, 1);
      expect(pushes, where).toBe(expected.length);
      const st = unit.state();
      expect(st.wrptr, where).toBe(expected.length % 256);
      expect(st.wrap, where).toBe(is014 && expected.length >= 256);
      const entries = unit.entries().map(entryFields);
      const youngest = expected.slice(-256).reverse();
      youngest.forEach((e, x) => {
        const got = entries[x]!;
        const at = `${where}, logical entry ${x}`;
        expect([got.valid, got.sourcePc, got.targetPc, got.type], at).toEqual([true, e.source, e.target, e.type]);
        // Every cycle is active; CC = cycles since the previous record's completion cycle
        // (the control write in step 0 for the first record, which has CCV=0).
        const index = expected.length - 1 - x;
        const since = index === 0 ? e.step : e.step - expected[index - 1]!.step;
        expect(got.ccv, at).toBe(index !== 0);
        if (since < 4096) expect(got.cycles, at).toBe(since);
        else expect(got.cycles, at).toBeLessThanOrEqual(since);
      });
    }
  });
});

describe('CTR on random streams with random settings: invariants', () => {
  it.each([['0.1.4'], ['1.0']] as const)(`%s (seeds ${SEED}..${SEED + 19})`, (version) => {
    for (let seed = SEED; seed < SEED + 20; seed++) {
      const where = `seed ${seed}`;
      const rng = new Rng(seed);
      const depth = rng.pick([16, 32, 64] as const);
      const c: CtrConfig = { ...defaultCtrConfig(), specVersion: version, depthMin: 16, depthMax: 64, resetDepth: depth };
      const stream = generateStimulus(RANDOM_KNOBS, seed, 3000);
      const unit = new CtrUnit(c);
      const is014 = version === '0.1.4';
      const controlCsr = is014 ? 0x381 : 0x34e;
      const statusCsr = is014 ? 0x383 : 0x14f;
      // Random enables and filters; RASEMU in a third of the seeds; BPFRZ in some.
      const enables = BigInt(rng.int(1, 7));
      const filters = BigInt(rng.u32() & 0xff3e) << 32n;
      const rasemu = rng.chance(0.33) ? 1n << (is014 ? 10n : 7n) : 0n;
      const bpfrz = rng.chance(0.3) ? 1n << 11n : 0n;
      const externals = rng.chance(0.5) ? (is014 ? (1n << 38n) | (3n << 8n) : 3n << 8n) : 0n;
      // v0.1.4: DEPTH is in the control register (0000, 0001, 0011 for 16, 32, 64).
      const depthField = is014 ? BigInt(depth / 16 - 1) << 16n : 0n;
      const control = enables | filters | rasemu | bpfrz | externals | depthField;
      unit.step({ csr: { address: controlCsr, write: true, wdata: control, priv: 3 } });
      const read = unit.step({ csr: { address: controlCsr, write: false, wdata: 0n, priv: 3 } }).csr!.rdata;

      const sources = new Set<bigint>([0n]);
      const targets = new Set<bigint>([0n]);
      for (const r of stream.records) {
        if (r.itype !== 0) sources.add(r.iretire > 0 ? lastInstructionAddress(r) : r.iaddr);
        targets.add(r.iaddr);
      }
      let pushes = 0;
      let pops = 0;
      let wrptr = unit.state().wrptr;
      const updates: CtrUpdate[] = [];
      for (const record of stream.records) {
        // Now and then software clears FROZEN, keeping WRPTR (a read-modify-write of the status).
        const unfreeze = unit.state().frozen && rng.chance(0.05);
        const csr = unfreeze ? { address: statusCsr, write: true, wdata: BigInt(unit.state().wrptr), priv: 3 } : undefined;
        const before = unit.state().wrptr;
        const out = unit.step({ record, ...freezeSignals(record), csr });
        if (out.update) updates.push(out.update);
        if (out.update?.kind === 'push') pushes++;
        if (out.update?.kind === 'pop') pops++;
        // The status write in the same cycle as a push wins (it rewrites the start-of-cycle WRPTR).
        if (unfreeze && (out.update?.kind === 'push' || out.update?.kind === 'pop')) {
          expect(unit.state().wrptr, where).toBe(before);
          if (out.update.kind === 'push') pushes--;
          else pops--;
        }
      }
      wrptr = (((wrptr + pushes - pops) % depth) + depth) % depth;
      expect(unit.state().wrptr, where).toBe(wrptr);
      const rasemuOn = (read & rasemu) !== 0n;
      for (const u of updates) {
        if (u.kind === 'pop' || u.kind === 'overwrite') expect(rasemuOn, `${where}: ${u.kind} without RASEMU`).toBe(true);
        if (u.kind !== 'push' && u.kind !== 'overwrite') continue;
        const f = entryFields(u.entry);
        expect(f.valid, where).toBe(true);
        if (rasemuOn) {
          expect([8, 9, 12], `${where}: type ${f.type} recorded with RASEMU`).toContain(f.type);
        } else if (f.type === 4) {
          expect((read >> 36n) & 1n, `${where}: not-taken branch without NTBREN`).toBe(1n);
        } else if (!(f.targetPc === 0n && (f.type === 1 || f.type === 2))) {
          // External traps (target PC 0) do not depend on EXCINH/INTRINH; everything else must not be inhibited.
          expect((read >> BigInt(32 + f.type)) & 1n, `${where}: type ${f.type} recorded while inhibited`).toBe(0n);
        }
      }
      for (const e of unit.entries().map(entryFields)) {
        if (!e.valid && e.sourcePc === 0n) continue;
        expect(sources.has(e.sourcePc), `${where}: source 0x${e.sourcePc.toString(16)} not in the stream`).toBe(true);
        expect(targets.has(e.targetPc), `${where}: target 0x${e.targetPc.toString(16)} not in the stream`).toBe(true);
        expect(decodeCycleCount(e.cc), where).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
