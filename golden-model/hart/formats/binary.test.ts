import { describe, expect, it } from 'vitest';
import { ProgramImage } from '../image.ts';
import { emptyRecord, Itype } from '../records.ts';
import type { RetirementStream } from '../stream.ts';
import { decodeBinaryStream, encodeBinaryStream } from './binary.ts';
import { emptyStream, extremeStream32, extremeStream64, streamValue, thrown } from './test-streams.ts';

/** Three records worked out by hand to pin the layout of docs/formats.md. */
function smallStream(): RetirementStream {
  return {
    xlen: 64,
    retiresPerCycle: 1,
    image: new ProgramImage(),
    records: [
      { ...emptyRecord(), iaddr: 0x8000_0000n, iretire: 2, ilastsize: 1 },
      { ...emptyRecord(), iaddr: 0x8000_0004n, iretire: 2, ilastsize: 1, itype: Itype.takenBranch, time: 1n },
      { ...emptyRecord(), iaddr: 0x8000_0100n, iretire: 1, ilastsize: 0, time: 2n },
    ],
  };
}

describe('binary format', () => {
  it('encodes a small stream byte for byte as documented', () => {
    // prettier-ignore
    const expected = [
      0x52, 0x56, 0x54, 0x52, 0x53, 0x54, 0x52, 0x4d, // "RVTRSTRM"
      0x01, 0x40, 0x00, 0x00, // version 1, xlen 64, flags 0, reserved 0
      0x01, 0x00, 0x00, 0x00, // retiresPerCycle 1
      0x03, 0x00, 0x00, 0x00, // 3 records
      0x00, 0x00, 0x00, 0x00, // no image segments
      // record 0: head = itype 0 | ilastsize 1 (0x10) | single (0x20); not sequential (the state
      // starts at 0), so the iaddr delta follows: zigzag(0x80000000) = 0x100000000 in LEB128.
      0x30, 0x80, 0x80, 0x80, 0x80, 0x10,
      // record 1: itype 5 | 0x10 | single | sequential (0x40) | ext (0x80) = 0xf5; ext = time delta
      // (0x20): predicted 0 + step 0, actual 1, zigzag(1) = 2. The step becomes 1.
      0xf5, 0x20, 0x02,
      // record 2: itype 0, ilastsize 0, single = 0x20; iaddr 0x80000100 - successor 0x80000008 =
      // 0xf8, zigzag 0x1f0 = LEB128 f0 03; time 1 + step 1 = 2 as predicted: nothing.
      0x20, 0xf0, 0x03,
    ];
    expect(Array.from(encodeBinaryStream(smallStream()))).toEqual(expected);
    expect(streamValue(decodeBinaryStream(Uint8Array.from(expected), 'small.bin'))).toEqual(streamValue(smallStream()));
  });

  it.each([
    ['RV64 extremes', extremeStream64],
    ['RV32 extremes', extremeStream32],
    ['an empty stream', emptyStream],
  ])('round-trips %s exactly', (_, make) => {
    const stream = make();
    const decoded = decodeBinaryStream(encodeBinaryStream(stream), 'x.bin');
    expect(streamValue(decoded)).toEqual(streamValue(stream));
  });

  it('keeps 64-bit values exact', () => {
    const decoded = decodeBinaryStream(encodeBinaryStream(extremeStream64()), 'x.bin');
    expect(decoded.records[4]!.tval).toBe(0xffff_ffff_ffff_fffen);
    expect(decoded.records[4]!.iaddr).toBe(0xffff_ffff_ffff_fffen);
    expect(decoded.records[2]!.context).toBe(0xffff_ffff_ffff_ffffn);
    expect(decoded.records[5]!.time).toBe(0xffff_ffff_ffff_ffffn);
  });

  it('spends one byte on a sequential instruction', () => {
    const records = Array.from({ length: 1000 }, (_, i) => ({ ...emptyRecord(), iaddr: 0x8000_0000n + BigInt(4 * i), iretire: 2, time: BigInt(i) }));
    const bytes = encodeBinaryStream({ xlen: 64, retiresPerCycle: 1, image: new ProgramImage(), records });
    // header 24, first record 6 (absolute address), second 3 (first time step), then 1 each
    expect(bytes.length).toBe(24 + 6 + 3 + 998);
  });

  it('merges touching image segments when writing', () => {
    const image = new ProgramImage([
      { base: 0x100n, bytes: Uint8Array.from([1, 2]) },
      { base: 0x102n, bytes: Uint8Array.from([3]) },
    ]);
    const decoded = decodeBinaryStream(encodeBinaryStream({ ...emptyStream(), image }), 'x.bin');
    expect(streamValue(decoded)).toMatchObject({ segments: [{ base: 0x100n, bytes: [1, 2, 3] }] });
  });

  it('rejects a record it cannot store, naming record and field', () => {
    const stream = smallStream();
    stream.records[1]!.ilastsize = 2;
    const e = thrown(() => encodeBinaryStream(stream));
    expect(e.message).toBe('record 1: ilastsize 2 cannot be stored, expected 0 or 1');
    expect(e.location.path).toBe('records[1].ilastsize');
    stream.records[1]!.ilastsize = 1;
    stream.records[2]!.tval = -1n;
    expect(thrown(() => encodeBinaryStream(stream)).message).toBe('record 2: tval -1 cannot be stored, expected an unsigned 64-bit value');
  });

  describe('malformed input', () => {
    const good = encodeBinaryStream(smallStream()); // 36 bytes, records from offset 24

    it('bad magic', () => {
      const bytes = good.slice();
      bytes[0] = 0x58;
      const e = thrown(() => decodeBinaryStream(bytes, 'f.bin'));
      expect(e.code).toBe('bad-header');
      expect(e.message).toBe('not an rvtrace binary stream: expected the magic "RVTRSTRM" at byte offset 0');
      expect(e.location).toEqual({ file: 'f.bin', offset: 0 });
    });

    it('unsupported version, bad xlen, unknown flags', () => {
      const v = good.slice();
      v[8] = 2;
      expect(thrown(() => decodeBinaryStream(v, 'f.bin')).message).toBe('unsupported binary stream version 2, expected 1');
      const x = good.slice();
      x[9] = 16;
      expect(thrown(() => decodeBinaryStream(x, 'f.bin')).oneLine()).toBe('f.bin (byte offset 9): bad xlen 16 in header, expected 32 or 64');
      const f = good.slice();
      f[10] = 4;
      expect(thrown(() => decodeBinaryStream(f, 'f.bin')).message).toBe('unknown header flags 0x4, expected 0 or 1 (bit 0: data section)');
    });

    it('truncated in the header', () => {
      const e = thrown(() => decodeBinaryStream(good.subarray(0, 13), 'f.bin'));
      expect(e.code).toBe('truncated');
      expect(e.message).toBe(
        'truncated header at byte offset 13: expected the 24-byte header (version, xlen, flags, reserved, retiresPerCycle, record count, segment count)',
      );
      expect(thrown(() => decodeBinaryStream(good.subarray(0, 5), 'f.bin')).message).toBe(
        'truncated header at byte offset 5: expected the magic "RVTRSTRM"',
      );
    });

    it('truncated before a record head', () => {
      const e = thrown(() => decodeBinaryStream(good.subarray(0, 33), 'f.bin'));
      expect(e.message).toBe('truncated record 2 at byte offset 33: expected the record head byte');
      expect(e.location).toEqual({ file: 'f.bin', offset: 33 });
    });

    it('truncated inside an iaddr delta: the offset is where the delta starts', () => {
      const e = thrown(() => decodeBinaryStream(good.subarray(0, 27), 'f.bin'));
      expect(e.message).toBe('truncated record 0 at byte offset 25: expected iaddr delta');
      expect(e.location.offset).toBe(25);
    });

    it('truncated after an ext byte announcing a time delta', () => {
      expect(thrown(() => decodeBinaryStream(good.subarray(0, 32), 'f.bin')).message).toBe(
        'truncated record 1 at byte offset 32: expected time delta',
      );
      expect(thrown(() => decodeBinaryStream(good.subarray(0, 31), 'f.bin')).message).toBe(
        'truncated record 1 at byte offset 31: expected the ext flags byte',
      );
    });

    it('every truncation of a rich stream is reported as truncated, never as garbage', () => {
      const bytes = encodeBinaryStream(extremeStream64());
      for (let cut = 8; cut < bytes.length; cut++) {
        const e = thrown(() => decodeBinaryStream(bytes.subarray(0, cut), 'f.bin'));
        expect(e.code, `cut at ${cut}: ${e.message}`).toBe('truncated');
        expect(e.location.offset).toBeLessThanOrEqual(cut);
        expect(e.message).toMatch(/^truncated (header|image segment \d+|record \d+) at byte offset \d+: expected /);
      }
    });

    it('truncated image segment', () => {
      const bytes = encodeBinaryStream(extremeStream32()); // one segment of 8 bytes at offset 24
      expect(thrown(() => decodeBinaryStream(bytes.subarray(0, 40), 'f.bin')).message).toBe(
        'truncated image segment 0 at byte offset 36: expected 8 segment bytes, found 4',
      );
      expect(thrown(() => decodeBinaryStream(bytes.subarray(0, 30), 'f.bin')).message).toBe(
        'truncated image segment 0 at byte offset 24: expected segment base (u64) and length (u32)',
      );
    });

    it('bytes after the last record', () => {
      const bytes = new Uint8Array(good.length + 2);
      bytes.set(good);
      const e = thrown(() => decodeBinaryStream(bytes, 'f.bin'));
      expect(e.message).toBe('2 unexpected bytes after the last record (the header announces 3 records)');
      expect(e.location.offset).toBe(36);
    });

    it('reserved ext2 bits', () => {
      // One record: head 0x80 (ext), ext 0x80 (ext2), ext2 0x10 (reserved).
      const bytes = Uint8Array.from([...good.subarray(0, 16), 1, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x10]);
      expect(thrown(() => decodeBinaryStream(bytes, 'f.bin')).message).toBe(
        'record 0 at byte offset 24: reserved ext2 flag bits 0x10 are set',
      );
    });

    it('a LEB128 value wider than its field', () => {
      // One record with iretire given explicitly as 2^35 (head 0x00: not single, not sequential).
      const bytes = Uint8Array.from([...good.subarray(0, 16), 1, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x80, 0x80, 0x80, 0x80, 0x40, 0x00]);
      expect(thrown(() => decodeBinaryStream(bytes, 'f.bin')).message).toBe(
        'iretire at byte offset 25 of record 0 does not fit in 32 bits',
      );
    });

    it('addresses wrap modulo 2^64: a delta of -1 from 0 is the top of the address space', () => {
      // One record: head 0x20 (single), delta zigzag 1 = -1 from successor 0.
      const bytes = Uint8Array.from([...good.subarray(0, 16), 1, 0, 0, 0, 0, 0, 0, 0, 0x20, 0x01]);
      expect(decodeBinaryStream(bytes, 'f.bin').records[0]!.iaddr).toBe(0xffff_ffff_ffff_ffffn);
    });
  });
});
