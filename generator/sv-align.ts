/**
 * Column alignment of generated SystemVerilog declarations (lowRISC style), applied to a rendered
 * file so that templates need not pad by hand for every width a configuration can have.
 *
 * A run is a sequence of consecutive lines of one kind with the same indentation: declarations
 * (`[(* attr *)] [input|output] logic|bit|int [range] names...`) or localparams (`localparam type
 * [range] Name = value;`); comment-only lines inside a run are kept and do not end it, anything
 * else does. In a run every column (attribute, direction, type, range, name) starts at the same
 * position, and trailing `//` comments line up two spaces after the longest commented line.
 */

interface Decl {
  readonly indent: string;
  readonly cols: string[];
  readonly rest: string;
  readonly comment: string;
}

type Kind = 'decl' | 'param';

const DECL = /^(\s*)(\(\*[^*]*\*\)\s+)?(?:(input|output|inout)\s+)?(logic|bit|int)\b\s*(\[[^\]]*\])?\s+([A-Za-z_][^/]*?)\s*(\/\/.*)?$/;
const PARAM = /^(\s*)localparam\s+(logic|bit|int)\b\s*(\[[^\]]*\])?\s+([A-Za-z_]\w*)\s*(=\s*[^/]*?)\s*(\/\/.*)?$/;
const COMMENT = /^\s*\/\//;

function parse(line: string): { kind: Kind; d: Decl } | undefined {
  let m = PARAM.exec(line);
  if (m !== null) return { kind: 'param', d: { indent: m[1]!, cols: ['localparam', m[2]!, m[3] ?? '', m[4]!], rest: m[5]!, comment: m[6] ?? '' } };
  m = DECL.exec(line);
  if (m !== null) return { kind: 'decl', d: { indent: m[1]!, cols: [(m[2] ?? '').trim(), m[3] ?? '', m[4]!, m[5] ?? ''], rest: m[6]!, comment: m[7] ?? '' } };
  return undefined;
}

function alignRun(lines: string[], run: { index: number; d: Decl }[]): void {
  const ncols = run[0]!.d.cols.length;
  const widths = Array.from({ length: ncols }, (_, k) => Math.max(...run.map((r) => r.d.cols[k]!.length)));
  const code = run.map(({ d }) => {
    const cols = d.cols.map((c, k) => c.padEnd(widths[k]!)).filter((_, k) => widths[k]! > 0);
    return `${d.indent}${cols.join(' ')} ${d.rest}`;
  });
  const commentCol = Math.max(0, ...run.map((r, i) => (r.d.comment !== '' ? code[i]!.length : 0)));
  run.forEach((r, i) => {
    lines[r.index] = r.d.comment !== '' ? `${code[i]!.padEnd(commentCol)}  ${r.d.comment}` : code[i]!;
  });
}

/** The text with every run of declarations aligned in columns; other lines unchanged. */
export function alignDeclarations(text: string): string {
  const lines = text.split('\n');
  let run: { index: number; d: Decl }[] = [];
  let kind: Kind | undefined;
  const flush = (): void => {
    if (run.length > 0) alignRun(lines, run);
    run = [];
    kind = undefined;
  };
  lines.forEach((line, index) => {
    const p = parse(line);
    if (p === undefined) {
      if (!(COMMENT.test(line) && kind !== undefined)) flush();
      return;
    }
    if (p.kind !== kind || (run.length > 0 && p.d.indent !== run[0]!.d.indent)) flush();
    kind = p.kind;
    run.push({ index, d: p.d });
  });
  flush();
  return lines.join('\n');
}
