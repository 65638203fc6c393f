/**
 * Random expression trees over + - * & | ^ << with literals in every form, printed as text and
 * evaluated by the parser and evaluator, compared with the tree evaluated directly with BigInt
 * operators here. Each tree is printed twice: fully parenthesised (checks the arithmetic and the
 * literals) and with only the parentheses the SV precedence table needs (checks precedence).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, parseExpression } from './index.ts';

const SEED = 20250611;
const RUNS = 1000;

type Op = '+' | '-' | '*' | '&' | '|' | '^';
type Tree =
  | { kind: 'leaf'; value: bigint; form: number }
  | { kind: 'bin'; op: Op; left: Tree; right: Tree }
  /** The shift amount is a sum of small literals, so `x << a + b` also tests + against <<. */
  | { kind: 'shl'; left: Tree; amount: number[] };

/** SV precedence of the operators used, written out independently of parse.ts. */
const PRECEDENCE: Record<Op | '<<', number> = { '*': 10, '+': 9, '-': 9, '<<': 8, '&': 5, '^': 4, '|': 3 };

function reference(t: Tree): bigint {
  switch (t.kind) {
    case 'leaf': return t.value;
    case 'shl': return reference(t.left) << t.amount.reduce((s, a) => s + BigInt(a), 0n);
    case 'bin': {
      const a = reference(t.left);
      const b = reference(t.right);
      switch (t.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '&': return a & b;
        case '|': return a | b;
        case '^': return a ^ b;
      }
    }
  }
}

const bitLength = (v: bigint): number => (v === 0n ? 1 : v.toString(2).length);

/** `_` every `every` digits from the right, as a writer of long literals would. */
function group(digits: string, every: number): string {
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % every === 0) out += '_';
    out += digits[i];
  }
  return out;
}

/** Writes a literal in one of several forms; negative values get a unary minus, or a signed form. */
function literal(value: bigint, form: number): string {
  const m = value < 0n ? -value : value;
  const sign = value < 0n ? '-' : '';
  switch (form % 9) {
    case 0: return value.toString();
    case 1: return sign + group(m.toString(), 3);
    case 2: return `${sign}'h${group(m.toString(16).toUpperCase(), 4)}`;
    case 3: return `${sign}0x${m.toString(16)}`;
    case 4: return `${sign}${bitLength(m) + (form % 5)}'h${m.toString(16)}`;
    case 5: return `${sign}'b${group(m.toString(2), 8)}`;
    case 6: return `${sign}'o${m.toString(8)}`;
    case 7: return `${sign}${bitLength(m)}'d${m.toString()}`;
    default: {
      // A signed sized literal holding the two's complement pattern of the value.
      const width = bitLength(m) + 1;
      const pattern = value < 0n ? (1n << BigInt(width)) + value : value;
      return `${width}'sh${pattern.toString(16)}`;
    }
  }
}

function full(t: Tree): string {
  switch (t.kind) {
    case 'leaf': return literal(t.value, t.form);
    case 'shl': return `(${full(t.left)} << (${t.amount.join(' + ')}))`;
    case 'bin': return `(${full(t.left)} ${t.op} ${full(t.right)})`;
  }
}

/** Parenthesises a child only where precedence and left-associativity demand it. */
function minimal(t: Tree): string {
  if (t.kind === 'leaf') return literal(t.value, t.form);
  const op = t.kind === 'shl' ? '<<' : t.op;
  const p = PRECEDENCE[op];
  const side = (child: Tree, isRight: boolean): string => {
    const text = minimal(child);
    if (child.kind === 'leaf') return text;
    const q = PRECEDENCE[child.kind === 'shl' ? '<<' : child.op];
    return q < p || (isRight && q === p) ? `(${text})` : text;
  };
  const right = t.kind === 'shl' ? t.amount.join(' + ') : side(t.right, true); // + binds tighter than <<
  return `${side(t.left, false)} ${op} ${right}`;
}

const edge = [0n, 1n, -1n, 255n, 1n << 32n, (1n << 63n) - 1n, 1n << 63n, (1n << 64n) - 1n, -(1n << 63n)];
const leaf: fc.Arbitrary<Tree> = fc.record({
  kind: fc.constant('leaf' as const),
  value: fc.oneof(fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }), fc.constantFrom(...edge)),
  form: fc.nat(44),
});

const tree: (maxDepth?: number) => fc.Arbitrary<Tree> = fc.memo<Tree>((depth): fc.Arbitrary<Tree> =>
  depth <= 1
    ? leaf
    : fc.oneof(
        leaf,
        fc.record({
          kind: fc.constant('bin' as const),
          op: fc.constantFrom<Op>('+', '-', '*', '&', '|', '^'),
          left: tree(depth - 1),
          right: tree(depth - 1),
        }),
        fc.record({ kind: fc.constant('shl' as const), left: tree(depth - 1), amount: fc.array(fc.nat(35), { minLength: 1, maxLength: 2 }) }),
      ),
);

const run = (text: string): bigint => evaluate(parseExpression(text), { lookup: () => undefined });

describe('property: evaluator agrees with BigInt arithmetic', () => {
  it(`random + - * & | ^ << trees, fully parenthesised and with minimal parentheses (seed ${SEED})`, () => {
    fc.assert(
      fc.property(tree(5), (t) => {
        const expected = reference(t);
        expect(run(full(t))).toBe(expected);
        expect(run(minimal(t))).toBe(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`a / b and a % b satisfy a = (a / b) * b + a % b with truncation toward zero (seed ${SEED})`, () => {
    const int = fc.bigInt({ min: -(1n << 80n), max: 1n << 80n });
    fc.assert(
      fc.property(int, int.filter((b) => b !== 0n), (a, b) => {
        const q = run(`${a} / ${b}`);
        const r = run(`${a} % ${b}`);
        expect(q * b + r).toBe(a);
        expect(r === 0n || r < 0n === a < 0n).toBe(true); // the remainder takes the dividend's sign
        expect(r < 0n ? -r : r).toBeLessThan(b < 0n ? -b : b);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
