import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultSchemaDir, parseXmllintOutput, schemaFile, validateXsd, validateXsdRemembered } from './xsd.ts';

const FIXTURES = fileURLToPath(new URL('../test-fixtures/reader/', import.meta.url));
const fixture = (name: string): string => join(FIXTURES, name);
const SCHEMAS = defaultSchemaDir();
const lines = (file: string, standard: '2014' | '2022' = '2014'): string[] =>
  validateXsd(fixture(file), standard, SCHEMAS).map((e) => e.oneLine().replace(FIXTURES, ''));

describe('validateXsd', () => {
  it('finds the shared schemas beside the checkout', () => {
    expect(existsSync(schemaFile('2014', SCHEMAS))).toBe(true);
    expect(existsSync(schemaFile('2022', SCHEMAS))).toBe(true);
  });

  it('accepts the good fixtures, and the bad ones whose only fault is beyond the schema', () => {
    expect(lines('component-2014.xml')).toEqual([]);
    expect(lines('component-2022.xml', '2022')).toEqual([]);
    for (const f of ['undefined-reference.xml', 'cycle.xml', 'unsupported.xml', 'not-component.xml']) expect(lines(f)).toEqual([]);
  });

  it('reports an element in the wrong place with its line', () => {
    const errors = validateXsd(fixture('misplaced-element.xml'), '2014', SCHEMAS);
    expect(errors.map((e) => e.code)).toEqual(['invalid-component']);
    expect(lines('misplaced-element.xml')).toEqual([
      "misplaced-element.xml:14: not valid against the IEEE 1685-2014 schema: Element 'ipxact:usage': This element is not expected. " +
        'Expected is one of ( ipxact:typeIdentifier, ipxact:range ).',
    ]);
  });

  it('reports a missing element at the element that lacks it', () => {
    expect(lines('missing-element.xml')).toEqual([
      "missing-element.xml:20: not valid against the IEEE 1685-2014 schema: Element 'ipxact:field': Missing child element(s). " +
        'Expected is one of ( ipxact:resets, ipxact:typeIdentifier, ipxact:bitWidth ).',
    ]);
  });

  it('reports a document of the other standard', () => {
    expect(lines('component-2022.xml', '2014')).toEqual([
      "component-2022.xml:4: not valid against the IEEE 1685-2014 schema: Element '{http://www.accellera.org/XMLSchema/IPXACT/1685-2022}component': " +
        'No matching global declaration available for the validation root.',
    ]);
  });

  it('reports malformed XML with the line, one error per xmllint message', () => {
    const errors = validateXsd(fixture('malformed.xml'), '2014', SCHEMAS);
    expect(errors.map((e) => e.code)).toEqual(['bad-file']);
    expect(lines('malformed.xml')).toEqual(['malformed.xml:10: malformed XML (xmllint): Opening and ending tag mismatch: name line 10 and value']);
  });

  it('says how to get xmllint when it is missing', () => {
    const errors = validateXsd(fixture('component-2014.xml'), '2014', SCHEMAS, 'xmllint-not-installed-here');
    expect(errors.map((e) => [e.code, e.message, e.status])).toEqual([['tool-failure', 'xmllint not found: install libxml2-utils', 3]]);
  });

  it('reports missing schemas and a missing document clearly', () => {
    const [noSchema] = validateXsd(fixture('component-2014.xml'), '2014', '/nonexistent');
    expect([noSchema!.code, noSchema!.message]).toEqual([
      'tool-failure',
      'IP-XACT 2014 schema not found: /nonexistent/ieee-1685-2014/index.xsd (expected the Accellera schemas under /nonexistent)',
    ]);
    expect(validateXsd(fixture('no-such-file.xml'), '2014', SCHEMAS).map((e) => e.oneLine().replace(FIXTURES, ''))).toEqual(['no-such-file.xml: no such file']);
  });
});

describe('validateXsdRemembered', () => {
  it('remembers valid documents only, by their bytes, and never without the schema', () => {
    const cache = mkdtempSync(join(tmpdir(), 'rvtrace-xsd-'));
    const saved = process.env['RVTRACE_CACHE'];
    process.env['RVTRACE_CACHE'] = cache;
    try {
      const markers = (): string[] => (existsSync(join(cache, 'xsd-valid')) ? readdirSync(join(cache, 'xsd-valid')) : []);
      expect(validateXsdRemembered(fixture('component-2014.xml'), '2014', SCHEMAS, 'a')).toEqual([]);
      expect(markers()).toHaveLength(1);
      expect(validateXsdRemembered(fixture('component-2014.xml'), '2014', SCHEMAS, 'a')).toEqual([]);
      expect(markers()).toHaveLength(1);
      // An invalid document is asked every time and leaves no marker.
      expect(validateXsdRemembered(fixture('misplaced-element.xml'), '2014', SCHEMAS, 'b').map((e) => e.code)).toEqual(['invalid-component']);
      expect(markers()).toHaveLength(1);
      // Other bytes: another marker.
      expect(validateXsdRemembered(fixture('component-2022.xml'), '2022', SCHEMAS, 'c')).toEqual([]);
      expect(markers()).toHaveLength(2);
      const [noSchema] = validateXsdRemembered(fixture('component-2014.xml'), '2014', '/nonexistent', 'a');
      expect(noSchema!.code).toBe('tool-failure');
    } finally {
      if (saved === undefined) delete process.env['RVTRACE_CACHE'];
      else process.env['RVTRACE_CACHE'] = saved;
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('parseXmllintOutput', () => {
  it('keeps only the located lines of the file and skips the quoted context', () => {
    const out = [
      'a:b.xml:7: parser error : Premature end of data in tag x line 1',
      '</x',
      '   ^',
      "a:b.xml:9: element y: Schemas validity error : Element '{urn:other}y': This element is not expected.",
      'other.xml:3: parser error : not ours',
      'a:b.xml fails to validate',
    ].join('\n');
    expect(parseXmllintOutput(out, 'a:b.xml', '2022').map((e) => e.oneLine())).toEqual([
      'a:b.xml:7: malformed XML (xmllint): Premature end of data in tag x line 1',
      "a:b.xml:9: not valid against the IEEE 1685-2022 schema: Element '{urn:other}y': This element is not expected.",
    ]);
  });
});
