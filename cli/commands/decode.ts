/**
 * `rvtrace decode`: a trace byte stream and the program image through the decoder of a component's
 * block (any block with a trace codec, core/block.ts) into the retired instruction addresses, with
 * `--check` judging them against the retired instructions themselves (golden-model/hart/recovery.ts).
 */
import { Option, type Command } from 'commander';
import { BLOCKS, blockSettings, CODEC_BLOCKS } from '../../blocks/index.ts';
import type { CodecOption, CommandDefinition } from '../../core/block.ts';
import { checkOutputFile, readNonEmptyInput, writeOutputAtomic } from '../../core/io.ts';
import { readStream } from '../../core/stream-io.ts';
import { ExitStatus, RvError } from '../../golden-model/common/errors.ts';
import { recoveryLine, retiredAddresses, traceRecovery } from '../../golden-model/hart/recovery.ts';

interface Options {
  in: string;
  image?: string;
  out: string;
  check?: boolean;
  /** The codecs' own options (CODEC_OPTIONS), under commander's names. */
  [codecOption: string]: string | boolean | undefined;
}


/** Every codec's own decode options, each name once, with the blocks that take it. */
const CODEC_OPTIONS = new Map<string, { option: CodecOption; blocks: string[] }>();
for (const b of BLOCKS) {
  for (const option of b.codec?.decodeOptions ?? []) {
    const known = CODEC_OPTIONS.get(option.name);
    if (known) known.blocks.push(b.name);
    else CODEC_OPTIONS.set(option.name, { option, blocks: [b.name] });
  }
}

/** commander's property name of an option ("trap-handler" -> "trapHandler"). */
const attribute = (name: string): string => new Option(`--${name}`).attributeName();

export const decodeCommand: CommandDefinition<Options> = {
  name: 'decode',
  summary: 'decode a trace byte stream (E-Trace packets, N-Trace messages) with the program image into the retired instruction addresses',
  settings: blockSettings(CODEC_BLOCKS),
  component: { blocks: CODEC_BLOCKS, default: 'etrace' },
  details: [
    'Output: one retired address per line, lower-case hex without 0x; gaps where trace was off or',
    'lost are lines starting with #: `# gap: REASON (byte offset N)`, then `: DETAIL` when the decoder',
    'says more (N-Trace: which message or framing error). --image takes any trace file with an image',
    '(our bin/text streams, or a spike-style CSV whose executed instructions form the image).',
    'The component must be the one the stream was encoded with; the block comes from it.',
    '--check compares the decoded runs with the retired instructions of --image (the stream that',
    'was encoded): every run must be a piece of the retired sequence, in order; it prints the',
    'fraction recovered (after trace loss) and fails on a wrong address.',
    'An E-Trace stream the decoder cannot follow is an error with its byte offset; the N-Trace',
    'decoder reports a damaged message as a bad-trace gap and resumes at the next sync message.',
    'Examples:',
    '  rvtrace decode --component etrace --in a.te --image a.bin --out a.pcs',
    '  rvtrace decode --component etrace --in lossy.te --image a.bin --out a.pcs --check',
    '  rvtrace decode --component ntrace-btm-mcu --in a.nt --image a.bin --out a.pcs --check',
    'tvtrace (the tandem-verification trace) decodes without --image: the output is the stream\'s',
    'groups as TV records in the text format (docs/tvtrace-usage.md), which encode takes back:',
    '  rvtrace decode --component tvtrace --in a.tv --out a.tvr',
  ].join('\n'),
  options: (cmd: Command) => {
    let c = cmd
      .requiredOption('--in <TRACE>', 'trace byte stream (E-Trace encapsulated te_inst packets, N-Trace MSEO messages)')
      .option('--image <FILE>', 'program image: our stream file or a spike-style CSV (required but for tvtrace)')
      .requiredOption('--out <PCS>', 'output file of addresses');
    for (const { option } of CODEC_OPTIONS.values()) c = c.option(`--${option.name} ${option.argument}`, option.help);
    return c.option('--check', 'check the decoded addresses against the retired instructions of --image and print the fraction recovered');
  },
  run(_args, o, _settings, resolved) {
    checkOutputFile(o.out);
    const r = resolved!;
    // resolveComponent took only components of CODEC_BLOCKS.
    const codec = r.block.codec!;
    const codecOptions: Record<string, string> = {};
    for (const [name, { blocks }] of CODEC_OPTIONS) {
      const value = o[attribute(name)];
      if (typeof value !== 'string') continue;
      if (!blocks.includes(r.block.name)) throw new RvError('bad-option', `--${name}: the decoder of the ${r.block.title} takes no such option`);
      codecOptions[name] = value;
    }
    if (codec.decodeFile) {
      // The stream carries the state itself (tvtrace): no image, no addresses to check.
      for (const [given, what] of [[o.image !== undefined, '--image'], [o.check === true, '--check']] as const) {
        if (given) throw new RvError('bad-option', `${what}: the ${r.block.title} decodes its stream without a program image`);
      }
      let decoded;
      try {
        decoded = codec.decodeFile(readNonEmptyInput(o.in, `a trace byte stream of the ${r.block.title}`), r.config);
      } catch (e) {
        throw e instanceof RvError && e.location.file === undefined ? e.inFile(o.in) : e;
      }
      writeOutputAtomic(o.out, decoded.text);
      process.stderr.write(`wrote ${o.out}: ${decoded.count} ${decoded.units}\n`);
      return 0;
    }
    if (o.image === undefined) throw new RvError('bad-option', `required option '--image <FILE>' not specified: the ${r.block.title} decodes with the program image`);
    const stream = readStream(o.image, undefined, codec.xlen(r.config));
    const image = stream.image;
    if (image.size === 0) throw new RvError('bad-file', 'this file holds no program image', { file: o.image });
    const bytes = readNonEmptyInput(o.in, `a trace byte stream of the ${r.block.title}`);
    let items;
    try {
      items = codec.decode(bytes, image, r.config, codecOptions);
    } catch (e) {
      // The decoder knows offsets, not the file; a bad option value is not the file's fault.
      throw e instanceof RvError && e.location.file === undefined && e.code !== 'bad-option' ? e.inFile(o.in) : e;
    }
    const lines: string[] = [];
    let count = 0;
    for (const it of items) {
      if (it.kind === 'pc') {
        lines.push(it.address.toString(16));
        count++;
      } else {
        lines.push(`# gap: ${it.reason} (byte offset ${it.offset})${it.detail !== undefined ? `: ${it.detail}` : ''}`);
      }
    }
    writeOutputAtomic(o.out, lines.length ? `${lines.join('\n')}\n` : '');
    process.stderr.write(`wrote ${o.out}: ${count} addresses\n`);
    if (o.check) {
      const recovery = traceRecovery(items, retiredAddresses(stream.records, image));
      const line = recoveryLine(recovery);
      if (recovery.wrongRun) throw new RvError('bad-value', line, { file: o.in }, ExitStatus.mismatch);
      process.stdout.write(`${line}\n`);
    }
    return 0;
  },
};
