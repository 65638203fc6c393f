/**
 * The reference flow's data-trace CSV: rows typed by hand in the format its spike writes
 * (`1,<dtype>,<daddr %lx>,<log2 bytes>,<data hex>`), the values worked out from table 4.9.
 */
import { describe, expect, it } from 'vitest';
import { type DataTrace, Dtype, Lresp } from '../data-records.ts';
import { ProgramImage } from '../image.ts';
import { emptyRecord, Itype } from '../records.ts';
import type { RetirementStream } from '../stream.ts';
import { attachDataRows, importEtraceDataCsv, joinEtraceDataCsv, writeEtraceDataCsv } from './etrace-data-csv.ts';
import { thrown } from './test-streams.ts';

const HEADER = 'DRETIRE,DTYPE,DADDR,DSIZE,DATA';

describe('importEtraceDataCsv', () => {
  it('reads loads, stores, CSR and atomic rows; DSIZE of two-value rows counts both values', () => {
    const text = [
      HEADER,
      '1,1,80001000,2,2a', // sw of 0x2a
      '1,0,80000ff8,3,123456789abcdef0', // ld
      '0,0,0,0,0', // dretire 0: nothing retired, skipped
      '1,4,305,4,80000100', // csrrw mtvec: new value 0x80000100 (store half), old value 0 (load half)
      '1,5,300,4,18000000000000000000', // csrrs mstatus, x0: store half 0, read value 0x1800 in the high half
      '1,9,80002000,4,100000000000000005', // amoadd.d: operand 5 (low), old memory value 0x10 (high)
    ].join('\n');
    const rows = importEtraceDataCsv(text, 'd.csv');
    expect(rows).toEqual([
      { line: 2, dtype: Dtype.store, daddr: 0x8000_1000n, dsize: 2, data: 0x2an },
      { line: 3, dtype: Dtype.load, daddr: 0x8000_0ff8n, dsize: 3, data: 0x1234_5678_9abc_def0n },
      { line: 5, dtype: Dtype.csrReadWrite, daddr: 0x305n, dsize: 3, data: 0x8000_0100n },
      { line: 6, dtype: Dtype.csrReadSet, daddr: 0x300n, dsize: 3, data: 0x1800n << 64n },
      { line: 7, dtype: Dtype.atomicAdd, daddr: 0x8000_2000n, dsize: 3, data: (0x10n << 64n) | 5n },
    ]);
  });

  it("reads spike's packing (load data low) into the spec's (store data low) when asked", () => {
    // What the reference flow's spike writes for csrrs a0, mstatus, x0 reading 0x1800: the pair
    // {load, store} = {0x1800, 0} as 16 little-endian bytes, leading zeros dropped.
    const [row] = importEtraceDataCsv(`${HEADER}\n1,5,300,4,1800\n`, 'd.csv', { packing: 'spike' });
    expect(row!.data).toBe(0x1800n << 64n);
  });

  it('accepts the header in any case and a byte order mark', () => {
    expect(importEtraceDataCsv('\ufeffdretire,dtype,daddr,dsize,data\r\n1,0,10,0,ff\r\n', 'd.csv')).toHaveLength(1);
  });

  const cases: [string, string, number, string][] = [
    ['another header', 'VALID,ADDRESS\n', 1, 'expected the etrace-data-csv header DRETIRE,DTYPE,DADDR,DSIZE,DATA, found "VALID,ADDRESS"'],
    ['a missing value', `${HEADER}\n1,0,10,0\n`, 2, 'row has 4 values, expected 5 (DRETIRE,DTYPE,DADDR,DSIZE,DATA)'],
    ['a reserved dtype', `${HEADER}\n1,2,10,0,0\n`, 2, 'DTYPE 2 is reserved in table 4.9, expected 0, 1, 4-6 or 8-14'],
    ['the store-failure code', `${HEADER}\n1,15,10,2,0\n`, 2, 'DTYPE 15 is reserved in table 4.9 (the reference flow writes 15 for a failed store-conditional; the spec reserves it), expected 0, 1, 4-6 or 8-14'],
    ['hex in a decimal column', `${HEADER}\n1,a,10,0,0\n`, 2, 'bad decimal value "a" in column DTYPE, expected decimal digits'],
    ['a bad address', `${HEADER}\n1,0,0x10,0,0\n`, 2, 'bad hex value "0x10" in column DADDR, expected hexadecimal digits without 0x'],
    ['data wider than DSIZE', `${HEADER}\n1,0,10,1,10000\n`, 2, 'DATA 10000 does not fit 2 bytes (DSIZE 1)'],
    ['a CSR number beyond 12 bits', `${HEADER}\n1,4,1000,4,0\n`, 2, 'DADDR 1000 of a CSR access is not a CSR number, expected 0-fff'],
    ['DSIZE 0 on an atomic', `${HEADER}\n1,8,10,0,0\n`, 2, 'DSIZE 0 for a amo-swap access, expected at least 1 (DATA packs two values)'],
    ['dretire 2', `${HEADER}\n2,0,10,0,0\n`, 2, 'bad DRETIRE value "2", expected 0 or 1'],
  ];
  it.each(cases)('names the line of %s', (_, text, line, message) => {
    const e = thrown(() => importEtraceDataCsv(text, 'd.csv', { xlen: 32 }));
    expect(e.location).toEqual({ file: 'd.csv', line });
    expect(e.message).toBe(message);
  });

  it('refuses an address beyond XLEN', () => {
    expect(thrown(() => importEtraceDataCsv(`${HEADER}\n1,0,100000000,0,0\n`, 'd.csv', { xlen: 32 })).message).toBe(
      'value "100000000" in column DADDR does not fit in 32 bits (xlen 32)',
    );
  });
});

describe('writeEtraceDataCsv', () => {
  it('writes rows as the reference flow does and reads them back', () => {
    const accesses = [
      { at: 0, dtype: Dtype.store, daddr: 0x8000_1000n, dsize: 2, data: 0x2an, lrid: 0, iaddrLsbs: 0, dblock: 0 },
      { at: 1, dtype: Dtype.load, daddr: 0x10n, dsize: 0, data: 0n, lrid: 0, iaddrLsbs: 0, dblock: 0 },
      { at: 1, dtype: Dtype.atomicSwap, daddr: 0x8000_2000n, dsize: 2, data: (7n << 32n) | 1n, lrid: 0, iaddrLsbs: 0, dblock: 0 },
    ];
    const text = writeEtraceDataCsv({ accesses, responses: [] });
    expect(text).toBe(`${HEADER}\n1,1,80001000,2,2a\n1,0,10,0,0\n1,8,80002000,3,700000001\n`);
    expect(writeEtraceDataCsv({ accesses, responses: [] }, { packing: 'spike' }).split('\n')[3]).toBe('1,8,80002000,3,100000007');
    expect(importEtraceDataCsv(text, 'd.csv').map(({ line: _, ...r }) => r)).toEqual(accesses.map(({ at: _a, lrid: _l, iaddrLsbs: _i, dblock: _d, ...r }) => r));
  });

  it("writes a split load with its response's data, an atomic's in the high half", () => {
    const data: DataTrace = {
      accesses: [
        { at: 0, dtype: Dtype.load, daddr: 0x100n, dsize: 3, data: 0n, lrid: 1, iaddrLsbs: 0, dblock: 0 },
        { at: 0, dtype: Dtype.atomicAdd, daddr: 0x200n, dsize: 2, data: 3n, lrid: 2, iaddrLsbs: 0, dblock: 0 },
      ],
      responses: [
        { at: 1, lid: 2, lresp: Lresp.okay, ldata: 0x40n },
        { at: 2, lid: 1, lresp: Lresp.okay, ldata: 0xbeefn },
      ],
    };
    expect(writeEtraceDataCsv(data)).toBe(`${HEADER}\n1,0,100,3,beef\n1,9,200,3,4000000003\n`);
    data.responses[1]!.lresp = Lresp.error;
    expect(thrown(() => writeEtraceDataCsv(data)).message).toBe('data.accesses[0]: the load got an error response; etrace-data-csv has no way to say so');
  });
});

describe('attachDataRows', () => {
  // addi a0,a0,1; sw a0,0(a1) | c.lw a0,0(a1) | lw a0,4(a1) faults | csrr a0, mstatus
  const words = [0x00150513, 0x00a5a023];
  const image = new ProgramImage([
    { base: 0x8000_0000n, bytes: Uint8Array.from(words.flatMap((w) => [w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, w >>> 24])) },
    { base: 0x8000_0008n, bytes: Uint8Array.from([0x88, 0x41, 0x03, 0xa5, 0x45, 0x00]) },
    { base: 0x8000_0100n, bytes: Uint8Array.from([0x73, 0x25, 0x00, 0x30]) },
  ]);
  const stream: RetirementStream = {
    xlen: 64,
    retiresPerCycle: 2,
    image,
    records: [
      { ...emptyRecord(), iaddr: 0x8000_0000n, iretire: 4 },
      { ...emptyRecord(), iaddr: 0x8000_0008n, iretire: 1, ilastsize: 0 },
      { ...emptyRecord(), iaddr: 0x8000_000an, itype: Itype.exception, cause: 5 },
      { ...emptyRecord(), iaddr: 0x8000_0100n, iretire: 2 },
    ],
  };
  const csv = [HEADER, '1,1,80002000,2,2', '1,0,80002000,2,2', '1,5,300,4,18000000000000000000'];

  it('puts the n-th row on the cycle of the n-th retired data access instruction', () => {
    const joined = attachDataRows(stream, importEtraceDataCsv(csv.join('\n'), 'd.csv'), 'd.csv');
    expect(joined.data!.accesses.map((a) => [a.at, a.dtype])).toEqual([
      [0, Dtype.store],
      [1, Dtype.load],
      [3, Dtype.csrReadSet], // the faulting lw retired nothing and has no row
    ]);
    expect(joined.records).toBe(stream.records);
  });

  it('names the row whose DTYPE does not fit its instruction', () => {
    const e = thrown(() => attachDataRows(stream, importEtraceDataCsv([HEADER, csv[2], csv[1], csv[3]].join('\n'), 'd.csv'), 'd.csv'));
    expect(e.location).toEqual({ file: 'd.csv', line: 2 });
    expect(e.message).toBe('DTYPE 0 (load) does not match the store instruction 0xa5a023 at 0x80000004 (record 0), expected DTYPE 1');
  });

  it('says when rows or instructions are left over', () => {
    const few = thrown(() => attachDataRows(stream, importEtraceDataCsv(csv.slice(0, 3).join('\n'), 'd.csv'), 'd.csv'));
    expect(few.message).toBe('2 data rows, but the stream retires more data access instructions: the next is at 0x80000100 (record 3)');
    const many = thrown(() => attachDataRows(stream, importEtraceDataCsv([...csv, '1,0,0,0,0'].join('\n'), 'd.csv'), 'd.csv'));
    expect(many.location).toEqual({ file: 'd.csv', line: 5 });
    expect(many.message).toBe('row 4 of 4 has no instruction: the stream retires only 3 data access instructions');
  });

  it('needs the instructions: a stream without an image cannot be joined', () => {
    const e = thrown(() => attachDataRows({ ...stream, image: new ProgramImage() }, [], 'd.csv'));
    expect(e.message).toMatch(/^cannot join the data rows: the instruction at 0x80000000 \(record 0\) is not in the stream's program image/);
  });
});

describe('joinEtraceDataCsv', () => {
  it('reads with the stream XLEN: a 33-bit address does not fit RV32', () => {
    const rv32: RetirementStream = { xlen: 32, retiresPerCycle: 1, image: new ProgramImage(), records: [] };
    expect(thrown(() => joinEtraceDataCsv(rv32, `${HEADER}\n1,0,100000000,0,0\n`, 'd.csv')).oneLine()).toBe(
      'd.csv:2: value "100000000" in column DADDR does not fit in 32 bits (xlen 32)',
    );
  });
});
