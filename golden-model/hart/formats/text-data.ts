/**
 * The data-trace lines of the `text` format (docs/formats.md, "Data trace"): one line per access or
 * split-load response, right after the record line of the cycle it belongs to.
 *
 *   data <dtype> <daddr> <dsize> <data> [lrid=<n>] [iaddr-lsbs=<n>] [dblock=<n>]
 *   resp <lid> okay|error [<ldata>]
 *
 * dtype is a name of DTYPE_NAMES or its code, daddr, data and ldata are hex (optional 0x), the
 * rest decimal. The optional fields default to 0, as on an interface without those signals.
 */
import { RvError } from '../../common/errors.ts';
import { checkDataTrace, type DataAccess, type DataTrace, DTYPE_NAMES, isDefinedDtype, type LoadResponse, Lresp, MAX_DSIZE } from '../data-records.ts';
import { decSmall, hexToken, MAX_U32 } from './common.ts';

export const DATA_KEYWORD = 'data';
export const RESP_KEYWORD = 'resp';
/** Header line that says the stream has a data trace interface (also when it saw no access). */
export const DATA_TRACE_HEADER = 'data-trace';

const DTYPE_BY_NAME = new Map(Object.entries(DTYPE_NAMES).map(([code, name]) => [name, Number(code)]));
const DTYPE_EXPECTED = `a dtype name (${Object.values(DTYPE_NAMES).join(', ')}) or its code`;
const OPTIONAL = { lrid: 'lrid', 'iaddr-lsbs': 'iaddrLsbs', dblock: 'dblock' } as const;
const LRESP_NAMES: Record<number, string> = { [Lresp.okay]: 'okay', [Lresp.error]: 'error' };

export function formatAccess(a: DataAccess): string {
  let line = `${DATA_KEYWORD} ${DTYPE_NAMES[a.dtype]} ${a.daddr.toString(16)} ${a.dsize} ${a.data.toString(16)}`;
  for (const [name, key] of Object.entries(OPTIONAL)) if (a[key] !== 0) line += ` ${name}=${a[key]}`;
  return line;
}

export function formatResponse(r: LoadResponse): string {
  const line = `${RESP_KEYWORD} ${r.lid} ${LRESP_NAMES[r.lresp]}`;
  return r.lresp === Lresp.error && r.ldata === 0n ? line : `${line} ${r.ldata.toString(16)}`;
}

/** Collects data lines while the reader walks the file; `fail` reports with the current line. */
export class DataLineReader {
  readonly accesses: DataAccess[] = [];
  readonly responses: LoadResponse[] = [];
  private readonly accessLines: number[] = [];
  private readonly responseLines: number[] = [];

  constructor(private readonly fail: (message: string, line: number) => never) {}

  /** A `data` or `resp` line (tokens include the keyword) of the cycle of record `at`. */
  read(tokens: string[], at: number, line: number): void {
    const err = (m: string): never => this.fail(m, line);
    if (at < 0) err(`"${tokens[0]}" line before the first record, expected it after the record of its cycle`);
    if (tokens[0] === DATA_KEYWORD) this.readAccess(tokens, at, line, err);
    else this.readResponse(tokens, at, line, err);
  }

  private readAccess(tokens: string[], at: number, line: number, err: (m: string) => never): void {
    if (tokens.length < 5) err(`data line has ${tokens.length - 1} values, expected dtype daddr dsize data before the optional name=value fields`);
    const [, dt, addr, size, value] = tokens as [string, string, string, string, string];
    const dtype = DTYPE_BY_NAME.get(dt) ?? decSmall(dt, 15);
    if (dtype === undefined || !isDefinedDtype(dtype)) err(`bad dtype value "${dt}", expected ${DTYPE_EXPECTED}`);
    const daddr = hexToken(addr);
    if (daddr === undefined) err(`bad daddr value "${addr}", expected a hexadecimal address`);
    const dsize = decSmall(size, MAX_DSIZE);
    if (dsize === undefined) err(`bad dsize value "${size}", expected a decimal log2 of the byte count 0-${MAX_DSIZE}`);
    const data = /^(0[xX])?[0-9a-fA-F]+$/.test(value) ? BigInt('0x' + value.replace(/^0[xX]/, '')) : undefined;
    if (data === undefined) err(`bad data value "${value}", expected hexadecimal digits`);
    const a: DataAccess = { at, dtype, daddr, dsize, data, lrid: 0, iaddrLsbs: 0, dblock: 0 };
    const given = new Set<string>();
    for (const t of tokens.slice(5)) {
      const eq = t.indexOf('=');
      const name = eq < 0 ? t : t.slice(0, eq);
      const key = OPTIONAL[name as keyof typeof OPTIONAL];
      if (key === undefined || eq < 0) err(`unknown data field "${t}", expected ${Object.keys(OPTIONAL).map((n) => `${n}=<n>`).join(', ')}`);
      if (given.has(name)) err(`data field "${name}" given twice`);
      given.add(name);
      const v = decSmall(t.slice(eq + 1), MAX_U32);
      if (v === undefined) err(`bad ${name} value "${t.slice(eq + 1)}", expected a decimal number 0-4294967295`);
      a[key] = v;
    }
    this.accesses.push(a);
    this.accessLines.push(line);
  }

  private readResponse(tokens: string[], at: number, line: number, err: (m: string) => never): void {
    if (tokens.length < 3 || tokens.length > 4) err(`resp line has ${tokens.length - 1} values, expected lid okay|error [ldata]`);
    const lid = decSmall(tokens[1]!, MAX_U32);
    if (lid === undefined) err(`bad lid value "${tokens[1]}", expected a decimal number 0-4294967295`);
    const lresp = tokens[2] === 'okay' ? Lresp.okay : tokens[2] === 'error' ? Lresp.error : undefined;
    if (lresp === undefined) err(`bad lresp value "${tokens[2]}", expected okay or error`);
    let ldata = 0n;
    if (tokens.length === 4) {
      const v = hexToken(tokens[3]!);
      if (v === undefined) err(`bad ldata value "${tokens[3]}", expected hexadecimal digits`);
      ldata = v;
    } else if (lresp === Lresp.okay) {
      err(`resp line with okay needs the load data, expected resp ${lid} okay <ldata>`);
    }
    this.responses.push({ at, lid, lresp, ldata });
    this.responseLines.push(line);
  }

  /** The data trace read, checked as a whole (split pairing), errors naming the offending line. */
  finish(recordCount: number): DataTrace {
    const data = { accesses: this.accesses, responses: this.responses };
    try {
      checkDataTrace({ records: { length: recordCount } as unknown[], data });
    } catch (e) {
      if (!(e instanceof RvError)) throw e;
      const m = /^data\.(accesses|responses)\[(\d+)\]\./.exec(e.message);
      const lines = m?.[1] === 'accesses' ? this.accessLines : this.responseLines;
      this.fail(m ? e.message.slice(m[0].length) : e.message, m ? lines[Number(m[2])]! : 1);
    }
    return data;
  }
}
