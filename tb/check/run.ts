/**
 * `rvtrace check`, the generic part: the map's ports checked against what the block's check reads,
 * the waveform (a VCD file, or an FST file through Debian gtkwave's `fst2vcd`, its output streamed
 * into the same reader) sampled cycle by cycle into the block's check session, and the outcome.
 *
 * A first pass keeps nothing that grows with the waveform but the two byte streams (or nothing,
 * for blocks compared cycle by cycle); when it finds a divergence, the waveform is read again with
 * the details a report needs (the model's packets, the rebuilt input). A block whose model needs
 * something from the whole waveform before it starts (E-Trace's data accesses) asks for one more
 * pass first (`CheckOutcome.again`).
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { ResolvedComponent } from '../../core/block.ts';
import type { BlockCheck, CheckOptions, CheckOutcome } from '../../core/check.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { checkMapPorts, readSignalMap, type SignalMap } from './map.ts';
import { readVcd, type VcdSummary } from './vcd.ts';

export interface CheckInput {
  /** The waveform: exactly one of a VCD and an FST file. */
  readonly vcd?: string;
  readonly fst?: string;
  readonly map: string;
  /** A byte capture of the trace output (the map then names the hart side only). */
  readonly capture?: Uint8Array;
}

export interface CheckReport extends CheckOutcome {
  readonly waveform: VcdSummary;
}

/** The waveform's file name, which must be a file (checked before anything else is read). */
function checkWaveformFile(input: CheckInput): string {
  const file = (input.vcd ?? input.fst)!;
  if (!existsSync(file) || !statSync(file).isFile()) throw new RvError('io', 'no such waveform file', { file });
  return file;
}

/** The waveform as a VCD text stream; an FST goes through `fst2vcd`. */
function openWaveform(input: CheckInput): { stream: Readable; file: string; done: () => Promise<void> } {
  const file = checkWaveformFile(input);
  if (input.vcd !== undefined) return { stream: createReadStream(file, { highWaterMark: 1 << 20 }), file, done: async () => {} };
  const child = spawn('fst2vcd', [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
  const exit = new Promise<{ code: number | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code }));
  });
  const done = async (): Promise<void> => {
    const e = await exit;
    if (e.error?.code === 'ENOENT') throw new RvError('tool-failure', 'fst2vcd not found: install Debian\'s gtkwave (apt-get install gtkwave), or give a VCD with --vcd', { file });
    if (e.error) throw new RvError('tool-failure', `fst2vcd: ${e.error.message}`, { file });
    // The reader stops early on an error of its own, which ends fst2vcd by a broken pipe: only a
    // failure of a whole read is fst2vcd's.
    if (e.code !== 0 && e.code !== null) throw new RvError('tool-failure', `fst2vcd failed (status ${e.code}): ${stderr.trim().split('\n').pop() ?? ''}`, { file });
  };
  return { stream: child.stdout, file, done };
}

/** One pass over the waveform. */
async function pass(check: BlockCheck, r: ResolvedComponent, input: CheckInput, map: SignalMap, detail: boolean, prior: unknown): Promise<CheckReport> {
  const mapped = [...map.ports.keys()];
  const take = check.ports(r.config, optionsOf(input));
  const width = new Map(take.ports.map((p) => [p.name, p.width]));
  const session = check.start(r.config, mapped, { ...optionsOf(input), detail, ...(prior === undefined ? {} : { prior }) });
  const { stream, file, done } = openWaveform(input);
  let waveform: VcdSummary;
  try {
    waveform = await readVcd(
      stream,
      {
        file,
        clock: map.clock,
        ...(map.reset ? { reset: map.reset } : {}),
        signals: mapped.map((port) => ({ name: map.ports.get(port)!, width: width.get(port)!, what: `port ${port} (${input.map})` })),
      },
      (values, cycle) => session.cycle(cycle, values),
    );
  } catch (e) {
    // fst2vcd missing or failing explains an empty or cut stream better than the reader can.
    await done();
    // A block's error names the cycle; the waveform's file goes with it.
    if (e instanceof RvError && e.location.file === undefined) throw new RvError(e.code, e.message, { ...e.location, file }, e.status);
    throw e;
  }
  await done();
  return { ...session.finish(), waveform };
}

function optionsOf(input: CheckInput): CheckOptions {
  return input.capture ? { capture: input.capture } : {};
}

/**
 * Checks the waveform of `input` against the model of `r`'s block: the outcome of the first pass,
 * or on a divergence that of the second, detailed one.
 */
export async function runCheck(r: ResolvedComponent, input: CheckInput): Promise<CheckReport> {
  const check = r.block.check!;
  checkWaveformFile(input);
  const map = readSignalMap(input.map);
  checkMapPorts(map, check.ports(r.config, optionsOf(input)), input.map, r.block.topModule);
  let prior: unknown;
  let first = await pass(check, r, input, map, false, prior);
  // A block that needs what a whole pass finds before its model starts reads the waveform again.
  if (first.again !== undefined) {
    prior = first.again;
    first = await pass(check, r, input, map, false, prior);
  }
  if (first.pass) return first;
  const second = await pass(check, r, input, map, true, prior);
  return second.pass ? first : second;
}
