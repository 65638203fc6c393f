/**
 * Text dump of te_inst packets for `rvtrace dump`, one line per packet, like a protocol analyser:
 *
 *   00001b  F3.SF1 trap  branch=1 privilege=3 context=0x0 ecause=0x2 interrupt=0 thaddr=1 address=0x80000038 tval=0x0
 *
 * The format is stable (tests and users diff it):
 * - The byte offset of the packet (of its encapsulation header in a stream), hex, at least 6 digits.
 * - Two spaces, the kind (F0.SF0 .. F3.SF3, F1, F2), one space, its name (KIND_NAMES), two spaces.
 * - Every transmitted field in transmission order as name=value, one space apart; format and
 *   subformat are given by the kind and not repeated. In a stream with srcID or timestamps
 *   configured, `srcid=` and `timestamp=` come first.
 * - Values: `address` as a byte address (field << iaddress_lsb_p) in hex; in formats 0, 1 and 2
 *   it is differential, shown as a signed hex byte offset (`-0x8`), unless full-address mode is on.
 *   tval, tvalepc, ecause, context, time and timestamp in hex; branch_map, options, ioptions and
 *   doptions in binary with all their bits; qual_status and branch_fmt as number(name); the rest
 *   decimal.
 * - Data trace packets (message type 3) are not decoded: `data  payload=<hex bytes>`.
 */
import { splitStream } from './encapsulate.ts';
import { KIND_NAMES, optionsOf, packetFields, packetKind, type Packet, type PacketMode } from './fields.ts';
import { unpackPacket } from './pack.ts';
import { packetWidths, type PacketParams } from './params.ts';

export interface DumpOptions {
  /** Formats 0/1/2 carry full addresses (full-address mode), so show them unsigned. */
  readonly full_address?: boolean;
  readonly implicit_exception?: boolean;
}

const HEX_FIELDS = new Set(['tval', 'tvalepc', 'ecause', 'context', 'time']);
const BINARY_FIELDS = new Set(['branch_map', 'options', 'ioptions', 'doptions']);
const QUAL_NAMES = ['no_change', 'ended_rep', 'trace_lost'];
const BRANCH_FMT_NAMES = ['no-addr', 'reserved', 'addr', 'addr-fail'];

function hex(v: bigint): string {
  return v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`;
}

function offsetText(offset: number): string {
  return offset.toString(16).padStart(6, '0');
}

/** One dump line for an unpacked packet. */
export function dumpPacket(pkt: Packet, params: PacketParams, offset: number, opts: DumpOptions = {}, prefix: string[] = []): string {
  const kind = packetKind(pkt, params);
  const w = packetWidths(params);
  const parts = [...prefix];
  for (const f of packetFields(pkt, params, opts)) {
    if (f.name === 'format' || f.name === 'subformat') continue;
    const v = pkt[f.name] ?? 0n;
    let text: string;
    if (f.name === 'address') {
      const differential = !kind.startsWith('F3') && !opts.full_address;
      const value = differential ? BigInt.asIntN(w.address, v) : v;
      text = hex(value << BigInt(params.iaddress_lsb_p));
    } else if (HEX_FIELDS.has(f.name)) {
      text = hex(v);
    } else if (BINARY_FIELDS.has(f.name)) {
      text = `0b${v.toString(2).padStart(f.width, '0')}`;
    } else if (f.name === 'qual_status') {
      const ended3 = params.payload_layout === '2.0' ? 'ended_ntr' : 'ended_upd';
      text = `${v}(${[...QUAL_NAMES, ended3][Number(v)]})`;
    } else if (f.name === 'branch_fmt') {
      text = `${v}(${BRANCH_FMT_NAMES[Number(v)]})`;
    } else {
      text = v.toString();
    }
    parts.push(`${f.name}=${text}`);
  }
  return `${offsetText(offset)}  ${kind} ${KIND_NAMES[kind]}  ${parts.join(' ')}`.trimEnd();
}

/**
 * Dumps an encapsulated byte stream. The layout of trap packets and the meaning of addresses depend
 * on run-time options, which the dump learns from each support packet (starting from `initial`).
 * Errors (RvError with the byte offset) propagate.
 */
/**
 * The dump of te_data packets (data trace), kept by the data decoder: it sees every packet, since
 * the instruction trace's syncs and support packets steer how data packets read.
 */
export interface DataPacketDump {
  instruction(payload: Uint8Array, payloadOffset: number): void;
  /** The line of a data packet (after the offset), every field named. */
  data(payload: Uint8Array, offset: number): string;
}

export function dumpStream(bytes: Uint8Array, params: PacketParams, initial: DumpOptions = {}, dataDump?: DataPacketDump): string[] {
  let mode: DumpOptions = initial;
  const lines: string[] = [];
  for (const sp of splitStream(bytes, params)) {
    const prefix: string[] = [];
    if (params.encap_srcid_width > 0) prefix.push(`srcid=${sp.srcId}`);
    if (sp.timestamp !== undefined) prefix.push(`timestamp=${hex(sp.timestamp)}`);
    if (sp.msgType !== 2 && dataDump) {
      lines.push(`${offsetText(sp.offset)}  ${[...prefix, dataDump.data(sp.payload, sp.offset)].join(' ')}`);
      continue;
    }
    dataDump?.instruction(sp.payload, sp.payloadOffset);
    if (sp.msgType !== 2) {
      const bytesText = Array.from(sp.payload, (b) => b.toString(16).padStart(2, '0')).join('');
      lines.push(`${offsetText(sp.offset)}  data  ${[...prefix, `payload=${bytesText}`].join(' ')}`);
      continue;
    }
    const pkt = unpackPacket(sp.payload, params, sp.payloadOffset, mode satisfies PacketMode);
    lines.push(dumpPacket(pkt, params, sp.offset, mode, prefix));
    if (packetKind(pkt, params) === 'F3.SF3') {
      const o = optionsOf(pkt);
      mode = { full_address: o.full_address, implicit_exception: o.implicit_exception };
    }
  }
  return lines;
}
