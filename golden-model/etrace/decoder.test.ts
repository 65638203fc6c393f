/**
 * Decoder tests. Every expected address sequence is worked out by hand from the program and the
 * packet sequence the encoder rules of docs/etrace-model.md produce for the run described in the
 * test; no encoder is involved. Packets are written as field objects, packed and encapsulated by
 * the packet layer (tested on its own).
 */
import { readFileSync } from 'node:fs';
import { checkedVectorConfig } from './test-fixtures/checked-vector.ts';
import { describe, expect, it } from 'vitest';
import { RvError } from '../common/errors.ts';
import { ImageBuilder, type ProgramImage } from '../hart/image.ts';
import { instructionLength } from '../hart/isa/classify.ts';
import * as enc from '../hart/isa/encode.ts';
import { defaultParams, type EtraceParams } from './config.ts';
import { decodeStream, type DecodedItem, type DecoderOptions } from './decoder.ts';
import {
  encapsulate,
  optionFields,
  packetWidths,
  packPacket,
  withFlags,
  BRANCH_FMT,
  QUAL_STATUS,
  type IOptions,
  type Packet,
  type PacketFlags,
} from './packet/index.ts';

// --- helpers ----------------------------------------------------------------------------------

const NO_OPTIONS: IOptions = {
  implicit_return: false,
  implicit_exception: false,
  full_address: false,
  jump_target_cache: false,
  branch_prediction: false,
  sijump: false,
};

const bit = (b: boolean): bigint => (b ? 1n : 0n);

/** An image from [address, encoding] rows; the length comes from the encoding. */
function image(rows: [number | bigint, number][]): ProgramImage {
  const b = new ImageBuilder();
  for (const [addr, encoding] of rows) b.put(BigInt(addr), encoding, instructionLength(encoding & 0xffff));
  return b.build();
}

/** A branch map from outcomes, oldest first: T taken (bit 0), N not taken (bit 1). */
function branchMap(outcomes: string): { bits: bigint; count: number } {
  let bits = 0n;
  for (let i = 0; i < outcomes.length; i++) if (outcomes[i] === 'N') bits |= 1n << BigInt(i);
  return { bits, count: outcomes.length };
}

interface TrapFields {
  cause: bigint;
  /** Omitted in implicit exception mode (and in 2.0 only with thaddr 1). */
  address?: bigint;
  /** tval (2.0) or tvalepc (1.1.1). */
  tval?: bigint;
  interrupt?: boolean;
  /** 2.0 only. */
  thaddr?: 0 | 1;
}

/**
 * Writes a packet sequence: keeps the last reported address for differential addresses and the
 * options of the last support packet (full address, implicit exception), as an encoder would.
 */
class Trace {
  private readonly bytesOut: number[] = [];
  /** Byte offset of each packet's header, in order. */
  readonly offsets: number[] = [];
  private last = 0n;
  private opts: IOptions = NO_OPTIONS;
  private readonly lsb: bigint;

  constructor(private readonly params: EtraceParams) {
    this.lsb = BigInt(params.iaddress_lsb_p);
  }

  private add(pkt: Packet): this {
    this.offsets.push(this.bytesOut.length);
    const packed = packPacket(pkt, this.params, { implicit_exception: this.opts.implicit_exception });
    this.bytesOut.push(...encapsulate(packed, this.params));
    return this;
  }

  private get ratified(): boolean {
    return this.params.payload_layout === '2.0';
  }

  private context(): Packet {
    return packetWidths(this.params).context > 0 ? { context: 0n } : {};
  }

  private delta(address: bigint): bigint {
    const value = this.opts.full_address ? address : address - this.last;
    this.last = address;
    return BigInt.asUintN(packetWidths(this.params).address, value >> this.lsb);
  }

  support(options: Partial<IOptions> = {}, enable = true, qual: bigint = QUAL_STATUS.no_change): this {
    this.opts = { ...NO_OPTIONS, ...options };
    const head: Packet = this.ratified
      ? { format: 3n, subformat: 3n, ienable: bit(enable), encoder_mode: 0n, qual_status: qual, denable: 0n, dloss: 0n, doptions: 0n }
      : { format: 3n, subformat: 3n, enable: bit(enable), encoder_mode: 0n, qual_status: qual };
    return this.add({ ...head, ...optionFields(this.opts, this.params) });
  }

  /** The closing support packet: enable 0 (end of trace) unless `enable`. */
  end(qual: bigint = QUAL_STATUS.ended_rep, enable = false): this {
    return this.support(this.opts, enable, qual);
  }

  sync(address: bigint, branch: 'T' | 'N' = 'N'): this {
    this.last = address;
    return this.add({
      format: 3n, subformat: 0n, branch: branch === 'T' ? 0n : 1n, privilege: 3n, ...this.context(), address: address >> this.lsb,
    });
  }

  trap(t: TrapFields): this {
    const pkt: Packet = {
      format: 3n, subformat: 1n, branch: 1n, privilege: 3n, ...this.context(), ecause: t.cause, interrupt: bit(t.interrupt ?? false),
    };
    if (this.ratified) pkt.thaddr = BigInt(t.thaddr ?? 1);
    if (t.address !== undefined) {
      pkt.address = t.address >> this.lsb;
      this.last = t.address;
    }
    if (!this.ratified) pkt.tvalepc = t.tval ?? 0n;
    else if (!t.interrupt) pkt.tval = t.tval ?? 0n;
    return this.add(pkt);
  }

  f2(address: bigint, flags: Partial<PacketFlags> = {}): this {
    return this.add(withFlags({ format: 2n, address: this.delta(address) }, this.params, { irreport: false, ...flags }));
  }

  /** F1 with an address, or (31 outcomes, no address) the full-map form with branches = 0. */
  f1(outcomes: string, address?: bigint, flags: Partial<PacketFlags> = {}): this {
    const { bits, count } = branchMap(outcomes);
    if (address === undefined) {
      if (count !== 31) throw new Error('an F1 without address carries exactly 31 branches');
      return this.add({ format: 1n, branches: 0n, branch_map: bits });
    }
    const pkt: Packet = { format: 1n, branches: BigInt(count), branch_map: bits, address: this.delta(address) };
    return this.add(withFlags(pkt, this.params, { irreport: false, ...flags }));
  }

  /** F0 SF0: `correct` correctly predicted branches (at least 31), the format, an optional address. */
  f0count(correct: number, fmt: bigint, address?: bigint, flags: Partial<PacketFlags> = {}): this {
    const pkt: Packet = { format: 0n, subformat: 0n, branch_count: BigInt(correct - 31), branch_fmt: fmt };
    if (address === undefined) return this.add(pkt);
    return this.add(withFlags({ ...pkt, address: this.delta(address) }, this.params, { irreport: false, ...flags }));
  }

  /** F0 SF1: a jump target cache hit on the entry holding `address`. */
  f0jtc(index: number, address: bigint, outcomes = '', flags: Partial<PacketFlags> = {}): this {
    const { bits, count } = branchMap(outcomes);
    const pkt: Packet = { format: 0n, subformat: 1n, index: BigInt(index), branches: BigInt(count) };
    if (count > 0) pkt.branch_map = bits;
    this.last = address;
    return this.add(withFlags(pkt, this.params, { irreport: false, ...flags }));
  }

  /** Raw packet, for malformed streams. */
  raw(pkt: Packet): this {
    return this.add(pkt);
  }

  bytes(): Uint8Array {
    return Uint8Array.from(this.bytesOut);
  }
}

/** Items as short strings: `1004` for an address (hex), `gap:end` for a gap. */
function show(items: DecodedItem[]): string[] {
  return items.map((i) => (i.kind === 'pc' ? i.address.toString(16) : `gap:${i.reason}`));
}

const hex = (...addresses: number[]): string[] => addresses.map((a) => a.toString(16));

function decode(t: Trace, img: ProgramImage, params: EtraceParams, extra: Partial<DecoderOptions> = {}): string[] {
  return show(decodeStream(t.bytes(), img, { params, xlen: 32, ...extra }));
}

/** The RvError a decode throws. */
function decodeError(t: Trace, img: ProgramImage, params: EtraceParams, extra: Partial<DecoderOptions> = {}): RvError {
  try {
    decodeStream(t.bytes(), img, { params, xlen: 32, ...extra });
  } catch (e) {
    if (e instanceof RvError) return e;
    throw e;
  }
  throw new Error('decoding succeeded');
}

const P11: EtraceParams = defaultParams('1.1.1');
const P20: EtraceParams = defaultParams('2.0');

// --- programs (RV32) ------------------------------------------------------------------------------

/**
 * The looplabel fragment of 6.6.2: the loop is entered by falling through 0x1000 and closed by an
 * indirect jump (jr x9, x9 = 0x1004). A trap handler at 0x2000.
 */
const LOOP = image([
  [0x1000, enc.addi(6, 0, 0)],
  [0x1004, enc.addi(7, 0, 1)], // looplabel
  [0x1008, enc.addi(8, 0, 2)],
  [0x100c, enc.jalr(0, 9, 0)],
  [0x2000, enc.addi(10, 0, 0)],
  [0x2004, enc.addi(11, 0, 0)],
]);

// --- tests ----------------------------------------------------------------------------------------

describe('design note checked vector (2.0 layout)', () => {
  const text = readFileSync(new URL('./test-fixtures/decoder-checked-vector.txt', import.meta.url), 'utf8');
  const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const bytesLine = lines.find((l) => l.startsWith('bytes:')) ?? '';
  const bytes = Uint8Array.from(bytesLine.slice(6).trim().split(/\s+/).map((h) => parseInt(h, 16)));
  const rows = lines
    .filter((l) => !l.startsWith('bytes:'))
    .map((l) => {
      const [addr, encoding] = l.replace('!', '').split(':');
      return { address: BigInt(`0x${addr}`), encoding: parseInt(encoding ?? '', 16), retires: !l.startsWith('!') };
    });
  const params: EtraceParams = checkedVectorConfig().params;

  it('decodes to the 32 retired instructions of the run, then the end of trace', () => {
    const img = image(rows.map((r) => [r.address, r.encoding]));
    const items = decodeStream(bytes, img, { params, xlen: 64 });
    const expected = rows.filter((r) => r.retires).map((r) => r.address.toString(16));
    expect(expected).toHaveLength(32);
    expect(show(items)).toEqual([...expected, 'gap:end']);
    // The gap is reported at the closing support packet (the last two bytes).
    expect(items.at(-1)).toEqual({ kind: 'gap', reason: 'end', offset: bytes.length - 2 });
  });
});

describe('baseline and the looplabel cases of 6.6.2 (1.1.1 layout)', () => {
  it('case 1: looplabel reported after each jr; the first report is not the first pass', () => {
    // Run: 1000 1004 1008 100c | 1004 1008 100c | 1004 1008, end of trace.
    // Packets: F2(1004) after each jr (step 5), F2(1008) for the last instruction (step 7).
    const t = new Trace(P11).support().sync(0x1000n).f2(0x1004n).f2(0x1004n).f2(0x1008n).end();
    expect(decode(t, LOOP, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008), 'gap:end']);
  });

  it('case 2: an exception at looplabel+4 in the second pass (updiscon flag set)', () => {
    // Run: 1000 1004 1008 100c 1004, then 1008 raises an illegal instruction; handler 2000 2004.
    // F2(1004) reports the jr's target; the next packet is a format 3, so updiscon is flagged.
    const t = new Trace(P11)
      .support()
      .sync(0x1000n)
      .f2(0x1004n, { updiscon: true })
      .trap({ cause: 2n, address: 0x2000n, tval: 0x1008n })
      .f2(0x2004n)
      .end();
    expect(decode(t, LOOP, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x2000, 0x2004), 'gap:end']);
  });

  it('case 3: an exception right after the first pass through looplabel', () => {
    // Run: 1000 1004, then 1008 traps. F2(1004) (step 7: next is exc_only), flags clear; the
    // next packet is a format 3, so the first pass was the right one.
    const t = new Trace(P11).support().sync(0x1000n).f2(0x1004n).trap({ cause: 2n, address: 0x2000n, tval: 0x1008n }).f2(0x2004n).end();
    expect(decode(t, LOOP, P11)).toEqual([...hex(0x1000, 0x1004, 0x2000, 0x2004), 'gap:end']);
  });

  it('case 4: a notification on the first pass through looplabel', () => {
    // Run: 1000 1004 (notify) 1008 100c 1004 1008, end.
    const t = new Trace(P11).support().sync(0x1000n).f2(0x1004n, { notify: true }).f2(0x1004n).f2(0x1008n).end();
    expect(decode(t, LOOP, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008), 'gap:end']);
  });

  it('trace ending at looplabel: ended_rep means the first pass, ended_upd the pass after the jump', () => {
    const rep = new Trace(P11).support().sync(0x1000n).f2(0x1004n).end(QUAL_STATUS.ended_rep);
    expect(decode(rep, LOOP, P11)).toEqual([...hex(0x1000, 0x1004), 'gap:end']);
    const upd = new Trace(P11).support().sync(0x1000n).f2(0x1004n).end(QUAL_STATUS.ended_upd);
    expect(decode(upd, LOOP, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c, 0x1004), 'gap:end']);
  });

  it('full address mode: the same run as case 1 with absolute addresses', () => {
    const t = new Trace(P11).support({ full_address: true }).sync(0x1000n).f2(0x1004n).f2(0x1004n).f2(0x1008n).end();
    expect(decode(t, LOOP, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008), 'gap:end']);
  });
});

describe('filtering gaps, trace loss and the end of the stream', () => {
  const STRAIGHT = image([0x3000, 0x3004, 0x3008, 0x300c, 0x3010].map((a): [number, number] => [a, enc.addi(5, 5, 1)]));

  it('trace-off (qualification ended, encoder enabled) then a restart with a sync', () => {
    // Qualified 3000-3004, unqualified 3008, qualified again 300c-3010, end of trace.
    const t = new Trace(P11)
      .support()
      .sync(0x3000n)
      .f2(0x3004n)
      .end(QUAL_STATUS.ended_rep, true)
      .sync(0x300cn)
      .f2(0x3010n)
      .end();
    const items = decodeStream(t.bytes(), STRAIGHT, { params: P11, xlen: 32 });
    expect(show(items)).toEqual(['3000', '3004', 'gap:trace-off', '300c', '3010', 'gap:end']);
    expect(items[2]).toEqual({ kind: 'gap', reason: 'trace-off', offset: t.offsets[3] });
  });

  it('trace_lost, then resynchronisation at the next sync packet', () => {
    const t = new Trace(P11).support().sync(0x3000n).f2(0x3004n).support({}, true, QUAL_STATUS.trace_lost).sync(0x3010n).end();
    const items = decodeStream(t.bytes(), STRAIGHT, { params: P11, xlen: 32 });
    expect(show(items)).toEqual(['3000', '3004', 'gap:trace-lost', '3010', 'gap:end']);
    expect(items[2]).toEqual({ kind: 'gap', reason: 'trace-lost', offset: t.offsets[3] });
  });

  it('a stream that stops without a closing support packet ends with a truncated gap', () => {
    const t = new Trace(P11).support().sync(0x3000n).f2(0x300cn);
    const bytes = t.bytes();
    expect(decodeStream(bytes, STRAIGHT, { params: P11, xlen: 32 })).toEqual([
      ...[0x3000n, 0x3004n, 0x3008n, 0x300cn].map((address) => ({ kind: 'pc', address })),
      { kind: 'gap', reason: 'truncated', offset: bytes.length },
    ]);
  });

  it('2.0 support layout (ienable) and data trace messages are skipped', () => {
    const t = new Trace(P20).support().sync(0x3000n).f2(0x3008n).end();
    const data = encapsulate(Uint8Array.of(0x12, 0x34), P20, { msgType: 3 });
    const bytes = Uint8Array.from([...data, ...t.bytes()]);
    expect(show(decodeStream(bytes, STRAIGHT, { params: P20, xlen: 32 }))).toEqual(['3000', '3004', '3008', 'gap:end']);
  });
});

describe('resynchronisation and format 3 subformat 0 while synced', () => {
  const RESYNC = image([
    [0x4000, enc.addi(5, 0, 1)],
    [0x4004, enc.bne(5, 0, 8)], // taken -> 0x400c
    [0x4008, enc.addi(6, 0, 0)],
    [0x400c, enc.addi(6, 0, 1)],
    [0x4010, enc.jalr(0, 9, 0)], // -> 0x4100
    [0x4100, enc.addi(7, 0, 0)],
    [0x4104, enc.addi(7, 0, 1)],
  ]);

  it('resync due at a branch: F1 reports it, the sync reports its successor', () => {
    // Run: 4000 4004(T) 400c 4010 -> 4100 4104. Resync due at 4004 with the branch in the map.
    const t = new Trace(P11).support().sync(0x4000n).f1('T', 0x4004n).sync(0x400cn).f2(0x4100n).f2(0x4104n).end();
    expect(decode(t, RESYNC, P11)).toEqual([...hex(0x4000, 0x4004, 0x400c, 0x4010, 0x4100, 0x4104), 'gap:end']);
  });

  it('resync due at an uninferable jump with an empty map: the sync reports its target', () => {
    const t = new Trace(P11).support().sync(0x400cn).sync(0x4100n).f2(0x4104n).end();
    expect(decode(t, RESYNC, P11)).toEqual([...hex(0x400c, 0x4010, 0x4100, 0x4104), 'gap:end']);
  });

  it('a sync reporting a branch carries its outcome in the branch field', () => {
    // Run: 4004(T) 400c, end. The sync at 4004 says taken.
    const t = new Trace(P11).support().sync(0x4004n, 'T').f2(0x400cn).end();
    expect(decode(t, RESYNC, P11)).toEqual([...hex(0x4004, 0x400c), 'gap:end']);
  });

  /** A loop closed by jr x9 (x9 = 0x1004), entered from 0x1000, which an indirect jump reaches. */
  const LOOP_IN = image([
    [0x0ff8, enc.addi(5, 0, 0)],
    [0x0ffc, enc.jalr(0, 8, 0)], // -> 0x1000
    [0x1000, enc.addi(6, 0, 0)],
    [0x1004, enc.addi(7, 0, 1)], // loop label
    [0x1008, enc.addi(8, 0, 2)],
    [0x100c, enc.jalr(0, 9, 0)], // -> 0x1004
  ]);

  it('a resync after a tentative stop at a loop label: the report was the pass after the jump', () => {
    // Run: 1000 1004 1008 100c | 1004 1008 100c | 1004 1008, end. F2(1004) reports pass 2 (step 5);
    // the resync becomes due at the jr of pass 2 (empty map): F3 SF0 reports pass 3.
    const t = new Trace(P11).support().sync(0x1000n).f2(0x1004n).sync(0x1004n).f2(0x1008n).end();
    expect(decode(t, LOOP_IN, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008), 'gap:end']);
  });

  it('a resync at a loop label first passed by falling through is the pass after the jump', () => {
    // Run: 0ff8 0ffc -> 1000 1004 1008 100c -> 1004 1008, end. F2(1000) reports the jump target;
    // the resync is due at the jr (itype != 0), so F3 SF0 reports the second 1004. Only the block
    // placement does this (the flowchart would report the jr's target first, section 6.6.2 case 2).
    const block: EtraceParams = { ...P11, resync_policy: 'block' };
    const t = new Trace(block).support().sync(0x0ff8n).f2(0x1000n).sync(0x1004n).f2(0x1008n).end();
    expect(decode(t, LOOP_IN, block)).toEqual([...hex(0x0ff8, 0x0ffc, 0x1000, 0x1004, 0x1008, 0x100c, 0x1004, 0x1008), 'gap:end']);
  });

  it('a sync right after the instruction the last packet reported is its successor (ctype 3, no context field)', () => {
    // Run: 1000 1004, then 1008 starts a new context (ctype 3): F2(1004) by step 7, F3 SF0(1008);
    // then 1008 100c -> 1004 1008... the end: F2(100c) reports the jr.
    const t = new Trace(P11).support().sync(0x1000n).f2(0x1004n).sync(0x1008n).f2(0x100cn).end();
    expect(decode(t, LOOP_IN, P11)).toEqual([...hex(0x1000, 0x1004, 0x1008, 0x100c), 'gap:end']);
  });

  /** f is called twice in a row (1ff4 1ff8(T) 2000 2100 2104 2004 2100 2104 2008). */
  const TWICE = image([
    [0x1ff4, enc.addi(5, 0, 1)],
    [0x1ff8, enc.bne(5, 0, 8)], // -> 0x2000
    [0x2000, enc.jal(1, 0x100)], // call f
    [0x2004, enc.jal(1, 0xfc)], // call f
    [0x2008, enc.addi(6, 0, 0)],
    [0x2100, enc.addi(7, 0, 0)], // f
    [0x2104, enc.jalr(0, 1, 0)], // ret
  ]);
  const TWICE_RUN = hex(0x1ff4, 0x1ff8, 0x2000, 0x2100, 0x2104, 0x2004, 0x2100, 0x2104, 0x2008);

  it('a resync after a depth report that the flags leave ambiguous moves on to the occurrence that fits (ratified irdepth)', () => {
    // 2104 (f's ret) runs twice at depth 1, with a return and a call between and no branch.
    // Resync due at the second ret with the branch in the map: F1(T, 2104, irdepth 1), then
    // F3 SF0 at its successor 2008. Only the second occurrence is followed by 2008.
    const params: EtraceParams = { ...P11, return_stack_size_p: 2, iret_ext_p: 0 };
    const t = new Trace(params).support({ implicit_return: true }).sync(0x1ff4n).f1('T', 0x2104n, { irreport: true, irdepth: 1n }).sync(0x2008n).end();
    expect(decode(t, TWICE, params)).toEqual([...TWICE_RUN, 'gap:end']);
  });

  it('the same with the Implicit Return extension: irets 1 names the second ret at once', () => {
    // The first ret is implicit (1 return counted since the branch); the report of the second ret
    // does not count the ret it reports: F1(T, 2104, irets 1), then F3 SF0 at 2008.
    const params: EtraceParams = { ...P11, return_stack_size_p: 2 };
    const t = new Trace(params).support({ implicit_return: true }).sync(0x1ff4n).f1('T', 0x2104n, { irreport: true, irets: 1n }).sync(0x2008n).end();
    expect(decode(t, TWICE, params)).toEqual([...TWICE_RUN, 'gap:end']);
    // irets 0 (irreport clear) is the first ret; the sync then does not follow from it, and the
    // decoder moves on to the occurrence that fits (as for the ratified layout above).
    const first = new Trace(params).support({ implicit_return: true }).sync(0x1ff4n).f1('T', 0x2104n).end();
    expect(decode(first, TWICE, params)).toEqual([...hex(0x1ff4, 0x1ff8, 0x2000, 0x2100, 0x2104), 'gap:end']);
  });

  it('an asynchronous context change (ctype 3): the sync does not follow from the old context', () => {
    // Old context: 4100 4104 (reported by step 7); new context starts at 4000 with a sync.
    const t = new Trace(P11).support().sync(0x4100n).f2(0x4104n).sync(0x4000n).f1('T', 0x400cn).end();
    expect(decode(t, RESYNC, P11)).toEqual([...hex(0x4100, 0x4104, 0x4000, 0x4004, 0x400c), 'gap:end']);
  });
});

describe('sequentially inferable jumps', () => {
  const P = { ...P11, sijump_p: 1 };
  const SI = image([
    [0x6000, enc.auipc(6, 0)],
    [0x6004, enc.jalr(0, 6, 16)], // -> 0x6010
    [0x6010, enc.cLui(15, 1)], // x15 = 0x1000
    [0x6012, enc.cJr(15)], // -> 0x1000
    [0x1000, enc.addi(5, 0, 0)],
    [0x1004, enc.addi(5, 0, 1)],
  ]);
  const RUN = hex(0x6000, 0x6004, 0x6010, 0x6012, 0x1000, 0x1004);

  it('auipc+jalr and c.lui+c.jr need no packet with sijump on', () => {
    const t = new Trace(P).support({ sijump: true }).sync(0x6000n).f2(0x1004n).end();
    expect(decode(t, SI, P)).toEqual([...RUN, 'gap:end']);
  });

  it('with sijump off every target is reported', () => {
    const t = new Trace(P).support().sync(0x6000n).f2(0x6010n).f2(0x1000n).f2(0x1004n).end();
    expect(decode(t, SI, P)).toEqual([...RUN, 'gap:end']);
  });

  it('a jump whose constant load was not traced (trace starts at the jump) is uninferable', () => {
    const t = new Trace(P).support({ sijump: true }).sync(0x6004n).f2(0x6010n).f2(0x1004n).end();
    expect(decode(t, SI, P)).toEqual([...RUN.slice(1), 'gap:end']);
  });
});

describe('implicit return, ratified irdepth (iret_ext_p = 0)', () => {
  /**
   * main calls f(2); f recurses down to f(0), which returns at once; each return lands on 0x210c.
   * Run: 2000 | 2100 2104(N) 2108 | 2100 2104(N) 2108 | 2100(T) 2114 | 210c 2110 | 210c 2110 | 2004 2008
   * Return stack after the calls: [2004, 210c, 210c]; depth at the first 210c is 2, at the second 1.
   */
  const RECURSE = image([
    [0x2000, enc.jal(1, 0x100)], // call f
    [0x2004, enc.addi(5, 0, 0)],
    [0x2008, enc.addi(5, 0, 1)],
    [0x2100, enc.beq(10, 0, 0x14)], // f: if a0 == 0 goto 0x2114
    [0x2104, enc.addi(10, 10, -1)],
    [0x2108, enc.jal(1, -8)], // call f
    [0x210c, enc.addi(7, 7, 1)],
    [0x2110, enc.jalr(0, 1, 0)], // ret
    [0x2114, enc.jalr(0, 1, 0)], // ret
  ]);
  const TO_FIRST_210C = hex(0x2000, 0x2100, 0x2104, 0x2108, 0x2100, 0x2104, 0x2108, 0x2100, 0x2114, 0x210c);
  const STACK: EtraceParams = { ...P11, return_stack_size_p: 2, iret_ext_p: 0 };
  const COUNTER: EtraceParams = { ...P11, call_counter_size_p: 2, iret_ext_p: 0 };

  it.each([
    ['return stack', STACK],
    ['call counter', COUNTER],
  ])('%s: irdepth selects the occurrence of a reported address in recursion', (_name, params) => {
    // Trace ends at the second 210c: F1 (step 7) with the three branches and irdepth 1.
    const second = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x210cn, { irreport: true, irdepth: 1n }).end();
    expect(decode(second, RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', 'gap:end']);
    // Ends at the first 210c: irdepth 2.
    const first = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x210cn, { irreport: true, irdepth: 2n }).end();
    expect(decode(first, RECURSE, params)).toEqual([...TO_FIRST_210C, 'gap:end']);
    // Ends at 2008 after all returns (depth 0: no irreport).
    const out = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x2008n).end();
    expect(decode(out, RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', '2110', '2004', '2008', 'gap:end']);
  });

  it('a full stack drops its oldest entry: the outermost return is reported', () => {
    // Two entries: the third call pushes out 2004, so the last ret is an uninferable jump and
    // F1 reports its target 2004 with the branch map (step 5); F2 reports the end at 2008.
    const params: EtraceParams = { ...P11, return_stack_size_p: 1, iret_ext_p: 0 };
    const t = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x2004n).f2(0x2008n).end();
    expect(decode(t, RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', '2110', '2004', '2008', 'gap:end']);
  });

  /**
   * g adds 4 to ra before returning, so its return goes to 0x3008 instead of the predicted 0x3004:
   * mispredicted, reported with irreport and irdepth 1, and left on the stack. h returns normally.
   * Run: 3000 3100 3104 | 3008 300c 3200 | 3010 3014, end.
   */
  const MISPREDICT = image([
    [0x3000, enc.jal(1, 0x100)], // call g, push 3004
    [0x3004, enc.addi(5, 0, 0)],
    [0x3008, enc.addi(5, 0, 1)],
    [0x300c, enc.jal(1, 0x1f4)], // call h (0x3200), push 3010
    [0x3010, enc.addi(5, 0, 2)],
    [0x3014, enc.addi(5, 0, 3)],
    [0x3100, enc.addi(1, 1, 4)], // g: ra += 4
    [0x3104, enc.jalr(0, 1, 0)], // ret -> 3008
    [0x3200, enc.jalr(0, 1, 0)], // h: ret -> 3010
  ]);

  it('a mispredicted return is reported with its depth and stays on the stack', () => {
    // At 3014 the stack still holds 3004 (the mispredicted return did not pop): depth 1.
    const t = new Trace(STACK)
      .support({ implicit_return: true })
      .sync(0x3000n)
      .f2(0x3008n, { irreport: true, irdepth: 1n })
      .f2(0x3014n, { irreport: true, irdepth: 1n })
      .end();
    expect(decode(t, MISPREDICT, STACK)).toEqual([...hex(0x3000, 0x3100, 0x3104, 0x3008, 0x300c, 0x3200, 0x3010, 0x3014), 'gap:end']);
  });

  /**
   * A depth report that meets a return at the same depth on its way: A calls f, f returns, A
   * calls g, the trace ends in g (depth 2). f's return has depth 2 too, but it is implicit.
   * Run: 5000 5100 5200 5104 5300, end.
   */
  it('a depth report is not mistaken for a mispredicted return at the same depth', () => {
    const img = image([
      [0x5000, enc.jal(1, 0x100)], // call A
      [0x5100, enc.jal(1, 0x100)], // A: call f
      [0x5104, enc.jal(1, 0x1fc)], // call g (0x5300)
      [0x5200, enc.jalr(0, 1, 0)], // f: ret
      [0x5300, enc.addi(5, 0, 0)], // g
    ]);
    const t = new Trace(STACK).support({ implicit_return: true }).sync(0x5000n).f2(0x5300n, { irreport: true, irdepth: 2n }).end();
    expect(decode(t, img, STACK)).toEqual([...hex(0x5000, 0x5100, 0x5200, 0x5104, 0x5300), 'gap:end']);
  });

  it('co-routine swaps are always reported and leave the stack alone', () => {
    // 0x2000 call f (push 2004); f: jalr x1, x5 (swap) -> 0x2200; 0x2200: ret -> 2004 (implicit).
    const img = image([
      [0x2000, enc.jal(1, 0x100)],
      [0x2004, enc.addi(5, 0, 0)],
      [0x2100, enc.jalr(1, 5, 0)], // swap: pushes nothing
      [0x2200, enc.jalr(0, 1, 0)],
    ]);
    const t = new Trace(STACK).support({ implicit_return: true }).sync(0x2000n).f2(0x2200n).f2(0x2004n).end();
    expect(decode(t, img, STACK)).toEqual([...hex(0x2000, 0x2100, 0x2200, 0x2004), 'gap:end']);
  });
});

/**
 * The Implicit Return extension v0.8 (the default, iret_ext_p = 1): irets counts the returns
 * popped since the last branch or packet, before the reported instruction. Packet sequences
 * written by hand from the extension's rules (docs/etrace-model.md), not by the encoder.
 */
describe('implicit return with the Implicit Return extension (irets)', () => {
  const STACK: EtraceParams = { ...P11, return_stack_size_p: 2 };
  const COUNTER: EtraceParams = { ...P11, call_counter_size_p: 2 };

  /**
   * Spec issue #254: main calls a branchless f twice, f's instructions come back at the same
   * stack depth, and the trace stops inside the second call (say a trap follows 0x2000).
   * Run A: 1000 2000 (stops in the first call). Run B: 1000 2000 2004 1004 2000 (in the second).
   */
  const F_TWICE = image([
    [0x1000, enc.jal(1, 0x1000)], // call f (0x2000)
    [0x1004, enc.jal(1, 0xffc)], // call f
    [0x1008, enc.addi(6, 0, 0)],
    [0x2000, enc.addi(7, 0, 0)], // f
    [0x2004, enc.jalr(0, 1, 0)], // ret
  ]);

  it.each([
    ['return stack', STACK],
    ['call counter', COUNTER],
  ])('%s: spec issue #254, f(); f(); a report inside the second f says one return went before it', (_name, params) => {
    // B: the first ret is implicit, so the report of 2000 (step 7: the last instruction) carries
    // irreport with irets = 1.
    const b = new Trace(params).support({ implicit_return: true }).sync(0x1000n).f2(0x2000n, { irreport: true, irets: 1n }).end();
    expect(decode(b, F_TWICE, params)).toEqual([...hex(0x1000, 0x2000, 0x2004, 0x1004, 0x2000), 'gap:end']);
    // A: no return before the report, irreport clear.
    const a = new Trace(params).support({ implicit_return: true }).sync(0x1000n).f2(0x2000n).end();
    expect(decode(a, F_TWICE, params)).toEqual([...hex(0x1000, 0x2000), 'gap:end']);
    // The return target after the second call, 1008: two returns before it.
    const c = new Trace(params).support({ implicit_return: true }).sync(0x1000n).f2(0x1008n, { irreport: true, irets: 2n }).end();
    expect(decode(c, F_TWICE, params)).toEqual([...hex(0x1000, 0x2000, 0x2004, 0x1004, 0x2000, 0x2004, 0x1008), 'gap:end']);
  });

  it('spec issue #254 under the ratified irdepth: runs A and B give the same packets, so no decoder can tell them apart', () => {
    // Depth 1 at both occurrences of 2000, and nothing else differs: the encoder sends
    // support, F3 SF0(1000), F2(2000, irreport, irdepth 1), support(end) for A and for B (the
    // encoder test 'iret.test.ts' shows it on the records). The decoder gives A's path; for B it is
    // wrong (it misses 2004 1004 2000).
    const params: EtraceParams = { ...P11, return_stack_size_p: 2, iret_ext_p: 0 };
    const t = new Trace(params).support({ implicit_return: true }).sync(0x1000n).f2(0x2000n, { irreport: true, irdepth: 1n }).end();
    const runA = [...hex(0x1000, 0x2000), 'gap:end'];
    const runB = [...hex(0x1000, 0x2000, 0x2004, 0x1004, 0x2000), 'gap:end'];
    expect(decode(t, F_TWICE, params)).toEqual(runA);
    expect(decode(t, F_TWICE, params)).not.toEqual(runB);
  });

  /** As in the ratified tests: f recurses twice; TO_FIRST_210C is the run up to the first 0x210c. */
  const RECURSE = image([
    [0x2000, enc.jal(1, 0x100)], // call f
    [0x2004, enc.addi(5, 0, 0)],
    [0x2008, enc.addi(5, 0, 1)],
    [0x2100, enc.beq(10, 0, 0x14)], // f: if a0 == 0 goto 0x2114
    [0x2104, enc.addi(10, 10, -1)],
    [0x2108, enc.jal(1, -8)], // call f
    [0x210c, enc.addi(7, 7, 1)],
    [0x2110, enc.jalr(0, 1, 0)], // ret
    [0x2114, enc.jalr(0, 1, 0)], // ret
  ]);
  const TO_FIRST_210C = hex(0x2000, 0x2100, 0x2104, 0x2108, 0x2100, 0x2104, 0x2108, 0x2100, 0x2114, 0x210c);

  it.each([
    ['return stack', STACK],
    ['call counter', COUNTER],
  ])('%s: irets selects the occurrence of a reported address in recursion', (_name, params) => {
    // Returns after the last branch (the taken beq): 2114, then 2110 twice. The first 210c follows
    // one, the second two, 2008 three (reported although the stack is empty by then).
    const first = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x210cn, { irreport: true, irets: 1n }).end();
    expect(decode(first, RECURSE, params)).toEqual([...TO_FIRST_210C, 'gap:end']);
    const second = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x210cn, { irreport: true, irets: 2n }).end();
    expect(decode(second, RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', 'gap:end']);
    const out = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x2008n, { irreport: true, irets: 3n }).end();
    expect(decode(out, RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', '2110', '2004', '2008', 'gap:end']);
  });

  it('a report of a return does not count that return: the last one to pop and the next, which finds the stack empty', () => {
    // A two-entry stack: the third call pushes out 2004, so the second 2110 finds the stack empty.
    // Reports of the first 2110 (one return before it: 2114) and of the second (two).
    const params: EtraceParams = { ...P11, return_stack_size_p: 1 };
    const at = (n: bigint) => new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x2110n, { irreport: true, irets: n }).end();
    expect(decode(at(1n), RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', 'gap:end']);
    expect(decode(at(2n), RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', '2110', 'gap:end']);
    // The second 2110 goes on: an uninferable jump, its target reported with the two returns
    // before it (the stack is empty, the count is not), then F2 for the end at 2008.
    const t = new Trace(params).support({ implicit_return: true }).sync(0x2000n).f1('NNT', 0x2004n, { irreport: true, irets: 2n }).f2(0x2008n).end();
    expect(decode(t, RECURSE, params)).toEqual([...TO_FIRST_210C, '2110', '210c', '2110', '2004', '2008', 'gap:end']);
  });

  /** g returns to 0x3008 instead of 0x3004 (mispredicted); h returns normally. */
  const MISPREDICT = image([
    [0x3000, enc.jal(1, 0x100)], // call g, push 3004
    [0x3004, enc.addi(5, 0, 0)],
    [0x3008, enc.addi(5, 0, 1)],
    [0x300c, enc.jal(1, 0x1f4)], // call h (0x3200), push 3010
    [0x3010, enc.addi(5, 0, 2)],
    [0x3014, enc.addi(5, 0, 3)],
    [0x3100, enc.addi(1, 1, 4)], // g: ra += 4
    [0x3104, enc.jalr(0, 1, 0)], // ret -> 3008
    [0x3200, enc.jalr(0, 1, 0)], // h: ret -> 3010
  ]);

  it('a mispredicted return pops and is named by irets = the returns before it', () => {
    // Its target 3008 is reported with irreport and irets 0 (no return before it); the stack is
    // then empty, h's return pops 3010 (one return), and the end at 3014 carries irets 1.
    const t = new Trace(STACK)
      .support({ implicit_return: true })
      .sync(0x3000n)
      .f2(0x3008n, { irreport: true, irets: 0n })
      .f2(0x3014n, { irreport: true, irets: 1n })
      .end();
    expect(decode(t, MISPREDICT, STACK)).toEqual([...hex(0x3000, 0x3100, 0x3104, 0x3008, 0x300c, 0x3200, 0x3010, 0x3014), 'gap:end']);
  });

  it('the mispredicted return is the one whose count matches, not the first on the path', () => {
    // f returns normally, then g returns to ra + 4: a return before the mispredicted one, so its
    // target 0x5010 is reported with irets 1; the first ret (f's) is implicit.
    const img = image([
      [0x5000, enc.jal(1, 0x100)], // call f, push 5004
      [0x5004, enc.jal(1, 0x1fc)], // call g (0x5200), push 5008
      [0x5008, enc.addi(5, 0, 0)],
      [0x500c, enc.addi(5, 0, 1)],
      [0x5100, enc.jalr(0, 1, 0)], // f: ret
      [0x5200, enc.addi(1, 1, 4)], // g: ra += 4
      [0x5204, enc.jalr(0, 1, 0)], // ret -> 500c
    ]);
    const t = new Trace(STACK).support({ implicit_return: true }).sync(0x5000n).f2(0x500cn, { irreport: true, irets: 1n }).end();
    expect(decode(t, img, STACK)).toEqual([...hex(0x5000, 0x5100, 0x5004, 0x5200, 0x5204, 0x500c), 'gap:end']);
  });

  it('after 255 counted returns the next return is reported: irets 255 names it', () => {
    // 256 calls of a leaf function (a lone ret) in a row, no branch: returns 1..255 are implicit,
    // the 256th is not; its target 0x10400 is reported with irets 255 (step 5), the end at 0x10404
    // with no count.
    const rows: [number, number][] = [];
    for (let i = 0; i < 256; i++) rows.push([0x10000 + 4 * i, enc.jal(1, 0x1000 - 4 * i)]); // call 0x11000
    rows.push([0x10400, enc.addi(5, 0, 0)], [0x10404, enc.addi(5, 0, 1)], [0x11000, enc.jalr(0, 1, 0)]);
    const img = image(rows);
    const t = new Trace(STACK).support({ implicit_return: true }).sync(0x10000n).f2(0x10400n, { irreport: true, irets: 255n }).f2(0x10404n).end();
    const run: number[] = [];
    for (let i = 0; i < 256; i++) run.push(0x10000 + 4 * i, 0x11000);
    expect(decode(t, img, STACK)).toEqual([...hex(...run, 0x10400, 0x10404), 'gap:end']);
  });
});

describe('branch prediction (format 0 subformat 0)', () => {
  /**
   * A countdown loop: the bne at 0x4008 is taken 79 times, then not taken. Predictor entry of
   * 0x4008 starts at 01 (predict not taken): branch 1 fails (-> 11), 2-79 are predicted, 80 fails.
   * Encoder: branch 1 failed, so the first 31 go out as a full F1 map (no address). From 32 on
   * every prediction is right; the count passes 31 at branch 62 and the map is abandoned.
   */
  const P: EtraceParams = { ...P11, bpred_size_p: 2 };
  const LOOP80 = image([
    [0x4000, enc.addi(5, 0, 80)],
    [0x4004, enc.addi(5, 5, -1)],
    [0x4008, enc.bne(5, 0, -4)],
    [0x400c, enc.addi(6, 0, 0)],
  ]);
  const iterations = (n: number): string[] => Array.from({ length: n }, () => hex(0x4004, 0x4008)).flat();
  const ALL_TAKEN = 'T'.repeat(31);

  it('branch 80 fails in count mode: F0 SF0 without address (48 correct), then F2', () => {
    const t = new Trace(P)
      .support({ branch_prediction: true })
      .sync(0x4000n)
      .f1(ALL_TAKEN)
      .f0count(48, BRANCH_FMT.no_addr)
      .f2(0x400cn)
      .end();
    expect(decode(t, LOOP80, P)).toEqual(['4000', ...iterations(80), '400c', 'gap:end']);
  });

  it('trace ends at the failed branch: branch_fmt 11 with its address', () => {
    const t = new Trace(P).support({ branch_prediction: true }).sync(0x4000n).f1(ALL_TAKEN).f0count(48, BRANCH_FMT.addr_fail, 0x4008n).end();
    expect(decode(t, LOOP80, P)).toEqual(['4000', ...iterations(80), 'gap:end']);
  });

  it('trace ends at a correctly predicted branch: branch_fmt 10, the branch is the last counted', () => {
    // Ends after branch 79: branches 32..79 are 48 correct predictions.
    const t = new Trace(P).support({ branch_prediction: true }).sync(0x4000n).f1(ALL_TAKEN).f0count(48, BRANCH_FMT.addr, 0x4008n).end();
    expect(decode(t, LOOP80, P)).toEqual(['4000', ...iterations(79), 'gap:end']);
  });

  it('the branch a sync reports does not train the predictor (the sync reset comes after it)', () => {
    /**
     * X (0x4100, entry 0) is taken at the sync, Y (0x410c, entry 2) closes an inner loop.
     * Run: X(T) | Y taken 70 times, Y#71 not taken | 4110 j X, X(N) 4104 | Y#72..#105 taken, end.
     * Encoder: Y#1 fails (01 -> 11): F1 full map at Y#31. Y#32..#70 correct (39), Y#71 fails:
     * F0 SF0 without address. X's entry is still 01 (its update at the sync was reset), so X(N)
     * is correct; Y (10 after its failure) predicts Y#72..#105: 35 correct, F0 SF0 fmt 10 at Y#105.
     * A decoder that trained X's entry with the sync's outcome would predict X taken.
     */
    const img = image([
      [0x4100, enc.beq(6, 0, 8)], // X -> 0x4108
      [0x4104, enc.addi(6, 0, 1)],
      [0x4108, enc.addi(5, 5, -1)],
      [0x410c, enc.bne(5, 0, -4)], // Y -> 0x4108
      [0x4110, enc.jal(0, -0x10)], // j X
    ]);
    const inner = (n: number): string[] => Array.from({ length: n }, () => hex(0x4108, 0x410c)).flat();
    const t = new Trace(P)
      .support({ branch_prediction: true })
      .sync(0x4100n, 'T')
      .f1(ALL_TAKEN)
      .f0count(39, BRANCH_FMT.no_addr)
      .f0count(35, BRANCH_FMT.addr, 0x410cn)
      .end();
    expect(decode(t, img, P)).toEqual(['4100', ...inner(71), ...hex(0x4110, 0x4100, 0x4104), ...inner(34), 'gap:end']);
  });

  it('a long predicted run decodes quickly (a million iterations)', () => {
    // 1,000,000 branches: #1 fails, F1 at #31, #32..#999999 correct, #1000000 fails.
    const n = 1_000_000;
    const t = new Trace(P)
      .support({ branch_prediction: true })
      .sync(0x4000n)
      .f1(ALL_TAKEN)
      .f0count(n - 32, BRANCH_FMT.no_addr)
      .f2(0x400cn)
      .end();
    const started = performance.now();
    const items = decodeStream(t.bytes(), LOOP80, { params: P, xlen: 32 });
    const ms = performance.now() - started;
    expect(items).toHaveLength(2 * n + 3);
    expect(show(items.slice(-4))).toEqual(['4004', '4008', '400c', 'gap:end']);
    expect(ms).toBeLessThan(20_000);
  });
});

describe('jump target cache (format 0 subformat 1)', () => {
  /**
   * Calls through a register twice: 0x5004 jalr ra, x9 -> 0x5102; 0x5106 ret -> 0x5008.
   * Cache (4 entries, index = address bits 2:1): 0x5102 -> 1, 0x5008 -> 0.
   * Run: 5000 5004 5102 5106 5008 500c(T) 5004 5102 5106 5008 500c(N) 5010, end.
   */
  const P: EtraceParams = { ...P11, cache_size_p: 2 };
  const CALLS = image([
    [0x5000, enc.addi(6, 0, 2)],
    [0x5004, enc.jalr(1, 9, 0)],
    [0x5008, enc.addi(6, 6, -1)],
    [0x500c, enc.bne(6, 0, -8)],
    [0x5010, enc.addi(7, 0, 0)],
    [0x5102, enc.addi(8, 0, 0)],
    [0x5106, enc.jalr(0, 1, 0)],
  ]);
  const RUN = hex(0x5000, 0x5004, 0x5102, 0x5106, 0x5008, 0x500c, 0x5004, 0x5102, 0x5106, 0x5008, 0x500c, 0x5010);

  it('first targets miss (F2), repeated ones hit (F0 SF1 with and without a map)', () => {
    const t = new Trace(P)
      .support({ jump_target_cache: true })
      .sync(0x5000n)
      .f2(0x5102n)
      .f2(0x5008n)
      .f0jtc(1, 0x5102n, 'T')
      .f0jtc(0, 0x5008n)
      .f1('N', 0x5010n)
      .end();
    expect(decode(t, CALLS, P)).toEqual([...RUN, 'gap:end']);
  });

  it('an empty entry is an error', () => {
    const t = new Trace(P).support({ jump_target_cache: true }).sync(0x5000n).f0jtc(2, 0x5104n);
    const e = decodeError(t, CALLS, P);
    expect(e.message).toBe(`packet at byte offset ${t.offsets[2]}: jump target cache entry 2 is empty`);
  });
});

describe('traps', () => {
  const TRAPS = image([
    [0x7000, enc.addi(5, 0, 0)],
    [0x7004, enc.ecall()],
    [0x7008, enc.addi(5, 0, 1)],
    [0x700c, enc.addi(5, 0, 2)],
    [0x7100, enc.addi(6, 0, 0)], // ecall handler
    [0x7104, enc.mret()],
    [0x71fc, enc.addi(7, 0, 0)],
    [0x7200, enc.jalr(0, 10, 0)], // -> 0x7300, whose fetch faults
    [0x7300, enc.addi(7, 0, 1)],
    [0x7400, enc.addi(8, 0, 0)], // handler of the fault
    [0x7404, enc.addi(8, 0, 1)],
    [0x7500, enc.addi(9, 0, 0)],
    [0x7504, enc.unimp()], // illegal: traps to 0x7600
    [0x7600, enc.addi(9, 0, 1)],
    [0x7604, enc.addi(9, 0, 2)],
    [0x7700, enc.addi(9, 0, 3)],
    [0x7704, enc.addi(9, 0, 4)],
  ]);
  const ECALL_RUN = [...hex(0x7000, 0x7004, 0x7100, 0x7104, 0x7008, 0x700c), 'gap:end'];

  it.each([
    ['1.1.1', P11],
    ['2.0', P20],
  ])('%s: ecall retires, then its handler is reported; mret back', (_layout, params) => {
    // F2(7004): the ecall (step 6); F3 SF1 (2.0: thaddr 1) at the handler; F2(7008) after the mret.
    const t = new Trace(params).support().sync(0x7000n).f2(0x7004n).trap({ cause: 11n, address: 0x7100n }).f2(0x7008n).f2(0x700cn).end();
    expect(decode(t, TRAPS, params)).toEqual(ECALL_RUN);
  });

  it.each([
    ['1.1.1', P11],
    ['2.0', P20],
  ])('%s: implicit exception takes the handler from the caller table', (_layout, params) => {
    // No handler address: the last reported address stays 0x7004 for the next F2.
    const t = new Trace(params).support({ implicit_exception: true }).sync(0x7000n).f2(0x7004n).trap({ cause: 11n }).f2(0x7008n).f2(0x700cn).end();
    const trapHandler = (trap: { cause: bigint; interrupt: boolean }): bigint => (trap.cause === 11n && !trap.interrupt ? 0x7100n : 0n);
    expect(decode(t, TRAPS, params, { trapHandler })).toEqual(ECALL_RUN);
    const e = decodeError(t, TRAPS, params);
    expect(e.message).toBe(`packet at byte offset ${t.offsets[3]}: implicit exception: the trap packet has no handler address and no trap handler table was given`);
  });

  it('2.0: a trap at the target of an uninferable jump (thaddr 0, then a sync at the handler)', () => {
    // Run: 71fc 7200 -> 7300 faults (fetch page fault), handler 7400 7404.
    // F2(7200) step 7; F3 SF1 thaddr 0 reporting the EPC 7300 (step 5); F3 SF0 at 7400.
    const t = new Trace(P20)
      .support()
      .sync(0x71fcn)
      .f2(0x7200n)
      .trap({ cause: 12n, thaddr: 0, address: 0x7300n, tval: 0x7300n })
      .sync(0x7400n)
      .f2(0x7404n)
      .end();
    expect(decode(t, TRAPS, P20)).toEqual([...hex(0x71fc, 0x7200, 0x7400, 0x7404), 'gap:end']);
  });

  it('2.0: a second trap before the handler retires anything (thaddr 0, then thaddr 1 or a sync)', () => {
    // Run: 7500, 7504 illegal -> handler 7600 faults at once -> handler 7700 7704.
    const withTrap = new Trace(P20)
      .support()
      .sync(0x7500n)
      .trap({ cause: 2n, thaddr: 0, address: 0x7600n })
      .trap({ cause: 1n, thaddr: 1, address: 0x7700n, tval: 0x7600n })
      .f2(0x7704n)
      .end();
    expect(decode(withTrap, TRAPS, P20)).toEqual([...hex(0x7500, 0x7700, 0x7704), 'gap:end']);
    const withSync = new Trace(P20).support().sync(0x7500n).trap({ cause: 2n, thaddr: 0, address: 0x7600n }).sync(0x7700n).f2(0x7704n).end();
    expect(decode(withSync, TRAPS, P20)).toEqual([...hex(0x7500, 0x7700, 0x7704), 'gap:end']);
  });

  it('1.1.1: the trapping target of an uninferable jump is reported by F2 with updiscon clear and dropped', () => {
    // F2(7200) step 7; F2(7300) step 5 (7300 does not retire; no format 3 follows it directly
    // about a retired instruction, so updiscon stays clear); F3 SF1 at the handler 7400.
    const t = new Trace(P11)
      .support()
      .sync(0x71fcn)
      .f2(0x7200n)
      .f2(0x7300n)
      .trap({ cause: 12n, address: 0x7400n, tval: 0x7300n })
      .f2(0x7404n)
      .end();
    expect(decode(t, TRAPS, P11)).toEqual([...hex(0x71fc, 0x7200, 0x7400, 0x7404), 'gap:end']);
  });

  it('1.1.1: a jump target that retires before the next instruction traps is kept (updiscon set)', () => {
    // Run: 71fc 7200 7300, then 7304 is illegal -> 7400 7404.
    const t = new Trace(P11)
      .support()
      .sync(0x71fcn)
      .f2(0x7200n)
      .f2(0x7300n, { updiscon: true })
      .trap({ cause: 2n, address: 0x7400n, tval: 0x7304n })
      .f2(0x7404n)
      .end();
    expect(decode(t, TRAPS, P11)).toEqual([...hex(0x71fc, 0x7200, 0x7300, 0x7400, 0x7404), 'gap:end']);
  });

  it('1.1.1: a second trap before the handler retires, told apart by tvalepc', () => {
    // The handler 7600 faults when fetched (tvalepc 7600): it did not retire.
    const faulted = new Trace(P11)
      .support()
      .sync(0x7500n)
      .trap({ cause: 2n, address: 0x7600n, tval: 0x7504n })
      .trap({ cause: 1n, address: 0x7700n, tval: 0x7600n })
      .f2(0x7704n)
      .end();
    expect(decode(faulted, TRAPS, P11)).toEqual([...hex(0x7500, 0x7700, 0x7704), 'gap:end']);
    // The handler 7600 retires and 7604 is illegal (tvalepc 7604): 7600 stays.
    const retired = new Trace(P11)
      .support()
      .sync(0x7500n)
      .trap({ cause: 2n, address: 0x7600n, tval: 0x7504n })
      .trap({ cause: 2n, address: 0x7700n, tval: 0x7604n })
      .f2(0x7704n)
      .end();
    expect(decode(retired, TRAPS, P11)).toEqual([...hex(0x7500, 0x7600, 0x7700, 0x7704), 'gap:end']);
  });
});

describe('malformed streams', () => {
  it('a format 1 before any sync', () => {
    const t = new Trace(P11).support().f1('T', 0x1004n);
    const e = decodeError(t, LOOP, P11);
    expect(e.message).toBe(`packet at byte offset ${t.offsets[1]}: format 1 with no preceding sync`);
    expect(e.location.offset).toBe(t.offsets[1]);
  });

  it('a format 2 after trace_lost, before the resync', () => {
    const t = new Trace(P11).support().sync(0x1000n).support({}, true, QUAL_STATUS.trace_lost).f2(0x1004n);
    expect(decodeError(t, LOOP, P11).message).toBe(`packet at byte offset ${t.offsets[3]}: format 2 with no preceding sync`);
  });

  it('a format 2 right after a 2.0 trap without handler address', () => {
    const t = new Trace(P20).support().sync(0x1000n).trap({ cause: 2n, thaddr: 0, address: 0x1004n }).f2(0x2000n);
    expect(decodeError(t, LOOP, P20).message).toMatch(/^packet at byte offset \d+: format 2 after a trap packet without handler address/);
  });

  it('a branch with no outcome left', () => {
    const img = image([
      [0x4000, enc.addi(5, 0, 1)],
      [0x4004, enc.beq(5, 0, 8)],
      [0x4008, enc.addi(6, 0, 0)],
    ]);
    const t = new Trace(P11).support().sync(0x4000n).f2(0x4008n);
    expect(decodeError(t, img, P11).message).toBe(`packet at byte offset ${t.offsets[2]}: branch map exhausted at 0x4004`);
  });

  it('an address outside the image', () => {
    const t = new Trace(P11).support().sync(0x9000n);
    const e = decodeError(t, LOOP, P11);
    expect(e.message).toBe(`packet at byte offset ${t.offsets[1]}: no instruction in the image at 0x9000`);
  });

  it('an uninferable jump under a packet without address', () => {
    const t = new Trace(P11).support().sync(0x1000n).f1('T'.repeat(31));
    expect(decodeError(t, LOOP, P11).message).toBe(`packet at byte offset ${t.offsets[2]}: uninferable jalr at 0x100c, but the packet carries no address`);
  });

  it('branches left over at the target of an uninferable jump', () => {
    const t = new Trace(P11).support().sync(0x1000n).f1('TT', 0x1004n, { updiscon: true });
    expect(decodeError(t, LOOP, P11).message).toBe(`packet at byte offset ${t.offsets[2]}: 2 unprocessed branches before 0x1004`);
  });

  it('a path that never reaches the reported address', () => {
    const img = image([[0x8000, enc.jal(0, 0)]]); // j .
    const t = new Trace(P11).support().sync(0x8000n).f2(0x8004n);
    expect(decodeError(t, img, P11, { maxStraightLine: 1000 }).message).toBe(
      `packet at byte offset ${t.offsets[2]}: followed 1000 instructions from 0x8000 without reaching the reported instruction`,
    );
  });

  it('a truncated packet (from the packet layer, with its offset)', () => {
    const bytes = new Trace(P11).support().sync(0x1000n).bytes();
    const e = (() => {
      try {
        decodeStream(bytes.subarray(0, bytes.length - 1), LOOP, { params: P11, xlen: 32 });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(RvError);
    expect((e as RvError).code).toBe('truncated');
    expect((e as RvError).location.offset).toBe(2);
  });

  it('a support packet enabling a mode the parameters lack', () => {
    const t = new Trace({ ...P11, bpred_size_p: 1 }).support({ branch_prediction: true });
    expect(decodeError(t, LOOP, P11).message).toMatch(/bpred_size_p is 0/);
  });
});
