/**
 * The component loader: the shipped components, the 2022 variant, and the error catalogue (one
 * malformed component per message in test-fixtures/bad/, each with its exact line and message).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitStatus, RvError } from '../golden-model/common/errors.ts';
import type { SettingSpec } from '../golden-model/common/settings.ts';
import { ETRACE_SETTINGS, validateEtraceSettings } from '../golden-model/etrace/settings.ts';
import { checkComponent, ComponentErrors, COMPONENTS_DIR, componentFile, loadComponent, shippedComponents } from './load.ts';
import { defaultSchemaDir, validateXsd } from './reader/xsd.ts';

const FIXTURES = fileURLToPath(new URL('./test-fixtures/', import.meta.url));
const BAD = join(FIXTURES, 'bad');
const etrace = { block: 'etrace', validate: validateEtraceSettings };

/** The data trace settings of etrace-rv64-full (issue 21; the 2022 fixture predates them). */
const RV64_FULL_DATA = { data_trace_p: 1, data_width_p: 64, dtype_width_p: 4, data_atomics_p: 1, data_csr_p: 1, data_compress_p: 3 };

/**
 * What the four shipped components said as JSON before they became IP-XACT (issue 3), unchanged but
 * for the data trace of etrace-rv64-full; and etrace-data (issue 21). Since issue 25 they have
 * two pipeline stages (PIPELINED); etrace-2.0 with them a 128-byte FIFO.
 */
const PIPELINED = { pipeline_stages_p: 2 };
const SHIPPED_SETTINGS: Record<string, Record<string, unknown>> = {
  etrace: {
    payload_layout: '1.1.1', iaddress_width_p: 64, iaddress_lsb_p: 1, itype_width_p: '4', ecause_width_p: 6, privilege_width_p: 2,
    context_width_p: 32, nocontext_p: 0, ResyncMode: 1, ResyncMax: 4,
    ...PIPELINED,
  },
  'etrace-rv32-mcu': {
    payload_layout: '1.1.1', iaddress_width_p: 32, iaddress_lsb_p: 1, itype_width_p: '3', ecause_width_p: 5, privilege_width_p: 2,
    nocontext_p: 1, ResyncMode: 3, ResyncMax: 8,
    ...PIPELINED,
  },
  'etrace-rv64-full': {
    payload_layout: '1.1.1', iaddress_width_p: 64, iaddress_lsb_p: 1, itype_width_p: '4', ecause_width_p: 6, privilege_width_p: 2,
    context_width_p: 32, return_stack_size_p: 4, iret_ext_p: 1, bpred_size_p: 6, cache_size_p: 4, f0s_width_p: 1, sijump_p: 1,
    ImplicitReturn: true, BranchPrediction: true, JumpTargetCache: true, siJump: true, ResyncMode: 1, ResyncMax: 4,
    // Data trace, added by issue 21.
    ...RV64_FULL_DATA,
    ...PIPELINED,
  },
  'etrace-data': {
    payload_layout: '2.0', iaddress_width_p: 64, iaddress_lsb_p: 1, itype_width_p: '4', ecause_width_p: 6, fifo_depth_p: 128,
    data_trace_p: 1, data_width_p: 64, dtype_width_p: 4, data_split_p: 0, data_atomics_p: 1, data_csr_p: 1, data_compress_p: 3, DataCompress: 3,
    ResyncMode: 1, ResyncMax: 4,
    ...PIPELINED,
  },
  'etrace-2.0': {
    payload_layout: '2.0', iaddress_width_p: 64, iaddress_lsb_p: 1, itype_width_p: '4', ecause_width_p: 6, privilege_width_p: 2,
    context_width_p: 32, nocontext_p: 0, time_width_p: 48, notime_p: 0, ResyncMode: 1, ResyncMax: 4, fifo_depth_p: 128,
    ...PIPELINED,
  },
};

describe('shipped components', () => {
  it('are the IP-XACT files of the E-Trace, CTR, N-Trace, PMU and tvtrace blocks, and no JSON is left', () => {
    expect(shippedComponents('etrace')).toEqual(['etrace', 'etrace-2.0', 'etrace-data', 'etrace-rv32-mcu', 'etrace-rv64-full']);
    expect(readdirSync(COMPONENTS_DIR).sort()).toEqual([
      'ctr-1.0.xml', 'ctr-rv32.xml', 'ctr-small.xml', 'ctr.xml', 'etrace-2.0.xml', 'etrace-data.xml', 'etrace-rv32-mcu.xml', 'etrace-rv64-full.xml', 'etrace.xml',
      'ntrace-btm-mcu.xml', 'ntrace-full.xml', 'ntrace.xml', 'pmu-qemu-virt.xml', 'pmu-rv32-mcu.xml', 'pmu.xml', 'tvtrace-rv32imc.xml', 'tvtrace.xml',
    ]);
  });

  it.each(Object.keys(SHIPPED_SETTINGS))('%s passes xmllint against the 1685-2014 schema and loads with its settings', (name) => {
    expect(validateXsd(componentFile(name), '2014', defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const c = loadComponent(name, ETRACE_SETTINGS, etrace);
    expect(c.settings).toEqual(SHIPPED_SETTINGS[name]);
    expect(c.standard).toBe('2014');
    expect(c.block).toBe('etrace');
    expect(c.vlnv).toEqual({ vendor: 'rvtrace.dev', library: 'trace', name, version: '1.0' });
    expect(c.description.length).toBeGreaterThan(50);
  });

  it('the default argues its RV64 values against Table 9.2', () => {
    const d = loadComponent('etrace', ETRACE_SETTINGS, etrace).description;
    expect(d).toContain('Table 9.2');
    for (const word of ['iaddress_width_p = 64', 'ecause_width_p = 6', 'privilege_width', 'context']) expect(d).toContain(word);
  });

  it('evaluates expressions and helper parameters (etrace-rv64-full: XLEN)', () => {
    const c = loadComponent('etrace-rv64-full', ETRACE_SETTINGS, etrace);
    expect(c.helpers).toEqual(['XLEN']);
    expect(c.settings).not.toHaveProperty('XLEN');
    expect(c.lines.get('XLEN')).toBeGreaterThan(0);
  });

  it('reads the same component written in IEEE 1685-2022', () => {
    const c = loadComponent(join(FIXTURES, 'etrace-rv64-full-2022.xml'), ETRACE_SETTINGS, etrace);
    expect(c.standard).toBe('2022');
    const withoutData = Object.fromEntries(Object.entries(SHIPPED_SETTINGS['etrace-rv64-full']!).filter(([k]) => !(k in RV64_FULL_DATA)));
    expect(c.settings).toEqual(withoutData);
  });
});

describe('error catalogue: one malformed component per message', () => {
  // [fixture, line, message after "file:line: "]
  const CATALOGUE: [string, number, string][] = [
  ['address-width-65', 14, "parameters/iaddress_width_p: iaddress_width_p = 65 is outside 2..64"],
  ['bad-choice', 10, "parameters/payload_layout: payload_layout must be '1.1.1' or '2.0', not '3.0'"],
  ['bool-not-0-or-1', 18, "parameters/FullAddress: FullAddress is a boolean: expected 0 or 1, not 2"],
  ['branch-prediction-without-predictor', 18, "parameters/BranchPrediction: BranchPrediction needs bpred_size_p > 0"],
  ['choice-not-string', 10, "parameters/payload_layout: payload_layout takes one of \"1.1.1\", \"2.0\": write it as a parameter with type=\"string\" and a quoted value such as \"1.1.1\""],
  ['counter-and-stack', 18, "parameters/call_counter_size_p: implicit return uses a call counter or a return stack, not both (call_counter_size_p and return_stack_size_p are both non-zero)"],
  ['cycle', 14, "parameters/iaddress_width_p: value \"context_width_p * 2\": circular reference: iaddress_width_p -> context_width_p -> iaddress_width_p"],
  ['discovery-field-overflow', 18, "parameters/context_width_p: context_width_p gives discovery_info_0.context_width the value 63, which does not fit its 5-bit field (0..31)"],
  ['division-by-zero', 18, "parameters/context_width_p: value \"iaddress_width_p / 0\": division by zero (column 18)"],
  ['duplicate-parameter', 18, "parameters/iaddress_width_p: value \"32\": `iaddress_width_p` already names parameter `iaddress_width_p`"],
  ['ecause-width-0', 18, "parameters/ecause_width_p: ecause_width_p = 0 is outside 1..64"],
  ['f0s-width-missing', 9, "parameters/f0s_width_p: f0s_width_p must be non-zero when both branch prediction and the jump target cache are supported"],
  ['helper-is-setting', 21, "<rvtrace:helperParameter>: \"iaddress_width_p\" is a setting of block etrace, so it cannot be a helper parameter"],
  ['helper-not-a-parameter', 21, "<rvtrace:helperParameter>XLEN</rvtrace:helperParameter> names no parameter of the component"],
  ['impdef-width-40', 18, "parameters/impdef_width_p: impdef_width_p = 40 is outside 0..32"],
  ['implicit-return-itype-3', 26, "parameters/ImplicitReturn: ImplicitReturn needs itype_width_p = 4 (section 4.2)"],
  ['implicit-return-without-stack', 18, "parameters/ImplicitReturn: ImplicitReturn needs call_counter_size_p or return_stack_size_p"],
  ['iretire-too-narrow', 22, "parameters/iretire_width_p: iretire_width_p = 2 cannot count the 4 half-words of retires_p = 2 instructions"],
  ['itype-5', 18, "parameters/itype_width_p: itype_width_p must be 3 or 4, not 5"],
  ['jump-target-cache-without-cache', 18, "parameters/JumpTargetCache: JumpTargetCache needs cache_size_p > 0"],
  ['largest-packet', 10, "parameters/payload_layout: the largest packet needs 32 payload bytes; encapsulation allows 31"],
  ['lsb-3', 18, "parameters/iaddress_lsb_p: iaddress_lsb_p must be 1 or 2, not 3"],
  ['malformed-xml', 7, "malformed XML: closing tag </ipxact:nam> does not match <ipxact:name> opened at line 7"],
  ['missing-block', 3, "missing <rvtrace:block> in <ipxact:vendorExtensions> (namespace https://rvtrace.dev/ipxact/1.0): it names the block the component describes, here etrace"],
  ['negative-bigint', 22, "parameters/comparator0.pMatch: comparator0.pMatch must be a non-negative integer, not -1"],
  ['reader-unsupported', 19, "memoryMaps/regs/control/ctrl: <ipxact:isPresent> in <ipxact:register> is not supported by rvtrace"],
  ['real-for-integer', 14, "parameters/iaddress_width_p: value \"63.5\": real numbers are not supported: a parameter value must be an integer (column 3)"],
  ['resync-max-16', 18, "parameters/ResyncMax: ResyncMax must be 0..15, not 16"],
  ['sijump-without-input', 18, "parameters/siJump: siJump needs sijump_p = 1"],
  ['string-for-integer', 14, "parameters/iaddress_width_p: iaddress_width_p is an int setting, so its parameter cannot have type=\"string\""],
  ['string-not-quoted', 10, "parameters/payload_layout: payload_layout: the value of a string parameter must be a quoted string such as \"1.1.1\", not 2.0"],
  ['sv-keyword', 10, "parameters/logic: parameter name \"logic\" is a SystemVerilog keyword; the generated RTL could not declare it"],
  ['syntax-error', 18, "parameters/context_width_p: value \"32 +\": expected an operand (a number, a parameter name, `(`, a unary operator or $clog2(...)), found the end of the expression (column 5)"],
  ['too-large', 18, "parameters/fifo_depth_p: fifo_depth_p = 1152921504606846976 is too large"],
  ['undefined-reference', 18, "parameters/context_width_p: value \"XLEN / 2\": undefined reference `XLEN` (column 1): expected the name or parameterId of a component parameter"],
  ['unknown-extension', 21, "unknown element <rvtrace:helper> in the rvtrace namespace https://rvtrace.dev/ipxact/1.0 (known: block, helperParameter)"],
  ['unknown-parameter', 18, "parameters/iaddress_lsb: unknown parameter \"iaddress_lsb\" (not a setting of block etrace; did you mean iaddress_lsb_p?); a parameter that only helps compute others must be listed in <rvtrace:helperParameter>"],
  ['wrong-block', 20, "the component describes block \"ctr\" (<rvtrace:block>), but this command needs block \"etrace\""],
  ['wrong-namespace', 3, "root element <spirit:component> is in namespace http://www.spiritconsortium.org/XMLSchema/SPIRIT/1685-2009; expected an IP-XACT <component> in namespace http://www.accellera.org/XMLSchema/IPXACT/1685-2014 (IEEE 1685-2014) or http://www.accellera.org/XMLSchema/IPXACT/1685-2022 (IEEE 1685-2022)"],
  ['xsd-misplaced-element', 15, "not valid against the IEEE 1685-2014 schema: Element 'ipxact:value': This element is not expected. Expected is ( ipxact:name )."],
  ['xsd-missing-version', 8, "not valid against the IEEE 1685-2014 schema: Element 'ipxact:parameters': This element is not expected. Expected is ( ipxact:version )."],
  ];

  it('covers every fixture in test-fixtures/bad/, each message once', () => {
    const files = readdirSync(BAD).filter((f) => f.endsWith('.xml')).map((f) => f.slice(0, -4)).sort();
    expect(CATALOGUE.map(([f]) => f).sort()).toEqual(files);
    expect(files.length).toBeGreaterThanOrEqual(25);
    const messages = CATALOGUE.map(([, , m]) => m.replace(/^[^ ]*: /, ''));
    expect(new Set(messages).size).toBe(messages.length);
  });

  it.each(CATALOGUE)('%s', (name, line, message) => {
    const file = join(BAD, `${name}.xml`);
    const r = checkComponent(file, ETRACE_SETTINGS, etrace);
    expect(r.component).toBeUndefined();
    expect(r.errors.map((e) => e.oneLine())).toEqual([`${file}:${line}: ${message}`]);
    expect(r.errors[0]!.status).toBe(ExitStatus.badInput);
  });
});

describe('all errors at once', () => {
  it('reports every problem of a component, one line each, in line order', () => {
    const file = join(FIXTURES, 'multi-error.xml');
    let thrown: unknown;
    try {
      loadComponent(file, ETRACE_SETTINGS, etrace);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ComponentErrors);
    const e = thrown as ComponentErrors;
    expect(e.status).toBe(2);
    expect(e.lines()).toEqual([
      `${file}:18: parameters/itype_width_p: itype_width_p must be 3 or 4, not 5`,
      `${file}:22: parameters/iaddress_lsb: unknown parameter "iaddress_lsb" (not a setting of block etrace; did you mean iaddress_lsb_p?); ` +
        'a parameter that only helps compute others must be listed in <rvtrace:helperParameter>',
      `${file}:26: parameters/iaddress_lsb_p: iaddress_lsb_p must be 1 or 2, not 3`,
      `${file}:30: parameters/context_width_p: value "XLEN / 2": undefined reference \`XLEN\` (column 1): expected the name or parameterId of a component parameter`,
      `${file}:34: parameters/FullAddress: FullAddress is a boolean: expected 0 or 1, not 2`,
    ]);
    expect(e.oneLine().split('\n')).toEqual([`${file}: 5 problems in the component:`, ...e.lines()]);
  });

  it('a single problem is a single line', () => {
    const file = join(BAD, 'itype-5.xml');
    expect(() => loadComponent(file, ETRACE_SETTINGS, etrace)).toThrow(ComponentErrors);
    try {
      loadComponent(file, ETRACE_SETTINGS, etrace);
    } catch (e) {
      expect((e as RvError).oneLine()).toBe(`${file}:18: parameters/itype_width_p: itype_width_p must be 3 or 4, not 5`);
    }
  });
});

describe('options and the generic loader', () => {
  it('takes the schema folder from the caller; a missing schema is a tool failure (status 3)', () => {
    const r = checkComponent('etrace', ETRACE_SETTINGS, { ...etrace, schemaDir: join(FIXTURES, 'no-such-schemas') });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.code).toBe('tool-failure');
    expect(new ComponentErrors('x', r.errors).status).toBe(ExitStatus.toolFailure);
  });

  it('names the shipped components when a name is unknown', () => {
    const r = checkComponent('etrace-rv128', ETRACE_SETTINGS, etrace);
    expect(r.errors.map((e) => e.message)).toEqual([
      '--component etrace-rv128: no shipped component of that name and no such file (shipped: etrace, etrace-2.0, etrace-data, etrace-rv32-mcu, etrace-rv64-full)',
    ]);
  });

  it('knows nothing about E-Trace: the specs and the callback carry the rules', () => {
    const specs: SettingSpec[] = [
      { name: 'iaddress_width_p', kind: 'int', default: 8, min: 1, max: 16, help: '' },
      { name: 'payload_layout', kind: 'choice', choices: ['1.1.1', '2.0'], default: '1.1.1', help: '' },
    ];
    const seen: unknown[] = [];
    const r = checkComponent(join(BAD, 'unknown-parameter.xml'), specs.concat([{ name: 'iaddress_lsb', kind: 'bool', default: false, help: '' }]), {
      validate: (s) => {
        seen.push(s);
        return [new RvError('invalid-component', 'too wide for this block', { path: 'parameters/iaddress_width_p' })];
      },
    });
    expect(seen).toEqual([{ iaddress_width_p: 64, payload_layout: '1.1.1', iaddress_lsb: true }]);
    // The callback's error wins over the generic range message for the same parameter.
    expect(r.errors.map((e) => e.oneLine().replace(BAD, ''))).toEqual(['/unknown-parameter.xml:14: parameters/iaddress_width_p: too wide for this block']);
  });
});
