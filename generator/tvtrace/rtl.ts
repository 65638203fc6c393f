/**
 * The generated RTL of the tandem-verification trace encoder for one configuration
 * (templates/tvtrace/*.sv.hbs), with the banner of every generated file and deterministic to the byte.
 *
 * Module split (tvtraceRtlModules):
 * - tvtrace_seed_state (field_order = seed only): the pc and fcsr a decoder holds after the records
 *   taken so far, which the compact opcodes of the seed order (3, increment pc; 6, OR into fcsr)
 *   depend on, as the model's encoder keeps them;
 * - tvtrace_assemble: one record, combinationally: the record's fields in slots (tvSlots, in the
 *   configuration's field order), each slot's byte offset (the length of the valid slots before it)
 *   and the record's length;
 * - tvtrace_place: the record's bytes from the slots and offsets held in the record register, each
 *   slot shifted into a zero vector of its own and the vectors OR-ed in a balanced tree;
 * - tvtrace_fifo: the output FIFO of fifo_bytes bytes (a shift register: the bytes leave from the
 *   bottom, a record enters whole above the bytes that stay), the record handshake (a record
 *   register of slots and offsets, ready when it is empty or being emptied; tvtrace_place after
 *   it) and the byte- or word-wide output port;
 * - tvtrace_top: the two, and the configuration as localparams.
 *
 * This file prepares every value the templates paste (ranges, literals, slot tables, port lines);
 * the templates only choose, loop and paste.
 */
import type { Provenance, Waiver } from '../../core/block.ts';
import type { Settings } from '../../golden-model/common/settings.ts';
import { mlenBytes, TVTRACE_BLOCK_SETTINGS, type TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { camelCase, commentBanner, connections, padColumn, renderTemplate, svLogic, svRange, svSized, wrapComment, type OutputFile } from '../render.ts';
import { alignDeclarations } from '../sv-align.ts';
import { configurationLocalparamsWaiver } from '../waivers.ts';
import { TV_CSR_SLOTS, TV_MEM_SLOTS, tvBytesWidth, tvtracePorts, tvtraceRtlModules, type TvtraceRtlModule } from './ports.ts';

const bitsFor = (n: number): number => Math.max(1, 32 - Math.clz32(n));

type Kind = 'instruction' | 'trap' | 'interrupt' | 'xret' | 'debug-reg' | 'debug-mem' | 'reset' | 'unobserved';
const KINDS: readonly Kind[] = ['instruction', 'trap', 'interrupt', 'xret', 'debug-reg', 'debug-mem', 'reset', 'unobserved'];

/** One slot of a group: its signal prefix and the most bytes it takes in each kind (absent: never valid). */
export interface TvSlot {
  readonly name: string;
  readonly maxBytes: Partial<Record<Kind, number>>;
}

/**
 * The slots of a record, in stream order (encoder.ts and docs/tvtrace-model.md). Bluespec order:
 * head (begin group and pc, or the debug/reset opcode, or unobserved mtime), instruction, privilege,
 * four register slots shared by the kinds (reg0: rd, xstatus, mstatus, a debug GPR/CSR, mcycle; reg1:
 * xcause, mcycleh; reg2: xepc, minstret; reg3: xtval, minstreth), frd, store data (or a debug memory
 * request), eaddr, paddr, the CSR slots, fcsr, end group. Seed order: head (pc or increment pc),
 * instruction, reg0 (rd, xepc, mstatus, ...), frd, reg1 (xcause), reg2 (xstatus), reg3 (xtval), the
 * CSR slots, fcsr (full or OR), paddr, eaddr, store data, privilege, end group.
 */
export function tvSlots(c: TvtraceRtlConfig): TvSlot[] {
  const x = c.xlen / 8;
  const f = c.flen / 8;
  const m = mlenBytes(c.mlen);
  const sw = Math.max(x, f);
  const reg = 3 + x;
  const rv32 = x === 4;
  const steps = { instruction: 3 + x, trap: 3 + x, interrupt: 3 + x, xret: 3 + x };
  const slot = {
    head: { name: 'head', maxBytes: { ...steps, 'debug-reg': 2, 'debug-mem': 2, reset: 2, unobserved: 10 } },
    instr: { name: 'instr', maxBytes: { instruction: 5, trap: 5, xret: 5 } },
    priv: { name: 'priv', maxBytes: { instruction: 3, trap: 3, interrupt: 3, xret: 3 } },
    reg0: { name: 'reg0', maxBytes: { instruction: reg, trap: reg, interrupt: reg, xret: reg, 'debug-reg': reg, unobserved: reg } },
    fpr: f > 0 ? [{ name: 'fpr', maxBytes: { instruction: 3 + f, 'debug-reg': 3 + f } }] : [],
    reg1: { name: 'reg1', maxBytes: { trap: reg, interrupt: reg, ...(rv32 ? { unobserved: reg } : {}) } },
    store: { name: 'store', maxBytes: { instruction: 2 + sw, 'debug-mem': 2 + m + sw } },
    reg2: { name: 'reg2', maxBytes: { trap: reg, interrupt: reg, unobserved: reg } },
    eaddr: { name: 'eaddr', maxBytes: { instruction: 2 + m } },
    reg3: { name: 'reg3', maxBytes: { trap: reg, interrupt: reg, ...(rv32 ? { unobserved: reg } : {}) } },
    paddr: { name: 'paddr', maxBytes: { instruction: 2 + m } },
    pcPaddr: { name: 'pc_paddr', maxBytes: { instruction: 2 + m } },
    mems: Array.from({ length: TV_MEM_SLOTS }, (_, k) => ({ name: `mem${k}`, maxBytes: { instruction: 1 + m + 1 + sw + 2 + sw } })),
    csrs: Array.from({ length: TV_CSR_SLOTS }, (_, k) => ({ name: `csr${k}`, maxBytes: { instruction: reg } })),
    fcsr: { name: 'fcsr', maxBytes: { instruction: reg } },
    close: { name: 'close', maxBytes: { instruction: 1, trap: 1, interrupt: 1, xret: 1, 'debug-reg': 1, 'debug-mem': 1, reset: 1 } },
  } satisfies Record<string, TvSlot | TvSlot[]>;
  const s = slot;
  if (c.fieldOrder === 'seed') {
    return [s.head, s.pcPaddr, s.instr, s.reg0, ...s.fpr, s.reg1, s.reg2, s.reg3, ...s.csrs, s.fcsr, s.paddr, s.eaddr, s.store, ...s.mems, s.priv, s.close];
  }
  return [s.head, s.pcPaddr, s.instr, s.priv, s.reg0, ...s.fpr, s.reg1, s.store, s.reg2, s.eaddr, s.reg3, s.paddr, ...s.mems, ...s.csrs, s.fcsr, s.close];
}

/** Each slot's widest bytes, the most bytes before it (any kind), and the record's longest length. */
export function tvSlotLayout(c: TvtraceRtlConfig): { slots: { name: string; bytes: number; maxOffset: number }[]; recordBytes: number } {
  const slots = tvSlots(c);
  const before: Record<Kind, number> = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  const out = slots.map((s) => {
    const maxOffset = Math.max(...KINDS.filter((k) => s.maxBytes[k] !== undefined).map((k) => before[k]));
    for (const k of KINDS) before[k] += s.maxBytes[k] ?? 0;
    return { name: s.name, bytes: Math.max(...Object.values(s.maxBytes)), maxOffset };
  });
  return { slots: out, recordBytes: Math.max(...KINDS.map((k) => before[k])) };
}

/** An MLEN address port as its field of whole bytes (zero extended): `paddr_i` or `{6'b0, paddr_i}`. */
function mlenField(port: string, mlen: number): string {
  const pad = 8 * mlenBytes(mlen) - mlen;
  return pad === 0 ? port : `{${svSized(pad, 0n)}, ${port}}`;
}

/** Port declaration lines of a module: the description as comments, then the declaration. */
function portLines(ports: readonly { name: string; direction: 'in' | 'out'; width: number; description: string }[]): string[] {
  const types = padColumn(ports.map((q) => `${q.direction === 'in' ? 'input ' : 'output'} ${svLogic(q.width)}`));
  return ports.flatMap((q, i) => [...wrapComment(q.description, 96), `${types[i]} ${q.name}${i === ports.length - 1 ? '' : ','}`]);
}

/** The record ports (what tvtrace_assemble takes). */
function recordPorts(c: TvtraceRtlConfig) {
  return tvtracePorts(c).filter((p) => (p.group === 'record' || p.group === 'unobserved') && p.name !== 'rec_valid_i' && p.name !== 'rec_ready_o');
}

/** The decoder's state as tvtrace_seed_state gives it to tvtrace_assemble (seed order only). */
function decoderStatePorts(c: TvtraceRtlConfig) {
  return [
    { name: 'dec_pc_valid_i', direction: 'in' as const, width: 1, description: 'The decoder knows the pc (a group with a pc since the start or the last hart reset).' },
    { name: 'dec_pc_i', direction: 'in' as const, width: c.xlen, description: 'The pc the decoder holds: the next pc of the last group.' },
    { name: 'dec_fcsr_valid_i', direction: 'in' as const, width: 1, description: 'The decoder knows fcsr after the CSR writes of this record.' },
    { name: 'dec_fcsr_i', direction: 'in' as const, width: c.xlen, description: 'The fcsr the decoder holds after the CSR writes of this record.' },
  ];
}

/** The state module's ports: what it watches of the record port and what it gives the assembly. */
function seedStatePorts(c: TvtraceRtlConfig) {
  const watched = new Set(['kind_i', 'next_pc_i', 'gpr_valid_i', 'fpr_valid_i', 'csr_valid_i', 'csr_addr_i', 'csr_data_i', 'fcsr_valid_i', 'fcsr_i']);
  const record = recordPorts(c).filter((p) => watched.has(p.name));
  return [
    { name: 'clk_i', direction: 'in' as const, width: 1, description: 'Clock.' },
    { name: 'rst_ni', direction: 'in' as const, width: 1, description: 'Asynchronous reset, active low: the decoder knows nothing yet.' },
    { name: 'take_i', direction: 'in' as const, width: 1, description: 'The record on the inputs enters the FIFO in this cycle.' },
    ...record,
    ...decoderStatePorts(c).map((p) => ({ ...p, name: p.name.replace(/^dec_(.*)_i$/, '$1_o'), direction: 'out' as const })),
  ];
}

function seedStateContext(c: TvtraceRtlConfig, banner: string) {
  const x = c.xlen;
  const hasF = c.flen > 0;
  return {
    banner,
    portLines: portLines(seedStatePorts(c)),
    xr: svRange(x),
    // The CSR writes a decoder applies, in slot order: every valid slot of an instruction; slot 0 of
    // a debug-module CSR write (a debug-reg record whose GPR and FPR are not valid).
    csrNotes: Array.from({ length: TV_CSR_SLOTS }, (_, k) => ({
      k,
      when: k === 0 ? `csr_valid_i[0] && (is_instruction || (kind_i == KindDebugReg && !gpr_valid_i${hasF ? ' && !fpr_valid_i' : ''}))` : `csr_valid_i[${k}] && is_instruction`,
      addr: `csr_addr_i[${k * 12 + 11}:${k * 12}]`,
      data: `csr_data_i[${k * x + x - 1}:${k * x}]`,
    })),
  };
}

/** The fields of each kind in stream order, for the header of tvtrace_assemble. */
const BLUESPEC_ORDER_LINES = [
  "in the order of Bluespec's Flute encoder (TV_Encode.bsv):",
  '  instruction: 01, 07 0a pc, [10/11 instr], [07 01 priv], [04 rd], [04 frd], [07 04..07 store',
  '               data], [07 03 eaddr], [07 02 paddr], [04 csr] in slot order, [04 0003 fcsr], 02',
  '  trap:        01, 07 0a pc, [10/11 instr], 07 01 priv, 04 xstatus, 04 xcause, 04 xepc, 04 xtval, 02',
  '  interrupt:   as a trap, without the instruction',
  '  xret:        01, 07 0a pc, [10/11 instr], 07 01 priv, 04 0300 mstatus, 02',
];
const SEED_ORDER_LINES = [
  "in the order of the seed's Appendix C examples:",
  '  instruction: 01, 03 (pc + instruction length, when the decoder knows the pc) or 07 0a pc,',
  '               [10/11 instr], [04 rd], [04 frd], [04 csr] in slot order, [06 0003 mask (when',
  '               the decoder knows fcsr and only bits 7:0 are newly set) or 04 0003 fcsr],',
  '               [07 02 paddr], [07 03 eaddr], [07 04..07 store data], [07 01 priv], 02',
  '  trap:        01, 07 0a pc, [10/11 instr], 04 xepc, 04 xcause, 04 xstatus, 04 xtval, 07 01 priv, 02',
  '  interrupt:   as a trap, without the instruction',
  '  xret:        01, 07 0a pc, [10/11 instr], 04 0300 mstatus, 07 01 priv, 02',
];

function assembleContext(c: TvtraceRtlConfig, banner: string) {
  const layout = tvSlotLayout(c);
  const rb = layout.recordBytes;
  const lw = bitsFor(rb);
  const x = c.xlen;
  const sw = Math.max(c.xlen, c.flen);
  const maxSize = Math.log2(sw / 8); // the widest store-data size code
  const m = mlenBytes(c.mlen);
  const rv32 = c.xlen === 32;
  const len = (n: number): string => svSized(lw, BigInt(n));
  // The store-data sizes: identifier, length and the data (the low 2^size bytes, zero extended to
  // max(XLEN, FLEN) bits); a size above the widest (8 bytes on RV32 without D) is taken as the widest.
  const sizes = [0, 1, 2, 3].map((k) => {
    const e = Math.min(k, maxSize);
    const bits = 8 << e;
    return {
      code: svSized(2, BigInt(k)),
      id: svSized(8, BigInt(4 + e)),
      storeLen: len(2 + (1 << e)),
      memLen: len(2 + m + (1 << e)),
      memOp: svSized(8, BigInt((e << 4) | 1)),
      data: bits === sw ? 'store_data_i' : `${sw}'(store_data_i[${bits - 1}:0])`,
    };
  });
  const headBytes = Math.max(3 + x / 8, 10);
  const regBytes = 3 + x / 8;
  const storeBytes = 2 + m + sw / 8;
  const ports = [
    ...recordPorts(c),
    ...slotBusPorts(layout.slots),
    { name: 'len_o', direction: 'out' as const, width: lw, description: 'Bytes of the record (0 for unobserved state with nothing valid).' },
  ];
  const seed = c.fieldOrder === 'seed';
  return {
    banner,
    seed,
    orderLines: seed ? SEED_ORDER_LINES : BLUESPEC_ORDER_LINES,
    portLines: portLines(seed ? [...ports.slice(0, -3), ...decoderStatePorts(c), ...ports.slice(-3)] : ports),
    lr: svRange(lw),
    xr: svRange(x),
    pcStep2: svSized(x, 2n),
    pcStep4: svSized(x, 4n),
    fcsrHighBits: `[${x - 1}:8]`,
    regBits: 8 * regBytes,
    len4: len(4),
    hasF: c.flen > 0,
    rv32,
    zero: len(0),
    headBits: 8 * headBytes,
    headHi: 8 * headBytes - 1,
    headStepLen: len(3 + x / 8),
    regHi: 8 * regBytes - 1,
    regLen: len(regBytes),
    fprHi: 8 * (3 + c.flen / 8) - 1,
    fprLen: len(3 + c.flen / 8),
    swHi: sw - 1,
    storeBits: 8 * storeBytes,
    storeHi: 8 * storeBytes - 1,
    addrHi: 8 * (2 + m) - 1,
    addrLen: len(2 + m),
    len1: len(1),
    len2: len(2),
    len3: len(3),
    len5: len(5),
    len10: len(10),
    csr0Data: `csr_data_i[${x - 1}:0]`,
    csr0Addr: 'csr_addr_i[11:0]',
    // mcycle and minstret: the low XLEN bits in the first register (all 64 on RV64).
    cycleLow: rv32 ? 'mcycle_i[31:0]' : 'mcycle_i',
    instretLow: rv32 ? 'minstret_i[31:0]' : 'minstret_i',
    paddrField: mlenField('paddr_i', c.mlen),
    pcPaddrField: mlenField('pc_paddr_i', c.mlen),
    memHi: 8 * (1 + m + 1 + sw / 8 + 2 + sw / 8) - 1,
    memReqHi: 8 * (2 + m + sw / 8) - 1,
    memRspHi: 8 * (2 + sw / 8) - 1,
    memAllBits: 8 * (1 + m + 1 + sw / 8 + 2 + sw / 8),
    memHeadLen: len(2 + m),
    len2Mem: len(2),
    memLenHi: bitsFor(2 + m + sw / 8) - 1,
    // The memory transaction slots; a size above the widest (8 bytes on RV32 without D) is taken as
    // the widest, as for the store data. Data: the low 2^size bytes, zero extended.
    memSlots: Array.from({ length: TV_MEM_SLOTS }, (_, k) => {
      const wdata = `mem_data_i[${sw * k + sw - 1}:${sw * k}]`;
      const rdata = `mem_rsp_data_i[${sw * k + sw - 1}:${sw * k}]`;
      return {
        k,
        op: `mem_op_i[${4 * k + 3}:${4 * k}]`,
        size: `mem_size_i[${2 * k + 1}:${2 * k}]`,
        addr: mlenField(`mem_addr_i[${c.mlen * k + c.mlen - 1}:${c.mlen * k}]`, c.mlen),
        sizes: [0, 1, 2, 3].map((code) => {
          const e = Math.min(code, maxSize);
          const bits = 8 << e;
          const keep = (d: string): string => (bits === sw ? d : `${sw}'(${d.replace(/\[(\d+):(\d+)\]$/, (_m, _hi, lo: string) => `[${Number(lo) + bits - 1}:${lo}]`)})`);
          return { code: svSized(2, BigInt(code)), e: svSized(4, BigInt(e)), n: len(1 << e), wdata: keep(wdata), rdata: keep(rdata) };
        }),
      };
    }),
    eaddrField: mlenField('eaddr_i', c.mlen),
    sizes,
    sizeNote: maxSize === 3 ? 'every size fits.' : `sizes above ${maxSize} (wider than max(XLEN, FLEN)) are taken as ${maxSize}.`,
    csrSlots: Array.from({ length: TV_CSR_SLOTS }, (_, k) => ({
      k,
      data: `csr_data_i[${k * x + x - 1}:${k * x}]`,
      addr: `csr_addr_i[${k * 12 + 11}:${k * 12}]`,
    })),
    // The slots and their byte offsets leave the module as two buses (slots_o: the first slot in
    // the low bits; at_o: the offset of each slot but the first, which is always at 0): the record
    // register holds them, and tvtrace_place lays the slots out after it.
    ...slotOffsets(layout.slots, svRange(lw)),
    ...slotBuses(layout.slots),
  };
}

/** A slot's bits in the record register's slot bus, and its offset's bits in the offset bus (none for the first). */
interface SlotBusField {
  readonly name: string;
  readonly bits: number;
  readonly lo: number;
  readonly atBits: number;
  readonly atLo: number;
  readonly maxOffset: number;
}

/** Where each slot and its offset lie in the two buses tvtrace_assemble gives the record register. */
function slotBusFields(slots: readonly { name: string; bytes: number; maxOffset: number }[]): { fields: SlotBusField[]; slotBits: number; atBits: number } {
  let lo = 0;
  let atLo = 0;
  const fields = slots.map((s) => {
    const atBits = s.maxOffset > 0 ? bitsFor(s.maxOffset) : 0;
    const f = { name: s.name, bits: 8 * s.bytes, lo, atBits, atLo, maxOffset: s.maxOffset };
    lo += f.bits;
    atLo += atBits;
    return f;
  });
  return { fields, slotBits: lo, atBits: atLo };
}

/** The slot and offset buses as tvtrace_assemble's outputs (the record register's inputs). */
function slotBusPorts(slots: readonly { name: string; bytes: number; maxOffset: number }[]) {
  const { slotBits, atBits } = slotBusFields(slots);
  return [
    { name: 'slots_o', direction: 'out' as const, width: slotBits, description: "The record's slots, each zero above its bytes, the first slot in the low bits (slot order)." },
    { name: 'at_o', direction: 'out' as const, width: atBits, description: 'The byte offset of each slot but the first (the length of the slots before it), in slot order.' },
  ];
}

/** The assignments of tvtrace_assemble's slot and offset buses (the last slot first, as a concatenation reads). */
function slotBuses(slots: readonly { name: string; bytes: number; maxOffset: number }[]): { slotsConcat: string[]; atConcat: string[] } {
  const { fields } = slotBusFields(slots);
  const rev = [...fields].reverse();
  return {
    slotsConcat: wrapList(rev.map((f) => f.name)),
    atConcat: wrapList(rev.filter((f) => f.atBits > 0).map((f) => `${f.name}_at`)),
  };
}

/** Items (each with its separator) joined by spaces in lines of at most about `width` characters. */
function wrapItems(items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    if (line !== '' && line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else {
      line = line === '' ? item : `${line} ${item}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Names separated by commas, in lines of at most about 80 characters (the last without a comma). */
function wrapList(names: readonly string[]): string[] {
  return wrapItems(
    names.map((n, i) => (i === names.length - 1 ? n : `${n},`)),
    80,
  );
}

/** An OR of the terms as a balanced tree (parenthesised pairs): log2(n) gate levels rather than n - 1. */
function balancedOr(terms: readonly string[]): string {
  if (terms.length === 1) return terms[0]!;
  const half = Math.ceil(terms.length / 2);
  const wrap = (t: readonly string[]): string => (t.length === 1 ? t[0]! : `(${balancedOr(t)})`);
  return `${wrap(terms.slice(0, half))} | ${wrap(terms.slice(half))}`;
}

function placeContext(c: TvtraceRtlConfig, banner: string) {
  const layout = tvSlotLayout(c);
  const rb = layout.recordBytes;
  const { fields, slotBits, atBits } = slotBusFields(layout.slots);
  const placed = fields.map((f) => {
    // A slot's bytes never reach past its widest offset plus its widest bytes, nor past the record.
    const bytes = Math.min(rb, f.maxOffset + f.bits / 8);
    const bits = 8 * bytes;
    const from = `${bits > f.bits ? `${bits}'(${f.name})` : f.name}`;
    return {
      name: f.name,
      decl: `${svLogic(f.bits)} ${f.name};`,
      unpack: `assign ${f.name} = slots_i[${f.lo + f.bits - 1}:${f.lo}];`,
      atDecl: f.atBits > 0 ? `${svLogic(f.atBits)} ${f.name}_at;` : undefined,
      atUnpack: f.atBits > 0 ? `assign ${f.name}_at = at_i[${f.atLo + f.atBits - 1}:${f.atLo}];` : undefined,
      placedDecl: `${svLogic(bits)} ${f.name}_placed;`,
      place: f.atBits > 0 ? `assign ${f.name}_placed = ${from} << {${f.name}_at, 3'b000};` : `assign ${f.name}_placed = ${from};`,
      term: bits < 8 * rb ? `${8 * rb}'(${f.name}_placed)` : `${f.name}_placed`,
    };
  });
  return {
    banner,
    slotsR: svRange(slotBits),
    atR: svRange(atBits),
    recR: svRange(8 * rb),
    placed,
    orTree: wrapOr(balancedOr(placed.map((p) => p.term))).map((l, i, all) => (i === all.length - 1 ? `${l};` : l)),
  };
}

/** The OR tree's expression in lines of at most about 90 characters, broken after an operator. */
function wrapOr(expr: string): string[] {
  const parts = expr.split(' | ');
  return wrapItems(
    parts.map((p, i) => (i === parts.length - 1 ? p : `${p} |`)),
    90,
  );
}

/**
 * The byte offset of each slot (`<slot>_at`: the lengths of the slots before it) and the record's
 * length, summed in groups so that no offset waits for every length before it: within a group of
 * about sqrt(n) slots the offsets from the group's start, one add after another; across groups
 * the groups' starts, one add per group; then each offset is its group's start plus its offset in
 * the group. About 2 sqrt(n) adds in a row instead of n (the slots' lengths are the record's
 * longest path: 20 adds in a row for an RV64 instruction record).
 */
function slotOffsets(slots: readonly { name: string; maxOffset: number }[], lenRange: string): { offsetDecls: string[]; offsetRows: string[]; lenTotal: string } {
  const size = Math.ceil(Math.sqrt(slots.length));
  const groups: string[][] = [];
  for (let i = 0; i < slots.length; i += size) groups.push(slots.slice(i, i + size).map((s) => s.name));
  // A slot's offset is only as wide as its largest value needs (the part-select's base).
  const offsetBits = new Map(slots.filter((s) => s.maxOffset > 0).map((s) => [s.name, bitsFor(s.maxOffset)]));
  const decls: string[] = [];
  const rows: string[] = [];
  const sum = (terms: (string | undefined)[]): string => terms.filter((t) => t !== undefined).join(' + ');
  groups.forEach((group, g) => {
    // The group's start (none for the first: it starts at 0) and the offsets within it.
    const start = g === 0 ? undefined : `group${g}_at`;
    if (start) {
      decls.push(`logic ${lenRange} ${start};  // where slots ${group[0]} to ${group[group.length - 1]} start`);
      rows.push(`assign ${start} = ${sum([g > 1 ? `group${g - 1}_at` : undefined, `group${g - 1}_len`])};`);
    }
    let within: string | undefined;
    group.forEach((name, i) => {
      if (i > 0) {
        const local = `${name}_in_group`;
        decls.push(`logic ${lenRange} ${local};`);
        rows.push(`assign ${local} = ${sum([within, `${group[i - 1]}_len`])};`);
        within = local;
      }
      const bits = offsetBits.get(name);
      if (bits === undefined) return;
      decls.push(`${svLogic(bits)} ${name}_at;`);
      rows.push(`assign ${name}_at = ${bits}'(${sum([start, within])});`);
    });
    decls.push(`logic ${lenRange} group${g}_len;`);
    rows.push(`assign group${g}_len = ${sum([within, `${group[group.length - 1]}_len`])};`);
  });
  const last = groups.length - 1;
  return { offsetDecls: decls, offsetRows: rows, lenTotal: sum([last > 0 ? `group${last}_at` : undefined, `group${last}_len`]) };
}

function fifoContext(c: TvtraceRtlConfig, banner: string) {
  const layout = tvSlotLayout(c);
  const rb = layout.recordBytes;
  const { slotBits, atBits } = slotBusFields(layout.slots);
  const cw = bitsFor(c.fifoBytes);
  const lw = bitsFor(rb);
  const bw = tvBytesWidth(c.outBytes);
  const head =
    `tvtrace_fifo: the output FIFO of the tandem-verification trace encoder (${c.fifoBytes} bytes) with the record handshake ` +
    `and the ${c.outBytes > 1 ? `word-wide (${c.outBytes} bytes a beat)` : 'byte-wide'} output port. The FIFO is a shift register: byte 0 is the oldest, ` +
    `the bytes above the count are zero. Each cycle a beat of ${c.outBytes > 1 ? `min(${c.outBytes}, count) bytes` : 'one byte'} leaves if the transport is ready; ` +
    'the record on the inputs is taken into a record register when that is empty or being emptied (so rec_ready_o depends neither on ' +
    'the record nor on tv_ready_i), as its slots and their offsets (tvtrace_place lays them out after the register); the held record enters the FIFO whole, above the bytes that stay, in the first cycle in which all ' +
    'its bytes fit in the room left before that cycle\'s beat. A record never waits for part of its bytes: the hart is held instead.';
  return {
    banner,
    headLines: wrapComment(head, 100),
    cap: c.fifoBytes,
    capR: svRange(8 * c.fifoBytes),
    cr: svRange(cw),
    capLit: svSized(cw, BigInt(c.fifoBytes)),
    cZero: svSized(cw, 0n),
    cOne: svSized(cw, 1n),
    lr: svRange(lw),
    // The held length and record widened to the FIFO's count and bytes (the FIFO holds the longest record).
    heldLenWide: cw > lw ? `${cw}'(held_len_q)` : 'held_len_q',
    recR: svRange(8 * rb),
    slotsR: svRange(slotBits),
    atR: svRange(atBits),
    heldWide: c.fifoBytes > rb ? `${8 * c.fifoBytes}'(held_rec)` : 'held_rec',
    ob: c.outBytes,
    word: c.outBytes > 1,
    outR: svRange(8 * c.outBytes),
    outHi: 8 * c.outBytes - 1,
    br: svRange(bw),
    obLit: svSized(cw, BigInt(c.outBytes)),
    beatLow: bw < cw ? `beat[${bw - 1}:0]` : 'beat',
  };
}

/** The settings as localparams of tvtrace_top (lowRISC names): the configuration, for people and testbenches. */
function configLocalparams(settings: Settings): string[] {
  return TVTRACE_BLOCK_SETTINGS.map((spec) => {
    const v = settings[spec.name];
    const name = camelCase(spec.name);
    if (typeof v === 'number' || (spec.kind === 'choice' && /^\d+$/.test(String(v)))) return `localparam int ${name} = ${String(v)};`;
    return `// ${spec.name} = ${String(v)}`;
  });
}

function topContext(c: TvtraceRtlConfig, settings: Settings, banner: string) {
  const layout = tvSlotLayout(c);
  const rb = layout.recordBytes;
  const { slotBits, atBits } = slotBusFields(layout.slots);
  const lw = bitsFor(rb);
  const seed = c.fieldOrder === 'seed';
  const decoderConns: [string, string][] = seed ? decoderStatePorts(c).map((p) => [p.name, p.name.replace(/_i$/, '')]) : [];
  const assembleConns: [string, string][] = [...recordPorts(c).map((p) => [p.name, p.name] as [string, string]), ...decoderConns, ['slots_o', 'slots'], ['at_o', 'at'], ['len_o', 'len']];
  const stateConns: [string, string][] = seedStatePorts(c).map((p) => [
    p.name,
    p.name === 'take_i' ? 'take' : p.direction === 'out' ? `dec_${p.name.replace(/_o$/, '')}` : p.name,
  ]);
  const fifoConns: [string, string][] = [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['rec_valid_i', 'rec_valid_i'],
    ['rec_ready_o', 'rec_ready_o'],
    ['slots_i', 'slots'],
    ['at_i', 'at'],
    ['len_i', 'len'],
    ['tv_data_o', 'tv_data_o'],
    ...(c.outBytes > 1 ? ([['tv_bytes_o', 'tv_bytes_o']] as [string, string][]) : []),
    ['tv_valid_o', 'tv_valid_o'],
    ['tv_ready_i', 'tv_ready_i'],
  ];
  const head =
    `tvtrace_top: a tandem-verification trace encoder (Bluespec Trace Protocol Specification 2018-11-20) of an RV${c.xlen} hart ` +
    `with FLEN ${c.flen}, ILEN ${c.ilen} and MLEN ${c.mlen}, fields in the order of ${seed ? "the seed's Appendix C examples (with increment pc and OR into fcsr)" : "Bluespec's Flute encoder"}; one record per handshake in, ` +
    `${c.outBytes === 1 ? 'a byte' : `up to ${c.outBytes} bytes`} per beat out of a ${c.fifoBytes}-byte FIFO. The longest record is ${rb} bytes.`;
  return {
    banner,
    headLines: wrapComment(head, 100),
    portLines: portLines(tvtracePorts(c)),
    configLines: configLocalparams(settings),
    slotsR: svRange(slotBits),
    atR: svRange(atBits),
    lr: svRange(lw),
    seed,
    xr: svRange(c.xlen),
    stateConns: connections(stateConns),
    assembleConns: connections(assembleConns),
    fifoConns: connections(fifoConns),
  };
}

/** The RTL files of a configuration, in compilation order (leaves first). */
export function tvtraceRtlFiles(c: Pick<TvtraceRtlConfig, 'fieldOrder'>): string[] {
  return tvtraceRtlModules(c).map((m) => `${m}.sv`);
}

/** Every RTL file of a configuration, in compilation order. */
export function renderTvtraceRtl(c: TvtraceRtlConfig, settings: Settings, provenance: Provenance): OutputFile[] {
  const banner = commentBanner(provenance, '//');
  const render: Record<TvtraceRtlModule, () => string> = {
    tvtrace_seed_state: () => renderTemplate('tvtrace/tvtrace_seed_state.sv.hbs', seedStateContext(c, banner)),
    tvtrace_assemble: () => renderTemplate('tvtrace/tvtrace_assemble.sv.hbs', assembleContext(c, banner)),
    tvtrace_place: () => renderTemplate('tvtrace/tvtrace_place.sv.hbs', placeContext(c, banner)),
    tvtrace_fifo: () => renderTemplate('tvtrace/tvtrace_fifo.sv.hbs', fifoContext(c, banner)),
    tvtrace_top: () => renderTemplate('tvtrace/tvtrace_top.sv.hbs', topContext(c, settings, banner)),
  };
  return tvtraceRtlModules(c).map((m) => ({ name: `${m}.sv`, content: alignDeclarations(render[m]()) }));
}

/** The lint waivers of the generated RTL (rendered into tvtrace.vlt), each with its reason. */
export function tvtraceLintWaivers(): Waiver[] {
  return [configurationLocalparamsWaiver('tvtrace_top')];
}
