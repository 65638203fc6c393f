import { describe, expect, it } from 'vitest';
import { ExprError, evaluate, parseExpression } from './index.ts';

const value = (text: string): bigint => evaluate(parseExpression(text), { lookup: () => undefined });

/** The ExprError a text throws, for checking message and column together. */
function errorOf(text: string): ExprError {
  try {
    value(text);
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  throw new Error(`\`${text}\` did not throw`);
}

describe('literals', () => {
  it.each<[string, bigint]>([
    ['64', 64n],
    ['0', 0n],
    ['1_000_000', 1_000_000n],
    ['1_', 1n], // SV allows `_` anywhere but first
    ['010', 10n], // SV decimal, not C octal
    ['9007199254740993', 9007199254740993n], // 2^53 + 1: a JS number would round it
    ["'h3F", 63n],
    ["'H3f", 63n],
    ["'d10", 10n],
    ["'D10", 10n],
    ["'b1010", 10n],
    ["'B1010", 10n],
    ["'o17", 15n],
    ["'d 10", 10n], // SV allows space between base and digits
    ["'h1_0000_0000", 4294967296n], // unsized unsigned may exceed 32 bits
    ["32'hFFFF_FFFF", 4294967295n],
    ["32 'h1F", 31n],
    ["12'o7777", 4095n],
    ["1'b1", 1n],
    ["64'd18446744073709551615", 18446744073709551615n],
    ["64'hFFFF_FFFF_FFFF_FFFF", 18446744073709551615n],
    ["8'h80", 128n],
    ["8'sh80", -128n],
    ["8'sh7F", 127n],
    ["8'SHFF", -1n],
    ["4'sb1000", -8n],
    ["4'sd7", 7n],
    ["8'sd200", -56n], // 200 = 8'b1100_1000, read as two's complement
    ["64'sh8000_0000_0000_0000", -9223372036854775808n],
    ["64'shFFFF_FFFF_FFFF_FFFF", -1n],
    ["-64'sd1", -1n],
    ["'sh7FFF_FFFF", 2147483647n],
    ["'shFFFF_FFFF", -1n], // unsized signed: 32 bits, as in SV
    ["'sh8000_0000", -2147483648n],
    ['0x10', 16n],
    ['0XfF', 255n],
    ['0x1_0000_0000_0000_0000', 18446744073709551616n],
    ['true', 1n],
    ['false', 0n],
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it.each<[string, number, string]>([
    ["4'hFF", 1, 'does not fit in 4 bits'],
    ["8'sd256", 1, 'does not fit in 8 bits'],
    ["1 + 8'd256", 5, 'does not fit in 8 bits'],
    ["'shF_FFFF_FFFF", 1, 'give it a size'],
    ["0'h0", 1, 'size 0 is out of range'],
    ["'b102", 5, '`2` is not a binary digit'],
    ["'o8", 3, '`8` is not an octal digit'],
    ["'hFG", 4, '`G` is not a hexadecimal digit'],
    ["'hx", 3, 'two-state'],
    ["4'b10z1", 6, 'two-state'],
    ["'d?", 3, 'two-state'],
    ["'h", 3, 'expected hexadecimal digits'],
    ['0x', 3, 'expected hexadecimal digits'],
    ["'h_FF", 3, 'cannot start with `_`'],
    ["'q12", 2, 'expected a base'],
    ["8'", 3, 'expected a base'],
    ["'1", 1, 'unbased unsized literal'],
    ["'0", 1, 'unbased unsized literal'],
    ['1.5', 2, 'real numbers are not supported'],
    ['1e3', 2, 'real numbers are not supported'],
    ['64abc', 3, 'unexpected `a` after a number'],
    ['"abc"', 1, 'strings are not supported'],
  ])('%s is rejected at column %i', (text, column, message) => {
    const e = errorOf(text);
    expect(e.column).toBe(column);
    expect(e.message).toContain(message);
    expect(e.message).toContain(`(column ${column})`);
  });

  it('ExprError is an RvError with code bad-value', () => {
    const e = errorOf("4'hFF");
    expect(e.code).toBe('bad-value');
    expect(e.detail).toBe("literal `4'hFF` does not fit in 4 bits (its value needs 8)");
  });
});
