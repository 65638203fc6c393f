/**
 * The efficiency measurement on the byte stream. Values are worked out from the stream format of
 * the design note (one header byte per packet with flow encapsulation) and from what each option
 * is defined to remove (section 3.2: implicit return does not report returns whose address the
 * return stack predicts), not from the encoder's bookkeeping.
 */
import { describe, expect, it } from 'vitest';
import { encodeStream } from './output.ts';
import { packPacket } from './packet/pack.ts';
import { EFFICIENCY_LAYOUTS, EFFICIENCY_MODES, efficiencyConfig, measureEfficiency, retiredInstructions } from './efficiency.ts';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';

/** A loop calling a function and returning from it `n` times: call, 3 instructions, return, a taken branch back. */
function callLoop(n: number): RetirementRecord[] {
  const rec = (iaddr: bigint, itype: number = Itype.none): RetirementRecord => ({ ...emptyRecord(), iaddr, iretire: 2, ilastsize: 1, itype });
  const out: RetirementRecord[] = [];
  for (let i = 0; i < n; i++) {
    out.push(rec(0x1000n), rec(0x1004n, Itype.inferableCall)); // jal ra, 0x2000
    out.push(rec(0x2000n), rec(0x2004n), rec(0x2008n, Itype.return)); // ret to 0x1008
    out.push(rec(0x1008n, Itype.takenBranch)); // back to 0x1000
  }
  return out;
}

describe('trace efficiency measurement', () => {
  it('counts retired instructions of a single-retirement stream (traps that retired nothing excluded)', () => {
    const trap = { ...emptyRecord(), itype: Itype.exception, iretire: 0 };
    expect(retiredInstructions([...callLoop(2), trap])).toBe(12);
    expect(() => retiredInstructions([{ ...emptyRecord(), iretire: 4, ilastsize: 1 }])).toThrow(/single retirement/);
  });

  it('counts the stream it sends: bytes, packets with one header byte each, bits per instruction', () => {
    const records = callLoop(200);
    for (const layout of EFFICIENCY_LAYOUTS) {
      const config = efficiencyConfig(64, layout, EFFICIENCY_MODES[0]!);
      const f = measureEfficiency(records, config);
      const sent = encodeStream(records, config);
      expect(f.bytes).toBe(sent.bytes.length);
      expect(f.packets).toBe(sent.packetCount);
      expect(f.bytes - f.payloadBytes).toBe(f.packets);
      expect(f.instructions).toBe(1200);
      expect(f.bitsPerInstruction).toBeCloseTo((f.bytes * 8) / 1200, 12);
      expect(f.payloadBitsPerInstruction).toBeCloseTo((f.payloadBytes * 8) / 1200, 12);
      // The unpadded payload: the packets' own sign-compressed lengths (packPacket's bits).
      expect(f.payloadBits).toBe(sent.packets.reduce((s, p) => s + packPacket(p.packet, config.params, { implicit_exception: config.options.ImplicitExcept }).bits, 0));
      expect(f.payloadBits).toBeLessThanOrEqual(f.payloadBytes * 8);
      expect(f.payloadBits).toBeGreaterThan(f.payloadBytes * 8 - 8 * f.packets);
    }
  });

  it('implicit return removes the return reports: a few packets instead of one per loop iteration', () => {
    const records = callLoop(200);
    const base = measureEfficiency(records, efficiencyConfig(64, '1.1.1', EFFICIENCY_MODES.find((m) => m.name === 'baseline')!));
    const ir = measureEfficiency(records, efficiencyConfig(64, '1.1.1', EFFICIENCY_MODES.find((m) => m.name === 'implicit return')!));
    // Baseline: every return is an uninferable discontinuity, reported (with the branches before it).
    expect(base.packets).toBeGreaterThanOrEqual(200);
    // Implicit return: only branch maps of 31 branches (200 / 31 -> 6) plus the start and the end.
    expect(ir.packets).toBeLessThan(15);
  });

  it('every mode is a valid configuration for both XLENs and layouts', () => {
    for (const xlen of [32, 64] as const) {
      for (const layout of EFFICIENCY_LAYOUTS) {
        for (const mode of EFFICIENCY_MODES) expect(() => efficiencyConfig(xlen, layout, mode)).not.toThrow();
      }
    }
  });
});
