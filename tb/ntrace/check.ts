/**
 * `rvtrace check` of an N-Trace encoder in the user's waveform: the inverse of ntraceFrameWriter
 * and of the APB side of tb/ntrace/cosim.ts. Per cycle out of reset:
 * - A cycle with stall_o 1 holds the hart (and repeats its APB access phase): nothing is taken.
 * - Otherwise the APB access phase of the cycle, if any (psel_i, penable_i), goes to the register
 *   model (NtraceControlRegisters): a read's data and pslverr_o, a write's pslverr_o are compared
 *   with prdata_o and pslverr_o (trTeControl's trTeEmpty and trTeInstStallOrOverflow bits are not:
 *   they depend on the FIFO's cycle); then the cycle's signal groups (group 0, and each further
 *   group that is not empty) become records, each passed through the register model (the triggers
 *   it passes on) and given to the model (NtraceStreamEncoder) as a cycle of its own, as the RTL
 *   takes one group a clock (holding the frame a clock for each further group).
 * - The model's ready(m) is mseo_ready_i of waveform cycle m + 1 (tb/check/lagged-feed.ts).
 * The model's MSEO bytes are compared with the bytes of the mseo_valid_o/mseo_ready_i handshake,
 * each in the cycle the model's FIFO sends it (its departures), or in order with a byte capture.
 * The bytes the model sends within the waveform must all be there; those still inside the encoder
 * or its FIFO when the waveform ends are not compared. The held cycles must be the model's stall
 * cycles (stall_enable) plus one a further group. The model keeps its byte stream (and in the
 * detailed pass its messages).
 */
import type { BlockCheck, CheckOptions, CheckOutcome, CheckPorts, CheckSession } from '../../core/check.ts';
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { NtraceStreamEncoder } from '../../golden-model/ntrace/output.ts';
import { ntracePorts } from '../../golden-model/ntrace/ports.ts';
import { NtraceControlRegisters } from '../../golden-model/ntrace/registers.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { LaggedFeed } from '../check/lagged-feed.ts';
import { ByteLog } from '../check/logs.ts';
import { dueBefore, firstMistimed, itemAt } from '../check/timing.ts';
import { compareNtrace, NTRACE_READY_OFFSET } from './cosim.ts';

const MSEO = ['mseo_data_o', 'mseo_valid_o', 'mseo_ready_i'];
const APB_IN = ['psel_i', 'penable_i', 'pwrite_i', 'paddr_i', 'pwdata_i', 'pstrb_i'];
const APB_OUT = ['prdata_o', 'pslverr_o'];
/** trTeControl, and its bits that depend on the FIFO's cycle: trTeEmpty (3), trTeInstStallOrOverflow (12). */
const TR_TE_CONTROL = 0x000;
const TIMING_BITS = (1 << 3) | (1 << 12);

function checkPorts(c: NtraceConfig, o: CheckOptions): CheckPorts {
  const ports = ntracePorts(c).filter((p) => p.group !== 'clock');
  const hart = ports.filter((p) => p.direction === 'in' && (p.group === 'hart' || p.group === 'sideband')).map((p) => p.name);
  const required = [...hart, 'stall_o', ...(o.capture ? [] : MSEO)];
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required, groups: [[...APB_IN, ...APB_OUT]] };
}

class NtraceCheckSession implements CheckSession {
  private readonly k: Record<string, number>;
  private readonly model: NtraceStreamEncoder;
  private readonly feed: LaggedFeed<RetirementRecord>;
  private readonly regs: NtraceControlRegisters;
  private readonly actual: ByteLog;
  private readonly scratch: RetirementRecord[] = [];
  private cycles = 0;
  private records = 0;
  private holds = 0;
  private groupHolds = 0;
  private apb = 0;
  private divergence: { cycle: number; text: string } | undefined;

  constructor(
    private readonly c: NtraceConfig,
    mapped: readonly string[],
    private readonly o: CheckOptions & { readonly detail: boolean },
  ) {
    this.k = Object.fromEntries(ntracePorts(c).map((p) => [p.name, mapped.indexOf(p.name)]));
    this.regs = new NtraceControlRegisters(c);
    this.feed = new LaggedFeed<RetirementRecord>(
      (r) => {
        this.model.push(r);
        this.records++;
      },
      NTRACE_READY_OFFSET,
      this.k['mseo_ready_i']! >= 0,
    );
    this.model = new NtraceStreamEncoder(c, { ready: this.feed.ready, messages: o.detail, departures: true });
    this.actual = o.capture ? ByteLog.of(o.capture) : new ByteLog();
  }

  private bit(v: readonly bigint[], port: string): boolean {
    const i = this.k[port]!;
    return i >= 0 && (v[i]! & 1n) === 1n;
  }

  private num(v: readonly bigint[], port: string): bigint {
    const i = this.k[port]!;
    return i >= 0 ? v[i]! : 0n;
  }

  cycle(t: number, v: readonly bigint[]): void {
    this.cycles = t + 1;
    this.feed.readyInput(this.bit(v, 'mseo_ready_i'));
    if (!this.o.capture && this.bit(v, 'mseo_valid_o') && this.bit(v, 'mseo_ready_i')) this.actual.push(Number(this.num(v, 'mseo_data_o') & 0xffn), t);
    if (this.bit(v, 'stall_o')) {
      this.holds++;
      return;
    }
    if (this.bit(v, 'psel_i') && this.bit(v, 'penable_i')) this.access(t, v);
    this.scratch.length = 0;
    this.groups(v, this.scratch);
    this.groupHolds += this.scratch.length - 1;
    for (const r of this.scratch) this.feed.add(this.regs.take(r), t);
    this.feed.advance(t);
  }

  /** The cycle's APB access phase: the register model's answer against the waveform's. */
  private access(t: number, v: readonly bigint[]): void {
    const address = Number(this.num(v, 'paddr_i'));
    const write = this.bit(v, 'pwrite_i');
    const e = write ? this.regs.write(address, Number(this.num(v, 'pwdata_i')), Number(this.num(v, 'pstrb_i'))) : this.regs.read(address);
    this.apb++;
    const mask = write ? 0 : address === TR_TE_CONTROL ? ~TIMING_BITS >>> 0 : 0xffffffff;
    const data = Number(this.num(v, 'prdata_o'));
    const error = this.bit(v, 'pslverr_o');
    if (((data & mask) >>> 0) === ((e.data & mask) >>> 0) && error === e.error) return;
    const what = `APB ${write ? `write of 0x${Number(this.num(v, 'pwdata_i')).toString(16)}` : 'read'} at 0x${address.toString(16).padStart(3, '0')}`;
    this.divergence ??= { cycle: t, text: `first difference at cycle ${t}: ${what}: model data 0x${e.data.toString(16)} pslverr ${e.error ? 1 : 0}, RTL data 0x${data.toString(16)} pslverr ${error ? 1 : 0} (data bits compared 0x${mask.toString(16)})` };
  }

  /** The records of the cycle's signal groups (group 0, then each further group that is not empty). */
  private groups(v: readonly bigint[], out: RetirementRecord[]): void {
    const c = this.c;
    const field = (port: string, g: number, w: number): bigint => (this.num(v, port) >> BigInt(g * w)) & ((1n << BigInt(w)) - 1n);
    const shared = {
      priv: Number(this.num(v, 'priv_i')),
      context: this.num(v, 'context_i'),
      halted: this.bit(v, 'halted_i'),
      reset: this.bit(v, 'reset_i'),
      time: this.num(v, 'tstamp_i'),
    };
    for (let g = 0; g < c.takenBranches; g++) {
      const itype = Number(field('itype_i', g, 4));
      const iretire = Number(field('iretire_i', g, c.iretireWidth));
      if (g > 0 && itype === 0 && iretire === 0) break;
      out.push({
        ...emptyRecord(),
        ...shared,
        itype,
        iretire,
        ilastsize: Number(field('ilastsize_i', g, 1)),
        iaddr: field('iaddr_i', g, c.xlen),
        trigger: Number(field('trigger_i', g, 3)),
        ctype: g === 0 ? Number(this.num(v, 'ctype_i')) : 0,
      });
    }
  }

  finish(): CheckOutcome {
    this.feed.end();
    const expected = this.model.finish();
    const actual = this.actual.view();
    // The waveform cycle each of the model's bytes leaves in; a capture has no cycles (all compared).
    const due = this.o.capture ? undefined : expected.departures!.map((m) => m + NTRACE_READY_OFFSET);
    // The bytes the model sends within the waveform must all be there; later ones are not compared.
    const shown = due ? dueBefore(due, this.cycles) : expected.bytes.length;
    const n = Math.min(expected.bytes.length, Math.max(actual.length, shown));
    const compared = { bytes: expected.bytes.subarray(0, n), messages: expected.messages };
    const summary =
      `${this.cycles} cycles, ${this.records} records, ${this.holds} held, ${Math.min(n, actual.length)} bytes compared, ${this.apb} APB accesses compared` +
      (n < expected.bytes.length ? `; the model's last ${expected.bytes.length - n} bytes were still in the encoder when the waveform ended` : '');
    if (this.divergence) return { pass: false, summary, mismatch: this.divergence.text, mismatchCycle: this.divergence.cycle };
    let offset = 0;
    while (offset < Math.min(n, actual.length) && compared.bytes[offset] === actual[offset]) offset++;
    // Bytes right but in another cycle than the model's, before any wrong byte.
    const late = due && firstMistimed(this.actual, due, offset);
    if (late) {
      // The detailed pass names the message the byte belongs to (the bytes are the model's).
      const i = itemAt(expected.messages, late.byte);
      const m = expected.messages[i];
      const where = m ? `\n  the byte is in model message ${i} @${m.offset}: ${m.name} ${Object.entries(m.fields).map(([f, v]) => `${f}=${String(v)}`).join(' ')}` : '';
      return { pass: false, summary, mismatch: late.text + where, mismatchCycle: late.cycle };
    }
    const bytes = compareNtrace(compared, actual);
    if (bytes !== undefined) {
      // A capture has no cycles: the divergence is where it is in the file. A byte the waveform
      // does not show diverges in the cycle the model sends it.
      const cycle = due === undefined ? undefined : offset < actual.length ? this.actual.cycleOf(offset) : due[offset]!;
      const head = cycle === undefined ? `first divergence at byte ${offset} of the capture` : `first divergence at byte ${offset}, waveform cycle ${cycle}`;
      return { pass: false, summary, mismatch: `${head}\n${bytes}`, ...(cycle === undefined ? {} : { mismatchCycle: cycle }) };
    }
    if (this.holds !== expected.stallCycles + this.groupHolds) {
      return { pass: false, summary, mismatch: `the waveform held the hart (stall_o) ${this.holds} cycles, the model stalled ${expected.stallCycles} (+ ${this.groupHolds} for the cycles' further groups)`, mismatchCycle: this.cycles - 1 };
    }
    return { pass: true, summary };
  }
}

export const ntraceCheck: BlockCheck<NtraceConfig> = {
  ports: checkPorts,
  start: (c, mapped, o) => new NtraceCheckSession(c, mapped, o),
};
