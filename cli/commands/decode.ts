import type { Command } from 'commander';
import { ExitStatus, RvError } from '../../golden-model/common/errors.ts';
import { decodeStream, type TrapEntry } from '../../golden-model/etrace/decoder.ts';
import { recoveryLine, retiredAddresses, traceRecovery } from '../../golden-model/hart/recovery.ts';
import { ETRACE_SETTINGS } from '../../golden-model/etrace/settings.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import type { CommandDefinition } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { readInput, writeOutputAtomic } from '../../core/io.ts';
import { readStream } from '../../core/stream-io.ts';

interface Options {
  in: string;
  image: string;
  out: string;
  trapHandler?: string;
  check?: boolean;
}

/** `--trap-handler ADDR` or `CAUSE=ADDR,...,default=ADDR` for implicit exception mode. */
function trapHandlers(text: string | undefined): ((trap: TrapEntry) => bigint) | undefined {
  if (text === undefined) return undefined;
  const table = new Map<string, bigint>();
  for (const part of text.split(',')) {
    const m = /^(?:(i?\d+|default)=)?(0x[0-9a-f]+|\d+)$/i.exec(part.trim());
    if (!m) throw new RvError('bad-option', `--trap-handler ${text}: expected ADDR or CAUSE=ADDR,... (iN for interrupt N, default=ADDR)`);
    table.set((m[1] ?? 'default').toLowerCase(), BigInt(m[2]!));
  }
  return ({ cause, interrupt }) => {
    const a = table.get(interrupt ? `i${cause}` : String(cause)) ?? table.get('default');
    if (a === undefined) throw new RvError('bad-option', `--trap-handler gives no handler for ${interrupt ? 'interrupt' : 'exception'} cause ${cause}`);
    return a;
  };
}

export const decodeCommand: CommandDefinition<Options> = {
  name: 'decode',
  summary: 'decode a te_inst byte stream with the program image into the retired instruction addresses',
  settings: ETRACE_SETTINGS,
  component: { blocks: ['etrace'], default: 'etrace' },
  details: [
    'Output: one retired address per line, lower-case hex without 0x; gaps where trace was off or',
    'lost are lines starting with #. --image takes any trace file with an image (our bin/text',
    'streams, or a spike-style CSV whose executed instructions form the image).',
    '--check compares the decoded runs with the retired instructions of --image (the stream that',
    'was encoded): every run must be a piece of the retired sequence, in order; it prints the',
    'fraction recovered (after trace loss) and fails on a wrong address.',
    'Examples:',
    '  rvtrace decode --component etrace --in a.te --image a.bin --out a.pcs',
    '  rvtrace decode --component etrace --in lossy.te --image a.bin --out a.pcs --check',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--in <PACKETS>', 'encapsulated te_inst byte stream')
      .requiredOption('--image <FILE>', 'program image: our stream file or a spike-style CSV')
      .requiredOption('--out <PCS>', 'output file of addresses')
      .option('--trap-handler <SPEC>', 'trap handler addresses for implicit exception mode: ADDR, or CAUSE=ADDR,iN=ADDR,default=ADDR')
      .option('--check', 'check the decoded addresses against the retired instructions of --image and print the fraction recovered'),
  run(_args, o, _settings, resolved) {
    const config = resolved!.config as EtraceConfig;
    const xlen: Xlen = config.params.iaddress_width_p > 32 ? 64 : 32;
    const stream = readStream(o.image, undefined, xlen);
    const image = stream.image;
    if (image.size === 0) throw new RvError('bad-file', 'this file holds no program image', { file: o.image });
    const bytes = readInput(o.in);
    let items;
    try {
      items = decodeStream(bytes, image, { params: config.params, xlen, trapHandler: trapHandlers(o.trapHandler) });
    } catch (e) {
      throw e instanceof RvError && e.location.file === undefined ? e.inFile(o.in) : e;
    }
    const lines: string[] = [];
    let count = 0;
    for (const it of items) {
      if (it.kind === 'pc') {
        lines.push(it.address.toString(16));
        count++;
      } else {
        lines.push(`# gap: ${it.reason} (byte offset ${it.offset})`);
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
