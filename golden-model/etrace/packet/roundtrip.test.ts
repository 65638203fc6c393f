/**
 * Property tests: random packets of every kind, both layouts, several parameter sets. Packing then
 * unpacking gives the packet back; the compression is minimal; encapsulation then splitting gives
 * the payload, srcID and timestamp back. Seeds are fixed and in the test names so failures replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encapsulate, nullPacket, splitStream } from './encapsulate.ts';
import {
  impliedF0Subformat,
  packetFields,
  validatePacketParams,
  type Packet,
  type PacketKind,
  type PacketMode,
} from './fields.ts';
import { mask, packPacket, unpackPacket } from './pack.ts';
import { defaultPacketParams, type PacketParams } from './params.ts';

const SETS: Record<string, PacketParams> = {
  'RV32 1.1.1 lsb1 no-context': { ...defaultPacketParams('1.1.1'), nocontext_p: 1, privilege_width_p: 2 },
  'RV32 2.0 lsb2 context16 time32 rs2': {
    ...defaultPacketParams('2.0'),
    iaddress_lsb_p: 2,
    context_width_p: 16,
    nocontext_p: 0,
    time_width_p: 32,
    notime_p: 0,
    return_stack_size_p: 2,
  },
  'RV64 2.0 lsb1 context32 no-time cc3 cache-only': {
    ...defaultPacketParams('2.0'),
    iaddress_width_p: 64,
    context_width_p: 32,
    nocontext_p: 0,
    ecause_width_p: 6,
    call_counter_size_p: 3,
    cache_size_p: 3,
  },
  'RV64 1.1.1 lsb2 context8 rs3 bpred-only sijump': {
    ...defaultPacketParams('1.1.1'),
    iaddress_width_p: 64,
    iaddress_lsb_p: 2,
    context_width_p: 8,
    return_stack_size_p: 3,
    bpred_size_p: 2,
    sijump_p: 1,
  },
  'RV64 2.0 lsb1 context32 time64 bpred+cache f0s1': {
    ...defaultPacketParams('2.0'),
    iaddress_width_p: 64,
    context_width_p: 32,
    nocontext_p: 0,
    time_width_p: 64,
    notime_p: 0,
    bpred_size_p: 4,
    cache_size_p: 2,
    f0s_width_p: 1,
    sijump_p: 1,
  },
  'RV32 1.1.1 lsb1 context32 bpred+cache f0s2 cc2': {
    ...defaultPacketParams('1.1.1'),
    context_width_p: 32,
    bpred_size_p: 1,
    cache_size_p: 1,
    f0s_width_p: 2,
    call_counter_size_p: 2,
  },
};

function kindsOf(p: PacketParams): PacketKind[] {
  const kinds: PacketKind[] = ['F1', 'F2', 'F3.SF0', 'F3.SF1', 'F3.SF2', 'F3.SF3'];
  if (p.bpred_size_p > 0) kinds.push('F0.SF0');
  if (p.cache_size_p > 0) kinds.push('F0.SF1');
  return kinds;
}

const arbChoice = fc.record({
  kind: fc.nat(),
  branches: fc.integer({ min: 0, max: 31 }),
  branchFmt: fc.constantFrom(0n, 2n, 3n),
  interrupt: fc.constantFrom(0n, 1n),
  thaddr: fc.constantFrom(0n, 1n),
  implicitException: fc.boolean(),
  values: fc.array(fc.bigInt({ min: 0n, max: mask(64) }), { minLength: 24, maxLength: 24 }),
});
type Choice = typeof arbChoice extends fc.Arbitrary<infer T> ? T : never;

/** A random well-formed packet: the selectors from `c`, every other field from `c.values`. */
function build(p: PacketParams, c: Choice): { pkt: Packet; mode: PacketMode } {
  const kinds = kindsOf(p);
  const kind = kinds[c.kind % kinds.length] ?? 'F2';
  const pkt: Packet = {};
  const f0sf = (sf: bigint): bigint => (p.f0s_width_p > 0 ? sf : (impliedF0Subformat(p) ?? sf));
  switch (kind) {
    case 'F0.SF0':
      Object.assign(pkt, { format: 0n, subformat: f0sf(0n), branch_fmt: c.branchFmt });
      break;
    case 'F0.SF1':
      Object.assign(pkt, { format: 0n, subformat: f0sf(1n), branches: BigInt(c.branches) });
      break;
    case 'F1':
      Object.assign(pkt, { format: 1n, branches: BigInt(c.branches) });
      break;
    case 'F2':
      pkt.format = 2n;
      break;
    default:
      pkt.format = 3n;
      pkt.subformat = BigInt(Number(kind.slice(-1)));
      if (kind === 'F3.SF1') {
        pkt.interrupt = c.interrupt;
        if (p.payload_layout === '2.0') pkt.thaddr = c.thaddr;
      }
  }
  const mode = { implicit_exception: c.implicitException };
  for (let i = 0; ; i++) {
    const missing = packetFields(pkt, p, mode).find((f) => pkt[f.name] === undefined);
    if (missing === undefined) break;
    pkt[missing.name] = (c.values[i % c.values.length] ?? 0n) & mask(missing.width);
  }
  return { pkt, mode };
}

const SEED = 0x5eed;

describe.each(Object.entries(SETS))('parameter set %s', (_name, params) => {
  it('is valid', () => {
    expect(validatePacketParams(params)).toEqual([]);
  });

  it(`pack -> unpack gives the packet back, compression is minimal (seed ${SEED})`, () => {
    fc.assert(
      fc.property(arbChoice, (c) => {
        const { pkt, mode } = build(params, c);
        const packed = packPacket(pkt, params, mode);
        expect(packed.payload.length).toBe(Math.ceil(packed.bits / 8));
        expect(packed.bits).toBeLessThanOrEqual(packed.fullBits);
        if (packed.bits >= 2 && packed.bits < packed.fullBits) {
          // The kept top bit is the one copy of the sign: the bit below it differs.
          const v = BigInt.asUintN(packed.bits, BigInt(`0x${Buffer.from(packed.payload).reverse().toString('hex')}`));
          expect((v >> BigInt(packed.bits - 1)) & 1n).not.toBe((v >> BigInt(packed.bits - 2)) & 1n);
        }
        expect(unpackPacket(packed.payload, params, 0, mode)).toEqual(pkt);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });
});

const ENCAP_SEED = 0xe11c;

describe(`encapsulate -> splitStream round trip (seed ${ENCAP_SEED})`, () => {
  it('over srcID widths 0..16, timestamps 0/16/64 bits, type in flow or payload, with null packets between', () => {
    const base = SETS['RV32 2.0 lsb2 context16 time32 rs2'];
    if (base === undefined) throw new Error('missing set');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 16 }),
        fc.constantFrom(0, 16, 64),
        fc.constantFrom('flow' as const, 'payload' as const),
        fc.array(fc.tuple(arbChoice, fc.bigInt({ min: 0n, max: mask(64) }), fc.boolean(), fc.nat(3)), { minLength: 1, maxLength: 6 }),
        (srcBits, tsBits, typeIn, items) => {
          const params: PacketParams = { ...base, encap_srcid_width: srcBits, encap_timestamp_width: tsBits, encap_type_in: typeIn };
          const expected: { pkt: Packet; mode: PacketMode; srcId: bigint; timestamp?: bigint }[] = [];
          const chunks: Uint8Array[] = [];
          for (const [c, r, withTs, nulls] of items) {
            const { pkt, mode } = build(params, c);
            const srcId = r & mask(srcBits);
            const timestamp = withTs && tsBits > 0 ? r & mask(tsBits) : undefined;
            for (let i = 0; i < nulls; i++) chunks.push(nullPacket(i % 2 === 0 ? 'idle' : 'alignment'));
            chunks.push(encapsulate(packPacket(pkt, params, mode), params, { srcId, ...(timestamp === undefined ? {} : { timestamp }) }));
            expected.push({ pkt, mode, srcId, ...(timestamp === undefined ? {} : { timestamp }) });
          }
          const stream = Uint8Array.from(chunks.flatMap((b) => Array.from(b)));
          const got = [...splitStream(stream, params)];
          expect(got.length).toBe(expected.length);
          got.forEach((sp, i) => {
            const e = expected[i];
            if (e === undefined) throw new Error('missing');
            expect(sp.msgType).toBe(2);
            expect(sp.srcId).toBe(e.srcId);
            expect(sp.timestamp).toBe(e.timestamp);
            expect(unpackPacket(sp.payload, params, sp.payloadOffset, e.mode)).toEqual(e.pkt);
          });
        },
      ),
      { seed: ENCAP_SEED, numRuns: 300 },
    );
  });
});
