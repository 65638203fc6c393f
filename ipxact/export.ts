/**
 * Writes an IP-XACT component (IEEE 1685-2014 or 1685-2022) from a block-neutral description:
 * VLNV, parameters, an APB-style bus interface, memory maps, the model (one componentInstantiation
 * with module parameters, and the ports), file sets and vendor extensions. Both standards get the
 * same content; only the spelling differs (2014 `slave` and `access`, 2022 `target` and access
 * policies). The output is deterministic: the same description gives the same bytes.
 */
import type { MemoryMapSpec } from '../golden-model/common/register-map.ts';
import type { SettingSpec, Settings } from '../golden-model/common/settings.ts';
import { IPXACT_NAMESPACES, type IpxactStandard, type Vlnv } from './reader/component.ts';
import { xmlDocument, type XmlNode } from './reader/write.ts';

export interface ExportParameter {
  readonly name: string;
  /** The IP-XACT `type` attribute. */
  readonly type: 'bit' | 'int' | 'longint' | 'string';
  /** The value expression as it is to be written (e.g. a decimal literal, `"2.0"`, a reference). */
  readonly value: string;
  readonly description?: string;
}

export interface ExportPort {
  readonly name: string;
  readonly direction: 'in' | 'out' | 'inout';
  /** Vector bounds as expressions; absent for a scalar. */
  readonly left?: string;
  readonly right?: string;
  readonly description?: string;
}

export interface ExportField {
  readonly name: string;
  readonly bitOffset: number;
  readonly bitWidth: number;
  readonly access: 'read-only' | 'read-write' | 'write-only';
  readonly oneToClear?: boolean;
  readonly reset: bigint;
  readonly description?: string;
}

export interface ExportRegister {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly description?: string;
  readonly fields: readonly ExportField[];
}

export interface ExportAddressBlock {
  readonly name: string;
  readonly baseAddress: number;
  readonly range: number;
  readonly width: number;
  readonly description?: string;
  readonly registers: readonly ExportRegister[];
}

export interface ExportMemoryMap {
  readonly name: string;
  readonly description?: string;
  /** Bits of one address unit (default 8: byte addresses). */
  readonly addressUnitBits?: number;
  readonly addressBlocks: readonly ExportAddressBlock[];
}

export interface ExportBusInterface {
  readonly name: string;
  readonly description?: string;
  readonly busType: Vlnv;
  readonly abstractionRef: Vlnv;
  /** Logical (bus definition) port name to physical (component) port name. */
  readonly portMaps: readonly { logical: string; physical: string }[];
  /** The bus interface is a completer (2014 `slave`, 2022 `target`) of this memory map. */
  readonly memoryMapRef: string;
}

export interface ExportFileSet {
  readonly name: string;
  readonly files: readonly { name: string; fileType: string }[];
}

export interface ExportComponent {
  readonly vlnv: Vlnv;
  readonly description: string;
  readonly parameters: readonly ExportParameter[];
  readonly busInterfaces: readonly ExportBusInterface[];
  readonly memoryMaps: readonly ExportMemoryMap[];
  readonly instantiation: {
    readonly name: string;
    readonly language: string;
    readonly moduleName: string;
    readonly moduleParameters: readonly ExportParameter[];
    readonly fileSetRef: string;
  };
  readonly ports: readonly ExportPort[];
  readonly fileSets: readonly ExportFileSet[];
  /** Vendor extensions: each with its namespace, declared on the root. */
  readonly vendorExtensions: readonly XmlNode[];
  readonly namespaces: Readonly<Record<string, string>>;
}

const P = 'ipxact';
const el = (name: string, children: (XmlNode | string)[] = [], attributes?: Record<string, string>): XmlNode =>
  attributes === undefined ? { name: `${P}:${name}`, children } : { name: `${P}:${name}`, attributes, children };
const text = (name: string, value: string): XmlNode => el(name, [value]);
const optionalDescription = (d: string | undefined): XmlNode[] => (d ? [text('description', d)] : []);
const vlnvAttributes = (v: Vlnv): Record<string, string> => ({ vendor: v.vendor, library: v.library, name: v.name, version: v.version });

/** SV literal for a number: decimal below 2^32, else hexadecimal with its width, e.g. 64'h0000_0001_0000_0000. */
export function svLiteral(value: bigint, width?: number): string {
  if (value < 0n) throw new Error(`svLiteral: negative value ${value}`);
  if (width === undefined || value < 1n << 32n) return value.toString();
  return `${width}'h${value.toString(16)}`;
}

/** The whole document, with `banner` lines as leading comments. */
export function componentDocument(c: ExportComponent, standard: IpxactStandard, banner: readonly string[]): string {
  const s22 = standard === '2022';
  const root: XmlNode = {
    name: `${P}:component`,
    attributes: { [`xmlns:${P}`]: IPXACT_NAMESPACES[standard], ...Object.fromEntries(Object.entries(c.namespaces).map(([k, v]) => [`xmlns:${k}`, v])) },
    children: [
      text('vendor', c.vlnv.vendor),
      text('library', c.vlnv.library),
      text('name', c.vlnv.name),
      text('version', c.vlnv.version),
      ...(s22 ? [text('description', c.description)] : []),
      ...(c.busInterfaces.length > 0 ? [el('busInterfaces', c.busInterfaces.map((b) => busInterface(b, s22)))] : []),
      ...(c.memoryMaps.length > 0 ? [el('memoryMaps', c.memoryMaps.map((m) => memoryMap(m, s22)))] : []),
      el('model', [
        el('instantiations', [
          el('componentInstantiation', [
            text('name', c.instantiation.name),
            text('language', c.instantiation.language),
            text('moduleName', c.instantiation.moduleName),
            ...(c.instantiation.moduleParameters.length > 0
              ? [el('moduleParameters', c.instantiation.moduleParameters.map((p) => parameter(p, 'moduleParameter')))]
              : []),
            el('fileSetRef', [text('localName', c.instantiation.fileSetRef)]),
          ]),
        ]),
        el('ports', c.ports.map(port)),
      ]),
      ...(c.fileSets.length > 0 ? [el('fileSets', c.fileSets.map(fileSet))] : []),
      ...(s22 ? [] : [text('description', c.description)]),
      ...(c.parameters.length > 0 ? [el('parameters', c.parameters.map((p) => parameter(p, 'parameter')))] : []),
      ...(c.vendorExtensions.length > 0 ? [el('vendorExtensions', [...c.vendorExtensions])] : []),
    ],
  };
  return xmlDocument(root, banner);
}

function parameter(p: ExportParameter, element: 'parameter' | 'moduleParameter'): XmlNode {
  return el(element, [text('name', p.name), ...optionalDescription(p.description), text('value', p.value)], { parameterId: p.name, type: p.type });
}

function busInterface(b: ExportBusInterface, s22: boolean): XmlNode {
  return el('busInterface', [
    text('name', b.name),
    ...optionalDescription(b.description),
    el('busType', [], vlnvAttributes(b.busType)),
    el('abstractionTypes', [
      el('abstractionType', [
        el('abstractionRef', [], vlnvAttributes(b.abstractionRef)),
        el('portMaps', b.portMaps.map((m) => el('portMap', [el('logicalPort', [text('name', m.logical)]), el('physicalPort', [text('name', m.physical)])]))),
      ]),
    ]),
    el(s22 ? 'target' : 'slave', [el('memoryMapRef', [], { memoryMapRef: b.memoryMapRef })]),
  ]);
}

function memoryMap(m: ExportMemoryMap, s22: boolean): XmlNode {
  return el('memoryMap', [
    text('name', m.name),
    ...optionalDescription(m.description),
    ...m.addressBlocks.map((b) => addressBlock(b, s22)),
    text('addressUnitBits', String(m.addressUnitBits ?? 8)),
  ]);
}

const hex = (n: number): string => `'h${n.toString(16).toUpperCase()}`;

function addressBlock(b: ExportAddressBlock, s22: boolean): XmlNode {
  return el('addressBlock', [
    text('name', b.name),
    ...optionalDescription(b.description),
    text('baseAddress', hex(b.baseAddress)),
    text('range', hex(b.range)),
    text('width', String(b.width)),
    text('usage', 'register'),
    ...b.registers.map((r) => register(r, s22)),
  ]);
}

function register(r: ExportRegister, s22: boolean): XmlNode {
  const access = r.fields.every((f) => f.access === 'read-only') ? 'read-only' : 'read-write';
  return el('register', [
    text('name', r.name),
    ...optionalDescription(r.description),
    text('addressOffset', hex(r.offset)),
    text('size', String(r.size)),
    ...(s22 ? [el('accessPolicies', [el('accessPolicy', [text('access', access)])])] : [text('access', access)]),
    ...r.fields.map((f) => field(f, s22)),
  ]);
}

function field(f: ExportField, s22: boolean): XmlNode {
  const resets = el('resets', [el('reset', [text('value', svLiteral(f.reset, f.bitWidth))])]);
  const modified = f.oneToClear ? [text('modifiedWriteValue', 'oneToClear')] : [];
  return el('field', [
    text('name', f.name),
    ...optionalDescription(f.description),
    text('bitOffset', String(f.bitOffset)),
    ...(s22
      ? [text('bitWidth', String(f.bitWidth)), resets, el('fieldAccessPolicies', [el('fieldAccessPolicy', [text('access', f.access), ...modified])])]
      : [resets, text('bitWidth', String(f.bitWidth)), text('access', f.access), ...modified]),
  ]);
}

function port(p: ExportPort): XmlNode {
  const vectors = p.left === undefined ? [] : [el('vectors', [el('vector', [text('left', p.left), text('right', p.right ?? '0')])])];
  return el('port', [text('name', p.name), ...optionalDescription(p.description), el('wire', [text('direction', p.direction), ...vectors])]);
}

function fileSet(s: ExportFileSet): XmlNode {
  return el('fileSet', [text('name', s.name), ...s.files.map((f) => el('file', [text('name', f.name), text('fileType', f.fileType)]))]);
}

/** How a setting's value is written as a parameter (the inverse of ipxact/load.ts). */
export function exportParameter(spec: SettingSpec, value: Settings[string]): ExportParameter {
  const description = spec.help;
  switch (spec.kind) {
    case 'bool':
      return { name: spec.name, type: 'bit', value: value ? '1' : '0', description };
    case 'bigint':
      return { name: spec.name, type: 'longint', value: svLiteral(value as bigint), description };
    case 'choice':
      return (spec.choices ?? []).every((c) => /^-?\d+$/.test(c))
        ? { name: spec.name, type: 'int', value: String(value), description }
        : { name: spec.name, type: 'string', value: `"${String(value)}"`, description };
    case 'string':
      return { name: spec.name, type: 'string', value: `"${String(value).replace(/["\\]/g, '\\$&')}"`, description };
    case 'int':
    case 'number':
      return { name: spec.name, type: 'int', value: String(value), description };
  }
}

/** A register map (golden-model/common/register-map.ts) as an IP-XACT memory map. */
export function exportMemoryMap(map: MemoryMapSpec): ExportMemoryMap {
  return {
    name: map.name,
    description: map.description,
    addressBlocks: map.addressBlocks.map((b) => ({
      name: b.name,
      baseAddress: b.baseAddress,
      range: b.range,
      width: b.width,
      description: b.description,
      registers: b.registers.map((r) => ({
        name: r.name,
        offset: r.offset,
        size: r.size,
        description: r.description,
        fields: r.fields.map((f) => ({
          name: f.name,
          bitOffset: f.bitOffset,
          bitWidth: f.bitWidth,
          access: f.access,
          ...(f.oneToClear ? { oneToClear: true } : {}),
          reset: f.reset,
          description: f.description,
        })),
      })),
    })),
  };
}

/** The AMBA APB4 completer interface of a register file on the lowRISC-named APB ports (paddr_i, ...), on `memoryMapRef`. */
export function apbCompleterInterface(description: string, memoryMapRef: string): ExportBusInterface {
  const apb: [string, string][] = [
    ['PCLK', 'clk_i'], ['PRESETn', 'rst_ni'], ['PADDR', 'paddr_i'], ['PSELx', 'psel_i'], ['PENABLE', 'penable_i'], ['PWRITE', 'pwrite_i'],
    ['PWDATA', 'pwdata_i'], ['PSTRB', 'pstrb_i'], ['PRDATA', 'prdata_o'], ['PREADY', 'pready_o'], ['PSLVERR', 'pslverr_o'],
  ];
  return {
    name: 'apb',
    description,
    busType: { vendor: 'amba.com', library: 'AMBA4', name: 'APB4', version: 'r0p0_0' },
    abstractionRef: { vendor: 'amba.com', library: 'AMBA4', name: 'APB4_rtl', version: 'r0p0_0' },
    portMaps: apb.map(([logical, physical]) => ({ logical, physical })),
    memoryMapRef,
  };
}
