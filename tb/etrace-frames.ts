/**
 * The input frames that drive the generated E-Trace encoder for a retirement stream: one frame per
 * clock cycle, every input port set. Shared by the Verilator co-simulation (tb/etrace-cosim.ts) and
 * the Icarus smoke test, so both simulators see the same cycles.
 *
 * Cycle alignment with the model's OutputFifo (golden-model/etrace/output.ts):
 * - Out of reset the encoder starts a trace session (the registers reset to the component's
 *   values) and sends the first support packet: the model's constructor.
 * - Record i is the frame of cycle i; the encoder registers it and decides in cycle i + 1, so model
 *   cycle c is RTL cycle c + READY_OFFSET, and tx_ready_i of RTL cycle t is the model's ready(t - 1).
 * - The session ends like the model's finish(): an APB write clearing trTeControl.trTeEnable whose
 *   access phase is the cycle after the last record, so the encoder ends the trace in model cycle N.
 *   Idle frames follow until the FIFO has drained.
 */
import type { EtraceConfig } from '../golden-model/etrace/config.ts';
import { etracePorts } from '../golden-model/etrace/ports.ts';
import { toItype3, type RetirementRecord } from '../golden-model/hart/records.ts';

/** Model cycle c is RTL cycle c + READY_OFFSET. */
export const READY_OFFSET = 1;

/** The trTeControl value that ends the session: trTeActive 1, trTeEnable 0, trTeInstTracing as configured. */
function endOfTraceWrite(c: EtraceConfig): number {
  return 0b001 | (c.options.iEnable ? 0b100 : 0);
}

/** Sets one input port of the current frame. */
export type SetPort = (port: string, value: number | bigint) => void;

export type ApbPhase = 'idle' | 'setup' | 'access';

/**
 * The frames of a whole run, in order: one per record, then the end-of-trace register write (its
 * setup phase rides on the last record's frame, its access phase follows), then idle frames until
 * the FIFO has drained. Calls `frame(set => ...)` once per frame; the callback sets every input.
 */
export function etraceFrames(c: EtraceConfig, records: readonly RetirementRecord[], backpressure: number, frame: (fill: (set: SetPort) => void) => void): void {
  const p = c.params;
  const hasSijump = p.sijump_p === 1;
  const hasImpdef = p.impdef_width_p > 0;
  const ports = new Set(etracePorts(c).map((q) => q.name));
  const hasContext = ports.has('context_i');
  const hasTime = ports.has('time_i');
  const privMask = (1 << p.privilege_width_p) - 1;
  const causeMask = (1 << p.ecause_width_p) - 1;
  const ctypeMask = (1 << p.ctype_width_p) - 1;
  const addrMask = (1n << BigInt(p.iaddress_width_p)) - 1n;
  const ctxMask = (1n << BigInt(p.context_width_p)) - 1n;
  const timeMask = (1n << BigInt(p.time_width_p)) - 1n;
  const impdefMask = (1 << p.impdef_width_p) - 1;
  const endWrite = endOfTraceWrite(c);
  const fill = (set: SetPort, r: RetirementRecord | undefined, apb: ApbPhase): void => {
    set('itype_i', r ? (p.itype_width_p === 3 ? toItype3(r.itype) : r.itype) : 0);
    set('iretire_i', r ? r.iretire : 0);
    set('ilastsize_i', r ? r.ilastsize : 0);
    set('iaddr_i', r ? r.iaddr & addrMask : 0n);
    if (hasSijump) set('sijump_i', r?.sijump ? 1 : 0);
    set('cause_i', r ? r.cause & causeMask : 0);
    set('tval_i', r ? r.tval & addrMask : 0n);
    set('priv_i', r ? r.priv & privMask : 0);
    if (hasContext) set('context_i', r ? r.context & ctxMask : 0n);
    set('ctype_i', r ? r.ctype & ctypeMask : 0);
    set('trigger_i', r ? r.trigger & 7 : 0);
    set('halted_i', r?.halted ? 1 : 0);
    set('reset_i', r?.reset ? 1 : 0);
    if (hasImpdef) set('impdef_i', r ? r.impdef & impdefMask : 0);
    if (hasTime) set('time_i', r ? r.time & timeMask : 0n);
    set('psel_i', apb === 'idle' ? 0 : 1);
    set('penable_i', apb === 'access' ? 1 : 0);
    set('pwrite_i', apb === 'idle' ? 0 : 1);
    set('paddr_i', 0);
    set('pwdata_i', apb === 'idle' ? 0 : endWrite);
    set('pstrb_i', apb === 'idle' ? 0 : 0b0001);
  };
  const n = records.length;
  for (let i = 0; i < n; i++) {
    const r = records[i];
    const apb: ApbPhase = i === n - 1 ? 'setup' : 'idle';
    frame((set) => fill(set, r, apb));
  }
  if (n === 0) frame((set) => fill(set, undefined, 'setup'));
  frame((set) => fill(set, undefined, 'access'));
  // The FIFO holds at most fifo_depth_p bytes; a byte leaves in each ready cycle.
  const drain = Math.ceil((2 * p.fifo_depth_p) / Math.max(0.05, 1 - backpressure)) + 64;
  for (let i = 0; i < drain; i++) frame((set) => fill(set, undefined, 'idle'));
}

