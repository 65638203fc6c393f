/**
 * Multiple retirement (section 8.3): a stream regrouped into blocks of up to 2, 3 and 4
 * instructions (with up to 2 signal groups per cycle) encodes to exactly the bytes of single
 * retirement. Time stamps are per cycle, so the 2.0 layout is checked without time; resync counts
 * packets or half-words (a cycle count differs by construction when cycles hold more). Both sides
 * use the block resync placement (resync_policy = block): the flowchart's needs single retirement.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { generateStimulus } from '../hart/stimulus/generate.ts';
import { defaultKnobs } from '../hart/stimulus/knobs.ts';
import { encodeStream } from './output.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

const RV64 = ['iaddress_width_p=64', 'context_width_p=32', 'ecause_width_p=6', 'privilege_width_p=2', 'ResyncMax=0', 'resync_policy=block'];
const MODES = ['return_stack_size_p=3', 'bpred_size_p=5', 'cache_size_p=3', 'f0s_width_p=1', 'sijump_p=1', 'ImplicitReturn=1', 'BranchPrediction=1', 'JumpTargetCache=1', 'siJump=1'];

const CONFIGS: [string, string[]][] = [
  ['baseline, packet resync', [...RV64, 'ResyncMode=1']],
  ['baseline, half-word resync', [...RV64, 'ResyncMode=3']],
  ['all modes 1.1.1', [...RV64, ...MODES]],
  ['all modes 2.0 without time', [...RV64, ...MODES, 'payload_layout=2.0', 'notime_p=1']],
  ['3-bit itype', [...RV64, 'itype_width_p=3']],
];

describe('block invariance (seeds 1..40, 4000 instructions)', () => {
  it.each(CONFIGS)('%s', (_name, sets) => {
    const config = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, sets));
    for (let seed = 1; seed <= 40; seed++) {
      const stream = generateStimulus(defaultKnobs(), seed, 4000);
      const single = encodeStream(stream.records, config).bytes;
      for (const n of [2, 3, 4]) {
        const blocks = regroupIntoBlocks(stream.records, { retires_p: n, taken_branches_p: n === 2 ? 1 : 2 });
        expect(blocks.length, `seed ${seed}: regrouping must merge records`).toBeLessThan(stream.records.length);
        const grouped = encodeStream(blocks, config).bytes;
        expect(Buffer.from(grouped).equals(Buffer.from(single)), `seed ${seed}, blocks of ${n}`).toBe(true);
      }
    }
  });
});
