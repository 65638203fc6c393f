/**
 * `rvtrace ipxact --component C --out OUT.xml [--standard 2014|2022]`: writes the IP-XACT component
 * of the generated RTL of any block (the one writer of generator/output.ts: VLNV, every setting as a
 * resolved parameter, bus interfaces and register maps, ports with widths as expressions over the
 * parameters, the RTL file set). Reading the output back gives the same configuration. The file is
 * validated against the schema before it replaces OUT.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { blockSettings } from '../../blocks/index.ts';
import type { CommandDefinition, Provenance } from '../../core/block.ts';
import { checkOutputFile, writeOutputAtomic } from '../../core/io.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { componentXml } from '../../generator/output.ts';
import type { IpxactStandard } from '../../ipxact/reader/component.ts';
import { defaultSchemaDir, validateXsd } from '../../ipxact/reader/xsd.ts';

interface Options {
  out: string;
  standard: string;
  schemaDir?: string;
}

/** The command that regenerates an exported file (short options: an XML comment cannot hold "--"). */
export function ipxactCommandLine(p: Provenance, standard: IpxactStandard): string {
  return `npx rvtrace ipxact -c ${p.component}${p.sets.map((s) => ` -s ${s}`).join('')} -S ${standard} -o <file>`;
}

export const ipxactCommand: CommandDefinition<Options> = {
  name: 'ipxact',
  summary: 'write the IP-XACT component of the generated RTL of a component (parameters, ports, registers, files)',
  settings: blockSettings(),
  component: { default: 'etrace' },
  details: [
    'Examples:',
    '  rvtrace ipxact --component etrace --out etrace.xml',
    '  rvtrace ipxact --component etrace-rv64-full --out full.xml --standard 2022 --set BranchPrediction=0',
    '  rvtrace ipxact -c ctr -S 2022 -o ctr.xml',
    'The output validates against the IEEE 1685 schema of --standard and reads back (--component OUT.xml)',
    'as the same configuration. Register maps: docs/etrace-registers.md, docs/ctr-usage.md; component',
    'format: docs/components.md.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('-o, --out <OUT.xml>', 'output file')
      .option('-S, --standard <2014|2022>', 'IP-XACT standard of the output: IEEE 1685-2014 or 1685-2022', '2014'),
  run(_args, o, _settings, resolved) {
    if (o.standard !== '2014' && o.standard !== '2022') throw new RvError('bad-option', `--standard ${o.standard}: expected 2014 or 2022`);
    const standard: IpxactStandard = o.standard;
    checkOutputFile(o.out);
    const r = resolved!;
    writeValidated(o.out, componentXml(r, standard, ipxactCommandLine(r.provenance, standard)), standard, o.schemaDir ?? defaultSchemaDir());
    const v = r.vlnv;
    process.stderr.write(`wrote ${o.out}: IEEE 1685-${standard} component ${v.vendor}:${v.library}:${v.name}:${v.version}\n`);
    return 0;
  },
};

/** Temporary file, schema validation, rename: OUT is replaced whole or not at all. */
function writeValidated(out: string, text: string, standard: IpxactStandard, schemaDir: string): void {
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(tmp, text);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Nothing was written there.
    }
    // The same write again, for its error in the user's terms.
    writeOutputAtomic(out, text);
  }
  const errors = validateXsd(tmp, standard, schemaDir);
  if (errors.length > 0) {
    rmSync(tmp, { force: true });
    const tool = errors.find((e) => e.code === 'tool-failure');
    if (tool) throw tool;
    throw new Error(`the exported component does not validate against IEEE 1685-${standard}: ${errors[0]!.message} (line ${errors[0]!.location.line ?? '?'})`);
  }
  try {
    renameSync(tmp, out);
  } catch {
    rmSync(tmp, { force: true });
    writeOutputAtomic(out, text);
  }
}
