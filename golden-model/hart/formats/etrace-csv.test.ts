import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyRecord, type RetirementRecord } from '../records.ts';
import { EtraceCsvReader, importEtraceCsv } from './etrace-csv.ts';
import { thrown } from './test-streams.ts';

const fixture = (name: string): string => readFileSync(new URL(`./test-fixtures/${name}`, import.meta.url), 'utf8');

/** A record as the import builds it: everything the file does not carry at its idle value. */
function r(fields: Partial<RetirementRecord>): RetirementRecord {
  return { ...emptyRecord(), ilastsize: 0, priv: 0, ...fields };
}

describe('etrace-csv import', () => {
  it('imports single retirement with context (records worked out by hand)', () => {
    const s = importEtraceCsv(fixture('etrace-single.csv'), 'etrace-single.csv');
    expect(s.xlen).toBe(64);
    expect(s.retiresPerCycle).toBe(1);
    expect(s.image.segments).toEqual([]);
    expect(s.records).toEqual([
      // iretire 1 with ilastsize 1: one 32-bit instruction = 2 half-words; no time column: time = line's cycle
      r({ iaddr: 0x8000_0000n, iretire: 2, ilastsize: 1, priv: 3, time: 0n }),
      // iretire 1 with ilastsize 0: one 16-bit instruction = 1 half-word
      r({ iaddr: 0x8000_0004n, iretire: 1, priv: 3, time: 1n }),
      r({ iaddr: 0x8000_0006n, iretire: 2, ilastsize: 1, itype: 5, priv: 3, time: 2n }),
      // an idle cycle is still group 0 of its line: kept
      r({ iaddr: 0x8000_0040n, priv: 3, time: 3n }),
      // illegal instruction trap that retired nothing
      r({ iaddr: 0x8000_0040n, itype: 1, cause: 2, tval: 0x8000_0040n, priv: 3, time: 4n }),
      r({ iaddr: 0x8000_0100n, iretire: 2, ilastsize: 1, itype: 3, priv: 3, time: 5n }),
      // precise context change into U-mode
      r({ iaddr: 0x8000_0044n, iretire: 2, ilastsize: 1, context: 0x2an, ctype: 2, time: 6n }),
      // interrupt: cause 9223372036854775815 (2^63 + 7) loses the mcause interrupt bit
      r({ iaddr: 0x8000_0048n, itype: 2, cause: 7, context: 0x2an, time: 7n }),
      // itype 13 (return), one compressed instruction
      r({ iaddr: 0x8000_0048n, iretire: 1, itype: 13, context: 0x2an, time: 8n }),
    ]);
  });

  it('imports multiple retirement: groups, time, sijump (records worked out by hand)', () => {
    const s = importEtraceCsv(fixture('etrace-multi.csv'), 'etrace-multi.csv', { xlen: 32 });
    expect(s.xlen).toBe(32);
    // Cycle 0 holds 7 half-words ending in a 16-bit instruction: up to 7 instructions as far as
    // the file can tell (all compressed); the real block (table 4.8) has 4.
    expect(s.retiresPerCycle).toBe(7);
    const c = { priv: 1, context: 5n };
    expect(s.records).toEqual([
      // table 4.8: divuw, add, or, c.jalr (4+4+4+2 bytes = 7 half-words), uninferable call; group 1 unused
      r({ ...c, iaddr: 0x1000n, iretire: 7, itype: 8, time: 0x40n }),
      // addi + c.beq (3 half-words) nontaken, then c.bnez taken in group 1 of the same cycle
      r({ ...c, iaddr: 0x940n, iretire: 3, itype: 4, time: 0x41n }),
      r({ ...c, iaddr: 0x946n, iretire: 1, itype: 5, time: 0x41n, sameCycle: true }),
      // lbu + csrrw: 4 half-words, the last one 32-bit
      r({ ...c, iaddr: 0x988n, iretire: 4, ilastsize: 1, time: 0x42n }),
      // lui + jalr t2: other uninferable jump (14), sequentially inferable; cause/tval of the cycle on both records
      r({ ...c, iaddr: 0x990n, iretire: 4, ilastsize: 1, itype: 14, sijump: true, cause: 1, tval: 0x2000n, time: 0x43n }),
      // the instruction access fault at the target, in group 1: retired nothing
      r({ ...c, iaddr: 0x2000n, itype: 1, cause: 1, tval: 0x2000n, time: 0x43n, sameCycle: true }),
    ]);
  });

  it('reads the reference flow\'s decimal columns as decimal: cause 12, context 42, iretire 10, 4-bit itypes', () => {
    // Written as the reference flow prints it (%d for itype, cause, priv, context, ctype, time,
    // iretire, ilastsize; hex for iaddr and tval); the values below are the file's, read by eye.
    const s = importEtraceCsv(fixture('etrace-decimal.csv'), 'etrace-decimal.csv');
    expect(s.records).toEqual([
      r({ iaddr: 0x8000_0000n, iretire: 10, priv: 3, context: 42n, time: 0n }),
      r({ iaddr: 0x8000_0014n, itype: 12, iretire: 2, ilastsize: 1, priv: 3, context: 42n, time: 1n }),
      r({ iaddr: 0x8000_0200n, itype: 1, cause: 12, tval: 0x8000_0200n, priv: 3, context: 42n, time: 2n }),
      r({ iaddr: 0x8000_0400n, itype: 13, iretire: 1, priv: 3, context: 42n, time: 3n }),
    ]);
  });

  it('accepts the header without context and ctype, and a forced retiresPerCycle', () => {
    const s = importEtraceCsv('itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0\n0,0,0,3,100,1,1\n', 'x.csv', { retiresPerCycle: 2 });
    expect(s.retiresPerCycle).toBe(2);
    expect(s.records).toEqual([r({ iaddr: 0x100n, iretire: 2, ilastsize: 1, priv: 3 })]);
  });

  it('accepts a sign-extended address for RV32', () => {
    const s = importEtraceCsv('itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0\n0,0,0,3,ffffffff80000000,1,1\n', 'x.csv', { xlen: 32 });
    expect(s.records[0]!.iaddr).toBe(0x8000_0000n);
  });

  describe('malformed input (each error names the line)', () => {
    const HEADER = 'itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n';
    const cases: [string, string, string, number][] = [
      ['an empty file', '', 'empty file, expected the etrace-csv header (itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0, ...)', 1],
      [
        'an unknown column',
        'itype_0,cause,tval,priv,iaddr_0,colour,iretire_0,ilastsize_0\n',
        'unknown column "colour" in the etrace-csv header, expected itype_N, iaddr_N, iretire_N, ilastsize_N, sijump_N, cause, tval, priv, context, ctype, time',
        1,
      ],
      ['a missing column', 'itype_0,cause,priv,iaddr_0,iretire_0,ilastsize_0\n', 'the etrace-csv header lacks column "tval", expected at least itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0', 1],
      ['an incomplete group', 'itype_0,itype_1,cause,tval,priv,iaddr_0,iretire_0,iretire_1,ilastsize_0,ilastsize_1\n', 'the etrace-csv header lacks column "iaddr_1" (every group N needs itype_N, iaddr_N, iretire_N and ilastsize_N)', 1],
      ['a repeated column', 'itype_0,cause,tval,priv,iaddr_0,tval,iretire_0,ilastsize_0\n', 'column "tval" appears twice in the etrace-csv header', 1],
      ['bad hex', HEADER + '0,0,0,3,80000000,0,0,1,1\n0,0,0,3,12g4,0,0,1,1\n', 'bad hex value "12g4" in column iaddr_0, expected hexadecimal digits without 0x', 3],
      ['a 0x prefix', HEADER + '0,0,0x10,3,80000000,0,0,1,1\n', 'bad hex value "0x10" in column tval, expected hexadecimal digits without 0x', 2],
      ['a non-numeric value', HEADER + '0,0,0,M,80000000,0,0,1,1\n', 'bad decimal value "M" in column priv, expected decimal digits', 2],
      // The reference flow prints itype with %d: hex digits there are an error, not a silent misread.
      ['a hex itype', HEADER + 'c,0,0,3,80000000,0,0,1,1\n', 'bad decimal value "c" in column itype_0, expected decimal digits', 2],
      ['a bad hex address', HEADER + '0,0,0,3,8000000g,0,0,1,1\n', 'bad hex value "8000000g" in column iaddr_0, expected hexadecimal digits without 0x', 2],
      ['the reserved itype 7', HEADER + '7,0,0,3,80000000,0,0,1,1\n', 'unknown itype 7 in column itype_0, expected 0-6 or 8-15 (7 is reserved)', 2],
      ['an itype beyond 4 bits', HEADER + '16,0,0,3,80000000,0,0,1,1\n', 'unknown itype 16 in column itype_0, expected 0-6 or 8-15', 2],
      ['a wrong value count', HEADER + '0,0,0,3,80000000,0,0,1\n', 'line has 8 values, the header has 9 columns', 2],
      ['ilastsize 2', HEADER + '0,0,0,3,80000000,0,0,1,2\n', 'bad ilastsize_0 value "2", expected 0 or 1', 2],
      ['ctype 4', HEADER + '0,0,0,3,80000000,0,4,1,1\n', 'bad ctype value "4", expected a ctype 0-3', 2],
      ['an address beyond 64 bits', HEADER + '0,0,0,3,10000000000000000,0,0,1,1\n', 'value "10000000000000000" in column iaddr_0 does not fit in 64 bits', 2],
      ['a wide cause', HEADER + '1,4294967296,0,3,80000000,0,0,0,0\n', 'cause "4294967296" does not fit in 32 bits (after removing the interrupt bit)', 2],
    ];
    it.each(cases)('%s', (_, text, message, line) => {
      const e = thrown(() => importEtraceCsv(text, 'bad.csv'));
      expect(e.message).toBe(message);
      expect(e.location).toEqual({ file: 'bad.csv', line });
    });

    it('an address beyond 32 bits with xlen 32', () => {
      const e = thrown(() => importEtraceCsv('itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0\n0,0,0,3,180000000,1,1\n', 'bad.csv', { xlen: 32 }));
      expect(e.message).toBe('value "180000000" in column iaddr_0 does not fit in 32 bits (xlen 32)');
    });
  });

  describe('read in pieces (EtraceCsvReader, as rvtrace encode reads a file)', () => {
    const text = 'itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0\n0,0,0,3,1000,1,1\n5,0,0,3,1004,1,1\n0,0,0,3,2000,1,0\n0,0,0,3,2002,1,0\n';
    /** The text fed a line at a time, the records taken after each. */
    const byLine = (t: string): RetirementRecord[] => {
      const reader = new EtraceCsvReader('p.csv');
      const out: RetirementRecord[] = [];
      for (const line of t.split(/(?<=\n)/)) {
        reader.feed(line);
        out.push(...reader.take());
      }
      return [...out, ...reader.finish().records];
    };

    it('gives the records of the whole import, the cycle count going on across pieces', () => {
      // time is the line's cycle number from 0: the fourth line is cycle 3 whatever piece holds it.
      expect(byLine(text).map((x) => [x.iaddr, x.itype, x.time])).toEqual([
        [0x1000n, 0, 0n],
        [0x1004n, 5, 1n],
        [0x2000n, 0, 2n],
        [0x2002n, 0, 3n],
      ]);
      expect(byLine(text)).toEqual(importEtraceCsv(text, 'p.csv').records);
    });

    it('names the line of the file in an error of a later piece, and refuses an empty file', () => {
      const e = thrown(() => byLine(text + '0,0,0,9,2004,1,0\n'));
      expect(e.message).toBe('bad priv value "9", expected a privilege level 0-7');
      expect(e.location).toEqual({ file: 'p.csv', line: 6 });
      expect(thrown(() => new EtraceCsvReader('e.csv').finish()).message).toBe(
        'empty file, expected the etrace-csv header (itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0, ...)',
      );
    });
  });
});
