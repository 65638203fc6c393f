/**
 * The hart a script runs on: every clock of the counter block with its input, recorded in order
 * so the same cycles can be replayed through the RTL and every CSR response compared.
 * - Firmware (M-mode) CSR accesses: one cycle each, with an idle M-mode record.
 * - `retire(n)`: n cycles of stimulus records taken in S or U mode (generateStimulus with the
 *   default knobs, privileges MSU, the configuration's XLEN; M-mode records are skipped).
 * - `read(csr)`: one cycle with an S-mode access and an idle S-mode record.
 */
import type { PmuConfig } from '../config.ts';
import type { PmuCsrAccess, PmuCsrResponse, PmuCycleInput, PmuCycleOutput } from '../access.ts';
import { emptyRecord, type RetirementRecord } from '../../hart/records.ts';
import { generateStimulus } from '../../hart/stimulus/generate.ts';
import { defaultKnobs } from '../../hart/stimulus/knobs.ts';
import { PmuUnit } from '../unit.ts';

export interface SbiHart {
  /** One cycle with the firmware's M-mode access. */
  access(a: PmuCsrAccess): PmuCsrResponse;
  /** n cycles of S/U-mode stimulus records. */
  retire(n: number): void;
  /** One cycle with an S-mode read of `csr`. */
  read(csr: number): PmuCsrResponse;
}

/** Something that takes one clock's input: the counter block model (PmuUnit) or an RTL driver. */
export interface PmuStepper {
  step(input: PmuCycleInput): PmuCycleOutput;
}

export interface StepperHartOptions {
  seed?: number;
}

const NO_RESPONSE: PmuCsrResponse = { rdata: 0n, illegalInstruction: true, virtualInstruction: false };

export class StepperHart implements SbiHart {
  /** Every cycle's input, in order. */
  readonly cycles: PmuCycleInput[] = [];
  /** Every cycle's output, in order. */
  readonly outputs: PmuCycleOutput[] = [];
  private pool: RetirementRecord[] = [];
  private next = 0;
  private poolSize = 4096;

  constructor(
    readonly config: PmuConfig,
    private readonly stepper: PmuStepper,
    private readonly options: StepperHartOptions = {},
  ) {}

  private cycle(input: PmuCycleInput): PmuCycleOutput {
    this.cycles.push(input);
    const out = this.stepper.step(input);
    this.outputs.push(out);
    return out;
  }

  access(a: PmuCsrAccess): PmuCsrResponse {
    return this.cycle({ record: { ...emptyRecord(), priv: 3 }, csr: a }).csr ?? NO_RESPONSE;
  }

  read(csr: number): PmuCsrResponse {
    return this.cycle({ record: { ...emptyRecord(), priv: 1 }, csr: { address: csr, write: false, wdata: 0n, priv: 1 } }).csr ?? NO_RESPONSE;
  }

  private refill(): void {
    const knobs = { ...defaultKnobs(), xlen: this.config.xlen, privileges: 'MSU' as const };
    const stream = generateStimulus(knobs, this.options.seed ?? 1, this.poolSize);
    this.pool = stream.records.filter((r) => (r.priv === 0 || r.priv === 1) && !r.sameCycle);
    if (this.next >= this.pool.length) {
      this.poolSize *= 2;
      if (this.poolSize > 1 << 22) throw new RangeError('the stimulus generator gives no S/U-mode records');
      this.refill();
    }
  }

  retire(n: number): void {
    for (let i = 0; i < n; i++) {
      if (this.next >= this.pool.length) {
        if (this.pool.length > 0) this.poolSize *= 2;
        this.refill();
      }
      this.cycle({ record: this.pool[this.next++]! });
    }
  }
}

/** The default hart: the counter-block model (PmuUnit) behind the recording hart. */
export function pmuUnitHart(config: PmuConfig, options: StepperHartOptions = {}): StepperHart {
  return new StepperHart(config, new PmuUnit(config), options);
}
