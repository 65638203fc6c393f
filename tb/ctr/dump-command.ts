/**
 * `rvtrace ctr-dump`: runs a retirement stream (generated, or read from a file) through the CTR
 * unit of a component, on the golden model or with --rtl on the generated RTL (Verilator), and
 * prints the array like perf's branch stack: youngest first, source, target, type, cycles, flags.
 * The model and the RTL print the same table (dump.ts reads both through CSR accesses).
 */
import type { Command } from 'commander';
import { RvError } from '../../golden-model/common/errors.ts';
import { CTR_SETTINGS } from '../../golden-model/ctr/settings.ts';
import type { RetirementRecord } from '../../golden-model/hart/records.ts';
import type { CommandDefinition, ResolvedComponent } from '../../core/block.ts';
import { collect, parseCount, parseKnobs } from '../../core/options.ts';
import { readStream } from '../../core/stream-io.ts';
import type { CtrBlockConfig } from '../../golden-model/ctr/settings.ts';
import { ctrCaseModel } from './case.ts';
import { ctrDumpPlan, decodeDump, formatDump, runDumpModel, runDumpRtl } from './dump.ts';
import { ctrRecords } from './stimulus.ts';

interface Options {
  seed: string;
  count: string;
  stream?: string;
  inFormat?: string;
  knob?: string[];
  rtl?: boolean;
  randomCsr?: boolean;
  all?: boolean;
}

export const ctrDumpCommand: CommandDefinition<Options> = {
  name: 'ctr-dump',
  summary: 'run a retirement stream through the CTR unit (model, or RTL with --rtl) and print the records like perf\'s branch stack',
  settings: CTR_SETTINGS,
  component: { blocks: ['ctr'], default: 'ctr' },
  details: [
    'Examples:',
    '  rvtrace ctr-dump --component ctr --seed 1 --count 10000',
    '  rvtrace ctr-dump --component ctr-1.0 --seed 1 --count 10000 --rtl',
    '  rvtrace ctr-dump --component ctr-rv32 --stream trace.bin --all',
    'M-mode first enables recording in every mode with the largest depth and no filter; then the',
    'records run (freeze signals from their causes; --random-csr: with the co-simulation\'s random CSR',
    'operations instead); then every entry is read back through CSR accesses. Columns: logical entry',
    '(0 = youngest), source and target PC, TYPE by name, cycles (CC decoded; CCV says it is valid),',
    'flags MISP, CCV, INVALID (--all also prints entries with V=0). The model and --rtl print the same.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--seed <S>', 'stimulus seed', '1')
      .option('--count <N>', 'instructions to retire (generated stimulus)', '10000')
      .option('--stream <FILE>', 'a retirement stream file instead of generated stimulus (see rvtrace convert)')
      .option('--in-format <FORMAT>', 'format of --stream (default: detected)')
      .option('--knob <NAME=VALUE>', 'a stimulus knob (see rvtrace stimulus --help); repeatable', collect)
      .option('--rtl', 'run the generated RTL (Verilator; built once per configuration) instead of the model')
      .option('--random-csr', 'with the random CSR operations of the co-simulation')
      .option('--all', 'print entries with V=0 too'),
  async run(_args, o, _settings, resolved) {
    const r = resolved as ResolvedComponent<CtrBlockConfig>;
    const s = r.config;
    const seed = parseCount(o.seed, '--seed', 0);
    let records: RetirementRecord[];
    let what: string;
    if (o.stream !== undefined) {
      if (o.knob !== undefined) throw new RvError('bad-option', '--knob applies to generated stimulus, not to --stream');
      records = readStream(o.stream, o.inFormat, s.config.xlen).records;
      what = `${records.length} records of ${o.stream}`;
    } else {
      const count = parseCount(o.count, '--count', 1);
      records = ctrRecords(s.config, seed, count, parseKnobs(o.knob ?? []));
      what = `${records.length} records (seed ${seed}, ${count} instructions)`;
    }
    const plan = ctrDumpPlan(s.config, records, { randomCsr: o.randomCsr === true, seed });
    let responses;
    if (o.rtl) {
      const { model } = ctrCaseModel(r, (l) => process.stderr.write(`${l}\n`));
      responses = await runDumpRtl(model, s.config, s.rtl, plan.steps);
    } else {
      responses = runDumpModel(s.config, plan.steps);
    }
    const dump = decodeDump(s.config, plan, responses);
    process.stdout.write(`${formatDump(s.config, dump, `${r.vlnv.name} (${o.rtl ? 'RTL' : 'model'}) after ${what}`, o.all === true)}\n`);
    return 0;
  },
};
