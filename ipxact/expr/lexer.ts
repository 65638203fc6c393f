/**
 * Splits an expression into tokens and reads numeric literals into exact BigInt values.
 * Literal values never pass through JavaScript numbers: digits go straight to BigInt().
 */
import { ExprError } from './ast.ts';

export type Token =
  | { readonly kind: 'number'; readonly value: bigint; readonly text: string; readonly column: number }
  | { readonly kind: 'name'; readonly name: string; readonly column: number }
  /** `$clog2` and friends; whether the name is known is the parser's business. */
  | { readonly kind: 'function'; readonly name: string; readonly column: number }
  | { readonly kind: 'op'; readonly op: string; readonly column: number }
  | { readonly kind: 'end'; readonly column: number };

/**
 * Results wider than this many bits are refused: it stops `1 << 1000000000` or `2 ** 2 ** 40`
 * from eating the machine, and no real parameter comes near it. Sized literals share the limit.
 */
export const MAX_BITS = 65536;

/** Longest first, so `<<<` is not read as `<<` then `<`. */
const OPERATORS = [
  '<<<', '>>>', '===', '!==',
  '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '**', '~^', '^~',
  '+', '-', '*', '/', '%', '&', '|', '^', '~', '!', '<', '>', '?', ':', '(', ')', ',',
];

/** SV allows unsized based literals to be "at least 32 bits"; we read their sign at 32. */
const UNSIZED_BITS = 32;

const BASES: Record<string, { name: string; aDigit: string; prefix: string; valid: RegExp }> = {
  b: { name: 'binary', aDigit: 'a binary digit', prefix: '0b', valid: /^[01]$/ },
  o: { name: 'octal', aDigit: 'an octal digit', prefix: '0o', valid: /^[0-7]$/ },
  d: { name: 'decimal', aDigit: 'a decimal digit', prefix: '', valid: /^[0-9]$/ },
  h: { name: 'hexadecimal', aDigit: 'a hexadecimal digit', prefix: '0x', valid: /^[0-9a-fA-F]$/ },
};

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdentStart = (c: string): boolean => /^[A-Za-z_]$/.test(c);
const isIdentPart = (c: string): boolean => /^[A-Za-z0-9_$]$/.test(c);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (true) {
    while (pos < text.length && isSpace(text[pos]!)) pos++;
    const column = pos + 1;
    if (pos >= text.length) {
      tokens.push({ kind: 'end', column });
      return tokens;
    }
    const c = text[pos]!;
    if (isDigit(c) || c === "'") {
      const lit = readNumber(text, pos);
      tokens.push({ kind: 'number', value: lit.value, text: text.slice(pos, lit.end), column });
      pos = lit.end;
    } else if (isIdentStart(c)) {
      let end = pos + 1;
      while (end < text.length && isIdentPart(text[end]!)) end++;
      tokens.push({ kind: 'name', name: text.slice(pos, end), column });
      pos = end;
    } else if (c === '\\') {
      // SV escaped identifier: `\` up to white space. It is how an expression can name a
      // parameterId holding `-` or `.` (legal in an XML ID, but an operator in SV).
      let end = pos + 1;
      while (end < text.length && !isSpace(text[end]!)) end++;
      if (end === pos + 1) throw new ExprError('expected an escaped identifier after `\\`', column);
      tokens.push({ kind: 'name', name: text.slice(pos + 1, end), column });
      pos = end;
    } else if (c === '$') {
      let end = pos + 1;
      while (end < text.length && isIdentPart(text[end]!)) end++;
      if (end === pos + 1) throw new ExprError('expected a function name after `$`', column);
      tokens.push({ kind: 'function', name: text.slice(pos, end), column });
      pos = end;
    } else if (c === '"') {
      throw new ExprError('strings are not supported: a parameter value must be an integer expression', column);
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, pos));
      if (op === undefined) throw new ExprError(`unexpected character \`${c}\``, column);
      tokens.push({ kind: 'op', op, column });
      pos += op.length;
    }
  }
}

/** Reads a literal starting at `start` (a digit or `'`); returns its value and where it ends. */
function readNumber(text: string, start: number): { value: bigint; end: number } {
  const column = start + 1;
  // C-style hexadecimal, which IP-XACT tools write although SV has no such form.
  if (text[start] === '0' && (text[start + 1] === 'x' || text[start + 1] === 'X')) {
    const digits = readDigits(text, start + 2, 'h');
    return { value: digits.value, end: checkEnd(text, digits.end) };
  }
  if (text[start] === "'") return readBased(text, start, undefined, column);

  const size = readDigits(text, start, 'd');
  // A size is a decimal number followed (perhaps after spaces) by `'`.
  let p = size.end;
  while (p < text.length && isSpace(text[p]!)) p++;
  if (text[p] === "'") {
    if (size.value < 1n || size.value > BigInt(MAX_BITS)) {
      throw new ExprError(`literal size ${size.value} is out of range (1 to ${MAX_BITS} bits)`, column);
    }
    return readBased(text, p, Number(size.value), column);
  }
  return { value: size.value, end: checkEnd(text, size.end) };
}

/** Reads `'[s]<base><digits>` at `quote`; `size` is undefined for an unsized literal. */
function readBased(
  text: string,
  quote: number,
  size: number | undefined,
  column: number,
): { value: bigint; end: number } {
  let p = quote + 1;
  const signed = text[p] === 's' || text[p] === 'S';
  if (signed) p++;
  const baseChar = (text[p] ?? '').toLowerCase();
  if (!(baseChar in BASES)) {
    if (!signed && size === undefined && /^[01xzXZ]$/.test(baseChar)) {
      // '0, '1, 'x, 'z fill to the width of their context, and here there is no context.
      throw new ExprError(
        `unbased unsized literal \`'${text[p]}\` has no width here; write a sized literal such as 64'hFFFF_FFFF_FFFF_FFFF`,
        column,
      );
    }
    throw new ExprError("expected a base (b, o, d or h) after `'`", p + 1);
  }
  p++;
  while (p < text.length && (text[p] === ' ' || text[p] === '\t')) p++; // SV allows `'h 3F`
  const digits = readDigits(text, p, baseChar);
  const end = checkEnd(text, digits.end);
  const literal = text.slice(column - 1, end);
  let value = digits.value;

  const width = size ?? UNSIZED_BITS;
  if (value >= 1n << BigInt(width)) {
    if (size !== undefined) {
      // SV would truncate with a warning; we refuse, because a silently changed parameter
      // value is worse than an error that names the literal.
      throw new ExprError(
        `literal \`${literal}\` does not fit in ${size} bits (its value needs ${value.toString(2).length})`,
        column,
      );
    }
    if (signed) {
      throw new ExprError(
        `unsized signed literal \`${literal}\` is wider than ${UNSIZED_BITS} bits, so its sign is unclear; give it a size`,
        column,
      );
    }
  }
  // A signed literal is a two's complement bit pattern of its width: 8'sh80 is -128.
  if (signed && value >= 1n << BigInt(width - 1)) value -= 1n << BigInt(width);
  return { value, end };
}

/**
 * Reads digits of `base` with `_` separators from `start`. The run is taken wide (every letter,
 * digit, `_`, `?`) and then checked, so `'b102` is reported at the `2` rather than split in two
 * tokens. Decimal runs stop at other letters, so `64abc` and `1e3` get checkEnd's messages.
 */
function readDigits(text: string, start: number, base: string): { value: bigint; end: number } {
  const spec = BASES[base]!;
  const inRun = base === 'd' ? /^[0-9_xXzZ?]$/ : /^[A-Za-z0-9_?]$/;
  let end = start;
  while (end < text.length && inRun.test(text[end]!)) end++;
  if (end === start) throw new ExprError(`expected ${spec.name} digits`, start + 1);
  if (text[start] === '_') throw new ExprError('a number cannot start with `_`', start + 1);
  let digits = '';
  for (let i = start; i < end; i++) {
    const d = text[i]!;
    if (d === '_') continue;
    if (/^[xXzZ?]$/.test(d)) {
      throw new ExprError(`\`${d}\` digits are not allowed: parameter values are two-state`, i + 1);
    }
    if (!spec.valid.test(d)) throw new ExprError(`\`${d}\` is not ${spec.aDigit}`, i + 1);
    digits += d;
  }
  return { value: BigInt(spec.prefix + digits), end };
}

/** A literal must not run straight into a name (`64abc`) or a fraction (`1.5`, `1e3`). */
function checkEnd(text: string, end: number): number {
  const next = text[end];
  if (next === undefined) return end;
  if (next === '.' || ((next === 'e' || next === 'E') && /^[0-9+-]$/.test(text[end + 1] ?? ''))) {
    throw new ExprError('real numbers are not supported: a parameter value must be an integer', end + 1);
  }
  if (isIdentPart(next) || next === "'") {
    throw new ExprError(`unexpected \`${next}\` after a number`, end + 1);
  }
  return end;
}
