/**
 * `--in-format bluespec-tv`: the trace records Bluespec's cores hand their tandem-verification
 * encoder (`Trace_Data`), one per line as ten hexadecimal fields
 *
 *   op pc instr_sz instr rd word1 word2 word3 word4 word5
 *
 * with `#` comments and blank lines ignored. The meaning of `op` and of each word per op is that of
 * bluespec/Flute src_Core/ISA/TV_Trace_Data.bsv (the `Trace_Op` enum and the `mkTrace_*`
 * constructors; the same in TV_Info.bsv of earlier Flute versions); `pc` is the next pc. The table is
 * in docs/tvtrace-model.md. Words an op does not use are ignored (Flute leaves them undefined).
 *
 * Two rules of Flute's encoder (src_Core/Core/TV_Encode.bsv) that depend on the values, not on
 * the field order, are applied here, where the meaning of the words is known:
 * - a TRAP whose cause is an instruction access fault (1) or instruction page fault (12) carries no
 *   instruction (rl_log_trace_TRAP: "the instruction is then bogus");
 * - store data is the low 2^size bytes of its word (encode_stval, encode_mdata), size from funct3[1:0].
 */
import { RvError } from '../../common/errors.ts';
import { hexU64, splitLines, stripBom } from '../../hart/formats/common.ts';
import { Csr } from '../protocol.ts';
import { checkTvRecord, instructionRecord, type TvInstr, type TvPriv, type TvRecord } from '../records.ts';

/** Flute's Trace_Op, in enum order: the value of the `op` field. */
export const BLUESPEC_TRACE_OPS = [
  'RESET',
  'GPR_WRITE',
  'FPR_WRITE',
  'CSR_WRITE',
  'MEM_WRITE',
  'OTHER',
  'I_RD',
  'F_GRD',
  'F_FRD',
  'I_LOAD',
  'F_LOAD',
  'I_STORE',
  'F_STORE',
  'AMO',
  'TRAP',
  'RET',
  'CSRRX',
  'INTR',
] as const;
export type BluespecTraceOp = (typeof BLUESPEC_TRACE_OPS)[number];

const FIELD_NAMES = ['op', 'pc', 'instr_sz', 'instr', 'rd', 'word1', 'word2', 'word3', 'word4', 'word5'] as const;

/** Exception codes after which Flute's encoder omits the instruction. */
const INSTR_ACCESS_FAULT = 1n;
const INSTR_PAGE_FAULT = 12n;

class LineError extends Error {}
const bad = (message: string): never => {
  throw new LineError(message);
};

interface Fields {
  op: number;
  pc: bigint;
  instr_sz: bigint;
  instr: bigint;
  rd: bigint;
  word1: bigint;
  word2: bigint;
  word3: bigint;
  word4: bigint;
  word5: bigint;
}

function splitFields(body: string): Fields {
  const tokens = body.split(/\s+/);
  if (tokens.length !== 10) bad(`${tokens.length} field(s); expected ten hex fields: ${FIELD_NAMES.join(' ')}`);
  const values = tokens.map((t, i) => {
    const digits = t.startsWith('0x') || t.startsWith('0X') ? t.slice(2) : t;
    const v = digits.length > 0 && digits.length <= 16 ? hexU64(digits) : undefined;
    return v ?? bad(`field ${FIELD_NAMES[i]} "${t}" is not a hexadecimal value below 2^64`);
  });
  const op = values[0]!;
  if (op >= BigInt(BLUESPEC_TRACE_OPS.length)) bad(`op ${op.toString(16)} is not a Flute Trace_Op; expected 0-${(BLUESPEC_TRACE_OPS.length - 1).toString(16)} (${BLUESPEC_TRACE_OPS.join(', ')})`);
  const [, pc, instr_sz, instr, rd, word1, word2, word3, word4, word5] = values as [bigint, ...bigint[]];
  return { op: Number(op), pc: pc!, instr_sz: instr_sz!, instr: instr!, rd: rd!, word1: word1!, word2: word2!, word3: word3!, word4: word4!, word5: word5! };
}

/** instr_sz is Flute's ISize: 0 = ISIZE16BIT, 1 = ISIZE32BIT. */
function instrOf(f: Fields): TvInstr {
  if (f.instr_sz > 1n) bad(`instr_sz ${f.instr_sz.toString(16)}; expected 0 (16-bit) or 1 (32-bit)`);
  const size = f.instr_sz === 0n ? 16 : 32;
  if (f.instr >= 1n << BigInt(size)) bad(`instr ${f.instr.toString(16)} does not fit the ${size}-bit instruction instr_sz ${f.instr_sz} says`);
  return { size, bits: Number(f.instr) };
}

function regOf(f: Fields): number {
  if (f.rd > 31n) bad(`rd ${f.rd.toString(16)}; expected a register number 0-1f`);
  return Number(f.rd);
}

/** rd carries the privilege mode in TRAP, RET and INTR. */
function privOf(f: Fields): TvPriv {
  if (f.rd !== 0n && f.rd !== 1n && f.rd !== 3n) bad(`rd ${f.rd.toString(16)} (the privilege mode); expected 0 (U), 1 (S) or 3 (M)`);
  return Number(f.rd) as TvPriv;
}

/** Store data of 2^size bytes, size = funct3[1:0]: the low bytes of the word, as Flute's encode_stval sends them. */
function storeOf(funct3: bigint, word: bigint): { bytes: 1 | 2 | 4 | 8; value: bigint } {
  const bytes = (1 << Number(funct3 & 3n)) as 1 | 2 | 4 | 8;
  return { bytes, value: word & ((1n << BigInt(8 * bytes)) - 1n) };
}

function csrAddress(word: bigint, field: string): number {
  if (word > 0xfffn) bad(`${field} ${word.toString(16)} (a CSR address); expected 0-fff`);
  return Number(word);
}

/** One Trace_Data as a record; the words each op uses are those of its mkTrace_* constructor. */
function recordOf(f: Fields): TvRecord {
  const op = BLUESPEC_TRACE_OPS[f.op]!;
  switch (op) {
    case 'RESET':
      return { kind: 'reset' };
    case 'GPR_WRITE': // rd, word1 = rdval
      return { kind: 'debug-reg', file: 'gpr', index: regOf(f), value: f.word1 };
    case 'FPR_WRITE': // rd, word5 = rdval (Flute 2022; earlier versions used word1)
      return { kind: 'debug-reg', file: 'fpr', index: regOf(f), value: f.word5 };
    case 'CSR_WRITE': // word3 = csraddr, word4 = csrval
      return { kind: 'debug-reg', file: 'csr', index: csrAddress(f.word3, 'word3'), value: f.word4 };
    case 'MEM_WRITE': {
      // word1 = sz, word2 = stval, word3 = paddr
      const d = storeOf(f.word1, f.word2);
      return { kind: 'debug-mem', paddr: f.word3, bytes: d.bytes, value: d.value };
    }
    case 'OTHER':
      return instructionRecord({ nextPc: f.pc, instr: instrOf(f) });
    case 'I_RD': // rd, word1 = rdval
      return instructionRecord({ nextPc: f.pc, instr: instrOf(f), gpr: { reg: regOf(f), value: f.word1 } });
    case 'F_GRD': // rd, word1 = rdval, word2 = fflags, word4 = mstatus
      return instructionRecord({
        nextPc: f.pc,
        instr: instrOf(f),
        gpr: { reg: regOf(f), value: f.word1 },
        csrs: [
          { csr: Csr.fflags, value: f.word2 },
          { csr: Csr.mstatus, value: f.word4 },
        ],
      });
    case 'F_FRD': // rd, word2 = fflags, word4 = mstatus, word5 = rdval
      return instructionRecord({
        nextPc: f.pc,
        instr: instrOf(f),
        fpr: { reg: regOf(f), value: f.word5 },
        csrs: [
          { csr: Csr.fflags, value: f.word2 },
          { csr: Csr.mstatus, value: f.word4 },
        ],
      });
    case 'I_LOAD': // rd, word1 = rdval, word3 = eaddr
      return instructionRecord({ nextPc: f.pc, instr: instrOf(f), gpr: { reg: regOf(f), value: f.word1 }, eaddr: f.word3 });
    case 'F_LOAD': // rd, word3 = eaddr, word4 = mstatus, word5 = rdval
      return instructionRecord({
        nextPc: f.pc,
        instr: instrOf(f),
        fpr: { reg: regOf(f), value: f.word5 },
        eaddr: f.word3,
        csrs: [{ csr: Csr.mstatus, value: f.word4 }],
      });
    case 'I_STORE': // word1 = funct3, word2 = stval, word3 = eaddr
      return instructionRecord({ nextPc: f.pc, instr: instrOf(f), storeData: storeOf(f.word1, f.word2), eaddr: f.word3 });
    case 'F_STORE': // word1 = funct3, word3 = eaddr, word5 = stval
      return instructionRecord({ nextPc: f.pc, instr: instrOf(f), storeData: storeOf(f.word1, f.word5), eaddr: f.word3 });
    case 'AMO': // rd, word1 = rdval, word2 = stval, word3 = eaddr, word4 = funct3
      return instructionRecord({
        nextPc: f.pc,
        instr: instrOf(f),
        gpr: { reg: regOf(f), value: f.word1 },
        storeData: storeOf(f.word4, f.word2),
        eaddr: f.word3,
      });
    case 'TRAP': {
      // rd = priv, word1 = mstatus, word2 = mcause, word3 = mepc, word4 = mtval
      const fetchFault = f.word2 === INSTR_ACCESS_FAULT || f.word2 === INSTR_PAGE_FAULT;
      const state = { nextPc: f.pc, priv: privOf(f), status: f.word1, cause: f.word2, epc: f.word3, tval: f.word4 };
      return fetchFault ? { kind: 'trap', ...state } : { kind: 'trap', instr: instrOf(f), ...state };
    }
    case 'RET': // rd = priv, word1 = mstatus
      return { kind: 'xret', nextPc: f.pc, instr: instrOf(f), priv: privOf(f), mstatus: f.word1 };
    case 'CSRRX': {
      // rd, word1 = rdval, word2 = [1] mstatus valid, [0] csr valid, word3 = csraddr, word4 = csrval, word5 = mstatus
      if (f.word2 > 3n) bad(`word2 ${f.word2.toString(16)} of CSRRX; expected bit 0 (CSR written) and bit 1 (mstatus written) only`);
      const csrs = [];
      if (f.word2 & 1n) csrs.push({ csr: csrAddress(f.word3, 'word3'), value: f.word4 });
      if (f.word2 & 2n) csrs.push({ csr: Csr.mstatus, value: f.word5 });
      return instructionRecord({ nextPc: f.pc, instr: instrOf(f), gpr: { reg: regOf(f), value: f.word1 }, ...(csrs.length > 0 && { csrs }) });
    }
    case 'INTR': // rd = priv, word1 = mstatus, word2 = mcause, word3 = mepc, word4 = mtval
      return { kind: 'interrupt', nextPc: f.pc, priv: privOf(f), status: f.word1, cause: f.word2, epc: f.word3, tval: f.word4 };
  }
}

/**
 * Imports a bluespec-tv file. Every error names the file and line, the field and what was
 * expected, e.g. `t.tv:4: field word3 "12g4" is not a hexadecimal value below 2^64`.
 */
export function importBluespecTv(text: string, fileName: string): TvRecord[] {
  const lines = splitLines(stripBom(text));
  const records: TvRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const hash = lines[i]!.indexOf('#');
    const body = (hash >= 0 ? lines[i]!.slice(0, hash) : lines[i]!).trim();
    if (body === '') continue;
    try {
      const r = recordOf(splitFields(body));
      const problem = checkTvRecord(r);
      if (problem !== undefined) bad(problem);
      records.push(r);
    } catch (e) {
      if (e instanceof LineError) throw new RvError('bad-value', e.message, { file: fileName, line: i + 1 });
      throw e;
    }
  }
  return records;
}

/** True when the first line with content looks like bluespec-tv: ten hexadecimal fields. */
export function looksLikeBluespecTv(text: string): boolean {
  for (const line of splitLines(stripBom(text))) {
    const hash = line.indexOf('#');
    const body = (hash >= 0 ? line.slice(0, hash) : line).trim();
    if (body === '') continue;
    const tokens = body.split(/\s+/);
    return tokens.length === 10 && tokens.every((t) => /^(0[xX])?[0-9a-fA-F]{1,16}$/.test(t));
  }
  return false;
}
