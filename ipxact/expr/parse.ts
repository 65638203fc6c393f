/**
 * Recursive-descent parser with precedence climbing over the SV operator table
 * (IEEE 1800-2017 table 11-2), highest first:
 *
 *   unary + - ! ~  >  **  >  * / %  >  + -  >  << >> <<< >>>  >  < <= > >=  >
 *   == != === !==  >  &  >  ^ ~^ ^~  >  |  >  &&  >  ||  >  ?: (right-associative)
 *
 * All binary operators are left-associative, `**` included (SV differs from maths there:
 * 2 ** 3 ** 2 is (2 ** 3) ** 2 = 64). Unary operators bind tighter than `**`: -2 ** 2 is 4.
 */
import { ExprError, type BinaryOp, type Expr, type FunctionName, type UnaryOp } from './ast.ts';
import { tokenize, type Token } from './lexer.ts';

const BINARY_PRECEDENCE: Record<BinaryOp, number> = {
  '||': 1,
  '&&': 2,
  '|': 3,
  '^': 4, '~^': 4, '^~': 4,
  '&': 5,
  '==': 6, '!=': 6, '===': 6, '!==': 6,
  '<': 7, '<=': 7, '>': 7, '>=': 7,
  '<<': 8, '>>': 8, '<<<': 8, '>>>': 8,
  '+': 9, '-': 9,
  '*': 10, '/': 10, '%': 10,
  '**': 11,
};

const UNARY: readonly string[] = ['+', '-', '!', '~'];
/** SV reduction operators: they need the operand's width, which an unsized value lacks. */
const REDUCTION: readonly string[] = ['&', '|', '^', '~^', '^~'];

const FUNCTION_ARITY: Record<FunctionName, number> = { $clog2: 1, $pow: 2 };

const isBinaryOp = (op: string): op is BinaryOp => Object.hasOwn(BINARY_PRECEDENCE, op);
const isFunctionName = (name: string): name is FunctionName => Object.hasOwn(FUNCTION_ARITY, name);

function describe(t: Token): string {
  switch (t.kind) {
    case 'end': return 'the end of the expression';
    case 'number': return `number \`${t.text}\``;
    case 'name': return `name \`${t.name}\``;
    case 'function': return `function \`${t.name}\``;
    case 'op': return `\`${t.op}\``;
  }
}

/** Parses one constant expression; throws ExprError with the column and what was expected. */
export function parseExpression(text: string): Expr {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token => tokens[pos]!;
  const next = (): Token => tokens[pos++]!;
  const isOp = (t: Token, op: string): boolean => t.kind === 'op' && t.op === op;
  const expect = (op: string, context: string): void => {
    const t = next();
    if (!isOp(t, op)) throw new ExprError(`expected \`${op}\` ${context}, found ${describe(t)}`, t.column);
  };

  function conditional(): Expr {
    const cond = binary(1);
    const q = peek();
    if (!isOp(q, '?')) return cond;
    next();
    const then = conditional();
    expect(':', `of the \`?\` at column ${q.column}`);
    const otherwise = conditional();
    return { kind: 'conditional', cond, then, otherwise, column: q.column };
  }

  function binary(minPrecedence: number): Expr {
    let left = unary();
    for (;;) {
      const t = peek();
      if (t.kind !== 'op' || !isBinaryOp(t.op)) return left;
      const precedence = BINARY_PRECEDENCE[t.op];
      if (precedence < minPrecedence) return left;
      next();
      // precedence + 1 on the right makes every level left-associative.
      const right = binary(precedence + 1);
      left = { kind: 'binary', op: t.op, left, right, column: t.column };
    }
  }

  function unary(): Expr {
    const t = peek();
    if (t.kind === 'op' && UNARY.includes(t.op)) {
      next();
      return { kind: 'unary', op: t.op as UnaryOp, operand: unary(), column: t.column };
    }
    if (t.kind === 'op' && REDUCTION.includes(t.op)) {
      throw new ExprError(`reduction operator \`${t.op}\` needs a width and is not supported`, t.column);
    }
    return primary();
  }

  function primary(): Expr {
    const t = next();
    switch (t.kind) {
      case 'number':
        return { kind: 'number', value: t.value, text: t.text, column: t.column };
      case 'name':
        // IP-XACT writes booleans as true/false; SV has no such literals.
        if (t.name === 'true' || t.name === 'false') {
          return { kind: 'number', value: t.name === 'true' ? 1n : 0n, text: t.name, column: t.column };
        }
        return { kind: 'ref', name: t.name, column: t.column };
      case 'function':
        return call(t.name, t.column);
      case 'op':
        if (t.op === '(') {
          const inner = conditional();
          expect(')', `to close the \`(\` at column ${t.column}`);
          return inner;
        }
        break;
      case 'end':
        if (tokens.length === 1) throw new ExprError('empty expression', t.column);
        break;
    }
    throw new ExprError(
      `expected an operand (a number, a parameter name, \`(\`, a unary operator or $clog2(...)), found ${describe(t)}`,
      t.column,
    );
  }

  function call(name: string, column: number): Expr {
    if (!isFunctionName(name)) {
      throw new ExprError(`unknown function \`${name}\` (known: ${Object.keys(FUNCTION_ARITY).join(', ')})`, column);
    }
    expect('(', `after \`${name}\``);
    const args: Expr[] = [];
    if (!isOp(peek(), ')')) {
      args.push(conditional());
      while (isOp(peek(), ',')) {
        next();
        args.push(conditional());
      }
    }
    expect(')', `to close the arguments of \`${name}\``);
    const arity = FUNCTION_ARITY[name];
    if (args.length !== arity) {
      throw new ExprError(`\`${name}\` takes ${arity} argument${arity === 1 ? '' : 's'}, not ${args.length}`, column);
    }
    return { kind: 'call', fn: name, args, column };
  }

  const expr = conditional();
  const rest = peek();
  if (rest.kind !== 'end') {
    throw new ExprError(`expected an operator or the end of the expression, found ${describe(rest)}`, rest.column);
  }
  return expr;
}
