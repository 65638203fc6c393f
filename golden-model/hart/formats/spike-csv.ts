/**
 * Import of a spike-style PC trace ("spike-csv"): one row per step of the instruction set
 * simulator, `VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT`, values in hexadecimal
 * without 0x. Rows with VALID 0 are skipped. The result is a single-retirement stream (one record
 * per row) with the image of the executed instructions.
 *
 * What a row means (docs/formats.md, "spike-csv"; the rules live in ../steps.ts, shared with the QEMU
 * log import):
 * - INTERRUPT 1: an interrupt was taken before the instruction at ADDRESS executed. ADDRESS is the
 *   EPC (the instruction runs later, after the handler returns) and INSN is not an executed
 *   instruction (the simulator did not fetch it for this step), so the row becomes a trap record
 *   with iretire 0, itype 2 and adds nothing to the image. EXCEPTION is ignored on such a row.
 * - EXCEPTION 1 on ecall, ebreak or c.ebreak: the instruction retired and trapped (iretire = its
 *   half-words, itype 1).
 * - EXCEPTION 1 on anything else: the instruction did not retire (iretire 0, itype 1, iaddr = its
 *   address). Its INSN goes into the image unless the cause is an instruction fetch fault (1, 12,
 *   20), where there was nothing to fetch.
 * - otherwise the instruction retired; a branch is taken when the next valid row is not at its
 *   sequential successor (the last row of the file counts as not taken: nothing shows it left the
 *   sequential path). A jump gets sijump when the previous retired instruction makes it
 *   sequentially inferable (section 4.1.1); a trap in between breaks the pair.
 * cause loses the mcause interrupt flag; cause and tval are kept on trap records only (0 on the
 * others). time is the record's cycle number counting from 0; context and ctype are 0.
 */
import { RvError } from '../../common/errors.ts';
import { ImageBuilder } from '../image.ts';
import type { RetirementRecord } from '../records.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { classify, type InstructionInfo } from '../isa/classify.ts';
import { FETCH_FAULTS, type Step, StepConverter } from '../steps.ts';
import { big, hexDigit, LineCursor, MAX_U32, stripBom } from './common.ts';
import { CsvLine } from './csv.ts';

export const SPIKE_CSV_HEADER = 'VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT';
const COLUMNS = SPIKE_CSV_HEADER.split(',');

export interface SpikeCsvOptions {
  /** XLEN of the simulated hart (the file does not say); default 64. */
  xlen?: Xlen;
}

interface Row {
  line: number;
  /**
   * The key of the per-address cache: ADDRESS as a number (addresses below 2^52, the usual case) or
   * as written (no bigint hashing per row).
   */
  key: number | string;
  addr: bigint;
  insn: number;
  priv: number;
  exception: boolean;
  cause: number;
  tval: bigint;
  interrupt: boolean;
}

/** An instruction seen at an address: traces repeat loops, so each address is classified once. */
interface Seen {
  addr: bigint;
  insn: number;
  info: InstructionInfo;
  line: number;
  /** The sequential successor of addr (wrapped to XLEN), for the step converter. */
  next: bigint;
}

export function importSpikeCsv(text: string, fileName: string, opts: SpikeCsvOptions = {}): RetirementStream {
  const reader = new SpikeCsvReader(fileName, opts);
  reader.feed(text);
  return reader.finish();
}

/**
 * The spike-csv import a piece of the file at a time, for a caller that passes the records on as
 * they come (`rvtrace encode` keeps no more than a piece of a long trace in memory). `feed` takes
 * the file's text in order, each piece ending at the end of a line (or of the file); `take` hands
 * over the records made so far; `finish` converts the last row and returns the stream, with the
 * records not taken. `importSpikeCsv` is one `feed` of the whole text.
 */
export class SpikeCsvReader {
  readonly xlen: Xlen;
  private readonly err: (message: string, line: number) => never;
  private readonly v: CsvLine;
  private readonly steps: StepConverter;
  private readonly image = new ImageBuilder();
  private readonly seen = new Map<number | string, Seen>();
  /**
   * A direct-mapped cache of `seen` by numeric key: a Map lookup by a number costs more than reading
   * the row's characters (about 130 ns against 110 on the development machine), and every row
   * looks its address up twice (for its bigint when read, for its instruction when converted).
   */
  private readonly slotKeys = new Float64Array(SEEN_SLOTS).fill(-1);
  private readonly slotSeen: (Seen | undefined)[] = new Array<Seen | undefined>(SEEN_SLOTS).fill(undefined);
  /**
   * Rows are turned into steps one row late (after the next row was read), as before the
   * conversion was shared, so that a malformed row is reported before a bad INSN on the row above
   * it. Two rows and two steps are used in turn, not one object per line: the converter keeps only
   * the step it was last given.
   */
  private readonly rows: Row[] = [newRow(), newRow()];
  private readonly stepObjects: Step[] = [newStep(), newStep()];
  private turn = 0;
  private pending: Row | undefined;
  /** Lines read so far (the header included). */
  private lineNo = 0;

  constructor(
    private readonly fileName: string,
    opts: SpikeCsvOptions = {},
  ) {
    this.xlen = opts.xlen ?? 64;
    /** Errors about a row that was read earlier (conversion lags one row behind reading). */
    this.err = (message: string, line: number): never => {
      throw new RvError('bad-value', message, { file: fileName, line });
    };
    this.v = new CsvLine(fileName, COLUMNS, this.xlen);
    this.steps = new StepConverter(this.xlen);
  }

  /** Reads the lines of `text`, the next piece of the file (it ends at a line end or the file's end). */
  feed(text: string): void {
    const lines = new LineCursor(this.lineNo === 0 ? stripBom(text) : text, this.lineNo);
    if (this.lineNo === 0) {
      if (text.length === 0) return;
      this.header(lines.next() ? lines.line() : '');
    }
    const v = this.v;
    const rows = this.rows;
    while (lines.next()) {
      const row = rows[this.turn]!;
      const quick = this.quickRow(lines.text, lines.start, lines.end, row);
      if (quick === 0) continue; // VALID 0
      if (quick < 0) {
        // Anything but the common form: the general reading, which names what is wrong.
        if (lines.blank()) continue;
        v.line = lines.lineNo;
        v.scan(lines.text, lines.start, lines.end);
        if (v.count !== COLUMNS.length) v.fail(`line has ${v.count} values, expected ${COLUMNS.length} (${SPIKE_CSV_HEADER})`);
        if (v.small(0, 1, '0 or 1') === 0) continue;
        // The address as a number keys the cache, whose entry also holds its bigint: loops repeat
        // addresses, so most rows make no bigint for ADDRESS.
        const n = v.addrNumber(1);
        const key = n >= 0 ? n : v.value(1);
        const known = this.lookup(key);
        row.key = key;
        row.addr = known !== undefined ? known.addr : v.addr(1);
        row.insn = v.small(2, MAX_U32, 'an instruction encoding of at most 32 bits');
        row.priv = v.small(3, 7, 'a privilege level 0-7');
        row.exception = v.small(4, 1, '0 or 1') === 1;
        row.cause = v.cause(5);
        row.tval = v.addr(6);
        row.interrupt = v.small(7, 1, '0 or 1') === 1;
      }
      row.line = lines.lineNo;
      if (this.pending) this.steps.push(this.step(this.pending, this.stepObjects[this.turn]!));
      this.pending = row;
      this.turn ^= 1;
    }
    this.lineNo = lines.lineNo;
  }

  /** The values of a line in the common form, as quickRow reads them. */
  private readonly values = new Float64Array(COLUMNS.length);

  /**
   * A line in the common form: eight values of hexadecimal digits (at most 13 after leading zeros,
   * so exact as numbers), no white space, each in its column's range (VALID, EXCEPTION and
   * INTERRUPT 0 or 1, PRIVILEGE 0-7, INSN 32 bits, ECAUSE without the interrupt flag, ADDRESS and
   * TVAL within XLEN), read in one pass over its characters into `row`. Returns 1, or 0 for VALID
   * 0, or -1 for any other line: the general reading then gives the same values or the error.
   */
  private quickRow(text: string, start: number, end: number, row: Row): number {
    const values = this.values;
    let column = 0;
    let value = 0;
    let digits = 0;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 44 /* , */) {
        if (digits === 0 || column === 7) return -1;
        values[column++] = value;
        value = 0;
        digits = 0;
        continue;
      }
      const d = hexDigit(c);
      // A 14th digit after leading zeros could round: left to the general reading.
      if (d < 0 || value >= 2 ** 48) return -1;
      value = value * 16 + d;
      digits++;
    }
    if (digits === 0 || column !== 7) return -1;
    values[7] = value;
    const xlenMax = this.xlen === 32 ? MAX_U32 : Number.MAX_SAFE_INTEGER;
    const valid = values[0]!;
    const address = values[1]!;
    const insn = values[2]!;
    const priv = values[3]!;
    const exception = values[4]!;
    const cause = values[5]!;
    const tval = values[6]!;
    const interrupt = values[7]!;
    if (valid > 1 || address > xlenMax || insn > MAX_U32 || priv > 7 || exception > 1 || cause >= 0x8000_0000 || tval > xlenMax || interrupt > 1) return -1;
    if (valid === 0) return 0;
    const known = this.lookup(address);
    row.key = address;
    row.addr = known !== undefined ? known.addr : big(address);
    row.insn = insn;
    row.priv = priv;
    row.exception = exception === 1;
    row.cause = cause;
    row.tval = big(tval);
    row.interrupt = interrupt === 1;
    return 1;
  }

  /** The records made since the last call (a record is made when the row after it was read). */
  take(): RetirementRecord[] {
    return this.steps.take();
  }

  /** Converts the last row; the stream's records are those not taken. */
  finish(): RetirementStream {
    if (this.lineNo === 0) this.header('');
    if (this.pending) this.steps.push(this.step(this.pending, this.stepObjects[this.turn]!));
    this.pending = undefined;
    return { xlen: this.xlen, retiresPerCycle: 1, image: this.image.build(), records: this.steps.finish() };
  }

  private header(line: string): void {
    const header = line.split(',').map((c) => c.trim()).join(',');
    if (header.toUpperCase() !== SPIKE_CSV_HEADER) {
      throw new RvError('bad-header', `wrong spike-csv header "${header}", expected ${SPIKE_CSV_HEADER}`, { file: this.fileName, line: 1 });
    }
  }

  /** The row's instruction (classified, and put into the image once per address). */
  private instruction(row: Row): Seen {
    const known = this.lookup(row.key);
    if (known !== undefined && known.insn === row.insn) return known;
    const xlen = this.xlen;
    let info: InstructionInfo;
    try {
      info = classify(row.insn, row.addr, xlen);
    } catch (e) {
      // Encodings longer than 32 bits: the classifier says why.
      return this.err(`INSN ${row.insn.toString(16)}: ${(e as Error).message}`, row.line);
    }
    if (info.length === 2 && row.insn > 0xffff) {
      this.err(`INSN ${row.insn.toString(16)} is a 16-bit encoding (low bits not 11) but has more than 16 bits`, row.line);
    }
    if (this.image.put(row.addr, row.insn, info.length) === 'conflict') {
      const end = row.addr + BigInt(info.length);
      const other = [...this.seen.values()].find((x) => x.addr < end && row.addr < x.addr + BigInt(x.info.length));
      const where = other !== undefined ? ` on line ${other.line}` : '';
      this.err(
        `instruction ${row.insn.toString(16)} at ${row.addr.toString(16)} conflicts with the instruction executed there${where} (the image cannot hold self-modifying code)`,
        row.line,
      );
    }
    const entry: Seen = { addr: row.addr, insn: row.insn, info, line: row.line, next: BigInt.asUintN(xlen, row.addr + BigInt(info.length)) };
    this.seen.set(row.key, entry);
    if (typeof row.key === 'number') {
      const slot = seenSlot(row.key);
      this.slotKeys[slot] = row.key;
      this.slotSeen[slot] = entry;
    }
    return entry;
  }

  /**
   * The instruction seen at a key, from the direct-mapped cache when it holds the key. A key not
   * seen yet is cached too (as undefined): `instruction` updates the slot when it adds the key.
   * (No branch that only a rare case takes: one first taken after V8 optimised the row loop would
   * throw the loop's optimised code away.)
   */
  private lookup(key: number | string): Seen | undefined {
    if (typeof key !== 'number') return this.seen.get(key);
    const slot = seenSlot(key);
    if (this.slotKeys[slot] === key) return this.slotSeen[slot];
    const known = this.seen.get(key);
    this.slotKeys[slot] = key;
    this.slotSeen[slot] = known;
    return known;
  }

  /** The step of a row, written into `into`. */
  private step(row: Row, into: Step): Step {
    // Nothing was fetched for an interrupt or a fetch fault: INSN is not looked at. Anything else
    // was fetched and decoded, so its bytes are known, retired or not.
    const fetched = !(row.interrupt || (row.exception && FETCH_FAULTS.has(row.cause)));
    const insn = fetched ? this.instruction(row) : undefined;
    into.addr = row.addr;
    into.info = insn?.info;
    into.successor = insn?.next;
    into.priv = row.priv;
    into.trap = row.interrupt ? 'interrupt' : row.exception ? 'exception' : undefined;
    into.cause = row.cause;
    into.tval = row.tval;
    into.line = row.line;
    return into;
  }
}

const SEEN_SLOTS = 4096;
/** The cache slot of an address (instructions are at least 2 bytes apart: bit 0 says nothing). */
const seenSlot = (key: number): number => (key >>> 1) & (SEEN_SLOTS - 1);

const newRow = (): Row => ({ line: 0, key: 0, addr: 0n, insn: 0, priv: 0, exception: false, cause: 0, tval: 0n, interrupt: false });
const newStep = (): Step => ({ addr: 0n, info: undefined, successor: undefined, priv: 0, trap: undefined, cause: 0, tval: 0n, line: 0 });
