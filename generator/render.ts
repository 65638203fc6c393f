/**
 * Template rendering for the RTL generator: Handlebars with `noEscape` (HTML escaping would corrupt
 * `<=`) and `strict` (a name the context lacks is an error, not an empty string); the helpers that
 * spell SystemVerilog literals, ranges and names; the file banner; and atomic output of a whole
 * directory.
 *
 * Templates compute nothing: the TypeScript that builds a template's context prepares every value
 * (widths, literals, names, concatenations) with the functions below, and the template loops and
 * pastes. Output is the same bytes on every run: no timestamps, no absolute paths.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Handlebars from 'handlebars';
import type { OutputFile, Provenance } from '../core/block.ts';
import { RvError } from '../golden-model/common/errors.ts';
import { REPO_ROOT } from '../golden-model/common/paths.ts';

export const ROOT = REPO_ROOT;
export const TEMPLATES_DIR = join(ROOT, 'templates');

/** The rvtrace version (package.json), written into every banner. */
export const TOOL_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// ---------------------------------------------------------------------------------------------
// SystemVerilog spelling

export function checkWidth(width: number): void {
  if (!Number.isInteger(width) || width < 1) throw new Error(`SV width must be a positive integer, not ${width}`);
}

/**
 * A sized literal: `1'b0`/`1'b1` for one bit, otherwise hexadecimal with every digit of the width,
 * in groups of four from the right when there are more than four digits
 * (`2'h1`, `13'h1008`, `32'h0060_0001`, `64'h0000_0000_8000_0000`).
 */
export function svSized(width: number, value: bigint): string {
  checkWidth(width);
  if (value < 0n || value >= 1n << BigInt(width)) throw new Error(`svSized: ${value} does not fit ${width} bits`);
  if (width === 1) return `1'b${value}`;
  const digits = value.toString(16).padStart(Math.ceil(width / 4), '0');
  if (digits.length <= 4) return `${width}'h${digits}`;
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 4) groups.unshift(digits.slice(Math.max(0, end - 4), end));
  return `${width}'h${groups.join('_')}`;
}

/** The packed range of a vector of `width` bits: `[W-1:0]`, or '' for a scalar. */
export function svRange(width: number): string {
  checkWidth(width);
  return width === 1 ? '' : `[${width - 1}:0]`;
}

/** A bit select or part select: `[lo]` or `[hi:lo]`. */
export function svBits(hi: number, lo: number): string {
  if (hi < lo || lo < 0) throw new Error(`svBits: bad range ${hi}:${lo}`);
  return hi === lo ? `[${lo}]` : `[${hi}:${lo}]`;
}

/** A data type with its range, padded so that names after it line up: `logic [3:0]`. */
export function svLogic(width: number): string {
  const r = svRange(width);
  return r === '' ? 'logic' : `logic ${r}`;
}

/**
 * The packed range of a vector that stays a vector at one bit: `[W-1:0]` computed, so `[0:0]` for
 * one bit (for signals that are indexed or part-selected whatever their width).
 */
export function svVec(width: number): string {
  checkWidth(width);
  return `[${width - 1}:0]`;
}

/** `trTeInstSyncMode` -> `tr_te_inst_sync_mode`; `discovery_info_0` stays. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** `resync_mode` / `trTeControl` -> `ResyncMode` / `TrTeControl` (lowRISC names of constants). */
export function camelCase(name: string): string {
  return snakeCase(name)
    .split('_')
    .filter((s) => s.length > 0)
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

/** Pads every string to the longest, for aligned declarations. */
export function padColumn(items: readonly string[]): string[] {
  const w = Math.max(0, ...items.map((s) => s.length));
  return items.map((s) => s.padEnd(w));
}

// ---------------------------------------------------------------------------------------------
// Banner

/** What a banner names: the component, the hash of its description and the `--set` arguments. */
export type BannerInput = Provenance;

/** The license of the generated files (the project's, see LICENSE). */
export const SPDX_LICENSE = 'Apache-2.0';

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The command that regenerates an output folder. It uses the short option names (`-c`, `-s`, `-o`),
 * so that the same text can stand in every file, XML comments included (they cannot contain "--").
 */
export function generateCommand(p: Provenance): string {
  return `npx rvtrace generate -c ${p.component}${p.sets.map((s) => ` -s ${s}`).join('')} -o <dir>`;
}

/**
 * The banner text lines (no comment characters), the same for every file of one generation:
 * the license, what generated the file from which input (the full hash of the component
 * description), and the command that regenerates it (default: `generateCommand`).
 */
export function bannerLines(p: Provenance, command: string = generateCommand(p)): string[] {
  return [
    `SPDX-License-Identifier: ${SPDX_LICENSE}`,
    `Generated by rvtrace ${TOOL_VERSION} from ${p.component} (sha256 of the component description: ${p.inputHash}).`,
    `Do not edit: regenerate with \`${command}\`.`,
  ];
}

/** The banner as comment lines with `prefix` (`//` for SV, filelists and .vlt, `#` for YAML), newline-terminated. */
export function commentBanner(p: Provenance, prefix: '//' | '#', command?: string): string {
  return bannerLines(p, command).map((l) => `${prefix} ${l}\n`).join('');
}

/** The banner as XML comment texts (each padded by a space; no "--" can occur, see generateCommand). */
export function xmlBanner(p: Provenance, command?: string): string[] {
  return bannerLines(p, command).map((l) => ` ${l} `);
}

// ---------------------------------------------------------------------------------------------
// Templates

const compiled = new Map<string, HandlebarsTemplateDelegate>();

/**
 * Renders `templates/<name>` with `context`. Strict: a name the context does not have throws, so a
 * template and its context builder cannot drift apart silently.
 */
export function renderTemplate(name: string, context: object, templatesDir: string = TEMPLATES_DIR): string {
  const file = join(templatesDir, name);
  let template = compiled.get(file);
  if (template === undefined) {
    const hb = Handlebars.create();
    template = hb.compile(readFileSync(file, 'utf8'), { noEscape: true, strict: true });
    compiled.set(file, template);
  }
  return template(context);
}

// ---------------------------------------------------------------------------------------------
// Atomic output of a directory

export type { OutputFile };

const GENERATED_MARK = 'Generated by rvtrace';

/**
 * Writes `files` as the whole content of directory `dir`: everything goes into a temporary
 * directory beside `dir`, `check` may inspect it (e.g. schema validation), then it replaces `dir`
 * by renames. A failure at any point leaves `dir` as it was and no temporary directory behind.
 * An existing `dir` is replaced only when everything in it was generated by rvtrace (its first
 * bytes say so), so a wrong `--out` cannot delete someone's files.
 */
export function writeDirectoryAtomic(dir: string, files: readonly OutputFile[], check?: (tmpDir: string) => void): void {
  for (const f of files) {
    if (f.name !== basename(f.name) || f.name.startsWith('.')) throw new Error(`output file name ${f.name} is not a plain name`);
  }
  const parent = dirname(dir);
  const tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}`);
  const old = join(parent, `.${basename(dir)}.old-${process.pid}`);
  const ioError = (e: unknown, file: string): RvError => new RvError('io', `cannot write: ${(e as Error).message}`, { file });

  if (existsSync(dir)) {
    if (!lstatSync(dir).isDirectory()) throw new RvError('io', 'cannot write: exists and is not a directory', { file: dir });
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      const ours = lstatSync(path).isFile() && readFileSync(path).subarray(0, 512).toString('utf8').includes(GENERATED_MARK);
      if (!ours) throw new RvError('io', `refusing to replace the directory: ${entry} was not generated by rvtrace`, { file: dir });
    }
  }
  try {
    mkdirSync(parent, { recursive: true });
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    for (const f of files) writeFileSync(join(tmp, f.name), f.content);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw ioError(e, dir);
  }
  try {
    check?.(tmp);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  const hadOld = existsSync(dir);
  try {
    if (hadOld) renameSync(dir, old);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw ioError(e, dir);
  }
  try {
    renameSync(tmp, dir);
  } catch (e) {
    if (hadOld) renameSync(old, dir);
    rmSync(tmp, { recursive: true, force: true });
    throw ioError(e, dir);
  }
  if (hadOld) rmSync(old, { recursive: true, force: true });
}

/** `text` as `// ` comment lines of at most `width` characters (words are not broken). */
export function wrapComment(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '//';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '//' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = '//';
    }
    line += ` ${word}`;
  }
  if (line !== '//') lines.push(line);
  return lines;
}

/** `.port (signal),` lines with the ports padded, the last without a comma. */
export function connections(pairs: readonly [string, string][]): string[] {
  const col = padColumn(pairs.map(([p]) => `.${p}`));
  return pairs.map(([, sig], i) => `${col[i]} (${sig})${i === pairs.length - 1 ? '' : ','}`);
}
