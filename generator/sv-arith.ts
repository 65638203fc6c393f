/**
 * Short-path arithmetic for the generated RTL. Yosys 0.23 and ABC (the bench's logic-depth measure)
 * build every + and - as a carry rippling through every bit, and fold a carry-lookahead tree written
 * out gate by gate back into a chain; the forms here survive: a chunk that takes its own + 1 when
 * the bits below it say so, a multiplexer between two finished sums (conditional-sum adders), a
 * value read from its thermometer. Each returns the rows (and declarations) a template pastes;
 * generator/synthesis.test.ts checks them exhaustively in Icarus and measures their depth.
 */
import { checkWidth, svBits, svLogic, svRange, svSized } from './render.ts';

/**
 * `out = value + 1` (wrapping) of a `width`-bit counter as continuous assignments, one per chunk of
 * `chunk` bits: a chunk takes its own + 1 when every bit below it is 1. Yosys builds `value + 1` as
 * a carry rippling through every bit (more than 48 gate levels for a 64-bit counter, after ABC);
 * here each chunk's + 1 and the AND of the bits below it are computed side by side and a
 * multiplexer picks (12 levels for 64 bits, about the same cells). The form matters: with the
 * AND added into the chunk (`chunk + {0, &below}`) ABC chains the chunks again (44 levels).
 */
export function svChunkedIncrement(out: string, value: string, width: number, chunk = 8): string[] {
  return chunkedStep(out, value, width, chunk, '+', '&');
}

/** `out = value - 1` (wrapping) in chunks, as svChunkedIncrement: a chunk takes its own - 1 when every bit below it is 0. */
export function svChunkedDecrement(out: string, value: string, width: number, chunk = 8): string[] {
  return chunkedStep(out, value, width, chunk, '-', '~|');
}

/** The rows of both: `step` 1 in each chunk whose bits below all reduce (`below`) to 1. */
function chunkedStep(out: string, value: string, width: number, chunk: number, step: '+' | '-', below: '&' | '~|'): string[] {
  checkWidth(width);
  const rows: string[] = [];
  for (let lo = 0; lo < width; lo += chunk) {
    const bits = svBits(Math.min(lo + chunk, width) - 1, lo);
    const stepped = `${value}${bits} ${step} 1'b1`;
    rows.push(lo === 0 ? `assign ${out}${bits} = ${stepped};` : `assign ${out}${bits} = (${below}${value}${svBits(lo - 1, 0)}) ? ${stepped} : ${value}${bits};`);
  }
  return rows;
}

/**
 * `out = value + offset` for a `width`-bit value and a small two's complement `offset` of
 * `offsetWidth` bits (sign-extended): the low bits add the offset, and the bits above become their
 * own + 1, - 1 or stay, as the low sum's carry and the offset's sign say, each + 1 and - 1 built in
 * chunks (svChunkedIncrement): no carry through every bit. The declarations of the intermediate
 * signals (named after `out`) go before the rows.
 */
export function svSmallOffsetAdd(out: string, value: string, width: number, offset: string, offsetWidth: number, chunk = 8): { declarations: string[]; rows: string[] } {
  checkWidth(width);
  const lo = Math.max(chunk, offsetWidth);
  const sign = `${offset}[${offsetWidth - 1}]`;
  const extended = (n: number) => (n > offsetWidth ? `{ {${n - offsetWidth}{${sign}}}, ${offset} }` : offset);
  if (width <= lo) return { declarations: [], rows: [`assign ${out} = ${value} + ${extended(width)};`] };
  const hw = width - lo;
  const [low, high, up, down] = ['low', 'high', 'up', 'down'].map((n) => `${out}_${n}`) as [string, string, string, string];
  return {
    declarations: [`${svLogic(lo + 1)} ${low};  // the low ${lo} bits' sum and its carry`, `${svLogic(hw)} ${high}, ${up}, ${down};  // the bits above, + 1, - 1`],
    rows: [
      `assign ${low} = { 1'b0, ${value}${svBits(lo - 1, 0)} } + { 1'b0, ${extended(lo)} };`,
      `assign ${high} = ${value}${svBits(width - 1, lo)};`,
      ...svChunkedIncrement(up, high, hw, chunk),
      ...svChunkedDecrement(down, high, hw, chunk),
      `assign ${out}${svBits(lo - 1, 0)} = ${low}${svBits(lo - 1, 0)};`,
      `assign ${out}${svBits(width - 1, lo)} = (${low}[${lo}] == ${sign}) ? ${high} : ${low}[${lo}] ? ${up} : ${down};`,
    ],
  };
}

/**
 * `out = a + b + carryIn` of two `width`-bit operands as a conditional-sum adder: every block of
 * bits is summed twice, for a carry-in of 0 and of 1, starting from single bits; each round joins
 * two neighbouring blocks, the high one's pair chosen by the low one's carry-outs. The carry into
 * a bit is then ready after log2(width) multiplexers (19 gate levels for a 64-bit subtract after
 * ABC) where Yosys builds `+` and `-` as a carry rippling through every bit (more than 48 levels,
 * and ABC's area recovery folds a Kogge-Stone tree written out gate by gate back into a chain: a
 * multiplexer that chooses between two finished sums is what survives it). For `a - b` pass `~(b)`
 * and carry-in `1'b1`; `carryOut` (optional) names the carry out of the top bit, which for a
 * subtract is 1 when a >= b (unsigned). The declarations (named after `out`) go before the rows.
 */
export function svConditionalSumAdd(
  out: string,
  a: string,
  b: string,
  width: number,
  opts: { carryIn?: string; carryOut?: string } = {},
): { declarations: string[]; rows: string[] } {
  checkWidth(width);
  const levels = Math.ceil(Math.log2(width));
  const carryIn = opts.carryIn ?? "1'b0";
  // Round r's sums and carry-outs (the carry-out of a block at every bit of the block).
  const v = (name: 's0' | 's1' | 'c0' | 'c1', r: number) => `${out}_${name}_r${r}`;
  const unused = `unused_${out}_carries`;
  const declarations = [
    `// ${out}: per round, each block's sums for a carry-in of 0 (s0) and of 1 (s1) and their`,
    '// carry-outs (c0, c1; at every bit of the block).',
    ...[...Array(levels + 1).keys()].map((r) => `${svLogic(width)} ${(['s0', 's1', 'c0', 'c1'] as const).map((n) => v(n, r)).join(', ')};`),
    `logic ${unused};  // a block's carry-out is read at one of its bits`,
  ];
  const rows = conditionalSumRounds(v, a, b, width).map((x) => (x.comment ? `// ${x.comment}` : `assign ${x.target} = ${x.value};`));
  const [t0, t1, d0, d1] = (['s0', 's1', 'c0', 'c1'] as const).map((n) => v(n, levels));
  const carriesRead = [...Array(levels + 1).keys()].flatMap((r) => [v('c0', r), v('c1', r)]);
  // A constant carry-in needs one of the two sums only.
  if (carryIn === "1'b0" || carryIn === "1'b1") {
    const [sum, other, carry] = carryIn === "1'b1" ? [t1, t0, d1] : [t0, t1, d0];
    rows.push(`assign ${out} = ${sum};`, `assign ${unused} = ^{${[...carriesRead, other].join(', ')}};`);
    if (opts.carryOut !== undefined) rows.push(`assign ${opts.carryOut} = ${carry}[0];`);
  } else {
    rows.push(`assign ${out} = ${carryIn} ? ${t1} : ${t0};`, `assign ${unused} = ^{${carriesRead.join(', ')}};`);
    if (opts.carryOut !== undefined) rows.push(`assign ${opts.carryOut} = ${carryIn} ? ${d1}[0] : ${d0}[0];`);
  }
  return { declarations, rows };
}

/**
 * The same adder as a function, for sums inside a process (a value that changes from step to step
 * of a loop): `name(a, b, carry_in)` returns {carry_out, a + b + carry_in} over `width` bits; for
 * a - b and a >= b pass ~b and 1. Vector operations only (no part-select, which Icarus 11 does not
 * support inside processes).
 */
export function svConditionalSumFunction(name: string, width: number): string[] {
  checkWidth(width);
  const levels = Math.ceil(Math.log2(width));
  const v = (n: 's0' | 's1' | 'c0' | 'c1', r: number) => `${n}_r${r}`;
  const locals = [...Array(levels + 1).keys()].map((r) => `  ${svLogic(width)} ${(['s0', 's1', 'c0', 'c1'] as const).map((n) => v(n, r)).join(', ')};`);
  const [t0, t1, d0, d1] = (['s0', 's1', 'c0', 'c1'] as const).map((n) => v(n, levels));
  const bit0 = svSized(width, 1n);
  return [
    `// {carry_out, a + b + carry_in} by a conditional-sum adder: each block of bits summed for a`,
    `// carry-in of 0 and of 1, blocks joined two by two, a high half's sums chosen by its low half's`,
    `// carry-out (log2(${width}) multiplexers where + would ripple through every bit).`,
    `function automatic logic [${width}:0] ${name}(input logic ${svRange(width)} a, input logic ${svRange(width)} b, input logic carry_in);`,
    ...locals,
    ...conditionalSumRounds(v, 'a', 'b', width).map((x) => (x.comment ? `  // ${x.comment}` : `  ${x.target} = ${x.value};`)),
    `  ${name} = carry_in ? {|(${d1} & ${bit0}), ${t1}} : {|(${d0} & ${bit0}), ${t0}};`,
    'endfunction',
  ];
}

/**
 * The rounds of a conditional-sum adder of a and b: round 0 per bit, then each round joins blocks
 * twice as wide (constant masks pick a block's high half, low half, or a top block without a high
 * half). `v(name, r)` names round r's vectors.
 */
function conditionalSumRounds(
  v: (name: 's0' | 's1' | 'c0' | 'c1', r: number) => string,
  a: string,
  b: string,
  width: number,
): { target?: string; value?: string; comment?: string }[] {
  const levels = Math.ceil(Math.log2(width));
  const out: { target?: string; value?: string; comment?: string }[] = [
    { target: v('s0', 0), value: `${a} ^ ${b}` },
    { target: v('s1', 0), value: `~(${a} ^ ${b})` },
    { target: v('c0', 0), value: `${a} & ${b}` },
    { target: v('c1', 0), value: `${a} | ${b}` },
  ];
  for (let r = 1; r <= levels; r++) {
    const half = 2 ** (r - 1);
    // The bits of each block's high half (high), of its low half (low), and of the blocks that
    // have no high half (alone: the top block when width is not a power of two).
    let high = 0n;
    let low = 0n;
    let alone = 0n;
    for (let i = 0; i < width; i++) {
      const lo = (i >> r) << r;
      const mid = lo + half;
      const bit = 1n << BigInt(i);
      if (mid >= width) alone |= bit;
      else if (i >= mid) high |= bit;
      else low |= bit;
    }
    const [H, L, A] = [high, low, alone].map((m) => svSized(width, m));
    const [p0, p1, q0, q1] = (['s0', 's1', 'c0', 'c1'] as const).map((n) => v(n, r - 1));
    // In a high half the low half's carry-out sits `half` bits lower; in a low half the high
    // half's carry-outs sit `half` bits higher.
    const mux = (sel: string, one: string, zero: string) => `((${sel} & ${one}) | (~${sel} & ${zero}))`;
    const carry = (q: string) => `(${H} & ${mux(`(${q} << ${half})`, q1, q0)}) |\n         (${L} & ${mux(q, `(${q1} >> ${half})`, `(${q0} >> ${half})`)}) |\n         (${A} & ${q})`;
    out.push(
      { comment: `Round ${r}: blocks of ${2 ** r} bits; a high half takes the sums its low half's carry-out chooses.` },
      { target: v('s0', r), value: mux(`(${H} & (${q0} << ${half}))`, p1, p0) },
      { target: v('s1', r), value: mux(`(${H} & ~(${q1} << ${half}))`, p0, p1) },
      { target: v('c0', r), value: carry(q0) },
      { target: v('c1', r), value: carry(q1) },
    );
  }
  return out;
}

/**
 * The binary of a value known as a thermometer: `atLeast(m)` is an expression that is 1 when the
 * value is at least m (for m = 1..max; undefined when the value cannot reach m). Bit j of the value
 * is 1 on the ranges [a, a + 2^j) with a = 2^j, 3 * 2^j, ...: an OR of "at least a and not at least
 * a + 2^j", two gate levels and a small OR tree where an adder would count the ones serially.
 */
export function svThermometerValue(out: string, atLeast: (m: number) => string | undefined, max: number, width: number): string[] {
  checkWidth(width);
  if (max >= 2 ** width) throw new Error(`svThermometerValue: ${max} does not fit in ${width} bits`);
  const rows: string[] = [];
  for (let j = 0; j < width; j++) {
    const step = 2 ** j;
    const terms: string[] = [];
    for (let a = step; a <= max; a += 2 * step) {
      const from = atLeast(a);
      const to = a + step <= max ? atLeast(a + step) : undefined;
      if (from === undefined) break;
      terms.push(to === undefined ? from : `(${from} & ~${to})`);
    }
    rows.push(`assign ${out}[${j}] = ${terms.length === 0 ? "1'b0" : terms.join(' | ')};`);
  }
  return rows;
}

/**
 * For each of a few bit positions p of `value` (`width` bits), the OR of its bits at and above p
 * (`at(p)` names it), without an OR prefix over every bit: the positions cut the value into blocks,
 * each block is ORed on its own (`${name}_block`), and the blocks are ORed with those above them in
 * log2(blocks) steps of shifts (`${name}_above<k>`). ABC folds an OR prefix over every bit into a
 * chain from bit to bit (176 bits: 33 levels, 2026-11-28), this form it keeps short (16). The
 * declarations go before the rows.
 */
export function svAtOrAboveAt(name: string, value: string, width: number, positions: number[]): { declarations: string[]; rows: string[]; at: (p: number) => string } {
  checkWidth(width);
  const cuts = [...new Set(positions)].sort((a, b) => a - b);
  if (cuts.length === 0 || cuts[0]! < 0 || cuts[cuts.length - 1]! >= width) throw new Error(`svAtOrAboveAt: positions must lie in [0, ${width - 1}]`);
  const m = cuts.length;
  const steps = m === 1 ? 0 : Math.ceil(Math.log2(m));
  const step = (k: number) => `${name}_above${k}`;
  const rows = cuts.map((lo, j) => {
    const hi = j + 1 < m ? cuts[j + 1]! - 1 : width - 1;
    return `assign ${name}_block${m === 1 ? '' : `[${j}]`} = ${hi === lo ? `${value}[${lo}]` : `|${value}[${hi}:${lo}]`};`;
  });
  rows.push(`assign ${step(0)} = ${name}_block;`);
  for (let k = 0; k < steps; k++) rows.push(`assign ${step(k + 1)} = ${step(k)} | (${step(k)} >> ${1 << k});`);
  return {
    declarations: [`${svLogic(m)} ${name}_block, ${[...Array(steps + 1).keys()].map(step).join(', ')};`],
    rows,
    at: (p: number) => {
      const j = cuts.indexOf(p);
      if (j < 0) throw new Error(`svAtOrAboveAt: position ${p} was not asked for`);
      return m === 1 ? `${step(steps)}` : `${step(steps)}[${j}]`;
    },
  };
}

/**
 * The index of the highest set bit of `value` (`width` bits, at least 2) by a tree of multiplexers:
 * level k holds, for every block of 2^k bits (the value padded with zeros to a power of two), whether
 * any of its bits is set (`<name>_any<k>`) and the index of the highest set one inside the block
 * (`<name>_idx<k>`, k bits a block); two neighbouring blocks join by taking the high one's index
 * when it has a set bit. `${name}_index` holds the index and `${name}_any` whether any bit is set.
 * An OR prefix over every bit and its one set bit give the same, but ABC folds those ORs into a
 * chain from bit to bit: in the data compression's six counts (etrace_data_compress alone 82 levels
 * with the OR form, 55 this way, 2026-11-27) and in the te_inst packer (alone 44 -> 36 levels with
 * this tree and svAtOrAboveAt, 2026-11-28). The declarations go before the rows.
 */
export function svHighestSetBitTree(name: string, value: string, width: number): { declarations: string[]; rows: string[]; indexWidth: number } {
  checkWidth(width);
  if (width < 2) throw new Error(`svHighestSetBitTree: a width of ${width} has no index to find`);
  const levels = Math.ceil(Math.log2(width));
  const any = (k: number) => `${name}_any${k}`;
  const idx = (k: number) => `${name}_idx${k}`;
  const declarations = [
    `// ${name}: the highest set bit of ${value} by a tree of multiplexers; level k, for every block of`,
    '// 2^k bits: whether a bit is set (any) and the index of the highest one inside the block (idx).',
    `${svLogic(2 ** levels)} ${any(0)};`,
    // (A vector also at the top, one block: the generate loops select its bit.)
    ...[...Array(levels).keys()].map((j) => `logic [${2 ** (levels - j - 1) - 1}:0] ${any(j + 1)};  // ${2 ** (j + 1)}-bit blocks`),
    ...[...Array(levels).keys()].map((j) => `${svLogic(2 ** (levels - j - 1) * (j + 1))} ${idx(j + 1)};`),
    `${svLogic(levels)} ${name}_index;`,
    `logic ${name}_any;`,
  ];
  const pad = 2 ** levels - width;
  const rows = [`assign ${any(0)} = ${pad > 0 ? `{${svSized(pad, 0n)}, ${value}}` : value};`];
  for (let k = 1; k <= levels; k++) {
    const blocks = 2 ** (levels - k);
    const hiIndex = k === 1 ? `${any(0)}[2*i+1]` : `${any(k - 1)}[2*i+1] ? {1'b1, ${idx(k - 1)}[${k - 1}*(2*i+1) +: ${k - 1}]} : {1'b0, ${idx(k - 1)}[${k - 1}*(2*i) +: ${k - 1}]}`;
    rows.push(
      `for (genvar i = 0; i < ${blocks}; i++) begin : g_${name}${k}`,
      `  assign ${any(k)}[i] = ${any(k - 1)}[2*i+1] | ${any(k - 1)}[2*i];`,
      `  assign ${idx(k)}[${k}*i +: ${k}] = ${hiIndex};`,
      'end',
    );
  }
  rows.push(`assign ${name}_index = ${idx(levels)};`, `assign ${name}_any = ${any(levels)}[0];`);
  return { declarations, rows, indexWidth: levels };
}
