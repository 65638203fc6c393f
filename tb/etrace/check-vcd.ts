/**
 * A large VCD of an E-Trace run for the memory bench of `rvtrace check` (cli/commands/bench-check.ts):
 * the component's case (seed 1, no back-pressure) as a user's SoC simulation dumps it, with its map.
 *
 * The waveform: the hart interface of the frames of tb/etrace/frames.ts under `soc_tb.u_soc.u_trace`
 * (one frame a cycle), the model's bytes on the tx handshake, each in the cycle the model's FIFO
 * sends it (check compares the cycles too: model cycle m is waveform cycle m + READY_OFFSET), and
 * four 64-bit signals of the rest of the SoC that change every cycle (most of a real SoC's VCD is
 * signals the map does not name). The records come from the
 * stimulus generator in chunks: neither this writer nor the check holds the stream.
 */
import { once } from 'node:events';
import { createWriteStream, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedComponent } from '../../core/block.ts';
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { StreamEncoder } from '../../golden-model/etrace/output.ts';
import { etracePorts } from '../../golden-model/etrace/ports.ts';
import { caseSource } from './case.ts';
import { EtraceFrameStream, READY_OFFSET } from './frames.ts';

/** Bytes of VCD per cycle, about (measured on this writer's output), to size the stimulus. */
const BYTES_PER_CYCLE = 420;

/** What `writeCheckVcd` wrote. */
export interface CheckVcd {
  readonly vcd: string;
  readonly map: string;
  readonly bytes: number;
  readonly cycles: number;
  readonly traceBytes: number;
}

/** Writes `dir`/soc.vcd (about `megabytes` MB) and `dir`/map.json for the E-Trace component `r`. */
export async function writeCheckVcd(r: ResolvedComponent<EtraceConfig>, dir: string, megabytes: number): Promise<CheckVcd> {
  const vcd = join(dir, 'soc.vcd');
  const map = join(dir, 'map.json');
  const c = r.config;
  const count = Math.ceil((megabytes * 1e6) / BYTES_PER_CYCLE);
  const spec = { component: r.component, sets: [...r.provenance.sets], seed: 1, count, backpressure: 0 };
  // The model's bytes first (a few MB), with the transport always ready as the waveform shows it.
  const model = new StreamEncoder(c, { ready: () => true, keepPackets: false, departures: true });
  for (const chunk of caseSource(c, spec).source.chunks()) for (const rec of chunk) model.push(rec);
  const { bytes, departures } = model.finish();
  const due = (k: number): number => departures![k]! + READY_OFFSET;

  const ins = etracePorts(c).filter((p) => p.direction === 'in' && p.name !== 'clk_i' && p.name !== 'rst_ni' && p.name !== 'tx_ready_i');
  const ids = new Map(ins.map((p, i) => [p.name, idCode(200 + i)]));
  const values = new Map<string, bigint>();
  const scope = 'soc_tb.u_soc.u_trace';
  const header = [
    '$timescale 1ps $end',
    '$scope module soc_tb $end',
    '$var wire 1 ! clk $end',
    '$var wire 1 " rst_n $end',
    '$scope module u_soc $end',
    ...[0, 1, 2, 3].map((k) => `$var wire 64 ${idCode(100 + k)} bus_counter_${k} [63:0] $end`),
    '$scope module u_trace $end',
    ...ins.map((p) => `$var wire ${p.width} ${ids.get(p.name)} ${p.name} ${p.width > 1 ? `[${p.width - 1}:0] ` : ''}$end`),
    '$var wire 1 # tx_ready_i $end',
    '$var wire 1 $ tx_valid_o $end',
    '$var wire 8 % tx_data_o [7:0] $end',
    '$upscope $end',
    '$upscope $end',
    '$upscope $end',
    '$enddefinitions $end',
    '#0',
    '$dumpvars',
    '0!',
    '0"',
    '1#',
    '0$',
    'b0 %',
    ...ins.map((p) => `b0 ${ids.get(p.name)}`),
    '$end',
    '',
  ].join('\n');
  const out = createWriteStream(vcd);
  let buffer = header;
  const flush = async (force = false): Promise<void> => {
    if (!force && buffer.length < 1 << 20) return;
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
  };
  let time = 0;
  let cycle = 0;
  let sent = 0;
  /** One clock cycle: the inputs 1 ps after the falling edge, the rising edge at +5. */
  const writeCycle = (): void => {
    let s = `#${time + 1}\n`;
    for (const [name, v] of values) s += `b${v.toString(2)} ${ids.get(name)}\n`;
    values.clear();
    for (let k = 0; k < 4; k++) s += `b${(BigInt(cycle) * 0x9e3779b97f4a7c15n + BigInt(k)).toString(2).slice(-64)} ${idCode(100 + k)}\n`;
    if (sent < bytes.length && due(sent) === cycle) s += `1$\nb${bytes[sent++]!.toString(2)} %\n`;
    else s += '0$\n';
    s += `#${time + 5}\n1!\n#${time + 10}\n0!\n`;
    buffer += s;
    time += 10;
    cycle++;
  };
  // Two reset cycles, then the frames.
  buffer += '#5\n1!\n#10\n0!\n#15\n1!\n#20\n0!\n#21\n1"\n';
  time = 20;
  const frames = new EtraceFrameStream(c, 0, { setter: (port) => (v) => void values.set(port, BigInt(v)) }, () => {
    writeCycle();
  });
  for (const chunk of caseSource(c, spec).source.chunks()) {
    frames.push(chunk);
    await flush();
  }
  frames.finish();
  while (sent < bytes.length) writeCycle();
  buffer += `#${time + 5}\n1!\n`;
  await flush(true);
  out.end();
  await once(out, 'close');
  const at = (port: string): string => `${scope}.${port}`;
  const ports: Record<string, string> = Object.fromEntries([...ins.map((p) => [p.name, at(p.name)]), ...['tx_ready_i', 'tx_valid_o', 'tx_data_o'].map((p) => [p, at(p)])]);
  writeFileSync(map, JSON.stringify({ clock: 'soc_tb.clk', reset: { signal: 'soc_tb.rst_n', active: 0 }, ports }, null, 2));
  return { vcd, map, bytes: statSync(vcd).size, cycles: cycle, traceBytes: bytes.length };
}

/** A VCD id code: printable characters from '!' (33) to '~' (126). */
function idCode(n: number): string {
  let s = '';
  do {
    s += String.fromCharCode(33 + (n % 94));
    n = Math.floor(n / 94);
  } while (n > 0);
  return s;
}

