/**
 * The data trace in our two formats: a data section worked out byte by byte from the layout in
 * docs/formats.md, text lines typed by hand, and one error per kind of bad data line or section.
 */
import { describe, expect, it } from 'vitest';
import { type DataAccess, Dtype, Lresp } from '../data-records.ts';
import { ProgramImage } from '../image.ts';
import { emptyRecord, Itype } from '../records.ts';
import type { RetirementStream } from '../stream.ts';
import { decodeBinaryStream, encodeBinaryStream } from './binary.ts';
import { decodeTextStream, encodeTextStream } from './text.ts';
import { streamValue, thrown } from './test-streams.ts';

function access(fields: Partial<DataAccess> & Pick<DataAccess, 'at' | 'dtype' | 'daddr' | 'dsize' | 'data'>): DataAccess {
  return { lrid: 0, iaddrLsbs: 0, dblock: 0, ...fields };
}

/** The three records of binary.test.ts's worked example, with three unified accesses. */
function unifiedStream(): RetirementStream {
  return {
    xlen: 64,
    retiresPerCycle: 1,
    image: new ProgramImage(),
    records: [
      { ...emptyRecord(), iaddr: 0x8000_0000n, iretire: 2, ilastsize: 1 },
      { ...emptyRecord(), iaddr: 0x8000_0004n, iretire: 2, ilastsize: 1, itype: Itype.takenBranch, time: 1n },
      { ...emptyRecord(), iaddr: 0x8000_0100n, iretire: 1, ilastsize: 0, time: 2n },
    ],
    data: {
      accesses: [
        access({ at: 0, dtype: Dtype.store, daddr: 0x8000_1000n, dsize: 2, data: 0x2an }),
        access({ at: 2, dtype: Dtype.load, daddr: 0x8000_0ffcn, dsize: 3, data: 0x1234n }),
        // csrrs reading mstatus = 8, writing nothing: store data (low half) 0, load data (high half) 8.
        access({ at: 2, dtype: Dtype.csrReadSet, daddr: 0x300n, dsize: 3, data: 8n << 64n, iaddrLsbs: 1 }),
      ],
      responses: [],
    },
  };
}

/** Four cycles of a split-load hart: two loads in flight, answered out of order, one with an error. */
function splitStream(): RetirementStream {
  const rec = (iaddr: bigint, time: bigint) => ({ ...emptyRecord(), iaddr, iretire: 2, ilastsize: 1, time });
  return {
    xlen: 64,
    retiresPerCycle: 1,
    image: new ProgramImage(),
    records: [rec(0x8000_0000n, 0n), rec(0x8000_0004n, 1n), rec(0x8000_0008n, 2n), rec(0x8000_000cn, 3n)],
    data: {
      accesses: [
        access({ at: 0, dtype: Dtype.load, daddr: 0x1000n, dsize: 2, data: 0n, lrid: 1 }),
        access({ at: 1, dtype: Dtype.load, daddr: 0x2000n, dsize: 2, data: 0n, lrid: 2 }),
      ],
      responses: [
        { at: 2, lid: 2, lresp: Lresp.okay, ldata: 0x55n },
        { at: 3, lid: 1, lresp: Lresp.error, ldata: 0n },
      ],
    },
  };
}

describe('data trace in the binary format', () => {
  it('sets header flag bit 0 and appends the data section as documented', () => {
    const bytes = encodeBinaryStream(unifiedStream());
    expect(bytes[10]).toBe(0x01);
    // The records are binary.test.ts's 12 bytes after the 24-byte header; the section follows.
    // prettier-ignore
    const section = [
      0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 3 accesses, 0 responses
      0x21, 0x00, 0x80, 0xc0, 0x80, 0x80, 0x10, 0x2a, // store, dsize 2; at +0; daddr zigzag(0x80001000) = 0x100002000; data 0x2a
      0x30, 0x02, 0x07, 0xb4, 0x24,                   // load, dsize 3; at +2; daddr -4 -> zigzag 7; data 0x1234
      0xb5, 0x02, 0x00, 0xf7, 0xb3, 0x80, 0x80, 0x10, // csr-rs, dsize 3, ext: iaddrLsbs; at +0; daddr 0x300 - 0x80000ffc -> zigzag 0x1000019f7
      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, // data 2^67
      0x01,                                           // iaddrLsbs 1
    ];
    expect(Array.from(bytes.subarray(24 + 12))).toEqual(section);
  });

  it('round-trips unified and split streams', () => {
    for (const s of [unifiedStream(), splitStream()]) {
      expect(streamValue(decodeBinaryStream(encodeBinaryStream(s), 'd.bin'))).toEqual(streamValue(s));
    }
  });

  it('keeps an empty data trace apart from none', () => {
    const s = { ...unifiedStream(), data: { accesses: [], responses: [] } };
    expect(decodeBinaryStream(encodeBinaryStream(s), 'd.bin').data).toEqual({ accesses: [], responses: [] });
    const { data: _, ...none } = s;
    expect(decodeBinaryStream(encodeBinaryStream(none), 'd.bin').data).toBeUndefined();
  });

  it('names the unit, offset and field of a bad data section', () => {
    const good = encodeBinaryStream(unifiedStream());
    const cut = thrown(() => decodeBinaryStream(good.subarray(0, good.length - 3), 'd.bin'));
    expect(cut.oneLine()).toBe('d.bin (byte offset 65): truncated data access 2 at byte offset 65: expected data');
    const reserved = good.slice();
    reserved[24 + 12 + 8 + 13 + 1] = 0x12; // the csr access's ext byte
    expect(thrown(() => decodeBinaryStream(reserved, 'd.bin')).message).toBe('data access 2 at byte offset 57: reserved ext bits 0x10 are set');
    const dtype = good.slice();
    dtype[24 + 12 + 8] = 0x22; // store -> reserved dtype 2
    expect(thrown(() => decodeBinaryStream(dtype, 'd.bin')).message).toBe(
      'data section at byte offset 36: data.accesses[0].dtype: 2 is not a dtype of table 4.9, expected 0, 1, 4-6 or 8-14',
    );
  });

  it('refuses to write a split load that never gets its response', () => {
    const s = splitStream();
    s.data!.responses.pop();
    expect(thrown(() => encodeBinaryStream(s)).message).toBe(
      'data.accesses[0].lrid: the load with lrid 1 never gets a response, expected one LoadResponse per split load',
    );
  });
});

describe('data trace in the text format', () => {
  const HAND = [
    '# rvtrace retirement stream v1',
    'xlen 64',
    'data-trace',
    'columns time iaddr iretire ilastsize itype',
    '0 80000000 2 1 none',
    '  data load 1000 2 0 lrid=1',
    '1 80000004 2 1 none',
    '  data 0 0x2000 2 0 lrid=2   # the same, dtype by code',
    '2 80000008 2 1 none',
    '  resp 2 okay 55',
    '3 8000000c 2 1 none',
    '  resp 1 error',
  ];

  it('reads hand-typed data and resp lines into the cycle of the record above them', () => {
    const s = decodeTextStream(HAND.join('\n'), 'hand.txt');
    expect(s.data).toEqual(splitStream().data);
  });

  it('writes each access and response under its record and reads it back', () => {
    const text = encodeTextStream(unifiedStream());
    expect(text.split('\n').slice(0, 5)).toEqual(['# rvtrace retirement stream v1', 'xlen 64', 'retires 1', 'records 3', 'data-trace']);
    expect(text).toContain('\n        data store 80001000 2 2a\n');
    expect(text).toContain('\n        data csr-rs 300 3 80000000000000000 iaddr-lsbs=1\n');
    for (const s of [unifiedStream(), splitStream()]) {
      expect(streamValue(decodeTextStream(encodeTextStream(s), 'd.txt'))).toEqual(streamValue(s));
    }
    expect(encodeTextStream(splitStream())).toContain('\n        resp 1 error\n');
  });

  const at = (line: number, text: string): [number, string] => [line, text];
  const cases: [string, string[], [number, string]][] = [
    ['a data line before any record', ['# rvtrace retirement stream v1', 'xlen 64', 'data-trace', 'data store 10 0 1'], at(4, '"data" line before the first record, expected it after the record of its cycle')],
    ['a data line without the data-trace header line', ['# rvtrace retirement stream v1', 'xlen 64', '80000000 1 1 none', '  data store 10 0 1'], at(4, 'a "data" line, but the header has no "data-trace" line (a stream with data accesses declares it before the records)')],
    ['a reserved dtype', [...HAND.slice(0, 5), '  data 2 1000 2 0'], at(6, 'bad dtype value "2", expected a dtype name (load, store, csr-rw, csr-rs, csr-rc, amo-swap, amo-add, amo-and, amo-or, amo-xor, amo-max, amo-min) or its code')],
    ['a bad daddr', [...HAND.slice(0, 5), '  data load 10g0 2 0'], at(6, 'bad daddr value "10g0", expected a hexadecimal address')],
    ['a dsize too large', [...HAND.slice(0, 5), '  data load 1000 8 0'], at(6, 'bad dsize value "8", expected a decimal log2 of the byte count 0-7')],
    ['too few values', [...HAND.slice(0, 5), '  data load 1000 2'], at(6, 'data line has 3 values, expected dtype daddr dsize data before the optional name=value fields')],
    ['an unknown field', [...HAND.slice(0, 5), '  data load 1000 2 0 colour=1'], at(6, 'unknown data field "colour=1", expected lrid=<n>, iaddr-lsbs=<n>, dblock=<n>')],
    ['data wider than its size', [...HAND.slice(0, 5), '  data load 1000 0 100'], at(6, 'data: 0x100 does not fit 8 bits (dsize 0)')],
    ['a response to no load', [...HAND.slice(0, 9), '  resp 7 okay 1'], at(10, 'lid: 7 answers no load in flight at record 2')],
    ['okay without data', [...HAND.slice(0, 9), '  resp 2 okay'], at(10, 'resp line with okay needs the load data, expected resp 2 okay <ldata>')],
    ['a bad lresp', [...HAND.slice(0, 9), '  resp 2 fine 1'], at(10, 'bad lresp value "fine", expected okay or error')],
    ['an unanswered load', HAND.slice(0, 10), at(6, 'lrid: the load with lrid 1 never gets a response, expected one LoadResponse per split load')],
    ['an ID reused in flight', [...HAND.slice(0, 7), '  data load 2000 2 0 lrid=1', ...HAND.slice(8)], at(8, 'lrid: 1 is still in flight for data.accesses[0], expected a free ID')],
  ];
  it.each(cases)('names the line of %s', (_, lines, [line, message]) => {
    const e = thrown(() => decodeTextStream(lines.join('\n') + '\n', 'bad.txt'));
    expect(e.location).toEqual({ file: 'bad.txt', line });
    expect(e.message).toBe(message);
  });
});
