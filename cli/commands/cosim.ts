/**
 * `rvtrace cosim`: one co-simulation of the generated RTL of a component against the golden model of
 * its block, for a stimulus seed and length and a back-pressure probability (blocks with an output
 * stream). Status 0 only when RTL and model agree; on a mismatch the block's description of the first
 * difference, an FST waveform of the cycles around it and the one-line command that replays the case.
 */
import type { Command } from 'commander';
import type { CommandDefinition } from '../../core/block.ts';
import { parseCount } from '../../core/options.ts';
import { type CaseOptions, caseOptions, caseSpecOf } from '../case-options.ts';
import { checkOutputFile } from '../../core/io.ts';
import { blockSettings } from '../../blocks/index.ts';
import { replayCommand } from '../../tb/case.ts';
import { coverageSummary } from '../../core/coverage.ts';
import { CoverageCollector } from '../../tb/coverage.ts';
import { CODE_COVERAGE_HELP, codeCoverageOption, withCodeCoverage } from '../code-coverage-option.ts';

interface Options extends CaseOptions {
  fst: string;
  window: string;
  coverage: boolean;
  coverageRtl?: string;
}

export const cosimCommand: CommandDefinition<Options> = {
  name: 'cosim',
  summary: 'co-simulate the generated RTL (Verilator) of a component against the golden model of its block',
  settings: blockSettings(),
  component: { default: 'etrace' },
  details: [
    'Examples:',
    '  rvtrace cosim --component etrace --seed 1 --count 100000',
    '  rvtrace cosim --component etrace-rv64-full --seed 7 --count 50000 --backpressure 0.6',
    '  rvtrace cosim --component etrace --set stallEnable=1 --knob interrupt_rate=0.01 --seed 3 --count 20000',
    '  rvtrace cosim --component ctr-1.0 --seed 2 --count 50000',
    'The block comes from the component; --set takes that block\'s settings. E-Trace compares the trace',
    'bytes; CTR compares every CSR response (read data, illegal, virtual) of a retirement stream with',
    'interleaved CSR operations and a final dump of every entry. --backpressure applies to blocks with',
    'an output stream (E-Trace) and is refused for the others.',
    'The RTL is generated into .cache/rtl/ and built once per configuration (.cache/verilator/;',
    'RVTRACE_CACHE moves both). Exit status: 0 identical, 1 mismatch, 2 bad input. The peak resident',
    'memory of the run goes to stderr after the case.',
    'On a mismatch: where and why (E-Trace: packet, byte, both decodings, the records around it; CTR:',
    'the cycle, the CSR access, both responses), an FST waveform of the cycles around it (--fst) and',
    'the command that replays the case.',
    CODE_COVERAGE_HELP,
  ].join('\n'),
  options: (cmd: Command) =>
    codeCoverageOption(caseOptions(cmd, '100000'))
      .option('--fst <FILE>', 'waveform written on a mismatch', 'cosim-mismatch.fst')
      .option('--window <CYCLES>', 'cycles of waveform before the mismatch', '200')
      .option('--no-coverage', 'do not print the functional coverage of the case'),
  async run(_args, o, _settings, resolved) {
    checkOutputFile(o.fst, '--fst');
    const r = resolved!;
    const spec = caseSpecOf(r, o);
    const window = parseCount(o.window, '--window', 1);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const { value: result } = await withCodeCoverage(o.coverageRtl, () => r.block.runCase(r, spec, log));
    // Peak memory of the whole run, on stderr with the build messages (rvtrace bench reads it).
    log(`[cosim] peak resident memory ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
    process.stdout.write(`${spec.component} seed ${spec.seed}: ${result.summary}: ${result.identical ? 'identical' : 'MISMATCH'}\n`);
    if (result.identical && o.coverage) {
      // The functional coverage of the case: its block's bins, from the model (first 20 uncovered by name).
      const cov = new CoverageCollector();
      if (cov.add(r, spec)) process.stdout.write(`${coverageSummary(cov.result(), 20)}\n`);
    }
    if (result.identical) return 0;
    process.stdout.write(`${result.mismatch}\n`);
    // The waveform: the same case again on the FST build, dumping a window around the mismatch.
    const at = result.mismatchCycle ?? 0;
    await r.block.waveform(r, spec, o.fst, Math.max(0, at - window), at + 20, log);
    process.stdout.write(`waveform of cycles ${Math.max(0, at - window)}..${at + 20}: ${o.fst}\n`);
    process.stdout.write(`replay: ${replayCommand(r.block, spec)}\n`);
    return 1;
  },
};
