/**
 * The multi-port prediction structures of the generated E-Trace RTL (etrace_bpred, etrace_jtc,
 * etrace_irstack as a return stack and as a call counter) against an independent reference: the
 * golden model's sequential classes (golden-model/etrace/predictors.ts: BranchPredictor,
 * JumpTargetCache, ReturnPredictor) applied port by port.
 *
 * Why: the encoder encodes up to P = stepsPerCycle views a cycle, and the RTL does it in parallel
 * with forwarding between the ports, where the model encodes them one after the other. The trace is
 * only decodable if the two agree exactly: in a cycle, port k must see the structure as ports
 * 0..k-1 of the same cycle leave it (on top of the state of the previous committed cycle), a port's
 * clear must win over its own update (bpred, jtc) or come before its own push or pop (irstack), and
 * a cycle without commit_i must leave no trace. The encoder-level co-simulation only reaches the
 * collisions between ports (same index, same cycle, a clear in the middle) now and then; here a
 * seeded random stimulus makes them the common case: tables of 2 to 4 entries, addresses from a
 * pool of six (pairs that share an index and differ in one high bit), rare clears and resets, and
 * cycles without commit.
 *
 * Each structure is rendered from its template with the generator's own context, simulated with
 * Icarus Verilog (a testbench reads one line of inputs per cycle, prints every output before the
 * clock edge, then clocks), and every output of every port of every cycle is compared with the
 * reference. Mutated references (no forwarding, ports in reverse order, commit_i ignored, a port's
 * clear moved to the other side of its own operation) must all disagree with the RTL: the stimulus
 * does exercise what the comparison claims to check.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { returnDepthWidth } from '../../golden-model/etrace/packet/params.ts';
import { BranchPredictor, JumpTargetCache, ReturnPredictor } from '../../golden-model/etrace/predictors.ts';
import { etraceConfigOf as caseConfig } from '../../blocks/testing.ts';
import { renderEtrace } from './rtl.ts';
import { bpredContext, irstackContext, jtcContext } from './core.ts';
import { stepsPerCycle } from './shape.ts';
import { icarusProblems, runTool as run } from '../tool-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-structures-'));
// Removed unless STRUCTURES_KEEP is set (to look at a failing simulation).
afterAll(() => {
  if (process.env.STRUCTURES_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
});

const BANNER = '// rendered by generator/etrace/structures.test.ts\n';
/** Cycles of random stimulus per structure and configuration. */
const CYCLES = 4000;
const SEED = 0x5eed_e7ace;

// ---------------------------------------------------------------------------------------------
// Stimulus

/** xorshift32: a small deterministic PRNG, so that a failure reproduces. */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  u32(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }
  chance(p: number): boolean {
    return this.u32() / 2 ** 32 < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.u32() % xs.length]!;
  }
  bits(width: number): bigint {
    let v = 0n;
    for (let i = 0; i < width; i += 32) v = (v << 32n) | BigInt(this.u32());
    return v & ((1n << BigInt(width)) - 1n);
  }
}

/**
 * Six 2-byte aligned addresses of `iaw` bits: a; a with its top bit flipped and a with the bit
 * just above the index flipped (same index, different address: a hit must compare every bit); b
 * and b with the lowest index bit flipped (the neighbouring entry); and c.
 */
function addressPool(rng: Rng, iaw: number, lsb: number, indexBits: number): bigint[] {
  const aligned = () => rng.bits(iaw) & ~1n;
  const a = aligned();
  const b = aligned();
  return [a, a ^ (1n << BigInt(iaw - 1)), a ^ (1n << BigInt(lsb + indexBits)), b, b ^ (1n << BigInt(lsb)), aligned()];
}

// ---------------------------------------------------------------------------------------------
// Structures

/** A per-port signal: `<base><k>_i` or `<base><k>_o`, `width` bits. */
interface Signal {
  readonly base: string;
  readonly width: number;
}

/** The values of one port's signals (inputs or outputs), by base name. */
type PortValues = Record<string, bigint>;

/** One cycle of stimulus: an asynchronous reset before it, commit_i, and each port's inputs. */
interface Cycle {
  readonly rst: boolean;
  readonly commit: boolean;
  readonly ports: PortValues[];
}

/**
 * How the reference is run: 'sequential' is the rule the RTL must follow; the others are mutations
 * the RTL must disagree with.
 */
type Mode = 'sequential' | 'no-forwarding' | 'reversed' | 'ignore-commit' | 'clear-swapped';
const MUTATIONS: readonly Mode[] = ['no-forwarding', 'reversed', 'ignore-commit', 'clear-swapped'];

/** A structure under test: its RTL (template and context), its per-port signals and its reference. */
interface Structure {
  readonly label: string;
  readonly module: string;
  readonly ports: number;
  readonly sv: string;
  readonly inputs: readonly Signal[];
  readonly outputs: readonly Signal[];
  /** One port's inputs; `clearRate` is the probability of its clear (a synchronisation). */
  readonly stimulus: (rng: Rng, clearRate: number) => PortValues;
  /** The expected outputs of every port of every cycle. */
  readonly reference: (cycles: readonly Cycle[], mode: Mode) => PortValues[][];
  /** Values every port's output must take at least once (coverage of the stimulus). */
  readonly mustSee: Record<string, readonly bigint[]>;
  /**
   * With one port the lookup is registered (lookupsRegistered): input `next` names the address
   * looked up once the cycle commits, so the stimulus keeps `lookup` as the encoder does (the next
   * address after a committed cycle, else the same); `forward` is the RTL text that forwards the
   * cycle's own update into that register (removed, the comparison must fail).
   */
  readonly registered?: { readonly lookup?: string; readonly next?: string; readonly forward: string };
}

/** The model side of a structure, on the model class `S`. */
interface ModelRules<S> {
  fresh(): S;
  /** Outputs of a port in state `s`. */
  observe(s: S, port: PortValues): PortValues;
  /** A port's operations; `clearSwapped` is the mutation that moves its clear to the other side. */
  apply(s: S, port: PortValues, clearSwapped: boolean): void;
}

/** A copy of a model object (same class, its own fields; arrays and typed arrays copied by value). */
function cloneModel<T extends object>(x: T): T {
  const copy = Object.create(Object.getPrototypeOf(x) as object) as Record<string, unknown>;
  for (const [k, v] of Object.entries(x)) copy[k] = Array.isArray(v) ? [...(v as unknown[])] : v instanceof Uint8Array ? v.slice() : v;
  return copy as T;
}

/**
 * The cycle rule on top of the model: in a cycle, port k's outputs are taken in the state ports
 * 0..k-1 left, then port k's operations apply; the state after the last port is kept only with
 * commit_i. A reset (before the cycle) starts from a fresh model.
 */
function runReference<S extends object>(rules: ModelRules<S>, P: number, cycles: readonly Cycle[], mode: Mode): PortValues[][] {
  let state = rules.fresh();
  const order = Array.from({ length: P }, (_v, k) => (mode === 'reversed' ? P - 1 - k : k));
  return cycles.map((cycle) => {
    if (cycle.rst) state = rules.fresh();
    const work = cloneModel(state);
    const start = mode === 'no-forwarding' ? cloneModel(state) : work;
    const outs = new Array<PortValues>(P);
    for (const k of order) {
      outs[k] = rules.observe(start, cycle.ports[k]!);
      rules.apply(work, cycle.ports[k]!, mode === 'clear-swapped');
    }
    if (cycle.commit || mode === 'ignore-commit') state = work;
    return outs;
  });
}

const bit = (b: boolean): bigint => (b ? 1n : 0n);

function bpredStructure(label: string, c: EtraceConfig): Structure {
  const p = c.params;
  const P = stepsPerCycle(c);
  const rules: ModelRules<BranchPredictor> = {
    fresh: () => new BranchPredictor(p.bpred_size_p, p.iaddress_lsb_p),
    observe: (s, port) => ({ taken: bit(s.predict(port.addr!)) }),
    apply: (s, port, swapped) => {
      if (swapped && port.clear) s.reset();
      if (port.update) s.update(port.addr!, port.outcome === 1n);
      if (!swapped && port.clear) s.reset();
    },
  };
  const pool = addressPool(new Rng(SEED ^ 0xb9ed), p.iaddress_width_p, p.iaddress_lsb_p, p.bpred_size_p);
  const ctx = bpredContext(c, BANNER);
  return {
    label,
    module: 'etrace_bpred',
    ports: P,
    sv: renderEtrace('etrace_bpred', ctx),
    ...(ctx.registered ? { registered: { lookup: 'addr', next: 'next_addr', forward: '(update0_i && next_index == index0) ? written0 : ' } } : {}),
    inputs: [
      ...(ctx.registered ? [{ base: 'next_addr', width: p.iaddress_width_p }] : []),
      { base: 'addr', width: p.iaddress_width_p },
      { base: 'update', width: 1 },
      { base: 'outcome', width: 1 },
      { base: 'clear', width: 1 },
    ],
    outputs: [{ base: 'taken', width: 1 }],
    stimulus: (rng, clearRate) => ({ next_addr: rng.pick(pool), addr: rng.pick(pool), update: bit(rng.chance(0.6)), outcome: bit(rng.chance(0.5)), clear: bit(rng.chance(clearRate)) }),
    reference: (cycles, mode) => runReference(rules, P, cycles, mode),
    mustSee: { taken: [0n, 1n] },
  };
}

function jtcStructure(label: string, c: EtraceConfig): Structure {
  const p = c.params;
  const P = stepsPerCycle(c);
  const rules: ModelRules<JumpTargetCache> = {
    fresh: () => new JumpTargetCache(p.cache_size_p, p.iaddress_lsb_p),
    observe: (s, port) => {
      const index = s.index(port.target!);
      return { hit: bit(s.at(index) === port.target), index: BigInt(index) };
    },
    apply: (s, port, swapped) => {
      if (swapped) {
        // The mutation: the clear first, then the replacement still applies.
        if (port.clear) s.reset();
        if (port.update) s.insert(port.target!);
      } else if (port.clear) {
        s.reset();
      } else if (port.update) {
        s.insert(port.target!);
      }
    },
  };
  const pool = addressPool(new Rng(SEED ^ 0x7c), p.iaddress_width_p, p.iaddress_lsb_p, p.cache_size_p);
  const ctx = jtcContext(c, BANNER);
  return {
    label,
    module: 'etrace_jtc',
    ports: P,
    sv: renderEtrace('etrace_jtc', ctx),
    ...(ctx.registered ? { registered: { lookup: 'target', next: 'next_target', forward: '(update0_i && next_index == index0) ? (next_target0_i == target0_i) :' } } : {}),
    inputs: [
      ...(ctx.registered ? [{ base: 'next_target', width: p.iaddress_width_p }] : []),
      { base: 'target', width: p.iaddress_width_p },
      { base: 'update', width: 1 },
      { base: 'clear', width: 1 },
    ],
    outputs: [
      { base: 'hit', width: 1 },
      { base: 'index', width: p.cache_size_p },
    ],
    stimulus: (rng, clearRate) => ({ next_target: rng.pick(pool), target: rng.pick(pool), update: bit(rng.chance(0.5)), clear: bit(rng.chance(clearRate)) }),
    reference: (cycles, mode) => runReference(rules, P, cycles, mode),
    mustSee: { hit: [0n, 1n] },
  };
}

function irstackStructure(label: string, c: EtraceConfig): Structure {
  const p = c.params;
  const P = stepsPerCycle(c);
  const stack = p.return_stack_size_p > 0;
  const dw = Math.max(1, returnDepthWidth(p));
  const depthMask = (1n << BigInt(dw)) - 1n;
  const rules: ModelRules<ReturnPredictor> = {
    fresh: () => (stack ? new ReturnPredictor('stack', p.return_stack_size_p) : new ReturnPredictor('counter', p.call_counter_size_p)),
    // depth_o holds what fits its width (every depth fits: the stack's 2^n in n+1 bits).
    observe: (s, port) => ({ depth: BigInt(s.depth) & depthMask, predicts: bit(s.predicts(port.target!)) }),
    apply: (s, port, swapped) => {
      if (!swapped && port.clear) s.reset();
      if (port.push) s.push(port.push_addr!);
      else if (port.pop) s.pop();
      if (swapped && port.clear) s.reset();
    },
  };
  // Three addresses a bit or two apart: a predicted return needs the top to equal the target exactly.
  const pool = addressPool(new Rng(SEED ^ 0x12), p.iaddress_width_p, p.iaddress_lsb_p, 2).slice(0, 3);
  const full = stack ? 1n << BigInt(p.return_stack_size_p) : (1n << BigInt(p.call_counter_size_p)) - 1n;
  const ctx = irstackContext(c, BANNER);
  return {
    label,
    module: 'etrace_irstack',
    ports: P,
    sv: renderEtrace('etrace_irstack', ctx),
    ...(ctx.registered ? { registered: { forward: 'push0_i ? push_addr0_i :' } } : {}),
    inputs: [
      { base: 'target', width: p.iaddress_width_p },
      { base: 'clear', width: 1 },
      { base: 'push', width: 1 },
      { base: 'push_addr', width: p.iaddress_width_p },
      { base: 'pop', width: 1 },
    ],
    outputs: [
      { base: 'depth', width: dw },
      { base: 'predicts', width: 1 },
    ],
    stimulus: (rng, clearRate) => ({
      target: rng.pick(pool),
      clear: bit(rng.chance(clearRate)),
      push: bit(rng.chance(0.4)),
      push_addr: rng.pick(pool),
      pop: bit(rng.chance(0.4)),
    }),
    reference: (cycles, mode) => runReference(rules, P, cycles, mode),
    // Empty and full (a call on a full stack drops the oldest entry; the counter saturates).
    mustSee: { predicts: [0n, 1n], depth: [0n, full] },
  };
}

// ---------------------------------------------------------------------------------------------
// Simulation


const portName = (s: Signal, k: number, dir: 'i' | 'o') => `${s.base}${k}_${dir}`;

/**
 * The testbench: a reset pulse, then per line of stim.txt (rst, commit_i, then each port's inputs
 * in hex): a reset pulse when rst is 1, the inputs, 1 ns later every output printed on one line
 * ("out ..."), then a clock edge.
 */
function testbench(s: Structure): string {
  const ins = Array.from({ length: s.ports }, (_v, k) => s.inputs.map((sig) => ({ name: portName(sig, k, 'i'), width: sig.width }))).flat();
  const outs = Array.from({ length: s.ports }, (_v, k) => s.outputs.map((sig) => ({ name: portName(sig, k, 'o'), width: sig.width }))).flat();
  const read = ['rst', 'commit_i', ...ins.map((x) => x.name)];
  const conns = ['clk_i', 'rst_ni', 'commit_i', ...ins.map((x) => x.name), ...outs.map((x) => x.name)];
  return [
    '`timescale 1ns/1ps',
    'module tb;',
    '  logic clk_i, rst_ni, rst, commit_i;',
    ...ins.map((x) => `  logic [${x.width - 1}:0] ${x.name};`),
    ...outs.map((x) => `  wire [${x.width - 1}:0] ${x.name};`),
    '  integer fd;',
    `  ${s.module} dut (${conns.map((n) => `.${n}(${n})`).join(', ')});`,
    '  initial begin',
    "    clk_i = 1'b0;",
    "    rst_ni = 1'b1;",
    "    commit_i = 1'b0;",
    ...ins.map((x) => `    ${x.name} = '0;`),
    '    fd = $fopen("stim.txt", "r");',
    '    if (fd == 0) $fatal(1, "cannot open stim.txt");',
    "    #1 rst_ni = 1'b0;",
    "    #1 rst_ni = 1'b1;",
    `    while ($fscanf(fd, "${read.map(() => '%h').join(' ')}\\n", ${read.join(', ')}) == ${read.length}) begin`,
    '      if (rst) begin',
    "        rst_ni = 1'b0;",
    "        #1 rst_ni = 1'b1;",
    '      end',
    `      #1 $display("out ${outs.map(() => '%h').join(' ')}", ${outs.map((x) => x.name).join(', ')});`,
    "      #1 clk_i = 1'b1;",
    "      #1 clk_i = 1'b0;",
    '    end',
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
}

/**
 * Random cycles: commit_i 90 % of the time, each port's inputs, a reset now and then. Phases of
 * PHASE cycles alternate: clears at 3 % a port and resets at 0.5 % a cycle, then calm (0.2 % and
 * 0.05 %) so that a deep stack fills up between synchronisations.
 */
const PHASE = 250;
function stimulus(s: Structure, seed: number): Cycle[] {
  const rng = new Rng(seed);
  const cycles = Array.from({ length: CYCLES }, (_v, i) => {
    const calm = Math.floor(i / PHASE) % 2 === 1;
    return {
      rst: rng.chance(calm ? 0.0005 : 0.005),
      commit: rng.chance(0.9),
      ports: Array.from({ length: s.ports }, () => s.stimulus(rng, calm ? 0.002 : 0.03)),
    };
  });
  // A registered lookup: the address a cycle looks up is the one the cycle before named if it
  // committed, else the same (after a reset any address: every entry is in its reset state).
  const { lookup, next } = s.registered ?? {};
  if (lookup !== undefined && next !== undefined) {
    for (let t = 1; t < cycles.length; t++) {
      const before = cycles[t - 1]!;
      if (!cycles[t]!.rst) cycles[t]!.ports[0]![lookup] = before.commit ? before.ports[0]![next]! : before.ports[0]![lookup]!;
    }
  }
  return cycles;
}

interface Simulation {
  readonly cycles: Cycle[];
  /** The RTL's outputs per cycle and port, by base name; undefined where the value was x or z. */
  readonly actual: Record<string, bigint | undefined>[][];
  readonly compileNotes: string[];
}

const simulations = new Map<string, Simulation>();

/** Renders, compiles and simulates a structure once (memoised: the tests share the run). */
function simulate(s: Structure, seed: number): Simulation {
  const known = simulations.get(s.label);
  if (known) return known;
  const d = join(dir, s.label.replace(/\W+/g, '-'));
  mkdirSync(d, { recursive: true });
  const cycles = stimulus(s, seed);
  writeFileSync(join(d, `${s.module}.sv`), s.sv);
  writeFileSync(join(d, 'tb.sv'), testbench(s));
  const lines = cycles.map((cy) => [bit(cy.rst), bit(cy.commit), ...cy.ports.flatMap((pv) => s.inputs.map((sig) => pv[sig.base]!))].map((v) => v.toString(16)).join(' '));
  writeFileSync(join(d, 'stim.txt'), `${lines.join('\n')}\n`);
  const compile = run('iverilog', ['-g2012', '-o', 'tb.vvp', '-s', 'tb', 'tb.sv', `${s.module}.sv`], d);
  if (compile.status !== 0) throw new Error(`iverilog failed for ${s.label}:\n${compile.out}`);
  const sim = run('vvp', ['-n', 'tb.vvp'], d, 60_000);
  if (sim.status !== 0) throw new Error(`vvp failed for ${s.label}:\n${sim.out.slice(-2000)}`);
  const outLines = sim.out.split('\n').filter((l) => l.startsWith('out '));
  if (outLines.length !== cycles.length) throw new Error(`${s.label}: ${outLines.length} output lines for ${cycles.length} cycles:\n${sim.out.slice(-2000)}`);
  const actual = outLines.map((line) => {
    const tokens = line.slice(4).trim().split(/\s+/);
    return Array.from({ length: s.ports }, (_v, k) => {
      const port: Record<string, bigint | undefined> = {};
      s.outputs.forEach((sig, j) => {
        const t = tokens[k * s.outputs.length + j]!;
        port[sig.base] = /^[0-9a-f]+$/i.test(t) ? BigInt(`0x${t}`) : undefined;
      });
      return port;
    });
  });
  const compileNotes = icarusProblems(compile.out);
  const result = { cycles, actual, compileNotes };
  simulations.set(s.label, result);
  return result;
}

const hex = (v: bigint | undefined) => (v === undefined ? 'x' : `0x${v.toString(16)}`);

/** Every (cycle, port, output) where the RTL differs from `expected`. */
function mismatches(s: Structure, sim: Simulation, expected: PortValues[][]): { cycle: number; port: number; output: string }[] {
  const found: { cycle: number; port: number; output: string }[] = [];
  sim.actual.forEach((ports, cycle) =>
    ports.forEach((actual, port) => {
      for (const sig of s.outputs) if (actual[sig.base] !== expected[cycle]![port]![sig.base]) found.push({ cycle, port, output: sig.base });
    }),
  );
  return found;
}

/** A mismatch with the whole cycle: its reset and commit, each port's inputs, expected and actual outputs. */
function describeMismatch(s: Structure, sim: Simulation, expected: PortValues[][], m: { cycle: number; port: number; output: string }): string {
  const cy = sim.cycles[m.cycle]!;
  const lines = [`${s.label}: cycle ${m.cycle}, port ${m.port}, ${m.output}${m.port}_o: RTL ${hex(sim.actual[m.cycle]![m.port]![m.output])}, reference ${hex(expected[m.cycle]![m.port]![m.output])}`];
  lines.push(`  rst=${bit(cy.rst)} commit_i=${bit(cy.commit)}`);
  cy.ports.forEach((pv, k) => {
    const ins = s.inputs.map((sig) => `${sig.base}=${hex(pv[sig.base])}`).join(' ');
    const outs = s.outputs.map((sig) => `${sig.base}: RTL ${hex(sim.actual[m.cycle]![k]![sig.base])} ref ${hex(expected[m.cycle]![k]![sig.base])}`).join(', ');
    lines.push(`  port ${k}: ${ins} -> ${outs}`);
  });
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Configurations

const FULL = 'etrace-rv64-full';
/**
 * Four ports (two blocks of up to four instructions, two views each), tables of four entries, a stack of four.
 * etrace-rv64-full has data trace: with several groups a cycle it needs a dblock naming each.
 */
const FOUR_PORTS = ['taken_branches_p=2', 'dblock_width_p=1', 'retires_p=4', 'iretire_width_p=4', 'bpred_size_p=2', 'cache_size_p=2', 'return_stack_size_p=2'];
/** The same with a call counter (saturating at 3) instead of the stack. */
const FOUR_PORTS_COUNTER = ['taken_branches_p=2', 'dblock_width_p=1', 'retires_p=4', 'iretire_width_p=4', 'bpred_size_p=2', 'cache_size_p=2', 'return_stack_size_p=0', 'call_counter_size_p=2'];
/** Six ports on tables of two entries and a stack of two. */
const SIX_PORTS = ['taken_branches_p=3', 'dblock_width_p=2', 'retires_p=2', 'iretire_width_p=3', 'bpred_size_p=1', 'cache_size_p=1', 'return_stack_size_p=1'];
/** Three ports, index bits from bit 2 (iaddress_lsb_p 2), a call counter saturating at 7. */
const THREE_PORTS_LSB2 = ['iaddress_lsb_p=2', 'taken_branches_p=3', 'dblock_width_p=2', 'bpred_size_p=3', 'cache_size_p=1', 'return_stack_size_p=0', 'call_counter_size_p=3'];

const configLabel = (sets: string[]) => [FULL, ...sets].join(' ');
const STRUCTURES: Structure[] = [
  ...[FOUR_PORTS, SIX_PORTS, THREE_PORTS_LSB2].flatMap((sets) => {
    const c = caseConfig(FULL, sets);
    return [bpredStructure(`etrace_bpred ${configLabel(sets)}`, c), jtcStructure(`etrace_jtc ${configLabel(sets)}`, c), irstackStructure(`etrace_irstack ${configLabel(sets)}`, c)];
  }),
  irstackStructure(`etrace_irstack ${configLabel(FOUR_PORTS_COUNTER)}`, caseConfig(FULL, FOUR_PORTS_COUNTER)),
  // The shipped component as it is: one port (no forwarding logic), bpred 64, cache 16, stack 16.
  ...(() => {
    const c = caseConfig(FULL, []);
    return [bpredStructure(`etrace_bpred ${FULL}`, c), jtcStructure(`etrace_jtc ${FULL}`, c), irstackStructure(`etrace_irstack ${FULL}`, c)];
  })(),
];
const seedOf = (i: number) => (SEED + i * 0x9e37_79b9) >>> 0;

describe('E-Trace prediction structures: RTL = the golden model applied port by port', () => {
  it('the configurations have the ports and kinds the cases claim', () => {
    expect(STRUCTURES.map((s) => `${s.module}:${s.ports}`)).toEqual([
      'etrace_bpred:4', 'etrace_jtc:4', 'etrace_irstack:4',
      'etrace_bpred:6', 'etrace_jtc:6', 'etrace_irstack:6',
      'etrace_bpred:3', 'etrace_jtc:3', 'etrace_irstack:3',
      'etrace_irstack:4',
      'etrace_bpred:1', 'etrace_jtc:1', 'etrace_irstack:1',
    ]);
    expect(STRUCTURES.filter((s) => s.module === 'etrace_irstack').map((s) => s.sv.includes('count_q'))).toEqual([false, false, true, true, false]);
  });

  it.each(STRUCTURES.map((s, i) => [s.label, s, i] as const))('%s: every output of every port in every cycle equals the reference', (_l, s, i) => {
    const sim = simulate(s, seedOf(i));
    expect(sim.compileNotes).toEqual([]);
    const expected = s.reference(sim.cycles, 'sequential');
    const found = mismatches(s, sim, expected);
    const report = found.slice(0, 3).map((m) => describeMismatch(s, sim, expected, m));
    expect(report, `${found.length} mismatching outputs; the first ones:\n${report.join('\n\n')}`).toEqual([]);
    // The stimulus covered what matters: cycles without commit, resets, each output's extremes on every port.
    expect(sim.cycles.filter((cy) => !cy.commit).length).toBeGreaterThan(CYCLES / 20);
    expect(sim.cycles.filter((cy) => cy.rst).length).toBeGreaterThan(0);
    for (let k = 0; k < s.ports; k++) {
      for (const [output, values] of Object.entries(s.mustSee)) {
        const seen = new Set(sim.actual.map((ports) => ports[k]![output]));
        for (const v of values) expect(seen.has(v), `${s.label}: ${output}${k}_o never ${v}`).toBe(true);
      }
    }
  });

  it.each(STRUCTURES.map((s, i) => [s.label, s, i] as const))('%s: the comparison fails against mutated references', (_l, s, i) => {
    const sim = simulate(s, seedOf(i));
    // With one port, forwarding and port order do not exist: only the other mutations apply.
    const modes = MUTATIONS.filter((m) => s.ports > 1 || (m !== 'no-forwarding' && m !== 'reversed'));
    const counts = Object.fromEntries(modes.map((mode) => [mode, mismatches(s, sim, s.reference(sim.cycles, mode)).length]));
    for (const mode of modes) expect(counts[mode], `${s.label}: the RTL agrees with the '${mode}' reference`).toBeGreaterThan(0);
    expect(mismatches(s, sim, s.reference(sim.cycles, 'sequential'))).toEqual([]);
  });

  // The shipped component's structures register curr's lookup (one port): without the forward of
  // the cycle's own update into that register, the RTL must disagree with the reference.
  const registered = STRUCTURES.map((s, i) => [s.label, s, i] as const).filter(([, s]) => s.registered !== undefined);
  it('the one-port structures register their lookups', () => {
    expect(registered.map(([, s]) => s.module)).toEqual(['etrace_bpred', 'etrace_jtc', 'etrace_irstack']);
  });
  it.each(registered)('%s: without the forward of its own update into the registered lookup, the comparison fails', (_l, s, i) => {
    const sv = s.sv.replace(s.registered!.forward, '');
    expect(sv).not.toBe(s.sv);
    const sim = simulate({ ...s, label: `${s.label} without its forward`, sv }, seedOf(i));
    expect(mismatches(s, sim, s.reference(sim.cycles, 'sequential')).length).toBeGreaterThan(0);
  });
});
