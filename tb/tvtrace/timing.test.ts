/**
 * The FIFO's cycle model against cycles worked out by hand from the rules in docs/tvtrace-usage.md
 * ("Timing"): a record register in front of a FIFO, the held record entering when it fits in the
 * room before the cycle's beat. 16-byte FIFO, 4 bytes a beat, the transport always ready.
 */
import { describe, expect, it } from 'vitest';
import { tvFifoTiming } from './timing.ts';

const fifo = { fifoBytes: 16, outBytes: 4 };
const ready = (): boolean => true;

describe('tvFifoTiming: the record register', () => {
  it('a record waits a cycle in the register, then enters; the next one takes the register meanwhile', () => {
    // t0: 10 taken into the register. t1: it enters (count 10), the second 10 is taken.
    // t2: beat 4; 10 > 16 - 10 = 6: it stays. t3: beat 4; 10 <= 16 - 6: it enters (12 after the
    // beat). t4-t6: beats of 4 (the FIFO empties at the end of t6). 7 cycles, 5 after the last frame.
    const r = tvFifoTiming([10, 10], fifo, ready, true);
    expect(r).toMatchObject({ stalls: 0, cycles: 7, drain: 5 });
    expect([...r.counts!]).toEqual([0, 0, 4, 4, 4, 4, 4]);
  });

  it('a record offered while the register holds one that does not fit is a held cycle of the hart', () => {
    // As above to t2, where the third record finds the register full (a stall); t3: the second
    // enters, the third is taken (count 12 after the beat); t4, t5: 10 > 16 - 8, 10 > 16 - 4;
    // t6: 10 <= 16 - 4: it enters; then beats of 4, 4 and 2. 10 cycles.
    const r = tvFifoTiming([10, 10, 10], fifo, ready, true);
    expect(r).toMatchObject({ stalls: 1, cycles: 10, drain: 6 });
    expect([...r.counts!]).toEqual([0, 0, 4, 4, 4, 4, 4, 4, 4, 2]);
  });

  it('a cycle without a record leaves the register to empty; a record of 0 bytes takes it for a cycle', () => {
    // t0: 0 bytes taken. t1: it enters (nothing), 16 taken. t2: 16 <= 16: enters. t3-t6: beats.
    const r = tvFifoTiming([0, 16, null], fifo, ready, true);
    expect(r).toMatchObject({ stalls: 0, cycles: 7 });
    expect([...r.counts!]).toEqual([0, 0, 0, 4, 4, 4, 4]);
  });
});
