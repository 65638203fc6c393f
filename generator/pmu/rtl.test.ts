/**
 * Quality gates of the generated PMU RTL for the default configuration, an RV32 one and a
 * QEMU-virt-like one: output deterministic to the byte; Verilator lint with the build's flags (with
 * and without --assert, with the waivers of pmu.vlt) reports nothing; Icarus Verilog elaborates it;
 * Yosys's elaboration (yosysLatchCheck) leaves no latch (`rvtrace bench` counts the cells); the
 * top level has exactly the ports of the port contract; the decoded CSR numbers are exactly the CSR map's; the IP-XACT
 * export validates against the 1685-2014 schema and reads back as the same settings.
 *
 * Then a directed simulation (Icarus) of behaviours typed from docs/pmu-model.md, independent of the
 * golden model: a testbench written here drives CSR accesses and checks the responses and lcofi_o.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Settings } from '../../golden-model/common/settings.ts';
import { defaultPmuConfig, PMU_SETTINGS, pmuBlockConfig, validatePmuSettings } from '../../golden-model/pmu/settings.ts';
import { pmuCsrNumbers } from '../../golden-model/pmu/csr-map.ts';
import { PMU_RTL_FILES, PMU_TOP_MODULE, pmuPorts } from '../../golden-model/pmu/ports.ts';
import { componentDocument } from '../../ipxact/export.ts';
import { loadComponent } from '../../ipxact/load.ts';
import { readXmlFile, type XmlElement } from '../../ipxact/reader/xml.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';
import { xmlBanner } from '../render.ts';
import { icarusProblems, LATCH_INFERRED, runTool as run, yosysLatchCheck } from '../tool-checks.ts';
import { renderWaivers } from '../waivers.ts';
import { pmuExportComponent } from './ipxact.ts';
import { pmuLintWaivers, renderPmuRtl } from './rtl.ts';

const WAIVERS = 'pmu.vlt';

/** The configurations under test, as setting overrides of the defaults. */
const CONFIGS: Record<string, Settings> = {
  default: {},
  rv32: {
    xlen: '32',
    counterMask: 0x78,
    counterWidth: 40,
    sscofpmf: false,
    smcntrpmf: false,
    hExt: false,
    eventInputs: 4,
    events: '0x1=cycles,0x2=instructions,0x3=input0,0x4=input1',
  },
  'qemu-virt': {
    counterMask: 0x7fff8,
    smcntrpmf: false,
    events: '0x1=cycles,0x2=instructions,0x10019=input0,0x1001b=input1,0x10021=input2',
    eventInputs: 3,
  },
};

/** Variants that switch the optional hardware and the legalisations (lint and elaboration only). */
const VARIANTS: Record<string, Settings> = {
  hardwired: { eventLegalisation: 'hardwired' },
  'hardwired-rv32': { xlen: '32', eventLegalisation: 'hardwired', sscofpmf: false, smcntrpmf: false },
  clamp: { eventLegalisation: 'clamp', eventMax: 0x200n },
  'm-only': { sMode: false, uMode: false, hExt: false },
  'no-s': { sMode: false, hExt: false },
  'no-inputs': { eventInputs: 0, events: '0x1=cycles,0x2=instructions,0x5=branches' },
  'rv32-32bit-gaps': { xlen: '32', counterMask: 0x60000008, counterWidth: 32 },
  'selector-56': { eventBits: 56, eventMax: 0xffffffffffffffn },
  'selector-64': { eventBits: 64, sscofpmf: false },
  'rv32-clamp-48': { xlen: '32', eventBits: 48, eventLegalisation: 'clamp', eventMax: 0x123456789abn, iretire_width_p: 8 },
  'no-counters': { counterMask: 0 },
  'no-counters-rv32-hardwired': { xlen: '32', counterMask: 0, eventLegalisation: 'hardwired' },
  'no-events': { events: '' },
  'no-events-hardwired-rv32': { xlen: '32', events: '', eventLegalisation: 'hardwired', sscofpmf: false, smcntrpmf: false },
  'no-counters-no-events': { counterMask: 0, events: '', eventInputs: 0 },
};

function settingsOf(over: Settings): Settings {
  const s: Settings = {};
  for (const spec of PMU_SETTINGS) s[spec.name] = spec.default;
  return { ...s, ...over };
}

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-pmu-rtl-'));

function render(name: string) {
  const s = settingsOf(CONFIGS[name] ?? VARIANTS[name]!);
  expect(validatePmuSettings(s).map((e) => e.message)).toEqual([]);
  const b = pmuBlockConfig(s);
  const provenance = { component: name, inputHash: 'test', sets: [] };
  return { s, b, files: [...renderPmuRtl(b.config, b.rtl, s, provenance), renderWaivers(WAIVERS, pmuLintWaivers(), provenance)] };
}

function generated(name: string): { dir: string; sv: string[] } {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  for (const f of render(name).files) writeFileSync(join(out, f.name), f.content);
  return { dir: out, sv: [...PMU_RTL_FILES] };
}


const NAMES = Object.keys(CONFIGS);
const EVERY = [...NAMES, ...Object.keys(VARIANTS)];

describe('generated PMU RTL', () => {
  it('the default configuration is defaultPmuConfig()', () => {
    expect(render('default').b.config).toEqual(defaultPmuConfig());
  });

  it.each(NAMES)('%s: deterministic to the byte', (name) => {
    const a = render(name).files;
    const b = render(name).files;
    expect(a.map((f) => f.name)).toEqual([...PMU_RTL_FILES, WAIVERS]);
    expect(b).toEqual(a);
    for (const f of a) expect(f.content, f.name).not.toMatch(/\/tmp|\/work|\d{4}-\d\d-\d\d/);
  });

  it.each(EVERY)('%s: pmu_top has exactly the ports of pmuPorts (names, order, widths)', (name) => {
    const { b, files } = render(name);
    const top = files.find((f) => f.name === 'pmu_top.sv')!.content;
    const header = top.slice(top.indexOf('module pmu_top ('), top.indexOf('\n);'));
    const decls = [...header.matchAll(/^\s+(input|output)\s+logic\s*(?:\[(\d+):0\])?\s+(\w+),?$/gm)].map((m) => ({
      name: m[3],
      direction: m[1] === 'input' ? 'in' : 'out',
      width: m[2] === undefined ? 1 : Number(m[2]) + 1,
    }));
    expect(decls).toEqual(pmuPorts(b.config, b.rtl).map((p) => ({ name: p.name, direction: p.direction, width: p.width })));
  });

  it.each(EVERY)('%s: the RTL decodes exactly the CSR map', (name) => {
    const { b, files } = render(name);
    const sv = files.find((f) => f.name === 'pmu_csr.sv')!.content;
    const decoded = [...sv.matchAll(/^\s+12'h([0-9a-f]{3}): begin d_kind = /gm)].map((m) => parseInt(m[1]!, 16));
    expect(decoded).toEqual(pmuCsrNumbers(b.config).map((e) => e.address));
  });

  it.each(EVERY)('%s: every range and select is plain numbers; comments cite no TypeScript; no module parameters', (name) => {
    for (const f of render(name).files) {
      const code = f.content.split('\n').map((l) => l.replace(/\/\/.*$/, ''));
      expect(code.filter((l) => /\[[^\]]*[0-9A-Za-z_] *[-+*] *[0-9]/.test(l)), f.name).toEqual([]);
      expect(f.content.split('\n').filter((l) => /\.ts\b|golden-model|generator\/|docs\//.test(l)), f.name).toEqual([]);
      expect(f.content, f.name).not.toMatch(/(?<!local)parameter\b/);
    }
  });

  it.each(NAMES)('%s: verilator --lint-only -Wall (with and without --assert) reports nothing; iverilog elaborates it', (name) => {
    const g = generated(name);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', PMU_TOP_MODULE, WAIVERS, ...g.sv], g.dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    const ivl = run('iverilog', ['-g2012', '-o', 'top.vvp', '-s', PMU_TOP_MODULE, WAIVERS, ...g.sv], g.dir);
    expect(ivl.status, ivl.out).toBe(0);
    expect(icarusProblems(ivl.out)).toEqual([]);
  }, 120_000);

  it.each(Object.keys(VARIANTS))('variant %s: verilator --lint-only -Wall (with and without --assert) reports nothing; iverilog elaborates it', (name) => {
    const g = generated(name);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', PMU_TOP_MODULE, WAIVERS, ...g.sv], g.dir);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    const ivl = run('iverilog', ['-g2012', '-o', 'top.vvp', '-s', PMU_TOP_MODULE, WAIVERS, ...g.sv], g.dir);
    expect(ivl.status, ivl.out).toBe(0);
    expect(icarusProblems(ivl.out)).toEqual([]);
  }, 120_000);

  it.each(NAMES)('%s: yosys elaborates pmu_top without latches or net problems', (name) => {
    const g = generated(name);
    const y = yosysLatchCheck(g.sv, PMU_TOP_MODULE, g.dir);
    expect(y.out).not.toMatch(LATCH_INFERRED);
    expect(y.out).not.toMatch(/ERROR/);
    expect(y.status, y.out.slice(-2000)).toBe(0);
  }, 400_000);
});

/** The registers of the `csr` memory map of an exported document: [name, addressOffset, size]. */
function registers(root: XmlElement): [string, number, string][] {
  const out: [string, number, string][] = [];
  const find = (el: XmlElement, name: string): XmlElement[] => el.children.filter((c) => c.name === name);
  const text = (el: XmlElement, name: string): string => find(el, name)[0]!.text.trim();
  for (const maps of find(root, 'memoryMaps')) {
    for (const m of find(maps, 'memoryMap')) {
      for (const b of find(m, 'addressBlock')) {
        for (const r of find(b, 'register')) out.push([text(r, 'name'), parseInt(text(r, 'addressOffset').replace(/^'h/, ''), 16), text(r, 'size')]);
      }
    }
  }
  return out;
}

describe('IP-XACT export of a PMU block', () => {
  it.each(NAMES.flatMap((n) => (['2014', '2022'] as const).map((s) => [n, s] as const)))('%s, IEEE 1685-%s: validates, has every CSR, reads back the same settings', (name, standard) => {
    const { s, b } = render(name);
    const vlnv = { vendor: 'rvtrace.dev', library: 'trace', name: `pmu-${name}`, version: '1.0' };
    const component = pmuExportComponent(b, s, vlnv, 'A PMU counter block for the RTL generator tests.');
    const file = join(dir, `pmu-${name}-${standard}.xml`);
    const text = componentDocument(component, standard, xmlBanner({ component: name, inputHash: 'test', sets: [] }));
    writeFileSync(file, text);
    expect(validateXsd(file, standard, defaultSchemaDir()).map((e) => e.oneLine())).toEqual([]);
    const back = loadComponent(file, PMU_SETTINGS, { block: 'pmu', validate: validatePmuSettings });
    expect(back.settings).toEqual(s);
    const regs = registers(readXmlFile(file));
    expect(regs.map(([, a]) => a)).toEqual(pmuCsrNumbers(b.config).map((e) => e.address));
    expect(regs.every(([, , size]) => size === String(b.config.xlen))).toBe(true);
    expect(regs.map(([n]) => n)).toContain(b.config.xlen === 32 ? 'mhpmcounter3h' : 'mhpmcounter31');
    expect(text).toContain('<rvtrace:block>pmu</rvtrace:block>');
    expect(text).toContain('<ipxact:moduleName>pmu_top</ipxact:moduleName>');
    if (b.config.sscofpmf) for (const f of ['OF', 'MINH', 'SINH', 'UINH', 'VSINH', 'VUINH', 'EVENT']) expect(text).toContain(`<ipxact:name>${f}</ipxact:name>`);
  });
});

// ---------------------------------------------------------------------------------------------
// Directed simulation: behaviours typed from docs/pmu-model.md, checked on the RTL alone.

/** One cycle of the testbench: a CSR access (or none) and what the RTL must answer in that cycle. */
interface Step {
  what: string;
  /** CSR number; undefined: no access in the cycle. */
  addr?: number;
  we?: boolean;
  wdata?: bigint;
  /** Default all ones (csrrw). */
  wmask?: bigint;
  /** 0 U, 1 S, 3 M (default M); V default 0. */
  priv?: number;
  v?: boolean;
  /** Expected read data (an SV expression may use `saved`); default 0 when an exception is expected. */
  rdata?: bigint | string;
  illegal?: boolean;
  virtual?: boolean;
  /** Expected lcofi_o in the cycle (configurations with Sscofpmf). */
  lcofi?: boolean;
  /** Keep this cycle's rdata in `saved`. */
  save?: boolean;
}

const M = 3;
const ALL = (1n << 64n) - 1n;

function testbench(xlen: number, eventInputs: number, hExt: boolean, sscofpmf: boolean, steps: readonly Step[]): string {
  const x = xlen;
  const lit = (v: bigint | string): string => (typeof v === 'string' ? v : `${x}'h${(v & ((1n << BigInt(x)) - 1n)).toString(16)}`);
  const body = steps.map((s) => {
    const exc = s.illegal === true || s.virtual === true;
    const rdata = s.rdata ?? (exc || s.addr === undefined ? 0n : undefined);
    const checks: string[] = [];
    if (rdata !== undefined) checks.push(`(csr_rdata !== ${lit(rdata)})`);
    checks.push(`(csr_illegal !== 1'b${s.illegal ? 1 : 0})`, `(csr_virtual !== 1'b${s.virtual ? 1 : 0})`);
    if (sscofpmf && s.lcofi !== undefined) checks.push(`(lcofi !== 1'b${s.lcofi ? 1 : 0})`);
    return [
      '    @(negedge clk);',
      s.addr === undefined
        ? "    csr_valid = 1'b0; csr_we = 1'b0;"
        : `    csr_valid = 1'b1; csr_addr = 12'h${s.addr.toString(16)}; csr_we = 1'b${s.we ? 1 : 0}; csr_wdata = ${lit(s.wdata ?? 0n)}; csr_wmask = ${lit(s.wmask ?? ALL)}; csr_priv = 2'd${s.priv ?? M}; csr_v = 1'b${s.v ? 1 : 0};`,
      '    #1;',
      `    if (${checks.join(' || ')}) begin`,
      `      $display("FAIL %0s: rdata %h illegal %b virtual %b${sscofpmf ? ' lcofi %b' : ''}", ${JSON.stringify(s.what)}, csr_rdata, csr_illegal, csr_virtual${sscofpmf ? ', lcofi' : ''});`,
      '      errors = errors + 1;',
      '    end',
      ...(s.save ? ['    saved = csr_rdata;'] : []),
    ].join('\n');
  });
  return `module tb;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic csr_valid = 1'b0, csr_we = 1'b0, csr_v = 1'b0;
  logic [11:0] csr_addr = 12'h0;
  logic [${x - 1}:0] csr_wdata = '0, csr_wmask = '0, saved = '0;
  logic [1:0] csr_priv = 2'd3;
  wire [${x - 1}:0] csr_rdata;
  wire csr_illegal, csr_virtual${sscofpmf ? ', lcofi' : ''};
  integer errors = 0;

  always #5 clk = ~clk;

  // The hart runs in M-mode, retiring nothing: only cycles happen.
  pmu_top dut (
    .clk_i (clk), .rst_ni (rst_n),
    .itype_i (4'd0), .iretire_i ('0), .priv_i (3'd3),${hExt ? " .v_i (1'b0)," : ''} .halted_i (1'b0), .reset_i (1'b0),
    ${eventInputs > 0 ? `.event_i (${eventInputs}'d0),` : ''}
    .csr_valid_i (csr_valid), .csr_addr_i (csr_addr), .csr_we_i (csr_we), .csr_wdata_i (csr_wdata),
    .csr_wmask_i (csr_wmask), .csr_priv_i (csr_priv),${hExt ? ' .csr_v_i (csr_v),' : ''}
    .csr_rdata_o (csr_rdata), .csr_illegal_o (csr_illegal), .csr_virtual_o (csr_virtual)${sscofpmf ? ', .lcofi_o (lcofi)' : ''}
  );

  initial begin
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
${body.join('\n')}
    $display("DONE errors=%0d", errors);
    $finish;
  end
endmodule
`;
}

function simulate(name: string, steps: readonly Step[]): string {
  const g = generated(name);
  const c = render(name).b.config;
  writeFileSync(join(g.dir, 'tb.sv'), testbench(c.xlen, c.eventInputs, c.hExt, c.sscofpmf, steps));
  const ivl = run('iverilog', ['-g2012', '-o', 'tb.vvp', '-s', 'tb', ...g.sv, 'tb.sv'], g.dir);
  expect(ivl.status, ivl.out).toBe(0);
  return run('vvp', ['-n', 'tb.vvp'], g.dir).out;
}

const OF = 1n << 63n;

describe('directed simulation of the generated RTL (docs/pmu-model.md, Icarus)', () => {
  it('default: an overflow of mhpmcounter3 counting cycles sets OF and pulses lcofi_o once, the cycle after', () => {
    const out = simulate('default', [
      { what: 'write mhpmevent3 = cycles', addr: 0x323, we: true, wdata: 1n, rdata: 0n, lcofi: false },
      { what: 'write mhpmcounter3 = all ones', addr: 0xb03, we: true, wdata: ALL, rdata: 0n, lcofi: false },
      { what: 'written in the last cycle: did not count; counts (wraps) now', addr: 0xb03, rdata: ALL, lcofi: false },
      { what: 'the wrap set OF; lcofi_o in the next cycle', addr: 0x323, rdata: OF | 1n, lcofi: true },
      { what: 'one cycle only; counting on from 0', addr: 0xb03, rdata: 1n, lcofi: false },
      { what: 'write all ones again (OF still set)', addr: 0xb03, we: true, wdata: ALL, rdata: 2n, lcofi: false },
      { what: 'wraps again at the end of this cycle', lcofi: false },
      { what: 'OF was set: no lcofi_o', addr: 0x323, rdata: OF | 1n, lcofi: false },
      { what: 'clear OF with a csrrc-style write (wmask OF)', addr: 0x323, we: true, wdata: 0n, wmask: OF, rdata: OF | 1n, lcofi: false },
      { what: 'OF clear, selector kept', addr: 0x323, rdata: 1n, lcofi: false },
      { what: 'scountovf from M: mcounteren clear masks it', addr: 0xda0, rdata: 0n },
      { what: 'mcountinhibit: TM reads 0', addr: 0x320, we: true, wdata: ALL, rdata: 0n },
      { what: 'mcountinhibit read back', addr: 0x320, rdata: 0xfffffffdn },
      { what: 'mcountinhibit cleared', addr: 0x320, we: true, wdata: 0n, rdata: 0xfffffffdn },
      { what: 'write mcycle = 100', addr: 0xb00, we: true, wdata: 100n },
      { what: 'mcycle written in the last cycle did not count in it', addr: 0xb00, rdata: 100n },
      { what: 'and counts after', addr: 0xb00, rdata: 101n },
      { what: 'mhpmevent3: the bits of the hart\'s modes and the selector bits are written', addr: 0x323, we: true, wdata: ALL, rdata: 1n },
      { what: 'mhpmevent3: bits 57..56 and the selector bits above eventBits read 0', addr: 0x323, rdata: (0x3fn << 58n) | OF | 0xfffffn },
      { what: 'mcyclecfg: only the inhibit bits', addr: 0x321, we: true, wdata: ALL, rdata: 0n },
      { what: 'mcyclecfg read back', addr: 0x321, rdata: 0x1fn << 58n },
      { what: 'time is not a PMU CSR', addr: 0xc01, illegal: true },
    ]);
    expect(out).toContain('DONE errors=0');
  }, 120_000);

  it('default: the access checks in the documented order', () => {
    const out = simulate('default', [
      { what: 'U reads cycle, mcounteren clear: illegal', addr: 0xc00, priv: 0, illegal: true },
      { what: 'M sets mcounteren.CY and HPM3', addr: 0x306, we: true, wdata: 0x9n },
      { what: 'U reads cycle, scounteren clear: illegal', addr: 0xc00, priv: 0, illegal: true },
      { what: 'VS reads cycle, hcounteren clear: virtual', addr: 0xc00, priv: 1, v: true, virtual: true },
      { what: 'VU reads cycle, hcounteren clear: virtual', addr: 0xc00, priv: 0, v: true, virtual: true },
      { what: 'VS reads instret, mcounteren.IR clear: illegal (before hcounteren)', addr: 0xc02, priv: 1, v: true, illegal: true },
      { what: 'VS reads hcounteren: virtual', addr: 0x606, priv: 1, v: true, virtual: true },
      { what: 'VU reads hcounteren: virtual', addr: 0x606, priv: 0, v: true, virtual: true },
      { what: 'U reads hcounteren: illegal', addr: 0x606, priv: 0, illegal: true },
      { what: 'VS reads mcountinhibit: illegal (an M-level CSR)', addr: 0x320, priv: 1, v: true, illegal: true },
      { what: 'VU reads scounteren: virtual', addr: 0x106, priv: 0, v: true, virtual: true },
      { what: 'VS reads scounteren directly', addr: 0x106, priv: 1, v: true, rdata: 0n },
      { what: 'VS reads scountovf directly (OF clear)', addr: 0xda0, priv: 1, v: true, rdata: 0n },
      { what: 'HS sets hcounteren.CY', addr: 0x606, priv: 1, we: true, wdata: 1n },
      { what: 'VS reads cycle: allowed', addr: 0xc00, priv: 1, v: true, save: true },
      { what: 'VS reads cycle one cycle later: one more', addr: 0xc00, priv: 1, v: true, rdata: 'saved + 1' },
      { what: 'VU reads cycle, scounteren clear: virtual', addr: 0xc00, priv: 0, v: true, virtual: true },
      { what: 'S sets scounteren.CY', addr: 0x106, priv: 1, we: true, wdata: 1n },
      { what: 'VU reads cycle: allowed', addr: 0xc00, priv: 0, v: true, save: true },
      { what: 'U reads cycle: allowed', addr: 0xc00, priv: 0, rdata: 'saved + 1' },
      { what: 'U reads hpmcounter3, scounteren.HPM3 clear: illegal', addr: 0xc03, priv: 0, illegal: true },
      { what: 'M writes cycle (read-only): illegal', addr: 0xc00, we: true, wdata: 1n, illegal: true },
      { what: 'S writes scountovf (read-only): illegal before the privilege check', addr: 0xda0, priv: 1, we: true, illegal: true },
      { what: 'S reads mcycle: illegal', addr: 0xb00, priv: 1, illegal: true },
      { what: 'csrrs-style write sets mcounteren.IR, keeps the rest', addr: 0x306, we: true, wdata: 0x4n, wmask: 0x4n, rdata: 0x9n },
      { what: 'mcounteren read back', addr: 0x306, rdata: 0xdn },
      { what: 'unimplemented number 0x305: illegal', addr: 0x305, illegal: true },
    ]);
    expect(out).toContain('DONE errors=0');
  }, 120_000);

  it('rv32: high halves (mhpmcounter3h of a 40-bit counter, mcycleh keeps the low half), no mhpmeventh without Sscofpmf', () => {
    const out = simulate('rv32', [
      { what: 'write mhpmcounter3h = all ones', addr: 0xb83, we: true, wdata: 0xffffffffn, rdata: 0n },
      { what: 'mhpmcounter3h: 8 implemented bits', addr: 0xb83, rdata: 0xffn },
      { what: 'mhpmcounter3 low half unchanged (selector 0 counts nothing)', addr: 0xb03, rdata: 0n },
      { what: 'mhpmevent3h does not exist without Sscofpmf', addr: 0x723, illegal: true },
      { what: 'mhpmcounter7 is not implemented: reads 0', addr: 0xb07, we: true, wdata: 5n, rdata: 0n },
      { what: 'and ignores writes', addr: 0xb07, rdata: 0n },
      { what: 'read mcycle', addr: 0xb00, save: true },
      { what: 'write mcycleh', addr: 0xb80, we: true, wdata: 0x12345678n, rdata: 0n },
      { what: 'the low half did not count in the write cycle', addr: 0xb00, rdata: 'saved + 1' },
      { what: 'mcycleh read back', addr: 0xb80, rdata: 0x12345678n },
      { what: 'mcountinhibit: CY, IR, HPM3..6', addr: 0x320, we: true, wdata: 0xffffffffn, rdata: 0n },
      { what: 'mcountinhibit read back', addr: 0x320, rdata: 0x7dn },
      { what: 'hcounteren does not exist without H', addr: 0x606, illegal: true },
      { what: 'mcyclecfg does not exist without Smcntrpmf', addr: 0x321, illegal: true },
    ]);
    expect(out).toContain('DONE errors=0');
  }, 120_000);
});
