/**
 * `rvtrace sbi-pmu`: runs an SBI call script (golden-model/pmu/sbi/script.ts) against the firmware
 * model on the counter-block model and prints it back with every answer. `--rtl` also runs the
 * generated RTL: every cycle of the run (the firmware's CSR accesses, the retirements between calls,
 * the S-mode reads) is replayed through Verilator and every CSR response compared with the model's;
 * when all agree, the firmware reading the RTL would have taken the same decisions and given the same
 * answers. `--compare FILE` holds the answers against a recorded run (ours, or real firmware's).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CommandDefinition, ResolvedComponent } from '../../core/block.ts';
import { writeOutputAtomic } from '../../core/io.ts';
import { parseCount } from '../../core/options.ts';
import { ExitStatus, RvError } from '../../golden-model/common/errors.ts';
import { hpmCounters } from '../../golden-model/pmu/config.ts';
import { PMU_SETTINGS, type PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { StepperHart } from '../../golden-model/pmu/sbi/hart.ts';
import { compareRuns, formatScript, parseScript, runScript, type ScriptStep } from '../../golden-model/pmu/sbi/script.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { runPmuSteps } from './case.ts';

interface Options {
  script: string;
  out?: string;
  rtl?: boolean;
  compare?: string;
  seed: string;
}

export function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new RvError('io', `${what}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { file });
  }
}

/** The script run on a fresh model; `upTo` stops after that line (for the state at a difference). */
function run(r: ResolvedComponent<PmuBlockConfig>, steps: readonly ScriptStep[], seed: number, file: string, upTo = Infinity) {
  const unit = new PmuUnit(r.config.config);
  const hart = new StepperHart(r.config.config, unit, { seed });
  const result = runScript(r.config.config, steps.filter((s) => s.line <= upTo), hart, file);
  return { ...result, hart, unit };
}

/** The counters a step names (PMU calls: counter_idx_base a0 and counter_idx_mask a1), or every hardware counter. */
function countersOf(r: ResolvedComponent<PmuBlockConfig>, step: ScriptStep | undefined): number[] {
  const hw = [0, 2, ...hpmCounters(r.config.config)];
  if (step?.kind !== 'ecall' || step.eid !== 0x504d55n || step.fid < 2 || step.fid > 5) return hw;
  const [base = 0n, mask = 0n] = step.args;
  return hw.filter((i) => BigInt(i) >= base && ((mask >> (BigInt(i) - base)) & 1n) === 1n);
}

export const sbiPmuCommand: CommandDefinition<Options> = {
  name: 'sbi-pmu',
  summary: 'run an SBI call script against the PMU firmware model (and with --rtl the generated RTL) and print every answer',
  settings: PMU_SETTINGS,
  component: { blocks: ['pmu'], default: 'pmu-qemu-virt' },
  details: [
    'Examples:',
    '  rvtrace sbi-pmu --component pmu-qemu-virt --script calls.sbi',
    '  rvtrace sbi-pmu --component pmu --script calls.sbi --rtl',
    '  rvtrace sbi-pmu --component pmu-qemu-virt --script calls.sbi --compare recorded.sbi',
    'Script lines (one step each; the output has the same format with the answers appended):',
    '  C<seq> <ext>.<function> a0=0x.. .. a5=0x..  an ecall: pmu.<num_counters|counter_get_info|',
    '      counter_config_matching|counter_start|counter_stop|counter_fw_read|counter_fw_read_hi|',
    '      snapshot_set_shmem|event_get_info>, base.<get_spec_version|get_impl_id|get_impl_version|',
    '      probe_extension|get_mvendorid|get_marchid|get_mimpid>, time.set_timer, ipi.send_ipi,',
    '      rfence.<name>, or eid0x<hex>.fid<n>; output appends " -> err=<signed>(<NAME>) val=0x<hex>"',
    '  A<seq> fw-event <NAME>     the firmware handled one event (MISALIGNED_LOAD, ILLEGAL_INSN, ...)',
    '  R<seq> retire <N>          N cycles of S/U-mode retirement (the component\'s stimulus, --seed)',
    '  O<seq> read <csr>          an S-mode read (cycle, hpmcounter3, scountovf, ...); appends =0x..',
    '  M/W/D<seq>                 supervisor memory for snapshots and event_get_info (docs/pmu-sbi.md)',
    '  # comment; anything after " ; " is a note.',
    'The firmware boots first as OpenSBI 1.9 does (sbi_behaviour=spec: the spec-literal variant).',
    'Exit status 1: --rtl found a differing CSR response, or --compare a differing answer.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .requiredOption('--script <FILE>', 'the SBI call script')
      .option('--out <FILE>', 'write the run there instead of standard output')
      .option('--rtl', 'also run the generated RTL (Verilator, built once per configuration) and compare every CSR response')
      .option('--compare <FILE>', 'a recorded run: compare err and val of every C line and every read')
      .option('--seed <S>', 'seed of the retirement stimulus of R lines', '1'),
  async run(_args, o, _settings, resolved) {
    const r = resolved as ResolvedComponent<PmuBlockConfig>;
    const seed = parseCount(o.seed, '--seed', 0);
    const steps = parseScript(readText(o.script, '--script'), o.script);
    const expected = o.compare !== undefined ? parseScript(readText(o.compare, '--compare'), o.compare) : undefined;
    const result = run(r, steps, seed, o.script);
    const text = formatScript(result.steps);
    if (o.out !== undefined) writeOutputAtomic(o.out, text);
    else process.stdout.write(text);
    let status: number = ExitStatus.ok;
    if (o.rtl) {
      const cycles = result.hart.cycles;
      const spec = { component: r.component, sets: r.provenance.sets, seed, count: cycles.length, backpressure: 0 };
      const rtl = await runPmuSteps(r, spec, cycles, cycles.length, (l) => process.stderr.write(`${l}\n`));
      if (rtl.identical) {
        process.stderr.write(`RTL: ${cycles.length} cycles, ${rtl.metrics.responses} CSR responses and ${rtl.metrics.lcofi} LCOFI pulses identical to the model's\n`);
      } else {
        process.stderr.write(`RTL differs from the model:\n${rtl.mismatch}\n`);
        status = ExitStatus.mismatch;
      }
    }
    if (expected !== undefined) {
      const d = compareRuns(expected, result.steps);
      if (d === undefined) {
        process.stderr.write(`--compare: every answer agrees with ${o.compare}\n`);
      } else {
        const at = run(r, steps, seed, o.script, d.line);
        const state = at.unit.state();
        const lines = countersOf(r, expected.find((s) => s.line === d.line)).map((i) => {
          const event = at.firmware.boundEvent(i);
          const inhibited = ((state.mcountinhibit >>> i) & 1) === 1;
          const sel = i >= 3 ? ` mhpmevent=0x${state.events[i]!.toString(16)}` : '';
          return `  counter ${i}: value 0x${state.counters[i]!.toString(16)}${sel}${inhibited ? ' inhibited' : ' counting'}, event ${event === undefined ? 'none' : `0x${event.toString(16)}`}`;
        });
        process.stderr.write(`--compare: first difference at ${o.compare}:${d.line}: ${d.step}\n  expected ${d.expected}\n  actual   ${d.actual}\nthe counters involved after that step:\n${lines.join('\n')}\n`);
        status = ExitStatus.mismatch;
      }
    }
    return status;
  },
};
