import type { Command } from 'commander';
import { resolveSettings } from '../../../golden-model/common/settings.ts';
import { validateConfig } from '../../../golden-model/etrace/config.ts';
import { decodeStream } from '../../../golden-model/etrace/decoder.ts';
import { encodeStream } from '../../../golden-model/etrace/output.ts';
import { ETRACE_SETTINGS, etraceConfig } from '../../../golden-model/etrace/settings.ts';
import { decodeBinaryStream, encodeBinaryStream } from '../../../golden-model/hart/formats/binary.ts';
import { generateStimulus } from '../../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../../golden-model/hart/stimulus/knobs.ts';
import { loadComponent, shippedComponents } from '../../../ipxact/load.ts';
import type { CommandDefinition } from '../main.ts';
import { RvError } from '../../../golden-model/common/errors.ts';

interface Options {
  count: string;
  seed: string;
}

interface Row {
  what: string;
  rate: string;
  detail: string;
}

/** Runs `fn` (best of `repeat`) and returns seconds. */
function time(fn: () => void, repeat: number): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return best;
}

const mips = (n: number, s: number): string => `${(n / s / 1e6).toFixed(2)} M instr/s`;

function table(rows: Row[]): string {
  const w = [Math.max(4, ...rows.map((r) => r.what.length)), Math.max(4, ...rows.map((r) => r.rate.length))];
  const line = (a: string, b: string, c: string): string => `| ${a.padEnd(w[0]!)} | ${b.padStart(w[1]!)} | ${c}`;
  return [line('what', 'rate', 'detail'), `|${'-'.repeat(w[0]! + 2)}|${'-'.repeat(w[1]! + 2)}|---`, ...rows.map((r) => line(r.what, r.rate, r.detail))].join('\n');
}

export const benchCommand: CommandDefinition<Options> = {
  name: 'bench',
  summary: 'measure the kit: stimulus, file formats and model throughput (prints a table)',
  settings: [],
  details: 'Goal (issue 3): the E-Trace model encodes at least 5 million instructions per second.',
  options: (cmd: Command) =>
    cmd.option('--count <N>', 'instructions per measurement', '1000000').option('--seed <S>', 'stimulus seed', '1'),
  run(_args, o) {
    const count = Number(o.count);
    if (!Number.isInteger(count) || count < 1000) throw new RvError('bad-option', `--count ${o.count}: expected an integer of at least 1000`);
    const seed = Number(o.seed);
    const rows: Row[] = [];
    const progress = (s: string): void => {
      process.stderr.write(`[bench] ${s}\n`);
    };

    progress(`stimulus: ${count} instructions`);
    let stream = generateStimulus(defaultKnobs(), seed, count);
    const tGen = time(() => {
      stream = generateStimulus(defaultKnobs(), seed, count);
    }, 1);
    rows.push({ what: 'stimulus generation', rate: mips(count, tGen), detail: `${stream.records.length} records` });

    let bin = encodeBinaryStream(stream);
    const tWrite = time(() => {
      bin = encodeBinaryStream(stream);
    }, 3);
    const tRead = time(() => {
      decodeBinaryStream(bin, 'bench');
    }, 3);
    rows.push({ what: 'binary stream write', rate: mips(count, tWrite), detail: `${(bin.length / count).toFixed(2)} bytes/instruction` });
    rows.push({ what: 'binary stream read', rate: mips(count, tRead), detail: '' });

    let rv32: typeof stream | undefined;
    for (const name of shippedComponents()) {
      progress(`E-Trace model: ${name}`);
      const config = etraceConfig(resolveSettings('bench', ETRACE_SETTINGS, [], loadComponent(name, ETRACE_SETTINGS).settings));
      if (validateConfig(config).length > 0) continue;
      // Each component encodes a stream of its own address width.
      const xlen = config.params.iaddress_width_p > 32 ? 64 : 32;
      const input = xlen === 64 ? stream : (rv32 ??= generateStimulus({ ...defaultKnobs(), xlen: 32 }, seed, count));
      let result = encodeStream(input.records, config, { keepPackets: false });
      const t = time(() => {
        result = encodeStream(input.records, config, { keepPackets: false });
      }, 3);
      const bpi = (result.bytes.length * 8) / count;
      rows.push({ what: `E-Trace encode (${name})`, rate: mips(count, t), detail: `${result.packetCount} packets, ${bpi.toFixed(3)} bits/instruction` });
      const td = time(() => {
        decodeStream(result.bytes, input.image, { params: config.params, xlen });
      }, 1);
      rows.push({ what: `E-Trace decode (${name})`, rate: mips(count, td), detail: '' });
    }
    const rss = process.memoryUsage().rss / 2 ** 20;
    process.stdout.write(`${table(rows)}\n\npeak resident memory ${rss.toFixed(0)} MiB; ${count} instructions, seed ${seed}, best of 3 runs\n`);
    return 0;
  },
};
