/**
 * `rvtrace tv-check --elf PROGRAM --in STREAM`: the tandem check. Decodes a tandem-verification byte
 * stream (a core's simulation) with the independent decoder and compares it, group by group, with
 * QEMU's execution of the same program (workloads/tv/: the records derived from QEMU's CPU-state
 * log). docs/tv-check.md has the details.
 *
 * Also the pieces `trace-elf --tv` shares: the tvtrace settings with values taken from the ELF
 * (`TV_ELF_SETTINGS`, `tvConfigFor`) and the program lookup by workload name.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { resolveComponent } from '../../blocks/index.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { readInput } from '../../core/io.ts';
import { ExitStatus, RvError } from '../../golden-model/common/errors.ts';
import type { SettingSpec, Settings } from '../../golden-model/common/settings.ts';
import { parseElf, type ElfProgram } from '../../golden-model/hart/elf.ts';
import { parseTvRecords } from '../../golden-model/tvtrace/formats/index.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import { TVTRACE_SETTINGS, tvtraceConfig, validateTvtraceSettings, type TvtraceConfig } from '../../golden-model/tvtrace/settings.ts';
import { buildWorkload, WORKLOAD_ARCHES, WORKLOADS, type WorkloadArch } from '../../workloads/build.ts';
import { DEFAULT_TIMEOUT_SECONDS } from '../../workloads/qemu.ts';
import { checkTv, formatDivergence, recordPcs, TV_ABSENT, type TvAbsent } from '../../workloads/tv/check.ts';
import { elfFlen, traceProgramTv, workloadQemuCpu, type TvTrace } from '../../workloads/tv/trace.ts';

// --- shared with trace-elf --tv -------------------------------------------------------------------

const fromTv = (name: string): SettingSpec => TVTRACE_SETTINGS.find((s) => s.name === name)!;

/**
 * The tvtrace settings for a program: xlen, flen and mlen default to what its ELF declares (class,
 * float ABI, MLEN = XLEN), the field order to the model's.
 */
export const TV_ELF_SETTINGS: readonly SettingSpec[] = [
  { name: 'xlen', kind: 'choice', choices: ['elf', '32', '64'], default: 'elf', help: 'XLEN of the stream (elf: the ELF class)' },
  { name: 'flen', kind: 'choice', choices: ['elf', '0', '32', '64'], default: 'elf', help: 'FLEN of the stream (elf: 64 for a double float ABI, 32 single, 0 soft)' },
  fromTv('ilen'),
  { name: 'mlen', kind: 'choice', choices: ['elf', '32', '34', '64'], default: 'elf', help: 'MLEN of the stream (elf: XLEN)' },
  fromTv('field_order'),
];
const TV_NAMES = new Set(TV_ELF_SETTINGS.map((s) => s.name));

/** The `--set` items that name a tvtrace setting. */
export function tvSets(sets: readonly string[] | undefined): string[] {
  return (sets ?? []).filter((s) => TV_NAMES.has(s.slice(0, s.indexOf('='))));
}

/**
 * The tvtrace configuration of a stream: the component's (`--component`, a component of the tvtrace
 * block, with the tvtrace `--set` items), or the settings with `elf` values taken from the program.
 */
export function tvConfigFor(elf: ElfProgram, settings: Settings, component: string | undefined, sets: readonly string[], command: string): TvtraceConfig {
  let s: Settings;
  if (component !== undefined) {
    s = resolveComponent(component, tvSets(sets), { command, blocks: ['tvtrace'] }).settings;
  } else {
    const xlen = settings.xlen === 'elf' ? String(elf.xlen) : String(settings.xlen);
    s = {
      xlen,
      flen: settings.flen === 'elf' ? String(elfFlen(elf)) : String(settings.flen),
      ilen: settings.ilen!,
      mlen: settings.mlen === 'elf' ? xlen : String(settings.mlen),
      field_order: settings.field_order!,
    };
  }
  const errors = validateTvtraceSettings(s);
  if (errors.length > 0) throw new RvError('bad-option', `the tvtrace settings are not valid: ${errors.map((e) => e.oneLine()).join('; ')}`);
  const config = tvtraceConfig(s);
  if (config.xlen !== elf.xlen) throw new RvError('bad-option', `xlen ${config.xlen}, but the program is RV${elf.xlen} (its ELF class)`);
  return config;
}

/** A program argument: an ELF file, or a workload of workloads/ (built for `arch`) with its QEMU hart. */
/** QEMU's run of the program as TV records of the component's FLEN (trace-elf --tv and tv-check). */
export function traceTv(
  prog: { path: string; cpu?: string },
  elf: ElfProgram,
  config: TvtraceConfig,
  o: { qemuCpu?: string; keepLog?: string },
  timeoutSeconds: number,
  maxRecords: number | undefined,
): Promise<TvTrace> {
  const cpu = o.qemuCpu ?? prog.cpu;
  return traceProgramTv(prog.path, {
    elf,
    fpu: elfFlen(elf) !== 0 || config.flen !== 0,
    flen: config.flen === 32 ? 32 : 64,
    timeoutSeconds,
    ...(maxRecords !== undefined ? { maxRecords } : {}),
    ...(cpu !== undefined ? { cpu } : {}),
    ...(o.keepLog !== undefined ? { keepLog: o.keepLog } : {}),
  });
}

export function programOf(program: string, arch: string): { path: string; cpu?: string } {
  if (existsSync(program) || !WORKLOADS.some((w) => w.name === program)) return { path: program };
  if (!(WORKLOAD_ARCHES as readonly string[]).includes(arch)) {
    throw new RvError('bad-option', `--arch ${arch}: expected one of ${WORKLOAD_ARCHES.join(', ')}`);
  }
  const path = buildWorkload(program, arch as WorkloadArch);
  const cpu = workloadQemuCpu(arch as WorkloadArch);
  return { path, ...(cpu !== undefined ? { cpu } : {}) };
}

export function positiveNumber(value: string, option: string, integer: boolean): number {
  const n = Number(value);
  if (!(n > 0) || (integer && !Number.isInteger(n)) || !Number.isFinite(n)) {
    throw new RvError('bad-option', `${option} ${value}: expected a positive ${integer ? 'integer' : 'number'}`);
  }
  return n;
}

// --- the command -----------------------------------------------------------------------------------

interface Options {
  elf: string;
  in: string;
  arch: string;
  component?: string;
  expected?: string;
  absent?: string;
  prefix?: boolean;
  maxInstructions?: string;
  timeout: string;
  keepLog?: string;
  qemuCpu?: string;
  set?: string[];
}

function absentList(text: string | undefined): TvAbsent[] {
  if (text === undefined) return [];
  const out: TvAbsent[] = [];
  for (const item of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    if (!(TV_ABSENT as readonly string[]).includes(item)) throw new RvError('bad-option', `--absent ${item}: expected a comma-separated list of ${TV_ABSENT.join(', ')}`);
    out.push(item as TvAbsent);
  }
  return out;
}

export const tvCheckCommand: CommandDefinition<Options> = {
  name: 'tv-check',
  summary: "check a tandem-verification trace byte stream against QEMU's execution of the same program, group by group",
  settings: TV_ELF_SETTINGS,
  details: [
    'Decodes STREAM (the tvtrace byte stream of a core running PROGRAM) with the independent decoder',
    "and compares every group with QEMU's run of PROGRAM (the records trace-elf --tv derives): kind,",
    'next pc, instruction, every register and CSR the group writes (as state: a register either side',
    'writes must hold the same value on both afterwards), privilege mode, effective and physical',
    'address, store data. The first divergence is printed with its group index, pc, disassembly, the',
    'fields that differ, the expected and actual group and the three groups before it. See docs/tv-check.md.',
    `PROGRAM is an ELF, or a WORKLOAD name (${WORKLOADS.map((w) => w.name).join(', ')}) built for --arch.`,
    'The stream parameters come from --component (a tvtrace component) or the settings (default: from the ELF).',
    'Examples:',
    '  rvtrace tv-check --elf sort --in core.tv',
    '  rvtrace tv-check --elf prog.elf --in core.tv --component tvtrace-rv32imc --absent paddr',
    '  rvtrace trace-elf prog.elf --tv --out prog.tvr && rvtrace tv-check --elf prog.elf --expected prog.tvr --in core.tv',
    'Exit status: 0 every group matches, 1 a divergence (printed), 2 bad input (a stream the decoder',
    'cannot read past some point, after matching groups; a bad option), 3 QEMU failed or the program did.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--elf <PROGRAM>', 'the program the core ran: an ELF file or a workload name')
      .requiredOption('--in <STREAM>', 'the tandem-verification byte stream to check')
      .option('--arch <ARCH>', `the arch a WORKLOAD is built for (${WORKLOAD_ARCHES.join(', ')})`, 'rv64gc')
      .option('-c, --component <NAME|FILE>', 'a tvtrace component: the stream parameters (xlen, flen, mlen)')
      .option('--expected <RECORDS>', "QEMU's records from `trace-elf --tv` (text or bin) instead of running QEMU")
      .option('--absent <LIST>', `elements the core does not trace at all: ${TV_ABSENT.join(', ')}`)
      .option('--prefix', 'a stream that stops before the end of the run passes when its groups match')
      .option('--max-instructions <N>', 'check only the first N groups (QEMU stops after them; later groups of the stream are not compared)')
      .option('--timeout <SECONDS>', 'stop QEMU after this long (an error)', String(DEFAULT_TIMEOUT_SECONDS))
      .option('--keep-log <FILE>', "keep QEMU's CPU-state log (large: 1-2.5 KB per instruction)")
      .option('--qemu-cpu <CPU>', "QEMU's -cpu (default: the workload's hart; rv64 or rv32 for an ELF)"),
  async run(_args, o, settings) {
    const prog = programOf(o.elf, o.arch);
    const elf = parseElf(readInput(prog.path), prog.path);
    const config = tvConfigFor(elf, settings, o.component, o.set ?? [], 'tv-check');
    const absent = absentList(o.absent);
    const timeout = positiveNumber(o.timeout, '--timeout', false);
    const max = o.maxInstructions !== undefined ? positiveNumber(o.maxInstructions, '--max-instructions', true) : undefined;
    const bytes = readInput(o.in);
    if (bytes.length === 0) throw new RvError('bad-file', 'the stream is empty; expected the tandem-verification bytes of a run', { file: o.in });

    let records: TvRecord[];
    let source: string;
    if (o.expected !== undefined) {
      records = parseTvRecords(readInput(o.expected), o.expected);
      if (max !== undefined) records = records.slice(0, max);
      source = o.expected;
    } else {
      const t = await traceTv(prog, elf, config, o, timeout, max);
      records = t.records;
      source = `QEMU's run of ${o.elf}`;
    }
    const result = checkTv(bytes, records, recordPcs(records, elf.entry), {
      params: { xlen: config.xlen, flen: config.flen, mlen: config.mlen, ilen: config.ilen },
      entry: elf.entry,
      absent,
      ...(o.prefix ? { prefix: true } : {}),
      ...(max !== undefined ? { expectedIsPrefix: true } : {}),
    });
    if (result.divergence !== undefined) {
      process.stdout.write(`tv-check: ${o.in} diverges from ${source}\n${formatDivergence(result.divergence, elf.xlen, o.in).join('\n')}\n`);
      return ExitStatus.mismatch;
    }
    if (result.decodeError !== undefined) {
      const e = result.decodeError;
      throw new RvError(e.code, `${e.message} (the ${result.matched} groups before it match)`, { file: o.in, offset: e.offset });
    }
    const skipped = result.skipped > 0 ? `, ${result.skipped} loader or ungrouped group(s) skipped` : '';
    const limited = max !== undefined ? ` (--max-instructions ${max})` : '';
    const partial = result.matched < result.expectedGroups ? ` (the first ${result.matched} of ${result.expectedGroups}: --prefix${result.cutShort ? '; the stream ends inside the next group' : ''})` : '';
    process.stdout.write(`tv-check: ${o.in} matches ${source}: ${result.matched} groups${limited}${partial}${skipped}\n`);
    return ExitStatus.ok;
  },
};
