/**
 * The generated files of the E-Trace block for one configuration: the RTL, a filelist, a FuseSoC
 * core and the IP-XACT component, all with the same banner and deterministic to the byte.
 *
 * The modules are those of rtlFileNames (golden-model/etrace/ports.ts), one file each; the filelist
 * lists them in compilation order (leaf modules first, etrace_top last).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Settings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { LoadedComponent } from '../../ipxact/load.ts';
import { etraceComponentXml } from '../cli/commands/ipxact.ts';
import { commentBanner, renderTemplate, type BannerInput, type OutputFile } from '../render.ts';
import { filelist, fuseSocCore } from './packaging.ts';
import { etracePorts, hasContextInput, hasTimeInput, rtlFileNames } from '../../golden-model/etrace/ports.ts';
import { ETRACE_APB_REGS_TEMPLATE, etraceApbRegsContext, etraceApbRegsOutputs } from './etrace-apb-regs.ts';
import {
  bpredContext,
  checkRtlSupport,
  coreSizes,
  descriptorFields,
  widths,
  encoderContext,
  fifoContext,
  filterContext,
  hasQualifier,
  ingressContext,
  stepContext,
  groupsPerCycle,
  viewsPerGroup,
  irstackContext,
  jtcContext,
  qualifierBuses,
  registerOutputs,
} from './etrace-core.ts';
import { alignDeclarations, padColumn, svLogic, svVec } from '../render.ts';
import { renderEtracePacker } from './etrace-packer.ts';

export const ETRACE_FILELIST = 'etrace.f';
/** The block's Verilator lint waivers (a configuration file), first in the filelist. */
export const ETRACE_WAIVERS = 'etrace.vlt';

interface Waiver {
  /** Verilator's warning code. */
  readonly rule: string;
  /** The file's name (matched as `*name`, so any directory). */
  readonly file: string;
  /** Glob on the message text. */
  readonly match: string;
  /** Why the warning is expected, as comment lines. */
  readonly reason: readonly string[];
}

/** The waivers every configuration needs, each with its reason. */
function etraceWaivers(): Waiver[] {
  return [
    {
      rule: 'UNUSEDPARAM',
      file: 'etrace_top.sv',
      match: "Parameter is not used: '*_p'",
      reason: [
        'etrace_top records the component\'s parameters (Table 9.1) as localparams for the integrator;',
        'every module is generated for these values, so etrace_top reads none of them.',
      ],
    },
  ];
}

/**
 * `etrace.vlt`: the Verilator lint waivers of the block, one rule each with its reason. Wrapped in
 * `ifdef VERILATOR so that the other tools reading the filelist (Icarus Verilog, Yosys) see an
 * empty file.
 */
export function renderEtraceVlt(b: BannerInput): string {
  return [
    commentBanner(b, '//'),
    '//\n',
    // (No comment line may start with the word Verilator: the tool reads such a comment as a pragma.)
    '// Lint waivers of the generated E-Trace RTL for `verilator -Wall`, one per reason. Pass this file\n',
    '// to Verilator with the RTL (it comes first in etrace.f); other tools see an empty file.\n',
    '`ifdef VERILATOR\n',
    '`verilator_config\n',
    ...etraceWaivers().flatMap((w) => ['\n', ...w.reason.map((l) => `// ${l}\n`), `lint_off -rule ${w.rule} -file "*${w.file}" -match "${w.match}"\n`]),
    '`endif\n',
  ].join('');
}

/** The RTL files of a configuration in compilation order: leaves first, the top level last. */
export function etraceRtlFiles(c: EtraceConfig): string[] {
  const names = rtlFileNames(c).map((f) => f.name);
  const top = names.filter((n) => n === 'etrace_top.sv');
  return [...names.filter((n) => n !== 'etrace_top.sv'), ...top];
}

export interface EtraceGeneration {
  readonly config: EtraceConfig;
  readonly settings: Settings;
  readonly loaded: LoadedComponent;
  /** The --component argument (a shipped name or a file). */
  readonly component: string;
  /** The --set arguments. */
  readonly sets: readonly string[];
}

/** The component as the banner names it: the shipped name, or a file's base name (no absolute path). */
export function componentLabel(component: string): string {
  return /[\\/]/.test(component) ? basename(component) : component;
}

export function bannerInput(g: EtraceGeneration): BannerInput {
  return { component: componentLabel(g.component), description: readFileSync(g.loaded.file), sets: g.sets };
}

/** The register file `etrace_apb_regs.sv`. */
export function renderEtraceApbRegs(config: EtraceConfig, banner: BannerInput): string {
  return renderTemplate(ETRACE_APB_REGS_TEMPLATE, etraceApbRegsContext(config, commentBanner(banner, '//')));
}

/**
 * One packer instance of the encoder or of its step (see generator/rtl/etrace-core.ts for the
 * slots); `opt` is the suffix of the option signals there (`opt_iexc` or the port `opt_iexc_i`).
 */
function packerInstance(c: EtraceConfig, slot: string, opt: string): string {
  const conns: [string, string][] = [
    ['kind_i', `${slot}_kind`],
    ['implicit_exception_i', `opt_iexc${opt}`],
    ['implicit_return_i', `opt_ir${opt}`],
    ['full_address_i', `opt_full${opt}`],
    ['jump_target_cache_i', `opt_jtc${opt}`],
    ['branch_prediction_i', `opt_bp${opt}`],
    ...(c.params.sijump_p === 1 ? [['sijump_opt_i', `opt_sij${opt}`] as [string, string]] : []),
    ...descriptorFields(c)
      .filter((f) => f.width > 0)
      .map((f): [string, string] => [`${f.name}_i`, `${slot}_${f.name}`]),
    ['bytes_o', `${slot}_bytes`],
    ['len_o', `${slot}_len`],
    ['bits_o', `${slot}_bits`],
  ];
  const col = padColumn(conns.map(([port]) => `.${port}`));
  return [
    `  etrace_packer u_pack_${slot} (`,
    ...conns.map(([, sig], i) => `    ${col[i]} (${sig})${i === conns.length - 1 ? '' : ','}`),
    '  );',
  ].join('\n');
}

/** The context of etrace_top. */
function topContext(c: EtraceConfig, banner: string) {
  const p = c.params;
  const ports = etracePorts(c);
  const types = padColumn(ports.map((q) => `${q.direction === 'in' ? 'input ' : 'output'} ${svLogic(q.width)}`));
  const present = new Set(etraceApbRegsOutputs(c));
  const options = ['active', 'enable', 'i_enable', 'i_trig_enable', 'stall_enable', 'resync_mode', 'resync_max', 'full_address',
    'implicit_except', 'si_jump', 'implicit_return', 'branch_prediction', 'jump_target_cache'];
  const col = padColumn(options.map((o) => `.${o}_o`));
  const buses = hasQualifier(c) ? qualifierBuses(c) : [];
  const busCol = padColumn([...options, ...buses.map((b) => b.name)].map((o) => `.${o}_o`)).slice(options.length);
  // Register fields the encoder does not use (trTeSrcID, trTeInhibitSrc: the model's stream sends
  // source id 0), connected to signals of their own and marked unused.
  const stored = registerOutputs(c).filter((r) => !options.includes(r.name) && !buses.some((b) => b.name === r.name));
  const regOutputs = [
    ...options.filter((o) => present.has(`${o}_o`)).map((o) => `${col[options.indexOf(o)]} (${o}),`),
    ...buses.map((b, i) => `${busCol[i]} (${b.name}),`),
    ...stored.map((r) => `.${r.name}_o (${r.name}),`),
  ];
  const last = regOutputs.length - 1;
  regOutputs[last] = regOutputs[last]!.replace(/,$/, '');
  const absent = options.filter((o) => !present.has(`${o}_o`));
  const s = coreSizes(c);
  const params = Object.entries(p).filter((e): e is [string, number] => e[0].endsWith('_p') && typeof e[1] === 'number');
  const paramCol = padColumn(params.map(([name]) => name));
  const busTypes = padColumn(buses.map((b) => `logic [${b.width - 1}:0]`));
  const busConnCol = padColumn(['.resync_mode_i', ...buses.map((b) => `.${b.name}_i`)]).slice(1);
  return {
    banner,
    paramLines: params.map(([name, value], k) => `localparam int ${paramCol[k]} = ${value};`),
    portLines: ports.map((q, i) => `${types[i]} ${q.name}${i === ports.length - 1 ? '' : ','}`),
    regOutputs,
    absentOptions: absent.map((o) => `assign ${o} = 1'b0;  // the component has no such hardware`),
    ...widths(c),
    contextSrc: hasContextInput(c) ? 'context_i' : "1'b0",
    timeSrc: hasTimeInput(c) ? 'time_i' : "1'b0",
    sijumpSrc: p.sijump_p === 1 ? 'sijump_i' : "'0",
    unusedInputs: p.impdef_width_p > 0 && !hasQualifier(c) ? 'impdef_i' : '',
    qualifier: hasQualifier(c),
    impdefPort: hasQualifier(c) && p.impdef_width_p > 0,
    busDecls: buses.map((b, i) => `${busTypes[i]} ${b.name};`),
    storedDecls: stored.map((r) => `${svLogic(r.width)} ${r.name};`),
    storedNames: stored.map((r) => r.name).join(', '),
    busConns: buses.map((b, i) => `${busConnCol[i]} (${b.name}),`),
    multi: viewsPerGroup(c) > 1,
    groups: groupsPerCycle(c),
    chainw: s.chainWidth,
    wrlenw: s.wrLenWidth,
    wrbytes: s.wrBytes,
  };
}

/**
 * A template's context with the packed ranges of its widths, so that templates write no
 * arithmetic: for every positive integer `x` of the context, `r.x` is `[x-1:0]` computed, `rg.x` the
 * range of `groups` of them (`groups * x` bits) and `rb.x` the range of `x` bytes; `rg.x3` and
 * `rg.x32` are the ranges of `groups` 3-bit and 32-bit fields.
 */
function withRanges<T extends object>(ctx: T): T & { r: Record<string, string>; rg: Record<string, string>; rb: Record<string, string> } {
  const nums = Object.entries(ctx).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isInteger(e[1]) && e[1] >= 1);
  const groups = 'groups' in ctx && typeof ctx.groups === 'number' ? ctx.groups : 1;
  const table = (f: (v: number) => number, extra: [string, string][] = []) => Object.fromEntries([...nums.map(([k, v]) => [k, svVec(f(v))]), ...extra]);
  return {
    ...ctx,
    r: table((v) => v),
    rg: table((v) => groups * v, [['x3', svVec(groups * 3)], ['x32', svVec(groups * 32)]]),
    rb: table((v) => 8 * v),
  };
}

/** Renders an E-Trace template: ranges added to the context, declarations aligned. */
export function renderEtrace(name: string, ctx: object): string {
  return alignDeclarations(renderTemplate(`etrace/${name}.sv.hbs`, withRanges(ctx)));
}

/** Every RTL file of a configuration: name and content, in compilation order. */
export function renderEtraceRtl(c: EtraceConfig, b: BannerInput): OutputFile[] {
  checkRtlSupport(c);
  const banner = commentBanner(b, '//');
  const render: Record<string, () => string> = {
    'etrace_top.sv': () => renderEtrace('etrace_top', topContext(c, banner)),
    'etrace_apb_regs.sv': () => renderEtraceApbRegs(c, b),
    'etrace_ingress.sv': () => renderEtrace('etrace_ingress', ingressContext(c, banner)),
    'etrace_encoder.sv': () => renderEtrace('etrace_encoder', encoderContext(c, banner, (slot) => packerInstance(c, slot, ''))),
    'etrace_encoder_step.sv': () => renderEtrace('etrace_encoder_step', stepContext(c, banner, (slot) => packerInstance(c, slot, '_i'))),
    'etrace_packer.sv': () => renderEtracePacker(c, b),
    'etrace_fifo.sv': () => renderEtrace('etrace_fifo', fifoContext(c, banner)),
    'etrace_bpred.sv': () => renderEtrace('etrace_bpred', bpredContext(c, banner)),
    'etrace_jtc.sv': () => renderEtrace('etrace_jtc', jtcContext(c, banner)),
    'etrace_irstack.sv': () => renderEtrace('etrace_irstack', irstackContext(c, banner)),
    'etrace_filter.sv': () => renderEtrace('etrace_filter', filterContext(c, banner)),
  };
  return etraceRtlFiles(c).map((name) => {
    const fn = render[name];
    if (fn === undefined) throw new Error(`no renderer for ${name}`);
    return { name, content: fn() };
  });
}

/** The names of the files written for a component besides the RTL, the waivers and the filelist: `<name>.core`, `<name>.xml`. */
export function etraceOutputNames(g: EtraceGeneration): { core: string; xml: string } {
  return { core: `${g.loaded.vlnv.name}.core`, xml: `${g.loaded.vlnv.name}.xml` };
}

/** Every file of the output directory, in a fixed order. */
export function etraceOutputFiles(g: EtraceGeneration): OutputFile[] {
  const b = bannerInput(g);
  const { core, xml } = etraceOutputNames(g);
  const rtl = renderEtraceRtl(g.config, b);
  const names = rtl.map((f) => f.name);
  return [
    ...rtl,
    { name: ETRACE_WAIVERS, content: renderEtraceVlt(b) },
    { name: ETRACE_FILELIST, content: filelist({ banner: b, rtlTitle: 'E-Trace RTL', filelistName: ETRACE_FILELIST, rtl: [ETRACE_WAIVERS, ...names] }) },
    {
      name: core,
      content: fuseSocCore({
        banner: b,
        what: 'the generated E-Trace encoder',
        vlnv: g.loaded.vlnv,
        description: g.loaded.description,
        // The waivers as a Verilator configuration file (FuseSoC file type vlt), then the RTL.
        rtl: [`${ETRACE_WAIVERS}: {file_type: vlt}`, ...names],
        xmlName: xml,
        top: 'etrace_top',
      }),
    },
    { name: xml, content: etraceComponentXml(g.config, g.settings, g.loaded, '2014', { component: g.component, sets: g.sets }) },
  ];
}
