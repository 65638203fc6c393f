/**
 * The APB side of an N-Trace co-simulation: which register accesses ride on which frames, what the
 * register model (golden-model/ntrace/registers.ts NtraceControlRegisters) says each returns, and
 * the records it hands to the encoder model (the hart's, with the triggers the register file
 * passes on). The harness drives the same accesses into the RTL's APB port; every access phase of
 * a frame the RTL takes is captured and compared.
 *
 * Frames: `prologue` idle frames (records that do nothing, given to both sides) carrying a read of
 * every register, compared whole with the reset values; then the records, carrying the run-time
 * writes (trTeInstTracing off at 30% of the records, on again at 50%, trTeEnable off at 90%: the
 * hart's trace-on triggers are ignored from there) and a read of trTeControl every eighth of the
 * records (trTeEmpty and trTeInstStallOrOverflow masked: they depend on the cycle); then the end
 * record and the drain frames; then the epilogue, after the FIFO has drained: every register read
 * again (trTeEmpty 1, trTeInstStallOrOverflow as the model's stallOrOverflow), unmapped and
 * unaligned accesses (pslverr), a write to a read-only register, trTeInstStallOrOverflow cleared
 * by a write of 1 in byte lane 1, then trTeActive 0, trTeEnable back to 1 and trTeInstTracing back
 * to 1, each read back.
 *
 * An access takes two frames: the setup phase on the frame before the access phase. A held frame
 * repeats its access phase; only the cycle the frame is taken is captured (stall_o = 0), and
 * repeating a write changes nothing.
 */
import { emptyRecord, type RetirementRecord } from '../../golden-model/hart/records.ts';
import { type ApbResponse, NtraceControlRegisters, registerAddresses } from '../../golden-model/ntrace/registers.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import type { FrameWriter } from '../run.ts';

export type ApbOp =
  | { readonly kind: 'read'; readonly address: number; /** Bits compared (default all). */ readonly mask?: number }
  | { readonly kind: 'write'; readonly address: number; readonly data: number; readonly strb: number };

interface Scheduled {
  readonly op: ApbOp;
  /** The frame of the access phase (the setup phase is the frame before). */
  readonly frame: number;
  expected?: ApbResponse;
}

/** trTeControl read masks: trTeEmpty (bit 3) and trTeInstStallOrOverflow (bit 12) depend on the cycle. */
const TIMING_BITS = (1 << 3) | (1 << 12);
const CONTROL = 0x000;
/** trTeControl byte 0 values: trTeActive | trTeEnable << 1 | trTeInstTracing << 2. */
const CTL = { tracingOff: 0b011, tracingOn: 0b111, disabled: 0b001, inactive: 0b000 } as const;

export interface ApbCapture {
  readonly cycle: number;
  readonly values: readonly bigint[];
}

export class NtraceApbSession {
  readonly regs: NtraceControlRegisters;
  /** Idle frames before the records. */
  readonly prologue: number;
  /** Frames of the epilogue (after the drain frames). */
  readonly epilogue: number;
  private readonly ops: Scheduled[] = [];
  private readonly byFrame = new Map<number, { s: Scheduled; phase: 'setup' | 'access' }>();
  private stallOrOverflow: boolean | undefined;
  private readonly epilogueStart: number;

  /**
   * `records`: frames of the run's records (cycles: a frame carries all the signal groups of its
   * cycle), without the end record; `drain`: idle frames after the end record before the epilogue;
   * `runtimeWrites`: whether the trace-off, trace-on and disable writes ride on the records.
   */
  constructor(readonly config: NtraceConfig, records: number, drain: number, runtimeWrites = true) {
    this.regs = new NtraceControlRegisters(config);
    const addresses = registerAddresses(config);
    this.prologue = 2 * addresses.length;
    addresses.forEach((address, k) => this.add({ kind: 'read', address }, 2 * k + 1));

    // Run time: on the record frames only (the encoder model sees every one of them).
    const first = this.prologue;
    const end = this.prologue + records; // frames first..end-1 carry records
    const at = (fraction: number): number => first + Math.max(1, Math.floor(records * fraction));
    const mid: [ApbOp, number][] = runtimeWrites
      ? [
          [{ kind: 'write', address: CONTROL, data: CTL.tracingOff, strb: 0b0001 }, at(0.3)],
          [{ kind: 'write', address: CONTROL, data: CTL.tracingOn, strb: 0b0001 }, at(0.5)],
          [{ kind: 'write', address: CONTROL, data: CTL.disabled, strb: 0b0001 }, at(0.9)],
        ]
      : [];
    for (let k = 1; k < 8; k++) mid.push([{ kind: 'read', address: CONTROL, mask: ~TIMING_BITS }, at(k / 8)]);
    mid.sort((a, b) => a[1] - b[1]);
    for (const [op, want] of mid) {
      let f = want;
      while (this.byFrame.has(f) || this.byFrame.has(f - 1)) f++;
      if (f < end) this.add(op, f);
    }

    // The epilogue, after the end record and the drain frames.
    this.epilogueStart = end + 1 + drain;
    const tail: ApbOp[] = [];
    const read = (address: number): void => void tail.push({ kind: 'read', address });
    const write = (address: number, data: number, strb: number): void => void tail.push({ kind: 'write', address, data, strb });
    addresses.forEach(read);
    read(0x002); // not word-aligned
    read(0x020); // no register
    write(0x044, 0xffff_ffff, 0xf); // no register
    write(0x008, 0xffff_ffff, 0xf); // trTeInstFeatures: read-only
    read(0x008);
    write(CONTROL, 0xffff_ffff, 0b0010); // byte lane 1 only: clears trTeInstStallOrOverflow, nothing else
    read(CONTROL);
    write(CONTROL, CTL.inactive, 0b0001);
    read(CONTROL);
    read(0x040); // trTsActive follows trTeActive
    write(CONTROL, CTL.tracingOff, 0b0001); // trTeEnable 0 -> 1
    read(CONTROL);
    write(CONTROL, CTL.tracingOn, 0b0001); // a trace-on request, taken by the next idle frame
    read(CONTROL);
    tail.forEach((op, k) => this.add(op, this.epilogueStart + 2 * k + 1));
    this.epilogue = 2 * tail.length + 1;
  }

  private add(op: ApbOp, frame: number): void {
    const s: Scheduled = { op, frame };
    this.ops.push(s);
    this.byFrame.set(frame - 1, { s, phase: 'setup' });
    this.byFrame.set(frame, { s, phase: 'access' });
  }

  /** Total frames of a run: prologue, record frames, end record, drain, epilogue. */
  frames(records: number, drain: number): number {
    return this.prologue + records + 1 + drain + this.epilogue;
  }

  /** The prologue's records: idle cycles. */
  prologueRecords(): RetirementRecord[] {
    return Array.from({ length: this.prologue }, () => emptyRecord());
  }

  /**
   * Frame `f` on the model side, in frame order: its access (the expected response recorded), then
   * the records of its signal groups taken, as the encoder must see them. Before the epilogue, `endOfRun` must have given
   * the model's final status.
   */
  frame(f: number, rs: readonly RetirementRecord[]): RetirementRecord[] {
    if (f === this.epilogueStart) {
      if (this.stallOrOverflow === undefined) throw new Error('NtraceApbSession: endOfRun() before the epilogue');
      this.regs.stallOrOverflow = this.stallOrOverflow;
      this.regs.empty = true;
    }
    const at = this.byFrame.get(f);
    if (at !== undefined && at.phase === 'access') {
      const op = at.s.op;
      at.s.expected = op.kind === 'read' ? this.regs.read(op.address) : this.regs.write(op.address, op.data, op.strb);
    }
    // The register file takes a frame's signal groups in order, in the clock the frame is taken.
    return rs.map((r) => this.regs.take(r));
  }

  /** The model's status at the end of the records (the FIFO is then empty). */
  endOfRun(stallOrOverflow: boolean): void {
    this.stallOrOverflow = stallOrOverflow;
  }

  /** Sets the APB inputs of frame `f` (the setters bound once per writer). */
  driver(w: FrameWriter): (f: number) => void {
    const psel = w.setter('psel_i');
    const penable = w.setter('penable_i');
    const pwrite = w.setter('pwrite_i');
    const paddr = w.setter('paddr_i');
    const pwdata = w.setter('pwdata_i');
    const pstrb = w.setter('pstrb_i');
    return (f) => {
      const at = this.byFrame.get(f);
      if (at === undefined) {
        psel(0);
        penable(0);
        pwrite(0);
        paddr(0);
        pwdata(0);
        pstrb(0);
        return;
      }
      const op = at.s.op;
      psel(1);
      penable(at.phase === 'access' ? 1 : 0);
      pwrite(op.kind === 'write' ? 1 : 0);
      paddr(op.address);
      pwdata(op.kind === 'write' ? op.data >>> 0 : 0);
      pstrb(op.kind === 'write' ? op.strb : 0);
    };
  }

  /**
   * The model's response of every access, in order, with the bits compared (prdata; pslverr always):
   * what `compare` checks, for vectors (tb/ntrace/vectors.ts). Call after every frame was given.
   */
  expectedResponses(): { readonly data: number; readonly error: boolean; readonly mask: number }[] {
    return this.ops.map((s, k) => {
      const e = s.expected;
      if (e === undefined) throw new Error(`NtraceApbSession: APB access ${k} (frame ${s.frame}) has no expected response: the run ended before it`);
      return { data: e.data >>> 0, error: e.error, mask: (s.op.kind === 'read' ? s.op.mask ?? -1 : -1) >>> 0 };
    });
  }

  /** Accesses scheduled (reads and writes). */
  get accesses(): number {
    return this.ops.length;
  }

  /** The first access whose captured response (prdata_o, pslverr_o) differs from the model's. */
  compare(captured: readonly ApbCapture[]): string | undefined {
    const hex = (v: number | bigint): string => `0x${(BigInt(v) & 0xffff_ffffn).toString(16).padStart(8, '0')}`;
    for (let k = 0; k < this.ops.length; k++) {
      const s = this.ops[k]!;
      const e = s.expected;
      if (e === undefined) return `APB access ${k} (frame ${s.frame}) has no expected response: the run ended before it`;
      const got = captured[k];
      const what = `${s.op.kind} of 0x${s.op.address.toString(16).padStart(3, '0')}${s.op.kind === 'write' ? ` (data ${hex(s.op.data)}, strobes ${s.op.strb.toString(2).padStart(4, '0')})` : ''}`;
      if (got === undefined) return `APB access ${k}, ${what} in frame ${s.frame}: not captured (${captured.length} access phases captured)`;
      const mask = BigInt((s.op.kind === 'read' ? s.op.mask ?? -1 : -1) >>> 0);
      const data = got.values[0]! & mask;
      const want = BigInt(e.data >>> 0) & mask;
      const err = got.values[1] !== 0n;
      if (data !== want || err !== e.error) {
        return `APB access ${k}, ${what} in frame ${s.frame} (RTL cycle ${got.cycle}): RTL prdata ${hex(got.values[0]!)} pslverr ${err ? 1 : 0}, model ${hex(e.data)} pslverr ${e.error ? 1 : 0}${mask !== 0xffff_ffffn ? ` (compared under mask ${hex(mask)})` : ''}`;
      }
    }
    if (captured.length !== this.ops.length) return `${captured.length} APB access phases captured, ${this.ops.length} expected`;
    return undefined;
  }
}
