/**
 * `rvtrace check` of a tandem-verification trace encoder in the user's waveform: the inverse of
 * tvtraceFrameFiller (tb/tvtrace/cosim.ts). A record is taken in a cycle where rec_valid_i and
 * rec_ready_o are both 1; its kind (kind_i) says which ports carry it, and their valid bits which
 * optional fields it has (the other ports are don't-care, as the frame filler's random bytes
 * prove). The model (TvEncoder) encodes each record as it is taken, and its bytes are compared in
 * order with the bytes of the beats (tv_valid_o and tv_ready_i: the low tv_bytes_o bytes of
 * tv_data_o, whose bytes above must be zero), or with a byte capture. The model's bytes are taken
 * out as they are made and dropped once compared: memory follows the distance between the model
 * and the waveform's output, not the waveform. The check steps the FIFO's cycle model
 * (tb/tvtrace/timing.ts) with the waveform's tv_ready_i, as the co-simulation does, so each cycle's
 * beat must carry as many bytes as the model's (none when it has none) and rec_ready_o must be 1
 * exactly when the model's record register is free (a 0 holds the hart); with a capture, which has
 * no cycles, only the bytes are compared. A waveform that ends with bytes still in the FIFO: the
 * bytes not seen are counted, not compared.
 */
import type { BlockCheck, CheckOptions, CheckOutcome, CheckPorts, CheckSession } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { TvEncoder } from '../../golden-model/tvtrace/encoder.ts';
import { formatTvRecord } from '../../golden-model/tvtrace/formats/text.ts';
import { type TvInstr, type TvMemTransaction, tvMemRequestHasData, tvMemResponseHasData, type TvPriv, type TvRecord, TV_RECORD_KINDS } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { TV_CSR_SLOTS, TV_MEM_SLOTS, tvtracePorts } from '../../generator/tvtrace/ports.ts';
import { TvFifoClock } from './timing.ts';

const OUTPUT = ['tv_data_o', 'tv_bytes_o', 'tv_valid_o'];
/** Records kept for a divergence report (the last ones taken, with their first byte's offset). */
const RECENT = 8;

function checkPorts(c: TvtraceRtlConfig, o: CheckOptions): CheckPorts {
  const ports = tvtracePorts(c).filter((p) => p.group !== 'clock');
  const required = ports.map((p) => p.name).filter((p) => !(o.capture && (OUTPUT.includes(p) || p === 'tv_ready_i')));
  return { ports: ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })), required };
}

/** A record as the text format writes it, or what is wrong with it. */
function describe(r: TvRecord, index: number): string {
  try {
    return formatTvRecord(r, index);
  } catch (e) {
    return `${r.kind} (${(e as Error).message})`;
  }
}

const hex = (b: ArrayLike<number>): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

class TvtraceCheckSession implements CheckSession {
  private readonly k: Record<string, number>;
  private readonly enc: TvEncoder;
  /** The FIFO's cycle model, stepped with the waveform (not with a capture). */
  private readonly clock: TvFifoClock | undefined;
  private readonly record: (v: readonly bigint[]) => TvRecord;
  /** The model's bytes not yet compared: expected[head..]; `offset` is the stream offset of expected[0]. */
  private expected = new Uint8Array(1 << 12);
  private head = 0;
  private tail = 0;
  private offset = 0;
  private compared = 0;
  private records = 0;
  private cycles = 0;
  private readonly recent: { index: number; offset: number; record: TvRecord }[] = [];
  /** The first divergence; no cycle for a byte of a capture. */
  private divergence: { cycle?: number; text: string } | undefined;

  constructor(
    private readonly c: TvtraceRtlConfig,
    mapped: readonly string[],
    private readonly o: CheckOptions,
  ) {
    this.k = Object.fromEntries(tvtracePorts(c).map((p) => [p.name, mapped.indexOf(p.name)]));
    this.enc = new TvEncoder(c);
    this.clock = o.capture ? undefined : new TvFifoClock(c);
    this.record = recordReader(c, (port, v) => (this.k[port]! >= 0 ? v[this.k[port]!]! : 0n));
  }

  private bit(v: readonly bigint[], port: string): boolean {
    const i = this.k[port]!;
    return i >= 0 && (v[i]! & 1n) === 1n;
  }

  cycle(t: number, v: readonly bigint[]): void {
    this.cycles = t + 1;
    if (this.divergence) return;
    // The beat of this cycle left bytes made by records taken before it.
    const beat = this.clock?.step(this.bit(v, 'tv_ready_i'));
    const shown = !this.o.capture && this.bit(v, 'tv_valid_o') && this.bit(v, 'tv_ready_i');
    const count = !shown ? 0 : this.c.outBytes > 1 ? Number(v[this.k['tv_bytes_o']!]!) : 1;
    if (shown) {
      const data = v[this.k['tv_data_o']!]!;
      if (count < 1 || count > this.c.outBytes || data >> BigInt(8 * count) !== 0n) {
        this.divergence = { cycle: t, text: `a beat of ${count} bytes (tv_bytes_o) with tv_data_o 0x${data.toString(16)}: 1 to ${this.c.outBytes} bytes, and zero above them` };
        return;
      }
      for (let i = 0; i < count && !this.divergence; i++) this.compare(Number((data >> BigInt(8 * i)) & 0xffn), t);
      if (this.divergence) return;
    }
    if (beat !== undefined && beat !== count) {
      const what = (n: number): string => (n === 0 ? 'no beat' : `a beat of ${n} byte(s)`);
      this.divergence = { cycle: t, text: `first difference at cycle ${t}: the waveform shows ${what(count)}, the FIFO's cycle model ${what(beat)} (the bytes so far are the model's)` };
      return;
    }
    const ready = this.bit(v, 'rec_ready_o');
    if (this.clock && ready !== this.clock.free) {
      this.divergence = { cycle: t, text: `first difference at cycle ${t}: rec_ready_o is ${ready ? 1 : 0}, the FIFO's cycle model ${this.clock.free ? 'has its record register free (1)' : 'still holds a record (0: the hart is held)'}` };
      return;
    }
    if (this.bit(v, 'rec_valid_i') && ready) {
      const r = this.record(v);
      this.recent.push({ index: this.records, offset: this.offset + this.tail, record: r });
      if (this.recent.length > RECENT) this.recent.shift();
      try {
        this.enc.encode(r);
      } catch (e) {
        throw new RvError('bad-value', `cycle ${t}: the record taken (${describe(r, this.records)}) does not encode: ${(e as Error).message}`);
      }
      this.records++;
      const bytes = this.enc.take();
      if (this.clock) {
        if (bytes.length > this.c.fifoBytes) throw new RvError('bad-value', `cycle ${t}: the record taken (${describe(r, this.records - 1)}) makes ${bytes.length} bytes, more than the ${this.c.fifoBytes}-byte FIFO holds`);
        this.clock.take(bytes.length);
      }
      this.append(bytes);
    }
  }

  /** The model's new bytes at the end of the ones not compared yet. */
  private append(bytes: Uint8Array): void {
    if (this.tail + bytes.length > this.expected.length) {
      const live = this.expected.subarray(this.head, this.tail);
      const bigger = this.tail - this.head + bytes.length > this.expected.length / 2 ? new Uint8Array(Math.max(this.expected.length * 2, (this.tail - this.head + bytes.length) * 2)) : this.expected;
      bigger.set(live);
      this.offset += this.head;
      this.tail -= this.head;
      this.head = 0;
      this.expected = bigger;
    }
    this.expected.set(bytes, this.tail);
    this.tail += bytes.length;
  }

  /** One byte of the waveform (in `cycle`) or of the capture (no cycle) against the model's next byte. */
  private compare(actual: number, cycle?: number): void {
    const at = this.offset + this.head;
    if (this.head < this.tail && this.expected[this.head] === actual) {
      this.head++;
      this.compared++;
      return;
    }
    const model = this.expected.subarray(this.head, Math.min(this.tail, this.head + 16));
    const made = this.recent.filter((x) => x.offset <= at).pop();
    const lines = [
      `first difference at byte ${at}${cycle === undefined ? ' of the capture' : `, cycle ${cycle}`}: model ${this.head < this.tail ? `0x${this.expected[this.head]!.toString(16).padStart(2, '0')}` : 'none (the records taken so far make no more bytes)'}, ${this.o.capture ? 'capture' : 'waveform'} 0x${actual.toString(16).padStart(2, '0')}`,
      `  model bytes from ${at}: ${hex(model)}`,
      ...(made ? [`  the model's byte belongs to record ${made.index} (its bytes start at ${made.offset}): ${describe(made.record, made.index)}`] : []),
      '  the last records taken:',
      ...this.recent.map((x) => `    record ${x.index} at byte ${x.offset}: ${describe(x.record, x.index)}`),
    ];
    this.divergence = { ...(cycle === undefined ? {} : { cycle }), text: lines.join('\n') };
  }

  finish(): CheckOutcome {
    if (this.o.capture && !this.divergence) for (const b of this.o.capture) if (!this.divergence) this.compare(b);
    const unseen = this.tail - this.head;
    const summary = `${this.cycles} cycles, ${this.records} records, ${this.compared} bytes compared${unseen > 0 && !this.divergence ? `; the model's last ${unseen} bytes were not in the ${this.o.capture ? 'capture' : 'waveform'} (still in the FIFO when it ended)` : ''}`;
    const d = this.divergence;
    if (d) return { pass: false, summary, mismatch: d.text, ...(d.cycle === undefined ? {} : { mismatchCycle: d.cycle }) };
    return { pass: true, summary };
  }
}

/** The record on the record ports (kind_i and the valid bits say which fields it has). */
function recordReader(c: TvtraceRtlConfig, port: (name: string, v: readonly bigint[]) => bigint): (v: readonly bigint[]) => TvRecord {
  const sw = BigInt(Math.max(c.xlen, c.flen));
  const mlen = BigInt(c.mlen);
  const xlen = BigInt(c.xlen);
  const slice = (v: bigint, bit: bigint, width: bigint): bigint => (v >> bit) & ((1n << width) - 1n);
  const opt = <T>(present: boolean, value: () => T): T | undefined => (present ? value() : undefined);
  /** Only the fields present (exactOptionalPropertyTypes: no key with an undefined value). */
  const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) as T;
  return (v) => {
    const p = (name: string): bigint => port(name, v);
    const one = (name: string): boolean => (p(name) & 1n) === 1n;
    const kind = TV_RECORD_KINDS[Number(p('kind_i'))]!;
    const instr = (): TvInstr | undefined => opt(one('instr_valid_i'), () => (one('instr_size_i') ? { size: 32 as const, bits: Number(p('instr_i') & 0xffff_ffffn) } : { size: 16 as const, bits: Number(p('instr_i') & 0xffffn) }));
    const priv = Number(p('priv_i')) as TvPriv;
    const sized = (code: bigint): 1 | 2 | 4 | 8 => (1 << Number(code)) as 1 | 2 | 4 | 8;
    const trap = { nextPc: p('next_pc_i'), priv, status: p('xstatus_i'), cause: p('xcause_i'), epc: p('xepc_i'), tval: p('xtval_i') };
    switch (kind) {
      case 'instruction': {
        const csrs: { csr: number; value: bigint }[] = [];
        for (let s = 0; s < TV_CSR_SLOTS; s++) if ((p('csr_valid_i') >> BigInt(s)) & 1n) csrs.push({ csr: Number(slice(p('csr_addr_i'), BigInt(12 * s), 12n)), value: slice(p('csr_data_i'), xlen * BigInt(s), xlen) });
        const mem: TvMemTransaction[] = [];
        for (let s = 0; s < TV_MEM_SLOTS; s++) {
          if (((p('mem_valid_i') >> BigInt(s)) & 1n) === 0n) continue;
          const op = Number(slice(p('mem_op_i'), BigInt(4 * s), 4n));
          const bytes = sized(slice(p('mem_size_i'), BigInt(2 * s), 2n));
          const bits = BigInt(8 * bytes);
          const rsp = ((p('mem_rsp_valid_i') >> BigInt(s)) & 1n) === 1n;
          mem.push(
            defined({
              op,
              bytes,
              addr: slice(p('mem_addr_i'), mlen * BigInt(s), mlen),
              data: opt(tvMemRequestHasData(op), () => slice(p('mem_data_i'), sw * BigInt(s), bits)),
              response: opt(rsp, () => defined({ ok: ((p('mem_rsp_fail_i') >> BigInt(s)) & 1n) === 0n, data: opt(tvMemResponseHasData(op), () => slice(p('mem_rsp_data_i'), sw * BigInt(s), bits)) })),
            }),
          );
        }
        const store = sized(p('store_size_i'));
        return defined({
          kind,
          nextPc: p('next_pc_i'),
          instr: instr(),
          priv: opt(one('priv_valid_i'), () => priv),
          gpr: opt(one('gpr_valid_i'), () => ({ reg: Number(p('gpr_addr_i')), value: p('gpr_data_i') })),
          fpr: opt(c.flen > 0 && one('fpr_valid_i'), () => ({ reg: Number(p('fpr_addr_i')), value: p('fpr_data_i') })),
          csrs: opt(csrs.length > 0, () => csrs),
          fcsr: opt(one('fcsr_valid_i'), () => p('fcsr_i')),
          eaddr: opt(one('eaddr_valid_i'), () => p('eaddr_i')),
          paddr: opt(one('paddr_valid_i'), () => p('paddr_i')),
          storeData: opt(one('store_valid_i'), () => ({ bytes: store, value: slice(p('store_data_i'), 0n, BigInt(8 * store)) })),
          pcPaddr: opt(one('pc_paddr_valid_i'), () => p('pc_paddr_i')),
          mem: opt(mem.length > 0, () => mem),
        });
      }
      case 'trap':
        return defined({ kind, ...trap, instr: instr() });
      case 'interrupt':
        return { kind, ...trap };
      case 'xret':
        return defined({ kind, nextPc: p('next_pc_i'), instr: instr(), priv, mstatus: p('xstatus_i') });
      case 'debug-reg':
        // The first valid of gpr, fpr, CSR slot 0 (the frame filler leaves the ones after it random).
        if (one('gpr_valid_i')) return { kind, file: 'gpr', index: Number(p('gpr_addr_i')), value: p('gpr_data_i') };
        if (c.flen > 0 && one('fpr_valid_i')) return { kind, file: 'fpr', index: Number(p('fpr_addr_i')), value: p('fpr_data_i') };
        return { kind, file: 'csr', index: Number(slice(p('csr_addr_i'), 0n, 12n)), value: slice(p('csr_data_i'), 0n, xlen) };
      case 'debug-mem': {
        const bytes = sized(p('store_size_i'));
        return { kind, paddr: p('paddr_i'), bytes, value: slice(p('store_data_i'), 0n, BigInt(8 * bytes)) };
      }
      case 'reset':
        return { kind };
      case 'unobserved':
        return defined({ kind, mtime: opt(one('mtime_valid_i'), () => p('mtime_i')), mcycle: opt(one('mcycle_valid_i'), () => p('mcycle_i')), minstret: opt(one('minstret_valid_i'), () => p('minstret_i')) });
    }
  };
}

export const tvtraceCheck: BlockCheck<TvtraceRtlConfig> = {
  ports: checkPorts,
  start: (c, mapped, o) => new TvtraceCheckSession(c, mapped, o),
};
