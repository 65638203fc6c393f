/**
 * Size and logic depth of generated RTL, measured with Yosys 0.23 the way an integrator would
 * estimate the clock it closes at (issue 25): generic synthesis of the flattened design, then ABC
 * maps it to two-input gates (AND, NAND, OR, NOR, XOR, XNOR, MUX) and `ltp -noff` reports the longest
 * topological path between flops (or ports). Depth is that path's number of gates; about 48 of them
 * fit a 1 GHz cycle in a 28 nm-class process.
 *
 * One Yosys run gives both figures: the cell count is `stat` after `synth -flatten` (generic cells,
 * flops included), before the two-input mapping, which only serves the depth.
 *
 * `-noshare` leaves out the SAT-based resource sharing: on the flattened etrace-data it held 16 GB
 * after 18 minutes without finishing, while on etrace it changes neither figure (22,717 cells, depth
 * 233, both ways; 2026-11-26) and only costs time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { RvError } from '../golden-model/common/errors.ts';

/** What one synthesis run measured. */
export interface SynthesisFigures {
  /** Yosys cells of the flattened generic netlist. */
  readonly cells: number;
  readonly seconds: number;
}

/** ... and the longest path, when asked for. */
export interface DepthFigures extends SynthesisFigures {
  /** Two-input gates on the longest flop-to-flop (or port) path. */
  readonly depth: number;
  /** Where that path starts and ends: a flop or port, as `module (hierarchical.signal)`. */
  readonly from: string;
  readonly to: string;
}

/** The goal of issue 25: at most this many two-input gate levels between flops. */
export const DEPTH_GOAL = 48;

/** Synthesises `files` (relative to `dir`) with top module `top` and counts its cells. */
export function synthesize(dir: string, files: readonly string[], top: string): SynthesisFigures {
  return run(dir, files, top, false);
}

/** The same, and the logic depth (the two-input mapping and `ltp` take about as long again). */
export function synthesizeWithDepth(dir: string, files: readonly string[], top: string): DepthFigures {
  return run(dir, files, top, true) as DepthFigures;
}

function run(dir: string, files: readonly string[], top: string, depth: boolean): SynthesisFigures | DepthFigures {
  const started = performance.now();
  const out = mkdtempSync(join(tmpdir(), 'rvtrace-synth-'));
  try {
    const stat = join(out, 'stat.txt');
    const ltp = join(out, 'ltp.txt');
    const script = [
      `read_verilog -sv ${files.join(' ')}`,
      `synth -top ${top} -flatten -noshare`,
      `tee -q -o ${stat} stat`,
      ...(depth ? ['abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX', `tee -q -o ${ltp} ltp -noff`] : []),
    ].join('; ');
    const y = spawnSync('yosys', ['-q', '-p', script], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (y.error && (y.error as NodeJS.ErrnoException).code === 'ENOENT') throw new RvError('tool-failure', 'yosys is not installed (scripts/setup.sh installs it)');
    if (y.status !== 0) throw new RvError('tool-failure', `yosys failed on ${dir}: ${(y.stderr || y.stdout || '').trim().split('\n').slice(-3).join(' ')}`);
    const cells = /Number of cells:\s+(\d+)/.exec(readFileSync(stat, 'utf8'));
    if (!cells) throw new RvError('tool-failure', `yosys on ${dir}: no cell count in its output`);
    const seconds = () => (performance.now() - started) / 1000;
    if (!depth) return { cells: Number(cells[1]), seconds: seconds() };
    const path = parseLongestPath(readFileSync(ltp, 'utf8'));
    if (!path) throw new RvError('tool-failure', `yosys on ${dir}: no longest path in the output of ltp`);
    const modules = instanceModules(dir, files, top);
    return {
      cells: Number(cells[1]),
      depth: path.length,
      from: placeOf(path.from, modules, top),
      to: placeOf(path.to, modules, top),
      seconds: seconds(),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The longest path `ltp` printed: its length and the signals at its ends, without the bit index. */
export function parseLongestPath(text: string): { length: number; from: string; to: string } | undefined {
  const head = /Longest topological path in \S+ \(length=(\d+)\):/.exec(text);
  if (!head) return undefined;
  // Lines "    0: \sig [bit]" ... "   17: $abc$...", then "   ff: \flop [bit] (via ...)" when it ends at a flop.
  const steps = [...text.slice(head.index).matchAll(/^\s+(\d+|ff): (\S+)/gm)].map((m) => m[2]!);
  if (steps.length === 0) return undefined;
  const signal = (name: string) => name.replace(/^\\/, '').replace(/\[\d+\]$/, '');
  return { length: Number(head[1]), from: signal(steps[0]!), to: signal(steps[steps.length - 1]!) };
}

/** Module of every instance path of the design: 'u_encoder' -> 'etrace_encoder', read from the sources. */
function instanceModules(dir: string, files: readonly string[], top: string): Map<string, string> {
  // One module per file, named like the file (architecture.md); instances are named u_*.
  const children = new Map<string, [string, string][]>();
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const found: [string, string][] = [];
    for (const m of text.matchAll(/\b([a-z]\w*)\s*(?:#\s*\([\s\S]*?\)\s*)?\b(u_\w+)\s*\(/g)) found.push([m[2]!, m[1]!]);
    children.set(basename(f).replace(/\.s?v$/, ''), found);
  }
  const modules = new Map<string, string>([['', top]]);
  const walk = (prefix: string, module: string) => {
    for (const [instance, child] of children.get(module) ?? []) {
      if (!children.has(child)) continue;
      const path = prefix === '' ? instance : `${prefix}.${instance}`;
      modules.set(path, child);
      walk(path, child);
    }
  };
  walk('', top);
  return modules;
}

/**
 * `module (signal)` for a flattened signal name such as `u_encoder.c_addr_q`: the deepest instance
 * on its path (generate scopes like `gen_entry[3]` are not instances and are skipped over).
 */
function placeOf(signal: string, modules: ReadonlyMap<string, string>, top: string): string {
  if (signal.startsWith('$')) return `${top} (internal net ${signal})`;
  const instances = signal.split('.').slice(0, -1).filter((p) => p.startsWith('u_')).map((p) => p.replace(/\[\d+\]$/, ''));
  let module = top;
  for (let i = 1; i <= instances.length; i++) module = modules.get(instances.slice(0, i).join('.')) ?? module;
  return `${module} (${signal})`;
}
