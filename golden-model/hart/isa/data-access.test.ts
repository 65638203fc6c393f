import { describe, expect, it } from 'vitest';
import { Dtype } from '../data-records.ts';
import { dataAccessOf } from './data-access.ts';

// Encodings from riscv64-unknown-elf-as -march=rv64gc, checked with objdump -M no-aliases.
describe('dataAccessOf', () => {
  it.each([
    ['lw a0, 8(sp)', 0x00812503, 4, { kind: 'load', dtype: Dtype.load, dsize: 2 }],
    ['ld ra, 24(sp)', 0x01813083, 4, { kind: 'load', dtype: Dtype.load, dsize: 3 }],
    ['lbu a5, 0(a0)', 0x00054783, 4, { kind: 'load', dtype: Dtype.load, dsize: 0 }],
    ['fld fa0, 0(a0)', 0x00053507, 4, { kind: 'load', dtype: Dtype.load, dsize: 3 }],
    ['sd ra, 24(sp)', 0x00113c23, 4, { kind: 'store', dtype: Dtype.store, dsize: 3 }],
    ['sh a1, 2(a0)', 0x00b51123, 4, { kind: 'store', dtype: Dtype.store, dsize: 1 }],
    ['amoadd.w a0, a1, (a2)', 0x00b6252f, 4, { kind: 'amo', dtype: Dtype.atomicAdd, dsize: 2 }],
    ['amoswap.d a0, a1, (a2)', 0x08b6352f, 4, { kind: 'amo', dtype: Dtype.atomicSwap, dsize: 3 }],
    ['amomaxu.w a0, a1, (a2)', 0xe0b6252f, 4, { kind: 'amo', dtype: Dtype.atomicMax, dsize: 2 }],
    ['csrr a0, mstatus (csrrs)', 0x30002573, 4, { kind: 'csr', dtype: Dtype.csrReadSet, dsize: undefined }],
    ['csrw mtvec, a0 (csrrw)', 0x30551073, 4, { kind: 'csr', dtype: Dtype.csrReadWrite, dsize: undefined }],
    ['csrci mstatus, 8', 0x30047073, 4, { kind: 'csr', dtype: Dtype.csrReadClear, dsize: undefined }],
    ['c.lw a0, 0(a1)', 0x4188, 2, { kind: 'load', dtype: Dtype.load, dsize: 2 }],
    ['c.ldsp ra, 8(sp)', 0x60a2, 2, { kind: 'load', dtype: Dtype.load, dsize: 3 }],
    ['c.sdsp ra, 8(sp)', 0xe406, 2, { kind: 'store', dtype: Dtype.store, dsize: 3 }],
    ['c.sw a0, 0(a1)', 0xc188, 2, { kind: 'store', dtype: Dtype.store, dsize: 2 }],
  ] as const)('%s', (_, encoding, length, expected) => {
    expect(dataAccessOf(encoding, length, 64)).toEqual(expected);
  });

  it.each([
    ['addi a0, a0, 1', 0x00150513, 4],
    ['lr.w a0, (a1)', 0x1005a52f, 4],
    ['sc.w a0, a2, (a1)', 0x18c5a52f, 4],
    ['ecall', 0x00000073, 4],
    ['mret', 0x30200073, 4],
    ['c.addi a0, 1', 0x0505, 2],
    ['c.mv a0, a1', 0x852e, 2],
    ['c.jr ra', 0x8082, 2],
  ] as const)('%s accesses no data', (_, encoding, length) => {
    expect(dataAccessOf(encoding, length, 64)).toBeUndefined();
  });

  it('c.flw in RV32 is a 4-byte load where RV64 has c.ld', () => {
    expect(dataAccessOf(0x6188, 2, 32)).toEqual({ kind: 'load', dtype: Dtype.load, dsize: 2 });
    expect(dataAccessOf(0x6188, 2, 64)).toEqual({ kind: 'load', dtype: Dtype.load, dsize: 3 });
  });
});
