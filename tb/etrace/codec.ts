/**
 * The E-Trace encoder's trace codec (core/block.ts TraceCodec): the encapsulated te_inst byte stream
 * of the model's output FIFO (golden-model/etrace/output.ts), its decoder (decoder.ts, with the trap
 * handler table of implicit exception mode) and its packet dump (packet/dump.ts).
 */
import type { DecodedTraceItem, TraceCodec, TraceStats } from '../../core/block.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { decodeStream, type TrapEntry } from '../../golden-model/etrace/decoder.ts';
import { encodeStream, StreamEncoder } from '../../golden-model/etrace/output.ts';
import {
  dumpStream,
  KIND_NAMES,
  MSG_TYPE,
  optionsOf,
  packetKind,
  type DumpOptions,
  type PacketKind,
  type PacketParams,
  splitStream,
  unpackPacket,
} from '../../golden-model/etrace/packet/index.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import type { ProgramImage } from '../../golden-model/hart/image.ts';
import { attachAccesses } from '../../golden-model/etrace/data-decoder/attach.ts';
import { decodeDataStream, toDataTrace, type DecodedData } from '../../golden-model/etrace/data-decoder/decoder.ts';
import { writeEtraceDataCsv } from '../../golden-model/hart/formats/etrace-data-csv.ts';
import { writeOutputAtomic } from '../../core/io.ts';
import { dataPacketDump } from '../../golden-model/etrace/data-decoder/dump.ts';

/** `decode --data-out`: the decoded accesses in the reference flow's data CSV (`DRETIRE,DTYPE,DADDR,DSIZE,DATA`). */
function writeDecodedDataCsv(file: string, data: DecodedData): void {
  writeOutputAtomic(file, writeEtraceDataCsv(toDataTrace(data)));
}

/**
 * The data side of a stream: the accesses and split-load responses its te_data packets give back,
 * each access attached to its instruction among the decoded instruction addresses.
 */
export function decodeEtraceData(bytes: Uint8Array, image: ProgramImage, config: EtraceConfig, pcs: readonly bigint[]): DecodedData {
  const data = decodeDataStream(bytes, config.params);
  attachAccesses(data.accesses, pcs, image, xlenOf(config), config.params.dataTrace!, config.options);
  return data;
}

/** `--trap-handler ADDR` or `CAUSE=ADDR,...,default=ADDR` for implicit exception mode. */
function trapHandlers(text: string | undefined): ((trap: TrapEntry) => bigint) | undefined {
  if (text === undefined) return undefined;
  const table = new Map<string, bigint>();
  for (const part of text.split(',')) {
    const m = /^(?:(i?\d+|default)=)?(0x[0-9a-f]+|\d+)$/i.exec(part.trim());
    if (!m) throw new RvError('bad-option', `--trap-handler ${text}: expected ADDR or CAUSE=ADDR,... (iN for interrupt N, default=ADDR)`);
    table.set((m[1] ?? 'default').toLowerCase(), BigInt(m[2]!));
  }
  return ({ cause, interrupt }) => {
    const a = table.get(interrupt ? `i${cause}` : String(cause)) ?? table.get('default');
    if (a === undefined) throw new RvError('bad-option', `--trap-handler gives no handler for ${interrupt ? 'interrupt' : 'exception'} cause ${cause}`);
    return a;
  };
}

const DATA_FORMAT_NAMES = ['load-aligned', 'load-unaligned', 'store-aligned', 'store-unaligned', 'split-load-data', 'csr', 'atomic', 'split-atomic-data'];

/** The statistics row of a te_data packet: its format code (the low 2 or 3 payload bits) and name. */
function dataKind(payload: Uint8Array, params: PacketParams): string {
  const d = (params as EtraceConfig['params']).dataTrace;
  if (!d) return 'data';
  const format = (payload[0] ?? 0) & (d.data_split_p || d.data_atomics_p || d.data_csr_p ? 7 : 3);
  return `D${format} ${DATA_FORMAT_NAMES[format]}`;
}

const xlenOf = (c: EtraceConfig): Xlen => (c.params.iaddress_width_p > 32 ? 64 : 32);

/** Statistics rows in format/subformat order, data packets last. */
const KINDS: readonly PacketKind[] = ['F0.SF0', 'F0.SF1', 'F1', 'F2', 'F3.SF0', 'F3.SF1', 'F3.SF2', 'F3.SF3'];

/**
 * Packets and bytes per format and subformat. The packets are read as `dumpStream` reads them: the
 * layout of trap packets and the meaning of addresses follow the options of the last support packet.
 */
function etraceStats(bytes: Uint8Array, params: PacketParams): TraceStats {
  const rows = new Map<string, { kind: string; count: number; bytes: number }>();
  let mode: DumpOptions = {};
  let inPackets = 0;
  for (const sp of splitStream(bytes, params)) {
    // splitStream does not return a packet's size; its header gives it, as splitStream reads it:
    // header, srcID bytes, the timestamp when the header's extend bit says so, then the payload.
    const header = bytes[sp.offset]!;
    const size = 1 + Math.floor(params.encap_srcid_width / 8) + (header & 0x80 ? params.encap_timestamp_width / 8 : 0) + (header & 0x1f);
    let kind = dataKind(sp.payload, params);
    if (sp.msgType === MSG_TYPE.instruction) {
      const pkt = unpackPacket(sp.payload, params, sp.payloadOffset, mode);
      const k = packetKind(pkt, params);
      kind = `${k} ${KIND_NAMES[k]}`;
      if (k === 'F3.SF3') {
        const o = optionsOf(pkt);
        mode = { full_address: o.full_address, implicit_exception: o.implicit_exception };
      }
    }
    const row = rows.get(kind) ?? { kind, count: 0, bytes: 0 };
    row.count++;
    row.bytes += size;
    rows.set(kind, row);
    inPackets += size;
  }
  const order = (kind: string): number => {
    const i = KINDS.indexOf(kind.split(' ')[0] as PacketKind);
    return i < 0 ? KINDS.length : i;
  };
  return { rowsAre: 'format', rows: [...rows.values()].sort((a, b) => order(a.kind) - order(b.kind)), otherBytes: bytes.length - inPackets };
}

export const etraceCodec: TraceCodec<EtraceConfig> = {
  units: 'packets',
  xlen: xlenOf,
  encode(records, config, { ready, data }) {
    const r = encodeStream(records, config, { keepPackets: false, ...(ready ? { ready } : {}), ...(data ? { data } : {}) });
    return { bytes: r.bytes, count: r.packetCount, lost: r.dropped, stallCycles: r.stallCycles };
  },
  encodePieces(pieces, config, { ready }) {
    const encoder = new StreamEncoder(config, { keepPackets: false, ...(ready ? { ready } : {}) });
    for (const piece of pieces) for (const record of piece) encoder.push(record);
    const r = encoder.finish();
    return { bytes: r.bytes, count: r.packetCount, lost: r.dropped, stallCycles: r.stallCycles };
  },
  tracesData: (config) => config.params.dataTrace !== undefined,
  decodeOptions: [
    {
      name: 'trap-handler',
      argument: '<SPEC>',
      help: 'E-Trace: trap handler addresses for implicit exception mode: ADDR, or CAUSE=ADDR,iN=ADDR,default=ADDR',
    },
    {
      name: 'data-out',
      argument: '<FILE>',
      help: "E-Trace data trace: write the decoded data accesses to FILE in the reference flow's data CSV",
    },
  ],
  decode(bytes, image, config, options): DecodedTraceItem[] {
    const out = options['data-out'];
    if (out !== undefined && !config.params.dataTrace) throw new RvError('bad-option', `--data-out ${out}: the component has no data trace (data_trace_p = 0)`);
    const items = decodeStream(bytes, image, { params: config.params, xlen: xlenOf(config), trapHandler: trapHandlers(options['trap-handler']) });
    if (out !== undefined) {
      const pcs = items.flatMap((i) => (i.kind === 'pc' ? [i.address] : []));
      writeDecodedDataCsv(out, decodeEtraceData(bytes, image, config, pcs));
    }
    return items;
  },
  dump: (bytes, config) => dumpStream(bytes, config.params, {}, config.params.dataTrace ? dataPacketDump(config.params) : undefined),
  stats: (bytes, config) => etraceStats(bytes, config.params),
};
