/**
 * The checked vector of ../shared/design/etrace.md: a 33-instruction run (reset vector 0x1000,
 * jump to 0x80000000, a call and return, one not-taken branch, an illegal instruction at
 * 0x8000005c trapping to 0x80000038, end of trace), encoded with the 2.0 layout.
 *
 * The input is the reference flow's encoder-input CSV of that run, written for this project from
 * the instruction sequence the note describes (test-fixtures/checked-vector.encoder-input.csv:
 * 3-bit itypes, 6 = uninferable jump, 4 = not-taken branch, 1 = exception with iretire 0). The
 * expected bytes are the note's, copied verbatim.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importEtraceCsv } from '../hart/formats/etrace-csv.ts';
import { encodeStream } from './output.ts';
import { checkedVectorConfig } from './test-fixtures/checked-vector.ts';

const NOTE_BYTES =
  '41 1f | 47 73 00 00 00 00 00 04 | 45 02 e0 ff ff 00 | 4a 85 2d 00 00 00 00 00 00 00 ff | ' +
  '4a 77 00 00 00 00 21 07 00 00 10 | 41 f2 | 41 4f';

function hexBytes(s: string): number[] {
  return s
    .replaceAll('|', ' ')
    .trim()
    .split(/\s+/)
    .map((h) => parseInt(h, 16));
}

describe('design note checked vector (2.0 layout)', () => {
  it('encodes the reference-flow CSV of the 33-instruction run to the note bytes', () => {
    const file = join(import.meta.dirname, 'test-fixtures', 'checked-vector.encoder-input.csv');
    const stream = importEtraceCsv(readFileSync(file, 'utf8'), file, { xlen: 64 });
    expect(stream.records).toHaveLength(33);
    const out = encodeStream(stream.records, checkedVectorConfig());
    expect([...out.bytes]).toEqual(hexBytes(NOTE_BYTES));
  });
});
