/**
 * `rvtrace encode`: a retirement stream through the golden encoder of a component's block (any block
 * with a trace codec, core/block.ts) and its output FIFO, into the trace byte stream.
 */
import type { Command } from 'commander';
import { blockSettings, CODEC_BLOCKS } from '../../blocks/index.ts';
import type { CommandDefinition, EncodedTrace } from '../../core/block.ts';
import { parseCount } from '../../core/options.ts';
import { checkOutputFile, readInput, writeOutputAtomic } from '../../core/io.ts';
import { openStreamSource, wholeStream } from '../../core/stream-io.ts';
import { joinEtraceDataCsv } from '../../golden-model/hart/formats/etrace-data-csv.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { InstructionCounter, streamStats } from '../../golden-model/hart/stats.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';

interface Options {
  in: string;
  out: string;
  inFormat?: string;
  dataIn?: string;
  backpressure: string;
  seed: string;
}

export const encodeCommand: CommandDefinition<Options> = {
  name: 'encode',
  summary: 'encode a retirement stream into the trace byte stream of a component (E-Trace packets, N-Trace messages)',
  settings: blockSettings(CODEC_BLOCKS),
  component: { blocks: CODEC_BLOCKS, default: 'etrace' },
  details: [
    'Examples:',
    '  rvtrace encode --component etrace --in a.bin --out a.te',
    '  rvtrace encode --component etrace-rv64-full --in a.bin --out a.te --set ImplicitReturn=0',
    '  rvtrace encode --in a.bin --out a.te --backpressure 0.7 --seed 3 --set fifo_depth_p=64',
    '  rvtrace encode --component ntrace-btm-mcu --in a.bin --out a.nt',
    '  rvtrace encode -c ntrace-btm-mcu --in a.bin --out a.nt --backpressure 0.5 --set stall_enable=1',
    '  rvtrace encode --component tvtrace --in a.tvr --out a.tv',
    '  rvtrace encode --component etrace --set data_trace_p=1 --in spike.csv --data-in data.csv --out a.te',
    '  rvtrace encode --component tvtrace --in flute.trace --in-format bluespec-tv --out a.tv',
    'The block comes from the component; --set takes that block\'s settings. E-Trace: the component',
    'parameters (Table 9.1 names) and run-time options (Tables 2.1-2.3 names); filters and comparators',
    'are filter<N>.<field> and comparator<N>.<field>. N-Trace: the encoder parameters (ntrace_mode,',
    'fifo_bytes, stall_enable, ...). Output: E-Trace encapsulated te_inst packets, N-Trace MSEO',
    'messages, as they leave the output FIFO (a full FIFO loses packets or messages, or stalls the',
    'hart with the stall setting: stallEnable, stall_enable). tvtrace: --in holds TV records (text,',
    'bin or Bluespec Trace_Data lines, --in-format bluespec-tv), not a retirement stream; the output',
    'is the tandem-verification trace (nothing is lost: back-pressure stalls the hart).',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--in <STREAM>', 'retirement stream (bin, text, etrace-csv, spike-csv); tvtrace: TV records (text, bin, bluespec-tv)')
      .requiredOption('--out <TRACE>', 'output byte stream')
      .option('--in-format <FORMAT>', 'force the input format')
      .option('--data-in <CSV>', "E-Trace data trace: the reference flow's data CSV of the same run (DRETIRE,DTYPE,DADDR,DSIZE,DATA), joined with --in")
      .option('--backpressure <P>', 'probability that the transport is not ready in a cycle', '0')
      .option('--seed <S>', 'seed of the back-pressure pattern', '1'),
  run(_args, o, _settings, resolved) {
    checkOutputFile(o.out);
    const r = resolved!;
    // resolveComponent took only components of CODEC_BLOCKS.
    const codec = r.block.codec!;
    const p = Number(o.backpressure);
    if (!(p >= 0 && p < 1)) throw new RvError('bad-option', `--backpressure ${o.backpressure}: expected a probability from 0 to below 1`);
    const seed = parseCount(o.seed, '--seed', 0);
    const transport = p > 0 ? { ready: (c: number) => !cycleChance(seed, c, p) } : {};
    let result: EncodedTrace;
    let n: number | undefined;
    let seconds: number;
    if (codec.encodeFile) {
      if (o.dataIn !== undefined) throw new RvError('bad-option', `--data-in ${o.dataIn}: ${r.component} does not trace data; --data-in is for E-Trace components with data trace`);
      // The codec reads its own input (tvtrace: TV records).
      const bytes = readInput(o.in);
      const started = performance.now();
      const encoded = codec.encodeFile({ bytes, file: o.in, ...(o.inFormat !== undefined ? { format: o.inFormat } : {}) }, r.config, transport);
      seconds = (performance.now() - started) / 1000;
      result = encoded;
      n = encoded.instructions;
    } else {
      const xlen = codec.xlen(r.config);
      const source = openStreamSource(o.in, o.inFormat, xlen);
      // The encoder would cut the upper address bits: a trace that decodes to wrong addresses.
      const xlenCheck = (streamXlen: number): void => {
        if (streamXlen > xlen) throw new RvError('bad-file', `the records are XLEN ${streamXlen}, and ${r.component} encodes XLEN ${xlen} addresses: choose a component for XLEN ${streamXlen}`, { file: o.in });
      };
      if (o.dataIn === undefined && source.data === undefined && codec.encodePieces) {
        // A piece of the stream at a time: read, encoded and dropped (a spike-csv is never whole in
        // memory). The time is that of the import and the model together.
        xlenCheck(source.xlen);
        const counter = new InstructionCounter();
        const started = performance.now();
        const pieces = function* (): Generator<RetirementRecord[]> {
          for (const piece of source.pieces()) {
            counter.add(piece);
            yield piece;
          }
        };
        result = codec.encodePieces(pieces(), r.config, transport);
        seconds = (performance.now() - started) / 1000;
        const image = source.image();
        n = counter.total(image.size > 0 ? image : undefined);
      } else {
        let stream = wholeStream(source);
        if (o.dataIn !== undefined) {
          if (stream.data) throw new RvError('bad-option', `--data-in ${o.dataIn}: ${o.in} carries its data accesses already`);
          stream = joinEtraceDataCsv(stream, new TextDecoder().decode(readInput(o.dataIn)), o.dataIn);
        }
        if (stream.data && stream.data.accesses.length > 0 && !codec.tracesData?.(r.config)) {
          const why = `${r.component} does not trace data (an E-Trace component with data_trace_p = 1 does)`;
          // Asked for by --data-in: an error. Carried by the stream: the instruction trace is still wanted.
          if (o.dataIn !== undefined) throw new RvError('bad-option', `--data-in ${o.dataIn}: ${why}`);
          process.stderr.write(`note: the ${stream.data.accesses.length} data accesses of ${o.in} are not encoded: ${why}\n`);
        }
        xlenCheck(stream.xlen);
        const started = performance.now();
        result = codec.encode(stream.records, r.config, stream.data ? { ...transport, data: stream.data } : transport);
        seconds = (performance.now() - started) / 1000;
        n = streamStats(stream.records, stream.image.size > 0 ? stream.image : undefined).instructions;
      }
    }
    writeOutputAtomic(o.out, result.bytes);
    const bpi = n ? ((result.bytes.length * 8) / n).toFixed(3) : 'n/a';
    process.stderr.write(
      `wrote ${o.out}: ${result.count} ${codec.units}, ${result.bytes.length} bytes, ${bpi} bits/instruction` +
        `${result.lost ? `, ${result.lost} ${codec.units} lost` : ''}${result.stallCycles ? `, ${result.stallCycles} stall cycles` : ''}` +
        ` (${seconds.toFixed(2)} s)\n`,
    );
    return 0;
  },
};
