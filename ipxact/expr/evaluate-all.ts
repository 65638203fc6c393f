/**
 * Evaluates a component's parameters in dependency order and collects every problem at once:
 * syntax errors, undefined references, duplicate names, cycles and evaluation errors.
 */
import { ExprError, type Expr } from './ast.ts';
import { evaluate, referenceNodes } from './evaluate.ts';
import { parseExpression } from './parse.ts';

export interface ParameterInput {
  name: string;
  /** The IP-XACT parameterId; other expressions may refer to the parameter by it. */
  id?: string;
  /** The value text, unevaluated. */
  value: string;
}

export interface EvaluateAllResult {
  /** Values of the parameters that evaluated, by name. */
  values: Map<string, bigint>;
  /** Ordered by parameter (in input order), then by discovery. */
  errors: { name: string; message: string }[];
}

type State = 'unvisited' | 'visiting' | 'ok' | 'failed';

/**
 * Evaluates a set of named parameter expressions in dependency order; reports EVERY error
 * (undefined references, cycles with the cycle path `a -> b -> a`, syntax errors) rather than
 * the first only.
 *
 * A parameter that depends on one that failed gets its own message saying so (it has no value,
 * and the caller should know why), except members of a reported cycle: the cycle message,
 * given under its first-declared member, already names them. An undefined name is an error
 * even in the branch of `?:` that would not be taken: the reference is a mistake either way.
 */
export function evaluateAll(params: readonly ParameterInput[]): EvaluateAllResult {
  const found: { index: number; message: string }[] = [];
  const fail = (index: number, message: string): void => void found.push({ index, message });

  // Names and ids share one namespace: an expression cannot tell them apart.
  const byKey = new Map<string, number>();
  const state: State[] = params.map(() => 'unvisited');
  params.forEach((p, i) => {
    for (const key of new Set(p.id === undefined ? [p.name] : [p.name, p.id])) {
      const other = byKey.get(key);
      if (other === undefined) {
        byKey.set(key, i);
      } else {
        fail(i, `\`${key}\` already names parameter \`${params[other]!.name}\``);
        state[i] = 'failed';
      }
    }
  });

  // Parse everything and resolve references to indexes up front, so syntax errors and
  // undefined references are all reported even where ordering fails.
  const exprs: (Expr | undefined)[] = [];
  const deps: number[][] = [];
  const ownError: boolean[] = state.map((s) => s === 'failed');
  params.forEach((p, i) => {
    deps.push([]);
    let expr: Expr | undefined;
    try {
      expr = parseExpression(p.value);
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      fail(i, e.message);
      ownError[i] = true;
    }
    exprs.push(expr);
    if (expr === undefined) return;
    for (const ref of referenceNodes(expr)) {
      const target = byKey.get(ref.name);
      if (target === undefined) {
        fail(i, new ExprError(`undefined reference \`${ref.name}\``, ref.column).message);
        ownError[i] = true;
      } else if (!deps[i]!.includes(target)) {
        deps[i]!.push(target);
      }
    }
  });

  const values = new Map<string, bigint>();
  const byIndex: bigint[] = [];
  const inCycle = new Set<number>();
  const stack: number[] = [];

  // Depth-first: a dependency still 'visiting' is on the stack, so the edge closes a cycle.
  const visit = (i: number): void => {
    if (state[i] !== 'unvisited') return;
    state[i] = 'visiting';
    stack.push(i);
    const blockedBy: number[] = [];
    for (const d of deps[i]!) {
      if (state[d] === 'visiting') {
        reportCycle(stack.slice(stack.indexOf(d)));
        blockedBy.push(d);
        continue;
      }
      visit(d);
      if (state[d] === 'failed') blockedBy.push(d);
    }
    stack.pop();

    const expr = exprs[i];
    if (ownError[i] || expr === undefined || blockedBy.length > 0 || inCycle.has(i)) {
      state[i] = 'failed';
      if (!ownError[i] && !inCycle.has(i) && blockedBy.length > 0) {
        const names = blockedBy.map((d) => `\`${params[d]!.name}\``).join(', ');
        fail(i, `not evaluated: it depends on ${names}, which could not be evaluated`);
      }
      return;
    }
    try {
      byIndex[i] = evaluate(expr, { lookup: (key) => byIndex[byKey.get(key) ?? -1] });
      values.set(params[i]!.name, byIndex[i]!);
      state[i] = 'ok';
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      fail(i, e.message);
      state[i] = 'failed';
    }
  };

  /** Reports `a -> b -> c -> a`, starting at the member declared first so output is stable. */
  const reportCycle = (members: number[]): void => {
    const first = members.indexOf(Math.min(...members));
    const path = [...members.slice(first), ...members.slice(0, first)];
    path.forEach((m) => inCycle.add(m));
    const text = [...path, path[0]!].map((m) => params[m]!.name).join(' -> ');
    fail(path[0]!, `circular reference: ${text}`);
  };

  params.forEach((_, i) => visit(i));

  // Stable sort: input order of parameters, discovery order within one.
  found.sort((x, y) => x.index - y.index);
  return { values, errors: found.map((f) => ({ name: params[f.index]!.name, message: f.message })) };
}
