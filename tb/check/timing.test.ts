/**
 * Bytes in their cycles, on values worked out by hand: how many bytes leave before a cycle, and
 * the first byte that left in another cycle than the model's (the earlier cycle of the two).
 */
import { describe, expect, it } from 'vitest';
import { ByteLog } from './logs.ts';
import { dueBefore, firstMistimed, itemAt } from './timing.ts';

describe('bytes in their cycles', () => {
  it('dueBefore counts the bytes that leave before a cycle', () => {
    const due = [3, 3, 5, 9];
    expect([0, 3, 4, 5, 6, 9, 10].map((end) => dueBefore(due, end))).toEqual([0, 0, 2, 2, 3, 3, 4]);
    expect(dueBefore([], 7)).toBe(0);
  });

  it('firstMistimed: none when every byte leaves in its cycle; a late byte diverges in the model cycle, an early one in its own', () => {
    const log = new ByteLog();
    [
      [0x11, 3],
      [0x22, 4],
      [0x33, 8],
    ].forEach(([b, c]) => log.push(b!, c!));
    expect(firstMistimed(log, [3, 4, 8], 3)).toBeUndefined();
    // Byte 1 early: it left in cycle 4, the model sends it in 6.
    expect(firstMistimed(log, [3, 6, 8], 3)).toEqual({ byte: 1, cycle: 4, text: "first divergence at byte 1, waveform cycle 4: the byte (0x22, the model's) left the encoder in cycle 4, the model sends it in cycle 6 (bytes 0 to 0 left in their cycles)" });
    // Byte 2 late: the model sends it in 7, it left in 8.
    expect(firstMistimed(log, [3, 4, 7], 3)!.cycle).toBe(7);
    // Only the first `count` bytes are compared.
    expect(firstMistimed(log, [3, 4, 7], 2)).toBeUndefined();
  });

  it('itemAt: the packet or message a byte belongs to (the last starting at or before it)', () => {
    const items = [{ offset: 0 }, { offset: 4 }, { offset: 9 }];
    expect([0, 3, 4, 8, 9, 50].map((b) => itemAt(items, b))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(itemAt([{ offset: 2 }], 1)).toBe(-1);
  });
});
