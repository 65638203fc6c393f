/**
 * Memory transactions (opcodes 8 and 9) and the pc's physical address (additional state 9) on
 * instruction records, against bytes worked out by hand from the seed's chapter 2 tables: memory
 * request = MLEN address, op in bits 3:0 and size in bits 7:4 ("Fields less than one byte are packed
 * with the first field starting at the least significant bit"), data for stores, sc and AMOs ("0 for
 * load"); memory response = size in bits 3:0, result in bits 7:4, data for loads and AMOs ("0 for
 * store", tvtrace.md erratum 4); op codes from "Memory Request Opcode" (amoadd 5, sc 3, load 0,
 * instruction fetch 13). Instruction words assembled by hand (comment beside each). Then the same
 * records through both record formats and the independent decoder.
 */
import { describe, expect, it } from 'vitest';
import { decodeTv } from '../tvtrace-decoder/decoder.ts';
import { encodeTvRecords } from './encoder.ts';
import { decodeBinaryRecords, encodeBinaryRecords } from './formats/binary.ts';
import { decodeTextRecords, encodeTextRecords } from './formats/text.ts';
import { checkTvRecord, type TvRecord } from './records.ts';
import { defaultTvtraceConfig } from './settings.ts';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
const rows = (...r: string[]): string => r.join(' ');
const rv64 = defaultTvtraceConfig();
const rv64seed = defaultTvtraceConfig({ fieldOrder: 'seed' });
const rv32 = defaultTvtraceConfig({ xlen: 32, flen: 0, mlen: 34 });

// amoadd.w a0, a1, (a2): funct5 00000, rs2 = 11, rs1 = 12, funct3 010, rd = 10, 0101111 = 0x00b6252f.
// Memory held 7, a1 = 5: a0 gets 7, the AMO stores 0xc; on the bus one AMO transaction.
const amoadd: TvRecord = {
  kind: 'instruction',
  nextPc: 0x8000_0104n,
  pcPaddr: 0x8000_0104n,
  instr: { size: 32, bits: 0x00b6_252f },
  gpr: { reg: 10, value: 7n },
  storeData: { bytes: 4, value: 0xcn },
  eaddr: 0x8000_1000n,
  mem: [{ op: 5, bytes: 4, addr: 0x8000_1000n, data: 5n, response: { ok: true, data: 7n } }],
};

// ld a1, 0(a0) = 0x00053583, with its instruction fetch and its load on the bus.
const ld: TvRecord = {
  kind: 'instruction',
  nextPc: 0x8000_010cn,
  instr: { size: 32, bits: 0x0005_3583 },
  gpr: { reg: 11, value: 0x1122_3344_5566_7788n },
  eaddr: 0x8000_1000n,
  mem: [
    { op: 13, bytes: 4, addr: 0x8000_0108n, response: { ok: true, data: 0x0005_3583n } },
    { op: 0, bytes: 8, addr: 0x8000_1000n, response: { ok: true, data: 0x1122_3344_5566_7788n } },
  ],
};

// sc.w a0, a1, (a2) failing on RV32 with Sv32: funct5 00011 -> 0x18b6252f; a0 = 1, nothing stored,
// the request carries a1 = 5, the response no data and result 1; the address has 34 bits (5 bytes).
const scFail: TvRecord = {
  kind: 'instruction',
  nextPc: 0x8000_0108n,
  instr: { size: 32, bits: 0x18b6_252f },
  gpr: { reg: 10, value: 1n },
  mem: [{ op: 3, bytes: 4, addr: 0x2_8000_1000n, data: 5n, response: { ok: false } }],
};

describe('memory transactions and the pc paddr, bytes typed from chapter 2', () => {
  it('amoadd.w, Flute order: pc, pc paddr (07 09), instr, rd, store data, eaddr, request 08 with data, response 09 with data', () => {
    expect(hex(encodeTvRecords([amoadd], rv64))).toBe(
      rows(
        '01',
        '07 0a 04 01 00 80 00 00 00 00',
        '07 09 04 01 00 80 00 00 00 00',
        '11 2f 25 b6 00',
        '04 0a 10 07 00 00 00 00 00 00 00',
        '07 06 0c 00 00 00',
        '07 03 00 10 00 80 00 00 00 00',
        '08 00 10 00 80 00 00 00 00 25 05 00 00 00', // op 5 | size 2 << 4
        '09 02 07 00 00 00', // size 2 | result 0 << 4
        '02',
      ),
    );
  });

  it('amoadd.w, seed order with the pc known: increment pc, pc paddr, ..., eaddr, store data, then the transaction', () => {
    expect(hex(encodeTvRecords([amoadd], rv64seed, { pc: 0x8000_0100n }))).toBe(
      rows(
        '01 03',
        '07 09 04 01 00 80 00 00 00 00',
        '11 2f 25 b6 00',
        '04 0a 10 07 00 00 00 00 00 00 00',
        '07 03 00 10 00 80 00 00 00 00',
        '07 06 0c 00 00 00',
        '08 00 10 00 80 00 00 00 00 25 05 00 00 00',
        '09 02 07 00 00 00',
        '02',
      ),
    );
  });

  it('ld with a fetch and a load: requests without data (0 for load), responses with it', () => {
    expect(hex(encodeTvRecords([ld], rv64))).toBe(
      rows(
        '01 07 0a 0c 01 00 80 00 00 00 00',
        '11 83 35 05 00',
        '04 0b 10 88 77 66 55 44 33 22 11',
        '07 03 00 10 00 80 00 00 00 00',
        '08 08 01 00 80 00 00 00 00 2d', // op 13 | size 2 << 4
        '09 02 83 35 05 00',
        '08 00 10 00 80 00 00 00 00 30', // op 0 | size 3 << 4
        '09 03 88 77 66 55 44 33 22 11',
        '02',
      ),
    );
  });

  it('a failed sc.w on RV32 with Sv32: a 5-byte address, request data, a response without data and result 1', () => {
    expect(hex(encodeTvRecords([scFail], rv32))).toBe(
      rows('01 07 0a 08 01 00 80', '11 2f 25 b6 18', '04 0a 10 01 00 00 00', '08 00 10 00 80 02 23 05 00 00 00', '09 12', '02'),
    );
  });

  it('refuses transactions the protocol cannot carry, naming the field', () => {
    const bad = (mem: unknown): string | undefined => checkTvRecord({ ...ld, mem } as TvRecord);
    expect(bad([{ op: 0, bytes: 4, addr: 0n, data: 1n }])).toBe('mem[0]: op 0 has no request data');
    expect(bad([{ op: 1, bytes: 4, addr: 0n }])).toBe('mem[0]: op 1 needs request data');
    expect(bad([{ op: 1, bytes: 4, addr: 0n, data: 1n, response: { ok: true, data: 0n } }])).toBe('mem[0].response: op 1 has no response data');
    expect(bad([{ op: 14, bytes: 4, addr: 0n }])).toBe('mem[0].op is 14; allowed: 0-13 (the memory request opcodes)');
    expect(bad([ld.kind === 'instruction' && ld.mem![0], ld.kind === 'instruction' && ld.mem![0], ld.kind === 'instruction' && ld.mem![0]])).toBe(
      '3 memory transactions; allowed: at most 2',
    );
    expect(() => encodeTvRecords([{ ...scFail, mem: [{ op: 3, bytes: 4, addr: 1n << 34n, data: 5n }] } as TvRecord], rv32)).toThrow(
      'record 0: mem[0].addr 0x400000000 does not fit MLEN = 34',
    );
  });
});

describe('memory transactions and the pc paddr through the formats and the independent decoder', () => {
  const records = [amoadd, ld];

  it('text: the documented syntax, and back to the same records', () => {
    const text = encodeTextRecords(records);
    expect(text).toContain('mem0=amoadd:4:80001000:5/ok:7');
    expect(text).toContain('pc_paddr=80000104');
    expect(text).toContain('mem0=fetch:4:80000108/ok:53583 mem1=load:8:80001000/ok:1122334455667788');
    expect(decodeTextRecords(text, 't.tvr')).toEqual(records);
    let line = '';
    try {
      decodeTextRecords('# rvtrace tv records v1\ninstruction next_pc=4 mem0=store:4:100\n', 't.tvr');
    } catch (e) {
      line = (e as { oneLine: () => string }).oneLine();
    }
    expect(line).toMatch(/^t\.tvr:2: mem0=store:4:100: store needs request data; expected OP:BYTES:ADDR\[:DATA\]\[\/ok\|\/fail\[:DATA\]\]/);
  });

  it('bin: back to the same records', () => {
    expect(decodeBinaryRecords(encodeBinaryRecords([...records, scFail]), 't.bin')).toEqual([...records, scFail]);
  });

  it('the independent decoder reads the requests, responses and the pc paddr back', () => {
    const r = decodeTv(encodeTvRecords(records, rv64), rv64, { pc: 0x8000_0100n });
    expect(r.error).toBeUndefined();
    const [a, b] = r.groups;
    expect(a!.addl.map((x) => [x.name, x.value])).toEqual([
      ['pc.paddr', 0x8000_0104n],
      ['store.data', 0xcn],
      ['eaddr', 0x8000_1000n],
    ]);
    expect(a!.mem).toEqual([
      { offset: 53, op: 5, opName: 'amoadd', addr: 0x8000_1000n, size: 4, data: 5n, response: { offset: 67, size: 4, ok: true, data: 7n } },
    ]);
    expect(b!.mem.map((m) => [m.opName, m.addr, m.size, m.data, m.response?.ok, m.response?.data])).toEqual([
      ['fetch', 0x8000_0108n, 4, undefined, true, 0x0005_3583n],
      ['load', 0x8000_1000n, 8, undefined, true, 0x1122_3344_5566_7788n],
    ]);
  });
});
