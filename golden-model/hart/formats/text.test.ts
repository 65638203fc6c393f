import { describe, expect, it } from 'vitest';
import { emptyRecord, Itype, Priv } from '../records.ts';
import { decodeBinaryStream, encodeBinaryStream } from './binary.ts';
import { decodeTextStream, encodeTextStream } from './text.ts';
import { emptyStream, extremeStream32, extremeStream64, streamValue, thrown } from './test-streams.ts';

const HEAD = '# rvtrace retirement stream v1\nxlen 64\n';

describe('text format', () => {
  it.each([
    ['RV64 extremes', extremeStream64],
    ['RV32 extremes', extremeStream32],
    ['an empty stream', emptyStream],
  ])('round-trips %s exactly, and bin -> text -> bin is the identity', (_, make) => {
    const stream = make();
    const text = encodeTextStream(stream);
    expect(streamValue(decodeTextStream(text, 'x.txt'))).toEqual(streamValue(stream));
    const bin = encodeBinaryStream(stream);
    const again = encodeBinaryStream(decodeTextStream(encodeTextStream(decodeBinaryStream(bin, 'x.bin')), 'x.txt'));
    expect(Array.from(again)).toEqual(Array.from(bin));
  });

  it('writes aligned columns and only the fields that say something', () => {
    const text = encodeTextStream({
      ...emptyStream(),
      records: [
        { ...emptyRecord(), iaddr: 0x8000_0000n, iretire: 2 },
        { ...emptyRecord(), iaddr: 0x8000_0004n, iretire: 2, itype: Itype.takenBranch },
        { ...emptyRecord(), iaddr: 0x8000_0040n, itype: Itype.exception, cause: 2, tval: 0x8000_0040n },
        { ...emptyRecord(), iaddr: 0x100n, iretire: 1, ilastsize: 0, priv: Priv.S, sijump: true, itype: Itype.return },
      ],
    });
    expect(text).toBe(
      [
        '# rvtrace retirement stream v1',
        'xlen 64',
        'retires 1',
        'records 4',
        'columns    iaddr iretire ilastsize itype',
        '        80000000       2         1 none',
        '        80000004       2         1 taken-branch',
        '        80000040       0         1 exception    cause=2 tval=80000040',
        '             100       1         0 return       priv=S sijump',
        '',
      ].join('\n'),
    );
  });

  it('reads a hand-written file: defaults, comments, names and numbers, custom columns', () => {
    const text = [
      '# rvtrace retirement stream v1',
      '# written by hand',
      'xlen 32',
      'retires 2',
      'image 1000 13 00 00 00   # addi x0, x0, 0',
      'image 1004 01 00',
      'image 2000 82 80',
      'columns itype iaddr',
      '0 1000 iretire=3 ilastsize=0 priv=U context=0x2a ctype=2',
      'nontaken-branch 1006 iretire=1 ilastsize=0 same-cycle=1 trigger=on+notify',
      '1 0x2000 cause=5 tval=fffffffe halted',
      '13 2000 iretire=1 ilastsize=0 impdef=ff time=7 reset=0',
    ].join('\n');
    const s = decodeTextStream(text, 'hand.txt');
    expect(s.xlen).toBe(32);
    expect(s.retiresPerCycle).toBe(2);
    expect(streamValue(s)).toMatchObject({
      segments: [
        { base: 0x1000n, bytes: [0x13, 0, 0, 0, 1, 0] },
        { base: 0x2000n, bytes: [0x82, 0x80] },
      ],
    });
    const base = emptyRecord();
    expect(s.records).toEqual([
      { ...base, itype: 0, iaddr: 0x1000n, iretire: 3, ilastsize: 0, priv: 0, context: 0x2an, ctype: 2 },
      // priv and context carry over; ctype, cause and tval do not
      { ...base, itype: 4, iaddr: 0x1006n, iretire: 1, ilastsize: 0, priv: 0, context: 0x2an, sameCycle: true, trigger: 5 },
      { ...base, itype: 1, iaddr: 0x2000n, priv: 0, context: 0x2an, cause: 5, tval: 0xffff_fffen, halted: true },
      { ...base, itype: 13, iaddr: 0x2000n, iretire: 1, ilastsize: 0, priv: 0, context: 0x2an, impdef: 0xff, time: 7n },
    ]);
  });

  it('takes a missing iaddr as the sequential successor', () => {
    const s = decodeTextStream(HEAD + 'columns iretire\n2\n2\n1 ilastsize=0\n', 'x.txt');
    expect(s.records.map((r) => r.iaddr)).toEqual([0n, 4n, 8n]);
  });

  describe('malformed input (each error names the line)', () => {
    const cases: [string, string, string, number][] = [
      ['a wrong first line', 'rvtrace\nxlen 64\n', 'not an rvtrace text stream: the first line must be "# rvtrace retirement stream v1"', 1],
      ['another version', '# rvtrace retirement stream v2\n', 'unsupported text stream version "v2", expected "v1"', 1],
      ['a bad xlen', '# rvtrace retirement stream v1\nxlen 16\n', 'bad xlen "16", expected 32 or 64', 2],
      ['a record before xlen', '# rvtrace retirement stream v1\n1000 2 1 none\n', 'record before the "xlen" header line, expected "xlen 32" or "xlen 64" first', 2],
      ['bad hex in iaddr', HEAD + '12g4 2 1 none\n', 'bad iaddr value "12g4", expected a hexadecimal address', 3],
      ['an unknown itype name', HEAD + '1000 2 1 jump\n', `bad itype value "jump", expected an itype name (none, exception, interrupt, trap-return, nontaken-branch, taken-branch, uninferable-jump, reserved, uninferable-call, inferable-call, uninferable-tail-call, inferable-tail-call, co-routine-swap, return, other-uninferable-jump, other-inferable-jump) or a number 0-15`, 3],
      ['an itype number out of range', HEAD + '1000 2 1 16\n', 'bad itype value "16"', 3],
      ['too few columns', HEAD + '\n1000 2 1\n', 'record has 3 values, expected 4 (iaddr iretire ilastsize itype) before the optional name=value fields', 4],
      ['a non-numeric iretire', HEAD + '1000 two 1 none\n', 'bad iretire value "two", expected a decimal half-word count', 3],
      ['an unknown field', HEAD + '1000 2 1 none colour=red\n', 'unknown field "colour", expected one of:', 3],
      ['a field without value', HEAD + '1000 2 1 none cause\n', 'field "cause" needs a value, expected cause=<a decimal number 0-4294967295>', 3],
      ['a field given twice', HEAD + '1000 2 1 none itype=1\n', 'field "itype" given twice', 3],
      ['a bad image byte', HEAD + 'image 1000 13 0 00\n', 'bad image byte "0", expected two hexadecimal digits', 3],
      ['image lines out of order', HEAD + 'image 1000 13 00\nimage 0fff 00\n', 'image line at fff overlaps or precedes the previous image line', 4],
      ['a header line after the records', HEAD + '1000 2 1 none\nretires 2\n', 'header line "retires" after the first record', 4],
      ['a repeated header line', HEAD + 'xlen 32\n', 'header line "xlen" repeats line 2', 3],
      ['fewer records than announced', HEAD + 'records 2\n1000 2 1 none\n', 'the "records" line (line 3) announces 2 records, the file has 1', 4],
    ];
    it.each(cases)('%s', (_, text, message, line) => {
      const e = thrown(() => decodeTextStream(text, 'bad.txt'));
      expect(e.message.startsWith(message), e.message).toBe(true);
      expect(e.location).toEqual({ file: 'bad.txt', line });
    });

    it('a truncated file is reported as truncated', () => {
      const text = encodeTextStream(extremeStream32());
      const cut = text.split('\n').slice(0, -3).join('\n');
      const e = thrown(() => decodeTextStream(cut, 'cut.txt'));
      expect(e.code).toBe('truncated');
      expect(e.message).toBe('the "records" line (line 4) announces 5 records, the file has 3');
    });
  });
});
