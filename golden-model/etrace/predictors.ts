/**
 * The encoder's optional prediction structures (sections 3.2.5-3.2.7). The decoder keeps identical
 * copies, so every rule here is part of the trace format: index bits, initial values, what happens
 * when full. Both sides import this module.
 */

/** Branch predictor: 2^bpred_size_p two-bit counters, section 3.2.6. */
export class BranchPredictor {
  private readonly table: Uint8Array;
  private readonly mask: bigint;

  constructor(
    sizeP: number,
    private readonly lsb: number,
  ) {
    this.table = new Uint8Array(1 << sizeP);
    this.mask = BigInt((1 << sizeP) - 1);
    this.reset();
  }

  /** Every entry to 01 (predict not taken, last outcome taken): done at each synchronisation. */
  reset(): void {
    this.table.fill(0b01);
  }

  private index(addr: bigint): number {
    return Number((addr >> BigInt(this.lsb)) & this.mask);
  }

  /** The predicted outcome for the branch at `addr` (the state's MSB). */
  predict(addr: bigint): boolean {
    return (this.table[this.index(addr)]! & 0b10) !== 0;
  }

  /**
   * Updates the entry with the actual outcome; returns whether the prediction was right.
   * 00 -> (fail) 01; 01 -> (ok) 00, (fail) 11; 11 -> (fail) 10; 10 -> (ok) 11, (fail) 00.
   */
  update(addr: bigint, taken: boolean): boolean {
    const i = this.index(addr);
    const s = this.table[i]!;
    const predicted = (s & 0b10) !== 0;
    const ok = predicted === taken;
    let n: number;
    switch (s) {
      case 0b00:
        n = ok ? 0b00 : 0b01;
        break;
      case 0b01:
        n = ok ? 0b00 : 0b11;
        break;
      case 0b11:
        n = ok ? 0b11 : 0b10;
        break;
      default:
        n = ok ? 0b11 : 0b00;
        break;
    }
    this.table[i] = n;
    return ok;
  }
}

/** Jump target cache: 2^cache_size_p direct-mapped entries of target addresses, section 3.2.7. */
export class JumpTargetCache {
  private readonly entries: (bigint | undefined)[];
  private readonly mask: bigint;

  constructor(
    sizeP: number,
    private readonly lsb: number,
  ) {
    this.entries = new Array<bigint | undefined>(1 << sizeP).fill(undefined);
    this.mask = BigInt((1 << sizeP) - 1);
  }

  /** All entries invalid: done at each synchronisation. */
  reset(): void {
    this.entries.fill(undefined);
  }

  index(target: bigint): number {
    return Number((target >> BigInt(this.lsb)) & this.mask);
  }

  /** Looks the target up; on a miss the entry at its index is replaced. Returns the hit index. */
  lookupAndUpdate(target: bigint): number | undefined {
    const i = this.index(target);
    if (this.entries[i] === target) return i;
    this.entries[i] = target;
    return undefined;
  }

  /** The address held at `index` (decoder side), or undefined when the entry is invalid. */
  at(index: number): bigint | undefined {
    return this.entries[index];
  }

  /** Decoder side: records a reported target exactly as the encoder's miss did. */
  insert(target: bigint): void {
    this.entries[this.index(target)] = target;
  }
}

/**
 * Implicit return state, section 3.2.5: a stack of predicted return addresses
 * (return_stack_size_p: 2^n entries) or a call counter (call_counter_size_p bits, saturating at
 * 2^n - 1 so that the count fits the irdepth field of the same width). When the stack is full a
 * call drops the oldest entry, as the decoder pseudo code of chapter 11 does.
 */
export class ReturnPredictor {
  private readonly stack: bigint[] = [];
  private count = 0;
  readonly max: number;

  constructor(
    private readonly kind: 'stack' | 'counter',
    sizeP: number,
  ) {
    this.max = kind === 'stack' ? 1 << sizeP : (1 << sizeP) - 1;
  }

  get depth(): number {
    return this.kind === 'stack' ? this.stack.length : this.count;
  }

  reset(): void {
    this.stack.length = 0;
    this.count = 0;
  }

  push(returnAddress: bigint): void {
    if (this.kind === 'counter') {
      if (this.count < this.max) this.count++;
      return;
    }
    if (this.stack.length === this.max) this.stack.shift();
    this.stack.push(returnAddress);
  }

  /**
   * Whether a return to `target` can be left implicit. A counter predicts every return while it is
   * non-zero; a stack only when its top is `target`.
   */
  predicts(target: bigint): boolean {
    if (this.kind === 'counter') return this.count > 0;
    return this.stack.length > 0 && this.stack[this.stack.length - 1] === target;
  }

  /** Removes the top entry (after a correctly predicted return). */
  pop(): bigint | undefined {
    if (this.kind === 'counter') {
      if (this.count > 0) this.count--;
      return undefined;
    }
    return this.stack.pop();
  }
}
