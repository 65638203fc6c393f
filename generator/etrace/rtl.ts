/**
 * The generated RTL of the E-Trace block for one configuration, every file with the same banner and
 * deterministic to the byte (generator/output.ts adds the filelist, FuseSoC core and IP-XACT).
 *
 * The modules are those of rtlFileNames (golden-model/etrace/ports.ts), one file each; the filelist
 * lists them in compilation order (leaf modules first, etrace_top last).
 */
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { commentBanner, renderTemplate, type BannerInput, type OutputFile } from '../render.ts';
import { etracePorts, hasContextInput, hasTimeInput, rtlFileNames } from '../../golden-model/etrace/ports.ts';
import { ETRACE_APB_REGS_TEMPLATE, etraceApbRegsContext, etraceApbRegsOutputs } from './apb-regs.ts';
import {
  bpredContext,
  checkRtlSupport,
  descriptorFields,
  widths,
  encoderContext,
  fifoContext,
  filterContext,
  hasQualifier,
  countRegistered,
  ingressContext,
  stepContexts,
  irstackContext,
  jtcContext,
  qualifierBuses,
  registerOutputs,
} from './core.ts';
import { pipelineStages } from './acceptance.ts';
import { blockViews, coreSizes, groupsPerCycle, hartGroups, serialViews, viewsPerGroup } from './shape.ts';
import { padColumn, svLogic, svVec } from '../render.ts';
import { alignDeclarations } from '../sv-align.ts';
import { renderEtracePacker } from './packer.ts';
import { dataCodesContext, dataCompressContext, dataEncoderContext, dataEncoderPorts, dataFilterContext, dataPackerContext, dataTopConnections, hasDataFilter } from './data.ts';
import type { Waiver } from '../../core/block.ts';

/** The lint waivers of the generated E-Trace RTL (rendered into etrace.vlt), each with its reason. */
export function etraceLintWaivers(): Waiver[] {
  return [
    {
      rule: 'UNUSEDPARAM',
      file: 'etrace_top.sv',
      match: "Parameter is not used: '*_p'",
      reason: [
        "etrace_top records the component's parameters (Table 9.1) as localparams for the integrator;",
        'every module is generated for these values, so etrace_top reads none of them.',
      ],
    },
  ];
}

/** The RTL files of a configuration in compilation order: leaves first, the top level last. */
export function etraceRtlFiles(c: EtraceConfig): string[] {
  const names = rtlFileNames(c).map((f) => f.name);
  const top = names.filter((n) => n === 'etrace_top.sv');
  return [...names.filter((n) => n !== 'etrace_top.sv'), ...top];
}

/** The register file `etrace_apb_regs.sv`. */
export function renderEtraceApbRegs(config: EtraceConfig, banner: BannerInput): string {
  return renderTemplate(ETRACE_APB_REGS_TEMPLATE, etraceApbRegsContext(config, commentBanner(banner, '//')));
}

/**
 * One packer instance of the encoder or of its step (see core.ts for the
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
    ...(c.params.dataTrace ? [['denable_i', `opt_denable${opt}`] as [string, string], ['doptions_i', `opt_doptions${opt}`] as [string, string]] : []),
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
  const dataOptions = p.dataTrace ? ['d_enable', 'd_trig_enable', 'no_data', 'no_address', 'data_compress', ...(hasDataFilter(c) ? ['d_filters'] : [])] : [];
  const options = ['active', 'enable', 'i_enable', 'i_trig_enable', 'stall_enable', 'resync_mode', 'resync_max', 'full_address',
    'implicit_except', 'si_jump', 'implicit_return', 'branch_prediction', 'jump_target_cache', ...dataOptions];
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
    pipelined: pipelineStages(c) > 0,
    banner,
    paramLines: params.map(([name, value], k) => `localparam int ${paramCol[k]} = ${value};`),
    portLines: ports.map((q, i) => `${types[i]} ${q.name}${i === ports.length - 1 ? '' : ','}`),
    regOutputs,
    absentOptions: absent.map((o) => `assign ${o} = ${o === 'data_compress' ? "2'd0" : "1'b0"};  // the component has no such hardware`),
    dataTrace: p.dataTrace !== undefined,
    dataParamLines: p.dataTrace
      ? (() => {
          const entries = Object.entries(p.dataTrace);
          const dcol = padColumn(entries.map(([name]) => name));
          return entries.map(([, value], k) => `localparam int ${dcol[k]} = ${value};`);
        })()
      : [],
    encoderDataConns: p.dataTrace
      ? (() => {
          const ports = dataEncoderPorts(c);
          const dcol = padColumn(ports.map((q) => `.${q.name}_i`));
          return ports.map((q, k) => `${dcol[k]} (${q.top}),`);
        })()
      : [],
    unusedDataInputs: dataTopConnections(c).unused.join(', '),
    dataFilter: hasDataFilter(c),
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
    countRegistered: countRegistered(c),
    groups: groupsPerCycle(c),
    hartGroups: hartGroups(c),
    serial: serialViews(c),
    viewStarts: serialViews(c) && blockViews(c),
    chainw: s.chainWidth,
    wrlenw: s.wrLenWidth,
    wrbytes: s.wrBytes,
  };
}

/**
 * A template's context with the packed ranges of its widths, so that templates write no
 * arithmetic: for every positive integer `x` of the context, `r.x` is `[x-1:0]` computed, `rg.x` the
 * range of `groups` of them (`groups * x` bits), `rh.x` of `hartGroups` of them (the hart's signal
 * groups, `groups` unless serial_views_p) and `rb.x` the range of `x` bytes; `rg.x3`, `rh.x3` and
 * `rg.x32` are the ranges of `groups` (`hartGroups`) 3-bit and 32-bit fields.
 */
function withRanges<T extends object>(ctx: T): T & { r: Record<string, string>; rg: Record<string, string>; rh: Record<string, string>; rb: Record<string, string> } {
  const nums = Object.entries(ctx).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isInteger(e[1]) && e[1] >= 1);
  const groups = 'groups' in ctx && typeof ctx.groups === 'number' ? ctx.groups : 1;
  const hart = 'hartGroups' in ctx && typeof ctx.hartGroups === 'number' ? ctx.hartGroups : groups;
  const table = (f: (v: number) => number, extra: [string, string][] = []) => Object.fromEntries([...nums.map(([k, v]) => [k, svVec(f(v))]), ...extra]);
  return {
    ...ctx,
    r: table((v) => v),
    rg: table((v) => groups * v, [['x3', svVec(groups * 3)], ['x32', svVec(groups * 32)]]),
    rh: table((v) => hart * v, [['x3', svVec(hart * 3)]]),
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
  let steps: ReturnType<typeof stepContexts> | undefined;
  const step = () => (steps ??= stepContexts(c, banner, (slot) => packerInstance(c, slot, '_i')));
  const render: Record<string, () => string> = {
    'etrace_top.sv': () => renderEtrace('etrace_top', topContext(c, banner)),
    'etrace_apb_regs.sv': () => renderEtraceApbRegs(c, b),
    'etrace_ingress.sv': () => renderEtrace('etrace_ingress', ingressContext(c, banner)),
    'etrace_encoder.sv': () => renderEtrace('etrace_encoder', encoderContext(c, banner, (slot) => packerInstance(c, slot, ''))),
    'etrace_encoder_step.sv': () => renderEtrace('etrace_encoder_step', step().step),
    'etrace_step_decision.sv': () => renderEtrace('etrace_step_decision', step().decision),
    'etrace_step_contents.sv': () => renderEtrace('etrace_step_contents', step().contents),
    'etrace_step_accept.sv': () => renderEtrace('etrace_step_accept', step().accept),
    'etrace_step_write.sv': () => renderEtrace('etrace_step_write', step().write),
    'etrace_packer.sv': () => renderEtracePacker(c, b),
    'etrace_fifo.sv': () => renderEtrace('etrace_fifo', fifoContext(c, banner)),
    'etrace_bpred.sv': () => renderEtrace('etrace_bpred', bpredContext(c, banner)),
    'etrace_jtc.sv': () => renderEtrace('etrace_jtc', jtcContext(c, banner)),
    'etrace_irstack.sv': () => renderEtrace('etrace_irstack', irstackContext(c, banner)),
    'etrace_filter.sv': () => renderEtrace('etrace_filter', filterContext(c, banner)),
    'etrace_data_encoder.sv': () => renderEtrace('etrace_data_encoder', dataEncoderContext(c, banner)),
    'etrace_data_codes.sv': () => renderEtrace('etrace_data_codes', dataCodesContext(c, banner)),
    'etrace_data_compress.sv': () => renderEtrace('etrace_data_compress', dataCompressContext(c, banner)),
    'etrace_data_packer.sv': () => renderEtrace('etrace_data_packer', dataPackerContext(c, banner)),
    'etrace_data_filter.sv': () => renderEtrace('etrace_data_filter', dataFilterContext(c, banner)),
  };
  return etraceRtlFiles(c).map((name) => {
    const fn = render[name];
    if (fn === undefined) throw new Error(`no renderer for ${name}`);
    return { name, content: fn() };
  });
}
