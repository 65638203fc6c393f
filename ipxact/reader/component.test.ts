import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evalExpr, readComponent, readComponentFile, resolveParameters, type IpxactComponent } from './component.ts';
import { parseXml } from './xml.ts';

const FIXTURES = fileURLToPath(new URL('../test-fixtures/reader/', import.meta.url));
const fixture = (name: string): string => join(FIXTURES, name);

/** A good fixture's component; runs while tests are collected, so it throws rather than expects. */
function read(name: string): IpxactComponent {
  const { component, errors } = readComponentFile(fixture(name));
  if (component === undefined) throw new Error(errors.map((e) => e.oneLine()).join('\n'));
  return component;
}

/** Every error of reading a fixture, then of resolving its parameters, as `file:line: ...`. */
function problems(name: string): string[] {
  const { component, errors } = readComponentFile(fixture(name));
  const all = component ? resolveParameters(component).errors : errors;
  return all.map((e) => e.oneLine().replace(FIXTURES, ''));
}

describe('readComponent: 1685-2014', () => {
  const c = read('component-2014.xml');

  it('reads the standard, VLNV and description', () => {
    expect(c.standard).toBe('2014');
    expect(c.file).toBe(fixture('component-2014.xml'));
    expect(c.vlnv).toEqual({ vendor: 'example.org', library: 'rvtrace', name: 'demo', version: '1.0' });
    expect(c.description).toBe('A demonstration component');
  });

  it('keeps parameter values as the expression text, with id, type, resolve and line', () => {
    expect(c.parameters).toEqual([
      { name: 'width_p', id: 'WIDTH', value: '32', line: 119, type: 'int', resolve: 'user', description: 'Data width' },
      { name: 'bytes_p', id: 'BYTES', value: 'WIDTH / 8', line: 124, type: 'int' },
      { name: 'mask_p', id: 'MASK', value: "64'hFFFF_FFFF_FFFF_FFFF", line: 128, type: 'longint' },
      { name: 'addr_bits_p', id: 'ADDR_BITS', value: '$clog2(WIDTH) + bytes_p', line: 132, type: 'int' },
    ]);
    expect(c.modelParameters).toEqual([
      { name: 'depth_p', id: 'DEPTH', value: '1 << 4', line: 66, type: 'int', resolve: 'generated' },
      { name: 'width_p', id: 'MOD_WIDTH', value: 'WIDTH', line: 70, type: 'int' },
    ]);
  });

  it('evaluates parameters referring to each other by name and by id, 64-bit values exact', () => {
    const { values, modelValues, errors } = resolveParameters(c);
    expect(errors).toEqual([]);
    expect(values).toEqual(new Map([['width_p', 32n], ['bytes_p', 4n], ['mask_p', 0xffff_ffff_ffff_ffffn], ['addr_bits_p', 9n]]));
    // A module parameter may share a component parameter's name and take its value by id.
    expect(modelValues).toEqual(new Map([['depth_p', 16n], ['width_p', 32n]]));
  });

  it('reads the memory map, registers and fields with their lines', () => {
    expect(c.memoryMaps).toHaveLength(1);
    const map = c.memoryMaps[0]!;
    expect(map).toMatchObject({ name: 'csr', line: 12 });
    const block = map.addressBlocks[0]!;
    expect(block).toMatchObject({ name: 'regs', baseAddress: "'h1000", range: '4096', width: '32', usage: 'register', line: 14 });
    expect(block.registers.map((r) => [r.name, r.addressOffset, r.size, r.access, r.line])).toEqual([
      ['control', "'h0", '32', 'read-write', 20],
      ['status', "'h4", '32', 'read-only', 44],
    ]);
    expect(block.registers[0]!.description).toBe('Enables & modes');
    expect(block.registers[0]!.fields).toEqual([
      { name: 'enable', bitOffset: '0', bitWidth: '1', access: 'read-write', resetValue: "1'b0", line: 26 },
      { name: 'mode', bitOffset: '4', bitWidth: 'width_p - 29', description: 'Encoding <mode>', line: 37 },
    ]);
    expect(block.registers[1]!.fields).toEqual([{ name: 'busy', bitOffset: '31', bitWidth: '1', access: 'read-only', line: 49 }]);
  });

  it('reads ports with their width expressions', () => {
    expect(c.ports).toEqual([
      { name: 'clk_i', direction: 'in', line: 78 },
      { name: 'data_o', direction: 'out', left: 'width_p - 1', right: '0', line: 84 },
      { name: 'bus_io', direction: 'inout', line: 96 },
    ]);
  });

  it('reads file sets', () => {
    expect(c.fileSets).toEqual([
      {
        name: 'rtl',
        line: 105,
        files: [
          { name: 'rtl/demo.sv', fileType: 'systemVerilogSource', line: 107 },
          { name: 'rtl/demo_pkg.sv', fileType: 'systemVerilogSource', line: 111 },
        ],
      },
    ]);
  });

  it('keeps vendor extensions raw, in their own namespace', () => {
    expect(c.vendorExtensions).toHaveLength(1);
    const ext = c.vendorExtensions[0]!;
    expect(ext).toMatchObject({ ns: 'http://example.org/rvtrace/ext', name: 'block', qname: 'rvt:block', line: 138 });
    expect(ext.children[0]).toMatchObject({ name: 'note', text: 'raw <text> & more', line: 139 });
  });

  it('evaluates register, field and port expressions later, with a location for errors', () => {
    const { values } = resolveParameters(c);
    const field = c.memoryMaps[0]!.addressBlocks[0]!.registers[0]!.fields[1]!;
    expect(evalExpr(c, field.bitWidth, values, { line: field.line, path: 'memoryMaps/csr/regs/control/mode/bitWidth' })).toEqual({ ok: true, value: 3n });
    const port = c.ports[1]!;
    expect(evalExpr(c, port.left!, values, { line: port.line, path: 'ports/data_o/left' })).toEqual({ ok: true, value: 31n });
    expect(evalExpr(c, 'MASK + 1', values, { line: 1, path: 'x' })).toEqual({ ok: true, value: 1n << 64n });

    const bad = evalExpr(c, 'WIDTH / (bytes_p - 4)', values, { line: 84, path: 'ports/data_o/left' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('invalid-component');
      expect(bad.error.oneLine().replace(FIXTURES, '')).toBe('component-2014.xml:84: ports/data_o/left: "WIDTH / (bytes_p - 4)": division by zero (column 7)');
    }
    const undef = evalExpr(c, 'depth_p - 1', values, { line: 84, path: 'ports/data_o/left' });
    expect(undef.ok ? '' : undef.error.message).toBe(
      '"depth_p - 1": undefined reference `depth_p` (column 1): expected the name or parameterId of a component parameter',
    );
    const partial = new Map(values);
    partial.delete('width_p');
    const blocked = evalExpr(c, 'WIDTH - 1', partial, { line: 84, path: 'ports/data_o/left' });
    expect(blocked.ok ? '' : blocked.error.message).toBe('"WIDTH - 1": depends on parameter width_p, which could not be evaluated');
  });
});

describe('readComponent: 1685-2022', () => {
  const c = read('component-2022.xml');

  it('reads the same model from the 2022 layout (description first, access policies)', () => {
    expect(c.standard).toBe('2022');
    expect(c.vlnv).toEqual({ vendor: 'example.org', library: 'rvtrace', name: 'demo', version: '2.0' });
    expect(c.description).toBe('A demonstration component');
    const block = c.memoryMaps[0]!.addressBlocks[0]!;
    expect(block).toMatchObject({ name: 'regs', baseAddress: '0x0', range: "'h100", width: 'width_p', line: 13 });
    expect(block.registers[0]).toMatchObject({ name: 'control', addressOffset: "'h10", size: '32', access: 'read-write', description: 'Enables', line: 19 });
    expect(block.registers[0]!.fields).toEqual([
      { name: 'enable', bitOffset: '0', bitWidth: '1', access: 'read-write', resetValue: "1'b1", description: 'Turns it on', line: 29 },
    ]);
    expect(c.ports).toEqual([{ name: 'addr_i', direction: 'in', left: '$clog2(width_p) - 1', right: '0', line: 67 }]);
    expect(c.fileSets[0]!.files).toEqual([{ name: 'rtl/demo.sv', fileType: 'systemVerilogSource-2017', line: 84 }]);
    expect(c.vendorExtensions.map((e) => [e.ns, e.name, e.line])).toEqual([['http://example.org/rvtrace/ext', 'block', 101]]);
  });

  it('evaluates a 64-bit expression exactly; module parameters see component parameters by id', () => {
    const { values, modelValues, errors } = resolveParameters(c);
    expect(errors).toEqual([]);
    expect(c.parameters.map((p) => p.value)).toEqual(['64', "(64'h1 << (WIDTH - 1)) | 64'h7FFF_FFFF_FFFF_FFFF"]);
    expect(values).toEqual(new Map([['width_p', 64n], ['top_p', 18446744073709551615n]]));
    expect(modelValues).toEqual(new Map([['depth_p', 8n], ['width_p', 512n]]));
    const port = c.ports[0]!;
    expect(evalExpr(c, port.left!, values, { line: port.line, path: 'ports/addr_i/left' })).toEqual({ ok: true, value: 5n });
  });
});

describe('reader errors, each with file:line', () => {
  it('rejects a root that is not a component', () => {
    expect(problems('not-component.xml')).toEqual([
      'not-component.xml:3: root element is <ipxact:design>, an IP-XACT design document; expected an IP-XACT <component> in namespace ' +
        'http://www.accellera.org/XMLSchema/IPXACT/1685-2014 (IEEE 1685-2014) or http://www.accellera.org/XMLSchema/IPXACT/1685-2022 (IEEE 1685-2022)',
    ]);
  });

  it('rejects a namespace other than 1685-2014 and 1685-2022, naming what it found', () => {
    expect(problems('wrong-namespace.xml')).toEqual([
      'wrong-namespace.xml:3: root element <spirit:component> is in namespace http://www.spiritconsortium.org/XMLSchema/SPIRIT/1.5; ' +
        'expected an IP-XACT <component> in namespace http://www.accellera.org/XMLSchema/IPXACT/1685-2014 (IEEE 1685-2014) or ' +
        'http://www.accellera.org/XMLSchema/IPXACT/1685-2022 (IEEE 1685-2022)',
    ]);
    const { errors } = readComponent(parseXml('<component/>', 'plain.xml'), 'plain.xml');
    expect(errors[0]!.message).toMatch(/^root element <component> is in no namespace; expected/);
  });

  it('reports malformed XML at its line', () => {
    expect(problems('malformed.xml')).toEqual(['malformed.xml:10: malformed XML: closing tag </ipxact:value> does not match <ipxact:name> opened at line 10']);
  });

  it('reports a missing required element at the element that lacks it', () => {
    expect(problems('missing-element.xml')).toEqual([
      'missing-element.xml:20: memoryMaps/csr/regs/control/enable: <ipxact:field>: missing required element <ipxact:bitWidth>',
    ]);
  });

  it('collects every structural error, including constructs it does not support', () => {
    expect(problems('unsupported.xml')).toEqual([
      'unsupported.xml:18: memoryMaps/csr/regs/counter: <ipxact:dim> in <ipxact:register> is not supported by rvtrace',
      'unsupported.xml:35: ports/ghost: port ghost: direction must be in, out or inout; found "phantom"',
    ]);
  });

  it('reports an undefined parameter reference with what was expected', () => {
    expect(problems('undefined-reference.xml')).toEqual([
      'undefined-reference.xml:13: parameters/bytes_p: value "WIDHT / 8": undefined reference `WIDHT` (column 1): ' +
        'expected the name or parameterId of a component parameter',
    ]);
  });

  it('reports a reference cycle once, and what it blocks', () => {
    expect(problems('cycle.xml')).toEqual([
      'cycle.xml:9: parameters/a_p: value "C + 1": circular reference: a_p -> c_p -> b_p -> a_p',
      'cycle.xml:21: parameters/after_p: value "a_p + 1": not evaluated: it depends on `a_p`, which could not be evaluated',
    ]);
  });

  it('reports a module parameter blocked by a failed component parameter without a stray undefined reference', () => {
    const NS = 'http://www.accellera.org/XMLSchema/IPXACT/1685-2022';
    const text = `<ipxact:component xmlns:ipxact="${NS}">
  <ipxact:vendor>v</ipxact:vendor><ipxact:library>l</ipxact:library><ipxact:name>n</ipxact:name><ipxact:version>1</ipxact:version>
  <ipxact:model><ipxact:instantiations><ipxact:componentInstantiation><ipxact:name>rtl</ipxact:name>
    <ipxact:moduleParameters>
      <ipxact:moduleParameter><ipxact:name>m</ipxact:name><ipxact:value>W + 1</ipxact:value></ipxact:moduleParameter>
    </ipxact:moduleParameters>
  </ipxact:componentInstantiation></ipxact:instantiations></ipxact:model>
  <ipxact:parameters>
    <ipxact:parameter parameterId="W"><ipxact:name>w</ipxact:name><ipxact:value>1 / 0</ipxact:value></ipxact:parameter>
  </ipxact:parameters>
</ipxact:component>`;
    const { component } = readComponent(parseXml(text, 'm.xml'), 'm.xml');
    expect(resolveParameters(component!).errors.map((e) => e.oneLine())).toEqual([
      'm.xml:9: parameters/w: value "1 / 0": division by zero (column 3)',
      'm.xml:5: modelParameters/m: value "W + 1": not evaluated: it depends on `W`, which could not be evaluated',
    ]);
  });

  it('reports a missing file as an I/O error', () => {
    const { errors } = readComponentFile(fixture('no-such-file.xml'));
    expect(errors.map((e) => [e.code, e.message])).toEqual([['io', 'no such file']]);
  });
});
