import { describe, expect, it } from 'vitest';
import { ExprError, evaluate, parseExpression, type EvalContext } from './index.ts';

const vars: Record<string, bigint> = { W: 64n, ZERO: 0n, id_depth: 16n };
const ctx: EvalContext = { lookup: (n) => vars[n] };
const value = (text: string): bigint => evaluate(parseExpression(text), ctx);

describe('operators', () => {
  it.each<[string, bigint]>([
    ['7 + 5', 12n],
    ['7 - 10', -3n],
    ['6 * 7', 42n],
    // `/` truncates toward zero, `%` takes the dividend's sign (SV, like C)
    ['7 / 2', 3n],
    ['-7 / 2', -3n],
    ['7 / -2', -3n],
    ['-7 / -2', 3n],
    ['7 % 3', 1n],
    ['-7 % 3', -1n],
    ['7 % -3', 1n],
    ['-7 % -3', -1n],
    ['2 ** 10', 1024n],
    ['(-2) ** 3', -8n],
    ['2 ** 0', 1n],
    ['0 ** 0', 1n],
    ['2 ** -1', 0n],
    ['1 ** -5', 1n],
    ['(-1) ** -3', -1n],
    ['(-1) ** -2', 1n],
    ['$pow(3, 4)', 81n],
    ['$pow(2, W)', 18446744073709551616n],
    ['1 << 4', 16n],
    ['1 <<< 4', 16n],
    ['-3 << 2', -12n],
    ['256 >> 4', 16n],
    ['255 >> 4', 15n],
    ['5 >> 100000', 0n],
    ['-256 >>> 4', -16n],
    ['-255 >>> 4', -16n], // arithmetic: rounds toward minus infinity
    ['255 >>> 4', 15n],
    ['-1 >>> 100000', -1n],
    ['12 & 10', 8n],
    ['12 | 10', 14n],
    ['12 ^ 10', 6n],
    ['12 ~^ 10', -7n], // ~6
    ['12 ^~ 10', -7n],
    ['-1 & 255', 255n],
    ['-256 | 15', -241n],
    ['~0', -1n],
    ['~5', -6n],
    ['~-1', 0n],
    ["~8'h0F", -16n], // unbounded two's complement: masking to 8 bits is the user's concern
    ["~8'h0F & 8'hFF", 240n],
    ['!0', 1n],
    ['!7', 0n],
    ['!-1', 0n],
    ['-5', -5n],
    ['+5', 5n],
    ['3 < 5', 1n],
    ['5 < 3', 0n],
    ['5 < 5', 0n],
    ['5 <= 5', 1n],
    ['6 <= 5', 0n],
    ['5 > 3', 1n],
    ['3 > 5', 0n],
    ['5 >= 5', 1n],
    ['4 >= 5', 0n],
    ['-1 < 0', 1n],
    ["-1 < 8'h1", 1n], // mathematical, not SV's unsigned promotion
    ['5 == 5', 1n],
    ['5 == 6', 0n],
    ['5 != 6', 1n],
    ['5 != 5', 0n],
    ['5 === 5', 1n],
    ['5 !== 5', 0n],
    ['2 && 3', 1n],
    ['2 && 0', 0n],
    ['0 && 2', 0n],
    ['0 || 0', 0n],
    ['0 || 7', 1n],
    ['-1 || 0', 1n],
    ['1 ? 10 : 20', 10n],
    ['0 ? 10 : 20', 20n],
    ['-3 ? 10 : 20', 10n],
    // short-circuit: the side not needed is not evaluated, so it cannot fail
    ['0 && 1 / 0', 0n],
    ['1 || 1 / 0', 1n],
    ['1 ? 10 : 1 / 0', 10n],
    ['0 ? 1 / 0 : 20', 20n],
    ['ZERO != 0 && 64 / ZERO > 2', 0n],
    ['0 ? undefined_name : 3', 3n],
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });
});

describe('64-bit and wider values stay exact', () => {
  it.each<[string, bigint]>([
    ["64'hFFFF_FFFF_FFFF_FFFF", 18446744073709551615n],
    ['1 << 63', 9223372036854775808n],
    ['(1 << 64) - 1', 18446744073709551615n],
    ['-(1 << 63)', -9223372036854775808n],
    ['2 ** 64', 18446744073709551616n],
    ["-64'sd1", -1n],
    ["64'hFFFF_FFFF_FFFF_FFFF + 1", 18446744073709551616n], // no wrap at 64 bits
    ["64'hFFFF_FFFF_FFFF_FFFF * 64'hFFFF_FFFF_FFFF_FFFF", 340282366920938463426481119284349108225n], // 2^128 - 2^65 + 1
    ["64'hFFFF_FFFF_FFFF_FFFF >> 32", 4294967295n],
    ["64'hFFFF_FFFF_FFFF_FFFF & ~'hFF", 18446744073709551360n],
    ["~64'h0", -1n],
    ['(1 << 127) | 1', 170141183460469231731687303715884105729n],
    ['9007199254740993 + 0', 9007199254740993n], // 2^53 + 1
    ['(1 << W) / 3', 6148914691236517205n],
    ['-(1 << 64) % 7', -2n], // 2^64 = 2 (mod 7)
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });
});

describe('$clog2', () => {
  it.each<[string, bigint]>([
    ['0', 0n],
    ['1', 0n],
    ['2', 1n],
    ['3', 2n],
    ['4', 2n],
    ['5', 3n],
    ['id_depth', 4n],
    ['2**32', 32n],
    ['2**63', 63n],
    ['2**63+1', 64n],
    ['(1<<64)-1', 64n],
    ['1<<64', 64n],
    ['(1<<64)+1', 65n],
  ])('$clog2(%s) = %s', (arg, expected) => {
    expect(value(`$clog2(${arg})`)).toBe(expected);
  });
});

describe('evaluation errors name the problem and carry the column', () => {
  it.each<[string, number, string]>([
    ['W / 0', 3, 'division by zero'],
    ['7 % (W - W)', 3, 'division by zero in `%`'],
    ['1 + missing', 5, 'undefined reference `missing`'],
    ['1 ? nope : 0', 5, 'undefined reference `nope`'],
    ['$clog2(-1)', 1, '$clog2 of a negative value (-1)'],
    ['2 * $clog2(1 - W)', 5, '$clog2 of a negative value (-63)'],
    ['-8 >> 1', 4, '`>>` of a negative value depends on its width'],
    ['1 << -1', 3, 'negative shift amount (-1) for `<<`'],
    ['8 >>> -2', 3, 'negative shift amount (-2) for `>>>`'],
    ['0 ** -1', 3, 'zero raised to a negative power'],
    ['$pow(0, -1)', 1, 'zero raised to a negative power'],
    ['1 << 100000', 3, 'result of `<<` is wider than 65536 bits'],
    ['2 ** 70000', 3, 'result of `**` is wider than 65536 bits'],
    ['(1 << 40000) * (1 << 40000)', 14, 'result of `*` is wider than 65536 bits'],
  ])('%s fails at column %i', (text, column, message) => {
    let error: unknown;
    try {
      value(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExprError);
    expect((error as ExprError).column).toBe(column);
    expect((error as ExprError).message).toContain(message);
  });

  it('a zero shift of zero by a huge amount is still fine', () => {
    expect(value('0 << 100000')).toBe(0n);
  });
});
