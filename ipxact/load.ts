/**
 * `--component NAME|FILE`: reads an IP-XACT component (IEEE 1685-2014 or 1685-2022) and returns
 * the settings it gives a block. A bare name is a shipped component, `ipxact/components/NAME.xml`.
 *
 * The loader is generic: the block's setting specs (names, kinds, ranges) and its validate
 * callback carry every block-specific rule. The flow, collecting every error of a stage before
 * giving up (docs/components.md):
 *   1. XML well-formedness and the IP-XACT namespace (our parser, with lines);
 *   2. XSD validation against the Accellera schema of that standard (xmllint);
 *   3. the reader (structure beyond the schema);
 *   4. our vendor extensions: <rvtrace:block> (required) and <rvtrace:helperParameter> (optional);
 *   5. parameter names (no SystemVerilog keyword), then evaluation of every value expression
 *      (undefined references, cycles, syntax, duplicate names);
 *   6. mapping each parameter to the setting of the same name by the setting's kind (unknown names
 *      are errors unless listed as helper parameters), with the setting's range or choices;
 *   7. the block's validate callback on the complete settings, each error placed at the line of the
 *      parameter its path (`parameters/<name>` or `options/<name>`) names.
 * Stages 1-3 stop at their errors (what follows them would misread the document); 5-7 report
 * together, except that a validate error mentioning a parameter already in error is dropped (it
 * would only be a consequence). All errors come back at once, one line each, sorted by line.
 *
 * How a setting is written (decided here, documented in docs/components.md):
 * - int, number: an integer constant expression (any SV expression the evaluator accepts, which
 *   may reference other parameters by name or parameterId);
 * - bool: an expression evaluating to 0 or 1 (`true`/`false` are 1/0);
 * - bigint: an expression evaluating to a non-negative integer (64-bit values stay exact);
 * - choice: when every choice is an integer (itype_width_p), an integer expression; otherwise
 *   (payload_layout) a parameter with type="string" whose value is a quoted SV string literal,
 *   e.g. "2.0". A parameter whose type attribute is "string" is read as a string literal; any
 *   other type, or none, as an integer expression. (IP-XACT's default type is string, but tools
 *   write numeric parameters untyped; rvtrace writes the type explicitly on export.)
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ExitStatus, RvError } from '../golden-model/common/errors.ts';
import type { SettingSpec, Settings, SettingValue } from '../golden-model/common/settings.ts';
import { detectStandard, readComponent, resolveParameters, type IpxactComponent, type IpxactStandard, type Vlnv } from './reader/component.ts';
import { readXmlDocument, readXmlFile, type XmlElement } from './reader/xml.ts';
import { defaultSchemaDir, validateXsdRemembered } from './reader/xsd.ts';
import { isSvKeyword } from './sv-keywords.ts';
import { REPO_ROOT } from '../golden-model/common/paths.ts';

/** The namespace of our vendor extensions. */
export const RVTRACE_NS = 'https://rvtrace.dev/ipxact/1.0';
/** The prefix rvtrace writes it with (any prefix is read). */
export const RVTRACE_PREFIX = 'rvtrace';

export const COMPONENTS_DIR = join(REPO_ROOT, 'ipxact', 'components');

/** The settings and semantic check of one block, as the loader needs them. */
export interface BlockSettings {
  readonly specs: readonly SettingSpec[];
  readonly validate: (settings: Settings) => RvError[];
}

export interface LoadOptions {
  /** The block the caller needs (e.g. `etrace`); the component's <rvtrace:block> must say it. */
  block?: string;
  /**
   * The settings of the block the component names (its <rvtrace:block>), for a caller that takes a
   * component of any block: the file is read once and mapped with that block's settings. Undefined
   * for a block nobody registered (reported with the known names).
   */
  blocks?: { readonly lookup: (block: string) => BlockSettings | undefined; readonly names: readonly string[] };
  /** The block's semantic check on the complete settings (defaults, then the component's values). */
  validate?: (settings: Settings) => RvError[];
  /** Folder with ieee-1685-2014/index.xsd and ieee-1685-2022/index.xsd; default `defaultSchemaDir()`. */
  schemaDir?: string;
}

export interface LoadedComponent {
  /** The VLNV name. */
  name: string;
  file: string;
  standard: IpxactStandard;
  vlnv: Vlnv;
  description: string;
  /** What <rvtrace:block> says. */
  block: string;
  /** The settings the component gives (not the defaults of those it leaves out). */
  settings: Settings;
  /** Line of each parameter, by name. */
  lines: ReadonlyMap<string, number>;
  /** Parameters declared as helpers (evaluated, then not mapped to settings). */
  helpers: readonly string[];
  /** sha256 (hex) of the file's bytes, as read. */
  sha256: string;
}

/** Every problem of a component: one line each, exit status 2 (3 when a tool failed). */
export class ComponentErrors extends RvError {
  constructor(
    readonly file: string,
    readonly errors: readonly RvError[],
  ) {
    super(
      errors[0]?.code ?? 'invalid-component',
      `${errors.length} problem${errors.length === 1 ? '' : 's'} in the component`,
      { file },
      errors.some((e) => e.status === ExitStatus.toolFailure) ? ExitStatus.toolFailure : ExitStatus.badInput,
    );
    this.name = 'ComponentErrors';
  }

  /** The lines of all errors; with more than one, a first line counts them. */
  lines(): string[] {
    return this.errors.map((e) => e.oneLine());
  }

  override oneLine(): string {
    if (this.errors.length === 1) return this.errors[0]!.oneLine();
    return [`${this.file}: ${this.message}:`, ...this.lines()].join('\n');
  }
}

/**
 * The file of a shipped component name, or the path itself; an unknown name lists the shipped
 * components (of `block` when given).
 */
export function componentFile(nameOrPath: string, block?: string): string {
  const isName = /^[A-Za-z0-9_.-]+$/.test(nameOrPath);
  const shipped = join(COMPONENTS_DIR, `${nameOrPath}.xml`);
  if (isName && existsSync(shipped)) return shipped;
  if (existsSync(nameOrPath)) return nameOrPath;
  if (isName && !/\.xml$/i.test(nameOrPath)) {
    const names = block !== undefined && shippedComponents(block).length > 0 ? shippedComponents(block) : allShippedComponents();
    throw new RvError('bad-option', `--component ${nameOrPath}: no shipped component of that name and no such file (shipped: ${names.join(', ')})`);
  }
  return nameOrPath;
}

/** What <rvtrace:block> says in a parsed document, if anything. */
function blockElement(root: XmlElement): string | undefined {
  if (root.ns === RVTRACE_NS && root.name === 'block') return root.text.trim();
  for (const c of root.children) {
    const found = blockElement(c);
    if (found !== undefined) return found;
  }
  return undefined;
}

export interface ShippedComponent {
  readonly name: string;
  /** What its <rvtrace:block> says. */
  readonly block: string;
}

let shippedList: ShippedComponent[] | undefined;

/**
 * The shipped components (`ipxact/components/*.xml`), found from their <rvtrace:block> element: by
 * block, the component named as its block first (the block's default), then by name. A file that
 * cannot be read or names no block is not listed (loading it by name reports why).
 */
export function shippedComponentList(): readonly ShippedComponent[] {
  if (shippedList !== undefined) return shippedList;
  const list: ShippedComponent[] = [];
  for (const file of readdirSync(COMPONENTS_DIR).filter((f) => f.endsWith('.xml'))) {
    let block: string | undefined;
    try {
      block = blockElement(readXmlFile(join(COMPONENTS_DIR, file)));
    } catch {
      block = undefined;
    }
    if (block !== undefined) list.push({ name: file.slice(0, -'.xml'.length), block });
  }
  const rank = (c: ShippedComponent): string => `${c.block}\u0000${c.name === c.block ? '' : c.name}`;
  shippedList = list.sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
  return shippedList;
}

/** The shipped components of one block, its default first. */
export function shippedComponents(block: string): string[] {
  return shippedComponentList().filter((c) => c.block === block).map((c) => c.name);
}

/** Every shipped component of every block, block by block. */
export function allShippedComponents(): string[] {
  return shippedComponentList().map((c) => c.name);
}

/**
 * The block a component describes (its <rvtrace:block>), read without validating anything else;
 * undefined when the file cannot be read or has no such element. The loader still checks it.
 */
export function componentBlock(nameOrPath: string): string | undefined {
  const shipped = shippedComponentList().find((c) => c.name === nameOrPath);
  if (shipped !== undefined && existsSync(join(COMPONENTS_DIR, `${nameOrPath}.xml`))) return shipped.block;
  try {
    return blockElement(readXmlFile(componentFile(nameOrPath)));
  } catch {
    return undefined;
  }
}

/** Loads a component or throws ComponentErrors with every problem found. */
export function loadComponent(nameOrPath: string, specs: readonly SettingSpec[], options: LoadOptions = {}): LoadedComponent {
  const result = checkComponent(nameOrPath, specs, options);
  if (result.component === undefined) {
    const file = result.errors[0]?.location.file ?? nameOrPath;
    throw new ComponentErrors(file, result.errors);
  }
  return result.component;
}

export type CheckResult = { component: LoadedComponent; errors: [] } | { component: undefined; errors: RvError[] };

/** `loadComponent` without throwing: the component, or every error (for tests and tools). */
export function checkComponent(nameOrPath: string, specs: readonly SettingSpec[], options: LoadOptions = {}): CheckResult {
  const fail = (errors: RvError[]): CheckResult => ({ component: undefined, errors });
  let file: string;
  let root: XmlElement;
  let sha256: string;
  try {
    file = componentFile(nameOrPath, options.block);
    const doc = readXmlDocument(file);
    root = doc.root;
    sha256 = createHash('sha256').update(doc.bytes).digest('hex');
  } catch (e) {
    if (e instanceof RvError) return fail([e]);
    throw e;
  }
  const standard = detectStandard(root, file);
  if (standard instanceof RvError) return fail([standard]);
  const xsd = validateXsdRemembered(file, standard, options.schemaDir ?? defaultSchemaDir(), sha256);
  if (xsd.length > 0) return fail(xsd);
  const read = readComponent(root, file);
  if (read.component === undefined) return fail(read.errors);
  let mapped = { specs, options };
  if (options.blocks !== undefined) {
    const el = read.component.vendorExtensions.find((e) => e.ns === RVTRACE_NS && e.name === 'block');
    const name = el?.text.trim();
    const block = name === undefined ? undefined : options.blocks.lookup(name);
    if (el !== undefined && block === undefined) {
      return fail([new RvError('invalid-component', `<${el.qname}>${name}</${el.qname}>: no such block (blocks: ${options.blocks.names.join(', ')})`, { file, line: el.line })]);
    }
    if (block !== undefined) mapped = { specs: block.specs, options: { ...options, validate: block.validate } };
  }
  return new ParameterMapper(read.component, root, mapped.specs, mapped.options, sha256).run();
}

interface Extensions {
  block?: string;
  helpers: Map<string, number>;
}

class ParameterMapper {
  private readonly errors: RvError[] = [];
  private readonly settings: Settings = {};
  /** Parameters (or settings) whose own value is in error: later stages keep quiet about them. */
  private readonly failed = new Set<string>();
  private readonly lines = new Map<string, number>();

  constructor(
    private readonly c: IpxactComponent,
    private readonly root: XmlElement,
    private readonly specs: readonly SettingSpec[],
    private readonly options: LoadOptions,
    private readonly sha256: string,
  ) {
    for (const p of c.parameters) if (!this.lines.has(p.name)) this.lines.set(p.name, p.line);
  }

  private error(message: string, line: number, path?: string): void {
    this.errors.push(new RvError('invalid-component', message, path === undefined ? { file: this.c.file, line } : { file: this.c.file, line, path }));
  }

  run(): CheckResult {
    const ext = this.extensions();
    const stringParams = new Set(this.c.parameters.filter((p) => p.type === 'string').map((p) => p.name));
    // A choice among strings is never an expression: it is read as a string or rejected.
    const notExpressions = new Set(this.c.parameters.filter((p) => stringParams.has(p.name) || isStringChoice(this.specs.find((s) => s.name === p.name))).map((p) => p.name));

    for (const p of [...this.c.parameters, ...this.c.modelParameters]) {
      if (isSvKeyword(p.name)) {
        const section = this.c.parameters.includes(p) ? 'parameters' : 'modelParameters';
        this.error(`parameter name "${p.name}" is a SystemVerilog keyword; the generated RTL could not declare it`, p.line, `${section}/${p.name}`);
        this.failed.add(p.name);
      }
    }

    // String parameters are not expressions: the evaluator sees only the others.
    const numeric: IpxactComponent = { ...this.c, parameters: this.c.parameters.filter((p) => !notExpressions.has(p.name)) };
    const resolved = resolveParameters(numeric);
    for (const e of resolved.errors) {
      const name = e.location.path?.split('/').slice(1).join('/');
      if (name !== undefined) this.failed.add(name);
      this.errors.push(e);
    }

    const rangeErrors = new Map<string, RvError>();
    for (const p of this.c.parameters) {
      if (this.failed.has(p.name) && isSvKeyword(p.name)) continue;
      if (ext.helpers.has(p.name)) continue;
      const path = `parameters/${p.name}`;
      const spec = this.specs.find((s) => s.name === p.name);
      if (spec === undefined) {
        this.error(`unknown parameter "${p.name}"${this.suggestion(p.name)}; a parameter that only helps compute others must be listed in <${RVTRACE_PREFIX}:helperParameter>`, p.line, path);
        continue;
      }
      let value: SettingValue | undefined;
      if (stringParams.has(p.name)) {
        value = this.stringValue(spec, p.value, p.line, path);
      } else if (isStringChoice(spec)) {
        this.error(`${p.name} takes one of ${quoted(spec.choices ?? [])}: write it as a parameter with type="string" and a quoted value such as "${spec.choices?.[0] ?? ''}"`, p.line, path);
      } else {
        const v = resolved.values.get(p.name);
        if (v !== undefined) value = this.numericValue(spec, v, p.line, path);
      }
      if (value === undefined) {
        this.failed.add(p.name);
        continue;
      }
      this.settings[p.name] = value;
      const range = rangeProblem(spec, value);
      if (range !== undefined) rangeErrors.set(p.name, new RvError('invalid-component', range, { file: this.c.file, line: p.line, path }));
    }

    const validateErrors = this.validate();
    const byValidate = new Set(validateErrors.map((e) => e.location.path?.split('/').pop()));
    for (const [name, e] of rangeErrors) if (!byValidate.has(name)) this.errors.push(e);
    this.errors.push(...validateErrors);

    if (this.errors.length > 0) {
      const sorted = this.errors.map((e, i) => ({ e, i })).sort((a, b) => (a.e.location.line ?? 0) - (b.e.location.line ?? 0) || a.i - b.i);
      return { component: undefined, errors: sorted.map((x) => x.e) };
    }
    return {
      component: {
        name: this.c.vlnv.name,
        file: this.c.file,
        standard: this.c.standard,
        vlnv: this.c.vlnv,
        description: this.c.description ?? '',
        block: ext.block ?? '',
        settings: this.settings,
        lines: this.lines,
        helpers: [...ext.helpers.keys()],
        sha256: this.sha256,
      },
      errors: [],
    };
  }

  /** Reads <rvtrace:block> and <rvtrace:helperParameter>; other vendors' extensions are ignored. */
  private extensions(): Extensions {
    const ext: Extensions = { helpers: new Map() };
    const ours = this.c.vendorExtensions.filter((el) => el.ns === RVTRACE_NS);
    const names = new Set(this.c.parameters.map((p) => p.name));
    for (const el of ours) {
      const text = el.text.trim();
      if (el.name === 'block') {
        if (ext.block !== undefined) this.error(`<${el.qname}> is given twice`, el.line);
        ext.block = text;
      } else if (el.name === 'helperParameter') {
        if (!names.has(text)) this.error(`<${el.qname}>${text}</${el.qname}> names no parameter of the component`, el.line);
        else if (this.specs.some((s) => s.name === text)) this.error(`<${el.qname}>: "${text}" is a setting${this.blockName()}, so it cannot be a helper parameter`, el.line);
        else ext.helpers.set(text, el.line);
      } else {
        this.error(`unknown element <${el.qname}> in the rvtrace namespace ${RVTRACE_NS} (known: block, helperParameter)`, el.line);
      }
    }
    if (ext.block === undefined) {
      this.error(`missing <${RVTRACE_PREFIX}:block> in <ipxact:vendorExtensions> (namespace ${RVTRACE_NS}): it names the block the component describes${this.options.block ? `, here ${this.options.block}` : ''}`, this.root.line);
    } else if (this.options.block !== undefined && ext.block !== this.options.block) {
      const line = ours.find((el) => el.name === 'block')?.line ?? this.root.line;
      this.error(`the component describes block "${ext.block}" (<${RVTRACE_PREFIX}:block>), but this command needs block "${this.options.block}"`, line);
    }
    return ext;
  }

  /** Line of the first parameter of the file the message names (for errors about a parameter left out). */
  private mentionedLine(message: string): number | undefined {
    const words = new Set(message.split(/[^A-Za-z0-9_.]+/));
    return this.c.parameters.find((p) => words.has(p.name))?.line;
  }

  /** Line of <ipxact:parameters>, else of the root element. */
  private parametersLine(): number {
    return this.root.children.find((c) => c.ns === this.root.ns && c.name === 'parameters')?.line ?? this.root.line;
  }

  private blockName(): string {
    return this.options.block ? ` of block ${this.options.block}` : '';
  }

  private suggestion(name: string): string {
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const s of this.specs) {
      const d = editDistance(name.toLowerCase(), s.name.toLowerCase());
      if (d < bestDistance) {
        best = s.name;
        bestDistance = d;
      }
    }
    const known = `not a setting${this.blockName()}`;
    return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? ` (${known}; did you mean ${best}?)` : ` (${known})`;
  }

  private stringValue(spec: SettingSpec, text: string, line: number, path: string): SettingValue | undefined {
    if (spec.kind !== 'choice' && spec.kind !== 'string') {
      this.error(`${spec.name} is ${article(spec.kind)} ${spec.kind} setting, so its parameter cannot have type="string"`, line, path);
      return undefined;
    }
    const m = /^"((?:[^"\\]|\\.)*)"$/.exec(text);
    if (!m) {
      this.error(`${spec.name}: the value of a string parameter must be a quoted string such as "${spec.choices?.[0] ?? ''}", not ${text}`, line, path);
      return undefined;
    }
    return m[1]!.replace(/\\(.)/g, '$1');
  }

  private numericValue(spec: SettingSpec, v: bigint, line: number, path: string): SettingValue | undefined {
    switch (spec.kind) {
      case 'bool':
        if (v === 0n || v === 1n) return v === 1n;
        this.error(`${spec.name} is a boolean: expected 0 or 1, not ${v}`, line, path);
        return undefined;
      case 'bigint':
        if (v >= 0n) return v;
        this.error(`${spec.name} must be a non-negative integer, not ${v}`, line, path);
        return undefined;
      case 'choice':
        return v.toString();
      case 'string':
        this.error(`${spec.name} is a string setting: its parameter needs type="string" and a quoted value, not ${v}`, line, path);
        return undefined;
      case 'int':
      case 'number':
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
          this.error(`${spec.name} = ${v} is too large`, line, path);
          return undefined;
        }
        return Number(v);
    }
  }

  /** The block's check on defaults + the component's values, located at the parameters concerned. */
  private validate(): RvError[] {
    if (this.options.validate === undefined) return [];
    const full: Settings = {};
    for (const s of this.specs) full[s.name] = s.default;
    Object.assign(full, this.settings);
    let found: RvError[];
    try {
      found = this.options.validate(full);
    } catch (e) {
      // Values already reported as out of range may trip the check; those errors say enough.
      if (this.errors.length > 0) return [];
      throw e;
    }
    const mentionsFailed = (e: RvError): boolean =>
      [...this.failed].some((name) => new RegExp(`(^|[^A-Za-z0-9_.])${name.replace(/[.]/g, '\\.')}($|[^A-Za-z0-9_.])`).test(`${e.location.path ?? ''} ${e.message}`));
    return found
      .filter((e) => !mentionsFailed(e))
      .map((e) => {
        const name = e.location.path?.split('/').pop();
        const isSetting = name !== undefined && this.specs.some((s) => s.name === name);
        const path = isSetting ? `parameters/${name}` : e.location.path;
        const line = (name !== undefined ? this.lines.get(name) : undefined) ?? this.mentionedLine(e.message) ?? this.parametersLine();
        return new RvError(e.code, e.message, path === undefined ? { file: this.c.file, line } : { file: this.c.file, line, path }, e.status);
      });
  }
}

/** A choice setting whose choices are not all integers (payload_layout): written as a string parameter. */
function isStringChoice(spec: SettingSpec | undefined): boolean {
  return spec !== undefined && spec.kind === 'choice' && !(spec.choices ?? []).every((c) => /^-?\d+$/.test(c));
}

function rangeProblem(spec: SettingSpec, value: SettingValue): string | undefined {
  if (spec.kind === 'choice') {
    return spec.choices?.includes(String(value)) ? undefined : `${spec.name} must be one of ${quoted(spec.choices ?? [])}, not ${String(value)}`;
  }
  if (typeof value !== 'number') return undefined;
  if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
    return `${spec.name} = ${value} is outside ${spec.min ?? '-inf'}..${spec.max ?? 'inf'}`;
  }
  return undefined;
}

/** Choices as they are written in a component: integers bare, strings quoted. */
function quoted(choices: readonly string[]): string {
  return choices.map((c) => (/^-?\d+$/.test(c) ? c : `"${c}"`)).join(', ');
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = up;
    }
  }
  return row[b.length]!;
}
