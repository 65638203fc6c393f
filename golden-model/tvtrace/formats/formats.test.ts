/**
 * The record formats against files and bytes written by hand: the text format's lines, the bin
 * format's layout (docs/tvtrace-model.md), and bluespec-tv lines whose words follow Flute's
 * mkTrace_* constructors (bluespec/Flute src_Core/ISA/TV_Trace_Data.bsv). Round trips of every kind,
 * and one test per error message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTvRecords } from '../encoder.ts';
import type { TvInstr, TvPriv, TvRecord } from '../records.ts';
import { defaultTvtraceConfig } from '../settings.ts';
import {
  decodeBinaryRecords,
  decodeTextRecords,
  detectTvRecordFormat,
  encodeBinaryRecords,
  encodeTextRecords,
  importBluespecTv,
  parseTvRecords,
  serializeTvRecords,
} from './index.ts';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
const bytes = (s: string): Uint8Array => Uint8Array.from(s.split(/\s+/).filter(Boolean), (x) => Number.parseInt(x, 16));
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const thrown = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as { oneLine?: () => string }).oneLine?.() ?? (e as Error).message;
  }
  return 'no error';
};

/** One record of every kind and most optional fields. */
const EVERY_KIND: TvRecord[] = [
  { kind: 'reset' },
  { kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0062_81b3 }, gpr: { reg: 3, value: 0x1234n } },
  { kind: 'instruction', nextPc: 0x8000_0006n, instr: { size: 16, bits: 0x8d0d }, gpr: { reg: 10, value: 0xffff_ffff_1234_5678n } },
  {
    kind: 'instruction',
    nextPc: 0x8000_000an,
    instr: { size: 32, bits: 0x0116_f3d3 },
    fpr: { reg: 7, value: 0xffff_ffff_66fe_f4f9n },
    csrs: [
      { csr: 0x001, value: 1n },
      { csr: 0x300, value: 0x8000_000a_0000_6000n },
    ],
    fcsr: 1n,
  },
  {
    kind: 'instruction',
    nextPc: 0x8000_000en,
    instr: { size: 32, bits: 0x00b5_3023 },
    storeData: { bytes: 8, value: 0xffff_ffff_ffff_ffffn },
    eaddr: 0x4000_0000n,
    paddr: 0x3_8000_0000n,
    priv: 1,
  },
  { kind: 'instruction', nextPc: 0n },
  { kind: 'trap', nextPc: 0x1_0000n, instr: { size: 32, bits: 0 }, priv: 3, status: 0xa_0000_18b0n, cause: 2n, epc: 0x8_1234n, tval: 0n },
  { kind: 'trap', nextPc: 0x1000n, priv: 0, status: 0x11n, cause: 12n, epc: 0x2000n, tval: 0x2000n },
  { kind: 'interrupt', nextPc: 0x1_0000n, priv: 3, status: 0xa_0000_18b0n, cause: 0x8000_0000_0000_0003n, epc: 0x8_1256n, tval: 0n },
  { kind: 'xret', nextPc: 0x8000_0104n, instr: { size: 32, bits: 0x3020_0073 }, priv: 0, mstatus: 0x80n },
  { kind: 'debug-reg', file: 'gpr', index: 5, value: 0x1234n },
  { kind: 'debug-reg', file: 'fpr', index: 31, value: 0x3ff0_0000_0000_0000n },
  { kind: 'debug-reg', file: 'csr', index: 0x7b1, value: 0x8000_0000n },
  { kind: 'debug-mem', paddr: 0x8000_0000n, bytes: 4, value: 0x297n },
  { kind: 'unobserved', mtime: 0x1234n, mcycle: 0x100n, minstret: 0x80n },
  { kind: 'unobserved' },
];

/** EVERY_KIND as the text writer prints it, typed by hand. */
const EVERY_KIND_TEXT = `# rvtrace tv records v1
reset
instruction next_pc=80000004 instr=006281b3 x3=1234
instruction next_pc=80000006 instr=8d0d x10=ffffffff12345678
instruction next_pc=8000000a instr=0116f3d3 f7=ffffffff66fef4f9 csr001=1 csr300=8000000a00006000 fcsr=1
instruction next_pc=8000000e instr=00b53023 priv=S store=8:ffffffffffffffff eaddr=40000000 paddr=380000000
instruction next_pc=0
trap next_pc=10000 instr=00000000 priv=M status=a000018b0 cause=2 epc=81234 tval=0
trap next_pc=1000 priv=U status=11 cause=c epc=2000 tval=2000
interrupt next_pc=10000 priv=M status=a000018b0 cause=8000000000000003 epc=81256 tval=0
xret next_pc=80000104 instr=30200073 priv=U mstatus=80
debug-reg x5=1234
debug-reg f31=3ff0000000000000
debug-reg csr7b1=80000000
debug-mem paddr=80000000 data=4:297
unobserved mtime=1234 mcycle=100 minstret=80
unobserved
`;

describe('text format', () => {
  it('writes every kind as documented', () => {
    expect(encodeTextRecords(EVERY_KIND)).toBe(EVERY_KIND_TEXT);
  });

  it('reads what it writes, and the writer reproduces the file', () => {
    const back = decodeTextRecords(EVERY_KIND_TEXT, 'k.txt');
    expect(back).toEqual(EVERY_KIND);
    expect(encodeTextRecords(back)).toBe(EVERY_KIND_TEXT);
  });

  it('reads hand-written lines: any field order, 0x prefixes, upper case, comments, blank lines', () => {
    const text = [
      '# rvtrace tv records v1',
      '',
      '# the seed Table C.6, csrrc s1, mie, a1',
      'instruction x9=0x888 csr304=880 instr=3045B4F3 next_pc=80000016   # trailing comment',
      '  debug-reg csr1=1f',
      'trap epc=81234 tval=0 status=a000018b0 cause=2 priv=M next_pc=10000',
    ].join('\r\n');
    expect(decodeTextRecords(text, 'h.txt')).toEqual([
      { kind: 'instruction', nextPc: 0x8000_0016n, instr: { size: 32, bits: 0x3045_b4f3 }, gpr: { reg: 9, value: 0x888n }, csrs: [{ csr: 0x304, value: 0x880n }] },
      { kind: 'debug-reg', file: 'csr', index: 1, value: 0x1fn },
      { kind: 'trap', nextPc: 0x1_0000n, priv: 3, status: 0xa_0000_18b0n, cause: 2n, epc: 0x8_1234n, tval: 0n },
    ]);
  });

  it.each([
    ['instruction next_pc=4\n', 'e.txt:1: expected the first line "# rvtrace tv records v1"'],
    ['# rvtrace tv records v2\n', 'e.txt:1: "# rvtrace tv records v2" is not a version this reader knows; expected "# rvtrace tv records v1"'],
    ['# rvtrace tv records v1\ninsn next_pc=4\n', 'e.txt:2: unknown record kind "insn"; expected one of instruction, trap, interrupt, xret, debug-reg, debug-mem, reset, unobserved'],
    ['# rvtrace tv records v1\ninstruction instr=00000013\n', 'e.txt:2: instruction without next_pc; expected next_pc, pc_paddr, instr, priv, xN, fN, store, eaddr, paddr, mem0, mem1, csrNNN, fcsr'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 instr=13\n', 'e.txt:2: instr=13: expected exactly 4 hex digits (16-bit instruction) or 8 (32-bit)'],
    ['# rvtrace tv records v1\ninstruction next_pc=4g\n', 'e.txt:2: next_pc=4g: expected a hexadecimal value below 2^64'],
    ['# rvtrace tv records v1\ninstruction next_pc=10000000000000000\n', 'e.txt:2: next_pc=10000000000000000: expected a hexadecimal value below 2^64'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 x32=1\n', 'e.txt:2: unknown field "x32" for instruction; expected next_pc, pc_paddr, instr, priv, xN, fN, store, eaddr, paddr, mem0, mem1, csrNNN, fcsr'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 x1=1 x2=2\n', 'e.txt:2: two GPR writes (x1 and x2); an instruction record has at most one'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 csr7b1=1 csr7B1=2\n', 'e.txt:2: field csr7B1 given twice'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 store=3:1\n', 'e.txt:2: store=3:1: expected BYTES:HEX with BYTES 1, 2, 4 or 8'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 store=1:100\n', 'e.txt:2: storeData value 0x100 does not fit 1 byte(s)'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 priv=H\n', 'e.txt:2: priv=H: expected U, S or M'],
    ['# rvtrace tv records v1\ninstruction next_pc=4 csr1=1 csr2=2 csr3=3 csr4=4 csr5=5\n', 'e.txt:2: 5 CSR writes; allowed: at most 4'],
    ['# rvtrace tv records v1\ninstruction next_pc\n', 'e.txt:2: "next_pc": expected name=value'],
    ['# rvtrace tv records v1\ntrap next_pc=4 priv=M status=0 cause=2 epc=0\n', 'e.txt:2: trap without tval; expected next_pc, instr, priv, status, cause, epc, tval'],
    ['# rvtrace tv records v1\ninterrupt next_pc=4 instr=00000013 priv=M status=0 cause=2 epc=0 tval=0\n', 'e.txt:2: unknown field "instr" for interrupt; expected next_pc, priv, status, cause, epc, tval'],
    ['# rvtrace tv records v1\ndebug-reg x1=1 x2=2\n', 'e.txt:2: debug-reg with 2 fields; expected exactly one of xN, fN, csrNNN'],
    ['# rvtrace tv records v1\ndebug-reg pc=1\n', 'e.txt:2: unknown field "pc" for debug-reg; expected exactly one of xN, fN, csrNNN'],
    ['# rvtrace tv records v1\ndebug-mem paddr=0\n', 'e.txt:2: debug-mem without data; expected paddr, data'],
    ['# rvtrace tv records v1\nreset now=1\n', 'e.txt:2: unknown field "now" for reset; expected none'],
    ['# rvtrace tv records v1\nunobserved mip=1\n', 'e.txt:2: unknown field "mip" for unobserved; expected mtime, mcycle, minstret'],
  ])('refuses %j', (text, message) => {
    expect(thrown(() => decodeTextRecords(text, 'e.txt'))).toBe(message);
  });

  it('refuses to write a record it cannot store, naming it', () => {
    expect(thrown(() => encodeTextRecords([{ kind: 'reset' }, { kind: 'xret', nextPc: 0n, priv: 2 as TvPriv, mstatus: 0n }]))).toBe(
      'records/1: record 1: priv is 2; allowed: 0 (U), 1 (S), 3 (M)',
    );
  });
});

describe('bin format', () => {
  it('lays out a small file byte for byte as documented', () => {
    const records: TvRecord[] = [
      { kind: 'reset' },
      { kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0062_81b3 }, gpr: { reg: 3, value: 0x1234n } },
      { kind: 'debug-mem', paddr: 0x80n, bytes: 1, value: 0x5an },
    ];
    const expected = [
      '52 56 54 56 52 45 43 53', // "RVTVRECS"
      '01 00 00 00', // version 1, reserved
      '03 00 00 00', // 3 records
      '07', // reset
      '01 05 00', // instruction, flags instr (1) | gpr (4)
      '84 80 80 80 08', // next_pc 0x80000004 in LEB128: groups 04, 00, 00, 00, 08
      'b3 81 62 00', // the 32-bit instruction
      '03 b4 24', // x3, 0x1234 in LEB128: groups 34, 24
      '06 80 01 01 5a', // debug-mem, paddr 0x80 (groups 00, 01), 1 byte, 0x5a
    ].join(' ');
    expect(hex(encodeBinaryRecords(records))).toBe(expected);
    expect(decodeBinaryRecords(bytes(expected), 's.bin')).toEqual(records);
  });

  it('round-trips every kind, and bin -> text -> bin is byte-identical', () => {
    const bin = encodeBinaryRecords(EVERY_KIND);
    const back = decodeBinaryRecords(bin, 'k.bin');
    expect(back).toEqual(EVERY_KIND);
    expect(hex(serializeTvRecords(decodeTextRecords(encodeTextRecords(back), 'k.txt'), 'bin'))).toBe(hex(bin));
  });

  const HEADER = '52 56 54 56 52 45 43 53 01 00 00 00';
  it.each([
    ['52 56 54 56', 'e.bin (byte offset 0): expected the magic "RVTVRECS" at the start'],
    [`52 56 54 56 52 45 43 53 02 00 00 00 00 00 00 00`, 'e.bin (byte offset 8): version 2; this reader knows version 1'],
    [`52 56 54 56 52 45 43 53 01 01 00 00 00 00 00 00`, 'e.bin (byte offset 9): reserved header bytes are not zero'],
    [`${HEADER} 01 00`, 'e.bin (byte offset 12): header: the file ends inside the record count; expected 4 byte(s), found 2'],
    [`${HEADER} 01 00 00 00 09`, 'e.bin (byte offset 16): record 0: kind byte 9; expected 1-8 (instruction, trap, interrupt, xret, debug-reg, debug-mem, reset, unobserved)'],
    [`${HEADER} 01 00 00 00 01 01 00 84 80`, 'e.bin (byte offset 21): record 0 (instruction): the file ends inside next_pc; expected 1 byte(s), found 0'],
    [`${HEADER} 01 00 00 00 01 01 00 04 13 00`, 'e.bin (byte offset 20): record 0 (instruction): the file ends inside instr; expected 4 byte(s), found 2'],
    [`${HEADER} 01 00 00 00 01 00 80 04`, 'e.bin (byte offset 17): record 0 (instruction): flags 0x8000; expected bit 15 clear, at most 4 CSR writes and 2 memory transactions'],
    [`${HEADER} 01 00 00 00 01 00 00 ff ff ff ff ff ff ff ff ff ff 01`, 'e.bin (byte offset 19): record 0 (instruction): next_pc is longer than 10 LEB128 bytes; expected a value below 2^64'],
    [`${HEADER} 01 00 00 00 01 00 00 ff ff ff ff ff ff ff ff ff 02`, 'e.bin (byte offset 19): record 0 (instruction): next_pc is 0x17fffffffffffffff; expected a value below 2^64'],
    [`${HEADER} 01 00 00 00 04 00 00 02 00`, 'e.bin (byte offset 16): record 0 (xret): priv is 2; allowed: 0 (U), 1 (S), 3 (M)'],
    [`${HEADER} 01 00 00 00 04 08 00 00 00`, 'e.bin (byte offset 17): record 0 (xret): flags 0x8; expected only bits 0x3'],
    [`${HEADER} 01 00 00 00 05 03 01 00 00`, 'e.bin (byte offset 17): record 0 (debug-reg): register file byte 3; expected 0 (gpr), 1 (fpr), 2 (csr)'],
    [`${HEADER} 01 00 00 00 06 00 03 00`, 'e.bin (byte offset 16): record 0 (debug-mem): data.bytes is 3; allowed: 1, 2, 4, 8'],
    [`${HEADER} 01 00 00 00 07 07`, 'e.bin (byte offset 17): 1 byte(s) after the 1 records the header announces; expected the end of the file'],
  ])('refuses %s', (b, message) => {
    expect(thrown(() => decodeBinaryRecords(bytes(b), 'e.bin'))).toBe(message);
  });
});

describe('bluespec-tv import (Flute Trace_Data, ten hex fields per line)', () => {
  const MSTATUS = 0x8000_000a_0000_6000n;
  // Each line: op pc instr_sz instr rd word1 word2 word3 word4 word5, with the words of Flute's mkTrace_* constructors.
  const lines = `# op pc instr_sz instr rd word1 word2 word3 word4 word5
0  0 0 0 0 0 0 0 0 0                                                    # RESET
1  0 0 0 5 1234 0 0 0 0                                                 # GPR_WRITE x5
2  0 0 0 1f aaaaaaaa 0 0 0 3ff0000000000000                             # FPR_WRITE f31 (value in word5)
3  0 0 0 0 0 0 7b1 80000000 0                                           # CSR_WRITE dpc
4  0 0 0 0 2 ffffffff00000297 80000000 0 0                              # MEM_WRITE 4 bytes (low bytes of word2)
5  80000002 0 0001 0 aaaaaaaa aaaaaaaa aaaaaaaa aaaaaaaa aaaaaaaa       # OTHER c.nop, unused words ignored
6  80000004 1 006281b3 3 1234 0 0 0 0                                   # I_RD add gp, t0, t1
7  80000008 1 a0b52553 a 1 10 0 8000000a00006000 0                      # F_GRD feq.s a0, fa0, fa1
8  8000000c 1 0116f3d3 7 0 1 0 8000000a00006000 ffffffff66fef4f9        # F_FRD fadd.s ft7, fa3, fa7
9  80000010 1 00053583 b 1122334455667788 0 80001000 0 0                # I_LOAD ld a1, 0(a0)
a  80000014 1 00853507 a 0 0 80001008 8000000a00006000 400921fb54442d18 # F_LOAD fld fa0, 8(a0)
b  80000018 1 00b52223 0 2 ffffffff55667788 80001004 0 0                # I_STORE sw a1, 4(a0)
c  8000001c 1 00a53827 0 3 0 80001010 0 400921fb54442d18                # F_STORE fsd fa0, 16(a0)
d  80000020 1 00b5262f c 5 a 80001000 2 0                               # AMO amoadd.w a2, a1, (a0)
e  10000 1 00000000 3 a000018b0 2 81234 0 0                             # TRAP illegal instruction
e  1000 1 deadbeef 0 11 c 2000 2000 0                                   # TRAP instruction page fault: no instruction
f  80000104 1 30200073 0 80 0 0 0 0                                     # RET mret
10 80000028 1 00159073 0 0 3 1 1f 8000000a00006000                      # CSRRX csrw fflags, a1 (CSR and mstatus)
10 8000002c 1 34059573 a 7 0 340 42 0                                   # CSRRX with no CSR written
11 80000400 0 0 3 1880 8000000000000007 80000104 0 0                    # INTR machine timer
`;
  const expected: TvRecord[] = [
    { kind: 'reset' },
    { kind: 'debug-reg', file: 'gpr', index: 5, value: 0x1234n },
    { kind: 'debug-reg', file: 'fpr', index: 31, value: 0x3ff0_0000_0000_0000n },
    { kind: 'debug-reg', file: 'csr', index: 0x7b1, value: 0x8000_0000n },
    { kind: 'debug-mem', paddr: 0x8000_0000n, bytes: 4, value: 0x297n },
    { kind: 'instruction', nextPc: 0x8000_0002n, instr: { size: 16, bits: 1 } },
    { kind: 'instruction', nextPc: 0x8000_0004n, instr: { size: 32, bits: 0x0062_81b3 }, gpr: { reg: 3, value: 0x1234n } },
    {
      kind: 'instruction',
      nextPc: 0x8000_0008n,
      instr: { size: 32, bits: 0xa0b5_2553 },
      gpr: { reg: 10, value: 1n },
      csrs: [
        { csr: 0x001, value: 0x10n },
        { csr: 0x300, value: MSTATUS },
      ],
    },
    {
      kind: 'instruction',
      nextPc: 0x8000_000cn,
      instr: { size: 32, bits: 0x0116_f3d3 },
      fpr: { reg: 7, value: 0xffff_ffff_66fe_f4f9n },
      csrs: [
        { csr: 0x001, value: 1n },
        { csr: 0x300, value: MSTATUS },
      ],
    },
    { kind: 'instruction', nextPc: 0x8000_0010n, instr: { size: 32, bits: 0x0005_3583 }, gpr: { reg: 11, value: 0x1122_3344_5566_7788n }, eaddr: 0x8000_1000n },
    {
      kind: 'instruction',
      nextPc: 0x8000_0014n,
      instr: { size: 32, bits: 0x0085_3507 },
      fpr: { reg: 10, value: 0x4009_21fb_5444_2d18n },
      eaddr: 0x8000_1008n,
      csrs: [{ csr: 0x300, value: MSTATUS }],
    },
    { kind: 'instruction', nextPc: 0x8000_0018n, instr: { size: 32, bits: 0x00b5_2223 }, storeData: { bytes: 4, value: 0x5566_7788n }, eaddr: 0x8000_1004n },
    { kind: 'instruction', nextPc: 0x8000_001cn, instr: { size: 32, bits: 0x00a5_3827 }, storeData: { bytes: 8, value: 0x4009_21fb_5444_2d18n }, eaddr: 0x8000_1010n },
    {
      kind: 'instruction',
      nextPc: 0x8000_0020n,
      instr: { size: 32, bits: 0x00b5_262f },
      gpr: { reg: 12, value: 5n },
      storeData: { bytes: 4, value: 0xan },
      eaddr: 0x8000_1000n,
    },
    { kind: 'trap', nextPc: 0x1_0000n, instr: { size: 32, bits: 0 }, priv: 3, status: 0xa_0000_18b0n, cause: 2n, epc: 0x8_1234n, tval: 0n },
    { kind: 'trap', nextPc: 0x1000n, priv: 0, status: 0x11n, cause: 12n, epc: 0x2000n, tval: 0x2000n },
    { kind: 'xret', nextPc: 0x8000_0104n, instr: { size: 32, bits: 0x3020_0073 }, priv: 0, mstatus: 0x80n },
    {
      kind: 'instruction',
      nextPc: 0x8000_0028n,
      instr: { size: 32, bits: 0x0015_9073 },
      gpr: { reg: 0, value: 0n },
      csrs: [
        { csr: 0x001, value: 0x1fn },
        { csr: 0x300, value: MSTATUS },
      ],
    },
    { kind: 'instruction', nextPc: 0x8000_002cn, instr: { size: 32, bits: 0x3405_9573 }, gpr: { reg: 10, value: 7n } },
    { kind: 'interrupt', nextPc: 0x8000_0400n, priv: 3, status: 0x1880n, cause: 0x8000_0000_0000_0007n, epc: 0x8000_0104n, tval: 0n },
  ];

  it('reads one record per op with the words of Flute TV_Trace_Data.bsv', () => {
    expect(importBluespecTv(lines, 'f.tv')).toEqual(expected);
  });

  it('imported lines encode to Flute byte order (I_RD and CSRRX writing fflags, typed by hand)', () => {
    const two = importBluespecTv(
      ['6 80000004 1 006281b3 3 1234 0 0 0 0', '10 80000028 1 00159073 0 0 3 1 1f 8000000a00006000'].join('\n'),
      'two.tv',
    );
    expect(hex(encodeTvRecords(two, defaultTvtraceConfig()))).toBe(
      [
        '01 07 0a 04 00 00 80 00 00 00 00 11 b3 81 62 00 04 03 10 34 12 00 00 00 00 00 00 02',
        '01 07 0a 28 00 00 80 00 00 00 00 11 73 90 15 00 04 01 00 1f 00 00 00 00 00 00 00 04 00 03 00 60 00 00 0a 00 00 80 02',
      ].join(' '),
    );
  });

  it.each([
    ['6 80000004 1 006281b3 3 1234 0 0 0', 'e.tv:1: 9 field(s); expected ten hex fields: op pc instr_sz instr rd word1 word2 word3 word4 word5'],
    ['6 80000004 1 006281b3 3 12g4 0 0 0 0', 'e.tv:1: field word1 "12g4" is not a hexadecimal value below 2^64'],
    ['12 0 0 0 0 0 0 0 0 0', 'e.tv:1: op 12 is not a Flute Trace_Op; expected 0-11 (RESET, GPR_WRITE, FPR_WRITE, CSR_WRITE, MEM_WRITE, OTHER, I_RD, F_GRD, F_FRD, I_LOAD, F_LOAD, I_STORE, F_STORE, AMO, TRAP, RET, CSRRX, INTR)'],
    ['5 4 2 13 0 0 0 0 0 0', 'e.tv:1: instr_sz 2; expected 0 (16-bit) or 1 (32-bit)'],
    ['5 4 0 10013 0 0 0 0 0 0', 'e.tv:1: instr 10013 does not fit the 16-bit instruction instr_sz 0 says'],
    ['6 4 1 13 20 0 0 0 0 0', 'e.tv:1: rd 20; expected a register number 0-1f'],
    ['f 4 1 30200073 2 0 0 0 0 0', 'e.tv:1: rd 2 (the privilege mode); expected 0 (U), 1 (S) or 3 (M)'],
    ['10 4 1 34059573 a 7 4 340 42 0', 'e.tv:1: word2 4 of CSRRX; expected bit 0 (CSR written) and bit 1 (mstatus written) only'],
    ['3 0 0 0 0 0 0 1000 0 0', 'e.tv:1: word3 1000 (a CSR address); expected 0-fff'],
  ])('refuses %j', (line, message) => {
    expect(thrown(() => importBluespecTv(`${line}\n`, 'e.tv'))).toBe(message);
  });

  it('names the line after comments and blank lines', () => {
    expect(thrown(() => importBluespecTv('# header\n\n0 0 0 0 0 0 0 0 0 0\nx\n', 'e.tv'))).toBe(
      'e.tv:4: 1 field(s); expected ten hex fields: op pc instr_sz instr rd word1 word2 word3 word4 word5',
    );
  });
});

describe('format detection', () => {
  it('tells the three formats apart and refuses others', () => {
    expect(detectTvRecordFormat(encodeBinaryRecords([{ kind: 'reset' }]))).toBe('bin');
    expect(detectTvRecordFormat(utf8('# rvtrace tv records v1\nreset\n'))).toBe('text');
    expect(detectTvRecordFormat(utf8('# a comment\n0 0 0 0 0 0 0 0 0 0\n'))).toBe('bluespec-tv');
    expect(detectTvRecordFormat(utf8('hello\n'))).toBeUndefined();
    expect(thrown(() => parseTvRecords(utf8('hello\n'), 'x.dat'))).toBe(
      'x.dat:1: unknown record file format, expected one of: bin (starts with "RVTVRECS"), text (first line "# rvtrace tv records v1"), bluespec-tv (ten hex fields per line); or force a format',
    );
  });

  it('parses by the detected or forced format', () => {
    expect(parseTvRecords(utf8('0 0 0 0 0 0 0 0 0 0\n'), 'r.tv')).toEqual([{ kind: 'reset' }]);
    expect(parseTvRecords(serializeTvRecords(EVERY_KIND, 'text'), 'k.txt')).toEqual(EVERY_KIND);
    expect(thrown(() => parseTvRecords(utf8('0 0 0 0 0 0 0 0 0 0\n'), 'r.tv', 'text'))).toBe('r.tv:1: expected the first line "# rvtrace tv records v1"');
  });
});

/** Arbitrary records within the ranges of the record type (fixed seed, printed on failure by fast-check). */
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const instr: fc.Arbitrary<TvInstr> = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((bits) => ({ size: 16 as const, bits })),
  fc.integer({ min: 0, max: 0xffff_ffff }).map((bits) => ({ size: 32 as const, bits })),
);
const priv: fc.Arbitrary<TvPriv> = fc.constantFrom(0 as const, 1 as const, 3 as const);
const reg = fc.integer({ min: 0, max: 31 });
const sizedData = fc.constantFrom(1 as const, 2 as const, 4 as const, 8 as const).chain((b) => fc.record({ bytes: fc.constant(b), value: fc.bigInt({ min: 0n, max: (1n << BigInt(8 * b)) - 1n }) }));
const trapState = { nextPc: u64, priv, status: u64, cause: u64, epc: u64, tval: u64 };
const record: fc.Arbitrary<TvRecord> = fc.oneof(
  fc.record(
    {
      kind: fc.constant('instruction' as const),
      nextPc: u64,
      instr,
      gpr: fc.record({ reg, value: u64 }),
      fpr: fc.record({ reg, value: u64 }),
      csrs: fc.array(fc.record({ csr: fc.integer({ min: 0, max: 0xfff }), value: u64 }), { minLength: 1, maxLength: 4 }),
      paddr: u64,
      eaddr: u64,
      storeData: sizedData,
      fcsr: u64,
      priv,
    },
    { requiredKeys: ['kind', 'nextPc'] },
  ),
  fc.record({ kind: fc.constant('trap' as const), instr, ...trapState }, { requiredKeys: ['kind', 'nextPc', 'priv', 'status', 'cause', 'epc', 'tval'] }),
  fc.record({ kind: fc.constant('interrupt' as const), ...trapState }),
  fc.record({ kind: fc.constant('xret' as const), nextPc: u64, instr, priv, mstatus: u64 }, { requiredKeys: ['kind', 'nextPc', 'priv', 'mstatus'] }),
  fc.oneof(
    fc.record({ kind: fc.constant('debug-reg' as const), file: fc.constantFrom('gpr' as const, 'fpr' as const), index: reg, value: u64 }),
    fc.record({ kind: fc.constant('debug-reg' as const), file: fc.constant('csr' as const), index: fc.integer({ min: 0, max: 0xfff }), value: u64 }),
  ),
  sizedData.chain((d) => fc.record({ kind: fc.constant('debug-mem' as const), paddr: u64, bytes: fc.constant(d.bytes), value: fc.constant(d.value) })),
  fc.constant({ kind: 'reset' as const }),
  fc.record({ kind: fc.constant('unobserved' as const), mtime: u64, mcycle: u64, minstret: u64 }, { requiredKeys: ['kind'] }),
);

describe('round trips of arbitrary records (fast-check, seed 20240611)', () => {
  it('text and bin give back the same records', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), (records) => {
        expect(decodeTextRecords(encodeTextRecords(records), 'p.txt')).toEqual(records);
        expect(decodeBinaryRecords(encodeBinaryRecords(records), 'p.bin')).toEqual(records);
      }),
      { seed: 20240611, numRuns: 300 },
    );
  });
});
