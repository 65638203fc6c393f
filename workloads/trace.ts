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
import { convertQemuLogText, type QemuLogStats } from '../golden-model/hart/formats/qemu-log.ts';
import type { ProgramImage } from '../golden-model/hart/image.ts';
import { Itype } from '../golden-model/hart/records.ts';
import type { RetirementStream, Xlen } from '../golden-model/hart/stream.ts';
import { readFileSync } from 'node:fs';
import type { DataAccess } from '../golden-model/hart/data-records.ts';
import { dataAccessOf } from '../golden-model/hart/isa/data-access.ts';
import type { TvRecord } from '../golden-model/tvtrace/records.ts';
import { runQemu, timeoutMessage, type QemuRun } from './qemu.ts';
import { TvDeriver } from './tv/derive.ts';
import { decodeInsn } from './tv/insn.ts';
import { ShadowMemory } from './tv/memory.ts';
import { type CpuDump, type CpuLogEvents, CpuLogParser, runCpuLog } from './tv/qemu-cpu.ts';
import { elfFlen } from './tv/trace.ts';

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
    const { stream, stats } = convertQemuLogText(run.pieces(), {
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

// --- data accesses (--data) ----------------------------------------------------------------------
//
// QEMU's execution log names no memory address or value. The tandem-verification derivation
// (tv/derive.ts) gets them from QEMU's CPU-state log, checking itself as it goes; its records give
// each instruction's effective address, store data and destination register value. What they do
// not give (an AMO's or CSR instruction's source operand, the value of a load into x0) comes from
// replaying the records' register writes from the state at the ELF entry, and from a shadow of
// memory the derived stores keep.

/** One data access of a run, with the address of the instruction that made it. */
export interface TracedAccess {
  pc: bigint;
  dtype: number;
  daddr: bigint;
  dsize: number;
  /** As in DataAccess: store data low, load data or operand high for CSR and atomic accesses. */
  data: bigint;
}

/** Feeds a CPU-state log to the derivation and keeps the register state at the ELF entry. */
class DataLogConsumer {
  readonly parser: CpuLogParser;
  readonly deriver: TvDeriver;
  entryState: CpuDump | undefined;

  constructor(
    readonly elf: ElfProgram,
    fpu: boolean,
    fileName: string,
  ) {
    let parser: CpuLogParser;
    const deriver: TvDeriver = new TvDeriver(
      { xlen: elf.xlen, flen: fpu ? 64 : 0, image: elf.image, entry: elf.entry, fileName },
      { get csrNames() { return parser.csrNames; } },
    );
    const events: CpuLogEvents = {
      enter: (line, pc, flags, dump) => {
        if (this.entryState === undefined && pc === elf.entry) this.entryState = dump;
        deriver.enter(line, pc, flags, dump);
      },
      cancel: (line, pc) => deriver.cancel(line, pc),
      trap: (line, async, cause, epc, tval, desc) => deriver.trap(line, async, cause, epc, tval, desc),
    };
    this.parser = parser = new CpuLogParser(elf.xlen, fpu, events, fileName);
    this.deriver = deriver;
  }

  end(): TracedAccess[] {
    this.parser.end();
    this.deriver.end();
    if (this.entryState === undefined) throw new RvError('bad-value', `the log never reaches the ELF entry 0x${this.elf.entry.toString(16)}`, {});
    const regs = Array.from({ length: 32 }, (_, r) => (r === 0 ? 0n : BigInt('0x' + this.entryState!.xText(r))));
    return accessesOfTvRecords(this.deriver.records, this.deriver.pcs, regs, this.elf);
  }
}

/**
 * The data accesses of tandem-verification records (`pcs[k]` the address of record k's
 * instruction), given the integer registers at the first record.
 */
export function accessesOfTvRecords(records: readonly TvRecord[], pcs: readonly bigint[], entryRegs: readonly bigint[], elf: ElfProgram): TracedAccess[] {
  const xlen = elf.xlen;
  const regs = [...entryRegs];
  const memory = new ShadowMemory(elf.image);
  const csrs = new Map<number, bigint>();
  const out: TracedAccess[] = [];
  const csrSize = xlen === 64 ? 3 : 2;
  for (let k = 0; k < records.length; k++) {
    const rec = records[k]!;
    if (rec.kind !== 'instruction' || rec.instr === undefined) continue;
    const length = rec.instr.size === 16 ? 2 : 4;
    const pc = pcs[k]!;
    const info = dataAccessOf(rec.instr.bits, length, xlen);
    const fx = decodeInsn(rec.instr.bits, pc, xlen);
    const written = rec.gpr?.value ?? rec.fpr?.value;
    const fail = (what: string): never => {
      throw new RvError('bad-value', `${fx.text} at 0x${pc.toString(16)}: ${what}`, {});
    };
    if (info !== undefined && fx.mem !== undefined && info.kind !== 'csr') {
      const bytes = fx.mem.bytes;
      const dsize = Math.log2(bytes);
      const mask = (1n << BigInt(8 * bytes)) - 1n;
      const daddr = rec.eaddr ?? fail('no effective address in its record');
      const remembered = (): bigint => memory.read(daddr, bytes) ?? fail('loads into x0 from memory the trace has not seen written');
      if (info.kind === 'store') {
        const v = rec.storeData?.value ?? fail('no store data in its record');
        memory.write(daddr, bytes, v);
        out.push({ pc, dtype: info.dtype, daddr, dsize, data: v });
      } else if (info.kind === 'load') {
        const v = written !== undefined && (fx.rd !== 0 || fx.frd !== undefined) ? written & mask : remembered();
        memory.write(daddr, bytes, v);
        out.push({ pc, dtype: info.dtype, daddr, dsize, data: v });
      } else {
        const old = rec.gpr !== undefined ? rec.gpr.value & mask : remembered();
        const operand = regs[fx.mem.data!.reg]! & mask;
        if (rec.storeData !== undefined) memory.write(daddr, bytes, rec.storeData.value);
        out.push({ pc, dtype: info.dtype, daddr, dsize, data: operand | (old << BigInt(8 * bytes)) });
      }
    } else if (info !== undefined && fx.csr !== undefined) {
      const c = fx.csr;
      const operand = 'imm' in c.src ? BigInt(c.src.imm) : regs[c.src.reg]!;
      // rd = x0 does not read the CSR architecturally: the last value the trace knows stands in.
      const old = rec.gpr !== undefined ? rec.gpr.value : (csrs.get(c.csr) ?? 0n);
      out.push({ pc, dtype: info.dtype, daddr: BigInt(c.csr), dsize: csrSize, data: operand | (old << BigInt(xlen)) });
    }
    if (rec.gpr !== undefined && rec.gpr.reg !== 0) regs[rec.gpr.reg] = rec.gpr.value;
    for (const w of rec.csrs ?? []) csrs.set(w.csr, w.value);
  }
  return out;
}

/** Runs the program with QEMU's CPU-state log and returns its data accesses in retirement order. */
export async function traceDataAccesses(elfPath: string, elf: ElfProgram, opts: { timeoutSeconds?: number; logName?: string } = {}): Promise<TracedAccess[]> {
  const fpu = elfFlen(elf) !== 0;
  const consumer = new DataLogConsumer(elf, fpu, opts.logName ?? 'QEMU CPU-state log');
  const run = await runCpuLog(
    { elf: elfPath, xlen: elf.xlen, fpu, ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}) },
    (lines) => {
      consumer.parser.lines(lines);
      return true;
    },
  );
  if (run.exit.kind === 'timeout') throw new RvError('tool-failure', timeoutMessage(run.exit.seconds), { file: elfPath });
  if (run.exit.kind === 'fail') throw new RvError('tool-failure', `the program reported failure code ${run.exit.code} through the test device; nothing written`, { file: elfPath });
  return consumer.end();
}

/** The data accesses of a CPU-state log already written (tests; a log taken by hand with the same QEMU options). */
export function dataAccessesFromLog(lines: Iterable<string>, elf: ElfProgram, fpu: boolean, fileName: string): TracedAccess[] {
  const consumer = new DataLogConsumer(elf, fpu, fileName);
  const batch: string[] = [];
  for (const l of lines) {
    batch.push(l);
    if (batch.length >= 4096) {
      consumer.parser.lines(batch);
      batch.length = 0;
    }
  }
  consumer.parser.lines(batch);
  return consumer.end();
}

/**
 * The stream with the accesses as its data trace: the n-th access on the record that retires the
 * n-th data access instruction of the stream (`dataAccessOf`), whose address must be the access's
 * pc (the two QEMU runs retire the same instructions; a difference is an error naming both).
 * Accesses beyond the stream's end (a run cut by --max-instructions) are dropped.
 */
export function attachTracedAccesses(stream: RetirementStream, accesses: readonly TracedAccess[]): RetirementStream {
  const out: DataAccess[] = [];
  let n = 0;
  for (let i = 0; i < stream.records.length; i++) {
    const r = stream.records[i]!;
    const end = r.iaddr + 2n * BigInt(r.iretire);
    for (let pc = r.iaddr; pc < end; ) {
      const insn = stream.image.fetch(pc);
      if (insn === undefined) throw new RvError('bad-value', `record ${i}: the instruction at 0x${pc.toString(16)} is not in the ELF image`, {});
      if (dataAccessOf(insn.encoding, insn.length, stream.xlen) !== undefined) {
        const a = accesses[n];
        if (a === undefined || a.pc !== pc) {
          throw new RvError(
            'tool-failure',
            `the execution log and the CPU-state log disagree: data access instruction ${n} is at 0x${pc.toString(16)} in one and ${a === undefined ? 'missing' : `at 0x${a.pc.toString(16)}`} in the other`,
            {},
          );
        }
        out.push({ at: i, dtype: a.dtype, daddr: a.daddr, dsize: a.dsize, data: a.data, lrid: 0, iaddrLsbs: 0, dblock: 0 });
        n++;
      }
      pc += BigInt(insn.length);
    }
  }
  return { ...stream, data: { accesses: out, responses: [] } };
}
