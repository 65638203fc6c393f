import type { Command } from 'commander';
import { dataAccessPredicate, regroupIntoBlocks } from '../../golden-model/hart/blocks.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { addDataAccesses } from '../../golden-model/hart/stimulus/data.ts';
import { dataKnobSettings, dataKnobsFrom } from '../../golden-model/hart/stimulus/data-settings.ts';
import { knobSettings, knobsFrom, parseCount } from '../../core/options.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { outputFormat, writeStream } from '../../core/stream-io.ts';
import { checkOutputFile } from '../../core/io.ts';

interface Options {
  seed: string;
  count: string;
  out: string;
  format?: string;
  data?: boolean;
}

export const stimulusCommand: CommandDefinition<Options> = {
  name: 'stimulus',
  summary: 'generate a random program and its retirement stream (with the program image)',
  settings: [...knobSettings(), ...dataKnobSettings()],
  details: [
    'Example:',
    '  rvtrace stimulus --seed 7 --count 100000 --out a.bin',
    '  rvtrace stimulus --seed 7 --count 1000 --out a.txt --set xlen=32 --set interrupt_rate=0.01',
    '  rvtrace stimulus --seed 7 --count 1000 --out d.txt --data --set w_amo=3 --set data_signalling=split',
    'The same seed and settings give the same bytes. See docs/formats.md for the file formats,',
    'docs/data-stimulus.md for --data and the data_* settings.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--seed <S>', 'random seed (integer)')
      .requiredOption('--count <N>', 'instructions to retire')
      .requiredOption('--out <FILE>', 'output file (.txt: text format, else binary)')
      .option('--format <bin|text>', 'force the output format')
      .option('--data', 'add the data accesses of E-Trace data trace (loads, stores, AMOs, CSRs; data_* settings)'),
  run(_args, o, settings) {
    checkOutputFile(o.out);
    const seed = parseCount(o.seed, '--seed', 0);
    const count = parseCount(o.count, '--count', 1);
    const format = outputFormat(o.out, o.format);
    const started = performance.now();
    const stream = generateStimulus(knobsFrom(settings), seed, count);
    const retires = settings.retires_p as number;
    const groups = settings.taken_branches_p as number;
    if (retires > 1 || groups > 1) {
      // With data accesses a cycle holds at most one (table 4.9's interface takes one a cycle).
      const oneDataAccess = o.data ? { oneDataAccess: dataAccessPredicate(stream.image, stream.xlen) } : {};
      stream.records = regroupIntoBlocks(stream.records, { retires_p: retires, taken_branches_p: groups }, oneDataAccess);
      stream.retiresPerCycle = retires;
    }
    // After the regrouping: each access points at the record of its cycle.
    const out = o.data ? addDataAccesses(stream, dataKnobsFrom(settings), seed) : stream;
    writeStream(o.out, out, format);
    const ms = performance.now() - started;
    process.stderr.write(
      `wrote ${o.out} (${format}): ${count} instructions, ${stream.records.length} records, ` +
        `${stream.image.size}-byte image${out.data ? `, ${out.data.accesses.length} data accesses` : ''}, ${(ms / 1000).toFixed(2)} s\n`,
    );
    return 0;
  },
};
