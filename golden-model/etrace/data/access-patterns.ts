/**
 * Data access streams with the shapes of compiled code, for the data-trace efficiency rows of
 * `rvtrace bench` until the workloads' own data accesses (QEMU) reach the bench: register saves and
 * restores on the stack, a walk over an int32 array with a running sum, a linked list of heap nodes
 * (pointer and key loads), byte-wise string copying, and a few CSR reads and atomic adds. Seeded and
 * deterministic; values and addresses are what such code would see (return addresses in the code
 * segment, pointers into the heap, small integers, ASCII text).
 */
import type { DataAccess, DataTrace } from '../../hart/data-records.ts';

export type AccessPattern = 'stack' | 'array' | 'list' | 'string' | 'mixed';
export const ACCESS_PATTERNS: readonly AccessPattern[] = ['stack', 'array', 'list', 'string', 'mixed'];

/** A small deterministic generator (xorshift32), so a failing seed replays. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const CODE = 0x80000000n;
const HEAP = 0x80100000n;
const STACK = 0x80ff0000n;
const TEXT = 'The quick brown fox jumps over the lazy dog; 0123456789 pack my box with five dozen liquor jugs. ';

/** `count` accesses of a pattern, one per retirement record (`at` = its index). */
export function accessPattern(pattern: AccessPattern, count: number, seed: number): DataTrace {
  const r = rng(seed);
  const out: DataAccess[] = [];
  const push = (dtype: number, daddr: bigint, dsize: number, data: bigint): void => {
    out.push({ at: out.length, dtype, daddr, dsize, data, lrid: 0, iaddrLsbs: 0, dblock: 0 });
  };
  let sp = STACK;
  let node = HEAP;
  let sum = 0n;
  let i = 0;
  const stackFrame = (): void => {
    // Prologue: ra and saved registers; epilogue: the same slots read back.
    const frame = 16n * BigInt(2 + Math.floor(r() * 4));
    sp -= frame;
    const saved = [CODE + BigInt(Math.floor(r() * 0x4000) * 2), HEAP + BigInt(Math.floor(r() * 256) * 16), BigInt(Math.floor(r() * 100)), BigInt(i)];
    saved.forEach((v, k) => push(1, sp + frame - 8n * BigInt(k + 1), 3, v));
    saved.forEach((v, k) => push(0, sp + frame - 8n * BigInt(k + 1), 3, v));
    sp += frame;
  };
  const arrayWalk = (): void => {
    const base = HEAP + 0x10000n + BigInt(Math.floor(r() * 16) * 0x400);
    const n = 8 + Math.floor(r() * 24);
    let v = BigInt(Math.floor(r() * 1000));
    for (let k = 0; k < n; k++) {
      v += BigInt(Math.floor(r() * 7) - 2);
      const value = BigInt.asUintN(32, v);
      push(0, base + 4n * BigInt(k), 2, value);
      sum += v;
    }
    push(1, base - 8n, 3, BigInt.asUintN(64, sum));
  };
  const listWalk = (): void => {
    const n = 4 + Math.floor(r() * 12);
    for (let k = 0; k < n; k++) {
      const next = node + 32n + 32n * BigInt(Math.floor(r() * 3));
      push(0, node + 8n, 2, BigInt(Math.floor(r() * 5000)));
      push(0, node, 3, next);
      node = next;
    }
    if (node > HEAP + 0x8000n) node = HEAP;
  };
  const stringCopy = (): void => {
    const src = HEAP + 0x20000n + BigInt(Math.floor(r() * TEXT.length));
    const dst = HEAP + 0x30000n + BigInt(Math.floor(r() * 64));
    const n = 6 + Math.floor(r() * 20);
    for (let k = 0; k < n; k++) {
      const c = BigInt(TEXT.charCodeAt(Number((src - HEAP - 0x20000n + BigInt(k)) % BigInt(TEXT.length))));
      push(0, src + BigInt(k), 0, c);
      push(1, dst + BigInt(k), 0, c);
    }
  };
  const system = (): void => {
    // csrr a0, mcycle (csrrs with x0: operand 0, read value high); amoadd.w on a counter.
    push(5, 0xb00n, 3, BigInt(1000 + i * 37) << 64n);
    push(9, HEAP + 0x40n, 2, 1n | (BigInt(i & 0xffff) << 32n));
  };
  const pieces = { stack: [stackFrame], array: [arrayWalk], list: [listWalk], string: [stringCopy], mixed: [stackFrame, arrayWalk, listWalk, stringCopy, system] }[pattern];
  while (out.length < count) {
    pieces[Math.floor(r() * pieces.length)]!();
    i++;
  }
  return { accesses: out.slice(0, count), responses: [] };
}
