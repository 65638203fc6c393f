/**
 * Tracing a program: run an ELF in QEMU with execution logging (qemu.ts), convert the log and the
 * ELF into a retirement stream (golden-model/hart/formats/qemu-log.ts), and the round trip that
 * checks the conversion: encode the stream with the E-Trace model, decode the packets with the
 * ELF's image and compare with the addresses QEMU executed and retired, read from the log by a
 * separate, deliberately simple scan (`qemuRetiredAddresses`). Used by `rvtrace trace-elf` and by
 * the efficiency benchmark. docs/trace-elf.md has the details.
 */
import { RvError } from '../golden-model/common/errors.ts';
import { resolveSettings } from '../golden-model/common/settings.ts';
import type { EtraceConfig } from '../golden-model/etrace/config.ts';
import { decodeStream, type TrapEntry } from '../golden-model/etrace/decoder.ts';
import { encodeStream } from '../golden-model/etrace/output.ts';
import { ETRACE_SETTINGS, etraceConfig, validateEtraceSettings } from '../golden-model/etrace/settings.ts';
import { expandBlocks } from '../golden-model/hart/blocks.ts';
import { parseElf, type ElfProgram } from '../golden-model/hart/elf.ts';
import { convertQemuLog, type QemuLogStats } from '../golden-model/hart/formats/qemu-log.ts';
import type { ProgramImage } from '../golden-model/hart/image.ts';
import { Itype } from '../golden-model/hart/records.ts';
import type { RetirementStream, Xlen } from '../golden-model/hart/stream.ts';
import { readFileSync } from 'node:fs';
import { runQemu, timeoutMessage, type QemuRun } from './qemu.ts';

// --- tracing -----------------------------------------------------------------------------------

export interface TraceOptions {
  timeoutSeconds?: number;
  maxInstructions?: number;
  /** Also scan the log for the addresses QEMU retired (for the round trip). */
  retired?: boolean;
  /** Called with the log before it is removed (e.g. to keep it). */
  keepLog?: (logPath: string) => void;
  /** Name of the log in error messages. */
  logName?: string;
  /** The ELF already parsed (else it is read from elfPath). */
  elf?: ElfProgram;
}

export interface TracedProgram {
  elf: ElfProgram;
  stream: RetirementStream;
  stats: QemuLogStats;
  /** The addresses QEMU retired, scanned from the log (with `retired`). */
  retired?: bigint[];
  qemuSeconds: number;
  convertSeconds: number;
}

/**
 * Runs the program in QEMU and converts its log. A timeout, or a program that reports failure,
 * is an RvError ('tool-failure') naming the ELF.
 */
export async function traceProgram(elfPath: string, opts: TraceOptions = {}): Promise<TracedProgram> {
  const elf = opts.elf ?? parseElf(new Uint8Array(readFileSync(elfPath)), elfPath);
  const max = opts.maxInstructions;
  const run: QemuRun = await runQemu({
    elf: elfPath,
    xlen: elf.xlen,
    ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
    ...(max !== undefined ? { maxInstructions: max } : {}),
  });
  try {
    if (run.exit.kind === 'timeout') throw new RvError('tool-failure', timeoutMessage(run.exit.seconds), { file: elfPath });
    if (run.exit.kind === 'fail') {
      throw new RvError('tool-failure', `the program reported failure code ${run.exit.code} through the test device (QEMU exit status ${run.exit.code}); nothing written`, { file: elfPath });
    }
    const started = performance.now();
    const { stream, stats } = await convertQemuLog(run.lines(), {
      image: elf.image,
      xlen: elf.xlen,
      entry: elf.entry,
      fileName: opts.logName ?? 'QEMU log',
      ...(max !== undefined ? { maxInstructions: max } : {}),
    });
    const convertSeconds = (performance.now() - started) / 1000;
    const retired = opts.retired ? await qemuRetiredAddresses(run.lines(), elf.image, elf.entry, max) : undefined;
    return { elf, stream, stats, ...(retired ? { retired } : {}), qemuSeconds: run.seconds, convertSeconds };
  } finally {
    try {
      opts.keepLog?.(run.logPath);
    } finally {
      run.cleanup();
    }
  }
}

// --- the round trip ----------------------------------------------------------------------------

export interface RoundTripResult {
  /** The decoded addresses are exactly the expected ones. */
  ok: boolean;
  /** Instructions expected (QEMU's retired addresses). */
  instructions: number;
  /** Addresses the decoder produced. */
  decoded: number;
  /** Size of the encoded trace. */
  bytes: number;
  packets: number;
  /** The first position where the sequences differ (an address is undefined past a sequence's end). */
  firstMismatch?: { index: number; expected: bigint | undefined; decoded: bigint | undefined };
  /** The decoder rejected the packets (message), or reported a gap other than the end of trace. */
  error?: string;
}

/**
 * The E-Trace configuration for `--set` items, with iaddress_width_p defaulting to the program's
 * XLEN; with `image`, iaddress_width_p must reach its highest address.
 */
export function roundTripConfig(xlen: Xlen, sets: readonly string[] = [], image?: ProgramImage): EtraceConfig {
  const settings = resolveSettings('trace-elf', ETRACE_SETTINGS, sets, { iaddress_width_p: xlen });
  const errors = validateEtraceSettings(settings);
  if (errors.length > 0) {
    throw new RvError('bad-option', `the E-Trace settings for --check are not valid:\n  ${errors.map((e) => e.oneLine()).join('\n  ')}`);
  }
  const config = etraceConfig(settings);
  const last = image?.segments.reduce((m, s) => (s.base + BigInt(s.bytes.length) - 1n > m ? s.base + BigInt(s.bytes.length) - 1n : m), 0n) ?? 0n;
  const width = config.params.iaddress_width_p;
  if (last >> BigInt(width) !== 0n) {
    throw new RvError('bad-option', `iaddress_width_p ${width} cannot carry the program's addresses (up to 0x${last.toString(16)})`, { path: 'parameters/iaddress_width_p' });
  }
  return config;
}

/**
 * Encodes the stream, decodes the packets with the stream's image and compares the decoded
 * addresses with `expected` (default: the stream's retired addresses, blocks expanded).
 * `config` is an E-Trace configuration or `--set` items for `roundTripConfig`.
 */
export function roundTrip(stream: RetirementStream, config: EtraceConfig | readonly string[], expected?: readonly bigint[]): RoundTripResult {
  const cfg = Array.isArray(config) ? roundTripConfig(stream.xlen, config as readonly string[]) : (config as EtraceConfig);
  const want = expected ?? expandBlocks(stream.records, stream.image).filter((r) => r.iretire > 0).map((r) => r.iaddr);
  const encoded = encodeStream(stream.records, cfg, { keepPackets: false });
  const base = { instructions: want.length, bytes: encoded.bytes.length, packets: encoded.packetCount };
  const handlers = trapHandlers(stream);
  let got: bigint[];
  try {
    const items = decodeStream(encoded.bytes, stream.image, {
      params: cfg.params,
      xlen: stream.xlen,
      trapHandler: (t: TrapEntry) => handlers.get(`${t.interrupt ? 1 : 0}:${t.cause}`) ?? 0n,
    });
    const gap = items.findIndex((it, i) => it.kind === 'gap' && !(it.reason === 'end' && i === items.length - 1));
    got = items.flatMap((it) => (it.kind === 'pc' ? [it.address] : []));
    if (gap >= 0) {
      const g = items[gap]!;
      return { ...base, ok: false, decoded: got.length, error: `the decoder reported a gap (${g.kind === 'gap' ? g.reason : ''}) after ${items.slice(0, gap).length} items` };
    }
  } catch (e) {
    const message = e instanceof RvError ? e.oneLine() : (e as Error).message;
    return { ...base, ok: false, decoded: 0, error: `the decoder rejected the packets: ${message}` };
  }
  const n = Math.min(want.length, got.length);
  let index = -1;
  for (let i = 0; i < n; i++) {
    if (want[i] !== got[i]) {
      index = i;
      break;
    }
  }
  if (index < 0 && want.length !== got.length) index = n;
  if (index < 0) return { ...base, ok: true, decoded: got.length };
  return { ...base, ok: false, decoded: got.length, firstMismatch: { index, expected: want[index], decoded: got[index] } };
}

/**
 * Trap handler addresses by (interrupt, cause) as the stream shows them (the first instruction
 * retired after a trap record), for a decoder in implicit exception mode.
 */
function trapHandlers(stream: RetirementStream): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const rs = stream.records;
  for (let i = 0; i < rs.length; i++) {
    const r = rs[i]!;
    if (r.itype !== Itype.exception && r.itype !== Itype.interrupt) continue;
    const next = rs.slice(i + 1, i + 3).find((x) => x.iretire > 0);
    const key = `${r.itype === Itype.interrupt ? 1 : 0}:${r.cause}`;
    if (next !== undefined && !out.has(key)) out.set(key, next.iaddr);
  }
  return out;
}

/**
 * The addresses of the instructions QEMU executed and retired, in order, straight from the log:
 * every Trace line not cancelled by the line after it (Stopped execution / cpu_io_recompile), from
 * the first one at the ELF entry on, except those whose instruction raised an exception other
 * than ecall/ebreak (a riscv_cpu_do_interrupt line with async:0 and their epc right after them).
 * Deliberately independent of the importer, which it checks.
 */
export async function qemuRetiredAddresses(
  lines: Iterable<string | readonly string[]> | AsyncIterable<string | readonly string[]>,
  image: ProgramImage,
  entry: bigint,
  maxInstructions = Infinity,
): Promise<bigint[]> {
  const out: bigint[] = [];
  let entered: bigint | undefined;
  let started = false;
  const retire = (pc: bigint): void => {
    if (!started && pc === entry) started = true;
    if (started) out.push(pc);
  };
  /** ecall (0x00000073), ebreak (0x00100073) and c.ebreak (0x9002) retire, then trap. */
  const trapsAndRetires = (pc: bigint): boolean => {
    const lo = image.parcel(pc);
    const hi = image.parcel(pc + 2n);
    return lo === 0x9002 || (lo === 0x0073 && (hi === 0x0000 || hi === 0x0010));
  };
  const pcs = new Map<string, bigint>();
  const pcOf = (text: string): bigint => {
    let pc = pcs.get(text);
    if (pc === undefined) pcs.set(text, (pc = BigInt('0x' + text)));
    return pc;
  };
  const scan = (line: string): void => {
    if (line.startsWith('Trace ')) {
      if (entered !== undefined) retire(entered);
      entered = pcOf(/\/([0-9a-f]+)\/[0-9a-f]+\/[0-9a-f]+\]/.exec(line)![1]!);
    } else if (line.startsWith('Stopped execution') || line.startsWith('cpu_io_recompile:')) {
      entered = undefined;
    } else if (line.startsWith('riscv_cpu_do_interrupt:')) {
      const epc = BigInt('0x' + /epc:0x([0-9a-f]+)/.exec(line)![1]!);
      if (entered !== undefined && line.includes('async:0') && entered === epc) {
        if (trapsAndRetires(epc)) retire(epc);
      } else if (entered !== undefined) {
        retire(entered);
      }
      entered = undefined;
    }
  };
  outer: for await (const item of lines) {
    for (const line of typeof item === 'string' ? [item] : item) {
      scan(line);
      if (out.length >= maxInstructions) break outer;
    }
  }
  if (entered !== undefined && out.length < maxInstructions) retire(entered);
  return out.slice(0, maxInstructions);
}
