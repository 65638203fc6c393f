/**
 * Directed tests of the SBI firmware model on the qemu-virt platform (16 hpm counters 3..18:
 * num_hw_ctrs = 19, 16 firmware counters 19..34). Expected values are worked out from the SBI
 * text and from OpenSBI's lib/sbi/sbi_pmu.c (the function is named in each comment).
 */
import { describe, expect, it } from 'vitest';
import { Eid, SbiError } from './constants.ts';
import { SbiPmuFirmware, type SbiRet } from './firmware.ts';
import { SbiMemory } from './memory.ts';
import { busOf, RecordingUnit } from './test-fixtures/recording-unit.ts';
import { qemuVirtConfig } from './test-fixtures/qemu-virt.ts';

const OF = 1n << 63n;
const MINH = 1n << 62n;
const SINH = 1n << 61n;
const UINH = 1n << 60n;
const ALL = (1n << 64n) - 1n;
const MCOUNTINHIBIT = 0x320;

function setup(over: Parameters<typeof qemuVirtConfig>[0] = {}) {
  const config = qemuVirtConfig(over);
  const block = new RecordingUnit(config);
  const memory = new SbiMemory();
  const fw = new SbiPmuFirmware(config, busOf(block), { memory });
  fw.boot();
  block.log.length = 0;
  const pmu = (fid: number, ...args: bigint[]): SbiRet => fw.ecall(Eid.pmu, fid, args);
  return { config, block, fw, pmu, memory };
}

const ok = (value: bigint): SbiRet => ({ error: SbiError.SUCCESS, value });
const err = (error: bigint): SbiRet => ({ error, value: 0n });

describe('boot (sbi_hart.c mstatus_init, sbi_pmu_init)', () => {
  it('writes scounteren = 7, mcounteren = all ones, mcountinhibit = 0xfffffff8, then mhpmevent3..18 = OF|MINH', () => {
    const config = qemuVirtConfig();
    const block = new RecordingUnit(config);
    const fw = new SbiPmuFirmware(config, busOf(block));
    fw.boot();
    const writes = block.log.map((a) => [a.address, a.wdata]);
    expect(writes.slice(0, 3)).toEqual([
      [0x106, 7n],
      [0x306, ALL],
      [0x320, 0xfffffff8n],
    ]);
    expect(writes.slice(3)).toEqual(Array.from({ length: 16 }, (_, i) => [0x323 + i, OF | MINH]));
    expect(block.log.every((a) => a.write && a.priv === 3)).toBe(true);
    // Counters 0 and 2 count (their mcountinhibit bits clear), bound to events 1 and 2; 3..18 inhibited.
    expect(block.get(MCOUNTINHIBIT)).toBe(0x7fff8n);
    expect([0, 1, 2, 3].map((c) => fw.boundEvent(c))).toEqual([1, undefined, 2, undefined]);
  });
});

describe('num_counters and counter_get_info (sbi_pmu_num_ctr, sbi_pmu_ctr_get_info)', () => {
  it('counts 19 hardware slots (highest hpm counter 18, plus one) and 16 firmware counters', () => {
    expect(setup().pmu(0)).toEqual(ok(35n));
  });
  it('describes counters: CSR 0xC00 + index, width - 1 in [17:12], firmware type in bit 63', () => {
    const { pmu } = setup();
    expect(pmu(1, 0n)).toEqual(ok(0xc00n | (63n << 12n)));
    expect(pmu(1, 1n)).toEqual(err(SbiError.INVALID_PARAM)); // time: not in mhpm_mask | CY | IR
    expect(pmu(1, 2n)).toEqual(ok(0xc02n | (63n << 12n)));
    expect(pmu(1, 18n)).toEqual(ok(0xc12n | (63n << 12n)));
    expect(pmu(1, 19n)).toEqual(ok((1n << 63n) | (63n << 12n)));
    expect(pmu(1, 34n)).toEqual(ok((1n << 63n) | (63n << 12n)));
    expect(pmu(1, 35n)).toEqual(err(SbiError.INVALID_PARAM));
  });
  it('reports a missing counter inside the hardware range as INVALID_PARAM', () => {
    const config = { ...qemuVirtConfig(), counterMask: 0x7fef8 }; // counter 8 missing
    const fw = new SbiPmuFirmware(config, busOf(new RecordingUnit(config)));
    fw.boot();
    expect(fw.ecall(Eid.pmu, 1, [8n])).toEqual(err(SbiError.INVALID_PARAM));
    expect(fw.ecall(Eid.pmu, 1, [9n]).error).toBe(SbiError.SUCCESS);
  });
});

describe('counter_config_matching (sbi_pmu_ctr_cfg_match, pmu_ctr_find_hw)', () => {
  it('with Sscofpmf puts cycles on the highest free inhibited programmable counter, programmed OF|MINH|event', () => {
    const { pmu, block, fw } = setup();
    expect(pmu(2, 0n, 0x7ffffn, 0n, 1n)).toEqual(ok(18n));
    expect(block.log.map((a) => [a.address, a.write])).toEqual([
      [MCOUNTINHIBIT, false],
      [0x323 + 15, true],
    ]);
    expect(block.get(0x332)).toBe(OF | MINH | 1n);
    expect(pmu(2, 0n, 0x7ffffn, 0n, 1n)).toEqual(ok(17n));
    expect(pmu(2, 0n, 0x7ffffn, 0n, 2n)).toEqual(ok(16n)); // instructions: entry 0x7fffc, 16 is the highest free one
    expect(fw.boundEvent(18)).toBe(1);
  });
  it('without Sscofpmf answers counter 0 / 2 for cycles / instructions, whatever the set, with no CSR access', () => {
    const { pmu, block } = setup({ sscofpmf: false });
    expect(pmu(2, 3n, 0x1n, 0n, 1n)).toEqual(ok(0n)); // set = {3}: pmu_ctr_find_hw returns the fixed counter first
    expect(pmu(2, 0n, 0x7ffffn, 0n, 2n)).toEqual(ok(2n));
    expect(block.log).toEqual([]);
  });
  it('falls back to the fixed counter when no programmable one is in the set (Sscofpmf), also for cmask 0', () => {
    const { pmu } = setup();
    expect(pmu(2, 0n, 0x1n, 0n, 1n)).toEqual(ok(0n));
    expect(pmu(2, 0n, 0n, 0n, 1n)).toEqual(ok(0n)); // sbi_fls(0) = 0 passes the range check
    expect(pmu(2, 0n, 0n, 0n, 0x10019n)).toEqual(err(SbiError.NOT_SUPPORTED));
  });
  it('programs a cache event with the zero-extended event index and honours SINH/UINH (MINH always) with Sscofpmf', () => {
    const { pmu, block } = setup();
    expect(pmu(2, 0n, 0x7fff8n, 0x60n, 0x10019n)).toEqual(ok(18n));
    expect(block.get(0x332)).toBe(OF | MINH | SINH | UINH | 0x10019n);
  });
  it('without Sscofpmf writes the bare event value and ignores the SET_*INH flags', () => {
    const { pmu, block } = setup({ sscofpmf: false });
    expect(pmu(2, 0n, 0x7fff8n, 0xf8n, 0x1001bn)).toEqual(ok(18n));
    expect(block.get(0x332)).toBe(0x1001bn);
  });
  it('AUTO_START starts a general hardware event but not a cache event; CLEAR_VALUE likewise', () => {
    const { pmu, block } = setup();
    block.set(0xb12, 0x55n);
    expect(pmu(2, 0n, 0x7fff8n, 0x6n, 0x10019n)).toEqual(ok(18n)); // type 1: flags ignored
    expect((block.get(MCOUNTINHIBIT) >> 18n) & 1n).toBe(1n);
    expect(block.get(0xb12)).toBe(0x55n);
    block.set(0xb11, 0x66n);
    expect(pmu(2, 0n, 0x7fff8n, 0x6n, 1n)).toEqual(ok(17n)); // type 0: cleared and started
    expect(block.get(0xb11)).toBe(0n);
    expect((block.get(MCOUNTINHIBIT) >> 17n) & 1n).toBe(0n);
    expect(block.get(0x331)).toBe(MINH | 1n); // pmu_ctr_enable_irq_hw cleared OF
  });
  it('rejects invalid events and sets with INVALID_PARAM, unmapped events with NOT_SUPPORTED', () => {
    const { pmu } = setup();
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0xbn)).toEqual(err(SbiError.INVALID_PARAM)); // code 11 >= SBI_PMU_HW_GENERAL_MAX
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0x40000n)).toEqual(err(SbiError.INVALID_PARAM)); // type 4
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0x1003fn)).toEqual(err(SbiError.INVALID_PARAM)); // cache id 7
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0xf0016n)).toEqual(err(SbiError.INVALID_PARAM)); // firmware code 22 reserved
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0x20001n)).toEqual(err(SbiError.INVALID_PARAM)); // raw code must be 0
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0x3n)).toEqual(err(SbiError.NOT_SUPPORTED)); // not in the map
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0x20000n, 0x5n)).toEqual(err(SbiError.NOT_SUPPORTED)); // no raw map
    expect(pmu(2, 35n, 1n, 0n, 1n)).toEqual(err(SbiError.INVALID_PARAM)); // base past the counters
    expect(pmu(2, 0n, 1n << 35n, 0n, 1n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(2, 19n, 1n, 0n, 0x10019n)).toEqual(err(SbiError.NOT_SUPPORTED)); // cbase >= num_hw_ctrs
  });
  it('SKIP_MATCH needs the first counter of the set to be configured', () => {
    const { pmu } = setup();
    expect(pmu(2, 5n, 1n, 1n, 0x10019n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(2, 0n, 0x7fff8n, 0n, 0x10019n)).toEqual(ok(18n));
    expect(pmu(2, 18n, 1n, 1n, 0x10019n)).toEqual(ok(18n));
  });
  it('ignores reserved flag bits (OpenSBI 1.9); the spec variant rejects them and cmask 0', () => {
    expect(setup().pmu(2, 0n, 0x7fff8n, 0x100n, 0x10019n)).toEqual(ok(18n));
    const spec = setup({ sbiBehaviour: 'spec' });
    expect(spec.pmu(2, 0n, 0x7fff8n, 0x100n, 0x10019n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(spec.pmu(2, 0n, 0n, 0n, 1n)).toEqual(err(SbiError.INVALID_PARAM));
  });
  it('spec variant: cycles on counter 0 when it is in the set, else the lowest free programmable counter; MINH only when asked', () => {
    const { pmu, block } = setup({ sbiBehaviour: 'spec' });
    expect(pmu(2, 0n, 0x7ffffn, 0n, 1n)).toEqual(ok(0n));
    expect(pmu(2, 3n, 0xffffn, 0x40n, 1n)).toEqual(ok(3n));
    expect(block.get(0x323)).toBe(OF | SINH | 1n);
  });
  it('firmware events take the first free firmware counter (pmu_ctr_find_fw)', () => {
    const { pmu, fw } = setup();
    expect(pmu(2, 0n, (1n << 35n) - 1n, 0n, 0xf0005n)).toEqual(ok(19n));
    expect(pmu(2, 0n, (1n << 35n) - 1n, 0n, 0xf0004n)).toEqual(ok(20n));
    expect(fw.boundEvent(20)).toBe(0xf0004);
    // OpenSBI 1.9 tests active_events[i] (i = mask bit) instead of [cbase + i]: with cbase 19 and
    // bit 0 it looks at counter 0 (bound to cycles) and finds nothing.
    expect(pmu(2, 19n, 4n, 0n, 0xf0006n)).toEqual(err(SbiError.NOT_SUPPORTED) );
    const spec = setup({ sbiBehaviour: 'spec' });
    expect(spec.pmu(2, 19n, 1n, 0n, 0xf0006n)).toEqual(ok(19n));
  });
});

describe('counter_start and counter_stop (sbi_pmu_ctr_start, sbi_pmu_ctr_stop)', () => {
  it('starts a configured counter: read mcountinhibit, clear OF, write the initial value, clear the inhibit bit', () => {
    const { pmu, block } = setup();
    pmu(2, 0n, 0x7fff8n, 0n, 0x10019n);
    block.log.length = 0;
    expect(pmu(3, 18n, 1n, 1n, 0x1234n)).toEqual(ok(0n));
    expect(block.log.map((a) => [a.address, a.write, a.wdata])).toEqual([
      [0x320, false, 0n],
      [0x332, false, 0n],
      [0x332, true, MINH | 0x10019n],
      [0xb12, true, 0x1234n],
      [0x320, true, 0x3fff8n],
    ]);
    expect(pmu(3, 18n, 1n, 0n, 0n)).toEqual(err(SbiError.ALREADY_STARTED));
    expect(pmu(3, 0n, 1n, 0n, 0n)).toEqual(err(SbiError.ALREADY_STARTED)); // cycles counts since boot
  });
  it('skips unusable counters and answers the status of the last one acted on', () => {
    const { pmu, block } = setup();
    expect(pmu(3, 5n, 1n, 0n, 0n)).toEqual(err(SbiError.INVALID_PARAM));
    pmu(2, 0n, 0x7fff8n, 0n, 0x10019n); // 18
    pmu(2, 0n, 0x7fff8n, 0n, 0x1001bn); // 17
    expect(pmu(3, 18n, 1n, 0n, 0n).error).toBe(SbiError.SUCCESS);
    expect(pmu(3, 16n, 7n, 0n, 0n)).toEqual(err(SbiError.ALREADY_STARTED)); // 16 skipped, 17 started, 18 already
    expect((block.get(MCOUNTINHIBIT) >> 17n) & 1n).toBe(0n);
    expect(pmu(3, 0n, 0n, 0n, 0n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(3, 18n, 1n, 2n, 0n)).toEqual(err(SbiError.NO_SHMEM));
    expect(pmu(3, 35n, 1n, 0n, 0n)).toEqual(err(SbiError.INVALID_PARAM));
  });
  it('spec variant: all or nothing', () => {
    const { pmu, block } = setup({ sbiBehaviour: 'spec' });
    pmu(2, 3n, 0xffffn, 0n, 0x10019n); // 3
    pmu(2, 3n, 0xffffn, 0n, 0x1001bn); // 4
    expect(pmu(3, 4n, 1n, 0n, 0n).error).toBe(SbiError.SUCCESS);
    expect(pmu(3, 3n, 3n, 0n, 0n)).toEqual(err(SbiError.ALREADY_STARTED));
    expect((block.get(MCOUNTINHIBIT) >> 3n) & 1n).toBe(1n);
    expect(pmu(3, 3n, 1n, 4n, 0n)).toEqual(err(SbiError.INVALID_PARAM)); // reserved flag
    expect(pmu(3, 3n, 1n, 2n, 0n)).toEqual(err(SbiError.NO_SHMEM));
  });
  it('stops, answers ALREADY_STOPPED, and RESET unbinds the counter and zeroes its mhpmevent', () => {
    const { pmu, block, fw } = setup();
    pmu(2, 0n, 0x7fff8n, 4n, 1n); // 18, started (type 0)
    expect(pmu(4, 18n, 1n, 0n)).toEqual(ok(0n));
    expect(pmu(4, 18n, 1n, 0n)).toEqual(err(SbiError.ALREADY_STOPPED));
    expect(pmu(4, 18n, 1n, 1n)).toEqual(err(SbiError.ALREADY_STOPPED)); // RESET still unbinds
    expect(fw.boundEvent(18)).toBeUndefined();
    expect(block.get(0x332)).toBe(0n);
    expect(pmu(4, 18n, 1n, 0n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(4, 18n, 1n, 2n)).toEqual(err(SbiError.NO_SHMEM));
    expect(pmu(4, 0n, 1n, 1n)).toEqual(ok(0n)); // stop cycles; RESET leaves counters 0..2 bound
    expect(fw.boundEvent(0)).toBe(1);
  });
});

describe('firmware counters (sbi_pmu_ctr_fw_read, sbi_pmu_ctr_incr_fw)', () => {
  it('counts firmware events on started counters only', () => {
    const { pmu, fw } = setup();
    expect(pmu(2, 0n, (1n << 35n) - 1n, 4n, 0xf0005n)).toEqual(ok(19n)); // SET_TIMER, auto-started
    expect(pmu(2, 0n, (1n << 35n) - 1n, 0n, 0xf0004n)).toEqual(ok(20n)); // ILLEGAL_INSN, stopped
    fw.ecall(Eid.time, 0, [0x1000n]);
    fw.fwEvent('SET_TIMER');
    fw.fwEvent('ILLEGAL_INSN');
    expect(pmu(5, 19n)).toEqual(ok(2n));
    expect(pmu(5, 20n)).toEqual(ok(0n));
    expect(pmu(3, 20n, 1n, 1n, 10n)).toEqual(ok(0n));
    fw.fwEvent('ILLEGAL_INSN');
    expect(pmu(5, 20n)).toEqual(ok(11n));
    expect(pmu(6, 20n)).toEqual(ok(0n));
    expect(pmu(4, 20n, 1n, 0n)).toEqual(ok(0n));
    expect(pmu(4, 20n, 1n, 0n)).toEqual(ok(0n)); // pmu_ctr_stop_fw has no ALREADY_STOPPED
  });
  it('rejects hardware and unbound counters', () => {
    const { pmu } = setup();
    expect(pmu(5, 0n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(5, 21n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(5, 99n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(6, 0n)).toEqual(ok(0n)); // RV64: sbi_ecall_pmu.c answers 0 without a check
    expect(setup({ sbiBehaviour: 'spec' }).pmu(6, 0n)).toEqual(err(SbiError.INVALID_PARAM));
  });
  it('counts IPIs and fences per target hart; hypervisor fences need H', () => {
    const { pmu, fw } = setup();
    pmu(2, 0n, (1n << 35n) - 1n, 4n, 0xf0006n); // IPI_SENT
    pmu(2, 0n, (1n << 35n) - 1n, 4n, 0xf0008n); // FENCE_I_SENT
    expect(fw.ecall(Eid.ipi, 0, [0b110n, 0n])).toEqual(ok(0n));
    expect(fw.ecall(Eid.rfence, 0, [0b1n, 0n])).toEqual(ok(0n));
    expect(pmu(5, 19n)).toEqual(ok(2n));
    expect(pmu(5, 20n)).toEqual(ok(1n));
    const noH = new SbiPmuFirmware({ ...qemuVirtConfig(), hExt: false }, busOf(new RecordingUnit(qemuVirtConfig())));
    expect(noH.ecall(Eid.rfence, 4, [1n, 0n])).toEqual(err(SbiError.NOT_SUPPORTED));
  });
});

describe('shared memory functions', () => {
  it('snapshot_set_shmem is not supported by OpenSBI 1.9 (sbi_ecall_pmu.c)', () => {
    expect(setup().pmu(7, 0x80000000n, 0n, 0n)).toEqual(err(SbiError.NOT_SUPPORTED));
  });
  it('spec variant: snapshot checks, then a stop with TAKE_SNAPSHOT writes the values relative to cbase', () => {
    const { pmu, memory, fw } = setup({ sbiBehaviour: 'spec' });
    memory.map(0x80000000n, 4096);
    expect(pmu(7, 0x80000010n, 0n, 0n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(7, 0x90000000n, 0n, 0n)).toEqual(err(SbiError.INVALID_ADDRESS));
    expect(pmu(7, 0x80000000n, 0n, 1n)).toEqual(err(SbiError.INVALID_PARAM));
    expect(pmu(7, 0x80000000n, 0n, 0n)).toEqual(ok(0n));
    expect(pmu(2, 0n, (1n << 35n) - 1n, 4n, 0xf0005n)).toEqual(ok(19n));
    fw.fwEvent('SET_TIMER');
    expect(pmu(4, 19n, 1n, 2n)).toEqual(ok(0n));
    expect(memory.read(0x80000008n, 8)).toBe(1n);
    expect(pmu(7, ALL, ALL, 0n)).toEqual(ok(0n));
    expect(pmu(3, 19n, 1n, 2n, 0n)).toEqual(err(SbiError.NO_SHMEM));
  });
  it('event_get_info: checks in OpenSBI 1.9 order, then one output word per entry', () => {
    const { pmu, memory } = setup();
    memory.map(0x80001000n, 256);
    const events: [number, bigint][] = [[1, 0n], [3, 0n], [0x10019, 0n], [0xf0005, 0n], [0x20000, 5n], [0xb, 0n], [0, 0n]];
    events.forEach(([e, d], i) => {
      memory.write(0x80001000n + 16n * BigInt(i), 4, BigInt(e));
      memory.write(0x80001000n + 16n * BigInt(i) + 4n, 4, 0xffn);
      memory.write(0x80001008n + 16n * BigInt(i), 8, d);
    });
    expect(pmu(8, 0x80001000n, 0n, 7n, 1n)).toEqual(err(SbiError.INVALID_PARAM)); // flags
    expect(pmu(8, 0x80001000n, 0n, 0n, 0n)).toEqual(err(SbiError.INVALID_PARAM)); // no entries
    expect(pmu(8, 0x80001008n, 0n, 1n, 0n)).toEqual(err(SbiError.INVALID_PARAM)); // 16-byte alignment
    expect(pmu(8, 0x80001000n, 1n, 1n, 0n)).toEqual(err(SbiError.INVALID_ADDRESS)); // high half
    expect(pmu(8, 0x90000000n, 0n, 1n, 0n)).toEqual(err(SbiError.INVALID_ADDRESS)); // not S-mode memory
    expect(pmu(8, 0x80001000n, 0n, 17n, 0n)).toEqual(err(SbiError.INVALID_ADDRESS)); // runs past the region
    expect(pmu(8, 0x80001000n, 0n, 7n, 0n)).toEqual(ok(0n));
    const outputs = events.map((_, i) => memory.read(0x80001004n + 16n * BigInt(i), 4));
    // cycles yes, cache references no (not mapped), DTLB read miss yes, SET_TIMER no (not in the
    // hardware map), raw yes (a general entry's select/mask 0/0 matches any data), code 11 no
    // (invalid), NO_EVENT yes (the platform's <0 0 0> entry covers it).
    expect(outputs).toEqual([1n, 0n, 1n, 0n, 1n, 0n, 1n]);
  });
});

describe('base extension and dispatch (sbi_ecall_base.c)', () => {
  it('answers the identity of OpenSBI 1.9 on QEMU virt and probes the modelled extensions', () => {
    const { fw } = setup();
    const base = (fid: number, a0 = 0n): SbiRet => fw.ecall(Eid.base, fid, [a0]);
    expect(base(0)).toEqual(ok(0x3000000n));
    expect(base(1)).toEqual(ok(1n));
    expect(base(2)).toEqual(ok(0x10009n));
    expect(base(3, 0x504d55n)).toEqual(ok(1n));
    expect(base(3, 0x48534dn)).toEqual(ok(0n));
    expect([base(4), base(5), base(6)]).toEqual([ok(0n), ok(0n), ok(0n)]);
    expect(base(7)).toEqual(err(SbiError.NOT_SUPPORTED));
    expect(fw.ecall(0x12345n, 0, [])).toEqual(err(SbiError.NOT_SUPPORTED));
    expect(fw.ecall(Eid.pmu, 9, [])).toEqual(err(SbiError.NOT_SUPPORTED));
  });
});
