/**
 * `perf stat` for the PMU model: program every counter with one event of the component's map (the
 * order of the map, mcycle and minstret for cycles and instructions), run a retirement stream
 * through the counter block, read every counter back through M-mode CSR accesses, and name what
 * was counted the way perf and the SBI spec do. Everything goes through `PmuUnit.step`, as firmware
 * would program the hardware.
 */
import type { PmuCsrAccess, PmuCycleInput } from './access.ts';
import { eventName, eventOf, hpmCounters, type PmuConfig, type PmuEvent } from './config.ts';
import { CSR } from './csr-map.ts';
import { emptyRecord, type RetirementRecord } from '../hart/records.ts';
import { selectorMask } from './registers.ts';
import { EventType, FW_EVENTS, PmuFid, Eid } from './sbi/constants.ts';
import type { SbiPmuFirmware } from './sbi/firmware.ts';
import { PmuUnit } from './unit.ts';

/** perf's names of the SBI hardware events (SBI PMU spec, table "hardware general events"). */
const HW_EVENTS: Readonly<Record<number, [sbi: string, perf: string]>> = {
  1: ['SBI_PMU_HW_CPU_CYCLES', 'cycles'],
  2: ['SBI_PMU_HW_INSTRUCTIONS', 'instructions'],
  3: ['SBI_PMU_HW_CACHE_REFERENCES', 'cache-references'],
  4: ['SBI_PMU_HW_CACHE_MISSES', 'cache-misses'],
  5: ['SBI_PMU_HW_BRANCH_INSTRUCTIONS', 'branches'],
  6: ['SBI_PMU_HW_BRANCH_MISSES', 'branch-misses'],
  7: ['SBI_PMU_HW_BUS_CYCLES', 'bus-cycles'],
  8: ['SBI_PMU_HW_STALLED_CYCLES_FRONTEND', 'stalled-cycles-frontend'],
  9: ['SBI_PMU_HW_STALLED_CYCLES_BACKEND', 'stalled-cycles-backend'],
  10: ['SBI_PMU_HW_REF_CPU_CYCLES', 'ref-cycles'],
};

/** Cache event ids, operations and results of the SBI spec's cache events, with perf's spelling. */
const CACHES: readonly [sbi: string, perf: string][] = [['L1D', 'L1-dcache'], ['L1I', 'L1-icache'], ['LL', 'LLC'], ['DTLB', 'dTLB'], ['ITLB', 'iTLB'], ['BPU', 'branch'], ['NODE', 'node']];
const OPS: readonly [sbi: string, perf: string][] = [['READ', 'load'], ['WRITE', 'store'], ['PREFETCH', 'prefetch']];

/** The SBI and perf names of a selector value read as an SBI event index; raw events otherwise (`e`: what the map says it counts). */
export function eventNames(selector: bigint, e: PmuEvent | undefined): { sbi: string; perf: string } {
  const s = Number(selector);
  const hw = HW_EVENTS[s];
  const code = ` (0x${selector.toString(16)})`;
  if (hw) return { sbi: `${hw[0]}${code}`, perf: hw[1] };
  if (s >>> 16 === 1) {
    const id = s & 0xffff;
    const cache = CACHES[id >>> 3];
    const op = OPS[(id >>> 1) & 3];
    if (cache && op) {
      const miss = (id & 1) === 1;
      return { sbi: `SBI_PMU_HW_CACHE_${cache[0]}.${op[0]}.${miss ? 'MISS' : 'ACCESS'}${code}`, perf: `${cache[1]}-${op[1]}${miss ? '-misses' : 's'}` };
    }
  }
  return { sbi: `raw event${code}`, perf: `r${selector.toString(16)}${e ? ` (${eventName(e)})` : ''}` };
}

export interface StatRow {
  readonly perf: string;
  readonly sbi: string;
  /** Where it was counted: mcycle, minstret, mhpmcounter<n>. */
  readonly counter: string;
  readonly count: bigint;
}

export interface StatResult {
  readonly rows: StatRow[];
  readonly cycles: number;
}

/** What a run needs besides the records: the V bit and the event inputs of each record. */
export interface StatInputs {
  v?: (index: number) => boolean;
  events?: (index: number) => number;
}

/**
 * Counts `records` on a counter block of configuration `c`: the events of the map on the
 * programmable counters (as many as there are), cycles on mcycle, instructions on minstret.
 */
export function pmuStat(c: PmuConfig, records: readonly RetirementRecord[], inputs: StatInputs = {}): StatResult {
  const unit = new PmuUnit(c);
  const rv32 = c.xlen === 32;
  let cycles = 0;
  const run = (input: PmuCycleInput): bigint => {
    cycles++;
    return unit.step(input).csr?.rdata ?? 0n;
  };
  const m = (address: number, write: boolean, wdata = 0n): PmuCsrAccess => ({ address, write, wdata, priv: 3 });
  // Inhibited while they are programmed and cleared; the last write (mcountinhibit = 0) takes effect
  // after its cycle, so the counts start with the first record.
  const setup: PmuCsrAccess[] = [m(CSR.mcountinhibit, true, (1n << 32n) - 1n)];
  const counters = hpmCounters(c);
  const programmed = c.events.slice(0, counters.length).map((e, i) => ({ ...e, counter: counters[i]! }));
  for (const p of programmed) {
    setup.push(m(CSR.mhpmevent + p.counter, true, p.selector & ((1n << BigInt(c.xlen)) - 1n)));
    if (rv32 && c.sscofpmf) setup.push(m(CSR.mhpmeventh + p.counter, true, p.selector >> 32n));
  }
  for (const n of [0, 2, ...counters]) {
    setup.push(m(CSR.mcycle + n, true, 0n));
    if (rv32) setup.push(m(CSR.mcycleh + n, true, 0n));
  }
  setup.push(m(CSR.mcountinhibit, true, 0n));
  const base = emptyRecord();
  for (const a of setup) run({ record: base, csr: a });
  records.forEach((record, i) => run({ record, v: inputs.v?.(i) ?? false, events: inputs.events?.(i) ?? 0 }));
  const read = (n: number): bigint => {
    // Debug mode (priv 4) counts nothing: the read-back does not disturb the counts.
    const at = { record: { ...base, priv: 4 } };
    const lo = run({ ...at, csr: m(CSR.mcycle + n, false) });
    return rv32 ? (run({ ...at, csr: m(CSR.mcycleh + n, false) }) << 32n) | lo : lo;
  };
  const rows: StatRow[] = [];
  const cyclesEvent = c.events.find((e) => e.event.kind === 'stream' && e.event.name === 'cycles');
  const instrEvent = c.events.find((e) => e.event.kind === 'stream' && e.event.name === 'instructions');
  rows.push({ ...eventNames(cyclesEvent?.selector ?? 1n, { kind: 'stream', name: 'cycles' }), counter: 'mcycle', count: read(0) });
  rows.push({ ...eventNames(instrEvent?.selector ?? 2n, { kind: 'stream', name: 'instructions' }), counter: 'minstret', count: read(2) });
  for (const p of programmed) rows.push({ ...eventNames(p.selector, p.event), counter: `mhpmcounter${p.counter}`, count: read(p.counter) });
  return { rows, cycles };
}

/**
 * After an SBI script: every counter the firmware has bound to an event, its value (hardware
 * counters from the block, firmware counters from counter_fw_read) and the names of the event.
 */
export function firmwareStat(c: PmuConfig, firmware: SbiPmuFirmware, unit: PmuUnit, cycles: number): StatResult {
  const state = unit.state();
  const rows: StatRow[] = [];
  for (let cidx = 0; cidx < firmware.totalCounters; cidx++) {
    const event = firmware.boundEvent(cidx);
    if (event === undefined) continue;
    const type = event >>> 16;
    if (type === EventType.fw) {
      const value = firmware.ecall(Eid.pmu, PmuFid.counter_fw_read, [BigInt(cidx)]).value;
      const name = FW_EVENTS[event & 0xffff] ?? `0x${(event & 0xffff).toString(16)}`;
      rows.push({ perf: `firmware ${name.toLowerCase().replaceAll('_', '-')}`, sbi: `SBI_PMU_FW_${name} (0x${event.toString(16)})`, counter: `firmware ${cidx}`, count: value });
      continue;
    }
    // Raw events count what their selector names; hardware and cache events are their own selectors.
    const selector = type === EventType.raw || type === EventType.rawV2 ? state.events[cidx]! & selectorMask(c) : BigInt(event);
    const counter = cidx === 0 ? 'mcycle' : cidx === 2 ? 'minstret' : `mhpmcounter${cidx}`;
    rows.push({ ...eventNames(selector, eventOf(c, selector)), counter, count: state.counters[cidx]! });
  }
  return { rows, cycles };
}

/** The table `rvtrace pmu-stat` prints: counts, names, and IPC and branch-miss rate where counted. */
export function formatStat(title: string, s: StatResult): string {
  const lines = [` Performance counter stats for ${title}:`, ''];
  const find = (perf: string): StatRow | undefined => s.rows.find((r) => r.perf === perf);
  if (s.rows.length === 0) return [...lines, '  (no counter is bound to an event)'].join('\n');
  const width = Math.max(...s.rows.map((r) => r.count.toLocaleString('en-US').length), 5);
  const perfWidth = Math.max(...s.rows.map((r) => r.perf.length));
  const sbiWidth = Math.max(...s.rows.map((r) => r.sbi.length));
  for (const r of s.rows) {
    let derived = '';
    const cycles = find('cycles');
    const branches = find('branches');
    if (r.perf === 'instructions' && cycles && cycles.count > 0n) derived = `#  ${(Number(r.count) / Number(cycles.count)).toFixed(2)} insn per cycle`;
    if (r.perf === 'branch-misses' && branches && branches.count > 0n) derived = `#  ${((100 * Number(r.count)) / Number(branches.count)).toFixed(2)}% of all branches`;
    lines.push(`  ${r.count.toLocaleString('en-US').padStart(width)}  ${r.perf.padEnd(perfWidth)}  ${r.sbi.padEnd(sbiWidth)}  ${r.counter.padEnd(14)}${derived}`.trimEnd());
  }
  return lines.join('\n');
}
