/**
 * The shape of a block's memory-mapped register map (E-Trace's and N-Trace's Trace Control
 * Interface registers): computed from a configuration by the block's registers.ts, implemented by
 * its APB register file, compared by its co-simulation and exported to IP-XACT.
 */
export type FieldAccess = 'read-only' | 'read-write';

export interface RegisterField {
  readonly name: string;
  readonly bitOffset: number;
  readonly bitWidth: number;
  readonly access: FieldAccess;
  /** A write of 1 clears the bit (TCI RW1C). */
  readonly oneToClear?: boolean;
  readonly reset: bigint;
  readonly description: string;
  /** The setting the reset value comes from, for errors when it does not fit the field. */
  readonly source?: string;
}

export interface RegisterSpec {
  readonly name: string;
  /** Byte offset inside the address block. */
  readonly offset: number;
  /** Bits: 32 (64 for E-Trace's discovery registers). */
  readonly size: number;
  readonly description: string;
  readonly fields: readonly RegisterField[];
}

export interface AddressBlockSpec {
  readonly name: string;
  readonly baseAddress: number;
  /** Bytes. */
  readonly range: number;
  /** Bits per row (the APB data width). */
  readonly width: number;
  readonly description: string;
  readonly registers: readonly RegisterSpec[];
}

export interface MemoryMapSpec {
  readonly name: string;
  readonly description: string;
  readonly addressBlocks: readonly AddressBlockSpec[];
}
