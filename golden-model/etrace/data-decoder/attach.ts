/**
 * Attaches decoded data accesses to the instructions that made them: the instruction trace gives
 * the executed instructions in order, the program image what each one is, and the data packets come
 * in retirement order, so the k-th access packet belongs to the k-th instruction that makes one.
 * Which instructions make one depends on the component: CSR and atomic instructions only when
 * their trace is supported, split loads under noAddress not at all (only their responses are sent).
 */
import type { ProgramImage } from '../../hart/image.ts';
import { classify } from '../../hart/isa/classify.ts';
import type { DataParams } from '../data/params.ts';
import type { DecodedAccess } from './decoder.ts';

type AccessClass = 'load' | 'store' | 'atomic' | 'csr';

// lr and sc make no data access: table 4.9 has no code for them (the reference flow's spike records
// neither), so the hart signals none.
const LOADS = new Set(['lb', 'lh', 'lw', 'ld', 'lbu', 'lhu', 'lwu', 'flw', 'fld', 'c.lw', 'c.ld', 'c.flw', 'c.fld', 'c.lwsp', 'c.ldsp', 'c.flwsp', 'c.fldsp']);
const STORES = new Set(['sb', 'sh', 'sw', 'sd', 'fsw', 'fsd', 'c.sw', 'c.sd', 'c.fsw', 'c.fsd', 'c.swsp', 'c.sdsp', 'c.fswsp', 'c.fsdsp']);
const CSRS = new Set(['csrrw', 'csrrs', 'csrrc', 'csrrwi', 'csrrsi', 'csrrci']);

/** The data access an instruction makes, by its mnemonic; undefined for none. */
export function accessClass(mnemonic: string): AccessClass | undefined {
  if (LOADS.has(mnemonic)) return 'load';
  if (STORES.has(mnemonic)) return 'store';
  if (mnemonic.startsWith('amo')) return 'atomic';
  if (CSRS.has(mnemonic)) return 'csr';
  return undefined;
}

function classOfDtype(dtype: number): AccessClass {
  return dtype === 0 ? 'load' : dtype === 1 ? 'store' : dtype <= 6 ? 'csr' : 'atomic';
}

export interface AttachResult {
  /** Accesses given their instruction's address. */
  attached: number;
  /** The first access whose instruction does not make that kind of access (the rest stay unattached), if any. */
  mismatch?: { access: number; pc: bigint; mnemonic: string };
}

/**
 * Sets `pc` on each access, in order, from the executed instruction addresses `pcs`. Stops at the
 * first access that does not fit its instruction (a filtered or lost access shifts the match).
 */
export function attachAccesses(
  accesses: DecodedAccess[],
  pcs: readonly bigint[],
  image: ProgramImage,
  xlen: 32 | 64,
  p: DataParams,
  o: { noAddress: boolean },
): AttachResult {
  let k = 0;
  for (const pc of pcs) {
    if (k >= accesses.length) break;
    const fetched = image.fetch(pc);
    if (!fetched) continue;
    const mnemonic = classify(fetched.encoding, pc, xlen).mnemonic;
    const cls = accessClass(mnemonic);
    if (cls === undefined) continue;
    if (cls === 'csr' && !p.data_csr_p) continue;
    if (cls === 'atomic' && !p.data_atomics_p) continue;
    if (cls === 'load' && p.data_split_p && o.noAddress) continue;
    const a = accesses[k]!;
    if (classOfDtype(a.dtype) !== cls) return { attached: k, mismatch: { access: k, pc, mnemonic } };
    a.pc = pc;
    k++;
  }
  return { attached: k };
}
