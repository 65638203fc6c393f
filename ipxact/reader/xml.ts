/**
 * A small XML parser for IP-XACT documents: elements, attributes, text, CDATA, comments,
 * processing instructions, the XML declaration, namespaces, the five predefined entities and
 * numeric character references. DOCTYPE is refused: IP-XACT never needs it, and refusing it
 * rules out entity-expansion tricks.
 *
 * Written here rather than taken from npm because error messages must name file:line for every
 * element, and every value must stay a string (64-bit numbers lose precision as JS numbers).
 * Lines are counted on the text after XML's line-end normalisation (CR LF and lone CR become LF),
 * which is what editors and xmllint count.
 */
import { readFileSync } from 'node:fs';
import { RvError } from '../../golden-model/common/errors.ts';

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

export interface XmlAttribute {
  /** Namespace URI; '' for an unprefixed attribute (attributes do not take the default namespace). */
  readonly ns: string;
  readonly name: string;
  /** As written, `prefix:local` or `local`. */
  readonly qname: string;
  readonly value: string;
}

export interface XmlElement {
  /** Namespace URI; '' when the element is in no namespace. */
  readonly ns: string;
  /** Local name. */
  readonly name: string;
  /** As written, `prefix:local` or `local`; for messages and for writing the element back. */
  readonly qname: string;
  /** Attributes in document order, without namespace declarations (those are in `namespaces`). */
  readonly attributes: readonly XmlAttribute[];
  /** Namespaces declared on this element: prefix ('' for the default) to URI. */
  readonly namespaces: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** Character data directly inside this element (text and CDATA), entities decoded, untrimmed. */
  readonly text: string;
  /** 1-based line of the element's `<`. */
  readonly line: number;
}

/** The value of an attribute in no namespace, e.g. `parameterId`. */
export function attribute(el: XmlElement, name: string): string | undefined {
  return el.attributes.find((a) => a.ns === '' && a.name === name)?.value;
}

/** Reads and parses a file; I/O problems are RvError('io'), bad XML RvError('bad-file'). */
export function readXmlFile(file: string): XmlElement {
  return readXmlDocument(file).root;
}

/** The root element and the bytes it was parsed from (for a hash of exactly what was read). */
export function readXmlDocument(file: string): { root: XmlElement; bytes: Uint8Array } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RvError('io', code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? String(e)})`, { file });
  }
  return { root: parseXml(bytes.toString('utf8'), file), bytes };
}

/** Parses a whole document and returns its root element; throws RvError('bad-file') at the first error. */
export function parseXml(source: string, file: string): XmlElement {
  return new Parser(source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'), file).document();
}

interface Open {
  qname: string;
  line: number;
  attributes: { qname: string; value: string }[];
  namespaces: Map<string, string>;
  /** Namespaces in scope here, this element's declarations included. */
  scope: Map<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME_START = 'A-Za-z_\\u00C0-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
/** A name with at most one colon, which the namespace step splits. */
const QNAME = new RegExp(`[${NAME_START}][${NAME_CHAR}]*(?::[${NAME_START}][${NAME_CHAR}]*)?`, 'y');
const SPACE = /[ \t\n]*/y;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

class Parser {
  private pos = 0;
  /** Offsets of every '\n', to turn an offset into a line by binary search. */
  private readonly newlines: number[] = [];

  constructor(
    private readonly src: string,
    private readonly file: string,
  ) {
    for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) this.newlines.push(i);
  }

  document(): XmlElement {
    if (this.src.startsWith('<?xml') && /[ \t\n?]/.test(this.src[5] ?? '')) this.declaration();
    const stack: Open[] = [];
    let root: XmlElement | undefined;
    const top = new Map([['xml', XML_NS], ['xmlns', XMLNS_NS]]);

    while (this.pos < this.src.length) {
      const open = stack[stack.length - 1];
      const lt = this.src.indexOf('<', this.pos);
      const textEnd = lt < 0 ? this.src.length : lt;
      if (textEnd > this.pos) {
        const raw = this.src.slice(this.pos, textEnd);
        const cdataEnd = raw.indexOf(']]>');
        if (cdataEnd >= 0) throw this.error('`]]>` is not allowed in text', this.pos + cdataEnd);
        if (open) {
          open.text += this.decode(raw, this.pos);
        } else if (raw.trim() !== '') {
          const at = this.pos + raw.search(/\S/);
          throw this.error(root ? 'text after the root element' : 'text before the root element', at);
        }
        this.pos = textEnd;
        continue;
      }
      const at = (token: string): boolean => this.src.startsWith(token, this.pos);
      if (at('<!--')) {
        const end = this.src.indexOf('-->', this.pos + 4);
        if (end < 0) throw this.error('comment is not closed (missing `-->`)', this.pos);
        this.pos = end + 3;
      } else if (at('<![CDATA[')) {
        if (!open) throw this.error('CDATA outside the root element', this.pos);
        const end = this.src.indexOf(']]>', this.pos + 9);
        if (end < 0) throw this.error('CDATA section is not closed (missing `]]>`)', this.pos);
        open.text += this.src.slice(this.pos + 9, end);
        this.pos = end + 3;
      } else if (at('<!DOCTYPE')) {
        throw this.error('DOCTYPE declarations are not supported in IP-XACT documents', this.pos);
      } else if (at('<?')) {
        this.instruction();
      } else if (at('</')) {
        const line = this.lineAt(this.pos);
        this.pos += 2;
        const qname = this.name('a name after `</`');
        this.match(SPACE);
        this.expect('>', `\`>\` to end the closing tag </${qname}>`);
        if (!open) throw this.errorAtLine(`closing tag </${qname}> without an opening tag`, line);
        if (qname !== open.qname) {
          throw this.errorAtLine(`closing tag </${qname}> does not match <${open.qname}> opened at line ${open.line}`, line);
        }
        stack.pop();
        const el = this.finish(open);
        const parent = stack[stack.length - 1];
        if (parent) parent.children.push(el);
        else root = el;
      } else {
        if (root) throw this.error('a second root element: a document has exactly one', this.pos);
        const el = this.startTag(open?.scope ?? top);
        if (el.selfClosing) {
          const done = this.finish(el.open);
          if (open) open.children.push(done);
          else root = done;
        } else {
          stack.push(el.open);
        }
      }
    }
    const unclosed = stack[stack.length - 1];
    if (unclosed) throw this.error(`<${unclosed.qname}> opened at line ${unclosed.line} is not closed`, this.src.length);
    if (!root) throw this.error('no root element: the file is empty or holds only comments', this.src.length);
    return root;
  }

  /** `<?xml version="1.0" encoding="UTF-8"?>`: only the encoding matters, as we read UTF-8. */
  private declaration(): void {
    const end = this.src.indexOf('?>');
    if (end < 0) throw this.error('XML declaration is not closed (missing `?>`)', 0);
    const encoding = /\bencoding\s*=\s*["']([^"']*)["']/.exec(this.src.slice(0, end))?.[1];
    if (encoding !== undefined && !/^(utf-?8|us-ascii)$/i.test(encoding)) {
      throw this.error(`encoding "${encoding}" is not supported; expected UTF-8`, 0);
    }
    this.pos = end + 2;
  }

  private instruction(): void {
    const start = this.pos;
    const end = this.src.indexOf('?>', start + 2);
    if (end < 0) throw this.error('processing instruction is not closed (missing `?>`)', start);
    if (/^<\?xml[ \t\n?]/i.test(this.src.slice(start, start + 6))) {
      throw this.error('the XML declaration must be the very first thing in the file', start);
    }
    this.pos = end + 2;
  }

  private startTag(parentScope: Map<string, string>): { open: Open; selfClosing: boolean } {
    const line = this.lineAt(this.pos);
    this.pos += 1;
    const qname = this.name('an element name after `<`');
    const attributes: { qname: string; value: string }[] = [];
    const namespaces = new Map<string, string>();
    for (;;) {
      const spaced = this.match(SPACE) !== '';
      if (this.src.startsWith('/>', this.pos) || this.src.startsWith('>', this.pos)) break;
      if (!spaced) throw this.error(`expected white space, \`>\` or \`/>\` in <${qname}>`, this.pos);
      const attrPos = this.pos;
      const name = this.name(`an attribute name, \`>\` or \`/>\` in <${qname}>`);
      this.match(SPACE);
      this.expect('=', `\`=\` after attribute ${name}`);
      this.match(SPACE);
      const value = this.quoted(name);
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        const prefix = name === 'xmlns' ? '' : name.slice(6);
        if (namespaces.has(prefix)) throw this.error(`namespace prefix "${prefix}" declared twice`, attrPos);
        if (prefix !== '' && value === '') throw this.error(`namespace prefix "${prefix}" bound to an empty URI`, attrPos);
        namespaces.set(prefix, value);
      } else {
        if (attributes.some((a) => a.qname === name)) throw this.error(`attribute ${name} appears twice in <${qname}>`, attrPos);
        attributes.push({ qname: name, value });
      }
    }
    const selfClosing = this.src.startsWith('/>', this.pos);
    this.pos += selfClosing ? 2 : 1;
    const scope = namespaces.size === 0 ? parentScope : new Map([...parentScope, ...namespaces]);
    return { open: { qname, line, attributes, namespaces, scope, children: [], text: '' }, selfClosing };
  }

  /** Resolves prefixes (they may be declared after use on the same tag, so only now). */
  private finish(open: Open): XmlElement {
    const resolve = (qname: string, isAttribute: boolean): { ns: string; name: string } => {
      const colon = qname.indexOf(':');
      if (colon < 0) return { ns: isAttribute ? '' : (open.scope.get('') ?? ''), name: qname };
      const prefix = qname.slice(0, colon);
      const ns = open.scope.get(prefix);
      if (ns === undefined) throw this.errorAtLine(`namespace prefix "${prefix}" of ${qname} is not declared`, open.line);
      return { ns, name: qname.slice(colon + 1) };
    };
    const attributes = open.attributes.map((a) => ({ ...resolve(a.qname, true), qname: a.qname, value: a.value }));
    const seen = new Set<string>();
    for (const a of attributes) {
      const key = `{${a.ns}}${a.name}`;
      if (seen.has(key)) throw this.errorAtLine(`attribute ${a.qname} appears twice in <${open.qname}> (same namespace and name)`, open.line);
      seen.add(key);
    }
    return {
      ...resolve(open.qname, false),
      qname: open.qname,
      attributes,
      namespaces: open.namespaces,
      children: open.children,
      text: open.text,
      line: open.line,
    };
  }

  private quoted(attr: string): string {
    const quote = this.src[this.pos];
    if (quote !== '"' && quote !== "'") throw this.error(`expected a quoted value for attribute ${attr}`, this.pos);
    const start = this.pos + 1;
    const end = this.src.indexOf(quote, start);
    if (end < 0) throw this.error(`value of attribute ${attr} is not closed`, this.pos);
    const raw = this.src.slice(start, end);
    const lt = raw.indexOf('<');
    if (lt >= 0) throw this.error(`\`<\` in the value of attribute ${attr}; write &lt;`, start + lt);
    this.pos = end + 1;
    // Attribute-value normalisation: literal white space becomes a space; references are kept.
    return this.decode(raw.replace(/[\t\n]/g, ' '), start);
  }

  /** Decodes entity and character references in `raw`, which starts at offset `at`. */
  private decode(raw: string, at: number): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;&\s<]*);?/g, (whole, ref: string, offset: number) => {
      const where = at + offset;
      if (!whole.endsWith(';')) throw this.error(`\`&\` must start a reference such as &amp; (found "${whole}")`, where);
      const named = ENTITIES[ref];
      if (named !== undefined) return named;
      const num = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(ref);
      if (!num) throw this.error(`unknown entity &${ref}; (known: &lt; &gt; &amp; &quot; &apos; and &#N;)`, where);
      const code = num[1] !== undefined ? parseInt(num[1], 16) : parseInt(num[2]!, 10);
      const valid = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
      if (!valid) throw this.error(`character reference &${ref}; is not a valid XML character`, where);
      return String.fromCodePoint(code);
    });
  }

  private name(what: string): string {
    const name = this.match(QNAME);
    if (name === '') throw this.error(`expected ${what}`, this.pos);
    return name;
  }

  private expect(token: string, what: string): void {
    if (!this.src.startsWith(token, this.pos)) throw this.error(`expected ${what}`, this.pos);
    this.pos += token.length;
  }

  /** Matches a sticky regex at the current position and advances past it. */
  private match(re: RegExp): string {
    re.lastIndex = this.pos;
    const m = re.exec(this.src);
    if (!m) return '';
    this.pos += m[0].length;
    return m[0];
  }

  private lineAt(offset: number): number {
    let lo = 0;
    let hi = this.newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.newlines[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  private error(message: string, offset: number): RvError {
    return this.errorAtLine(message, this.lineAt(offset));
  }

  private errorAtLine(message: string, line: number): RvError {
    return new RvError('bad-file', `malformed XML: ${message}`, { file: this.file, line });
  }
}
