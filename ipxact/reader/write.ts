/**
 * A deterministic XML writer for the IP-XACT export: the same tree always gives the same bytes
 * (attributes in the order given, 2-space indentation, `\n` line ends, UTF-8 declaration), so
 * exported files can be checked in and diffed like the generated RTL.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import { XML_NS, type XmlElement } from './xml.ts';

export interface XmlNode {
  /** Qualified name as it is to be written, e.g. `ipxact:component`. */
  readonly name: string;
  /** Written in insertion order; namespace declarations (`xmlns:ipxact`) are ordinary attributes here. */
  readonly attributes?: Readonly<Record<string, string>>;
  /** Text (escaped on output), comments and elements. */
  readonly children?: readonly (XmlNode | XmlComment | string)[];
}

export interface XmlComment {
  readonly comment: string;
}

/** The whole document: declaration, optional comments (a banner), the root, a final newline. */
export function xmlDocument(root: XmlNode, leadingComments: readonly string[] = []): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  for (const c of leadingComments) lines.push(comment(c));
  writeElement(root, '', lines);
  return `${lines.join('\n')}\n`;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*(:[A-Za-z_][A-Za-z0-9_.-]*)?$/;
// Characters XML 1.0 cannot carry at all, even as references.
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function writeElement(node: XmlNode, indent: string, lines: string[]): void {
  checkName(node.name);
  let open = `${indent}<${node.name}`;
  for (const [name, value] of Object.entries(node.attributes ?? {})) {
    checkName(name);
    open += ` ${name}="${escapeAttribute(value)}"`;
  }
  const children = node.children ?? [];
  if (children.length === 0) {
    lines.push(`${open}/>`);
  } else if (children.every((c) => typeof c === 'string')) {
    lines.push(`${open}>${children.map(escapeText).join('')}</${node.name}>`);
  } else {
    // Element content: one child per line. IP-XACT has no mixed content, so the white space
    // this adds around any text is insignificant.
    lines.push(`${open}>`);
    const inner = `${indent}  `;
    for (const child of children) {
      if (typeof child === 'string') lines.push(inner + escapeText(child));
      else if ('comment' in child) lines.push(inner + comment(child.comment));
      else writeElement(child, inner, lines);
    }
    lines.push(`${indent}</${node.name}>`);
  }
}

function comment(text: string): string {
  checkChars(text);
  if (text.includes('--') || text.endsWith('-')) {
    throw new RvError('bad-value', `an XML comment cannot contain "--" or end with "-": ${JSON.stringify(text)}`);
  }
  return `<!--${text}-->`;
}

function escapeText(text: string): string {
  checkChars(text);
  // `>` only needs escaping in `]]>`; escaping it always is simpler and still valid.
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

function escapeAttribute(text: string): string {
  // Tabs and line ends as references: literal ones would be normalised to spaces on reading.
  return escapeText(text).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw new RvError('bad-value', `not an XML name: ${JSON.stringify(name)}`);
}

function checkChars(text: string): void {
  const bad = INVALID.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new RvError('bad-value', `U+${code} cannot be written in XML 1.0 (in ${JSON.stringify(text)})`);
  }
}

/**
 * A parsed element as a node to write back (vendor extensions pass through the export this
 * way). Prefixes are kept as written; a namespace declaration is added wherever a prefix is not
 * yet bound to the element's URI in the output, so the subtree stands on its own. `inScope` says
 * which prefixes the surrounding output already declares, e.g. `{ ipxact: '<2014 URI>' }`.
 */
export function toNode(el: XmlElement, inScope: Readonly<Record<string, string>> = {}): XmlNode {
  return convert(el, new Map([['xml', XML_NS], ...Object.entries(inScope)]));
}

function convert(el: XmlElement, scope: Map<string, string>): XmlNode {
  const attributes: Record<string, string> = {};
  const local = new Map(scope);
  const bind = (qname: string, ns: string, isAttribute: boolean): void => {
    const colon = qname.indexOf(':');
    if (colon < 0 && isAttribute) return; // unprefixed attributes are in no namespace
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    if ((local.get(prefix) ?? '') === ns) return;
    local.set(prefix, ns);
    attributes[prefix === '' ? 'xmlns' : `xmlns:${prefix}`] = ns;
  };
  bind(el.qname, el.ns, false);
  for (const a of el.attributes) bind(a.qname, a.ns, true);
  for (const a of el.attributes) attributes[a.qname] = a.value;
  const children: (XmlNode | string)[] = el.children.map((c) => convert(c, local));
  // Text between child elements is layout; keep text only where it is the content.
  const text = el.text.trim() === '' && el.children.length > 0 ? '' : el.text;
  if (text !== '') children.unshift(text);
  return { name: el.qname, attributes, children };
}
