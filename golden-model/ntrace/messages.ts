/**
 * N-Trace messages: TCODEs, field layouts and one builder per message (RISC-V N-Trace 1.0,
 * "N-Trace Messages (Overview)" table "Fields in Messages" and "N-Trace Messages (Details)"; the
 * byte format is in bits.ts). Field order: TCODE[6], the optional SRC fixed field, the message's
 * fixed fields, its variable fields, and the optional TSTAMP as the very last field.
 *
 * Address fields (F-ADDR, U-ADDR) hold the address without bit 0. With the Virtual Addresses
 * Optimization (trTeInstExtendAddrMSB, our `addressMsbDrop`) identical most significant bits are
 * dropped so that a whole number of 6-bit MDOs is sent whose last bit equals the dropped bits; a
 * value that would otherwise end with an MDO whose top bit is 1 gets one more MDO (the decoder
 * sign-extends from that bit).
 */
import { bitLength, NexusWriter } from './bits.ts';

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

export type NtraceMessageName = keyof typeof TCODE;

/** SYNC field values (table "SYNC Field Values"). */
export const SYNC = { externalTrigger: 0, reset: 1, periodic: 2, debugExit: 3, icntOverflow: 4, traceEnable: 5, traceEvent: 6, overrun: 7 } as const;
/** B-TYPE values. */
export const BTYPE = { indirect: 0, trap: 1, exception: 2, interrupt: 3 } as const;
/** EVCODE values of ProgTraceCorrelation. */
export const EVCODE = { debugEntry: 0, lowPower: 1, traceDisabled: 4 } as const;
/** ETYPE of the Error message: 0 = a FIFO overrun lost one or more messages. */
export const ETYPE = { overrun: 0 } as const;
/**
 * ECODE bits of the Error message: 0 = reason unknown, bit 2 (0x4) = program trace message(s) lost,
 * bit 3 (0x8) = Ownership trace message(s) lost.
 */
export const ECODE = { unknown: 0, programTraceLost: 4, ownershipLost: 8 } as const;
/**
 * FORMAT, the low 2 bits of an Ownership message's PROCESS field: 0 = a change of V/PRV (no
 * CONTEXT), 1 reserved, 2 = after a sync or at an scontext change (CONTEXT = scontext), 3 = after a
 * sync or at an hcontext change (CONTEXT = hcontext).
 */
export const OWNERSHIP_FORMAT = { privilege: 0, scontext: 2, hcontext: 3 } as const;
/** RCODE values of ResourceFull. */
export const RCODE = { icnt: 0, hist: 1, histRepeat: 2 } as const;

/** Limits of "Maximum Field Sizes". */
export const NTRACE_MAX_ICNT_BITS = 22;
export const NTRACE_MAX_HIST_BITS = 32;
export const NTRACE_MAX_HREPEAT = 2 ** 18 - 1;
export const NTRACE_MAX_BCNT = 2 ** 18 - 1;

export type FieldKind = 'fix' | 'var' | 'addr';
export interface FieldSpec {
  readonly name: string;
  readonly kind: FieldKind;
  /** Width of a fixed field. */
  readonly bits?: number;
}

const fix = (name: string, bits: number): FieldSpec => ({ name, kind: 'fix', bits });
const v = (name: string): FieldSpec => ({ name, kind: 'var' });
const a = (name: string): FieldSpec => ({ name, kind: 'addr' });

/** Fields after TCODE and the optional SRC, before the optional TSTAMP, in sending order. */
export const MESSAGE_FIELDS: Readonly<Record<NtraceMessageName, readonly FieldSpec[]>> = {
  Ownership: [v('PROCESS') /* = {CONTEXT, V, PRV[1:0], FORMAT[1:0]}, see ownershipProcess */],
  DirectBranch: [v('I-CNT')],
  IndirectBranch: [fix('B-TYPE', 2), v('I-CNT'), a('U-ADDR')],
  Error: [fix('ETYPE', 4), v('ECODE')],
  ProgTraceSync: [fix('SYNC', 4), v('I-CNT'), a('F-ADDR')],
  DirectBranchSync: [fix('SYNC', 4), v('I-CNT'), a('F-ADDR')],
  IndirectBranchSync: [fix('SYNC', 4), fix('B-TYPE', 2), v('I-CNT'), a('F-ADDR')],
  ResourceFull: [fix('RCODE', 4), v('RDATA'), v('HREPEAT') /* only when RCODE = 2 */],
  IndirectBranchHist: [fix('B-TYPE', 2), v('I-CNT'), a('U-ADDR'), v('HIST')],
  IndirectBranchHistSync: [fix('SYNC', 4), fix('B-TYPE', 2), v('I-CNT'), a('F-ADDR'), v('HIST')],
  RepeatBranch: [v('B-CNT')],
  ProgTraceCorrelation: [fix('EVCODE', 4), fix('CDF', 2), v('I-CNT'), v('HIST') /* only when CDF = 1 */],
};

/** How messages are laid out for one encoder configuration. */
export interface MessageFormat {
  /** Bits of SRC (0: no SRC field) and its value. */
  readonly srcWidth: number;
  readonly src: number;
  /** TSTAMP ends every message. */
  readonly timestamp: boolean;
  readonly addressMsbDrop: boolean;
  /** XLEN: address fields carry XLEN - 1 bits. */
  readonly xlen: 32 | 64;
}

/** A message as the encoder produced it: name, byte offset in the stream, fields by name. */
export interface NtraceMessage {
  name: NtraceMessageName;
  offset: number;
  fields: Record<string, number | bigint>;
}

/**
 * The MDO-aligned length (bits) of an address field value with identical MSBs dropped: the
 * fewest 6k bits whose top bit, extended to `width` bits, gives back the value.
 */
export function droppedAddressBits(value: bigint, width: number): number {
  const w = BigInt(width);
  if (((value >> (w - 1n)) & 1n) === 0n) {
    // Leading zeros: the last MDO's top bit must be 0.
    const len = value <= 0x1fffffffffffffn ? bitLength(Number(value)) : value.toString(2).length;
    return 6 * Math.ceil((len + 1) / 6);
  }
  const ones = ((1n << w) - 1n) ^ value; // zero where value has its leading ones
  const len = ones <= 0x1fffffffffffffn ? bitLength(Number(ones)) : ones.toString(2).length;
  const n = 6 * Math.ceil((len + 1) / 6);
  // Beyond the field's width the padding bits are 0: no extension, the full value is sent.
  return n;
}

function address(w: NexusWriter, f: MessageFormat, value: bigint): void {
  if (!f.addressMsbDrop) {
    w.varBig(value);
    return;
  }
  const width = f.xlen - 1;
  const n = droppedAddressBits(value, width);
  w.varBig(n >= width ? value : value & ((1n << BigInt(n)) - 1n), n);
}

function head(w: NexusWriter, f: MessageFormat, tcode: number): void {
  w.fix(6, tcode);
  if (f.srcWidth > 0) w.fix(f.srcWidth, f.src);
}

function tail(w: NexusWriter, f: MessageFormat, tstamp: bigint): void {
  if (f.timestamp) w.varBig(tstamp);
  w.end();
}

/**
 * The PROCESS field of an Ownership message ("Ownership Message": PROCESS[x+5:0] = {CONTEXT[x:0],
 * V, PRV[1:0], FORMAT[1:0]}). PRV and V follow the ISA's privilege encoding (U 0/00, S 0/01, M
 * 0/11, VU 1/00, VS 1/01). With FORMAT 0 there is no CONTEXT (the caller passes 0).
 */
export function ownershipProcess(format: number, prv: number, v: number, context: bigint): bigint {
  return (context << 5n) | BigInt(((v & 1) << 4) | ((prv & 3) << 2) | (format & 3));
}

/**
 * Ownership: PROCESS is ONE variable field (not fixed FORMAT/PRV/V fields and a variable CONTEXT):
 * it starts right after TCODE/SRC and is as long as its value, so a U-mode PROCESS of 0 may take a
 * single bit of the byte holding SRC.
 */
export function ownership(w: NexusWriter, f: MessageFormat, process: bigint, tstamp = 0n): void {
  head(w, f, TCODE.Ownership);
  w.varBig(process);
  tail(w, f, tstamp);
}

export function directBranch(w: NexusWriter, f: MessageFormat, icnt: number, tstamp = 0n): void {
  head(w, f, TCODE.DirectBranch);
  w.var(icnt);
  tail(w, f, tstamp);
}

export function indirectBranch(w: NexusWriter, f: MessageFormat, btype: number, icnt: number, uaddr: bigint, tstamp = 0n): void {
  head(w, f, TCODE.IndirectBranch);
  w.fix(2, btype);
  w.var(icnt);
  address(w, f, uaddr);
  tail(w, f, tstamp);
}

export function indirectBranchHist(w: NexusWriter, f: MessageFormat, btype: number, icnt: number, uaddr: bigint, hist: number, tstamp = 0n): void {
  head(w, f, TCODE.IndirectBranchHist);
  w.fix(2, btype);
  w.var(icnt);
  address(w, f, uaddr);
  w.var(hist);
  tail(w, f, tstamp);
}

export function errorMessage(w: NexusWriter, f: MessageFormat, etype: number, ecode: number, tstamp = 0n): void {
  head(w, f, TCODE.Error);
  w.fix(4, etype);
  w.var(ecode);
  tail(w, f, tstamp);
}

export function progTraceSync(w: NexusWriter, f: MessageFormat, sync: number, icnt: number, faddr: bigint, tstamp = 0n): void {
  head(w, f, TCODE.ProgTraceSync);
  w.fix(4, sync);
  w.var(icnt);
  address(w, f, faddr);
  tail(w, f, tstamp);
}

export function directBranchSync(w: NexusWriter, f: MessageFormat, sync: number, icnt: number, faddr: bigint, tstamp = 0n): void {
  head(w, f, TCODE.DirectBranchSync);
  w.fix(4, sync);
  w.var(icnt);
  address(w, f, faddr);
  tail(w, f, tstamp);
}

export function indirectBranchSync(w: NexusWriter, f: MessageFormat, sync: number, btype: number, icnt: number, faddr: bigint, tstamp = 0n): void {
  head(w, f, TCODE.IndirectBranchSync);
  w.fix(4, sync);
  w.fix(2, btype);
  w.var(icnt);
  address(w, f, faddr);
  tail(w, f, tstamp);
}

export function indirectBranchHistSync(w: NexusWriter, f: MessageFormat, sync: number, btype: number, icnt: number, faddr: bigint, hist: number, tstamp = 0n): void {
  head(w, f, TCODE.IndirectBranchHistSync);
  w.fix(4, sync);
  w.fix(2, btype);
  w.var(icnt);
  address(w, f, faddr);
  w.var(hist);
  tail(w, f, tstamp);
}

/** ResourceFull; HREPEAT is sent only with RCODE 2. */
export function resourceFull(w: NexusWriter, f: MessageFormat, rcode: number, rdata: number, hrepeat = 0, tstamp = 0n): void {
  head(w, f, TCODE.ResourceFull);
  w.fix(4, rcode);
  w.var(rdata);
  if (rcode === RCODE.histRepeat) w.var(hrepeat);
  tail(w, f, tstamp);
}

export function repeatBranch(w: NexusWriter, f: MessageFormat, bcnt: number, tstamp = 0n): void {
  head(w, f, TCODE.RepeatBranch);
  w.var(bcnt);
  tail(w, f, tstamp);
}

/** ProgTraceCorrelation; HIST is sent only with CDF 1 (HTM). */
export function progTraceCorrelation(w: NexusWriter, f: MessageFormat, evcode: number, cdf: number, icnt: number, hist = 1, tstamp = 0n): void {
  head(w, f, TCODE.ProgTraceCorrelation);
  w.fix(4, evcode);
  w.fix(2, cdf);
  w.var(icnt);
  if (cdf === 1) w.var(hist);
  tail(w, f, tstamp);
}

const num = (m: NtraceMessage, k: string): number => Number(m.fields[k] ?? 0);
const big = (m: NtraceMessage, k: string): bigint => BigInt(m.fields[k] ?? 0);

/** Writes one message from its fields by name (tests, tools); TSTAMP is taken when the format has it. */
export function writeMessage(w: NexusWriter, f: MessageFormat, m: NtraceMessage): void {
  const ts = big(m, 'TSTAMP');
  switch (m.name) {
    case 'Ownership': {
      // PROCESS by value, or composed from its sub-fields.
      const process =
        m.fields.PROCESS !== undefined ? big(m, 'PROCESS') : ownershipProcess(num(m, 'FORMAT'), num(m, 'PRV'), num(m, 'V'), big(m, 'CONTEXT'));
      return ownership(w, f, process, ts);
    }
    case 'DirectBranch':
      return directBranch(w, f, num(m, 'I-CNT'), ts);
    case 'IndirectBranch':
      return indirectBranch(w, f, num(m, 'B-TYPE'), num(m, 'I-CNT'), big(m, 'U-ADDR'), ts);
    case 'IndirectBranchHist':
      return indirectBranchHist(w, f, num(m, 'B-TYPE'), num(m, 'I-CNT'), big(m, 'U-ADDR'), num(m, 'HIST'), ts);
    case 'Error':
      return errorMessage(w, f, num(m, 'ETYPE'), num(m, 'ECODE'), ts);
    case 'ProgTraceSync':
      return progTraceSync(w, f, num(m, 'SYNC'), num(m, 'I-CNT'), big(m, 'F-ADDR'), ts);
    case 'DirectBranchSync':
      return directBranchSync(w, f, num(m, 'SYNC'), num(m, 'I-CNT'), big(m, 'F-ADDR'), ts);
    case 'IndirectBranchSync':
      return indirectBranchSync(w, f, num(m, 'SYNC'), num(m, 'B-TYPE'), num(m, 'I-CNT'), big(m, 'F-ADDR'), ts);
    case 'IndirectBranchHistSync':
      return indirectBranchHistSync(w, f, num(m, 'SYNC'), num(m, 'B-TYPE'), num(m, 'I-CNT'), big(m, 'F-ADDR'), num(m, 'HIST'), ts);
    case 'ResourceFull':
      return resourceFull(w, f, num(m, 'RCODE'), num(m, 'RDATA'), num(m, 'HREPEAT'), ts);
    case 'RepeatBranch':
      return repeatBranch(w, f, num(m, 'B-CNT'), ts);
    case 'ProgTraceCorrelation':
      return progTraceCorrelation(w, f, num(m, 'EVCODE'), num(m, 'CDF'), num(m, 'I-CNT'), m.fields.HIST === undefined ? 1 : num(m, 'HIST'), ts);
  }
}

/** The bytes of one message. */
export function encodeMessage(f: MessageFormat, name: NtraceMessageName, fields: Record<string, number | bigint>): Uint8Array {
  const w = new NexusWriter(64);
  writeMessage(w, f, { name, offset: 0, fields });
  return w.bytes();
}
