/**
 * The trace-efficiency benchmark (issue 7): every workload of the suite, built for each arch and
 * traced through QEMU (trace.ts), encoded with the E-Trace model for each payload layout and mode
 * (golden-model/etrace/efficiency.ts) and with the N-Trace model in each of its modes
 * (golden-model/ntrace/efficiency.ts). `rvtrace bench` prints the summary and writes the report
 * (efficiency-report.ts).
 */
import { spawnSync } from 'node:child_process';
import {
  EFFICIENCY_LAYOUTS,
  EFFICIENCY_MODES,
  efficiencyConfig,
  efficiencyParameters,
  measureEfficiency,
} from '../golden-model/etrace/efficiency.ts';
import type { RetirementStream } from '../golden-model/hart/stream.ts';
import { measureNtraceEfficiency, NTRACE_EFFICIENCY_COMMON, NTRACE_EFFICIENCY_MODES, ntraceEfficiencyConfig } from '../golden-model/ntrace/efficiency.ts';
import { buildWorkload, WORKLOAD_ARCHES, WORKLOADS, type WorkloadArch } from './build.ts';
import type { EfficiencyReport, EfficiencyRow } from './efficiency-report.ts';
import { readFileSync } from 'node:fs';
import { parseElf } from '../golden-model/hart/elf.ts';
import type { DataTrace } from '../golden-model/hart/data-records.ts';
import type { RetirementRecord } from '../golden-model/hart/records.ts';
import { attachTracedAccesses, traceDataAccesses, traceProgram } from './trace.ts';

/** The retirement stream of a workload (built and traced on demand). */
export async function workloadStream(name: string, arch: WorkloadArch): Promise<RetirementStream> {
  return (await traceProgram(buildWorkload(name, arch))).stream;
}

/** First line of a tool's --version, for the report. */
function toolVersion(cmd: string): string {
  const r = spawnSync(cmd, ['--version'], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\n')[0]?.trim() || `${cmd} (version unknown)`;
}

export interface SuiteOptions {
  arches?: readonly WorkloadArch[];
  workloads?: readonly string[];
  /** Progress, one line per traced workload. */
  log?: (line: string) => void;
}

/** Measures the suite: a row per workload, arch, encoder (E-Trace per layout, N-Trace) and mode. */
export async function measureSuite(opts: SuiteOptions = {}): Promise<EfficiencyReport> {
  const arches = opts.arches ?? WORKLOAD_ARCHES;
  const names = opts.workloads ?? WORKLOADS.map((w) => w.name);
  const rows: EfficiencyRow[] = [];
  for (const arch of arches) {
    for (const workload of names) {
      const started = performance.now();
      const stream = await workloadStream(workload, arch);
      for (const layout of EFFICIENCY_LAYOUTS) {
        for (const mode of EFFICIENCY_MODES) {
          rows.push({ encoder: 'E-Trace', workload, arch, layout, mode: mode.name, ...measureEfficiency(stream.records, efficiencyConfig(stream.xlen, layout, mode)) });
        }
      }
      for (const mode of NTRACE_EFFICIENCY_MODES) {
        rows.push({ encoder: 'N-Trace', workload, arch, mode: mode.name, ...measureNtraceEfficiency(stream.records, ntraceEfficiencyConfig(stream.xlen, mode)) });
      }
      opts.log?.(`${arch} ${workload}: ${rows[rows.length - 1]!.instructions} instructions, ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  const setup = [
    `Workloads: workloads/programs (${names.length} programs), built by ${toolVersion('riscv64-unknown-elf-gcc')} with picolibc, -O2; traced by \`rvtrace trace-elf\` (${toolVersion('qemu-system-riscv64')}).`,
    `E-Trace encoder parameters: ${efficiencyParameters(64, '1.1.1').filter((p) => !p.startsWith('payload_layout') && !p.startsWith('iaddress_width_p') && !p.startsWith('ecause_width_p')).join(', ')}; iaddress_width_p = XLEN.`,
    `E-Trace modes (run-time options over the defaults: resync every 256 packets, no full address): ${EFFICIENCY_MODES.map((m) => `${m.name}${m.sets.length ? ` (${m.sets.join(', ')})` : ''}`).join('; ')}.`,
    `N-Trace modes (each a hardware configuration: xlen = XLEN, ${NTRACE_EFFICIENCY_COMMON.join(', ')} (a periodic sync every 256 messages, like E-Trace's resync), the other settings at their defaults: 16-bit I-CNT, HIST full as the spec's encoder sends it, no SRC, no timestamps, full addresses): ${NTRACE_EFFICIENCY_MODES.map((m) => `${m.name} (${m.sets.join(', ')})`).join('; ')}.`,
    'The transport is always ready (no trace loss). E-Trace: bytes are counted on the encapsulated stream (1 header byte per packet), payload bytes without the headers. N-Trace: bytes are counted on the MSEO stream (MDO << 2 | MSEO, no idle bytes).',
  ];
  return { setup, rows };
}

/**
 * Every workload of the suite for `arch` with its data accesses (as `trace-elf --data`: a second
 * QEMU run with the CPU-state log gives each load's, store's, AMO's and CSR access's address and value).
 */
export async function workloadDataStreams(arch: WorkloadArch, log?: (line: string) => void): Promise<{ name: string; records: RetirementRecord[]; data: DataTrace }[]> {
  const out: { name: string; records: RetirementRecord[]; data: DataTrace }[] = [];
  for (const w of WORKLOADS) {
    const elfPath = buildWorkload(w.name, arch);
    const elf = parseElf(new Uint8Array(readFileSync(elfPath)), elfPath);
    const stream = attachTracedAccesses((await traceProgram(elfPath, { elf })).stream, await traceDataAccesses(elfPath, elf));
    if (stream.data) out.push({ name: w.name, records: stream.records, data: stream.data });
    log?.(`data accesses of ${w.name} (${arch}): ${stream.data?.accesses.length ?? 0}`);
  }
  return out;
}
