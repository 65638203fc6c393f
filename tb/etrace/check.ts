/**
 * `rvtrace check` of an E-Trace encoder in the user's waveform: the inverse of tb/etrace/frames.ts.
 * From the hart interface sampled in each cycle it rebuilds the retirement records, runs the golden
 * model (StreamEncoder) with the transport's ready as the waveform shows it, and compares the
 * model's byte stream, in order, with the bytes the waveform's tx handshake moved (tx_valid_o and
 * tx_ready_i both 1) or with a byte capture of the trace sink.
 *
 * Cycle by cycle (the alignment of frames.ts, read backwards):
 * - A cycle in which stall_o is 1 holds the hart: its inputs are applied again in the next cycle,
 *   so it is not a record (it is counted; with stallEnable the model stalls as many cycles).
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
 *     ingress holding the hart inputs of the write's cycle, which are the session's first record;
 *     the model runs with the options the image holds then (decodeOptions), everything written
 *     before included, and its first cycle sends nothing (the RTL's FIFO is empty in it);
 *   - a write during the session changes the image only: the RTL does not apply it to the session;
 *   - the write that clears trTeEnable or trTeActive ends the session as the model's finish(); the
 *     cycle of its access phase is no record, and the hart is not read after it;
 *   - a write that sets both again after that (a second session) is an error naming its cycle: the
 *     check follows one session. So are options the model refuses at the session's start, and
 *     stallEnable without stall_o in the map.
 *   APB reads are not compared.
 * - Data trace: the cycle's access (dretire_i) and split-load response belong to its record. The
 *   model takes the stream's accesses before the first record, so a waveform with any is read
 *   twice: the first pass collects them (memory grows with the accesses), the second compares.
 * - A waveform that ends inside the session: the bytes it shows must be the first bytes of the
 *   model's stream (the rest was still in the encoder).
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
import { compareStreams } from './cosim.ts';
import { READY_OFFSET } from './frames.ts';

const APB_INPUTS = ['psel_i', 'penable_i', 'pwrite_i', 'paddr_i', 'pwdata_i'];
const TX = ['tx_data_o', 'tx_valid_o', 'tx_ready_i'];

function checkPorts(c: EtraceConfig, o: CheckOptions): CheckPorts {
  const ports = etracePorts(c).filter((p) => p.group !== 'clock');
  const hart = ports.filter((p) => p.direction === 'in' && (p.group === 'hart' || p.group === 'sideband' || p.group === 'data')).map((p) => p.name);
  const required = [...hart, ...(c.options.stallEnable ? ['stall_o'] : []), ...(o.capture ? [] : TX)];
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required, groups: [APB_INPUTS] };
}

/** What the waveform has shown of the trace session so far. */
type Phase = 'before' | 'session' | 'ended';

class EtraceCheckSession implements CheckSession {
  private readonly at: (port: string) => number;
  /** The model of the session, made when it starts with the options then in force. */
  private model: StreamEncoder | undefined;
  /** The session's configuration: the component's parameters and the options sampled at its start. */
  private session: EtraceConfig | undefined;
  private readonly feed: LaggedFeed<RetirementRecord>;
  private readonly actual: ByteLog;
  /** The records of the current cycle. */
  private readonly scratch: RetirementRecord[] = [];
  /** Every record, for a divergence report (detail only). */
  private readonly kept: RetirementRecord[] = [];
  private records = 0;
  private holds = 0;
  private cycles = 0;
  private phase: Phase = 'before';
  /** The waveform cycle of the session's first record (-1: out of reset), and of its end. */
  private firstCycle = -1;
  private endCycle: number | undefined;
  private readonly build: (v: readonly bigint[], out: RetirementRecord[]) => void;
  /** Records rebuilt so far (the index of the next one). */
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
    this.feed = new LaggedFeed<RetirementRecord>(
      (record) => {
        this.model!.push(record);
        this.records++;
        if (o.detail) this.kept.push(record);
      },
      READY_OFFSET,
      this.idx['tx_ready_i']! >= 0,
    );
    this.actual = o.capture ? ByteLog.of(o.capture) : new ByteLog();
    // Registers that reset with trTeActive and trTeEnable 1: the session starts out of reset.
    if (this.image.on) this.begin(undefined);
  }

  /**
   * The session starts, and the model with the options the registers hold now (the RTL samples
   * them in the cycle the session starts). Out of reset (`write` undefined) its first record is
   * the one of waveform cycle 0. Started by the APB write whose access phase is waveform cycle
   * `write`: the RTL starts the session in the cycle after it, and the hart inputs of cycle `write`
   * (which the RTL's ingress holds then) are its first record; model cycle m is then waveform cycle
   * m + write + READY_OFFSET, and the FIFO is empty in the model's first cycle (the session's
   * support packet is written in it), so nothing leaves in it.
   */
  private begin(write: number | undefined): void {
    const options = decodeOptions(this.c, (a) => this.image.word(a));
    const session: EtraceConfig = { params: this.c.params, options };
    const where = write === undefined ? 'the trace session out of reset' : `cycle ${write}: the trace session this write starts`;
    const problems = validateConfig(session);
    if (problems.length > 0) {
      const e = problems[0]!;
      throw new RvError('bad-value', `${where} would run with options the model does not take (${e.location.path ?? ''}: ${e.message}); the check models sessions whose registers hold valid options`);
    }
    if (options.stallEnable && this.idx['stall_o']! < 0) {
      throw new RvError('bad-value', `${where} has trTeInstStallEna (stallEnable) 1: the map must name stall_o`);
    }
    this.session = session;
    this.phase = 'session';
    this.firstCycle = write ?? -1;
    const ready = write === undefined ? this.feed.ready : (m: number): boolean => m > 0 && this.feed.ready(m + write);
    // The model takes the stream's data accesses before the first record: from a pass before this one.
    const prior = this.o.prior as DataTrace | undefined;
    this.model = new StreamEncoder(session, { keepPackets: this.o.detail, ready, ...(prior ? { data: prior } : {}) });
  }

  cycle(t: number, v: readonly bigint[]): void {
    const i = this.idx;
    this.cycles = t + 1;
    const bit = (k: number): boolean => k >= 0 && (v[k]! & 1n) === 1n;
    this.feed.readyInput(bit(i['tx_ready_i']!));
    if (!this.o.capture && bit(i['tx_valid_o']!) && bit(i['tx_ready_i']!)) this.actual.push(Number(v[i['tx_data_o']!]! & 0xffn), t);
    if (bit(i['psel_i']!) && bit(i['penable_i']!) && bit(i['pwrite_i']!) && (i['pready_o']! < 0 || bit(i['pready_o']!))) {
      const addr = Number(v[i['paddr_i']!]!);
      const data = Number(v[i['pwdata_i']!]! & 0xffff_ffffn);
      // Without pstrb_i in the map every byte lane is written (as on an APB3 bus, which has none).
      const strobe = i['pstrb_i']! >= 0 ? Number(v[i['pstrb_i']!]!) : 0b1111;
      const wasOn = this.image.on;
      this.image.write(addr, data, strobe);
      const on = this.image.on;
      if (this.phase === 'session' && !on) {
        // trTeEnable (or trTeActive) cleared: the session ends, as the model's finish() (the cycle
        // of the write's access phase is no record, and the hart is not read after it).
        this.phase = 'ended';
        this.endCycle = t;
        return;
      }
      if (this.phase === 'ended' && on && !wasOn) {
        throw new RvError(
          'bad-value',
          `cycle ${t}: an APB write of 0x${data.toString(16)} to register 0x${addr.toString(16).padStart(3, '0')} (${this.image.name(addr)}) starts a second trace session (the first ended at cycle ${this.endCycle}): the check follows one session per waveform`,
        );
      }
      // trTeActive and trTeEnable now both 1: the session starts (this cycle's record is its first).
      if (this.phase === 'before' && on) this.begin(t);
      // Every other write changes registers the encoder samples when a session starts only: before
      // the session they set its options, during it they do not change it.
    }
    if (this.phase !== 'session') return;
    if (bit(i['stall_o']!)) {
      this.holds++;
      return;
    }
    this.scratch.length = 0;
    this.build(v, this.scratch);
    this.data?.(v, this.rebuilt);
    this.rebuilt += this.scratch.length;
    for (const record of this.scratch) this.feed.add(record, t);
    this.feed.advance(t);
  }

  finish(): CheckOutcome {
    this.feed.end();
    if (this.o.prior === undefined && this.found.accesses.length + this.found.responses.length > 0) {
      return { pass: false, summary: `${this.found.accesses.length} data accesses: the waveform is read again with them`, again: this.found };
    }
    const actual = this.actual.view();
    if (this.model === undefined || this.session === undefined) {
      return {
        pass: false,
        summary: `${this.cycles} cycles, no trace session (trTeActive and trTeEnable never both 1), ${actual.length} trace bytes`,
        mismatch: 'no trace session started in the waveform: nothing was compared',
      };
    }
    const expected = this.model.finish();
    const ended = this.endCycle !== undefined;
    // A waveform that ends inside the session shows the first bytes of the model's stream.
    const compared: EncodeResult = ended || actual.length > expected.bytes.length ? expected : { ...expected, bytes: expected.bytes.subarray(0, actual.length) };
    const summary =
      `${this.cycles} cycles, ${this.records} records, ${this.holds} held, ${Math.min(actual.length, compared.bytes.length)} bytes compared` +
      (this.firstCycle >= 0 ? `, session started at cycle ${this.firstCycle + 1}` : '') +
      (ended ? `, session ended at cycle ${this.endCycle}` : `; the session did not end in the waveform: the model's last ${expected.bytes.length - compared.bytes.length} bytes were not compared`);
    const n = compared.bytes.length;
    let offset = 0;
    while (offset < Math.min(n, actual.length) && compared.bytes[offset] === actual[offset]) offset++;
    if (offset < n || offset < actual.length) {
      const m = this.o.detail ? compareStreams(this.session, compared, actual, this.kept) : undefined;
      // A capture has no cycles: the divergence is where it is in the file.
      const cycle = this.o.capture ? undefined : this.actual.cycleOf(offset);
      const head = cycle === undefined ? `first divergence at byte ${offset} of the capture` : `first divergence at byte ${offset}, waveform cycle ${cycle}`;
      return { pass: false, summary, mismatch: m ? `${head}\n${m.text}` : head, ...(cycle === undefined ? {} : { mismatchCycle: cycle }) };
    }
    if (ended && this.session.options.stallEnable && this.holds !== expected.stallCycles) {
      return { pass: false, summary, mismatch: `the waveform held the hart (stall_o) ${this.holds} cycles, the model stalled ${expected.stallCycles}`, mismatchCycle: this.endCycle! };
    }
    return { pass: true, summary };
  }
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
