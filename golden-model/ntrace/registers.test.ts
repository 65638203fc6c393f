/**
 * The N-Trace register map and its run-time model. The register words below are typed by hand
 * from the Trace Control Interface tables (riscv-non-isa/tg-nexus-trace docs/tci/
 * tci_encoder_control.adoc: bit positions) and the N-Trace controls table (docs/ntrace/
 * ntrace_controls.adoc: trTeInstMode 3/6, trTeFormat 1, trTeProtocolMajor 1), not computed from
 * registers.ts.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { emptyRecord, Trigger, type RetirementRecord } from '../hart/records.ts';
import { NtraceControlRegisters, ntraceMemoryMap, registerAddresses, registerMapErrors, resetWord, syncMaxOf, type RegisterSpec } from './registers.ts';
import { NTRACE_SETTINGS, ntraceConfig, type NtraceConfig } from './settings.ts';

const config = (sets: string[] = []): NtraceConfig => ntraceConfig(resolveSettings('test', NTRACE_SETTINGS, sets));
/** The shipped ntrace-btm-mcu component (ipxact/components/ntrace-btm-mcu.xml). */
const BTM_MCU = ['xlen=32', 'ntrace_mode=btm', 'sync_period=256', 'fifo_bytes=16'];
const EVERY_OPTION = ['implicit_return=counter', 'repeat_history=1', 'address_msb_drop=1', 'src_width=3', 'src=5', 'timestamp=1', 'stall_enable=1', 'sync_period=1000'];

function register(c: NtraceConfig, name: string): RegisterSpec {
  for (const b of ntraceMemoryMap(c).addressBlocks) for (const r of b.registers) if (r.name === name) return r;
  throw new Error(`no register ${name}`);
}

describe('N-Trace register map', () => {
  it('has the TCI trace encoder registers at their offsets, in one 4 KiB block', () => {
    const m = ntraceMemoryMap(config());
    expect(m.addressBlocks.map((b) => [b.name, b.baseAddress, b.range, b.width])).toEqual([['control', 0, 0x1000, 32]]);
    expect(m.addressBlocks[0]!.registers.map((r) => [r.name, r.offset])).toEqual([
      ['trTeControl', 0x000], ['trTeImpl', 0x004], ['trTeInstFeatures', 0x008], ['trTeInstFilters', 0x00c], ['trTeDataControl', 0x010],
      ['trTeDataFilters', 0x01c], ['trTsControl', 0x040], ['trTeTrigDbgControl', 0x050], ['trTeTrigExtInControl', 0x054], ['trTeTrigExtOutControl', 0x058],
    ]);
  });

  it('ntrace-btm-mcu: the reset words typed from the spec tables', () => {
    const c = config(BTM_MCU);
    // trTeActive, trTeEnable, trTeInstTracing 1; trTeEmpty 1; trTeInstMode 3 (BTM); trTeInstTrigEnable 1;
    // trTeInstSyncMode 1 (messages); trTeInstSyncMax 4 (2^(4+4) = 256); trTeFormat 1 (N-Trace).
    expect(resetWord(c, 0x000)).toBe(0x0141_083fn);
    // trTeVerMajor 1, trTeVerMinor 0, trTeCompType 1, trTeProtocolMajor 1, trTeProtocolMinor 0.
    expect(resetWord(c, 0x004)).toBe(0x0001_0101n);
    expect(resetWord(c, 0x008)).toBe(0n);
    for (const a of [0x00c, 0x010, 0x01c, 0x040, 0x050, 0x054, 0x058]) expect(resetWord(c, a), a.toString(16)).toBe(0n);
    expect(resetWord(c, 0x014)).toBeUndefined();
    expect(resetWord(c, 0x002)).toBeUndefined();
    expect(resetWord(c, 0x044)).toBeUndefined();
  });

  it('the default HTM encoder: trTeInstMode 6, no periodic sync', () => {
    expect(resetWord(config(), 0x000)).toBe(0x0100_086fn);
  });

  it('every option: stall, sync 1000, implicit return, repeated history, MSB drop, SRC 5 of 3 bits, timestamps', () => {
    const c = config(EVERY_OPTION);
    // ... | trTeInstStallEna (bit 13) | trTeInstSyncMode 1 | trTeInstSyncMax 6 (2^10 >= 1000).
    expect(resetWord(c, 0x000)).toBe(0x0161_286fn);
    // trTeInstEnImplicitReturn (3), trTeInstImplicitReturnMode 1 (7:6), trTeInstEnRepeatedHistory (8),
    // trTeInstExtendAddrMSB (10), trTeSrcID 5 (27:16), trTeSrcBits 3 (31:28).
    expect(resetWord(c, 0x008)).toBe(0x3005_0548n);
    // trTsActive 1, trTsMode 1 (External), trTsEnable (15), trTsWidth 63 (29:24).
    expect(resetWord(c, 0x040)).toBe(0x3f00_8011n);
    expect(resetWord(config(['implicit_return=stack']), 0x008)).toBe(0x0000_00c8n);
  });

  it('ownership: trTeContext (trTeControl bit 9) reads 1, read-only; 0 without Ownership messages', () => {
    // The default HTM word 0x0100_086f with bit 9 (trTeContext) set.
    expect(resetWord(config(['ownership=1']), 0x000)).toBe(0x0100_0a6fn);
    expect(resetWord(config(['ownership=1', 'context_width=0']), 0x000)).toBe(0x0100_0a6fn);
    const f = register(config(['ownership=1']), 'trTeControl').fields.find((x) => x.name === 'trTeContext')!;
    expect([f.bitOffset, f.bitWidth, f.access, f.reset]).toEqual([9, 1, 'read-only', 1n]);
    expect(register(config(), 'trTeControl').fields.find((x) => x.name === 'trTeContext')!.reset).toBe(0n);
    // A write of 0 to it (byte lane 1) changes nothing.
    const r = new NtraceControlRegisters(config(['ownership=1']));
    r.write(0x000, 0x0007, 0b0011);
    expect(r.read(0x000).data & 0x200).toBe(0x200);
  });

  it('trTeInstSyncMax: the smallest m with 2^(m+4) >= sync_period', () => {
    expect([0, 1, 7, 16, 17, 32, 33, 256, 1000, 1024, 1 << 19].map(syncMaxOf)).toEqual([0, 0, 0, 0, 1, 1, 2, 4, 6, 6, 15]);
    expect(registerMapErrors(config(['sync_period=524288']))).toEqual([]);
    const errors = registerMapErrors(config(['sync_period=524289']));
    expect(errors.map((e) => [e.location.path, e.message])).toEqual([['parameters/sync_period', 'sync_period is 524289; allowed: 0..524288 (trTeInstSyncMax can say at most 2^19 messages)']]);
    expect(registerMapErrors(config(EVERY_OPTION))).toEqual([]);
    expect(registerMapErrors(config(['src_width=12', 'src=4095']))).toEqual([]);
  });

  it('has no overlapping fields, and only trTeControl has fields with state', () => {
    for (const sets of [[], BTM_MCU, EVERY_OPTION]) {
      for (const b of ntraceMemoryMap(config(sets)).addressBlocks) {
        for (const r of b.registers) {
          let used = 0n;
          for (const f of r.fields) {
            const mask = ((1n << BigInt(f.bitWidth)) - 1n) << BigInt(f.bitOffset);
            expect(used & mask, `${r.name}.${f.name}`).toBe(0n);
            used |= mask;
            expect(f.bitOffset + f.bitWidth).toBeLessThanOrEqual(32);
            if (r.name !== 'trTeControl') expect(f.access, `${r.name}.${f.name}`).toBe('read-only');
          }
        }
      }
    }
    const rw = register(config(), 'trTeControl').fields.filter((f) => f.access === 'read-write').map((f) => [f.name, f.bitOffset, f.oneToClear === true]);
    expect(rw).toEqual([['trTeActive', 0, false], ['trTeEnable', 1, false], ['trTeInstTracing', 2, false], ['trTeInstStallOrOverflow', 12, true]]);
  });
});

const rec = (over: Partial<RetirementRecord> = {}): RetirementRecord => ({ ...emptyRecord(), iretire: 2, iaddr: 0x100n, ...over });

describe('N-Trace register run-time model', () => {
  it('reads the reset words, pslverr for an address without a register', () => {
    const c = config(BTM_MCU);
    const r = new NtraceControlRegisters(c);
    for (const a of registerAddresses(c)) expect(r.read(a)).toEqual({ data: Number(resetWord(c, a)), error: false });
    expect(r.read(0x002)).toEqual({ data: 0, error: true });
    expect(r.write(0x044, -1, 0xf)).toEqual({ data: 0, error: true });
    expect(r.write(0x008, -1, 0xf)).toEqual({ data: 0, error: false });
    expect(r.read(0x008).data).toBe(0);
  });

  it('a write of trTeInstTracing 0 is a trace-off trigger on the record taken with it; 1 a trace-on', () => {
    const r = new NtraceControlRegisters(config());
    r.write(0x000, 0b011, 0b0001);
    expect(r.take(rec()).trigger).toBe(Trigger.traceOff);
    expect(r.read(0x000).data & 0b111).toBe(0b011);
    expect(r.take(rec()).trigger).toBe(0); // once only
    r.write(0x000, 0b111, 0b0001);
    expect(r.take(rec({ trigger: Trigger.notify })).trigger).toBe(Trigger.notify | Trigger.traceOn);
    expect(r.tracing).toBe(true);
    // Asking for what it already is asks for nothing.
    r.write(0x000, 0b111, 0b0001);
    expect(r.take(rec()).trigger).toBe(0);
  });

  it('a request waits for a record neither halted nor in reset; a later write replaces it', () => {
    const r = new NtraceControlRegisters(config());
    r.write(0x000, 0b011, 0b0001);
    expect(r.take(rec({ halted: true })).trigger).toBe(Trigger.traceOff);
    expect(r.take(rec({ reset: true })).trigger).toBe(Trigger.traceOff);
    expect(r.tracing).toBe(true);
    expect(r.take(rec()).trigger).toBe(Trigger.traceOff);
    expect(r.tracing).toBe(false);
    r.write(0x000, 0b111, 0b0001);
    r.take(rec({ halted: true }));
    r.write(0x000, 0b011, 0b0001); // back to off before it counted: nothing to do
    expect(r.take(rec()).trigger).toBe(0);
    expect(r.tracing).toBe(false);
  });

  it('trTeActive 0 clears trTeEnable; the hart trace-on triggers are ignored while either is 0; trace-off always acts', () => {
    const r = new NtraceControlRegisters(config());
    r.write(0x000, 0b110, 0b0001); // trTeActive 0: enable and tracing read 0
    expect(r.take(rec()).trigger).toBe(Trigger.traceOff);
    expect(r.read(0x000).data & 0b111).toBe(0);
    expect(r.take(rec({ trigger: Trigger.traceOn })).trigger).toBe(0);
    expect(r.tracing).toBe(false);
    r.write(0x000, 0b011, 0b0001); // enabled, instruction trace still off: the hart's triggers act again
    expect(r.take(rec({ trigger: Trigger.traceOn })).trigger).toBe(Trigger.traceOn);
    expect(r.tracing).toBe(true);
    expect(r.take(rec({ trigger: Trigger.traceOn | Trigger.traceOff })).trigger).toBe(Trigger.traceOn | Trigger.traceOff);
    expect(r.tracing).toBe(false);
  });

  it('trTeInstStallOrOverflow: write 1 to clear in byte lane 1, cleared by trTeEnable 0 -> 1, kept otherwise', () => {
    const r = new NtraceControlRegisters(config());
    r.stallOrOverflow = true;
    r.write(0x000, 0x1007, 0b0001); // lane 0 only (trTeActive, trTeEnable, trTeInstTracing stay 1)
    expect(r.read(0x000).data & 0x1000).toBe(0x1000);
    r.write(0x000, 0x0000, 0b0010);
    expect(r.read(0x000).data & 0x1000).toBe(0x1000);
    r.write(0x000, 0x1000, 0b0010);
    expect(r.read(0x000).data & 0x1000).toBe(0);
    r.stallOrOverflow = true;
    r.write(0x000, 0b111, 0b0001); // already enabled: kept
    expect(r.read(0x000).data & 0x1000).toBe(0x1000);
    r.write(0x000, 0b001, 0b0001);
    r.write(0x000, 0b011, 0b0001);
    expect(r.read(0x000).data & 0x1000).toBe(0);
  });
});
