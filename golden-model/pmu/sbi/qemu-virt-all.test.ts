/**
 * test-fixtures/qemu-virt-all.sbi with the answers OpenSBI 1.9 gives, typed line by line from
 * lib/sbi/sbi_pmu.c and sbi_ecall_pmu.c (the reason after each ` ; `), compared with a run of the
 * firmware model on the counter-block model (unit.ts); the reads chosen depend only on cycles
 * counted in S/U mode, which any correct block gives.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pmuUnitHart } from './hart.ts';
import { compareRuns, formatScript, parseScript, runScript, type ScriptStep } from './script.ts';
import { qemuVirtConfig } from './test-fixtures/qemu-virt.ts';

const FIXTURE = new URL('./test-fixtures/qemu-virt-all.sbi', import.meta.url);
const FW_INFO = 'err=0(SUCCESS) val=0x800000000003f000';

/** seq -> expected result ; why. */
const EXPECTED: Record<number, string> = {
  1: 'err=0(SUCCESS) val=0x23 ; sbi_pmu_num_ctr: num_hw_ctrs 19 (fls(0x7fff8) + 1) + 16 firmware counters',
  2: 'err=0(SUCCESS) val=0x3fc00 ; sbi_pmu_ctr_get_info: CSR cycle, width 63',
  3: 'err=-3(INVALID_PARAM) val=0x0 ; bit 1 is not in mhpm_mask | CY | IR',
  4: 'err=0(SUCCESS) val=0x3fc02 ; instret, width 63',
  5: 'err=0(SUCCESS) val=0x3fc03 ; hpmcounter3, mhpm_bits 64 - 1',
  6: 'err=0(SUCCESS) val=0x3fc12 ; hpmcounter18',
  7: `${FW_INFO} ; firmware: type bit 63, width 63, CSR 0`,
  8: `${FW_INFO} ; counter 34 is the last firmware counter`,
  9: 'err=-3(INVALID_PARAM) val=0x0 ; cidx >= total_ctrs',
  10: 'err=0(SUCCESS) val=0x12 ; pmu_ctr_find_hw with Sscofpmf: cycles on the last free inhibited counter of 0x7fff9 & ~7; type 0 so CLEAR_VALUE and AUTO_START act',
  12: '=0xa ; the 10 S/U cycles of R11; M-mode cycles are MINH-filtered; a read answers the value at the start of its cycle',
  13: 'err=0(SUCCESS) val=0x11 ; instructions: 18 is bound, 17 is the last free one',
  14: 'err=0(SUCCESS) val=0x10 ; DTLB read miss on the last free counter',
  15: 'err=0(SUCCESS) val=0xf ; AUTO_START is ignored for a cache event (type 1)',
  16: '=0x0 ; counter 15 never started',
  17: 'err=-2(NOT_SUPPORTED) val=0x0 ; event 3 is in no map entry: pmu_ctr_find_hw fails, cfg_match answers NOT_SUPPORTED',
  18: 'err=-2(NOT_SUPPORTED) val=0x0 ; no raw-event map: no entry covers 0x20000',
  19: 'err=0(SUCCESS) val=0x13 ; pmu_ctr_find_fw: the first free firmware counter',
  20: 'err=-2(NOT_SUPPORTED) val=0x0 ; cmask 0: sbi_fls(0) = 0 passes the range check, no counter in the set',
  21: 'err=-3(INVALID_PARAM) val=0x0 ; cbase + fls(cmask) >= total_ctrs',
  22: 'err=-3(INVALID_PARAM) val=0x0 ; SKIP_MATCH: active_events[5] is invalid',
  23: 'err=-3(INVALID_PARAM) val=0x0 ; pmu_event_validate: code 11 >= SBI_PMU_HW_GENERAL_MAX',
  24: 'err=0(SUCCESS) val=0x0 ; pmu_ctr_start_hw: inhibited, so started with the initial value',
  25: 'err=-7(ALREADY_STARTED) val=0x0 ; mcountinhibit bit 16 is clear',
  27: '=0x100 ; the initial value: event input 0 never pulses',
  28: 'err=0(SUCCESS) val=0x0 ; pmu_ctr_stop_hw',
  29: 'err=-8(ALREADY_STOPPED) val=0x0 ; inhibit bit already set',
  30: 'err=-8(ALREADY_STOPPED) val=0x0 ; still stopped, but RESET unbinds counter 16 and zeroes mhpmevent16',
  31: 'err=-3(INVALID_PARAM) val=0x0 ; no usable counter left in the set',
  32: 'err=0(SUCCESS) val=0x0 ; pmu_ctr_start_fw',
  35: 'err=0(SUCCESS) val=0x2 ; the fw-event and the set_timer call each counted once',
  36: 'err=0(SUCCESS) val=0x0 ; RV64: always 0',
  37: 'err=-3(INVALID_PARAM) val=0x0 ; not a firmware event',
  38: 'err=-3(INVALID_PARAM) val=0x0 ; unbound',
  39: 'err=-2(NOT_SUPPORTED) val=0x0 ; sbi_ecall_pmu.c: snapshot not supported',
  40: 'err=-9(NO_SHMEM) val=0x0 ; flag bit 1 without shared memory',
  41: 'err=-9(NO_SHMEM) val=0x0 ; same for stop',
  42: 'err=0(SUCCESS) val=0x0 ; counter 18 ran since line 10',
  43: '=0x12 ; S/U cycles only: R11 (10) + reads O12, O16 + R26 (5) + read O27 = 18',
  44: 'err=0(SUCCESS) val=0x0 ; stop mcycle and minstret, both running since boot',
  50: 'err=0(SUCCESS) val=0x0 ; sbi_pmu_event_get_info',
  51: '=0x1 ; cycles is in the map',
  52: '=0x0 ; firmware events are not in the hardware map',
  53: '=0x1 ; a raw index matches any entry with select = mask = 0',
  54: 'err=-3(INVALID_PARAM) val=0x0 ; num_entries 0',
  55: 'err=-5(INVALID_ADDRESS) val=0x0 ; not supervisor memory',
  56: 'err=0(SUCCESS) val=0x3000000 ; SBI 3.0',
  57: 'err=0(SUCCESS) val=0x1 ; OpenSBI',
  58: 'err=0(SUCCESS) val=0x10009 ; 1.9',
  59: 'err=0(SUCCESS) val=0x1 ; PMU present',
  60: 'err=0(SUCCESS) val=0x0 ; QEMU virt mvendorid',
  61: 'err=0(SUCCESS) val=0x0 ; send_ipi',
  62: 'err=0(SUCCESS) val=0x0 ; remote_fence_i',
  63: 'err=-2(NOT_SUPPORTED) val=0x0 ; unknown extension',
  64: 'err=-2(NOT_SUPPORTED) val=0x0 ; unknown PMU function',
  65: '=0x2fff8 ; OF of mhpmevent3..15 and 17 (boot and config set OF; start cleared 18, RESET zeroed 16)',
  66: '=0x0 ; counter 3 never used',
};

/** The fixture with the expected results appended. */
function expectedRun(text: string): ScriptStep[] {
  const lines = text.split('\n').map((l) => {
    const m = /^([A-Z])(\d+) /.exec(l);
    const want = m ? EXPECTED[Number(m[2])] : undefined;
    if (want === undefined) return l;
    const body = l.includes(' ; ') ? l.slice(0, l.indexOf(' ; ')) : l;
    return `${body}${want.startsWith('=') ? '' : ' -> '}${want}`;
  });
  return parseScript(lines, 'expected');
}

describe('qemu-virt-all.sbi on OpenSBI 1.9', () => {
  const text = readFileSync(FIXTURE, 'utf8');
  it('gives the answers typed from the source', () => {
    const config = qemuVirtConfig();
    const hart = pmuUnitHart(config);
    const run = runScript(config, text, hart, 'qemu-virt-all.sbi');
    expect(compareRuns(expectedRun(text), run.steps)).toBeUndefined();
    // Every cycle recorded for the RTL replay: the firmware's M-mode accesses, then R and O lines.
    expect(hart.cycles.length).toBe(hart.outputs.length);
    expect(hart.cycles.every((c) => c.record.priv !== 3 || c.csr !== undefined)).toBe(true);
    expect(hart.cycles.filter((c) => c.record.priv !== 3).length).toBe(10 + 1 + 1 + 5 + 1 + 1 + 1 + 1);
  });
  it('formats a run that parses back to the same results', () => {
    const config = qemuVirtConfig();
    const run = runScript(config, text, pmuUnitHart(config));
    const again = parseScript(formatScript(run.steps));
    expect(compareRuns(again, run.steps)).toBeUndefined();
    expect(formatScript(again)).toBe(formatScript(run.steps));
  });
  it('reports the first difference', () => {
    const config = qemuVirtConfig();
    const run = runScript(config, text, pmuUnitHart(config));
    const wrong = parseScript(text.replace('C1 pmu.num_counters', 'C1 pmu.num_counters -> err=0(SUCCESS) val=0x24'));
    expect(compareRuns(wrong, run.steps)).toMatchObject({ line: 3, expected: 'err=0(SUCCESS) val=0x24', actual: 'err=0(SUCCESS) val=0x23' });
  });
  it('names file:line and what was expected for a bad line', () => {
    expect(() => parseScript('C1 pmu.num_counters\nX2 nonsense', 'bad.sbi')).toThrow(/expected a step/);
    expect(() => parseScript('C1 pmu.nope', 'bad.sbi')).toThrow(expect.objectContaining({ location: { file: 'bad.sbi', line: 1 } }));
    expect(() => parseScript('C1 pmu.num_counters a7=0x1')).toThrow(/a0\.\.a5/);
    expect(() => parseScript('A1 fw-event NOPE')).toThrow(/firmware event/);
    expect(() => parseScript('C1 pmu.num_counters -> err=-3(SUCCESS) val=0x0')).toThrow(/is not SUCCESS/);
  });
});
