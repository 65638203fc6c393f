import type { Command } from 'commander';
import { dumpStream } from '../../golden-model/etrace/packet/index.ts';
import { ETRACE_SETTINGS } from '../../golden-model/etrace/settings.ts';
import type { CommandDefinition } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { readInput } from '../../core/io.ts';
import { RvError } from '../../golden-model/common/errors.ts';

interface Options {
  in: string;
}

export const dumpCommand: CommandDefinition<Options> = {
  name: 'dump',
  summary: 'print every te_inst packet of a byte stream: offset, format, every field by name',
  settings: ETRACE_SETTINGS,
  component: { blocks: ['etrace'], default: 'etrace' },
  details: 'Example:\n  rvtrace dump --component etrace --in a.te\nThe component must be the one the stream was encoded with (field widths depend on it).',
  options: (cmd: Command) => cmd.requiredOption('--in <PACKETS>', 'encapsulated te_inst byte stream'),
  run(_args, o, _settings, resolved) {
    const config = resolved!.config as EtraceConfig;
    const bytes = readInput(o.in);
    let lines: string[];
    try {
      lines = dumpStream(bytes, config.params);
    } catch (e) {
      throw e instanceof RvError ? e.inFile(o.in) : e;
    }
    process.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
    return 0;
  },
};
