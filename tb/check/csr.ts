/**
 * The CSR port group that the CTR unit and the PMU counter block share (csr_valid_i, csr_addr_i,
 * csr_we_i, csr_wdata_i, csr_wmask_i, csr_priv_i, csr_v_i in; csr_rdata_o, csr_illegal_o,
 * csr_virtual_o out), read from the values `rvtrace check` samples in a cycle: the inverse of the
 * CSR part of their frame writers (tb/ctr/cosim.ts, tb/pmu/cosim.ts).
 */

/** A CSR access as both models take it (CtrCsrAccess, PmuCsrAccess). */
export interface SampledCsrAccess {
  address: number;
  write: boolean;
  wdata: bigint;
  wmask: bigint;
  /** 0 U, 1 S, 3 M (the port has 2 bits: debug mode is presented as M). */
  priv: number;
  v: boolean;
}

/** A CSR response as both models give it (CtrCsrResponse, PmuCsrResponse). */
export interface SampledCsrResponse {
  rdata: bigint;
  illegalInstruction: boolean;
  virtualInstruction: boolean;
}

export interface CsrPorts {
  /** The cycle's access (csr_valid_i 1), or undefined. */
  access(v: readonly bigint[]): SampledCsrAccess | undefined;
  /** The fields of an access without csr_valid_i (SCTRCLR uses csr_priv_i and csr_v_i). */
  mode(v: readonly bigint[]): { priv: number; v: boolean };
  /** The response on the outputs in the cycle. */
  response(v: readonly bigint[]): SampledCsrResponse;
}

/** Reads the group from the mapped ports (`at`: a port's index in the sampled values, -1 when unmapped). */
export function csrPorts(at: (port: string) => number): CsrPorts {
  const [valid, addr, we, wdata, wmask, priv, cv, rdata, illegal, virt] = [
    'csr_valid_i', 'csr_addr_i', 'csr_we_i', 'csr_wdata_i', 'csr_wmask_i', 'csr_priv_i', 'csr_v_i', 'csr_rdata_o', 'csr_illegal_o', 'csr_virtual_o',
  ].map(at) as number[];
  const one = (v: readonly bigint[], k: number): boolean => k >= 0 && v[k] === 1n;
  const mode = (v: readonly bigint[]): { priv: number; v: boolean } => ({ priv: Number(v[priv!]!), v: one(v, cv!) });
  return {
    access: (v) => (one(v, valid!) ? { address: Number(v[addr!]!), write: one(v, we!), wdata: v[wdata!]!, wmask: v[wmask!]!, ...mode(v) } : undefined),
    mode,
    response: (v) => ({ rdata: v[rdata!]!, illegalInstruction: one(v, illegal!), virtualInstruction: one(v, virt!) }),
  };
}

/** True when two responses are the same (`data`: compare rdata too). */
export function sameResponse(a: SampledCsrResponse, b: SampledCsrResponse, data = true): boolean {
  return (!data || a.rdata === b.rdata) && a.illegalInstruction === b.illegalInstruction && a.virtualInstruction === b.virtualInstruction;
}
