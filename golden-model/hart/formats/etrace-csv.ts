/**
 * Import of the encoder-input CSV of the E-Trace reference flow ("etrace-csv"): one line per cycle,
 * columns named after the chapter 4 signals. Numbers are written as the reference flow prints them:
 * iaddr and tval in hexadecimal without 0x, every other column (itype, cause, priv, context, ctype,
 * time, sijump, iretire, ilastsize) in decimal (its `%d` / `%ld`). The header decides
 * which columns exist and in which order; the reference flow writes e.g.
 *   itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0
 *   itype_0,itype_1,cause,tval,priv,iaddr_0,iaddr_1,context,time,ctype,sijump_0,sijump_1,iretire_0,...
 * Conversion rules (docs/formats.md):
 * - each group N (itype_N, iaddr_N, iretire_N, ilastsize_N, sijump_N) of a line is one record; the
 *   groups after the first are `sameCycle` and are skipped when their iretire and itype are 0;
 * - iretire 1 with ilastsize 1 is the single-retirement count of one 32-bit instruction and becomes
 *   2 half-words; every other value already counts half-words (a half-word count of 1 always has
 *   ilastsize 0);
 * - cause loses the mcause interrupt flag (bit XLEN-1, and bit 63); the record's itype says interrupt;
 * - iaddr and tval must fit XLEN bits; for XLEN 32 a sign-extended 64-bit value is accepted;
 * - priv, context, time and cause/tval are copied to every record of the line, ctype only to the
 *   first (it marks the first retirement after a context change);
 * - without a time column, time is the line's cycle number counting from 0 (as the stimulus does);
 * - the file has no program image.
 */
import { RvError } from '../../common/errors.ts';
import { ProgramImage } from '../image.ts';
import type { RetirementRecord } from '../records.ts';
import type { RetirementStream, Xlen } from '../stream.ts';
import { LineCursor, MAX_U32, stripBom } from './common.ts';
import { CsvLine } from './csv.ts';

/** Columns every etrace-csv file has (the rest are optional). */
export const ETRACE_CSV_REQUIRED: readonly string[] = ['itype_0', 'cause', 'tval', 'priv', 'iaddr_0', 'iretire_0', 'ilastsize_0'];
const CYCLE_COLUMNS = ['cause', 'tval', 'priv', 'context', 'ctype', 'time'];
const GROUP_COLUMNS = ['itype', 'iaddr', 'iretire', 'ilastsize', 'sijump'];
const GROUP_RE = /^(itype|iaddr|iretire|ilastsize|sijump)_(\d+)$/;

export interface EtraceCsvOptions {
  /** XLEN of the hart that produced the trace (the file does not say); default 64. */
  xlen?: Xlen;
  /**
   * retiresPerCycle of the stream. Default: 1 when every line retires at most one instruction,
   * otherwise the largest number of instructions a line can hold (each group's half-words counted
   * as compressed instructions before its last one), since the file does not carry retires_p.
   */
  retiresPerCycle?: number;
}

interface Group {
  itype: number;
  iaddr: number;
  iretire: number;
  ilastsize: number;
  sijump: number;
}

export function importEtraceCsv(text: string, fileName: string, opts: EtraceCsvOptions = {}): RetirementStream {
  const reader = new EtraceCsvReader(fileName, opts);
  reader.feed(text);
  return reader.finish();
}

/** Where the columns of a file's header are. */
interface Layout {
  names: string[];
  groups: Group[];
  cause: number;
  tval: number;
  priv: number;
  context: number;
  ctype: number;
  time: number;
}

/**
 * The etrace-csv import a piece of the file at a time, as `SpikeCsvReader` (spike-csv.ts): `feed`
 * takes the file's text in order, each piece ending at a line end (or the file's end), `take` hands
 * over the records made so far, `finish` returns the stream with the records not taken.
 * `importEtraceCsv` is one `feed` of the whole text.
 */
export class EtraceCsvReader {
  readonly xlen: Xlen;
  private layout: Layout | undefined;
  private v: CsvLine | undefined;
  private records: RetirementRecord[] = [];
  private cycle = 0;
  private maxInstructions = 1;
  /** Lines read so far (the header included). */
  private lineNo = 0;

  constructor(
    private readonly fileName: string,
    private readonly opts: EtraceCsvOptions = {},
  ) {
    this.xlen = opts.xlen ?? 64;
  }

  /** Reads the lines of `text`, the next piece of the file (it ends at a line end or the file's end). */
  feed(text: string): void {
    const lines = new LineCursor(this.lineNo === 0 ? stripBom(text) : text, this.lineNo);
    if (this.layout === undefined) {
      if (text.length === 0) return;
      this.layout = this.header(lines);
      this.v = new CsvLine(this.fileName, this.layout.names, this.xlen);
    }
    const { names, groups, cause: cCause, tval: cTval, priv: cPriv, context: cContext, ctype: cCtype, time: cTime } = this.layout;
    const v = this.v!;
    const records = this.records;
    while (lines.next()) {
      if (lines.blank()) continue;
      v.line = lines.lineNo;
      v.scan(lines.text, lines.start, lines.end);
      if (v.count !== names.length) v.fail(`line has ${v.count} values, the header has ${names.length} columns`);

      const cause = v.cause(cCause, 'dec');
      const tval = v.addr(cTval);
      const priv = v.small(cPriv, 7, 'a privilege level 0-7', 'dec');
      const context = cContext >= 0 ? v.u64(cContext, 'dec') : 0n;
      const ctype = cCtype >= 0 ? v.small(cCtype, 3, 'a ctype 0-3', 'dec') : 0;
      const time = cTime >= 0 ? v.u64(cTime, 'dec') : BigInt(this.cycle);

      let instructions = 0;
      for (let g = 0; g < groups.length; g++) {
        const G = groups[g]!;
        const itype = v.small(G.itype, MAX_U32, 'an itype 0-6 or 8-15', 'dec');
        if (itype > 15 || itype === 7) {
          v.fail(`unknown itype ${v.value(G.itype)} in column ${names[G.itype]}, expected 0-6 or 8-15${itype === 7 ? ' (7 is reserved)' : ''}`);
        }
        let iretire = v.small(G.iretire, MAX_U32, 'a count 0-4294967295', 'dec');
        const ilastsize = v.small(G.ilastsize, 1, '0 or 1', 'dec');
        const sijump = G.sijump >= 0 ? v.small(G.sijump, 1, '0 or 1', 'dec') === 1 : false;
        const iaddr = v.addr(G.iaddr);
        if (g > 0 && iretire === 0 && itype === 0) continue; // an unused group
        // Single retirement counts instructions: one 32-bit instruction is 2 half-words.
        if (iretire === 1 && ilastsize === 1) iretire = 2;
        if (iretire > 0) instructions += iretire - (1 << ilastsize) + 1;
        records.push({
          itype,
          iretire,
          ilastsize,
          iaddr,
          priv,
          cause,
          tval,
          context,
          ctype: g === 0 ? ctype : 0,
          sijump,
          trigger: 0,
          halted: false,
          reset: false,
          impdef: 0,
          time,
          sameCycle: g > 0,
        });
      }
      this.maxInstructions = Math.max(this.maxInstructions, instructions);
      this.cycle++;
    }
    this.lineNo = lines.lineNo;
  }

  /** The records made since the last call. */
  take(): RetirementRecord[] {
    const taken = this.records;
    this.records = [];
    return taken;
  }

  /** The stream, with the records not taken. */
  finish(): RetirementStream {
    if (this.layout === undefined) this.header(new LineCursor(''));
    return { xlen: this.xlen, retiresPerCycle: this.opts.retiresPerCycle ?? this.maxInstructions, image: new ProgramImage(), records: this.take() };
  }

  /** The header line: where each column is. */
  private header(lines: LineCursor): Layout {
    const fileName = this.fileName;
    function headerError(message: string): never {
      throw new RvError('bad-header', message, { file: fileName, line: 1 });
    }
    if (!lines.next() || lines.blank()) {
      headerError(`empty file, expected the etrace-csv header (${ETRACE_CSV_REQUIRED.join(',')}, ...)`);
    }
    const names = lines.line().split(',').map((c) => c.trim());
    const at = new Map<string, number>();
    let groupCount = 0;
    names.forEach((name, i) => {
      const g = GROUP_RE.exec(name);
      if (!g && !CYCLE_COLUMNS.includes(name)) {
        const expected = [...GROUP_COLUMNS.map((c) => c + '_N'), ...CYCLE_COLUMNS].join(', ');
        headerError(`unknown column "${name}" in the etrace-csv header, expected ${expected}`);
      }
      if (at.has(name)) headerError(`column "${name}" appears twice in the etrace-csv header`);
      at.set(name, i);
      if (g) groupCount = Math.max(groupCount, Number(g[2]) + 1);
    });
    for (const name of ETRACE_CSV_REQUIRED) {
      if (!at.has(name)) headerError(`the etrace-csv header lacks column "${name}", expected at least ${ETRACE_CSV_REQUIRED.join(',')}`);
    }
    const groups: Group[] = [];
    for (let g = 0; g < groupCount; g++) {
      for (const c of GROUP_COLUMNS.slice(0, 4)) {
        if (!at.has(`${c}_${g}`)) {
          headerError(`the etrace-csv header lacks column "${c}_${g}" (every group N needs itype_N, iaddr_N, iretire_N and ilastsize_N)`);
        }
      }
      groups.push({
        itype: at.get(`itype_${g}`)!,
        iaddr: at.get(`iaddr_${g}`)!,
        iretire: at.get(`iretire_${g}`)!,
        ilastsize: at.get(`ilastsize_${g}`)!,
        sijump: at.get(`sijump_${g}`) ?? -1,
      });
    }
    const col = (name: string): number => at.get(name) ?? -1;
    return { names, groups, cause: col('cause'), tval: col('tval'), priv: col('priv'), context: col('context'), ctype: col('ctype'), time: col('time') };
  }
}
