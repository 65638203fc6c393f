/**
 * A program in tandem-verification form: run an ELF in QEMU with its CPU-state log (qemu-cpu.ts)
 * and derive the records of every instruction, trap and interrupt while QEMU runs (derive.ts).
 * Used by `rvtrace trace-elf --tv` and `rvtrace tv-check`. docs/trace-elf.md ("--tv") has the details.
 */
import { readFileSync } from 'node:fs';
import { RvError } from '../../golden-model/common/errors.ts';
import { parseElf, type ElfProgram } from '../../golden-model/hart/elf.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { qemuCommand, type WorkloadArch } from '../build.ts';
import { timeoutMessage } from '../qemu.ts';
import { TvDeriver, type DeriveStats } from './derive.ts';
import { CpuLogParser, runCpuLog } from './qemu-cpu.ts';

export interface TvTraceOptions {
  /** The ELF already parsed (else it is read from elfPath). */
  elf?: ElfProgram;
  /** QEMU -cpu (default QEMU's rv64 / rv32 hart). */
  cpu?: string;
  /** Log and derive floating-point state (default: the ELF's float ABI is single or double). */
  fpu?: boolean;
  /** FPR width of the records (default 64 with fpu, else 0; 32 removes the NaN-boxing of QEMU's registers). */
  flen?: 0 | 32 | 64;
  timeoutSeconds?: number;
  /** Stop after this many records (QEMU is stopped). */
  maxRecords?: number;
  /** Copy QEMU's log into this file. */
  keepLog?: string;
}

export interface TvTrace {
  elf: ElfProgram;
  records: TvRecord[];
  /** The address of each record's instruction (an interrupt's or fetch fault's: its epc). */
  pcs: bigint[];
  stats: DeriveStats & { logLines: number };
  /** FPR width of the records. */
  flen: 0 | 32 | 64;
  /** Wall-clock seconds of the run (QEMU and the derivation run side by side). */
  seconds: number;
}

/** QEMU's -cpu for the hart of a workload arch (build.ts: the RV32IMC hart has no A, F, D). */
export function workloadQemuCpu(arch: WorkloadArch): string | undefined {
  const args = qemuCommand(arch, '').args;
  const i = args.indexOf('-cpu');
  return i >= 0 ? args[i + 1] : undefined;
}

/** The float ABI of an ELF (e_flags bits 2:1): 0 soft, 1 single, 2 double, 3 quad. */
export function elfFloatAbi(elf: ElfProgram): number {
  return (elf.flags >> 1) & 3;
}

/** The FLEN a program's ELF declares: 64 (double or quad float ABI), 32 (single) or 0 (soft). */
export function elfFlen(elf: ElfProgram): 0 | 32 | 64 {
  const abi = elfFloatAbi(elf);
  return abi === 0 ? 0 : abi === 1 ? 32 : 64;
}

/**
 * The derivation of a log already written (e.g. kept with keepLog): for tests, and for a log taken
 * by hand with the same QEMU options. `fpu` must say whether the log has the f registers.
 */
export function deriveTvFromLines(lines: Iterable<string>, elf: ElfProgram, opts: { fpu: boolean; flen?: 0 | 32 | 64; fileName: string; maxRecords?: number }): Pick<TvTrace, 'records' | 'pcs' | 'stats'> {
  let parser: CpuLogParser;
  const deriver: TvDeriver = new TvDeriver(
    { xlen: elf.xlen, flen: opts.flen ?? (opts.fpu ? 64 : 0), image: elf.image, entry: elf.entry, fileName: opts.fileName, ...(opts.maxRecords !== undefined ? { maxRecords: opts.maxRecords } : {}) },
    { get csrNames() { return parser.csrNames; } },
  );
  parser = new CpuLogParser(elf.xlen, opts.fpu, deriver, opts.fileName);
  const batch: string[] = [];
  for (const l of lines) {
    batch.push(l);
    if (batch.length >= 4096) {
      parser.lines(batch);
      batch.length = 0;
      if (deriver.done) break;
    }
  }
  if (!deriver.done) {
    parser.lines(batch);
    if (!deriver.done) {
      parser.end();
      deriver.end();
    }
  }
  return { records: deriver.records, pcs: deriver.pcs, stats: { ...deriver.stats, logLines: parser.stats.lines } };
}

export async function traceProgramTv(elfPath: string, opts: TvTraceOptions = {}): Promise<TvTrace> {
  const elf = opts.elf ?? parseElf(new Uint8Array(readFileSync(elfPath)), elfPath);
  const fpu = opts.fpu ?? elfFlen(elf) !== 0;
  const flen = opts.flen ?? (fpu ? 64 : 0);
  const logName = opts.keepLog ?? 'QEMU log (--keep-log FILE keeps it)';
  let parser: CpuLogParser;
  const deriver: TvDeriver = new TvDeriver(
    { xlen: elf.xlen, flen, image: elf.image, entry: elf.entry, fileName: logName, ...(opts.maxRecords !== undefined ? { maxRecords: opts.maxRecords } : {}) },
    { get csrNames() { return parser.csrNames; } },
  );
  parser = new CpuLogParser(elf.xlen, fpu, deriver, logName);
  const run = await runCpuLog(
    {
      elf: elfPath,
      xlen: elf.xlen,
      fpu,
      ...(opts.cpu !== undefined ? { cpu: opts.cpu } : {}),
      ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
      ...(opts.keepLog !== undefined ? { keepLog: opts.keepLog } : {}),
    },
    (lines) => {
      parser.lines(lines);
      return !deriver.done;
    },
  );
  if (run.exit.kind === 'timeout') throw new RvError('tool-failure', timeoutMessage(run.exit.seconds), { file: elfPath });
  if (run.exit.kind === 'fail') {
    throw new RvError('tool-failure', `the program reported failure code ${run.exit.code} through the test device (QEMU exit status ${run.exit.code}); nothing written`, { file: elfPath });
  }
  if (!deriver.done) {
    parser.end();
    deriver.end();
  }
  return { elf, records: deriver.records, pcs: deriver.pcs, stats: { ...deriver.stats, logLines: parser.stats.lines }, flen, seconds: run.seconds };
}
