/**
 * The generated files of the E-Trace block for one configuration: the RTL, a filelist, a FuseSoC
 * core and the IP-XACT component, all with the same banner and deterministic to the byte.
 *
 * This is the first slice of the RTL generator (issue 5): of the modules in rtlFileNames
 * (golden-model/etrace/ports.ts) only the register file `etrace_apb_regs` is generated so far.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Settings } from '../../golden-model/common/settings.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import type { LoadedComponent } from '../../ipxact/load.ts';
import { etraceComponentXml } from '../cli/commands/ipxact.ts';
import { commentBanner, renderTemplate, type BannerInput, type OutputFile } from '../render.ts';
import { ETRACE_APB_REGS_MODULE, ETRACE_APB_REGS_TEMPLATE, etraceApbRegsContext } from './etrace-apb-regs.ts';

/** The RTL files this slice generates, in compilation order. */
export const ETRACE_GENERATED_RTL = [`${ETRACE_APB_REGS_MODULE}.sv`] as const;
export const ETRACE_FILELIST = 'etrace.f';

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

const NOT_YET =
  'This slice of the RTL generator (issue 5) writes only the register file etrace_apb_regs;\n' +
  'etrace_top and the other modules of the IP-XACT file set are not generated yet.';

function filelist(b: BannerInput): string {
  return [
    commentBanner(b, '//'),
    '//\n',
    '// The generated E-Trace RTL in compilation order, paths relative to this directory\n',
    '// (`verilator -F etrace.f`, or `iverilog -g2012 -c etrace.f` from this directory).\n',
    ...NOT_YET.split('\n').map((l) => `// ${l}\n`),
    ...ETRACE_GENERATED_RTL.map((f) => `${f}\n`),
  ].join('');
}

function coreFile(g: EtraceGeneration, b: BannerInput, xmlName: string): string {
  const v = g.loaded.vlnv;
  return [
    'CAPI=2:\n',
    commentBanner(b, '#'),
    '#\n',
    '# FuseSoC core of the generated E-Trace encoder.\n',
    ...NOT_YET.split('\n').map((l) => `# ${l}\n`),
    '\n',
    `name: ${v.vendor}:${v.library}:${v.name}:${v.version}\n`,
    `description: ${JSON.stringify(g.loaded.description.replace(/\s+/g, ' ').trim())}\n`,
    '\n',
    'filesets:\n',
    '  rtl:\n',
    '    files:\n',
    ...ETRACE_GENERATED_RTL.map((f) => `      - ${f}\n`),
    '    file_type: systemVerilogSource\n',
    '  ipxact:\n',
    '    files:\n',
    `      - ${xmlName}\n`,
    '    file_type: user\n',
    '\n',
    'targets:\n',
    '  default:\n',
    '    filesets:\n',
    '      - rtl\n',
    '      - ipxact\n',
    '  lint:\n',
    '    default_tool: verilator\n',
    '    filesets:\n',
    '      - rtl\n',
    `    toplevel: ${ETRACE_APB_REGS_MODULE}\n`,
    '    tools:\n',
    '      verilator:\n',
    '        mode: lint-only\n',
    '        verilator_options:\n',
    '          - -Wall\n',
  ].join('');
}

/** The names of the files written for a component: RTL, filelist, `<name>.core`, `<name>.xml`. */
export function etraceOutputNames(g: EtraceGeneration): { core: string; xml: string } {
  return { core: `${g.loaded.vlnv.name}.core`, xml: `${g.loaded.vlnv.name}.xml` };
}

/** Every file of the output directory, in a fixed order. */
export function etraceOutputFiles(g: EtraceGeneration): OutputFile[] {
  const b = bannerInput(g);
  const { core, xml } = etraceOutputNames(g);
  return [
    { name: ETRACE_GENERATED_RTL[0], content: renderEtraceApbRegs(g.config, b) },
    { name: ETRACE_FILELIST, content: filelist(b) },
    { name: core, content: coreFile(g, b, xml) },
    { name: xml, content: etraceComponentXml(g.config, g.settings, g.loaded, '2014', { component: g.component, sets: g.sets }) },
  ];
}
