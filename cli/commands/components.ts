/** `rvtrace components`: the shipped components, their block, VLNV and description. */
import type { Command } from 'commander';
import { resolveComponent } from '../../blocks/index.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { shippedComponentList } from '../../ipxact/load.ts';

interface Options {
  schemaDir?: string;
}

export const componentsCommand: CommandDefinition<Options> = {
  name: 'components',
  summary: 'list the shipped components: name, block, VLNV and description',
  settings: [],
  details: 'Any command that takes --component takes one of these names, or an IP-XACT file of your own (docs/components.md).',
  options: (cmd: Command) => cmd.option('--schema-dir <DIR>', 'folder with the IEEE 1685-2014/2022 schemas the components are validated against'),
  run(_args, o) {
    const rows = shippedComponentList().map((c) => {
      const r = resolveComponent(c.name, [], { command: 'components', ...(o.schemaDir !== undefined ? { schemaDir: o.schemaDir } : {}) });
      const v = r.vlnv;
      return [c.name, r.block.name, `${v.vendor}:${v.library}:${v.name}:${v.version}`, r.description.replace(/\s+/g, ' ').trim()];
    });
    const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) process.stdout.write(`${r.map((x, i) => (i < 3 ? x.padEnd(widths[i]!) : x)).join('  ')}\n`);
    return 0;
  },
};
