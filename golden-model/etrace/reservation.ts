/**
 * Reservations of the pipelined output (pipeline_stages_p >= 1, docs/etrace-model.md "Pipeline"):
 * the output FIFO accepts a packet by the largest size a packet of its kind can have, a constant of
 * the parameters, so that the decision does not wait for the packet's bytes.
 *
 * The sizes come from the field tables the packer uses (packet/fields.ts, data/packets.ts): for
 * every layout a kind can take (each subformat / selector combination, both implicit exception
 * modes, every data access size), the payload bits before sign compression, of which compression
 * keeps at most all; rounded up to bytes with the encapsulation's prefix bits, plus the header and
 * the whole source id bytes. The model never sends a timestamp (header.extend is always 0), so no
 * timestamp bytes are reserved.
 */
import { type Packet, packetFields, type PacketMode } from './packet/fields.ts';
import { encapPrefixBits, type PacketParams } from './packet/params.ts';
import { type DataPacket, dataFields } from './data/packets.ts';
import { type DataParams, dataPacketParams, dataWidths } from './data/params.ts';

export type ReservationKind = 'support' | 'sync' | 'trap' | 'context' | 'report' | 'data';

export const RESERVATION_KINDS: readonly ReservationKind[] = ['support', 'sync', 'trap', 'context', 'report', 'data'];

/**
 * The parameters a reservation depends on: EtraceParams (config.ts) has them all. Named
 * structurally so that config.ts, which validates with these sizes, and this module do not import
 * each other.
 */
export type ReservationParams = PacketParams & { readonly dataTrace?: DataParams };

/** The kind of an instruction-trace packet: F3 SF3 support, F3 SF0 sync, F3 SF1 trap, F3 SF2 context, F0/F1/F2 report. */
export function reservationKind(p: Packet): ReservationKind {
  if (p.format !== 3n) return 'report';
  switch (p.subformat) {
    case 0n:
      return 'sync';
    case 1n:
      return 'trap';
    case 2n:
      return 'context';
    default:
      return 'support';
  }
}

/** Bytes of an encapsulated packet whose payload keeps `payloadBits` bits (encapsulate.ts). */
export function encapsulatedBytes(params: PacketParams, payloadBits: number): number {
  return 1 + Math.floor(params.encap_srcid_width / 8) + Math.ceil((encapPrefixBits(params) + payloadBits) / 8);
}

const memo = new WeakMap<ReservationParams, Readonly<Record<ReservationKind, number>>>();

/**
 * The largest encapsulated size in bytes (header, source id, timestamp, payload) a packet of the
 * kind can have under these parameters, for any run-time options and field values. 0 for 'data'
 * without data trace (no te_data packet exists).
 */
export function reservationBytes(params: ReservationParams, kind: ReservationKind): number {
  let table = memo.get(params);
  if (!table) {
    table = reservationTable(params);
    memo.set(params, table);
  }
  return table[kind];
}

/** The largest reservation of the parameters (what the FIFO must hold for a stall to end). */
export function largestReservation(params: ReservationParams): number {
  return Math.max(...RESERVATION_KINDS.map((k) => reservationBytes(params, k)));
}

function reservationTable(params: ReservationParams): Record<ReservationKind, number> {
  const bytes = (bits: number): number => (bits > 0 ? encapsulatedBytes(params, bits) : 0);
  return {
    support: bytes(maxInstructionBits(params, [{ format: 3n, subformat: 3n }])),
    sync: bytes(maxInstructionBits(params, [{ format: 3n, subformat: 0n }])),
    trap: bytes(maxInstructionBits(params, trapShapes())),
    context: bytes(maxInstructionBits(params, [{ format: 3n, subformat: 2n }])),
    report: bytes(maxInstructionBits(params, reportShapes())),
    data: bytes(maxDataBits(params)),
  };
}

/** F3 SF1 with every interrupt / thaddr selector (2.0 reads them; 1.1.1 ignores thaddr). */
function trapShapes(): Packet[] {
  const out: Packet[] = [];
  for (const interrupt of [0n, 1n]) for (const thaddr of [0n, 1n]) out.push({ format: 3n, subformat: 1n, interrupt, thaddr });
  return out;
}

/**
 * F0, F1, F2 with every selector value: F0 subformat 0 with each branch_fmt, F0 subformat 1 and F1
 * with each branch count (which sets the branch map width), F2. Shapes these parameters cannot
 * produce (format 0 without its predictor or cache) are skipped by `maxInstructionBits`.
 */
function reportShapes(): Packet[] {
  const out: Packet[] = [{ format: 2n }];
  for (const branch_fmt of [0n, 2n, 3n]) out.push({ format: 0n, subformat: 0n, branch_fmt });
  for (let b = 0n; b <= 31n; b++) {
    out.push({ format: 1n, branches: b });
    out.push({ format: 0n, subformat: 1n, branches: b });
  }
  return out;
}

/** The most payload bits of the shapes, in both implicit exception modes (a run-time option). */
function maxInstructionBits(params: PacketParams, shapes: readonly Packet[]): number {
  let max = 0;
  for (const shape of shapes) {
    for (const implicit_exception of [false, true]) {
      const mode: PacketMode = { implicit_exception };
      let fields;
      try {
        fields = packetFields(shape, params, mode);
      } catch {
        continue; // a shape these parameters cannot produce
      }
      max = Math.max(max, fields.reduce((sum, f) => sum + f.width, 0));
    }
  }
  return max;
}

/**
 * The te_data packets the parameters allow, each at its widest: every access size the data bus
 * carries (dsize with 8 << dsize <= data_width_p), data_len / op_len at the whole access. The
 * largest payload is what `maxDataBits` reserves; the tests draw random packets from these shapes.
 */
export function dataShapes(params: ReservationParams): { packet: DataPacket; atomicSizeField: number }[] {
  if (!params.dataTrace) return [];
  const dp = dataPacketParams(params);
  const out: { packet: DataPacket; atomicSizeField: number }[] = [];
  const add = (kind: DataPacket['kind'], f: Record<string, bigint>, atomicSizeField = 0): void => {
    out.push({ packet: { kind, f }, atomicSizeField });
  };
  const largest = Math.log2(dp.data_width_p / 8);
  for (let s = 0; s <= largest; s++) {
    const size = BigInt(s);
    const whole = BigInt((1 << s) - 1); // data_len / op_len: bytes - 1
    add('ls', { size, data_len: whole });
    add('ls-addr', { size });
    add('ls-data', { size });
    if (dp.data_split_p) {
      add('load-req', { size });
      add('load-resp', { size, resp: 1n });
    }
    if (dp.data_atomics_p && s >= 2) {
      // Atomics are 4 or 8 bytes; the size field codes them as 2.0 or the seed's table says.
      const sizeField = dp.payload_layout === '2.0' ? s : s - 2;
      const head = { size: BigInt(sizeField) };
      add('amo', { ...head, op_len: whole, data_len: whole }, sizeField);
      add('amo-addr', head, sizeField);
      add('amo-data', { ...head, op_len: whole }, sizeField);
      if (dp.data_split_p) {
        add('amo-req', { ...head, op_len: whole }, sizeField);
        add('amo-req-noaddr', head, sizeField);
        add('amo-resp', { resp: 1n, data_len: whole, size: BigInt(sizeField) }, sizeField);
      }
    }
  }
  // CSR values are XLEN wide (data/encoder.ts) and must fit the data bus.
  const csrSize = dp.iaddress_width_p > 32 ? 3 : 2;
  if (dp.data_csr_p && 8 << csrSize <= dp.data_width_p) {
    const whole = BigInt((1 << csrSize) - 1);
    add('csr', { data_len: whole, op_len: whole });
    add('csr', { data_len: whole }); // read-only CSR: no operand
    add('csr-addr', {});
  }
  return out;
}

function maxDataBits(params: ReservationParams): number {
  if (!params.dataTrace) return 0;
  const w = dataWidths(dataPacketParams(params));
  let max = 0;
  for (const { packet } of dataShapes(params)) {
    max = Math.max(max, dataFields(packet, w, params.payload_layout).reduce((sum, f) => sum + f.width, 0));
  }
  return max;
}
