/**
 * A stand-in counter block for the firmware tests, written from the privileged spec apart from
 * unit.ts (which is developed on another branch): CSRs as plain registers with the legalisation
 * the tests rely on (mcountinhibit/mcounteren/scounteren keep the implemented bits, mhpmevent of
 * a missing counter reads 0, Sscofpmf bits only with Sscofpmf, selector masked to eventBits),
 * counters counting only `cycles` (selector mapped to cycles), filtered by mcountinhibit and, with
 * Sscofpmf, MINH/SINH/UINH. Every access is logged, so tests can check the firmware's exact CSR
 * traffic. S/U reads check mcounteren/scounteren only (no H).
 */
import type { PmuCsrAccess, PmuCsrResponse, PmuCycleInput, PmuCycleOutput } from '../../access.ts';
import { eventOf, type PmuConfig } from '../../config.ts';
import type { PmuStepper } from '../hart.ts';
import { emptyRecord } from '../../../hart/records.ts';

export class FakeBlock implements PmuStepper {
  readonly regs = new Map<number, bigint>();
  readonly log: PmuCsrAccess[] = [];
  private readonly xmask: bigint;
  private readonly bits: number;

  constructor(readonly config: PmuConfig) {
    this.xmask = (1n << BigInt(config.xlen)) - 1n;
    this.bits = (config.counterMask | 5) >>> 0;
  }

  get(address: number): bigint {
    return this.regs.get(address) ?? 0n;
  }

  private exists(address: number): boolean {
    const n = address & 0x1f;
    if (address >= 0xb00 && address < 0xb20) return n !== 1;
    if (address >= 0xc00 && address < 0xc20) return n !== 1;
    if (address > 0x322 && address < 0x340) return true;
    if ([0x320, 0x306, 0x106, 0xda0].includes(address)) return true;
    if ((address === 0x321 || address === 0x322) && this.config.smcntrpmf) return true;
    return false;
  }

  private legalise(address: number, v: bigint): bigint {
    if (address === 0x320) return v & BigInt(this.bits & ~2);
    if (address === 0x306 || address === 0x106) return v & BigInt(this.bits | 2);
    if (address > 0x322 && address < 0x340) {
      const n = address - 0x320;
      if (!((this.config.counterMask >>> n) & 1)) return 0n;
      const sel = v & ((1n << BigInt(this.config.eventBits)) - 1n);
      return sel | (this.config.sscofpmf ? v & (0xfcn << 56n) : 0n);
    }
    if (address >= 0xb03 && address < 0xb20 && !((this.config.counterMask >>> (address - 0xb00)) & 1)) return 0n;
    if (address === 0x321 || address === 0x322) return v & (0x1fn << 58n);
    return v & this.xmask;
  }

  private respond(a: PmuCsrAccess): PmuCsrResponse {
    if (!this.exists(a.address)) return { rdata: 0n, illegalInstruction: true, virtualInstruction: false };
    let address = a.address;
    if (address >= 0xc00 && address < 0xc20) {
      if (a.write) return { rdata: 0n, illegalInstruction: true, virtualInstruction: false };
      const n = address - 0xc00;
      if (a.priv < 3 && !((this.get(0x306) >> BigInt(n)) & 1n)) return { rdata: 0n, illegalInstruction: true, virtualInstruction: false };
      if (a.priv === 0 && !((this.get(0x106) >> BigInt(n)) & 1n)) return { rdata: 0n, illegalInstruction: true, virtualInstruction: false };
      address = 0xb00 + n;
    } else if (((a.address >> 8) & 3) > a.priv) return { rdata: 0n, illegalInstruction: true, virtualInstruction: false };
    if (a.address === 0xda0) {
      let ovf = 0n;
      for (let n = 3; n < 32; n++) if (this.get(0x320 + n) >> 63n) ovf |= 1n << BigInt(n);
      return { rdata: a.priv === 3 ? ovf : ovf & this.get(0x306), illegalInstruction: false, virtualInstruction: false };
    }
    return { rdata: this.get(address), illegalInstruction: false, virtualInstruction: false };
  }

  step(input: PmuCycleInput): PmuCycleOutput {
    const a = input.csr;
    const response = a ? this.respond(a) : undefined;
    if (a) this.log.push(a);
    // Counting, from the state at the start of the cycle.
    const written = a && a.write && response && !response.illegalInstruction ? a.address : -1;
    const priv = input.record.priv;
    const inhibit = this.get(0x320);
    for (const n of [0, 2, ...Array.from({ length: 29 }, (_, i) => i + 3)]) {
      if (!(n === 0 || n === 2 || (this.config.counterMask >>> n) & 1)) continue;
      if ((inhibit >> BigInt(n)) & 1n) continue;
      if (0xb00 + n === written) continue;
      let counts: boolean;
      if (n === 0) counts = true;
      else if (n === 2) counts = input.record.iretire > 0 && input.record.itype !== 1;
      else {
        const ev = this.get(0x320 + n);
        const event = eventOf(this.config, ev & ((1n << BigInt(this.config.eventBits)) - 1n));
        const inh = this.config.sscofpmf && ((priv === 3 && (ev >> 62n) & 1n) || (priv === 1 && (ev >> 61n) & 1n) || (priv === 0 && (ev >> 60n) & 1n));
        counts = !inh && event?.kind === 'stream' && event.name === 'cycles';
      }
      if (counts) {
        const width = n === 0 || n === 2 ? 64n : BigInt(this.config.counterWidth);
        this.regs.set(0xb00 + n, (this.get(0xb00 + n) + 1n) & ((1n << width) - 1n));
      }
    }
    if (written >= 0) {
      const mask = a!.wmask ?? this.xmask;
      const old = this.get(written);
      this.regs.set(written, this.legalise(written, (old & ~mask) | (a!.wdata & mask)));
    }
    return { ...(response ? { csr: response } : {}), lcofi: false };
  }
}

/** A bus over a fake block (one access = one step with an idle M-mode record). */
export function fakeBus(block: FakeBlock): { access(a: PmuCsrAccess): PmuCsrResponse } {
  return {
    access(a: PmuCsrAccess): PmuCsrResponse {
      return block.step({ record: { ...emptyRecord(), priv: 3 }, csr: a }).csr!;
    },
  };
}
