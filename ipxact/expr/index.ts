/**
 * SystemVerilog-style constant expressions, as IP-XACT 1685-2014/2022 writes parameter values.
 *
 * Semantics (decided here; the tests pin each one):
 * - Arithmetic is exact, arbitrary-precision and signed (BigInt). There is no SV width or
 *   signedness propagation: every intermediate is a mathematical integer, so results differ from
 *   SV only where SV would wrap in its 32-bit or sized context or mix signed with unsigned
 *   operands (`-1 < 8'h1` is 1 here). Parameter values are widths, depths and addresses, where
 *   that never happens; 64-bit and wider values never pass through JavaScript numbers.
 * - Results wider than 65,536 bits (`1 << 100000`, `2 ** 70000`) are errors rather than a hang.
 * - `/` truncates toward zero and `%` takes the sign of the dividend, as in SV; both throw on a
 *   zero divisor (SV yields x).
 * - `**` (and `$pow(a, b)`) is left-associative, as in SV; a negative exponent gives 0 except for
 *   bases 1 and -1, and 0 ** negative is an error. Unary operators bind tighter: -2 ** 2 = 4.
 * - `<<` and `<<<` multiply by 2^n; `>>` is a logical shift and is an error on a negative value
 *   (the result would depend on a width we do not have); `>>>` is arithmetic (rounds toward
 *   minus infinity). A negative shift amount is an error.
 * - `~x` is two's complement on an unbounded number, -x - 1; `&`, `|`, `^`, `~^` likewise. When the
 *   value is meant as an N-bit vector, masking it is the user's concern (`~8'h0F` is -16 here).
 *   The unary reduction operators (`&x`, `|x`, ...) need a width and are rejected.
 * - Comparisons, equalities (`===`/`!==` equal `==`/`!=`: values are two-state), `!`, `&&`, `||`
 *   give 0n or 1n. `&&`, `||` and `?:` evaluate only what they need, like SV.
 * - `$clog2(x)` is ceil(log2(x)) with $clog2(0) = $clog2(1) = 0; a negative argument is an error.
 * - Literals: decimal `64`, `1_000`; based `'h3F`, `'d10`, `'b1010`, `'o17`, with an optional size
 *   (`32'hFFFF_FFFF`) and `s` for signed; C-style `0x10`; `true`/`false` are 1/0. Underscores
 *   separate digits anywhere but first. A leading 0 does not mean octal (SV reads `010` as 10).
 * - A sized literal must fit its size: `4'hFF` is an error, not SV's silent truncation to 15, since
 *   a changed parameter value is worse than a message naming the literal.
 * - A signed literal is a two's complement bit pattern of its size: `8'sh80` = -128, `8'sh7F` =
 *   127, `8'h80` = 128, `-64'sd1` = -1. An unsized signed literal is read at SV's 32 bits
 *   (`'shFFFF_FFFF` = -1); one wider than 32 bits is an error because its sign is unclear.
 * - x/z/? digits, unbased fills (`'0`, `'1`), reals and strings are errors.
 * - References are SV identifiers (`[A-Za-z_][A-Za-z0-9_$]*`), matched against parameter names and
 *   parameterIds alike; an id containing `-` or `.` is written as an escaped identifier
 *   (`\my-id ` ending at white space).
 * - Columns in errors are 1-based character positions in the expression text.
 */
export { ExprError, type BinaryOp, type Expr, type FunctionName, type UnaryOp } from './ast.ts';
export { parseExpression } from './parse.ts';
export { evaluate, references, type EvalContext } from './evaluate.ts';
export { evaluateAll, type EvaluateAllResult, type ParameterInput } from './evaluate-all.ts';
export { MAX_BITS } from './lexer.ts';
