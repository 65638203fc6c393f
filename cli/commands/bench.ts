import type { Command } from 'commander';
import { type EtraceConfig, validateConfig } from '../../golden-model/etrace/config.ts';
import { decodeStream } from '../../golden-model/etrace/decoder.ts';
import { encodeStream } from '../../golden-model/etrace/output.ts';
import { decodeBinaryStream, encodeBinaryStream } from '../../golden-model/hart/formats/binary.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { allShippedComponents, shippedComponents } from '../../ipxact/load.ts';
import { resolveComponent } from '../../blocks/index.ts';
import type { CaseResult, CommandDefinition, ResolvedComponent } from '../../core/block.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { join } from 'node:path';
import { etraceCaseModel } from '../../tb/etrace/case.ts';
import { decodeNtrace } from '../../golden-model/ntrace/decoder.ts';
import { encodeNtrace } from '../../golden-model/ntrace/encoder.ts';
import { encodeNtraceStream } from '../../golden-model/ntrace/output.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { ntraceCaseModel } from '../../tb/ntrace/case.ts';
import { cosimNtrace } from '../../tb/ntrace/cosim.ts';
import { encodeTvRecords } from '../../golden-model/tvtrace/encoder.ts';
import type { TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { generateTvRecords } from '../../tb/tvtrace/stimulus.ts';
import { cosimEtrace } from '../../tb/etrace/cosim.ts';
import { measureSuite, workloadDataStreams } from '../../workloads/efficiency.ts';
import { efficiencyJson, efficiencyMarkdown, efficiencySvg } from '../../workloads/efficiency-report.ts';
import { checkOutputDir, writeOutputAtomic } from '../../core/io.ts';
import { parseCount } from '../../core/options.ts';
import { componentSynthesis, configurationSynthesis, efficiencyGates } from '../../workloads/gates.ts';
import { DEPTH_GOAL, type DepthFigures } from '../../generator/synthesis.ts';
import { dataEfficiency, type DataEfficiencyRow, workloadDataEfficiency, type WorkloadDataRow } from '../../golden-model/etrace/data/efficiency.ts';
import { bestSeconds } from '../../core/best-time.ts';
import { startupRows } from '../startup-bench.ts';
import { generateStimulusChunks } from '../../golden-model/hart/stimulus/generate.ts';
import { type CheckMemory, checkPeakMemory } from './bench-check.ts';
import { cosimPeakMemory, encodePeakMemory, measureEncodeProcess, measureImports } from './bench-imports.ts';
import { coverageBenchRows } from './bench-coverage.ts';

interface Options {
  count: string;
  seed: string;
  cosim: boolean;
  synth: boolean;
  efficiency: boolean;
  imports: boolean;
  report: string;
  only?: string;
}

interface Row {
  what: string;
  rate: string;
  /** The goal beside the figure, and whether it is met ('' when the figure has no goal). */
  goal: string;
  detail: string;
}

/** The goal column of a rate measured against a minimum: "≥ 5 M instr/s: met". */
function atLeast(value: number, goal: number, unit: string): string {
  return `≥ ${goal} ${unit}: ${value >= goal ? 'met' : 'MISSED'}`;
}


const mips = (n: number, s: number): string => `${(n / s / 1e6).toFixed(2)} M instr/s`;

/** A throughput row in M instructions per second, with its goal (M instr/s) when it has one. */
function rateRow(what: string, count: number, seconds: number, detail: string, goal?: number): Row {
  return { what, rate: mips(count, seconds), goal: goal === undefined ? '' : atLeast(count / seconds / 1e6, goal, 'M instr/s'), detail };
}

function table(rows: Row[]): string {
  const w = [Math.max(4, ...rows.map((r) => r.what.length)), Math.max(4, ...rows.map((r) => r.rate.length)), Math.max(4, ...rows.map((r) => r.goal.length))];
  const line = (a: string, b: string, c: string, d: string): string => `| ${a.padEnd(w[0]!)} | ${b.padStart(w[1]!)} | ${c.padEnd(w[2]!)} | ${d}`;
  return [line('what', 'rate', 'goal', 'detail'), `|${'-'.repeat(w[0]! + 2)}|${'-'.repeat(w[1]! + 2)}|${'-'.repeat(w[2]! + 2)}|---`, ...rows.map((r) => line(r.what, r.rate, r.goal, r.detail))].join('\n');
}

/**
 * E-Trace data trace: bytes per access (te_data packets with headers) by compression option on the
 * access patterns of golden-model/etrace/data/access-patterns.ts, beside the reference flow's data
 * encoder; goal (issue 21): fewer than the reference flow's address-and-data mode.
 */
function dataTraceRows(seed: number): Row[] {
  const { ours, reference } = dataEfficiency(5000, seed);
  const goal = reference[0]!.bytesPerAccess;
  const detail = (r: DataEfficiencyRow): string => Object.entries(r.byPattern).map(([p, v]) => `${p} ${v.toFixed(2)}`).join(', ');
  return [
    ...ours.map((r) => ({
      what: `E-Trace data trace, ${r.what}`,
      rate: `${r.bytesPerAccess.toFixed(2)} B/access`,
      goal: r.what.startsWith('XOR or differential') ? `< ${goal.toFixed(2)} (reference flow): ${r.bytesPerAccess < goal ? 'met' : 'MISSED'}` : '',
      detail: detail(r),
    })),
    ...reference.map((r) => ({ what: `E-Trace data trace, ${r.what}`, rate: `${r.bytesPerAccess.toFixed(2)} B/access`, goal: '', detail: detail(r) })),
  ];
}

/** The same on the workloads' own accesses (QEMU): bytes per access, the mean over the workloads. */
function workloadDataRows(r: { ours: WorkloadDataRow[]; reference: WorkloadDataRow[] }): Row[] {
  const goal = r.reference[0]!.bytesPerAccess;
  const detail = (x: WorkloadDataRow): string => Object.entries(x.byWorkload).map(([w, v]) => `${w} ${v.toFixed(2)}`).join(', ');
  return [
    ...r.ours.map((x) => ({
      what: `E-Trace data trace, workloads, ${x.what}`,
      rate: `${x.bytesPerAccess.toFixed(2)} B/access`,
      goal: x.what.startsWith('XOR or differential') ? `< ${goal.toFixed(2)} (reference flow): ${x.bytesPerAccess < goal ? 'met' : 'MISSED'}` : '',
      detail: detail(x),
    })),
    ...r.reference.map((x) => ({ what: `E-Trace data trace, workloads, ${x.what}`, rate: `${x.bytesPerAccess.toFixed(2)} B/access`, goal: '', detail: detail(x) })),
  ];
}

/** E-Trace configurations with several views a cycle whose depth the bench measures with serial views. */
const SERIAL_VIEWS_DEPTH: readonly (readonly string[])[] = [
  ['retires_p=2', 'serial_views_p=1'],
  ['retires_p=2', 'taken_branches_p=2', 'serial_views_p=1'],
];

/** A depth row. Goal (issue 25): at most 48 two-input gate levels between flops (about 1 GHz at 28 nm). */
function depthRow(what: string, y: DepthFigures): Row {
  return {
    what,
    rate: `${y.depth} levels`,
    goal: `≤ ${DEPTH_GOAL} levels: ${y.depth <= DEPTH_GOAL ? 'met' : 'MISSED'}`,
    detail: `${y.cells} cells; longest path ${y.from} -> ${y.to}; Yosys ${y.seconds.toFixed(0)} s`,
  };
}

export const benchCommand: CommandDefinition<Options> = {
  name: 'bench',
  summary: 'measure the kit: stimulus, file formats, model, co-simulation throughput, RTL size and trace efficiency on real programs (prints tables)',
  settings: [],
  details: [
    'Goals (the goal column): the E-Trace model encodes at least 5 million instructions per second',
    '(issue 3); the co-simulation of the default component compares at least 2 million per second',
    '(issue 6, raised by issue 22); the PMU co-simulation of `pmu` runs at least 1 million cycles per second (issue 18);',
    'the N-Trace model encodes at least 5 million instructions per second and the co-simulation of',
    '`ntrace` compares at least 1 million per second (issue 19); the tandem-verification trace model',
    'encodes at least 5 million records per second and the co-simulation of `tvtrace` compares at',
    'least 1 million per second (issue 20); the co-simulation of every shipped CTR component runs at',
    'least 1 million cycles per second; `rvtrace --help` takes at most 150 ms and `rvtrace encode` of a',
    '1,000-record stream at most 250 ms, whole process (issue 22). Issue 22 too: the text, etrace-csv,',
    'spike-csv and QEMU-log readers read at least 2 million lines per second (files made from the',
    'stimulus; the QEMU log from a program without traps), `rvtrace encode` of a spike-csv runs at least',
    '1.5 million instructions per second as a whole process and its peak memory (spike-csv of 100000,',
    '1000000 and 2000000 records) does not grow with the length (2 million within 10 % of 1 million),',
    'the `etrace` co-simulation compares at least',
    '2 million instructions per second with the stimulus generated on the way, and its peak memory',
    '(rvtrace cosim at --count 100000, 1000000 and 2000000, each a process of its own) does not grow with',
    'the count: 2 million within 10 % of 1 million (the heap reaches its working size during the first million).',
    '`rvtrace check` reads a VCD in bounded memory (issue 24): its peak on an E-Trace VCD of about 1 GB',
    'within 1.5 times its peak on one of about 100 MB (each a process of its own; with --no-cosim skipped).',
    'The RTL size and depth of every shipped component (issue 25), from one Yosys 0.23 run on',
    'rtl-out/<component>: the cells of `synth -top <block>_top -flatten -noshare` (resource sharing',
    'exhausts the memory on the data-trace components), then the longest flop-to-flop',
    'path after `abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX; ltp -noff` in two-input gate levels, with the',
    'module and signal at both ends (goal: at most 48 levels, about a 1 GHz cycle at 28 nm); and the',
    'same for `etrace` with blocks of two, one and two a cycle, one view a clock (serial_views_p=1),',
    'generated into a temporary directory.',
    'Trace efficiency (issue 7): every workload of workloads/ for RV64GC and RV32IMC, traced through',
    'QEMU, encoded by E-Trace in both payload layouts with the baseline, each optional mode alone and',
    'all of them (goal: at most 0.25 bits per instruction with all modes, mean over the suite), and by',
    'N-Trace in BTM, HTM, HTM + call stack and HTM + call stack + repeat (bytes of the MSEO stream).',
    'Beside the bits, the Yosys cells of each encoder configuration (E-Trace: rtl-out/etrace and',
    'rtl-out/etrace-rv64-full; N-Trace: its generated RTL; skipped with --no-synth). The report',
    'goes to --report DIR as efficiency.md, efficiency.json and efficiency.svg.',
    'E-Trace data trace (issue 21): bytes per access by compression option on five access patterns and',
    "on the workloads' own accesses (RV64GC, a second QEMU run as `trace-elf --data`), beside the",
    "reference flow's data encoder on the same accesses (goal: fewer than its address-and-data mode).",
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--count <N>', 'instructions per measurement', '1000000')
      .option('--seed <S>', 'stimulus seed', '1')
      .option('--no-cosim', 'skip the co-simulation measurement')
      .option('--no-synth', 'skip the Yosys cell counts and logic depths (one to three minutes per component), in the efficiency report\'s gates-vs-bits table too')
      .option('--no-efficiency', 'skip the trace-efficiency measurement on the workloads (about 30 s) and the data-trace rows (about 5 minutes)')
      .option('--no-imports', 'skip the trace import rates and the whole-process encode of a spike-csv (rate and peak memory)')
      .option('--report <DIR>', 'where the efficiency report goes', 'out/bench')
      .option('--only <TEXT>', 'measure only the rows whose name contains TEXT (case-insensitive), e.g. "TV " for the tandem-verification rows; skips the trace-efficiency report'),
  async run(_args, o) {
    const count = Number(o.count);
    if (!Number.isInteger(count) || count < 1000) throw new RvError('bad-option', `--count ${o.count}: expected an integer of at least 1000`);
    const seed = parseCount(o.seed, '--seed', 0);
    if (o.efficiency) checkOutputDir(o.report, '--report');
    const rows: Row[] = [];
    // --only: a section runs when a row it writes would be shown (its row names are listed with it).
    const only = o.only?.toLowerCase();
    if (only === '') throw new RvError('bad-option', '--only: expected the text of a row name, e.g. "TV "');
    const want = (...names: string[]): boolean => only === undefined || names.some((n) => n.toLowerCase().includes(only));
    const progress = (s: string): void => {
      process.stderr.write(`[bench] ${s}\n`);
    };

    // Issue 22: whole-process start-up, measured first, before this process loads the machine.
    if (want('start-up: rvtrace --help', 'start-up: rvtrace encode, 1,000 records')) {
      progress('start-up: rvtrace --help and encode of 1,000 records, whole process');
      rows.push(...startupRows());
    }

    // The stimulus stream, made when a row needs it (with --only, the TV rows do not).
    let made: ReturnType<typeof generateStimulus> | undefined;
    const stimulus = (): ReturnType<typeof generateStimulus> => {
      if (made !== undefined) return made;
      progress(`stimulus: ${count} instructions`);
      made = generateStimulus(defaultKnobs(), seed, count);
      return made;
    };
    if (want('stimulus generation', 'binary stream write', 'binary stream read')) {
      let stream = stimulus();
      const tGen = bestSeconds(() => {
        stream = generateStimulus(defaultKnobs(), seed, count);
      }, 1);
      rows.push(rateRow('stimulus generation', count, tGen, `${stream.records.length} records`));

      let bin = encodeBinaryStream(stream);
      const tWrite = bestSeconds(() => {
        bin = encodeBinaryStream(stream);
      }, 3);
      const tRead = bestSeconds(() => {
        decodeBinaryStream(bin, 'bench');
      }, 3);
      rows.push(rateRow('binary stream write', count, tWrite, `${(bin.length / count).toFixed(2)} bytes/instruction`));
      rows.push(rateRow('binary stream read', count, tRead, ''));
    }

    if (o.imports && want('import text', 'import etrace-csv', 'import spike-csv', 'import qemu', 'rvtrace encode spike-csv (whole process)', 'rvtrace encode peak memory')) {
      // Goals (issue 22): every reader at least 2 M lines/s; `rvtrace encode` of a spike-csv at
      // least 1.5 M instructions/s as a whole process.
      progress('trace imports: text, etrace-csv, spike-csv, QEMU log');
      for (const m of measureImports(stimulus(), seed, count)) {
        const rate = m.lines / m.seconds / 1e6;
        rows.push({ what: `import ${m.format}`, rate: `${rate.toFixed(2)} M lines/s`, goal: atLeast(rate, 2, 'M lines/s'), detail: `${m.lines} lines${m.how ? `, ${m.how}` : ''}` });
      }
      progress('rvtrace encode of a spike-csv, whole process');
      const e = measureEncodeProcess(stimulus());
      rows.push(rateRow('rvtrace encode spike-csv (whole process)', e.instructions, e.seconds, `${e.instructions} instructions, start-up, import, model and output included`, 1.5));
      progress('rvtrace encode peak memory: spike-csv of 100000, 1000000 and 2000000 records');
      const [p1, p10, p20] = encodePeakMemory([100_000, 1_000_000, 2_000_000], seed) as [number, number, number];
      rows.push({
        what: 'rvtrace encode peak memory',
        rate: `${p1} / ${p10} / ${p20} MiB`,
        goal: `independent of the length: ${p20 <= p10 * 1.1 ? 'met' : 'MISSED'}`,
        detail: 'peak resident memory of rvtrace encode --component etrace of a spike-csv of 100000 / 1000000 / 2000000 records',
      });
    }

    let rv32: ReturnType<typeof generateStimulus> | undefined;
    for (const name of shippedComponents('etrace')) {
      if (!want(`E-Trace encode (${name})`, `E-Trace decode (${name})`)) continue;
      progress(`E-Trace model: ${name}`);
      const config = resolveComponent(name, [], { command: 'bench' }).config as EtraceConfig;
      if (validateConfig(config).length > 0) continue;
      // Each component encodes a stream of its own address width.
      const xlen = config.params.iaddress_width_p > 32 ? 64 : 32;
      const input = xlen === 64 ? stimulus() : (rv32 ??= generateStimulus({ ...defaultKnobs(), xlen: 32 }, seed, count));
      let result = encodeStream(input.records, config, { keepPackets: false });
      const t = bestSeconds(() => {
        result = encodeStream(input.records, config, { keepPackets: false });
      }, 3);
      const bpi = (result.bytes.length * 8) / count;
      rows.push(rateRow(`E-Trace encode (${name})`, count, t, `${result.packetCount} packets, ${bpi.toFixed(3)} bits/instruction`, 5));
      const td = bestSeconds(() => {
        decodeStream(result.bytes, input.image, { params: config.params, xlen });
      }, 1);
      rows.push(rateRow(`E-Trace decode (${name})`, count, td, ''));
    }
    for (const name of shippedComponents('ntrace')) {
      if (!want(`N-Trace encode (${name})`, `N-Trace decode (${name})`, `N-Trace encode + output FIFO (${name})`)) continue;
      progress(`N-Trace model: ${name}`);
      const config = resolveComponent(name, [], { command: 'bench' }).config as NtraceConfig;
      const input = config.xlen === 64 ? stimulus() : (rv32 ??= generateStimulus({ ...defaultKnobs(), xlen: 32 }, seed, count));
      // The encoder alone (issue 19's goal: 5 M instr/s), then behind its output FIFO.
      let bytes = encodeNtrace(input.records, config, { messages: false }).bytes;
      const t = bestSeconds(() => {
        bytes = encodeNtrace(input.records, config, { messages: false }).bytes;
      }, 3);
      rows.push(rateRow(`N-Trace encode (${name})`, count, t, `${bytes.length} bytes, ${((bytes.length * 8) / count).toFixed(3)} bits/instruction`, 5));
      const tf = bestSeconds(() => {
        encodeNtraceStream(input.records, config, { messages: false });
      }, 1);
      rows.push(rateRow(`N-Trace encode + output FIFO (${name})`, count, tf, 'always ready'));
      const td = bestSeconds(() => {
        decodeNtrace(bytes, input.image, config);
      }, 1);
      rows.push(rateRow(`N-Trace decode (${name})`, count, td, ''));
    }
    // Functional coverage (issue 23): a case of every block collected from its model, beside the model alone.
    if (want('functional coverage')) for (const c of coverageBenchRows(count, seed, progress)) rows.push(rateRow(c.what, c.instructions, c.seconds, c.detail));
    if (o.cosim && want('E-Trace co-simulation (etrace)', 'E-Trace co-simulation peak memory')) {
      progress('co-simulation: etrace (building or reusing the Verilator model)');
      const r = resolveComponent('etrace', [], { command: 'bench' }) as ResolvedComponent<EtraceConfig>;
      const c = r.config;
      const { model } = etraceCaseModel(r, progress);
      // As `rvtrace cosim` runs it (issue 22: goal 2 M instr/s): the stimulus generated in chunks
      // while the co-simulation runs, its time included.
      const stimulus = generateStimulusChunks(defaultKnobs(), seed, count);
      const started = performance.now();
      const result = await cosimEtrace(model, c, { chunks: () => stimulus.chunks() }, { seed });
      const t = (performance.now() - started) / 1000;
      rows.push(rateRow('E-Trace co-simulation (etrace)', count, t, `model + Verilator RTL compared, stimulus generated on the way, ${result.cycles} cycles, ${result.mismatch ? 'MISMATCH' : 'identical'}`, 2));
      // Peak memory must not grow with --count (issue 22): each count in a process of its own. The
      // heap reaches its working size during the first million (at 100,000 it has not), so the
      // check compares 1 and 2 million; 100,000 is shown beside them.
      progress('co-simulation peak memory: rvtrace cosim --count 100000, 1000000 and 2000000');
      const [m1, m10, m20] = [100_000, 1_000_000, 2_000_000].map((n) => cosimPeakMemory(n, seed)) as [number, number, number];
      rows.push({
        what: 'E-Trace co-simulation peak memory',
        rate: `${m1} / ${m10} / ${m20} MiB`,
        goal: `independent of --count: ${m20 <= m10 * 1.1 ? 'met' : 'MISSED'}`,
        detail: 'peak resident memory of rvtrace cosim --component etrace --count 100000 / 1000000 / 2000000',
      });
    }
    if (o.cosim && want('rvtrace check peak memory')) {
      // Issue 24: a multi-GB VCD is read in bounded memory; 100 MB and 1 GB, each in a process of its own.
      const [small, large] = (await checkPeakMemory([100, 1000], progress)) as [CheckMemory, CheckMemory];
      rows.push({
        what: 'rvtrace check peak memory',
        rate: `${small.peak} / ${large.peak} MiB`,
        goal: `bounded (1 GB within 1.5x of 100 MB): ${large.peak <= small.peak * 1.5 ? 'met' : 'MISSED'}`,
        detail: `peak resident memory of rvtrace check --component etrace of a ${small.megabytes.toFixed(0)} MB / ${large.megabytes.toFixed(0)} MB VCD (${large.cycles} cycles, ${large.seconds.toFixed(0)} s)`,
      });
    }
    const ntraceCosim = shippedComponents('ntrace').includes('ntrace') ? 'ntrace' : shippedComponents('ntrace')[0]!;
    if (o.cosim && want(`N-Trace co-simulation (${ntraceCosim})`)) {
      // Goal (issue 19): at least 1 M instructions/s for the ntrace component, stimulus excluded.
      const name = ntraceCosim;
      progress(`co-simulation: ${name} (building or reusing the Verilator model)`);
      const r = resolveComponent(name, [], { command: 'bench' }) as ResolvedComponent<NtraceConfig>;
      const input = r.config.xlen === 64 ? stimulus() : (rv32 ??= generateStimulus({ ...defaultKnobs(), xlen: 32 }, seed, count));
      const { model } = ntraceCaseModel(r, progress);
      const started = performance.now();
      const result = await cosimNtrace(model, r.config, input.records, { seed });
      const t = (performance.now() - started) / 1000;
      rows.push(rateRow(`N-Trace co-simulation (${name})`, count, t, `model + Verilator RTL compared, ${result.actual.length} bytes, ${result.cycles} cycles, ${result.mismatch ? 'MISMATCH' : 'identical'}`, 1));
    }
    for (const name of shippedComponents('tvtrace')) {
      if (!want(`TV encode (${name})`)) continue;
      // The random records of every kind the co-simulation draws (tb/tvtrace/stimulus.ts).
      progress(`tandem-verification trace model: ${name}`);
      const config = resolveComponent(name, [], { command: 'bench' }).config as TvtraceRtlConfig;
      const records = generateTvRecords(config, seed, count);
      let bytes = encodeTvRecords(records, config);
      const t = bestSeconds(() => {
        bytes = encodeTvRecords(records, config);
      }, 3);
      rows.push({ what: `TV encode (${name})`, rate: `${(count / t / 1e6).toFixed(2)} M records/s`, goal: atLeast(count / t / 1e6, 5, 'M records/s'), detail: `${(bytes.length / count).toFixed(1)} bytes/record` });
    }
    /** A block's own co-simulation case as a bench row: records or cycles per second beside a goal of 1 M. */
    const blockCosimRow = async (what: string, name: string, per: 'records' | 'cycles', detail: (r: CaseResult) => string): Promise<Row> => {
      progress(`co-simulation: ${name} (building or reusing the Verilator model)`);
      const r = resolveComponent(name, [], { command: 'bench' });
      r.block.prepare(r, progress);
      const result = await r.block.runCase(r, { component: name, sets: [], seed, count, backpressure: 0 });
      const rate = (per === 'records' ? result.records : result.cycles) / result.seconds / 1e6;
      const verdict = result.identical ? 'identical' : 'MISMATCH';
      return { what, rate: `${rate.toFixed(2)} M ${per}/s`, goal: atLeast(rate, 1, `M ${per}/s`), detail: `model + Verilator RTL compared, ${detail(result)}, ${verdict}` };
    };
    const csrResponses = (r: CaseResult): string => `${r.metrics.responses} CSR responses`;
    if (o.cosim && shippedComponents('tvtrace').includes('tvtrace') && want('TV co-simulation (tvtrace)')) {
      // Goal (issue 20): at least 1 M records/s for the tvtrace component, stimulus excluded.
      rows.push(await blockCosimRow('TV co-simulation (tvtrace)', 'tvtrace', 'records', (r) => `${r.cycles} cycles`));
    }
    if (o.cosim) {
      // Goal (issue 18): at least 1 M cycles/s for the pmu component, stimulus generation excluded.
      if (want('PMU co-simulation (pmu)')) rows.push(await blockCosimRow('PMU co-simulation (pmu)', 'pmu', 'cycles', csrResponses));
      // Goal (issue 22): every shipped CTR component at least 1 M cycles/s, stimulus generation excluded.
      for (const name of shippedComponents('ctr')) {
        if (want(`CTR co-simulation (${name})`)) rows.push(await blockCosimRow(`CTR co-simulation (${name})`, name, 'cycles', csrResponses));
      }
    }
    // Cells by component, counted once per run (the efficiency report's gates-vs-bits table reuses them).
    const cellsOf = new Map<string, number>();
    if (o.synth) {
      for (const name of allShippedComponents()) {
        if (!want(`RTL depth (${name})`)) continue;
        progress(`Yosys synthesis: ${name}`);
        const r = resolveComponent(name, [], { command: 'bench' });
        const y = componentSynthesis(r);
        cellsOf.set(name, y.cells);
        rows.push(depthRow(`RTL depth (${name})`, y));
      }
      // Several views a cycle one a clock (serial_views_p, issue 25's deliverable 4): blocks of two,
      // one and two a cycle, as no shipped component has them.
      for (const sets of SERIAL_VIEWS_DEPTH) {
        const what = `RTL depth (etrace ${sets.join(' ')})`;
        if (!want(what)) continue;
        progress(`Yosys synthesis: etrace ${sets.join(' ')}`);
        rows.push(depthRow(what, configurationSynthesis(resolveComponent('etrace', sets, { command: 'bench' }))));
      }
    }
    if (o.efficiency && want('E-Trace data trace')) rows.push(...dataTraceRows(seed));
    if (o.efficiency && want('E-Trace data trace, workloads')) {
      progress('data trace: tracing the workloads with their data accesses (RV64GC)');
      rows.push(...workloadDataRows(workloadDataEfficiency(await workloadDataStreams('rv64gc', progress))));
    }
    const rss = process.memoryUsage().rss / 2 ** 20;
    process.stdout.write(`${table(rows)}\n\npeak resident memory ${rss.toFixed(0)} MiB; ${count} instructions, seed ${seed}, best of 3 runs\n`);
    if (o.efficiency && only === undefined) {
      progress('trace efficiency: building and tracing the workloads');
      const measured = await measureSuite({ log: progress });
      const gates = efficiencyGates({ synth: o.synth, known: cellsOf, resolve: (name) => resolveComponent(name, [], { command: 'bench' }), log: progress });
      const report = { ...measured, gates };
      const md = efficiencyMarkdown(report);
      writeOutputAtomic(join(o.report, 'efficiency.md'), md);
      writeOutputAtomic(join(o.report, 'efficiency.json'), efficiencyJson(report));
      writeOutputAtomic(join(o.report, 'efficiency.svg'), efficiencySvg(report));
      // The summary tables (the detailed one is in the report).
      process.stdout.write(`\n${md.split('\n## Every measurement')[0]!.replace(/^# Trace efficiency\n\n/, '')}\nreport: ${o.report}/efficiency.{md,json,svg}\n`);
    }
    return 0;
  },
};
