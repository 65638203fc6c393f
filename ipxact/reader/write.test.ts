import { describe, expect, it } from 'vitest';
import { toNode, xmlDocument, type XmlNode } from './write.ts';
import { parseXml } from './xml.ts';

const NS = 'http://www.accellera.org/XMLSchema/IPXACT/1685-2014';

describe('xmlDocument', () => {
  it('writes a declaration, 2-space indentation, attributes in order and `\\n` line ends', () => {
    const doc: XmlNode = {
      name: 'ipxact:component',
      attributes: { 'xmlns:ipxact': NS, 'z-first': '1', a: '2' },
      children: [
        { comment: ' generated ' },
        { name: 'ipxact:name', children: ['demo'] },
        { name: 'ipxact:parameters', children: [{ name: 'ipxact:parameter', attributes: { parameterId: 'W' }, children: [{ name: 'ipxact:value', children: ["64'hFFFF_FFFF_FFFF_FFFF"] }] }] },
        { name: 'ipxact:vendorExtensions' },
      ],
    };
    expect(xmlDocument(doc, [' banner: do not edit '])).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!-- banner: do not edit -->',
        `<ipxact:component xmlns:ipxact="${NS}" z-first="1" a="2">`,
        '  <!-- generated -->',
        '  <ipxact:name>demo</ipxact:name>',
        '  <ipxact:parameters>',
        '    <ipxact:parameter parameterId="W">',
        "      <ipxact:value>64'hFFFF_FFFF_FFFF_FFFF</ipxact:value>",
        '    </ipxact:parameter>',
        '  </ipxact:parameters>',
        '  <ipxact:vendorExtensions/>',
        '</ipxact:component>',
        '',
      ].join('\n'),
    );
  });

  it('escapes text and attributes so that parsing gives the same strings back', () => {
    const text = 'a < b && c > d ]]> \r "q" \'s\'';
    const attr = 'x < "y" & z\n\tw';
    const out = xmlDocument({ name: 'v', attributes: { a: attr }, children: [text] });
    expect(out).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<v a="x &lt; &quot;y&quot; &amp; z&#10;&#9;w">a &lt; b &amp;&amp; c &gt; d ]]&gt; &#13; "q" \'s\'</v>\n',
    );
    const back = parseXml(out, 'out.xml');
    expect(back.text).toBe(text);
    expect(back.attributes[0]!.value).toBe(attr);
  });

  it('refuses what XML cannot carry instead of writing a broken file', () => {
    expect(() => xmlDocument({ name: 'v', children: ['bell \u0007'] })).toThrow('U+0007 cannot be written in XML 1.0');
    expect(() => xmlDocument({ name: '1bad' })).toThrow('not an XML name: "1bad"');
    expect(() => xmlDocument({ name: 'v' }, ['a -- b'])).toThrow('an XML comment cannot contain "--"');
  });
});

describe('toNode', () => {
  it('writes a parsed vendor extension back with the namespace declarations it needs', () => {
    const root = parseXml(
      [
        `<ipxact:vendorExtensions xmlns:ipxact="${NS}" xmlns:rvt="urn:rvt" xmlns:o="urn:other">`,
        '  <rvt:block name="etrace" o:flag="1">',
        '    <rvt:note><![CDATA[raw <text> & more]]></rvt:note>',
        '    <plain xmlns="urn:d"/>',
        '  </rvt:block>',
        '</ipxact:vendorExtensions>',
      ].join('\n'),
      'f.xml',
    );
    const node = toNode(root.children[0]!, { ipxact: NS });
    expect(xmlDocument(node)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<rvt:block xmlns:rvt="urn:rvt" xmlns:o="urn:other" name="etrace" o:flag="1">',
        '  <rvt:note>raw &lt;text&gt; &amp; more</rvt:note>',
        '  <plain xmlns="urn:d"/>',
        '</rvt:block>',
        '',
      ].join('\n'),
    );
  });
});
