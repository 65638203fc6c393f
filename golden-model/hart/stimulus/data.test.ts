import { describe, expect, it } from 'vitest';
import { checkDataTrace, Dtype, isAtomic, Lresp } from '../data-records.ts';
import { ProgramImage } from '../image.ts';
import { emptyRecord, type RetirementRecord } from '../records.ts';
import type { RetirementStream } from '../stream.ts';
import { checkContinuity } from '../continuity.ts';
import { accessInstructionAddress } from '../../etrace/data/filter.ts';
import { regroupIntoBlocks } from '../blocks.ts';
import { dataAccessOf } from '../isa/data-access.ts';
import { addDataAccesses, defaultDataKnobs, type DataKnobs } from './data.ts';
import { generateStimulus } from './generate.ts';
import { defaultKnobs } from './knobs.ts';

// riscv64-unknown-elf-as -march=rv64gc, then objcopy -O binary:
//   0 c.sdsp ra,24(sp)   2 c.sdsp ra,8(sp)   4 lw a0,8(gp)   8 sw a0,8(gp)   c lw a1,8(gp)
//  10 csrw mtvec,a0     14 csrci mstatus,8  18 csrr a2,mstatus   1c addi s1,gp,16
//  20 amoadd.w s0,a0,(s1)   24 lw a3,16(gp)
// prettier-ignore
const CODE = [
  0x06, 0xec, 0x06, 0xe4, 0x03, 0xa5, 0x81, 0x00, 0x23, 0xa4, 0xa1, 0x00, 0x83, 0xa5, 0x81, 0x00, 0x73, 0x10, 0x55, 0x30,
  0x73, 0x70, 0x04, 0x30, 0x73, 0x26, 0x00, 0x30, 0x93, 0x84, 0x01, 0x01, 0x2f, 0xa4, 0xa4, 0x00, 0x83, 0xa6, 0x01, 0x01,
];
const LENGTHS = [2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4];

function handStream(): RetirementStream {
  const records: RetirementRecord[] = [];
  let pc = 0x8000_0000n;
  for (const n of LENGTHS) {
    records.push({ ...emptyRecord(), iaddr: pc, iretire: n / 2, ilastsize: n === 4 ? 1 : 0 });
    pc += BigInt(n);
  }
  return { xlen: 64, retiresPerCycle: 1, image: new ProgramImage([{ base: 0x8000_0000n, bytes: Uint8Array.from(CODE) }]), records };
}

const knobs = (over: Partial<DataKnobs> = {}): DataKnobs => ({ ...defaultDataKnobs(), ...over });

describe('addDataAccesses on a hand-assembled program', () => {
  const data = addDataAccesses(handStream(), knobs(), 1).data!;
  const [sd24, sd8, lw, sw, lw2, csrw, csrci, csrr, amo, lw3] = data.accesses;
  const k = defaultDataKnobs();

  it('makes one access per load, store, CSR and AMO instruction, on its record, with its dtype and size', () => {
    expect(data.accesses.map((a) => [a.at, a.dtype, a.dsize])).toEqual([
      [0, Dtype.store, 3], [1, Dtype.store, 3], [2, Dtype.load, 2], [3, Dtype.store, 2], [4, Dtype.load, 2],
      [5, Dtype.csrReadWrite, 3], [6, Dtype.csrReadClear, 3], [7, Dtype.csrReadSet, 3], [9, Dtype.atomicAdd, 2], [10, Dtype.load, 2],
    ]);
    expect(data.responses).toEqual([]);
  });

  it('takes addresses from the base register and offset: stack and globals as the knobs place them', () => {
    expect(sd24!.daddr).toBe(k.stack_top + 24n);
    expect(sd8!.daddr).toBe(k.stack_top + 8n);
    expect([lw!.daddr, sw!.daddr, lw2!.daddr]).toEqual([k.globals_base + 8n, k.globals_base + 8n, k.globals_base + 8n]);
    expect([csrw!.daddr, csrci!.daddr, csrr!.daddr]).toEqual([0x305n, 0x300n, 0x300n]);
  });

  it('a load returns what the last store left there', () => {
    expect(lw2!.data).toBe(sw!.data);
  });

  it('CSR accesses: operand low, old value high; a read sees what the clear left', () => {
    expect(csrci!.data & 0xffff_ffff_ffff_ffffn).toBe(8n); // csrci's immediate
    const afterClear = (csrci!.data >> 64n) & ~8n;
    expect(csrr!.data).toBe(afterClear << 64n); // csrr: operand x0 = 0, reads the cleared value
  });

  it('an AMO packs operand (low) and old value (high); memory then holds their sum', () => {
    const operand = amo!.data & 0xffff_ffffn;
    const old = amo!.data >> 32n;
    expect(amo!.daddr).toBe(k.globals_base + 16n);
    expect(lw3!.daddr).toBe(amo!.daddr);
    expect(lw3!.data).toBe((old + operand) & 0xffff_ffffn);
  });

  it('iaddrLsbs: the accessing instruction\'s pc >> 1 (low 16 bits); dblock 0 with single retirement', () => {
    const offsets = [0x0, 0x2, 0x4, 0x8, 0xc, 0x10, 0x14, 0x18, 0x20, 0x24];
    expect(data.accesses.map((a) => a.iaddrLsbs)).toEqual(offsets.map((o) => Number((0x8000_0000n + BigInt(o)) >> 1n) & 0xffff));
    expect(data.accesses.map((a) => a.dblock)).toEqual(offsets.map(() => 0));
    // The model's instruction address for data filters: the record's own address at every width.
    const records = handStream().records;
    for (const w of [0, 1, 3, 8]) for (const a of data.accesses) expect(accessInstructionAddress(records[a.at]!.iaddr, a.iaddrLsbs, w)).toBe(records[a.at]!.iaddr);
  });

  it('dblock: the index of the access\'s record within its cycle', () => {
    const s = handStream();
    // Records 1 and 2 are later signal groups of record 0's cycle, record 5 of record 4's.
    s.records = s.records.map((r, i) => ({ ...r, sameCycle: i === 1 || i === 2 || i === 5 }));
    const d = addDataAccesses(s, knobs(), 1).data!;
    expect(d.accesses.map((a) => [a.at, a.dblock])).toEqual([[0, 0], [1, 1], [2, 2], [3, 0], [4, 0], [5, 1], [6, 0], [7, 0], [9, 0], [10, 0]]);
    // Only iaddrLsbs and dblock differ from the single-retirement accesses.
    expect(d.accesses.map((a) => ({ ...a, dblock: 0 }))).toEqual(data.accesses);
  });

  it('is deterministic per seed', () => {
    expect(addDataAccesses(handStream(), knobs(), 1).data).toEqual(data);
    expect(addDataAccesses(handStream(), knobs(), 2).data).not.toEqual(data);
  });
});

describe('addDataAccesses on random stimulus', () => {
  const stimulus = (seed: number, over = {}) => generateStimulus({ ...defaultKnobs(), w_amo: 3, ...over }, seed, 20_000);

  it('w_amo adds atomics and keeps the program executable (continuity)', () => {
    const s = stimulus(3);
    expect(checkContinuity(s.records, s.image, s.xlen)).toEqual([]);
    const d = addDataAccesses(s, knobs(), 3).data!;
    const dtypes = new Set(d.accesses.map((a) => a.dtype));
    for (const t of [Dtype.load, Dtype.store, Dtype.csrReadWrite, Dtype.csrReadSet]) expect(dtypes.has(t), `dtype ${t}`).toBe(true);
    expect([...dtypes].filter(isAtomic).length).toBeGreaterThanOrEqual(2);
  });

  it('w_narrow adds byte and half-word loads and stores and keeps the program executable (continuity)', () => {
    const s = generateStimulus({ ...defaultKnobs(), w_narrow: 3 }, 4, 20_000);
    expect(checkContinuity(s.records, s.image, s.xlen)).toEqual([]);
    const d = addDataAccesses(s, knobs(), 4);
    expect(() => checkDataTrace(d)).not.toThrow();
    const sizes = (dtype: number) => new Set(d.data!.accesses.filter((a) => a.dtype === dtype).map((a) => a.dsize));
    for (const dtype of [Dtype.load, Dtype.store]) for (const dsize of [0, 1, 2, 3]) expect(sizes(dtype).has(dsize), `dtype ${dtype} dsize ${dsize}`).toBe(true);
    // Without the knob the program has none (older programs stay what they were).
    const plain = addDataAccesses(generateStimulus(defaultKnobs(), 4, 20_000), knobs(), 4);
    expect(plain.data!.accesses.filter((a) => a.dsize < 2)).toEqual([]);
  });

  it.each([
    ['RV64 unified', {}, {}],
    ['RV32 unified', { xlen: 32 }, {}],
    ['RV64 split', {}, { signalling: 'split' as const }],
    ['RV32 split, 2 IDs, wide window', { xlen: 32 }, { signalling: 'split' as const, lrids: 2, response_window: 20 }],
  ])('%s: a valid data trace (seeds 1-3)', (_, over, data) => {
    for (let seed = 1; seed <= 3; seed++) {
      const s = addDataAccesses(stimulus(seed, over), knobs(data), seed);
      expect(() => checkDataTrace(s), `seed ${seed}`).not.toThrow();
    }
  });

  it('split: responses out of order, some errors; values have locality', () => {
    const d = addDataAccesses(stimulus(5), knobs({ signalling: 'split', error_rate: 0.1 }), 5).data!;
    const loads = d.accesses.filter((a) => a.dtype === Dtype.load);
    expect(loads.length).toBeGreaterThan(500);
    // Out of order: some response answers a later load than the one answered after it.
    // IDs are handed out lowest-free first, so in-order answers would mostly repeat the low IDs;
    // count responses whose load retired after the load of the next response.
    const loadAt = new Map<number, number[]>(); // lrid -> cycles of its loads, in order
    for (const a of d.accesses) if (a.dtype === Dtype.load || isAtomic(a.dtype)) loadAt.set(a.lrid, [...(loadAt.get(a.lrid) ?? []), a.at]);
    const answered = d.responses.map((r) => loadAt.get(r.lid)!.shift()!);
    const outOfOrder = answered.filter((at, i) => i > 0 && at < answered[i - 1]!).length;
    expect(outOfOrder).toBeGreaterThan(50);
    const errors = d.responses.filter((r) => r.lresp === Lresp.error).length;
    expect(errors / d.responses.length).toBeGreaterThan(0.05);
    expect(errors / d.responses.length).toBeLessThan(0.15);
    // Locality: most consecutive stores lie within 4 KiB of the previous store.
    const stores = d.accesses.filter((a) => a.dtype === Dtype.store);
    const near = stores.slice(1).filter((a, i) => {
      const diff = a.daddr - stores[i]!.daddr;
      return diff > -4096n && diff < 4096n;
    }).length;
    expect(near / stores.length).toBeGreaterThan(0.5);
  });

  it('blocks (retires_p 4, taken_branches_p 2): iaddrLsbs and the block address give the accessing instruction, dblock its group', () => {
    const s0 = stimulus(6);
    const s = { ...s0, records: regroupIntoBlocks(s0.records, { retires_p: 4, taken_branches_p: 2 }) };
    const d = addDataAccesses(s, knobs(), 6).data!;
    const group: number[] = [];
    s.records.forEach((r, i) => group.push(r.sameCycle && i > 0 ? group[i - 1]! + 1 : 0));
    expect(d.accesses.some((a) => a.dblock > 0)).toBe(true);
    // The block's instructions that make an access, in order: the accesses at that record are theirs.
    const byRecord = new Map<number, bigint[]>();
    for (const a of d.accesses) {
      const r = s.records[a.at]!;
      expect(a.dblock, `access at record ${a.at}`).toBe(group[a.at]);
      const pc = accessInstructionAddress(r.iaddr, a.iaddrLsbs, 8);
      byRecord.set(a.at, [...(byRecord.get(a.at) ?? []), pc]);
    }
    for (const [at, pcs] of byRecord) {
      const r = s.records[at]!;
      const expected: bigint[] = [];
      for (let pc = r.iaddr; pc < r.iaddr + 2n * BigInt(r.iretire); ) {
        const i = s.image.fetch(pc)!;
        if (dataAccessOf(i.encoding, i.length, s.xlen) !== undefined) expected.push(pc);
        pc += BigInt(i.length);
      }
      expect(pcs, `record ${at}`).toEqual(expected);
    }
  });
});
