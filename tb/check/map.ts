/**
 * The map of `rvtrace check`: which signal of the user's waveform is each port of the block's top,
 * the clock and the reset. A JSON file:
 *
 *   { "clock": "soc_tb.u_soc.clk",
 *     "reset": { "signal": "soc_tb.u_soc.rst_n", "active": 0 },
 *     "ports": { "itype_i": "soc_tb.u_soc.u_trace_wrap.hart_itype", ... } }
 *
 * `reset` may be left out (no edge is skipped). Every problem is a one-line error naming the file
 * and the field.
 */
import { readFileSync } from 'node:fs';
import type { CheckPorts } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';

export interface SignalMap {
  readonly clock: string;
  readonly reset?: { readonly signal: string; readonly active: 0 | 1 };
  /** Port of the top -> hierarchical signal name, in the file's order. */
  readonly ports: ReadonlyMap<string, string>;
}

/** Reads and checks the shape of a map file. */
export function readSignalMap(file: string): SignalMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new RvError('io', `cannot read the map: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { file });
  }
  return parseSignalMap(text, file);
}

export function parseSignalMap(text: string, file: string): SignalMap {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RvError('bad-file', `not JSON (${(e as Error).message}); expected { "clock": NAME, "reset": { "signal": NAME, "active": 0|1 }, "ports": { PORT: NAME } }`, { file });
  }
  const bad = (path: string, expected: string): RvError => new RvError('bad-file', `expected ${expected}`, { file, path });
  if (!isObject(json)) throw bad('(top level)', 'an object with "clock", "reset" and "ports"');
  for (const k of Object.keys(json)) if (!['clock', 'reset', 'ports'].includes(k)) throw bad(k, 'only "clock", "reset" and "ports" at the top level');
  const name = (v: unknown, path: string): string => {
    if (typeof v !== 'string' || v.trim() === '') throw bad(path, 'a hierarchical signal name (a string)');
    return v;
  };
  const clock = name(json['clock'], 'clock');
  let reset: SignalMap['reset'];
  if (json['reset'] !== undefined) {
    const r = json['reset'];
    if (!isObject(r)) throw bad('reset', '{ "signal": NAME, "active": 0|1 }');
    if (r['active'] !== 0 && r['active'] !== 1) throw bad('reset.active', 'the level at which the reset is active, 0 or 1');
    reset = { signal: name(r['signal'], 'reset.signal'), active: r['active'] };
  }
  const p = json['ports'];
  if (!isObject(p)) throw bad('ports', 'an object { PORT: NAME } naming a signal for each port of the block\'s top');
  const ports = new Map<string, string>();
  for (const [k, v] of Object.entries(p)) ports.set(k, name(v, `ports.${k}`));
  return { clock, ...(reset ? { reset } : {}), ports };
}

/**
 * Checks the map's ports against what the block's check takes: every name a port of the top (not
 * the clock or reset, given apart), every required port present, groups whole.
 */
export function checkMapPorts(map: SignalMap, take: CheckPorts, file: string, top: string): void {
  const known = new Set(take.ports.map((p) => p.name));
  for (const port of map.ports.keys()) {
    if (!known.has(port)) {
      throw new RvError('bad-value', `${port} is not a port of ${top} the check reads (it reads: ${take.ports.map((q) => q.name).join(', ')}; the clock and reset go in "clock" and "reset")`, { file, path: `ports.${port}` });
    }
  }
  const missing = take.required.filter((q) => !map.ports.has(q));
  if (missing.length > 0) throw new RvError('bad-value', `the map names no signal for ${missing.length > 1 ? 'the ports' : 'the port'} ${missing.join(', ')} of ${top}, which the check needs`, { file, path: 'ports' });
  for (const g of take.groups ?? []) {
    const named = g.filter((q) => map.ports.has(q));
    if (named.length > 0 && named.length < g.length) {
      throw new RvError('bad-value', `${named.join(', ')} named without ${g.filter((q) => !map.ports.has(q)).join(', ')}: these ports go together`, { file, path: 'ports' });
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
