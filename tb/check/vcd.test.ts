/**
 * The streaming VCD reader on small hand-written waveforms: the values each rising edge sees are
 * worked out by hand from the text below (the convention: a change at the edge's own timestamp
 * is not seen), reset edges are skipped, x/z bits read as 0 and are counted, and the result does
 * not depend on how the file is cut into chunks.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RvError } from '../../golden-model/common/errors.ts';
import { readVcd, readVcdText, type VcdSampling } from './vcd.ts';

const VCD = `$date today $end
$version hand written $end
$timescale 1ns $end
$scope module tb $end
$var wire 1 ! clk $end
$var wire 1 " rst_n $end
$scope module u_dut $end
$var wire 8 # data [7:0] $end
$var reg 1 $ valid $end
$var wire 4 % unused[3:0] $end
$var wire 70 & wide $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
0"
bx #
0$
b0 %
b0 &
$end
#5
1!
#10
0!
1"
b101 #
#15
1!
#20
0!
b11110000 #
1$
b1 &
#25
1!
b1111 #
0$
#30
0!
b1x #
#35
1!
#40
0!
b1000000000000000000000000000000000000000000000000000000000000000000001 &
#45
1!
`;

const SAMPLING: VcdSampling = {
  file: 'hand.vcd',
  clock: 'tb.clk',
  reset: { signal: 'tb.rst_n', active: 0 },
  signals: [
    { name: 'tb.u_dut.data', width: 8, what: 'port data_o' },
    { name: 'tb.u_dut.valid', width: 1, what: 'port valid_o' },
    { name: 'tb.u_dut.wide', width: 70, what: 'port wide_o' },
  ],
};

function collect(read: (on: (v: readonly bigint[], c: number, t: string) => void) => unknown): { cycle: number; time: string; values: bigint[] }[] {
  const out: { cycle: number; time: string; values: bigint[] }[] = [];
  read((v, cycle, time) => out.push({ cycle, time, values: [...v] }));
  return out;
}

/** By hand: edges at 5 (in reset), 15, 25, 35, 45; each sees the values before its own timestamp. */
const EXPECTED = [
  { cycle: 0, time: '15', values: [0b101n, 0n, 0n] },
  // The changes at 25 (data 0x0f, valid 0) are not seen by the edge at 25.
  { cycle: 1, time: '25', values: [0xf0n, 1n, 1n] },
  // b1x (changed at 30): the x bit reads as 0.
  { cycle: 2, time: '35', values: [0b10n, 0n, 1n] },
  // The 70-bit value changed at 40.
  { cycle: 3, time: '45', values: [0b10n, 0n, (1n << 69n) | 1n] },
];

describe('readVcd', () => {
  it('samples vectors, scalars and a 70-bit vector before each rising edge, skipping reset', () => {
    let summary;
    const got = collect((on) => (summary = readVcdText(VCD, SAMPLING, on)));
    expect(got).toEqual(EXPECTED);
    expect(summary).toMatchObject({ cycles: 4, resetCycles: 1, timescale: '1ns', unknown: [{ name: 'tb.u_dut.data', samples: 2 }] });
  });

  it('gives the same samples whatever the chunk size of the stream', async () => {
    for (const size of [1, 3, 17]) {
      const chunks: string[] = [];
      for (let i = 0; i < VCD.length; i += size) chunks.push(VCD.slice(i, i + size));
      const got: unknown[] = [];
      await readVcd(Readable.from(chunks.map((c) => Buffer.from(c, 'latin1'))), SAMPLING, (v, cycle, time) => got.push({ cycle, time, values: [...v] }));
      expect(got, `chunks of ${size}`).toEqual(EXPECTED);
    }
  });

  it('without a reset signal every rising edge is a cycle', () => {
    const got = collect((on) => readVcdText(VCD, { ...SAMPLING, reset: undefined }, on));
    expect(got.map((g) => g.time)).toEqual(['5', '15', '25', '35', '45']);
  });

  it('finds a name without the TOP scope Verilator adds', () => {
    const top = VCD.replace('$scope module tb $end', '$scope module TOP $end\n$scope module tb $end').replace('$enddefinitions', '$upscope $end\n$enddefinitions');
    expect(collect((on) => readVcdText(top, SAMPLING, on))).toEqual(EXPECTED);
  });

  it('a signal not in the file is a one-line error naming it and the file', () => {
    const bad = { ...SAMPLING, signals: [{ name: 'tb.u_dut.nope', width: 1, what: 'port stall_o' }] };
    expect(() => readVcdText(VCD, bad, () => {})).toThrow(RvError);
    expect(() => readVcdText(VCD, bad, () => {})).toThrow('port stall_o: no signal tb.u_dut.nope in the VCD');
    try {
      readVcdText(VCD, bad, () => {});
    } catch (e) {
      expect((e as RvError).location.file).toBe('hand.vcd');
    }
  });

  it('a width that differs from the port is an error', () => {
    const bad = { ...SAMPLING, signals: [{ name: 'tb.u_dut.data', width: 9, what: 'port data_o' }] };
    expect(() => readVcdText(VCD, bad, () => {})).toThrow('port data_o: tb.u_dut.data is 8 bits wide in the VCD, the port has 9');
  });

  it('a reset asserted again after cycle 0 is an error', () => {
    const again = `${VCD}#50\n0!\n0"\n#55\n1!\n`;
    expect(() => readVcdText(again, SAMPLING, () => {})).toThrow('tb.rst_n is active again at time 55');
  });

  it('a file without $enddefinitions is not a VCD', () => {
    expect(() => readVcdText('$scope module tb $end\n', SAMPLING, () => {})).toThrow('no $enddefinitions');
  });
});
