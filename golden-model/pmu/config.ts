/**
 * The configuration of the PMU block: the hardware counter block of the privileged architecture
 * (mcycle, minstret, mhpmcounter3..31 with their mhpmevent selectors, the counter-enable and
 * inhibit registers, Sscofpmf and Smcntrpmf) and the platform description the SBI PMU firmware
 * layer works from (the device-tree event maps). ../shared/design/pmu.md lists the parameters;
 * docs/pmu-model.md explains each choice.
 *
 * Events: an hpm counter counts the event its mhpmevent selector names. Which selector value means
 * which event is the component's `events` map, `SELECTOR=EVENT` items separated by commas, e.g.
 * `0x1=cycles,0x2=instructions,0x10019=input5`. The events a block can count:
 * - from the retirement stream, per record: `instructions` (retired, not trapping), `branches`
 *   (conditional branches retired, taken or not), `taken_branches`, `calls`, `returns`, `jumps`
 *   (every other jump), `exceptions`, `interrupts`, `trap_returns` (xRET);
 * - `cycles`: every clock the hart is not halted;
 * - `input<k>`: event input k (0 <= k < eventInputs), one count per cycle in which it is high
 *   (a cache or TLB miss, a mispredicted branch: what the core knows and the stream does not).
 */
import { RvError } from '../common/errors.ts';

/** The events a selector can name besides the event inputs. */
export const STREAM_EVENTS = ['cycles', 'instructions', 'branches', 'taken_branches', 'calls', 'returns', 'jumps', 'exceptions', 'interrupts', 'trap_returns'] as const;
export type StreamEvent = (typeof STREAM_EVENTS)[number];

/** What a selector value counts: a stream event, or event input `input`. */
export type PmuEvent = { readonly kind: 'stream'; readonly name: StreamEvent } | { readonly kind: 'input'; readonly input: number };

/** One item of the event map. */
export interface EventMapping {
  readonly selector: bigint;
  readonly event: PmuEvent;
}

/** How a write to an mhpmevent selector is legalised (WARL). */
export type EventLegalisation =
  /** The selector keeps its low `eventBits` bits. */
  | 'mask'
  /** Masked to `eventBits` bits, then values above `eventMax` become `eventMax`. */
  | 'clamp'
  /**
   * Read-only: mhpmevent<n>'s selector is hard-wired to the selector of the (n-3)-th item of the
   * event map (0 past its end); writes change only the Sscofpmf bits.
   */
  | 'hardwired';

/** Which answers the SBI firmware model gives where OpenSBI 1.9 and the SBI text differ (pmu.md). */
export type SbiBehaviour = 'opensbi-1.9' | 'spec';

/** One entry of `riscv,event-to-mhpmcounters`: events first..last may use the counters of `counters`. */
export interface EventCounterRange {
  readonly first: number;
  readonly last: number;
  /** Bit i: counter i (0 mcycle, 2 minstret, 3..31 mhpmcounter). */
  readonly counters: number;
}

/** One entry of `riscv,event-to-mhpmevent`: the selector the firmware writes for an event. */
export interface EventSelector {
  readonly event: number;
  readonly selector: bigint;
}

/** One entry of `riscv,raw-event-to-mhpmcounters`: raw events with (data & mask) == selector. */
export interface RawEventCounters {
  readonly selector: bigint;
  readonly mask: bigint;
  readonly counters: number;
}

export interface PmuConfig {
  readonly xlen: 32 | 64;
  readonly sMode: boolean;
  readonly uMode: boolean;
  readonly hExt: boolean;
  /** Bit n (3..31): mhpmcounter<n> is implemented; other bits are 0. */
  readonly counterMask: number;
  /** Implemented bits of every mhpmcounter (mcycle and minstret are always 64 bits). */
  readonly counterWidth: number;
  readonly sscofpmf: boolean;
  readonly smcntrpmf: boolean;
  /** Implemented selector bits of mhpmevent (bits eventBits-1..0). */
  readonly eventBits: number;
  readonly eventLegalisation: EventLegalisation;
  /** The largest selector with `clamp`. */
  readonly eventMax: bigint;
  /** Event inputs of the block (`event_i` bits). */
  readonly eventInputs: number;
  /** Selector value -> event, in the order the component lists them. */
  readonly events: readonly EventMapping[];

  // --- the platform as the SBI firmware sees it (component data, model only)
  readonly sbiBehaviour: SbiBehaviour;
  /** Firmware counters the firmware offers after the hardware counters. */
  readonly firmwareCounters: number;
  readonly eventToCounters: readonly EventCounterRange[];
  readonly eventToSelector: readonly EventSelector[];
  readonly rawEventToCounters: readonly RawEventCounters[];
}

/** Bit n of a counter bitmap: counter n (0 mcycle, 1 time, 2 minstret, 3..31 mhpmcounter). */
export const CY = 0;
export const TM = 1;
export const IR = 2;

/** The mhpmcounter indices a configuration implements, ascending. */
export function hpmCounters(c: PmuConfig): number[] {
  const out: number[] = [];
  for (let n = 3; n < 32; n++) if ((c.counterMask >>> n) & 1) out.push(n);
  return out;
}

/** Bits of the counter-enable and inhibit registers that exist: CY, IR and the implemented counters (TM separately). */
export function implementedCounterBits(c: PmuConfig): number {
  return ((c.counterMask & ~7) | (1 << CY) | (1 << IR)) >>> 0;
}

/** The event a selector names, or undefined (the counter then counts nothing). */
export function eventOf(c: PmuConfig, selector: bigint): PmuEvent | undefined {
  return c.events.find((m) => m.selector === selector)?.event;
}

export function eventName(e: PmuEvent): string {
  return e.kind === 'stream' ? e.name : `input${e.input}`;
}

function err(param: string, message: string): RvError {
  return new RvError('invalid-component', message, { path: `parameters/${param}` });
}

const NUMBER = /^(0x[0-9a-f]+|\d+)$/i;

/** `SELECTOR=EVENT,...` -> the map; the problems found, each naming the item. */
export function parseEventMap(text: string): { events: EventMapping[]; problems: string[] } {
  const events: EventMapping[] = [];
  const problems: string[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const m = /^([^=\s]+)\s*=\s*(\S+)$/.exec(item);
    if (!m || !NUMBER.test(m[1]!)) {
      problems.push(`item '${item}': expected SELECTOR=EVENT (a number = an event name)`);
      continue;
    }
    const selector = BigInt(m[1]!);
    const name = m[2]!;
    const input = /^input(\d+)$/.exec(name);
    let event: PmuEvent | undefined;
    if (input) event = { kind: 'input', input: Number(input[1]) };
    else if ((STREAM_EVENTS as readonly string[]).includes(name)) event = { kind: 'stream', name: name as StreamEvent };
    if (event === undefined) {
      problems.push(`item '${item}': unknown event ${name}; expected one of ${STREAM_EVENTS.join(', ')}, input<k>`);
      continue;
    }
    if (selector === 0n) problems.push(`item '${item}': selector 0 means no event (priv spec)`);
    else if (events.some((e) => e.selector === selector)) problems.push(`item '${item}': selector ${m[1]} is mapped twice`);
    else events.push({ selector, event });
  }
  return { events, problems };
}

/**
 * The cells of a device-tree property as a component writes it: `<0x01 0x01 0x7fff9 ...>` (the
 * angle brackets optional), split into entries of `width` cells.
 */
export function parseCells(text: string, width: number): { entries: bigint[][]; problems: string[] } {
  const body = text.trim().replace(/^</, '').replace(/>$/, '').trim();
  if (body === '') return { entries: [], problems: [] };
  const cells = body.split(/\s+/);
  const bad = cells.find((c) => !NUMBER.test(c) || BigInt(c) > 0xffffffffn);
  if (bad !== undefined) return { entries: [], problems: [`cell '${bad}': expected a 32-bit number (decimal or 0x hex)`] };
  if (cells.length % width !== 0) return { entries: [], problems: [`${cells.length} cells: expected a multiple of ${width} (entries of ${width} cells)`] };
  const entries: bigint[][] = [];
  for (let i = 0; i < cells.length; i += width) entries.push(cells.slice(i, i + width).map((c) => BigInt(c)));
  return { entries, problems: [] };
}

/** The raw setting values the configuration is built from (settings.ts). */
export interface PmuMapTexts {
  readonly events: string;
  readonly eventToCounters: string;
  readonly eventToSelector: string;
  readonly rawEventToCounters: string;
}

/** The platform maps from their device-tree texts (problems reported by `validatePmuMaps`). */
export function parsePlatformMaps(t: PmuMapTexts): Pick<PmuConfig, 'events' | 'eventToCounters' | 'eventToSelector' | 'rawEventToCounters'> {
  return {
    events: parseEventMap(t.events).events,
    eventToCounters: parseCells(t.eventToCounters, 3).entries.map(([a, b, m]) => ({ first: Number(a), last: Number(b), counters: Number(m) })),
    eventToSelector: parseCells(t.eventToSelector, 3).entries.map(([e, hi, lo]) => ({ event: Number(e), selector: (hi! << 32n) | lo! })),
    rawEventToCounters: parseCells(t.rawEventToCounters, 5).entries.map(([sh, sl, mh, ml, m]) => ({ selector: (sh! << 32n) | sl!, mask: (mh! << 32n) | ml!, counters: Number(m) })),
  };
}

/** Every problem of a configuration and its map texts, each naming the parameter and what is allowed. */
export function validatePmuConfig(c: PmuConfig, t: PmuMapTexts): RvError[] {
  const errors: RvError[] = [];
  if (c.sMode && !c.uMode) errors.push(err('uMode', 'uMode is false but sMode is true; allowed: S-mode only together with U-mode'));
  if (c.hExt && !c.sMode) errors.push(err('hExt', 'hExt is true but sMode is false; allowed: the H extension only with S-mode'));
  if ((c.counterMask & 7) !== 0) errors.push(err('counterMask', `counterMask is 0x${c.counterMask.toString(16)}; allowed: bits 3..31 only (bits 0-2 are mcycle, time and minstret)`));
  const maxBits = c.xlen === 32 && !c.sscofpmf ? 32 : c.sscofpmf ? 56 : 64;
  if (c.eventBits > maxBits) {
    errors.push(err('eventBits', `eventBits is ${c.eventBits}; allowed: at most ${maxBits} (${c.sscofpmf ? 'Sscofpmf uses bits 63..56' : 'RV32 without Sscofpmf has no mhpmeventh'})`));
  }
  if (c.eventLegalisation === 'clamp' && (c.eventMax === 0n || c.eventMax >= 1n << BigInt(c.eventBits))) {
    errors.push(err('eventMax', `eventMax is 0x${c.eventMax.toString(16)}; allowed with eventLegalisation "clamp": 1..2^eventBits-1`));
  }
  const em = parseEventMap(t.events);
  for (const p of em.problems) errors.push(err('events', `events: ${p}`));
  for (const m of em.events) {
    if (m.event.kind === 'input' && m.event.input >= c.eventInputs) errors.push(err('events', `events: input${m.event.input} does not exist; allowed: input0..input${c.eventInputs - 1} (eventInputs = ${c.eventInputs})`));
    if (m.selector >= 1n << BigInt(c.eventBits)) errors.push(err('events', `events: selector 0x${m.selector.toString(16)} does not fit eventBits = ${c.eventBits}`));
  }
  const cells: [keyof PmuMapTexts, number][] = [['eventToCounters', 3], ['eventToSelector', 3], ['rawEventToCounters', 5]];
  for (const [name, width] of cells) for (const p of parseCells(t[name], width).problems) errors.push(err(name, `${name}: ${p}`));
  for (const r of c.eventToCounters) {
    if (r.first > r.last) errors.push(err('eventToCounters', `eventToCounters: entry 0x${r.first.toString(16)} 0x${r.last.toString(16)}: the first event is after the last`));
  }
  return errors;
}
