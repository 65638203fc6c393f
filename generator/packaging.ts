/**
 * The files written beside a block's generated RTL: the filelist (compilation order) and the
 * FuseSoC core (CAPI2, filesets `rtl` and `ipxact`, a Verilator lint target). Shared by every
 * block.
 */
import { commentBanner, type BannerInput } from './render.ts';

export interface PackageInput {
  banner: BannerInput;
  /** What the RTL is, for comments: "the generated E-Trace encoder". */
  what: string;
  /** The filelist's own name, for its usage comment. */
  filelistName: string;
  /** The files in the order the tools take them: the lint waivers (`.vlt`), then the RTL in compilation order. */
  files: readonly string[];
}

/** The filelist: the waivers and the RTL in compilation order, paths relative to its directory. */
export function filelist(p: PackageInput): string {
  return [
    commentBanner(p.banner, '//'),
    '//\n',
    `// The RTL of ${p.what} in compilation order, paths relative to this directory\n`,
    `// (\`verilator -F ${p.filelistName}\`, or \`iverilog -g2012 -c ${p.filelistName}\` from this directory).\n`,
    ...p.files.map((f) => `${f}\n`),
  ].join('');
}

export interface CoreInput {
  banner: BannerInput;
  /** What the core holds, for its comment: "the generated E-Trace encoder". */
  what: string;
  vlnv: { vendor: string; library: string; name: string; version: string };
  description: string;
  rtl: readonly string[];
  /** The lint waivers (`<block>.vlt`), a fileset ahead of the RTL in every target. */
  waivers: string;
  xmlName: string;
  top: string;
}

/** The FuseSoC core file. */
export function fuseSocCore(c: CoreInput): string {
  const v = c.vlnv;
  return [
    'CAPI=2:\n',
    commentBanner(c.banner, '#'),
    '#\n',
    `# FuseSoC core of ${c.what}.\n`,
    '\n',
    `name: ${v.vendor}:${v.library}:${v.name}:${v.version}\n`,
    `description: ${JSON.stringify(c.description.replace(/\s+/g, ' ').trim())}\n`,
    '\n',
    'filesets:\n',
    '  waivers:\n',
    '    files:\n',
    `      - ${c.waivers}\n`,
    '    file_type: vlt\n',
    '  rtl:\n',
    '    files:\n',
    ...c.rtl.map((f) => `      - ${f}\n`),
    '    file_type: systemVerilogSource\n',
    '  ipxact:\n',
    '    files:\n',
    `      - ${c.xmlName}\n`,
    '    file_type: user\n',
    '\n',
    'targets:\n',
    '  default:\n',
    '    filesets:\n',
    '      - waivers\n',
    '      - rtl\n',
    '      - ipxact\n',
    '  lint:\n',
    '    default_tool: verilator\n',
    '    filesets:\n',
    '      - waivers\n',
    '      - rtl\n',
    `    toplevel: ${c.top}\n`,
    '    tools:\n',
    '      verilator:\n',
    '        mode: lint-only\n',
    '        verilator_options:\n',
    '          - -Wall\n',
  ].join('');
}
