/**
 * Evaluates an expression tree over exact, arbitrary-precision signed integers (BigInt).
 * The semantics are set out in index.ts.
 */
import { ExprError, type BinaryOp, type Expr } from './ast.ts';
import { MAX_BITS } from './lexer.ts';

export interface EvalContext {
  /** The value of a parameter by name or parameterId; undefined when it is not defined. */
  lookup(nameOrId: string): bigint | undefined;
}

const LIMIT = 1n << BigInt(MAX_BITS);
const bool = (b: boolean): bigint => (b ? 1n : 0n);

export function evaluate(expr: Expr, ctx: EvalContext): bigint {
  switch (expr.kind) {
    case 'number':
      return expr.value;
    case 'ref': {
      const value = ctx.lookup(expr.name);
      if (value === undefined) throw new ExprError(`undefined reference \`${expr.name}\``, expr.column);
      return value;
    }
    case 'unary': {
      const v = evaluate(expr.operand, ctx);
      switch (expr.op) {
        case '+': return v;
        case '-': return -v;
        case '!': return bool(v === 0n);
        // Two's complement of an unbounded number: ~x = -x - 1. Truncating to a width is the
        // caller's business (~8'h0F is -16 here, not 8'hF0).
        case '~': return ~v;
      }
      break; // unreachable: the switch covers every UnaryOp
    }
    case 'binary':
      return binary(expr.op, expr.left, expr.right, expr.column, ctx);
    case 'conditional':
      // Only the chosen branch is evaluated, as in SV, so `d != 0 ? n / d : 0` is safe.
      return evaluate(expr.cond, ctx) !== 0n ? evaluate(expr.then, ctx) : evaluate(expr.otherwise, ctx);
    case 'call': {
      const args = expr.args.map((a) => evaluate(a, ctx));
      if (expr.fn === '$clog2') return clog2(args[0]!, expr.column);
      return power(args[0]!, args[1]!, expr.column);
    }
  }
  throw new Error('unreachable: every Expr kind and operator is handled above');
}

function binary(op: BinaryOp, leftExpr: Expr, rightExpr: Expr, column: number, ctx: EvalContext): bigint {
  const a = evaluate(leftExpr, ctx);
  // && and || short-circuit like SV, so `n != 0 && 64 / n > 2` is safe.
  if (op === '&&') return a === 0n ? 0n : bool(evaluate(rightExpr, ctx) !== 0n);
  if (op === '||') return a !== 0n ? 1n : bool(evaluate(rightExpr, ctx) !== 0n);
  const b = evaluate(rightExpr, ctx);
  switch (op) {
    case '**': return power(a, b, column);
    case '*': return fits(a * b, op, column);
    case '/':
      if (b === 0n) throw new ExprError('division by zero', column);
      return a / b; // BigInt division truncates toward zero, as SV's does
    case '%':
      if (b === 0n) throw new ExprError('division by zero in `%`', column);
      return a % b; // the sign follows the dividend, as in SV
    case '+': return a + b;
    case '-': return a - b;
    case '<<':
    case '<<<':
      shiftAmount(b, op, column);
      if (a !== 0n && b > BigInt(MAX_BITS)) throw tooWide(op, column);
      return fits(a << b, op, column);
    case '>>':
      // A logical shift of a negative number depends on its width, which we do not have.
      if (a < 0n) throw new ExprError('`>>` of a negative value depends on its width; use `>>>` for an arithmetic shift', column);
      shiftAmount(b, op, column);
      return b > BigInt(MAX_BITS) ? 0n : a >> b;
    case '>>>':
      shiftAmount(b, op, column);
      if (b > BigInt(MAX_BITS)) return a < 0n ? -1n : 0n;
      return a >> b; // BigInt >> rounds toward minus infinity: the arithmetic shift
    case '<': return bool(a < b);
    case '<=': return bool(a <= b);
    case '>': return bool(a > b);
    case '>=': return bool(a >= b);
    // Values are two-state, so the case equalities equal the logical ones.
    case '==': case '===': return bool(a === b);
    case '!=': case '!==': return bool(a !== b);
    case '&': return a & b;
    case '^': return a ^ b;
    case '~^': case '^~': return ~(a ^ b);
    case '|': return a | b;
  }
}

/**
 * SV integer power: a negative exponent gives 0 except for bases 1 and -1, and 0 ** negative
 * is an error (SV yields x).
 */
function power(a: bigint, b: bigint, column: number): bigint {
  if (b < 0n) {
    if (a === 0n) throw new ExprError('zero raised to a negative power', column);
    if (a === 1n) return 1n;
    if (a === -1n) return b % 2n === 0n ? 1n : -1n;
    return 0n;
  }
  // |a| >= 2 doubles at least once per unit of b: refuse before BigInt tries to build it.
  if ((a > 1n || a < -1n) && b > BigInt(MAX_BITS)) throw tooWide('**', column);
  return fits(a ** b, '**', column);
}

/** Ceiling of log2, with $clog2(0) = 0 as in SV: the number of bits to count 0..x-1. */
function clog2(x: bigint, column: number): bigint {
  if (x < 0n) throw new ExprError(`$clog2 of a negative value (${x})`, column);
  if (x <= 1n) return 0n;
  return BigInt((x - 1n).toString(2).length);
}

function shiftAmount(b: bigint, op: string, column: number): void {
  if (b < 0n) throw new ExprError(`negative shift amount (${b}) for \`${op}\``, column);
}

function fits(v: bigint, op: string, column: number): bigint {
  if (v >= LIMIT || v <= -LIMIT) throw tooWide(op, column);
  return v;
}

function tooWide(op: string, column: number): ExprError {
  return new ExprError(`result of \`${op}\` is wider than ${MAX_BITS} bits`, column);
}

/** Every reference with its column, in text order (duplicates kept). */
export function referenceNodes(expr: Expr): { name: string; column: number }[] {
  const out: { name: string; column: number }[] = [];
  const walk = (e: Expr): void => {
    switch (e.kind) {
      case 'number': return;
      case 'ref': out.push({ name: e.name, column: e.column }); return;
      case 'unary': walk(e.operand); return;
      case 'binary': walk(e.left); walk(e.right); return;
      case 'conditional': walk(e.cond); walk(e.then); walk(e.otherwise); return;
      case 'call': e.args.forEach(walk); return;
    }
  };
  walk(expr);
  return out;
}

/**
 * The names and ids an expression refers to, each once, in order of first appearance.
 * Both branches of `?:` count: dependency ordering must not depend on values.
 */
export function references(expr: Expr): string[] {
  return [...new Set(referenceNodes(expr).map((r) => r.name))];
}
