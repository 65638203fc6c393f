/**
 * Headless Chromium (Debian's `chromium`) for the report: a PNG of the page (`rvtrace report
 * --screenshot`) and, for the tests, the rendered DOM with the console messages the page caused.
 * Chromium is installed by scripts/install-chromium.sh only when asked for (the report tests call
 * it, and `scripts/setup.sh --chromium`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RvError } from '../../golden-model/common/errors.ts';
import { ROOT } from '../../generator/render.ts';

export const CHROMIUM = process.env['RVTRACE_CHROMIUM'] ?? 'chromium';

export function haveChromium(): boolean {
  return spawnSync('sh', ['-c', `command -v ${CHROMIUM}`], { stdio: 'ignore' }).status === 0;
}

/** Installs Debian's chromium when it is missing (apt-get; root or sudo); a tool-failure error otherwise. */
export function ensureChromium(): void {
  if (haveChromium()) return;
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'install-chromium.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !haveChromium()) throw new RvError('tool-failure', 'chromium is missing and could not be installed (scripts/install-chromium.sh; Debian package chromium)');
}

export interface Rendered {
  /** The DOM after the page loaded (chromium --dump-dom). */
  readonly dom: string;
  /** Every console message of the page (errors, CSP violations, script output), one line each. */
  readonly console: string[];
  readonly stderr: string;
}

/** Runs chromium headless on `htmlFile` with a throw-away profile; `extra` adds the action. */
function runChromium(htmlFile: string, extra: string[], timeoutMs: number): { stdout: string; stderr: string; status: number | null } {
  const profile = mkdtempSync(join(tmpdir(), 'rvtrace-chromium-'));
  try {
    const r = spawnSync(
      CHROMIUM,
      // --no-sandbox: Chromium's sandbox does not start as root (containers, CI runners).
      ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--hide-scrollbars', `--user-data-dir=${profile}`, '--enable-logging=stderr', '--v=0', ...extra, pathToFileURL(resolve(htmlFile)).href],
      { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 },
    );
    if (r.error !== undefined) throw new RvError('tool-failure', `chromium: ${r.error.message}`);
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Chromium logs each console message of a page as `...:INFO:CONSOLE:<line>] "<text>", source: <url> (<line>)`. */
export function consoleMessages(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /:CONSOLE[:(]/.test(l)).map((l) => l.replace(/^\[[^\]]*\]\s*/, ''));
}

/** Loads the page and returns its DOM and console messages. */
export function renderPage(htmlFile: string, timeoutMs = 120_000): Rendered {
  const r = runChromium(htmlFile, ['--dump-dom'], timeoutMs);
  if (r.status !== 0) throw new RvError('tool-failure', `chromium --dump-dom exited with status ${r.status}: ${r.stderr.split('\n').slice(-3).join(' ')}`);
  return { dom: r.stdout, console: consoleMessages(r.stderr), stderr: r.stderr };
}

/** Writes a PNG of the page to `png` (Chromium writes it; the caller renames it into place). */
export function screenshot(htmlFile: string, png: string, width = 1280, height = 1600, timeoutMs = 120_000): void {
  const r = runChromium(htmlFile, [`--screenshot=${resolve(png)}`, `--window-size=${width},${height}`], timeoutMs);
  if (r.status !== 0) throw new RvError('tool-failure', `chromium --screenshot exited with status ${r.status}: ${r.stderr.split('\n').slice(-3).join(' ')}`);
}
