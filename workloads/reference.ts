/**
 * Independent TypeScript computations of the self-check constants of the workload programs: each
 * function re-implements the program's algorithm (or uses a closed form, or Node's zlib) and
 * returns the `EXPECT_*` values the C source must #define. build.test.ts compares them with the
 * #defines, so a constant in a program can never silently drift from what the program computes.
 *
 * Arithmetic is modulo 2^32 as in the C sources (`>>> 0`, Math.imul); 64-bit values are bigint.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';

export type Expected = Record<string, number | bigint>;

const u32 = (x: number): number => x >>> 0;
const mul32 = (a: number, b: number): number => Math.imul(a, b) >>> 0;
const rotl32 = (x: number, r: number): number => ((x << r) | (x >>> ((32 - r) & 31))) >>> 0;

/** xorshift32 as rt_xorshift32 in runtime/rt.h. */
class XorShift32 {
  constructor(private s: number) {}
  next(): number {
    let x = this.s;
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    this.s = x;
    return x;
  }
}

function fill(n: number, seed: number): number[] {
  const r = new XorShift32(seed);
  return Array.from({ length: n }, () => r.next());
}

function weightedSum(a: number[]): number {
  let w = 0;
  a.forEach((v, i) => (w = u32(w + mul32(i + 1, v))));
  return w;
}

export function sortExpected(): Expected {
  const ascending = (a: number, b: number): number => a - b;
  return {
    EXPECT_QUICK: weightedSum(fill(1500, 0x12345678).sort(ascending)),
    EXPECT_INSERT: weightedSum(fill(192, 0x9e3779b9).sort(ascending)),
  };
}

export function recursionExpected(): Expected {
  let sum = 0;
  const hanoi = (n: number, from: number, to: number, via: number): void => {
    if (n === 0) return;
    hanoi(n - 1, from, via, to);
    sum = u32(mul32(sum, 31) + n * 9 + from * 3 + to);
    hanoi(n - 1, via, to, from);
  };
  hanoi(11, 0, 2, 1);
  return { EXPECT_HANOI_SUM: sum };
}

export function matrixExpected(): Expected {
  const N = 24;
  const r = new XorShift32(0x2545f491);
  const small = (): number => (r.next() % 201) - 100;
  const mat = (): number[][] => Array.from({ length: N }, () => Array.from({ length: N }, small));
  const A = mat();
  const B = mat();
  const vec = Array.from({ length: N }, small);
  const va: number[] = [];
  const vb: number[] = [];
  for (let i = 0; i < 256; i++) {
    va.push(small() * 300);
    vb.push(small() * 300);
  }
  const C = A.map((row) => B[0]!.map((_, j) => row.reduce((s, a, k) => (s + a * B[k]![j]!) | 0, 0)));
  let hm = 0;
  for (const row of C) for (const c of row) hm = u32(mul32(hm, 33) + u32(c));
  const mv = C.map((row) => row.reduce((s, c, j) => (s + Math.imul(c, vec[j]!)) | 0, 0));
  const mvt = vec.map((_, j) => A.reduce((s, row, i) => (s + row[j]! * vec[i]!) | 0, 0));
  let hv = 0;
  for (let i = 0; i < N; i++) hv = u32(mul32(hv, 33) + u32(mv[i]!) + mul32(7, u32(mvt[i]!)));
  let dot = 0n;
  for (let i = 0; i < 256; i++) dot += BigInt(va[i]! * vb[i]!);
  return { EXPECT_MATMUL: hm, EXPECT_MATVEC: hv, EXPECT_DOT: BigInt.asUintN(64, dot) };
}

export function stringsExpected(): Expected {
  const WORDS = 500;
  const TABLE = 1024;
  const r = new XorShift32(0xc0ffee11);
  const words: string[] = [];
  for (let w = 0; w < WORDS; w++) {
    const len = 2 + (r.next() % 8);
    let s = '';
    for (let i = 0; i < len; i++) s += 'etaoinsrh'[r.next() % 7];
    words.push(s);
  }
  const fnv1a = (s: string): number => {
    let h = 2166136261;
    for (const c of s) h = mul32(h ^ c.charCodeAt(0), 16777619);
    return h;
  };
  const table: (string | null)[] = new Array<string | null>(TABLE).fill(null);
  const counts = new Array<number>(TABLE).fill(0);
  let steps = 0;
  const probe = (s: string): number => {
    let i = fnv1a(s) & (TABLE - 1);
    while (table[i] !== null && table[i] !== s) {
      i = (i + 1) & (TABLE - 1);
      steps++;
    }
    return i;
  };
  let distinct = 0;
  for (const w of words) {
    const slot = probe(w);
    if (table[slot] === null) {
      table[slot] = w;
      distinct++;
    }
    counts[slot]!++;
  }
  let hits = 0;
  let checksum = 0;
  words.forEach((w, i) => {
    const slot = probe(w);
    checksum = u32(mul32(checksum, 31) + slot * 7 + counts[slot]!);
    const mutated = (i & 1) !== 0 ? `${w.slice(0, -1)}h` : `${w}e`;
    const s2 = probe(mutated);
    if (table[s2] !== null) {
      hits++;
      checksum = u32(checksum ^ s2);
    }
  });
  let palindromes = 0;
  let vowels = 0;
  for (const w of words) {
    const rev = [...w].reverse().join('');
    if (rev === w) palindromes++;
    if (rev.includes('e')) vowels += rev.indexOf('e') + 1;
    if (rev.includes('a')) vowels += 100 * (rev.lastIndexOf('a') + 1);
  }
  checksum = u32(checksum + mul32(palindromes, 0x10001) + mul32(vowels, 3) + steps);
  return { EXPECT_DISTINCT: distinct, EXPECT_HITS: hits, EXPECT_CHECKSUM: checksum };
}

export function interpExpected(): Expected {
  let total = 0;
  for (let i = 1; i < 24; i++) {
    let n = i;
    while (n !== 1) {
      n = n % 2 === 0 ? n / 2 : 3 * n + 1;
      total++;
    }
  }
  const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));
  return { EXPECT_COLLATZ: total, EXPECT_FIB: fib(11) };
}

export function linkedExpected(): Expected {
  const lr = new XorShift32(0x5eed1234);
  const values = Array.from({ length: 360 }, () => lr.next() % 100000);
  const kept = values.sort((a, b) => b - a).filter((v) => v % 3 !== 0);
  let h = 0;
  for (const v of kept) h = u32(mul32(h, 31) + v);
  const list = u32(h ^ (kept.length << 20));

  interface Node {
    key: number;
    left: Node | null;
    right: Node | null;
  }
  const tr = new XorShift32(0xfeedbeef);
  const keys = Array.from({ length: 600 }, () => tr.next() % 50000);
  let root: Node | null = null;
  for (const key of keys) {
    const node: Node = { key, left: null, right: null };
    if (root === null) {
      root = node;
      continue;
    }
    let p: Node = root;
    for (;;) {
      if (key < p.key) {
        if (p.left === null) {
          p.left = node;
          break;
        }
        p = p.left;
      } else {
        if (p.right === null) {
          p.right = node;
          break;
        }
        p = p.right;
      }
    }
  }
  const height = (t: Node | null): number => (t === null ? 0 : 1 + Math.max(height(t.left), height(t.right)));
  const sorted = [...keys].sort((a, b) => a - b);
  const tree = weightedSum(sorted);
  const present = new Set(keys);
  let found = 0;
  keys.forEach((k, i) => {
    if (present.has(i & 1 ? k : k + 1)) found++;
  });
  return { EXPECT_LIST: list, EXPECT_TREE: tree, EXPECT_HEIGHT: height(root), EXPECT_FOUND: found };
}

export function crcExpected(): Expected {
  const r = new XorShift32(0xdeadbeef);
  const buf = Buffer.from(Array.from({ length: 2048 }, () => r.next() >>> 24));
  let crc16 = 0xffff;
  for (const b of buf) {
    crc16 ^= b << 8;
    for (let i = 0; i < 8; i++) crc16 = crc16 & 0x8000 ? ((crc16 << 1) ^ 0x1021) & 0xffff : (crc16 << 1) & 0xffff;
  }
  let a = 1;
  let s = 0;
  for (const b of buf) {
    a = (a + b) % 65521;
    s = (s + a) % 65521;
  }
  return { EXPECT_CRC32: zlibCrc32(buf), EXPECT_CRC16: crc16, EXPECT_ADLER: u32((s << 16) | a) };
}

export function trapsExpected(): Expected {
  const ITER = 320;
  const WORK = 48;
  let x = 0x01234567;
  let acc = 0;
  let kacc = 0;
  let bufSum = 0;
  for (let i = 0; i < 64; i++) bufSum += (i * 37 + 11) & 0xff;
  const popcount = (v: number): number => [...v.toString(2)].filter((c) => c === '1').length;
  for (let i = 0; i < ITER; i++) {
    for (let j = 0; j < WORK; j++) x = u32(mul32(x, 1664525) + 1013904223);
    kacc = u32(rotl32(kacc, 5) ^ x);
    acc = u32(acc + kacc);
    acc = u32(acc ^ u32(rotl32(x, 7) + acc));
    if ((i & 3) === 0) acc = u32(acc + popcount(x) * i + 1);
    if ((i & 7) === 0) acc = u32(acc + bufSum);
    if ((i & 15) === 0) acc = rotl32(acc, 1);
  }
  return { EXPECT_ACC: acc };
}

export function parserExpected(): Expected {
  const TEXT = 512;
  const r = new XorShift32(0x0badf00d);
  let text: string[] = [];
  const emit = (c: string): void => {
    if (text.length < TEXT - 1) text.push(c);
  };
  const genNumber = (): void => {
    const v = (r.next() & 3) === 0 ? r.next() % 10 : r.next() % 1000;
    for (const c of String(v)) emit(c);
  };
  const genExpr = (depth: number): void => {
    const k = r.next() % 8;
    if (depth >= 7 || k < 3) {
      genNumber();
    } else if (k === 3) {
      emit('(');
      genExpr(depth + 1);
      emit(')');
    } else if (k === 4) {
      emit('-');
      genExpr(depth + 1);
    } else {
      genExpr(depth + 1);
      emit(' ');
      emit('+-*/%'[r.next() % 5]!);
      emit(' ');
      genExpr(depth + 1);
    }
  };

  class ParseError {
    constructor(readonly code: number) {}
  }
  let s = '';
  let pos = 0;
  const peek = (): string => s[pos] ?? '\0';
  const skip = (): void => {
    while (peek() === ' ') pos++;
  };
  const factor = (depth: number): number => {
    if (depth > 48) throw new ParseError(4);
    skip();
    const c = peek();
    if (c === '(') {
      pos++;
      const v = expr(depth + 1);
      skip();
      if (peek() !== ')') throw new ParseError(1);
      pos++;
      return v;
    }
    if (c === '-') {
      pos++;
      return (0 - factor(depth + 1)) | 0;
    }
    if (c >= '0' && c <= '9') {
      let v = 0;
      while (peek() >= '0' && peek() <= '9') v = u32(mul32(v, 10) + Number(s[pos++]));
      return v | 0;
    }
    throw new ParseError(1);
  };
  const term = (depth: number): number => {
    let v = factor(depth);
    for (;;) {
      skip();
      const op = peek();
      if (op !== '*' && op !== '/' && op !== '%') return v;
      pos++;
      const rhs = factor(depth);
      if (op === '*') {
        v = Math.imul(v, rhs);
      } else {
        if (rhs === 0) throw new ParseError(2);
        if (v === -0x80000000 && rhs === -1) throw new ParseError(3);
        v = op === '/' ? Math.trunc(v / rhs) | 0 : v % rhs | 0;
      }
    }
  };
  const expr = (depth: number): number => {
    let v = term(depth);
    for (;;) {
      skip();
      const op = peek();
      if (op !== '+' && op !== '-') return v;
      pos++;
      const rhs = term(depth);
      v = op === '+' ? (v + rhs) | 0 : (v - rhs) | 0;
    }
  };
  const evaluate = (): { code: number; value: number } => {
    pos = 0;
    try {
      const value = expr(0);
      skip();
      return pos < s.length ? { code: 1, value: 0 } : { code: 0, value };
    } catch (e) {
      if (e instanceof ParseError) return { code: e.code, value: 0 };
      throw e;
    }
  };

  let sum = 0;
  const errors = [0, 0, 0, 0, 0];
  for (let i = 0; i < 150; i++) {
    text = [];
    genExpr(0);
    if (i % 5 === 4 && text.length > 0) {
      const p = r.next() % text.length;
      text[p] = (r.next() & 1) !== 0 ? ')' : '#';
    }
    s = text.join('');
    const { code, value } = evaluate();
    errors[code]!++;
    sum = code === 0 ? u32(mul32(sum, 31) + u32(value)) : u32(sum + code * 2 ** 24);
  }
  return { EXPECT_SUM: sum, EXPECT_OK: errors[0]!, EXPECT_SYNTAX: errors[1]!, EXPECT_DIV0: errors[2]! };
}

/** Expected constants of every workload program, by program name. */
export const EXPECTED: Record<string, () => Expected> = {
  sort: sortExpected,
  recursion: recursionExpected,
  matrix: matrixExpected,
  strings: stringsExpected,
  interp: interpExpected,
  linked: linkedExpected,
  crc: crcExpected,
  traps: trapsExpected,
  parser: parserExpected,
};

/** The `#define EXPECT_* <value>` constants of a C source. */
export function definedConstants(source: string): Expected {
  const out: Expected = {};
  for (const m of source.matchAll(/^#define\s+(EXPECT_\w+)\s+(0x[0-9a-fA-F]+|\d+)(u|ull)?\b/gm)) {
    const v = BigInt(m[2]!);
    out[m[1]!] = m[3] === 'ull' ? v : Number(v);
  }
  return out;
}
