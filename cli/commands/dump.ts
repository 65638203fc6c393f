/**
 * `rvtrace dump`: every packet or message of a trace byte stream, one line each, by the dump of the
 * component's block (any block with a trace codec, core/block.ts); `--stats` instead prints the
 * stream's make-up per packet format or message type (TCODE), and with `--image` its bits per
 * retired instruction.
 */
import type { Command } from 'commander';
import { blockSettings, CODEC_BLOCKS } from '../../blocks/index.ts';
import type { CommandDefinition, TraceStats } from '../../core/block.ts';
import { readNonEmptyInput } from '../../core/io.ts';
import { readStream } from '../../core/stream-io.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { streamStats } from '../../golden-model/hart/stats.ts';

interface Options {
  in: string;
  stats?: boolean;
  image?: string;
}


/** The statistics table: a row per kind, idle bytes, the total; shares are of the stream's bytes. */
function statsLines(s: TraceStats, units: string, totalBytes: number): string[] {
  const share = (bytes: number): string => `${(totalBytes ? (100 * bytes) / totalBytes : 0).toFixed(1).padStart(5)} %`;
  const row = (kind: string, count: string, bytes: number): string => `${kind.padEnd(28)} ${count.padStart(10)} ${String(bytes).padStart(10)} ${share(bytes)}`;
  const lines = [`${s.rowsAre.padEnd(28)} ${units.padStart(10)} ${'bytes'.padStart(10)} ${'share'.padStart(7)}`];
  for (const r of s.rows) lines.push(row(r.kind, String(r.count), r.bytes));
  if (s.otherBytes > 0) lines.push(row('idle', '', s.otherBytes));
  lines.push(row('total', String(s.rows.reduce((n, r) => n + r.count, 0)), totalBytes));
  return lines;
}

export const dumpCommand: CommandDefinition<Options> = {
  name: 'dump',
  summary: 'print every packet or message of a trace byte stream (E-Trace te_inst, N-Trace), or with --stats its make-up per format or TCODE',
  settings: blockSettings(CODEC_BLOCKS),
  component: { blocks: CODEC_BLOCKS, default: 'etrace' },
  details: [
    'Output: one line per packet or message: byte offset, kind, every field by name.',
    '  E-Trace: `000000  F3.SF3 support  enable=1 ...` (offset in hex, format.subformat and name)',
    '  N-Trace: `0x0000 ProgTraceSync(9) SYNC=5 I-CNT=0x0 F-ADDR=0x40000000` (name(TCODE))',
    '--stats prints instead a table of packets (E-Trace, per format and subformat) or messages',
    '(N-Trace, per TCODE) with their bytes and share of the stream; idle is the bytes in no packet',
    'or message (E-Trace null packets, N-Trace idle bytes 0xFF). With --image FILE (the stream that',
    'was encoded) it adds the bits per retired instruction, the figure encode prints.',
    'The component must be the one the stream was encoded with (field widths depend on it); the',
    'block comes from it. A stream that is not well-formed (E-Trace: a bad header or packet; N-Trace:',
    'an MSEO framing error) is an error naming the file and the byte offset.',
    'Examples:',
    '  rvtrace dump --component etrace --in a.te',
    '  rvtrace dump --component ntrace-btm-mcu --in a.nt',
    '  rvtrace dump --component ntrace-btm-mcu --in a.nt --stats --image a.bin',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--in <TRACE>', 'trace byte stream (E-Trace encapsulated te_inst packets, N-Trace MSEO messages)')
      .option('--stats', 'print packets or messages and bytes per format or TCODE instead of the dump')
      .option('--image <FILE>', 'with --stats: the retirement stream that was encoded, for bits per instruction'),
  run(_args, o, _settings, resolved) {
    const r = resolved!;
    // resolveComponent took only components of CODEC_BLOCKS.
    const codec = r.block.codec!;
    if (o.image !== undefined && !o.stats) throw new RvError('bad-option', `--image ${o.image}: only with --stats (bits per instruction)`);
    const bytes = readNonEmptyInput(o.in, `a trace byte stream of the ${r.block.title}`);
    let lines: string[];
    try {
      lines = o.stats ? statsLines(codec.stats(bytes, r.config), codec.units, bytes.length) : codec.dump(bytes, r.config);
    } catch (e) {
      throw e instanceof RvError ? e.inFile(o.in) : e;
    }
    if (o.image !== undefined) {
      const stream = readStream(o.image, undefined, codec.xlen(r.config));
      const n = streamStats(stream.records, stream.image.size > 0 ? stream.image : undefined).instructions;
      const bpi = n ? ((bytes.length * 8) / n).toFixed(3) : 'n/a';
      lines.push(`bits/instruction ${bpi} (${bytes.length} bytes for ${n} retired instructions of ${o.image})`);
    }
    process.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
    return 0;
  },
};
