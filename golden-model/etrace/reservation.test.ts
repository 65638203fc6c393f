/**
 * Reservations (reservation.ts): (a) random packets of every kind, packed by the model's own
 * packer, never exceed their kind's reservation, and a constructed packet of each kind reaches it
 * (so it is tight); (b) the numbers typed by hand from the field widths of the spec's tables for
 * two configurations; (c) the validation of a FIFO smaller than the largest reservation.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../common/rng.ts';
import { resolveSettings } from '../common/settings.ts';
import { defaultOptions, defaultParams, type EtraceParams, validateConfig } from './config.ts';
import { type DataPacket, dataFields, packData } from './data/packets.ts';
import { dataPacketParams, dataWidths, defaultDataParams } from './data/params.ts';
import { encapsulate, MSG_TYPE } from './packet/encapsulate.ts';
import { packetBytes } from './packet/fast.ts';
import { type FieldName, type Packet, packetFields, type PacketMode } from './packet/fields.ts';
import { dataShapes, RESERVATION_KINDS, type ReservationKind, reservationBytes, reservationKind } from './reservation.ts';
import { ETRACE_SETTINGS, validateEtraceSettings } from './settings.ts';

/**
 * The 32-bit configuration of the golden values: 2.0 layout, every optional field present (time,
 * context, implicit return by counter, branch predictor and jump target cache, sijump), a 4-bit
 * source id and data trace on a 32-bit bus with atomics and CSRs.
 */
function rv32Rich(): EtraceParams {
  return {
    ...defaultParams('2.0'),
    iaddress_width_p: 32,
    iaddress_lsb_p: 1,
    privilege_width_p: 2,
    ecause_width_p: 5,
    context_width_p: 8,
    nocontext_p: 0,
    time_width_p: 16,
    notime_p: 0,
    call_counter_size_p: 3,
    bpred_size_p: 2,
    cache_size_p: 3,
    f0s_width_p: 1,
    sijump_p: 1,
    encap_srcid_width: 4,
    dataTrace: { ...defaultDataParams(), data_width_p: 32, data_split_p: 0, data_atomics_p: 1, data_csr_p: 1 },
    dataTraceSupport: true,
  };
}

/** RV64, 1.1.1, return stack, both format 0 subformats, split data trace, type in the payload. */
function rv64Split(): EtraceParams {
  return {
    ...defaultParams('1.1.1'),
    iaddress_width_p: 64,
    context_width_p: 32,
    ecause_width_p: 6,
    privilege_width_p: 2,
    return_stack_size_p: 3,
    iret_ext_p: 0,
    bpred_size_p: 5,
    cache_size_p: 3,
    f0s_width_p: 1,
    encap_srcid_width: 12,
    encap_type_in: 'payload',
    encap_flow: 1,
    dataTrace: { ...defaultDataParams(), data_width_p: 64, data_split_p: 1, lrid_width_p: 3 },
    dataTraceSupport: true,
  };
}

/** RV64 2.0 with implicit return by stack (Implicit Return extension), 64-bit data without atomics. */
function rv64Ratified(): EtraceParams {
  return {
    ...defaultParams('2.0'),
    iaddress_width_p: 64,
    context_width_p: 32,
    nocontext_p: 0,
    notime_p: 0,
    time_width_p: 32,
    return_stack_size_p: 2,
    cache_size_p: 4,
    encap_srcid_width: 16,
    dataTrace: { ...defaultDataParams(), data_width_p: 64, data_atomics_p: 0, data_csr_p: 1 },
    dataTraceSupport: true,
  };
}

const CONFIGS: [string, () => EtraceParams][] = [
  ['default 1.1.1', () => defaultParams('1.1.1')],
  ['default 2.0', () => defaultParams('2.0')],
  ['RV32, every field, data trace', rv32Rich],
  ['RV64 1.1.1, split data, type in payload', rv64Split],
  ['RV64 2.0, return stack, CSR data', rv64Ratified],
];

const SELECTORS: ReadonlySet<FieldName> = new Set(['format', 'subformat', 'branch_fmt', 'branches', 'interrupt', 'thaddr']);

/** A random value of `width` bits: uniform, all ones, zero, or a sign pattern (top bit against the rest). */
function value(rng: Rng, width: number): bigint {
  const all = (1n << BigInt(width)) - 1n;
  const top = 1n << BigInt(width - 1);
  switch (rng.int(0, 5)) {
    case 0:
      return all;
    case 1:
      return 0n;
    case 2:
      return top; // 100...0
    case 3:
      return all ^ top; // 011...1
    default:
      return (BigInt(rng.u32()) | (BigInt(rng.u32()) << 32n)) & all;
  }
}

/** The selectors of a random instruction packet of the kind (values the field tables accept or refuse). */
function randomShape(rng: Rng, kind: Exclude<ReservationKind, 'data'>): Packet {
  switch (kind) {
    case 'support':
      return { format: 3n, subformat: 3n };
    case 'sync':
      return { format: 3n, subformat: 0n };
    case 'context':
      return { format: 3n, subformat: 2n };
    case 'trap':
      return { format: 3n, subformat: 1n, interrupt: BigInt(rng.int(0, 1)), thaddr: BigInt(rng.int(0, 1)) };
    case 'report': {
      const format = BigInt(rng.int(0, 2));
      return { format, subformat: BigInt(rng.int(0, 1)), branch_fmt: rng.pick([0n, 2n, 3n]), branches: BigInt(rng.int(0, 31)) };
    }
  }
}

/**
 * The packet of the shape with these field values: selectors as the shape has them, every other
 * field from `fill`. Undefined when the parameters have no such layout (format 0 without its unit).
 */
function packetOf(shape: Packet, params: EtraceParams, mode: PacketMode, fill: (name: FieldName, width: number, last: boolean) => bigint): Packet | undefined {
  let fields;
  try {
    fields = packetFields(shape, params, mode);
  } catch {
    return undefined;
  }
  const pkt: Packet = {};
  fields.forEach((f, i) => {
    pkt[f.name] = SELECTORS.has(f.name) && shape[f.name] !== undefined ? shape[f.name] : fill(f.name, f.width, i === fields.length - 1);
  });
  return pkt;
}

/** The encapsulated bytes of a te_data packet, as the output FIFO builds them. */
function dataBytes(params: EtraceParams, packet: DataPacket, atomicSizeField: number): Uint8Array {
  return encapsulate(packData(packet, dataWidths(dataPacketParams(params)), params.payload_layout, atomicSizeField), params, { msgType: MSG_TYPE.data });
}

/** A random te_data packet of the shape: lengths up to the shape's, every field random. */
function randomData(rng: Rng, params: EtraceParams, shape: DataPacket): DataPacket {
  const f: Record<string, bigint> = { ...shape.f };
  for (const len of ['data_len', 'op_len']) if (f[len] !== undefined) f[len] = BigInt(rng.int(0, Number(f[len])));
  if (f.resp !== undefined) f.resp = BigInt(rng.int(0, 3));
  const widths = dataFields({ kind: shape.kind, f }, dataWidths(dataPacketParams(params)), params.payload_layout);
  for (const { name, width } of widths) if (f[name] === undefined || !['size', 'data_len', 'op_len', 'resp'].includes(name)) f[name] = value(rng, width);
  // Values only ever fill their widths; a field absent from the layout (amo-resp's size) stays as it was.
  return { kind: shape.kind, f };
}

/** The packet of the shape with every field 0 but the top bit of the last: nothing compresses away. */
function widestData(params: EtraceParams, shape: DataPacket): DataPacket {
  const f: Record<string, bigint> = { ...shape.f };
  const widths = dataFields(shape, dataWidths(dataPacketParams(params)), params.payload_layout);
  widths.forEach(({ name, width }, i) => {
    if (f[name] === undefined || !['size', 'data_len', 'op_len', 'resp'].includes(name)) f[name] = i === widths.length - 1 ? 1n << BigInt(width - 1) : 0n;
  });
  return { kind: shape.kind, f };
}

describe('reservations: never exceeded, and reached', () => {
  it.each(CONFIGS)('%s', (_, make) => {
    const params = make();
    expect(validateConfig({ params, options: defaultOptions() }).map((e) => e.message)).toEqual([]);
    const rng = new Rng(7);
    for (const kind of RESERVATION_KINDS) {
      const r = reservationBytes(params, kind);
      let largest = 0;
      let count = 0;
      if (kind === 'data') {
        const shapes = dataShapes(params);
        if (!params.dataTrace) expect(r).toBe(0);
        for (let n = 0; n < 3000 && shapes.length > 0; n++) {
          const { packet, atomicSizeField } = rng.pick(shapes);
          const bytes = dataBytes(params, randomData(rng, params, packet), atomicSizeField);
          expect(bytes.length, `${packet.kind}`).toBeLessThanOrEqual(r);
          count++;
        }
        for (const { packet, atomicSizeField } of shapes) largest = Math.max(largest, dataBytes(params, widestData(params, packet), atomicSizeField).length);
        expect([kind, largest]).toEqual([kind, r]);
        if (params.dataTrace) expect(count).toBe(3000);
        continue;
      }
      for (let n = 0; n < 3000; n++) {
        const mode = { implicit_exception: rng.chance(0.5) };
        const pkt = packetOf(randomShape(rng, kind), params, mode, (_name, width) => value(rng, width));
        if (!pkt) continue;
        expect(reservationKind(pkt)).toBe(kind);
        const bytes = packetBytes(pkt, params, mode);
        expect(bytes.length, JSON.stringify(pkt, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).toBeLessThanOrEqual(r);
        count++;
      }
      expect(count, kind).toBeGreaterThan(1000);
      // Tight: over every shape of the kind, the packet whose last field has its top bit set and
      // every other non-selector bit clear keeps all its bits.
      for (let n = 0; n < 400; n++) {
        for (const implicit_exception of [false, true]) {
          const mode = { implicit_exception };
          const pkt = packetOf(randomShape(rng, kind), params, mode, (_name, width, last) => (last ? 1n << BigInt(width - 1) : 0n));
          if (pkt) largest = Math.max(largest, packetBytes(pkt, params, mode).length);
        }
      }
      expect([kind, largest]).toEqual([kind, r]);
    }
  });
});

describe('reservations: golden values from the field tables', () => {
  it('defaultParams (1.1.1, 32-bit addresses, no srcID): support 3, sync 6, trap 11, context 2, report 10, no data', () => {
    // Widths: address = iaddress_width_p 32 - iaddress_lsb_p 1 = 31; tvalepc 32; privilege 3;
    // context_width_p 1 (nocontext_p 0); ecause 4; no time in 1.1.1; no implicit return, predictor
    // or cache (no irdepth/irets, no format 0). Encapsulation: header byte + payload bytes.
    const p = defaultParams();
    // support F3 SF3: format 2 + subformat 2 + enable 1 + encoder_mode 1 + qual_status 2 + options 5 = 13 bits -> 2 bytes, + header = 3.
    expect(reservationBytes(p, 'support')).toBe(3);
    // sync F3 SF0: 2 + 2 + branch 1 + privilege 3 + context 1 + address 31 = 40 bits -> 5 bytes, + 1 = 6.
    expect(reservationBytes(p, 'sync')).toBe(6);
    // trap F3 SF1, implicit exception off: 2 + 2 + 1 + 3 + 1 + ecause 4 + interrupt 1 + address 31 + tvalepc 32 = 77 bits -> 10 bytes, + 1 = 11.
    expect(reservationBytes(p, 'trap')).toBe(11);
    // context F3 SF2: 2 + 2 + privilege 3 + context 1 = 8 bits -> 1 byte, + 1 = 2.
    expect(reservationBytes(p, 'context')).toBe(2);
    // report: F1 with 16-31 branches: format 2 + branches 5 + branch_map 31 + address 31 + notify 1 + updiscon 1 + irreport 1 = 72 bits
    // -> 9 bytes, + 1 = 10 (F2: 2 + 31 + 3 = 36 bits; F1 with branches 0: 2 + 5 + 31 = 38 bits).
    expect(reservationBytes(p, 'report')).toBe(10);
    expect(reservationBytes(p, 'data')).toBe(0);
  });

  it('the RV32 configuration with every optional field, a 4-bit srcID and 32-bit data trace', () => {
    // Widths: address 31, tval 32, privilege 2, ecause 5, context 8, time 16, f0s 1, index 3,
    // irets 8 (Implicit Return extension: a call counter, iret_ext_p 1), iret_ext 1, sijump 1,
    // ioptions 5, doptions 4. Encapsulation: srcID 4 bits share the payload bytes (header.length
    // = ceil((4 + payload bits) / 8)), then the header byte.
    const p = rv32Rich();
    // support 2.0: 2 + 2 + ienable 1 + encoder_mode 1 + qual_status 2 + ioptions 5 + denable 1 + dloss 1 + doptions 4
    // + sijump 1 + iret_ext 1 = 21 bits; 4 + 21 = 25 -> 4 bytes, + 1 = 5.
    expect(reservationBytes(p, 'support')).toBe(5);
    // sync: 2 + 2 + branch 1 + privilege 2 + time 16 + context 8 + address 31 = 62; 66 -> 9 bytes, + 1 = 10.
    expect(reservationBytes(p, 'sync')).toBe(10);
    // trap with address and tval (interrupt 0): 2 + 2 + 1 + 2 + 16 + 8 + ecause 5 + interrupt 1 + thaddr 1 + address 31
    // + tval 32 = 101; 105 -> 14 bytes, + 1 = 15.
    expect(reservationBytes(p, 'trap')).toBe(15);
    // context: 2 + 2 + privilege 2 + time 16 + context 8 = 30; 34 -> 5 bytes, + 1 = 6.
    expect(reservationBytes(p, 'context')).toBe(6);
    // report: F1 with 16-31 branches: 2 + 5 + map 31 + address 31 + notify/updiscon/irreport 3 + irets 8 = 80
    // (F0 SF0 with an address: 2 + f0s 1 + branch_count 32 + branch_fmt 2 + 31 + 3 + 8 = 79; F0 SF1:
    // 2 + 1 + index 3 + 5 + 31 + irreport 1 + irets 8 = 51); 84 -> 11 bytes, + 1 = 12.
    expect(reservationBytes(p, 'report')).toBe(12);
    // data: format 3 (not only unified loads/stores), size 2 (max(1, clog2(clog2(4 + 1)))), diff 2, data_len /
    // op_len 2 bits for a 4-byte access, address 32. The unified atomic: format 3 + subtype 3 + size 2 + diff 2
    // + op_len 2 + operand 32 + data_len 2 + data 32 + address 32 = 110 (CSR with operand: 3 + subtype 2
    // + diff 2 + data_len 2 + 32 + addr_msbs 6 + op_len 2 + 32 + addr_lsbs 6 = 87; load/store: 3 + 2 + 2 + 2
    // + 32 + 32 = 73); 114 -> 15 bytes, + 1 = 16.
    expect(reservationBytes(p, 'data')).toBe(16);
  });
});

describe('validation: the FIFO must hold the largest reservation when pipelined', () => {
  // 2.0, RV64, 64-bit time, 32-bit context, 12-bit ecause, 8-bit srcID. The trap: 2 + 2 + branch 1 +
  // privilege 2 + time 64 + context 32 + ecause 12 + interrupt 1 + thaddr 1 + address 63 + tval 64 =
  // 244 bits -> 31 bytes (the encapsulation's limit), + srcID 1 + header 1 = 33 bytes.
  const sets = ['payload_layout=2.0', 'iaddress_width_p=64', 'privilege_width_p=2', 'context_width_p=32', 'nocontext_p=0', 'notime_p=0', 'time_width_p=64', 'ecause_width_p=12', 'encap_srcid_width=8', 'fifo_depth_p=32'];
  const messages = (extra: string[]): string[] => validateEtraceSettings(resolveSettings('t', ETRACE_SETTINGS, [...sets, ...extra])).map((e) => e.message);

  it('a 32-byte FIFO is enough at pipeline_stages_p = 0, not from 1 on', () => {
    expect(messages([])).toEqual([]);
    for (const l of [1, 4]) expect(messages([`pipeline_stages_p=${l}`])).toEqual(['fifo_depth_p = 32 is below the largest reservation of 33 bytes that pipeline_stages_p >= 1 needs']);
    expect(messages(['pipeline_stages_p=1', 'fifo_depth_p=33'])).toEqual([]);
  });

  it('pipeline_stages_p outside 0..4', () => {
    expect(validateConfig({ params: { ...defaultParams(), pipeline_stages_p: 5 }, options: defaultOptions() }).map((e) => e.message)).toEqual(['pipeline_stages_p must be 0..4, not 5']);
  });
});
