/**
 * What the PMU counter block takes and gives each clock, shared by the model (unit.ts), the SBI
 * firmware layer (sbi/, which issues CSR accesses as M-mode firmware does) and the co-simulation.
 *
 * Timing (the same as the CTR unit's CSR port): one CSR access a cycle at most; its response is
 * combinational from the state at the start of the cycle; a write takes effect at the clock edge,
 * after the cycle's counting (the priv spec: a CSR write takes effect after the writing instruction),
 * so a counter written in a cycle holds the written value, not that value plus the cycle's events,
 * and a CSR write never causes an overflow.
 */
import type { RetirementRecord } from '../hart/records.ts';

export interface PmuCsrAccess {
  /** CSR number, 12 bits. */
  address: number;
  /** The access writes (csrrw; csrrs/csrrc with a non-zero source). */
  write: boolean;
  wdata: bigint;
  /** Bits written: new = (old & ~wmask) | (wdata & wmask); default all ones (csrrw). */
  wmask?: bigint;
  /** Privilege of the access: 0 U, 1 S, 3 M, 4 debug (treated as M). */
  priv: number;
  /** V of the access (H extension). */
  v?: boolean;
}

export interface PmuCsrResponse {
  /** The CSR's value at the start of the cycle (XLEN bits); 0 when an exception is raised. */
  rdata: bigint;
  illegalInstruction: boolean;
  virtualInstruction: boolean;
}

export interface PmuCycleInput {
  /** The cycle's retirement record (one signal group, single retirement; iretire 0 = nothing retired, priv = the mode of the cycle). */
  record: RetirementRecord;
  /** V of the record's mode (H extension): VS = priv 1 with V, VU = priv 0 with V. */
  v?: boolean;
  /** Event inputs high in this cycle: bit k = input k. */
  events?: number;
  csr?: PmuCsrAccess;
}

export interface PmuCycleOutput {
  /** The response to the cycle's CSR access. */
  csr?: PmuCsrResponse;
  /**
   * lcofi_o in this cycle: high for one cycle after a clock edge at which an overflow set an OF
   * bit that was clear (the hart sets mip.LCOFIP from it).
   */
  lcofi: boolean;
}
