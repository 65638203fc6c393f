/**
 * N-Trace packet dump: one line per message (byte offset, TCODE number and name, every field by
 * name) and per-TCODE statistics for an `info`-style summary.
 *
 * Field values: fixed-width code fields (SRC, SYNC, B-TYPE, ETYPE, RCODE, EVCODE, CDF) print in
 * decimal (they are codes of at most 4 bits, so 0..9 read the same in hex); variable fields print
 * in hex with 0x. Example: `0x0004 IndirectBranchHist(28) B-TYPE=0 I-CNT=0x5 U-ADDR=0x0 HIST=0x3`.
 * A field made of sub-fields (Ownership's PROCESS) prints its value, then each sub-field the same
 * way: `0x0004 Ownership(2) PROCESS=0x3b2 FORMAT=2 PRV=0 V=1 CONTEXT=0x1d`.
 */
import { parseNtrace, tcodeName, type FramingConfig, type NtraceField, type NtraceMessage, type ParsedItem } from './mseo.ts';

const offsetText = (n: number): string => `0x${n.toString(16).padStart(4, '0')}`;
const fieldText = (f: NtraceField): string => `${f.name}=${f.variable ? `0x${f.value.toString(16)}` : f.value.toString()}`;

/** One dump line for a message or a framing error. */
export function dumpLine(item: ParsedItem): string {
  if (item.kind === 'error') return `${offsetText(item.offset)} error: ${item.message}`;
  return [
    offsetText(item.offset),
    `${item.name}(${item.tcode})`,
    ...item.fields.flatMap((f) => [fieldText(f), ...(f.parts ?? []).map(fieldText)]),
  ].join(' ');
}

/** The dump of a whole stream, a line per message or framing error. */
export function dumpNtrace(bytes: Uint8Array, c: FramingConfig): string[] {
  return parseNtrace(bytes, c).map(dumpLine);
}

export interface TcodeStats {
  readonly tcode: number;
  readonly name: string;
  count: number;
  /** Bytes of these messages (idle bytes excluded). */
  bytes: number;
}

export interface NtraceStats {
  /** Per TCODE, in TCODE order. */
  readonly perTcode: TcodeStats[];
  readonly messages: number;
  /** Bytes in messages. */
  readonly messageBytes: number;
  /** Idle (0xFF) bytes between messages. */
  readonly idleBytes: number;
  readonly errors: number;
  readonly totalBytes: number;
}

/** Counts messages and bytes per TCODE. `bytes` is the stream the items were parsed from (for the idle count). */
export function ntraceStats(items: readonly ParsedItem[], bytes: Uint8Array): NtraceStats {
  const map = new Map<number, TcodeStats>();
  let messages = 0;
  let messageBytes = 0;
  let errors = 0;
  for (const it of items) {
    if (it.kind === 'error') {
      errors++;
      continue;
    }
    const s = map.get(it.tcode) ?? { tcode: it.tcode, name: tcodeName(it.tcode), count: 0, bytes: 0 };
    s.count++;
    s.bytes += it.length;
    map.set(it.tcode, s);
    messages++;
    messageBytes += it.length;
  }
  // Idle bytes: 0xFF outside the messages.
  const inMessage = new Uint8Array(bytes.length);
  for (const it of items) if (it.kind === 'message') inMessage.fill(1, it.offset, it.offset + it.length);
  let idleBytes = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0xff && !inMessage[i]) idleBytes++;
  return {
    perTcode: [...map.values()].sort((a, b) => a.tcode - b.tcode),
    messages,
    messageBytes,
    idleBytes,
    errors,
    totalBytes: bytes.length,
  };
}

/** Messages only (framing errors dropped). */
export function messagesOf(items: readonly ParsedItem[]): NtraceMessage[] {
  return items.filter((i): i is NtraceMessage => i.kind === 'message');
}
