import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyRecord, type RetirementRecord } from '../records.ts';
import { importSpikeCsv, SpikeCsvReader } from './spike-csv.ts';
import { thrown } from './test-streams.ts';
import { spikeCsvChunks } from './synthetic.ts';
import { generateStimulus } from '../stimulus/generate.ts';
import { defaultKnobs } from '../stimulus/knobs.ts';

const fixture = (name: string): string => readFileSync(new URL(`./test-fixtures/${name}`, import.meta.url), 'utf8');

const HEADER = 'VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n';

describe('spike-csv import', () => {
  it('imports the fixture program (records worked out by hand, see test-fixtures/README.md)', () => {
    const s = importSpikeCsv(fixture('spike-rv64.csv'), 'spike-rv64.csv');
    expect(s.xlen).toBe(64);
    expect(s.retiresPerCycle).toBe(1);
    // One record per valid row; time counts records (cycles) from 0.
    const i32 = { iretire: 2, ilastsize: 1 };
    const i16 = { iretire: 1, ilastsize: 0 };
    const expected: Partial<RetirementRecord>[] = [
      { iaddr: 0x8000_0000n, ...i32 }, // auipc t1
      { iaddr: 0x8000_0004n, ...i32, itype: 8, sijump: true }, // jalr ra, 16(t1): call, t1 loaded by the auipc just before
      { iaddr: 0x8000_0010n, ...i16 }, // c.li
      { iaddr: 0x8000_0012n, ...i16, itype: 4 }, // c.beqz: next row at 80000014 = successor: not taken
      { iaddr: 0x8000_0014n, ...i32 },
      { iaddr: 0x8000_0018n, ...i32, itype: 5 }, // bnez: next valid row (after the VALID=0 one) back at 80000014
      { iaddr: 0x8000_0014n, ...i32 },
      { iaddr: 0x8000_0018n, ...i32, itype: 5 },
      { iaddr: 0x8000_0014n, ...i32 },
      { iaddr: 0x8000_0018n, ...i32, itype: 4 }, // next row at 8000001c: not taken
      { iaddr: 0x8000_001cn, itype: 1, cause: 5 }, // ld faults: did not retire (iretire 0, ilastsize left at 1)
      { iaddr: 0x8000_0100n, ...i32 },
      { iaddr: 0x8000_0104n, ...i32, itype: 3 }, // mret
      { iaddr: 0x8000_0020n, ...i32, itype: 1, cause: 0xb }, // ecall retires and traps
      { iaddr: 0x8000_0100n, ...i32 },
      { iaddr: 0x8000_0104n, ...i32, itype: 3 },
      { iaddr: 0x8000_0024n, ...i16, priv: 0 }, // c.nop in U-mode
      { iaddr: 0x8000_0026n, itype: 2, cause: 7, priv: 0 }, // interrupt before 80000026; interrupt bit removed
      { iaddr: 0x8000_0100n, ...i32 },
      { iaddr: 0x8000_0104n, ...i32, itype: 3 },
      { iaddr: 0x8000_0026n, ...i16, itype: 4, priv: 0 }, // last row: nothing shows the branch taken
    ];
    expect(s.records).toEqual(expected.map((f, i) => ({ ...emptyRecord(), priv: 3, ...f, time: BigInt(i) })));

    // The image holds what executed, including the faulting ld, but not the interrupt row's stale INSN.
    const seg = (base: bigint, words: number[][]): { base: bigint; bytes: number[] } => ({
      base,
      bytes: words.flatMap((w) => w),
    });
    expect(s.image.segments.map((x) => ({ base: x.base, bytes: Array.from(x.bytes) }))).toEqual([
      seg(0x8000_0000n, [[0x17, 0x03, 0x00, 0x00], [0xe7, 0x00, 0x03, 0x01]]),
      seg(0x8000_0010n, [
        [0x0d, 0x45],
        [0x01, 0xc5],
        [0x13, 0x05, 0xf5, 0xff],
        [0xe3, 0x1e, 0x05, 0xfe],
        [0x83, 0x35, 0x05, 0x00],
        [0x73, 0x00, 0x00, 0x00],
        [0x01, 0x00],
        [0x01, 0xc5],
      ]),
      seg(0x8000_0100n, [[0x13, 0x00, 0x00, 0x00], [0x73, 0x00, 0x20, 0x30]]),
    ]);
  });

  it('leaves a fetch fault out of the image, and a trap breaks a sequentially inferable pair', () => {
    const s = importSpikeCsv(
      HEADER +
        [
          '1,1000,00000317,3,0,0,0,0', // auipc t1
          '1,1004,0,3,0,7,0,1', // interrupt before 1004
          '1,1004,000300e7,3,0,0,0,0', // jalr ra, 0(t1): not sijump, the interrupt came in between
          '1,2000,1f,3,1,c,2000,0', // instruction page fault at 2000: INSN means nothing (here not even decodable)
        ].join('\n'),
      'x.csv',
    );
    expect(s.records.map((x) => [x.itype, x.iretire, x.sijump])).toEqual([
      [0, 2, false],
      [2, 0, false],
      [8, 2, false],
      [1, 0, false],
    ]);
    expect(s.image.segments.map((x) => x.base)).toEqual([0x1000n]);
  });

  it('reads RV32 traces with sign-extended addresses and a 64-bit mcause', () => {
    const s = importSpikeCsv(HEADER + '1,ffffffff80000000,0001,3,0,0,0,0\n1,ffffffff80000002,0001,3,0,8000000000000007,0,1\n', 'x.csv', { xlen: 32 });
    expect(s.records.map((x) => [x.iaddr, x.cause])).toEqual([
      [0x8000_0000n, 0],
      [0x8000_0002n, 7],
    ]);
  });

  describe('malformed input (each error names the line)', () => {
    const cases: [string, string, string, number][] = [
      ['a wrong header', 'VALID,ADDRESS,INSN\n', 'wrong spike-csv header "VALID,ADDRESS,INSN", expected VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT', 1],
      ['a wrong value count', HEADER + '1,1000,13,3,0,0,0\n', 'line has 7 values, expected 8 (VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT)', 2],
      ['bad hex', HEADER + '1,1000,13,3,0,0,0,0\n1,10z0,13,3,0,0,0,0\n', 'bad hex value "10z0" in column ADDRESS, expected hexadecimal digits without 0x', 3],
      ['a non-numeric flag', HEADER + '1,1000,13,3,yes,0,0,0\n', 'bad hex value "yes" in column EXCEPTION, expected hexadecimal digits without 0x', 2],
      ['VALID 2', HEADER + '2,1000,13,3,0,0,0,0\n', 'bad VALID value "2", expected 0 or 1', 2],
      ['a 16-bit encoding with upper bits', HEADER + '1,1000,12340001,3,0,0,0,0\n', 'INSN 12340001 is a 16-bit encoding (low bits not 11) but has more than 16 bits', 2],
      ['an encoding longer than 32 bits', HEADER + '1,1000,1f,3,0,0,0,0\n', 'INSN 1f: instruction parcel 0x001f starts an encoding longer than 32 bits, which is not supported', 2],
      [
        'a conflicting encoding at one address', // nop, j -4, then something else at the nop's address
        HEADER + '1,1000,00000013,3,0,0,0,0\n1,1004,ffdff06f,3,0,0,0,0\n1,1000,00100013,3,0,0,0,0\n',
        'instruction 100013 at 1000 conflicts with the instruction executed there on line 2 (the image cannot hold self-modifying code)',
        4,
      ],
      ['an address beyond xlen', HEADER + '1,100000000,13,3,0,0,0,0\n', 'value "100000000" in column ADDRESS does not fit in 32 bits (xlen 32)', 2],
    ];
    it.each(cases)('%s', (_, text, message, line) => {
      const e = thrown(() => importSpikeCsv(text, 'bad.csv', { xlen: 32 }));
      expect(e.message).toBe(message);
      expect(e.location).toEqual({ file: 'bad.csv', line });
    });
  });

  describe('read in pieces (SpikeCsvReader, as rvtrace encode reads a file)', () => {
    /** The text cut after every `every`-th line, each piece fed and its records taken at once. */
    const inPieces = (text: string, every: number): { records: RetirementRecord[]; takes: number[] } => {
      const lines = text.split(/(?<=\n)/);
      const reader = new SpikeCsvReader('p.csv');
      const records: RetirementRecord[] = [];
      const takes: number[] = [];
      for (let i = 0; i < lines.length; i += every) {
        reader.feed(lines.slice(i, i + every).join(''));
        const taken = reader.take();
        takes.push(taken.length);
        records.push(...taken);
      }
      const rest = reader.finish();
      records.push(...rest.records);
      takes.push(rest.records.length);
      return { records, takes };
    };

    it('gives the records of the whole import, whatever the pieces, each handed over once', () => {
      const text = fixture('spike-rv64.csv');
      const whole = importSpikeCsv(text, 'p.csv').records;
      expect(whole).toHaveLength(21); // the fixture's 21 records, worked out above
      for (const every of [1, 2, 3, 7, 1000]) expect(inPieces(text, every).records, `pieces of ${every} lines`).toEqual(whole);
      // A row becomes a step when the next row is read, and a step a record when the next step is
      // known: the first record comes with the third row (line 4).
      expect(inPieces(text, 2).takes[0]).toBe(0);
      expect(inPieces(text, 1).takes.slice(0, 5)).toEqual([0, 0, 0, 1, 1]);
    });

    it('counts lines across pieces: an error names the line of the file', () => {
      const text = HEADER + '1,1000,13,3,0,0,0,0\n1,1004,13,3,0,0,0,0\n1,1008,13,3,0,0,0,0\n1,100z,13,3,0,0,0,0\n';
      for (const every of [1, 2, 4]) {
        const e = thrown(() => inPieces(text, every));
        expect(e.message).toBe('bad hex value "100z" in column ADDRESS, expected hexadecimal digits without 0x');
        expect(e.location).toEqual({ file: 'p.csv', line: 5 });
      }
    });

    it('refuses an empty file and a wrong header as the whole import does', () => {
      const empty = new SpikeCsvReader('e.csv');
      expect(thrown(() => empty.finish()).message).toBe('wrong spike-csv header "", expected VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT');
      const wrong = new SpikeCsvReader('w.csv');
      expect(thrown(() => wrong.feed('A,B\n1,2\n')).location).toEqual({ file: 'w.csv', line: 1 });
    });
  });

  it('reads a line the same whether it is in the common form or not (one-pass reading and general reading)', () => {
    // The stimulus file is all common form; a space before each comma sends every line to the
    // general reading, upper-case digits with leading zeros keep them in the one-pass reading.
    const csv = spikeCsvChunks(generateStimulus(defaultKnobs(), 3, 5000)).join('');
    const [header, ...rows] = csv.split('\n');
    const spaced = [header, ...rows.map((l) => l.replaceAll(',', ' ,'))].join('\n');
    const upper = [header, ...rows.map((l) => l.split(',').map((x) => (x === '' ? x : `000${x.toUpperCase()}`)).join(','))].join('\n');
    const common = importSpikeCsv(csv, 'a.csv');
    expect(common.records.length).toBeGreaterThan(5000);
    for (const variant of [spaced, upper]) {
      const other = importSpikeCsv(variant, 'a.csv');
      expect(other.records).toEqual(common.records);
      expect(other.image.segments).toEqual(common.image.segments);
    }
  });
});
