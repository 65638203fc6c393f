import { describe, expect, it } from 'vitest';
import { ExprError, evaluate, parseExpression, references, type Expr } from './index.ts';

const value = (text: string): bigint => evaluate(parseExpression(text), { lookup: () => undefined });

/** Prints a tree fully parenthesised, so a test can show how the parser grouped the text. */
function show(e: Expr): string {
  switch (e.kind) {
    case 'number': return e.text;
    case 'ref': return e.name;
    case 'unary': return `(${e.op}${show(e.operand)})`;
    case 'binary': return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case 'conditional': return `(${show(e.cond)} ? ${show(e.then)} : ${show(e.otherwise)})`;
    case 'call': return `${e.fn}(${e.args.map(show).join(', ')})`;
  }
}

describe('precedence and associativity (SV table 11-2)', () => {
  // Each case is chosen so the wrong grouping gives a different value (noted where not obvious).
  it.each<[string, bigint]>([
    ['2 + 3 * 4', 14n],
    ['(2 + 3) * 4', 20n],
    ['2 * 3 ** 2', 18n], // ** above *
    ['2 ** 3 ** 2', 64n], // ** is left-associative in SV: (2**3)**2, not 2**9 = 512
    ['-2 ** 2', 4n], // unary above **: (-2)**2
    ['-(2 ** 2)', -4n],
    ['2 ** -1 + 1', 1n], // unary operand of **: (2 ** -1) + 1 = 0 + 1
    ['!0 + 1', 2n], // (!0) + 1, not !(0 + 1) = 0
    ['~0 & 5', 5n],
    ['- 3 * - 2', 6n],
    ['--5', 5n],
    ['10 - 4 - 3', 3n], // left: (10-4)-3, not 10-(4-3) = 9
    ['100 / 10 / 5', 2n], // left: 10/5, not 100/2 = 50
    ['2 * 5 % 3', 1n], // same level, left: 10 % 3, not 2 * 2 = 4
    ['12 - 2 * 3 ** 2 / 6 % 4', 9n], // 12 - (((2 * 9) / 6) % 4)
    ['1 + 2 << 3', 24n], // + above <<: 3 << 3, not 1 + 16
    ['1 << 2 + 1', 8n],
    ['1 << 2 * 3', 64n],
    ['8 >> 1 + 1', 2n],
    ['1 << 3 < 9', 1n], // shift above relational: 8 < 9, not 1 << 1 = 2
    ['3 < 2 == 0', 1n], // relational above equality: 0 == 0, not 3 < 0 = 0
    ['3 == 3 != 0', 1n], // equality is left-associative: 1 != 0, not 3 == 1 = 0
    ['2 & 2 == 2', 0n], // equality above &: 2 & 1, not (2 & 2) == 2 = 1
    ['6 ^ 3 & 5', 7n], // & above ^: 6 ^ 1, not 5 & 5 = 5
    ['1 | 6 ^ 3', 5n], // ^ above |: 1 | 5, not 7 ^ 3 = 4
    ['1 | 2 && 0', 0n], // | above &&: 3 && 0, not 1 | 0 = 1
    ['1 || 0 && 0', 1n], // && above ||: 1 || 0, not 1 && 0 = 0
    ['1 ? 5 : 0 ? 2 : 3', 5n], // ?: is right-associative: not (1 ? 5 : 0) ? 2 : 3 = 2
    ['1 ? 0 ? 7 : 8 : 9', 8n],
    ['0 || 1 ? 4 : 5', 4n], // || above ?:
    ['1 - 1 ? 4 : 5', 5n],
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it.each<[string, string]>([
    ['a + b * c', '(a + (b * c))'],
    ['a - b - c', '((a - b) - c)'],
    ['a ** b ** c', '((a ** b) ** c)'],
    ['-a ** b', '((-a) ** b)'],
    ['a << b + c < d == e & f ^ g | h && i || j', '((((((((a << (b + c)) < d) == e) & f) ^ g) | h) && i) || j)'],
    ['a ? b : c ? d : e', '(a ? b : (c ? d : e))'],
    ['a ~^ b ^~ c', '((a ~^ b) ^~ c)'],
    ['a >>> b <<< c', '((a >>> b) <<< c)'],
    ['$clog2(a + 1) * $pow(b, c)', '($clog2((a + 1)) * $pow(b, c))'],
  ])('%s groups as %s', (text, grouped) => {
    expect(show(parseExpression(text))).toBe(grouped);
  });

  it('accepts white space and newlines anywhere between tokens', () => {
    expect(value(' (\t1 +\n 2 )\r\n* 3 ')).toBe(9n);
  });
});

describe('syntax errors carry the column and what was expected', () => {
  it.each<[string, number, string]>([
    ['', 1, 'empty expression'],
    ['   ', 4, 'empty expression'],
    ['1 +', 4, 'expected an operand'],
    ['2 * * 3', 5, 'expected an operand (a number, a parameter name, `(`, a unary operator or $clog2(...)), found `*`'],
    [')', 1, 'found `)`'],
    ['(1 + 2', 7, 'expected `)` to close the `(` at column 1, found the end of the expression'],
    ['1 2', 3, 'expected an operator or the end of the expression, found number `2`'],
    ['(1) x', 5, 'found name `x`'],
    ['1 ? 2', 6, 'expected `:` of the `?` at column 3'],
    ['a @ b', 3, 'unexpected character `@`'],
    ['a = b', 3, 'unexpected character `=`'],
    ['$clog2(1, 2)', 1, '`$clog2` takes 1 argument, not 2'],
    ['$pow(2)', 1, '`$pow` takes 2 arguments, not 1'],
    ['$clog2 1', 8, 'expected `(` after `$clog2`'],
    ['$clog2(1', 9, 'expected `)` to close the arguments of `$clog2`'],
    ['$sqrt(4)', 1, 'unknown function `$sqrt`'],
    ['$', 1, 'expected a function name'],
    ['&x', 1, 'reduction operator `&`'],
    ['1 + ^x', 5, 'reduction operator `^`'],
    ['\\', 1, 'expected an escaped identifier'],
  ])('%j fails at column %i', (text, column, message) => {
    let error: unknown;
    try {
      parseExpression(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExprError);
    const e = error as ExprError;
    expect(e.column).toBe(column);
    expect(e.message).toContain(message);
  });
});

describe('references', () => {
  it.each<[string, string[]]>([
    ['42', []],
    ['a + b * a', ['a', 'b']],
    ['\\my-id  + $clog2(c) + d_1$x', ['my-id', 'c', 'd_1$x']],
    ['uuid_5ad2ec4b_2c2b - 1', ['uuid_5ad2ec4b_2c2b']],
    // both branches: ordering must not depend on values
    ['sel ? x : y', ['sel', 'x', 'y']],
    ['true || false', []],
  ])('%s refers to %j', (text, names) => {
    expect(references(parseExpression(text))).toEqual(names);
  });

  it('an escaped identifier ends at white space and may hold `-` and `.`', () => {
    const ctx = { lookup: (n: string) => (n === 'param-3.w' ? 7n : undefined) };
    expect(evaluate(parseExpression('\\param-3.w + 1'), ctx)).toBe(8n);
  });
});
