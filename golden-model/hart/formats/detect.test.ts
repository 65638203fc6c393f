import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProgramImage } from '../image.ts';
import { emptyRecord } from '../records.ts';
import { encodeBinaryStream } from './binary.ts';
import { detectFormat, parseStream, serializeStream } from './detect.ts';
import { encodeTextStream } from './text.ts';
import { extremeStream32, streamValue, thrown } from './test-streams.ts';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
const fixture = (name: string): Uint8Array => readFileSync(new URL(`./test-fixtures/${name}`, import.meta.url));

describe('format detection and dispatch', () => {
  it('recognizes each format from its first bytes', () => {
    expect(detectFormat(encodeBinaryStream(extremeStream32()).subarray(0, 8))).toBe('bin');
    expect(detectFormat(bytesOf(encodeTextStream(extremeStream32())))).toBe('text');
    expect(detectFormat(fixture('etrace-single.csv'))).toBe('etrace-csv');
    expect(detectFormat(fixture('etrace-multi.csv'))).toBe('etrace-csv');
    expect(detectFormat(fixture('spike-rv64.csv'))).toBe('spike-csv');
    // A spreadsheet's byte order mark and CRLF line ends do not matter.
    expect(detectFormat(bytesOf('\ufeffvalid,address,insn,privilege,exception,ecause,tval,interrupt\r\n'))).toBe('spike-csv');
    expect(detectFormat(bytesOf('itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0'))).toBe('etrace-csv');
    expect(detectFormat(bytesOf('hello\n'))).toBeUndefined();
    expect(detectFormat(Uint8Array.from([0xff, 0xfe, 0x00]))).toBeUndefined();
    expect(detectFormat(new Uint8Array())).toBeUndefined();
  });

  it('parses what it detects; our formats keep their own xlen whatever the option says', () => {
    const stream = extremeStream32();
    for (const format of ['bin', 'text'] as const) {
      const parsed = parseStream(serializeStream(stream, format), `x.${format}`, { xlen: 64 });
      expect(streamValue(parsed)).toEqual(streamValue(stream));
    }
    expect(parseStream(fixture('spike-rv64.csv'), 'spike.csv', { xlen: 32 }).xlen).toBe(32);
    expect(parseStream(fixture('etrace-single.csv'), 'e.csv').records).toHaveLength(9);
  });

  it('writes text in chunks that join into the same file', () => {
    const records = Array.from({ length: 70_000 }, (_, i) => ({ ...emptyRecord(), iaddr: BigInt(2 * i), iretire: 1, ilastsize: 0, time: BigInt(i) }));
    const stream = { xlen: 64 as const, retiresPerCycle: 1, image: new ProgramImage(), records };
    const bytes = serializeStream(stream, 'text');
    expect(new TextDecoder().decode(bytes)).toBe(encodeTextStream(stream));
    expect(streamValue(parseStream(bytes, 'big.txt'))).toEqual(streamValue(stream));
  });

  it('uses a forced format', () => {
    const e = thrown(() => parseStream(fixture('spike-rv64.csv'), 'spike.csv', { format: 'etrace-csv' }));
    expect(e.message).toMatch(/^unknown column "VALID" in the etrace-csv header/);
  });

  it('lists the accepted formats when it cannot tell', () => {
    const e = thrown(() => parseStream(bytesOf('time,pc\n1,2\n'), 'mystery.csv'));
    expect(e.code).toBe('bad-file');
    expect(e.oneLine()).toBe(
      'mystery.csv:1: unknown file format, expected one of: bin (starts with "RVTRSTRM"), text (first line "# rvtrace retirement stream v1"), ' +
        'etrace-csv (header with itype_0,cause,tval,priv,iaddr_0,iretire_0,ilastsize_0), ' +
        'spike-csv (header VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT); or force a format',
    );
  });

  it('rejects a text format that is not UTF-8', () => {
    const e = thrown(() => parseStream(Uint8Array.from([0x23, 0xff, 0xfe]), 'x.txt', { format: 'text' }));
    expect(e.oneLine()).toBe('x.txt: the file is not UTF-8 text, expected a text or CSV stream');
  });
});
