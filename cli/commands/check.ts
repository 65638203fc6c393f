/**
 * `rvtrace check --component C --vcd FILE|--fst FILE --map MAP [--capture BYTES]`: checks a waveform
 * of the user's own simulation against the golden model of the component's block (tb/check/run.ts,
 * the block's `check` of core/check.ts). PASS with a summary, or the first divergence and status 1.
 */
import type { Command } from 'commander';
import { BLOCKS, blockSettings } from '../../blocks/index.ts';
import type { CommandDefinition } from '../../core/block.ts';
import { readInput } from '../../core/io.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { runCheck } from '../../tb/check/run.ts';

interface Options {
  vcd?: string;
  fst?: string;
  map: string;
  capture?: string;
}

/** The blocks whose components `check` takes. */
const CHECK_BLOCKS = BLOCKS.filter((b) => b.check !== undefined).map((b) => b.name);

export const checkCommand: CommandDefinition<Options> = {
  name: 'check',
  summary: "check a waveform of your own simulation (VCD or FST) against the golden model of the component's block",
  settings: blockSettings(CHECK_BLOCKS),
  component: { default: 'etrace', blocks: CHECK_BLOCKS },
  details: [
    'Examples:',
    '  rvtrace check --component etrace --vcd soc.vcd --map etrace-map.json',
    '  rvtrace check --component etrace --fst soc.fst --map etrace-map.json',
    '  rvtrace check --component etrace --vcd hart-only.vcd --map hart-map.json --capture sink.bin',
    '  rvtrace check --component ctr-1.0 --vcd soc.vcd --map ctr-map.json',
    'MAP is a JSON file: { "clock": "tb.soc.clk", "reset": { "signal": "tb.soc.rst_n", "active": 0 },',
    '"ports": { "itype_i": "tb.soc.u_trace.hart_itype", ... } }: the hierarchical signal of each port of',
    "the block's top (a Verilator waveform's leading TOP. may be left out). Every signal is sampled as",
    'the rising edge of the clock sees it (a change at the edge\'s own timestamp is not seen); edges with',
    'the reset active are skipped. x and z bits read as 0 (counted in the summary).',
    'E-Trace: the hart interface becomes retirement records (a cycle with stall_o 1 is held), the model',
    "runs with the waveform's tx_ready_i, and its bytes are compared in order with the bytes of the",
    'tx_valid_o/tx_ready_i handshake. APB writes (pstrb_i lanes) update an image of the registers: the',
    'session starts out of reset or with the write that sets trTeActive and trTeEnable, and the model runs',
    'with the options the registers hold then (the RTL samples them at the start; writes during the session',
    'do not change it); clearing trTeEnable ends it at the hart\'s next idle cycle, and setting it again starts another session (a fresh',
    'model, its bytes after the last session\'s) once the waveform shows the last one\'s bytes sent. A waveform with data',
    'accesses (dretire_i) is read twice: the model takes the accesses before the first record.',
    'N-Trace: the same with mseo_*; each APB access goes to the register model and is compared with it.',
    'CTR and PMU: each cycle is a model step; every CSR response (and LCOFI pulse) is compared in its cycle.',
    'TV trace: a record is taken with rec_valid_i and rec_ready_o; the model\'s bytes are compared in order',
    'with the beats\' (the low tv_bytes_o bytes of tv_data_o).',
    '--capture (E-Trace, N-Trace, TV trace): the trace bytes come from the file (what the trace sink received) and',
    'the map needs only the hart side; the ready input, if mapped, is the model\'s ready, otherwise the sink',
    'is always ready.',
    '--fst goes through fst2vcd (Debian package gtkwave). Exit status: 0 PASS, 1 divergence, 2 bad input.',
  ].join('\n'),
  options: (cmd: Command) =>
    cmd
      .option('--vcd <FILE>', 'the waveform, a VCD file (read as a stream)')
      .option('--fst <FILE>', 'the waveform, an FST file (converted by fst2vcd as it is read)')
      .requiredOption('--map <MAP>', 'JSON file: the clock, the reset and the signal of each port of the top')
      .option('--capture <BYTES>', 'binary file of the trace bytes the sink received (instead of the output ports)'),
  async run(_args, o, _settings, resolved) {
    const r = resolved!;
    if ((o.vcd === undefined) === (o.fst === undefined)) throw new RvError('bad-option', 'give the waveform as exactly one of --vcd FILE and --fst FILE');
    if (r.block.check === undefined) throw new RvError('bad-option', `--component ${r.component}: check takes a component of the blocks ${CHECK_BLOCKS.join(', ')}`);
    const capture = o.capture !== undefined ? readInput(o.capture) : undefined;
    const report = await runCheck(r, { ...(o.vcd !== undefined ? { vcd: o.vcd } : { fst: o.fst! }), map: o.map, ...(capture ? { capture } : {}) });
    const w = report.waveform;
    const unknown = w.unknown.length > 0 ? `; x/z read as 0 in ${w.unknown.map((u) => `${u.name} (${u.samples} cycles)`).join(', ')}` : '';
    process.stdout.write(`${r.component}: ${report.summary} (${w.resetCycles} reset cycles skipped${unknown})\n`);
    if (report.pass) {
      process.stdout.write('PASS\n');
      return 0;
    }
    process.stdout.write(`FAIL${report.mismatchCycle === undefined ? '' : ` at cycle ${report.mismatchCycle}`}: ${report.mismatch}\n`);
    return 1;
  },
};
