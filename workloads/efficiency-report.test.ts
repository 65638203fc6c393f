/**
 * The efficiency report's renderings, on figures made up for the test: the suite means are worked
 * out by hand below, the JSON reads back, the SVG is well-formed XML and every rendering is the
 * same bytes on every run. E-Trace rows (one payload layout) and N-Trace rows (its four modes) sit
 * in the same report.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EFFICIENCY_MODES } from '../golden-model/etrace/efficiency.ts';
import { NTRACE_EFFICIENCY_MODES } from '../golden-model/ntrace/efficiency.ts';
import { efficiencyJson, efficiencyMarkdown, efficiencySvg, type EfficiencyReport, type EfficiencyRow, seriesOf, suiteMean } from './efficiency-report.ts';
import type { GateEntry } from './gates.ts';

function row(workload: string, arch: string, mode: string, bits: number): EfficiencyRow {
  // 1000 instructions: bits per instruction = bytes * 8 / 1000.
  const bytes = bits * 125;
  // Unpadded payload: 4 bits fewer per packet.
  return {
    encoder: 'E-Trace', workload, arch, layout: '1.1.1', mode, instructions: 1000, packets: 10, bytes, payloadBytes: bytes - 10, payloadBits: (bytes - 10) * 8 - 40,
    bitsPerInstruction: bits, payloadBitsPerInstruction: ((bytes - 10) * 8) / 1000, compressedBitsPerInstruction: ((bytes - 10) * 8 - 40) / 1000,
  };
}

function nrow(workload: string, arch: string, mode: string, bits: number): EfficiencyRow {
  return { encoder: 'N-Trace', workload, arch, mode, instructions: 1000, messages: 20, bytes: bits * 125, bitsPerInstruction: bits };
}

// Two workloads; E-Trace 'all' costs 0.24 and 0.48 bits/instr on rv64gc (mean 0.36), 0.1 and 0.2 on rv32imc (mean 0.15).
const ALL_BITS: Record<string, Record<string, number>> = { rv64gc: { a: 0.24, b: 0.48 }, rv32imc: { a: 0.1, b: 0.2 } };
// N-Trace on both arches: BTM 2, HTM 1, + call stack 0.5, + repeat 0.4 (a) and 0.6 (b), mean 0.5.
const NTRACE_BITS: Record<string, Record<string, number>> = {
  BTM: { a: 2, b: 2 },
  HTM: { a: 1, b: 1 },
  'HTM + call stack': { a: 0.5, b: 0.5 },
  'HTM + call stack + repeat': { a: 0.4, b: 0.6 },
};
const GATES: GateEntry[] = [
  { encoder: 'E-Trace', hardware: 'full E', series: 'E-Trace 1.1.1', mode: 'all', cells: 1000, note: 'Yosys' },
  { encoder: 'N-Trace', hardware: 'htm N', series: 'N-Trace', mode: 'HTM', cells: 500, note: 'Yosys' },
  { encoder: 'N-Trace', hardware: 'stack N', series: 'N-Trace', mode: 'HTM + call stack', cells: null, note: 'RTL not yet generated' },
];
const REPORT: EfficiencyReport = {
  setup: ['made-up figures'],
  rows: ['rv64gc', 'rv32imc'].flatMap((arch) =>
    ['a', 'b'].flatMap((w) => [
      ...EFFICIENCY_MODES.map((m) => row(w, arch, m.name, m.name === 'all' ? ALL_BITS[arch]![w]! : 0.8)),
      ...NTRACE_EFFICIENCY_MODES.map((m) => nrow(w, arch, m.name, NTRACE_BITS[m.name]![w]!)),
    ]),
  ),
};
const WITH_GATES: EfficiencyReport = { ...REPORT, gates: GATES };

describe('efficiency report', () => {
  it('names the series of a row: E-Trace with its layout, N-Trace', () => {
    expect(seriesOf(row('a', 'rv64gc', 'all', 1))).toBe('E-Trace 1.1.1');
    expect(seriesOf(nrow('a', 'rv64gc', 'HTM', 1))).toBe('N-Trace');
  });

  it('averages each workload once, per arch, series and mode', () => {
    expect(suiteMean(REPORT.rows, 'rv64gc', 'E-Trace 1.1.1', 'all')).toBeCloseTo(0.36, 12);
    expect(suiteMean(REPORT.rows, 'rv32imc', 'E-Trace 1.1.1', 'all')).toBeCloseTo(0.15, 12);
    expect(suiteMean(REPORT.rows, 'rv64gc', 'E-Trace 1.1.1', 'baseline')).toBeCloseTo(0.8, 12);
    // Without headers: (bytes - 10) * 8 / 1000 = bits - 0.08.
    expect(suiteMean(REPORT.rows, 'rv64gc', 'E-Trace 1.1.1', 'all', 'payloadBitsPerInstruction')).toBeCloseTo(0.28, 12);
    expect(suiteMean(REPORT.rows, 'rv64gc', 'E-Trace 1.1.1', 'all', 'compressedBitsPerInstruction')).toBeCloseTo(0.24, 12);
    expect(Number.isNaN(suiteMean(REPORT.rows, 'rv64gc', 'E-Trace 2.0', 'all'))).toBe(true);
    expect(suiteMean(REPORT.rows, 'rv64gc', 'N-Trace', 'HTM + call stack + repeat')).toBeCloseTo(0.5, 12);
    expect(suiteMean(REPORT.rows, 'rv32imc', 'N-Trace', 'BTM')).toBeCloseTo(2, 12);
    // N-Trace has no payload apart from its bytes: no such measure.
    expect(Number.isNaN(suiteMean(REPORT.rows, 'rv64gc', 'N-Trace', 'HTM', 'payloadBitsPerInstruction'))).toBe(true);
    // An E-Trace mode name is no N-Trace mode.
    expect(Number.isNaN(suiteMean(REPORT.rows, 'rv64gc', 'N-Trace', 'all'))).toBe(true);
  });

  it('Markdown: E-Trace next to N-Trace per arch, the E-Trace summaries with the verdict, then every measurement', () => {
    const md = efficiencyMarkdown(REPORT);
    expect(md).toContain('## rv64gc: E-Trace and N-Trace\n');
    expect(md).toContain('| workload | E-Trace 1.1.1 baseline | E-Trace 1.1.1 all | N-Trace BTM | N-Trace HTM | N-Trace HTM + call stack | N-Trace HTM + call stack + repeat |');
    expect(md).toContain('| a | 0.800 | 0.240 | 2.000 | 1.000 | 0.500 | 0.400 |');
    expect(md).toContain('| **mean** | **0.800** | **0.360** | **2.000** | **1.000** | **0.500** | **0.500** |');
    expect(md).toContain('| **mean** | **0.800** | **0.150** | **2.000** | **1.000** | **0.500** | **0.500** |');
    expect(md).toContain('## E-Trace, rv64gc, payload layout 1.1.1: all modes 0.360 bits/instr\n');
    expect(md).toContain('## E-Trace, rv32imc, payload layout 1.1.1: all modes 0.150 bits/instr\n');
    expect(md).toContain('| a | 0.800 | 0.800 | 0.800 | 0.800 | 0.800 | 0.800 | 0.240 |');
    expect(md).toContain('| **mean** | **0.800** | **0.800** | **0.800** | **0.800** | **0.800** | **0.800** | **0.360** |');
    expect(md).toContain('| b | rv32imc | 1.1.1 | all | 1000 | 10 | 25 | 15 | 80 | 0.200 | 0.120 | 0.080 |');
    // N-Trace b, rv32imc, repeat: 0.6 bits/instr = 75 bytes for 1000 instructions.
    expect(md).toContain('| b | rv32imc | HTM + call stack + repeat | 1000 | 20 | 75 | 0.600 |');
    // rv64gc 'all': bits 0.24 and 0.48 -> without headers 0.16 and 0.40 (mean 0.28), unpadded 0.12 and 0.36 (mean 0.24).
    expect(md).toContain('Without headers 0.280, unpadded payload 0.240 bits/instr. Goal 0.25: missed by the sent bytes, missed by the payload bytes (how the spec\'s reference flow counts), met by the unpadded payload.');
    // rv32imc 'all': 0.1 and 0.2 with headers (mean 0.15): within the goal on every measure.
    expect(md).toContain('Goal 0.25: met by the sent bytes, met by the payload bytes (how the spec\'s reference flow counts), met by the unpadded payload.');
    // No verdict for N-Trace: the goal is E-Trace's.
    expect(md.match(/Goal 0\.25:/g)).toHaveLength(2);
    expect(md.split('\n').filter((l) => l.startsWith('| a | rv') || l.startsWith('| b | rv'))).toHaveLength(REPORT.rows.length);
    // Without cell counts, no gates table.
    expect(md).not.toContain('Gates vs bits');
    expect(efficiencyMarkdown(REPORT)).toBe(md);
  });

  it('Markdown: the gates-vs-bits table sets the cells beside the suite means of the mode they run', () => {
    const md = efficiencyMarkdown(WITH_GATES);
    expect(md).toContain('## Gates vs bits\n');
    expect(md).toContain('| encoder | mode | hardware | cells | rv64gc bits/instr | rv32imc bits/instr |');
    expect(md).toContain('| E-Trace | all | full E | 1000 | 0.360 | 0.150 |');
    expect(md).toContain('| N-Trace | HTM | htm N | 500 | 1.000 | 1.000 |');
    expect(md).toContain('| N-Trace | HTM + call stack | stack N | RTL not yet generated | 0.500 | 0.500 |');
  });

  it('JSON reads back to the same rows and gates', () => {
    const j = JSON.parse(efficiencyJson(WITH_GATES)) as { rows: EfficiencyRow[]; gates: GateEntry[]; goalBitsPerInstruction: number };
    expect(j.rows).toEqual(REPORT.rows);
    expect(j.rows.filter((r) => r.encoder === 'N-Trace')).toHaveLength(2 * 2 * 4);
    expect(j.gates).toEqual(GATES);
    expect(j.goalBitsPerInstruction).toBe(0.25);
    expect((JSON.parse(efficiencyJson(REPORT)) as { gates: unknown }).gates).toBeNull();
  });

  it('SVG: well-formed, a bar per workload (and the mean), mode and panel of each encoder, the goal on E-Trace panels, deterministic', () => {
    const svg = efficiencySvg(REPORT);
    const file = join(mkdtempSync(join(tmpdir(), 'rvtrace-svg-')), 'chart.svg');
    writeFileSync(file, svg);
    const r = spawnSync('xmllint', ['--noout', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Per arch: an E-Trace panel (3 groups (a, b, mean) x 7 modes) and an N-Trace panel (3 x 4);
    // legend squares 7 + 4.
    expect(svg.match(/<rect /g)).toHaveLength(2 * (3 * 7 + 3 * 4) + 7 + 4);
    expect(svg.match(/stroke="#d00"/g)).toHaveLength(2);
    expect(svg).toContain('<title>mean rv64gc E-Trace 1.1.1 all: 0.360</title>');
    expect(svg).toContain('<title>mean rv32imc N-Trace HTM + call stack + repeat: 0.500</title>');
    expect(svg).toContain('>rv64gc, N-Trace (MSEO bytes)</text>');
    expect(efficiencySvg(REPORT)).toBe(svg);
  });
});
