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
 * - The model decides a record one cycle after its frame: model cycle m is waveform cycle m + 1,
 *   so the model's ready(m) is tx_ready_i of waveform cycle m + 1. A record goes to the model once
 *   the waveform is far enough past it that a stall of the model finds the ready inputs of the
 *   cycles it waits (tb/check/lagged-feed.ts).
 * - An APB write (psel_i, penable_i and pwrite_i 1) to trTeControl (0x000) clearing trTeEnable
 *   ends the session as the model's finish() does; the cycle of its access phase is no record,
 *   and the hart is not read after it. A write that leaves every option field as it is (firmware
 *   rewriting its configuration) changes nothing. Any other APB write is an error: run-time
 *   reprogramming is not modelled yet. APB reads are not compared.
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
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { type EncodeResult, StreamEncoder } from '../../golden-model/etrace/output.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import { etraceMemoryMap } from '../../golden-model/etrace/registers.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import type { DataTrace } from '../../golden-model/hart/data-records.ts';
import { LaggedFeed } from '../check/lagged-feed.ts';
import { ByteLog } from '../check/logs.ts';
import { compareStreams } from './cosim.ts';
import { READY_OFFSET } from './frames.ts';

const APB_INPUTS = ['psel_i', 'penable_i', 'pwrite_i', 'paddr_i', 'pwdata_i'];
const TX = ['tx_data_o', 'tx_valid_o', 'tx_ready_i'];
/** trTeControl's offset and its trTeEnable bit (registers.ts). */
const TR_TE_CONTROL = 0x000n;
const TR_TE_ENABLE = 0b10n;

function checkPorts(c: EtraceConfig, o: CheckOptions): CheckPorts {
  const ports = etracePorts(c).filter((p) => p.group !== 'clock');
  const hart = ports.filter((p) => p.direction === 'in' && (p.group === 'hart' || p.group === 'sideband' || p.group === 'data')).map((p) => p.name);
  const required = [...hart, ...(c.options.stallEnable ? ['stall_o'] : []), ...(o.capture ? [] : TX)];
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required, groups: [APB_INPUTS] };
}

class EtraceCheckSession implements CheckSession {
  private readonly at: (port: string) => number;
  private readonly model: StreamEncoder;
  private readonly feed: LaggedFeed<RetirementRecord>;
  private readonly actual: ByteLog;
  /** The records of the current cycle. */
  private readonly scratch: RetirementRecord[] = [];
  /** Every record, for a divergence report (detail only). */
  private readonly kept: RetirementRecord[] = [];
  private records = 0;
  private holds = 0;
  private cycles = 0;
  private endCycle: number | undefined;
  private readonly build: (v: readonly bigint[], out: RetirementRecord[]) => void;
  /** Records rebuilt so far (the index of the next one). */
  private rebuilt = 0;
  /** Data trace: the accesses and split-load responses of the waveform, collected for a second pass. */
  private readonly found: DataTrace = { accesses: [], responses: [] };
  private readonly data: ((v: readonly bigint[], at: number) => void) | undefined;
  private readonly idx: Record<string, number>;
  /** Per register: the bits of its read-write option fields and the value they hold (optionFields). */
  private readonly options: Map<bigint, { readonly mask: bigint; readonly value: bigint }>;

  constructor(
    private readonly c: EtraceConfig,
    mapped: readonly string[],
    private readonly o: CheckOptions & { readonly detail: boolean; readonly prior?: unknown },
  ) {
    const index = new Map(mapped.map((p, i) => [p, i]));
    this.at = (port) => index.get(port) ?? -1;
    this.idx = Object.fromEntries(['tx_data_o', 'tx_valid_o', 'tx_ready_i', 'stall_o', 'pready_o', ...APB_INPUTS].map((p) => [p, this.at(p)]));
    this.build = recordBuilder(c, this.at);
    this.options = optionFields(c);
    // Collected by the first pass only: the second has them.
    this.data = c.params.dataTrace && o.prior === undefined ? dataReader(this.at, this.found) : undefined;
    this.feed = new LaggedFeed<RetirementRecord>(
      (record) => {
        this.model.push(record);
        this.records++;
        if (o.detail) this.kept.push(record);
      },
      READY_OFFSET,
      this.idx['tx_ready_i']! >= 0,
    );
    // The model takes the stream's data accesses before the first record: from a pass before this one.
    const prior = o.prior as DataTrace | undefined;
    this.model = new StreamEncoder(c, { keepPackets: o.detail, ready: this.feed.ready, ...(prior ? { data: prior } : {}) });
    this.actual = o.capture ? ByteLog.of(o.capture) : new ByteLog();
  }

  cycle(t: number, v: readonly bigint[]): void {
    const i = this.idx;
    this.cycles = t + 1;
    const bit = (k: number): boolean => k >= 0 && (v[k]! & 1n) === 1n;
    this.feed.readyInput(bit(i['tx_ready_i']!));
    if (!this.o.capture && bit(i['tx_valid_o']!) && bit(i['tx_ready_i']!)) this.actual.push(Number(v[i['tx_data_o']!]! & 0xffn), t);
    if (bit(i['psel_i']!) && bit(i['penable_i']!) && bit(i['pwrite_i']!) && (i['pready_o']! < 0 || bit(i['pready_o']!))) {
      const addr = v[i['paddr_i']!]!;
      const data = v[i['pwdata_i']!]!;
      if (this.endCycle === undefined && addr === TR_TE_CONTROL && (data & TR_TE_ENABLE) === 0n) {
        this.endCycle = t;
        return;
      }
      // A write that leaves every option as the session runs with it (firmware rewriting its
      // configuration) changes nothing; the cycle's hart inputs are a record as any other's.
      const unchanged = this.options.get(addr);
      if (unchanged === undefined || (data & unchanged.mask) !== unchanged.value) {
        throw new RvError(
          'bad-value',
          `cycle ${t}: an APB write of 0x${data.toString(16)} to register 0x${addr.toString(16).padStart(3, '0')}${addr === TR_TE_CONTROL ? ' (trTeControl)' : ''}: the check does not model run-time reprogramming yet (only the write to trTeControl that clears trTeEnable, the end of the session, and writes that leave the options as they are)`,
        );
      }
    }
    if (this.endCycle !== undefined) return;
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
    const expected = this.model.finish();
    const actual = this.actual.view();
    const ended = this.endCycle !== undefined;
    // A waveform that ends inside the session shows the first bytes of the model's stream.
    const compared: EncodeResult = ended || actual.length > expected.bytes.length ? expected : { ...expected, bytes: expected.bytes.subarray(0, actual.length) };
    const summary =
      `${this.cycles} cycles, ${this.records} records, ${this.holds} held, ${Math.min(actual.length, compared.bytes.length)} bytes compared` +
      (ended ? `, session ended at cycle ${this.endCycle}` : `; the session did not end in the waveform: the model's last ${expected.bytes.length - compared.bytes.length} bytes were not compared`);
    const n = compared.bytes.length;
    let offset = 0;
    while (offset < Math.min(n, actual.length) && compared.bytes[offset] === actual[offset]) offset++;
    if (offset < n || offset < actual.length) {
      const m = this.o.detail ? compareStreams(this.c, compared, actual, this.kept) : undefined;
      // A capture has no cycles: the divergence is where it is in the file.
      const cycle = this.o.capture ? undefined : this.actual.cycleOf(offset);
      const head = cycle === undefined ? `first divergence at byte ${offset} of the capture` : `first divergence at byte ${offset}, waveform cycle ${cycle}`;
      return { pass: false, summary, mismatch: m ? `${head}\n${m.text}` : head, ...(cycle === undefined ? {} : { mismatchCycle: cycle }) };
    }
    if (ended && this.c.options.stallEnable && this.holds !== expected.stallCycles) {
      return { pass: false, summary, mismatch: `the waveform held the hart (stall_o) ${this.holds} cycles, the model stalled ${expected.stallCycles}`, mismatchCycle: this.endCycle! };
    }
    return { pass: true, summary };
  }
}

/**
 * The read-write option fields of every 32-bit register of the map (registers.ts), write-1-to-clear
 * status bits apart: their bits and the configuration's values, what the session runs with.
 */
function optionFields(c: EtraceConfig): Map<bigint, { mask: bigint; value: bigint }> {
  const out = new Map<bigint, { mask: bigint; value: bigint }>();
  for (const block of etraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      const fields = reg.fields.filter((f) => f.access === 'read-write' && f.oneToClear !== true);
      if (reg.size !== 32 || fields.length === 0) continue;
      let mask = 0n;
      let value = 0n;
      for (const f of fields) {
        const bits = ((1n << BigInt(f.bitWidth)) - 1n) << BigInt(f.bitOffset);
        mask |= bits;
        value |= (f.reset << BigInt(f.bitOffset)) & bits;
      }
      out.set(BigInt(block.baseAddress + reg.offset), { mask, value });
    }
  }
  return out;
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
