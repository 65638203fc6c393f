import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encapsulate } from './encapsulate.ts';
import { packetFields, type Packet } from './fields.ts';
import { packetBytes } from './fast.ts';
import { packPacket } from './pack.ts';
import { defaultPacketParams, type PacketParams } from './params.ts';

/** Parameter sets covering both layouts, RV32/RV64, context, time and both optional formats. */
const PARAMS: PacketParams[] = [
  { ...defaultPacketParams('1.1.1'), iaddress_width_p: 64, context_width_p: 32, privilege_width_p: 2 },
  { ...defaultPacketParams('1.1.1'), iaddress_width_p: 32, iaddress_lsb_p: 2, nocontext_p: 1, return_stack_size_p: 3, bpred_size_p: 4 },
  { ...defaultPacketParams('2.0'), iaddress_width_p: 64, context_width_p: 32, notime_p: 0, time_width_p: 48, cache_size_p: 4, bpred_size_p: 5, f0s_width_p: 1, call_counter_size_p: 6, sijump_p: 1 },
  { ...defaultPacketParams('2.0'), iaddress_width_p: 32, nocontext_p: 1, cache_size_p: 3 },
];

const SHAPES: Packet[] = [
  { format: 1n, branches: 0n },
  { format: 1n, branches: 5n },
  { format: 1n, branches: 31n },
  { format: 2n },
  { format: 3n, subformat: 0n },
  { format: 3n, subformat: 1n, interrupt: 0n, thaddr: 1n },
  { format: 3n, subformat: 1n, interrupt: 1n, thaddr: 0n },
  { format: 3n, subformat: 2n },
  { format: 3n, subformat: 3n },
  { format: 0n, subformat: 0n, branch_fmt: 0n },
  { format: 0n, subformat: 0n, branch_fmt: 2n },
  { format: 0n, subformat: 1n, branches: 0n },
  { format: 0n, subformat: 1n, branches: 9n },
];

describe('packetBytes (fast path) equals encapsulate(packPacket()) (seed 0xfa57)', () => {
  it('on random field values of every packet shape and parameter set', () => {
    const cases: { p: PacketParams; shape: Packet }[] = [];
    for (const p of PARAMS) {
      for (const shape of SHAPES) {
        let fields;
        try {
          fields = packetFields(shape, p);
        } catch {
          continue; // a shape these parameters cannot produce
        }
        if (fields.length > 0) cases.push({ p, shape });
      }
    }
    expect(cases.length).toBeGreaterThan(30);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: cases.length - 1 }), fc.array(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { minLength: 40, maxLength: 40 }), fc.constantFrom(0, 1, 2), (ci, values, pattern) => {
        const { p, shape } = cases[ci]!;
        const pkt: Packet = { ...shape };
        packetFields(shape, p).forEach((f, i) => {
          if (pkt[f.name] !== undefined) return;
          const m = (1n << BigInt(f.width)) - 1n;
          // Patterns: random, all zeros, all ones, to hit every compression case.
          pkt[f.name] = pattern === 0 ? values[i]! & m : pattern === 1 ? 0n : m;
        });
        let reference: Uint8Array | undefined;
        try {
          reference = encapsulate(packPacket(pkt, p), p);
        } catch {
          return; // over 31 bytes: both paths reject it
        }
        expect([...packetBytes(pkt, p)]).toEqual([...reference]);
      }),
      { seed: 0xfa57, numRuns: 3000 },
    );
  });
});
