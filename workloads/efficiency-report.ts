/**
 * The trace-efficiency report of `rvtrace bench`: the measurements of every workload, arch,
 * payload layout and mode (workloads/efficiency.ts) as Markdown, JSON and an SVG chart of bits per
 * instruction by workload and mode. Pure functions of the measurements: the same figures give the
 * same bytes.
 */
import { EFFICIENCY_MODES, type EfficiencyFigures } from '../golden-model/etrace/efficiency.ts';

export interface EfficiencyRow extends EfficiencyFigures {
  workload: string;
  arch: string;
  layout: string;
  mode: string;
}

export interface EfficiencyReport {
  /** What was measured, for the reader: tools, parameters, options. */
  readonly setup: readonly string[];
  readonly rows: readonly EfficiencyRow[];
}

/** The goal of issue 7: all modes together, averaged over the suite. */
export const GOAL_BITS_PER_INSTRUCTION = 0.25;

const fmt = (x: number, digits = 3): string => x.toFixed(digits);
const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

/** What a mean is taken of: the sent bytes, the payload bytes, or the unpadded payload bits. */
export type Measure = 'bitsPerInstruction' | 'payloadBitsPerInstruction' | 'compressedBitsPerInstruction';

/** Mean over the workloads (each workload weighs the same) of bits per instruction. */
export function suiteMean(rows: readonly EfficiencyRow[], arch: string, layout: string, mode: string, measure: Measure = 'bitsPerInstruction'): number {
  const sel = rows.filter((r) => r.arch === arch && r.layout === layout && r.mode === mode);
  if (sel.length === 0) return NaN;
  return sel.reduce((s, r) => s + r[measure], 0) / sel.length;
}

/** Workloads x modes, bits per instruction with headers, and the suite mean, for one arch and layout. */
function summaryTable(report: EfficiencyReport, arch: string, layout: string): string[] {
  const modes = EFFICIENCY_MODES.map((m) => m.name);
  const workloads = unique(report.rows.map((r) => r.workload));
  const cell = (w: string, m: string) => report.rows.find((r) => r.workload === w && r.arch === arch && r.layout === layout && r.mode === m);
  const lines = [`| workload | ${modes.join(' | ')} |`, `|---|${modes.map(() => '---:').join('|')}|`];
  for (const w of workloads) lines.push(`| ${w} | ${modes.map((m) => (cell(w, m) ? fmt(cell(w, m)!.bitsPerInstruction) : '')).join(' | ')} |`);
  lines.push(`| **mean** | ${modes.map((m) => `**${fmt(suiteMean(report.rows, arch, layout, m))}**`).join(' | ')} |`);
  return lines;
}

export function efficiencyMarkdown(report: EfficiencyReport): string {
  const arches = unique(report.rows.map((r) => r.arch));
  const layouts = unique(report.rows.map((r) => r.layout));
  const out: string[] = ['# Trace efficiency', '', ...report.setup.map((s) => `- ${s}`), ''];
  out.push(`Bits per instruction, encapsulation headers included (goal: at most ${GOAL_BITS_PER_INSTRUCTION} with all modes, mean over the suite).`, '');
  for (const arch of arches) {
    for (const layout of layouts) {
      const all = suiteMean(report.rows, arch, layout, 'all');
      const payload = suiteMean(report.rows, arch, layout, 'all', 'payloadBitsPerInstruction');
      const unpadded = suiteMean(report.rows, arch, layout, 'all', 'compressedBitsPerInstruction');
      const verdict = (x: number) => (x <= GOAL_BITS_PER_INSTRUCTION ? 'met' : 'missed');
      out.push(
        `## ${arch}, payload layout ${layout}: all modes ${fmt(all)} bits/instr`,
        '',
        `Without headers ${fmt(payload)}, unpadded payload ${fmt(unpadded)} bits/instr. ` +
          `Goal ${GOAL_BITS_PER_INSTRUCTION}: ${verdict(all)} by the sent bytes, ${verdict(payload)} by the payload bytes (how the spec's reference flow counts), ${verdict(unpadded)} by the unpadded payload.`,
        '',
        ...summaryTable(report, arch, layout),
        '',
      );
    }
  }
  out.push('## Every measurement', '');
  out.push('bits/instr: the sent bytes; payload: without the encapsulation headers; the measure of the spec\'s reference flow (its encoder model\'s "payload bytes": sign-compressed, padded to whole bytes, no header); unpadded: the payloads\' sign-compressed bits before that padding.', '');
  out.push('| workload | arch | layout | mode | instructions | packets | bytes | payload bytes | payload bits | bits/instr | payload bits/instr | unpadded bits/instr |');
  out.push('|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of report.rows) {
    out.push(
      `| ${r.workload} | ${r.arch} | ${r.layout} | ${r.mode} | ${r.instructions} | ${r.packets} | ${r.bytes} | ${r.payloadBytes} | ${r.payloadBits} | ${fmt(r.bitsPerInstruction)} | ${fmt(r.payloadBitsPerInstruction)} | ${fmt(r.compressedBitsPerInstruction)} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

export function efficiencyJson(report: EfficiencyReport): string {
  return `${JSON.stringify({ setup: report.setup, goalBitsPerInstruction: GOAL_BITS_PER_INSTRUCTION, rows: report.rows }, null, 2)}\n`;
}

/** Colours of the modes' bars (colour-blind-safe palette). */
const COLOURS = ['#4c4c4c', '#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00'];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Grouped bars: one panel per arch and layout, a group per workload (and the suite mean), a bar
 * per mode; a dashed line at the goal.
 */
export function efficiencySvg(report: EfficiencyReport): string {
  const arches = unique(report.rows.map((r) => r.arch));
  const layouts = unique(report.rows.map((r) => r.layout));
  const workloads = [...unique(report.rows.map((r) => r.workload)), 'mean'];
  const modes = EFFICIENCY_MODES.map((m) => m.name);
  const panels = arches.flatMap((a) => layouts.map((l) => [a, l] as const));
  const bar = 9;
  const groupW = modes.length * bar + 14;
  const left = 50;
  const plotW = workloads.length * groupW;
  const plotH = 160;
  const panelH = plotH + 60;
  const width = left + plotW + 20;
  const top = 40;
  const height = top + panels.length * panelH + 10;
  const value = (w: string, a: string, l: string, m: string): number =>
    w === 'mean' ? suiteMean(report.rows, a, l, m) : (report.rows.find((r) => r.workload === w && r.arch === a && r.layout === l && r.mode === m)?.bitsPerInstruction ?? 0);
  const max = Math.max(GOAL_BITS_PER_INSTRUCTION, ...panels.flatMap(([a, l]) => workloads.flatMap((w) => modes.map((m) => value(w, a, l, m)))));
  const scaleMax = Math.ceil(max * 4) / 4;
  const s: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="10">`,
    `<text x="${left}" y="14" font-size="13">Trace bits per instruction by workload and mode</text>`,
  ];
  modes.forEach((m, i) => {
    const x = left + i * 110;
    s.push(`<rect x="${x}" y="22" width="10" height="10" fill="${COLOURS[i % COLOURS.length]}"/><text x="${x + 14}" y="31">${esc(m)}</text>`);
  });
  panels.forEach(([a, l], p) => {
    const y0 = top + p * panelH + 20;
    const yOf = (v: number) => y0 + plotH - (v / scaleMax) * plotH;
    s.push(`<text x="${left}" y="${y0 - 6}" font-size="11">${esc(`${a}, layout ${l}`)}</text>`);
    for (let t = 0; t <= scaleMax + 1e-9; t += 0.25) {
      const y = yOf(t).toFixed(1);
      s.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#ddd"/><text x="${left - 4}" y="${y}" text-anchor="end" dy="3">${t.toFixed(2)}</text>`);
    }
    const goalY = yOf(GOAL_BITS_PER_INSTRUCTION).toFixed(1);
    s.push(`<line x1="${left}" y1="${goalY}" x2="${left + plotW}" y2="${goalY}" stroke="#d00" stroke-dasharray="4 3"/>`);
    workloads.forEach((w, g) => {
      const gx = left + g * groupW + 7;
      modes.forEach((m, i) => {
        const v = value(w, a, l, m);
        const y = yOf(v);
        s.push(`<rect x="${gx + i * bar}" y="${y.toFixed(1)}" width="${bar - 1}" height="${(y0 + plotH - y).toFixed(1)}" fill="${COLOURS[i % COLOURS.length]}"><title>${esc(`${w} ${a} ${l} ${m}: ${fmt(v)}`)}</title></rect>`);
      });
      s.push(`<text x="${gx + (modes.length * bar) / 2}" y="${y0 + plotH + 14}" text-anchor="middle">${esc(w)}</text>`);
    });
    s.push(`<line x1="${left}" y1="${y0 + plotH}" x2="${left + plotW}" y2="${y0 + plotH}" stroke="#000"/>`);
  });
  s.push('</svg>');
  return `${s.join('\n')}\n`;
}
