/**
 * The map file of `rvtrace check`: its shape, and its ports against what a block's check reads.
 * Every bad map is one RvError naming the file and the field, with what was expected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckPorts } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { checkMapPorts, parseSignalMap, readSignalMap } from './map.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-map-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD = { clock: 'tb.clk', reset: { signal: 'tb.rst_n', active: 0 }, ports: { a_i: 'tb.u.a', b_o: 'tb.u.b' } };

/** The error of a call, as the CLI prints it (location and message). */
function error(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (!(e instanceof RvError)) throw e;
    return `${e.location.file ?? ''}|${e.location.path ?? ''}|${e.message}`;
  }
  return 'no error';
}

describe('parseSignalMap', () => {
  it('reads the clock, the reset and the ports in order', () => {
    const m = parseSignalMap(JSON.stringify(GOOD), 'm.json');
    expect(m.clock).toBe('tb.clk');
    expect(m.reset).toEqual({ signal: 'tb.rst_n', active: 0 });
    expect([...m.ports]).toEqual([['a_i', 'tb.u.a'], ['b_o', 'tb.u.b']]);
  });

  it('the reset may be left out', () => {
    expect(parseSignalMap(JSON.stringify({ clock: 'c', ports: {} }), 'm.json').reset).toBeUndefined();
  });

  const BAD: [string, string, string][] = [
    ['not JSON', '{ "clock": ', 'm.json||not JSON'],
    ['an array', '[]', 'm.json|(top level)|expected an object with "clock", "reset" and "ports"'],
    ['an unknown key', JSON.stringify({ ...GOOD, clk: 'x' }), 'm.json|clk|expected only "clock", "reset" and "ports" at the top level'],
    ['no clock', JSON.stringify({ ports: {} }), 'm.json|clock|expected a hierarchical signal name (a string)'],
    ['a reset level of 2', JSON.stringify({ ...GOOD, reset: { signal: 'r', active: 2 } }), 'm.json|reset.active|expected the level at which the reset is active, 0 or 1'],
    ['a port named by a number', JSON.stringify({ ...GOOD, ports: { a_i: 3 } }), 'm.json|ports.a_i|expected a hierarchical signal name (a string)'],
    ['no ports', JSON.stringify({ clock: 'c' }), "m.json|ports|expected an object { PORT: NAME } naming a signal for each port of the block's top"],
  ];
  it.each(BAD)('%s: one error naming the file and field', (_what, text, expected) => {
    expect(error(() => parseSignalMap(text, 'm.json'))).toContain(expected);
  });

  it('a map file that does not exist: an error naming it', () => {
    const f = join(dir, 'none.json');
    expect(error(() => readSignalMap(f))).toBe(`${f}||cannot read the map: ENOENT`);
  });
});

describe('checkMapPorts', () => {
  const take: CheckPorts = {
    ports: [
      { name: 'a_i', direction: 'in', width: 1 },
      { name: 'b_o', direction: 'out', width: 8 },
      { name: 'psel_i', direction: 'in', width: 1 },
      { name: 'penable_i', direction: 'in', width: 1 },
    ],
    required: ['a_i', 'b_o'],
    groups: [['psel_i', 'penable_i']],
  };
  const map = (ports: Record<string, string>) => parseSignalMap(JSON.stringify({ clock: 'c', ports }), 'm.json');

  it('accepts the required ports and whole groups', () => {
    expect(error(() => checkMapPorts(map({ a_i: 'x', b_o: 'y' }), take, 'm.json', 'top'))).toBe('no error');
    expect(error(() => checkMapPorts(map({ a_i: 'x', b_o: 'y', psel_i: 'p', penable_i: 'q' }), take, 'm.json', 'top'))).toBe('no error');
  });

  it('a port that is not a port of the top', () => {
    expect(error(() => checkMapPorts(map({ a_i: 'x', b_o: 'y', clk_i: 'c' }), take, 'm.json', 'top'))).toBe(
      'm.json|ports.clk_i|clk_i is not a port of top the check reads (it reads: a_i, b_o, psel_i, penable_i; the clock and reset go in "clock" and "reset")',
    );
  });

  it('a required port missing', () => {
    expect(error(() => checkMapPorts(map({ a_i: 'x' }), take, 'm.json', 'top'))).toBe('m.json|ports|the map names no signal for the port b_o of top, which the check needs');
  });

  it('half a group', () => {
    expect(error(() => checkMapPorts(map({ a_i: 'x', b_o: 'y', psel_i: 'p' }), take, 'm.json', 'top'))).toBe('m.json|ports|psel_i named without penable_i: these ports go together');
  });
});
