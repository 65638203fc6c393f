import type { Command } from 'commander';
import { checkContinuity } from '../../golden-model/hart/continuity.ts';
import { formatStats, streamStats } from '../../golden-model/hart/stats.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { readStream, TRACE_INPUT_SETTINGS } from '../../core/stream-io.ts';

interface Options {
  inFormat?: string;
  check?: boolean;
}

export const infoCommand: CommandDefinition<Options> = {
  name: 'info',
  args: '<FILE>',
  summary: 'print the statistics of a retirement stream (instructions, branches, itypes, traps, ...)',
  settings: TRACE_INPUT_SETTINGS,
  details: [
    'FILE is any trace the tool reads; its format is detected from the content:',
    '  bin, text (ours), etrace-csv (E-Trace reference-flow encoder input), spike-csv (PC trace).',
    '--check also verifies that every record follows from the previous one and the program image',
    '(exit status 1 and the first problems when it does not).',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--in-format <FORMAT>', 'force the input format: bin, text, etrace-csv, spike-csv')
      .option('--check', 'verify the stream against its program image'),
  run([file], o, settings) {
    const stream = readStream(file!, o.inFormat, Number(settings.xlen) as Xlen);
    const stats = streamStats(stream.records, stream.image.size > 0 ? stream.image : undefined);
    const lines = [
      `file                         ${file}`,
      `xlen                         ${stream.xlen}`,
      `retires per cycle            ${stream.retiresPerCycle}`,
      `image                        ${stream.image.size} bytes in ${stream.image.segments.length} segment(s)`,
      formatStats(stats),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (o.check) {
      if (stream.image.size === 0) {
        process.stderr.write(`rvtrace: ${file}: --check needs a program image, and this trace has none\n`);
        return 2;
      }
      const errors = checkContinuity(stream.records, stream.image, stream.xlen);
      if (errors.length > 0) {
        for (const e of errors) process.stdout.write(`check: record ${e.index}: ${e.message}\n`);
        return 1;
      }
      process.stdout.write('check: every record follows from the previous one and the image\n');
    }
    return 0;
  },
};
