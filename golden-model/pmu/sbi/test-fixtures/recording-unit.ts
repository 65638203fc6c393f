/**
 * The counter-block model (unit.ts) with every CSR access the firmware makes logged, so firmware
 * tests can check its exact CSR traffic, and with `get`/`set` to look at and prepare registers
 * without going through the firmware (a halted cycle: nothing counts). Only test files import this.
 */
import type { PmuCsrAccess, PmuCsrResponse, PmuCycleInput, PmuCycleOutput } from '../../access.ts';
import type { PmuConfig } from '../../config.ts';
import { PmuUnit } from '../../unit.ts';
import type { PmuStepper } from '../hart.ts';
import { emptyRecord } from '../../../hart/records.ts';

export class RecordingUnit implements PmuStepper {
  readonly unit: PmuUnit;
  readonly log: PmuCsrAccess[] = [];

  constructor(config: PmuConfig) {
    this.unit = new PmuUnit(config);
  }

  step(input: PmuCycleInput): PmuCycleOutput {
    if (input.csr) this.log.push(input.csr);
    return this.unit.step(input);
  }

  /** The CSR's value (no access checks); 0 for a number the block does not implement. */
  get(address: number): bigint {
    return this.unit.peek(address) ?? 0n;
  }

  /** An M-mode write in a halted cycle, not logged. */
  set(address: number, value: bigint): void {
    this.unit.step({ record: { ...emptyRecord(), halted: true }, csr: { address, write: true, wdata: value, priv: 3 } });
  }
}

/** The firmware's bus over a block: each access one M-mode cycle with an idle record. */
export function busOf(block: PmuStepper): { access(a: PmuCsrAccess): PmuCsrResponse } {
  return {
    access(a: PmuCsrAccess): PmuCsrResponse {
      return block.step({ record: { ...emptyRecord(), priv: 3 }, csr: a }).csr!;
    },
  };
}
