/**
 * The import measurements of `rvtrace bench` (issue 22): lines per second of each trace reader on
 * a file made from the stimulus (golden-model/hart/formats/synthetic.ts), and the whole-process
 * `rvtrace encode` of a spike-csv, start-up included. Also the peak memory of `rvtrace cosim` at
 * two counts, each in a process of its own (the bench's own memory holds its streams).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../generator/render.ts';
import { EtraceCsvReader } from '../../golden-model/hart/formats/etrace-csv.ts';
import { QemuLogConverter } from '../../golden-model/hart/formats/qemu-log.ts';
import { importSpikeCsv, SpikeCsvReader } from '../../golden-model/hart/formats/spike-csv.ts';
import { PIECE_BYTES } from '../../core/stream-io.ts';
import { etraceCsvChunks, qemuLogChunks, spikeCsvChunks } from '../../golden-model/hart/formats/synthetic.ts';
import { encodeTextChunks, TextStreamReader } from '../../golden-model/hart/formats/text.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import type { ProgramImage } from '../../golden-model/hart/image.ts';
import type { RetirementStream, Xlen } from '../../golden-model/hart/stream.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { bestSeconds } from '../../core/best-time.ts';

export interface ImportRate {
  format: string;
  lines: number;
  seconds: number;
  /** How the reader was run, when not on the whole text. */
  how?: string;
}

const BIN = join(ROOT, 'bin', 'rvtrace.js');

function lineCount(chunks: readonly string[]): number {
  let n = 0;
  for (const c of chunks) for (let i = c.indexOf('\n'); i >= 0; i = c.indexOf('\n', i + 1)) n++;
  return n;
}

/** text cut into pieces of about `size` characters that end at line ends. */
function linePieces(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf('\n', at + size);
    const end = nl < 0 ? text.length : nl + 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

/**
 * The readers on files of `stream` (text, etrace-csv, spike-csv) and on a QEMU log of a trap-free
 * program of the same length (QEMU logs its traps on lines the import checks against the
 * privilege state; the stimulus's traps are not that). The QEMU converter reads pieces of the log
 * as `rvtrace trace-elf` hands them over and keeps the whole stream, as trace-elf does.
 */
export function measureImports(stream: RetirementStream, seed: number, count: number, repeat = 3): ImportRate[] {
  const out: ImportRate[] = [];
  // The text and CSV imports as `rvtrace encode` reads them: pieces of PIECE_BYTES, each piece's
  // records taken and dropped (core/stream-io.ts); the file's text is in memory already.
  const how = `streamed as rvtrace encode reads it, ${PIECE_BYTES / 1024} KiB pieces`;
  const streamed = (text: string, reader: () => SpikeCsvReader | EtraceCsvReader | TextStreamReader): number => {
    const pieces = linePieces(text, PIECE_BYTES);
    return bestSeconds(() => {
      const r = reader();
      for (const piece of pieces) {
        r.feed(piece);
        r.take();
      }
      r.finish();
    }, repeat);
  };
  const text = encodeTextChunks(stream).join('');
  out.push({ format: 'text', lines: lineCount([text]), seconds: streamed(text, () => new TextStreamReader('bench.txt')), how });
  const etrace = etraceCsvChunks(stream).join('');
  out.push({ format: 'etrace-csv', lines: lineCount([etrace]), seconds: streamed(etrace, () => new EtraceCsvReader('bench.csv')), how });
  const spike = spikeCsvChunks(stream).join('');
  out.push({ format: 'spike-csv', lines: lineCount([spike]), seconds: streamed(spike, () => new SpikeCsvReader('bench.csv')), how });
  const { log, image, xlen, entry } = trapFreeLog(seed, count);
  const seconds = bestSeconds(() => {
    const c = new QemuLogConverter({ image, xlen, entry, fileName: 'bench.log' });
    for (const piece of log) c.feed(piece);
    c.finish();
  }, repeat);
  out.push({ format: 'qemu-log', lines: lineCount(log), seconds, how: `as rvtrace trace-elf reads it, ${PIECE_BYTES / 1024} KiB pieces, the whole stream kept` });
  return out;
}

/**
 * A QEMU log of a trap-free stimulus of `count` instructions, in pieces, with what its conversion
 * needs: only these outlive the call (the stimulus's records do not stay in the heap while the
 * conversion is timed, as they would not in `rvtrace trace-elf`).
 */
function trapFreeLog(seed: number, count: number): { log: string[]; image: ProgramImage; xlen: Xlen; entry: bigint } {
  const trapFree = generateStimulus(
    {
      ...defaultKnobs(),
      privileges: 'M',
      interrupt_rate: 0,
      fault_rate: 0,
      nested_interrupt_rate: 0,
      context_switch_rate: 0,
      async_context_rate: 0,
      halt_rate: 0,
      reset_rate: 0,
      idle_rate: 0,
      w_ecall: 0,
      w_ebreak: 0,
      w_illegal: 0,
    },
    seed,
    count,
  );
  return { log: linePieces(qemuLogChunks(trapFree).join(''), PIECE_BYTES), image: trapFree.image, xlen: trapFree.xlen, entry: trapFree.records[0]!.iaddr };
}

/**
 * `rvtrace encode` of a spike-csv of `stream` as a user runs it: a process of its own, start-up,
 * reading, import, model and writing included (best of `repeat` wall times). Returns the retired
 * instructions in the file and the seconds.
 */
export function measureEncodeProcess(stream: RetirementStream, repeat = 2): { instructions: number; seconds: number } {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-bench-'));
  try {
    const csv = join(dir, 'trace.csv');
    writeFileSync(csv, spikeCsvChunks(stream).join(''));
    const instructions = importSpikeCsv(spikeCsvChunks(stream).join(''), 'bench.csv').records.filter((r) => r.iretire > 0).length;
    const seconds = bestSeconds(() => {
      const r = spawnSync(process.execPath, [BIN, 'encode', '--component', 'etrace', '--in', csv, '--out', join(dir, 'trace.te')], { encoding: 'utf8' });
      if (r.status !== 0) throw new RvError('tool-failure', `bench: rvtrace encode failed (status ${r.status}): ${r.stderr.trim()}`);
    }, repeat);
    return { instructions, seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Peak resident memory (MiB) of `rvtrace cosim --component etrace --count N`, as the command reports it. */
export function cosimPeakMemory(count: number, seed: number): number {
  const r = spawnSync(process.execPath, [BIN, 'cosim', '--component', 'etrace', '--count', String(count), '--seed', String(seed)], { encoding: 'utf8' });
  const m = /peak resident memory (\d+) MiB/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new RvError('tool-failure', `bench: rvtrace cosim --count ${count} failed (status ${r.status}): ${r.stdout}${r.stderr}`.trim());
  return Number(m[1]);
}

/**
 * Peak resident memory (MiB) of `rvtrace encode --component etrace` of a spike-csv of the stimulus
 * at each count, each a process of its own (scripts/peak-rss.cjs, preloaded, prints the peak as
 * `rvtrace cosim` prints its own). Issue 22's goal: it does not grow with the count.
 */
export function encodePeakMemory(counts: readonly number[], seed: number): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'rvtrace-bench-'));
  try {
    return counts.map((count) => {
      const csv = join(dir, `trace-${count}.csv`);
      writeFileSync(csv, spikeCsvChunks(generateStimulus(defaultKnobs(), seed, count)).join(''));
      const args = ['--require', join(ROOT, 'scripts', 'peak-rss.cjs'), BIN, 'encode', '--component', 'etrace', '--in', csv, '--out', join(dir, 'trace.te')];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
      const m = /peak resident memory (\d+) MiB/.exec(r.stderr);
      if (r.status !== 0 || m === null) throw new RvError('tool-failure', `bench: rvtrace encode of ${count} records failed (status ${r.status}): ${r.stderr.trim()}`);
      rmSync(csv);
      return Number(m[1]);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
