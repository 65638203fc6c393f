/**
 * The size of each encoder configuration of the efficiency benchmark, for the "gates vs bits"
 * table of the report (efficiency-report.ts): the Yosys cell count (generator/synthesis.ts: generic
 * `synth -top <top> -flatten`, the whole design) of
 * - E-Trace: the shipped RTL of rtl-out/etrace (no return stack, predictor or cache: the hardware of
 *   the baseline) and rtl-out/etrace-rv64-full (the bench's structures: the hardware of every mode);
 * - N-Trace: the RTL generator's output (generator/ntrace/rtl.ts) for each N-Trace mode at RV64,
 *   generated into a temporary directory. A mode the generator does not implement yet gets no number.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedComponent } from '../core/block.ts';
import { ntraceRtlFiles, renderNtraceRtl } from '../generator/ntrace/rtl.ts';
import { outputNames } from '../generator/output.ts';
import { ROOT } from '../generator/render.ts';
import { type DepthFigures, synthesize, synthesizeWithDepth } from '../generator/synthesis.ts';
import { NTRACE_EFFICIENCY_COMMON, NTRACE_EFFICIENCY_MODES, ntraceEfficiencySettings } from '../golden-model/ntrace/efficiency.ts';
import { NTRACE_TOP_MODULE } from '../golden-model/ntrace/ports.ts';
import { ntraceConfig } from '../golden-model/ntrace/settings.ts';

/** The shipped RTL of a component: rtl-out/<component> and its files in compilation order. */
function shippedRtl(r: ResolvedComponent): { dir: string; files: string[] } {
  const dir = join(ROOT, 'rtl-out', r.component);
  return { dir, files: readFileSync(join(dir, outputNames(r).filelist), 'utf8').split('\n').filter((l) => l.endsWith('.sv')) };
}

/** Cells and logic depth of the shipped RTL of a component (its block's top module). */
export function componentSynthesis(r: ResolvedComponent): DepthFigures {
  const { dir, files } = shippedRtl(r);
  return synthesizeWithDepth(dir, files, r.block.topModule);
}

/**
 * Cells and logic depth of a component's RTL with settings overridden (`sets`), generated into a
 * temporary directory: the bench's figures for configurations no component ships.
 */
export function configurationSynthesis(r: ResolvedComponent): DepthFigures {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-depth-'));
  try {
    const files = r.block.rtl(r);
    for (const f of files) writeFileSync(join(dir, f.name), f.content);
    return synthesizeWithDepth(dir, files.filter((f) => f.name.endsWith('.sv')).map((f) => f.name), r.block.topModule);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One encoder configuration of the gates-vs-bits table. */
export interface GateEntry {
  readonly encoder: 'E-Trace' | 'N-Trace';
  /** The hardware, for the reader. */
  readonly hardware: string;
  /** The measurements whose suite mean goes beside it: the report's series (efficiency-report.ts) and mode. */
  readonly series: string;
  readonly mode: string;
  /** Yosys cells, or null when not counted (`note` says why). */
  readonly cells: number | null;
  readonly note: string;
}

/** The E-Trace components of the table: the shipped RTL and the measurements it runs. */
const ETRACE_GATES = [
  { component: 'etrace', mode: 'baseline', hardware: 'rtl-out/etrace (RV64, layout 1.1.1, no return stack, predictor or cache)' },
  { component: 'etrace-rv64-full', mode: 'all', hardware: 'rtl-out/etrace-rv64-full (RV64, layout 1.1.1, the bench\'s return stack, predictor and cache; also its data trace path, which instruction trace bits do not use)' },
] as const;

export interface GateOptions {
  /** Count the cells (Yosys); false: the table lists the configurations without numbers (`--no-synth`). */
  synth: boolean;
  /** Cells already counted in this run, by component name (bench's RTL-cells rows): not counted again. */
  known?: ReadonlyMap<string, number>;
  /** Resolves a shipped E-Trace component (bench passes blocks/index.ts resolveComponent). */
  resolve: (component: string) => ResolvedComponent;
  log?: (line: string) => void;
  /** The N-Trace modes to synthesise (default: every one); the others are listed as not counted. */
  ntraceModes?: readonly string[];
}

/** Cell counts of every encoder configuration of the efficiency report. */
export function efficiencyGates(opts: GateOptions): GateEntry[] {
  const out: GateEntry[] = [];
  const top = (r: ResolvedComponent) => r.block.topModule;
  for (const e of ETRACE_GATES) {
    const base = { encoder: 'E-Trace', hardware: e.hardware, series: 'E-Trace 1.1.1', mode: e.mode } as const;
    if (!opts.synth) {
      out.push({ ...base, cells: null, note: 'not counted (--no-synth)' });
      continue;
    }
    const r = opts.resolve(e.component);
    const known = opts.known?.get(e.component);
    if (known !== undefined) {
      out.push({ ...base, cells: known, note: `Yosys synth -top ${top(r)}` });
      continue;
    }
    opts.log?.(`Yosys synthesis: ${e.component}`);
    const rtl = shippedRtl(r);
    out.push({ ...base, cells: synthesize(rtl.dir, rtl.files, top(r)).cells, note: `Yosys synth -top ${top(r)}` });
  }
  for (const mode of NTRACE_EFFICIENCY_MODES) {
    const settings = ntraceEfficiencySettings(64, mode);
    const c = ntraceConfig(settings);
    const sets = ['xlen=64', ...NTRACE_EFFICIENCY_COMMON, ...mode.sets];
    const hardware = `generated N-Trace RTL (${sets.join(', ')}, fifo_bytes=${String(settings['fifo_bytes'])})`;
    const base = { encoder: 'N-Trace', hardware, series: 'N-Trace', mode: mode.name } as const;
    if (!opts.synth || (opts.ntraceModes !== undefined && !opts.ntraceModes.includes(mode.name))) {
      out.push({ ...base, cells: null, note: 'not counted (--no-synth)' });
      continue;
    }
    opts.log?.(`Yosys synthesis: N-Trace ${mode.name}`);
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-gates-'));
    try {
      for (const f of renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'bench', sets })) writeFileSync(join(dir, f.name), f.content);
      out.push({ ...base, cells: synthesize(dir, ntraceRtlFiles(), NTRACE_TOP_MODULE).cells, note: `Yosys synth -top ${NTRACE_TOP_MODULE}` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
