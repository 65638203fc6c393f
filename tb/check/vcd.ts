/**
 * A streaming VCD reader for `rvtrace check`: it reads the header (scopes, `$var`s with their
 * hierarchical names, widths and id codes), then the value changes in chunks from a read stream,
 * keeping only the signals asked for, and samples them once per rising edge of a clock. Memory
 * does not grow with the file: one chunk, the header's variables and the values of the signals
 * asked for.
 *
 * Sampling convention (that of a flop): a rising edge at time T sees every signal as it was before
 * time T. A signal that changes at the same timestamp as the rising edge is NOT seen by that edge
 * (a testbench or a flop drives it after the edge); the co-simulation harness and the vectors
 * testbench set inputs at least one time unit before the edge, so they are seen. A rising edge is
 * a change of the clock from 0 (or x/z) to 1 within a timestamp.
 *
 * Reset: the edges where the reset signal, sampled the same way, is at its active level are
 * skipped; cycle 0 is the first edge out of reset. A reset asserted again after cycle 0 is an
 * error (the check models one run from reset).
 *
 * x and z bits are read as 0; the samples (out of reset) in which a signal had any are counted per
 * signal and reported (`VcdSummary.unknown`).
 */
import type { Readable } from 'node:stream';
import { RvError } from '../../golden-model/common/errors.ts';

/** One `$var` of the header. */
export interface VcdVar {
  /** Hierarchical name: the scopes and the reference joined with dots, without a bit range. */
  readonly name: string;
  readonly width: number;
  readonly id: string;
}

/** A signal to sample: its hierarchical name, and the width it must have (what names it in messages). */
export interface VcdRequest {
  readonly name: string;
  readonly width: number;
  /** How the caller calls it ("port itype_i"), for error messages. */
  readonly what: string;
}

export interface VcdSampling {
  /** The VCD file as the user named it (messages). */
  readonly file: string;
  readonly clock: string;
  readonly reset?: { readonly signal: string; readonly active: 0 | 1 };
  readonly signals: readonly VcdRequest[];
}

export interface VcdSummary {
  /** Cycles out of reset sampled. */
  readonly cycles: number;
  /** Rising edges in reset (skipped). */
  readonly resetCycles: number;
  /** Per requested signal with x/z bits in some sample: how many samples. */
  readonly unknown: readonly { readonly name: string; readonly samples: number }[];
  /** The time of the last value change read (as the file writes it). */
  readonly lastTime: string;
  readonly timescale: string;
}

/**
 * Called at each rising edge out of reset with the requested signals' values, in request order
 * (the array is reused: copy what you keep), the cycle number and the edge's time.
 */
export type OnCycle = (values: readonly bigint[], cycle: number, time: string) => void;

/** The header's name for a `$var`: the reference without its bit range (`data [7:0]`, `data[7:0]`). */
function referenceName(tokens: readonly string[]): string {
  return tokens.join('').replace(/\[[^\]]*\]$/, '');
}

/**
 * Finds a requested name among the header's variables. A Verilator waveform puts every scope
 * under `TOP`: a name without it is found with it too.
 */
function lookup(vars: ReadonlyMap<string, VcdVar>, name: string): VcdVar | undefined {
  return vars.get(name) ?? vars.get(`TOP.${name}`);
}

/** Reads `input` (a VCD) and calls `onCycle` at every rising edge of the clock out of reset. */
export async function readVcd(input: Readable, sampling: VcdSampling, onCycle: OnCycle): Promise<VcdSummary> {
  const reader = new VcdReader(sampling, onCycle);
  input.setEncoding('latin1');
  try {
    for await (const chunk of input as AsyncIterable<string>) reader.feed(chunk);
  } finally {
    input.destroy();
  }
  return reader.end();
}

/** Reads VCD text given whole (tests, small files). */
export function readVcdText(text: string, sampling: VcdSampling, onCycle: OnCycle): VcdSummary {
  const reader = new VcdReader(sampling, onCycle);
  reader.feed(text);
  return reader.end();
}

const CH_HASH = 35; // '#'
const CH_DOLLAR = 36; // '$'

class VcdReader {
  /** The unfinished token at the end of the last chunk. */
  private rest = '';
  private inHeader = true;
  /** Header tokens of the declaration being read, up to its `$end`. */
  private decl: string[] = [];
  private readonly scopes: string[] = [];
  private readonly vars = new Map<string, VcdVar>();
  private timescale = '';

  /** id code -> slot (several requested names may share a variable). */
  private ids = new Map<string, number>();
  /** Per slot: the value and whether it has x/z bits, as of the end of the last timestamp. */
  private value: bigint[] = [];
  private unknownNow: boolean[] = [];
  private widths: number[] = [];
  /** Per request: its slot. */
  private slotOf: number[] = [];
  private clockSlot = 0;
  private resetSlot = -1;
  /** The changes of the current timestamp: slot, value, unknown. */
  private pendSlot: number[] = [];
  private pendValue: bigint[] = [];
  private pendUnknown: boolean[] = [];
  /** A `b`/`r` value waiting for its id code. */
  private vector: string | undefined;
  /** Inside `$comment ... $end` after the header. */
  private skipping = false;
  private time = '0';

  private cycle = 0;
  private resetCycles = 0;
  private readonly sample: bigint[];
  private readonly unknownSamples: number[];

  constructor(
    private readonly sampling: VcdSampling,
    private readonly onCycle: OnCycle,
  ) {
    this.sample = sampling.signals.map(() => 0n);
    this.unknownSamples = sampling.signals.map(() => 0);
  }

  feed(chunk: string): void {
    const text = this.rest + chunk;
    const n = text.length;
    let i = 0;
    // The last token may continue in the next chunk: it is kept back unless whitespace ends it.
    let last = n;
    while (last > 0 && !isSpace(text.charCodeAt(last - 1))) last--;
    while (i < last) {
      while (i < last && isSpace(text.charCodeAt(i))) i++;
      if (i >= last) break;
      let j = i + 1;
      while (j < last && !isSpace(text.charCodeAt(j))) j++;
      this.token(text.slice(i, j));
      i = j;
    }
    this.rest = text.slice(last);
  }

  end(): VcdSummary {
    if (this.rest !== '') this.token(this.rest);
    this.rest = '';
    if (this.inHeader) throw new RvError('bad-file', 'no $enddefinitions: not a VCD file, or it ends inside its header', { file: this.sampling.file });
    this.endTimestamp();
    return {
      cycles: this.cycle,
      resetCycles: this.resetCycles,
      unknown: this.sampling.signals.flatMap((s, k) => (this.unknownSamples[k]! > 0 ? [{ name: s.name, samples: this.unknownSamples[k]! }] : [])),
      lastTime: this.time,
      timescale: this.timescale,
    };
  }

  private token(t: string): void {
    if (this.inHeader) return this.headerToken(t);
    if (this.skipping) {
      if (t === '$end') this.skipping = false;
      return;
    }
    if (this.vector !== undefined) {
      const v = this.vector;
      this.vector = undefined;
      const slot = this.ids.get(t);
      if (slot !== undefined) this.change(slot, v);
      return;
    }
    const c = t.charCodeAt(0);
    if (c === CH_HASH) {
      this.endTimestamp();
      this.time = t.slice(1);
      return;
    }
    if (c === CH_DOLLAR) {
      // $dumpvars/$dumpall/$dumpon/$dumpoff and their $end frame ordinary value changes.
      if (t === '$comment') this.skipping = true;
      return;
    }
    if (c === 98 || c === 66 || c === 114 || c === 82) {
      // b/B (vector) or r/R (real): the id code is the next token.
      this.vector = t;
      return;
    }
    // A scalar: value character and id code in one token.
    const slot = this.ids.get(t.slice(1));
    if (slot !== undefined) this.change(slot, t.slice(0, 1));
  }

  /** Records a change of `slot` to the VCD value `v` (`1`, `x`, `b0101`, `r1.5`). */
  private change(slot: number, v: string): void {
    let bits = v.charCodeAt(0) === 98 || v.charCodeAt(0) === 66 ? v.slice(1) : v;
    let unknown = false;
    if (v.charCodeAt(0) === 114 || v.charCodeAt(0) === 82) {
      // A real variable: its integer part (a requested port is never a real in practice).
      bits = (BigInt(Math.trunc(Number(v.slice(1)))) & ((1n << BigInt(this.widths[slot]!)) - 1n)).toString(2);
    } else if (/[^01]/.test(bits)) {
      unknown = true;
      bits = bits.replace(/[^01]/g, '0');
    }
    this.pendSlot.push(slot);
    this.pendValue.push(bits.length <= 30 ? BigInt(parseInt(bits, 2)) : BigInt(`0b${bits}`));
    this.pendUnknown.push(unknown);
  }

  /** The end of a timestamp: a rising edge in it samples the values before it; then its changes apply. */
  private endTimestamp(): void {
    const n = this.pendSlot.length;
    if (n === 0) return;
    let clockNew = -1n;
    for (let k = 0; k < n; k++) if (this.pendSlot[k] === this.clockSlot) clockNew = this.pendValue[k]! & 1n;
    const clockOld = this.unknownNow[this.clockSlot] ? 0n : this.value[this.clockSlot]! & 1n;
    if (clockNew === 1n && clockOld === 0n) this.edge();
    for (let k = 0; k < n; k++) {
      this.value[this.pendSlot[k]!] = this.pendValue[k]!;
      this.unknownNow[this.pendSlot[k]!] = this.pendUnknown[k]!;
    }
    this.pendSlot.length = 0;
    this.pendValue.length = 0;
    this.pendUnknown.length = 0;
  }

  private edge(): void {
    const reset = this.sampling.reset;
    if (reset !== undefined) {
      const level = this.value[this.resetSlot]! & 1n;
      if (Number(level) === reset.active) {
        if (this.cycle > 0) {
          throw new RvError('bad-value', `${reset.signal} is active again at time ${this.time} (after ${this.cycle} cycles out of reset): the check models one run from reset`, { file: this.sampling.file });
        }
        this.resetCycles++;
        return;
      }
    }
    const slots = this.slotOf;
    for (let k = 0; k < slots.length; k++) {
      this.sample[k] = this.value[slots[k]!]!;
      if (this.unknownNow[slots[k]!]) this.unknownSamples[k]!++;
    }
    this.onCycle(this.sample, this.cycle, this.time);
    this.cycle++;
  }

  private headerToken(t: string): void {
    this.decl.push(t);
    if (t !== '$end') return;
    const d = this.decl;
    this.decl = [];
    switch (d[0]) {
      case '$scope':
        // $scope <kind> <name> $end
        this.scopes.push(d[2] ?? '');
        break;
      case '$upscope':
        this.scopes.pop();
        break;
      case '$var': {
        // $var <type> <size> <id> <reference> [range] $end
        const width = Number(d[2]);
        const name = [...this.scopes, referenceName(d.slice(4, -1))].join('.');
        if (!this.vars.has(name)) this.vars.set(name, { name, width, id: d[3]! });
        break;
      }
      case '$timescale':
        this.timescale = d.slice(1, -1).join(' ');
        break;
      case '$enddefinitions':
        this.inHeader = false;
        this.resolve();
        break;
      default:
        // $date, $version, $comment: nothing the check needs.
        break;
    }
  }

  /** The header is read: every requested signal must be in it, with the width asked for. */
  private resolve(): void {
    const file = this.sampling.file;
    const slotOfId = new Map<string, number>();
    const slot = (name: string, what: string, width: number | undefined): number => {
      const v = lookup(this.vars, name);
      if (v === undefined) throw new RvError('bad-value', `${what}: no signal ${name} in the VCD`, { file });
      if (width !== undefined && v.width !== width) throw new RvError('bad-value', `${what}: ${name} is ${v.width} bits wide in the VCD, the port has ${width}`, { file });
      let s = slotOfId.get(v.id);
      if (s === undefined) {
        s = this.widths.length;
        slotOfId.set(v.id, s);
        this.widths.push(v.width);
        this.value.push(0n);
        // Nothing dumped yet reads as x.
        this.unknownNow.push(true);
      }
      return s;
    };
    this.clockSlot = slot(this.sampling.clock, 'the clock', 1);
    if (this.sampling.reset) this.resetSlot = slot(this.sampling.reset.signal, 'the reset', 1);
    this.slotOf = this.sampling.signals.map((s) => slot(s.name, s.what, s.width));
    this.ids = slotOfId;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
