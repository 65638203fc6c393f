/**
 * The data-trace CSV of the E-Trace reference flow ("etrace-data-csv"): what its patched spike
 * writes beside the PC trace and its `data_encoder_model.py` reads. docs/etrace-data-formats.md has
 * the rules and every point where the reference flow and the spec disagree; in short:
 *
 *   DRETIRE,DTYPE,DADDR,DSIZE,DATA          header (compared without regard to case)
 *   1,1,80001000,2,2a                       one row per retired data access, in retirement order
 *
 * - DRETIRE, DTYPE, DSIZE decimal; DADDR, DATA hex without 0x. Rows with DRETIRE 0 carry nothing
 *   (the signals are only valid with dretire high) and are skipped, as the reference model does.
 * - DSIZE is log2 of the bytes in DATA: for CSR and atomic accesses DATA packs two values, so DSIZE
 *   is one more than the `dsize` of our records (log2 of one value).
 * - The rows do not say which cycle or instruction they belong to: `attachDataRows` joins them
 *   with an instruction stream, the n-th row to the n-th retired data access instruction.
 * - Only unified signalling: split loads are written with their response's data.
 */
import { RvError } from '../../common/errors.ts';
import {
  dataBits,
  type DataAccess,
  type DataTrace,
  DTYPE_NAMES,
  hasLoadPart,
  hasTwoValues,
  isCsrAccess,
  isDefinedDtype,
  isSplit,
  Lresp,
} from '../data-records.ts';
import { dataAccessOf } from '../isa/data-access.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { splitLines, stripBom } from './common.ts';
import { CsvLine } from './csv.ts';

export const ETRACE_DATA_CSV_HEADER = 'DRETIRE,DTYPE,DADDR,DSIZE,DATA';
const COLUMNS = ETRACE_DATA_CSV_HEADER.split(',');

/**
 * Which half of a two-value DATA holds the store data. The spec (section 4.4) puts the store data
 * in the low half; the reference flow's spike writes the load data there (docs/etrace-data-formats.md).
 */
export type DataPacking = 'spec' | 'spike';

export interface EtraceDataCsvOptions {
  /** XLEN of the hart (the file does not say); default 64. DADDR must fit it. */
  xlen?: Xlen;
  /** Default 'spec'. */
  packing?: DataPacking;
}

/** One access of the file, in our records' conventions, not yet placed on a cycle. */
export interface DataCsvRow {
  /** The file's line (1-based), for errors of the join. */
  line: number;
  dtype: number;
  daddr: bigint;
  /** log2 of the bytes of one value (DSIZE - 1 for CSR and atomic accesses). */
  dsize: number;
  /** Store data low, load data or operand high, as in DataAccess. */
  data: bigint;
}

/** True when the first line is the etrace-data-csv header (for format detection). */
export function isEtraceDataCsvHeader(firstLine: string): boolean {
  return firstLine.split(',').map((c) => c.trim().toUpperCase()).join(',') === ETRACE_DATA_CSV_HEADER;
}

/** Swaps the two halves of a two-value DATA (each `half` bits). */
function swapHalves(v: bigint, half: number): bigint {
  const mask = (1n << BigInt(half)) - 1n;
  return ((v & mask) << BigInt(half)) | (v >> BigInt(half));
}

export function importEtraceDataCsv(text: string, fileName: string, opts: EtraceDataCsvOptions = {}): DataCsvRow[] {
  const xlen: Xlen = opts.xlen ?? 64;
  const packing = opts.packing ?? 'spec';
  const lines = splitLines(stripBom(text));
  if (lines.length === 0 || !isEtraceDataCsvHeader(lines[0]!)) {
    throw new RvError('bad-header', `expected the etrace-data-csv header ${ETRACE_DATA_CSV_HEADER}, found "${lines[0] ?? ''}"`, {
      file: fileName,
      line: 1,
    });
  }
  const csv = new CsvLine(fileName, COLUMNS, xlen);
  const rows: DataCsvRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.trim() === '') continue;
    csv.line = i + 1;
    csv.scan(text, 0, text.length);
    if (csv.count !== COLUMNS.length) csv.fail(`row has ${csv.count} values, expected ${COLUMNS.length} (${ETRACE_DATA_CSV_HEADER})`);
    const dretire = csv.small(0, 1, '0 or 1', 'dec');
    if (dretire === 0) continue;
    const dtype = csv.small(1, 15, 'a dtype code 0-15', 'dec');
    if (!isDefinedDtype(dtype)) {
      const why = dtype === 15 ? ' (the reference flow writes 15 for a failed store-conditional; the spec reserves it)' : '';
      csv.fail(`DTYPE ${dtype} is reserved in table 4.9${why}, expected 0, 1, 4-6 or 8-14`);
    }
    const daddr = csv.addr(2);
    if (isCsrAccess(dtype) && daddr > 0xfffn) csv.fail(`DADDR ${daddr.toString(16)} of a CSR access is not a CSR number, expected 0-fff`);
    const two = hasTwoValues(dtype);
    const csvSize = csv.small(3, 7, 'a decimal log2 of the byte count 0-7', 'dec');
    if (two && csvSize === 0) csv.fail(`DSIZE 0 for a ${DTYPE_NAMES[dtype]} access, expected at least 1 (DATA packs two values)`);
    const dsize = two ? csvSize - 1 : csvSize;
    let data = csv.hexWide(4);
    const bits = dataBits(dtype, dsize);
    if (data >> BigInt(bits) !== 0n) csv.fail(`DATA ${data.toString(16)} does not fit ${bits / 8} bytes (DSIZE ${csvSize})`);
    if (two && packing === 'spike') data = swapHalves(data, bits / 2);
    rows.push({ line: i + 1, dtype, daddr, dsize, data });
  }
  return rows;
}

/**
 * The file of a data trace: one row per access, unified. A split load's row carries its response's
 * data (the load half of an atomic); a load answered with an error has no data to write and is
 * refused, naming it.
 */
export function writeEtraceDataCsv(data: DataTrace, opts: { packing?: DataPacking } = {}): string {
  const packing = opts.packing ?? 'spec';
  const loadData = new Map<number, bigint>(); // access index -> ldata
  if (isSplit(data)) {
    const inFlight = new Map<number, number>();
    let next = 0;
    for (const r of data.responses) {
      for (; next < data.accesses.length && data.accesses[next]!.at <= r.at; next++) {
        if (hasLoadPart(data.accesses[next]!.dtype)) inFlight.set(data.accesses[next]!.lrid, next);
      }
      const k = inFlight.get(r.lid);
      if (k === undefined) continue; // checkDataTrace's business; the writers of our formats call it
      inFlight.delete(r.lid);
      if (r.lresp === Lresp.error) {
        throw new RvError('bad-value', `data.accesses[${k}]: the load got an error response; etrace-data-csv has no way to say so`, {
          path: `data.accesses[${k}]`,
        });
      }
      loadData.set(k, r.ldata);
    }
  }
  const out = [ETRACE_DATA_CSV_HEADER];
  data.accesses.forEach((a: DataAccess, k) => {
    const two = hasTwoValues(a.dtype);
    const half = dataBits(a.dtype, a.dsize) / 2;
    let value = a.data;
    const ld = loadData.get(k);
    if (ld !== undefined) value = two ? (a.data & ((1n << BigInt(half)) - 1n)) | (ld << BigInt(half)) : ld;
    if (two && packing === 'spike') value = swapHalves(value, half);
    out.push(`1,${a.dtype},${a.daddr.toString(16)},${two ? a.dsize + 1 : a.dsize},${value.toString(16)}`);
  });
  return out.join('\n') + '\n';
}

/**
 * The stream with the rows of a data-trace CSV as its data trace: the n-th row goes to the cycle
 * (record) that retires the n-th data access instruction (`dataAccessOf`), walking every record's
 * retired instructions in the program image. Each row's DTYPE must be the one its instruction
 * makes. The reference flow's rows carry no cycle, so the instructions are the only key: a stream
 * without the executed instructions in its image (an etrace-csv import) cannot be joined.
 * `dataFile` names the CSV in errors.
 */
export function attachDataRows(stream: RetirementStream, rows: readonly DataCsvRow[], dataFile: string): RetirementStream {
  const accesses: DataAccess[] = [];
  let n = 0;
  for (let i = 0; i < stream.records.length; i++) {
    const rec = stream.records[i]!;
    const end = rec.iaddr + 2n * BigInt(rec.iretire);
    for (let pc = rec.iaddr; pc < end; ) {
      const insn = stream.image.fetch(pc);
      if (insn === undefined) {
        throw new RvError(
          'bad-value',
          `cannot join the data rows: the instruction at 0x${pc.toString(16)} (record ${i}) is not in the stream's program image; ` +
            'the rows name no cycle, so the join needs the executed instructions (a spike-csv, bin or text stream with its image)',
          { file: dataFile },
        );
      }
      const info = dataAccessOf(insn.encoding, insn.length, stream.xlen);
      pc += BigInt(insn.length);
      if (info === undefined) continue;
      const row = rows[n];
      if (row === undefined) {
        throw new RvError(
          'bad-value',
          `${rows.length} data rows, but the stream retires more data access instructions: the next is at 0x${(pc - BigInt(insn.length)).toString(16)} (record ${i})`,
          { file: dataFile, line: rows.length > 0 ? rows[rows.length - 1]!.line : 1 },
        );
      }
      if (row.dtype !== info.dtype) {
        throw new RvError(
          'bad-value',
          `DTYPE ${row.dtype} (${DTYPE_NAMES[row.dtype]}) does not match the ${DTYPE_NAMES[info.dtype]} instruction 0x${insn.encoding.toString(16)} at 0x${(pc - BigInt(insn.length)).toString(16)} (record ${i}), expected DTYPE ${info.dtype}`,
          { file: dataFile, line: row.line },
        );
      }
      accesses.push({ at: i, dtype: row.dtype, daddr: row.daddr, dsize: row.dsize, data: row.data, lrid: 0, iaddrLsbs: 0, dblock: 0 });
      n++;
    }
  }
  if (n < rows.length) {
    throw new RvError('bad-value', `row ${n + 1} of ${rows.length} has no instruction: the stream retires only ${n} data access instructions`, {
      file: dataFile,
      line: rows[n]!.line,
    });
  }
  return { ...stream, data: { accesses, responses: [] } };
}

/**
 * What `--data-in FILE` does: reads a data-trace CSV and joins it with the instruction stream read
 * from `--in` (`attachDataRows`). The codec's CLI calls this; it is the one entry point so that every
 * command joins the same way.
 */
export function joinEtraceDataCsv(stream: RetirementStream, csvText: string, dataFile: string, opts: { packing?: DataPacking } = {}): RetirementStream {
  return attachDataRows(stream, importEtraceDataCsv(csvText, dataFile, { xlen: stream.xlen, ...opts }), dataFile);
}
