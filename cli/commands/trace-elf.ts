/**
 * `rvtrace trace-elf PROGRAM.elf --out STREAM`: runs a bare-metal RISC-V program in QEMU with
 * execution logging and converts the log and the ELF into a retirement stream with the ELF's
 * program image (workloads/trace.ts). `--check` runs the round trip there: encode with the E-Trace
 * model, decode with the image, compare with the addresses QEMU retired.
 *
 * With `--tv`, the output is the program in tandem-verification form instead (workloads/tv/: every
 * instruction's state changes from QEMU's CPU-state log): the tvtrace records (`--format text|bin`)
 * or their encoded byte stream (`--format bytes`, for `--component` or the tvtrace settings);
 * `--check` then encodes the records with the tvtrace model and checks the bytes, decoded by the
 * independent decoder, against them (as `rvtrace tv-check` does). docs/trace-elf.md has the details.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { ExitStatus, RvError } from '../../golden-model/common/errors.ts';
import type { Settings } from '../../golden-model/common/settings.ts';
import { ETRACE_SETTINGS } from '../../golden-model/etrace/settings.ts';
import { parseElf, symbolize, type ElfProgram } from '../../golden-model/hart/elf.ts';
import { buildWorkload, WORKLOAD_ARCHES, WORKLOADS, type WorkloadArch } from '../../workloads/build.ts';
import { DEFAULT_TIMEOUT_SECONDS } from '../../workloads/qemu.ts';
import { attachTracedAccesses, roundTrip, roundTripConfig, traceDataAccesses, traceProgram } from '../../workloads/trace.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { checkOutputFile, readInput } from '../../core/io.ts';
import { outputFormat, writeStream } from '../../core/stream-io.ts';
import { writeOutputAtomic } from '../../core/io.ts';
import { encodeTvRecords } from '../../golden-model/tvtrace/encoder.ts';
import { serializeTvRecords } from '../../golden-model/tvtrace/formats/index.ts';
import { checkTv, formatDivergence, recordPcs } from '../../workloads/tv/check.ts';
import { programOf, traceTv, tvConfigFor, TV_ELF_SETTINGS, tvSets } from './tv-check.ts';

interface Options {
  out: string;
  arch: string;
  timeout: string;
  keepLog?: string;
  maxInstructions?: string;
  check?: boolean;
  set?: string[];
  tv?: boolean;
  format?: string;
  component?: string;
  qemuCpu?: string;
  data?: boolean;
}

// --- the command -------------------------------------------------------------------------------

function positiveNumber(value: string, option: string, integer: boolean): number {
  const n = Number(value);
  if (!(n > 0) || (integer && !Number.isInteger(n)) || !Number.isFinite(n)) {
    throw new RvError('bad-option', `${option} ${value}: expected a positive ${integer ? 'integer' : 'number'}`);
  }
  return n;
}

/** The ELF to run: the file, or a workload of workloads/ built for `arch`. */
function programFile(program: string, arch: string): string {
  if (existsSync(program) || !WORKLOADS.some((w) => w.name === program)) return program;
  if (!(WORKLOAD_ARCHES as readonly string[]).includes(arch)) {
    throw new RvError('bad-option', `--arch ${arch}: expected one of ${WORKLOAD_ARCHES.join(', ')}`);
  }
  return buildWorkload(program, arch as WorkloadArch);
}

/** Moves the log to `file` (through a temporary name next to it: the file appears whole). */
function keepLog(from: string, file: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    try {
      renameSync(from, tmp);
    } catch {
      copyFileSync(from, tmp); // another file system
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new RvError('io', `cannot write the QEMU log: ${(e as Error).message}`, { file });
  }
}

export const traceElfCommand: CommandDefinition<Options> = {
  name: 'trace-elf',
  args: '<PROGRAM.elf|WORKLOAD>',
  summary: 'run a bare-metal RISC-V ELF in QEMU and convert its execution log into a retirement stream',
  settings: [...ETRACE_SETTINGS, ...TV_ELF_SETTINGS],
  details: [
    'Runs qemu-system-riscv32/64 7.2 (machine virt, -bios none -kernel PROGRAM.elf, -no-reboot,',
    '-singlestep, -d exec,int,nochain, -icount shift=0,sleep=off) until the program writes the SiFive',
    'test device at 0x100000 (0x5555 pass; (code << 16) | 0x3333 fail), then writes the retired',
    "instructions and the ELF's loadable segments as a stream (.txt: text format, else binary).",
    'See docs/trace-elf.md.',
    `A WORKLOAD name (${WORKLOADS.map((w) => w.name).join(', ')}) builds that program of workloads/ for --arch first.`,
    'Settings are E-Trace settings for --check (iaddress_width_p defaults to the ELF class), and the',
    'tvtrace settings xlen, flen, ilen, mlen, field_order for --tv (xlen, flen, mlen default to the ELF).',
    'With --tv: the tandem-verification form of the run instead (QEMU -d cpu: every instruction, trap and',
    'interrupt with the registers, CSRs, memory address and data, privilege it changes): tvtrace records',
    '(--format text or bin, default by extension: .txt text, else bin) or the encoded byte stream',
    '(--format bytes) for --component (a tvtrace component) or the tvtrace settings. --check then encodes',
    'the records with the tvtrace model and checks the decoded bytes against them (as tv-check does).',
    'With --data: the stream also carries the E-Trace data trace (every load, store, AMO and CSR access',
    "with its address and value, from a second run with QEMU's CPU-state log; docs/trace-elf.md, \"--data\").",
    'Example:',
    '  rvtrace trace-elf sort.elf --out sort.bin',
    '  rvtrace trace-elf sort --out sort.txt --data',
    '  rvtrace trace-elf sort.elf --out sort.bin --check --set ImplicitReturn=1 --set return_stack_size_p=3',
    '  rvtrace trace-elf interp --arch rv32imc --out interp.bin --check',
    '  rvtrace trace-elf sort --tv --out sort.tvr.txt',
    '  rvtrace trace-elf traps --arch rv32imc --tv --format bytes --out traps.tv --check',
    'Exit status: 0 done (and --check passed), 1 --check found a difference, 2 bad input or option,',
    '3 QEMU failed, timed out, or the program reported failure.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--out <STREAM>', 'output stream (.txt: text format, else binary)')
      .option('--arch <ARCH>', `the arch a WORKLOAD is built for (${WORKLOAD_ARCHES.join(', ')})`, 'rv64gc')
      .option('--timeout <SECONDS>', 'stop QEMU after this long (an error)', String(DEFAULT_TIMEOUT_SECONDS))
      .option('--keep-log <FILE>', "keep QEMU's execution log (error messages then give its line numbers)")
      .option('--max-instructions <N>', 'stop after N retired instructions (QEMU is stopped, the stream truncated)')
      .option('--check', 'round trip: encode with E-Trace, decode with the ELF image, compare with what QEMU retired (with --tv: tvtrace)')
      .option('--data', 'add the data accesses (E-Trace data trace) of every load, store, AMO and CSR instruction')
      .option('--tv', "tandem-verification output: every instruction's state changes, from QEMU's CPU-state log")
      .option('--format <FORMAT>', 'with --tv: text or bin (tvtrace records), bytes (the encoded stream)')
      .option('-c, --component <NAME|FILE>', 'with --tv --format bytes: a tvtrace component (the stream parameters)')
      .option('--qemu-cpu <CPU>', "with --tv: QEMU's -cpu (default: the workload's hart; rv64 or rv32 for an ELF)"),
  async run([program], o, settings: Settings) {
    if (o.tv && o.data) throw new RvError('bad-option', '--data: not with --tv (the tandem-verification records carry the memory accesses already)');
    checkOutputFile(o.out);
    if (o.tv) return runTv(program!, o, settings);
    for (const [given, name] of [[o.format, '--format'], [o.component, '--component'], [o.qemuCpu, '--qemu-cpu']] as const) {
      if (given !== undefined) throw new RvError('bad-option', `${name} ${given}: only with --tv`);
    }
    const tvGiven = tvSets(o.set);
    if (tvGiven.length > 0) throw new RvError('bad-option', `--set ${tvGiven[0]}: a tvtrace setting, only with --tv`);
    const elfPath = programFile(program!, o.arch);
    const timeout = positiveNumber(o.timeout, '--timeout', false);
    const max = o.maxInstructions !== undefined ? positiveNumber(o.maxInstructions, '--max-instructions', true) : undefined;
    const elf: ElfProgram = parseElf(readInput(elfPath), elfPath);
    // A bad --set fails before QEMU runs.
    const config = o.check ? roundTripConfig(elf.xlen, o.set ?? [], elf.image) : undefined;
    outputFormat(o.out, undefined);

    const traced = await traceProgram(elfPath, {
      elf,
      timeoutSeconds: timeout,
      ...(max !== undefined ? { maxInstructions: max } : {}),
      retired: config !== undefined,
      logName: o.keepLog ?? 'QEMU log (--keep-log FILE keeps it)',
      ...(o.keepLog !== undefined ? { keepLog: (from: string) => keepLog(from, o.keepLog!) } : {}),
    });
    const { stats } = traced;
    let stream = traced.stream;
    if (o.data) stream = attachTracedAccesses(stream, await traceDataAccesses(elfPath, elf, { timeoutSeconds: timeout }));
    writeStream(o.out, stream, outputFormat(o.out, undefined));
    process.stderr.write(
      `wrote ${o.out}: ${stats.instructions} instructions, ${stats.exceptions} exceptions, ${stats.interrupts} interrupts` +
        `${stream.data !== undefined ? `, ${stream.data.accesses.length} data accesses` : ''}` +
        `${stats.truncated ? ` (stopped at --max-instructions ${max})` : ''}` +
        `${stats.assumedPrivileges ? ` (${stats.assumedPrivileges} trap privileges taken from the instruction the handler returned to)` : ''}` +
        `; QEMU ${traced.qemuSeconds.toFixed(2)} s, conversion ${traced.convertSeconds.toFixed(2)} s\n`,
    );
    if (config === undefined) return ExitStatus.ok;

    const r = roundTrip(stream, config, traced.retired);
    const where = (a: bigint | undefined): string => (a === undefined ? 'nothing (sequence ended)' : symbolize(elf.symbols, a));
    if (r.ok) {
      const bpi = r.instructions ? ((r.bytes * 8) / r.instructions).toFixed(3) : 'n/a';
      process.stdout.write(
        `check: encoding and decoding with the ELF image reproduces QEMU's ${r.instructions} retired instructions (${r.packets} packets, ${r.bytes} bytes, ${bpi} bits/instruction)\n`,
      );
      return ExitStatus.ok;
    }
    if (r.error !== undefined) process.stdout.write(`check: FAILED: ${r.error}\n`);
    else {
      const m = r.firstMismatch!;
      process.stdout.write(
        `check: FAILED at instruction ${m.index} of ${r.instructions}: QEMU retired ${where(m.expected)}, the decoder gave ${where(m.decoded)} (${r.decoded} decoded in all)\n`,
      );
    }
    return ExitStatus.mismatch;
  },
};

// --- --tv ----------------------------------------------------------------------------------------

const TV_FORMATS = ['text', 'bin', 'bytes'] as const;

async function runTv(program: string, o: Options, settings: Settings): Promise<number> {
  const etraceSets = (o.set ?? []).filter((x) => !tvSets([x]).length);
  if (etraceSets.length > 0) throw new RvError('bad-option', `--set ${etraceSets[0]}: an E-Trace setting; with --tv the settings are tvtrace's (${TV_ELF_SETTINGS.map((s) => s.name).join(', ')})`);
  if (o.keepLog !== undefined && o.keepLog === o.out) throw new RvError('bad-option', `--keep-log ${o.keepLog}: the same file as --out`);
  const format = o.format ?? (o.out.endsWith('.txt') ? 'text' : 'bin');
  if (!(TV_FORMATS as readonly string[]).includes(format)) throw new RvError('bad-option', `--format ${format}: expected one of ${TV_FORMATS.join(', ')}`);
  if (o.component !== undefined && format !== 'bytes' && !o.check) throw new RvError('bad-option', `--component ${o.component}: only with --format bytes or --check (the records do not depend on it)`);
  const prog = programOf(program, o.arch);
  const timeout = positiveNumber(o.timeout, '--timeout', false);
  const max = o.maxInstructions !== undefined ? positiveNumber(o.maxInstructions, '--max-instructions', true) : undefined;
  const elf: ElfProgram = parseElf(readInput(prog.path), prog.path);
  // Bad settings or component fail before QEMU runs.
  const config = tvConfigFor(elf, settings, o.component, o.set ?? [], 'trace-elf');
  const t = await traceTv(prog, elf, config, o, timeout, max);
  let bytes: Uint8Array | undefined;
  const encode = (): Uint8Array => {
    try {
      return (bytes ??= encodeTvRecords(t.records, config));
    } catch (e) {
      throw e instanceof RvError ? new RvError(e.code, `the tvtrace encoder refused ${e.message} (settings ${configText(config)})`, { file: prog.path }) : e;
    }
  };
  writeOutputAtomic(o.out, format === 'bytes' ? encode() : serializeTvRecords(t.records, format as 'text' | 'bin'));
  const s = t.stats;
  process.stderr.write(
    `wrote ${o.out}: ${t.records.length} groups (${s.instructions} instructions, ${s.xrets} xRETs, ${s.traps} traps, ${s.interrupts} interrupts; ` +
      `${s.loads} loads, ${s.stores} stores, ${s.amos} AMOs, ${s.csrInstructions} CSR, ${s.fpInstructions} floating point)` +
      `${format === 'bytes' ? `, ${bytes!.length} bytes (${configText(config)})` : ` as ${format} records`}` +
      `${s.truncated ? ` (stopped at --max-instructions ${max})` : ''}; QEMU and derivation ${t.seconds.toFixed(2)} s\n`,
  );
  if (!o.check) return ExitStatus.ok;
  const r = checkTv(encode(), t.records, recordPcs(t.records, elf.entry), {
    params: { xlen: config.xlen, flen: config.flen, mlen: config.mlen, ilen: config.ilen },
    entry: elf.entry,
    ...(s.truncated ? { prefix: true } : {}),
  });
  if (r.ok) {
    process.stdout.write(`check: the tvtrace encoding of the ${r.matched} groups (${bytes!.length} bytes, ${configText(config)}) decodes back to QEMU's records\n`);
    return ExitStatus.ok;
  }
  if (r.divergence !== undefined) process.stdout.write(`check: FAILED\n${formatDivergence(r.divergence, elf.xlen, 'the encoded stream').join('\n')}\n`);
  else process.stdout.write(`check: FAILED: the decoder stopped at byte offset ${r.decodeError!.offset}: ${r.decodeError!.message} (after ${r.matched} matching groups)\n`);
  return ExitStatus.mismatch;
}

function configText(c: { xlen: number; flen: number; mlen: number; fieldOrder: string }): string {
  return `xlen=${c.xlen} flen=${c.flen} mlen=${c.mlen} field_order=${c.fieldOrder}`;
}
