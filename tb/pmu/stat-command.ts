/**
 * `rvtrace pmu-stat`: counts a run on the PMU model and prints the counters like `perf stat`:
 * the count, perf's event name, the SBI event, the counter, and the derived ratios (IPC, branch-miss
 * rate) where their events were counted. The run is generated stimulus, a retirement stream file
 * (ours, an imported CSV, a QEMU-traced workload from `rvtrace trace-elf`), or an SBI script.
 */
import type { Command } from 'commander';
import type { CommandDefinition, ResolvedComponent } from '../../core/block.ts';
import { collect, parseCount, parseKnobs } from '../../core/options.ts';
import { readStream } from '../../core/stream-io.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { Rng } from '../../golden-model/common/rng.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import { PMU_SETTINGS, type PmuBlockConfig } from '../../golden-model/pmu/settings.ts';
import { StepperHart } from '../../golden-model/pmu/sbi/hart.ts';
import { runScript } from '../../golden-model/pmu/sbi/script.ts';
import { firmwareStat, formatStat, pmuStat, type StatResult } from '../../golden-model/pmu/stat.ts';
import { PmuUnit } from '../../golden-model/pmu/unit.ts';
import { readText } from './sbi-command.ts';
import { pmuRecords } from './stimulus.ts';

interface Options {
  seed: string;
  count: string;
  stream?: string;
  script?: string;
  inFormat?: string;
  knob?: string[];
  eventRate: string;
}

export const pmuStatCommand: CommandDefinition<Options> = {
  name: 'pmu-stat',
  summary: 'count a run (stimulus, stream file, QEMU-traced workload) on the PMU model and print the counters like perf stat',
  settings: PMU_SETTINGS,
  component: { blocks: ['pmu'], default: 'pmu' },
  details: [
    'Examples:',
    '  rvtrace pmu-stat --component pmu --seed 1 --count 100000 --event-rate 0.05',
    '  rvtrace pmu-stat --component pmu-qemu-virt --stream workload.bin',
    '  rvtrace pmu-stat --component pmu-qemu-virt --script calls.sbi',
    'M-mode programs every programmable counter with one event of the component\'s map (in the',
    'map\'s order), clears the counters and starts them; the run retires; every counter is read back',
    'through CSR accesses. Event inputs (cache and TLB misses, ...) are not in a retirement stream:',
    'with --event-rate P each input is high with probability P per cycle (seeded by --seed), else 0.',
    'With --script, the SBI call script runs instead (see rvtrace sbi-pmu) and the counters the',
    'firmware bound to events are printed: hardware counters read from the block, firmware counters',
    'with counter_fw_read.',
    'Derived: insn per cycle beside instructions, % of all branches beside branch-misses.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--seed <S>', 'stimulus seed (also of the event inputs)', '1')
      .option('--count <N>', 'instructions to retire (generated stimulus)', '100000')
      .option('--stream <FILE>', 'a retirement stream file instead of generated stimulus (see rvtrace convert, trace-elf)')
      .option('--script <FILE>', 'an SBI call script instead (rvtrace sbi-pmu): print the counters the firmware bound')
      .option('--in-format <FORMAT>', 'format of --stream (default: detected)')
      .option('--knob <NAME=VALUE>', 'a stimulus knob (see rvtrace stimulus --help); repeatable', collect)
      .option('--event-rate <P>', 'probability per cycle that each event input is high', '0'),
  run(_args, o, _settings, resolved) {
    const r = resolved as ResolvedComponent<PmuBlockConfig>;
    const c = r.config.config;
    const seed = parseCount(o.seed, '--seed', 0);
    const rate = Number(o.eventRate);
    if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new RvError('bad-option', `--event-rate ${o.eventRate}: expected a probability from 0 to 1`);
    let stat: StatResult;
    let what: string;
    if (o.script !== undefined) {
      if (o.stream !== undefined || o.knob !== undefined || rate !== 0) throw new RvError('bad-option', '--script runs the script\'s own retirement: not with --stream, --knob or --event-rate');
      const unit = new PmuUnit(c);
      const hart = new StepperHart(c, unit, { seed });
      const run = runScript(c, readText(o.script, '--script'), hart, o.script);
      stat = firmwareStat(c, run.firmware, unit, hart.cycles.length);
      what = `${o.script} (${hart.cycles.length} cycles)`;
    } else {
      let records: RetirementRecord[];
      if (o.stream !== undefined) {
        if (o.knob !== undefined) throw new RvError('bad-option', '--knob applies to generated stimulus, not to --stream');
        records = readStream(o.stream, o.inFormat, c.xlen).records;
        what = `${o.stream} (${records.length} records)`;
      } else {
        const count = parseCount(o.count, '--count', 1);
        records = pmuRecords(c, seed, count, parseKnobs(o.knob ?? []));
        what = `seed ${seed} (${count} instructions)`;
      }
      const rng = new Rng((seed ^ 0x6e7a_0b11) >>> 0);
      const events =
        rate === 0
          ? undefined
          : () => {
              let bits = 0;
              for (let k = 0; k < c.eventInputs; k++) if (rng.float() < rate) bits |= 1 << k;
              return bits >>> 0;
            };
      stat = pmuStat(c, records, events ? { events } : {});
    }
    process.stdout.write(`${formatStat(`${r.vlnv.name} on ${what}`, stat)}\n`);
    return 0;
  },
};
