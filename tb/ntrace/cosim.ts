/**
 * Co-simulation of the generated N-Trace encoder against the golden model: the same retirement
 * records drive the model (golden-model/ntrace/output.ts NtraceStreamEncoder: the encoder behind
 * its output FIFO, cycle by cycle) and the RTL (through the generic Verilator harness of tb/), and
 * the two MSEO byte streams must be identical, as well as the stall cycles.
 *
 * How the RTL is driven (the cycle alignment with the model's output FIFO):
 * - The records of a cycle (a record and the `sameCycle` records after it: signal groups 0, 1, ...)
 *   are one frame; the encoder registers it and decides in the next cycle, so model cycle c is RTL
 *   cycle c + 1 and the harness drives mseo_ready_i of RTL cycle t with the model's ready(t - 1)
 *   (readyOffset 1; not ready before): 1 unless cycleChance(seed, t - 1, p). The messages of a
 *   cycle reach the FIFO two cycles later on both sides, three with timestamps (ntrace_output's
 *   register stages, the model's ntraceOutputLatency(config)), so this alignment holds for the FIFO
 *   as well.
 * - The RTL handles a frame's groups one a clock, holding the frame (stall_o) one clock for each
 *   group after the first: the model is given every record as a cycle of its own (sameCycle
 *   cleared), which is the same sequence of cycles, and the RTL's holds are the model's stall
 *   cycles plus those.
 * - With stall_enable the harness holds a frame while stall_o is 1 (the hart waits); the model
 *   numbers the same stall cycles, and both sides count them.
 * - The model's end of the records (finish(): trace disabled) is given to both sides as one more
 *   record: an idle cycle with a trace-off trigger (ProgTraceCorrelation EVCODE 4 when the trace
 *   runs); the model's finish() then adds one cycle with nothing to do and drains. Idle frames
 *   (records that do nothing: the model's cycles after the records) follow until the FIFO has
 *   drained and a pending Error message has gone out.
 * - The APB port (tb/ntrace/apb.ts): idle frames before the records read every register; the
 *   records carry trTeControl writes that turn the trace off and on (the model gets each record
 *   with the triggers the register model passes on) and reads; after the drain, every register is
 *   read again and written. Each access phase is captured and compared with the register model.
 */
import { cycleChance, Rng } from '../../golden-model/common/rng.ts';
import { NtraceStreamEncoder, type NtraceStreamResult } from '../../golden-model/ntrace/output.ts';
import { NTRACE_TOP_MODULE, ntracePorts } from '../../golden-model/ntrace/ports.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { emptyRecord, Itype, Trigger, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { type BuiltModel, buildModel } from '../build.ts';
import type { HarnessSpec } from '../harness-spec.ts';
import { FrameWriter, runModel } from '../run.ts';
import { NtraceApbSession } from './apb.ts';

export function ntraceHarnessSpec(c: NtraceConfig): HarnessSpec {
  return {
    top: NTRACE_TOP_MODULE,
    ports: ntracePorts(c).map((p) => ({ name: p.name, direction: p.direction, width: p.width })),
    clock: 'clk_i',
    reset: 'rst_ni',
    hold: 'stall_o',
    ready: ['mseo_ready_i'],
    captures: [
      {
        name: 'mseo',
        when: [
          { port: 'mseo_valid_o', value: 1 },
          { port: 'mseo_ready_i', value: 1 },
        ],
        data: ['mseo_data_o'],
      },
      {
        name: 'apb',
        when: [
          { port: 'psel_i', value: 1 },
          { port: 'penable_i', value: 1 },
          { port: 'stall_o', value: 0 },
        ],
        data: ['prdata_o', 'pslverr_o'],
      },
    ],
  };
}

export function buildNtraceModel(c: NtraceConfig, rtlFiles: string[], log?: (line: string) => void, fst = false): BuiltModel {
  return buildModel({ spec: ntraceHarnessSpec(c), rtlFiles, fst }, log);
}

/** The record that ends a run on both sides: an idle cycle with a trace-off trigger. */
export function endOfTraceRecord(last: RetirementRecord | undefined): RetirementRecord {
  return { ...emptyRecord(), trigger: Trigger.traceOff, time: last?.time ?? 0n };
}

/** The records of each cycle: a record and the `sameCycle` records after it. */
export function ntraceCycles(records: readonly RetirementRecord[]): RetirementRecord[][] {
  const out: RetirementRecord[][] = [];
  for (const r of records) {
    if (r.sameCycle && out.length > 0) out[out.length - 1]!.push(r);
    else out.push([r]);
  }
  return out;
}

/**
 * Writes the records of one cycle into a frame (every hart input): record k of the cycle is
 * signal group k (bits [k*W +: W] of itype_i, iretire_i, ilastsize_i, iaddr_i, trigger_i); the
 * groups the cycle does not use are zero (absent); priv, halted, reset and the time are the first
 * record's (a cycle's records share them). With `ownership`, context_i and ctype_i are the first
 * record's too: a cycle's records must share priv and context, and only the first may report a
 * context change (ctype != 0), as regroupIntoBlocks makes them. `index` (of the cycle's first
 * record) is for errors.
 */
export function ntraceFrameWriter(c: NtraceConfig, w: FrameWriter): (rs: readonly RetirementRecord[], index: number) => void {
  const itype = w.setter('itype_i');
  const iretire = w.setter('iretire_i');
  const ilastsize = w.setter('ilastsize_i');
  const iaddr = w.setter('iaddr_i');
  const priv = w.setter('priv_i');
  const trigger = w.setter('trigger_i');
  const halted = w.setter('halted_i');
  const reset = w.setter('reset_i');
  const tstamp = c.timestamp ? w.setter('tstamp_i') : undefined;
  const context = c.ownership && c.contextWidth > 0 ? w.setter('context_i') : undefined;
  const ctype = c.ownership ? w.setter('ctype_i') : undefined;
  const contextMask = (1n << BigInt(c.contextWidth)) - 1n;
  const addrMask = (1n << BigInt(c.xlen)) - 1n;
  const iw = BigInt(c.iretireWidth);
  const aw = BigInt(c.xlen);
  const groups = (rs: readonly RetirementRecord[], bits: bigint, value: (r: RetirementRecord) => bigint): bigint => {
    let v = 0n;
    for (let k = rs.length - 1; k >= 0; k--) v = (v << bits) | value(rs[k]!);
    return v;
  };
  return (rs, index) => {
    const r = rs[0]!;
    if (rs.length > c.takenBranches) throw new RvError('bad-value', `record ${index}: ${rs.length} signal groups in one cycle, more than taken_branches_p = ${c.takenBranches}`);
    rs.forEach((g, k) => {
      if (g.iretire > 2 * c.retires) throw new RvError('bad-value', `record ${index + k}: iretire ${g.iretire}, more than 2 * retires_p = ${2 * c.retires} half-words`);
      if (k > 0 && g.iretire === 0 && g.itype !== Itype.exception && g.itype !== Itype.interrupt) {
        throw new RvError('bad-value', `record ${index + k}: a further signal group of a cycle that retired nothing and is no trap (an absent group)`);
      }
      if (c.ownership && k > 0 && (g.priv !== r.priv || g.context !== r.context || g.ctype !== 0)) {
        throw new RvError('bad-value', `record ${index + k}: a further signal group of a cycle with its own priv, context or ctype (the cycle's first group carries them)`);
      }
    });
    if (rs.length === 1) {
      // One signal group (nearly every cycle): the values as they are, without packing bigints.
      itype(r.itype & 0xf);
      iretire(r.iretire);
      ilastsize(r.ilastsize & 1);
      iaddr(r.iaddr & addrMask);
      trigger(r.trigger & 7);
    } else {
      itype(groups(rs, 4n, (g) => BigInt(g.itype & 0xf)));
      iretire(groups(rs, iw, (g) => BigInt(g.iretire)));
      ilastsize(groups(rs, 1n, (g) => BigInt(g.ilastsize & 1)));
      iaddr(groups(rs, aw, (g) => g.iaddr & addrMask));
      trigger(groups(rs, 3n, (g) => BigInt(g.trigger & 7)));
    }
    priv(r.priv & 7);
    context?.(r.context & contextMask);
    ctype?.(r.ctype & 3);
    halted(r.halted ? 1 : 0);
    reset(r.reset ? 1 : 0);
    tstamp?.(r.time & ((1n << 64n) - 1n));
  };
}

export interface NtraceCosimOptions {
  /** Probability that mseo_ready_i is 0 in a cycle (0: always ready). */
  backpressure?: number;
  seed?: number;
  /** Dump RTL cycles from..to into an FST file (the model built with fst). */
  fst?: { file: string; from: number; to: number };
  /** The run-time APB writes (trace off, on, disable) among the records (default true). */
  runtimeWrites?: boolean;
}

/** Model cycle c is RTL cycle c + NTRACE_READY_OFFSET. */
export const NTRACE_READY_OFFSET = 1;

export interface NtraceCosimResult {
  readonly expected: NtraceStreamResult;
  readonly actual: Uint8Array;
  /**
   * The records the model was given, in order: the prologue's idle records, the run's records with
   * the triggers the register model passed on (trTeControl writes turn the trace off and on), each
   * as a cycle of its own, and the end record.
   */
  readonly modelRecords: readonly RetirementRecord[];
  readonly cycles: number;
  /** Frames held: the model's stall cycles plus groupHolds. */
  readonly holds: number;
  /** APB accesses compared. */
  readonly apbAccesses: number;
  /** Clocks the hart was held for the further signal groups of its cycles (one each). */
  readonly groupHolds: number;
  readonly mismatch?: string;
  /** The RTL cycle of the first differing byte (or of the last byte both sides have). */
  readonly mismatchCycle?: number;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

/** Runs one co-simulation of `records` and compares the RTL's bytes with the model's. */
export async function cosimNtrace(verilated: BuiltModel, c: NtraceConfig, records: readonly RetirementRecord[], opts: NtraceCosimOptions = {}): Promise<NtraceCosimResult> {
  const p = opts.backpressure ?? 0;
  const seed = opts.seed ?? 1;
  // The FIFO holds at most fifo_bytes bytes, leaving one in each ready cycle: on average one
  // cycle in 1/(1 - p); twice that, for the randomness (and at least 1% ready).
  const drain = Math.ceil((2 * c.fifoBytes) / Math.max(0.01, 1 - p)) + 64;
  const cycles = ntraceCycles(records);
  const apb = new NtraceApbSession(c, cycles.length, drain, opts.runtimeWrites ?? true);
  const frames: RetirementRecord[][] = [...apb.prologueRecords().map((r) => [r]), ...cycles, [endOfTraceRecord(records[records.length - 1])]];
  // The RTL takes a cycle's signal groups one a clock: the model sees each group as a cycle of its
  // own, and the hart is held one clock for each group after the first. The model encodes each
  // frame as it goes to the simulator, which runs meanwhile in its own process; the frames after
  // the records (drain, then the epilogue's accesses) follow the model's status at their end.
  const model = new NtraceStreamEncoder(c, { ready: (cycle) => !cycleChance(seed, cycle, p) });
  const given: RetirementRecord[] = [];
  let expected: NtraceStreamResult | undefined;
  const groupHolds = records.length - cycles.length;
  const spec = ntraceHarnessSpec(c);
  const run = await runModel(
    verilated,
    spec,
    (emit) => {
      const w = new FrameWriter(spec);
      const fill = ntraceFrameWriter(c, w);
      const bus = apb.driver(w);
      let index = 0;
      frames.forEach((rs, f) => {
        for (const r of apb.frame(f, rs)) {
          const one = r.sameCycle ? { ...r, sameCycle: false } : r;
          given.push(one);
          model.push(one);
        }
        fill(rs, index);
        bus(f);
        emit(w);
        index += rs.length;
      });
      expected = model.finish();
      apb.endOfRun(expected.stallOrOverflow);
      const total = apb.frames(cycles.length, drain);
      fill([emptyRecord()], index);
      for (let f = frames.length; f < total; f++) {
        apb.frame(f, [emptyRecord()]);
        bus(f);
        emit(w);
      }
    },
    { seed, readyChance: p, readyOffset: NTRACE_READY_OFFSET, ...(opts.fst ? { fst: opts.fst } : {}) },
  );
  if (expected === undefined) throw new Error('cosimNtrace: the frames were not all written');
  const captured = run.captures[0] ?? [];
  const actual = Uint8Array.from(captured.map((cap) => Number(cap.values[0])));
  let mismatch = compareNtrace(expected, actual);
  if (!mismatch && run.holds !== expected.stallCycles + groupHolds) {
    mismatch = `identical bytes, but the RTL held ${run.holds} frames and the model stalled ${expected.stallCycles} cycles (+ ${groupHolds} for the cycles' further groups)`;
  }
  const apbMismatch = apb.compare(run.captures[1] ?? []);
  if (!mismatch && apbMismatch) mismatch = `identical bytes, but a register access differs: ${apbMismatch}`;
  let mismatchCycle: number | undefined;
  if (mismatch) {
    let i = 0;
    while (i < actual.length && i < expected.bytes.length && actual[i] === expected.bytes[i]) i++;
    mismatchCycle = captured[Math.min(i, captured.length - 1)]?.cycle ?? 0;
  }
  return { expected, actual, modelRecords: given, cycles: run.cycles, holds: run.holds, groupHolds, apbAccesses: apb.accesses, ...(mismatch ? { mismatch, mismatchCycle } : {}) };
}

/** The first difference between the model's bytes and the RTL's, with the model's messages around it. */
export function compareNtrace(expected: { bytes: Uint8Array; messages: readonly NtraceStreamResult['messages'][number][] }, actual: Uint8Array): string | undefined {
  const e = expected.bytes;
  const n = Math.min(e.length, actual.length);
  let offset = 0;
  while (offset < n && e[offset] === actual[offset]) offset++;
  if (offset === e.length && offset === actual.length) return undefined;
  const ms = expected.messages;
  let k = ms.findIndex((m, i) => m.offset <= offset && (i === ms.length - 1 || ms[i + 1]!.offset > offset));
  if (k < 0) k = ms.length - 1;
  const start = k >= 0 ? ms[k]!.offset : 0;
  const lines = [
    `first difference at byte ${offset} (model message ${k} at byte ${start}); model ${e.length} bytes, RTL ${actual.length} bytes`,
    `  model bytes from ${start}: ${hex(e.subarray(start, start + 32))}`,
    `  RTL   bytes from ${start}: ${hex(actual.subarray(start, start + 32))}`,
  ];
  for (const j of [k - 2, k - 1, k, k + 1]) {
    const m = ms[j];
    if (m) lines.push(`  model message ${j} @${m.offset}: ${m.name} ${Object.entries(m.fields).map(([f, v]) => `${f}=${v.toString()}`).join(' ')}`);
  }
  return lines.join('\n');
}

/**
 * Retirement records of loops that repeat exactly, for the repeat options (RepeatBranch needs the
 * same indirect message again: same target, I-CNT and HIST; HREPEAT the same full HIST again),
 * which the random programs of the stimulus generator rarely make (their indirect targets are
 * drawn at each execution). Segments, each entered by an uninferable jump:
 * - a jump loop: straight instructions, maybe a branch of a fixed outcome (flipped now and then),
 *   maybe a call (uninferable or inferable) of a leaf that returns, then an uninferable jump back
 *   to the head, 1..100 times;
 * - a branch loop: straight instructions and a taken branch back, 20..400 times, then not taken;
 * and now and then an interrupt (handler, then mret), a halt, a reset, a trace-off / trace-on
 * trigger (with `events`) or an idle cycle. Addresses are half-word aligned and below 2^31; `time` is the
 * record's index. Not a program's execution: a decoder would need its image; co-simulation does not.
 */
export function ntraceLoopStimulus(seed: number, count: number, events = false): RetirementRecord[] {
  const rng = new Rng(seed ^ 0x10095);
  const out: RetirementRecord[] = [];
  let tracingOff = false;
  const push = (r: Partial<RetirementRecord>): void => {
    out.push({ ...emptyRecord(), ...r, time: BigInt(out.length) });
  };
  /** One instruction at `addr` (2 or 4 bytes); returns the next address. */
  const insn = (addr: bigint, itype: number, size = rng.chance(0.5) ? 2 : 4): bigint => {
    let trigger = 0;
    if (events && rng.chance(tracingOff ? 0.02 : 0.0005)) {
      trigger = tracingOff ? Trigger.traceOn : Trigger.traceOff;
      tracingOff = !tracingOff;
    }
    push({ itype, iretire: size / 2, ilastsize: size === 4 ? 1 : 0, iaddr: addr, trigger });
    if (rng.chance(0.02)) push({});
    if (events && rng.chance(0.0005)) for (let k = rng.int(1, 3); k > 0; k--) push({ halted: true });
    if (events && rng.chance(0.0002)) for (let k = rng.int(1, 3); k > 0; k--) push({ reset: true });
    return addr + BigInt(size);
  };
  const straight = (addr: bigint, n: number): bigint => {
    for (let k = 0; k < n; k++) addr = insn(addr, Itype.none);
    return addr;
  };
  const handler = 0x100n;
  const interrupt = (at: bigint): void => {
    push({ itype: Itype.interrupt, iretire: 0, iaddr: at });
    const a = straight(handler, 2);
    insn(a, Itype.trapReturn, 4);
  };
  while (out.length < count) {
    const head = 0x1000n + 2n * BigInt(rng.int(0, 0x3fffffff));
    if (rng.chance(0.5)) {
      // A jump loop: the same shape each time, but the branch flips now and then.
      const pre = rng.int(4, 14);
      const branch = rng.chance(0.5);
      let taken = rng.chance(0.5);
      const call = rng.weighted([2, 1, 1]); // none, uninferable call, inferable call
      const times = rng.int(1, 100);
      for (let i = 0; i < times && out.length < count; i++) {
        let a = straight(head, pre);
        if (branch) {
          if (rng.chance(0.02)) taken = !taken;
          a = insn(a, taken ? Itype.takenBranch : Itype.nontakenBranch, 4);
        }
        if (call !== 0) {
          const ret = insn(a, call === 1 ? Itype.uninferableCall : Itype.inferableCall, 2);
          // The leaf is near, so that its U-ADDR is short.
          insn(straight(head - 0x40n, rng.chance(0.9) ? 1 : 2), Itype.return, 2);
          a = ret;
        }
        if (rng.chance(0.002)) interrupt(a);
        insn(a, Itype.otherUninferableJump, 2);
      }
    } else {
      // A branch loop: HIST fills with the same bits over and over.
      const pre = rng.int(1, 5);
      const times = rng.int(20, 400);
      for (let i = 0; i < times && out.length < count; i++) {
        const a = straight(head, pre);
        if (rng.chance(0.0005)) interrupt(a);
        insn(a, i === times - 1 ? Itype.nontakenBranch : Itype.takenBranch, 4);
      }
      insn(head + 64n, Itype.otherUninferableJump, 2);
    }
  }
  return out.slice(0, count);
}
