/**
 * The feed that keeps an encoder model behind the waveform: records reach the model only once the
 * waveform is `lookahead` cycles past them, the model's ready(m) is the waveform's ready input of
 * cycle m + offset, a question past what the waveform has shown is an error while it runs and
 * ready after it ended (the sink's last value 0 must not hold the model for ever), and the window forgets the cycles the model is done with.
 */
import { describe, expect, it } from 'vitest';
import { LaggedFeed } from './lagged-feed.ts';

describe('LaggedFeed', () => {
  it('gives the model a record once the waveform is lookahead cycles past it, with the ready of cycle m + offset', () => {
    const got: string[] = [];
    const feed: LaggedFeed<string> = new LaggedFeed<string>((r) => got.push(`${r}:${feed.ready(got.length) ? 1 : 0}`), 1, true, 3);
    // Ready pattern of waveform cycles 0..9: 0 1 1 0 1 0 0 1 1 0 (not ready at the end).
    const ready = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0];
    for (let t = 0; t < ready.length; t++) {
      feed.readyInput(ready[t] === 1);
      feed.add(`r${t}`, t);
      feed.advance(t);
      // Records of cycles up to t - 3 only.
      expect(got.length, `cycle ${t}`).toBe(Math.max(0, t - 2));
    }
    feed.end();
    // Record of model cycle m asks ready(m): the waveform's cycle m + 1; past cycle 9 ready.
    expect(got).toEqual(ready.map((_, m) => `r${m}:${ready[m + 1] ?? 1}`));
  });

  it('a question past the cycles the waveform has shown is an error while it runs', () => {
    const feed = new LaggedFeed<number>(() => {}, 1, true, 4);
    feed.readyInput(true);
    feed.readyInput(true);
    expect(feed.ready(0)).toBe(true);
    expect(() => feed.ready(5)).toThrow('the model stalls past waveform cycle 6, more than 4 cycles behind the waveform');
  });

  it('without a ready input the transport is always ready', () => {
    const feed = new LaggedFeed<number>(() => {}, 1, false);
    expect(feed.ready(1_000_000)).toBe(true);
  });

  it('keeps the window from the last cycle asked for on: the cycles before it are forgotten', () => {
    const feed = new LaggedFeed<number>(() => {}, 0, true, 1);
    for (let t = 0; t < 20000; t++) feed.readyInput(t % 3 === 0);
    expect(feed.ready(19000)).toBe(false);
    feed.add(0, 0);
    feed.advance(20000);
    // Still there: the cycles from the last one asked for on; gone: the ones before.
    expect(feed.ready(19000)).toBe(false);
    expect(feed.ready(19002)).toBe(true);
    expect(() => feed.ready(10)).toThrow(RangeError);
  });
});
