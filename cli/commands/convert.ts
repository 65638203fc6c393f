import type { Command } from 'commander';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { outputFormat, readStream, TRACE_INPUT_SETTINGS, writeStream } from '../../core/stream-io.ts';
import { checkOutputFile } from '../../core/io.ts';

interface Options {
  out: string;
  inFormat?: string;
  format?: string;
}

export const convertCommand: CommandDefinition<Options> = {
  name: 'convert',
  args: '<FILE>',
  summary: 'convert a trace (bin, text, etrace-csv, spike-csv) to our binary or text format',
  settings: TRACE_INPUT_SETTINGS,
  details: 'Example:\n  rvtrace convert run.spike.csv --out run.bin\n  rvtrace convert a.bin --out a.txt',
  options: (cmd: Command) =>
    cmd
      .requiredOption('--out <FILE>', 'output file (.txt: text format, else binary)')
      .option('--in-format <FORMAT>', 'force the input format: bin, text, etrace-csv, spike-csv')
      .option('--format <bin|text>', 'force the output format'),
  run([file], o, settings) {
    checkOutputFile(o.out);
    const stream = readStream(file!, o.inFormat, Number(settings.xlen) as Xlen);
    writeStream(o.out, stream, outputFormat(o.out, o.format));
    return 0;
  },
};
