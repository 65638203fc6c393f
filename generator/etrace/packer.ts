/**
 * Context of `templates/etrace/etrace_packer.sv.hbs`: the combinational te_inst packer of the E-Trace
 * encoder. From one packet descriptor (a kind and the value of every field) it builds the encapsulated
 * bytes exactly as golden-model/etrace/packet/fast.ts `packetBytes` does: header byte
 * length | flow 2 << 5, then the sign-compressed payload, least significant byte first.
 *
 * The field layouts come from the model: for each kind every combination of the selectors the
 * layout may depend on (branch_fmt, branches, interrupt, thaddr and the implicit exception mode) is
 * given to `packetFields`; selectors that never change the layout are dropped, the combinations
 * with the same layout form one `unique casez` arm (its patterns a cover of the combinations by
 * disjoint cubes), and the arm assigns the payload as one concatenation of the layout's fields,
 * sign-extended to the payload width. Combinations the model rejects (a kind the parameters do not
 * support, branch_fmt 1) fall to the default arm: nothing is packed and len_o is 0.
 *
 * Only the simple encapsulation of fast.ts is implemented: no srcID, message type in header.flow.
 */
import { RvError } from '../../golden-model/common/errors.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { MSG_TYPE } from '../../golden-model/etrace/packet/encapsulate.ts';
import {
  type FieldSpec,
  IOPTION_BIT,
  largestPacketBits,
  type Packet,
  type PacketKind,
  packetFields,
  packetKind,
  type PacketParams,
  packetWidths,
  encapPrefixBits,
} from '../../golden-model/etrace/packet/index.ts';
import { commentBanner, padColumn, renderTemplate, svBits, svLogic, svSized, type BannerInput } from '../render.ts';
import { svAtOrAboveAt, svHighestSetBitTree, svThermometerValue } from '../sv-arith.ts';

export const ETRACE_PACKER_MODULE = 'etrace_packer';
export const ETRACE_PACKER_TEMPLATE = 'etrace/etrace_packer.sv.hbs';

/** A port of the packer: full port name (with `_i`/`_o`) and width in bits (always > 0). */
export interface PackerPort {
  name: string;
  width: number;
}

/** kind_i codes (the interface of etrace_packer). */
export const PACKER_KINDS: readonly { code: number; kind: PacketKind; base: Packet }[] = [
  { code: 0, kind: 'F0.SF0', base: { format: 0n, subformat: 0n } },
  { code: 1, kind: 'F0.SF1', base: { format: 0n, subformat: 1n } },
  { code: 2, kind: 'F1', base: { format: 1n } },
  { code: 3, kind: 'F2', base: { format: 2n } },
  { code: 4, kind: 'F3.SF0', base: { format: 3n, subformat: 0n } },
  { code: 5, kind: 'F3.SF1', base: { format: 3n, subformat: 1n } },
  { code: 6, kind: 'F3.SF2', base: { format: 3n, subformat: 2n } },
  { code: 7, kind: 'F3.SF3', base: { format: 3n, subformat: 3n } },
];

/** Which option input carries each bit of the support packet's options / ioptions field. */
const OPTION_PORTS: Readonly<Record<keyof typeof IOPTION_BIT, string>> = {
  implicit_return: 'implicit_return_i',
  implicit_exception: 'implicit_exception_i',
  full_address: 'full_address_i',
  jump_target_cache: 'jump_target_cache_i',
  branch_prediction: 'branch_prediction_i',
};

interface PortSpec extends PackerPort {
  readonly doc: string;
  readonly group?: string;
}

/**
 * Bytes of an encapsulated packet whose payload has `payloadBits` bits (the model's encapsulate()):
 * the header, the whole bytes of the source id, then its remaining bits and the payload.
 */
export function encapsulatedBytes(p: PacketParams, payloadBits: number): number {
  return 1 + Math.floor(p.encap_srcid_width / 8) + Math.ceil((payloadBits + encapPrefixBits(p)) / 8);
}

/** Bytes of the largest encapsulated packet (header included): the width of bytes_o is 8 times this. */
export function packerMaxBytes(config: EtraceConfig): number {
  return encapsulatedBytes(config.params, largestPacketBits(config.params));
}

function portSpecs(config: EtraceConfig): PortSpec[] {
  const p = config.params;
  const w = packetWidths(p);
  const ratified = p.payload_layout === '2.0';
  const all: PortSpec[] = [
    { name: 'kind_i', width: 3, group: 'Packet kind', doc: '0 F0.SF0, 1 F0.SF1, 2 F1, 3 F2, 4 F3.SF0, 5 F3.SF1, 6 F3.SF2, 7 F3.SF3' },
    { name: 'implicit_exception_i', width: 1, group: 'Run-time options', doc: 'implicit exception mode (F3.SF1 layout) and options bit' },
    { name: 'implicit_return_i', width: 1, doc: 'support packet options bit' },
    { name: 'full_address_i', width: 1, doc: 'support packet options bit' },
    { name: 'jump_target_cache_i', width: 1, doc: 'support packet options bit' },
    { name: 'branch_prediction_i', width: 1, doc: 'support packet options bit' },
    { name: 'sijump_opt_i', width: w.sijump, doc: 'support packet sijump bit' },
    { name: 'branches_i', width: 5, group: 'Descriptor fields (a field the kind does not send is ignored)', doc: 'branches' },
    { name: 'branch_map_i', width: 31, doc: 'bit 0 = oldest branch; the low branchMapWidth(branches) bits are sent' },
    { name: 'branch_count_i', width: p.bpred_size_p > 0 ? 32 : 0, doc: 'branch_count' },
    { name: 'branch_fmt_i', width: p.bpred_size_p > 0 ? 2 : 0, doc: 'branch_fmt (01 is reserved: nothing is packed)' },
    { name: 'index_i', width: w.index, doc: 'jump target cache index' },
    { name: 'address_i', width: w.address, doc: 'address field: shifted right by iaddress_lsb_p, full or differential' },
    { name: 'notify_i', width: 1, doc: 'notify as transmitted' },
    { name: 'updiscon_i', width: 1, doc: 'updiscon as transmitted' },
    { name: 'irreport_i', width: 1, doc: 'irreport as transmitted' },
    { name: 'irdepth_i', width: w.irdepth, doc: 'irdepth as transmitted (the ratified semantics, iret_ext_p = 0)' },
    { name: 'irets_i', width: w.irets, doc: 'irets as transmitted (Implicit Return extension)' },
    { name: 'branch_i', width: 1, doc: 'F3.SF0/SF1 branch' },
    { name: 'privilege_i', width: w.privilege, doc: 'privilege' },
    { name: 'time_i', width: w.time, doc: 'time' },
    { name: 'context_i', width: Math.max(w.context, w.contextSf2), doc: 'context; each packet sends its low bits' },
    { name: 'ecause_i', width: w.ecause, doc: 'ecause' },
    { name: 'interrupt_i', width: 1, doc: 'interrupt' },
    { name: 'thaddr_i', width: ratified ? 1 : 0, doc: 'thaddr' },
    { name: 'tval_i', width: w.tval, doc: ratified ? 'tval' : 'tvalepc' },
    { name: 'enable_i', width: 1, doc: ratified ? 'support packet ienable' : 'support packet enable' },
    { name: 'qual_status_i', width: 2, doc: 'support packet qual_status' },
    { name: 'denable_i', width: p.dataTrace ? 1 : 0, doc: 'support packet denable (data trace)' },
    { name: 'doptions_i', width: p.dataTrace ? 4 : 0, doc: 'support packet doptions: bit 0 noAddress, bit 1 noData, bits 3:2 DataCompress' },
  ];
  return all.filter((s) => s.width > 0);
}

/**
 * The input ports of etrace_packer for a configuration, in declaration order: kind_i, the run-time
 * option inputs, then the descriptor fields. A port whose width would be 0 is absent from the list
 * and from the module. Names are the full port names (`address_i`); the outputs bytes_o
 * (8 * packerMaxBytes bits), len_o (6) and bits_o (8) are always present.
 */
export function packerPorts(config: EtraceConfig): { name: string; width: number }[] {
  return portSpecs(config).map(({ name, width }) => ({ name, width }));
}

// ---------------------------------------------------------------------------------------------
// Bit-level expressions

/** One bit of an expression: bit `idx` of port `sig` (idx null: a 1-bit port), or a constant. */
type Atom = { readonly sig: string; readonly idx: number | null } | { readonly bit: 0 | 1 };

function portBits(ports: Map<string, number>, sig: string, width: number, field: string): Atom[] {
  const pw = ports.get(sig);
  if (pw === undefined || pw < width) throw new Error(`etrace_packer: field ${field} (${width} bits) has no port ${sig} wide enough`);
  if (pw === 1) return [{ sig, idx: null }];
  return Array.from({ length: width }, (_, i) => ({ sig, idx: i }));
}

function constBits(value: bigint, width: number): Atom[] {
  return Array.from({ length: width }, (_, i) => ({ bit: Number((value >> BigInt(i)) & 1n) as 0 | 1 }));
}

/** The bits of a field, LSB first, taken from the ports (or constants) of the interface. */
function fieldAtoms(f: FieldSpec, kindBase: Packet, ports: Map<string, number>): Atom[] {
  const port = (sig: string): Atom[] => portBits(ports, sig, f.width, f.name);
  switch (f.name) {
    case 'format':
    case 'subformat':
      return constBits(kindBase[f.name] ?? 0n, f.width);
    case 'denable':
    case 'doptions':
      // With data trace the support packet reports the data options (docs/etrace-data.md).
      return ports.has(`${f.name}_i`) ? port(`${f.name}_i`) : constBits(0n, f.width);
    case 'encoder_mode': // branch trace
    case 'dloss': // data loss is trace loss (qual_status trace_lost)
      return constBits(0n, f.width);
    case 'options':
    case 'ioptions':
      return Array.from({ length: f.width }, (_, i): Atom => {
        const name = (Object.keys(IOPTION_BIT) as (keyof typeof IOPTION_BIT)[]).find((n) => IOPTION_BIT[n] === i);
        return name === undefined ? { bit: 0 } : { sig: OPTION_PORTS[name], idx: null };
      });
    case 'sijump':
      return port('sijump_opt_i');
    case 'iret_ext': // the encoder implements the Implicit Return extension
      return constBits(1n, f.width);
    case 'tval':
    case 'tvalepc':
      return port('tval_i');
    case 'enable':
    case 'ienable':
      return port('enable_i');
    default:
      return port(`${f.name}_i`);
  }
}

/**
 * Ports and the part selects of them the payload arms use. Icarus 11 does not support constant
 * selects inside always_* processes (it warns and widens the sensitivity), so every part select is
 * a named signal assigned outside the always_comb.
 */
interface Env {
  readonly ports: Map<string, number>;
  readonly slices: Map<string, { name: string; width: number; expr: string }>;
}

function slice(env: Env, sig: string, hi: number, lo: number): string {
  const expr = `${sig}${svBits(hi, lo)}`;
  let s = env.slices.get(expr);
  if (s === undefined) {
    s = { name: `${sig.replace(/_i$/, '')}_${hi === lo ? hi : `${hi}_${lo}`}`, width: hi - lo + 1, expr };
    env.slices.set(expr, s);
  }
  return s.name;
}

/** MSB-first comma-separated parts of a field: ports, slices of ports and sized constants. */
function renderAtoms(atomsLsbFirst: readonly Atom[], env: Env): string {
  const ports = env.ports;
  const parts: string[] = [];
  const msbFirst = [...atomsLsbFirst].reverse();
  let i = 0;
  while (i < msbFirst.length) {
    const a = msbFirst[i]!;
    if ('bit' in a) {
      let j = i;
      let v = 0n;
      while (j < msbFirst.length && 'bit' in msbFirst[j]!) {
        v = (v << 1n) | BigInt((msbFirst[j] as { bit: 0 | 1 }).bit);
        j++;
      }
      parts.push(svSized(j - i, v));
      i = j;
    } else if (a.idx === null) {
      parts.push(a.sig);
      i++;
    } else {
      let j = i + 1;
      while (j < msbFirst.length) {
        const b = msbFirst[j]!;
        if ('bit' in b || b.sig !== a.sig || b.idx !== a.idx - (j - i)) break;
        j++;
      }
      const hi = a.idx;
      const lo = a.idx - (j - i - 1);
      parts.push(lo === 0 && hi === (ports.get(a.sig) ?? 0) - 1 ? a.sig : slice(env, a.sig, hi, lo));
      i = j;
    }
  }
  return parts.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Layout selection

/** A selector the layout of a kind may depend on: its input port and value width. */
interface Dim {
  readonly name: 'implicit_exception' | 'interrupt' | 'thaddr' | 'branch_fmt' | 'branches';
  readonly port: string;
  readonly width: number;
}

const DIMS: readonly Dim[] = [
  // Order = bit order of the selector concatenation, MSB first.
  { name: 'interrupt', port: 'interrupt_i', width: 1 },
  { name: 'implicit_exception', port: 'implicit_exception_i', width: 1 },
  { name: 'thaddr', port: 'thaddr_i', width: 1 },
  { name: 'branch_fmt', port: 'branch_fmt_i', width: 2 },
  { name: 'branches', port: 'branches_i', width: 5 },
];

type Combo = readonly number[];

function layoutOf(params: PacketParams, base: Packet, kind: PacketKind, dims: readonly Dim[], combo: Combo): FieldSpec[] | undefined {
  const pkt: Packet = { ...base };
  let implicitException = false;
  dims.forEach((d, i) => {
    if (d.name === 'implicit_exception') implicitException = combo[i] === 1;
    else pkt[d.name] = BigInt(combo[i]!);
  });
  if (packetKind(pkt, params) !== kind) return undefined; // format 0 with the other subformat implied
  try {
    return packetFields(pkt, params, { implicit_exception: implicitException });
  } catch (e) {
    if (e instanceof RvError) return undefined; // reserved or unsupported
    throw e;
  }
}

const layoutKey = (fields: FieldSpec[] | undefined): string => (fields === undefined ? '-' : fields.map((f) => `${f.name}:${f.width}`).join(','));

function allCombos(dims: readonly Dim[]): Combo[] {
  let out: number[][] = [[]];
  for (const d of dims) {
    const next: number[][] = [];
    for (const c of out) for (let v = 0; v < 1 << d.width; v++) next.push([...c, v]);
    out = next;
  }
  return out;
}

/** A cube of the selector space: its casez pattern and a description of the values it covers. */
interface Cube {
  pattern: string;
  doc: string;
}

/**
 * Covers a set of selector values (bits MSB first, `bits` wide) with disjoint cubes by splitting on
 * the most significant undecided bit: every cube is a casez pattern.
 */
function cubes(values: ReadonlySet<number>, bits: number): string[] {
  const out: string[] = [];
  const walk = (prefix: string, lo: number, span: number): void => {
    let count = 0;
    for (let v = lo; v < lo + span; v++) if (values.has(v)) count++;
    if (count === 0) return;
    if (count === span) {
      out.push(prefix + '?'.repeat(bits - prefix.length));
      return;
    }
    walk(`${prefix}0`, lo, span / 2);
    walk(`${prefix}1`, lo + span / 2, span / 2);
  };
  walk('', 0, 1 << bits);
  return out;
}

/** What a cube pattern means, selector by selector (`branches 4-7, interrupt 0`). */
function cubeDoc(pattern: string, dims: readonly Dim[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const d of dims) {
    const p = pattern.slice(at, at + d.width);
    at += d.width;
    if (!p.includes('0') && !p.includes('1')) continue;
    const lo = parseInt(p.replace(/\?/g, '0'), 2);
    const hi = parseInt(p.replace(/\?/g, '1'), 2);
    // A cube of one selector whose free bits are its low bits is a range, else list the values.
    const values: number[] = [];
    for (let v = lo; v <= hi; v++) if ([...p].every((c, i) => c === '?' || Number(c) === ((v >> (d.width - 1 - i)) & 1))) values.push(v);
    const text = values.length === hi - lo + 1 && values.length > 1 ? `${lo}-${hi}` : values.join('/');
    parts.push(`${d.name} ${text}`);
  }
  return parts.length === 0 ? 'any' : parts.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Context

export interface PackerArm {
  /** `3'd2: begin  // F1 (diff-delta)` */
  head: string;
  /** The arm body, indented relative to the head. */
  lines: string[];
}

export interface PackerContext {
  banner: string;
  module: string;
  ratified: boolean;
  dataTrace: boolean;
  encapDoc: string;
  configDoc: string[];
  portLines: string[];
  decls: string[];
  payloadZero: string;
  sliceAssigns: string[];
  kindArms: PackerArm[];
  diffAssign: string;
  encoderLines: string[];
  keepRows: string[];
  lengthRows: string[];
  headerAssign: string;
  byteAssigns: string[];
  lenRows: string[];
  bitsAssign: string;
  unusedLines: string[];
}

interface Shape {
  fields: FieldSpec[];
  cubes: Cube[];
}

const KIND_TITLES: Readonly<Record<PacketKind, string>> = {
  'F0.SF0': 'format 0 subformat 0, branch count',
  'F0.SF1': 'format 0 subformat 1, jump target index',
  F1: 'format 1, branches and differential address',
  F2: 'format 2, address only',
  'F3.SF0': 'format 3 subformat 0, synchronisation',
  'F3.SF1': 'format 3 subformat 1, trap',
  'F3.SF2': 'format 3 subformat 2, context',
  'F3.SF3': 'format 3 subformat 3, support',
};

/** The payload assignment of one layout, sign-extended to `width` bits, one field per line. */
function payloadLines(fields: readonly FieldSpec[], base: Packet, env: Env, width: number): string[] {
  const total = fields.reduce((s, f) => s + f.width, 0);
  if (total > width) throw new Error(`etrace_packer: a ${total}-bit layout exceeds the ${width}-bit payload`);
  const rows: [string, string][] = [];
  let lsb = 0;
  const placed = fields.map((f) => {
    const atoms = fieldAtoms(f, base, env.ports);
    const r = { f, atoms, lsb };
    lsb += f.width;
    return r;
  });
  const top = placed[placed.length - 1]!;
  const topAtom = top.atoms[top.atoms.length - 1]!;
  if (total < width) {
    const t = renderAtoms([topAtom], env);
    rows.push([`{${width - total}{${t}}}`, `sign extension (copies of bit ${total - 1})`]);
  }
  for (const r of [...placed].reverse()) {
    rows.push([renderAtoms(r.atoms, env), `${r.f.name} ${svBits(r.lsb + r.f.width - 1, r.lsb)}`]);
  }
  // Comments line up, except after the few very long expressions (the options field).
  const exprs = rows.map(([e], i) => `${e}${i === rows.length - 1 ? '' : ','}`);
  const col = Math.max(0, ...exprs.filter((e) => e.length <= 40).map((e) => e.length));
  return ['payload = {', ...rows.map(([, doc], i) => `  ${exprs[i]!.padEnd(col)}  // ${doc}`), '};'];
}

function kindArm(params: PacketParams, k: (typeof PACKER_KINDS)[number], env: Env, width: number): PackerArm | undefined {
  const ports = env.ports;
  const combos = allCombos(DIMS);
  const keyOf = new Map<string, string>();
  const layouts = new Map<string, FieldSpec[]>();
  for (const c of combos) {
    const fields = layoutOf(params, k.base, k.kind, DIMS, c);
    const key = layoutKey(fields);
    keyOf.set(c.join(','), key);
    if (fields !== undefined) layouts.set(key, fields);
  }
  if (layouts.size === 0) return undefined;
  // Keep the selectors that change the layout (or its validity) for some value of the others.
  const used = DIMS.filter((_, d) => {
    const seen = new Map<string, string>();
    for (const c of combos) {
      const others = c.filter((_, i) => i !== d).join(',');
      const key = keyOf.get(c.join(','))!;
      const prev = seen.get(others);
      if (prev !== undefined && prev !== key) return true;
      seen.set(others, key);
    }
    return false;
  });
  for (const d of used) {
    if (!ports.has(d.port)) throw new Error(`etrace_packer: the ${k.kind} layout depends on ${d.name}, which has no port`);
  }
  const head = `3'd${k.code}: begin  // ${k.kind}: ${KIND_TITLES[k.kind]}`;
  if (used.length === 0) {
    const only = [...layouts.values()][0]!;
    return { head, lines: ['supported = 1\'b1;', ...payloadLines(only, k.base, env, width)] };
  }
  // Group the selector values (the used selectors concatenated, first one in the MSBs) by layout.
  const bits = used.reduce((s, d) => s + d.width, 0);
  const groups = new Map<string, Set<number>>();
  for (const c of allCombos(used)) {
    const full = DIMS.map((d) => {
      const i = used.indexOf(d);
      return i < 0 ? 0 : c[i]!;
    });
    const key = keyOf.get(full.join(','))!;
    if (key === '-') continue;
    let value = 0;
    used.forEach((d, i) => {
      value = (value << d.width) | c[i]!;
    });
    let g = groups.get(key);
    if (g === undefined) {
      g = new Set();
      groups.set(key, g);
    }
    g.add(value);
  }
  const shapes: Shape[] = [...groups.entries()].map(([key, values]) => ({
    fields: layouts.get(key)!,
    cubes: cubes(values, bits).map((c) => ({ pattern: `${bits}'b${c}`, doc: cubeDoc(c, used) })),
  }));
  const selector = used.length === 1 ? used[0]!.port : `{${used.map((d) => d.port).join(', ')}}`;
  const lines = [`unique casez (${selector})`];
  for (const s of shapes) {
    const total = s.fields.reduce((n, f) => n + f.width, 0);
    lines.push(`  ${s.cubes.map((c) => c.pattern).join(', ')}: begin  // ${s.cubes.map((c) => c.doc).join('; ')}: ${total} bits`);
    lines.push('    supported = 1\'b1;');
    lines.push(...payloadLines(s.fields, k.base, env, width).map((l) => `    ${l}`));
    lines.push('  end');
  }
  lines.push('  default: begin', '    supported = 1\'b0;', '  end', 'endcase');
  return { head, lines };
}

/** Throws RvError('invalid-component') for encapsulation settings this packer does not implement. */
function checkEncapsulation(p: PacketParams): void {
  if (p.encap_type_in !== 'flow') {
    throw new RvError(
      'invalid-component',
      `etrace_packer carries the message type in header.flow only: encap_type_in must be 'flow', not '${String(p.encap_type_in)}'`,
      { path: 'parameters/encap_type_in' },
    );
  }
}

/** Builds the whole template context. `banner` is the comment banner (with its `//` and newlines). */
export function etracePackerContext(config: EtraceConfig, banner: string): PackerContext {
  const p = config.params;
  checkEncapsulation(p);
  const maxBytes = packerMaxBytes(config);
  const srcBits = p.encap_srcid_width;
  const srcBytes = Math.floor(srcBits / 8);
  const lengthMax = maxBytes - 1 - srcBytes; // header.length of the largest packet
  if (lengthMax > 31) {
    throw new RvError('invalid-component', `the largest packet needs ${lengthMax} bytes after the header; encapsulation allows 31`, {
      path: 'parameters/payload_layout',
    });
  }
  const specs = portSpecs(config);
  const ports = new Map(specs.map((s) => [s.name, s.width]));
  const env: Env = { ports, slices: new Map() };
  const pw = 8 * Math.ceil(largestPacketBits(p) / 8); // payload width: whole bytes, sign-extended
  const kindArms: PackerArm[] = [];
  for (const k of PACKER_KINDS) {
    const arm = kindArm(p, k, env, pw);
    if (arm !== undefined) kindArms.push(arm);
  }

  // Ports.
  const outputs: PortSpec[] = [
    { name: 'bytes_o', width: 8 * maxBytes, group: 'Encapsulated packet', doc: 'byte k in bits [8k +: 8], header first; bytes at and above len_o are 0' },
    { name: 'len_o', width: 6, doc: 'header + payload bytes (0: nothing packed)' },
    { name: 'bits_o', width: 8, doc: 'payload bits kept by the compression' },
  ];
  const all = [...specs.map((s) => ({ ...s, dir: 'input ' })), ...outputs.map((s) => ({ ...s, dir: 'output' }))];
  const decl = padColumn(all.map((s) => `${s.dir} ${svLogic(s.width)}`));
  const names = padColumn(all.map((s, i) => `${s.name}${i === all.length - 1 ? '' : ','}`));
  const portLines: string[] = [];
  all.forEach((s, i) => {
    if (s.group !== undefined) portLines.push(`// ${s.group}`);
    portLines.push(`${decl[i]} ${names[i]}  // ${s.doc}`);
  });

  const diffWidth = pw - 1;
  // After the header: the source id (0, as in the model's stream) in the low bits, then the
  // payload, sign-extended to the last byte sent.
  const streamWidth = Math.max(8 * (maxBytes - 1), pw + srcBits);
  const stream = srcBits === 0 && streamWidth === pw ? 'payload' : 'stream';
  // header.length > n when the kept bits and the source id's last r bits need more than n bytes:
  // keep + r > 8n, that is some payload bit at or above 8n - r - 1 differs from the top one (keep
  // is that bit's index + 2): an OR of the bits at or above each such position, no count of the
  // kept bits to add up. The kept bits themselves (for the jump target cache's choice of the
  // shorter packet) come from the highest differing bit, found by a tree of multiplexers.
  const r = srcBits % 8;
  const longerAt = (n: number) => 8 * n - r - 1;
  const cuts = [...Array(lengthMax).keys()].slice(1).map(longerAt).filter((lo) => lo <= diffWidth - 1);
  const above = svAtOrAboveAt('differing', 'diff', diffWidth, cuts.length > 0 ? cuts : [0]);
  const highest = svHighestSetBitTree('highest', 'diff', diffWidth);
  const encoderLines = [
    '// differing: whether a bit at or above each position the header length tests differs from the',
    '// top one.',
    ...above.declarations,
    ...above.rows,
    ...highest.declarations,
    ...highest.rows,
  ];
  const declRows: [string, string, string][] = [
    [svLogic(1), 'supported', 'kind_i and its selectors name a layout of this configuration'],
    [svLogic(pw), 'payload', 'fields of the layout, sign-extended to whole bytes'],
    [svLogic(diffWidth), 'diff', 'payload bits below the top one that differ from it'],
  ];
  for (const sl of env.slices.values()) declRows.splice(declRows.length - 2, 0, [svLogic(sl.width), sl.name, sl.expr]);
  declRows.push([svLogic(8), 'keep', 'payload bits kept: that index + 2, or 1']);
  if (stream === 'stream') declRows.push([svLogic(streamWidth), 'stream', 'the bytes after the header: source id (0), payload, sign extension']);
  declRows.push([svLogic(lengthMax), 'longer', 'longer[n]: header.length > n (a thermometer)']);
  declRows.push([svLogic(5), 'plen', `header.length: ceil(${srcBits % 8 === 0 ? 'keep' : `(keep + ${srcBits % 8})`} / 8), 0 when nothing is packed`]);
  const dt = padColumn(declRows.map(([t]) => t));
  const dn = padColumn(declRows.map(([, n]) => `${n};`));
  const decls = declRows.map(([, , doc], i) => `${dt[i]} ${dn[i]}  // ${doc}`);

  // keep = that bit's index + 2, or 1 when no bit differs.
  const keepRows = [`assign keep = highest_any ? 8'(highest_index) + 8'd2 : 8'd1;`];
  const byteAssigns: string[] = [];
  if (stream === 'stream') {
    const ext = streamWidth - pw - srcBits;
    byteAssigns.push(`assign stream = {${ext > 0 ? `{${ext}{payload[${pw - 1}]}}, ` : ''}payload${srcBits > 0 ? `, ${svSized(srcBits, 0n)}` : ''}};`);
  }
  for (let b = 0; b < maxBytes - 1; b++) {
    const bits = svBits(8 * b + 15, 8 * b + 8);
    const source = `${stream}${svBits(8 * b + 7, 8 * b)}`;
    // The source id's whole bytes are always sent; then payload byte n when header.length > n.
    byteAssigns.push(b < srcBytes ? `assign bytes_o${bits} = ${source};` : `assign bytes_o${bits} = longer[${b - srcBytes}] ? ${source} : 8'h00;`);
  }
  const longerRows = [`assign longer[0] = supported;`];
  for (let n = 1; n < lengthMax; n++) {
    const lo = longerAt(n);
    longerRows.push(`assign longer[${n}] = ${lo > diffWidth - 1 ? "1'b0" : `supported & ${above.at(lo)}`};`);
  }
  const lengthPlus = 1 + srcBytes; // the header byte and the source id's whole bytes
  const lenMax = lengthMax + lengthPlus;
  const w = packetWidths(p);
  const configDoc = [
    `payload layout ${p.payload_layout}; largest packet ${largestPacketBits(p)} bits, ${maxBytes} bytes encapsulated`,
    `widths: address ${w.address}, tval ${w.tval}, irdepth ${w.irdepth}, irets ${w.irets}, index ${w.index}, f0s ${w.f0s}, privilege ${w.privilege}, ` +
      `ecause ${w.ecause}, context ${w.context} (F3.SF2: ${w.contextSf2}), time ${w.time}, options ${w.ioptions}, sijump ${w.sijump}`,
    `kinds packed: ${kindArms.length === PACKER_KINDS.length ? 'all' : PACKER_KINDS.filter((k) => kindArms.some((a) => a.head.startsWith(`3'd${k.code}:`))).map((k) => k.kind).join(', ')}`,
  ];

  // Input bits no layout reads (a kind the parameters cannot send): tied to an unused signal.
  const read = new Set<string>();
  const scan = (text: string): void => {
    for (const m of text.matchAll(/\b([a-z_]+_i)\b(\[(\d+)(?::(\d+))?\])?/g)) {
      const [, sig, , hi, lo] = m;
      if (hi === undefined) for (let i = 0; i < ports.get(sig!)!; i++) read.add(`${sig}:${i}`);
      else for (let i = Number(lo ?? hi); i <= Number(hi); i++) read.add(`${sig}:${i}`);
    }
  };
  for (const a of kindArms) a.lines.forEach(scan);
  for (const sl of env.slices.values()) scan(sl.expr);
  read.add('kind_i:0').add('kind_i:1').add('kind_i:2');
  const unusedParts: string[] = [];
  for (const s of specs) {
    const missing = Array.from({ length: s.width }, (_, i) => i).filter((i) => !read.has(`${s.name}:${i}`));
    if (missing.length === s.width) unusedParts.push(s.name);
    else for (const i of missing) unusedParts.push(`${s.name}[${i}]`);
  }
  // Stream bits above the last byte a packet can send (a short payload after a long source id).
  if (streamWidth > 8 * (maxBytes - 1)) unusedParts.push(`stream${svBits(streamWidth - 1, 8 * (maxBytes - 1))}`);
  const unusedLines =
    unusedParts.length === 0
      ? []
      : [
          '// Inputs no packet of this configuration sends (and stream bits no packet reaches).',
          'logic unused_inputs;',
          `assign unused_inputs = ^{${unusedParts.join(', ')}};`,
        ];

  return {
    banner,
    module: ETRACE_PACKER_MODULE,
    ratified: p.payload_layout === '2.0',
    dataTrace: p.dataTrace !== undefined,
    encapDoc:
      srcBits === 0
        ? 'no source id'
        : `then a ${srcBits}-bit source id, 0 as in the model's stream (header.length counts its last ${srcBits % 8} bits)`,
    configDoc,
    portLines,
    decls,
    payloadZero: `{${pw}{1'b0}}`,
    sliceAssigns: [...env.slices.values()].map((sl) => `assign ${sl.name} = ${sl.expr};`),
    kindArms,
    diffAssign: `assign diff = payload${svBits(pw - 2, 0)} ^ {${diffWidth}{payload[${pw - 1}]}};`,
    encoderLines,
    keepRows,
    lengthRows: [
      ...longerRows,
      ...svThermometerValue('plen', (m) => (m <= lengthMax ? `longer[${m - 1}]` : undefined), lengthMax, 5),
    ],
    headerAssign: `assign bytes_o[7:0] = supported ? {1'b0, ${svSized(2, BigInt(MSG_TYPE.instruction))}, plen} : 8'h00;  // extend 0, flow 2 (instruction trace), length`,
    byteAssigns,
    // len_o = header.length + the header byte and the source id's bytes, 0 when nothing is packed.
    lenRows: svThermometerValue('len_o', (m) => (m <= lengthPlus ? 'supported' : m <= lenMax ? `longer[${m - lengthPlus - 1}]` : undefined), lenMax, 6),
    bitsAssign: `assign bits_o = supported ? keep : 8'h00;`,
    unusedLines,
  };
}

/** The packer `etrace_packer.sv`. */
export function renderEtracePacker(config: EtraceConfig, banner: BannerInput): string {
  return renderTemplate(ETRACE_PACKER_TEMPLATE, etracePackerContext(config, commentBanner(banner, '//')));
}
