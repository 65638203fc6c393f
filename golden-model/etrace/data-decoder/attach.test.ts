import { describe, expect, it } from 'vitest';
import { ProgramImage } from '../../hart/image.ts';
import { defaultDataParams } from '../data/params.ts';
import { attachAccesses } from './attach.ts';
import type { DecodedAccess } from './decoder.ts';

// Encodings typed from the RISC-V ISA formats: lw x5,0(x10); addi x0,x0,0; sw x5,4(x10);
// csrrw x0,mstatus,x5; amoadd.w x6,x5,(x10).
const program = [0x00052283, 0x00000013, 0x00552223, 0x30029073, 0x0052a32f];
const bytes = new Uint8Array(program.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
const image = new ProgramImage([{ base: 0x1000n, bytes }]);
const pcs = [0x1000n, 0x1004n, 0x1008n, 0x100cn, 0x1010n];
const acc = (dtype: number): DecodedAccess => ({ offset: 0, dtype, dsize: 2 });

describe('attaching accesses to their instructions', () => {
  it('gives each access the address of the next instruction that makes one', () => {
    const a = [acc(0), acc(1), acc(4), acc(9)];
    expect(attachAccesses(a, pcs, image, 64, defaultDataParams(), { noAddress: false })).toEqual({ attached: 4 });
    expect(a.map((x) => x.pc)).toEqual([0x1000n, 0x1008n, 0x100cn, 0x1010n]);
  });

  it('skips CSR instructions when CSR accesses are not traced', () => {
    const a = [acc(0), acc(1), acc(9)];
    attachAccesses(a, pcs, image, 64, { ...defaultDataParams(), data_csr_p: 0 }, { noAddress: false });
    expect(a.map((x) => x.pc)).toEqual([0x1000n, 0x1008n, 0x1010n]);
  });

  it('stops at the first access that does not fit its instruction', () => {
    const a = [acc(1), acc(1)];
    expect(attachAccesses(a, pcs, image, 64, defaultDataParams(), { noAddress: false })).toEqual({ attached: 0, mismatch: { access: 0, pc: 0x1000n, mnemonic: 'lw' } });
    expect(a[0]!.pc).toBeUndefined();
  });
});
