/**
 * Reads an IP-XACT `component` (IEEE 1685-2014 or 1685-2022) into a typed model that knows
 * nothing about any block. Every number stays the expression text as written; values come from
 * `resolveParameters` and `evalExpr`, which use the expression evaluator in ../expr.
 *
 * The reader checks structure only as far as it reads: a required element that is missing or
 * empty, a direction it does not know, and constructs it does not support (register arrays,
 * register files, banks, ...), which it rejects rather than silently misreads. Schema validity
 * is xsd.ts's job; run it first for the full picture. Every problem in the document is collected
 * before the reader gives up, each with file:line and a path into the component.
 */
import { RvError, type Location } from '../../golden-model/common/errors.ts';
import { evaluate, evaluateAll, ExprError, parseExpression, references, type ParameterInput } from '../expr/index.ts';
import { attribute, readXmlFile, type XmlElement } from './xml.ts';

export type IpxactStandard = '2014' | '2022';

export const IPXACT_NAMESPACES: Readonly<Record<IpxactStandard, string>> = {
  '2014': 'http://www.accellera.org/XMLSchema/IPXACT/1685-2014',
  '2022': 'http://www.accellera.org/XMLSchema/IPXACT/1685-2022',
};

export interface Vlnv {
  vendor: string;
  library: string;
  name: string;
  version: string;
}

export interface IpxactParameter {
  name: string;
  /** The parameterId attribute: other expressions may refer to the parameter by it. */
  id?: string;
  /** The value expression as written, never converted. */
  value: string;
  /** Line of the <parameter> (or <moduleParameter>) element. */
  line: number;
  type?: string;
  resolve?: string;
  description?: string;
}

export interface Field {
  name: string;
  bitOffset: string;
  bitWidth: string;
  access?: string;
  /** The value of the first <reset>. */
  resetValue?: string;
  description?: string;
  line: number;
}

export interface Register {
  name: string;
  addressOffset: string;
  size: string;
  access?: string;
  description?: string;
  fields: Field[];
  line: number;
}

export interface AddressBlock {
  name: string;
  baseAddress: string;
  range: string;
  width: string;
  usage?: string;
  registers: Register[];
  line: number;
}

export interface MemoryMap {
  name: string;
  addressBlocks: AddressBlock[];
  line: number;
}

export type PortDirection = 'in' | 'out' | 'inout';

export interface Port {
  name: string;
  direction: PortDirection;
  /** Vector bounds as expressions; absent for a scalar port. */
  left?: string;
  right?: string;
  line: number;
}

export interface FileSet {
  name: string;
  files: { name: string; fileType: string; line: number }[];
  line: number;
}

export interface IpxactComponent {
  standard: IpxactStandard;
  file: string;
  vlnv: Vlnv;
  description?: string;
  /** Component parameters (component/parameters). */
  parameters: IpxactParameter[];
  /**
   * Module parameters of every model/instantiations/componentInstantiation (both standards
   * put them there; 1685-2009's model/modelParameters no longer exists).
   */
  modelParameters: IpxactParameter[];
  memoryMaps: MemoryMap[];
  ports: Port[];
  fileSets: FileSet[];
  /** The children of component/vendorExtensions, raw, in their own namespaces. */
  vendorExtensions: XmlElement[];
}

/** Either a component or every error found in the document. */
export type ReadResult =
  | { component: IpxactComponent; errors: [] }
  | { component: undefined; errors: RvError[] };

/** Reads a component file; I/O and XML errors come back in `errors` like any other. */
export function readComponentFile(file: string): ReadResult {
  let root: XmlElement;
  try {
    root = readXmlFile(file);
  } catch (e) {
    if (e instanceof RvError) return { component: undefined, errors: [e] };
    throw e;
  }
  return readComponent(root, file);
}

/** Which standard a root element belongs to, or an error naming what was found and what is accepted. */
export function detectStandard(root: XmlElement, file: string): IpxactStandard | RvError {
  const standard = (Object.keys(IPXACT_NAMESPACES) as IpxactStandard[]).find((s) => IPXACT_NAMESPACES[s] === root.ns);
  const accepted = `an IP-XACT <component> in namespace ${IPXACT_NAMESPACES['2014']} (IEEE 1685-2014) or ${IPXACT_NAMESPACES['2022']} (IEEE 1685-2022)`;
  const where = { file, line: root.line };
  if (standard === undefined) {
    const found = root.ns === '' ? 'in no namespace' : `in namespace ${root.ns}`;
    return new RvError('invalid-component', `root element <${root.qname}> is ${found}; expected ${accepted}`, where);
  }
  if (root.name !== 'component') {
    return new RvError('invalid-component', `root element is <${root.qname}>, an IP-XACT ${root.name} document; expected ${accepted}`, where);
  }
  return standard;
}

/** Reads a parsed document (the root element) as a component. */
export function readComponent(root: XmlElement, file: string): ReadResult {
  const standard = detectStandard(root, file);
  if (standard instanceof RvError) return { component: undefined, errors: [standard] };
  const r = new ComponentReader(file, IPXACT_NAMESPACES[standard]);
  const model = r.child(root, 'model');
  const component: IpxactComponent = {
    standard,
    file,
    vlnv: {
      vendor: r.required(root, 'vendor', 'component'),
      library: r.required(root, 'library', 'component'),
      name: r.required(root, 'name', 'component'),
      version: r.required(root, 'version', 'component'),
    },
    ...r.optional(root, 'description', 'description'),
    parameters: r.parameters(r.child(root, 'parameters'), 'parameter', 'parameters'),
    modelParameters: r
      .grandchildren(r.child(model, 'instantiations'), 'componentInstantiation')
      .flatMap((inst) => r.parameters(r.child(inst, 'moduleParameters'), 'moduleParameter', 'modelParameters')),
    memoryMaps: r.grandchildren(r.child(root, 'memoryMaps'), 'memoryMap').map((m) => r.memoryMap(m)),
    ports: r.grandchildren(r.child(model, 'ports'), 'port').map((p) => r.port(p)),
    fileSets: r.grandchildren(r.child(root, 'fileSets'), 'fileSet').map((f) => r.fileSet(f)),
    vendorExtensions: [...(r.child(root, 'vendorExtensions')?.children ?? [])],
  };
  if (r.errors.length > 0) return { component: undefined, errors: r.errors };
  return { component, errors: [] };
}

/** `name` with the prefix `el` is written with, for messages in the document's own spelling. */
function sibling(el: XmlElement, name: string): string {
  const colon = el.qname.indexOf(':');
  return colon < 0 ? name : `${el.qname.slice(0, colon + 1)}${name}`;
}

/** Reading helpers bound to the document's IP-XACT namespace; problems pile up in `errors`. */
class ComponentReader {
  readonly errors: RvError[] = [];

  constructor(
    private readonly file: string,
    private readonly ns: string,
  ) {}

  child(el: XmlElement | undefined, name: string): XmlElement | undefined {
    return el?.children.find((c) => c.ns === this.ns && c.name === name);
  }

  /** `<outer><name/><name/></outer>`: the named children of an optional container. */
  grandchildren(el: XmlElement | undefined, name: string): XmlElement[] {
    return el?.children.filter((c) => c.ns === this.ns && c.name === name) ?? [];
  }

  /** Trimmed text of a required child; records an error and returns '' when missing or empty. */
  required(el: XmlElement, name: string, path: string): string {
    const c = this.child(el, name);
    const text = c?.text.trim() ?? '';
    if (text === '') {
      const what = c === undefined ? 'missing required element' : 'empty element';
      this.fail(`<${el.qname}>: ${what} <${sibling(el, name)}>`, c ?? el, path);
    }
    return text;
  }

  /** `{ [key]: text }` when the child is present and not empty, else `{}` (for optional properties). */
  optional<K extends string>(el: XmlElement | undefined, name: string, key: K): { [P in K]?: string } {
    const text = this.child(el, name)?.text.trim();
    return text ? ({ [key]: text } as { [P in K]?: string }) : {};
  }

  fail(message: string, el: XmlElement, path: string): void {
    this.errors.push(new RvError('invalid-component', message, { file: this.file, line: el.line, path }));
  }

  /** Rejects constructs whose meaning the model cannot carry, rather than ignoring them. */
  unsupported(el: XmlElement, names: readonly string[], path: string): void {
    for (const name of names) {
      const c = this.child(el, name);
      if (c) this.fail(`<${c.qname}> in <${el.qname}> is not supported by rvtrace`, c, path);
    }
  }

  parameters(container: XmlElement | undefined, element: string, section: string): IpxactParameter[] {
    return this.grandchildren(container, element).map((p) => {
      const name = this.required(p, 'name', section);
      const path = `${section}/${name}`;
      const param: IpxactParameter = { name, value: this.required(p, 'value', path), line: p.line };
      const id = attribute(p, 'parameterId');
      const type = attribute(p, 'type');
      const resolve = attribute(p, 'resolve');
      if (id !== undefined) param.id = id;
      if (type !== undefined) param.type = type;
      if (resolve !== undefined) param.resolve = resolve;
      return { ...param, ...this.optional(p, 'description', 'description') };
    });
  }

  memoryMap(m: XmlElement): MemoryMap {
    const name = this.required(m, 'name', 'memoryMaps');
    const path = `memoryMaps/${name}`;
    this.unsupported(m, ['bank', 'subspaceMap', 'isPresent'], path);
    return {
      name,
      addressBlocks: this.grandchildren(m, 'addressBlock').map((b) => this.addressBlock(b, path)),
      line: m.line,
    };
  }

  addressBlock(b: XmlElement, parent: string): AddressBlock {
    const name = this.required(b, 'name', parent);
    const path = `${parent}/${name}`;
    this.unsupported(b, ['registerFile', 'isPresent', 'array', 'addressBlockDefinitionRef'], path);
    return {
      name,
      baseAddress: this.required(b, 'baseAddress', path),
      range: this.required(b, 'range', path),
      width: this.required(b, 'width', path),
      ...this.optional(b, 'usage', 'usage'),
      registers: this.grandchildren(b, 'register').map((reg) => this.register(reg, path)),
      line: b.line,
    };
  }

  register(reg: XmlElement, parent: string): Register {
    const name = this.required(reg, 'name', parent);
    const path = `${parent}/${name}`;
    this.unsupported(reg, ['dim', 'array', 'isPresent', 'registerDefinitionRef', 'alternateRegisters'], path);
    return {
      name,
      addressOffset: this.required(reg, 'addressOffset', path),
      size: this.required(reg, 'size', path),
      ...this.access(reg, 'accessPolicies', 'accessPolicy'),
      ...this.optional(reg, 'description', 'description'),
      fields: this.grandchildren(reg, 'field').map((f) => this.field(f, path)),
      line: reg.line,
    };
  }

  field(f: XmlElement, parent: string): Field {
    const name = this.required(f, 'name', parent);
    const path = `${parent}/${name}`;
    this.unsupported(f, ['array', 'isPresent', 'fieldDefinitionRef', 'aliasOf'], path);
    const reset = this.grandchildren(this.child(f, 'resets'), 'reset')[0];
    return {
      name,
      bitOffset: this.required(f, 'bitOffset', path),
      bitWidth: this.required(f, 'bitWidth', path),
      ...this.access(f, 'fieldAccessPolicies', 'fieldAccessPolicy'),
      ...(reset ? { resetValue: this.required(reset, 'value', path) } : {}),
      ...this.optional(f, 'description', 'description'),
      line: f.line,
    };
  }

  /** 2014 writes <access> directly; 2022 inside the first access policy (the mode-less default). */
  access(el: XmlElement, policies: string, policy: string): { access?: string } {
    const direct = this.optional(el, 'access', 'access');
    if (direct.access !== undefined) return direct;
    return this.optional(this.grandchildren(this.child(el, policies), policy)[0], 'access', 'access');
  }

  port(p: XmlElement): Port {
    const name = this.required(p, 'name', 'ports');
    const path = `ports/${name}`;
    const wire = this.child(p, 'wire');
    const port: Port = { name, direction: 'in', line: p.line };
    this.unsupported(p, ['isPresent', 'arrays'], path);
    if (wire === undefined) {
      this.fail(`port ${name}: only wire ports are supported (no <ipxact:wire>)`, p, path);
      return port;
    }
    const direction = this.required(wire, 'direction', path);
    if (direction === 'in' || direction === 'out' || direction === 'inout') port.direction = direction;
    else if (direction !== '') this.fail(`port ${name}: direction must be in, out or inout; found "${direction}"`, this.child(wire, 'direction')!, path);
    const vectors = this.grandchildren(this.child(wire, 'vectors'), 'vector');
    if (vectors.length > 1) this.fail(`port ${name}: ${vectors.length} vector dimensions; only one is supported`, vectors[1]!, path);
    const vector = vectors[0];
    if (vector) {
      port.left = this.required(vector, 'left', path);
      port.right = this.required(vector, 'right', path);
    }
    return port;
  }

  fileSet(s: XmlElement): FileSet {
    const name = this.required(s, 'name', 'fileSets');
    const path = `fileSets/${name}`;
    return {
      name,
      files: this.grandchildren(s, 'file').map((f) => ({
        name: this.required(f, 'name', path),
        // A file may list several types; the first is the one tools act on.
        fileType: this.required(f, 'fileType', path),
        line: f.line,
      })),
      line: s.line,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Values

export interface ResolvedParameters {
  /** Component parameters that evaluated, by name. */
  values: Map<string, bigint>;
  /** Module parameters that evaluated, by name (they may share names with component parameters). */
  modelValues: Map<string, bigint>;
  errors: RvError[];
}

/**
 * Evaluates the component parameters, then the module parameters, collecting every error.
 *
 * Two scopes, as in IP-XACT: component parameters see each other; module parameters see each
 * other first and then the component parameters. That keeps the common layout legal where a
 * module parameter `WIDTH` has the value `uuid_x`, the parameterId of component parameter `WIDTH`.
 */
export function resolveParameters(component: IpxactComponent): ResolvedParameters {
  const errors: RvError[] = [];
  const values = evaluateScope(component, component.parameters, [], 'parameters', 'a component parameter', errors);

  // The component parameters enter the module scope as stand-ins under each key (name, id) that
  // no module parameter takes. A failed one gets an unparsable value so that its dependants say
  // "depends on X, which could not be evaluated" instead of "undefined reference".
  const taken = new Set(component.modelParameters.flatMap((p) => (p.id === undefined ? [p.name] : [p.name, p.id])));
  const standIns: ParameterInput[] = [];
  for (const p of component.parameters) {
    const value = values.get(p.name);
    for (const key of p.id === undefined ? [p.name] : [p.name, p.id]) {
      if (taken.has(key)) continue;
      taken.add(key);
      standIns.push({ name: key, value: value === undefined ? '(' : value.toString() });
    }
  }
  const modelValues = evaluateScope(component, component.modelParameters, standIns, 'modelParameters', 'a module or component parameter', errors);
  return { values, modelValues, errors };
}

function evaluateScope(
  component: IpxactComponent,
  params: readonly IpxactParameter[],
  standIns: readonly ParameterInput[],
  section: string,
  visible: string,
  errors: RvError[],
): Map<string, bigint> {
  const inputs: ParameterInput[] = params.map((p) => (p.id === undefined ? { name: p.name, value: p.value } : { name: p.name, id: p.id, value: p.value }));
  const result = evaluateAll([...inputs, ...standIns]);
  const own = new Map(params.map((p) => [p.name, p]));
  for (const e of result.errors) {
    const p = own.get(e.name);
    if (p === undefined) continue; // a stand-in: its own problem was reported in its scope
    errors.push(new RvError('invalid-component', `value "${p.value}": ${explain(e.message, visible)}`, {
      file: component.file,
      line: p.line,
      path: `${section}/${p.name}`,
    }));
  }
  return new Map([...result.values].filter(([name]) => own.has(name)));
}

/** Adds what was expected to the evaluator's message where it does not say so itself. */
function explain(message: string, visible: string): string {
  return message.startsWith('undefined reference') ? `${message}: expected the name or parameterId of ${visible}` : message;
}

export type EvalResult = { ok: true; value: bigint } | { ok: false; error: RvError };

/**
 * Evaluates an expression of the component (a register offset, a field width, a port bound)
 * against the component parameters, by name or parameterId (module parameters belong to their
 * componentInstantiation and are not visible here). `where` says where the text is, e.g.
 * `{ line: field.line, path: 'memoryMaps/csr/regs/control/mode/bitWidth' }`.
 */
export function evalExpr(
  component: IpxactComponent,
  text: string,
  values: ReadonlyMap<string, bigint>,
  where: { line: number; path: string },
): EvalResult {
  const location: Location = { file: component.file, line: where.line, path: where.path };
  const fail = (message: string): EvalResult => ({ ok: false, error: new RvError('invalid-component', `"${text}": ${message}`, location) });
  const byKey = new Map<string, IpxactParameter>();
  for (const p of component.parameters) {
    byKey.set(p.name, p);
    if (p.id !== undefined) byKey.set(p.id, p);
  }
  try {
    const expr = parseExpression(text);
    for (const ref of references(expr)) {
      const p = byKey.get(ref);
      if (p !== undefined && !values.has(p.name)) return fail(`depends on parameter ${p.name}, which could not be evaluated`);
    }
    const value = evaluate(expr, { lookup: (key) => { const p = byKey.get(key); return p && values.get(p.name); } });
    return { ok: true, value };
  } catch (e) {
    if (e instanceof ExprError) return fail(explain(e.message, 'a component parameter'));
    throw e;
  }
}
