/**
 * The gates-vs-bits entries: which configurations get a cell count, which are reused from the
 * bench's own counts, and which say that their RTL does not exist yet (never a made-up number).
 */
import { describe, expect, it } from 'vitest';
import { resolveComponent } from '../blocks/index.ts';
import { efficiencyGates } from './gates.ts';

const resolve = (name: string) => resolveComponent(name, [], { command: 'test' });

describe('efficiency gates', () => {
  it('--no-synth: every configuration listed, none counted', () => {
    const g = efficiencyGates({ synth: false, resolve });
    expect(g.map((e) => [e.encoder, e.mode, e.cells])).toEqual([
      ['E-Trace', 'baseline', null],
      ['E-Trace', 'all', null],
      ['N-Trace', 'BTM', null],
      ['N-Trace', 'HTM', null],
      ['N-Trace', 'HTM + call stack', null],
      ['N-Trace', 'HTM + call stack + repeat', null],
    ]);
    expect(g.every((e) => e.note === 'not counted (--no-synth)')).toBe(true);
  });

  it('with Yosys: E-Trace cells reused from the run, N-Trace BTM and HTM synthesised from generated RTL', { timeout: 600_000 }, () => {
    // BTM and HTM only: each synthesis takes a minute or more.
    const g = efficiencyGates({ synth: true, resolve, known: new Map([['etrace', 11], ['etrace-rv64-full', 22]]), ntraceModes: ['BTM', 'HTM'] });
    expect(g.map((e) => e.cells).slice(0, 2)).toEqual([11, 22]);
    const [btm, htm] = [g[2]!, g[3]!];
    expect(btm.cells).toBeGreaterThan(1000);
    // HTM holds HIST (a 32-bit register and its message field) on top of what BTM has.
    expect(htm.cells).toBeGreaterThan(btm.cells!);
    expect(g[4]!.cells).toBeNull();
  });
});
