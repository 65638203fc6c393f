import { describe, expect, it } from 'vitest';
import { RvError } from '../../golden-model/common/errors.ts';
import { attribute, parseXml, readXmlFile, XML_NS, type XmlElement } from './xml.ts';

/** The error a parse throws, as `file:line: message`. */
function parseError(text: string): string {
  try {
    parseXml(text, 'x.xml');
  } catch (e) {
    if (e instanceof RvError) {
      expect(e.code).toBe('bad-file');
      return e.oneLine();
    }
    throw e;
  }
  throw new Error('expected a parse error');
}

describe('parseXml', () => {
  it('builds the element tree with namespaces, attributes, text and the line of each element', () => {
    const root = parseXml(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!-- a comment -->',
        '<a:root xmlns:a="urn:a" xmlns="urn:default" a:kind="k" plain=\'p\'>',
        '  <child>one</child>',
        '  <a:empty/>',
        '  <inner xmlns="">',
        '    <bare>x</bare>',
        '  </inner>',
        '</a:root>',
        '<?trailing instruction?>',
      ].join('\n'),
      'f.xml',
    );
    expect(root).toMatchObject({ ns: 'urn:a', name: 'root', qname: 'a:root', line: 3 });
    expect(root.attributes).toEqual([
      { ns: 'urn:a', name: 'kind', qname: 'a:kind', value: 'k' },
      { ns: '', name: 'plain', qname: 'plain', value: 'p' },
    ]);
    expect([...root.namespaces]).toEqual([['a', 'urn:a'], ['', 'urn:default']]);
    expect(attribute(root, 'plain')).toBe('p');
    expect(attribute(root, 'kind')).toBeUndefined(); // it is in a namespace
    const [child, empty, inner] = root.children as [XmlElement, XmlElement, XmlElement];
    expect(child).toMatchObject({ ns: 'urn:default', name: 'child', text: 'one', line: 4 });
    expect(empty).toMatchObject({ ns: 'urn:a', name: 'empty', text: '', line: 5, children: [] });
    expect(inner.children[0]).toMatchObject({ ns: '', name: 'bare', text: 'x', line: 7 });
  });

  it('decodes entities, character references and CDATA, and keeps numbers as text', () => {
    const root = parseXml(
      `<v a="&lt;&amp;&quot;&apos;&gt; &#65;&#x42;">64'hFFFF_FFFF_FFFF_FFFF &lt;&lt; 2<![CDATA[ <raw> & ]]>&#x1F600;</v>`,
      'f.xml',
    );
    expect(attribute(root, 'a')).toBe(`<&"'> AB`);
    expect(root.text).toBe("64'hFFFF_FFFF_FFFF_FFFF << 2 <raw> & \u{1F600}");
  });

  it('normalises white space in attribute values but keeps references to it', () => {
    const root = parseXml('<v a="x\ty\nz&#10;"/>', 'f.xml');
    expect(attribute(root, 'a')).toBe('x y z\n');
  });

  it('counts CR LF and lone CR as one line end, and skips a byte order mark', () => {
    const root = parseXml('\uFEFF<a>\r\n<b/>\r<c/>\r\n</a>', 'f.xml');
    expect(root.children.map((c) => c.line)).toEqual([2, 3]);
    expect(root.text).toBe('\n\n\n');
  });

  it('binds the xml prefix without a declaration', () => {
    const root = parseXml('<a xml:lang="en"/>', 'f.xml');
    expect(root.attributes[0]).toMatchObject({ ns: XML_NS, name: 'lang' });
  });

  it('reports each malformation with the line where it is', () => {
    expect(parseError('<a>\n  <b>\n  </c>\n</a>')).toBe('x.xml:3: malformed XML: closing tag </c> does not match <b> opened at line 2');
    expect(parseError('<a>\n<b>\n')).toBe('x.xml:3: malformed XML: <b> opened at line 2 is not closed');
    expect(parseError('<a>\n  <p:b/>\n</a>')).toBe('x.xml:2: malformed XML: namespace prefix "p" of p:b is not declared');
    expect(parseError('<a>\n x &nbsp; y</a>')).toBe('x.xml:2: malformed XML: unknown entity &nbsp; (known: &lt; &gt; &amp; &quot; &apos; and &#N;)');
    expect(parseError('<a>\n\n a & b</a>')).toBe('x.xml:3: malformed XML: `&` must start a reference such as &amp; (found "&")');
    expect(parseError('<a>&#0;</a>')).toBe('x.xml:1: malformed XML: character reference &#0; is not a valid XML character');
    expect(parseError('<a\n x="1"\n x="2"/>')).toBe('x.xml:3: malformed XML: attribute x appears twice in <a>');
    expect(parseError('<a x="1 < 2"/>')).toBe('x.xml:1: malformed XML: `<` in the value of attribute x; write &lt;');
    expect(parseError('<a x=1/>')).toBe('x.xml:1: malformed XML: expected a quoted value for attribute x');
    expect(parseError('<a>\n  if a < b\n</a>')).toBe('x.xml:2: malformed XML: expected an element name after `<`');
    expect(parseError('<a/>\n<b/>')).toBe('x.xml:2: malformed XML: a second root element: a document has exactly one');
    expect(parseError('<a/>\ntext')).toBe('x.xml:2: malformed XML: text after the root element');
    expect(parseError('<!-- only a comment -->\n')).toBe('x.xml:2: malformed XML: no root element: the file is empty or holds only comments');
    expect(parseError('<!DOCTYPE a>\n<a/>')).toBe('x.xml:1: malformed XML: DOCTYPE declarations are not supported in IP-XACT documents');
    expect(parseError('<a>\n<!-- open\n</a>')).toBe('x.xml:2: malformed XML: comment is not closed (missing `-->`)');
    expect(parseError('<a>\n<![CDATA[ x </a>')).toBe('x.xml:2: malformed XML: CDATA section is not closed (missing `]]>`)');
    expect(parseError('<a>]]></a>')).toBe('x.xml:1: malformed XML: `]]>` is not allowed in text');
    expect(parseError('\n<?xml version="1.0"?><a/>')).toBe('x.xml:2: malformed XML: the XML declaration must be the very first thing in the file');
    expect(parseError('<?xml version="1.0" encoding="ISO-8859-1"?><a/>')).toBe('x.xml:1: malformed XML: encoding "ISO-8859-1" is not supported; expected UTF-8');
  });

  it('reports a missing file as an I/O error naming it', () => {
    expect(() => readXmlFile('/nonexistent/c.xml')).toThrow(expect.objectContaining({ code: 'io', location: { file: '/nonexistent/c.xml' } }));
  });
});
