import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { ETRACE_SETTINGS } from '../../golden-model/etrace/settings.ts';
import type { Xlen } from '../../golden-model/hart/stream.ts';
import { streamStats } from '../../golden-model/hart/stats.ts';
import type { CommandDefinition } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { writeOutputAtomic } from '../../core/io.ts';
import { readStream } from '../../core/stream-io.ts';

interface Options {
  in: string;
  out: string;
  inFormat?: string;
  backpressure: string;
  seed: string;
}

export const encodeCommand: CommandDefinition<Options> = {
  name: 'encode',
  summary: 'encode a retirement stream into E-Trace te_inst packets (encapsulated byte stream)',
  settings: ETRACE_SETTINGS,
  component: { blocks: ['etrace'], default: 'etrace' },
  details: [
    'Example:',
    '  rvtrace encode --component etrace --in a.bin --out a.te',
    '  rvtrace encode --component etrace-rv64-full --in a.bin --out a.te --set ImplicitReturn=0',
    '  rvtrace encode --in a.bin --out a.te --backpressure 0.7 --seed 3 --set fifo_depth_p=64',
    'Settings are the component parameters (Table 9.1 names) and run-time options (Tables 2.1-2.3',
    'names); filters and comparators are filter<N>.<field> and comparator<N>.<field>.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--in <STREAM>', 'retirement stream (bin, text, etrace-csv, spike-csv)')
      .requiredOption('--out <PACKETS>', 'output byte stream')
      .option('--in-format <FORMAT>', 'force the input format')
      .option('--backpressure <P>', 'probability that the transport is not ready in a cycle', '0')
      .option('--seed <S>', 'seed of the back-pressure pattern', '1'),
  run(_args, o, _settings, resolved) {
    const config = resolved!.config as EtraceConfig;
    const p = Number(o.backpressure);
    if (!(p >= 0 && p < 1)) throw new RvError('bad-option', `--backpressure ${o.backpressure}: expected a probability from 0 to below 1`);
    const seed = Number(o.seed);
    const stream = readStream(o.in, o.inFormat, config.params.iaddress_width_p > 32 ? 64 : (32 as Xlen));
    const started = performance.now();
    const result = encodeStream(stream.records, config, { keepPackets: false, ...(p > 0 ? { ready: (c: number) => !cycleChance(seed, c, p) } : {}) });
    const seconds = (performance.now() - started) / 1000;
    writeOutputAtomic(o.out, result.bytes);
    const n = streamStats(stream.records, stream.image.size > 0 ? stream.image : undefined).instructions;
    const bpi = n ? ((result.bytes.length * 8) / n).toFixed(3) : 'n/a';
    process.stderr.write(
      `wrote ${o.out}: ${result.packetCount} packets, ${result.bytes.length} bytes, ${bpi} bits/instruction` +
        `${result.dropped ? `, ${result.dropped} packets lost` : ''}${result.stallCycles ? `, ${result.stallCycles} stall cycles` : ''}` +
        ` (${seconds.toFixed(2)} s)\n`,
    );
    return 0;
  },
};
