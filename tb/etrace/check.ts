/**
 * `rvtrace check` of an E-Trace encoder in the user's waveform: the inverse of tb/etrace/frames.ts.
 * From the hart interface sampled in each cycle it rebuilds the retirement records, runs the golden
 * model (StreamEncoder) with the transport's ready as the waveform shows it, and compares the
 * model's byte stream with the bytes the waveform's tx handshake moved (tx_valid_o and tx_ready_i
 * both 1), each in the cycle the model's FIFO sends it (its departures), or in order with a byte
 * capture of the trace sink.
 *
 * Cycle by cycle (the alignment of frames.ts, read backwards):
 * - A cycle in which stall_o is 1 holds the hart: its inputs are applied again in the next cycle,
 *   so it is not a record (it is counted; with stallEnable or serial views the model holds the hart
 *   as many cycles).
 * - Otherwise the cycle's signal groups are records: group 0 always (an idle cycle, iretire 0 and
 *   itype 0, is an idle record: the model counts its cycle), group k > 0 while it is not empty.
 *   cause and tval belong to the newest group of the cycle (a trap ends its cycle), ctype to the
 *   first; priv, context, halted, reset, impdef and time to all.
 * - The model decides a record one cycle after its frame: model cycle m is waveform cycle m + 1
 *   (for a session started by a write, below: m + 1 + the write's cycle), so the model's ready(m)
 *   is tx_ready_i of that waveform cycle. A record goes to the model once
 *   the waveform is far enough past it that a stall of the model finds the ready inputs of the
 *   cycles it waits (tb/check/lagged-feed.ts).
 * - APB writes (psel_i, penable_i, pwrite_i and, when mapped, pready_o 1; pstrb_i's byte lanes,
 *   all four when it is not mapped) update an image of the register file (golden-model/etrace/
 *   option-writes.ts EtraceRegisterImage: reset values of the component, read-only bits kept,
 *   write-1-to-clear status). The RTL samples every option when a session starts (trTeActive and
 *   trTeEnable both 1) and holds it for the session, so:
 *   - out of reset with both 1 (the component's own reset values), the session starts at once,
 *     with the options decoded from the reset image (the component's);
 *   - otherwise the write that sets both starts it: the RTL starts it in the next cycle, its
 *     ingress holding the hart inputs of the write's cycle, which are the session's first record
 *     when idle (and the model's first cycle sends nothing: the RTL's FIFO is empty in it), and
 *     dropped otherwise (the RTL drops the view of the cycle a session starts in); the model runs
 *     with the options the image holds then (decodeOptions), everything written before included;
 *   - a write during the session changes the image only: the RTL does not apply it to the session;
 *   - the write that clears trTeEnable or trTeActive ends the session: the RTL ends it at the
 *     first cycle without a view, so the cycles from the write's access phase on are records until
 *     the hart's first idle one (nothing retired, no trap, not halted or in reset), which is none:
 *     the model's finish() comes in its cycle. Held cycles (stall_o) after it are the session's
 *     too (its last packets still wait for room). A write that sets both again before that idle
 *     cycle is an error;
 *   - a write that sets both again after that starts another session: a fresh model with the
 *     options then in force, whose bytes follow the last session's in the stream (the RTL starts
 *     every session from the same state). It is followed once the waveform shows every byte of the
 *     earlier sessions sent (the RTL's FIFO empty, as the fresh model's); a session that starts
 *     before, or any with --capture (no cycles), is an error naming the cycle. So are options the
 *     model refuses at a session's start, and stallEnable without stall_o in the map.
 *   APB reads are not compared.
 * - Data trace: the cycle's access (dretire_i) and split-load response belong to its record. The
 *   model takes the stream's accesses before the first record, so a waveform with any is read
 *   twice: the first pass collects them (memory grows with the accesses), the second compares.
 * - A waveform that ends inside the session, or before the FIFO has drained: the bytes the model
 *   sends within the waveform must be there, in their cycles; the rest was still in the encoder.
 * - With a capture (`--capture`): the bytes come from the file; tx_ready_i, when the map names it,
 *   is the model's ready, otherwise the sink is taken as always ready.
 */
import type { BlockCheck, CheckOptions, CheckOutcome, CheckPorts, CheckSession } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { type EtraceConfig, validateConfig } from '../../golden-model/etrace/config.ts';
import { decodeOptions, EtraceRegisterImage } from '../../golden-model/etrace/option-writes.ts';
import { type EncodeResult, StreamEncoder } from '../../golden-model/etrace/output.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import type { DataTrace } from '../../golden-model/hart/data-records.ts';
import { LaggedFeed } from '../check/lagged-feed.ts';
import { ByteLog } from '../check/logs.ts';
import { dueBefore, firstMistimed, itemAt } from '../check/timing.ts';
import { compareStreams } from './cosim.ts';
import { dumpPacket } from '../../golden-model/etrace/packet/index.ts';
import { READY_OFFSET } from './frames.ts';

const APB_INPUTS = ['psel_i', 'penable_i', 'pwrite_i', 'paddr_i', 'pwdata_i'];
const TX = ['tx_data_o', 'tx_valid_o', 'tx_ready_i'];

function checkPorts(c: EtraceConfig, o: CheckOptions): CheckPorts {
  const ports = etracePorts(c).filter((p) => p.group !== 'clock');
  const hart = ports.filter((p) => p.direction === 'in' && (p.group === 'hart' || p.group === 'sideband' || p.group === 'data')).map((p) => p.name);
  const required = [...hart, ...(c.options.stallEnable || c.params.serial_views_p === 1 ? ['stall_o'] : []), ...(o.capture ? [] : TX)];
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required, groups: [APB_INPUTS] };
}

/**
 * What the waveform has shown of the trace sessions so far: none yet, one running, one whose end
 * write was seen but whose records go on until the hart's first idle cycle, or none running.
 */
type Phase = 'before' | 'session' | 'ending' | 'ended';

/** One trace session of the waveform and its model. */
interface Run {
  /** The component's parameters and the options sampled when the session started. */
  readonly config: EtraceConfig;
  readonly model: StreamEncoder;
  /** The session's records as they go to the model; its cycle 0 is waveform cycle `base`. */
  readonly feed: LaggedFeed<RetirementRecord>;
  readonly base: number;
  /** The cycle of the write that started the session (undefined: out of reset). */
  readonly write: number | undefined;
  records: number;
  holds: number;
  endCycle?: number;
  /** The model's stream, once the session's model has finished. */
  result?: EncodeResult;
}

class EtraceCheckSession implements CheckSession {
  private readonly at: (port: string) => number;
  /** The sessions so far, in order; the last is the current one. */
  private readonly runs: Run[] = [];
  private readonly actual: ByteLog;
  /** The records of the current cycle. */
  private readonly scratch: RetirementRecord[] = [];
  /** Every record, for a divergence report (detail only). */
  private readonly kept: RetirementRecord[] = [];
  private cycles = 0;
  private phase: Phase = 'before';
  /** tx_ready_i of the current cycle. */
  private readyNow = false;
  private readonly build: (v: readonly bigint[], out: RetirementRecord[]) => void;
  /** Records rebuilt so far, over every session (the index of the next one). */
  private rebuilt = 0;
  /** Data trace: the accesses and split-load responses of the waveform, collected for a second pass. */
  private readonly found: DataTrace = { accesses: [], responses: [] };
  private readonly data: ((v: readonly bigint[], at: number) => void) | undefined;
  private readonly idx: Record<string, number>;
  /** The register file as the APB writes of the waveform leave it (reset: the component's values). */
  private readonly image: EtraceRegisterImage;

  constructor(
    private readonly c: EtraceConfig,
    mapped: readonly string[],
    private readonly o: CheckOptions & { readonly detail: boolean; readonly prior?: unknown },
  ) {
    const index = new Map(mapped.map((p, i) => [p, i]));
    this.at = (port) => index.get(port) ?? -1;
    this.idx = Object.fromEntries(['tx_data_o', 'tx_valid_o', 'tx_ready_i', 'stall_o', 'pready_o', 'pstrb_i', ...APB_INPUTS].map((p) => [p, this.at(p)]));
    this.build = recordBuilder(c, this.at);
    this.image = new EtraceRegisterImage(c);
    // Collected by the first pass only: the second has them.
    this.data = c.params.dataTrace && o.prior === undefined ? dataReader(this.at, this.found) : undefined;
    this.actual = o.capture ? ByteLog.of(o.capture) : new ByteLog();
    // Registers that reset with trTeActive and trTeEnable 1: the session starts out of reset.
    if (this.image.on) this.begin(undefined);
  }

  /**
   * A session starts, and its model with the options the registers hold now (the RTL samples them
   * in the cycle the session starts). Out of reset (`write` undefined) its first record is the one
   * of waveform cycle 0 and model cycle m is waveform cycle m + READY_OFFSET. Started by the APB
   * write whose access phase is waveform cycle `write`, the RTL starts the session in the cycle
   * after it, when its ingress holds the hart inputs of cycle `write`:
   * - an idle cycle (`view` false: it makes no view) is the session's first record, counted as a
   *   cycle (a resync unit with ResyncMode 2); model cycle m is waveform cycle m + write +
   *   READY_OFFSET, and the FIFO is empty in the model's first cycle (the session's support packet
   *   is written in it), so nothing leaves in it;
   * - a cycle with a view (the hart retired, trapped, halted or reset) is dropped, as the RTL drops
   *   the view of the cycle a session starts in: the first record is the next cycle's, as out of
   *   reset one cycle later (model cycle m is waveform cycle m + write + 1 + READY_OFFSET).
   */
  private begin(write: number | undefined, view = false): void {
    const options = decodeOptions(this.c, (a) => this.image.word(a));
    const config: EtraceConfig = { params: this.c.params, options };
    const where = write === undefined ? 'the trace session out of reset' : `cycle ${write}: the trace session this write starts`;
    const problems = validateConfig(config);
    if (problems.length > 0) {
      const e = problems[0]!;
      throw new RvError('bad-value', `${where} would run with options the model does not take (${e.location.path ?? ''}: ${e.message}); the check models sessions whose registers hold valid options`);
    }
    if (options.stallEnable && this.idx['stall_o']! < 0) {
      throw new RvError('bad-value', `${where} has trTeInstStallEna (stallEnable) 1: the map must name stall_o`);
    }
    const first = this.rebuilt;
    const feed = new LaggedFeed<RetirementRecord>(
      (record) => {
        run.model.push(record);
        run.records++;
        if (this.o.detail) this.kept.push(record);
      },
      READY_OFFSET,
      this.idx['tx_ready_i']! >= 0,
    );
    // The feed's cycle 0 is `base`: the write's cycle (whose ready input it takes now) when the
    // session's first record is that cycle's, else the next cycle (its input comes with it).
    const idleFirst = write !== undefined && !view;
    if (idleFirst) feed.readyInput(this.readyNow);
    const ready = idleFirst ? (m: number): boolean => m > 0 && feed.ready(m) : feed.ready;
    // The model takes the session's data accesses before its first record: from a pass before this
    // one, their record indexes counted from the session's first record.
    const prior = this.o.prior as DataTrace | undefined;
    const data = prior && {
      accesses: prior.accesses.filter((a) => a.at >= first).map((a) => ({ ...a, at: a.at - first })),
      responses: prior.responses.filter((r) => r.at >= first).map((r) => ({ ...r, at: r.at - first })),
    };
    // Started by a write with an idle first record, the session's support packet is written in
    // that record's cycle (model cycle 0); out of reset, in the cycle before it.
    const model = new StreamEncoder(config, { keepPackets: this.o.detail, ready, departures: true, sessionInFirstCycle: idleFirst, ...(data ? { data } : {}) });
    const run: Run = { config, model, feed, base: write === undefined ? 0 : view ? write + 1 : write, write, records: 0, holds: 0 };
    this.runs.push(run);
    this.phase = 'session';
  }

  /** The session before a second one: its model finishes (its records are all known). */
  private close(run: Run): EncodeResult {
    if (run.result === undefined) {
      run.feed.end();
      run.result = run.model.finish();
    }
    return run.result;
  }

  cycle(t: number, v: readonly bigint[]): void {
    const i = this.idx;
    this.cycles = t + 1;
    const bit = (k: number): boolean => k >= 0 && (v[k]! & 1n) === 1n;
    this.readyNow = bit(i['tx_ready_i']!);
    const last = this.runs[this.runs.length - 1];
    last?.feed.readyInput(this.readyNow);
    if (!this.o.capture && bit(i['tx_valid_o']!) && this.readyNow) this.actual.push(Number(v[i['tx_data_o']!]! & 0xffn), t);
    let starts = false;
    if (bit(i['psel_i']!) && bit(i['penable_i']!) && bit(i['pwrite_i']!) && (i['pready_o']! < 0 || bit(i['pready_o']!))) {
      const addr = Number(v[i['paddr_i']!]!);
      const data = Number(v[i['pwdata_i']!]! & 0xffff_ffffn);
      // Without pstrb_i in the map every byte lane is written (as on an APB3 bus, which has none).
      const strobe = i['pstrb_i']! >= 0 ? Number(v[i['pstrb_i']!]!) : 0b1111;
      const wasOn = this.image.on;
      this.image.write(addr, data, strobe);
      const on = this.image.on;
      if (this.phase === 'session' && !on) {
        // trTeEnable (or trTeActive) cleared: the RTL ends the session at the first cycle without
        // a view, so the records go on up to the hart's first idle cycle from this one on.
        this.phase = 'ending';
        last!.endCycle = t;
      } else if (this.phase === 'ending' && on) {
        throw new RvError(
          'bad-value',
          `cycle ${t}: an APB write of 0x${data.toString(16)} to register 0x${addr.toString(16).padStart(3, '0')} (${this.image.name(addr)}) sets trTeActive and trTeEnable again before the session that the write of cycle ${last!.endCycle} ends has ended (the encoder ends it at the hart's first idle cycle): the check does not model that`,
        );
      } else if (this.phase === 'ended' && on && !wasOn) {
        this.next(t, addr, data);
        starts = true;
      }
      // trTeActive and trTeEnable now both 1: the session starts.
      else if (this.phase === 'before' && on) starts = true;
      // Every other write changes registers the encoder samples when a session starts only: before
      // a session they set its options, during one they do not change it.
    }
    if (starts) {
      this.scratch.length = 0;
      this.build(v, this.scratch);
      const view = !idle(this.scratch);
      this.begin(t, view);
      // A view in the cycle the session starts from is dropped (begin).
      if (view) return;
    }
    if (this.phase === 'before') return;
    const run = this.runs[this.runs.length - 1]!;
    if (bit(i['stall_o']!)) {
      // A hold after the end write (the testbench applies the write again) is the session's: the
      // encoder still waits for room for the last cycle's packets, which the model's finish() counts.
      run.holds++;
      return;
    }
    if (this.phase === 'ended') return;
    this.scratch.length = 0;
    this.build(v, this.scratch);
    if (this.phase === 'ending' && idle(this.scratch)) {
      // The first idle cycle after the end write: the encoder has no view, and ends the session
      // (the model's finish(), in the model cycle of this record).
      this.phase = 'ended';
      return;
    }
    this.data?.(v, this.rebuilt);
    this.rebuilt += this.scratch.length;
    for (const record of this.scratch) run.feed.add(record, t - run.base);
    run.feed.advance(t - run.base);
  }

  /**
   * A session after the last one ended, started by the write of cycle `t`: the RTL sends its bytes
   * after the last session's, and starts it as the first one (fresh state, empty FIFO) once every
   * byte of the last session has left; the check follows it only then, and only when it sees the
   * bytes leave (not with --capture). The earlier sessions' models finish here; the caller starts
   * the new one.
   */
  private next(t: number, addr: number, data: number): void {
    const what = `cycle ${t}: an APB write of 0x${data.toString(16)} to register 0x${addr.toString(16).padStart(3, '0')} (${this.image.name(addr)}) starts another trace session`;
    if (this.o.capture) throw new RvError('bad-value', `${what}: with --capture the check cannot tell whether the last session's bytes had left the encoder; check a waveform with the tx ports instead`);
    let sent = 0;
    for (const run of this.runs) sent += this.close(run).bytes.length;
    if (this.actual.length < sent) {
      throw new RvError(
        'bad-value',
        `${what} while the encoder still holds ${sent - this.actual.length} of the earlier sessions' ${sent} bytes: the check follows a new session only once the last one's bytes have left (the first ended at cycle ${this.runs[0]!.endCycle})`,
      );
    }
  }

  finish(): CheckOutcome {
    if (this.o.prior === undefined && this.found.accesses.length + this.found.responses.length > 0) {
      return { pass: false, summary: `${this.found.accesses.length} data accesses: the waveform is read again with them`, again: this.found };
    }
    const actual = this.actual.view();
    if (this.runs.length === 0) {
      return {
        pass: false,
        summary: `${this.cycles} cycles, no trace session (trTeActive and trTeEnable never both 1), ${actual.length} trace bytes`,
        mismatch: 'no trace session started in the waveform: nothing was compared',
      };
    }
    const results = this.runs.map((run) => this.close(run));
    const expected = results.length === 1 ? results[0]! : concatResults(results, this.runs.map((run) => run.records));
    const lastRun = this.runs[this.runs.length - 1]!;
    const ended = this.phase === 'ended';
    // The waveform cycle each of the model's bytes leaves in; a capture has no cycles.
    const due = this.o.capture ? undefined : dueCycles(this.runs, results);
    // The bytes compared: those the model sends within the waveform (a waveform that ends inside the
    // session, or before the FIFO has drained, shows the first bytes of the model's stream), and as
    // many as the waveform shows; a capture, all of the model's once the session ended.
    const shown = due ? dueBefore(due, this.cycles) : ended ? expected.bytes.length : 0;
    const n = Math.min(expected.bytes.length, Math.max(shown, actual.length));
    const compared: EncodeResult = n === expected.bytes.length ? expected : { ...expected, bytes: expected.bytes.subarray(0, n) };
    const records = this.runs.reduce((n, run) => n + run.records, 0);
    const holds = this.runs.reduce((n, run) => n + run.holds, 0);
    const starts = this.runs.map((run) => (run.write === undefined ? 0 : run.write + 1));
    const summary =
      `${this.cycles} cycles, ${records} records, ${holds} held, ${Math.min(actual.length, n)} bytes compared` +
      (this.runs.length > 1 ? `, ${this.runs.length} sessions started at cycles ${starts.join(', ')}` : lastRun.write !== undefined ? `, session started at cycle ${starts[0]}` : '') +
      (ended ? `, ${this.runs.length > 1 ? 'the last ' : ''}session ended at cycle ${lastRun.endCycle}` : '; the session did not end in the waveform') +
      (n < expected.bytes.length ? `; the model's last ${expected.bytes.length - n} bytes were still in the encoder when the waveform ended (not compared)` : '');
    /** The session whose stream holds byte `byte` of the whole: its options decode the packets. */
    const sessionOf = (byte: number): number => {
      let k = 0;
      for (let end = results[0]!.bytes.length; k < results.length - 1 && byte >= end; end += results[++k]!.bytes.length);
      return k;
    };
    let offset = 0;
    while (offset < Math.min(n, actual.length) && compared.bytes[offset] === actual[offset]) offset++;
    // Bytes right but in another cycle than the model's, before any wrong byte.
    const late = due && firstMistimed(this.actual, due, offset);
    if (late) {
      // The detailed pass names the packet the byte belongs to (the bytes are the model's).
      const i = itemAt(expected.packets, late.byte);
      const packet = expected.packets[i];
      const where = packet ? `\n  the byte is in model packet ${i}, produced when record ${packet.record} arrived: ${dumpPacket(packet.packet, this.runs[sessionOf(late.byte)]!.config.params, packet.offset)}` : '';
      return { pass: false, summary, mismatch: late.text + where, mismatchCycle: late.cycle };
    }
    if (offset < n || offset < actual.length) {
      const m = this.o.detail ? compareStreams(this.runs[sessionOf(offset)]!.config, compared, actual, this.kept) : undefined;
      // A capture has no cycles: the divergence is where it is in the file. A byte the waveform
      // does not show diverges in the cycle the model sends it.
      const cycle = due === undefined ? undefined : offset < actual.length ? this.actual.cycleOf(offset) : due[offset]!;
      const head = cycle === undefined ? `first divergence at byte ${offset} of the capture` : `first divergence at byte ${offset}, waveform cycle ${cycle}`;
      return { pass: false, summary, mismatch: m ? `${head}\n${m.text}` : head, ...(cycle === undefined ? {} : { mismatchCycle: cycle }) };
    }
    for (const [k, run] of this.runs.entries()) {
      if ((k < this.runs.length - 1 || ended) && (run.config.options.stallEnable || run.config.params.serial_views_p === 1) && run.holds !== results[k]!.stallCycles) {
        const which = this.runs.length > 1 ? ` in session ${k + 1}` : '';
        return { pass: false, summary, mismatch: `the waveform held the hart (stall_o) ${run.holds} cycles${which}, the model stalled ${results[k]!.stallCycles}`, mismatchCycle: run.endCycle! };
      }
    }
    return { pass: true, summary };
  }
}

/**
 * A cycle whose records make no view for the encoder (etrace_ingress): nothing retired in any
 * signal group, no trap, not halted and not in reset.
 */
function idle(records: readonly RetirementRecord[]): boolean {
  const r = records[0]!;
  return records.length === 1 && r.iretire === 0 && r.itype === 0 && !r.halted && !r.reset;
}

/**
 * The streams of consecutive sessions as the RTL sends them, one after the other: bytes
 * concatenated, packets at their offsets in the whole stream, records counted over the sessions.
 */
function concatResults(results: readonly EncodeResult[], records: readonly number[]): EncodeResult {
  const total = results.reduce((n, r) => n + r.bytes.length, 0);
  const bytes = new Uint8Array(total);
  const out: EncodeResult = { bytes, byteCount: total, packets: [], dataPackets: [], packetCount: 0, dropped: 0, stallCycles: 0, viewHolds: 0 };
  let offset = 0;
  let first = 0;
  for (const [k, r] of results.entries()) {
    bytes.set(r.bytes, offset);
    for (const p of r.packets) out.packets.push({ ...p, offset: p.offset + offset, record: p.record + first });
    for (const p of r.dataPackets) out.dataPackets.push({ ...p, offset: p.offset + offset, record: p.record + first });
    out.packetCount += r.packetCount;
    out.dropped += r.dropped;
    out.stallCycles += r.stallCycles;
    out.viewHolds += r.viewHolds;
    offset += r.bytes.length;
    first += records[k]!;
  }
  return out;
}

/**
 * The waveform cycle in which each byte of the sessions' streams leaves the encoder: session k's
 * model cycle m is waveform cycle m + its base + READY_OFFSET (the RTL decides a record in the
 * cycle after its frame; Run.base).
 */
function dueCycles(runs: readonly Run[], results: readonly EncodeResult[]): Float64Array {
  const due = new Float64Array(results.reduce((n, r) => n + r.bytes.length, 0));
  let offset = 0;
  for (const [k, r] of results.entries()) {
    for (const [i, m] of r.departures!.entries()) due[offset + i] = m + runs[k]!.base + READY_OFFSET;
    offset += r.bytes.length;
  }
  return due;
}

/**
 * The data access of a cycle (dretire_i) and its split-load response (lresp_i not 0), for the
 * cycle's record `at` (the inverse of frames.ts's data setter; the data path is single retirement).
 */
function dataReader(at: (port: string) => number, into: DataTrace): (v: readonly bigint[], record: number) => void {
  const k = (p: string): number => at(p);
  const [dretire, dtype, daddr, dsize, data, lsbs, lrid, lresp, lid, ldata] = ['dretire_i', 'dtype_i', 'daddr_i', 'dsize_i', 'data_i', 'iaddr_lsbs_i', 'lrid_i', 'lresp_i', 'lid_i', 'ldata_i'].map(k) as number[];
  const num = (v: readonly bigint[], i: number): number => (i >= 0 ? Number(v[i]!) : 0);
  return (v, record) => {
    if (num(v, dretire!) === 1) {
      into.accesses.push({ at: record, dtype: num(v, dtype!), daddr: v[daddr!]!, dsize: num(v, dsize!), data: v[data!]!, lrid: num(v, lrid!), iaddrLsbs: num(v, lsbs!), dblock: 0 });
    }
    if (num(v, lresp!) !== 0) into.responses.push({ at: record, lid: num(v, lid!), lresp: num(v, lresp!), ldata: v[ldata!]! });
  };
}

/**
 * The records of one cycle from the sampled ports (the inverse of frames.ts's hart setter): appends
 * group 0's record and each further non-empty group's, as `sameCycle` records.
 */
function recordBuilder(c: EtraceConfig, at: (port: string) => number): (v: readonly bigint[], out: RetirementRecord[]) => void {
  const p = c.params;
  const groups = p.taken_branches_p;
  const k = (name: string): number => at(name);
  const [itype, iretire, ilastsize, iaddr, sijump, cause, tval, priv, context, ctype, trigger, halted, reset, impdef, time] = [
    'itype_i', 'iretire_i', 'ilastsize_i', 'iaddr_i', 'sijump_i', 'cause_i', 'tval_i', 'priv_i', 'context_i', 'ctype_i', 'trigger_i', 'halted_i', 'reset_i', 'impdef_i', 'time_i',
  ].map(k) as number[];
  const field = (v: readonly bigint[], port: number, group: number, width: number): bigint => (port < 0 ? 0n : (v[port]! >> BigInt(group * width)) & ((1n << BigInt(width)) - 1n));
  return (v, out) => {
    for (let g = 0; g < groups; g++) {
      const it = Number(field(v, itype!, g, p.itype_width_p));
      const ir = Number(field(v, iretire!, g, p.iretire_width_p));
      if (g > 0 && it === 0 && ir === 0) break;
      out.push({
        itype: it,
        iretire: ir,
        ilastsize: Number(field(v, ilastsize!, g, p.lastsize_width_p)),
        iaddr: field(v, iaddr!, g, p.iaddress_width_p),
        priv: Number(field(v, priv!, 0, p.privilege_width_p)),
        cause: 0,
        tval: 0n,
        context: field(v, context!, 0, p.context_width_p),
        ctype: g === 0 ? Number(field(v, ctype!, 0, p.ctype_width_p)) : 0,
        sijump: field(v, sijump!, g, 1) === 1n,
        trigger: Number(field(v, trigger!, g, 3)),
        halted: field(v, halted!, 0, 1) === 1n,
        reset: field(v, reset!, 0, 1) === 1n,
        impdef: Number(field(v, impdef!, 0, Math.max(1, p.impdef_width_p))),
        time: field(v, time!, 0, p.time_width_p),
        sameCycle: g > 0,
      });
    }
    // A trap ends its cycle: cause and tval are the newest group's.
    const newest = out[out.length - 1]!;
    newest.cause = Number(field(v, cause!, 0, p.ecause_width_p));
    newest.tval = field(v, tval!, 0, p.iaddress_width_p);
  };
}

export const etraceCheck: BlockCheck<EtraceConfig> = {
  ports: checkPorts,
  start: (c, mapped, o) => new EtraceCheckSession(c, mapped, o),
};
