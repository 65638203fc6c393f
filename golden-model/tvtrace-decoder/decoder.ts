/**
 * Decoder of the tandem-verification trace (Bluespec's Trace Protocol Specification, 2018-11-20):
 * a byte stream of opcodes and payloads -> groups of items (`parseTv`) -> the state changes of each
 * group (`rebuildTv`).
 *
 * Written from the specification and the working notes (tvtrace.md) only, apart from the encoder,
 * so that agreement between the two checks both. What the spec leaves open is decided here and in
 * docs/tvtrace-decoder.md:
 * - Fields may come in any order inside a group; an end group may be omitted before a begin group.
 * - State changes outside any group are allowed by the spec ("do not convey any ordering other than
 *   after the prior end group and before the next begin group"): they are kept as an ungrouped
 *   group (`begin` undefined). An end group with no open group is an error.
 * - A stream that ends inside a group, or inside a payload, is an error: the spec lets only a
 *   begin group imply the end.
 * - A memory response carries data unless its request (the item right before it, which the spec
 *   requires) is a store or a store conditional (erratum 4 of tvtrace.md: the length list omits
 *   the 8-bit store response).
 *
 * Errors are values (RvError with the byte offset, what was found and what was expected); the
 * parser stops at the first one and returns the complete groups before it. It never throws on any
 * byte stream and always ends: every step consumes at least one byte. (Invalid parameters, which
 * come from the component and not from the stream, are thrown as an RvError 'bad-option'.)
 */
import { RvError, type ErrorCode } from '../common/errors.ts';
import { ADDL_NAMES, GPR_BASE, OPCODE_NAMES, memOpName, regClass, regName } from './names.ts';

/** Parameters agreed out of band (spec chapter 3): they set the payload lengths. */
export interface TvParams {
  /** Integer register width: GPR and CSR data, the pc (additional state 10). */
  readonly xlen: 32 | 64;
  /** Floating-point register width, 0 without F. FPR data is FLEN bits (a NaN-boxed single is 8 bytes when FLEN = 64). */
  readonly flen: 0 | 32 | 64;
  /** Bits of a memory address (64 for RV64, 34 for RV32 with Sv32, else 32); fields are rounded up to bytes. */
  readonly mlen: number;
  /** Maximum instruction length; the protocol has 16- and 32-bit instruction opcodes only, so it must be >= 32. Default 32. */
  readonly ilen?: number;
}

/** Opcodes (spec chapter 2; the table's numbers are decimal). */
export const TV_OP = {
  beginGroup: 1,
  endGroup: 2,
  incrementPc: 3,
  fullReg: 4,
  incrRegAdd: 5,
  incrRegOr: 6,
  addlState: 7,
  memRequest: 8,
  memResponse: 9,
  hartReset: 10,
  stateInit: 11,
  instr16: 16,
  instr32: 17,
} as const;

/** Additional-state identifiers (opcode 7). */
export const TV_ADDL = {
  priv: 1,
  paddr: 2,
  eaddr: 3,
  storeData8: 4,
  storeData16: 5,
  storeData32: 6,
  storeData64: 7,
  mtime: 8,
  pcPaddr: 9,
  pc: 10,
} as const;

/** Memory request operations whose request carries data (store, sc, AMOs) and whose response carries none (store, sc). */
const MEM_LOAD = 0;
const MEM_STORE = 1;
const MEM_LR = 2;
const MEM_SC = 3;
const MEM_FETCH = 13;
const requestHasData = (op: number): boolean => op !== MEM_LOAD && op !== MEM_LR && op !== MEM_FETCH;
const responseHasData = (op: number): boolean => op !== MEM_STORE && op !== MEM_SC;

interface ItemBase {
  /** Byte offset of the opcode byte. */
  readonly offset: number;
  /** Bytes of opcode and payload. */
  readonly length: number;
  readonly opcode: number;
}

export type TvItem =
  | (ItemBase & { readonly kind: 'incrementPc' })
  | (ItemBase & { readonly kind: 'fullReg'; readonly regno: number; readonly value: bigint })
  /** Opcode 5: add a signed 8-bit offset to the register's previous value. */
  | (ItemBase & { readonly kind: 'incrRegAdd'; readonly regno: number; readonly delta: number })
  /** Opcode 6: OR an 8-bit mask into the register's previous value. */
  | (ItemBase & { readonly kind: 'incrRegOr'; readonly regno: number; readonly mask: number })
  | (ItemBase & { readonly kind: 'addlState'; readonly id: number; readonly value: bigint; readonly bytes: number })
  | (ItemBase & {
      readonly kind: 'memRequest';
      readonly addr: bigint;
      readonly op: number;
      /** log2 of the access size in bytes (0..3). */
      readonly size: number;
      readonly data?: bigint;
    })
  | (ItemBase & { readonly kind: 'memResponse'; readonly size: number; readonly result: number; readonly data?: bigint })
  | (ItemBase & { readonly kind: 'hartReset' })
  | (ItemBase & { readonly kind: 'stateInit' })
  | (ItemBase & { readonly kind: 'instr'; readonly bits: 16 | 32; readonly value: number });

export interface TvGroup {
  /** Offset of the begin-group byte; undefined for state changes sent outside any group. */
  readonly begin?: number;
  /** Offset of the end-group byte; undefined when it was omitted (implied by the next begin group) or for an ungrouped run. */
  readonly end?: number;
  /** The end group was omitted before a begin group. */
  readonly endImplied: boolean;
  /** Items in stream order. */
  readonly items: readonly TvItem[];
}

/** Offset of a group's first byte. */
export function groupOffset(g: TvGroup): number {
  return g.begin ?? g.items[0]?.offset ?? 0;
}

export interface TvParse {
  /** Every complete group before the error (all of them when there is none). */
  readonly groups: TvGroup[];
  readonly error?: TvDecodeError;
}

/** A decoding error: the byte offset, what was found there and what was expected. */
export class TvDecodeError extends RvError {
  constructor(
    code: ErrorCode,
    readonly offset: number,
    readonly found: string,
    readonly expected: string,
  ) {
    super(code, `${found}: expected ${expected}`, { offset });
    this.name = 'TvDecodeError';
  }
}

const hex = (v: bigint | number, digits = 0): string => `0x${v.toString(16).padStart(digits, '0')}`;
const opText = (op: number): string => `${OPCODE_NAMES.get(op)} (opcode ${op})`;

/** Problems with the parameters themselves, or undefined. */
export function checkTvParams(p: TvParams): RvError | undefined {
  if (p.xlen !== 32 && p.xlen !== 64) return new RvError('bad-option', `XLEN ${p.xlen}: expected 32 or 64`, { path: 'xlen' });
  if (p.flen !== 0 && p.flen !== 32 && p.flen !== 64) return new RvError('bad-option', `FLEN ${p.flen}: expected 0, 32 or 64`, { path: 'flen' });
  if (!Number.isInteger(p.mlen) || p.mlen < 1 || p.mlen > 64) return new RvError('bad-option', `MLEN ${p.mlen}: expected 1..64 (32, 34 or 64)`, { path: 'mlen' });
  const ilen = p.ilen ?? 32;
  if (!Number.isInteger(ilen) || ilen < 32) return new RvError('bad-option', `ILEN ${ilen}: expected 32 or more`, { path: 'ilen' });
  return undefined;
}

/** Thrown inside the parser only, caught by parseTv: keeps the byte reading straight-line. */
class Stop {
  constructor(readonly error: TvDecodeError) {}
}

/**
 * The stream and the payload lengths its parameters give. The reading functions below take it as an
 * argument: no closure is made per item, and an error message is only built for the error.
 */
interface Input {
  readonly b: Uint8Array;
  readonly view: DataView;
  readonly params: TvParams;
  readonly xlenBytes: number;
  readonly flenBytes: number;
  readonly mlenBytes: number;
  readonly mlenLimit: bigint;
}

/** Splits a trace byte stream into groups. Never throws; stops at the first error. */
export function parseTv(bytes: Uint8Array, params: TvParams): TvParse {
  const groups: TvGroup[] = [];
  const error = scanTv(bytes, params, (g) => {
    groups.push(g);
    return true;
  });
  return error ? { groups, error } : { groups };
}

/**
 * parseTv's work: hands each complete group to `sink` as soon as it is read, and stops when the sink
 * returns false (no error then) or at the first error (returned). decodeTv rebuilds each group as it
 * comes, so that the items of a million groups are never alive at once.
 */
function scanTv(bytes: Uint8Array, params: TvParams, sink: (g: TvGroup) => boolean): TvDecodeError | undefined {
  const bad = checkTvParams(params);
  if (bad) throw bad; // a caller bug, not bad input: the parameters come from the component
  let more = true;
  const input: Input = {
    b: bytes,
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    params,
    xlenBytes: params.xlen / 8,
    flenBytes: params.flen / 8,
    mlenBytes: Math.ceil(params.mlen / 8),
    mlenLimit: 1n << BigInt(params.mlen),
  };

  /** The open group (after a begin group) or the current ungrouped run (begin -1). */
  let begin = -1;
  let items: TvItem[] | undefined;
  const close = (end: number | undefined, endImplied: boolean): void => {
    if (items === undefined) return;
    const g: { begin?: number; end?: number; endImplied: boolean; items: TvItem[] } = { endImplied, items };
    if (begin >= 0) g.begin = begin;
    if (end !== undefined) g.end = end;
    more = sink(g);
    items = undefined;
    begin = -1;
  };

  let i = 0;
  try {
    while (more && i < bytes.length) {
      const op = bytes[i]!;
      if (op === TV_OP.beginGroup) {
        // A begin group while a group is open implies that group's end (spec chapter 3).
        close(undefined, items !== undefined && begin >= 0);
        begin = i;
        items = [];
        i++;
      } else if (op === TV_OP.endGroup) {
        if (items === undefined || begin < 0) {
          throw new Stop(new TvDecodeError('bad-file', i, 'end group (opcode 2) with no group open', 'begin group (opcode 1) or a state change'));
        }
        close(i, false);
        i++;
      } else {
        items ??= [];
        const item = readItem(input, i, items.length > 0 ? items[items.length - 1] : undefined);
        items.push(item);
        i += item.length;
      }
    }
    if (!more) return undefined;
    if (items !== undefined && begin >= 0) {
      throw new Stop(new TvDecodeError('truncated', bytes.length, `stream ends inside the group begun at byte offset ${begin}`, 'end group (opcode 2)'));
    }
    close(undefined, false); // an ungrouped run at the end
    return undefined;
  } catch (e) {
    if (e instanceof Stop) return e.error;
    throw e;
  }
}

/** What a payload field holds, for the message when the stream ends inside it (built only then). */
type FieldName = string | ((b: Uint8Array, at: number) => string);

/** Throws unless the stream holds `n` payload bytes from `from` (the item's opcode is at `at`). */
function need(inp: Input, at: number, from: number, n: number, what: FieldName): void {
  const b = inp.b;
  if (from + n <= b.length) return;
  const field = typeof what === 'string' ? what : what(b, at);
  throw new Stop(
    new TvDecodeError(
      'truncated',
      b.length,
      `stream ends inside ${article(opText(b[at]!))} at byte offset ${at}`,
      `${n} byte${n === 1 ? '' : 's'} of ${field} at offset ${from}, ${Math.max(0, b.length - from)} present`,
    ),
  );
}

/**
 * The little-endian unsigned value of `n` (1 to 8) bytes at `from`, which the caller checked are
 * there. One BigInt is made: values up to 6 bytes are assembled as a number (exact below 2^53),
 * 8 bytes read by the DataView; 7 bytes (no field has 7) as a number of 6 plus a shifted top byte.
 */
function le(inp: Input, from: number, n: number): bigint {
  if (n === 8) return inp.view.getBigUint64(from, true);
  const b = inp.b;
  let v = 0;
  for (let k = Math.min(n, 6) - 1; k >= 0; k--) v = v * 256 + b[from + k]!;
  return n === 7 ? (BigInt(b[from + 6]!) << 48n) | BigInt(v) : BigInt(v);
}

/** A little-endian 16-bit number at `from` (checked by the caller). */
const le16 = (b: Uint8Array, from: number): number => b[from]! | (b[from + 1]! << 8);

/** Data bytes of a register number: FLEN for an FPR, XLEN for everything else. */
function regBytes(inp: Input, regno: number, where: number): number {
  if (regno < FPR_FIRST || regno > FPR_LAST) return inp.xlenBytes;
  if (inp.flenBytes === 0) {
    throw new Stop(new TvDecodeError('bad-value', where, `register ${regName(regno)} (${hex(regno, 4)}) is an FPR but FLEN = 0`, 'a GPR, CSR or other register number'));
  }
  return inp.flenBytes;
}

/** An MLEN field, which must have no bits above MLEN ("zero extended"). */
function mlenField(inp: Input, at: number, from: number, what: string): bigint {
  need(inp, at, from, inp.mlenBytes, what);
  const v = le(inp, from, inp.mlenBytes);
  if (v >= inp.mlenLimit) throw new Stop(new TvDecodeError('bad-value', from, `${what} ${hex(v)} has bits above MLEN = ${inp.params.mlen}`, `a ${inp.params.mlen}-bit address, zero extended`));
  return v;
}

const FPR_FIRST = 0x1020;
const FPR_LAST = 0x103f;
const regData = (b: Uint8Array, at: number): string => `${regName(le16(b, at + 1))} data`;

/** Reads the item whose opcode is at `at`; `previous` is the item before it in the same group. */
function readItem(inp: Input, at: number, previous: TvItem | undefined): TvItem {
  const b = inp.b;
  const opcode = b[at]!;
  switch (opcode) {
    case TV_OP.incrementPc:
      return { offset: at, opcode, kind: 'incrementPc', length: 1 };
    case TV_OP.fullReg: {
      need(inp, at, at + 1, 2, 'register number');
      const regno = le16(b, at + 1);
      const n = regBytes(inp, regno, at + 1);
      need(inp, at, at + 3, n, regData);
      return { offset: at, opcode, kind: 'fullReg', length: 3 + n, regno, value: le(inp, at + 3, n) };
    }
    case TV_OP.incrRegAdd:
    case TV_OP.incrRegOr: {
      need(inp, at, at + 1, 2, 'register number');
      const regno = le16(b, at + 1);
      regBytes(inp, regno, at + 1);
      need(inp, at, at + 3, 1, opcode === TV_OP.incrRegAdd ? 'signed offset' : 'OR mask');
      const byte = b[at + 3]!;
      return opcode === TV_OP.incrRegAdd
        ? { offset: at, opcode, kind: 'incrRegAdd', length: 4, regno, delta: byte >= 0x80 ? byte - 0x100 : byte }
        : { offset: at, opcode, kind: 'incrRegOr', length: 4, regno, mask: byte };
    }
    case TV_OP.addlState: {
      need(inp, at, at + 1, 1, 'additional-state identifier');
      const id = b[at + 1]!;
      const n = addlBytes(id, inp.xlenBytes, inp.mlenBytes);
      if (n === undefined) {
        throw new Stop(new TvDecodeError('bad-value', at + 1, `additional-state identifier ${id} (${hex(id, 2)})`, 'an identifier 1..10'));
      }
      let value: bigint;
      if (id === TV_ADDL.paddr || id === TV_ADDL.eaddr || id === TV_ADDL.pcPaddr) {
        value = mlenField(inp, at, at + 2, ADDL_NAMES.get(id)!);
      } else {
        need(inp, at, at + 2, n, ADDL_NAMES.get(id)!);
        if (id === TV_ADDL.priv && b[at + 2]! > 3) {
          throw new Stop(new TvDecodeError('bad-value', at + 2, `privilege mode ${b[at + 2]!}`, 'a privilege mode 0..3 (PRIVLEN = 2, zero extended)'));
        }
        value = le(inp, at + 2, n);
      }
      return { offset: at, opcode, kind: 'addlState', length: 2 + n, id, value, bytes: n };
    }
    case TV_OP.memRequest: {
      const addr = mlenField(inp, at, at + 1, 'memory request address');
      const where = at + 1 + inp.mlenBytes;
      need(inp, at, where, 1, 'op and size');
      // Sub-byte fields: the first listed (op) in the least significant bits.
      const op = b[where]! & 0xf;
      const size = b[where]! >> 4;
      if (op > MEM_FETCH) throw new Stop(new TvDecodeError('bad-value', where, `memory request op ${op}`, 'an op 0..13 in bits [3:0]'));
      if (size > 3) throw new Stop(new TvDecodeError('bad-value', where, `memory request size ${size}`, 'a size 0..3 (8 to 64 bits) in bits [7:4]'));
      if (!requestHasData(op)) return { offset: at, opcode, kind: 'memRequest', length: 2 + inp.mlenBytes, addr, op, size };
      const n = 1 << size;
      need(inp, at, where + 1, n, `${memOpName(op)} data`);
      return { offset: at, opcode, kind: 'memRequest', length: 2 + inp.mlenBytes + n, addr, op, size, data: le(inp, where + 1, n) };
    }
    case TV_OP.memResponse: {
      if (previous?.kind !== 'memRequest') {
        throw new Stop(
          new TvDecodeError('bad-file', at, `memory response (opcode 9) after ${previous ? article(opText(previous.opcode)) : 'no item of its group'}`, 'a memory request (opcode 8) right before it'),
        );
      }
      need(inp, at, at + 1, 1, 'size and result');
      const size = b[at + 1]! & 0xf;
      const result = b[at + 1]! >> 4;
      if (size > 3) throw new Stop(new TvDecodeError('bad-value', at + 1, `memory response size ${size}`, 'a size 0..3 (8 to 64 bits) in bits [3:0]'));
      if (result > 1) throw new Stop(new TvDecodeError('bad-value', at + 1, `memory response result ${result}`, 'a result 0 (success) or 1 (failure) in bits [7:4]'));
      if (!responseHasData(previous.op)) return { offset: at, opcode, kind: 'memResponse', length: 2, size, result };
      const n = 1 << size;
      need(inp, at, at + 2, n, `${memOpName(previous.op)} response data`);
      return { offset: at, opcode, kind: 'memResponse', length: 2 + n, size, result, data: le(inp, at + 2, n) };
    }
    case TV_OP.hartReset:
      return { offset: at, opcode, kind: 'hartReset', length: 1 };
    case TV_OP.stateInit:
      return { offset: at, opcode, kind: 'stateInit', length: 1 };
    case TV_OP.instr16:
      need(inp, at, at + 1, 2, 'instruction');
      return { offset: at, opcode, kind: 'instr', length: 3, bits: 16, value: le16(b, at + 1) };
    case TV_OP.instr32:
      need(inp, at, at + 1, 4, 'instruction');
      return { offset: at, opcode, kind: 'instr', length: 5, bits: 32, value: inp.view.getUint32(at + 1, true) };
    default:
      throw new Stop(new TvDecodeError('bad-value', at, `unknown opcode ${hex(opcode, 2)} (${opcode})`, 'an opcode 1..11, 16 or 17'));
  }
}

/** Payload bytes after the identifier of additional state `id`, or undefined for an unknown id. */
function addlBytes(id: number, xlenBytes: number, mlenBytes: number): number | undefined {
  switch (id) {
    case TV_ADDL.priv:
      return 1;
    case TV_ADDL.paddr:
    case TV_ADDL.eaddr:
    case TV_ADDL.pcPaddr:
      return mlenBytes;
    case TV_ADDL.storeData8:
    case TV_ADDL.storeData16:
    case TV_ADDL.storeData32:
    case TV_ADDL.storeData64:
      return 1 << (id - TV_ADDL.storeData8);
    case TV_ADDL.mtime:
      return 8;
    case TV_ADDL.pc:
      return xlenBytes;
    default:
      return undefined;
  }
}

const article = (s: string): string => (/^[aeiou]/i.test(s) ? `an ${s}` : `a ${s}`);

// ---------------------------------------------------------------------------------------------
// Rebuilding the state changes

/** What the decoder knows of the hart's state between groups; a missing value is unknown. */
export interface TvState {
  /** The pc after the last group: the address of the next instruction. */
  pc?: bigint;
  priv?: number;
  /** Register values by Debug-spec number. */
  regs: Map<number, bigint>;
}

export interface TvInitialState {
  readonly pc?: bigint;
  readonly priv?: number;
  readonly regs?: ReadonlyMap<number, bigint>;
}

export interface TvRegChange {
  readonly offset: number;
  readonly regno: number;
  readonly name: string;
  /** `full` = opcode 4, `add` = opcode 5, `or` = opcode 6. */
  readonly how: 'full' | 'add' | 'or';
  /** The value (full), the signed offset (add) or the mask (or). */
  readonly operand: bigint;
  /** The register's value before this change, when known. */
  readonly before?: bigint;
  /** The value after, when known (always for a full write; for an incremental one when the previous value is known). */
  readonly value?: bigint;
}

export interface TvPcChange {
  readonly offset: number;
  /** `set` = additional state 10 (the new pc), `increment` = opcode 3 (pc + instruction length). */
  readonly how: 'set' | 'increment';
  /** The instruction length in bytes an increment adds. */
  readonly by?: number;
  /** The new pc, when known. */
  readonly value?: bigint;
}

export interface TvMemAccess {
  readonly offset: number;
  readonly op: number;
  readonly opName: string;
  readonly addr: bigint;
  /** Bytes (1, 2, 4, 8). */
  readonly size: number;
  readonly data?: bigint;
  readonly response?: { readonly offset: number; readonly size: number; readonly ok: boolean; readonly data?: bigint };
}

/** Additional state other than the privilege and the pc (which have their own fields). */
export interface TvAddl {
  readonly offset: number;
  readonly id: number;
  /** `paddr`, `eaddr`, `store.data`, `mtime`, `pc.paddr`. */
  readonly name: string;
  readonly value: bigint;
  readonly bytes: number;
}

export type TvGroupKind = 'instruction' | 'trap' | 'interrupt' | 'xret' | 'debug-write' | 'reset' | 'state' | 'empty';

export interface TvGroupChanges {
  /** Index of the group in the parse. */
  readonly index: number;
  readonly offset: number;
  readonly grouped: boolean;
  readonly endImplied: boolean;
  readonly kind: TvGroupKind;
  /** The pc before the group: the address of the group's instruction, when known. */
  readonly instrPc?: bigint;
  readonly pc?: TvPcChange;
  readonly instr?: { readonly offset: number; readonly bits: 16 | 32; readonly value: number };
  readonly regs: readonly TvRegChange[];
  readonly priv?: number;
  readonly addl: readonly TvAddl[];
  readonly mem: readonly TvMemAccess[];
  readonly hartReset: boolean;
  readonly stateInit: boolean;
}

export interface TvRebuild {
  /** The changes of every group up to the error (all of them when there is none). */
  readonly groups: TvGroupChanges[];
  /** The state after the last rebuilt group. */
  readonly state: TvState;
  readonly error?: TvDecodeError;
}

const FFLAGS = 0x001;
const FRM = 0x002;
const FCSR = 0x003;

/**
 * Applies each group's changes, in order, to a state (initially `initial`, else all unknown but
 * x0 = 0) and reports them. Stops at the first group whose changes are ambiguous (spec chapter 3:
 * "Only unambiguous state changes are allowed"):
 * - increment pc (opcode 3) in a group without an instruction (the spec: it "must be contained
 *   within a group that also contains an instruction field");
 * - two instructions, two pc changes (3 and/or additional state 10) or two privilege modes in one group;
 * - state initialization (opcode 11) together with an instruction or a hart reset (spec: "must not
 *   be combined").
 */
export function rebuildTv(groups: readonly TvGroup[], params: TvParams, initial?: TvInitialState): TvRebuild {
  const r = new Rebuilder(params, initial);
  for (const g of groups) {
    const error = r.add(g);
    if (error) return { groups: r.out, state: r.state, error };
  }
  return { groups: r.out, state: r.state };
}

/** The state and the changes so far; `add` checks and applies the next group. */
class Rebuilder {
  readonly state: TvState;
  readonly out: TvGroupChanges[] = [];
  private readonly widths: Widths;

  constructor(params: TvParams, initial: TvInitialState | undefined) {
    this.state = { regs: new Map(initial?.regs ?? []) };
    if (initial?.pc !== undefined) this.state.pc = initial.pc;
    if (initial?.priv !== undefined) this.state.priv = initial.priv;
    if (!this.state.regs.has(GPR_BASE)) this.state.regs.set(GPR_BASE, 0n);
    this.widths = { xmask: (1n << BigInt(params.xlen)) - 1n, fmask: (1n << BigInt(params.flen)) - 1n, xlen: params.xlen };
  }

  /** The group's problem (nothing applied then), or undefined when its changes were applied. */
  add(g: TvGroup): TvDecodeError | undefined {
    const problem = checkGroup(g);
    if (problem) return problem;
    this.out.push(applyGroup(g, this.out.length, this.state, this.widths));
    return undefined;
  }
}

interface Widths {
  /** 2^XLEN - 1 and 2^FLEN - 1: the pc and the registers wrap at them. */
  readonly xmask: bigint;
  readonly fmask: bigint;
  readonly xlen: number;
}

function twice(first: TvItem, second: TvItem, what: string): TvDecodeError {
  return new TvDecodeError('bad-file', second.offset, `second ${what} in one group (the first at byte offset ${first.offset})`, `at most one ${what} per group`);
}

/** The first reason a group's changes are ambiguous (see rebuildTv), or undefined. */
function checkGroup(g: TvGroup): TvDecodeError | undefined {
  let instr: TvItem | undefined;
  let pc: TvItem | undefined;
  let priv: TvItem | undefined;
  let reset: TvItem | undefined;
  let init: TvItem | undefined;
  const items = g.items;
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    if (it.kind === 'instr') {
      if (instr) return twice(instr, it, 'instruction');
      instr = it;
    } else if (it.kind === 'incrementPc' || (it.kind === 'addlState' && it.id === TV_ADDL.pc)) {
      if (pc) return twice(pc, it, 'pc change (increment pc or additional state 10)');
      pc = it;
    } else if (it.kind === 'addlState' && it.id === TV_ADDL.priv) {
      if (priv) return twice(priv, it, 'privilege mode (additional state 1)');
      priv = it;
    } else if (it.kind === 'hartReset') reset ??= it;
    else if (it.kind === 'stateInit') init ??= it;
  }
  if (pc?.kind === 'incrementPc' && !instr) {
    return new TvDecodeError('bad-file', pc.offset, 'increment pc (opcode 3) in a group without an instruction', 'a 16- or 32-bit instruction (opcode 16 or 17) in the same group');
  }
  if (init && (instr || reset)) {
    const other = instr ?? reset!;
    return new TvDecodeError(
      'bad-file',
      init.offset,
      `state initialization (opcode 11) in a group with ${article(opText(other.opcode))} at byte offset ${other.offset}`,
      'register or memory updates only with a state initialization',
    );
  }
  return undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Applies one group (checked by checkGroup) to `state` and reports its changes. */
function applyGroup(g: TvGroup, index: number, state: TvState, w: Widths): TvGroupChanges {
  const items = g.items;
  const pcBefore = state.pc;
  // Most groups have no additional state and no memory access: those share one empty list.
  const regs: TvRegChange[] = [];
  let addl: TvAddl[] | undefined;
  let mem: TvMemAccess[] | undefined;
  let pc: Mutable<TvPcChange> | undefined;
  let instr: TvGroupChanges['instr'];
  let priv: number | undefined;
  let hartReset = false;
  let stateInit = false;
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    if (it.kind === 'hartReset') hartReset = true;
    else if (it.kind === 'stateInit') stateInit = true;
    else if (it.kind === 'instr') instr = { offset: it.offset, bits: it.bits, value: it.value };
  }

  // A reset makes everything unknown and the hart starts in M-mode (privileged spec "Reset");
  // the group's own changes (in any order) then apply on top.
  if (hartReset) {
    state.regs.clear();
    state.regs.set(GPR_BASE, 0n);
    delete state.pc;
    state.priv = 3;
  }

  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    switch (it.kind) {
      case 'fullReg':
        regs.push(writeReg(state, it.offset, it.regno, 'full', it.value, it.value));
        break;
      case 'incrRegAdd':
      case 'incrRegOr': {
        const before = state.regs.get(it.regno);
        const operand = it.kind === 'incrRegAdd' ? BigInt(it.delta) : BigInt(it.mask);
        // add: two's complement modulo the register width; or: the mask is 8 bits, zero extended.
        const mask = it.regno >= FPR_FIRST && it.regno <= FPR_LAST ? w.fmask : w.xmask;
        const after = before === undefined ? undefined : (it.kind === 'incrRegAdd' ? before + operand : before | operand) & mask;
        regs.push(writeReg(state, it.offset, it.regno, it.kind === 'incrRegAdd' ? 'add' : 'or', operand, after));
        break;
      }
      case 'incrementPc': {
        const by = instr !== undefined ? instr.bits / 8 : 0; // checkGroup made sure there is one
        pc = { offset: it.offset, how: 'increment', by };
        if (pcBefore !== undefined) pc.value = (pcBefore + BigInt(by)) & w.xmask;
        break;
      }
      case 'addlState':
        if (it.id === TV_ADDL.pc) pc = { offset: it.offset, how: 'set', value: it.value };
        else if (it.id === TV_ADDL.priv) priv = Number(it.value);
        else (addl ??= []).push({ offset: it.offset, id: it.id, name: ADDL_NAMES.get(it.id)!, value: it.value, bytes: it.bytes });
        break;
      case 'memRequest': {
        const m: Mutable<TvMemAccess> = { offset: it.offset, op: it.op, opName: memOpName(it.op), addr: it.addr, size: 1 << it.size };
        if (it.data !== undefined) m.data = it.data;
        (mem ??= []).push(m);
        break;
      }
      case 'memResponse': {
        // The parser guarantees the request is the item right before.
        const req = mem!.pop()!;
        const response: Mutable<NonNullable<TvMemAccess['response']>> = { offset: it.offset, size: 1 << it.size, ok: it.result === 0 };
        if (it.data !== undefined) response.data = it.data;
        mem!.push({ ...req, response });
        break;
      }
      case 'instr':
      case 'hartReset':
      case 'stateInit':
        break;
    }
  }

  if (pc) {
    if (pc.value === undefined) delete state.pc;
    else state.pc = pc.value;
  } else if (instr) {
    // An instruction retired but the trace does not say where the next one is: partial trace.
    delete state.pc;
  }
  if (priv !== undefined) state.priv = priv;

  const changes: Mutable<TvGroupChanges> = { index, offset: groupOffset(g), grouped: g.begin !== undefined, endImplied: g.endImplied, kind: 'empty', regs, addl: addl ?? NONE, mem: mem ?? NONE, hartReset, stateInit };
  if (instr && pcBefore !== undefined) changes.instrPc = pcBefore;
  if (pc) changes.pc = pc;
  if (instr) changes.instr = instr;
  if (priv !== undefined) changes.priv = priv;
  changes.kind = groupKind(changes, items.length, w.xlen);
  return changes;
}

const NONE: readonly never[] = Object.freeze([]);

/** Names by register number, made once each (regName builds CSR and unknown names as strings). */
const REG_NAMES = new Map<number, string>();

function nameOf(regno: number): string {
  let name = REG_NAMES.get(regno);
  if (name === undefined) REG_NAMES.set(regno, (name = regName(regno)));
  return name;
}

/** Records a register change and applies it to the state (`value` undefined: the register becomes unknown). */
function writeReg(state: TvState, offset: number, regno: number, how: TvRegChange['how'], operand: bigint, value: bigint | undefined): TvRegChange {
  const before = state.regs.get(regno);
  if (value === undefined) state.regs.delete(regno);
  else state.regs.set(regno, value);
  if (regno <= FCSR) keepFcsrViews(state.regs, regno);
  const change: Mutable<TvRegChange> = { offset, regno, name: nameOf(regno), how, operand };
  if (before !== undefined) change.before = before;
  if (value !== undefined) change.value = value;
  return change;
}

/**
 * fflags and frm are views of fcsr (fcsr = frm << 5 | fflags). The spec's own example (Table C.3)
 * ORs into fcsr while Bluespec's cores write fflags, so an incremental update of one must see
 * writes to the others. No other aliasing (sstatus/mstatus, sie/mie, ...) is modelled.
 */
function keepFcsrViews(r: Map<number, bigint>, regno: number): void {
  if (regno === FCSR) {
    const v = r.get(FCSR);
    if (v === undefined) {
      r.delete(FFLAGS);
      r.delete(FRM);
    } else {
      r.set(FFLAGS, v & 0x1fn);
      r.set(FRM, (v >> 5n) & 0x7n);
    }
  } else if (regno === FFLAGS || regno === FRM) {
    const flags = r.get(FFLAGS);
    const rm = r.get(FRM);
    if (flags === undefined || rm === undefined) r.delete(FCSR);
    else r.set(FCSR, ((rm & 0x7n) << 5n) | (flags & 0x1fn));
  }
}

/** The trap CSRs of each privilege level: a group that writes a level's cause and epc is a trap. */
const TRAP_CSRS: readonly { cause: number; epc: number }[] = [
  { cause: 0x342, epc: 0x341 }, // mcause, mepc
  { cause: 0x142, epc: 0x141 }, // scause, sepc
  { cause: 0x042, epc: 0x041 }, // ucause, uepc
];

/** mret, sret, uret, dret. */
const XRET_ENCODINGS: ReadonlySet<number> = new Set([0x30200073, 0x10200073, 0x00200073, 0x7b200073]);

/**
 * What a group is, from its content (the protocol does not say): a hart reset; a debug-module write
 * (state initialization); a trap when it writes the cause and epc CSRs of one level (an interrupt
 * when the new cause has its top bit set, as the privileged spec's xcause does); an xRET
 * instruction; any other instruction; state without an instruction; nothing.
 */
function groupKind(c: Omit<TvGroupChanges, 'kind'>, itemCount: number, xlen: number): TvGroupKind {
  if (c.hartReset) return 'reset';
  if (c.stateInit) return 'debug-write';
  for (const t of TRAP_CSRS) {
    let cause: TvRegChange | undefined;
    let epc = false;
    for (const r of c.regs) {
      if (r.regno === t.cause) cause ??= r;
      else if (r.regno === t.epc) epc = true;
    }
    if (cause && epc) {
      return cause.value !== undefined && (cause.value >> BigInt(xlen - 1)) & 1n ? 'interrupt' : 'trap';
    }
  }
  if (c.instr) return c.instr.bits === 32 && XRET_ENCODINGS.has(c.instr.value) ? 'xret' : 'instruction';
  return itemCount === 0 ? 'empty' : 'state';
}

/** parseTv then rebuildTv: the first error of either. */
export function decodeTv(bytes: Uint8Array, params: TvParams, initial?: TvInitialState): TvRebuild {
  // Group by group: a rebuild error ends the parse there (it comes before any parse error).
  const r = new Rebuilder(params, initial);
  let rebuildError: TvDecodeError | undefined;
  const parseError = scanTv(bytes, params, (g) => {
    rebuildError = r.add(g);
    return rebuildError === undefined;
  });
  const error = rebuildError ?? parseError;
  return error ? { groups: r.out, state: r.state, error } : { groups: r.out, state: r.state };
}
