/**
 * `rvtrace trace-elf PROGRAM.elf --out STREAM`: runs a bare-metal RISC-V program in QEMU with
 * execution logging and converts the log and the ELF into a retirement stream with the ELF's
 * program image (workloads/trace.ts). `--check` runs the round trip there: encode with the E-Trace
 * model, decode with the image, compare with the addresses QEMU retired. docs/trace-elf.md has the
 * details.
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
import { roundTrip, roundTripConfig, traceProgram } from '../../workloads/trace.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { readInput } from '../../core/io.ts';
import { outputFormat, writeStream } from '../../core/stream-io.ts';

interface Options {
  out: string;
  arch: string;
  timeout: string;
  keepLog?: string;
  maxInstructions?: string;
  check?: boolean;
  set?: string[];
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
  settings: ETRACE_SETTINGS,
  details: [
    'Runs qemu-system-riscv32/64 7.2 (machine virt, -bios none -kernel PROGRAM.elf, -no-reboot,',
    '-singlestep, -d exec,int,nochain, -icount shift=0,sleep=off) until the program writes the SiFive',
    'test device at 0x100000 (0x5555 pass; (code << 16) | 0x3333 fail), then writes the retired',
    "instructions and the ELF's loadable segments as a stream (.txt: text format, else binary).",
    'See docs/trace-elf.md.',
    `A WORKLOAD name (${WORKLOADS.map((w) => w.name).join(', ')}) builds that program of workloads/ for --arch first.`,
    'Settings are E-Trace settings for --check (iaddress_width_p defaults to the ELF class).',
    'Example:',
    '  rvtrace trace-elf sort.elf --out sort.bin',
    '  rvtrace trace-elf sort.elf --out sort.bin --check --set ImplicitReturn=1 --set return_stack_size_p=3',
    '  rvtrace trace-elf interp --arch rv32imc --out interp.bin --check',
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
      .option('--check', 'round trip: encode with E-Trace, decode with the ELF image, compare with what QEMU retired'),
  async run([program], o, _settings: Settings) {
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
    const { stream, stats } = traced;
    writeStream(o.out, stream, outputFormat(o.out, undefined));
    process.stderr.write(
      `wrote ${o.out}: ${stats.instructions} instructions, ${stats.exceptions} exceptions, ${stats.interrupts} interrupts` +
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
