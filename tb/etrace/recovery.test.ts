/**
 * Trace loss recovers (issue 17, part 1): under back-pressure without stall the model loses
 * packets, reports the loss once and resynchronises as soon as a sync fits. The check does not go
 * through the encoder: the stream is decoded and every decoded run must be a piece of the retired
 * sequence (tb/etrace/cosim.test.ts runs the same check on the RTL's bytes). The fraction recovered
 * is printed per component and back-pressure.
 */
import { describe, expect, it } from 'vitest';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { decodeStream } from '../../golden-model/etrace/decoder.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { recoveryLine, retiredAddresses, traceRecovery } from '../../golden-model/hart/recovery.ts';
import { etraceConfigOf } from '../../blocks/testing.ts';
import { shippedComponents } from '../../ipxact/load.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { caseStream } from './case.ts';

const SEEDS = [1, 2, 3];
const BACKPRESSURES = [0, 0.05, 0.2, 0.4, 0.6];
const RECORDS = 20_000;

/** The fraction of the retired instructions recovered over the seeds, after the per-seed checks. */
function recoveredFraction(name: string, backpressure: number): number {
  const c = etraceConfigOf(name, []);
  // The stimulus generator's default rates (a program, not the co-simulation's stress mix).
  const { interrupt_rate, halt_rate, reset_rate } = defaultKnobs();
  let recovered = 0;
  let retired = 0;
  for (const seed of SEEDS) {
    const spec = { component: name, sets: [], seed, count: RECORDS, backpressure, knobs: { interrupt_rate, halt_rate, reset_rate } };
    const { records, image } = caseStream(c, spec);
    const encoded = encodeStream(records, c, { ready: (cycle) => !cycleChance(seed, cycle, backpressure), keepPackets: false });
    const items = decodeStream(encoded.bytes, image, { params: c.params, xlen: c.params.iaddress_width_p > 32 ? 64 : 32 });
    const r = traceRecovery(items, retiredAddresses(records, image));
    const where = `${name}, back-pressure ${backpressure}, seed ${seed}`;
    expect(r.wrongRun, `${where}: ${recoveryLine(r)}`).toBeUndefined();
    // One trace_lost indication per loss: a sync (and its instruction) comes before the next.
    const kinds = items.map((it) => (it.kind === 'pc' ? 'pc' : it.reason)).filter((k, i, all) => k !== 'pc' || all[i - 1] !== 'pc');
    const repeated = kinds.findIndex((k, i) => k === 'trace-lost' && kinds[i + 1] === 'trace-lost');
    expect(repeated, `${where}: two trace_lost packets with no instruction between them`).toBe(-1);
    recovered += r.recovered;
    retired += r.retired;
  }
  return recovered / retired;
}

describe('E-Trace trace loss recovers (model bytes, decoded independently)', () => {
  it.each(shippedComponents('etrace'))(`%s: back-pressure ${BACKPRESSURES.join(', ')}; seeds ${SEEDS.join(', ')}`, (name) => {
    const fractions = BACKPRESSURES.map((bp) => recoveredFraction(name, bp));
    console.log(`recovered by ${name}: ${BACKPRESSURES.map((bp, i) => `${bp}: ${(100 * fractions[i]!).toFixed(1)} %`).join(', ')}`);
    for (const f of fractions) expect(f).toBeGreaterThan(0.3);
    // A transport ready 95 % of the time costs little beyond what the FIFO loses when always
    // ready (a burst longer than the FIFO, e.g. a trap every 27 instructions needing 1.7 bytes a cycle).
    expect(fractions[1]!).toBeGreaterThanOrEqual(0.95 * fractions[0]!);
    expect(fractions[1]!).toBeGreaterThanOrEqual(0.85);
  });
});

describe('the recovery check can fail', () => {
  const pcs = (...a: number[]) => a.map((x) => ({ kind: 'pc' as const, address: BigInt(x) }));
  const lost = { kind: 'gap' as const, reason: 'trace-lost' as const, offset: 0 };
  const retired = [0x100n, 0x102n, 0x104n, 0x200n, 0x202n, 0x100n, 0x102n];
  it('accepts pieces in order and counts them', () => {
    const r = traceRecovery([...pcs(0x100, 0x102), lost, ...pcs(0x202, 0x100, 0x102)], retired);
    expect(r).toEqual({ retired: 7, recovered: 5, runs: 2, losses: 1 });
  });
  it('rejects a run with a wrong address, and pieces out of order', () => {
    expect(traceRecovery([...pcs(0x100, 0x104)], retired).wrongRun).toEqual({ index: 0, first: 0x100n, length: 2 });
    expect(traceRecovery([...pcs(0x200), lost, ...pcs(0x104)], retired).wrongRun?.index).toBe(1);
  });
});
