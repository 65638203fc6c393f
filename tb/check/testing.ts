/**
 * Waveforms for the tests of `rvtrace check`, written by our own simulations of the generated RTL
 * the way a user's SoC simulation would write them: the testbench of `rvtrace vectors` drives the
 * top through a small SoC (`soc_top`) that nests it in `u_trace_wrap`, a wrapper whose ports are
 * renamed (`clk_i` -> `clock`, `itype_i` -> `hart_itype`, `tx_data_o` -> `trace_tx_data`), and dumps
 * everything into `wave.vcd` ($dumpfile/$dumpvars). The map of such a waveform is therefore not the
 * identity: `tb_<name>.u_soc.u_trace_wrap.hart_itype` for `itype_i`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseSpec, ResolvedComponent } from '../../core/block.ts';
import type { VectorCase } from '../../core/vectors.ts';
import { writeDirectoryAtomic } from '../../generator/render.ts';
import { runIcarus, runVerilator, type SimRun } from '../vectors/sim.ts';
import { vectorFileNames, vectorFiles, vectorName } from '../vectors/write.ts';

export interface WaveDir {
  readonly dir: string;
  readonly module: string;
  readonly filelist: string;
  readonly top: string;
  readonly ports: readonly { readonly name: string; readonly direction: 'in' | 'out'; readonly width: number }[];
  readonly clock: string;
  readonly reset: string;
}

/** The wrapper's name for a port of the top. */
export function renamed(port: string, clock: string, reset: string): string {
  if (port === clock) return 'clock';
  if (port === reset) return 'reset_n';
  const base = port.replace(/_(i|o|ni|no)$/, '');
  if (/^p(sel|enable|write|addr|wdata|strb|rdata|ready|slverr)_/.test(port)) return `bus_${base}`;
  if (port.startsWith('tx_')) return `trace_${base}`;
  return `hart_${base}`;
}

/** The map of a waveform written through the wrapper: every port of the top, or those `only` keeps. */
export function wrapperMap(w: WaveDir, only?: (port: string) => boolean): string {
  const at = `${w.module}.u_soc.u_trace_wrap`;
  const ports: Record<string, string> = {};
  for (const p of w.ports) if (p.name !== w.clock && p.name !== w.reset && (only?.(p.name) ?? true)) ports[p.name] = `${at}.${renamed(p.name, w.clock, w.reset)}`;
  return `${JSON.stringify({ clock: `${at}.clock`, reset: { signal: `${at}.reset_n`, active: 0 }, ports }, null, 2)}\n`;
}

const range = (width: number): string => (width > 1 ? `[${width - 1}:0] ` : '');

/** The SoC wrapper's SystemVerilog: `soc_top` (the top's ports) around `soc_trace_wrap` (renamed ports) around the top. */
function wrapperSv(w: Omit<WaveDir, 'dir' | 'module' | 'filelist'>): string {
  const decl = (name: (p: WaveDir['ports'][number]) => string) => w.ports.map((p) => `  ${p.direction === 'in' ? 'input ' : 'output'} logic ${range(p.width)}${name(p)}`).join(',\n');
  const conn = (inner: (p: WaveDir['ports'][number]) => string, outer: (p: WaveDir['ports'][number]) => string) => w.ports.map((p) => `    .${inner(p)}(${outer(p)})`).join(',\n');
  const r = (p: WaveDir['ports'][number]): string => renamed(p.name, w.clock, w.reset);
  return [
    '// A trace block nested in an SoC with renamed ports, for the tests of rvtrace check.',
    'module soc_trace_wrap (',
    decl(r),
    ');',
    `  ${w.top} u_top (`,
    conn((p) => p.name, r),
    '  );',
    'endmodule',
    '',
    'module soc_top (',
    decl((p) => p.name),
    ');',
    '  soc_trace_wrap u_trace_wrap (',
    conn(r, (p) => p.name),
    '  );',
    'endmodule',
    '',
  ].join('\n');
}

/** Makes the vectors of a case in place of the block's own (`rvtrace vectors`): e.g. with register writes in the frames. */
export type VectorsOf = (r: ResolvedComponent, spec: CaseSpec) => VectorCase;

/**
 * Writes the vectors of a case into `dir` with the SoC wrapper: the testbench instantiates
 * `soc_top` instead of the top and dumps `wave.vcd`. The RTL is that of `r`; the vectors are the
 * block's (`rvtrace vectors`) or those `vectors` makes.
 */
export function writeWaveDir(dir: string, r: ResolvedComponent, seed: number, count: number, backpressure: number, vectors?: VectorsOf): WaveDir {
  const component = r.provenance.component;
  const sets = [...r.provenance.sets];
  const spec: CaseSpec = { component, sets, seed, count, backpressure: r.block.backpressure ? backpressure : 0 };
  const vc = (vectors ?? r.block.vectors!)(r, spec);
  const n = vectorFileNames(vectorName(component));
  writeDirectoryAtomic(dir, vectorFiles(r, spec, vc));
  const h = vc.harness;
  const w = { top: h.top, ports: h.ports, clock: h.clock, reset: h.reset };
  writeFileSync(join(dir, 'soc_top.sv'), wrapperSv(w));
  const tbFile = join(dir, n.tb);
  const tb = readFileSync(tbFile, 'utf8')
    .replace(`  ${h.top} u_dut (`, '  soc_top u_soc (')
    .replace(`module ${n.module};\n`, `module ${n.module};\n  initial begin\n    $dumpfile("wave.vcd");\n    $dumpvars(0, ${n.module});\n  end\n`);
  writeFileSync(tbFile, tb);
  const fl = join(dir, n.filelist);
  writeFileSync(fl, readFileSync(fl, 'utf8').replace(`${n.tb}\n`, `soc_top.sv\n${n.tb}\n`));
  return { dir, module: n.module, filelist: n.filelist, ...w };
}

/**
 * The top inside `dir` renamed `<top>_orig` and wrapped by a module of the top's name: `inner`
 * names the signal each port of the original connects to (the port itself, or a signal the
 * wrapper's `body` drives from it).
 */
function wrapTop(w: WaveDir, inner: (port: string) => string, body: readonly string[]): void {
  const file = join(w.dir, `${w.top}.sv`);
  const text = readFileSync(file, 'utf8');
  const decl = w.ports.map((p) => `  ${p.direction === 'in' ? 'input ' : 'output'} logic ${range(p.width)}${p.name}`).join(',\n');
  const wrapper = [`module ${w.top} (`, decl, ');', ...body, `  ${w.top}_orig u_orig (`, w.ports.map((p) => `    .${p.name}(${inner(p.name)})`).join(',\n'), '  );', 'endmodule', ''].join('\n');
  writeFileSync(file, `${text.replace(`module ${w.top} (`, `module ${w.top}_orig (`)}\n${wrapper}`);
}

/**
 * A mutation of the top inside `dir`: inverts bit 0 of the output `port` in the cycles where
 * `when` holds (a SystemVerilog expression over the top's ports and `moved_q`, the count of
 * `handshake`s so far).
 */
export function mutateTop(w: WaveDir, port: string, handshake: string, when: string): void {
  const width = w.ports.find((p) => p.name === port)!.width;
  wrapTop(w, (p) => (p === port ? `${port}_orig` : p), [
    `  logic ${range(width)}${port}_orig;`,
    '  logic [15:0] moved_q;',
    `  always_ff @(posedge ${w.clock} or negedge ${w.reset}) begin`,
    `    if (!${w.reset}) moved_q <= 16'd0;`,
    `    else if (${handshake}) moved_q <= moved_q + 16'd1;`,
    '  end',
    `  assign ${port} = (${when}) ? (${port}_orig ^ ${width}'d1) : ${port}_orig;`,
  ]);
}

/**
 * A wrapper's body that hides the first transfer of the output handshake `<out>_valid_o` /
 * `<out>_ready_i` from both sides (the original top's two ports connect to `<port>_orig`): every
 * byte is right and in order, and the first one, and those queued behind it, leave later than the
 * model sends them. Also used by the vectors' test on its own copy of the top.
 */
export function firstTransferHidden(out: string, clock: string, reset: string): { inner: (port: string) => string; body: string[] } {
  const valid = `${out}_valid_o`;
  const ready = `${out}_ready_i`;
  return {
    inner: (p) => (p === valid || p === ready ? `${p}_orig` : p),
    body: [
      `  logic ${valid}_orig, ${ready}_orig, first_q, hide;`,
      `  assign hide = first_q & ${valid}_orig & ${ready};`,
      `  assign ${valid} = ${valid}_orig & ~hide;`,
      `  assign ${ready}_orig = ${ready} & ~hide;`,
      `  always_ff @(posedge ${clock} or negedge ${reset}) begin`,
      `    if (!${reset}) first_q <= 1'b1;`,
      `    else if (hide) first_q <= 1'b0;`,
      '  end',
    ],
  };
}

/** The top of `w` with its first output transfer hidden (firstTransferHidden). */
export function delayFirstTransfer(w: WaveDir, out: string): void {
  const h = firstTransferHidden(out, w.clock, w.reset);
  wrapTop(w, h.inner, h.body);
}

/**
 * The testbench of `w` goes on to the end of its frames after its first mismatch (it stops there
 * otherwise), so the waveform shows what the top did after it.
 */
export function runOn(w: WaveDir): void {
  const file = join(w.dir, `${w.module}.sv`);
  const text = readFileSync(file, 'utf8');
  const loop = 'while (!failed && frame_idx < NumFrames) begin';
  if (!text.includes(loop)) throw new Error(`${file}: no frame loop to let run on`);
  writeFileSync(file, text.replace(loop, 'while (frame_idx < NumFrames) begin'));
}

/** Runs the testbench of `w` in Icarus or Verilator (with --trace); the VCD is `<dir>/wave.vcd`. */
export function simulate(w: WaveDir, sim: 'icarus' | 'verilator'): SimRun {
  return sim === 'icarus' ? runIcarus(w.dir, w.module, w.filelist, 120_000) : runVerilator(w.dir, w.module, w.filelist, 120_000, ['--trace']);
}

/** A simulated waveform through the wrapper: the VCD, its map (every port) and the testbench's verdict line. */
export interface Simulated {
  readonly w: WaveDir;
  readonly vcd: string;
  readonly map: string;
  readonly verdict: string;
}

/**
 * The vectors of a case (seed 5, `count` instructions) through the wrapper in `dir`, optionally
 * mutated, simulated; throws when the testbench printed no verdict.
 */
export function simulatedWaveform(
  dir: string,
  component: ResolvedComponent,
  backpressure: number,
  sim: 'icarus' | 'verilator',
  count: number,
  mutate?: (w: WaveDir) => void,
  vectors?: VectorsOf,
): Simulated {
  const w = writeWaveDir(dir, component, 5, count, backpressure, vectors);
  mutate?.(w);
  const r = simulate(w, sim);
  if (r.verdict === undefined) throw new Error(`${dir}: the testbench printed no verdict\n${r.output.slice(-3000)}`);
  const map = join(w.dir, 'map.json');
  writeFileSync(map, wrapperMap(w));
  return { w, vcd: join(w.dir, 'wave.vcd'), map, verdict: r.verdict };
}
