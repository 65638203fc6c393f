/**
 * `rvtrace report`: one self-contained HTML page (CSS and SVG inline, no script, no external
 * reference: a Content-Security-Policy forbids loading anything) and a plain-text summary for CI
 * logs, from the results of regress, merge and fuzz runs. Generic: names no block; what a block
 * contributes (its coverage bins, the figures of its cases) comes in the results.
 */
import { blockCoverage, type BlockCoverage, type Coverage, mergeCoverage } from '../../core/coverage.ts';
import type { FailingCase, ReportSource } from './results.ts';

/** What the page and the summary show, computed once from the results. */
export interface ReportData {
  readonly sources: readonly ReportSource[];
  readonly total: number;
  readonly failed: number;
  /** Functional coverage per block, over every input (merged exactly: hits add up). */
  readonly functional: readonly BlockCoverage[];
  /** RTL code coverage (every group of another kind than "functional"), per kind and module. */
  readonly code: readonly CodeModule[];
  /** False when no input carries coverage at all. */
  readonly hasCoverage: boolean;
  readonly efficiency: readonly Efficiency[];
  readonly failures: readonly FailingCase[];
}

export interface CodeModule {
  readonly kind: string;
  readonly module: string;
  readonly total: number;
  readonly covered: number;
  readonly uncovered: readonly string[];
  /** Waived points (cannot toggle by construction), with the reason. */
  readonly waived: Readonly<Record<string, string>>;
}

/** A figure of a component's cases per retired instruction (e.g. trace bytes per instruction). */
export interface Efficiency {
  readonly metric: string;
  readonly rows: readonly { component: string; perInstruction: number; value: number; records: number }[];
}

/**
 * Code coverage per module: a point's module is its bin name up to the first ':' (the component
 * when the name has none); a point counts when some group has it and it is not waived there.
 */
function codeModules(cov: Coverage): CodeModule[] {
  const by = new Map<string, { kind: string; module: string; points: Map<string, number>; waived: Record<string, string> }>();
  for (const g of cov.groups) {
    if (g.kind === 'functional') continue;
    for (const [bin, n] of Object.entries(g.bins)) {
      const colon = bin.indexOf(':');
      const module = colon > 0 ? bin.slice(0, colon) : g.component;
      const key = `${g.kind}\u0000${module}`;
      let m = by.get(key);
      if (m === undefined) {
        m = { kind: g.kind, module, points: new Map(), waived: {} };
        by.set(key, m);
      }
      if (g.excluded[bin] !== undefined) {
        if (!m.points.has(bin)) m.waived[bin] ??= g.excluded[bin]!;
        continue;
      }
      delete m.waived[bin];
      m.points.set(bin, (m.points.get(bin) ?? 0) + n);
    }
  }
  return [...by.values()]
    .sort((a, b) => (a.kind + a.module < b.kind + b.module ? -1 : 1))
    .map((m) => {
      const uncovered = [...m.points.entries()].filter(([, n]) => n === 0).map(([b]) => b).sort();
      return { kind: m.kind, module: m.module, total: m.points.size, covered: m.points.size - uncovered.length, uncovered, waived: m.waived };
    });
}

function efficiency(sources: readonly ReportSource[]): Efficiency[] {
  const cases = sources.flatMap((s) => s.cases);
  const metrics = [...new Set(cases.flatMap((c) => Object.keys(c.metrics)))];
  const out: Efficiency[] = [];
  for (const metric of metrics) {
    const rows: Efficiency['rows'][number][] = [];
    for (const component of [...new Set(cases.map((c) => c.component))]) {
      const mine = cases.filter((c) => c.component === component && c.metrics[metric] !== undefined);
      const records = mine.reduce((s, c) => s + c.records, 0);
      const value = mine.reduce((s, c) => s + c.metrics[metric]!, 0);
      if (mine.length > 0 && records > 0) rows.push({ component, perInstruction: value / records, value, records });
    }
    // A figure that is zero everywhere says nothing about efficiency (e.g. no loss anywhere).
    if (rows.some((r) => r.value !== 0)) out.push({ metric, rows });
  }
  return out;
}

export function reportData(sources: readonly ReportSource[]): ReportData {
  const covs = sources.filter((s) => s.coverage !== undefined).map((s) => s.coverage!);
  const merged = mergeCoverage(covs, sources.filter((s) => s.coverage !== undefined).map((s) => s.file));
  return {
    sources,
    total: sources.reduce((n, s) => n + s.total, 0),
    failed: sources.reduce((n, s) => n + s.failed, 0),
    functional: blockCoverage({ ...merged, groups: merged.groups.filter((g) => g.kind === 'functional') }),
    code: codeModules(merged),
    hasCoverage: covs.length > 0,
    efficiency: efficiency(sources),
    failures: sources.flatMap((s) => s.failures),
  };
}

const pct = (covered: number, total: number): string => (total === 0 ? '100.0' : ((100 * covered) / total).toFixed(1));

function sourceLine(s: ReportSource): string {
  const what = s.kind === 'fuzz' ? `fuzz session (seed ${s.fuzz!.seed}, limit ${s.fuzz!.seconds} s, ${s.fuzz!.records} instructions${s.fuzz!.stopped ? `, stopped: ${s.fuzz!.stopped}` : ''})` : `regression${s.shard ? ` shard ${s.shard.index}/${s.shard.count}` : ''}${s.partial ? ` (PARTIAL: ${s.partial.missingCases.length} cases not run)` : ''}`;
  return `${s.file}: ${what}: ${s.total} cases, ${s.total - s.failed} passed, ${s.failed} failed`;
}

/** The plain-text summary (summary.txt, also printed): verdict, inputs, coverage, failures. */
export function textSummary(d: ReportData): string {
  const lines: string[] = [];
  lines.push(`${d.failed === 0 ? 'PASS' : 'FAIL'}: ${d.total} cases, ${d.total - d.failed} passed, ${d.failed} failed`);
  for (const s of d.sources) lines.push(`  ${sourceLine(s)}`);
  if (d.functional.length === 0) lines.push(`functional coverage: not collected${d.hasCoverage ? '' : ' (results made with --no-coverage)'}`);
  for (const b of d.functional) {
    lines.push(`functional coverage ${b.block}: ${b.covered}/${b.total} bins (${pct(b.covered, b.total)}%) in ${b.cases} cases, ${Object.keys(b.excluded).length} excluded`);
    if (b.uncovered.length > 0) lines.push(`  uncovered: ${b.uncovered.join(' ')}`);
    if (b.unexpected.length > 0) lines.push(`  UNEXPECTED (hit, but not bins of the coverage model): ${b.unexpected.join(' ')}`);
  }
  if (d.code.length === 0) lines.push('code coverage: not collected');
  for (const m of d.code) lines.push(`code coverage ${m.kind} ${m.module}: ${m.covered}/${m.total} (${pct(m.covered, m.total)}%), ${Object.keys(m.waived).length} waived`);
  for (const e of d.efficiency) for (const r of e.rows) lines.push(`${e.metric} per instruction ${r.component}: ${r.perInstruction.toFixed(4)}`);
  for (const f of d.failures) {
    lines.push(`FAILED ${f.id} (${f.file})`);
    lines.push(`  replay: ${f.replay}`);
    lines.push(`  waveform: ${f.waveform ?? f.waveformCommand}`);
  }
  return `${lines.join('\n')}\n`;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A horizontal bar chart, inline SVG: one bar per component, the value written after the bar. */
function barChart(e: Efficiency): string {
  const rowH = 22;
  const labelW = Math.min(260, 8 + 7 * Math.max(...e.rows.map((r) => r.component.length)));
  const barW = 420;
  const max = Math.max(...e.rows.map((r) => r.perInstruction), Number.MIN_VALUE);
  const h = rowH * e.rows.length + 8;
  const w = labelW + barW + 90;
  const bars = e.rows.map((r, i) => {
    const y = 4 + i * rowH;
    const len = (barW * r.perInstruction) / max;
    return [
      `<text x="${labelW - 6}" y="${y + 15}" text-anchor="end">${esc(r.component)}</text>`,
      `<rect x="${labelW}" y="${y + 3}" width="${len.toFixed(1)}" height="${rowH - 6}" class="bar"><title>${esc(`${r.component}: ${r.value} ${e.metric} / ${r.records} instructions`)}</title></rect>`,
      `<text x="${(labelW + len + 6).toFixed(1)}" y="${y + 15}">${r.perInstruction.toFixed(4)}</text>`,
    ].join('');
  });
  return `<figure><svg xmlns="http://www.w3.org/2000/svg" class="chart" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(e.metric)} per instruction">${bars.join('')}</svg><figcaption>${esc(e.metric)} per retired instruction, per component</figcaption></figure>`;
}

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}
h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:bold;color:#fff}
.pass{background:#1a7f37}.fail{background:#cf222e}
.meter{display:inline-block;width:120px;height:10px;background:#eee;border-radius:3px;overflow:hidden;vertical-align:middle}
.meter span{display:block;height:100%;background:#2da44e}
code,pre{font:12px ui-monospace,monospace;background:#f6f8fa;padding:1px 4px;border-radius:3px}
pre{padding:6px;white-space:pre-wrap;margin:2px 0}
ul.bins{columns:3;font:12px ui-monospace,monospace;margin:4px 0}
.none{color:#57606a;font-style:italic}
svg.chart text{font:12px system-ui,sans-serif;fill:#1b1f24}svg.chart .bar{fill:#0969da}
`;

function meter(covered: number, total: number): string {
  return `<span class="meter"><span style="width:${pct(covered, total)}%"></span></span>`;
}

/** The whole page. */
export function htmlReport(d: ReportData, title = 'rvtrace report'): string {
  const h: string[] = [];
  h.push('<!DOCTYPE html>');
  h.push('<html lang="en"><head><meta charset="utf-8">');
  // Nothing may be loaded from anywhere: the page is one file that works offline and from a CI artefact.
  h.push('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">');
  h.push(`<title>${esc(title)}</title><style>${CSS}</style></head><body>`);
  h.push(`<h1>${esc(title)}</h1>`);
  h.push(`<p><span id="verdict" class="verdict ${d.failed === 0 ? 'pass">PASS' : 'fail">FAIL'}</span> ${d.total} cases, ${d.total - d.failed} passed, ${d.failed} failed</p>`);

  h.push('<h2 id="summary">Results</h2><table id="results-table"><thead><tr><th>results file</th><th>run</th><th>cases</th><th>passed</th><th>failed</th></tr></thead><tbody>');
  for (const s of d.sources) {
    const run = s.kind === 'fuzz' ? `fuzz, seed ${s.fuzz!.seed}, limit ${s.fuzz!.seconds} s${s.fuzz!.stopped ? `, stopped: ${s.fuzz!.stopped}` : ''}` : `regress${s.shard ? ` shard ${s.shard.index}/${s.shard.count}` : ''}${s.partial ? ' (partial)' : ''}`;
    h.push(`<tr><td><code>${esc(s.file)}</code></td><td>${esc(run)}</td><td class="n">${s.total}</td><td class="n">${s.total - s.failed}</td><td class="n">${s.failed}</td></tr>`);
  }
  h.push('</tbody></table>');
  const cases = d.sources.flatMap((s) => s.cases);
  if (cases.length > 0) {
    const metrics = [...new Set(cases.flatMap((c) => Object.keys(c.metrics)))];
    h.push(`<h3>Per component</h3><table id="component-table"><thead><tr><th>component</th><th>cases</th><th>passed</th><th>failed</th><th>records</th>${metrics.map((m) => `<th>${esc(m)}</th>`).join('')}</tr></thead><tbody>`);
    for (const comp of [...new Set(cases.map((c) => c.component))]) {
      const mine = cases.filter((c) => c.component === comp);
      const failed = mine.filter((c) => c.status === 'failed').length;
      const sum = (m: string): string => (mine.some((c) => c.metrics[m] !== undefined) ? String(mine.reduce((s, c) => s + (c.metrics[m] ?? 0), 0)) : '-');
      h.push(`<tr><td>${esc(comp)}</td><td class="n">${mine.length}</td><td class="n">${mine.length - failed}</td><td class="n">${failed}</td><td class="n">${mine.reduce((s, c) => s + c.records, 0)}</td>${metrics.map((m) => `<td class="n">${sum(m)}</td>`).join('')}</tr>`);
    }
    h.push('</tbody></table>');
  }

  h.push('<h2 id="functional-coverage">Functional coverage</h2>');
  if (d.functional.length === 0) {
    h.push(`<p class="none" id="functional-none">Functional coverage: not collected${d.hasCoverage ? '' : ' (results made with --no-coverage)'}.</p>`);
  } else {
    h.push('<table id="coverage-table"><thead><tr><th>block</th><th>covered</th><th>total</th><th>%</th><th></th><th>cases</th><th>uncovered</th><th>excluded</th></tr></thead><tbody>');
    for (const b of d.functional) {
      h.push(`<tr data-block="${esc(b.block)}"><td><a href="#cov-${esc(b.block)}">${esc(b.block)}</a></td><td class="n">${b.covered}</td><td class="n">${b.total}</td><td class="n">${pct(b.covered, b.total)}</td><td>${meter(b.covered, b.total)}</td><td class="n">${b.cases}</td><td class="n">${b.uncovered.length}</td><td class="n">${Object.keys(b.excluded).length}</td></tr>`);
    }
    h.push('</tbody></table>');
    for (const b of d.functional) {
      h.push(`<h3 id="cov-${esc(b.block)}">${esc(b.block)}: ${b.covered}/${b.total} bins</h3>`);
      if (b.uncovered.length === 0) h.push('<p>Every reachable bin is covered.</p>');
      else h.push(`<p>Uncovered bins (${b.uncovered.length}):</p><ul class="bins uncovered">${b.uncovered.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>`);
      if (b.unexpected.length > 0) h.push(`<p><b>Unexpected</b> (hit, but not bins of the coverage model: a defect of the model):</p><ul class="bins unexpected">${b.unexpected.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>`);
      const ex = Object.entries(b.excluded);
      if (ex.length > 0) h.push(`<details><summary>Excluded bins (${ex.length}), unreachable in every configuration</summary><table class="excluded"><thead><tr><th>bin</th><th>reason</th></tr></thead><tbody>${ex.map(([x, r]) => `<tr><td><code>${esc(x)}</code></td><td>${esc(r)}</td></tr>`).join('')}</tbody></table></details>`);
    }
  }

  h.push('<h2 id="code-coverage">Code coverage</h2>');
  if (d.code.length === 0) {
    h.push('<p class="none" id="code-none">Code coverage: not collected (the results carry no RTL code coverage).</p>');
  } else {
    h.push('<table id="code-table"><thead><tr><th>kind</th><th>module</th><th>covered</th><th>total</th><th>%</th><th></th><th>waived</th></tr></thead><tbody>');
    for (const m of d.code) h.push(`<tr><td>${esc(m.kind)}</td><td>${esc(m.module)}</td><td class="n">${m.covered}</td><td class="n">${m.total}</td><td class="n">${pct(m.covered, m.total)}</td><td>${meter(m.covered, m.total)}</td><td class="n">${Object.keys(m.waived).length}</td></tr>`);
    h.push('</tbody></table>');
    for (const m of d.code) {
      if (m.uncovered.length > 0) h.push(`<details><summary>${esc(`${m.kind} ${m.module}: ${m.uncovered.length} not covered`)}</summary><ul class="bins">${m.uncovered.map((x) => `<li>${esc(x)}</li>`).join('')}</ul></details>`);
      const w = Object.entries(m.waived);
      if (w.length > 0) h.push(`<details><summary>${esc(`${m.kind} ${m.module}: ${w.length} waived`)}</summary><table><tbody>${w.map(([x, r]) => `<tr><td><code>${esc(x)}</code></td><td>${esc(r)}</td></tr>`).join('')}</tbody></table></details>`);
    }
  }

  h.push('<h2 id="efficiency">Efficiency</h2>');
  if (d.efficiency.length === 0) h.push('<p class="none" id="efficiency-none">No trace figures in the results (a fuzz session keeps none; regress results carry each block\'s figures).</p>');
  for (const e of d.efficiency) h.push(barChart(e));

  h.push('<h2 id="failures">Failing cases</h2>');
  if (d.failures.length === 0) h.push('<p class="none">None.</p>');
  else {
    h.push('<table id="failures-table"><thead><tr><th>case</th><th>mismatch</th><th>replay and waveform</th></tr></thead><tbody>');
    for (const f of d.failures) {
      h.push(`<tr><td>${esc(f.id)}<br><small>${esc(f.file)}</small></td><td>${f.mismatch ? `<pre>${esc(f.mismatch)}</pre>` : ''}</td><td>replay:<pre class="replay">${esc(f.replay)}</pre>waveform:<pre class="waveform">${esc(f.waveformCommand)}</pre>${f.waveform ? `waveform file: <code>${esc(f.waveform)}</code>` : ''}</td></tr>`);
    }
    h.push('</tbody></table>');
  }
  h.push(`<p class="none">Written by ${esc([...new Set(d.sources.map((s) => s.tool))].join(', '))} (rvtrace report).</p>`);
  h.push('</body></html>');
  return `${h.join('\n')}\n`;
}
