/**
 * The trace-efficiency report of `rvtrace bench`: the measurements of every workload, arch, encoder
 * and mode (workloads/efficiency.ts) as Markdown, JSON and an SVG chart of bits per instruction by
 * workload and mode. A row names its encoder: E-Trace (with its payload layout: one *series* per
 * layout) or N-Trace (one series); E-Trace's modes are run-time options of one hardware
 * (EFFICIENCY_MODES), N-Trace's are hardware configurations (NTRACE_EFFICIENCY_MODES). With the
 * cell counts of the encoders (gates.ts), the report sets each encoder's size beside its bits per
 * instruction. Pure functions of the measurements: the same figures give the same bytes.
 */
import { EFFICIENCY_MODES, type EfficiencyFigures } from '../golden-model/etrace/efficiency.ts';
import { NTRACE_EFFICIENCY_MODES, type NtraceEfficiencyFigures } from '../golden-model/ntrace/efficiency.ts';
import type { GateEntry } from './gates.ts';

export interface EtraceRow extends EfficiencyFigures {
  encoder: 'E-Trace';
  workload: string;
  arch: string;
  layout: string;
  mode: string;
}

export interface NtraceRow extends NtraceEfficiencyFigures {
  encoder: 'N-Trace';
  workload: string;
  arch: string;
  mode: string;
}

export type EfficiencyRow = EtraceRow | NtraceRow;

export interface EfficiencyReport {
  /** What was measured, for the reader: tools, parameters, options. */
  readonly setup: readonly string[];
  readonly rows: readonly EfficiencyRow[];
  /** The encoders' sizes (gates.ts), when the run has them: the "gates vs bits" table. */
  readonly gates?: readonly GateEntry[];
}

/** The goal of issue 7 (E-Trace): all modes together, averaged over the suite. */
export const GOAL_BITS_PER_INSTRUCTION = 0.25;

const fmt = (x: number, digits = 3): string => x.toFixed(digits);
const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/** The series a row belongs to: `E-Trace <layout>` or `N-Trace`. */
export function seriesOf(r: EfficiencyRow): string {
  return r.encoder === 'E-Trace' ? `E-Trace ${r.layout}` : 'N-Trace';
}

/** The modes of a series, in the order of the tables. */
export function seriesModes(series: string): string[] {
  return (series === 'N-Trace' ? NTRACE_EFFICIENCY_MODES : EFFICIENCY_MODES).map((m) => m.name);
}

/** What a mean is taken of: the sent bytes, the payload bytes, or the unpadded payload bits (the last two E-Trace only). */
export type Measure = 'bitsPerInstruction' | 'payloadBitsPerInstruction' | 'compressedBitsPerInstruction';

function measureOf(r: EfficiencyRow, measure: Measure): number {
  if (r.encoder === 'E-Trace') return r[measure];
  return measure === 'bitsPerInstruction' ? r.bitsPerInstruction : NaN;
}

/** Mean over the workloads (each workload weighs the same) of bits per instruction; NaN when nothing was measured. */
export function suiteMean(rows: readonly EfficiencyRow[], arch: string, series: string, mode: string, measure: Measure = 'bitsPerInstruction'): number {
  const sel = rows.filter((r) => r.arch === arch && seriesOf(r) === series && r.mode === mode);
  if (sel.length === 0) return NaN;
  return sel.reduce((s, r) => s + measureOf(r, measure), 0) / sel.length;
}

function cellOf(rows: readonly EfficiencyRow[], workload: string, arch: string, series: string, mode: string): EfficiencyRow | undefined {
  return rows.find((r) => r.workload === workload && r.arch === arch && seriesOf(r) === series && r.mode === mode);
}

/** Workloads x columns (series and mode), bits per instruction on the sent bytes, and the suite mean. */
function table(report: EfficiencyReport, arch: string, columns: readonly (readonly [string, string])[], header: (series: string, mode: string) => string): string[] {
  const workloads = unique(report.rows.map((r) => r.workload));
  const lines = [`| workload | ${columns.map(([s, m]) => header(s, m)).join(' | ')} |`, `|---|${columns.map(() => '---:').join('|')}|`];
  for (const w of workloads) {
    lines.push(`| ${w} | ${columns.map(([s, m]) => {
      const c = cellOf(report.rows, w, arch, s, m);
      return c ? fmt(c.bitsPerInstruction) : '';
    }).join(' | ')} |`);
  }
  lines.push(`| **mean** | ${columns.map(([s, m]) => `**${fmt(suiteMean(report.rows, arch, s, m))}**`).join(' | ')} |`);
  return lines;
}

/** E-Trace baseline and all modes of each layout, next to every N-Trace mode. */
function comparisonColumns(report: EfficiencyReport): [string, string][] {
  return unique(report.rows.map(seriesOf)).flatMap((s) => (s === 'N-Trace' ? seriesModes(s) : ['baseline', 'all']).map((m) => [s, m] as [string, string]));
}

function gatesTable(report: EfficiencyReport, arches: readonly string[]): string[] {
  const gates = report.gates ?? [];
  const lines = [
    '## Gates vs bits',
    '',
    'The size of each encoder configuration (Yosys cells, generic `synth -top <top>`, the whole design) beside the suite mean of bits per instruction of the measurements it runs (on the sent bytes).',
    '',
    `| encoder | mode | hardware | cells | ${arches.map((a) => `${a} bits/instr`).join(' | ')} |`,
    `|---|---|---|---:|${arches.map(() => '---:').join('|')}|`,
  ];
  for (const g of gates) {
    const cells = g.cells === null ? g.note : `${g.cells}`;
    lines.push(`| ${g.encoder} | ${g.mode} | ${g.hardware} | ${cells} | ${arches.map((a) => fmt(suiteMean(report.rows, a, g.series, g.mode))).join(' | ')} |`);
  }
  return [...lines, ''];
}

export function efficiencyMarkdown(report: EfficiencyReport): string {
  const arches = unique(report.rows.map((r) => r.arch));
  const series = unique(report.rows.map(seriesOf));
  const columns = comparisonColumns(report);
  const out: string[] = ['# Trace efficiency', '', ...report.setup.map((s) => `- ${s}`), ''];
  out.push(
    `Bits per instruction on the bytes sent: E-Trace's encapsulated stream (headers included), N-Trace's MSEO stream (goal of E-Trace: at most ${GOAL_BITS_PER_INSTRUCTION} with all modes, mean over the suite).`,
    '',
  );
  for (const arch of arches) {
    out.push(`## ${arch}: E-Trace and N-Trace`, '', ...table(report, arch, columns, (s, m) => `${s} ${m}`), '');
  }
  if (report.gates !== undefined) out.push(...gatesTable(report, arches));
  for (const arch of arches) {
    for (const s of series.filter((x) => x !== 'N-Trace')) {
      const layout = s.slice('E-Trace '.length);
      const all = suiteMean(report.rows, arch, s, 'all');
      const payload = suiteMean(report.rows, arch, s, 'all', 'payloadBitsPerInstruction');
      const unpadded = suiteMean(report.rows, arch, s, 'all', 'compressedBitsPerInstruction');
      const verdict = (x: number) => (x <= GOAL_BITS_PER_INSTRUCTION ? 'met' : 'missed');
      out.push(
        `## E-Trace, ${arch}, payload layout ${layout}: all modes ${fmt(all)} bits/instr`,
        '',
        `Without headers ${fmt(payload)}, unpadded payload ${fmt(unpadded)} bits/instr. ` +
          `Goal ${GOAL_BITS_PER_INSTRUCTION}: ${verdict(all)} by the sent bytes, ${verdict(payload)} by the payload bytes (how the spec's reference flow counts), ${verdict(unpadded)} by the unpadded payload.`,
        '',
        ...table(report, arch, seriesModes(s).map((m) => [s, m] as const), (_s, m) => m),
        '',
      );
    }
  }
  const etrace = report.rows.filter((r): r is EtraceRow => r.encoder === 'E-Trace');
  const ntrace = report.rows.filter((r): r is NtraceRow => r.encoder === 'N-Trace');
  if (etrace.length > 0) {
    out.push('## Every measurement: E-Trace', '');
    out.push('bits/instr: the sent bytes; payload: without the encapsulation headers; the measure of the spec\'s reference flow (its encoder model\'s "payload bytes": sign-compressed, padded to whole bytes, no header); unpadded: the payloads\' sign-compressed bits before that padding.', '');
    out.push('| workload | arch | layout | mode | instructions | packets | bytes | payload bytes | payload bits | bits/instr | payload bits/instr | unpadded bits/instr |');
    out.push('|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of etrace) {
      out.push(
        `| ${r.workload} | ${r.arch} | ${r.layout} | ${r.mode} | ${r.instructions} | ${r.packets} | ${r.bytes} | ${r.payloadBytes} | ${r.payloadBits} | ${fmt(r.bitsPerInstruction)} | ${fmt(r.payloadBitsPerInstruction)} | ${fmt(r.compressedBitsPerInstruction)} |`,
      );
    }
    out.push('');
  }
  if (ntrace.length > 0) {
    out.push('## Every measurement: N-Trace', '');
    out.push('bytes: the MSEO stream (MDO << 2 | MSEO each, no idle bytes); messages: its MSEO 11 bytes.', '');
    out.push('| workload | arch | mode | instructions | messages | bytes | bits/instr |');
    out.push('|---|---|---|---:|---:|---:|---:|');
    for (const r of ntrace) out.push(`| ${r.workload} | ${r.arch} | ${r.mode} | ${r.instructions} | ${r.messages} | ${r.bytes} | ${fmt(r.bitsPerInstruction)} |`);
    out.push('');
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

export function efficiencyJson(report: EfficiencyReport): string {
  return `${JSON.stringify({ setup: report.setup, goalBitsPerInstruction: GOAL_BITS_PER_INSTRUCTION, rows: report.rows, gates: report.gates ?? null }, null, 2)}\n`;
}

/** Colours of the modes' bars (colour-blind-safe palettes): E-Trace's, then N-Trace's. */
const COLOURS = ['#4c4c4c', '#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00'];
const NTRACE_COLOURS = ['#882255', '#44aa99', '#ddcc77', '#332288'];
const coloursOf = (series: string): string[] => (series === 'N-Trace' ? NTRACE_COLOURS : COLOURS);

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Grouped bars: one panel per arch and series (E-Trace per payload layout, N-Trace), a group per
 * workload (and the suite mean), a bar per mode; one scale for every panel, so the encoders compare
 * by bar height; a dashed line at the goal on E-Trace's panels.
 */
export function efficiencySvg(report: EfficiencyReport): string {
  const arches = unique(report.rows.map((r) => r.arch));
  const series = unique(report.rows.map(seriesOf));
  const workloads = [...unique(report.rows.map((r) => r.workload)), 'mean'];
  const panels = arches.flatMap((a) => series.map((s) => [a, s] as const));
  const bar = 9;
  const maxModes = Math.max(...series.map((s) => seriesModes(s).length));
  const groupW = maxModes * bar + 14;
  const left = 50;
  const plotW = workloads.length * groupW;
  const plotH = 160;
  const panelH = plotH + 60;
  // A legend line per encoder (E-Trace's layouts share their modes); an entry as wide as its label (about 5.5 px a character).
  const legends = unique(series.map((s) => (s === 'N-Trace' ? 'N-Trace' : 'E-Trace')));
  const legendX = (modes: readonly string[]): number[] => modes.reduce<number[]>((xs, m, i) => [...xs, i === 0 ? left + 50 : xs[i - 1]! + 24 + Math.ceil(modes[i - 1]!.length * 5.5)], []);
  const legendEnd = Math.max(...legends.map((enc) => {
    const modes = seriesModes(enc);
    return legendX(modes)[modes.length - 1]! + 14 + Math.ceil(modes[modes.length - 1]!.length * 5.5);
  }));
  const width = Math.max(left + plotW + 20, legendEnd + 10);
  const top = 22 + legends.length * 16 + 8;
  const height = top + panels.length * panelH + 10;
  const value = (w: string, a: string, s: string, m: string): number =>
    w === 'mean' ? suiteMean(report.rows, a, s, m) : (cellOf(report.rows, w, a, s, m)?.bitsPerInstruction ?? 0);
  const max = Math.max(GOAL_BITS_PER_INSTRUCTION, ...panels.flatMap(([a, s]) => workloads.flatMap((w) => seriesModes(s).map((m) => value(w, a, s, m)))));
  const step = max <= 2 ? 0.25 : max <= 4 ? 0.5 : max <= 10 ? 1 : 5;
  const scaleMax = Math.ceil(max / step) * step;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="10">`,
    `<text x="${left}" y="14" font-size="13">Trace bits per instruction by workload, encoder and mode</text>`,
  ];
  legends.forEach((enc, row) => {
    const y = 22 + row * 16;
    out.push(`<text x="${left}" y="${y + 9}">${enc}:</text>`);
    const xs = legendX(seriesModes(enc));
    seriesModes(enc).forEach((m, i) => {
      const x = xs[i]!;
      out.push(`<rect x="${x}" y="${y}" width="10" height="10" fill="${coloursOf(enc)[i % coloursOf(enc).length]}"/><text x="${x + 14}" y="${y + 9}">${esc(m)}</text>`);
    });
  });
  panels.forEach(([a, s], p) => {
    const modes = seriesModes(s);
    const colours = coloursOf(s);
    const y0 = top + p * panelH + 20;
    const yOf = (v: number) => y0 + plotH - (v / scaleMax) * plotH;
    out.push(`<text x="${left}" y="${y0 - 6}" font-size="11">${esc(s === 'N-Trace' ? `${a}, N-Trace (MSEO bytes)` : `${a}, ${s.replace('E-Trace ', 'E-Trace, layout ')}`)}</text>`);
    for (let t = 0; t <= scaleMax + 1e-9; t += step) {
      const y = yOf(t).toFixed(1);
      out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#ddd"/><text x="${left - 4}" y="${y}" text-anchor="end" dy="3">${t.toFixed(2)}</text>`);
    }
    if (s !== 'N-Trace') {
      const goalY = yOf(GOAL_BITS_PER_INSTRUCTION).toFixed(1);
      out.push(`<line x1="${left}" y1="${goalY}" x2="${left + plotW}" y2="${goalY}" stroke="#d00" stroke-dasharray="4 3"/>`);
    }
    workloads.forEach((w, g) => {
      const gx = left + g * groupW + 7;
      modes.forEach((m, i) => {
        const v = value(w, a, s, m);
        const y = yOf(v);
        out.push(`<rect x="${gx + i * bar}" y="${y.toFixed(1)}" width="${bar - 1}" height="${(y0 + plotH - y).toFixed(1)}" fill="${colours[i % colours.length]}"><title>${esc(`${w} ${a} ${s} ${m}: ${fmt(v)}`)}</title></rect>`);
      });
      out.push(`<text x="${gx + (modes.length * bar) / 2}" y="${y0 + plotH + 14}" text-anchor="middle">${esc(w)}</text>`);
    });
    out.push(`<line x1="${left}" y1="${y0 + plotH}" x2="${left + plotW}" y2="${y0 + plotH}" stroke="#000"/>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
