/**
 * Implicit return in the encoder: the Implicit Return extension v0.8 (irets, iret_ext_p = 1, the
 * default) against the ratified irdepth (iret_ext_p = 0). Each run is a path through a small
 * program written out by hand; the expected packets follow from the encoder rules of
 * docs/etrace-model.md, and the decoder (written apart) must give the path back.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { ImageBuilder, type ProgramImage } from '../hart/image.ts';
import { branchItype, classify, instructionLength } from '../hart/isa/classify.ts';
import * as enc from '../hart/isa/encode.ts';
import { emptyRecord, type RetirementRecord } from '../hart/records.ts';
import { decodeStream } from './decoder.ts';
import { encodeStream } from './output.ts';
import { dumpPacket, type Packet } from './packet/index.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

function image(rows: [number, number][]): ProgramImage {
  const b = new ImageBuilder();
  for (const [addr, encoding] of rows) b.put(BigInt(addr), encoding, instructionLength(encoding & 0xffff));
  return b.build();
}

/** Single-retirement records of a path through `img` (RV32, machine mode from `user` on user mode). */
function records(img: ProgramImage, path: number[], user = path.length): RetirementRecord[] {
  return path.map((a, i) => {
    const addr = BigInt(a);
    const fetched = img.fetch(addr);
    if (fetched === undefined) throw new Error(`no instruction at 0x${a.toString(16)}`);
    const info = classify(fetched.encoding, addr, 32);
    const next = path[i + 1];
    const itype = info.control === 'branch' ? branchItype(next !== undefined && BigInt(next) !== addr + BigInt(info.length)) : info.itype;
    return { ...emptyRecord(), iaddr: addr, itype, iretire: info.length / 2, ilastsize: info.length === 4 ? 1 : 0, priv: i >= user ? 0 : 3 };
  });
}

const BASE = ['iaddress_width_p=32', 'privilege_width_p=2', 'ImplicitReturn=1'];

function config(sets: string[]) {
  return etraceConfig(resolveSettings('test', ETRACE_SETTINGS, [...BASE, ...sets]));
}

/** The encoder's packets as dump lines (offsets dropped), and the decoded path. */
function run(img: ProgramImage, path: number[], sets: string[], user?: number): { packets: string[]; bytes: Uint8Array; decoded: string[] } {
  const c = config(sets);
  const encoded = encodeStream(records(img, path, user), c);
  const packets = encoded.packets.map((p) => dumpPacket(p.packet as Packet, c.params, 0).slice(8));
  const decoded = decodeStream(encoded.bytes, img, { params: c.params, xlen: 32 }).map((d) => (d.kind === 'pc' ? d.address.toString(16) : `gap:${d.reason}`));
  return { packets, bytes: encoded.bytes, decoded };
}

const hex = (path: number[]): string[] => path.map((a) => a.toString(16));

/** main calls a branchless f twice (spec issue #254). */
const F_TWICE = image([
  [0x1000, enc.jal(1, 0x1000)], // call f (0x2000)
  [0x1004, enc.jal(1, 0xffc)], // call f
  [0x1008, enc.addi(6, 0, 0)],
  [0x2000, enc.addi(7, 0, 0)], // f
  [0x2004, enc.jalr(0, 1, 0)], // ret
]);
/** The trace ends inside the first call (A) or the second (B), at the same address, same depth. */
const RUN_A = [0x1000, 0x2000];
const RUN_B = [0x1000, 0x2000, 0x2004, 0x1004, 0x2000];

describe('implicit return: Implicit Return extension (irets) and ratified irdepth', () => {
  it.each([['return_stack_size_p=2'], ['call_counter_size_p=2']])('spec issue #254 (%s): the extension tells f(); f(); apart', (hw) => {
    const a = run(F_TWICE, RUN_A, [hw]);
    const b = run(F_TWICE, RUN_B, [hw]);
    expect(a.packets).toEqual([
      'F3.SF3 support  enable=1 encoder_mode=0 qual_status=0(no_change) options=0b00001 iret_ext=1',
      'F3.SF0 sync  branch=1 privilege=3 context=0x0 address=0x1000',
      'F2 addr-only  address=0x1000 notify=0 updiscon=0 irreport=0 irets=0',
      'F3.SF3 support  enable=0 encoder_mode=0 qual_status=1(ended_rep) options=0b00001 iret_ext=1',
    ]);
    // B: one implicit return before the reported 2000.
    expect(b.packets[2]).toBe('F2 addr-only  address=0x1000 notify=0 updiscon=0 irreport=1 irets=1');
    expect(a.decoded).toEqual([...hex(RUN_A), 'gap:end']);
    expect(b.decoded).toEqual([...hex(RUN_B), 'gap:end']);
  });

  it.each([['return_stack_size_p=2'], ['call_counter_size_p=2']])(
    'spec issue #254 (%s): under the ratified irdepth both runs give the same bytes, so one of them decodes wrongly',
    (hw) => {
      const a = run(F_TWICE, RUN_A, [hw, 'iret_ext_p=0']);
      const b = run(F_TWICE, RUN_B, [hw, 'iret_ext_p=0']);
      expect(b.packets[2]).toMatch(/^F2 addr-only {2}address=0x1000 notify=0 updiscon=0 irreport=1 irdepth=1$/);
      expect([...b.bytes]).toEqual([...a.bytes]);
      expect(a.decoded).toEqual([...hex(RUN_A), 'gap:end']);
      expect(b.decoded).toEqual([...hex(RUN_A), 'gap:end']); // not RUN_B: B's two instructions are lost
    },
  );

  it('a return after 255 counted returns is reported, with irets 255', () => {
    // 256 calls of a leaf function (a lone ret), no branch: the 256th return is not implicit, so
    // its target 0x10400 is reported (step 5) with irets 255; the count starts again from there.
    const rows: [number, number][] = [];
    const path: number[] = [];
    for (let i = 0; i < 256; i++) {
      rows.push([0x10000 + 4 * i, enc.jal(1, 0x1000 - 4 * i)]);
      path.push(0x10000 + 4 * i, 0x11000);
    }
    rows.push([0x10400, enc.addi(5, 0, 0)], [0x10404, enc.jalr(0, 1, 0)], [0x11000, enc.jalr(0, 1, 0)]);
    path.push(0x10400, 0x10404, 0x11000);
    // 0x10404 returns with an empty stack to 0x11000 (ra still points there): an uninferable
    // jump, reported without irreport (no counted return since the last packet).
    const r = run(image(rows), path, ['return_stack_size_p=2']);
    expect(r.packets.slice(2, -1)).toEqual([
      'F2 addr-only  address=0x400 notify=0 updiscon=0 irreport=1 irets=255',
      'F2 addr-only  address=0xc00 notify=0 updiscon=0 irreport=0 irets=0',
    ]);
    expect(r.decoded).toEqual([...hex(path), 'gap:end']);
  });

  it('a mispredicted return is reported with the returns before it and pops (extension); irdepth mistakes an earlier return at the same depth for it', () => {
    // f returns normally; g returns to ra + 4 (0x500c instead of 0x5008), then the trace ends at 0x5010.
    const img = image([
      [0x5000, enc.jal(1, 0x100)], // call f, push 5004
      [0x5004, enc.jal(1, 0x1fc)], // call g (0x5200), push 5008
      [0x5008, enc.addi(5, 0, 0)],
      [0x500c, enc.addi(5, 0, 1)],
      [0x5010, enc.addi(5, 0, 2)],
      [0x5100, enc.jalr(0, 1, 0)], // f: ret
      [0x5200, enc.addi(1, 1, 4)], // g: ra += 4
      [0x5204, enc.jalr(0, 1, 0)], // ret -> 500c
    ]);
    const path = [0x5000, 0x5100, 0x5004, 0x5200, 0x5204, 0x500c, 0x5010];
    const ext = run(img, path, ['return_stack_size_p=2']);
    expect(ext.packets.slice(2, -1)).toEqual([
      'F2 addr-only  address=0xc notify=0 updiscon=0 irreport=1 irets=1',
      // The end: nothing counted since, and the stack is empty (the mispredicted return popped).
      'F2 addr-only  address=0x4 notify=0 updiscon=0 irreport=0 irets=0',
    ]);
    expect(ext.decoded).toEqual([...hex(path), 'gap:end']);
    // Ratified: irdepth = the depth at the return (1), and the entry stays: depth 1 at the end too.
    // f's return has depth 1 as well, so the same packets describe f returning to 0x500c at once
    // (5000 5100 500c 5010); the decoder takes that reading, and this run is decoded wrongly.
    const ratified = run(img, path, ['return_stack_size_p=2', 'iret_ext_p=0']);
    expect(ratified.packets.slice(2, -1)).toEqual([
      'F2 addr-only  address=0xc notify=0 updiscon=0 irreport=1 irdepth=1',
      'F2 addr-only  address=0x4 notify=0 updiscon=0 irreport=1 irdepth=1',
    ]);
    expect(ratified.decoded).toEqual([...hex([0x5000, 0x5100, 0x500c, 0x5010]), 'gap:end']);
  });

  it('no step 6b: a call after an implicit return is not reported', () => {
    // f(); f(); to the end: the only address packet is the end at 0x1008 (two returns before it).
    const r = run(F_TWICE, [...RUN_B, 0x2004, 0x1008], ['return_stack_size_p=2']);
    expect(r.packets.slice(2, -1)).toEqual(['F2 addr-only  address=0x8 notify=0 updiscon=0 irreport=1 irets=2']);
    expect(r.decoded).toEqual([...hex([...RUN_B, 0x2004, 0x1008]), 'gap:end']);
    // Ratified: depth 0 at the end, nothing to report.
    const ratified = run(F_TWICE, [...RUN_B, 0x2004, 0x1008], ['return_stack_size_p=2', 'iret_ext_p=0']);
    expect(ratified.packets.slice(2, -1)).toEqual(['F2 addr-only  address=0x8 notify=0 updiscon=0 irreport=0 irdepth=0']);
  });

  it('an xRET is reported without the count: the decoder cannot have passed it before', () => {
    // A handler: a branch, a call of f (a lone ret), mret to user mode. The mret is reported (step 7:
    // a privilege change follows with a branch in the map) with one return since the branch, but
    // an earlier mret on the decoder's path would have needed its own packet, so irreport stays clear.
    const img = image([
      [0x5ff8, enc.addi(5, 0, 0)],
      [0x5ffc, enc.bne(5, 0, 8)], // not taken
      [0x6000, enc.jal(1, 0x100)], // call f
      [0x6004, 0x30200073], // mret -> 0x7000 (mepc)
      [0x6100, enc.jalr(0, 1, 0)], // f: ret
      [0x7000, enc.addi(6, 0, 0)],
      [0x7004, enc.addi(6, 0, 1)],
    ]);
    const path = [0x5ff8, 0x5ffc, 0x6000, 0x6100, 0x6004, 0x7000, 0x7004];
    const r = run(img, path, ['return_stack_size_p=2'], 5);
    expect(r.packets.slice(1, -1)).toEqual([
      'F3.SF0 sync  branch=1 privilege=3 context=0x0 address=0x5ff8',
      'F1 diff-delta  branches=1 branch_map=0b1 address=0xc notify=0 updiscon=0 irreport=0 irets=0',
      'F3.SF0 sync  branch=1 privilege=0 context=0x0 address=0x7000',
      'F2 addr-only  address=0x4 notify=0 updiscon=0 irreport=0 irets=0',
    ]);
    expect(r.decoded).toEqual([...hex(path), 'gap:end']);
  });

  it('without implicit return hardware the parameter changes nothing', () => {
    const c = config(['ImplicitReturn=0', 'iret_ext_p=1']);
    const d = config(['ImplicitReturn=0', 'iret_ext_p=0']);
    const recs = records(F_TWICE, [...RUN_B, 0x2004, 0x1008]);
    expect([...encodeStream(recs, c).bytes]).toEqual([...encodeStream(recs, d).bytes]);
  });
});
