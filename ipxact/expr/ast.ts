/**
 * The expression tree and the error type shared by the lexer, the parser and the evaluator.
 * Every node keeps the 1-based column where it starts so evaluation errors (undefined
 * reference, division by zero) can point into the text, not only parse errors.
 */
import { RvError } from '../../golden-model/common/errors.ts';

export type UnaryOp = '+' | '-' | '!' | '~';

export type BinaryOp =
  | '**'
  | '*' | '/' | '%'
  | '+' | '-'
  | '<<' | '>>' | '<<<' | '>>>'
  | '<' | '<=' | '>' | '>='
  | '==' | '!=' | '===' | '!=='
  | '&'
  | '^' | '~^' | '^~'
  | '|'
  | '&&'
  | '||';

/** The system functions the evaluator knows; `$pow(a, b)` is `a ** b`. */
export type FunctionName = '$clog2' | '$pow';

export type Expr =
  /** A literal; `text` is the literal as written, for messages. */
  | { readonly kind: 'number'; readonly value: bigint; readonly text: string; readonly column: number }
  /** A parameter reference, by name or by parameterId. */
  | { readonly kind: 'ref'; readonly name: string; readonly column: number }
  | { readonly kind: 'unary'; readonly op: UnaryOp; readonly operand: Expr; readonly column: number }
  /** `column` is the operator's column: that is where an evaluation error of the operator points. */
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr; readonly column: number }
  /** `cond ? then : otherwise`; `column` is the `?`. */
  | { readonly kind: 'conditional'; readonly cond: Expr; readonly then: Expr; readonly otherwise: Expr; readonly column: number }
  | { readonly kind: 'call'; readonly fn: FunctionName; readonly args: readonly Expr[]; readonly column: number };

/**
 * A syntax or evaluation error in one expression. It is an RvError (code `bad-value`) so the
 * IP-XACT reader can attach the parameter's path and pass it on; the message already ends with
 * `(column N)` because a caller that only prints the message should still point at the spot.
 */
export class ExprError extends RvError {
  /** 1-based column in the expression text, when the error has a place. */
  readonly column?: number;
  /** The message without the column suffix. */
  readonly detail: string;

  constructor(detail: string, column?: number) {
    super('bad-value', column === undefined ? detail : `${detail} (column ${column})`);
    this.name = 'ExprError';
    this.detail = detail;
    if (column !== undefined) this.column = column;
  }
}
