import { describe, expect, it } from 'vitest';
import { evaluateAll } from './index.ts';

describe('evaluateAll', () => {
  it('evaluates in dependency order, whatever the declaration order', () => {
    const { values, errors } = evaluateAll([
      { name: 'c', value: 'b * 2' },
      { name: 'b', value: 'a + 1' },
      { name: 'a', value: '1' },
    ]);
    expect(errors).toEqual([]);
    expect(values).toEqual(new Map([['a', 1n], ['b', 2n], ['c', 4n]]));
  });

  it('resolves references by name and by parameterId; values are keyed by name', () => {
    const { values, errors } = evaluateAll([
      { name: 'WIDTH', id: 'uuid_5ad2ec4b', value: '32' },
      { name: 'MASK', value: '(1 << uuid_5ad2ec4b) - 1' },
      { name: 'TOP', id: 'param-top', value: 'WIDTH - 1' },
      { name: 'TOP_PLUS', value: '\\param-top  + 1' },
      { name: 'SAME', id: 'SAME', value: '5' }, // an id equal to its own name is no clash
    ]);
    expect(errors).toEqual([]);
    expect(values).toEqual(
      new Map([['WIDTH', 32n], ['MASK', 4294967295n], ['TOP', 31n], ['TOP_PLUS', 32n], ['SAME', 5n]]),
    );
  });

  it('keeps 64-bit values exact through a chain', () => {
    const { values } = evaluateAll([
      { name: 'base', value: "64'hFFFF_FFFF_FFFF_F000" },
      { name: 'size', value: "'h1000" },
      { name: 'last', value: 'base + size - 1' },
      { name: 'bits', value: '$clog2(last + 1)' },
    ]);
    expect(values.get('last')).toBe(18446744073709551615n);
    expect(values.get('bits')).toBe(64n);
  });

  it('reports an undefined reference, a 3-cycle and a syntax error together, and evaluates the rest', () => {
    const { values, errors } = evaluateAll([
      { name: 'ok', value: '4' },
      { name: 'undef', value: 'ok + nowhere' },
      { name: 'a', value: 'b + 1' },
      { name: 'b', value: 'c * 2' },
      { name: 'c', value: 'a - ok' },
      { name: 'bad', value: 'ok +* 2' },
      { name: 'after_cycle', value: 'c + 1' },
      { name: 'after_bad', value: 'bad' },
      { name: 'fine', value: 'ok * 2' },
    ]);
    expect(errors).toEqual([
      { name: 'undef', message: 'undefined reference `nowhere` (column 6)' },
      { name: 'a', message: 'circular reference: a -> b -> c -> a' },
      {
        name: 'bad',
        message:
          'expected an operand (a number, a parameter name, `(`, a unary operator or $clog2(...)), found `*` (column 5)',
      },
      { name: 'after_cycle', message: 'not evaluated: it depends on `c`, which could not be evaluated' },
      { name: 'after_bad', message: 'not evaluated: it depends on `bad`, which could not be evaluated' },
    ]);
    expect(values).toEqual(new Map([['ok', 4n], ['fine', 8n]]));
  });

  it('starts the cycle path at the member declared first, whichever is visited first', () => {
    const { errors } = evaluateAll([
      { name: 'x', value: 'y' },
      { name: 'y', value: 'z' },
      { name: 'z', value: 'y' },
    ]);
    expect(errors).toEqual([
      { name: 'x', message: 'not evaluated: it depends on `y`, which could not be evaluated' },
      { name: 'y', message: 'circular reference: y -> z -> y' },
    ]);
  });

  it('reports a self-reference and a cycle through parameterIds, by name', () => {
    const { errors } = evaluateAll([
      { name: 'self', value: 'self + 1' },
      { name: 'p', id: 'id_p', value: 'id_q' },
      { name: 'q', id: 'id_q', value: 'id_p' },
    ]);
    expect(errors).toEqual([
      { name: 'self', message: 'circular reference: self -> self' },
      { name: 'p', message: 'circular reference: p -> q -> p' },
    ]);
  });

  it('reports every undefined reference, also in a branch that would not be taken', () => {
    const { errors } = evaluateAll([{ name: 'v', value: '0 ? one : 1 + two' }]);
    expect(errors).toEqual([
      { name: 'v', message: 'undefined reference `one` (column 5)' },
      { name: 'v', message: 'undefined reference `two` (column 15)' },
    ]);
  });

  it('reports evaluation errors with their column and goes on', () => {
    const { values, errors } = evaluateAll([
      { name: 'zero', value: '0' },
      { name: 'ratio', value: '64 / zero' },
      { name: 'depth', value: '$clog2(zero - 1)' },
      { name: 'other', value: '7' },
    ]);
    expect(errors).toEqual([
      { name: 'ratio', message: 'division by zero (column 4)' },
      { name: 'depth', message: '$clog2 of a negative value (-1) (column 1)' },
    ]);
    expect(values).toEqual(new Map([['zero', 0n], ['other', 7n]]));
  });

  it('reports a name or id used twice and keeps the first', () => {
    const { values, errors } = evaluateAll([
      { name: 'w', id: 'id_w', value: '8' },
      { name: 'w', value: '9' },
      { name: 'v', id: 'id_w', value: '10' },
      { name: 'use', value: 'w + id_w' },
    ]);
    expect(errors).toEqual([
      { name: 'w', message: '`w` already names parameter `w`' },
      { name: 'v', message: '`id_w` already names parameter `w`' },
    ]);
    expect(values.get('w')).toBe(8n);
    expect(values.get('use')).toBe(16n);
    expect(values.has('v')).toBe(false);
  });

  it('accepts an empty set', () => {
    expect(evaluateAll([])).toEqual({ values: new Map(), errors: [] });
  });
});
