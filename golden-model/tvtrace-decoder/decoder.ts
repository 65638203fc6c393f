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

/** Splits a trace byte stream into groups. Never throws; stops at the first error. */
export function parseTv(bytes: Uint8Array, params: TvParams): TvParse {
  const bad = checkTvParams(params);
  if (bad) throw bad; // a caller bug, not bad input: the parameters come from the component
  const groups: TvGroup[] = [];
  const xlenBytes = params.xlen / 8;
  const flenBytes = params.flen / 8;
  const mlenBytes = Math.ceil(params.mlen / 8);
  const mlenLimit = 1n << BigInt(params.mlen);

  /** The open group (after a begin group) or the current ungrouped run. */
  let current: { begin?: number; items: TvItem[] } | undefined;
  const close = (end: number | undefined, endImplied: boolean): void => {
    if (current) groups.push({ ...(current.begin !== undefined ? { begin: current.begin } : {}), ...(end !== undefined ? { end } : {}), endImplied, items: current.items });
    current = undefined;
  };

  let i = 0;
  try {
    while (i < bytes.length) {
      const op = bytes[i]!;
      if (op === TV_OP.beginGroup) {
        // A begin group while a group is open implies that group's end (spec chapter 3).
        close(undefined, current?.begin !== undefined);
        current = { begin: i, items: [] };
        i++;
      } else if (op === TV_OP.endGroup) {
        if (current?.begin === undefined) {
          throw new Stop(new TvDecodeError('bad-file', i, 'end group (opcode 2) with no group open', 'begin group (opcode 1) or a state change'));
        }
        close(i, false);
        i++;
      } else {
        current ??= { items: [] };
        const item = readItem(bytes, i, current.items[current.items.length - 1]);
        current.items.push(item);
        i += item.length;
      }
    }
    if (current?.begin !== undefined) {
      throw new Stop(new TvDecodeError('truncated', bytes.length, `stream ends inside the group begun at byte offset ${current.begin}`, 'end group (opcode 2)'));
    }
    close(undefined, false); // an ungrouped run at the end
    return { groups };
  } catch (e) {
    if (e instanceof Stop) return { groups, error: e.error };
    throw e;
  }

  /** Reads the item whose opcode is at `at`; `previous` is the item before it in the same group. */
  function readItem(b: Uint8Array, at: number, previous: TvItem | undefined): TvItem {
    const opcode = b[at]!;
    /** Little-endian unsigned value of `n` payload bytes starting `from` (checks the stream holds them). */
    const le = (from: number, n: number, what: string): bigint => {
      if (from + n > b.length) {
        throw new Stop(
          new TvDecodeError(
            'truncated',
            b.length,
            `stream ends inside ${article(opText(opcode))} at byte offset ${at}`,
            `${n} byte${n === 1 ? '' : 's'} of ${what} at offset ${from}, ${Math.max(0, b.length - from)} present`,
          ),
        );
      }
      let v = 0n;
      for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[from + k]!);
      return v;
    };
    const base = { offset: at, opcode };
    /** Data bytes of a register number: FLEN for an FPR, XLEN for everything else. */
    const regBytes = (regno: number, where: number): number => {
      if (regClass(regno) !== 'fpr') return xlenBytes;
      if (flenBytes === 0) {
        throw new Stop(new TvDecodeError('bad-value', where, `register ${regName(regno)} (${hex(regno, 4)}) is an FPR but FLEN = 0`, 'a GPR, CSR or other register number'));
      }
      return flenBytes;
    };
    /** An MLEN field must have no bits above MLEN ("zero extended"). */
    const mlenField = (from: number, what: string): bigint => {
      const v = le(from, mlenBytes, what);
      if (v >= mlenLimit) throw new Stop(new TvDecodeError('bad-value', from, `${what} ${hex(v)} has bits above MLEN = ${params.mlen}`, `a ${params.mlen}-bit address, zero extended`));
      return v;
    };

    switch (opcode) {
      case TV_OP.incrementPc:
        return { ...base, kind: 'incrementPc', length: 1 };
      case TV_OP.fullReg: {
        const regno = Number(le(at + 1, 2, 'register number'));
        const n = regBytes(regno, at + 1);
        return { ...base, kind: 'fullReg', length: 3 + n, regno, value: le(at + 3, n, `${regName(regno)} data`) };
      }
      case TV_OP.incrRegAdd:
      case TV_OP.incrRegOr: {
        const regno = Number(le(at + 1, 2, 'register number'));
        regBytes(regno, at + 1);
        const byte = Number(le(at + 3, 1, opcode === TV_OP.incrRegAdd ? 'signed offset' : 'OR mask'));
        return opcode === TV_OP.incrRegAdd
          ? { ...base, kind: 'incrRegAdd', length: 4, regno, delta: byte >= 0x80 ? byte - 0x100 : byte }
          : { ...base, kind: 'incrRegOr', length: 4, regno, mask: byte };
      }
      case TV_OP.addlState: {
        const id = Number(le(at + 1, 1, 'additional-state identifier'));
        const n = addlBytes(id, xlenBytes, mlenBytes);
        if (n === undefined) {
          throw new Stop(new TvDecodeError('bad-value', at + 1, `additional-state identifier ${id} (${hex(id, 2)})`, 'an identifier 1..10'));
        }
        const what = ADDL_NAMES.get(id)!;
        const value = id === TV_ADDL.paddr || id === TV_ADDL.eaddr || id === TV_ADDL.pcPaddr ? mlenField(at + 2, what) : le(at + 2, n, what);
        if (id === TV_ADDL.priv && value > 3n) {
          throw new Stop(new TvDecodeError('bad-value', at + 2, `privilege mode ${value}`, 'a privilege mode 0..3 (PRIVLEN = 2, zero extended)'));
        }
        return { ...base, kind: 'addlState', length: 2 + n, id, value, bytes: n };
      }
      case TV_OP.memRequest: {
        const addr = mlenField(at + 1, 'memory request address');
        const where = at + 1 + mlenBytes;
        const opSize = Number(le(where, 1, 'op and size'));
        // Sub-byte fields: the first listed (op) in the least significant bits.
        const op = opSize & 0xf;
        const size = opSize >> 4;
        if (op > MEM_FETCH) throw new Stop(new TvDecodeError('bad-value', where, `memory request op ${op}`, 'an op 0..13 in bits [3:0]'));
        if (size > 3) throw new Stop(new TvDecodeError('bad-value', where, `memory request size ${size}`, 'a size 0..3 (8 to 64 bits) in bits [7:4]'));
        if (!requestHasData(op)) return { ...base, kind: 'memRequest', length: 2 + mlenBytes, addr, op, size };
        const n = 1 << size;
        return { ...base, kind: 'memRequest', length: 2 + mlenBytes + n, addr, op, size, data: le(where + 1, n, `${memOpName(op)} data`) };
      }
      case TV_OP.memResponse: {
        if (previous?.kind !== 'memRequest') {
          throw new Stop(
            new TvDecodeError('bad-file', at, `memory response (opcode 9) after ${previous ? article(opText(previous.opcode)) : 'no item of its group'}`, 'a memory request (opcode 8) right before it'),
          );
        }
        const sizeResult = Number(le(at + 1, 1, 'size and result'));
        const size = sizeResult & 0xf;
        const result = sizeResult >> 4;
        if (size > 3) throw new Stop(new TvDecodeError('bad-value', at + 1, `memory response size ${size}`, 'a size 0..3 (8 to 64 bits) in bits [3:0]'));
        if (result > 1) throw new Stop(new TvDecodeError('bad-value', at + 1, `memory response result ${result}`, 'a result 0 (success) or 1 (failure) in bits [7:4]'));
        if (!responseHasData(previous.op)) return { ...base, kind: 'memResponse', length: 2, size, result };
        const n = 1 << size;
        return { ...base, kind: 'memResponse', length: 2 + n, size, result, data: le(at + 2, n, `${memOpName(previous.op)} response data`) };
      }
      case TV_OP.hartReset:
        return { ...base, kind: 'hartReset', length: 1 };
      case TV_OP.stateInit:
        return { ...base, kind: 'stateInit', length: 1 };
      case TV_OP.instr16:
        return { ...base, kind: 'instr', length: 3, bits: 16, value: Number(le(at + 1, 2, 'instruction')) };
      case TV_OP.instr32:
        return { ...base, kind: 'instr', length: 5, bits: 32, value: Number(le(at + 1, 4, 'instruction')) };
      default:
        throw new Stop(new TvDecodeError('bad-value', at, `unknown opcode ${hex(opcode, 2)} (${opcode})`, 'an opcode 1..11, 16 or 17'));
    }
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
  const xmask = (1n << BigInt(params.xlen)) - 1n;
  const fmask = (1n << BigInt(params.flen)) - 1n;
  const widthMask = (regno: number): bigint => (regClass(regno) === 'fpr' ? fmask : xmask);
  const state: TvState = { regs: new Map(initial?.regs ?? []) };
  if (initial?.pc !== undefined) state.pc = initial.pc;
  if (initial?.priv !== undefined) state.priv = initial.priv;
  if (!state.regs.has(GPR_BASE)) state.regs.set(GPR_BASE, 0n);
  const out: TvGroupChanges[] = [];

  for (let index = 0; index < groups.length; index++) {
    const g = groups[index]!;
    const problem = checkGroup(g);
    if (problem) return { groups: out, state, error: problem };
    out.push(applyGroup(g, index));
  }
  return { groups: out, state };

  function checkGroup(g: TvGroup): TvDecodeError | undefined {
    let instr: TvItem | undefined;
    let pc: TvItem | undefined;
    let priv: TvItem | undefined;
    let reset: TvItem | undefined;
    let init: TvItem | undefined;
    const twice = (first: TvItem, second: TvItem, what: string): TvDecodeError =>
      new TvDecodeError('bad-file', second.offset, `second ${what} in one group (the first at byte offset ${first.offset})`, `at most one ${what} per group`);
    for (const it of g.items) {
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

  function applyGroup(g: TvGroup, index: number): TvGroupChanges {
    const pcBefore = state.pc;
    const regs: TvRegChange[] = [];
    const addl: TvAddl[] = [];
    const mem: TvMemAccess[] = [];
    let pc: TvPcChange | undefined;
    let instr: TvGroupChanges['instr'];
    let priv: number | undefined;
    const hartReset = g.items.some((it) => it.kind === 'hartReset');
    const stateInit = g.items.some((it) => it.kind === 'stateInit');
    const instrItem = g.items.find((it) => it.kind === 'instr');

    // A reset makes everything unknown and the hart starts in M-mode (privileged spec "Reset");
    // the group's own changes (in any order) then apply on top.
    if (hartReset) {
      state.regs.clear();
      state.regs.set(GPR_BASE, 0n);
      delete state.pc;
      state.priv = 3;
    }

    for (let k = 0; k < g.items.length; k++) {
      const it = g.items[k]!;
      switch (it.kind) {
        case 'fullReg':
          regs.push(writeReg(it.offset, it.regno, 'full', it.value, it.value));
          break;
        case 'incrRegAdd':
        case 'incrRegOr': {
          const before = state.regs.get(it.regno);
          const operand = it.kind === 'incrRegAdd' ? BigInt(it.delta) : BigInt(it.mask);
          // add: two's complement modulo the register width; or: the mask is 8 bits, zero extended.
          const after = before === undefined ? undefined : (it.kind === 'incrRegAdd' ? before + operand : before | operand) & widthMask(it.regno);
          regs.push(writeReg(it.offset, it.regno, it.kind === 'incrRegAdd' ? 'add' : 'or', operand, after));
          break;
        }
        case 'incrementPc': {
          const by = instrItem?.kind === 'instr' ? instrItem.bits / 8 : 0; // checkGroup made sure there is one
          pc = { offset: it.offset, how: 'increment', by, ...(pcBefore !== undefined ? { value: (pcBefore + BigInt(by)) & xmask } : {}) };
          break;
        }
        case 'addlState':
          if (it.id === TV_ADDL.pc) pc = { offset: it.offset, how: 'set', value: it.value };
          else if (it.id === TV_ADDL.priv) priv = Number(it.value);
          else addl.push({ offset: it.offset, id: it.id, name: ADDL_NAMES.get(it.id)!, value: it.value, bytes: it.bytes });
          break;
        case 'memRequest':
          mem.push({
            offset: it.offset,
            op: it.op,
            opName: memOpName(it.op),
            addr: it.addr,
            size: 1 << it.size,
            ...(it.data !== undefined ? { data: it.data } : {}),
          });
          break;
        case 'memResponse': {
          // The parser guarantees the request is the item right before.
          const req = mem.pop()!;
          mem.push({ ...req, response: { offset: it.offset, size: 1 << it.size, ok: it.result === 0, ...(it.data !== undefined ? { data: it.data } : {}) } });
          break;
        }
        case 'instr':
          instr = { offset: it.offset, bits: it.bits, value: it.value };
          break;
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

    const changes = {
      index,
      offset: groupOffset(g),
      grouped: g.begin !== undefined,
      endImplied: g.endImplied,
      ...(instr && pcBefore !== undefined ? { instrPc: pcBefore } : {}),
      ...(pc ? { pc } : {}),
      ...(instr ? { instr } : {}),
      regs,
      ...(priv !== undefined ? { priv } : {}),
      addl,
      mem,
      hartReset,
      stateInit,
    };
    return { ...changes, kind: groupKind(changes, g.items.length, params.xlen) };
  }

  /** Records a register change and applies it to the state (`value` undefined: the register becomes unknown). */
  function writeReg(offset: number, regno: number, how: TvRegChange['how'], operand: bigint, value: bigint | undefined): TvRegChange {
    const before = state.regs.get(regno);
    if (value === undefined) state.regs.delete(regno);
    else state.regs.set(regno, value);
    keepFcsrViews(regno);
    return {
      offset,
      regno,
      name: regName(regno),
      how,
      operand,
      ...(before !== undefined ? { before } : {}),
      ...(value !== undefined ? { value } : {}),
    };
  }

  /**
   * fflags and frm are views of fcsr (fcsr = frm << 5 | fflags). The spec's own example (Table C.3)
   * ORs into fcsr while Bluespec's cores write fflags, so an incremental update of one must see
   * writes to the others. No other aliasing (sstatus/mstatus, sie/mie, ...) is modelled.
   */
  function keepFcsrViews(regno: number): void {
    const r = state.regs;
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
    const cause = c.regs.find((r) => r.regno === t.cause);
    if (cause && c.regs.some((r) => r.regno === t.epc)) {
      return cause.value !== undefined && (cause.value >> BigInt(xlen - 1)) & 1n ? 'interrupt' : 'trap';
    }
  }
  if (c.instr) return c.instr.bits === 32 && XRET_ENCODINGS.has(c.instr.value) ? 'xret' : 'instruction';
  return itemCount === 0 ? 'empty' : 'state';
}

/** parseTv then rebuildTv: the first error of either. */
export function decodeTv(bytes: Uint8Array, params: TvParams, initial?: TvInitialState): TvRebuild {
  const parsed = parseTv(bytes, params);
  const rebuilt = rebuildTv(parsed.groups, params, initial);
  if (rebuilt.error || !parsed.error) return rebuilt;
  return { ...rebuilt, error: parsed.error };
}
