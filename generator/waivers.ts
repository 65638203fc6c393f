/**
 * `<block>.vlt`: the Verilator configuration file that holds every lint waiver of a block's generated
 * RTL, each with its reason (architecture.md: no inline pragmas). It comes first in the filelist and
 * is wrapped in `ifdef VERILATOR, so that the other tools reading the filelist (Icarus Verilog, Yosys)
 * see an empty file.
 */
import type { OutputFile, Provenance, Waiver } from '../core/block.ts';
import { commentBanner } from './render.ts';

export function renderWaivers(name: string, waivers: readonly Waiver[], p: Provenance): OutputFile {
  const content = [
    commentBanner(p, '//'),
    '//\n',
    `// The lint waivers of this RTL for \`-Wall\`, each with its reason: give this file to the linter\n`,
    `// with the sources (the filelist lists it first); other tools see an empty file.\n`,
    ...(waivers.length === 0 ? ['// Nothing is waived: the RTL lints clean.\n'] : []),
    '`ifdef VERILATOR\n',
    '`verilator_config\n',
    ...waivers.flatMap((w) => ['\n', ...w.reason.map((l) => `// ${l}\n`), `lint_off -rule ${w.rule} -file "*${w.file}" -match "${w.match}"\n`]),
    '`endif\n',
  ].join('');
  // A comment line that starts with the word "verilator" is read as a directive.
  if (/^\/\/ *verilator/im.test(content)) throw new Error(`${name}: a comment line starts with "verilator"`);
  return { name, content };
}

/**
 * The waiver of a top module whose localparams (it has no others) record the configuration for
 * people and testbenches: every module is generated for their values, so the top reads none.
 */
export function configurationLocalparamsWaiver(top: string): Waiver {
  return {
    rule: 'UNUSEDPARAM',
    file: `${top}.sv`,
    match: '*',
    reason: [
      `The localparams of ${top} (it has no others) are the configuration: the component`,
      'parameters this RTL was generated for, there to be read by people and by testbenches',
      '(hierarchical references). The RTL is generated from their values and reads none of them.',
    ],
  };
}
