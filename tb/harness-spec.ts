/**
 * The description of a DUT that the generic Verilator co-simulation harness drives: its ports, which
 * of them are the clock, the reset, the hold (stall) output and the harness-driven ready inputs, and
 * which port values to capture on which clock edges. From it follow the C++ harness (harness.ts),
 * the frame layout of the stimulus stream (frameLayout below) and the record layout of the captures.
 *
 * See tb/README.md for the wire format and the per-cycle behaviour.
 */
import { createHash } from 'node:crypto';
import { RvError } from '../golden-model/common/errors.ts';

export interface HarnessPort {
  name: string;
  direction: 'in' | 'out';
  /** 1..512 */
  width: number;
}

export interface HarnessSpec {
  /** Top module name. */
  top: string;
  /** All ports in declaration order, including clock and reset. */
  ports: HarnessPort[];
  /** Clock input (the DUT samples on its rising edge), e.g. `clk_i`. */
  clock: string;
  /** Asynchronous active-low reset input, e.g. `rst_ni`. */
  reset: string;
  /**
   * Optional 1-bit output: when it is 1 in a cycle (sampled before the rising edge), the DUT did not
   * take that cycle's frame and the harness applies the same frame again in the next cycle.
   */
  hold?: string;
  /**
   * Optional 1-bit inputs driven by the harness itself: 0 while cycle < readyOffset, then
   * 1 unless cycleChance(seed, cycle - readyOffset, readyChance).
   */
  ready?: string[];
  /**
   * At each rising clock edge where every `when` port has the given value, record the capture's
   * index, the cycle and the values of its `data` ports (all sampled before the edge).
   */
  captures: HarnessCapture[];
}

export interface HarnessCapture {
  name: string;
  when: { port: string; value: 0 | 1 }[];
  data: string[];
  /**
   * A stream capture (tb/README.md, "Stream captures"): `data` is one port, a beat of bytes (byte 0
   * in bits 7:0) of which the low `count` bytes are valid (`count` a port of at most 8 bits, the
   * byte count; without it every byte of the port). Instead of a record per capture, the harness
   * appends the valid bytes to a byte stream and, for every cycle, the number of bytes it appended
   * (0 when the condition is false) to a second stream, and sends both in chunks. A beat that
   * breaks the rule (count 0 or above the port's bytes, or bits set at or above the count) is also
   * sent as an ordinary capture record of the data and count ports.
   */
  stream?: { count?: string };
}

/** Where one input port sits in a stimulus frame. */
export interface FrameSlot {
  readonly name: string;
  readonly width: number;
  /** Byte offset in the frame. */
  readonly offset: number;
  /** ceil(width / 8) */
  readonly bytes: number;
}

export interface FrameLayout {
  readonly slots: readonly FrameSlot[];
  readonly frameBytes: number;
}

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
export const MAX_PORT_WIDTH = 512;
export const MAX_CAPTURES = 65535;

function bad(message: string, path: string): RvError {
  return new RvError('bad-value', `harness spec: ${message}`, { path });
}

/** Checks a spec; throws an RvError (code `bad-value`) naming the first problem. */
export function checkSpec(spec: HarnessSpec): void {
  if (!NAME.test(spec.top) || spec.top.includes('__')) throw bad(`top module name '${spec.top}' is not a plain identifier`, 'top');
  const byName = new Map<string, HarnessPort>();
  spec.ports.forEach((p, i) => {
    if (!NAME.test(p.name) || p.name.includes('__')) throw bad(`port name '${p.name}' is not a plain identifier without '__'`, `ports/${i}`);
    if (byName.has(p.name)) throw bad(`port '${p.name}' is declared twice`, `ports/${i}`);
    if (p.direction !== 'in' && p.direction !== 'out') throw bad(`port '${p.name}' has direction '${String(p.direction)}'`, `ports/${i}`);
    if (!Number.isInteger(p.width) || p.width < 1 || p.width > MAX_PORT_WIDTH) {
      throw bad(`port '${p.name}' has width ${p.width}; widths are 1..${MAX_PORT_WIDTH}`, `ports/${i}`);
    }
    byName.set(p.name, p);
  });
  const port = (name: string, path: string): HarnessPort => {
    const p = byName.get(name);
    if (p === undefined) throw bad(`'${name}' is not a port of ${spec.top}`, path);
    return p;
  };
  const oneBitIn = (name: string, path: string, role: string): void => {
    const p = port(name, path);
    if (p.direction !== 'in' || p.width !== 1) throw bad(`the ${role} '${name}' must be a 1-bit input`, path);
  };
  oneBitIn(spec.clock, 'clock', 'clock');
  oneBitIn(spec.reset, 'reset', 'reset');
  if (spec.clock === spec.reset) throw bad('clock and reset are the same port', 'reset');
  if (spec.hold !== undefined) {
    const h = port(spec.hold, 'hold');
    if (h.direction !== 'out' || h.width !== 1) throw bad(`the hold port '${spec.hold}' must be a 1-bit output`, 'hold');
  }
  const ready = spec.ready ?? [];
  ready.forEach((r, i) => {
    oneBitIn(r, `ready/${i}`, 'ready port');
    if (r === spec.clock || r === spec.reset) throw bad(`'${r}' cannot be both a ready port and the clock or reset`, `ready/${i}`);
    if (ready.indexOf(r) !== i) throw bad(`ready port '${r}' is listed twice`, `ready/${i}`);
  });
  if (spec.captures.length > MAX_CAPTURES) throw bad(`more than ${MAX_CAPTURES} captures`, 'captures');
  spec.captures.forEach((c, i) => {
    c.when.forEach((w, j) => {
      const p = port(w.port, `captures/${i}/when/${j}`);
      if (w.port === spec.clock) throw bad('a capture condition cannot test the clock', `captures/${i}/when/${j}`);
      if (p.width !== 1) throw bad(`capture condition port '${w.port}' must be 1 bit wide`, `captures/${i}/when/${j}`);
      if (w.value !== 0 && w.value !== 1) throw bad(`capture condition value must be 0 or 1`, `captures/${i}/when/${j}`);
    });
    c.data.forEach((d, j) => {
      port(d, `captures/${i}/data/${j}`);
    });
    if (c.stream !== undefined) {
      if (c.data.length !== 1) throw bad(`the stream capture '${c.name}' must have exactly one data port, not ${c.data.length}`, `captures/${i}/data`);
      const count = c.stream.count;
      if (count !== undefined) {
        const p = port(count, `captures/${i}/stream/count`);
        if (p.width > 8) throw bad(`the byte count port '${count}' of the stream capture '${c.name}' is ${p.width} bits wide; at most 8`, `captures/${i}/stream/count`);
      }
    }
  });
}

/** The ports a capture record carries: the data ports, and a stream capture's count port after them. */
export function captureRecordPorts(c: HarnessCapture): string[] {
  return c.stream?.count !== undefined ? [...c.data, c.stream.count] : c.data;
}

/** The frame layout: every input except clock, reset and ready ports, in declaration order. */
export function frameLayout(spec: HarnessSpec): FrameLayout {
  const skip = new Set([spec.clock, spec.reset, ...(spec.ready ?? [])]);
  const slots: FrameSlot[] = [];
  let offset = 0;
  for (const p of spec.ports) {
    if (p.direction !== 'in' || skip.has(p.name)) continue;
    const bytes = Math.ceil(p.width / 8);
    slots.push({ name: p.name, width: p.width, offset, bytes });
    offset += bytes;
  }
  return { slots, frameBytes: offset };
}

/** Bytes of one capture record's data (the values of its data ports, ceil(width/8) each). */
export function captureDataBytes(spec: HarnessSpec): number[] {
  const width = new Map(spec.ports.map((p) => [p.name, p.width]));
  return spec.captures.map((c) => captureRecordPorts(c).reduce((n, d) => n + Math.ceil(width.get(d)! / 8), 0));
}

/**
 * 64 bits (16 hex digits) of the sha256 of the spec in a canonical form: compiled into the harness
 * and sent in the stream header, so a binary built for another spec refuses the stream.
 */
export function specHash(spec: HarnessSpec): string {
  const canonical = {
    top: spec.top,
    ports: spec.ports.map((p) => [p.name, p.direction, p.width]),
    clock: spec.clock,
    reset: spec.reset,
    hold: spec.hold ?? null,
    ready: spec.ready ?? [],
    // A stream capture adds its options; the others keep the form (and hash) they had before.
    captures: spec.captures.map((c) => [c.name, c.when.map((w) => [w.port, w.value]), c.data, ...(c.stream !== undefined ? [{ stream: c.stream.count ?? null }] : [])]),
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}
