/**
 * `rvtrace report` on the fixture results in test-fixtures/ (written by hand, so every expected
 * value below is read off the fixture, not computed by the code under test): the uncovered bins by
 * name, excluded bins with their reasons, code coverage per module or "not collected", the
 * efficiency chart, each failing case's replay and waveform commands, one-line errors for bad
 * input; and the page rendered by headless Chromium (Debian's chromium, installed by
 * scripts/install-chromium.sh when missing): the coverage table is in the DOM and the page logged
 * nothing on the console. The console check is shown able to fail on test-fixtures/broken-page.html.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureChromium, renderPage } from './chromium.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const FIX = join(import.meta.dirname, 'test-fixtures');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-report-'));

function rvtrace(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const fix = (name: string): string => join(FIX, name);
const read = (...p: string[]): string => readFileSync(join(dir, ...p), 'utf8');

describe('rvtrace report: the page and the summary', () => {
  let failRun: ReturnType<typeof rvtrace>;
  beforeAll(() => {
    failRun = rvtrace('report', fix('regress-fail.json'), '--out', 'fail');
  });

  it('writes index.html and summary.txt, and prints the summary', () => {
    expect(failRun.stderr).toBe('');
    expect(failRun.status).toBe(0);
    expect(readdirSync(join(dir, 'fail')).sort()).toEqual(['index.html', 'summary.txt']);
    expect(failRun.stdout).toContain(read('fail', 'summary.txt'));
    expect(read('fail', 'summary.txt').split('\n')[0]).toBe('FAIL: 4 cases, 3 passed, 1 failed');
  });

  it('names the uncovered bins of each block, and the excluded ones with their reasons', () => {
    const s = read('fail', 'summary.txt');
    // ctr-small: 5 reachable bins (cycle-count:saturated is excluded), 3 hit.
    expect(s).toContain('functional coverage ctr: 3/5 bins (60.0%) in 2 cases, 1 excluded');
    expect(s).toContain('  uncovered: csr:sctrctl:virtual xfer:trap:up:external-trap\n');
    expect(s).toContain('functional coverage etrace: 1/3 bins (33.3%) in 1 cases, 1 excluded');
    expect(s).toContain('  uncovered: branches:31 pkt:2:trap\n');
    const html = read('fail', 'index.html');
    for (const bin of ['csr:sctrctl:virtual', 'xfer:trap:up:external-trap', 'branches:31', 'pkt:2:trap']) expect(html).toContain(`<li>${bin}</li>`);
    expect(html).toContain('<td><code>cycle-count:saturated</code></td><td>the cycle counter of ctr-small is off (cc_width_p = 0)</td>');
    expect(html).toMatch(/<table id="coverage-table">/);
  });

  it("shows a failing case's mismatch, replay command, waveform command and waveform file", () => {
    const html = read('fail', 'index.html');
    expect(html).toContain('<pre class="replay">npx rvtrace cosim --component etrace --seed 2 --count 2000 --backpressure 0</pre>');
    expect(html).toContain('<pre class="waveform">npx rvtrace cosim --component etrace --seed 2 --count 2000 --backpressure 0 --fst etrace_bp0_seed2.fst</pre>');
    expect(html).toContain('waveform file: <code>waves/etrace-seed2.fst</code>');
    expect(html).toContain('byte 17 differs: model 0x2a, RTL 0x2b (packet 3, format 2)');
    const s = read('fail', 'summary.txt');
    expect(s).toContain('FAILED etrace/bp0/seed2');
    expect(s).toContain('  replay: npx rvtrace cosim --component etrace --seed 2 --count 2000 --backpressure 0\n');
    // A passing case's replay is not listed.
    expect(s).not.toContain('--seed 1 --count 2000');
  });

  it('charts each figure per instruction in inline SVG, and says when code coverage was not collected', () => {
    const html = read('fail', 'index.html');
    // etrace: (500 + 700) bytes / 4000 instructions; ctr-small: (40 + 38) responses / 4000.
    expect(html).toContain('>0.3000</text>');
    expect(html).toContain('>0.0195</text>');
    expect(html).toContain('<figcaption>bytes per retired instruction, per component</figcaption>');
    // "lost" is 0 everywhere: no chart for it.
    expect(html).not.toContain('<figcaption>lost per');
    expect(html).toContain('id="code-none">Code coverage: not collected');
    expect(read('fail', 'summary.txt')).toContain('bytes per instruction etrace: 0.3000');
  });

  it('is self-contained: no script, no link, nothing loaded from elsewhere', () => {
    const html = read('fail', 'index.html');
    expect(html).not.toMatch(/<script|<link|<iframe|\bsrc=|url\(|@import|href="(?!#)/i);
    expect(html).toContain("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"");
  });

  it('merges the coverage of a regression and a fuzz session, and lists the fuzz failure', () => {
    const r = rvtrace('report', fix('regress-fail.json'), fix('fuzz.json'), '--out', 'both');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const s = read('both', 'summary.txt');
    expect(s.split('\n')[0]).toBe('FAIL: 9 cases, 7 passed, 2 failed');
    // The fuzz session hit xfer:trap:up:external-trap; csr:sctrctl:virtual stays uncovered.
    expect(s).toContain('functional coverage ctr: 4/5 bins (80.0%) in 6 cases, 1 excluded');
    expect(s).toContain('  uncovered: csr:sctrctl:virtual\n');
    expect(s).toContain('fuzz.json: fuzz session (seed 42, limit 30 s, 20000 instructions, stopped: covered): 5 cases, 4 passed, 1 failed');
    expect(s).toContain('  replay: npx rvtrace cosim --component ctr-small --knob interrupt_rate=0.02 --seed 913 --count 37\n');
    expect(read('both', 'index.html')).toContain('<pre class="replay">npx rvtrace cosim --component ctr-small --knob interrupt_rate=0.02 --seed 913 --count 37</pre>');
  });

  it('shows code coverage per module with waivers when the results carry it', () => {
    const r = rvtrace('report', fix('code-coverage.json'), '--out', 'code');
    expect(r.status).toBe(0);
    const s = read('code', 'summary.txt');
    expect(s.split('\n')[0]).toBe('PASS: 1 cases, 1 passed, 0 failed');
    expect(s).toContain('code coverage code ctr_buffer: 1/1 (100.0%), 1 waived');
    expect(s).toContain('code coverage code ctr_top: 1/2 (50.0%), 0 waived');
    expect(s).toContain('functional coverage: not collected');
    const html = read('code', 'index.html');
    expect(html).toContain('<table id="code-table">');
    expect(html).toContain('<li>ctr_top:line:42</li>');
    expect(html).toContain('<td><code>ctr_buffer:toggle:wrptr_q[7]</code></td><td>depth 16 never sets bit 7 of the write pointer</td>');
  });
});

describe('rvtrace report: bad input is one line naming the file, and nothing is written', () => {
  const CASES: [string, string, string][] = [
    ['not JSON', 'not-json.json', 'not a results file of rvtrace (expected the --json output of regress, merge or fuzz): not JSON'],
    ['JSON of something else', 'not-results.json', 'not a results file of rvtrace (expected the --json output of regress, merge or fuzz): JSON without "matrix" and "cases" (regress, merge) or "cases" and "failures" (fuzz)'],
    ['coverage with a bin that is not a count', 'bad-coverage.json', 'coverage.groups[0].bins["debug:entry"]: expected a count of hits (an integer >= 0)'],
    ['a case with a bad status', 'bad-case.json', 'cases[0].status: expected "passed" or "failed"'],
  ];
  for (const [what, file, message] of CASES) {
    it(what, () => {
      const out = `bad-${file}`;
      const r = rvtrace('report', fix('regress-fail.json'), fix(file), '--out', out);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`rvtrace: ${fix(file)}: ${message}\n`);
      expect(r.stdout).toBe('');
      expect(existsSync(join(dir, out))).toBe(false);
    });
  }
  it('a missing file', () => {
    const r = rvtrace('report', 'nope.json', '--out', 'bad-missing');
    expect(r.stderr).toBe('rvtrace: nope.json: cannot read: no such file\n');
    expect(r.status).toBe(2);
    expect(existsSync(join(dir, 'bad-missing'))).toBe(false);
  });
});

describe('rvtrace report in headless Chromium', () => {
  beforeAll(() => {
    ensureChromium();
    expect(rvtrace('report', fix('regress-fail.json'), fix('fuzz.json'), '--out', 'page', '--screenshot', 'page.png').status).toBe(0);
  }, 600_000);

  it('shows the coverage table and logs nothing on the console', () => {
    const r = renderPage(join(dir, 'page', 'index.html'));
    expect(r.console).toEqual([]);
    const table = /<table id="coverage-table">([\s\S]*?)<\/table>/.exec(r.dom);
    expect(table).not.toBeNull();
    const rows = [...table![1]!.matchAll(/<tr data-block="([^"]+)">/g)].map((m) => m[1]);
    expect(rows).toEqual(['ctr', 'etrace']);
    expect(r.dom).toContain('<li>csr:sctrctl:virtual</li>');
    expect(r.dom).toContain('<svg');
  });

  it('the console check fails on a page that logs errors or loads something', () => {
    const r = renderPage(fix('broken-page.html'));
    expect(r.console.some((l) => l.includes('"broken-page: logged error"'))).toBe(true);
    expect(r.console.some((l) => l.includes('notDefinedAnywhere is not defined'))).toBe(true);
    expect(r.console.some((l) => l.includes('http://example.invalid/x.png'))).toBe(true);
  });

  it('--screenshot writes a PNG of the page, 1280 pixels wide', () => {
    const png = readFileSync(join(dir, 'page.png'));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.length).toBeGreaterThan(10_000);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});
