/**
 * One dump line per te_data packet: the format code with its name, the packet's table and every
 * field by name (values in hex, lengths and codes in decimal with their meaning), followed by what
 * the decoder made of it.
 */
import type { EtraceParams } from '../config.ts';
import type { DataPacketDump } from '../packet/dump.ts';
import { DataDecoder } from './decoder.ts';

const FORMAT_NAMES = ['load-aligned', 'load-unaligned', 'store-aligned', 'store-unaligned', 'split-load-data', 'csr', 'atomic', 'split-atomic-data'];
const ATOMIC = ['swap', 'add', 'and', 'or', 'xor', 'max', 'min', 'reserved'];
const CSR = ['rw', 'rs', 'rc', 'reserved'];
const RESP = ['error', 'xor', 'full', 'diff'];
const DECIMAL = new Set(['size', 'data_len', 'op_len', 'lrid', 'diff']);

const hex = (v: bigint): string => `0x${v.toString(16)}`;

export function dataPacketDump(params: EtraceParams): DataPacketDump {
  const d = new DataDecoder(params);
  return {
    instruction: (payload, offset) => d.instructionPacket(payload, offset),
    data(payload, offset) {
      const before = d.out.accesses.length + d.out.responses.length;
      const pkt = d.dataPacket(payload, offset);
      const format = Number(pkt.fields[0]![1]);
      const parts = pkt.fields.slice(1).map(([name, v]) => {
        if (name === 'subtype') return `subtype=${v}(${format === 5 ? CSR[Number(v)] : ATOMIC[Number(v)]})`;
        if (name === 'resp') return `resp=${v}(${RESP[Number(v)]})`;
        return `${name}=${DECIMAL.has(name) ? v.toString() : hex(v)}`;
      });
      const got = [...d.out.accesses, ...d.out.responses].length > before ? decodedText(d) : '';
      return `D${format} ${FORMAT_NAMES[format]} (${pkt.table})  ${parts.join(' ')}${got}`;
    },
  };
}

function decodedText(d: DataDecoder): string {
  const a = d.out.accesses[d.out.accesses.length - 1];
  const r = d.out.responses[d.out.responses.length - 1];
  const last = a && (!r || a.offset >= r.offset) ? a : undefined;
  if (last) {
    const parts = [`dtype=${last.dtype}`, `dsize=${last.dsize}`];
    if (last.daddr !== undefined) parts.push(`daddr=${hex(last.daddr)}`);
    if (last.data !== undefined) parts.push(`value=${hex(last.data)}`);
    return `  -> ${parts.join(' ')}`;
  }
  return `  -> lid=${r!.lid} lresp=${r!.lresp}${r!.ldata !== undefined ? ` ldata=${hex(r!.ldata)}` : ''}`;
}
