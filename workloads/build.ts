/**
 * Bare-metal workload suite: real C programs (programs/) on a small runtime (runtime/), built for
 * RV64GC and RV32IMC with Debian's riscv64-unknown-elf-gcc and picolibc, run on QEMU's `virt`
 * machine. They exist so that an instruction-level log of a real program (QEMU
 * `-singlestep -d exec,int,nochain`) can drive trace-bandwidth measurements. See README.md.
 *
 * Builds are cached: an ELF is reused while the key (sha256 of every input file's content, the
 * flags, the compiler version and the identity of the libraries) is unchanged. A build compiles
 * and links into a temporary directory beside the output and renames the ELF into place, so a
 * reader never sees a half-written file; the output is byte-identical from build to build.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RvError } from '../golden-model/common/errors.ts';
import { REPO_ROOT } from '../golden-model/common/paths.ts';

export type WorkloadArch = 'rv64gc' | 'rv32imc';

export interface Workload {
  name: string;
  description: string;
  /** what control flow it exercises */
  character: string;
}

export const WORKLOADS: readonly Workload[] = [
  {
    name: 'sort',
    description: 'Quicksort (median of three, insertion sort below 12) of 1500 words and insertion sort of 192 words.',
    character: 'data-dependent forward branches in partition loops, tight backward loops, recursion of varying depth',
  },
  {
    name: 'recursion',
    description: 'Towers of Hanoi (11 discs), naive recursive fib(18), Ackermann A(2, n) and A(3, 4), partition count p(22).',
    character: 'deep call/return nesting (over 120 calls deep), return-address stack overflow, self tail calls turned into loops',
  },
  {
    name: 'matrix',
    description: 'Integer 24x24 matrix products (two loop orders), matrix-vector products, 16-bit dot products, double-precision dot/axpy/6x6 product.',
    character: 'regular counted loops with few taken-branch outcomes changing; FPU on RV64GC, soft-float library calls on RV32IMC',
  },
  {
    name: 'strings',
    description: 'Word generation, FNV-1a open-addressing hash table insert and lookup, in-place reversal, picolibc strlen/strcmp/memcpy/strchr/strrchr.',
    character: 'short data-dependent byte loops, early-exit comparisons, probe chains, calls into the C library',
  },
  {
    name: 'interp',
    description: 'Stack bytecode VM running Collatz and recursive-fib bytecode with three dispatchers: switch jump table, function-pointer table, computed goto.',
    character: 'indirect jumps (jump table, threaded code) and indirect calls with many targets',
  },
  {
    name: 'linked',
    description: 'Sorted linked-list insertion, reversal and filtering; Josephus on a circular list; unbalanced BST insert, recursive and iterative traversal, lookup, height.',
    character: 'pointer chasing with data-dependent loop exits, recursion shaped by the data',
  },
  {
    name: 'crc',
    description: 'CRC-32 bitwise and table-driven (incremental, in chunks), CRC-16/CCITT-FALSE and Adler-32 over 2 KiB.',
    character: 'very tight inner loops with an unpredictable branch per bit, long straight runs of iterations',
  },
  {
    name: 'traps',
    description: 'U-mode loop making ecalls to an M-mode handler, custom-0 instructions and rdtime emulated on illegal-instruction traps, c.illegal and ebreak skipped, CLINT timer interrupts; mret back.',
    character: 'exceptions and interrupts, privilege changes, mret; asynchronous interrupts at deterministic instruction counts under -icount',
  },
  {
    name: 'parser',
    description: 'Recursive-descent evaluator of 150 generated integer expressions; errors unwind with longjmp to setjmp.',
    character: 'mutual recursion, non-local exits (longjmp: returns that do not match calls), byte scanning',
  },
];

export const WORKLOAD_ARCHES: readonly WorkloadArch[] = ['rv64gc', 'rv32imc'];

/** This folder and the repository root. */
export const WORKLOADS_DIR = join(REPO_ROOT, 'workloads');
export { REPO_ROOT };

export const GCC = 'riscv64-unknown-elf-gcc';
export const PICOLIBC_DIR = '/usr/lib/picolibc/riscv64-unknown-elf';

interface ArchConfig {
  /** -march for compiling (binutils 2.40 wants zicsr/zifencei spelled out). */
  march: string;
  mabi: string;
  /**
   * -march used only to ask GCC which multilib to link (GCC 12's multilib matching does not
   * understand the _z* suffixes and would fall back to the default RV64 library).
   */
  libMarch: string;
  qemu: string;
  /** QEMU -cpu: the RV32 hart has A, F and D switched off, so it really is an IMC hart. */
  cpu: string;
}

const ARCH: Record<WorkloadArch, ArchConfig> = {
  rv64gc: { march: 'rv64gc_zicsr_zifencei', mabi: 'lp64d', libMarch: 'rv64imafdc', qemu: 'qemu-system-riscv64', cpu: 'rv64' },
  rv32imc: {
    march: 'rv32imc_zicsr',
    mabi: 'ilp32',
    libMarch: 'rv32imc',
    qemu: 'qemu-system-riscv32',
    cpu: 'rv32,a=false,f=false,d=false',
  },
};

/** Runtime files compiled into every program, and further inputs of every build. */
const RUNTIME_SOURCES = ['runtime/crt0.S', 'runtime/rt.c'];
const RUNTIME_INPUTS = ['runtime/rt.h', 'runtime/link.ld'];

/** Compiler flags (relative paths: the compiler runs in WORKLOADS_DIR, so no absolute path ends up in an ELF). */
const CFLAGS = [
  '-O2',
  '-std=gnu11',
  '-Wall',
  '-Wextra',
  '-mcmodel=medany',
  '-ffunction-sections',
  '-fdata-sections',
  '-fno-common',
  '-Iruntime',
];
const LDFLAGS = ['-nostdlib', '-nostartfiles', '-static', '-Truntime/link.ld', '-Wl,--gc-sections', '-Wl,--build-id=none', '-Wl,--strip-debug'];

/** Bump when the build procedure changes in a way the key does not see. */
const KEY_VERSION = 1;

export interface ProgramSpec {
  /** Output base name. */
  name: string;
  /** Source files relative to WORKLOADS_DIR (.c / .S), compiled together with the runtime. */
  sources: string[];
}

/** The source files of a workload: programs/<name>.c, plus programs/<name>.S when present. */
export function workloadSources(name: string): string[] {
  if (!WORKLOADS.some((w) => w.name === name)) {
    throw new RvError('bad-option', `unknown workload '${name}' (known: ${WORKLOADS.map((w) => w.name).join(', ')})`);
  }
  const sources = [`programs/${name}.c`];
  if (existsSync(join(WORKLOADS_DIR, 'programs', `${name}.S`))) sources.push(`programs/${name}.S`);
  return sources;
}

function run(cmd: string, args: string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.error !== undefined) {
    throw new RvError('tool-failure', `cannot run ${cmd}: ${r.error.message} (install gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf)`);
  }
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface Toolchain {
  version: string;
  libc: string;
  libgcc: string;
  /** size and mtime of the libraries: their identity in the key (hashing 17 MB per build is not needed). */
  libStamp: string;
}

const toolchains = new Map<WorkloadArch, Toolchain>();

function toolchain(arch: WorkloadArch): Toolchain {
  const cached = toolchains.get(arch);
  if (cached !== undefined) return cached;
  const cfg = ARCH[arch];
  const ask = (flag: string): string => {
    const r = run(GCC, [`-march=${cfg.libMarch}`, `-mabi=${cfg.mabi}`, flag], WORKLOADS_DIR);
    if (r.status !== 0) throw new RvError('tool-failure', `${GCC} ${flag} failed:\n${r.stderr}`);
    return r.stdout.trim();
  };
  const version = run(GCC, ['--version'], WORKLOADS_DIR).stdout.split('\n')[0] ?? '';
  const multilib = ask('-print-multi-directory');
  const libc = join(PICOLIBC_DIR, 'lib', multilib, 'libc.a');
  const libgcc = ask('-print-libgcc-file-name');
  for (const lib of [libc, libgcc]) {
    if (!existsSync(lib)) throw new RvError('tool-failure', `library ${lib} (multilib '${multilib}' for ${arch}) not found`);
  }
  const libStamp = [libc, libgcc].map((f) => `${f}:${statSync(f).size}:${statSync(f).mtimeMs}`).join(';');
  const tc = { version, libc, libgcc, libStamp };
  toolchains.set(arch, tc);
  return tc;
}

/** The full compiler command line (arguments after the compiler name) for a program. */
function compileArgs(spec: ProgramSpec, arch: WorkloadArch, out: string): string[] {
  const cfg = ARCH[arch];
  const tc = toolchain(arch);
  return [
    `--specs=${PICOLIBC_DIR}/picolibc.specs`,
    `-march=${cfg.march}`,
    `-mabi=${cfg.mabi}`,
    ...CFLAGS,
    ...LDFLAGS,
    '-o',
    out,
    ...RUNTIME_SOURCES,
    ...spec.sources,
    '-Wl,--start-group',
    tc.libc,
    tc.libgcc,
    '-Wl,--end-group',
  ];
}

/** The cache key of a build: inputs' contents, flags and toolchain identity. */
export function buildKey(spec: ProgramSpec, arch: WorkloadArch): string {
  const h = createHash('sha256');
  const tc = toolchain(arch);
  h.update(JSON.stringify({ KEY_VERSION, arch, cfg: ARCH[arch], args: compileArgs(spec, arch, '<out>'), gcc: tc.version, libs: tc.libStamp }));
  for (const f of [...RUNTIME_SOURCES, ...RUNTIME_INPUTS, ...spec.sources]) {
    h.update(`\0${f}\0`);
    h.update(readFileSync(join(WORKLOADS_DIR, f)));
  }
  return h.digest('hex');
}

export function defaultOutDir(arch: WorkloadArch): string {
  return join(REPO_ROOT, '.cache', 'workloads', arch);
}

/**
 * Builds (or reuses) `<outDir>/<name>-<arch>.elf` from spec.sources and the runtime; returns its
 * absolute path. Throws an RvError (code 'tool-failure') carrying the compiler's stderr on failure.
 */
export function buildProgram(spec: ProgramSpec, arch: WorkloadArch, outDir: string = defaultOutDir(arch)): string {
  if (!(arch in ARCH)) throw new RvError('bad-option', `unknown workload arch '${String(arch)}' (known: ${WORKLOAD_ARCHES.join(', ')})`);
  for (const s of spec.sources) {
    if (!existsSync(join(WORKLOADS_DIR, s))) throw new RvError('bad-file', `source ${s} not found`, { file: join(WORKLOADS_DIR, s) });
  }
  const key = buildKey(spec, arch);
  const elf = join(outDir, `${spec.name}-${arch}.elf`);
  const stamp = join(outDir, `${spec.name}-${arch}.json`);
  if (existsSync(elf) && existsSync(stamp)) {
    try {
      if ((JSON.parse(readFileSync(stamp, 'utf8')) as { key?: string }).key === key) return elf;
    } catch {
      // unreadable stamp: rebuild
    }
  }
  mkdirSync(outDir, { recursive: true });
  const tmp = mkdtempSync(join(outDir, `.tmp-${spec.name}-${arch}-`));
  try {
    const tmpElf = join(tmp, 'out.elf');
    const args = compileArgs(spec, arch, tmpElf);
    const r = run(GCC, args, WORKLOADS_DIR);
    if (r.status !== 0 || !existsSync(tmpElf)) {
      throw new RvError('tool-failure', `building ${spec.name} for ${arch} failed (${GCC} exit status ${r.status}):\n${r.stderr}`, {
        file: spec.sources[0],
      });
    }
    const tmpStamp = join(tmp, 'out.json');
    writeFileSync(tmpStamp, `${JSON.stringify({ key, name: spec.name, arch, sources: spec.sources, compiler: GCC, args: compileArgs(spec, arch, '<out>') }, null, 2)}\n`);
    renameSync(tmpElf, elf); // the ELF first: a stamp never describes an older ELF
    renameSync(tmpStamp, stamp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return elf;
}

/** Builds (or reuses when sources and flags are unchanged, keyed by a content hash) one ELF; returns its path. Throws an Error with the compiler's stderr on failure. */
export function buildWorkload(name: string, arch: WorkloadArch, outDir?: string): string {
  return buildProgram({ name, sources: workloadSources(name) }, arch, outDir);
}

/**
 * The qemu-system binary and the machine arguments to run an ELF of that arch (no logging flags).
 * `-icount shift=0,sleep=off` is part of the machine: the virtual clock then advances exactly 1 ns
 * per executed instruction (the CLINT's mtime one tick per 100 instructions), so timer interrupts
 * arrive at the same instruction counts in every run, and minstret counts executed instructions.
 */
export function qemuCommand(arch: WorkloadArch, elf: string): { binary: string; args: string[] } {
  const cfg = ARCH[arch];
  return {
    binary: cfg.qemu,
    args: ['-machine', 'virt', '-cpu', cfg.cpu, '-smp', '1', '-m', '128M', '-bios', 'none', '-nographic', '-icount', 'shift=0,sleep=off', '-kernel', elf],
  };
}

export interface RunResult {
  /** QEMU's exit status: 0 = pass, else the program's failure code; null when killed by the timeout. */
  status: number | null;
  timedOut: boolean;
  /** The console (UART) output. */
  stdout: string;
  stderr: string;
}

/** Runs an ELF under QEMU (qemuCommand plus `extraArgs`, e.g. logging flags) and waits for it to exit. */
export function runWorkload(arch: WorkloadArch, elf: string, options: { timeoutMs?: number; extraArgs?: string[] } = {}): Promise<RunResult> {
  const { binary, args } = qemuCommand(arch, elf);
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args, ...(options.extraArgs ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new RvError('tool-failure', `cannot run ${binary}: ${e.message} (install qemu-system-misc)`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ status: timedOut ? null : code, timedOut, stdout, stderr });
    });
  });
}
