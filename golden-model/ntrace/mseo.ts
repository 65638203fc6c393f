/**
 * N-Trace message framing on the decoder side: a byte stream -> messages with their fields by
 * name, or framing errors with the byte offset where they were found.
 *
 * Written from the ratified N-Trace 1.0 specification (messages details, field encoding) and the
 * IEEE-ISTO 5001 byte format it builds on: each byte is MDO[5:0] << 2 | MSEO[1:0]; MSEO 00 starts a
 * message or continues a field, 01 ends a variable field that is not the last one, 11 ends the
 * message, 10 is reserved. Fields are least significant bit first. Fixed fields follow each other
 * without padding; a variable field starts right after the previous field and ends at the end of
 * the first byte whose MSEO is 01 or 11 (the rest of that byte is padding). Idle bytes (0xFF)
 * between messages are skipped.
 *
 * Independent of the encoder: nothing here is shared with it.
 */
import type { NtraceConfig } from './settings.ts';

/** The TCODEs N-Trace uses (IEEE-ISTO 5001 numbering). */
export const TCODE = {
  Ownership: 2,
  DirectBranch: 3,
  IndirectBranch: 4,
  Error: 8,
  ProgTraceSync: 9,
  DirectBranchSync: 11,
  IndirectBranchSync: 12,
  ResourceFull: 27,
  IndirectBranchHist: 28,
  IndirectBranchHistSync: 29,
  RepeatBranch: 30,
  ProgTraceCorrelation: 33,
} as const;

const NAMES = new Map<number, string>(Object.entries(TCODE).map(([name, code]) => [code, name]));

/** The message name of a TCODE, or `TCODE<n>` for one N-Trace does not define. */
export function tcodeName(tcode: number): string {
  return NAMES.get(tcode) ?? `TCODE${tcode}`;
}

export interface NtraceField {
  readonly name: string;
  readonly value: bigint;
  /** Bits the field occupies in the message (for a variable field: up to the end of its last byte). */
  readonly width: number;
  readonly variable: boolean;
  /**
   * The sub-fields a field is made of, least significant first (Ownership's PROCESS: FORMAT, PRV,
   * V, and CONTEXT when FORMAT is 2 or 3 or the bits above V are not 0). `width` of a sub-field is
   * its share of the field's bits; CONTEXT is marked variable (it is as long as the field).
   */
  readonly parts?: readonly NtraceField[];
}

export interface NtraceMessage {
  readonly kind: 'message';
  /** Byte offset of the message's first byte (the one holding TCODE). */
  readonly offset: number;
  /** Bytes of the message, idle bytes excluded. */
  readonly length: number;
  readonly tcode: number;
  readonly name: string;
  /** False for a TCODE (or an RCODE/CDF) whose fields N-Trace does not define: fields are then named VAR0, VAR1, ... */
  readonly known: boolean;
  /** Every field after TCODE, in the order sent (SRC first when configured, TSTAMP last when present). */
  readonly fields: readonly NtraceField[];
}

export interface FramingError {
  readonly kind: 'error';
  /** Byte offset of the offending byte (or of the start of the message that is cut short or malformed). */
  readonly offset: number;
  readonly message: string;
}

export type ParsedItem = NtraceMessage | FramingError;

/** The value of a field (or of a sub-field such as PRV) by name, or undefined when the message does not carry it. */
export function fieldValue(msg: NtraceMessage, name: string): bigint | undefined {
  for (const f of msg.fields) if (f.name === name) return f.value;
  for (const f of msg.fields) for (const p of f.parts ?? []) if (p.name === name) return p.value;
  return undefined;
}

/**
 * The sub-fields of an Ownership message's PROCESS (N-Trace 1.0 "Ownership Message"):
 * PROCESS[x+5:0] = {CONTEXT[x:0], V, PRV[1:0], FORMAT[1:0]}. FORMAT 0: V/PRV change, no CONTEXT;
 * 1: reserved; 2: sync or scontext change (CONTEXT = scontext); 3: sync or hcontext change
 * (CONTEXT = hcontext). PROCESS is one variable field, so it may be narrower than 5 bits (its value
 * then has zeros above): the sub-fields come from the value, not from fixed bit positions in the
 * bytes.
 */
export function processParts(process: bigint, width: number): NtraceField[] {
  const format = process & 3n;
  const parts: NtraceField[] = [
    { name: 'FORMAT', value: format, width: 2, variable: false },
    { name: 'PRV', value: (process >> 2n) & 3n, width: 2, variable: false },
    { name: 'V', value: (process >> 4n) & 1n, width: 1, variable: false },
  ];
  const context = process >> 5n;
  if (format >= 2n || context !== 0n) parts.push({ name: 'CONTEXT', value: context, width: Math.max(0, width - 5), variable: true });
  return parts;
}

/** The field by name, or undefined. */
export function fieldOf(msg: NtraceMessage, name: string): NtraceField | undefined {
  return msg.fields.find((f) => f.name === name);
}

/** What the parser needs of the configuration. */
export type FramingConfig = Pick<NtraceConfig, 'srcWidth' | 'timestamp'>;

interface Layout {
  fixed: readonly (readonly [string, number])[];
  /** The variable fields, given the fixed fields' values; undefined = not defined (reserved code). */
  vars: (fixed: ReadonlyMap<string, number>) => readonly string[] | undefined;
}

const ADDR_MSG = (addr: string, hist: boolean) => (): readonly string[] => (hist ? ['I-CNT', addr, 'HIST'] : ['I-CNT', addr]);

/** Fixed fields (name, bits) and variable fields of each message, in the order sent (after TCODE and SRC). */
const LAYOUTS = new Map<number, Layout>([
  [TCODE.Ownership, { fixed: [], vars: () => ['PROCESS'] }],
  [TCODE.DirectBranch, { fixed: [], vars: () => ['I-CNT'] }],
  [TCODE.IndirectBranch, { fixed: [['B-TYPE', 2]], vars: ADDR_MSG('U-ADDR', false) }],
  [TCODE.Error, { fixed: [['ETYPE', 4]], vars: () => ['ECODE'] }],
  [TCODE.ProgTraceSync, { fixed: [['SYNC', 4]], vars: ADDR_MSG('F-ADDR', false) }],
  [TCODE.DirectBranchSync, { fixed: [['SYNC', 4]], vars: ADDR_MSG('F-ADDR', false) }],
  [TCODE.IndirectBranchSync, { fixed: [['SYNC', 4], ['B-TYPE', 2]], vars: ADDR_MSG('F-ADDR', false) }],
  [
    TCODE.ResourceFull,
    {
      fixed: [['RCODE', 4]],
      vars: (f) => {
        const rcode = f.get('RCODE')!;
        return rcode === 2 ? ['RDATA', 'HREPEAT'] : rcode <= 1 ? ['RDATA'] : undefined;
      },
    },
  ],
  [TCODE.IndirectBranchHist, { fixed: [['B-TYPE', 2]], vars: ADDR_MSG('U-ADDR', true) }],
  [TCODE.IndirectBranchHistSync, { fixed: [['SYNC', 4], ['B-TYPE', 2]], vars: ADDR_MSG('F-ADDR', true) }],
  [TCODE.RepeatBranch, { fixed: [], vars: () => ['B-CNT'] }],
  [
    TCODE.ProgTraceCorrelation,
    {
      fixed: [['EVCODE', 4], ['CDF', 2]],
      vars: (f) => {
        const cdf = f.get('CDF')!;
        return cdf === 0 ? ['I-CNT'] : cdf === 1 ? ['I-CNT', 'HIST'] : undefined;
      },
    },
  ],
]);

const hex2 = (n: number): string => `0x${n.toString(16).padStart(4, '0')}`;

/**
 * Splits a byte stream into messages and framing errors, in stream order. Never throws.
 *
 * Framing rules: outside a message, 0xFF is idle and skipped; any other byte must start a message
 * (MSEO 00). A message ends at the first byte with MSEO 11. MSEO 10 (reserved) anywhere, a message
 * starting with MSEO 01/11, or a stream that ends inside a message is a framing error; after one,
 * bytes are skipped up to and including the next MSEO 11 byte (the end of the damaged message), and
 * parsing restarts there. A message whose bytes do not hold its fields (too short for its fixed
 * fields, a variable field missing, an extra field) is an error at the message's offset.
 */
export function parseNtrace(bytes: Uint8Array, c: FramingConfig): ParsedItem[] {
  const out: ParsedItem[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === 0xff) {
      i++;
      continue;
    }
    const mseo = b & 3;
    if (mseo !== 0) {
      out.push({
        kind: 'error',
        offset: i,
        message:
          mseo === 2
            ? `reserved MSEO 10 at byte offset ${hex2(i)}`
            : `byte 0x${b.toString(16).padStart(2, '0')} at offset ${hex2(i)} with MSEO ${mseo === 1 ? '01' : '11'} outside a message (a message starts with MSEO 00)`,
      });
      i = skipPastEnd(bytes, i + (mseo === 3 ? 0 : 1));
      continue;
    }
    // Collect the message: up to the first MSEO 11 byte.
    const start = i;
    let j = i;
    let bad = -1;
    while (j < bytes.length) {
      const m = bytes[j]! & 3;
      if (m === 2) {
        bad = j;
        break;
      }
      if (m === 3) break;
      j++;
    }
    if (bad >= 0) {
      out.push({ kind: 'error', offset: bad, message: `reserved MSEO 10 at byte offset ${hex2(bad)} (message from ${hex2(start)} dropped)` });
      i = skipPastEnd(bytes, bad + 1);
      continue;
    }
    if (j >= bytes.length) {
      out.push({ kind: 'error', offset: start, message: `message at byte offset ${hex2(start)} cut short: the stream ends after ${j - start} bytes without an MSEO 11 byte` });
      break;
    }
    out.push(parseMessage(bytes.subarray(start, j + 1), start, c));
    i = j + 1;
  }
  return out;
}

/** The index after the next byte with MSEO 11 at or after `from` (the end of a damaged message). */
function skipPastEnd(bytes: Uint8Array, from: number): number {
  let k = from;
  while (k < bytes.length && (bytes[k]! & 3) !== 3) k++;
  return Math.min(k + 1, bytes.length);
}

/** Parses one complete message (first byte MSEO 00, last byte MSEO 11, no MSEO 10 in between). */
function parseMessage(msg: Uint8Array, offset: number, c: FramingConfig): ParsedItem {
  const nbits = msg.length * 6;
  const bit = (p: number): number => ((msg[Math.floor(p / 6)]! >> (2 + (p % 6))) & 1);
  /** The first end of a variable field strictly after bit position p (a byte end with MSEO 01/11). */
  const nextEnd = (p: number): number => {
    for (let k = Math.floor(p / 6); k < msg.length; k++) if ((msg[k]! & 3) !== 0 && 6 * (k + 1) > p) return 6 * (k + 1);
    return nbits;
  };
  const read = (p: number, w: number): bigint => {
    let v = 0n;
    for (let k = w - 1; k >= 0; k--) v = (v << 1n) | BigInt(bit(p + k));
    return v;
  };
  const err = (message: string): FramingError => ({ kind: 'error', offset, message: `message at byte offset ${hex2(offset)}: ${message}` });

  const tcode = msg[0]! >> 2;
  const name = tcodeName(tcode);
  const layout = LAYOUTS.get(tcode);
  const fields: NtraceField[] = [];
  const fixedValues = new Map<string, number>();
  let p = 6;
  const fixed: (readonly [string, number])[] = [];
  if (c.srcWidth > 0) fixed.push(['SRC', c.srcWidth]);
  if (layout) fixed.push(...layout.fixed);
  for (const [fname, w] of fixed) {
    if (p + w > nextEnd(p)) return err(`${name}(${tcode}) ends inside its fixed field ${fname}`);
    const v = read(p, w);
    fields.push({ name: fname, value: v, width: w, variable: false });
    fixedValues.set(fname, Number(v));
    p += w;
  }
  // A byte end marker right where the fixed fields end: that byte held no variable field bits.
  if (p < nbits && p % 6 === 0 && (msg[p / 6 - 1]! & 3) !== 0) return err(`${name}(${tcode}) has an end-of-field marker inside its fixed fields`);

  // The variable fields, as sent.
  const vars: { value: bigint; width: number }[] = [];
  while (p < nbits) {
    const end = nextEnd(p);
    vars.push({ value: read(p, end - p), width: end - p });
    p = end;
  }
  const expected = layout?.vars(fixedValues);
  const known = expected !== undefined;
  let names: string[];
  if (expected === undefined) {
    names = vars.map((_, k) => `VAR${k}`);
  } else {
    if (vars.length < expected.length) {
      return err(`${name}(${tcode}) cut short: field ${expected[vars.length]} is missing (${vars.length} of ${expected.length} variable fields)`);
    }
    names = [...expected];
    if (vars.length === expected.length + 1 && c.timestamp) names.push('TSTAMP');
    else if (vars.length > expected.length) {
      return err(`${name}(${tcode}) has ${vars.length - expected.length} variable field(s) more than ${expected.join(', ')}${c.timestamp ? ' and TSTAMP' : ''}`);
    }
  }
  vars.forEach((v, k) => {
    const name = names[k]!;
    const parts = tcode === TCODE.Ownership && name === 'PROCESS' ? processParts(v.value, v.width) : undefined;
    fields.push(parts ? { name, value: v.value, width: v.width, variable: true, parts } : { name, value: v.value, width: v.width, variable: true });
  });
  return { kind: 'message', offset, length: msg.length, tcode, name, known, fields };
}
