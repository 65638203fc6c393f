/**
 * Resynchronisation by packet count placed as Figure 8.1 and section 8.2 place it (single
 * retirement, resync_policy flowchart). The expected packet sequences are typed from the spec,
 * not taken from the model: with max_resync = 16 (ResyncMax 0) and the count reset by the F3 SF0,
 * - resync_br (step 6): when the count equals max_resync and the branch map is not empty, an
 *   F0/F1/F2 reports the current instruction; the F3 SF0 follows at the next instruction, once
 *   the count exceeds max_resync (step 4);
 * - an uninferable jump at the count with an empty map: nothing at the jump; its target is reported
 *   by step 5 with updiscon != notify, because the next instruction produces a format 3 (section
 *   6.6.2 case 2); the F3 SF0 follows at the instruction after the target.
 * Full address mode, so every address field is the instruction address >> 1.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';
import { validateConfig } from './config.ts';
import { encodeStream } from './output.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

const config = (policy: string) =>
  etraceConfig(resolveSettings('test', ETRACE_SETTINGS, ['FullAddress=1', 'ResyncMode=1', 'ResyncMax=0', `resync_policy=${policy}`]));

/** One 32-bit instruction retired in its own cycle. */
const insn = (addr: number, itype: number): RetirementRecord => ({ ...emptyRecord(), iaddr: BigInt(addr), itype, iretire: 2, ilastsize: 1 });

/** The loop body repeated `n` times. */
const repeat = (n: number, body: [number, number][]): RetirementRecord[] => Array.from({ length: n }, () => body.map(([a, t]) => insn(a, t))).flat();

/** A packet as the test names it: kind, the reported address, and whether updiscon differs from notify. */
function shapes(records: RetirementRecord[], policy = 'flowchart'): string[] {
  return encodeStream(records, config(policy)).packets.map(({ packet: p }) => {
    if (p.format === 3n && p.subformat === 3n) return 'support';
    const at = p.address === undefined ? '' : ` ${(p.address << 1n).toString(16)}`;
    if (p.format === 3n) return `F3.${p.subformat}${at}`;
    const flag = p.updiscon !== undefined && p.updiscon !== p.notify ? ' updiscon!=notify' : '';
    const branches = p.format === 1n ? ` b${p.branches}` : '';
    return `F${p.format}${branches}${at}${flag}`;
  });
}

describe('resync by packet count follows the flowchart (single retirement)', () => {
  it('resync_br: the count reached with a branch in the map gives F1 with address, then F3 SF0 at the next instruction', () => {
    // 1000: addi; 1004: beq (not taken); 1008: jalr back to 1000. Each pass: F1 (the branch) at
    // the jump's target 1000. After 16 of them the count is 16 at 1000; at 1004 the map holds
    // the branch: F1 reports 1004 (count 17), then 1008 gets F3 SF0.
    const body: [number, number][] = [
      [0x1000, Itype.none],
      [0x1004, Itype.nontakenBranch],
      [0x1008, Itype.otherUninferableJump],
    ];
    const got = shapes(repeat(19, body));
    expect(got.slice(0, 21)).toEqual([
      'support',
      'F3.0 1000',
      ...Array.from({ length: 16 }, () => 'F1 b1 1000'),
      'F1 b1 1004',
      'F3.0 1008',
      'F2 1000',
    ]);
  });

  it('an uninferable jump at the count: its target is reported with updiscon != notify, F3 SF0 at the instruction after', () => {
    // 1000: addi; 1004: jalr back to 1000. Each pass: F2 at 1000. The count is 16 at the 17th
    // jump (empty map: nothing there); its target 1000 gets F2 with the flag (count 17), the
    // jump at 1004 after it gets F3 SF0, and the next target an ordinary F2.
    const body: [number, number][] = [
      [0x1000, Itype.none],
      [0x1004, Itype.otherUninferableJump],
    ];
    const got = shapes(repeat(20, body));
    expect(got.slice(0, 22)).toEqual([
      'support',
      'F3.0 1000',
      ...Array.from({ length: 16 }, () => 'F2 1000'),
      'F2 1000 updiscon!=notify',
      'F3.0 1004',
      'F2 1000',
      'F2 1000',
    ]);
  });

  it('the block placement differs exactly there: F3 SF0 at the jump target, no flag (why it is not the default)', () => {
    const body: [number, number][] = [
      [0x1000, Itype.none],
      [0x1004, Itype.otherUninferableJump],
    ];
    const got = shapes(repeat(20, body), 'block');
    expect(got.slice(17, 20)).toEqual(['F2 1000', 'F3.0 1000', 'F2 1000']);
  });

  it('flowchart needs single retirement: asking for it with retires_p > 1 is an error that says why', () => {
    const c = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, ['retires_p=2', 'iretire_width_p=3', 'resync_policy=flowchart']));
    expect(validateConfig(c).map((e) => e.message)).toEqual([expect.stringMatching(/^resync_policy flowchart needs retires_p = 1, not 2: .*second instruction/)]);
    expect(validateConfig(config('flowchart'))).toEqual([]);
    const auto = etraceConfig(resolveSettings('test', ETRACE_SETTINGS, ['retires_p=2', 'iretire_width_p=3']));
    expect(auto.params.resync_policy).toBe('block');
  });
});
